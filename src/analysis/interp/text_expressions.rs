//! Expressions written as text, outside any parsed item (a macro body, a template argument,
//! a constructor's arguments): parsed once per unit by lang-c, with the type names they use
//! declared first, and constants among them evaluated with no thread context.

use super::*;

/// Evaluates a constant with no thread context (one thread, no arrays).
pub(super) fn eval_constant(unit: &Unit<'_>, expr: &Node<Expression>, item: usize) -> Option<i64> {
    let mut arrays = ArrayTable::default();
    let mut reached = BTreeSet::new();
    let shape = BlockShape::plain(Some([1, 1, 1]), ShapeSource::Default);
    let target = Target::new(crate::bank::arch::Arch::DEFAULT, Default::default());
    let mut a = Analyzer::new(unit, target, &shape, &mut arrays, &mut reached);
    a.item = item;
    a.eval(expr, &[true]).as_const()
}

/// Evaluates an expression written as text (a template argument) to an integer.
pub fn const_eval_text(unit: &Unit<'_>, text: &str) -> Option<i64> {
    let expr = parse_expression_text(unit, text)?;
    eval_constant(unit, &expr, 0)
}

/// Parses an expression written outside any parsed item (a macro body, a launch argument).
pub fn parse_expression_text(unit: &Unit<'_>, text: &str) -> Option<Node<Expression>> {
    unit.parsed_text(text, || parse_text_now(unit, text))
}

fn parse_text_now(unit: &Unit<'_>, text: &str) -> Option<Node<Expression>> {
    let mut cast_types = Vec::new();
    let text = &c_casts(text, &mut cast_types);
    // The type names the text uses, declared first so that casts parse; a name a C++ cast
    // is written with (`static_cast<T *>`, `T` a template parameter) is one.
    let mut prelude = String::new();
    let mut declared = std::collections::HashSet::new();
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let in_casts: Vec<String> = cast_types.iter().flat_map(|t| words(t)).collect();
    for word in words(text) {
        let typename = crate::front::names::BUILTIN_TYPENAMES.contains(&word.as_str())
            || unit.is_typename(&word)
            || (in_casts.contains(&word)
                && !crate::front::names::is_type_keyword(&word)
                && !matches!(word.as_str(), "struct" | "union" | "enum"));
        if typename && declared.insert(word.clone()) {
            prelude.push_str(&format!("typedef int {word};"));
        }
    }
    let src = format!("{prelude}int __banklint_expr = ({text});");
    let config = lang_c::driver::Config {
        flavor: lang_c::driver::Flavor::GnuC11,
        ..Default::default()
    };
    let parsed = lang_c::driver::parse_preprocessed(&config, src).ok()?;
    let ExternalDeclaration::Declaration(decl) = &parsed.unit.0.last()?.node else {
        return None;
    };
    match &decl
        .node
        .declarators
        .first()?
        .node
        .initializer
        .as_ref()?
        .node
    {
        Initializer::Expression(e) => Some((**e).clone()),
        Initializer::List(_) => None,
    }
}

/// C++ casts written as C (`static_cast<T *>(p) + w` -> `((T *)(p)) + w`), parenthesized so
/// that what follows applies to the cast's result, as in C++; the types written go to
/// `types`. A cast whose brackets do not close stays as written (and does not parse).
fn c_casts(text: &str, types: &mut Vec<String>) -> String {
    let b = text.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // The index after the bracket matching the one at `open`.
    let close = |open: usize, inc: u8, dec: u8| -> Option<usize> {
        let mut depth = 0usize;
        for (k, &c) in b.iter().enumerate().skip(open) {
            if c == inc {
                depth += 1;
            } else if c == dec {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
        }
        None
    };
    let skip_spaces = |mut k: usize| {
        while b.get(k).is_some_and(u8::is_ascii_whitespace) {
            k += 1;
        }
        k
    };
    let mut out = String::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < b.len() {
        let at_word = i == 0 || !is_word(b[i - 1]);
        let cast = crate::front::names::CXX_CASTS.iter().find(|c| {
            at_word
                && text[i..].starts_with(**c)
                && !b.get(i + c.len()).is_some_and(|&c| is_word(c))
        });
        if let Some(cast) = cast {
            let lt = skip_spaces(i + cast.len());
            if let Some(gt) = (b.get(lt) == Some(&b'<'))
                .then(|| close(lt, b'<', b'>'))
                .flatten()
            {
                let open = skip_spaces(gt);
                if let Some(end) = (b.get(open) == Some(&b'('))
                    .then(|| close(open, b'(', b')'))
                    .flatten()
                {
                    let ty = &text[lt + 1..gt - 1];
                    types.push(ty.to_string());
                    let inner = c_casts(&text[open + 1..end - 1], types);
                    out.push_str(&format!("(({ty})({inner}))"));
                    i = end;
                    continue;
                }
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::c_casts;

    #[test]
    fn cpp_casts_are_written_as_c_casts_of_their_own_precedence() {
        let mut types = Vec::new();
        assert_eq!(
            c_casts("static_cast<T *>(smem) + w * 4", &mut types),
            "((T *)(smem)) + w * 4"
        );
        assert_eq!(
            c_casts(
                "reinterpret_cast<float4 *>(static_cast<char *>(p) + 16)[i]",
                &mut types
            ),
            "((float4 *)(((char *)(p)) + 16))[i]"
        );
        assert_eq!(types, ["T *", "float4 *", "char *"]);
        // Not a cast: a name that only starts like one, and a cast left open.
        assert_eq!(
            c_casts("static_cast_count + 1", &mut types),
            "static_cast_count + 1"
        );
        assert_eq!(
            c_casts("static_cast<T *(p", &mut types),
            "static_cast<T *(p"
        );
    }
}
