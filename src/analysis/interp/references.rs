//! C++ references bound to `__shared__` elements: no load at the call; the callee loads at
//! its first read and stores at each assignment.

use super::recording::IndexText;
use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    /// Resolves `s[i][j].f` to (array, index expressions, member names) when `s` is a
    /// `__shared__` array indexed in every dimension.
    pub(super) fn shared_ref<'e>(&self, e: &'e Node<Expression>) -> Option<SharedRef<'e>> {
        self.shared_ref_indexed(e, false)
    }

    /// Like `shared_ref`, optionally accepting fewer indices than the rank (`&tile[i]`).
    pub(super) fn shared_ref_indexed<'e>(
        &self,
        e: &'e Node<Expression>,
        partial: bool,
    ) -> Option<SharedRef<'e>> {
        let (cur, members) = direct_members(e)?;
        let (cur, indices) = peel_subscripts(cur)?;
        let Expression::Identifier(id) = &cur.node else {
            return None;
        };
        let array = match self.lookup(&id.node.name) {
            Some(Binding::Shared(a)) => *a,
            Some(_) => return None,
            None => {
                let decl = self
                    .unit
                    .file_shared
                    .iter()
                    .find(|a| a.name == id.node.name)?;
                *self
                    .arrays
                    .by_decl
                    .get(&(decl.decl_span.clone(), decl.name.clone()))?
                    .first()?
            }
        };
        let rank = self.arrays[array].decl.dims.len();
        let complete =
            indices.len() == rank || (partial && !indices.is_empty() && indices.len() < rank);
        (complete && (rank > 0 || indices.is_empty())).then_some((array, indices, members))
    }

    /// Records an access through the reference parameter `name` at `at`; after it the value
    /// is in a register, so later reads load nothing.
    pub(super) fn reference_access(
        &mut self,
        name: &str,
        at: Span,
        r: Reference,
        op: Op,
        mask: &[bool],
    ) {
        let text = IndexText::Written(format!("`{}` (through `{name}`)", r.written));
        let (array, indices, texts, elem) = self.place_parts(r.target.clone(), text, mask);
        self.record_access(at, array, &indices, &texts, &elem, &[], op, mask);
        if let Some(b) = self.binding_mut(name, |_| true) {
            *b = Binding::Reference(Reference { loaded: true, ..r });
        }
    }

    /// `n.x` (or `n.p.x`) with `n` a reference parameter: its target and the member names.
    pub(super) fn reference_member(
        &self,
        e: &Node<Expression>,
    ) -> Option<(String, Reference, Vec<String>)> {
        let (cur, members) = direct_members(e)?;
        let Expression::Identifier(id) = &cur.node else {
            return None;
        };
        match self.lookup(&id.node.name) {
            Some(Binding::Reference(r)) if !members.is_empty() => {
                Some((id.node.name.clone(), r.clone(), members))
            }
            _ => None,
        }
    }

    /// An access to one field through a reference parameter: loaded or stored each time.
    pub(super) fn reference_member_access(
        &mut self,
        e: &Node<Expression>,
        (name, r, members): (String, Reference, Vec<String>),
        op: Op,
        mask: &[bool],
    ) {
        let text = IndexText::Written(format!("`{}` (through `{name}`)", r.written));
        let (array, indices, texts, elem) = self.place_parts(r.target, text, mask);
        self.record_access(e.span, array, &indices, &texts, &elem, &members, op, mask);
    }

    /// What `record_access` needs to know of a pointer's target: the array (a byte view for a
    /// byte offset), its index tuple, the index texts, the element type. An access that
    /// leaves the row the pointer was taken in blocks padding the array.
    pub(super) fn place_parts(
        &mut self,
        ptr: SharedPointer,
        text: IndexText,
        mask: &[bool],
    ) -> (usize, Vec<Lanes>, Vec<IndexText>, Type) {
        let layout = self.arrays[ptr.array].layout.clone();
        let rows = layout.as_ref().filter(|l| l.dims.len() >= 2);
        let leaves = match (&ptr.place, rows) {
            (Place::Tuple(t), Some(l)) => match (t.last(), l.dims.last().copied().flatten()) {
                (Some(inner), Some(len)) => {
                    self.leaves_anchor_row(inner, &ptr.anchor, len, 1, mask)
                }
                _ => false,
            },
            (Place::Bytes(off), Some(l)) => {
                let row = l.strides().and_then(|s| s.get(s.len() - 2).copied());
                let width = ptr.elem.size().map_or(1, i64::from);
                row.is_some_and(|row| self.leaves_anchor_row(off, &ptr.anchor, row, width, mask))
            }
            _ => false,
        };
        if leaves {
            self.block_padding(ptr.array, recording::LEAVES_ROW);
        }
        match ptr.place {
            Place::Tuple(indices) => {
                let texts = vec![text; indices.len()];
                (ptr.array, indices, texts, ptr.elem)
            }
            Place::Bytes(offset) => (
                self.byte_view(ptr.array),
                vec![offset],
                vec![text],
                ptr.elem,
            ),
        }
    }

    /// The target of a C++ reference parameter given `arg`: a whole `__shared__` element
    /// (`s[i][j]`, its indices evaluated here, in the caller), an element through a pointer
    /// into shared memory (`p[i]`, `*p`), or a reference the caller itself received.
    pub(super) fn reference_target(
        &mut self,
        arg: &Node<Expression>,
        mask: &[bool],
    ) -> Option<Reference> {
        if let Expression::Identifier(id) = &arg.node
            && let Some(Binding::Reference(r)) = self.lookup(&id.node.name)
        {
            // Handed on: the callee reads it afresh.
            return Some(Reference {
                loaded: false,
                ..r.clone()
            });
        }
        if self.shared_ref(arg).is_none() && self.is_pointer_access(arg) {
            let (target, members) = self.pointer_target(arg, mask)?;
            return members.is_empty().then(|| Reference {
                target,
                written: self.source_text(arg.span),
                loaded: false,
            });
        }
        // A member, or an element of a member array (`s[i].f`, `r.tiles[k]`,
        // `q[i].p[1].f`): the place it has in its struct.
        if self.is_member_array_element(arg) || self.member_base_pointer_of(arg).is_some() {
            let target = match self.member_base_pointer_of(arg) {
                Some(_) if !self.is_member_array_element(arg) => self.member_pointer(arg, mask)?,
                _ => self.member_array_element(arg, mask)?,
            };
            return Some(Reference {
                target,
                written: self.source_text(arg.span),
                loaded: false,
            });
        }
        let (array, index_exprs, members) = self.shared_ref(arg)?;
        if !members.is_empty() || index_exprs.is_empty() {
            return None;
        }
        let indices: Vec<Lanes> = index_exprs.iter().map(|x| self.eval(x, mask)).collect();
        Some(Reference {
            target: SharedPointer {
                array,
                elem: self.arrays[array].decl.elem.clone(),
                anchor: indices.last().cloned().unwrap_or_else(|| Lanes::int(0)),
                place: Place::Tuple(indices),
            },
            written: self.source_text(arg.span),
            loaded: false,
        })
    }

    /// Whether `arg`, handed to a reference parameter, is a place in shared memory that
    /// `reference_target` binds the parameter to: the callee reads it, if at all, not the
    /// call. Decided from the text and the bindings, before anything is evaluated.
    pub(super) fn binds_shared_reference(&self, arg: &Node<Expression>) -> bool {
        match &arg.node {
            Expression::Identifier(id) => {
                matches!(self.lookup(&id.node.name), Some(Binding::Reference(_)))
            }
            _ => {
                self.is_member_array_element(arg)
                    || self.member_base_pointer_of(arg).is_some()
                    || self
                        .shared_ref(arg)
                        .is_some_and(|(_, idx, members)| members.is_empty() && !idx.is_empty())
                    || (self.shared_ref(arg).is_none()
                        && self.is_pointer_access(arg)
                        && !matches!(arg.node, Expression::Member(_)))
            }
        }
    }

    /// How a member of a struct in shared memory is reached (`s[i].f`, `r.f` with `r` a
    /// reference to a shared struct, `q[i].p[1].f`): the struct's expression kind and the
    /// member names. `None` for anything else, a member through a pointer included.
    fn member_base_pointer_of<'e>(
        &self,
        e: &'e Node<Expression>,
    ) -> Option<(MemberBase<'e>, Vec<String>)> {
        if let Some((array, index_exprs, members)) = self.shared_ref(e)
            && !members.is_empty()
        {
            return Some((MemberBase::Element(array, index_exprs), members));
        }
        if let Some((_, r, members)) = self.reference_member(e) {
            return Some((MemberBase::Reference(r), members));
        }
        if let Some((inner, members)) = self.nested_member(e) {
            return Some((MemberBase::MemberElement(inner), members));
        }
        // `p[i].f`, `p->f`: through a pointer into shared memory.
        let (_, members) = pointer_and_members(e)?;
        (!members.is_empty() && self.shared_ref(e).is_none() && self.is_pointer_access(e))
            .then_some((MemberBase::Pointer, members))
    }

    /// The type of the place in shared memory a member expression names (`s[i].f`,
    /// `r.tiles[k]`, `p[i].f`), as declared; `None` when `e` is none of these.
    pub(super) fn member_place_type(&self, e: &Node<Expression>) -> Option<Type> {
        if self.is_member_array_element(e) {
            let (member, _) = member_subscripts(e)?;
            let (struct_type, members) = self.member_base(member)?;
            return Some(struct_type.field_path(&members).ty);
        }
        let (base, members) = self.member_base_pointer_of(e)?;
        let struct_type = match base {
            MemberBase::Element(array, _) => self.arrays[array].decl.elem.clone(),
            MemberBase::Reference(r) => r.target.elem,
            MemberBase::MemberElement(inner) => self.member_place_type(inner)?,
            MemberBase::Pointer => self.member_base(e)?.0,
        };
        let path = struct_type.field_path(&members);
        path.problem.is_none().then_some(path.ty)
    }

    /// Where the member `e` names is (see `member_base_pointer_of`), as a pointer to it.
    pub(super) fn member_pointer(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
    ) -> Option<SharedPointer> {
        let (base, members) = self.member_base_pointer_of(e)?;
        let base = match base {
            MemberBase::Element(array, index_exprs) => {
                self.element_pointer(array, &index_exprs, mask)
            }
            MemberBase::Reference(r) => r.target,
            MemberBase::MemberElement(inner) => self.member_array_element(inner, mask)?,
            MemberBase::Pointer => {
                let (target, _) = self.pointer_target(e, mask)?;
                target
            }
        };
        let path = base.elem.field_path(&members);
        if path.problem.is_some() {
            return None;
        }
        let start = self.retype(base, Type::scalar("char", 1, false))?;
        let Place::Bytes(at) = &start.place else {
            return None;
        };
        let at = Lanes::binary(
            BinOp::Add,
            at,
            &Lanes::int(path.offset),
            self.n,
            &mut self.syms,
        );
        Some(SharedPointer {
            array: start.array,
            elem: path.ty,
            place: Place::Bytes(at),
            anchor: start.anchor,
        })
    }
}

/// The struct a member is taken of (see `member_base_pointer_of`).
enum MemberBase<'e> {
    /// An element of a `__shared__` array, or the array's one object.
    Element(usize, Vec<&'e Node<Expression>>),
    /// What a reference names.
    Reference(Reference),
    /// An element of a member array (`q[i].p[1]`).
    MemberElement(&'e Node<Expression>),
    /// What a pointer into shared memory points at (`p[i]`, `*p`).
    Pointer,
}

impl<'a, 'p> Analyzer<'a, 'p> {
    /// Whether `e` is `s[i].v[k]`, `p->v[k]` or `r.v[k]` (`r` a reference to a shared
    /// element): a subscript of an array member of a struct in shared memory. Decided from the
    /// text and the bindings, before anything is evaluated.
    pub(super) fn is_member_array_element(&self, e: &Node<Expression>) -> bool {
        let Some((member, _)) = member_subscripts(e) else {
            return false;
        };
        let Some((struct_type, members)) = self.member_base(member) else {
            return false;
        };
        // An unknown field is still one: the access is reported with why.
        let path = struct_type.field_path(&members);
        path.problem.is_some() || !path.dims.is_empty()
    }

    /// The struct type a member expression (`s[i].v`, `r.a.v`, `p->v`, `q[i].p[1].f`) starts
    /// from, and the member names after it; `None` when it is not in shared memory.
    fn member_base(&self, member: &Node<Expression>) -> Option<(Type, Vec<String>)> {
        if let Some((array, _, members)) = self.shared_ref(member) {
            Some((self.arrays[array].decl.elem.clone(), members))
        } else if let Some((_, r, members)) = self.reference_member(member) {
            Some((r.target.elem, members))
        } else if self.is_pointer_access(member) {
            let (pointer, members) = pointer_and_members(member)?;
            match base_name(pointer).map(|n| self.lookup(&n)) {
                Some(Some(Binding::Pointer(p))) => Some((p.elem.clone(), members)),
                // `d[i][j].f` of `rec (*d)[2]`: an element of a row of records.
                Some(Some(Binding::Rows { first, .. })) => Some((first.elem.clone(), members)),
                Some(Some(Binding::Shared(a))) => {
                    Some((self.arrays[*a].decl.elem.clone(), members))
                }
                _ => None,
            }
        } else {
            let (inner, members) = self.nested_member(member)?;
            let (struct_type, outer) =
                member_subscripts(inner).and_then(|(m, _)| self.member_base(m))?;
            let path = struct_type.field_path(&outer);
            path.problem.is_none().then_some((path.ty, members))
        }
    }

    /// `q[i].p[1].f` (or `q[i].p[1].f.g`): members of an element of a member array, itself in
    /// shared memory. The element expression (`q[i].p[1]`) and the member names after it.
    pub(super) fn nested_member<'e>(
        &self,
        e: &'e Node<Expression>,
    ) -> Option<(&'e Node<Expression>, Vec<String>)> {
        let (inner, members) = crate::analysis::interp::direct_members(e)?;
        (!members.is_empty() && self.is_member_array_element(inner)).then_some((inner, members))
    }

    /// Where `s[i].v[k]` (see `is_member_array_element`) is: a pointer to the element, placed
    /// in bytes from the struct's own place.
    pub(super) fn member_array_element(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
    ) -> Option<SharedPointer> {
        let (member, subscripts) = member_subscripts(e)?;
        let (base, members) = match self.shared_ref(member) {
            Some((array, index_exprs, members)) => {
                let tuple: Vec<Lanes> = index_exprs.iter().map(|x| self.eval(x, mask)).collect();
                let base = SharedPointer {
                    array,
                    elem: self.arrays[array].decl.elem.clone(),
                    anchor: tuple.last().cloned().unwrap_or_else(|| Lanes::int(0)),
                    place: Place::Tuple(tuple),
                };
                (base, members)
            }
            None => match self.reference_member(member) {
                Some((_, r, members)) => (r.target, members),
                None => match self.nested_member(member) {
                    // `q[i].p[1].f[k]`: the element `q[i].p[1]` is placed first.
                    Some((inner, members)) => (self.member_array_element(inner, mask)?, members),
                    None => self.pointer_target(member, mask)?,
                },
            },
        };
        let ks: Vec<Lanes> = subscripts.iter().map(|x| self.eval(x, mask)).collect();
        let array = base.array;
        let crate::analysis::types::FieldPath {
            offset,
            ty,
            dims,
            problem: mut unknown,
        } = base.elem.field_path(&members);
        // One subscript per extent names an element; fewer name a row, which is no access.
        if ks.len() != dims.len() && unknown.is_none() {
            unknown = Some(format!(
                "`{}` gives {} subscripts to a member array of {} dimensions",
                self.source_text(e.span),
                ks.len(),
                dims.len()
            ));
        }
        // In elements, row-major: `v[i][j]` of `float v[R][C]` is `i * C + j`.
        let n = self.n;
        let mut k = Lanes::int(0);
        for (i, sub) in ks.iter().enumerate() {
            let stride: u32 = dims.iter().skip(i + 1).product();
            let term = Lanes::binary(
                BinOp::Mul,
                sub,
                &Lanes::int(stride.into()),
                n,
                &mut self.syms,
            );
            k = Lanes::binary(BinOp::Add, &k, &term, n, &mut self.syms);
        }
        let start = self.retype(base, Type::scalar("char", 1, false));
        let place = match (unknown, start, ty.size()) {
            (Some(why), _, _) => Lanes::unknown(why),
            (None, None, _) => Lanes::unknown(format!(
                "the layout of `{}` is not known",
                self.arrays[array].decl.name
            )),
            (None, Some(_), None) => Lanes::unknown(ty.size_problem()),
            (None, Some(start), Some(size)) => {
                let Place::Bytes(at) = &start.place else {
                    unreachable!("retype to bytes gives bytes")
                };
                let step =
                    Lanes::binary(BinOp::Mul, &k, &Lanes::int(size.into()), n, &mut self.syms);
                let at = Lanes::binary(BinOp::Add, at, &Lanes::int(offset), n, &mut self.syms);
                return Some(SharedPointer {
                    array,
                    elem: ty,
                    place: Place::Bytes(Lanes::binary(BinOp::Add, &at, &step, n, &mut self.syms)),
                    anchor: start.anchor,
                });
            }
        };
        Some(SharedPointer {
            array,
            elem: ty,
            place: Place::Bytes(place),
            anchor: Lanes::int(0),
        })
    }
}

/// `b[i][j]`: `b` and the subscripts in the order written; `None` when a binary operator
/// other than a subscript is met on the way.
pub(super) fn peel_subscripts(
    e: &Node<Expression>,
) -> Option<(&Node<Expression>, Vec<&Node<Expression>>)> {
    let mut subscripts = Vec::new();
    let mut cur = e;
    while let Expression::BinaryOperator(b) = &cur.node {
        if b.node.operator.node != BinaryOperator::Index {
            return None;
        }
        subscripts.push(&*b.node.rhs);
        cur = &b.node.lhs;
    }
    subscripts.reverse();
    Some((cur, subscripts))
}

/// `m[i]` or `m[i][j]` where `m` is a member expression: `m` and the subscripts.
fn member_subscripts(e: &Node<Expression>) -> Option<(&Node<Expression>, Vec<&Node<Expression>>)> {
    let (cur, subscripts) = peel_subscripts(e)?;
    (matches!(cur.node, Expression::Member(_)) && !subscripts.is_empty())
        .then_some((cur, subscripts))
}

/// `p[i].a.b` or `p->a.b`: the pointer expression and the member names.
fn pointer_and_members(e: &Node<Expression>) -> Option<(&Node<Expression>, Vec<String>)> {
    let mut members = Vec::new();
    let mut cur = e;
    while let Expression::Member(m) = &cur.node {
        members.push(m.node.identifier.node.name.clone());
        cur = &m.node.expression;
        if m.node.operator.node == MemberOperator::Indirect {
            members.reverse();
            return Some((cur, members));
        }
    }
    members.reverse();
    match &cur.node {
        Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
            Some((&b.node.lhs, members))
        }
        Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
            Some((&u.node.operand, members))
        }
        _ => None,
    }
}
