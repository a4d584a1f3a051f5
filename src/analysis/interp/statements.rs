//! Statements: declarations (and the `__shared__` arrays they declare) and the statements
//! that run them; branches are in `branches`.

use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    pub(super) fn exec(&mut self, s: &Node<Statement>, mask: &[bool]) {
        let mask = self.live(mask);
        self.spend(self.n as u64);
        match &s.node {
            Statement::Compound(items) => {
                self.scopes.push(Scope::default());
                for item in items {
                    let m = self.live(&mask);
                    match &item.node {
                        BlockItem::Declaration(d) => self.declare(d, &m),
                        BlockItem::Statement(st) => self.exec(st, &m),
                        BlockItem::StaticAssert(_) => {}
                    }
                }
                self.scopes.pop();
            }
            Statement::Expression(Some(e)) => {
                // `(void)f(...)` discards as a statement does.
                let mut top = e;
                while let Expression::Cast(c) = &top.node {
                    top = &c.node.expression;
                }
                self.discarded = Some(top.span);
                self.eval(e, &mask);
                self.discarded = None;
            }
            Statement::Asm(a) => self.inline_asm(a, &mask),
            Statement::Expression(None) | Statement::Goto(_) => {}
            Statement::Labeled(l) => self.exec(&l.node.statement, &mask),
            Statement::If(i) => self.exec_if(&i.node, &mask),
            Statement::Switch(sw) => {
                self.eval(&sw.node.expression, &mask);
                self.uncertain += 1;
                self.loops.push(LoopCtl::new(self.n));
                self.exec(&sw.node.statement, &mask);
                self.loops.pop();
                self.uncertain -= 1;
            }
            Statement::While(w) => self.exec_loop(
                s.span,
                Some(&w.node.expression),
                None,
                &w.node.statement,
                false,
                &mask,
            ),
            Statement::DoWhile(d) => self.exec_loop(
                s.span,
                Some(&d.node.expression),
                None,
                &d.node.statement,
                true,
                &mask,
            ),
            Statement::For(f) => {
                // `for (int x : {a, b, c})`: the counted loop that gives `x` each element.
                match self.range_for_loop(s, &f.node) {
                    Some(Ok(counted)) => {
                        self.exec(&counted, &mask);
                        return;
                    }
                    Some(Err(why)) => {
                        self.note_unfollowed(s.span, why);
                        return;
                    }
                    None => {}
                }
                self.scopes.push(Scope::default());
                match &f.node.initializer.node {
                    ForInitializer::Expression(e) => {
                        self.eval(e, &mask);
                    }
                    ForInitializer::Declaration(d) => self.declare(d, &mask),
                    _ => {}
                }
                self.exec_loop(
                    s.span,
                    f.node.condition.as_deref(),
                    f.node.step.as_deref(),
                    &f.node.statement,
                    false,
                    &mask,
                );
                self.scopes.pop();
            }
            Statement::Continue => {
                if self.uncertain == 0
                    && let Some(l) = self.loops.last_mut()
                {
                    l.cont.iter_mut().zip(&mask).for_each(|(c, m)| *c |= m);
                }
            }
            Statement::Break => {
                if let Some(l) = self.loops.last_mut() {
                    if self.uncertain == 0 {
                        l.brk.iter_mut().zip(&mask).for_each(|(c, m)| *c |= m);
                    } else if mask.iter().any(|&m| m) {
                        l.maybe_left = true;
                    }
                }
            }
            Statement::Return(e) => {
                // `return s[i];` from a function returning a reference: the element is
                // named, not loaded; the caller's use of it is the access.
                if let Some(e) = e
                    && self.returns_reference.last() == Some(&true)
                    && self.binding_reference == Some(self.call_depth.saturating_sub(1))
                    && (self.shared_ref(e).is_some() || self.is_pointer_access(e))
                {
                    // The element, for the caller to bind its reference to.
                    let target = match self.pointer_target(e, &mask) {
                        Some((p, members)) if members.is_empty() => Some(p),
                        _ => match self.shared_ref_indexed(e, false) {
                            Some((a, idx, members)) if members.is_empty() => {
                                Some(self.element_pointer(a, &idx, &mask))
                            }
                            _ => {
                                self.eval_subscripts_only(e, &mask);
                                None
                            }
                        },
                    };
                    if let (Some(p), Some(slot)) = (target, self.returned_pointers.last_mut()) {
                        *slot = Some(Ok(p));
                    }
                    if self.uncertain == 0 {
                        self.take_exit(s.span, &mask);
                    }
                    return;
                }
                // The same, run on its own (no kernel calls it): no caller uses the element,
                // so nothing is accessed; only its subscripts are evaluated.
                if let Some(e) = e
                    && self.call_depth == 0
                    && self.returns_reference.last() == Some(&true)
                    && (self.shared_ref(e).is_some() || self.is_pointer_access(e))
                {
                    self.eval_subscripts_only(e, &mask);
                    if self.uncertain == 0 {
                        self.take_exit(s.span, &mask);
                    }
                    return;
                }
                if let Some(e) = e {
                    // An accessor returning a pointer into shared memory: one `return` that
                    // some thread reaches, with an address banklint follows.
                    if !self.returned_pointers.is_empty()
                        && mask.iter().any(|&m| m)
                        && (self.points_to_shared(e) || self.is_shared_address(e))
                    {
                        let p = self.eval_pointer(e, &mask, "");
                        if let Some(slot) = self.returned_pointers.last_mut() {
                            *slot = Some(match (slot.take(), p) {
                                (None, Some(p)) => Ok(p),
                                (None, None) => Err("the address it returns is not one banklint can follow".to_string()),
                                (Some(_), _) => Err("it returns from more than one `return`, which banklint does not join".to_string()),
                            });
                        }
                        // Its value as an integer means nothing; the pointer is what it returns.
                        if self.uncertain == 0 {
                            self.take_exit(s.span, &mask);
                        }
                        return;
                    }
                    // A struct returned by value: the object, for the caller to bind.
                    if !self.returned_objects.is_empty()
                        && mask.iter().any(|&m| m)
                        && let Some(o) = self.object_of_return(e, &mask)
                    {
                        self.return_object(o, &mask);
                        if self.uncertain == 0 {
                            self.take_exit(s.span, &mask);
                        }
                        return;
                    }
                    let v = if matches!(e.node, Expression::Call(_)) {
                        let (v, object) = self.call_and_object(e, &mask);
                        if let Some(o) = object
                            && !self.returned_objects.is_empty()
                        {
                            self.return_object(o, &mask);
                        }
                        v
                    } else {
                        self.eval(e, &mask)
                    };
                    if let Some(slot) = self.returns.last_mut() {
                        *slot = Some(match slot.take() {
                            Some(old) => old.merge(&v, &mask),
                            None => v,
                        });
                    }
                }
                if self.uncertain == 0 {
                    self.take_exit(s.span, &mask);
                } else if mask.iter().any(|&m| m) {
                    self.loops.iter_mut().for_each(|l| l.maybe_left = true);
                }
            }
        }
    }

    pub(super) fn declare(&mut self, d: &Node<Declaration>, mask: &[bool]) {
        let item = &self.unit.items[self.item];
        if self.span_override.is_none()
            && let Some(arrays) =
                shared_arrays_in(self.unit.prepared, item, self.item, &self.types, d)
        {
            // `__shared__ Pair<T, int> s[32];`: the instance, laid out with `T` bound here
            // (an array of pointers to it keeps its pointer element).
            let instance = self.declared_instance(&d.node.specifiers);
            // A struct whose extents name this instantiation's values, laid out with them.
            let local_struct = arrays
                .iter()
                .any(|a| matches!(a.elem, Type::Unknown(_)))
                .then(|| self.struct_laid_out_here(&d.node.specifiers))
                .flatten()
                .filter(|t| !matches!(t, Type::Unknown(_)));
            for mut a in arrays {
                if let Some(t) = &local_struct
                    && matches!(a.elem, Type::Unknown(_))
                {
                    a.elem = t.clone();
                }
                if let Some(t) = &instance
                    && !matches!(a.elem, Type::Pointer(_))
                {
                    a.elem = t.clone();
                }
                self.declare_at_call(&mut a);
                let id = self.register_array(a.clone());
                self.footprint.insert(id);
                self.bind(&a.name, Binding::Shared(id));
            }
            return;
        }
        if crate::analysis::extraction::declares_types(&d.node) {
            // `typedef box_t<T> box;` was bound to this instantiation's instance when the
            // function began (see `member_types`); the C text's `typedef box_t box;` names
            // the template, with no layout, and must not undo it.
            let bound: Vec<(String, Type)> = (d.node.declarators.iter())
                .filter_map(|i| {
                    crate::analysis::extraction::declarator_name(&i.node.declarator.node)
                })
                .filter_map(|n| {
                    let t = self
                        .types
                        .named
                        .get(&n)
                        .filter(|t| t.size().is_some())?
                        .clone();
                    Some((n, t))
                })
                .collect();
            let (unit, item) = (self.unit, self.unit.items.get(self.item));
            let text = |s: Span| Some(unit.prepared.text.get(item?.span(s))?.to_string());
            let types = Rc::make_mut(&mut self.types);
            crate::analysis::extraction::register_types(types, &d.node, &text);
            for (name, was) in bound {
                if types.named.get(&name).is_some_and(|t| t.size().is_none()) {
                    types.named.insert(name, was);
                }
            }
        }
        self.bind_local_enumerators(d, mask);
        if let Some((class, argument)) = self.memory_class_of(&d.node.specifiers) {
            for init in &d.node.declarators {
                if let Some(name) =
                    crate::analysis::extraction::declarator_name(&init.node.declarator.node)
                {
                    let (class, argument) = (class.clone(), argument.clone());
                    self.bind(&name, Binding::MemoryClass { class, argument });
                }
            }
            return;
        }
        let base = self.declared_type(&d.node.specifiers);
        let declared_auto = d.node.specifiers.iter().any(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) if matches!(t.node, TypeSpecifier::Int) => {
                let at = self.span(t.span).start;
                self.unit.prepared.auto_types.contains(&at)
            }
            _ => false,
        });
        // A structured binding's whole value, once evaluated.
        let mut binding_value: Option<(Option<Lanes>, Option<super::objects::Object>)> = None;
        for init in &d.node.declarators {
            let Some(name) =
                crate::analysis::extraction::declarator_name(&init.node.declarator.node)
            else {
                continue;
            };
            let at = self.span(init.node.declarator.span);
            if let Some(object) =
                self.cute_declared(&d.node.specifiers, expression_initializer(init), mask)
            {
                self.bind(&name, Binding::Cute(object));
                continue;
            }
            // An object a call banklint does not follow may write through (`args a{n}`).
            if !matches!(base, Type::Scalar { .. } | Type::Pointer(_)) {
                let initializer = expression_initializer(init);
                let p = self.unit.prepared;
                let args = (p.constructor_args.iter())
                    .chain(&p.braced_initializers)
                    .find(|(o, _)| *o == at.start)
                    .map(|(_, a)| a.clone());
                self.record_object_sources(&name, &base, initializer, args.as_deref());
            }
            if (self.unit.prepared.structured_bindings.iter()).any(|p| at.contains(p)) {
                // `auto [a, b] = f();` is spelled `int a, b = f();`: the value, evaluated
                // once, is the last declarator's.
                let (whole, object) = binding_value.get_or_insert_with(|| {
                    let e = (d.node.declarators.iter()).find_map(expression_initializer);
                    match e {
                        Some(e) if matches!(e.node, Expression::Call(_)) => {
                            let (v, o) = self.call_and_object(e, mask);
                            (Some(v), o)
                        }
                        Some(e) => (Some(self.eval(e, mask)), None),
                        None => (None, None),
                    }
                });
                // A struct returned by value: the element is its member in that place.
                let position = (d.node.declarators.iter()).position(|x| std::ptr::eq(x, init));
                if let (Some(o), Some(k)) = (object.clone(), position)
                    && let Some(Type::Record(r)) = self.types.lookup(&o.class)
                    && let Some(Binding::Value(v)) =
                        r.fields.get(k).and_then(|f| o.fields.get(&f.name))
                {
                    self.bind(&name, Binding::Value(v.clone()));
                    continue;
                }
                // A whole the warp is known to share has elements the warp shares: each a
                // value banklint does not know that moves every lane alike.
                let value = if whole.as_ref().is_some_and(Lanes::is_known_uniform) {
                    self.uniform_data(&format!("`{name}`, an element of a structured binding"))
                } else {
                    Lanes::unknown(format!(
                        "`{name}` is an element of a structured binding (`auto [...] = ...`), which banklint does not take apart"
                    ))
                };
                self.bind(&name, Binding::Value(value));
                continue;
            }
            if init.node.initializer.is_none() {
                let at = self.span(init.node.declarator.span).start;
                let args = (self.unit.prepared.constructor_args.iter())
                    .find(|(o, _)| *o == at)
                    .map(|(_, a)| a.clone());
                if let Some(args) = &args
                    && self.construct(
                        &name,
                        &d.node.specifiers,
                        args,
                        init.node.declarator.span,
                        mask,
                    )
                {
                    continue;
                }
                if args.is_none() && self.default_object(&name, &d.node.specifiers) {
                    continue;
                }
                self.note_shared_constructor(&name, init.node.declarator.span);
            }
            let init_expr = match &init.node.initializer {
                Some(Node {
                    node: Initializer::Expression(e),
                    ..
                }) => Some(&**e),
                _ => None,
            };
            if let Some(group) = self.group_of(&d.node.specifiers, init_expr) {
                self.bind(&name, Binding::Group(group));
                continue;
            }
            // `T (&r)[2][4] = *reinterpret_cast<T (*)[2][4]>(smem);` (lowered to `(*r)`): the
            // reference names the array `*q` is, nothing is read. In C the declaration would
            // not type: `*q` of a pointer to that array type is the array itself.
            if let Some(Node {
                node: Initializer::Expression(e),
                ..
            }) = &init.node.initializer
                && nested_pointer(&init.node.declarator.node)
                && let Expression::UnaryOperator(u) = &e.node
                && u.node.operator.node == UnaryOperator::Indirection
                && self.points_to_shared(&u.node.operand)
            {
                let extents = array_extents(&init.node.declarator.node);
                match self.eval_pointer(&u.node.operand, mask, &name) {
                    Some(p) if !extents.is_empty() => {
                        self.bind_array_reference(&name, p, &base, &extents, e, mask)
                    }
                    _ => self.pointer_not_followed(&name, e),
                }
                continue;
            }
            // `T (&t)[2] = al.take<T, 2>();` on an object that keeps a pointer into shared
            // memory, whose result banklint does not follow: said, not read as a local array.
            if let Some(Node {
                node: Initializer::Expression(e),
                ..
            }) = &init.node.initializer
                && nested_pointer(&init.node.declarator.node)
                && !self.points_to_shared(e)
                && self.call_on_object_keeping_shared(e)
            {
                self.pointer_not_followed(&name, e);
                continue;
            }
            // `float (*t)[33] = (float (*)[33])smem;`: a pointer to rows (`float (&r)[33] =
            // tile[i];`, a reference to a row, is lowered to the same C).
            if let Some(Node {
                node: Initializer::Expression(e),
                ..
            }) = &init.node.initializer
                && nested_pointer(&init.node.declarator.node)
                && let extents = array_extents(&init.node.declarator.node)
                && !extents.is_empty()
                && self.points_to_shared(e)
            {
                let row = self.shared_ref_indexed(e, true).is_some();
                self.last_call_returned_reference = false;
                match self.eval_pointer(e, mask, &name) {
                    // A reference to a row: the row's elements.
                    Some(p) if row && extents.len() == 1 => self.bind(&name, Binding::Pointer(p)),
                    // `T (&r)[64] = c.carve<T, 64>();`: the array the call returns a
                    // reference to (`T (&r)[2][64]`: its rows), or the rows `tile[i]` is.
                    Some(p)
                        if row
                            || matches!(e.node, Expression::Call(_))
                                && self.last_call_returned_reference =>
                    {
                        self.bind_array_reference(&name, p, &base, &extents, e, mask)
                    }
                    Some(_) if extents.len() > 1 => {
                        self.note_unfollowed(
                            e.span,
                            format!("`{name}` points to arrays of more than one dimension in shared memory, which banklint does not follow; the accesses through it are not analyzed"),
                        );
                        self.bind(&name, Binding::Opaque(None));
                    }
                    Some(p) => {
                        let len = extents[0];
                        let len = self.eval(len, mask).as_const();
                        let elem = match &base {
                            Type::Unknown(_) => p.elem.clone(),
                            t => t.clone(),
                        };
                        let size = elem.size();
                        match (len, size, self.in_bytes(p, elem)) {
                            (Some(len), Some(size), Some(first)) => {
                                let row_bytes = u32::try_from(len).unwrap_or(0) * size;
                                self.bind(&name, Binding::Rows { first, row_bytes });
                            }
                            _ => {
                                self.note_unfollowed(
                                    e.span,
                                    format!("`{name}` points to rows of shared memory whose length or element size banklint cannot evaluate; the accesses through it are not analyzed"),
                                );
                                self.bind(&name, Binding::Opaque(None));
                            }
                        }
                    }
                    None => self.pointer_not_followed(&name, e),
                }
                continue;
            }
            let is_array = init
                .node
                .declarator
                .node
                .derived
                .iter()
                .any(|x| matches!(x.node, DerivedDeclarator::Array(_)));
            let is_pointer = init
                .node
                .declarator
                .node
                .derived
                .iter()
                .any(|x| matches!(x.node, DerivedDeclarator::Pointer(_)));
            // A pointer into shared memory (declared `auto` too), or an integer holding a
            // shared-window address (`uint32_t a = __cvta_generic_to_shared(&s[i]);`).
            if let Some(Node {
                node: Initializer::Expression(e),
                ..
            }) = &init.node.initializer
                && ((is_pointer || declared_auto) && self.points_to_shared(e)
                    || self.is_shared_address(e))
            {
                self.last_call_returned_reference = false;
                // `T *x`, `T &x` or `T (&x)`: one level, its pointee written.
                let declarator = &init.node.declarator.node;
                let declared = is_pointer != nested_pointer(declarator)
                    && array_extents(declarator).is_empty();
                let got = self.eval_pointer(e, mask, &name);
                match got.map(|p| {
                    if declared {
                        self.declared_pointee(p, &base)
                    } else {
                        p
                    }
                }) {
                    // `T &x = obj.at(i);` (a pointer once lowered): the element it returns.
                    Some(p)
                        if matches!(e.node, Expression::Call(_))
                            && self.last_call_returned_reference =>
                    {
                        let written = self.source_text(e.span);
                        let r = Reference {
                            target: p,
                            written,
                            loaded: false,
                        };
                        self.bind(&name, Binding::Reference(r));
                        continue;
                    }
                    Some(p) => {
                        self.bind(&name, Binding::Pointer(p));
                        continue;
                    }
                    // An accessor already run: what it returned is not followed; say so
                    // rather than run it again or lose the accesses through it silently.
                    None if matches!(&e.node, Expression::Call(c) if self.call_returns_shared(&c.node)) =>
                    {
                        let at = e.span;
                        self.note_unfollowed(
                            at,
                            format!("the shared-memory pointer `{name}` is given is not one banklint can follow (the function returns different arrays or offsets it does not know)"),
                        );
                        self.bind(&name, Binding::Opaque(None));
                        continue;
                    }
                    // `T *p = c ? a : b;` with `c` not known per thread: each side as a branch.
                    None if let Expression::Conditional(c) = &e.node => {
                        let at = init.node.declarator.span;
                        self.bind(&name, Binding::Value(Lanes::unknown("a pointer")));
                        let target = Node::new(
                            Expression::Identifier(Box::new(Node::new(
                                Identifier { name: name.clone() },
                                at,
                            ))),
                            at,
                        );
                        self.choose_pointer(&target, c, mask);
                        continue;
                    }
                    None => {
                        self.pointer_not_followed(&name, e);
                        continue;
                    }
                }
            }
            // `V &r = s[i];` (a pointer once lowered) names the element: no load here, the
            // accesses through `r` are the element's. A pointer cannot be given an element
            // that is not itself a pointer, so only a reference reads so.
            if is_pointer
                && let Some(Node {
                    node: Initializer::Expression(e),
                    ..
                }) = &init.node.initializer
                && let Some(r) = self.reference_target(e, mask)
                && !matches!(r.target.elem, Type::Pointer(_))
            {
                self.bind(&name, Binding::Reference(r));
                continue;
            }
            if is_array || matches!(base, Type::Record(_)) {
                // `Pos p;` and `Pos q = {r, c};` of a struct banklint lays out: an object held
                // by value (see `value_objects`).
                if let Type::Record(record) = &base
                    && !is_array
                    && self.is_plain_struct(record)
                {
                    match &init.node.initializer {
                        None => {
                            self.declare_value_object(&name, record);
                            continue;
                        }
                        Some(Node {
                            node: Initializer::List(items),
                            ..
                        }) => {
                            if let Some(o) = self.listed_object(record, items, mask) {
                                self.bind(&name, Binding::Object(o));
                                continue;
                            }
                        }
                        _ => {}
                    }
                }
                if let Some(Node {
                    node: Initializer::Expression(e),
                    ..
                }) = &init.node.initializer
                {
                    // `T (&rows)[2] = f();`: a reference `f` returns is bound, not read;
                    // `rows[i]` is then an element of the array it names.
                    let saved = self.binding_reference;
                    let rows = nested_pointer(&init.node.declarator.node)
                        && matches!(e.node, Expression::Call(_));
                    if rows {
                        self.binding_reference = Some(self.call_depth);
                        self.last_returned_pointer = None;
                    }
                    // `Pos q = f(t);` of a function returning a struct it built, and
                    // `Pos q = p;` of an object banklint built: the object.
                    let object = match &e.node {
                        _ if rows || is_array => {
                            self.eval(e, mask);
                            None
                        }
                        Expression::Call(_) => self.call_and_object(e, mask).1,
                        Expression::Identifier(id) => match self.lookup(&id.node.name) {
                            Some(Binding::Object(o)) => Some(o.clone()),
                            _ => {
                                self.eval(e, mask);
                                None
                            }
                        },
                        _ => {
                            self.eval(e, mask);
                            None
                        }
                    };
                    self.binding_reference = saved;
                    if let Some(o) = object {
                        self.bind(&name, Binding::Object(o));
                        continue;
                    }
                    if rows && let Some(Ok(p)) = self.last_returned_pointer.take() {
                        let extents = array_extents(&init.node.declarator.node);
                        self.bind_array_reference(&name, p, &base, &extents, e, mask);
                        continue;
                    }
                }
                // `float *bufs[2] = {a, b};`: pointers kept in an array are not followed.
                if let Some(Node {
                    node: Initializer::List(items),
                    ..
                }) = &init.node.initializer
                    && let Some(item) = items.iter().find(|i| {
                        matches!(&i.node.initializer.node, Initializer::Expression(e) if self.points_to_shared(e))
                    })
                {
                    self.note_unfollowed(
                        item.span,
                        format!("`{name}` keeps pointers into shared memory in an array; banklint does not follow pointers read from an array, so the accesses through its elements are not analyzed"),
                    );
                }
                // A local object's class tells constrained overloads apart.
                let extent = is_array
                    .then(|| self.local_extent(&init.node.declarator.node, mask))
                    .flatten();
                let shape = Some(Rc::new(super::overloads::LocalArray {
                    elem: base.clone(),
                    extent,
                    array: is_array,
                }));
                self.bind(&name, Binding::Opaque(shape));
                continue;
            }
            self.declare_width(&name, &base);
            let value = match &init.node.initializer {
                Some(Node {
                    node: Initializer::Expression(e),
                    ..
                }) => {
                    // `T &x = f(...)` (a pointer once lowered): a reference `f` returns is
                    // bound here, not read.
                    let saved = self.binding_reference;
                    let binds = (is_pointer || nested_pointer(&init.node.declarator.node))
                        && matches!(e.node, Expression::Call(_));
                    if binds {
                        self.binding_reference = Some(self.call_depth);
                        self.last_returned_pointer = None;
                    }
                    let (v, object) = if matches!(e.node, Expression::Call(_)) {
                        self.call_and_object(e, mask)
                    } else {
                        (self.eval(e, mask), None)
                    };
                    self.binding_reference = saved;
                    // `Pos q = f(t);` of a function returning a struct it built.
                    if let Some(o) = object
                        && !binds
                    {
                        self.bind(&name, Binding::Object(o));
                        continue;
                    }
                    if binds && let Some(Ok(target)) = self.last_returned_pointer.take() {
                        let written = self.source_text(e.span);
                        self.bind(
                            &name,
                            Binding::Reference(Reference {
                                target,
                                written,
                                loaded: false,
                            }),
                        );
                        continue;
                    }
                    if base.is_float() {
                        self.data_value(&v, "a floating-point value")
                    } else {
                        v
                    }
                }
                _ => Lanes::unknown(format!("`{name}` is used before it is assigned")),
            };
            self.bind(&name, Binding::Value(value));
        }
    }

    /// A header function's own array, met while the function runs at a call in the analyzed
    /// file: reported at that call (its spans there, no padding fix written into the header
    /// from here) and said to be declared in the header.
    fn declare_at_call(&mut self, a: &mut SharedArray) {
        if std::ptr::eq(self.unit, self.home_unit) {
            return;
        }
        let Some((call, _)) = &self.home_call else {
            return;
        };
        let file = (self.headers.iter())
            .find(|(_, u)| std::ptr::eq(u, self.unit))
            .map_or_else(String::new, |(name, _)| name.clone());
        let line = self.unit.line_of(a.name_span.start);
        // Called again elsewhere, it is the same array: one entry, one footprint.
        let key = (file.clone(), line, a.name.clone());
        let call = (self.arrays.first_calls.entry(key))
            .or_insert_with(|| call.clone())
            .clone();
        a.declared_in = Some(crate::analysis::extraction::DeclaredElsewhere::Function {
            function: self.function.clone(),
            array: a.name.clone(),
            file,
            line,
        });
        a.decl_span = call.clone();
        a.name_span = call;
        a.dim_spans = vec![None; a.dims.len()];
    }

    pub(super) fn register_array(&mut self, mut decl: SharedArray) -> usize {
        // A struct the type table could not lay out, laid out here (its extents may name
        // the file's constants).
        if decl.elem.size().is_none()
            && let Some(name) = decl.unsized_type.clone()
            && let Some(ty) = self.struct_without_parameters(&name, Span::none())
            && !matches!(ty, Type::Unknown(_))
        {
            decl.elem = ty;
        }
        let saved = self.item;
        self.item = decl.item;
        let mut dims = Vec::new();
        let mut problem = None;
        for (k, d) in decl.dims.iter().enumerate() {
            match d {
                Some(e) => {
                    let lanes = self.eval(e, &vec![true; self.n]);
                    let v = lanes.as_const();
                    // The outermost extent never enters an element's address (C's rule
                    // for `a[i][j]`), so only an inner one leaves the accesses unknown.
                    if v.is_none() && k > 0 {
                        // Say what stands in the way, as an index's reason does.
                        let why = match &*lanes.get(0) {
                            Value::Unknown(r) => format!(": {r}"),
                            Value::Affine(a) if lanes.is_uniform() => {
                                match (a.terms.iter())
                                    .find_map(|(s, _)| self.unvalued_template_params.get(s))
                                {
                                    Some(why) => format!(": {why}"),
                                    None => format!(": it is {}", self.syms.describe(a)),
                                }
                            }
                            Value::Affine(_) => String::new(),
                        };
                        problem = Some(format!(
                            "the size of dimension {} of `{}` is not a compile-time constant banklint can evaluate{why}",
                            k + 1,
                            decl.name
                        ));
                    }
                    dims.push(v);
                }
                None => dims.push(None),
            }
        }
        self.item = saved;
        // A single object of a partly laid-out record (`__shared__ union { typename
        // R::TempStorage r; float buf[64]; } u;`): its laid-out fields are at known offsets,
        // and nothing reads its size (it has no extents).
        let elem_size = (decl.elem.size().map(i64::from)).or_else(|| match &decl.elem {
            Type::Record(r) if r.unsized_field.is_some() && decl.dims.is_empty() => {
                Some(i64::from(r.size.max(1)))
            }
            _ => None,
        });
        if elem_size.is_none() {
            problem = Some(format!(
                "the element type `{}` of `{}` is not known",
                decl.elem.name(),
                decl.name
            ));
        }
        let layout = elem_size.map(|s| ArrayLayout {
            elem_size: s,
            dims,
            pad: 0,
        });
        // One entry per declaration and layout: template instantiations may differ.
        let key = (decl.decl_span.clone(), decl.name.clone());
        if let Some(&i) = self.arrays.by_decl.get(&key).and_then(|same| {
            same.iter().find(|&&i| {
                let a = &self.arrays.entries[i];
                a.layout == layout && a.decl.elem == decl.elem
            })
        }) {
            return i;
        }
        let i = self.arrays.entries.len();
        self.arrays.entries.push(ArrayEntry {
            byte_view_of: None,
            decl,
            layout,
            layout_problem: problem,
            padding_blocked: None,
        });
        self.arrays.by_decl.entry(key).or_default().push(i);
        i
    }

    /// `enum { COLS = K::COLS, PAD };` in a function body: each enumerator is a constant of
    /// this scope, evaluated with the run's template arguments bound.
    fn bind_local_enumerators(&mut self, d: &Node<Declaration>, mask: &[bool]) {
        for spec in &d.node.specifiers {
            let DeclarationSpecifier::TypeSpecifier(ts) = &spec.node else {
                continue;
            };
            let TypeSpecifier::Enum(e) = &ts.node else {
                continue;
            };
            // Each enumerator is the last written value plus how many came after it.
            let mut base = Lanes::int(0);
            let mut offset = 0i64;
            for en in &e.node.enumerators {
                if let Some(expr) = &en.node.expression {
                    base = self.eval(expr, mask);
                    offset = 0;
                }
                let value = match base.as_const() {
                    Some(v) => v.checked_add(offset).map_or_else(
                        || Lanes::unknown("an enumerator that overflows"),
                        Lanes::int,
                    ),
                    None if offset == 0 => base.clone(),
                    None => Lanes::unknown(format!(
                        "the enumerator `{}` follows one whose value is not known",
                        en.node.identifier.node.name
                    )),
                };
                self.bind(&en.node.identifier.node.name, Binding::Value(value));
                offset += 1;
            }
        }
    }

    /// The extent of a local array of one dimension (`float x[N]`), when it is a constant.
    fn local_extent(&mut self, d: &Declarator, mask: &[bool]) -> Option<i64> {
        let mut sizes = d.derived.iter().filter_map(|x| match &x.node {
            DerivedDeclarator::Array(a) => Some(&a.node.size),
            _ => None,
        });
        let (Some(size), None) = (sizes.next(), sizes.next()) else {
            return None;
        };
        match size {
            lang_c::ast::ArraySize::VariableExpression(e)
            | lang_c::ast::ArraySize::StaticExpression(e) => self.eval(e, mask).as_const(),
            _ => None,
        }
    }

    /// The source as the user wrote it, for messages.
    pub(super) fn source_text(&self, s: Span) -> String {
        self.unit.prepared.written(self.span(s))
    }
}

/// Whether the name inside the declarator's parentheses is a pointer (or a reference, once
/// lowered): `(*t)[N]`, `(&rows)[2][4]`, `(&r)`.
fn nested_pointer(d: &Declarator) -> bool {
    matches!(&d.kind.node, DeclaratorKind::Declarator(inner)
        if inner.node.derived.iter().any(|x| matches!(x.node, DerivedDeclarator::Pointer(_))))
}

/// The extents after the name of `(*x)[M][N]` or `(&x)[M][N]`, in the order written.
fn array_extents(d: &Declarator) -> Vec<&Node<Expression>> {
    d.derived
        .iter()
        .filter_map(|x| match &x.node {
            DerivedDeclarator::Array(a) => match &a.node.size {
                ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => Some(&**e),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The expression a declarator is initialized with (`= e`), if any.
fn expression_initializer(init: &Node<InitDeclarator>) -> Option<&Node<Expression>> {
    match &init.node.initializer {
        Some(Node {
            node: Initializer::Expression(e),
            ..
        }) => Some(e),
        _ => None,
    }
}
