//! Overloads told apart by what banklint knows of the arguments' types. A call that several
//! functions of its name and arity could answer (`read_from_smem(float (&)[2], const float *,
//! int)` and `read_from_smem(int (&)[1], const int *, int)`) runs the one whose parameters can
//! take the arguments: a pointer into shared memory of `float` cannot go to a `const int *`,
//! nor a local `float x[4]` to a `float (&)[2]`. Only types known on both sides rule a
//! candidate out; a template parameter's type takes anything. Static methods of a class
//! template's specializations (`Sums<16, 4>::run` and the primary `Sums<P, E>::run`) are
//! told apart by the class's arguments at the call, as the compiler chooses the class.

use super::*;
use crate::analysis::extraction::Param;

/// How many leading template arguments of a call are its class's, and the values of the
/// chosen specialization's own parameters that stand for them.
pub(super) type SpecializationArgs = (usize, Vec<String>);

impl<'a, 'p> Analyzer<'a, 'p> {
    /// Whether `f` can take `args`, as far as their known types say.
    pub(super) fn could_take(&self, f: &Function, args: &[Node<Expression>]) -> bool {
        f.params
            .iter()
            .all(|p| args.get(p.index).is_none_or(|a| self.param_takes(p, a)))
    }

    fn param_takes(&self, p: &Param, a: &Node<Expression>) -> bool {
        let Expression::Identifier(id) = &a.node else {
            return self
                .shared_elem_of(a)
                .is_none_or(|e| pointer_takes(&p.ty, &e));
        };
        match self.lookup(&id.node.name) {
            Some(Binding::Opaque(Some(local))) => {
                pointer_takes(&p.ty, &local.elem)
                    && !matches!((p.extent, local.extent), (Some(m), Some(n)) if m != n)
            }
            _ => self
                .shared_elem_of(a)
                .is_none_or(|e| pointer_takes(&p.ty, &e)),
        }
    }

    /// Among static methods of one class template's specializations and its primary
    /// template, the one the call's class arguments select, with the class arguments
    /// replaced by the specialization's own parameters' values. `None` when the arguments do
    /// not decide (an argument banklint has not resolved, or candidates of another kind).
    pub(super) fn by_specialization(
        &mut self,
        unit: &'a Unit<'p>,
        candidates: &[&'a Function],
        scope_args: &[String],
        call: &CallExpression,
    ) -> Option<(&'a Function, Option<SpecializationArgs>)> {
        let at = self.span(call.callee.span).start;
        let recorded = self.template_arguments_at(at).to_vec();
        let n = if scope_args.is_empty() {
            (self.unit.prepared.class_scoped_calls.iter())
                .find(|(o, _)| *o == at)
                .map(|(_, n)| *n)?
        } else {
            scope_args.len()
        };
        let given: Vec<String> = scope_args
            .iter()
            .chain(&recorded)
            .take(n)
            .cloned()
            .collect();
        let mask = vec![true; self.n];
        let actual: Vec<String> = given
            .iter()
            .map(
                |t| match self.eval_text(t, call.callee.span, &mask, t).as_const() {
                    Some(v) => v.to_string(),
                    None => self.type_text(t),
                },
            )
            .collect();
        let mut primary = Vec::new();
        let mut undecided = false;
        for f in candidates {
            let spec = (unit.prepared.specialized_methods.iter())
                .find(|(r, _, _)| r.contains(&f.span.start));
            let Some((_, written, params)) = spec else {
                primary.push(*f);
                continue;
            };
            match crate::front::class_members::unify(written, params, &actual) {
                Some(bound) => {
                    let own = params
                        .iter()
                        .map(|p| {
                            (bound.iter().find(|(k, _)| k == p))
                                .map_or_else(|| p.clone(), |(_, v)| v.clone())
                        })
                        .collect();
                    return Some((*f, Some((n, own))));
                }
                None => {
                    undecided |= crate::front::class_members::could_match(written, params, &actual);
                }
            }
        }
        match primary.as_slice() {
            [one] if !undecided => Some((*one, None)),
            _ => None,
        }
    }

    /// A type argument as written, with the caller's template type parameters replaced by
    /// what they are bound to.
    fn type_text(&self, t: &str) -> String {
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        match self.type_args.get(t.as_str()) {
            Some(bound) => bound.clone(),
            None => {
                let caller: Vec<(&str, &str)> = (self.type_args.iter())
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                crate::front::names::replace_words(&t, &caller)
            }
        }
    }

    /// The element type of the shared memory an argument points to.
    fn shared_elem_of(&self, a: &Node<Expression>) -> Option<Type> {
        let a = match &a.node {
            Expression::Cast(_) => return None,
            _ => a,
        };
        let Expression::Identifier(id) = &a.node else {
            return None;
        };
        match self.lookup(&id.node.name) {
            Some(Binding::Pointer(p)) => Some(p.elem.clone()),
            Some(Binding::Shared(s)) if !self.arrays[*s].decl.dims.is_empty() => {
                Some(self.arrays[*s].decl.elem.clone())
            }
            _ => None,
        }
    }
}

/// Whether a parameter of type `param` can take a pointer to (or an array of) `elem`: not a
/// scalar parameter, and not a pointer to a scalar of another kind or size.
fn pointer_takes(param: &Type, elem: &Type) -> bool {
    match param {
        Type::Scalar { .. } => false,
        Type::Pointer(inner) => match (&**inner, elem) {
            (
                Type::Scalar {
                    size: a, float: f, ..
                },
                Type::Scalar {
                    size: b, float: g, ..
                },
            ) => a == b && f == g,
            _ => true,
        },
        _ => true,
    }
}
