//! Expressions: per-lane values of identifiers, constants, members, operators and
//! assignments.

use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    /// Evaluates an expression that has no side effects worth recording (an increment).
    pub(super) fn eval_pure(&mut self, e: &Node<Expression>) -> Lanes {
        let saved = std::mem::take(&mut self.sites);
        let v = self.eval(e, &vec![true; self.n]);
        self.sites = saved;
        v
    }

    /// Whether `e` is a braced list `{a, b}` (spelled `(a, b)` for lang-c).
    pub(super) fn is_braced_list(&self, e: &Node<Expression>) -> bool {
        let lists = &self.unit.prepared.braced_lists;
        if lists.is_empty() {
            return false;
        }
        let at = self.span(e.span);
        // lang-c's span of `(a, b)` may take the parentheses (the braces written).
        lists.contains(&(at.start, at.end))
            || (at.len() >= 2 && lists.contains(&(at.start + 1, at.end - 1)))
    }

    pub(super) fn eval(&mut self, e: &Node<Expression>, mask: &[bool]) -> Lanes {
        // (Text evaluated in place of a span, a macro body, has no class values of its own.)
        if !self.unit.prepared.class_values.is_empty()
            && self.span_override.is_none()
            && matches!(e.node, Expression::Constant(_))
            && (self.unit.prepared)
                .class_value_at(self.span(e.span).start)
                .is_some()
        {
            // `T{...}`: a value of class type, its elements blanked for lang-c.
            let why = "a value of class type `T{...}`, which banklint does not take apart";
            return Lanes::Each(Rc::new(vec![Value::unknown(why); self.n]));
        }
        {
            if self.is_braced_list(e) {
                // `{a, b}`: its elements are read (they may load shared memory); the value
                // is an aggregate, which no index can use. Its members are the same in every
                // lane only when every element is.
                let uniform = match &e.node {
                    Expression::Comma(list) => list
                        .iter()
                        .all(|x| self.eval_node(x, mask).is_known_uniform()),
                    _ => self.eval_node(e, mask).is_known_uniform(),
                };
                let why = "a braced list `{...}` (an aggregate)";
                return if uniform {
                    self.uniform_data(why)
                } else {
                    Lanes::Each(Rc::new(vec![Value::unknown(why); self.n]))
                };
            }
        }
        self.eval_node(e, mask)
    }

    fn eval_node(&mut self, e: &Node<Expression>, mask: &[bool]) -> Lanes {
        if let Some(v) = self.pack_value(e, mask) {
            return v;
        }
        match &e.node {
            Expression::Identifier(id) if self.is_shared_scalar(&id.node.name) => {
                // A `__shared__` scalar read: an access (every lane the same word).
                self.shared_access(e, Op::Load, mask)
            }
            Expression::Identifier(id) => self.identifier(&id.node.name, e.span, mask),
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => {
                    let digits = i.number.replace('\'', "");
                    let radix = match i.base {
                        IntegerBase::Decimal => 10,
                        IntegerBase::Octal => 8,
                        IntegerBase::Hexadecimal => 16,
                        IntegerBase::Binary => 2,
                    };
                    i64::from_str_radix(&digits, radix).map_or_else(
                        |_| Lanes::unknown("an integer literal too large"),
                        Lanes::int,
                    )
                }
                Constant::Character(ch) => {
                    let inner = ch
                        .trim_start_matches(['L', 'u', 'U', '8'])
                        .trim_matches('\'');
                    match inner.chars().next() {
                        Some(c) if inner.len() == c.len_utf8() => Lanes::int(c as i64),
                        _ => Lanes::unknown("a character literal"),
                    }
                }
                Constant::Float(_) => Lanes::unknown("a floating-point value"),
            },
            Expression::StringLiteral(_) => Lanes::unknown("a string"),
            Expression::Member(m) => self.member(e, &m.node, mask),
            Expression::Call(call) => self.call(e, &call.node, mask),
            Expression::UnaryOperator(u) => self.unary(e, &u.node, mask),
            Expression::Cast(c) => {
                let v = self.eval(&c.node.expression, mask);
                let floaty = c.node.type_name.node.specifiers.iter().any(|s| {
                    matches!(&s.node, SpecifierQualifier::TypeSpecifier(t) if matches!(t.node, TypeSpecifier::Float | TypeSpecifier::Double))
                });
                if floaty {
                    self.data_value(&v, "a floating-point value")
                } else {
                    v
                }
            }
            Expression::BinaryOperator(b) => self.binary(e, &b.node, mask),
            Expression::Conditional(c) => {
                let cond = self.eval(&c.node.condition, mask);
                let mut then_mask = mask.to_vec();
                let mut else_mask = mask.to_vec();
                for t in 0..self.n {
                    match cond.const_at(t) {
                        Some(0) => then_mask[t] = false,
                        Some(_) => else_mask[t] = false,
                        None => {}
                    }
                }
                let a = self.eval(&c.node.then_expression, &then_mask);
                let b = self.eval(&c.node.else_expression, &else_mask);
                if cond.is_uniform() && cond.as_const().is_none() {
                    return if a.same_in(&b, self.n) {
                        a
                    } else {
                        self.data_value(&a, "a value chosen by a condition")
                    };
                }
                Lanes::from_values(
                    (0..self.n)
                        .map(|t| match cond.const_at(t) {
                            Some(0) => b.get(t).into_owned(),
                            Some(_) => a.get(t).into_owned(),
                            None if a.same_at(&b, t) => a.get(t).into_owned(),
                            None => Value::unknown(
                                "it is chosen by a condition banklint cannot resolve",
                            ),
                        })
                        .collect(),
                )
            }
            Expression::Comma(list) => {
                let mut last = Lanes::int(0);
                for x in list.iter() {
                    last = self.eval(x, mask);
                }
                last
            }
            Expression::SizeOfTy(t) => {
                let pointer = t.node.0.node.declarator.is_some();
                let ty = self.qualified_type(&t.node.0.node.specifiers);
                match (pointer, ty.size()) {
                    (true, _) => Lanes::int(8),
                    (false, Some(s)) => Lanes::int(i64::from(s)),
                    // A type banklint cannot lay out (a library's `TempStorage`) still has one
                    // size for the whole grid: a warp-uniform unknown, like a class constant.
                    (false, None) => self.uniform(&format!("sizeof({})", ty.name())),
                }
            }
            Expression::SizeOfVal(v) => self.size_of_expr(&v.node.0),
            Expression::AlignOf(_) => Lanes::unknown("an alignment"),
            _ => Lanes::unknown("an expression banklint does not evaluate"),
        }
    }

    pub(super) fn size_of_expr(&mut self, e: &Node<Expression>) -> Lanes {
        if let Expression::Identifier(id) = &e.node
            && let Some(Binding::Shared(a)) = self.lookup(&id.node.name).cloned()
            && let Some(total) = self.arrays[a]
                .layout
                .as_ref()
                .and_then(ArrayLayout::total_bytes)
        {
            return Lanes::int(total);
        }
        if let Some((array, indices, _)) = self.shared_ref(e)
            && let Some(layout) = &self.arrays[array].layout
            && indices.len() == layout.dims.len()
            // A partly laid-out record's is no size (see `register_array`).
            && self.arrays[array].decl.elem.size().is_some()
        {
            return Lanes::int(layout.elem_size);
        }
        Lanes::unknown("a sizeof banklint does not evaluate")
    }

    /// The value of a shared element a reference is bound to: data each lane holds for
    /// itself (the element may differ per lane), never a warp-uniform unknown.
    pub(super) fn element_data(&self) -> Lanes {
        Lanes::Each(Rc::new(vec![Value::unknown("it is shared data"); self.n]))
    }

    /// A value read from memory or computed from non-integers: unknown, but uniform when its
    /// inputs were known to be.
    pub(super) fn data_value(&mut self, from: &Lanes, what: &str) -> Lanes {
        // An unknown held once may be anything per lane (a struct returned by a call that
        // banklint could not follow may hold `threadIdx.x % 8`).
        if from.is_known_uniform() {
            self.uniform_data(what)
        } else {
            Lanes::Each(Rc::new(vec![
                Value::unknown(format!("it is {what}"));
                self.n
            ]))
        }
    }

    /// A value that is the same in every thread but unknown (read from memory at a uniform
    /// address, returned by a call with uniform arguments): a fresh warp-uniform symbol, so
    /// `s[base + threadIdx.x]` is still a known pattern shifted by `base`.
    pub(super) fn uniform_data(&mut self, what: &str) -> Lanes {
        Lanes::Same(Value::sym(self.syms.fresh(what.to_string())))
    }

    pub(super) fn identifier(&mut self, name: &str, span: Span, mask: &[bool]) -> Lanes {
        match self.lookup(name) {
            Some(Binding::Value(v)) => return v.clone(),
            Some(Binding::Shared(_))
            | Some(Binding::Opaque(_))
            | Some(Binding::Pointer(_))
            | Some(Binding::Rows { .. })
            | Some(Binding::Object(_))
            | Some(Binding::MemoryClass { .. }) => {
                return Lanes::unknown(format!("`{name}` is an array, not an integer"));
            }
            Some(Binding::Group(_)) => {
                return Lanes::unknown(format!("`{name}` is a thread group, not an integer"));
            }
            Some(Binding::Cute(c)) => {
                return Lanes::unknown(format!("`{name}` is {}, not an integer", c.describe()));
            }
            Some(Binding::Reference(r)) => {
                if !r.loaded {
                    let r = r.clone();
                    self.reference_access(name, span, r, Op::Load, mask);
                }
                return self.element_data();
            }
            None => {}
        }
        if let Some(v) = self.template_values.get(name) {
            return v.clone();
        }
        if let Some(same) = self.type_trait(name, span) {
            return Lanes::int(i64::from(same));
        }
        match name {
            "warpSize" => return Lanes::int(32),
            "true" => return Lanes::int(1),
            "false" | "nullptr" | "NULL" => return Lanes::int(0),
            _ => {}
        }
        if let Some(v) = self.named_constant(name) {
            return Lanes::int(v);
        }
        // In a method: a static member of its class, by its bare name, read where the
        // class's template parameters are bound.
        if let Some(class) = self.method_classes.last().cloned() {
            let value = self
                .preparations()
                .flat_map(|p| p.static_members.iter())
                .find(|m| m.class == class && m.member == name)
                .map(|m| m.value.clone());
            if let Some(value) = value {
                let v = self.eval_text(&value, span, mask, name);
                if self.is_compile_time(&v) {
                    return v;
                }
            }
        }
        if self.unit.file_shared.iter().any(|a| a.name == name) {
            return Lanes::unknown(format!("`{name}` is an array, not an integer"));
        }
        // A class's constant is one value for the whole grid even where banklint cannot
        // work it out: a warp-uniform unknown, which moves an access as a whole (each shift
        // that can matter is analyzed, see `bank::layout`).
        if let Some(constant) = self.unevaluated_static_member(name) {
            return self.uniform(&constant);
        }
        Lanes::unknown(format!("`{name}` is not known to banklint"))
    }

    /// Whether `v` is one compile-time value: a constant, or a form over template parameters
    /// nothing gives a value (a class's `static constexpr int kSize = Q;` with `Q` such a
    /// parameter is `Q`, one value for the grid).
    fn is_compile_time(&self, v: &Lanes) -> bool {
        match v {
            Lanes::Same(Value::Affine(a)) => {
                (a.terms.iter()).all(|(s, _)| self.unvalued_template_params.contains_key(s))
            }
            _ => false,
        }
    }

    /// Evaluates source text standing for an expression at `span` (a macro body).
    pub(super) fn eval_text(&mut self, text: &str, span: Span, mask: &[bool], what: &str) -> Lanes {
        if self.call_depth > MAX_CALL_DEPTH * 4 {
            return Lanes::unknown(format!("`{what}` expands too deeply"));
        }
        // `GROUP_WARPS * kittens::WARP_THREADS` (a class's static member as written): the
        // qualified name as lowering joins it.
        let joined;
        let text = if text.contains("::") {
            joined = text.replace("::", "__");
            joined.as_str()
        } else {
            text
        };
        let Some(expr) = parse_expression_text(self.unit, text) else {
            return Lanes::unknown(format!(
                "the macro `{what}` does not expand to an expression"
            ));
        };
        let outer = self.span(span);
        let saved = self.span_override.replace(outer);
        self.call_depth += 1;
        let v = self.eval(&expr, mask);
        self.call_depth -= 1;
        self.span_override = saved;
        v
    }

    /// Text written at file scope (a default argument, a field extent), evaluated where it is
    /// used: placed at the item being run (the text has no place in a parsed item), in a
    /// scope of its own (a local or template parameter of the caller is not the file's name).
    pub(super) fn eval_text_at_file_scope(&mut self, text: &str) -> Lanes {
        let here = (self.span_override.clone())
            .or_else(|| self.unit.items.get(self.item).map(|i| i.chunk.span.clone()))
            .unwrap_or_default();
        let saved_span = self.span_override.replace(here);
        let saved_scopes = std::mem::take(&mut self.scopes);
        let saved_values = std::mem::take(&mut self.template_values);
        let all = vec![true; self.n];
        let v = self.eval_text(text, Span::none(), &all, text);
        self.template_values = saved_values;
        self.scopes = saved_scopes;
        self.span_override = saved_span;
        v
    }

    /// A file-scope constant expression, evaluated in its own item.
    pub(super) fn constant_in(&mut self, expr: &Node<Expression>, item: usize) -> Option<i64> {
        let saved = (self.item, self.span_override.take());
        self.item = item;
        let v = self.eval(expr, &vec![true; self.n]).as_const();
        (self.item, self.span_override) = saved;
        v
    }

    pub(super) fn named_constant(&mut self, name: &str) -> Option<i64> {
        // `C__DEPTH` of a type parameter `C` depends on what `C` is bound to here: cached
        // under that binding.
        let key: std::borrow::Cow<str> = match name
            .split_once("__")
            .and_then(|(class, _)| self.type_args.get(class))
        {
            Some(bound) => format!("{name} with {bound}").into(),
            None => name.into(),
        };
        if let Some(v) = self.constant_cache.get(key.as_ref()) {
            return *v;
        }
        let key = key.into_owned();
        self.constant_cache.insert(key.clone(), None);
        let v = match self.unit.constants.get(name) {
            Some(NamedConstant::Value(v)) => Some(*v),
            Some(NamedConstant::Expr { expr, item }) => self.constant_in(expr, *item),
            Some(NamedConstant::Enumerator { expr, offset, item }) => self
                .constant_in(expr, *item)
                .and_then(|v| v.checked_add(*offset)),
            None => self
                .header_constant(name)
                .or_else(|| self.static_member(name)),
        };
        self.constant_cache.insert(key, v);
        v
    }

    /// A constant of a header or of the includer's text before its `#include`
    /// (`const int WARPSIZE = 32;`), evaluated in that file.
    pub(super) fn header_constant(&self, name: &str) -> Option<i64> {
        self.headers
            .iter()
            .find_map(|(_, h)| match h.constants.get(name)? {
                NamedConstant::Value(v) => Some(*v),
                NamedConstant::Expr { expr, item } => eval_constant(h, expr, *item),
                NamedConstant::Enumerator { expr, offset, item } => {
                    eval_constant(h, expr, *item).and_then(|v| v.checked_add(*offset))
                }
            })
    }

    /// `x128::size` (written `x128__size` for lang-c): a class's static constant member or
    /// enumerator, also through an alias of a class template (`typedef Packed128<floatX>
    /// x128;`) or a type parameter bound to one (`C::DEPTH` with `C = config<256, 4>`), read
    /// with the class's parameters bound and what its other members and bases say (see
    /// `front::class_members`).
    pub(super) fn static_member(&mut self, name: &str) -> Option<i64> {
        // `Cls___pad` is member `_pad` of `Cls`, or `pad` of `Cls_`: try every `__` split,
        // the rightmost first.
        for (class, member) in crate::front::names::scope_splits(name) {
            let target = self.class_named(class);
            if let Some(v) = self.class_constant(&target, member) {
                return Some(v);
            }
        }
        None
    }

    /// The class a scope names (`C` of `C__DEPTH`): the type a parameter is bound to, the
    /// target of an alias, or the name itself as C++ writes it.
    pub(super) fn class_named(&self, class: &str) -> String {
        match self.type_args.get(class) {
            Some(bound) => bound.clone(),
            None => self
                .alias_target(class)
                .unwrap_or_else(|| class.replace("__", "::")),
        }
    }

    /// `Ktraits::kSmemSize` (written `Ktraits__kSmemSize`) when it is a class's static
    /// constant that banklint cannot evaluate (`sizeof` a library's `TempStorage` it has not
    /// read): its name as a C++ developer writes it, with the class it is read in.
    fn unevaluated_static_member(&mut self, name: &str) -> Option<String> {
        for (class, member) in crate::front::names::scope_splits(name) {
            let target = self.class_named(class);
            if let Some(crate::front::class_members::Member::Value(_)) =
                self.class_member(&target, member)
            {
                return Some(format!("{target}::{member}"));
            }
        }
        None
    }

    /// The class of an object in shared memory an expression names (`tile`, `tiles[i]`,
    /// `p->` base), as its record names it: for a static member read through it.
    fn object_class_name(&self, e: &Node<Expression>) -> Option<String> {
        let elem = match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name)? {
                Binding::Reference(r) => r.target.elem.clone(),
                Binding::Pointer(q) => q.elem.clone(),
                Binding::Shared(s) if self.arrays[*s].decl.dims.is_empty() => {
                    self.arrays[*s].decl.elem.clone()
                }
                _ => return None,
            },
            _ => self.indexed_element(e)?,
        };
        match elem {
            Type::Record(r) => Some(r.name.clone()),
            _ => None,
        }
    }

    /// The element type of `tiles[k]` (or `tiles[i][j]`), an array of objects in shared
    /// memory: a `__shared__` one, or one named through a pointer, a pointer to rows, or a
    /// reference to it.
    pub(super) fn indexed_element(&self, e: &Node<Expression>) -> Option<Type> {
        let (base, subscripts) = super::references::peel_subscripts(e)?;
        let Expression::Identifier(id) = &base.node else {
            return None;
        };
        if subscripts.is_empty() {
            return None;
        }
        match self.lookup(&id.node.name)? {
            Binding::Pointer(q) if subscripts.len() == 1 => Some(q.elem.clone()),
            Binding::Rows { first, .. } if subscripts.len() == 2 => Some(first.elem.clone()),
            Binding::Shared(s) if self.arrays[*s].decl.dims.len() == subscripts.len() => {
                Some(self.arrays[*s].decl.elem.clone())
            }
            _ => None,
        }
    }

    /// The value of the constant `member` of the class `class` names (`Traits<256, float>`).
    pub(super) fn class_constant(&mut self, class: &str, member: &str) -> Option<i64> {
        let crate::front::class_members::Member::Value(text) = self.class_member(class, member)?
        else {
            return None;
        };
        if text.contains("is_same") {
            // A trait (`static constexpr bool kIsComplex = std::is_same_v<weight_t,
            // complex_t>;`), read with the class's member types.
            return self.class_trait(class, &text).map(i64::from);
        }
        // Names left qualified (`ns::N`) are spelled as the lowering spells them.
        let expr = parse_expression_text(self.unit, &text.replace("::", "__"))?;
        eval_constant(self.unit, &expr, 0)
    }

    /// Member `member` of the class `class` names, as this unit and the headers declare it
    /// (see `class_members`), looked up once.
    pub(super) fn class_member(
        &mut self,
        class: &str,
        member: &str,
    ) -> Option<crate::front::class_members::Member> {
        let key = (
            std::ptr::from_ref(self.unit) as usize,
            class.to_string(),
            member.to_string(),
        );
        if let Some(known) = self.class_members.get(&key) {
            return known.clone();
        }
        let classes = self.classes();
        let found = classes.member(class, member);
        self.class_members.insert(key, found.clone());
        found
    }

    pub(super) fn member(
        &mut self,
        whole: &Node<Expression>,
        m: &MemberExpression,
        mask: &[bool],
    ) -> Lanes {
        // `vec.length` of a tile in shared memory: a static constant of its class, no access.
        if let Some(class) = self.object_class_name(&m.expression)
            && let Some(v) = self.class_constant(&class, &m.identifier.node.name)
        {
            return Lanes::int(v);
        }
        if let Some(field) = self.reference_member(whole) {
            self.reference_member_access(whole, field, Op::Load, mask);
            return self.element_data();
        }
        // `stats.reducer_.lane_`: a field of an object banklint built.
        if let Some(Binding::Value(v)) = self.object_member(m) {
            return v;
        }
        if let Expression::Identifier(base) = &m.expression.node {
            let axis = match m.identifier.node.name.as_str() {
                "x" => Some(0),
                "y" => Some(1),
                "z" => Some(2),
                _ => None,
            };
            if let (Some(k), None) = (axis, self.lookup(&base.node.name)) {
                match base.node.name.as_str() {
                    "threadIdx" => return self.thread_idx[k].clone(),
                    "blockDim" => return self.block_dim[k].clone(),
                    "blockIdx" | "gridDim" | "clusterIdx" | "clusterDim" => {
                        return self
                            .uniform(&format!("{}.{}", base.node.name, m.identifier.node.name));
                    }
                    _ => {}
                }
            }
        }
        if let Expression::Call(c) = &m.expression.node {
            let callee = match &c.node.callee.node {
                Expression::Member(mm) => Some(mm.node.identifier.node.name.clone()),
                Expression::Identifier(id) => id.node.name.rsplit("__").next().map(str::to_string),
                _ => None,
            };
            let axis = match m.identifier.node.name.as_str() {
                "x" => Some(0),
                "y" => Some(1),
                "z" => Some(2),
                _ => None,
            };
            if let (Some(callee), Some(k)) = (callee, axis) {
                match callee.as_str() {
                    "thread_index" => return self.thread_idx[k].clone(),
                    "dim_threads" | "group_dim" => return self.block_dim[k].clone(),
                    "group_index" | "block_index" => {
                        return self.uniform(&format!("blockIdx.{}", m.identifier.node.name));
                    }
                    _ => {}
                }
            }
        }
        if self.shared_ref(whole).is_some()
            || self.is_pointer_access(whole)
            || self.nested_member(whole).is_some()
        {
            return self.shared_access(whole, Op::Load, mask);
        }
        // A struct held by value whose member has no value here.
        if let Expression::Identifier(id) = &m.expression.node
            && let Some(Binding::Object(o)) = self.lookup(&id.node.name)
            && o.fields.values().all(|b| matches!(b, Binding::Value(_)))
        {
            let (object, member) = (&id.node.name, &m.identifier.node.name);
            return Lanes::unknown(format!(
                "`{object}.{member}` has no value here: it is not set on every path, or a call given `{object}` by reference may have changed it"
            ));
        }
        let inner = self.eval(&m.expression, mask);
        self.data_value(&inner, "a member of a struct banklint does not track")
    }

    pub(super) fn unary(
        &mut self,
        whole: &Node<Expression>,
        u: &UnaryOperatorExpression,
        mask: &[bool],
    ) -> Lanes {
        let n = self.n;
        match u.operator.node {
            UnaryOperator::Plus => self.eval(&u.operand, mask),
            UnaryOperator::Minus => {
                let v = self.eval(&u.operand, mask);
                Lanes::binary(BinOp::Sub, &Lanes::int(0), &v, n, &mut self.syms)
            }
            UnaryOperator::Complement => {
                let v = self.eval(&u.operand, mask);
                Lanes::binary(BinOp::Sub, &Lanes::int(-1), &v, n, &mut self.syms)
            }
            UnaryOperator::Negate => {
                let v = self.eval(&u.operand, mask);
                Lanes::binary(BinOp::Eq, &v, &Lanes::int(0), n, &mut self.syms)
            }
            UnaryOperator::Address => {
                if let Some(p) = self.parameter_address(&u.operand) {
                    return p;
                }
                // `&s[i]` takes an address; no shared-memory access happens here.
                self.eval_subscripts_only(&u.operand, mask);
                Lanes::unknown("an address")
            }
            UnaryOperator::Indirection => {
                if self.is_pointer_access(whole) {
                    return self.shared_access(whole, Op::Load, mask);
                }
                let v = self.eval(&u.operand, mask);
                self.data_value(&v, "a value loaded through a pointer")
            }
            UnaryOperator::PreIncrement
            | UnaryOperator::PostIncrement
            | UnaryOperator::PreDecrement
            | UnaryOperator::PostDecrement => {
                let delta = if matches!(
                    u.operator.node,
                    UnaryOperator::PreIncrement | UnaryOperator::PostIncrement
                ) {
                    1
                } else {
                    -1
                };
                let post = matches!(
                    u.operator.node,
                    UnaryOperator::PostIncrement | UnaryOperator::PostDecrement
                );
                if self.shared_ref(&u.operand).is_some()
                    || self.is_pointer_access(&u.operand)
                    || self.is_member_array_element(&u.operand)
                {
                    return self.shared_access_as(&u.operand, &[Op::Load, Op::Store], mask);
                }
                if let Expression::Identifier(id) = &u.operand.node
                    && let Some(Binding::Pointer(p)) = self.lookup(&id.node.name).cloned()
                {
                    if let Some(moved) = self.advance(p, &Lanes::int(delta)) {
                        self.bind_pointer(&id.node.name, moved);
                    }
                    return Lanes::unknown("an address");
                }
                // `c++` through a reference parameter: a load unless the value is in a register
                // already, then a store; `n.x++`: both, on the field.
                if let Expression::Identifier(id) = &u.operand.node
                    && let Some(Binding::Reference(r)) = self.lookup(&id.node.name).cloned()
                {
                    let name = &id.node.name;
                    if !r.loaded {
                        self.reference_access(name, u.operand.span, r.clone(), Op::Load, mask);
                    }
                    self.reference_access(name, u.operand.span, r, Op::Store, mask);
                    return self.element_data();
                }
                if let Some(field) = self.reference_member(&u.operand) {
                    self.reference_member_access(&u.operand, field.clone(), Op::Load, mask);
                    self.reference_member_access(&u.operand, field, Op::Store, mask);
                    return self.element_data();
                }
                let old = self.eval(&u.operand, mask);
                let new = Lanes::binary(BinOp::Add, &old, &Lanes::int(delta), n, &mut self.syms);
                if let Expression::Identifier(id) = &u.operand.node {
                    self.set_var(&id.node.name, &new, mask);
                }
                if post { old } else { new }
            }
        }
    }

    /// Evaluates the index expressions under `&...` for the accesses they contain.
    pub(super) fn eval_subscripts_only(&mut self, e: &Node<Expression>, mask: &[bool]) {
        match &e.node {
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                self.eval_subscripts_only(&b.node.lhs, mask);
                self.eval(&b.node.rhs, mask);
            }
            Expression::Member(m) => self.eval_subscripts_only(&m.node.expression, mask),
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                self.eval_subscripts_only(&u.node.operand, mask);
            }
            Expression::Identifier(_) => {}
            _ => {
                self.eval(e, mask);
            }
        }
    }

    pub(super) fn binary(
        &mut self,
        whole: &Node<Expression>,
        b: &BinaryOperatorExpression,
        mask: &[bool],
    ) -> Lanes {
        let n = self.n;
        if let Some(compound) = assignment_op(&b.operator.node) {
            return self.assign(&b.lhs, compound, &b.rhs, mask);
        }
        // `addr % 1024` of a shared-window address within its array's alignment.
        if matches!(
            b.operator.node,
            BinaryOperator::Modulo | BinaryOperator::BitwiseAnd
        ) && let Some(v) = self.window_low_bits(b, mask)
        {
            return v;
        }
        let op = match b.operator.node {
            BinaryOperator::Index => {
                if self.shared_ref(whole).is_some()
                    || self.is_pointer_access(whole)
                    || self.is_member_array_element(whole)
                {
                    return self.shared_access(whole, Op::Load, mask);
                }
                let base = self.eval(&b.lhs, mask);
                let idx = self.eval(&b.rhs, mask);
                let uniform = base.is_uniform() && idx.is_uniform();
                let name = base_name(&b.lhs).unwrap_or_else(|| "memory".to_string());
                return if uniform {
                    self.uniform_data(&format!("a value loaded from `{name}`"))
                } else {
                    Lanes::Each(Rc::new(vec![
                        Value::unknown(format!(
                            "it is data loaded from `{name}`"
                        ));
                        n
                    ]))
                };
            }
            BinaryOperator::LogicalAnd | BinaryOperator::LogicalOr => {
                let and_op = b.operator.node == BinaryOperator::LogicalAnd;
                let l = self.eval(&b.lhs, mask);
                // A compile-time constant that decides (`sortDir && ...` with the template
                // argument 0) leaves the right side out of this instantiation, as nvcc does:
                // nothing in it runs or is reported, as for a plain `if` on one.
                if let Some(c) = l.as_const()
                    && (c != 0) != and_op
                    && self.is_compile_time_expression(&b.lhs)
                {
                    return Lanes::int(!and_op as i64);
                }
                // The right side runs only where the left does not decide.
                let rmask: Vec<bool> = (0..n)
                    .map(|t| mask[t] && l.const_at(t).is_none_or(|c| (c != 0) == and_op))
                    .collect();
                let switched_off = !none(mask) && none(&rmask);
                if switched_off {
                    let (text, place) = (self.source_text(b.lhs.span), self.place(b.lhs.span));
                    let (op, value) = if and_op {
                        ("&&", "false")
                    } else {
                        ("||", "true")
                    };
                    self.switched_off.push(format!(
                        "the operand after `{op}` does not run: `{text}` ({place}) is {value} for every thread that reaches it"
                    ));
                }
                let r = self.eval(&b.rhs, &rmask);
                if switched_off {
                    self.switched_off.pop();
                }
                return Lanes::binary(
                    if and_op {
                        BinOp::LogicalAnd
                    } else {
                        BinOp::LogicalOr
                    },
                    &l,
                    &r,
                    n,
                    &mut self.syms,
                );
            }
            BinaryOperator::Multiply => BinOp::Mul,
            BinaryOperator::Divide => BinOp::Div,
            BinaryOperator::Modulo => BinOp::Rem,
            BinaryOperator::Plus => BinOp::Add,
            BinaryOperator::Minus => BinOp::Sub,
            BinaryOperator::ShiftLeft => BinOp::Shl,
            BinaryOperator::ShiftRight => BinOp::Shr,
            BinaryOperator::Less => BinOp::Lt,
            BinaryOperator::Greater => BinOp::Gt,
            BinaryOperator::LessOrEqual => BinOp::Le,
            BinaryOperator::GreaterOrEqual => BinOp::Ge,
            BinaryOperator::Equals => BinOp::Eq,
            BinaryOperator::NotEquals => BinOp::Ne,
            BinaryOperator::BitwiseAnd => BinOp::And,
            BinaryOperator::BitwiseXor => BinOp::Xor,
            BinaryOperator::BitwiseOr => BinOp::Or,
            // Assignments returned above.
            _ => return Lanes::unknown("an assignment"),
        };
        let l = self.eval(&b.lhs, mask);
        let r = self.eval(&b.rhs, mask);
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            return self.shift(whole, b, &l, &r, mask);
        }
        Lanes::binary(op, &l, &r, n, &mut self.syms)
    }

    pub(super) fn assign(
        &mut self,
        lhs: &Node<Expression>,
        op: Option<BinOp>,
        rhs: &Node<Expression>,
        mask: &[bool],
    ) -> Lanes {
        // `q = p;` of a struct held by value.
        if op.is_none()
            && let Some(v) = self.assign_object(lhs, rhs, mask)
        {
            return v;
        }
        // `p = c ? a : b;` with `c` not known per thread: each side as a branch.
        if op.is_none()
            && let Expression::Conditional(c) = &rhs.node
            && let Expression::Identifier(id) = &lhs.node
            && matches!(
                self.lookup(&id.node.name),
                Some(Binding::Value(_) | Binding::Opaque(_) | Binding::Pointer(_))
            )
            && self.points_to_shared(rhs)
        {
            match self.eval_pointer(rhs, mask, &id.node.name) {
                Some(p) => self.bind_pointer_masked(&id.node.name, p, mask, lhs.span),
                None => self.choose_pointer(lhs, c, mask),
            }
            return Lanes::unknown("an address");
        }
        // A variable given a pointer into shared memory (`float *p; p = &s[i];`), or an
        // integer given a shared-window address, holds that pointer from here on.
        if op.is_none()
            && let Expression::Identifier(id) = &lhs.node
            && matches!(
                self.lookup(&id.node.name),
                Some(Binding::Value(_) | Binding::Opaque(_))
            )
            && (self.is_shared_address(rhs) || self.points_to_shared(rhs))
            && let Some(p) = self.eval_pointer(rhs, mask, &id.node.name)
        {
            self.bind_pointer_masked(&id.node.name, p, mask, lhs.span);
            return Lanes::unknown("an address");
        }
        if let Expression::Identifier(id) = &lhs.node
            && let Some(Binding::Pointer(p)) = self.lookup(&id.node.name).cloned()
        {
            let moved = match op {
                None => self.eval_pointer(rhs, mask, &id.node.name),
                Some(BinOp::Add) => {
                    let k = self.eval(rhs, mask);
                    self.advance(p, &k)
                }
                Some(BinOp::Sub) => {
                    let k = self.eval(rhs, mask);
                    let neg = Lanes::binary(BinOp::Sub, &Lanes::int(0), &k, self.n, &mut self.syms);
                    self.advance(p, &neg)
                }
                _ => None,
            };
            match moved {
                Some(m) => self.bind_pointer_masked(&id.node.name, m, mask, lhs.span),
                None => self.bind_pointer_lost(&id.node.name),
            }
            return Lanes::unknown("an address");
        }
        if let Expression::Identifier(id) = &lhs.node
            && let Some(Binding::Reference(target)) = self.lookup(&id.node.name).cloned()
        {
            let r = self.eval(rhs, mask);
            if op.is_some() && !target.loaded {
                self.reference_access(&id.node.name, lhs.span, target.clone(), Op::Load, mask);
            }
            self.reference_access(&id.node.name, lhs.span, target, Op::Store, mask);
            return r;
        }
        // `t(i, j) = v;` of a CuTe tensor: a store of its element.
        if let Expression::Call(c) = &lhs.node
            && let Expression::Identifier(id) = &c.node.callee.node
            && let Some(Binding::Cute(t)) = self.lookup(&id.node.name).cloned()
        {
            let r = self.eval(rhs, mask);
            if op.is_some() {
                self.cute_element(lhs, &t, &c.node, Op::Load, mask);
            }
            self.cute_element(lhs, &t, &c.node, Op::Store, mask);
            return r;
        }
        if let Some(field) = self.reference_member(lhs) {
            let r = self.eval(rhs, mask);
            if op.is_some() {
                self.reference_member_access(lhs, field.clone(), Op::Load, mask);
            }
            self.reference_member_access(lhs, field, Op::Store, mask);
            return r;
        }
        let r = self.eval(rhs, mask);
        if self.shared_ref(lhs).is_some()
            || self.is_pointer_access(lhs)
            || self.is_member_array_element(lhs)
            || self.nested_member(lhs).is_some()
        {
            let ops: &[Op] = if op.is_some() {
                &[Op::Load, Op::Store]
            } else {
                &[Op::Store]
            };
            self.shared_access_as(lhs, ops, mask);
            return r;
        }
        // `p.row = v` of a struct held by value.
        if let Some(v) = self.assign_object_member(lhs, op, &r, mask) {
            return v;
        }
        match &lhs.node {
            Expression::Identifier(id) => {
                let name = id.node.name.clone();
                let new = match op {
                    // `x <<= k`, `x >>= k`: clamped as the GPU does and warned about (see `shifts`).
                    Some(op @ (BinOp::Shl | BinOp::Shr)) => {
                        let old = self.identifier(&name, lhs.span, mask);
                        self.compound_shift(op == BinOp::Shl, lhs, rhs, (&old, &r), mask)
                    }
                    Some(op) => {
                        let old = self.identifier(&name, lhs.span, mask);
                        Lanes::binary(op, &old, &r, self.n, &mut self.syms)
                    }
                    None => r,
                };
                let new = match self.lookup(&name) {
                    Some(Binding::Value(_)) => new,
                    _ => return new,
                };
                self.set_var(&name, &new, mask);
                new
            }
            _ => {
                // A store to global memory, a local array or a struct field: evaluate the
                // subscripts for the shared loads they may contain.
                self.eval_subscripts_only(lhs, mask);
                r
            }
        }
    }
}
