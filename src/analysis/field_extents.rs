//! The extents of a struct's array fields: their values where the struct is laid out (a
//! literal expression, or a leaf the caller values: a template parameter, a file constant,
//! `sizeof`), and those that call a function, kept as text for the analysis to evaluate.

use crate::analysis::extraction::SpanText;
use lang_c::ast::*;
use lang_c::span::Node;

/// The field extents of `st` (nested structs' included) that call a function, with their
/// text.
pub fn call_extents(st: &StructType, text: &SpanText<'_>) -> Vec<((usize, usize), String)> {
    fn calls(e: &Node<Expression>) -> bool {
        match &e.node {
            Expression::Call(_) => true,
            Expression::BinaryOperator(b) => calls(&b.node.lhs) || calls(&b.node.rhs),
            Expression::UnaryOperator(u) => calls(&u.node.operand),
            Expression::Cast(c) => calls(&c.node.expression),
            Expression::Conditional(c) => {
                calls(&c.node.condition)
                    || calls(&c.node.then_expression)
                    || calls(&c.node.else_expression)
            }
            _ => false,
        }
    }
    field_extents(st)
        .into_iter()
        .filter(|e| calls(e))
        .filter_map(|e| Some(((e.span.start, e.span.end), text(e.span)?)))
        .collect()
}

/// The extent expressions of the array fields of `st`, nested structs' included.
pub fn field_extents(st: &StructType) -> Vec<&Node<Expression>> {
    let mut out = Vec::new();
    for sd in st.declarations.iter().flatten() {
        let StructDeclaration::Field(f) = &sd.node else {
            continue;
        };
        for spec in &f.node.specifiers {
            if let SpecifierQualifier::TypeSpecifier(t) = &spec.node
                && let TypeSpecifier::Struct(inner) = &t.node
            {
                out.extend(field_extents(&inner.node));
            }
        }
        for d in (f.node.declarators.iter()).filter_map(|d| d.node.declarator.as_ref()) {
            for derived in &d.node.derived {
                if let DerivedDeclarator::Array(a) = &derived.node
                    && let ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) =
                        &a.node.size
                {
                    out.push(&**e);
                }
            }
        }
    }
    out
}

/// The value of a leaf of an extent that is not a literal (`N`, `sizeof(T)`), if known.
pub type ExtentLeaf<'a> = dyn Fn(&Node<Expression>) -> Option<i64> + 'a;

/// An integer constant expression of literals (`BLOCK / 32` once macros are expanded):
/// `+ - * / % << >> & | ^` and unary minus over integer literals; the other leaves (`N`,
/// `sizeof(T)`) as `leaf` gives them.
pub fn extent_value(e: &Node<Expression>, leaf: &ExtentLeaf<'_>) -> Option<i64> {
    let literal_value = |e: &Node<Expression>| extent_value(e, leaf);
    match &e.node {
        Expression::Constant(c) => match &c.node {
            Constant::Integer(i) => crate::front::lex::parse_int_literal(&i.number),
            _ => None,
        },
        Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Minus => {
            literal_value(&u.node.operand)?.checked_neg()
        }
        Expression::BinaryOperator(b) => {
            let (l, r) = (literal_value(&b.node.lhs)?, literal_value(&b.node.rhs)?);
            match b.node.operator.node {
                BinaryOperator::Plus => l.checked_add(r),
                BinaryOperator::Minus => l.checked_sub(r),
                BinaryOperator::Multiply => l.checked_mul(r),
                BinaryOperator::Divide => l.checked_div(r),
                BinaryOperator::Modulo => l.checked_rem(r),
                BinaryOperator::ShiftLeft => u32::try_from(r).ok().and_then(|r| l.checked_shl(r)),
                BinaryOperator::ShiftRight => u32::try_from(r).ok().and_then(|r| l.checked_shr(r)),
                BinaryOperator::BitwiseAnd => Some(l & r),
                BinaryOperator::BitwiseOr => Some(l | r),
                BinaryOperator::BitwiseXor => Some(l ^ r),
                _ => None,
            }
        }
        Expression::Cast(c) => literal_value(&c.node.expression),
        _ => leaf(e),
    }
}

/// The expression `n`, a decimal literal, at `span`.
pub fn integer_expr(n: u32, span: lang_c::span::Span) -> Node<Expression> {
    let constant = Constant::Integer(Integer {
        base: IntegerBase::Decimal,
        number: n.to_string().into(),
        suffix: IntegerSuffix {
            size: IntegerSize::Int,
            unsigned: false,
            imaginary: false,
        },
    });
    Node::new(
        Expression::Constant(Box::new(Node::new(constant, span))),
        span,
    )
}
