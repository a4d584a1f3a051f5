//! Calls of the CUDA atomic functions on shared memory: the element they reach is recorded as
//! an atomic access, priced by the operation nvcc emits for it ([`crate::analysis::atomics`]).

use super::*;
use crate::analysis::atomics::{AtomicUse, atomic_kind};
use crate::bank::engine::AtomicKind;

impl<'a, 'p> Analyzer<'a, 'p> {
    /// `atomicAdd(&s[i], v)`, `atomicCAS(p + k, a, b)`, ...: records the access when the first
    /// argument points into shared memory, and returns the old value (per-lane data).
    pub(super) fn atomic_call(
        &mut self,
        whole: &Node<Expression>,
        call: &CallExpression,
        function: &'static str,
        mask: &[bool],
    ) -> Lanes {
        let result_unused = self.discarded == Some(whole.span);
        let returned = |a: &Self| {
            Lanes::Each(Rc::new(vec![
                Value::unknown(format!(
                    "it is the old value `{function}` returns"
                ));
                a.n
            ]))
        };
        let Some((address, values)) = call.arguments.split_first() else {
            return returned(self);
        };
        // The element reached: `X` for `&X`, else `*p`.
        let deref;
        let access: &Node<Expression> = match &address.node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                &u.node.operand
            }
            _ => {
                let span = address.span;
                deref = Node::new(
                    Expression::UnaryOperator(Box::new(Node::new(
                        UnaryOperatorExpression {
                            operator: Node::new(UnaryOperator::Indirection, span),
                            operand: Box::new(address.clone()),
                        },
                        span,
                    ))),
                    span,
                );
                &deref
            }
        };
        let target = self.resolve_access(access, mask);
        if target.is_none() {
            // Not shared memory: the address is still computed.
            self.eval(address, mask);
        }
        let values: Vec<Lanes> = values.iter().map(|v| self.eval(v, mask)).collect();
        let Some(target) = target else {
            return returned(self);
        };
        let usage = AtomicUse {
            adds_one: values.len() == 1 && values[0].as_const() == Some(1),
            result_unused,
        };
        let path = target.elem.field_path(&target.members);
        let elem = path.problem.is_none().then_some(path.ty);
        // A member that does not exist is reported by the recording itself.
        let kind = elem.map_or(Ok(AtomicKind::Rmw), |t| atomic_kind(function, &t, usage));
        let op = Op::Atomic(*kind.as_ref().unwrap_or(&AtomicKind::Rmw));
        self.record_target(access.span, &target, op, mask);
        if let Err(reason) = kind {
            self.mark_site_unknown(access.span, op, target.array, reason);
        }
        returned(self)
    }
}
