//! What an inlined function's parameters are bound to, argument by argument: a shared array,
//! a pointer into one, a reference to an element, an object, a cooperative-groups handle, a
//! CuTe value, or the argument's per-lane value.

use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    /// What parameter `p` of an inlined function is bound to, given argument `k` of the call
    /// (`args` its value): a shared array, a pointer into one, an object, a value.
    pub(super) fn argument_binding(
        &mut self,
        p: &crate::analysis::extraction::Param,
        k: usize,
        call: &CallExpression,
        args: &[Lanes],
        aggregates: &[(usize, Vec<Lanes>)],
        mask: &[bool],
    ) -> Binding {
        let arg_expr = call.arguments.get(k);
        // `int2 coord` given `{row, col}`: an object whose members are the elements, in
        // the order the type declares them.
        if let Type::Record(r) = &p.ty
            && let Some((_, items)) = aggregates.iter().find(|(i, _)| *i == k)
            && r.fields.len() >= items.len()
        {
            let fields = (r.fields.iter().zip(items))
                .map(|(f, v)| (f.name.clone(), Binding::Value(v.clone())))
                .collect();
            let object = super::objects::Object {
                class: r.name.clone(),
                template_args: Vec::new(),
                fields: Rc::new(fields),
            };
            return Binding::Object(object);
        }
        let shared = arg_expr.and_then(|a| match &a.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Shared(s)) => Some(*s),
                _ => None,
            },
            _ => None,
        });
        let pointer = match (shared, arg_expr) {
            (None, Some(a)) if self.points_to_shared(a) => self.eval_pointer(a, mask, &p.name),
            _ => None,
        };
        if p.spells_row_length
            && let Some(a) = shared.or(pointer.as_ref().map(|q| q.array))
        {
            self.block_padding(a, recording::ROW_TYPE);
        }
        // A `T &` parameter (a pointer once the front end has rewritten it) given an element.
        let reference = match (&p.ty, arg_expr) {
            (Type::Pointer(_), Some(a)) if shared.is_none() && pointer.is_none() => {
                self.reference_target(a, mask)
            }
            _ => None,
        };
        let group = arg_expr.and_then(|a| match &a.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Group(g)) => Some(g.clone()),
                _ => None,
            },
            _ => None,
        });
        // A local array handed on (`float (&x)[4]` given `x`): the callee's name is the
        // same array, of the same shape.
        let local = arg_expr.and_then(|a| match &a.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Opaque(Some(l))) => Some(l.clone()),
                _ => None,
            },
            _ => None,
        });
        // A struct held by value (see `value_objects`) given to a parameter: a copy for the
        // callee; by reference, the callee may set its members, so the caller's are no
        // longer known.
        let value_object = arg_expr.and_then(|a| match &a.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Object(o))
                    if !o.fields.values().any(|b| !matches!(b, Binding::Value(_))) =>
                {
                    Some((id.node.name.clone(), o.clone()))
                }
                _ => None,
            },
            _ => None,
        });
        if let Some((name, o)) = value_object {
            if !matches!(p.ty, Type::Pointer(_)) {
                return Binding::Object(o);
            }
            // By reference: the callee sees the local as before (its class, for overloads).
            if let Some(Binding::Object(mine)) =
                self.binding_mut(&name, |b| matches!(b, Binding::Object(_)))
            {
                mine.fields = Rc::new(HashMap::default());
            }
            let elem = (self.types.lookup(&o.class)).unwrap_or(Type::Unknown(o.class.clone()));
            return Binding::Opaque(Some(Rc::new(super::overloads::LocalArray {
                elem,
                extent: None,
                array: false,
            })));
        }
        // A CuTe object (a tensor, a tiled copy) handed on as itself.
        let cute = match (shared, &pointer, &reference, arg_expr) {
            (None, None, None, Some(a)) => self.cute_value(a, mask),
            _ => None,
        };
        match (group, shared, args.get(k)) {
            _ if cute.is_some() => Binding::Cute(cute.clone().expect("checked")),
            _ if reference.is_some() => Binding::Reference(reference.clone().expect("checked")),
            _ if local.is_some() => Binding::Opaque(local),
            (Some(g), _, _) => Binding::Group(g),
            (None, Some(s), _) => Binding::Shared(s),
            (None, None, _) if pointer.is_some() => {
                Binding::Pointer(pointer.clone().expect("checked"))
            }
            (None, None, Some(v)) => Binding::Value(v.clone()),
            (None, None, None) if p.default.is_some() => {
                let text = p.default.clone().unwrap_or_default();
                Binding::Value(self.eval_text_at_file_scope(&text))
            }
            (None, None, None) => Binding::Value(Lanes::unknown(format!(
                "parameter `{}` was not passed",
                p.name
            ))),
        }
    }
}
