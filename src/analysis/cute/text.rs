//! CuTe types and calls as written (`Layout<Shape<_8, Int<kBlockK>>, Stride<Int<kBlockK>,
//! _1>>`, `decltype(tile_to_shape(SmemLayoutAtom{}, Shape<Int<kBlockM>, Int<kHeadDim>>{}))`,
//! `Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>, Element>`) read into
//! [`Value`]s. Names that are not CuTe's are the caller's to resolve through a [`Scope`]: a
//! traits class's aliases and constants, a value type's width.

use super::values::{Value, apply, known_type_bits};
use crate::limits::MAX_CUTE_ALIAS_DEPTH;

/// What a text's names mean where it is written.
pub trait Scope {
    /// The value of an integer expression (`kBlockKSmem`, `16 * kNWarps`).
    fn constant(&mut self, text: &str) -> Option<i64>;
    /// The type a name stands for, as written (a traits class's `using SmemLayoutAtomQ =
    /// decltype(...)`), if it is an alias banklint can read.
    fn alias(&mut self, name: &str) -> Option<String>;
    /// The width of a value type that is not one of C's or CuTe's own (`Element`).
    fn value_bits(&mut self, name: &str) -> Option<u32>;
}

/// Reads `text` as a CuTe value (a type, `T{}`, or a call of CuTe's functions).
pub fn read(text: &str, scope: &mut dyn Scope) -> Result<Value, String> {
    read_at(text, scope, 0)
}

fn read_at(text: &str, scope: &mut dyn Scope, depth: usize) -> Result<Value, String> {
    if depth > MAX_CUTE_ALIAS_DEPTH {
        return Err(format!(
            "CuTe types nest deeper than {MAX_CUTE_ALIAS_DEPTH} aliases, which banklint does not follow"
        ));
    }
    let text = strip_prefixes(text.trim());
    if let Some(inner) = enclosed(text, "decltype") {
        return read_at(inner, scope, depth + 1);
    }
    // `decltype(...){}`: a value of that type, as an alias's use expands to.
    if let Some(rest) = text.strip_prefix("decltype")
        && let Some(close) = close_of(rest.trim_start(), 0)
    {
        let rest = rest.trim_start();
        let after = rest[close + 1..].trim();
        if matches!(after, "{}" | "()") {
            return read_at(&rest[1..close], scope, depth + 1);
        }
    }
    if let Ok(i) = text.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    let term = Term::split(text)?;
    let short = term.name.rsplit("::").next().unwrap_or(term.name);
    if let Some(n) = short.strip_prefix('_').and_then(|d| d.parse::<i64>().ok())
        && term.args.is_none()
    {
        return Ok(Value::Int(n));
    }
    if let Some(bits) = known_type_bits(term.name).filter(|_| term.args.is_none()) {
        return Ok(Value::Type(bits));
    }
    if matches!(short, "conditional_t" | "conditional") {
        return conditional(&term, scope, depth);
    }
    if let Some(args) = term.args.as_ref().or(term.call.as_ref()) {
        let values = arguments(short, args, scope, depth)?;
        if let Some(v) = apply(short, &values) {
            return v;
        }
    } else if let Some(v) = apply(short, &[]) {
        return v;
    }
    if term.args.is_none()
        && term.call.is_none()
        && let Some(aliased) = scope.alias(term.name)
    {
        return read_at(&aliased, scope, depth + 1);
    }
    if term.args.is_none()
        && let Some(bits) = scope.value_bits(term.name)
    {
        return Ok(Value::Type(bits));
    }
    if term.args.is_none()
        && term.call.is_none()
        && let Some(i) = scope.constant(term.name)
    {
        return Ok(Value::Int(i));
    }
    Err(format!(
        "`{}` is not a CuTe type or function banklint models",
        term.name
    ))
}

/// The arguments of CuTe's template or function `name`: integers where it takes integers,
/// types where it takes types, other values otherwise.
fn arguments(
    name: &str,
    args: &[&str],
    scope: &mut dyn Scope,
    depth: usize,
) -> Result<Vec<Value>, String> {
    let integers = matches!(
        name,
        "Int" | "C" | "Swizzle" | "AutoVectorizingCopyWithAssumedAlignment"
    );
    let types = matches!(
        name,
        "UniversalCopy"
            | "SM80_CP_ASYNC_CACHEALWAYS"
            | "SM80_CP_ASYNC_CACHEGLOBAL"
            | "SM80_CP_ASYNC_CACHEALWAYS_ZFILL"
            | "SM80_CP_ASYNC_CACHEGLOBAL_ZFILL"
    );
    args.iter()
        .enumerate()
        .map(|(k, a)| {
            if integers {
                return integer(a, scope, depth);
            }
            if types || (name == "Copy_Atom" && k == 1) {
                return value_type(a, scope, depth);
            }
            read_at(a, scope, depth + 1).or_else(|e| {
                // `make_shape(8, kBlockN)`: plain integer expressions.
                scope.constant(a).map(Value::Int).ok_or(e)
            })
        })
        .collect()
}

fn integer(text: &str, scope: &mut dyn Scope, depth: usize) -> Result<Value, String> {
    let t = text.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    if let Some(i) = scope.constant(t) {
        return Ok(Value::Int(i));
    }
    match read_at(t, scope, depth + 1) {
        Ok(Value::Int(i)) => Ok(Value::Int(i)),
        _ => Err(format!(
            "`{t}` is not an integer constant banklint can evaluate"
        )),
    }
}

fn value_type(text: &str, scope: &mut dyn Scope, depth: usize) -> Result<Value, String> {
    let t = strip_prefixes(text.trim());
    if let Some(bits) = known_type_bits(t) {
        return Ok(Value::Type(bits));
    }
    if let Some(bits) = scope.value_bits(t) {
        return Ok(Value::Type(bits));
    }
    if let Some(aliased) = scope.alias(t)
        && depth < MAX_CUTE_ALIAS_DEPTH
    {
        return value_type(&aliased, scope, depth + 1);
    }
    Err(format!("the width of the type `{t}` is not known"))
}

/// `std::conditional_t<C, A, B>`: A or B as C's value says.
fn conditional(term: &Term<'_>, scope: &mut dyn Scope, depth: usize) -> Result<Value, String> {
    let Some([c, a, b]) = term.args.as_deref() else {
        return Err("`conditional_t` without three arguments".to_string());
    };
    match scope.constant(c) {
        Some(0) => read_at(b, scope, depth + 1),
        Some(_) => read_at(a, scope, depth + 1),
        None => Err(format!(
            "the condition `{c}` is not a constant banklint can evaluate"
        )),
    }
}

fn strip_prefixes(mut t: &str) -> &str {
    loop {
        let before = t;
        for p in ["typename ", "const ", "::", "cute::", "std::", "cutlass::"] {
            if let Some(rest) = t.strip_prefix(p) {
                t = rest.trim_start();
            }
        }
        if let Some(rest) = t.strip_suffix("const") {
            t = rest.trim_end();
        }
        if t == before {
            return t;
        }
    }
}

/// `word(inner)` with the parenthesis closing at the end: `inner`.
fn enclosed<'t>(text: &'t str, word: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(word)?.trim_start();
    let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
    (close_of(rest, 0) == Some(rest.len() - 1)).then_some(inner)
}

/// A written term: a qualified name, its template arguments, and the arguments of a call
/// (`T{}` and `T()` are the value of type `T`, no call).
struct Term<'t> {
    name: &'t str,
    args: Option<Vec<&'t str>>,
    call: Option<Vec<&'t str>>,
}

impl<'t> Term<'t> {
    fn split(text: &'t str) -> Result<Term<'t>, String> {
        let bad = || format!("`{text}` is not a CuTe type or call banklint reads");
        let name_end = text
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(text.len());
        let name = text[..name_end].trim_end_matches(':');
        if name.is_empty() {
            return Err(bad());
        }
        let mut rest = &text[name_end..];
        let mut args = None;
        rest = rest.trim_start();
        if rest.starts_with('<') {
            let close = close_of(rest, 0).ok_or_else(bad)?;
            args = Some(split_arguments(&rest[1..close]));
            rest = rest[close + 1..].trim_start();
            // `Name<...>::type`: a member named through the instance.
            if let Some(member) = rest.strip_prefix("::") {
                if member.trim() == "type" && name.ends_with("conditional") {
                    rest = "";
                } else {
                    return Err(bad());
                }
            }
        }
        let mut call = None;
        if rest.starts_with('{') || rest.starts_with('(') {
            let close = close_of(rest, 0).ok_or_else(bad)?;
            let inner = rest[1..close].trim();
            if !inner.is_empty() {
                call = Some(split_arguments(inner));
            }
            rest = rest[close + 1..].trim_start();
        }
        if !rest.is_empty() {
            return Err(bad());
        }
        Ok(Term { name, args, call })
    }
}

/// The brackets of `text` that nest, each with the depth it leaves (an opener's depth counts
/// it). A `<` or `>` inside parentheses that cannot be a template's is a comparison
/// (`Int<((kN) >= 64 ? 64 : 32)>`): `<=` and `>=` always, `<` written between spaces, and a
/// `>` whose innermost open bracket is not a `<`.
fn nesting(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut open: Vec<u8> = Vec::new();
    let mut out = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        let c = bytes[k];
        let next = bytes.get(k + 1).copied();
        let spaced = |at: usize| {
            at > 0
                && bytes[at - 1].is_ascii_whitespace()
                && bytes.get(at + 1).is_some_and(u8::is_ascii_whitespace)
        };
        match c {
            b'<' | b'>' if next == Some(b'=') => k += 1,
            b'<' if next == Some(b'<') || (open.last() == Some(&b'(') && spaced(k)) => k += 1,
            b'<' | b'(' | b'{' | b'[' => {
                open.push(c);
                out.push((k, open.len()));
            }
            b'>' if open.last() == Some(&b'<') => {
                open.pop();
                out.push((k, open.len()));
            }
            b')' | b'}' | b']' => {
                let opener = match c {
                    b')' => b'(',
                    b'}' => b'{',
                    _ => b'[',
                };
                // Any `<` still open inside was a comparison.
                while let Some(o) = open.pop() {
                    if o == opener {
                        break;
                    }
                }
                out.push((k, open.len()));
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// The index of the bracket closing the one at `open` (`<` `(` `{` `[`), brackets of every
/// kind nested inside.
fn close_of(text: &str, open: usize) -> Option<usize> {
    let marks = nesting(text);
    let at = marks.iter().position(|&(k, _)| k == open)?;
    let inside = marks[at].1;
    marks[at + 1..]
        .iter()
        .find(|&&(_, depth)| depth < inside)
        .map(|&(k, _)| k)
}

/// Arguments split at the commas outside brackets.
fn split_arguments(text: &str) -> Vec<&str> {
    let marks = nesting(text);
    let mut parts = Vec::new();
    let mut from = 0;
    let mut m = 0;
    let mut depth = 0;
    for (k, c) in text.char_indices() {
        while m < marks.len() && marks[m].0 <= k {
            depth = marks[m].1;
            m += 1;
        }
        if c == ',' && depth == 0 {
            parts.push(text[from..k].trim());
            from = k + 1;
        }
    }
    let last = text[from..].trim();
    if !last.is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A traits class of flash-attention's shape, written here: its constants and aliases.
    struct Traits {
        constants: HashMap<&'static str, i64>,
        aliases: HashMap<&'static str, &'static str>,
    }

    impl Scope for Traits {
        fn constant(&mut self, text: &str) -> Option<i64> {
            if let Some(v) = self.constants.get(text.trim()) {
                return Some(*v);
            }
            let (a, b) = text.split_once('*')?;
            Some(self.constant(a)? * self.constant(b)?)
        }
        fn alias(&mut self, name: &str) -> Option<String> {
            self.aliases.get(name).map(|s| s.to_string())
        }
        fn value_bits(&mut self, name: &str) -> Option<u32> {
            (name == "Element").then_some(16)
        }
    }

    fn traits() -> Traits {
        Traits {
            constants: [("kBlockKSmem", 64), ("kBlockM", 128), ("kHeadDim", 128), ("kNWarps", 4), ("16", 16)]
                .into_iter()
                .collect(),
            aliases: [
                (
                    "SmemLayoutAtom",
                    "decltype(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, Int<kBlockKSmem>>, Stride<Int<kBlockKSmem>, _1>>{}))",
                ),
                (
                    "GmemLayoutAtom",
                    "Layout<Shape <Int<16>, Int<8>>, Stride<Int<8>, _1>>",
                ),
            ]
            .into_iter()
            .collect(),
        }
    }

    #[test]
    fn a_tiled_swizzled_layout_reads_through_its_aliases() {
        let mut scope = traits();
        let v = read(
            "decltype(tile_to_shape(SmemLayoutAtom{}, Shape<Int<kBlockM>, Int<kHeadDim>>{}))",
            &mut scope,
        )
        .expect("reads");
        let Value::Layout(l) = v else {
            panic!("a layout: {v:?}")
        };
        assert_eq!(l.size(), 128 * 128);
        // Row 1 of the first atom: chunk 0 moves to chunk 1 (Swizzle<3,3,3> of 64 is 72).
        assert_eq!(
            l.eval(&crate::analysis::cute::tuple::IntTuple::ints(&[1, 0])),
            Some(72)
        );
        // Row 8 is the second atom down: 512 elements on, unswizzled at column 0.
        assert_eq!(
            l.eval(&crate::analysis::cute::tuple::IntTuple::ints(&[8, 0])),
            Some(512)
        );
    }

    #[test]
    fn a_tiled_copy_reads_its_atom_threads_and_values() {
        let mut scope = traits();
        let v = read(
            "decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>, Element>{}, GmemLayoutAtom{}, Layout<Shape<_1, _8>>{}))",
            &mut scope,
        )
        .expect("reads");
        let Value::TiledCopy(t) = v else {
            panic!("a tiled copy: {v:?}")
        };
        assert_eq!(t.threads, 128);
        assert_eq!(t.values, 8);
        assert_eq!(t.tiler, vec![16, 64]);
    }

    #[test]
    fn comparisons_in_integer_arguments_are_not_brackets() {
        let mut scope = traits();
        // What the run's evaluation gives these expressions.
        scope.constants.insert("(64)", 64);
        scope.constants.insert("((128) >= 64 ? 64 : 32)", 64);
        let v = read(
            "Layout<Shape<Int<(64)>, Int<((128) >= 64 ? 64 : 32)>>, Stride<Int<((128) >= 64 ? 64 : 32)>, _1>>",
            &mut scope,
        )
        .expect("reads");
        let Value::Layout(l) = v else {
            panic!("a layout: {v:?}")
        };
        assert_eq!(
            l.shape,
            crate::analysis::cute::tuple::IntTuple::ints(&[64, 64])
        );
        assert_eq!(l.at(65), Some(65));
        assert_eq!(
            split_arguments("Int<(a < b ? 1 : 2)>, _1"),
            vec!["Int<(a < b ? 1 : 2)>", "_1"]
        );
        assert_eq!(close_of("Int<(x<y)>", 3), Some(9));
    }

    #[test]
    fn what_is_not_modeled_says_so() {
        let mut scope = traits();
        let e = read("Copy_Atom<SM90_TMA_LOAD, Element>", &mut scope).expect_err("not modeled");
        assert!(e.contains("not modeled"), "{e}");
        let e = read("Layout<Shape<_8, Int<kUnknown>>>", &mut scope).expect_err("unknown");
        assert!(e.contains("kUnknown"), "{e}");
        assert!(read("Swizzle<3, 3, 2>", &mut scope).is_err());
    }

    #[test]
    fn conditional_types_choose_by_their_constant() {
        let mut scope = traits();
        let v = read(
            "std::conditional_t<kNWarps, UniversalCopy<uint64_t>, DefaultCopy>",
            &mut scope,
        )
        .expect("reads");
        assert!(matches!(
            v,
            Value::Op(crate::analysis::cute::copy::CopyOp::Universal { bits: 64 })
        ));
    }
}
