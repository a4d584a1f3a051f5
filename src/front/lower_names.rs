//! Declarations and names the grammar reads differently from C++, and lowering puts right:
//! qualified names that came from a macro expansion (written with spaces around them), calls
//! of a class template's static method (`group<4>::load(...)`), and pointers to rows
//! (`float (*t)[33]`), which the grammar takes for a functional cast.

use crate::front::lower::{Lowering, is_type_position};
use crate::front::syntax::{children, named_children};
use tree_sitter::Node;

impl Lowering<'_> {
    /// `flash ::copy<true>(x)`: a qualifier that came from a macro expansion, which the
    /// preprocessor surrounds with spaces. The qualifiers are written joined, `flash__`, right
    /// before the last name, so that the whole reads as one identifier as when written
    /// without spaces. Returns false (nothing done) when the qualifiers touch their `::`.
    pub(crate) fn spaced_qualifiers(&mut self, n: Node<'_>) -> bool {
        let mut scopes = Vec::new();
        let mut cur = n;
        let mut gap = false;
        let last = loop {
            // `op::template f<T>`: the keyword is blanked like the spaces.
            let parts: Vec<Node<'_>> = children(cur)
                .into_iter()
                .filter(|c| c.kind() != "template")
                .collect();
            let [scope, colons, name] = parts.as_slice() else {
                return false;
            };
            if colons.kind() != "::"
                || !matches!(
                    scope.kind(),
                    "namespace_identifier" | "identifier" | "type_identifier"
                )
            {
                return false;
            }
            let after = self.src[colons.end_byte()..name.start_byte()].trim_start();
            let between = [
                &self.src[scope.end_byte()..colons.start_byte()],
                after.strip_prefix("template").unwrap_or(after),
                &self.src[colons.end_byte()..name.start_byte()],
            ];
            if between[..2].iter().any(|b| !b.bytes().all(|c| c == b' ')) {
                return false;
            }
            gap |= between.iter().any(|b| !b.is_empty());
            scopes.push(self.t(*scope));
            if name.kind() == "qualified_identifier" {
                cur = *name;
            } else if name.kind() == "dependent_name"
                && let Some(inner) = name.named_child(0)
            {
                // `op::template f<T>`: `template` stands between the `::` and the name.
                gap = true;
                break inner;
            } else {
                break *name;
            }
        };
        if !gap
            || !matches!(
                last.kind(),
                "identifier" | "template_function" | "type_identifier"
            )
        {
            return false;
        }
        let prefix: String = scopes.iter().map(|s| format!("{s}__")).collect();
        let start = last.start_byte() - prefix.len();
        self.blank.push(n.start_byte()..last.start_byte());
        self.patch(start, prefix.clone());
        if last.kind() == "template_function"
            && let Some(args) = last.child_by_field_name("arguments")
        {
            self.record_arguments(start, args);
        }
        if is_type_position(n) {
            let last_name = self.t(last).split('<').next().unwrap_or("").trim();
            self.add_typename(format!("{prefix}{last_name}"));
        }
        self.lower(last);
        true
    }

    /// `ns::group<4>::load<T>(dst, src)`: a call of a static method of a class template. The
    /// name is written joined without the class's arguments, `ns__group__load`, right before
    /// the method's name, and the class's template arguments, then the method's, are recorded
    /// at it: the analyzer binds them to the lifted method's template parameters, the class's
    /// first. Returns false (nothing done) for anything else: not a call, or more than one
    /// scope with template arguments.
    pub(crate) fn call_through_class_template(&mut self, n: Node<'_>) -> bool {
        if n.parent().is_none_or(|p| {
            p.kind() != "call_expression"
                || p.child_by_field_name("function").map(|f| f.id()) != Some(n.id())
        }) {
            return false;
        }
        let mut scopes = Vec::new();
        let mut args = None;
        let mut cur = n;
        let last = loop {
            let (Some(scope), Some(name)) = (
                cur.child_by_field_name("scope"),
                cur.child_by_field_name("name"),
            ) else {
                return false;
            };
            match scope.kind() {
                "namespace_identifier" | "type_identifier" => scopes.push(self.t(scope)),
                "template_type" if args.is_none() => {
                    let (Some(class), Some(list)) = (
                        scope.child_by_field_name("name"),
                        scope.child_by_field_name("arguments"),
                    ) else {
                        return false;
                    };
                    scopes.push(self.t(class));
                    args = Some(list);
                }
                _ => return false,
            }
            match name.kind() {
                "qualified_identifier" => cur = name,
                "identifier" | "template_function" => break name,
                _ => return false,
            }
        };
        let Some(class_args) = args else {
            return false;
        };
        let (ident, own_args) = match last.kind() {
            "template_function" => match (
                last.child_by_field_name("name"),
                last.child_by_field_name("arguments"),
            ) {
                (Some(i), Some(a)) if i.kind() == "identifier" => (i, Some(a)),
                _ => return false,
            },
            _ => (last, None),
        };
        let prefix: String = scopes.iter().map(|s| format!("{s}__")).collect();
        let Some(start) = ident.start_byte().checked_sub(prefix.len()) else {
            return false;
        };
        if start < n.start_byte() || !scopes.iter().all(|s| is_plain_name(s)) {
            return false;
        }
        let written = |l: &Self, a: Node<'_>| -> Vec<String> {
            named_children(a)
                .iter()
                .map(|x| l.t(*x).split_whitespace().collect::<Vec<_>>().join(" "))
                .collect()
        };
        let mut list = written(self, class_args);
        self.out.class_scoped_calls.push((start, list.len()));
        if let Some(a) = own_args {
            list.extend(written(self, a));
            self.blank.push(a.byte_range());
        }
        self.blank.push(n.start_byte()..ident.start_byte());
        self.patch(start, prefix);
        self.out.template_calls.push((start, list));
        true
    }

    /// `float (*t)[33] = ...;`, `T<4> (&r)[2][4] = ...;` and `T (&r) = ...;`, which the grammar reads as an
    /// expression (a functional cast `float(*t)`, subscripted): left as the C declaration it
    /// is (`&` becomes `*`), only the initializer lowered.
    pub(crate) fn row_pointer_declaration(&mut self, n: Node<'_>) -> bool {
        let Some(right) = n
            .named_child(0)
            .filter(|a| a.kind() == "assignment_expression")
            .and_then(|a| a.child_by_field_name("right"))
        else {
            return false;
        };
        let src = self.t(n);
        let toks = crate::front::lex::tokenize(src);
        let word = |k: usize| toks.get(k).map_or("", |t| t.text(src));
        let is_type = |w: &str| {
            crate::front::names::FUNCTIONAL_CASTS
                .iter()
                .any(|(t, _)| *t == w)
                || self.typename_set.contains(w)
        };
        // `G::pipe (&rows)[2] = ...`: a qualified type, joined as lang-c names it (`G__pipe`).
        let mut last = 0;
        while word(last + 1) == "::"
            && toks
                .get(last + 2)
                .is_some_and(|t| t.kind == crate::front::lex::TokenKind::Ident)
        {
            last += 2;
        }
        let joined: String = (0..=last).map(word).collect::<String>().replace("::", "__");
        if !(is_type(word(last)) || is_type(&joined)) {
            return false;
        }
        // `tile<64, 64> (&rows)[2] = ...`: the type's template arguments, blanked and
        // recorded as a type's are.
        let mut k = last + 1;
        if word(k) == "<" {
            let Some(close) = crate::front::lex::matching_angle(src, &toks, k) else {
                return false;
            };
            k = close + 1;
        }
        if !(word(k) == "("
            && matches!(word(k + 1), "*" | "&")
            && toks
                .get(k + 2)
                .is_some_and(|t| t.kind == crate::front::lex::TokenKind::Ident)
            && word(k + 3) == ")"
            && (word(k + 4) == "[" || (word(k + 4) == "=" && word(k + 1) == "&")))
        {
            return false;
        }
        let base = n.start_byte();
        for j in (1..last).step_by(2) {
            self.patch(base + toks[j].start, "__");
        }
        if last > 0 {
            self.add_typename(joined);
        }
        if k > last + 1 {
            let args = crate::front::lex::argument_texts(src, &toks[last + 2..k - 1]);
            self.out
                .template_calls
                .push((base + toks[last].start, args));
            self.blank
                .push(base + toks[last + 1].start..base + toks[k - 1].end);
        }
        if word(k + 1) == "&" {
            self.patch(base + toks[k + 1].start, "*");
        }
        // The extents are expressions too (`(&t)[K::stages]`).
        let mut left = n.named_child(0).and_then(|a| a.child_by_field_name("left"));
        while let Some(l) = left.filter(|l| l.kind() == "subscript_expression") {
            if let Some(extent) = l.child_by_field_name("indices") {
                self.lower(extent);
            }
            left = l.child_by_field_name("argument");
        }
        self.lower(right);
        true
    }
}

/// A C identifier (a scope's name as written, without template arguments).
fn is_plain_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
