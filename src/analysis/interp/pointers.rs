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

    /// Whether `name` is a whole `__shared__` struct (rank 0): handed to a function banklint
    /// has no definition of (a library's `fill(tile)`), it is most likely passed by
    /// reference, not copied.
    pub(super) fn is_shared_record(&self, name: &str) -> bool {
        matches!(self.lookup(name), Some(Binding::Shared(a))
            if self.arrays[*a].decl.dims.is_empty()
                && matches!(self.arrays[*a].decl.elem, Type::Record(_)))
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

    /// Assigns a pointer in the threads of `mask`: the others keep what they held. Threads
    /// left pointing into another array make the pointer one banklint cannot follow (an
    /// access has one array), said at `at`.
    pub(super) fn bind_pointer_masked(
        &mut self,
        name: &str,
        p: SharedPointer,
        mask: &[bool],
        at: Span,
    ) {
        let live = self.live(&vec![true; self.n]);
        let covers = (0..self.n).all(|t| !live[t] || mask[t]);
        let merged = match self.lookup(name) {
            _ if covers => Some(p),
            Some(Binding::Pointer(old)) => merge_pointers(old, &p, mask),
            _ => Some(p),
        };
        match merged {
            Some(m) => self.bind_pointer(name, m),
            None => {
                self.note_unfollowed(
                    at,
                    format!("`{name}` points into different shared arrays (or at different types) in different threads here; banklint analyzes an access in one array, so the accesses through `{name}` after this are not analyzed"),
                );
                self.bind_pointer_lost(name);
            }
        }
    }

    /// A pointer assigned something banklint cannot follow: accesses through it are unknown.
    pub(super) fn bind_pointer_lost(&mut self, name: &str) {
        if let Some(b) = self.binding_mut(name, |_| true) {
            *b = Binding::Opaque(None);
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
            // `t[i]` of a pointer to rows is a row: `t[i][j]` is an access through it.
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                !matches!(&b.node.lhs.node, Expression::Identifier(id)
                    if matches!(self.lookup(&id.node.name), Some(Binding::Rows { .. })))
            }
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
            // `c ? a : b`: a pointer into shared memory on either side.
            Expression::Conditional(c) => {
                self.points_to_shared(&c.node.then_expression)
                    || self.points_to_shared(&c.node.else_expression)
            }
            // `p++` as an operand, `*p++ = v`: the pointer before the step.
            Expression::UnaryOperator(u) if is_step(&u.node.operator.node) => {
                self.points_to_shared(&u.node.operand)
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                base_name(&u.node.operand).is_some_and(|n| {
                    matches!(
                        self.lookup(&n),
                        Some(Binding::Pointer(_) | Binding::Shared(_) | Binding::Reference(_))
                    ) || self.unit.file_shared.iter().any(|a| a.name == n)
                }) || matches!(&u.node.operand.node, Expression::BinaryOperator(b)
                    // `&static_cast<T *>(smem)[i]`: an element through a cast pointer.
                    if b.node.operator.node == BinaryOperator::Index
                        && matches!(b.node.lhs.node, Expression::Cast(_))
                        && self.points_to_shared(&b.node.lhs))
            }
            Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::Plus | BinaryOperator::Minus
                ) =>
            {
                self.points_to_shared(&b.node.lhs) || self.points_to_shared(&b.node.rhs)
            }
            // A row of a multi-dimensional array decays to a pointer: `tile[ty]`; so does a
            // row through a pointer to rows, `t[i]`.
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                matches!(&b.node.lhs.node, Expression::Identifier(id)
                    if matches!(self.lookup(&id.node.name), Some(Binding::Rows { .. })))
                    || self
                        .shared_ref_indexed(e, true)
                        .is_some_and(|(a, idx, members)| {
                            members.is_empty() && idx.len() < self.arrays[a].decl.dims.len()
                        })
            }
            Expression::Call(c) => {
                self.is_shared_memory_class_call(c)
                    || inline_ptx::is_shared_window_call(&c.node)
                    || self.call_returns_shared(&c.node)
            }
            _ => false,
        }
    }

    /// `c ? a : b` where each thread's condition is known: the side each takes, per thread
    /// when both sides are in one array. `None` when the condition is not known (see
    /// `choose_pointer`, which runs each side) or the threads take different arrays.
    fn conditional_pointer(
        &mut self,
        c: &ConditionalExpression,
        mask: &[bool],
        name: &str,
    ) -> Option<SharedPointer> {
        let cond = self.eval(&c.condition, mask);
        let live: Vec<usize> = (0..self.n).filter(|&t| mask[t]).collect();
        let side: Vec<Option<bool>> = live
            .iter()
            .map(|&t| cond.const_at(t).map(|v| v != 0))
            .collect();
        if side.iter().any(Option::is_none) {
            return None;
        }
        if side.iter().all(|s| *s == Some(true)) {
            return self.eval_pointer(&c.then_expression, mask, name);
        }
        if side.iter().all(|s| *s == Some(false)) {
            return self.eval_pointer(&c.else_expression, mask, name);
        }
        let then_mask: Vec<bool> = (0..self.n)
            .map(|t| mask[t] && cond.const_at(t).is_some_and(|v| v != 0))
            .collect();
        let else_mask: Vec<bool> = (0..self.n)
            .map(|t| mask[t] && cond.const_at(t) == Some(0))
            .collect();
        let a = self.eval_pointer(&c.then_expression, &then_mask, name)?;
        let b = self.eval_pointer(&c.else_expression, &else_mask, name)?;
        let (Place::Tuple(ta), Place::Tuple(tb)) = (&a.place, &b.place) else {
            return None;
        };
        if a.array != b.array || ta.len() != tb.len() {
            return None;
        }
        let pick = |x: &Lanes, y: &Lanes| {
            Lanes::from_values(
                (0..then_mask.len())
                    .map(|t| {
                        if then_mask[t] {
                            x.get(t).into_owned()
                        } else {
                            y.get(t).into_owned()
                        }
                    })
                    .collect(),
            )
        };
        let tuple: Vec<Lanes> = ta.iter().zip(tb).map(|(x, y)| pick(x, y)).collect();
        Some(SharedPointer {
            anchor: pick(&a.anchor, &b.anchor),
            place: Place::Tuple(tuple),
            ..a
        })
    }

    /// `p = c ? a : b` with a condition not known per thread: run as
    /// `if (c) p = a; else p = b;`, so that each side is analyzed as a branch is.
    pub(super) fn choose_pointer(
        &mut self,
        target: &Node<Expression>,
        c: &Node<ConditionalExpression>,
        mask: &[bool],
    ) {
        let assign = |value: &Node<Expression>| {
            let span = value.span;
            let e = Expression::BinaryOperator(Box::new(Node::new(
                BinaryOperatorExpression {
                    operator: Node::new(BinaryOperator::Assign, span),
                    lhs: Box::new(target.clone()),
                    rhs: Box::new(value.clone()),
                },
                span,
            )));
            Box::new(Node::new(
                Statement::Expression(Some(Box::new(Node::new(e, span)))),
                span,
            ))
        };
        let branch = IfStatement {
            condition: c.node.condition.clone(),
            then_statement: assign(&c.node.then_expression),
            else_statement: Some(assign(&c.node.else_expression)),
        };
        self.exec_if(&branch, mask);
    }

    /// `&a[i][j]`, the indices not given taken as 0.
    pub(super) fn element_pointer(
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
            // `t[i]` of a pointer to rows: row `i`.
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::Index
                    && matches!(&b.node.lhs.node, Expression::Identifier(_)) =>
            {
                let Expression::Identifier(id) = &b.node.lhs.node else {
                    return None;
                };
                match self.lookup(&id.node.name).cloned() {
                    Some(Binding::Rows { first, row_bytes }) => {
                        let i = self.eval(&b.node.rhs, mask);
                        let bytes = Lanes::binary(
                            BinOp::Mul,
                            &i,
                            &Lanes::int(row_bytes.into()),
                            self.n,
                            &mut self.syms,
                        );
                        let Place::Bytes(off) = &first.place else {
                            return None;
                        };
                        let off = Lanes::binary(BinOp::Add, off, &bytes, self.n, &mut self.syms);
                        Some(SharedPointer {
                            place: Place::Bytes(off.clone()),
                            anchor: off,
                            ..first
                        })
                    }
                    _ if self.points_to_shared(e) => {
                        let (array, index_exprs, _) = self.shared_ref_indexed(e, true)?;
                        Some(self.element_pointer(array, &index_exprs, mask))
                    }
                    _ => None,
                }
            }
            // `tile[ty]` of a `tile[R][C]`: the row's first element, `&tile[ty][0]`.
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::Index && self.points_to_shared(e) =>
            {
                let (array, index_exprs, _) = self.shared_ref_indexed(e, true)?;
                Some(self.element_pointer(array, &index_exprs, mask))
            }
            Expression::Conditional(c) => self.conditional_pointer(&c.node, mask, name),
            Expression::UnaryOperator(u) if is_step(&u.node.operator.node) => {
                // `p++` is `p` and then the step; `++p` the step and then `p`.
                let post = matches!(
                    u.node.operator.node,
                    UnaryOperator::PostIncrement | UnaryOperator::PostDecrement
                );
                let before = post.then(|| self.eval_pointer(&u.node.operand, mask, name));
                self.eval(e, mask);
                match before {
                    Some(p) => p,
                    None => self.eval_pointer(&u.node.operand, mask, name),
                }
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
                    // `&s[i].f`: the member's place.
                    if !members.is_empty() {
                        return self.member_pointer(&u.node.operand, mask);
                    }
                    return Some(self.element_pointer(array, &index_exprs, mask));
                }
                // `&src.data[k]`, `&p->v[k]`: an element of an array member in shared memory.
                if self.is_member_array_element(&u.node.operand) {
                    return self.member_array_element(&u.node.operand, mask);
                }
                // `&p->f`, `&r.f`: a member through a pointer or a reference.
                if matches!(u.node.operand.node, Expression::Member(_))
                    && let Some(p) = self.member_pointer(&u.node.operand, mask)
                {
                    return Some(p);
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
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::BitwiseXor
                    && self.is_shared_address(&b.node.lhs) =>
            {
                self.swizzled(&b.node, mask, name)
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
                // A reference it returns (`T &allocate()`, a pointer once lowered) is bound,
                // not read.
                let saved = self.binding_reference.replace(self.call_depth);
                self.eval(e, mask);
                self.binding_reference = saved;
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
                let declared_in = (self.wrapper_array(&class, &type_text, &elem))
                    .map(crate::analysis::extraction::DeclaredElsewhere::Wrapper);
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
                    unsized_type: None,
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
                None => Place::Bytes(Lanes::unknown(p.elem.size_problem())),
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

    /// The same pointer with its place in bytes, `elem` its pointee.
    pub(super) fn in_bytes(&mut self, p: SharedPointer, elem: Type) -> Option<SharedPointer> {
        let q = self.retype(p, elem.clone())?;
        match q.place {
            Place::Bytes(_) => Some(q),
            Place::Tuple(_) => self.retype(
                SharedPointer {
                    elem: Type::Unknown(String::new()),
                    ..q
                },
                elem,
            ),
        }
    }

    /// The byte offset of an index tuple of `array`.
    fn byte_offset(&mut self, array: usize, tuple: &[Lanes]) -> Option<Lanes> {
        let n = self.n;
        let strides = self.arrays[array].layout.as_ref().and_then(|l| l.strides());
        let Some(strides) = strides else {
            // No layout (an element type or inner extent banklint does not know): the pointer
            // is still into this array, at an offset that says why it is not known, so the
            // accesses through it are reported rather than lost.
            let entry = &self.arrays[array];
            let why = entry
                .layout_problem
                .clone()
                .unwrap_or_else(|| format!("the layout of `{}` is not known", entry.decl.name));
            return Some(Lanes::unknown(why));
        };
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

/// `++` or `--`, before or after.
fn is_step(op: &UnaryOperator) -> bool {
    matches!(
        op,
        UnaryOperator::PreIncrement
            | UnaryOperator::PostIncrement
            | UnaryOperator::PreDecrement
            | UnaryOperator::PostDecrement
    )
}

/// `old` where `mask` is clear and `new` where it is set, when both point into one array as
/// the same type.
fn merge_pointers(
    old: &SharedPointer,
    new: &SharedPointer,
    mask: &[bool],
) -> Option<SharedPointer> {
    if old.array != new.array || old.elem != new.elem {
        return None;
    }
    let place = match (&old.place, &new.place) {
        (Place::Tuple(a), Place::Tuple(b)) if a.len() == b.len() => {
            Place::Tuple(a.iter().zip(b).map(|(x, y)| x.merge(y, mask)).collect())
        }
        (Place::Bytes(a), Place::Bytes(b)) => Place::Bytes(a.merge(b, mask)),
        _ => return None,
    };
    Some(SharedPointer {
        array: new.array,
        elem: new.elem.clone(),
        place,
        anchor: old.anchor.merge(&new.anchor, mask),
    })
}

/// A pointer after a branch whose sides the threads may both have taken (`then_mask` and
/// `else_mask` overlap where the condition was not resolved): each thread's side where it
/// took one, unknown where it may have taken either and the sides differ; `Opaque` when the
/// sides point into different arrays or at different types.
pub(super) fn join_pointers(
    then_p: &SharedPointer,
    else_p: &SharedPointer,
    then_mask: &[bool],
    else_mask: &[bool],
    name: &str,
    line: usize,
) -> Binding {
    if then_p.array != else_p.array || then_p.elem != else_p.elem {
        return Binding::Opaque(None);
    }
    let join = |a: &Lanes, b: &Lanes| {
        Lanes::from_values(
            (0..then_mask.len())
                .map(|t| match (then_mask[t], else_mask[t]) {
                    (true, true) if a.get(t) != b.get(t) => Value::unknown(format!(
                        "`{name}` depends on which side of the branch at line {line} a thread takes"
                    )),
                    (true, false) => a.get(t).into_owned(),
                    _ => b.get(t).into_owned(),
                })
                .collect(),
        )
    };
    let place = match (&then_p.place, &else_p.place) {
        (Place::Tuple(a), Place::Tuple(b)) if a.len() == b.len() => {
            Place::Tuple(a.iter().zip(b).map(|(x, y)| join(x, y)).collect())
        }
        (Place::Bytes(a), Place::Bytes(b)) => Place::Bytes(join(a, b)),
        _ => return Binding::Opaque(None),
    };
    Binding::Pointer(SharedPointer {
        array: else_p.array,
        elem: else_p.elem.clone(),
        place,
        anchor: join(&then_p.anchor, &else_p.anchor),
    })
}
