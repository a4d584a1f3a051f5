//! Type parameters and undeclared types analyzed at each element size: a kernel template
//! whose type parameters nothing binds, or that names a type no file declares, runs once per
//! size an access can move (1 to 16 bytes), unless the parameter cannot change what the code
//! does to shared memory.

use crate::analysis::extraction::{Function, Unit};
use crate::analysis::interp::BlockShape;

/// Types of each element size a template's type parameter could be used with, to analyze a
/// template that nothing instantiates: the verdict can differ (a 4-byte `T` conflict-free, an
/// 8-byte one 2-way), so each is analyzed and the worst reported, with the others named.
pub const ELEMENT_SIZES: [&str; 3] = ["__half", "float", "double"];

/// Each shape as it is, or, when type parameters of `f` have no argument and no default,
/// once per element size in `ELEMENT_SIZES` (every such parameter bound to the same size).
/// A type argument that names no type banklint knows (`known_type`) binds nothing: a
/// dispatch macro's `scalar_t` is one of several types, each analyzed. A parameter the
/// function's text cannot be affected by (`matters`) is left unbound: varying it would
/// repeat the same analysis. A parameter the function uses as an integer (`integral`: an
/// index type) is bound to `int` alone: a floating-point index would not compile, and the
/// width of an index does not move an address. A parameter whose member types the function
/// names (`member_types`: `typename Acc::ftype`) is a class, not a scalar: those member
/// types are bound to each size instead.
pub(super) fn with_element_sizes(
    f: &Function,
    shapes: Vec<BlockShape>,
    known_type: &dyn Fn(&str) -> bool,
    matters: &dyn Fn(&str) -> bool,
    member_types: &dyn Fn(&str) -> Vec<String>,
    integral: &[&str],
) -> Vec<BlockShape> {
    let Some(header) = &f.template else {
        return shapes;
    };
    let mut out = Vec::new();
    for mut shape in shapes {
        let unknown: Vec<(String, String)> = shape
            .template_args
            .iter()
            .filter(|(n, a)| {
                header.params.iter().any(|p| p.is_type && p.name == *n) && !known_type(a)
            })
            .cloned()
            .collect();
        shape.template_args.retain(|arg| !unknown.contains(arg));
        shape.unknown_type_args = unknown;
        let unbound: Vec<&str> = header
            .params
            .iter()
            .filter(|p| {
                // A pack's elements may each be another type: no one size stands for them.
                p.is_type
                    && !p.pack
                    && (p.default.is_none()
                        || shape.unknown_type_args.iter().any(|(n, _)| *n == p.name))
                    && !shape.template_args.iter().any(|(n, _)| *n == p.name)
                    && (matters(&p.name) || !member_types(&p.name).is_empty())
            })
            .map(|p| p.name.as_str())
            .collect();
        // A class parameter stays unbound; the member types it gives stand in its place.
        let unbound: Vec<String> = unbound
            .into_iter()
            .flat_map(|p| match member_types(p) {
                members if members.is_empty() => vec![p.to_string()],
                members => members,
            })
            .filter(|m| !shape.template_args.iter().any(|(n, _)| n == m))
            .collect();
        let (indices, unbound): (Vec<String>, Vec<String>) = unbound
            .into_iter()
            .partition(|p| integral.contains(&p.as_str()));
        shape
            .assumed_types
            .extend(indices.iter().map(|p| (p.to_string(), "int".to_string())));
        if unbound.is_empty() {
            if !out.contains(&shape) {
                out.push(shape);
            }
            continue;
        }
        for ty in ELEMENT_SIZES {
            let mut assumed = shape.assumed_types.clone();
            assumed.extend(unbound.iter().map(|p| (p.to_string(), ty.to_string())));
            out.push(BlockShape {
                assumed_types: assumed,
                ..shape.clone()
            });
        }
    }
    out
}

/// Element types of `f`'s shared arrays that nothing declares: no class, typedef, alias or
/// template parameter of that name in the file or its headers, and no type banklint knows.
/// OpenMM's kernels are compiled at run time with `-DDATA_TYPE=...` from the host; without
/// the definitions, each element size is analyzed.
pub(super) fn undeclared_element_types(
    unit: &Unit<'_>,
    f: &Function,
    known_type: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let p = unit.prepared;
    let is_param = |n: &str| {
        f.template
            .iter()
            .any(|t| t.params.iter().any(|q| q.name == n))
    };
    let mut out: Vec<String> = Vec::new();
    for (_, name) in p
        .shared_element_types
        .iter()
        .filter(|(at, _)| f.span.contains(at))
    {
        if !out.contains(name)
            && !is_param(name)
            && !known_type(name)
            && !p.declared_types.contains(name)
        {
            out.push(name.clone());
        }
    }
    out
}

/// The member types of the type parameter `name` that the function `text` names
/// (`typename Acc::ftype`), as written (`Acc::ftype`).
pub(super) fn member_types_written(text: &str, name: &str) -> Vec<String> {
    use crate::front::lex::{TokenKind, tokenize};
    let tokens = tokenize(text);
    let word = |k: usize| tokens[k].text(text);
    let mut out: Vec<String> = Vec::new();
    for k in 1..tokens.len().saturating_sub(2) {
        let member = &tokens[k + 2];
        let names_member = word(k - 1) == "typename"
            && word(k) == name
            && word(k + 1) == "::"
            && member.kind == TokenKind::Ident
            && tokens.get(k + 3).is_none_or(|t| t.text(text) != "<");
        let spelled = format!("{name}::{}", member.text(text));
        if names_member && !out.contains(&spelled) {
            out.push(spelled);
        }
    }
    out
}

/// Whether the function `text` uses values of the type parameter `name` as integers: a
/// variable declared with it (`IdxType idx = ...`, a parameter `IdxType n`) is a subscript
/// or an operand of `%`, `<<` or `>>`, which a floating-point type cannot be.
pub(super) fn type_param_is_integral(text: &str, name: &str) -> bool {
    use crate::front::lex::{TokenKind, tokenize};
    let tokens = tokenize(text);
    let word = |k: usize| tokens.get(k).map_or("", |t| t.text(text));
    let variables: Vec<&str> = (0..tokens.len())
        .filter(|&k| {
            word(k) == name
                && tokens
                    .get(k + 1)
                    .is_some_and(|t| t.kind == TokenKind::Ident)
                && matches!(word(k + 2), "=" | ";" | "," | ")" | "{")
        })
        .map(|k| word(k + 1))
        .collect();
    if variables.is_empty() {
        return false;
    }
    let mut subscripts = 0usize;
    for k in 0..tokens.len() {
        match word(k) {
            "[" => subscripts += 1,
            "]" => subscripts = subscripts.saturating_sub(1),
            w if variables.contains(&w) => {
                let integer_op = |o: &str| matches!(o, "%" | "%=" | "<<" | ">>" | "<<=" | ">>=");
                let prev = if k > 0 { word(k - 1) } else { "" };
                if subscripts > 0 || integer_op(prev) || integer_op(word(k + 1)) {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether the type parameter `name` can change what the function `text` (named `function`)
/// does: it appears in the body, or in a parameter's type other than inside a template's
/// argument list (`Tensor<T, 2> t` is an object banklint does not look into; `T *p` is
/// not). Unsure (the parameter list not found) counts as yes.
pub(super) fn type_param_matters(text: &str, function: &str, name: &str) -> bool {
    use crate::front::lex::{matching, matching_angle, tokenize};
    let tokens = tokenize(text);
    let word = |k: usize| tokens[k].text(text);
    let Some(open) = (1..tokens.len()).find(|&k| word(k) == "(" && word(k - 1) == function) else {
        return true;
    };
    let Some(close) = matching(text, &tokens, open) else {
        return true;
    };
    // `C::DEPTH` names a member of the class, not a value of type `C`: its size is no matter.
    let used = |k: usize| word(k) == name && (k + 1 >= tokens.len() || word(k + 1) != "::");
    if (close..tokens.len()).any(used) {
        return true;
    }
    let mut k = open + 1;
    while k < close {
        match word(k) {
            // A template argument list: skipped whole.
            "<" if tokens[k - 1].kind == crate::front::lex::TokenKind::Ident => {
                match matching_angle(text, &tokens, k) {
                    Some(end) => k = end,
                    None => return true,
                }
            }
            _ if used(k) => return true,
            _ => {}
        }
        k += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_parameter_matters_where_the_code_can_see_it() {
        let f = "void k(Tensor<C, 2, true> c, float *o) { o[0] = 1; }";
        assert!(
            !type_param_matters(f, "k", "C"),
            "only inside another type's arguments"
        );
        assert!(
            type_param_matters("void k(C *p) { }", "k", "C"),
            "a pointer to it"
        );
        assert!(
            type_param_matters("void k(int n) { reduce<C>(n); }", "k", "C"),
            "the body"
        );
        assert!(
            !type_param_matters("void k(int Cx) { Cx++; }", "k", "C"),
            "whole words"
        );
        assert!(
            type_param_matters("void other(C c) {}", "k", "C"),
            "unsure: yes"
        );
        // Bytes past the ASCII range (a comment's `≡`) are stepped over, not split.
        assert!(!type_param_matters(
            "void k(int n) { /* a ≡ b */ }",
            "k",
            "C"
        ));
        assert!(type_param_matters(
            "void k(int n) { /* ≡ */ C x; }",
            "k",
            "C"
        ));
    }
}
