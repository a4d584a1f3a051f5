//! Template type parameters a kernel cannot use on shared memory, so that instantiations
//! differing only in them are analyzed once: a distance kernel instantiated for `half` and
//! for `float` outputs, written to global memory, is one analysis, not two.
//!
//! A type parameter is inert when the C the analyzer runs never names it (no cast, no
//! declaration, no `sizeof`) and every place the kernel's text names it is one of:
//! - a template argument of a by-value kernel parameter's class type (`Tensor<OutT, 4> out`):
//!   a kernel parameter is a warp-uniform value whatever its type, never a pointer into
//!   shared memory;
//! - a template argument of a call whose callee reaches no shared memory and whose result is
//!   stored to memory at once (`out[i] = Convert<OutT>::to(x);`): the analyzer reads stored
//!   data back as unknown, so nothing the call computes can matter.
//!
//! Any other use makes it matter, and so does text banklint cannot read this way.

use super::SharedReach;
use crate::analysis::extraction::{Function, Unit};
use crate::analysis::interp::ShapeSource;
use crate::analysis::shape::BlockShape;
use crate::front::lex::{self, Token};

/// The type parameters of kernel `f` that cannot change what it does to shared memory.
pub(super) fn inert_type_params(unit: &Unit<'_>, f: &Function, reach: &SharedReach) -> Vec<String> {
    let Some(template) = &f.template else {
        return Vec::new();
    };
    let p = unit.prepared;
    let (true, Some(lowered), Some(written)) = (
        f.kernel,
        p.text.get(f.span.clone()),
        p.expanded.get(f.span.clone()),
    ) else {
        return Vec::new();
    };
    let tokens = lex::lex(written).tokens;
    let text = |k: usize| tokens.get(k).map_or("", |t: &Token| t.text(written));
    // The parameter list: the first `(` after the kernel's name.
    let Some(open) = (1..tokens.len()).find(|&k| text(k - 1) == f.name && text(k) == "(") else {
        return Vec::new();
    };
    let Some(close) = lex::matching(written, &tokens, open) else {
        return Vec::new();
    };
    let site = Site {
        written,
        tokens: &tokens,
        params: open..close,
    };
    template
        .params
        .iter()
        .filter(|t| t.is_type)
        .filter(|t| {
            let named_in_c = lowered
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == t.name);
            !named_in_c
                && (open..tokens.len())
                    .filter(|&k| text(k) == t.name)
                    .all(|k| site.inert_use(k, reach))
        })
        .map(|t| t.name.clone())
        .collect()
}

/// The kernel's text as written (expanded), its tokens and its parameter list's brackets.
struct Site<'s> {
    written: &'s str,
    tokens: &'s [Token],
    params: std::ops::Range<usize>,
}

impl Site<'_> {
    fn text(&self, k: usize) -> &str {
        self.tokens.get(k).map_or("", |t| t.text(self.written))
    }

    /// Whether the name at token `k` is a template argument of a by-value parameter's
    /// class type, or of a call that reaches no shared memory and whose result is stored.
    fn inert_use(&self, k: usize, reach: &SharedReach) -> bool {
        let Some(open) = self.enclosing_angle(k) else {
            return false;
        };
        let Some(class) = open.checked_sub(1).map(|n| self.text(n)) else {
            return false;
        };
        let Some(close) = lex::matching_angle(self.written, self.tokens, open) else {
            return false;
        };
        if self.text(close) != ">" || !is_identifier(class) {
            return false;
        }
        match (
            self.text(close + 1),
            self.text(close + 2),
            self.text(close + 3),
        ) {
            // `out[i] = Convert<T>::to(x);`
            ("::", member, "(") if is_identifier(member) => {
                !reach.reaches_member(member) && self.stored_call(open - 1, close + 3)
            }
            // `out[i] = convert<T>(x);`
            ("(", _, _) => !reach.reaches_member(class) && self.stored_call(open - 1, close + 1),
            // `Tensor<T, 4> out,` in the parameter list
            (name, ",", _) | (name, ")", _)
                if is_identifier(name)
                    && self.params.start < open
                    && close + 2 <= self.params.end =>
            {
                true
            }
            _ => false,
        }
    }

    /// Whether the call whose name starts at token `name` and whose arguments open at
    /// `paren` is a whole statement's right-hand side, stored to an array element.
    fn stored_call(&self, name: usize, paren: usize) -> bool {
        let stored = name >= 2 && self.text(name - 1) == "=" && self.text(name - 2) == "]";
        stored
            && lex::matching(self.written, self.tokens, paren)
                .is_some_and(|end| self.text(end + 1) == ";")
    }

    /// The `<` opening the template argument list the token at `k` stands in, if it stands
    /// directly in one.
    fn enclosing_angle(&self, k: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in (0..k).rev() {
            match self.text(j) {
                ">" => depth += 1,
                ">>" => depth += 2,
                "<" if depth == 0 => return Some(j),
                "<" => depth -= 1,
                "(" | ")" | "[" | "]" | "{" | "}" | ";" | "=" | "<<" => return None,
                _ => {}
            }
        }
        None
    }
}

fn is_identifier(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The shapes that can differ in what they do to shared memory: of those that differ only
/// in `inert` type parameters, the first stands for all.
pub(super) fn distinct_for_shared_memory(
    shapes: Vec<BlockShape>,
    inert: &[String],
) -> Vec<BlockShape> {
    if inert.is_empty() {
        return shapes;
    }
    let key = |s: &BlockShape| {
        let keep = |args: &[(String, String)]| -> Vec<(String, String)> {
            args.iter()
                .filter(|(name, _)| !inert.contains(name))
                .cloned()
                .collect()
        };
        // Which launch a shape came from is only named in reports.
        BlockShape {
            source: ShapeSource::Default,
            template_args: keep(&s.template_args),
            assumed_types: keep(&s.assumed_types),
            unknown_type_args: keep(&s.unknown_type_args),
            ..s.clone()
        }
    };
    let mut seen = std::collections::HashSet::new();
    shapes.into_iter().filter(|s| seen.insert(key(s))).collect()
}
