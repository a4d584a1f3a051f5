//! Whether a file whose only device code is device functions (no kernel, no `__shared__` of
//! its own) can reach shared memory through what its headers define, read without lowering
//! them. A device function is analyzed on its own only when it can (see
//! `analysis::interp::reach`), so a header of device helpers over a large library need not
//! have the library lowered to find that nothing in it is analyzed.
//!
//! Every way in starts at a `__shared__` in some text: a definition holding one (a function
//! declaring an array, a wrapper class handing out `extern __shared__` memory, a file-scope
//! array). Those definitions' names are the roots; a definition that names a root is one too,
//! in any header. The file can reach shared memory when it names a root. Each text is read
//! expanded (a macro that spells `__shared__` or a root is read as what it spells), with
//! tree-sitter, only where a `__shared__` or a root is named; a mention this cannot place in
//! a named definition, or one in code the grammar could not read, answers "it can".

use crate::front::prepared::Prepared;
use crate::front::syntax::parse;
use std::collections::HashSet;
use tree_sitter::Node;

/// The keyword every way into shared memory starts from.
const SHARED: &str = "__shared__";

/// Whether a file that names `identifiers` (its expanded text's) can reach shared memory
/// through the headers `file` follows and the includers' texts in `context`.
pub fn file_can_reach_shared<'i>(
    identifiers: impl IntoIterator<Item = &'i str>,
    file: &Prepared,
    context: Option<&Prepared>,
) -> bool {
    let mut texts = Vec::new();
    let mut seen = HashSet::new();
    collect(file, false, &mut texts, &mut seen);
    if let Some(ctx) = context {
        collect(ctx, true, &mut texts, &mut seen);
    }
    let Some(roots) = roots(&texts) else {
        return true;
    };
    identifiers.into_iter().any(|w| roots.contains(w))
}

/// The expanded texts `p` reaches: its headers (nested ones too) and, for an includer's
/// context, its own text and the contexts before it.
fn collect<'p>(
    p: &'p Prepared,
    own: bool,
    texts: &mut Vec<&'p str>,
    seen: &mut HashSet<*const Prepared>,
) {
    if !seen.insert(std::ptr::from_ref(p)) {
        return;
    }
    if own {
        texts.push(&p.expanded);
    }
    for (_, _, h) in &p.pending {
        texts.push(h.expanded_text());
        collect(h.preprocessed(), false, texts, seen);
    }
    // Contexts are kept as headers with their expanded text; lowered headers, which are
    // also pending, without.
    for (_, h) in p.headers.iter().filter(|(_, h)| !h.expanded.is_empty()) {
        collect(h, true, texts, seen);
    }
}

/// The names of every definition from which shared memory can be reached, or `None` when a
/// mention could not be placed.
fn roots(texts: &[&str]) -> Option<HashSet<String>> {
    let names: Vec<HashSet<&str>> = texts
        .iter()
        .map(|c| words(c).map(|(_, w)| w).collect())
        .collect();
    let mut trees: Vec<Option<tree_sitter::Tree>> = (0..texts.len()).map(|_| None).collect();
    let mut roots: HashSet<String> = HashSet::from([SHARED.to_string()]);
    let mut fresh = roots.clone();
    while !fresh.is_empty() {
        let mut found = HashSet::new();
        for (k, text) in texts.iter().enumerate() {
            if !names[k].iter().any(|w| fresh.contains(*w)) {
                continue;
            }
            let tree = match &trees[k] {
                Some(t) => t,
                None => trees[k].insert(parse(text)?),
            };
            for (at, w) in words(text).filter(|(_, w)| fresh.contains(*w)) {
                found.extend(enclosing_names(tree.root_node(), text, at, w.len())?);
            }
        }
        fresh = found.difference(&roots).cloned().collect();
        roots.extend(fresh.iter().cloned());
    }
    Some(roots)
}

/// Each identifier of `text` with its offset.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            if b[i].is_ascii_alphabetic() || b[i] == b'_' {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                return Some((start, &text[start..i]));
            }
            if b[i].is_ascii_digit() {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                continue;
            }
            i += 1;
        }
        None
    })
}

/// The names of the definitions enclosing `text[at..at + len]`: the functions, classes and
/// namespace-scope declarations around it. Empty for a mention in a comment or a string;
/// `None` when it stands in no named definition or in code the grammar could not read.
fn enclosing_names(root: Node<'_>, text: &str, at: usize, len: usize) -> Option<Vec<String>> {
    let mut n = root.descendant_for_byte_range(at, at + len)?;
    if matches!(
        n.kind(),
        "comment" | "string_literal" | "raw_string_literal" | "char_literal" | "string_content"
    ) {
        return Some(Vec::new());
    }
    // Outermost first: a declaration counts only outside any body.
    let mut path = vec![n];
    while let Some(p) = n.parent() {
        path.push(p);
        n = p;
    }
    let mut names = Vec::new();
    let mut in_body = false;
    for n in path.into_iter().rev() {
        match n.kind() {
            "ERROR" => return None,
            "compound_statement" | "field_declaration_list" | "lambda_expression" => {
                in_body = true;
            }
            "function_definition" => {
                if let Some(d) = n.child_by_field_name("declarator") {
                    declared_names(d, text, &mut names);
                }
            }
            "class_specifier" | "struct_specifier" | "union_specifier" => {
                if let Some(name) = n.child_by_field_name("name") {
                    declared_names(name, text, &mut names);
                }
            }
            "declaration" | "field_declaration" | "alias_declaration" | "type_definition"
                if !in_body =>
            {
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    declared_names(d, text, &mut names);
                }
                if let Some(name) = n.child_by_field_name("name") {
                    declared_names(name, text, &mut names);
                }
            }
            _ => {}
        }
    }
    (!names.is_empty()).then_some(names)
}

/// The identifiers a declarator or name declares (`a::b::f`: `a`, `b` and `f`; `s[N]`: `s`),
/// leaving out parameter lists, array extents and initializers.
fn declared_names(n: Node<'_>, text: &str, out: &mut Vec<String>) {
    match n.kind() {
        "identifier"
        | "field_identifier"
        | "type_identifier"
        | "namespace_identifier"
        | "destructor_name"
        | "operator_name" => {
            if let Some(t) = text.get(n.byte_range()) {
                out.push(t.trim_start_matches('~').to_string());
            }
        }
        "parameter_list" | "template_argument_list" | "argument_list" | "initializer_list" => {}
        _ => {
            let mut c = n.walk();
            for child in n.named_children(&mut c) {
                // An array's extent and a declarator's initial value name what it uses.
                let field = n.field_name_for_named_child(child_index(n, child) as u32);
                if matches!(field, Some("size" | "value" | "default_value")) {
                    continue;
                }
                declared_names(child, text, out);
            }
        }
    }
}

fn child_index(parent: Node<'_>, child: Node<'_>) -> usize {
    let mut c = parent.walk();
    parent
        .named_children(&mut c)
        .position(|x| x.id() == child.id())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_names(texts: &[&str]) -> Option<Vec<String>> {
        let mut r: Vec<String> = roots(texts)?.into_iter().collect();
        r.sort();
        Some(r)
    }

    #[test]
    fn definitions_holding_shared_memory_and_those_naming_them_are_roots() {
        let alloc = "template <int N> struct alloc {\n  __device__ alloc() { __shared__ int a; use(a); }\n  __device__ void other() {}\n};\n";
        let user =
            "__device__ void make() { alloc<1> x; }\n__device__ int unrelated() { return 1; }\n";
        assert_eq!(
            root_names(&[alloc, user]).unwrap(),
            ["__shared__", "alloc", "make"]
        );
        // A file-scope array, and a wrapper class's method.
        let file_scope =
            "extern __shared__ float dyn[];\nnamespace n { __shared__ int tile[32]; }\n";
        let wrapper = "template <class T> struct SM { __device__ T *get() { extern __shared__ T s[]; return s; } };\n";
        assert_eq!(
            root_names(&[file_scope, wrapper]).unwrap(),
            ["SM", "__shared__", "dyn", "get", "tile"]
        );
        // Through a chain of headers, in any order.
        let far = "__device__ void outer() { make(); }\n";
        assert_eq!(
            root_names(&[far, user, alloc]).unwrap(),
            ["__shared__", "alloc", "make", "outer"]
        );
    }

    #[test]
    fn comments_name_nothing() {
        let h = "/* declare with __shared__ */ __device__ void g() {}\n";
        assert_eq!(root_names(&[h]).unwrap(), ["__shared__"]);
    }

    #[test]
    fn a_mention_outside_any_named_definition_is_a_doubt() {
        assert_eq!(root_names(&["__shared__ ;;; }}} ("]), None);
        assert_eq!(
            root_names(&["int main() { __shared__ int x; }"]).unwrap(),
            ["__shared__", "main"]
        );
    }
}
