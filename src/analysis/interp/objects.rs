//! Objects of classes that keep pointers into shared memory (`Queue q(smem); q.push(v);`):
//! the constructor is run on a fresh set of fields, its member initializers first, and each
//! method call runs the method with the object's fields in scope under its parameters; the
//! fields the method leaves are the object's after the call. Methods are those the front end
//! lifted (see `front::methods`); a class or method it did not is noted as before.

use super::*;

/// Classes whose fields one object gathers: its own and its bases', transitively.
const MAX_BASE_CLASSES: usize = 16;

/// An object: its class, the template arguments its type was written with, its fields.
#[derive(Clone)]
pub(super) struct Object {
    pub class: String,
    pub template_args: Vec<String>,
    pub fields: Scope,
}

/// A lifted method, its unit, and the header it is in when that is not the current unit.
pub(super) struct Found<'a, 'p> {
    pub unit: &'a Unit<'p>,
    pub function: &'a Function,
    method: &'a crate::front::methods::Method,
    header: Option<String>,
    /// For a method of a specialization (`Reducer<T, 1, W, 1>`), its own parameters' values.
    spec: Option<overloads::SpecializationArgs>,
}

/// The object the next inlined call runs on: fields, template arguments, and for a
/// constructor its member initializers with the range they are reported at.
pub(super) struct Receiver {
    pub class: String,
    pub fields: Scope,
    pub template_args: Vec<String>,
    pub inits: Vec<(String, String)>,
    pub at: Range<usize>,
}

impl<'a, 'p> Analyzer<'a, 'p> {
    /// The lifted method `name` of `class` with `arity` parameters (a constructor's name is
    /// its class's), for an object whose class has the template arguments `args` (settled,
    /// see `bound_args`): the method of the specialization those arguments choose, else the
    /// primary's. This unit's first, then the home file's and the headers' (a class is most
    /// often defined in a header).
    /// `explicit`: the method's own template arguments written at the call (`al.allocate<T>()`):
    /// of overloads with the same arity, those they cannot stand for are left out.
    pub(super) fn method(
        &self,
        class: &str,
        name: &str,
        arity: usize,
        constructor: bool,
        args: &[String],
        explicit: &[String],
    ) -> Option<Found<'a, 'p>> {
        // A specialization is matched against the arguments with the primary's defaults.
        let full = self.classes().with_defaults(class, args);
        let args = full.as_deref().unwrap_or(args);
        let here: &'a Unit<'p> = self.unit;
        let units = std::iter::once((None, here))
            .chain(std::iter::once((Some(""), self.home_unit)))
            .chain(self.headers.iter().map(|(h, u)| (Some(h.as_str()), u)));
        let mut primary: Option<Found<'a, 'p>> = None;
        // The most specialized match wins, as in C++: the one that fixes the most arguments
        // (`<T, 1, W, 1>` over `<T, 1, W, N>` for `<float, 1, 4, 1>`).
        let mut best: Option<(usize, Found<'a, 'p>)> = None;
        for (header, unit) in units {
            let candidates = (unit.prepared.methods.iter())
                .filter(|m| m.class == class && m.name == name && m.constructor == constructor)
                .filter_map(|m| {
                    let f = (unit.functions.iter()).find(|f| m.span.contains(&f.span.start))?;
                    Some((f, m))
                })
                .filter(|(f, _)| {
                    f.params.len() == arity
                        && self.given_arguments_fit(f, explicit, self.class_parameters(class).len())
                });
            for (function, method) in candidates {
                let header = header
                    .filter(|_| !std::ptr::eq(unit, here))
                    .map(str::to_string);
                let spec = (unit.prepared.specialized_methods.iter())
                    .find(|(r, _, _)| r.contains(&function.span.start));
                let found = |spec| Found {
                    unit,
                    function,
                    method,
                    header: header.clone(),
                    spec,
                };
                match spec {
                    None => {
                        if primary.is_none() {
                            primary = Some(found(None));
                        }
                    }
                    Some((_, written, params)) => {
                        let Some(bound) = crate::front::class_members::unify(written, params, args)
                        else {
                            continue;
                        };
                        let own = (params.iter())
                            .map(|p| {
                                (bound.iter().find(|(k, _)| k == p))
                                    .map_or_else(|| p.clone(), |(_, v)| v.clone())
                            })
                            .collect();
                        let fixed = written.iter().filter(|w| !params.contains(w)).count();
                        if best.as_ref().is_none_or(|(f, _)| fixed > *f) {
                            best = Some((fixed, found(Some((args.len(), own)))));
                        }
                    }
                }
            }
        }
        best.map(|(_, f)| f).or(primary)
    }

    /// `C obj(args);`: runs `C`'s constructor when banklint lifted it, and binds `obj` to the
    /// object it builds. Returns false when there is none to run.
    pub(super) fn construct(
        &mut self,
        name: &str,
        specs: &[Node<DeclarationSpecifier>],
        args_text: &str,
        at: Span,
        mask: &[bool],
    ) -> bool {
        let Some((class, template_args)) = self.object_class(specs) else {
            return false;
        };
        // The arguments are read where the object is declared.
        let outer = self.span(at);
        let saved = self.span_override.replace(outer);
        let built = self.build_object(name, class, template_args, args_text, Some(at), mask);
        self.span_override = saved;
        let Some(object) = built else {
            return false;
        };
        self.bind(name, Binding::Object(object));
        true
    }

    /// Runs the constructor of `class<template_args>` that takes `args_text` on a fresh set of
    /// fields (each data member of the class, its specializations and bases); `None` when
    /// banklint has no such constructor.
    fn build_object(
        &mut self,
        name: &str,
        class: String,
        template_args: Vec<String>,
        args_text: &str,
        at: Option<Span>,
        mask: &[bool],
    ) -> Option<Object> {
        let arity = arity_of(args_text);
        // Objects within objects within objects: bounded like calls.
        if self.call_depth >= MAX_CALL_DEPTH {
            return None;
        }
        let settled = self.bound_args(&template_args);
        let found = self.method(&class, &class, arity, true, &settled, &[])?;
        let m = found.method;
        let Some(Node {
            node: Expression::Call(call),
            ..
        }) = parse_expression_text(self.unit, &format!("_({args_text})"))
        else {
            return None;
        };
        let fields = self.fresh_fields(&class, |n| {
            format!("the field `{n}` of `{name}` is not set by its constructor")
        });
        let args: Vec<Lanes> = call
            .node
            .arguments
            .iter()
            .map(|a| self.eval(a, mask))
            .collect();
        self.method_of = Some(Receiver {
            class: class.clone(),
            fields: Rc::new(fields),
            template_args: settled.clone(),
            inits: m.inits.clone(),
            at: m.span.clone(),
        });
        self.specialization_args = found.spec.clone();
        // A member built by an initializer is reported at the constructor (the span in force).
        let at = at.unwrap_or(call.span);
        self.inline_found(&found, at, &call.node, args, mask);
        let fields = self.method_done.take()?;
        Some(Object {
            class,
            template_args: settled,
            fields,
        })
    }

    /// `: warp_stats_(params, smem)` where the member is an object (`WarpStats warp_stats_;`,
    /// its type a class or a member type naming one): its constructor runs, and the field is
    /// the object it builds. False when the member is no object banklint can build.
    fn construct_member(
        &mut self,
        class: &str,
        field: &str,
        args_text: &str,
        mask: &[bool],
    ) -> bool {
        let written = self
            .preparations()
            .flat_map(|p| p.object_fields.iter())
            .filter(|(c, _)| c == class)
            .find_map(|(_, fs)| fs.iter().find(|(f, _)| f == field).map(|(_, t)| t.clone()));
        let Some(written) = written else {
            return false;
        };
        let written = self.type_args.get(&written).cloned().unwrap_or(written);
        let (member_class, args) = match crate::analysis::class_templates::instance_parts(&written)
        {
            Some(parts) => parts,
            None => (written.trim().replace("::", "__"), Vec::new()),
        };
        let member_class = member_class
            .rsplit("__")
            .next()
            .unwrap_or(&member_class)
            .to_string();
        let Some(object) = self.build_object(field, member_class, args, args_text, None, mask)
        else {
            return false;
        };
        match self.scopes.first_mut() {
            Some(fields) => {
                Rc::make_mut(fields).insert(field.to_string(), Binding::Object(object));
                true
            }
            None => false,
        }
    }

    /// The class and template arguments a declaration's type names: as written
    /// (`Vec<float, 4> v;`), or through an alias bound in this run (`using Cvec = typename
    /// K::Cvec;` naming `Vec<float, 4>`) or of the file.
    pub(super) fn object_class(
        &self,
        specs: &[Node<DeclarationSpecifier>],
    ) -> Option<(String, Vec<String>)> {
        let (written, type_at) = specs.iter().find_map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) => instances::typedef_name(t),
            _ => None,
        })?;
        let target = match self.type_args.get(&written) {
            Some(bound) => Some(self.alias_target(bound).unwrap_or_else(|| bound.clone())),
            None => self.alias_target(&written),
        };
        let Some(target) = target else {
            // `lib::Queue<T> q(...)`: the arguments are recorded where `Queue` is written,
            // and methods under the class's own name.
            let args = self.arguments_written_at(&written, type_at);
            let class = written.rsplit("__").next().unwrap_or(&written).to_string();
            // `tile_f<32, 32> t;`, an alias template's instance: the class it names.
            let text = format!("{class}<{}>", args.join(", "));
            let expanded = self.without_alias_templates(&text);
            if expanded != text
                && let Some((class, args)) =
                    crate::analysis::class_templates::instance_parts(&expanded)
            {
                let class = class.rsplit("__").next().unwrap_or(&class).to_string();
                return Some((class, args));
            }
            return Some((class, args));
        };
        let (class, args) = match crate::analysis::class_templates::instance_parts(&target) {
            Some(parts) => parts,
            None => (target.trim().replace("::", "__"), Vec::new()),
        };
        // Methods are recorded under the class's own name.
        let class = class.rsplit("__").next().unwrap_or(&class).to_string();
        Some((class, args))
    }

    /// What the file-scope alias `name` names, through aliases of aliases (`using swizzled =
    /// plain; using plain = alloc<1024>;`: `alloc<1024>`). A few steps: aliases do not loop,
    /// but a file may be wrong.
    pub(super) fn alias_target(&self, name: &str) -> Option<String> {
        let mut target = self.alias_of(name.trim())?;
        for _ in 0..8 {
            let Some(next) = self.alias_of(target.trim()) else {
                break;
            };
            target = next;
        }
        Some(target)
    }

    /// `Vec<float, 4> v;` (or an array of them) with no constructor arguments, of a class
    /// whose methods banklint read (see `front::methods`): an object whose fields hold no
    /// value banklint knows, so that `v.store_to(smem, i)` runs the method. Returns false
    /// for any other declaration.
    pub(super) fn default_object(
        &mut self,
        name: &str,
        specs: &[Node<DeclarationSpecifier>],
    ) -> bool {
        let Some((class, template_args)) = self.object_class(specs) else {
            return false;
        };
        let has_methods = std::iter::once(self.unit)
            .chain(std::iter::once(self.home_unit))
            .chain(self.headers.iter().map(|(_, u)| u))
            .any(|u| u.prepared.methods.iter().any(|m| m.class == class));
        if !has_methods {
            return false;
        }
        let fields = self.fresh_fields(&class, |n| {
            format!("the field `{n}` of `{name}` has no value banklint knows")
        });
        self.bind(
            name,
            Binding::Object(Object {
                class,
                template_args,
                fields: Rc::new(fields),
            }),
        );
        true
    }

    /// The fields of a new object of `class`, each holding no value banklint knows, for the
    /// reason `why` gives.
    fn fresh_fields(
        &self,
        class: &str,
        why: impl Fn(&str) -> String,
    ) -> HashMap<String, Binding, rustc_hash::FxBuildHasher> {
        self.class_fields_anywhere(class)
            .into_iter()
            .map(|n| {
                let unknown = Binding::Value(Lanes::unknown(why(&n)));
                (n, unknown)
            })
            .collect()
    }

    /// The data members of `class`: of each definition of it (the primary and its
    /// specializations) and of their base classes, from whichever unit defines them.
    fn class_fields_anywhere(&self, class: &str) -> Vec<String> {
        let preps: Vec<&crate::front::cuda::Prepared> = self.preparations().collect();
        let mut classes = vec![class.to_string()];
        let mut fields: Vec<String> = Vec::new();
        let mut k = 0;
        while k < classes.len() && k < MAX_BASE_CLASSES {
            let c = classes[k].clone();
            k += 1;
            for p in &preps {
                for (_, f) in p.class_fields.iter().filter(|(n, _)| *n == c) {
                    for name in f {
                        if !fields.contains(name) {
                            fields.push(name.clone());
                        }
                    }
                }
                for b in p.class_bases.iter().filter(|b| b.class == c) {
                    for base in &b.bases {
                        let tag = base.split('<').next().unwrap_or(base).trim();
                        let tag = tag.rsplit("::").next().unwrap_or(tag).to_string();
                        if !classes.contains(&tag) {
                            classes.push(tag);
                        }
                    }
                }
            }
        }
        fields
    }

    /// `obj.field` (or `obj.inner.field`) of an object banklint built: the field's binding.
    pub(super) fn object_member(&self, m: &MemberExpression) -> Option<Binding> {
        let object = match &m.expression.node {
            Expression::Identifier(id) => self.lookup(&id.node.name)?.clone(),
            Expression::Member(inner) => self.object_member(&inner.node)?,
            _ => return None,
        };
        match object {
            Binding::Object(o) => o.fields.get(&m.identifier.node.name).cloned(),
            _ => None,
        }
    }

    /// The template parameters of the class `class` (by its tag), when it is a class
    /// template: a method's header starts with them.
    pub(super) fn class_parameters(
        &self,
        class: &str,
    ) -> Vec<crate::front::prepared::TemplateParam> {
        let tag = class.rsplit("__").next().unwrap_or(class);
        (self.preparations())
            .flat_map(|p| p.class_templates.iter())
            .find(|(t, _)| t == tag)
            .map(|(_, h)| h.params.clone())
            .unwrap_or_default()
    }

    /// The template arguments written at a method call's name (`al.allocate<T, 2>()`).
    pub(super) fn method_template_arguments(&self, call: &CallExpression) -> &[String] {
        match &call.callee.node {
            Expression::Member(m) => {
                self.template_arguments_at(self.span(m.node.identifier.span).start)
            }
            _ => &[],
        }
    }

    /// `obj.method(args)` on an object banklint built: the method runs on its fields.
    /// `None` when the class has no such lifted method.
    /// `q.put(i, x)` with `q` a `__shared__` object of a class banklint laid out: the method
    /// runs with each field of `q` bound where it lies in shared memory (an array field as a
    /// pointer to its first element, or to its rows; a scalar field as a reference), so what
    /// the method reads and writes through its fields is analyzed. `None` when the class has
    /// no such method or no layout; a field of more than two dimensions is left unbound.
    pub(super) fn method_on_shared(
        &mut self,
        object: &str,
        array: usize,
        method: &str,
        call: &CallExpression,
        args: Vec<Lanes>,
        mask: &[bool],
    ) -> Option<Lanes> {
        let decl = &self.arrays[array].decl;
        let Type::Record(record) = &decl.elem else {
            return None;
        };
        if !decl.dims.is_empty() {
            return None;
        }
        let record = record.clone();
        // A field that is itself an object of a class (`buffer[i]` through its `operator[]`)
        // would be read as a value here: such a method is not run, and said so.
        if let Some(f) = record.fields.iter().find(|f| match &f.ty {
            Type::Record(r) => crate::analysis::types::builtin(&r.name).is_none(),
            Type::Unknown(_) => true,
            _ => false,
        }) {
            self.note_unfollowed(
                call.callee.span,
                format!("`{object}.{method}` runs on `{object}`, an object in shared memory whose field `{}` is an object of a class; banklint does not run methods on it: the accesses it makes are not analyzed", f.name),
            );
            return None;
        }
        let mut fields = HashMap::default();
        for f in &record.fields {
            let at = Lanes::int(f.offset.into());
            let first = SharedPointer {
                array,
                elem: f.ty.clone(),
                place: Place::Bytes(at.clone()),
                anchor: at,
            };
            let binding = match f.dims.as_slice() {
                [] => Binding::Reference(Reference {
                    target: first,
                    written: format!("{object}.{}", f.name),
                    loaded: false,
                }),
                [_] => Binding::Pointer(first),
                [_, n] => match f.ty.size() {
                    Some(size) => Binding::Rows {
                        first,
                        row_bytes: n * size,
                    },
                    None => continue,
                },
                _ => continue,
            };
            fields.insert(f.name.clone(), binding);
        }
        let (class, template_args) = crate::analysis::class_templates::instance_parts(&record.name)
            .unwrap_or_else(|| (record.name.clone(), Vec::new()));
        let obj = Object {
            class: class.rsplit("__").next().unwrap_or(&class).to_string(),
            template_args,
            fields: Rc::new(fields),
        };
        let Some(found) = self.method_found(&obj, method, call, args.len()) else {
            self.note_unfollowed(
                call.callee.span,
                format!("`{object}.{method}` runs on `{object}`, an object in shared memory, but banklint has not read that method of `{}` (it reads the methods of classes that hold or take pointers, and static ones): the accesses it makes through `{object}`'s fields are not analyzed", obj.class),
            );
            return None;
        };
        // The object stays what it is: the method's field bindings are not kept.
        let (v, _) = self.run_method(&obj, &found, call, args, mask);
        Some(v)
    }

    /// The method `method` of `obj`'s class that a call with `arity` arguments runs.
    fn method_found(
        &mut self,
        obj: &Object,
        method: &str,
        call: &CallExpression,
        arity: usize,
    ) -> Option<Found<'a, 'p>> {
        let settled = self.bound_args(&obj.template_args);
        let explicit = self.method_template_arguments(call).to_vec();
        self.method(&obj.class, method, arity, false, &settled, &explicit)
    }

    /// Runs `found` on `obj`: its value, and the object's fields as the method left them.
    fn run_method(
        &mut self,
        obj: &Object,
        found: &Found<'a, 'p>,
        call: &CallExpression,
        args: Vec<Lanes>,
        mask: &[bool],
    ) -> (Lanes, Option<Scope>) {
        self.method_of = Some(Receiver {
            class: obj.class.clone(),
            fields: obj.fields.clone(),
            template_args: obj.template_args.clone(),
            inits: Vec::new(),
            at: 0..0,
        });
        self.specialization_args = found.spec.clone();
        let v = self.inline_found(found, call.callee.span, call, args, mask);
        (v, self.method_done.take())
    }

    pub(super) fn method_call(
        &mut self,
        object: &str,
        obj: Object,
        method: &str,
        call: &CallExpression,
        args: Vec<Lanes>,
        mask: &[bool],
    ) -> Option<Lanes> {
        let Some(found) = self.method_found(&obj, method, call, args.len()) else {
            // A method banklint has no body of, on an object that keeps a pointer into
            // shared memory: what it does through the pointer is not seen.
            if obj
                .fields
                .values()
                .any(|b| matches!(b, Binding::Pointer(_)))
            {
                self.note_unfollowed(
                    call.callee.span,
                    format!("`{object}.{method}` is a method banklint has no definition of (not defined in its class `{}`), and `{object}` keeps a pointer into shared memory: the accesses it makes through it are not analyzed", obj.class),
                );
            } else if call.arguments.iter().any(|a| self.points_to_shared(a)) {
                // Shared memory handed to a method banklint did not read (an operator, one
                // whose definition is outside the class).
                self.note_unfollowed(
                    call.callee.span,
                    format!("`{object}.{method}` is a method banklint has no definition of (not defined in its class `{}`), and it is given a pointer into shared memory: the accesses it makes through it are not analyzed", obj.class),
                );
            }
            return None;
        };
        let (v, fields) = self.run_method(&obj, &found, call, args, mask);
        if let Some(fields) = fields
            && let Some(b) = self.binding_mut(object, |_| true)
        {
            *b = Binding::Object(Object { fields, ..obj });
        }
        Some(v)
    }

    /// Runs a method found in a header as a call of a header's function is run: its
    /// accesses are reported at the call (`at`) in the file checked.
    fn inline_found(
        &mut self,
        found: &Found<'a, 'p>,
        at: Span,
        call: &CallExpression,
        args: Vec<Lanes>,
        mask: &[bool],
    ) -> Lanes {
        let Some(header) = found.header.clone() else {
            return self.inline_call_in(found.unit, found.function, call, args, mask);
        };
        let saved = (self.unit, self.home_call.clone());
        if self.home_call.is_none() {
            self.home_call = Some((self.span(at), header));
        }
        let v = self.inline_call_in(found.unit, found.function, call, args, mask);
        (self.unit, self.home_call) = saved;
        v
    }

    /// `: Base(params, smem)` in a constructor's initializers, `Base` a base class (by its
    /// name, or a member type naming it: `using Base = Reducer<T, 1, W, 1>;`): the base's
    /// constructor runs on the object's fields, which it leaves as the object's. False when
    /// `name` names no class banklint has a constructor of.
    fn construct_base(&mut self, name: &str, args_text: &str, mask: &[bool]) -> bool {
        let written = self
            .type_args
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string());
        let (class, args) = match crate::analysis::class_templates::instance_parts(&written) {
            Some(parts) => parts,
            None => (written.trim().replace("::", "__"), Vec::new()),
        };
        let class = class.rsplit("__").next().unwrap_or(&class).to_string();
        let arity = arity_of(args_text);
        let settled = self.bound_args(&args);
        let Some(found) = self.method(&class, &class, arity, true, &settled, &[]) else {
            return false;
        };
        let Some(Node {
            node: Expression::Call(call),
            ..
        }) = parse_expression_text(self.unit, &format!("_({args_text})"))
        else {
            return false;
        };
        let values: Vec<Lanes> = (call.node.arguments.iter())
            .map(|a| self.eval(a, mask))
            .collect();
        let Some(fields) = self.scopes.first().cloned() else {
            return false;
        };
        self.method_of = Some(Receiver {
            class,
            fields,
            template_args: settled,
            inits: found.method.inits.clone(),
            at: found.method.span.clone(),
        });
        self.specialization_args = found.spec.clone();
        let at = call.span;
        self.inline_found(&found, at, &call.node, values, mask);
        if let Some(fields) = self.method_done.take()
            && let Some(slot) = self.scopes.first_mut()
        {
            *slot = fields;
        }
        true
    }

    /// A constructor's member initializers, `: items(p), n(0)`, run in its scope before its
    /// body, reported at the constructor.
    pub(super) fn run_initializers(&mut self, r: &Receiver, mask: &[bool]) {
        if r.inits.is_empty() {
            return;
        }
        let saved = self.span_override.replace(r.at.clone());
        for (field, text) in &r.inits {
            let is_field = self.scopes.first().is_some_and(|f| f.contains_key(field));
            if !is_field && self.construct_base(field, text, mask) {
                continue;
            }
            if is_field && self.construct_member(&r.class, field, text, mask) {
                continue;
            }
            let Some(value) = parse_expression_text(self.unit, text) else {
                self.note_unread_initializer(field, text);
                continue;
            };
            let target = Node::new(
                Expression::Identifier(Box::new(Node::new(
                    Identifier {
                        name: field.clone(),
                    },
                    value.span,
                ))),
                value.span,
            );
            self.assign(&target, None, &value, mask);
            // Read, but as no pointer although it names one (`as_rows<T>(smem)`, which C reads
            // as comparisons): the field is not followed either.
            if !matches!(
                self.lookup(field),
                Some(Binding::Pointer(_) | Binding::Rows { .. } | Binding::Shared(_))
            ) {
                self.note_unread_initializer(field, text);
            }
        }
        self.span_override = saved;
    }
}

/// How many arguments a constructor's argument list, as written, passes.
fn arity_of(args_text: &str) -> usize {
    if args_text.trim().is_empty() {
        return 0;
    }
    let toks = crate::front::lex::tokenize(args_text);
    crate::front::lex::split_top_level(args_text, &toks).len()
}

/// The name a function is shown by: a constructor's lowered name (blanks lang-c reads as an
/// identifier no type has) is its class's.
pub(super) fn shown_name(unit: &Unit<'_>, f: &Function) -> String {
    if !f.name.is_empty() && f.name.bytes().all(|b| b == b'_') {
        let constructor = (unit.prepared.methods.iter())
            .find(|m| m.constructor && m.span.contains(&f.span.start));
        if let Some(m) = constructor {
            return m.name.clone();
        }
    }
    f.name.clone()
}
