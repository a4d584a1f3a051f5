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
    // The type names the text uses, declared first so that casts parse.
    let mut prelude = String::new();
    let mut declared = std::collections::HashSet::new();
    for word in text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
    {
        let typename =
            crate::front::names::BUILTIN_TYPENAMES.contains(&word) || unit.is_typename(word);
        if typename && declared.insert(word) {
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
