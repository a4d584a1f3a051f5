//! Range-based `for` over a braced list, which the front end lowered as
//! `for (int x ;  a, b, c; ) body` (see `front::lower_range_for`): run as the counted loop
//! `for (int x...n = 0; x...n < 3; x...n++) { int x = x...n == 0 ? a : x...n == 1 ? b : c; body }`,
//! so that `continue`, `break` and the loop machinery's budgets are the ones every loop has,
//! and each trip sees its element.

use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    /// The counted loop a recorded range-based `for` runs as; None for any other `for`; Err
    /// when its elements are pointers into shared memory, which the variable (declared
    /// `auto`, read as an integer) does not follow.
    pub(super) fn range_for_loop(
        &self,
        s: &Node<Statement>,
        f: &ForStatement,
    ) -> Option<Result<Node<Statement>, String>> {
        let fors = &self.unit.prepared.range_fors;
        if fors.is_empty()
            || f.step.is_some()
            || fors.binary_search(&self.span(s.span).start).is_err()
        {
            return None;
        }
        let ForInitializer::Declaration(decl) = &f.initializer.node else {
            return None;
        };
        let [var] = decl.node.declarators.as_slice() else {
            return None;
        };
        let name = crate::analysis::extraction::declarator_name(&var.node.declarator.node)?;
        let elements: Vec<Node<Expression>> = match f.condition.as_deref() {
            Some(Node {
                node: Expression::Comma(list),
                ..
            }) => list.to_vec(),
            Some(e) => vec![e.clone()],
            None => return None,
        };
        if elements.iter().any(|e| self.points_to_shared(e)) {
            return Some(Err(format!(
                "a range-based `for` over pointers into shared memory: `{name}` is not followed to them, so the accesses through it are not analyzed"
            )));
        }
        let span = s.span;
        let node = |e: Expression| Node::new(e, span);
        let counter = format!("{name}...n");
        let counter_id = || {
            node(Expression::Identifier(Box::new(Node::new(
                Identifier {
                    name: counter.clone(),
                },
                span,
            ))))
        };
        let int = |v: usize| {
            node(Expression::Constant(Box::new(Node::new(
                Constant::Integer(Integer {
                    base: IntegerBase::Decimal,
                    number: v.to_string().into(),
                    suffix: IntegerSuffix {
                        size: IntegerSize::Int,
                        unsigned: false,
                        imaginary: false,
                    },
                }),
                span,
            ))))
        };
        let binary = |operator: BinaryOperator, lhs, rhs| {
            node(Expression::BinaryOperator(Box::new(Node::new(
                BinaryOperatorExpression {
                    operator: Node::new(operator, span),
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            ))))
        };
        // The element of this trip: `n == 0 ? a : n == 1 ? b : c`.
        let mut pick = elements.last()?.clone();
        for (k, e) in elements.iter().enumerate().rev().skip(1) {
            pick = node(Expression::Conditional(Box::new(Node::new(
                ConditionalExpression {
                    condition: Box::new(binary(BinaryOperator::Equals, counter_id(), int(k))),
                    then_expression: Box::new(e.clone()),
                    else_expression: Box::new(pick),
                },
                span,
            ))));
        }
        // Without `const`: a local constant is read once, where it is declared, and these
        // take a new value each trip.
        let declare = |declared: &str, value: Node<Expression>| {
            let mut d = decl.clone();
            d.node.specifiers.retain(|s| {
                !matches!(&s.node, DeclarationSpecifier::TypeQualifier(q)
                    if q.node == TypeQualifier::Const)
            });
            let v = &mut d.node.declarators[0].node;
            v.declarator.node.kind = Node::new(
                DeclaratorKind::Identifier(Node::new(
                    Identifier {
                        name: declared.to_string(),
                    },
                    span,
                )),
                span,
            );
            v.initializer = Some(Node::new(Initializer::Expression(Box::new(value)), span));
            d
        };
        let body = Statement::Compound(vec![
            Node::new(BlockItem::Declaration(declare(&name, pick)), span),
            Node::new(BlockItem::Statement((*f.statement).clone()), span),
        ]);
        let step = node(Expression::UnaryOperator(Box::new(Node::new(
            UnaryOperatorExpression {
                operator: Node::new(UnaryOperator::PostIncrement, span),
                operand: Box::new(counter_id()),
            },
            span,
        ))));
        let counted = ForStatement {
            initializer: Node::new(ForInitializer::Declaration(declare(&counter, int(0))), span),
            condition: Some(Box::new(binary(
                BinaryOperator::Less,
                counter_id(),
                int(elements.len()),
            ))),
            step: Some(Box::new(step)),
            statement: Box::new(Node::new(body, span)),
        };
        Some(Ok(Node::new(
            Statement::For(Node::new(counted, span)),
            span,
        )))
    }
}
