//! Calls: built-in functions, cooperative-groups handles, and device functions inlined in the
//! caller's context (this file's, a header's, or the includer's).

use super::overloads::is_lambda;
use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    pub(super) fn call(
        &mut self,
        whole: &Node<Expression>,
        call: &CallExpression,
        mask: &[bool],
    ) -> Lanes {
        self.calls_started += 1;
        self.call_serials.push(self.calls_started);
        // `f(xs...)`: the call with the pack's elements written out.
        let v = match self.expand_call_arguments(call, mask) {
            None => self.call_as_written(whole, call, mask),
            Some(Ok(expanded)) => {
                let node = Node::new(expanded.clone(), whole.span);
                let whole = Node::new(Expression::Call(Box::new(node)), whole.span);
                self.call_as_written(&whole, &expanded, mask)
            }
            Some(Err(why)) => self.not_expanded(whole.span, why),
        };
        self.call_serials.pop();
        v
    }

    fn call_as_written(
        &mut self,
        whole: &Node<Expression>,
        call: &CallExpression,
        mask: &[bool],
    ) -> Lanes {
        if let Some(v) = self.cute_call(whole, call, mask) {
            return v;
        }
        if let Some(v) = self.wmma_call(whole, call, mask) {
            return v;
        }
        let arity = call.arguments.len();
        // `src.idx(addr, c)` with `src` a tile in shared memory: a static method of its
        // class, run with the class's arguments.
        let through_object = match &call.callee.node {
            Expression::Member(m) => self.static_method_of_shared(&m.node, arity),
            _ => None,
        };
        let name = match &call.callee.node {
            Expression::Identifier(id) => Some(id.node.name.clone()),
            _ => through_object.as_ref().map(|c| c.lookup.clone()),
        };
        let mut callee = match through_object {
            Some(c) => Some(c),
            None => name.as_deref().and_then(|n| self.callee(n, arity)),
        };
        if callee.is_none()
            && let Some(v) = self.cuda_ptx_call(whole, call, mask)
        {
            return v;
        }
        if callee.is_none()
            && let Some(f) = name
                .as_deref()
                .and_then(crate::analysis::atomics::atomic_function)
        {
            return self.atomic_call(whole, call, f, mask);
        }
        let mut aggregates: Vec<(usize, Vec<Lanes>)> = Vec::new();
        let args: Vec<Lanes> = call
            .arguments
            .iter()
            .enumerate()
            .map(|(k, a)| {
                // A `__shared__` object or element handed to a reference parameter (a pointer
                // once the front end has rewritten `T &p`) is not read at the call: the callee
                // reads it, if at all.
                let by_reference = callee
                    .as_ref()
                    .and_then(|c| c.function.params.iter().find(|p| p.index == k))
                    .is_some_and(|p| matches!(p.ty, Type::Pointer(_)));
                match &a.node {
                    Expression::Identifier(id)
                        if by_reference
                            && matches!(
                                self.lookup(&id.node.name),
                                Some(Binding::Shared(_) | Binding::Reference(_))
                            ) =>
                    {
                        Lanes::unknown("a reference")
                    }
                    // A reference handed to a function banklint has no definition of (a
                    // library's `load(tile, ...)`): passed on as a reference, most likely; the
                    // call is noted as one whose accesses are not analyzed.
                    Expression::Identifier(id)
                        if callee.is_none()
                            && matches!(&call.callee.node, Expression::Identifier(_))
                            && matches!(
                                self.lookup(&id.node.name),
                                Some(Binding::Reference(_))
                            ) =>
                    {
                        Lanes::unknown("a reference")
                    }
                    _ if callee.is_none()
                        && matches!(&call.callee.node, Expression::Identifier(_))
                        && self.is_shared_object(a) =>
                    {
                        Lanes::unknown("a reference")
                    }
                    // An element or a member (`s[i]`, `p[i]`, `*p`, `s[i].f`, `r.tiles[k]`)
                    // likewise.
                    _ if by_reference && self.binds_shared_reference(a) => {
                        Lanes::unknown("a reference")
                    }
                    // A whole `__shared__` object of a type banklint does not know, handed to
                    // a function it does not have: a library object (`cuda::barrier` to
                    // `cuda::memcpy_async`), which such functions take by reference.
                    Expression::Identifier(id)
                        if callee.is_none()
                            && (self.is_library_object(&id.node.name)
                                || matches!(&call.callee.node, Expression::Identifier(_))
                                    && self.is_shared_record(&id.node.name)) =>
                    {
                        Lanes::unknown("a reference")
                    }
                    _ => match self.aggregate_elements(a, mask) {
                        // `f(addr, {row, col})`: kept element by element for a struct
                        // parameter (see `inline_call_in`).
                        Some(items) => {
                            let uniform = items.iter().all(Lanes::is_known_uniform);
                            aggregates.push((k, items));
                            let why = "an aggregate `{...}`";
                            if uniform {
                                self.uniform_data(why)
                            } else {
                                Lanes::Each(Rc::new(vec![Value::unknown(why); self.n]))
                            }
                        }
                        None => self.eval(a, mask),
                    },
                }
            })
            .collect();
        self.pending_aggregates = aggregates;
        if let Expression::Member(m) = &call.callee.node
            && callee.is_none()
        {
            // Cooperative groups: `tile.thread_rank()`, `block.thread_rank()`,
            // `cg::this_thread_block().thread_rank()`.
            let method = &m.node.identifier.node.name;
            if let Expression::Identifier(id) = &m.node.expression.node
                && let Some(Binding::Group(Group::Tile(tile))) = self.lookup(&id.node.name)
            {
                return match tile.clone() {
                    Ok(tile) => self.tile_method(method, tile),
                    Err(why) => Lanes::unknown(why),
                };
            }
            if let Some(v) = self.group_method(method) {
                return v;
            }
            // A method of an object banklint built (see `objects`), or of an element of an
            // array of them (`parts[i].store_to(smem, i)`: the elements share their fields).
            let object = match &m.node.expression.node {
                Expression::Identifier(id) => Some(id),
                Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                    match &b.node.lhs.node {
                        Expression::Identifier(id) => {
                            self.eval(&b.node.rhs, mask);
                            Some(id)
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(id) = object
                && let Some(Binding::Object(obj)) = self.lookup(&id.node.name).cloned()
                && let Some(v) =
                    self.method_call(&id.node.name, obj, method, call, args.clone(), mask)
            {
                return v;
            }
            // A method of a `__shared__` object (`bar.arrive()` on a `cuda::barrier`): library
            // code touches the object, not an access banklint can place.
            if let Expression::Identifier(id) = &m.node.expression.node
                && let Some(Binding::Shared(a)) = self.lookup(&id.node.name).cloned()
            {
                // One whose class banklint laid out and has the method of: run on its fields.
                if let Some(v) =
                    self.method_on_shared(&id.node.name, a, method, call, args.clone(), mask)
                {
                    return v;
                }
                return self.uniform_data("the result of a method call");
            }
            // A method called on an object in shared memory (`src.idx(...)` with `src` a
            // reference to a tile there) does not read the object at the call: what the
            // method reads is its own business. Only the subscripts are evaluated.
            let on_shared = match &m.node.expression.node {
                Expression::Identifier(id) => matches!(
                    self.lookup(&id.node.name),
                    Some(Binding::Reference(_) | Binding::Pointer(_))
                ),
                _ => {
                    self.shared_ref(&m.node.expression).is_some()
                        || self.is_pointer_access(&m.node.expression)
                        || self.is_member_array_element(&m.node.expression)
                }
            };
            if on_shared {
                self.eval_subscripts_only(&m.node.expression, mask);
                return Lanes::unknown("the result of a method of an object in shared memory");
            }
            let base = self.eval(&m.node.expression, mask);
            return self.data_value(&base, "the result of a method call");
        }
        let Some(name) = name else {
            return Lanes::unknown("the result of a call through a pointer");
        };
        if let Some(float) = crate::front::names::is_functional_cast(&name) {
            let v = args.into_iter().next().unwrap_or_else(|| Lanes::int(0));
            return if float {
                self.data_value(&v, "a floating-point value")
            } else {
                v
            };
        }
        if let Some(v) = self
            .group_method(name.rsplit("__").next().unwrap_or(&name))
            .filter(|_| name.contains("__"))
        {
            return v;
        }
        if let Some(v) = self.intrinsic(&name, &args) {
            return v;
        }
        if name.starts_with("make_") {
            let serial = self.call_serials.last().copied().unwrap_or(0);
            self.vector_constructor(&name, &args, serial);
        }
        // `std::min` and `cuda::std::min` (spelled `std__min`) are the standard library's.
        let standard = ["cuda__std__", "std__"]
            .iter()
            .find_map(|ns| name.strip_prefix(ns))
            .filter(|f| matches!(*f, "min" | "max"))
            .unwrap_or(&name);
        match (standard, args.as_slice()) {
            ("min" | "umin" | "llmin" | "ullmin" | "fminf" | "imin", [a, b]) => {
                return Lanes::binary(BinOp::Min, a, b, self.n, &mut self.syms);
            }
            ("max" | "umax" | "llmax" | "ullmax" | "imax", [a, b]) => {
                return Lanes::binary(BinOp::Max, a, b, self.n, &mut self.syms);
            }
            ("__mul24" | "__umul24", [a, b]) => {
                return Lanes::binary(BinOp::Mul, a, b, self.n, &mut self.syms);
            }
            ("abs" | "llabs", [a]) => {
                let neg = Lanes::binary(BinOp::Sub, &Lanes::int(0), a, self.n, &mut self.syms);
                return Lanes::binary(BinOp::Max, a, &neg, self.n, &mut self.syms);
            }
            _ => {}
        }
        if let Some(c) = &callee
            && let Some(why) = self.not_inlined_because(c.function, call)
        {
            // Said where it happens, when the callee could have reached shared memory (a
            // pointer or reference parameter, or shared memory of its own).
            let could_reach = c
                .function
                .params
                .iter()
                .any(|p| matches!(p.ty, Type::Pointer(_)))
                || !c.unit.file_shared.is_empty()
                || c.unit
                    .prepared
                    .keywords_in(c.function.span.clone())
                    .any(|(k, _)| *k == crate::front::cuda::Keyword::Shared);
            if could_reach {
                let at = whole.span;
                self.note_unfollowed(at, format!("the call of `{name}` is not followed: {why}"));
            }
            let params = c.function.params.clone();
            self.forget_written_by(&name, call, Some(&params), mask);
            return Lanes::unknown(format!("the result of `{name}` ({why})"));
        }
        if let Some(c) = &mut callee
            && let Err(unknown) = self.choose_overload(c, whole, call, &name, arity)
        {
            return unknown;
        }
        if let Some(c) = callee {
            self.scope_args = c.scope_args;
            let Some(header) = c.header else {
                return self.inline_call_in(c.unit, c.function, call, args, mask);
            };
            let saved = (self.unit, self.home_call.clone());
            if self.home_call.is_none() {
                self.home_call = Some((self.span(whole.span), header));
            }
            let v = self.inline_call_in(c.unit, c.function, call, args, mask);
            (self.unit, self.home_call) = saved;
            return v;
        }
        self.note_undefined_callee(&name, whole, call);
        self.forget_written_by(&name, call, None, mask);
        let uniform_args = args.iter().all(Lanes::is_uniform);
        if uniform_args && !matches!(name.as_str(), "clock" | "clock64" | "__lane_id" | "laneid") {
            let shown = super::escapes::written_name(&name);
            let v = self.uniform_data(&format!("the result of `{shown}`"));
            if let Lanes::Same(Value::Affine(a)) = &v {
                for (sym, _) in &a.terms {
                    self.unread_results.insert(*sym, shown.clone());
                }
            }
            v
        } else {
            Lanes::Each(Rc::new(vec![
                Value::unknown(format!(
                    "it is the result of `{name}`"
                ));
                self.n
            ]))
        }
    }

    /// An integer intrinsic (`__popc`, `__brev`, `__funnelshift_l`, ...) computed lane by
    /// lane where its arguments are constants in every lane; `None` otherwise (the generic
    /// handling of calls, or `__mul24`'s affine product, applies).
    fn intrinsic(&mut self, name: &str, args: &[Lanes]) -> Option<Lanes> {
        if !crate::analysis::intrinsics::is_intrinsic(name) {
            return None;
        }
        // Lane by lane: a lane whose arguments are not constants (one switched off, say) is
        // unknown by itself; with no constant lane at all the generic handling applies.
        let values: Vec<Option<i64>> = (0..self.n)
            .map(|t| {
                let consts: Option<Vec<i64>> = args.iter().map(|a| a.const_at(t)).collect();
                crate::analysis::intrinsics::evaluate(name, &consts?)
            })
            .collect();
        if values.iter().all(Option::is_none) {
            return None;
        }
        Some(Lanes::Each(Rc::new(
            values
                .into_iter()
                .map(|v| {
                    v.map_or_else(
                        || {
                            Value::unknown(format!(
                                "it is the result of `{name}` of a value banklint does not know"
                            ))
                        },
                        Value::int,
                    )
                })
                .collect(),
        )))
    }

    /// Thread-block queries of cooperative groups, in terms of threadIdx and blockDim.
    pub(super) fn group_method(&mut self, method: &str) -> Option<Lanes> {
        let n = self.n;
        match method {
            "thread_rank" => {
                let [tx, ty, tz] = self.thread_idx.clone();
                let [bx, by, _] = self.block_dim.clone();
                let row = Lanes::binary(BinOp::Mul, &tz, &by, n, &mut self.syms);
                let row = Lanes::binary(BinOp::Add, &row, &ty, n, &mut self.syms);
                let row = Lanes::binary(BinOp::Mul, &row, &bx, n, &mut self.syms);
                Some(Lanes::binary(BinOp::Add, &row, &tx, n, &mut self.syms))
            }
            "size" | "num_threads" => {
                let [bx, by, bz] = self.block_dim.clone();
                let p = Lanes::binary(BinOp::Mul, &bx, &by, n, &mut self.syms);
                Some(Lanes::binary(BinOp::Mul, &p, &bz, n, &mut self.syms))
            }
            _ => None,
        }
    }

    /// Methods of a tile of `tile` threads: ranks within the tile and of the tile in the block.
    pub(super) fn tile_method(&mut self, method: &str, tile: u32) -> Lanes {
        let n = self.n;
        let size = Lanes::int(i64::from(tile));
        match method {
            "thread_rank" | "meta_group_rank" => {
                let rank = self
                    .group_method("thread_rank")
                    .unwrap_or_else(|| Lanes::int(0));
                let op = if method == "thread_rank" {
                    BinOp::Rem
                } else {
                    BinOp::Div
                };
                Lanes::binary(op, &rank, &size, n, &mut self.syms)
            }
            "size" | "num_threads" => size,
            "meta_group_size" => {
                let block = self.group_method("size").unwrap_or_else(|| Lanes::int(0));
                let rounded = Lanes::binary(
                    BinOp::Add,
                    &block,
                    &Lanes::int(i64::from(tile) - 1),
                    n,
                    &mut self.syms,
                );
                Lanes::binary(BinOp::Div, &rounded, &size, n, &mut self.syms)
            }
            _ => self.uniform_data("the result of a method call"),
        }
    }

    /// The group a declaration's initializer or type names: `cg::this_thread_block()` or
    /// `cg::thread_block` (the block), `cg::tiled_partition<32>(b)` or
    /// `cg::thread_block_tile<32>` (a tile of 32).
    pub(super) fn group_of(
        &mut self,
        specs: &[Node<DeclarationSpecifier>],
        init: Option<&Node<Expression>>,
    ) -> Option<Group> {
        // The arguments are recorded at the last part of a qualified name (`cg::tiled_partition`).
        let tile_size = |a: &mut Self, span: Span| -> Result<u32, String> {
            let name = a.span(span);
            let text = a
                .unit
                .prepared
                .template_calls
                .iter()
                .find(|(off, _)| name.contains(off))
                .and_then(|(_, args)| args.first().cloned())
                .ok_or_else(|| "a thread group's tile size is not written".to_string())?;
            a.eval_text(&text, span, &[true], "the tile size")
                .as_const()
                .and_then(|t| u32::try_from(t).ok())
                .filter(|&t| t > 0)
                .ok_or_else(|| format!("the tile size `{text}` is not a compile-time constant"))
        };
        if let Some(Node {
            node: Expression::Call(c),
            ..
        }) = init
            && let Expression::Identifier(id) = &c.node.callee.node
        {
            let name = id.node.name.as_str();
            if name.ends_with("tiled_partition") && c.node.arguments.len() == 2 {
                // The run-time form, `cg::tiled_partition(block, 16)`.
                let size = self.eval(&c.node.arguments[1], &vec![true; self.n]);
                return Some(Group::Tile(
                    size.as_const()
                        .and_then(|t| u32::try_from(t).ok())
                        .filter(|&t| t > 0)
                        .ok_or_else(|| "the tile size is not a compile-time constant".to_string()),
                ));
            }
            if name.ends_with("tiled_partition") {
                return Some(Group::Tile(tile_size(self, c.node.callee.span)));
            }
            if name.ends_with("this_thread_block") {
                return Some(Group::Block);
            }
        }
        for spec in specs {
            if let DeclarationSpecifier::TypeSpecifier(ts) = &spec.node
                && let TypeSpecifier::TypedefName(id) = &ts.node
            {
                let name = id.node.name.as_str();
                if name.ends_with("thread_block_tile") {
                    return Some(Group::Tile(tile_size(self, ts.span)));
                }
                if name == "thread_block" || name.ends_with("__thread_block") {
                    return Some(Group::Block);
                }
            }
        }
        None
    }

    /// A device function of a local header (or of the includer before its `#include`), by
    /// name: the header's name, its unit, the function. Not one that declares `__shared__`
    /// memory of its own, whose declaration would be in another file than the report's.
    pub(super) fn header_function(&self, name: &str, arity: usize) -> Option<Callee<'a, 'p>> {
        let key = self.call_key(name, arity);
        let known = self.header_callees.borrow().get(&key).copied();
        let found = match known {
            Some(found) => found,
            None => {
                let found = self.find_header_function(name, arity);
                self.header_callees.borrow_mut().insert(key, found);
                found
            }
        };
        let (slot, index) = found?;
        let (header, unit) = match slot {
            0 => ("", self.home_unit),
            i => (self.headers[i - 1].0.as_str(), &self.headers[i - 1].1),
        };
        let function = &unit.functions[index];
        if super::overloads::own_shared_settled_alone(unit, function) {
            return None;
        }
        Some(Callee {
            unit,
            function,
            header: Some(header.to_string()),
            scope_args: Vec::new(),
            lookup: name.to_string(),
        })
    }

    /// The first unit (home, then headers in order) other than the current one with a device
    /// function for the call: its slot and the function's index.
    fn find_header_function(&self, name: &str, arity: usize) -> Option<(usize, usize)> {
        let units = std::iter::once(self.home_unit).chain(self.headers.iter().map(|(_, u)| u));
        for (slot, unit) in units.enumerate() {
            if std::ptr::eq(unit, self.unit) {
                continue;
            }
            if let Some(f) = unit.function(name, arity).filter(|f| !f.kernel) {
                let index = unit.functions.iter().position(|g| std::ptr::eq(g, f))?;
                return Some((slot, index));
            }
        }
        None
    }

    /// The device function a call of `name` with `arity` arguments reaches, looked up once per
    /// call: this unit's, else a local header's.
    pub(super) fn callee(&self, name: &str, arity: usize) -> Option<Callee<'a, 'p>> {
        let unit = self.unit;
        if !unit.prepared.lambdas.is_empty()
            && let Some(function) = self.lambda_in_scope(name)
        {
            return Some(Callee {
                unit,
                function,
                header: None,
                scope_args: Vec::new(),
                lookup: name.to_string(),
            });
        }
        match unit
            .function(name, arity)
            .filter(|f| !f.kernel && !is_lambda(unit, f))
        {
            Some(function) => Some(Callee {
                unit,
                function,
                header: None,
                scope_args: Vec::new(),
                lookup: name.to_string(),
            }),
            None => self
                .header_function(name, arity)
                .or_else(|| self.callee_through_alias(name, arity)),
        }
    }

    /// Whether a function in `namespace` is a method of the class template whose method is
    /// running (its class is the namespace's last part).
    fn in_same_class_template(&self, namespace: &str) -> bool {
        let class = namespace.rsplit("__").next().unwrap_or("");
        !class.is_empty()
            && self.method_classes.last().is_some_and(|c| c == class)
            && self
                .preparations()
                .any(|p| p.class_templates.iter().any(|(c, _)| c == class))
    }

    /// `ns::warp::load(...)` with `using warp = group<1>;`: the static method `load` of the
    /// class the alias names, with the alias's template arguments for the class's parameters.
    fn callee_through_alias(&self, name: &str, arity: usize) -> Option<Callee<'a, 'p>> {
        for (scope, member) in crate::front::names::scope_splits(name) {
            let alias = scope.rsplit("__").next().unwrap_or(scope);
            let Some((_, target)) = self
                .unit
                .prepared
                .aliases
                .iter()
                .rev()
                .find(|(n, _)| n == alias)
            else {
                continue;
            };
            let (class, args) = crate::front::names::split_template_args(target)
                .unwrap_or((target.as_str(), Vec::new()));
            let class = class.trim().replace("::", "__");
            let method = format!("{class}__{member}");
            let found = match self.unit.function(&method, arity).filter(|f| !f.kernel) {
                Some(function) => Some(Callee {
                    unit: self.unit,
                    function,
                    header: None,
                    scope_args: Vec::new(),
                    lookup: method.clone(),
                }),
                None => self.header_function(&method, arity),
            };
            if let Some(c) = found {
                return Some(Callee {
                    scope_args: args,
                    ..c
                });
            }
        }
        None
    }

    /// The named lambda `name` defined in the function being run (the last of that name).
    fn lambda_in_scope(&self, name: &str) -> Option<&'a Function> {
        let unit = self.unit;
        let here = unit.items.get(self.item)?.chunk.span.clone();
        unit.prepared
            .lambdas
            .iter()
            .filter(|l| here.start <= l.span.start && l.span.end <= here.end)
            .filter_map(|l| {
                unit.functions
                    .iter()
                    .find(|f| f.name == name && l.span.contains(&f.span.start))
            })
            .last()
    }

    /// Inlines `f`, defined in `unit` (the caller's, or a header's).
    pub(super) fn inline_call_in(
        &mut self,
        unit: &'a Unit<'p>,
        f: &Function,
        call: &CallExpression,
        args: Vec<Lanes>,
        mask: &[bool],
    ) -> Lanes {
        let Some(def) = unit.definition(f) else {
            return Lanes::unknown(format!("the result of `{}`", f.name));
        };
        self.reached_functions.insert(f.overload_key());
        // Keyed before the callee's template arguments are bound: they are read in the caller.
        let instance = self.instance_key(f, call);
        let aggregates = std::mem::take(&mut self.pending_aggregates);
        let mut frame = HashMap::default();
        // A parameter pack takes the arguments the parameters after it leave; those after
        // it move on by as many.
        let pack_at = f.params.iter().position(|p| p.pack);
        let pack_len = pack_at.map_or(1, |at| {
            let after = f.params.len() - at - 1;
            call.arguments
                .len()
                .saturating_sub(f.params[at].index + after)
        });
        for (n, p) in f.params.iter().enumerate() {
            let k = match pack_at {
                Some(at) if n > at => p.index + pack_len - 1,
                _ => p.index,
            };
            if p.pack {
                let elements = (k..k + pack_len)
                    .map(|j| self.argument_binding(p, j, call, &args, &aggregates, mask))
                    .collect();
                super::packs::bind_parameter_pack(&mut frame, &p.name, elements);
                continue;
            }
            let binding = self.argument_binding(p, k, call, &args, &aggregates, mask);
            frame.insert(p.name.clone(), binding);
        }
        // Explicit template arguments at the call, `body<BS, T>(o)`, bound in the caller.
        let saved_templates = (
            self.template_values.clone(),
            self.types.clone(),
            self.type_args.clone(),
        );
        let receiver = self.method_of.take();
        // The object's class as the caller names it, its arguments read in the caller's scope.
        let receiver_instance = receiver
            .as_ref()
            .map(|r| self.instance_text(&r.class, &r.template_args));
        let scope_args = std::mem::take(&mut self.scope_args);
        let specialization_args = self.specialization_args.take();
        if let Some(header) = &f.template {
            // `obj.f<4>(x)`: the arguments were recorded at the method's name.
            let at = match &call.callee.node {
                Expression::Member(m) => self.span(m.node.identifier.span).start,
                _ => self.span(call.callee.span).start,
            };
            // A method of a class template instance: the class's arguments come first.
            let given: Vec<String> = match &receiver {
                // The class's arguments, its defaults for those not written
                // (`shared_allocator al(p);` of `template <int align = 1024>`), then the
                // method's own.
                Some(r) => {
                    let class = self.class_parameters(&r.class);
                    let mut args = r.template_args.clone();
                    for p in class.iter().skip(args.len()) {
                        args.push(p.default.clone().unwrap_or_else(|| p.name.clone()));
                    }
                    args.into_iter()
                        .chain(self.template_arguments_at(at).iter().cloned())
                        .collect()
                }
                // A sibling method of the caller's class template (`put<0, T>(t, v)` inside
                // `group<W>`): the class's parameters keep the caller's bindings, named as
                // themselves, and the arguments written are the method's own.
                None if scope_args.is_empty() => {
                    let class = self.enclosing_class_parameters(f);
                    (header.params.iter().take(class).map(|p| p.name.clone()))
                        .chain(self.template_arguments_at(at).iter().cloned())
                        .collect()
                }
                None => scope_args
                    .into_iter()
                    .chain(self.template_arguments_at(at).iter().cloned())
                    .collect(),
            };
            // A specialization's method: its own parameters stand where the class's were.
            let given = match specialization_args {
                Some((n, own)) => own.into_iter().chain(given.into_iter().skip(n)).collect(),
                None => given,
            };
            // Every argument is read in the caller's scope before any is bound: the callee's
            // parameters may share names with the caller's (`T` given `Pair<T, int>`).
            let mut types = Vec::new();
            let mut texts = Vec::new();
            let mut values = Vec::new();
            // `laneid()` called bare in another static method of `group<W>`: the class's
            // parameters keep the caller's values.
            let sibling = receiver.is_none() && self.in_same_class_template(&f.namespace);
            // One template pack left without arguments and a function parameter pack: the
            // one is deduced from the other (with two, which is which is not known).
            let unbound_packs = (header.params.iter().enumerate())
                .filter(|(k, p)| p.pack && given.len() <= *k)
                .count();
            for (k, param) in header.params.iter().enumerate() {
                // A pack takes the arguments left (none, often: `allocate<T>()` of
                // `template <typename A, size_t... dims>`), expanded where it is written.
                if param.pack {
                    let rest = given.get(k..).unwrap_or_default();
                    // `template <typename... Ts> f(Ts... xs)` called `f(a, b)`: the template
                    // pack is deduced, as long as the function's pack (its types are not).
                    if rest.is_empty() && pack_at.is_some() {
                        if unbound_packs == 1 {
                            super::packs::bind_deduced_length(&mut frame, &param.name, pack_len);
                        }
                        continue;
                    }
                    texts.push(param.pack_binding(rest));
                    continue;
                }
                let text = given.get(k).cloned().or_else(|| param.default.clone());
                if text.is_none()
                    && sibling
                    && (self.template_values.contains_key(&param.name)
                        || self.type_args.contains_key(&param.name))
                {
                    continue;
                }
                if param.is_type {
                    let at = call.callee.span;
                    // Not given: deduced from an argument in shared memory, as the compiler
                    // deduces it (`f(T *p)` given a `float` array is `f<float>`).
                    if text.is_none()
                        && let Some(ty) = deduced_type(f, &param.name, &frame, self.arrays)
                    {
                        if let Some(name) = type_name(&ty) {
                            texts.push((param.name.clone(), name));
                        }
                        types.push((param.name.clone(), ty));
                        continue;
                    }
                    // Or from the class type of any argument (`f(const GL &g)` given `g.c`).
                    if text.is_none()
                        && let Some(name) = self.deduced_class(f, &param.name, call)
                    {
                        texts.push((param.name.clone(), name));
                        continue;
                    }
                    if let Some(ty) = text.as_deref().and_then(|t| self.type_of_text(t, at)) {
                        types.push((param.name.clone(), ty));
                    }
                    // `f<T>(...)` inside a template: the caller's binding of `T`, also inside
                    // an argument (`Pair<T, int>`).
                    if let Some(t) = text {
                        let t = match self.type_args.get(t.trim()) {
                            Some(bound) => bound.clone(),
                            None if self.type_args.is_empty() => t,
                            None => {
                                let caller: Vec<(&str, &str)> = self
                                    .type_args
                                    .iter()
                                    .map(|(k, v)| (k.as_str(), v.as_str()))
                                    .collect();
                                crate::front::names::replace_words(&t, &caller)
                            }
                        };
                        texts.push((param.name.clone(), t));
                    }
                } else {
                    let value = match text {
                        Some(t) => {
                            let v = self.eval_text(&t, call.callee.span, mask, &param.name);
                            // A constant, or one the caller does not know either (its own
                            // template parameter with no value): uniform all the same.
                            if v.is_known_uniform() {
                                v
                            } else {
                                Lanes::unknown(format!(
                                    "template argument `{t}` of `{}` is not a constant",
                                    f.name
                                ))
                            }
                        }
                        None => Lanes::unknown(format!(
                            "template parameter `{}` of `{}` has no value at this call",
                            param.name, f.name
                        )),
                    };
                    values.push((param.name.clone(), value));
                }
            }
            for (name, ty) in types {
                Rc::make_mut(&mut self.types).named.insert(name, ty);
            }
            for (name, t) in texts {
                Rc::make_mut(&mut self.type_args).insert(name, t);
            }
            for (name, v) in values {
                Rc::make_mut(&mut self.template_values).insert(name, v);
            }
        }
        self.bind_dependent_types();
        let saved_unit = std::mem::replace(&mut self.unit, unit);
        // A lambda runs in the scope that defines it: it sees what it captures, and what it
        // assigns to a variable captured by reference stays assigned after the call.
        let lambda = is_lambda(unit, f);
        let scopes = if lambda {
            let mut s = self.scopes.clone();
            s.push(Rc::new(frame));
            s
        } else if let Some(r) = &receiver {
            // A method sees its object's fields under its parameters.
            vec![r.fields.clone(), Rc::new(frame)]
        } else {
            vec![Rc::new(frame)]
        };
        let saved_scopes = std::mem::replace(&mut self.scopes, scopes);
        let saved_item = std::mem::replace(&mut self.item, f.item);
        if let Some(def) = unit.definition(f) {
            let body = unit.items.get(f.item).map(|i| i.chunk.span.clone());
            self.bind_member_types(body, def.declarator.span);
            if let Some(instance) = &receiver_instance {
                self.bind_receiver_types(instance, def.declarator.span);
            }
        }
        let saved_fn = std::mem::replace(&mut self.function, super::objects::shown_name(unit, f));
        let saved_override = self.span_override.take();
        let saved_exited = self.exited.clone();
        let saved_last_exit = self.last_exit;
        let saved_loops = std::mem::take(&mut self.loops);
        let saved_widths = std::mem::take(&mut self.int_widths);
        self.call_depth += 1;
        self.inlined_calls += 1;
        self.call_stack.push(f.definition_key());
        self.instances.push(instance);
        self.returns.push(None);
        self.returned_pointers.push(None);
        self.returned_objects.push(None);
        let reference =
            (self.unit.prepared.reference_returns.iter()).any(|r| r.contains(&f.span.start));
        self.returns_reference.push(reference);
        // A method reads its class's static members by their bare names; a static method is
        // lifted into its class's scope, the last part of its namespace.
        let class = match &receiver {
            Some(r) => r.class.clone(),
            None => f.namespace.rsplit("__").next().unwrap_or("").to_string(),
        };
        self.method_classes.push(class);
        if let Some(r) = &receiver {
            self.run_initializers(r, mask);
        }
        self.exec(&def.statement, mask);
        self.method_classes.pop();
        if receiver.is_some() {
            self.method_done = self.scopes.first().cloned();
        }
        self.returns_reference.pop();
        let ret = self.returns.pop().flatten();
        self.last_returned_pointer = self.returned_pointers.pop().flatten();
        let serial = self.call_serials.last().copied().unwrap_or(0);
        self.last_returned_object = (self.returned_objects.pop().flatten()).map(|o| (serial, o));
        self.last_call_returned_reference = reference;
        self.call_stack.pop();
        self.instances.pop();
        self.call_depth -= 1;
        self.loops = saved_loops;
        self.int_widths = saved_widths;
        self.exited = saved_exited;
        self.last_exit = saved_last_exit;
        self.span_override = saved_override;
        self.function = saved_fn;
        self.item = saved_item;
        if lambda {
            self.scopes.pop();
            if self.scopes.len() != saved_scopes.len() {
                self.scopes = saved_scopes;
            }
        } else {
            self.scopes = saved_scopes;
        }
        (self.template_values, self.types, self.type_args) = saved_templates;
        self.unit = saved_unit;
        ret.unwrap_or_else(|| Lanes::unknown(format!("the result of `{}`", f.name)))
    }
}

impl<'a, 'p> Analyzer<'a, 'p> {
    /// The class a function template's type parameter `name` takes from the call, as text:
    /// that of the argument handed to a parameter written `name`, `name &` or `name *`
    /// (`f(const GL &g)` given `g.c`, a member of class type), read in the caller's scope.
    fn deduced_class(&self, f: &Function, name: &str, call: &CallExpression) -> Option<String> {
        f.params.iter().find_map(|p| {
            let (inner, by_address) = match &p.ty {
                Type::Pointer(inner) => (&**inner, true),
                t => (t, false),
            };
            if !matches!(inner, Type::Unknown(n) if n == name) {
                return None;
            }
            self.argument_type_text(call.arguments.get(p.index)?, by_address)
        })
    }
}

/// The type a function template's type parameter `name` takes from the call: the element
/// type of the shared memory handed to a parameter written `name *p` or `name &r` (a pointer
/// once lowered), as the arguments were bound in the callee's `frame`.
fn deduced_type(
    f: &Function,
    name: &str,
    frame: &HashMap<String, Binding, rustc_hash::FxBuildHasher>,
    arrays: &ArrayTable,
) -> Option<Type> {
    f.params.iter().find_map(|p| {
        let Type::Pointer(inner) = &p.ty else {
            return None;
        };
        if !matches!(&**inner, Type::Unknown(n) if n == name) {
            return None;
        }
        match frame.get(&p.name)? {
            Binding::Pointer(q) => Some(q.elem.clone()),
            Binding::Reference(r) => Some(r.target.elem.clone()),
            Binding::Shared(a) => Some(arrays[*a].decl.elem.clone()),
            Binding::Opaque(Some(local)) => Some(local.elem.clone()),
            _ => None,
        }
        .filter(|t| !matches!(t, Type::Unknown(_)))
    })
}

/// A type as template arguments write it: a scalar's or a class's name.
fn type_name(t: &Type) -> Option<String> {
    match t {
        Type::Scalar { name, .. } => Some(name.clone()),
        Type::Record(r) => Some(r.name.clone()),
        _ => None,
    }
}
