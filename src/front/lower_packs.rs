//! Variadic templates in device code, lowered byte for byte into C that lang-c reads and
//! recorded where the analyzer expands them (see `analysis::interp::packs`):
//! - `sizeof...(Ts)` is `sizeof   (Ts)`, its offset recorded: the analyzer counts the pack;
//! - a function parameter pack `const T &... xs` reads as one parameter `const T *    xs`,
//!   its name's offset recorded: a call binds every argument left to it;
//! - `f(xs...)`, `f(g(xs, 1)...)` in a call's arguments are `f(xs   )`, the pattern's range
//!   recorded: the analyzer writes one argument per element;
//! - a fold, `(xs + ...)`, `(0 + ... + xs)`, `(f(xs), ...)`, is `(xs + ___)`: the analyzer
//!   writes the chain of the operator over the elements. Where it cannot, `___` is a name
//!   nothing defines, so the value is unknown, never the pattern's alone.
//!
//! An expansion anywhere else (a braced list, a base-class list) is left as it is written, so
//! the statement does not parse and is reported, as before.

use crate::front::lower::Lowering;
use crate::front::syntax::{children, text};
use std::ops::Range;
use tree_sitter::Node;

/// Where a file's code uses parameter packs, by offsets into the lowered text.
#[derive(Clone, Debug, Default)]
pub struct PackSites {
    /// `sizeof...(P)`: the offset of `sizeof`.
    pub sizes: Vec<usize>,
    /// Function parameter packs: the offset of the parameter's name.
    pub params: Vec<usize>,
    /// Pack expansions in call arguments: the pattern's range (without the `...`).
    pub expansions: Vec<Range<usize>>,
    pub folds: Vec<Fold>,
}

/// A fold expression `( left op ... op right )`, one of whose operands may be absent.
#[derive(Clone, Debug, PartialEq)]
pub struct Fold {
    /// From the first operand (or the `...`) to the last: what lang-c spans once the
    /// parentheses are dropped.
    pub inner: Range<usize>,
    /// The operator as written (`+`, `&&`, `,`).
    pub op: String,
    /// The operand before the `...`, and the one after it.
    pub left: Option<Range<usize>>,
    pub right: Option<Range<usize>>,
}

impl PackSites {
    pub fn is_size(&self, at: usize) -> bool {
        self.sizes.binary_search(&at).is_ok()
    }

    pub fn is_param(&self, at: usize) -> bool {
        self.params.binary_search(&at).is_ok()
    }

    /// Whether a call's argument that starts at `at` is an expansion's pattern (lang-c's
    /// span of it may take the blanked `...`).
    pub fn is_expansion(&self, at: usize) -> bool {
        self.expansions
            .binary_search_by_key(&at, |r| r.start)
            .is_ok()
    }

    /// The fold lang-c spans as `span` (with or without its parentheses).
    pub fn fold_at(&self, span: &Range<usize>) -> Option<&Fold> {
        self.folds.iter().find(|f| {
            f.inner == *span || (f.inner.start == span.start + 1 && f.inner.end + 1 == span.end)
        })
    }

    /// Sorted, for the lookups above; lowering visits nodes in no promised order.
    pub fn finish(&mut self) {
        self.sizes.sort_unstable();
        self.params.sort_unstable();
        self.expansions.sort_unstable_by_key(|r| (r.start, r.end));
    }
}

impl Lowering<'_> {
    /// `sizeof...(Ts)`; returns whether it was one.
    pub(crate) fn pack_size(&mut self, n: Node<'_>) -> bool {
        let Some(dots) = children(n).into_iter().find(|c| c.kind() == "...") else {
            return false;
        };
        self.blank_node(dots);
        self.out.packs.sizes.push(n.start_byte());
        true
    }

    /// `Ts... xs` in a function's parameter list: its name is the pack.
    pub(crate) fn pack_parameter(&mut self, n: Node<'_>) {
        let mut up = n.parent();
        while let Some(p) = up {
            match p.kind() {
                "parameter_list" => break,
                "template_parameter_list" => return,
                _ => up = p.parent(),
            }
        }
        if up.is_none() {
            return;
        }
        if let Some(name) = children(n).into_iter().find(|c| c.kind() == "identifier") {
            self.out.packs.params.push(name.start_byte());
        }
    }

    /// `pattern...` as a call's argument; returns whether it was lowered (else it is left
    /// to fail to parse, and to be reported).
    pub(crate) fn pack_expansion(&mut self, n: Node<'_>) -> bool {
        let in_call = n
            .parent()
            .filter(|p| p.kind() == "argument_list")
            .and_then(|p| p.parent())
            .is_some_and(|c| c.kind() == "call_expression");
        let (Some(pattern), Some(dots)) = (
            n.child_by_field_name("pattern"),
            children(n).into_iter().find(|c| c.kind() == "..."),
        ) else {
            return false;
        };
        if !in_call {
            return false;
        }
        self.blank_node(dots);
        self.out.packs.expansions.push(pattern.byte_range());
        self.lower(pattern);
        true
    }

    /// `(xs op ...)`, `(... op xs)`, `(init op ... op xs)`: the `...` becomes `___`.
    pub(crate) fn fold(&mut self, n: Node<'_>) -> bool {
        let kids = children(n);
        let Some(at) = kids.iter().position(|c| c.kind() == "...") else {
            return false;
        };
        let operand = |c: &Node<'_>| c.is_named() && c.kind() != "comment";
        let left = kids[..at].iter().rev().find(|c| operand(c)).copied();
        let right = kids[at + 1..].iter().find(|c| operand(c)).copied();
        let op = kids
            .iter()
            .find(|c| !c.is_named() && !matches!(c.kind(), "(" | ")" | "..."))
            .map(|c| text(*c, self.src).to_string());
        let Some(op) = op else { return false };
        let first = left.map_or(kids[at].start_byte(), |l| l.start_byte());
        let last = right.map_or(kids[at].end_byte(), |r| r.end_byte());
        self.patch(kids[at].start_byte(), "___");
        self.out.packs.folds.push(Fold {
            inner: first..last,
            op,
            left: left.map(|l| l.byte_range()),
            right: right.map(|r| r.byte_range()),
        });
        for c in [left, right].into_iter().flatten() {
            self.lower(c);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::front::cuda::{Defines, prepare};

    const SRC: &str = "template <typename... Ts>\n__device__ int f(float *s, const Ts &... xs)\n{\n    int n = sizeof...(Ts);\n    g(s, h(xs, 1)...);\n    int a = (0 + ... + xs);\n    int b = (xs * ...);\n    int c[] = {xs...};\n    return n;\n}\n";

    #[test]
    fn packs_are_lowered_in_place_and_recorded() {
        let p = prepare(SRC, &Defines::default());
        let at = |needle: &str| SRC.find(needle).expect(needle);
        // Byte for byte: `sizeof   (Ts)`, the pattern alone, `___` for a fold's `...`.
        assert!(p.text.contains("int n = sizeof   (Ts);"), "{}", p.text);
        assert!(p.text.contains("g(s, h(xs, 1)   );"), "{}", p.text);
        assert!(p.text.contains("(0 + ___ + xs)"), "{}", p.text);
        assert!(p.text.contains("(xs * ___)"), "{}", p.text);
        assert!(p.text.contains("const Ts *    xs"), "{}", p.text);
        assert_eq!(p.packs.sizes, vec![at("sizeof")]);
        assert_eq!(p.packs.params, vec![at("xs)")]);
        assert_eq!(p.packs.expansions, vec![at("h(xs")..at("...);")]);
        let folds: Vec<(&str, Option<&str>, Option<&str>)> = (p.packs.folds.iter())
            .map(|f| {
                (
                    f.op.as_str(),
                    f.left.clone().map(|r| &SRC[r]),
                    f.right.clone().map(|r| &SRC[r]),
                )
            })
            .collect();
        assert_eq!(
            folds,
            vec![("+", Some("0"), Some("xs")), ("*", Some("xs"), None)]
        );
        assert_eq!(&SRC[p.packs.folds[1].inner.clone()], "xs * ...");
        // Outside a call's arguments an expansion is left as written: it does not parse.
        assert!(p.text.contains("{xs...}"), "{}", p.text);
    }

    #[test]
    fn lookups_find_what_was_recorded() {
        let p = prepare(SRC, &Defines::default());
        let at = |needle: &str| SRC.find(needle).expect(needle);
        assert!(p.packs.is_size(at("sizeof")));
        assert!(!p.packs.is_size(at("sizeof") + 1));
        assert!(p.packs.is_param(at("xs)")));
        assert!(p.packs.is_expansion(at("h(xs")));
        assert!(!p.packs.is_expansion(at("s, h(xs")));
        let inner = p.packs.folds[0].inner.clone();
        assert!(p.packs.fold_at(&inner).is_some());
        assert!(p.packs.fold_at(&(inner.start - 1..inner.end + 1)).is_some());
        assert!(p.packs.fold_at(&(inner.start..inner.end - 1)).is_none());
    }
}
