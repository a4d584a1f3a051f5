//! `std::is_same_v<A, B>` and `std::is_same<A, B>::value` (also `cuda::std::`), decided where
//! both types are known: a type dispatch (`if constexpr (std::is_same_v<T, __half>)`) then
//! runs only the branch its instantiation takes. Where either type is not known for certain
//! (a class, a type parameter nothing binds, a platform-dependent typedef such as `int64_t`),
//! the trait stays unknown and both branches are analyzed, as before.

use super::Analyzer;
use lang_c::span::Span;

impl Analyzer<'_, '_> {
    /// The value of `std::is_same` the identifier `name` (as lowered) at `span` spells, when
    /// both of its types are known.
    pub(super) fn type_trait(&mut self, name: &str, span: Span) -> Option<bool> {
        let bare = name.rsplit("__").next().unwrap_or(name);
        let (a, b) = if bare == "is_same_v" {
            match self.arguments_written_at(name, span).as_slice() {
                [a, b] => (a.clone(), b.clone()),
                _ => return None,
            }
        } else if bare == "value" && name.contains("is_same") {
            // `std::is_same<A, B>::value`, lowered to one name of the same length: the
            // arguments are read from the text as written.
            is_same_arguments(&self.source_text(span))?
        } else {
            return None;
        };
        self.same_type(&a, &b, span, None)
    }

    /// Whether the types `a` and `b` name are the same, where that is known for certain;
    /// `scope`: the class whose constant the trait is, whose member types it names.
    fn same_type(&mut self, a: &str, b: &str, span: Span, scope: Option<&str>) -> Option<bool> {
        let (a, b) = (
            self.bound_type_text(a, scope),
            self.bound_type_text(b, scope),
        );
        if a == b {
            return Some(true);
        }
        // A class banklint has read is never a fundamental type (`float` is not `complex_t`).
        match (fundamental_type(&a), fundamental_type(&b)) {
            (Some(x), Some(y)) => return Some(x == y),
            (Some(_), None) => return self.class_tag(&b, span).map(|_| false),
            (None, Some(_)) => return self.class_tag(&a, span).map(|_| false),
            (None, None) => {}
        }
        // Two classes banklint has read with different tags (`lay::row`, `lay::col`, or a
        // member type naming one: `typename RT::layout`) are different types. The same tag
        // written differently (`row` in its namespace, `lay::row` outside) is not decided,
        // nor are instances of class templates (`Tile<4>` is `Tile<2 * 2>`).
        let (a, b) = (self.class_tag(&a, span)?, self.class_tag(&b, span)?);
        (a != b).then_some(false)
    }

    /// A member type of the class whose constant is being read (`weight_t` in its trait).
    fn scope_member_type(&mut self, t: &str, scope: Option<&str>) -> Option<String> {
        let scope = scope?;
        if !t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        match self.class_member(scope, t)? {
            crate::front::class_members::Member::Type(ty) => Some(normalized(&ty)),
            crate::front::class_members::Member::Value(_) => None,
        }
    }

    /// `typename RT::layout` with `RT` bound to a class banklint has read: the type its
    /// member names there.
    fn bound_member_type(&mut self, t: &str) -> Option<String> {
        let t = t.strip_prefix("typename ").unwrap_or(t);
        let (class, member) = t.rsplit_once("::")?;
        let class = self.type_args.get(class.trim())?.clone();
        match self.class_member(&class, member.trim())? {
            crate::front::class_members::Member::Type(ty) => Some(normalized(&ty)),
            crate::front::class_members::Member::Value(_) => None,
        }
    }

    /// The tag of the class a type names, when banklint has read its definition and it is
    /// not an instance of a class template.
    fn class_tag(&mut self, t: &str, span: Span) -> Option<String> {
        if t.contains('<') || fundamental_type(t).is_some() {
            return None;
        }
        let lowered = t.trim_start_matches("typename ").trim().replace("::", "__");
        match self.type_of_text(&lowered, span)? {
            crate::analysis::types::Type::Record(r) if !r.name.contains('<') => {
                Some(r.name.clone())
            }
            _ => None,
        }
    }

    /// A class's constant written as a condition over type traits, evaluated with the class's
    /// member types in scope.
    pub(super) fn class_trait(&mut self, class: &str, text: &str) -> Option<bool> {
        // The text has no place in a parsed item: whatever it reports is placed at the item
        // being run (`Span::none()` alone is no offset there).
        let here = (self.span_override.clone())
            .or_else(|| self.unit.items.get(self.item).map(|i| i.chunk.span.clone()))
            .unwrap_or_default();
        let saved_span = self.span_override.replace(here);
        let value = self.condition_value(text, Span::none(), Some(class));
        self.span_override = saved_span;
        value
    }

    /// The type `std::conditional_t<C, A, B>` (or `typename std::conditional<C, A, B>::type`)
    /// names: `A` or `B` as written, when `C` is a constant here.
    pub(super) fn conditional_type(&mut self, text: &str, span: Span) -> Option<String> {
        // Every type text a declaration names passes here: most are not a conditional.
        if !text.contains("conditional") {
            return None;
        }
        let t = normalized(text.trim().strip_prefix("typename ").unwrap_or(text));
        let t = t.as_str();
        let args = t
            .strip_prefix("conditional_t<")
            .and_then(|r| r.strip_suffix('>'))
            .or_else(|| {
                t.strip_prefix("conditional<")?
                    .strip_suffix("::type")?
                    .trim_end()
                    .strip_suffix('>')
            })?;
        let [cond, a, b] = top_level_arguments(args).try_into().ok()?;
        Some(if self.condition_value(&cond, span, None)? {
            a
        } else {
            b
        })
    }

    /// A compile-time condition as written (`!std::is_same_v<T, float> && sizeof(T) == 2`),
    /// when it is a constant here.
    pub(super) fn condition_value(
        &mut self,
        cond: &str,
        span: Span,
        scope: Option<&str>,
    ) -> Option<bool> {
        let c = cond.trim();
        for op in ["||", "&&"] {
            let parts = split_top_level(c, op);
            if parts.len() > 1 {
                let values: Vec<Option<bool>> = parts
                    .iter()
                    .map(|p| self.condition_value(p, span, scope))
                    .collect();
                // A known deciding operand decides, whatever the others are.
                let decider = op == "||";
                if values.contains(&Some(decider)) {
                    return Some(decider);
                }
                return values
                    .into_iter()
                    .collect::<Option<Vec<bool>>>()
                    .map(|_| !decider);
            }
        }
        // `!` binds to one term: `!is_same_v<...>`, `!(...)`, `!kFlag`, not `!a == b`.
        if let Some(inner) = c.strip_prefix('!').map(str::trim)
            && (wrapped(inner) || is_one_term(inner))
        {
            return self.condition_value(inner, span, scope).map(|v| !v);
        }
        if wrapped(c) {
            return self.condition_value(&c[1..c.len() - 1], span, scope);
        }
        let bare = normalized(c);
        if let Some(rest) = bare.strip_prefix("is_same_v") {
            let [a, b] = top_level_arguments(rest.trim().strip_prefix('<')?.strip_suffix('>')?)
                .try_into()
                .ok()?;
            return self.same_type(&a, &b, span, scope);
        }
        if bare.starts_with("is_same<") {
            let (a, b) = is_same_arguments(&bare)?;
            return self.same_type(&a, &b, span, scope);
        }
        let all = vec![true; self.n];
        self.eval_text(c, span, &all, c).as_const().map(|v| v != 0)
    }

    /// A type as written, with the type parameters and aliases in scope replaced by what
    /// they name, spaces normalized.
    fn bound_type_text(&mut self, written: &str, scope: Option<&str>) -> String {
        let mut t = normalized(written);
        for _ in 0..8 {
            let next = match self.type_args.get(&t) {
                Some(bound) => normalized(bound),
                None => match (self.scope_member_type(&t, scope)).or_else(|| self.alias_target(&t))
                {
                    Some(target) => normalized(&target),
                    None => match self.bound_member_type(&t) {
                        Some(member) => member,
                        None => break,
                    },
                },
            };
            if next == t {
                break;
            }
            t = next;
        }
        t
    }
}

/// The arguments of a template argument list as written (without its `<>`), split at the
/// commas outside brackets.
fn top_level_arguments(list: &str) -> Vec<String> {
    split_top_level(list, ",")
        .iter()
        .map(|a| a.trim().to_string())
        .collect()
}

/// `text` split at each `sep` outside `<>`, `()` and `[]`. Inside parentheses `<` and `>`
/// are comparisons (C++ asks for them there: `conditional_t<(N > 4), A, B>`).
fn split_top_level<'t>(text: &'t str, sep: &str) -> Vec<&'t str> {
    let (mut parens, mut angles, mut from, mut out) = (0i32, 0i32, 0usize, Vec::new());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' => parens += 1,
            b')' | b']' => parens -= 1,
            b'<' if parens == 0 => angles += 1,
            b'>' if parens == 0 => angles = (angles - 1).max(0),
            _ if parens == 0 && angles == 0 && text[i..].starts_with(sep) => {
                out.push(&text[from..i]);
                i += sep.len();
                from = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&text[from..]);
    out
}

/// Whether `c` is one parenthesized expression, `(...)`, the first parenthesis closed last.
fn wrapped(c: &str) -> bool {
    if !(c.starts_with('(') && c.ends_with(')')) {
        return false;
    }
    let mut depth = 0i32;
    for (i, ch) in c.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return i == c.len() - 1;
        }
    }
    false
}

/// A name, qualified or not, or a trait with its arguments (`std::is_same_v<T, float>`,
/// `std::is_same<A, B>::value`): one term an operator before it applies to whole.
fn is_one_term(c: &str) -> bool {
    let bare = normalized(c);
    bare.starts_with("is_same_v<") && bare.ends_with('>')
        || bare.starts_with("is_same<") && bare.ends_with("::value")
        || bare
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == ':')
}

/// `A` and `B` of `std::is_same<A, B>::value` as written.
fn is_same_arguments(written: &str) -> Option<(String, String)> {
    let (_, rest) = written.split_once("is_same")?;
    let inner = rest.trim_start().strip_prefix('<')?;
    let inner = &inner[..inner.rfind('>')?];
    let (mut depth, mut split) = (0usize, None);
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                if split.is_some() {
                    return None;
                }
                split = Some(i);
            }
            _ => {}
        }
    }
    let at = split?;
    Some((
        inner[..at].trim().to_string(),
        inner[at + 1..].trim().to_string(),
    ))
}

fn normalized(t: &str) -> String {
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    let t = t.strip_prefix("::").unwrap_or(&t);
    t.strip_prefix("cuda::std::")
        .or_else(|| t.strip_prefix("std::"))
        .unwrap_or(t)
        .to_string()
}

/// The one spelling of a type whose identity banklint knows on every platform CUDA targets:
/// C's arithmetic types (`unsigned` is `unsigned int`; plain `char` is neither `signed char`
/// nor `unsigned char`), the fixed-width typedefs narrower than 64 bits, CUDA's half types
/// and vector types. `None` for anything else, whose identity it does not decide.
fn fundamental_type(t: &str) -> Option<String> {
    let fixed = match t {
        "int8_t" => Some("signed char"),
        "uint8_t" | "uchar" => Some("unsigned char"),
        "int16_t" => Some("short"),
        "uint16_t" | "ushort" => Some("unsigned short"),
        "int32_t" => Some("int"),
        "uint32_t" | "uint" => Some("unsigned int"),
        "half" | "__half" => Some("__half"),
        "half2" | "__half2" => Some("__half2"),
        "nv_bfloat16" | "__nv_bfloat16" => Some("__nv_bfloat16"),
        "nv_bfloat162" | "__nv_bfloat162" => Some("__nv_bfloat162"),
        // CUTLASS's numeric types are classes of their own (`cutlass::half_t` wraps `__half`
        // and is not it), spelled with or without their namespace (`using namespace cute;`).
        "cutlass::half_t" | "cute::half_t" | "half_t" => Some("cutlass::half_t"),
        "cutlass::bfloat16_t" | "cute::bfloat16_t" | "bfloat16_t" => Some("cutlass::bfloat16_t"),
        "cutlass::tfloat32_t" | "cute::tfloat32_t" | "tfloat32_t" => Some("cutlass::tfloat32_t"),
        "cutlass::float_e4m3_t" | "cute::float_e4m3_t" | "float_e4m3_t" => {
            Some("cutlass::float_e4m3_t")
        }
        "cutlass::float_e5m2_t" | "cute::float_e5m2_t" | "float_e5m2_t" => {
            Some("cutlass::float_e5m2_t")
        }
        _ => None,
    };
    if let Some(f) = fixed {
        return Some(f.to_string());
    }
    let vector = t.ends_with(|c: char| c.is_ascii_digit())
        && crate::front::names::BUILTIN_TYPENAMES.contains(&t)
        && crate::analysis::types::builtin(t).is_some();
    if vector {
        return Some(t.to_string());
    }
    let words: Vec<&str> = t.split(' ').collect();
    let arithmetic = [
        "signed", "unsigned", "char", "short", "int", "long", "float", "double", "bool", "void",
    ];
    if words.is_empty() || !words.iter().all(|w| arithmetic.contains(w)) {
        return None;
    }
    let count = |w: &str| words.iter().filter(|x| **x == w).count();
    let (signed, unsigned) = (count("signed"), count("unsigned"));
    let longs = count("long");
    let name = match () {
        _ if words == ["float"] => "float",
        _ if words == ["double"] => "double",
        _ if count("double") == 1 && longs == 1 && words.len() == 2 => "long double",
        _ if words == ["bool"] => "bool",
        _ if words == ["void"] => "void",
        _ if count("float") + count("double") + count("bool") + count("void") > 0 => return None,
        _ if signed + unsigned > 1 || count("int") > 1 => return None,
        _ if count("char") == 1 && words.len() == 1 + signed + unsigned => match (signed, unsigned)
        {
            (0, 0) => "char",
            (1, _) => "signed char",
            _ => "unsigned char",
        },
        _ if count("char") > 0 => return None,
        _ if count("short") == 1 && longs == 0 => pick(unsigned, "short", "unsigned short"),
        _ if count("short") > 0 => return None,
        _ if longs == 1 => pick(unsigned, "long", "unsigned long"),
        _ if longs == 2 => pick(unsigned, "long long", "unsigned long long"),
        _ if longs > 2 => return None,
        _ => pick(unsigned, "int", "unsigned int"),
    };
    Some(name.to_string())
}

fn pick(unsigned: usize, signed: &'static str, unsigned_name: &'static str) -> &'static str {
    if unsigned > 0 { unsigned_name } else { signed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_types_have_one_spelling_each() {
        let same = |a: &str, b: &str| {
            fundamental_type(a)
                .zip(fundamental_type(b))
                .map(|(a, b)| a == b)
        };
        assert_eq!(same("unsigned", "unsigned int"), Some(true));
        assert_eq!(same("int", "signed int"), Some(true));
        assert_eq!(same("long int", "long"), Some(true));
        assert_eq!(same("long long", "long"), Some(false));
        assert_eq!(same("char", "signed char"), Some(false));
        assert_eq!(same("uint8_t", "unsigned char"), Some(true));
        assert_eq!(same("half", "__half"), Some(true));
        assert_eq!(same("float", "__half"), Some(false));
        assert_eq!(same("cutlass::half_t", "half_t"), Some(true));
        assert_eq!(same("cutlass::bfloat16_t", "cutlass::half_t"), Some(false));
        assert_eq!(same("cutlass::half_t", "__half"), Some(false));
        assert_eq!(same("float4", "float"), Some(false));
        // Platform-dependent or unknown: not decided.
        assert_eq!(same("int64_t", "long"), None);
        assert_eq!(same("size_t", "unsigned long"), None);
        assert_eq!(same("MyType", "float"), None);
        assert_eq!(same("4-byte type", "float"), None);
    }

    #[test]
    fn conditions_split_where_their_operators_bind() {
        assert_eq!(
            split_top_level("is_same_v<T, float> && sizeof(T) == 4", "&&"),
            vec!["is_same_v<T, float> ", " sizeof(T) == 4"]
        );
        assert!(wrapped("(a && (b))"));
        assert!(!wrapped("(a) && (b)"));
        assert!(is_one_term("std::is_same_v<T, float>"));
        assert!(!is_one_term("a == b"));
        assert_eq!(top_level_arguments("C<1, 2>, float2, float4").len(), 3);
        assert_eq!(top_level_arguments("(N > 4), double, float").len(), 3);
    }

    #[test]
    fn the_arguments_of_is_same_value_as_written() {
        assert_eq!(
            is_same_arguments("std::is_same<T, Pair<int, float>>::value"),
            Some(("T".into(), "Pair<int, float>".into()))
        );
        assert_eq!(is_same_arguments("std::is_same<T>::value"), None);
    }
}
