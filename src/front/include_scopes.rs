//! The scope an `#include` is written in. A header included inside `namespace ns {` or inside
//! a class body (`template <int W> struct group { #include "ops.cuh" };`, as tile libraries
//! share one set of operations among several classes) declares its functions in that scope:
//! `ops.cuh`'s `load` is `ns::group<W>::load`, a static method when declared `static`, with
//! the class's template parameters. Found from the includer's syntax tree at each directive;
//! the analysis names the header's functions so (see `check::header_units`).

use crate::front::syntax::text;
use crate::front::template_header::{TemplateHeader, TemplateParam};
use std::ops::Range;
use tree_sitter::Node;

/// Where a header is included, when that is inside a namespace or a class.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IncludeScope {
    /// The header as the directive names it.
    pub header: String,
    /// The enclosing namespaces and classes, outermost first, joined `a__b`.
    pub namespace: String,
    /// The template parameters of the enclosing class templates, outermost first.
    pub params: Vec<TemplateParam>,
}

impl IncludeScope {
    /// `inner` (a directive's scope in a header) placed inside this one (the header's own).
    pub fn nest(&self, inner: &IncludeScope) -> IncludeScope {
        let namespace = match (self.namespace.is_empty(), inner.namespace.is_empty()) {
            (true, _) => inner.namespace.clone(),
            (false, true) => self.namespace.clone(),
            (false, false) => format!("{}__{}", self.namespace, inner.namespace),
        };
        let params = self.params.iter().chain(&inner.params).cloned().collect();
        IncludeScope {
            header: inner.header.clone(),
            namespace,
            params,
        }
    }

    /// A function's namespace once its header is read in this scope.
    pub fn namespace_of(&self, own: &str) -> String {
        match (self.namespace.is_empty(), own.is_empty()) {
            (true, _) => own.to_string(),
            (false, true) => self.namespace.clone(),
            (false, false) => format!("{}__{own}", self.namespace),
        }
    }

    /// A function's template header once its header is read in this scope: the enclosing
    /// classes' parameters first, as a method of a class template has them.
    pub fn template_of(&self, own: Option<TemplateHeader>) -> Option<TemplateHeader> {
        if self.params.is_empty() {
            return own;
        }
        let mut h = own.unwrap_or(TemplateHeader {
            span: 0..0,
            params: Vec::new(),
        });
        h.params.splice(0..0, self.params.iter().cloned());
        Some(h)
    }
}

/// The scope of each of `includes` (name, directive span) that is written inside a namespace
/// or a class of the tree rooted at `root`.
pub fn include_scopes(
    src: &str,
    root: Node<'_>,
    includes: &[(String, Range<usize>)],
) -> Vec<IncludeScope> {
    let mut out = Vec::new();
    for (header, span) in includes {
        let Some(at) = root.descendant_for_byte_range(span.start, span.start) else {
            continue;
        };
        let mut names = Vec::new();
        let mut params = Vec::new();
        let mut cur = Some(at);
        while let Some(n) = cur {
            let inside_body = |n: Node<'_>| {
                n.child_by_field_name("body")
                    .is_some_and(|b| b.start_byte() <= span.start && span.start < b.end_byte())
            };
            match n.kind() {
                "namespace_definition" if inside_body(n) => {
                    if let Some(name) = n.child_by_field_name("name") {
                        let name: String = text(name, src).split_whitespace().collect();
                        names.push(name.replace("::", "__"));
                    }
                }
                "struct_specifier" | "class_specifier" | "union_specifier" if inside_body(n) => {
                    let Some(name) = n.child_by_field_name("name") else {
                        // An unnamed class: its functions have no name to be called by.
                        names.clear();
                        break;
                    };
                    let name = match name.child_by_field_name("name") {
                        Some(template_name) => text(template_name, src),
                        None => text(name, src),
                    };
                    names.push(name.replace("::", "__"));
                    if let Some(t) = n.parent().filter(|p| p.kind() == "template_declaration")
                        && let Some(list) = t.child_by_field_name("parameters")
                    {
                        let h = crate::front::syntax::template_header(src, t, list);
                        params.splice(0..0, h.params);
                    }
                }
                _ => {}
            }
            cur = n.parent();
        }
        if names.is_empty() {
            continue;
        }
        names.reverse();
        out.push(IncludeScope {
            header: header.clone(),
            namespace: names.join("__"),
            params,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_include_inside_a_class_template_is_in_its_scope() {
        let src = "namespace lib {\ntemplate <int W> struct group {\n  static constexpr int N = W;\n#include \"ops.cuh\"\n};\n}\n#include \"top.cuh\"\n";
        let tree = crate::front::syntax::parse(src).expect("parses");
        let at = |needle: &str| {
            let k = src.find(needle).expect("present");
            k..k + needle.len()
        };
        let includes = vec![
            ("ops.cuh".to_string(), at("#include \"ops.cuh\"")),
            ("top.cuh".to_string(), at("#include \"top.cuh\"")),
        ];
        let scopes = include_scopes(src, tree.root_node(), &includes);
        assert_eq!(scopes.len(), 1, "{scopes:?}");
        assert_eq!(scopes[0].header, "ops.cuh");
        assert_eq!(scopes[0].namespace, "lib__group");
        assert_eq!(scopes[0].params.len(), 1);
        assert_eq!(scopes[0].params[0].name, "W");
        let outer = IncludeScope {
            header: "a.cuh".into(),
            namespace: "top".into(),
            params: Vec::new(),
        };
        let nested = outer.nest(&scopes[0]);
        assert_eq!(nested.namespace, "top__lib__group");
        assert_eq!(nested.namespace_of("detail"), "top__lib__group__detail");
        assert_eq!(nested.template_of(None).map(|h| h.params.len()), Some(1));
    }
}
