//! Locals given pointers into shared memory at their declaration: a reference to an array
//! or to rows of one (`T (&r)[2][4] = ...`), a pointer whose pointee the declaration names,
//! and those banklint cannot follow, which are said.

use super::*;

impl Analyzer<'_, '_> {
    /// Binds `name`, a reference to the array of `base` elements at `p` with `extents`
    /// (`T (&x)[N]` or `T (&x)[M][N]`): `x[i]` is then an element, or the row `i` of `N`.
    /// More dimensions, or a row length banklint cannot evaluate, are reported.
    pub(super) fn bind_array_reference(
        &mut self,
        name: &str,
        p: SharedPointer,
        base: &Type,
        extents: &[&Node<Expression>],
        e: &Node<Expression>,
        mask: &[bool],
    ) {
        // The type written at the declaration, unless banklint knows only the pointer's
        // (`T (&x)[2] = take<T, 2>()` in a template); of two unknown ones, the name written.
        let elem = match (base, &p.elem) {
            (Type::Unknown(_), Type::Unknown(_)) => base.clone(),
            (Type::Unknown(_), _) => p.elem.clone(),
            (t, _) => t.clone(),
        };
        let row = match extents {
            [_] => None,
            [_, n] => Some(self.eval(n, mask).as_const()),
            _ => {
                self.note_unfollowed(
                    e.span,
                    format!("`{name}` names an array of more than two dimensions in shared memory, which banklint does not follow through a reference; the accesses through `{name}` are not analyzed"),
                );
                self.bind(name, Binding::Opaque(None));
                return;
            }
        };
        let size = elem.size();
        // An element keeps its place as written (a padding fix names its subscripts); rows
        // are counted in bytes.
        let first = match row {
            None => self.retype(p, elem),
            Some(_) => self.in_bytes(p, elem),
        };
        let Some(first) = first else {
            return self.pointer_not_followed(name, e);
        };
        match (row, size) {
            (None, _) => self.bind(name, Binding::Pointer(first)),
            (Some(Some(n)), Some(size)) if u32::try_from(n).is_ok() => {
                let row_bytes = u32::try_from(n).unwrap_or(0) * size;
                self.bind(name, Binding::Rows { first, row_bytes });
            }
            _ => {
                self.note_unfollowed(
                    e.span,
                    format!("`{name}` names rows of shared memory whose length or element size banklint cannot evaluate; the accesses through it are not analyzed"),
                );
                self.bind(name, Binding::Opaque(None));
            }
        }
    }

    /// A pointer whose pointee banklint does not know (`at *p` in an allocator's template)
    /// given to `T *x` or `T &x`: `T`, as the declaration says.
    pub(super) fn declared_pointee(&mut self, p: SharedPointer, declared: &Type) -> SharedPointer {
        match (&p.elem, declared) {
            (Type::Unknown(_), Type::Record(_)) => {
                self.retype(p.clone(), declared.clone()).unwrap_or(p)
            }
            (Type::Unknown(_), Type::Unknown(n)) if !n.is_empty() && n != "auto" => SharedPointer {
                elem: declared.clone(),
                ..p
            },
            _ => p,
        }
    }

    /// Whether `e` is a method call on an object one of whose fields points into shared
    /// memory (`al.take<T, 2>()` of an allocator).
    pub(super) fn call_on_object_keeping_shared(&self, e: &Node<Expression>) -> bool {
        let Expression::Call(c) = &e.node else {
            return false;
        };
        let Expression::Member(m) = &c.node.callee.node else {
            return false;
        };
        let Expression::Identifier(id) = &m.node.expression.node else {
            return false;
        };
        matches!(self.lookup(&id.node.name), Some(Binding::Object(o))
            if o.fields.values().any(|b| matches!(b,
                Binding::Pointer(_) | Binding::Rows { .. } | Binding::Reference(_) | Binding::Shared(_))))
    }

    /// `name` is given a pointer into shared memory banklint cannot follow: said, and the
    /// accesses through it left out.
    pub(super) fn pointer_not_followed(&mut self, name: &str, e: &Node<Expression>) {
        self.note_unfollowed(
            e.span,
            format!("`{name}` is given a pointer into shared memory that banklint cannot follow (`{}`); the accesses through it are not analyzed", self.source_text(e.span)),
        );
        self.bind(name, Binding::Opaque(None));
    }
}
