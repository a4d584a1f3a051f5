//! Pointers into shared memory: row pointers, carved dynamic memory, casts to other element
//! types (byte views), wrapper classes handing out `extern __shared__` arrays.

use super::inline_ptx;
use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    /// The class and its template argument when declaration specifiers name a shared-memory
    /// wrapper class.
    pub(super) fn memory_class_of(
        &self,
        specs: &[Node<DeclarationSpecifier>],
    ) -> Option<(String, String)> {
        specs.iter().find_map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) => match &t.node {
                TypeSpecifier::TypedefName(id)
                    if self
                        .unit
                        .prepared
                        .shared_memory_classes
                        .contains(&id.node.name) =>
                {
                    let at = self.span(id.span).start;
                    let argument = self
                        .template_arguments_at(at)
                        .first()
                        .cloned()
                        .unwrap_or_default();
                    Some((id.node.name.clone(), argument))
                }
                _ => None,
            },
            _ => None,
        })
    }

    /// Whether `name` is a `__shared__` object (rank 0) of a type banklint does not know.
    pub(super) fn is_library_object(&self, name: &str) -> bool {
        matches!(self.lookup(name), Some(Binding::Shared(a))
            if self.arrays[*a].decl.dims.is_empty()
                && matches!(self.arrays[*a].decl.elem, Type::Unknown(_)))
    }

    /// Whether `name` is a `__shared__` scalar (rank 0): reading it is a shared access.
    pub(super) fn is_shared_scalar(&self, name: &str) -> bool {
        matches!(self.lookup(name), Some(Binding::Shared(a)) if self.arrays[*a].decl.dims.is_empty())
    }

    /// Rebinds a pointer variable where it is declared.
    pub(super) fn bind_pointer(&mut self, name: &str, p: SharedPointer) {
        if let Some(b) = self.binding_mut(name, |_| true) {
            *b = Binding::Pointer(p);
        }
    }

    /// A pointer assigned something banklint cannot follow: accesses through it are unknown.
    pub(super) fn bind_pointer_lost(&mut self, name: &str) {
        if let Some(b) = self.binding_mut(name, |_| true) {
            *b = Binding::Opaque;
        }
    }

    /// Whether `e` dereferences a pointer into shared memory (`p[i]`, `*p`, `p->f`),
    /// judged from its shape without evaluating anything.
    pub(super) fn is_pointer_access(&self, e: &Node<Expression>) -> bool {
        let mut cur = e;
        while let Expression::Member(m) = &cur.node {
            if m.node.operator.node == MemberOperator::Indirect {
                return self.points_to_shared(&m.node.expression);
            }
            cur = &m.node.expression;
        }
        match &cur.node {
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                self.points_to_shared(&b.node.lhs) && !self.is_multi_dim_array(&b.node.lhs)
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                self.points_to_shared(&u.node.operand)
            }
            _ => false,
        }
    }

    pub(super) fn is_multi_dim_array(&self, e: &Node<Expression>) -> bool {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Shared(a)) => self.arrays[*a].decl.dims.len() > 1,
                _ => false,
            },
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => true,
            _ => false,
        }
    }

    /// Whether an expression can evaluate to a pointer into shared memory.
    pub(super) fn points_to_shared(&self, e: &Node<Expression>) -> bool {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Pointer(_)) => true,
                Some(Binding::Shared(a)) => !self.arrays[*a].decl.dims.is_empty(),
                Some(_) => false,
                None => self.unit.file_shared.iter().any(|a| a.name == id.node.name),
            },
            Expression::Cast(c) => self.points_to_shared(&c.node.expression),
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                base_name(&u.node.operand).is_some_and(|n| {
                    matches!(
                        self.lookup(&n),
                        Some(Binding::Pointer(_) | Binding::Shared(_) | Binding::Reference(_))
                    ) || self.unit.file_shared.iter().any(|a| a.name == n)
                })
            }
            Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::Plus | BinaryOperator::Minus
                ) =>
            {
                self.points_to_shared(&b.node.lhs) || self.points_to_shared(&b.node.rhs)
            }
            // A row of a multi-dimensional array decays to a pointer: `tile[ty]`.
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => self
                .shared_ref_indexed(e, true)
                .is_some_and(|(a, idx, members)| {
                    members.is_empty() && idx.len() < self.arrays[a].decl.dims.len()
                }),
            Expression::Call(c) => {
                self.is_shared_memory_class_call(c)
                    || inline_ptx::is_shared_window_call(&c.node)
                    || self.call_returns_shared(&c.node)
            }
            _ => false,
        }
    }

    /// `&a[i][j]`, the indices not given taken as 0.
    fn element_pointer(
        &mut self,
        array: usize,
        index_exprs: &[&Node<Expression>],
        mask: &[bool],
    ) -> SharedPointer {
        let rank = self.arrays[array].decl.dims.len();
        let mut tuple: Vec<Lanes> = index_exprs.iter().map(|x| self.eval(x, mask)).collect();
        tuple.resize(rank, Lanes::int(0));
        SharedPointer {
            array,
            elem: self.arrays[array].decl.elem.clone(),
            anchor: tuple.last().cloned().unwrap_or_else(|| Lanes::int(0)),
            place: Place::Tuple(tuple),
        }
    }

    pub(super) fn is_shared_memory_class_call(&self, c: &Node<CallExpression>) -> bool {
        match &c.node.callee.node {
            Expression::Identifier(id) => self
                .unit
                .prepared
                .shared_memory_classes
                .contains(&id.node.name),
            // `smem.getPointer()` on a wrapper-class variable.
            Expression::Member(m) => matches!(&m.node.expression.node, Expression::Identifier(v)
                if matches!(self.lookup(&v.node.name), Some(Binding::MemoryClass { .. }))),
            _ => false,
        }
    }

    /// Where `p[i]`, `*p`, `p->f` or `(*p).f` points.
    pub(super) fn pointer_target(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
    ) -> Option<(SharedPointer, Vec<String>)> {
        if !self.is_pointer_access(e) {
            return None;
        }
        let mut members = Vec::new();
        let mut cur = e;
        let mut arrow = false;
        while let Expression::Member(m) = &cur.node {
            members.push(m.node.identifier.node.name.clone());
            cur = &m.node.expression;
            if m.node.operator.node == MemberOperator::Indirect {
                arrow = true;
                break;
            }
        }
        members.reverse();
        let ptr = if arrow {
            self.eval_pointer(cur, mask, "")?
        } else {
            match &cur.node {
                Expression::BinaryOperator(b) => {
                    let base = self.eval_pointer(&b.node.lhs, mask, "")?;
                    let k = self.eval(&b.node.rhs, mask);
                    self.advance(base, &k)?
                }
                Expression::UnaryOperator(u) => self.eval_pointer(&u.node.operand, mask, "")?,
                _ => return None,
            }
        };
        Some((ptr, members))
    }

    /// Evaluates an expression that yields a pointer into shared memory. `name` names a
    /// wrapper-class array after the variable it initializes.
    pub(super) fn eval_pointer(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
        name: &str,
    ) -> Option<SharedPointer> {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name).cloned() {
                Some(Binding::Pointer(p)) => Some(p),
                Some(Binding::Shared(a)) => Some(self.decay(a)),
                Some(_) => None,
                None => {
                    let decl = self
                        .unit
                        .file_shared
                        .iter()
                        .find(|a| a.name == id.node.name)?
                        .clone();
                    let a = self.register_array(decl);
                    Some(self.decay(a))
                }
            },
            // `tile[ty]` of a `tile[R][C]`: the row's first element, `&tile[ty][0]`.
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::Index && self.points_to_shared(e) =>
            {
                let (array, index_exprs, _) = self.shared_ref_indexed(e, true)?;
                Some(self.element_pointer(array, &index_exprs, mask))
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                // `&r` of a `T &r` bound to an element: the element's address.
                if let Expression::Identifier(id) = &u.node.operand.node
                    && let Some(Binding::Reference(r)) = self.lookup(&id.node.name)
                {
                    return Some(r.target.clone());
                }
                if let Some((array, index_exprs, members)) =
                    self.shared_ref_indexed(&u.node.operand, true)
                {
                    if !members.is_empty() {
                        return None;
                    }
                    return Some(self.element_pointer(array, &index_exprs, mask));
                }
                match &u.node.operand.node {
                    Expression::BinaryOperator(b)
                        if b.node.operator.node == BinaryOperator::Index =>
                    {
                        let base = self.eval_pointer(&b.node.lhs, mask, name)?;
                        let k = self.eval(&b.node.rhs, mask);
                        self.advance(base, &k)
                    }
                    Expression::UnaryOperator(inner)
                        if inner.node.operator.node == UnaryOperator::Indirection =>
                    {
                        self.eval_pointer(&inner.node.operand, mask, name)
                    }
                    _ => None,
                }
            }
            Expression::Cast(c) => {
                let p = self.eval_pointer(&c.node.expression, mask, name)?;
                let pointee = match self.cpp_cast_instance(e.span, &c.node.type_name.node) {
                    Some(t) => Some(t),
                    None => self.cast_pointee(&c.node.type_name.node),
                };
                match pointee {
                    Some(target) => self.retype(p, target),
                    None => Some(p),
                }
            }
            Expression::BinaryOperator(b) => {
                let op = b.node.operator.node.clone();
                if !matches!(op, BinaryOperator::Plus | BinaryOperator::Minus) {
                    return None;
                }
                if self.points_to_shared(&b.node.lhs) {
                    let p = self.eval_pointer(&b.node.lhs, mask, name)?;
                    let mut k = self.eval(&b.node.rhs, mask);
                    if op == BinaryOperator::Minus {
                        k = Lanes::binary(BinOp::Sub, &Lanes::int(0), &k, self.n, &mut self.syms);
                    }
                    self.advance(p, &k)
                } else if op == BinaryOperator::Plus {
                    let k = self.eval(&b.node.lhs, mask);
                    let p = self.eval_pointer(&b.node.rhs, mask, name)?;
                    self.advance(p, &k)
                } else {
                    None
                }
            }
            Expression::Call(c) if inline_ptx::is_shared_window_call(&c.node) => {
                self.shared_window(&c.node, mask)
            }
            Expression::Call(c) if self.call_returns_shared(&c.node) => {
                self.last_returned_pointer = None;
                self.eval(e, mask);
                match self.last_returned_pointer.take() {
                    Some(Ok(p)) => Some(p),
                    Some(Err(why)) => {
                        let at = e.span;
                        self.note_unfollowed(
                            at,
                            format!(
                                "the shared-memory pointer this call returns is not followed: {why}"
                            ),
                        );
                        None
                    }
                    None => None,
                }
            }
            Expression::Call(c) if self.is_shared_memory_class_call(c) => {
                let (class, type_text) = match &c.node.callee.node {
                    Expression::Member(m) => match &m.node.expression.node {
                        Expression::Identifier(v) => match self.lookup(&v.node.name) {
                            Some(Binding::MemoryClass { class, argument }) => {
                                (class.clone(), argument.clone())
                            }
                            _ => return None,
                        },
                        _ => return None,
                    },
                    Expression::Identifier(id) => {
                        let at = self.span(c.node.callee.span).start;
                        let argument = self.template_arguments_at(at).first().cloned()?;
                        (id.node.name.clone(), argument)
                    }
                    _ => return None,
                };
                let elem = type_from_text(&self.types, &type_text)
                    .unwrap_or(Type::Unknown(type_text.clone()));
                let span = self.span(e.span);
                let declared_in = self.wrapper_array(&class, &type_text, &elem);
                let decl = SharedArray {
                    name: if name.is_empty() {
                        format!("{class}<{type_text}>")
                    } else {
                        name.to_string()
                    },
                    elem,
                    dims: vec![None],
                    dim_spans: vec![None],
                    decl_span: span.clone(),
                    name_span: span,
                    is_extern: true,
                    item: self.item,
                    declared_in,
                };
                let a = self.register_array(decl);
                Some(self.decay(a))
            }
            _ => None,
        }
    }

    /// The `extern __shared__` declaration behind `class<argument>`: the specialization
    /// for the bound argument (`SharedMemory<float>` for `T = float`), else the primary
    /// template's.
    pub(super) fn wrapper_array(
        &self,
        class: &str,
        argument: &str,
        elem: &Type,
    ) -> Option<WrapperArray> {
        let bound = self
            .type_args
            .get(argument.trim())
            .map_or(argument, String::as_str);
        let same = |written: &str| {
            written.split_whitespace().eq(bound.split_whitespace())
                || type_from_text(&self.types, written).is_some_and(|t| t == *elem)
        };
        let of_class = self
            .unit
            .prepared
            .shared_memory_arrays
            .iter()
            .filter(|w| w.class == class);
        of_class
            .clone()
            .find(|w| matches!(w.args.as_deref(), Some([one]) if same(one)))
            .or_else(|| of_class.clone().find(|w| w.args.is_none()))
            .cloned()
    }

    /// An array used as a pointer: its first element.
    pub(super) fn decay(&self, array: usize) -> SharedPointer {
        let rank = self.arrays[array].decl.dims.len().max(1);
        SharedPointer {
            array,
            elem: self.arrays[array].decl.elem.clone(),
            place: Place::Tuple(vec![Lanes::int(0); rank]),
            anchor: Lanes::int(0),
        }
    }

    /// `p + k`: along the innermost dimension, or by `k` elements of the pointee in bytes.
    pub(super) fn advance(&mut self, p: SharedPointer, k: &Lanes) -> Option<SharedPointer> {
        let n = self.n;
        let place = match p.place {
            Place::Tuple(mut t) => {
                let last = t.last_mut()?;
                *last = Lanes::binary(BinOp::Add, last, k, n, &mut self.syms);
                Place::Tuple(t)
            }
            Place::Bytes(off) => match p.elem.size() {
                Some(size) => {
                    let delta =
                        Lanes::binary(BinOp::Mul, k, &Lanes::int(size.into()), n, &mut self.syms);
                    Place::Bytes(Lanes::binary(BinOp::Add, &off, &delta, n, &mut self.syms))
                }
                // Still an access to report, with why its place is not known.
                None if k.as_const() == Some(0) => Place::Bytes(off),
                None => Place::Bytes(Lanes::unknown(format!(
                    "the size of `{}` is not known",
                    p.elem.name()
                ))),
            },
        };
        Some(SharedPointer { place, ..p })
    }

    /// A pointer cast: the same element type keeps indices; another one works in bytes.
    pub(super) fn retype(&mut self, p: SharedPointer, elem: Type) -> Option<SharedPointer> {
        if p.elem == elem {
            return Some(p);
        }
        let (offset, anchor) = match p.place {
            Place::Bytes(off) => (off, p.anchor),
            Place::Tuple(mut t) => {
                let off = self.byte_offset(p.array, &t)?;
                // The anchor in bytes: the tuple as it was taken, before any arithmetic.
                if let Some(last) = t.last_mut() {
                    *last = p.anchor;
                }
                (off, self.byte_offset(p.array, &t)?)
            }
        };
        Some(SharedPointer {
            array: p.array,
            elem,
            place: Place::Bytes(offset),
            anchor,
        })
    }

    /// The byte offset of an index tuple of `array`.
    fn byte_offset(&mut self, array: usize, tuple: &[Lanes]) -> Option<Lanes> {
        let n = self.n;
        let strides = self.arrays[array].layout.as_ref()?.strides()?;
        let mut off = Lanes::int(0);
        for (i, s) in tuple.iter().zip(strides) {
            let term = Lanes::binary(BinOp::Mul, i, &Lanes::int(s), n, &mut self.syms);
            off = Lanes::binary(BinOp::Add, &off, &term, n, &mut self.syms);
        }
        Some(off)
    }

    /// Whether an access at `at` (per lane, `width` units wide) through a pointer taken at
    /// `anchor` leaves the anchor's row of `row` units in some active lane, or may: only an
    /// access shown to stay in that row is sure to move with a padding.
    pub(super) fn leaves_anchor_row(
        &mut self,
        at: &Lanes,
        anchor: &Lanes,
        row: i64,
        width: i64,
        mask: &[bool],
    ) -> bool {
        (0..self.n).filter(|&t| mask[t]).any(|t| {
            let d = crate::analysis::value::binary(
                BinOp::Sub,
                &at.get(t),
                &anchor.get(t),
                false,
                &mut self.syms,
            );
            match (d.as_const(), column(&anchor.get(t), row)) {
                (Some(0), _) => false,
                (Some(d), Some(col)) => col + d < 0 || col + d + width > row,
                _ => true,
            }
        })
    }

    /// The pointee type of a pointer cast `(float4 *)`, or `None` for a value cast.
    pub(super) fn cast_pointee(&mut self, t: &TypeName) -> Option<Type> {
        let declarator = t.declarator.as_ref()?;
        if !declarator
            .node
            .derived
            .iter()
            .any(|d| matches!(d.node, DerivedDeclarator::Pointer(_)))
        {
            return None;
        }
        Some(self.qualified_type(&t.specifiers))
    }

    /// The byte view of an array, for accesses through pointers of another element type.
    pub(super) fn byte_view(&mut self, array: usize) -> usize {
        if let Some(&v) = self.arrays.views.get(&array) {
            return v;
        }
        let mut decl = self.arrays[array].decl.clone();
        decl.elem = Type::scalar("char", 1, false);
        decl.dims = vec![None];
        decl.dim_spans = vec![None];
        let v = self.arrays.entries.len();
        self.arrays.entries.push(ArrayEntry {
            byte_view_of: Some(array),
            decl,
            layout: Some(ArrayLayout {
                elem_size: 1,
                dims: vec![None],
                pad: 0,
            }),
            layout_problem: None,
            padding_blocked: None,
        });
        self.arrays.views.insert(array, v);
        v
    }
}

/// `v` modulo `row` when its symbolic terms are all whole rows (`128 * r + 8`: 8).
fn column(v: &crate::analysis::value::Value, row: i64) -> Option<i64> {
    let a = v.as_affine()?;
    (row > 0 && a.terms.iter().all(|(_, k)| k % row == 0)).then(|| a.constant.rem_euclid(row))
}
