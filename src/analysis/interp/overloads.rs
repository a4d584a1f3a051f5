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

/// See `Analyzer::overload_sets`.
pub(super) type OverloadSets = HashMap<(String, usize, usize), Rc<Vec<(usize, usize)>>>;

/// A local array's element type and extent (`float x[4]`).
#[derive(Clone, Debug)]
pub(super) struct LocalArray {
    pub elem: Type,
    pub extent: Option<i64>,
    /// False for a local object of a class type (`frag<float, 4> r;`).
    pub array: bool,
}

/// How many leading template arguments of a call are its class's, and the values of the
/// chosen specialization's own parameters that stand for them.
pub(super) type SpecializationArgs = (usize, Vec<String>);

impl<'a, 'p> Analyzer<'a, 'p> {
    /// Among the overloads a call may name (this unit's, the home file's and the headers'),
    /// the one the arguments' known types, the explicit template arguments and the class's
    /// arguments select, put in `c`. `Err` with the call's result when none is selected:
    /// none is run then, as running the first written would guess.
    pub(super) fn choose_overload(
        &mut self,
        c: &mut Callee<'a, 'p>,
        whole: &Node<Expression>,
        call: &CallExpression,
        name: &str,
        arity: usize,
    ) -> Result<(), Lanes> {
        // A named lambda is the one in scope, not an overload.
        if is_lambda(c.unit, c.function) {
            return Ok(());
        }
        let mut all = self.overload_set(&c.lookup, arity);
        // A static method is in scope only inside its class, or through a qualifier
        // that names the class: of `kittens::tma::f` and `kittens::group::tma::f`, a
        // call of `tma::f` from outside `group` means the first.
        let qualifier = crate::front::names::split_qualified(&c.lookup).map_or("", |(_, q)| q);
        let caller = self.caller_namespace();
        all.retain(|o| {
            let ns = o.function.namespace.as_str();
            let outer = ns
                .strip_suffix(qualifier)
                .unwrap_or(ns)
                .trim_end_matches('_');
            encloses(outer, &caller) || !outer.split("__").any(|s| self.is_class_name(s))
        });
        // A bare name is looked up from the caller's namespace outwards: `f` in `wt` and
        // in `db` are not candidates for a call outside both (unless a `using namespace`
        // brought them in, which banklint does not track: then all stay).
        // The innermost scope that declares the name hides the outer ones (`laneid()` in a
        // method of `group` is `group::laneid`, not `kittens::laneid`).
        let visible = |o: &Callee<'_, '_>| encloses(&o.function.namespace, &caller);
        if qualifier.is_empty()
            && let Some(inner) = (all.iter().filter(|o| visible(o)))
                .map(|o| o.function.namespace.len())
                .max()
        {
            all.retain(|o| visible(o) && o.function.namespace.len() == inner);
        }
        if let [one] = all.as_slice() {
            // The one in scope, which need not be the first of its name found.
            c.unit = one.unit;
            c.function = one.function;
            c.header.clone_from(&one.header);
            return Ok(());
        }
        if all.len() > 1 {
            // Through a class (`group<4>::f`, an alias of one), the recorded template
            // arguments start with the class's.
            let at = self.span(call.callee.span).start;
            let scoped = !c.scope_args.is_empty()
                || (self.unit.prepared.class_scoped_calls.iter()).any(|(o, _)| *o == at);
            // Template parameters bound at the call: the class's (through `warp::f`, an alias
            // of `group<1>`, they are not written there) and those written after the name.
            let written = self.template_arguments_at(at).len();
            let bound = if c.scope_args.is_empty() {
                written
            } else {
                c.scope_args.len() + written
            };
            let fits: Vec<&Callee<'a, 'p>> = (all.iter())
                .filter(|o| self.could_take(o.unit, o.function, call, scoped.then_some(bound)))
                .collect();
            // A function that is not a template is preferred to templates that take the
            // arguments as well, as C++ prefers it.
            let plain: Vec<&Callee<'a, 'p>> = (fits.iter().copied())
                .filter(|o| {
                    o.function.template.is_none()
                        && !(o.unit.prepared.specialized_methods.iter())
                            .any(|(r, _, _)| r.contains(&o.function.span.start))
                })
                .collect();
            let chosen = match (fits.as_slice(), plain.as_slice()) {
                ([one], _) | (_, [one]) => Some((*one, None)),
                _ => self.by_specialization(&fits, &c.scope_args, call),
            };
            // Not decided: none is run, as running the first written would guess. Said
            // where the call hands over shared memory; a value it returns is unknown.
            let Some((one, rewrite)) = chosen else {
                let shown = name.replace("__", "::");
                if call.arguments.iter().any(|a| self.reaches_shared(a)) {
                    self.note_unfollowed(
                        whole.span,
                        format!(
                            "`{shown}` is overloaded ({} definitions take {arity} arguments) and the arguments' types banklint knows do not choose one: the shared-memory accesses it makes are not analyzed",
                            all.len()
                        ),
                    );
                }
                return Err(Lanes::unknown(format!(
                    "the result of `{shown}`, overloaded ({} definitions take {arity} arguments) with argument types banklint does not know",
                    all.len()
                )));
            };
            c.unit = one.unit;
            c.function = one.function;
            c.header.clone_from(&one.header);
            self.specialization_args = rewrite;
        }
        Ok(())
    }

    /// The function being run: the innermost inlined call's, or the kernel.
    pub(super) fn running_function(&self) -> Option<&'a Function> {
        let unit = self.unit;
        match self.call_stack.last() {
            // Keys end with the definition's start (`f/2@1234`): compared first, so the
            // overload choice does not format a key per function of a library.
            Some(k) => {
                let start = k
                    .rsplit_once('@')
                    .and_then(|(_, at)| at.parse::<usize>().ok());
                (unit.functions.iter())
                    .filter(|f| Some(f.span.start) == start)
                    .find(|f| f.definition_key() == *k)
            }
            None => unit.functions.iter().find(|f| f.item == self.item),
        }
    }

    /// The parameter `name` of the function being run, as declared.
    fn running_parameter(&self, name: &str) -> Option<&'a crate::analysis::extraction::Param> {
        (self.running_function()?.params.iter()).find(|p| p.name == name)
    }

    /// The namespace of the function being run (`a__b`, with its class for a method).
    fn caller_namespace(&self) -> String {
        match self.call_stack.last() {
            Some(k) => k.rsplit_once("::").map(|(ns, _)| ns.to_string()),
            // The kernel itself.
            None => (self.unit.functions.iter())
                .find(|f| f.item == self.item)
                .map(|f| f.namespace.clone()),
        }
        .unwrap_or_default()
    }

    /// Whether a scope's name is a class's (the scope of a static method), as this file and
    /// its headers name their classes.
    fn is_class_name(&self, last: &str) -> bool {
        if last.is_empty() {
            return false;
        }
        if let Some(&known) = self.class_scopes.borrow().get(last) {
            return known;
        }
        let known = self
            .preparations()
            .any(|p| p.typenames.iter().any(|t| t == last));
        self.class_scopes
            .borrow_mut()
            .insert(last.to_string(), known);
        known
    }

    /// The key of a name's lookups cached per calling unit: what a call of `name` with
    /// `arity` arguments finds depends on which unit is current (each skips itself).
    pub(super) fn call_key(&self, name: &str, arity: usize) -> (String, usize, usize) {
        (
            name.to_string(),
            arity,
            std::ptr::from_ref(self.unit) as usize,
        )
    }

    /// Every function of this unit, the home file and the headers a call of `name` with
    /// `arity` arguments may name with exactly that many parameters: overloads, which may be
    /// declared in different headers. Looked up once per name, arity and calling unit.
    pub(super) fn overload_set(&self, name: &str, arity: usize) -> Vec<Callee<'a, 'p>> {
        let key = self.call_key(name, arity);
        let known = self.overload_sets.borrow().get(&key).cloned();
        let found = match known {
            Some(found) => found,
            None => {
                let mut found = Vec::new();
                // A header read twice (included from two places, or under two sets of
                // macros) defines its functions once.
                let mut seen: Vec<(String, Range<usize>, usize)> = Vec::new();
                let units = std::iter::once(self.unit)
                    .chain(std::iter::once(self.home_unit))
                    .chain(self.headers.iter().map(|(_, u)| u));
                for (slot, unit) in units.enumerate() {
                    if slot > 0 && std::ptr::eq(unit, self.unit) {
                        continue;
                    }
                    for f in unit.overloads(name, arity) {
                        let own_shared = slot > 0 && own_shared_settled_alone(unit, f);
                        let header = match slot {
                            0 | 1 => String::new(),
                            i => self.headers[i - 2].0.clone(),
                        };
                        let at = (header, f.span.clone(), unit.prepared.text.len());
                        if f.kernel || own_shared || is_lambda(unit, f) || seen.contains(&at) {
                            continue;
                        }
                        seen.push(at);
                        if let Some(index) = unit.functions.iter().position(|g| std::ptr::eq(g, f))
                        {
                            found.push((slot, index));
                        }
                    }
                }
                let found = Rc::new(found);
                self.overload_sets.borrow_mut().insert(key, found.clone());
                found
            }
        };
        found
            .iter()
            .map(|&(slot, index)| {
                let (unit, header) = match slot {
                    0 => (self.unit, None),
                    1 => (self.home_unit, Some(String::new())),
                    i => (&self.headers[i - 2].1, Some(self.headers[i - 2].0.clone())),
                };
                Callee {
                    unit,
                    function: &unit.functions[index],
                    header,
                    scope_args: Vec::new(),
                    lookup: name.to_string(),
                }
            })
            .collect()
    }

    /// Whether `f` can take the call's arguments, as far as their known types say, and its
    /// explicit template arguments (`reduce<float, Sum, false>`: a type cannot stand for an
    /// `int Num`, nor can more arguments be given than `f` has parameters).
    /// `scoped`: the call names `f` through its class, whose arguments with those written at
    /// the call bind that many of `f`'s template parameters.
    pub(super) fn could_take(
        &self,
        unit: &Unit<'_>,
        f: &Function,
        call: &CallExpression,
        scoped: Option<usize>,
    ) -> bool {
        let args = &call.arguments;
        let values_fit = f
            .params
            .iter()
            .all(|p| args.get(p.index).is_none_or(|a| self.param_takes(f, p, a)));
        let explicit_fit = match scoped {
            Some(bound) => every_parameter_bound(unit, f, bound),
            // An explicit specialization (`template <> void f<16>(...)`) takes the arguments
            // of its primary template, as many as it writes; which it is, is chosen by them
            // (`by_specialization`).
            None if explicit_specialization(unit, f).is_some() => {
                let at = self.span(call.callee.span).start;
                explicit_specialization(unit, f)
                    .is_some_and(|w| w.len() == self.template_arguments_at(at).len())
            }
            None => self.explicit_arguments_fit(unit, f, call),
        };
        values_fit
            && explicit_fit
            && self.constraints_fit(f, call)
            && self.dependent_types_fit(f, call)
    }

    /// Whether each parameter written with a member type of a type parameter (`const
    /// typename T::dtype &v`, `T__dtype` once lowered) can take its argument, `T` deduced from
    /// a parameter written `T &`: a member type that is a scalar takes no object of class type
    /// (`bin_op(dst, src, x_s[i])` with `x_s[i]` a vector is the overload taking `const T &`).
    /// True wherever something is not known.
    fn dependent_types_fit(&self, f: &Function, call: &CallExpression) -> bool {
        let Some(header) = &f.template else {
            return true;
        };
        let pointee = |t: &Type| match t {
            Type::Pointer(inner) => (**inner).clone(),
            t => t.clone(),
        };
        f.params.iter().all(|p| {
            let Type::Unknown(n) = pointee(&p.ty) else {
                return true;
            };
            let Some((param, member)) = n.split_once("__") else {
                return true;
            };
            if !header.params.iter().any(|h| h.is_type && h.name == param) {
                return true;
            }
            let deduced = f.params.iter().find_map(|q| {
                let by_address = matches!(q.ty, Type::Pointer(_));
                (matches!(pointee(&q.ty), Type::Unknown(m) if m == param))
                    .then(|| self.argument_type_text(call.arguments.get(q.index)?, by_address))?
            });
            let Some(class) = deduced else {
                return true;
            };
            let Some(crate::front::class_members::Member::Type(t)) =
                self.classes().member(&class, member)
            else {
                return true;
            };
            let t = t.trim();
            let named = self.alias_target(t).unwrap_or_else(|| t.to_string());
            let scalar = crate::front::names::is_type_keyword(&named)
                || crate::analysis::types::builtin(&named).is_some();
            let by_address = matches!(p.ty, Type::Pointer(_));
            let given =
                (call.arguments.get(p.index)).and_then(|a| self.argument_type_text(a, by_address));
            !(scalar && given.is_some())
        })
    }

    /// Whether the arguments given to `f`'s constrained type parameters satisfy their
    /// concepts (`ducks::rt::all RT` given a `tile<float, 32, 32>`): false only when one is
    /// known not to (see `front::concepts`).
    fn constraints_fit(&self, f: &Function, call: &CallExpression) -> bool {
        let Some(header) = &f.template else {
            return true;
        };
        let constrained: Vec<(&str, &str)> = (header.params.iter())
            .filter_map(|p| Some((p.name.as_str(), p.constraint.as_deref()?)))
            .collect();
        if constrained.is_empty() {
            return true;
        }
        let classes = self.classes();
        let concepts = crate::front::concepts::Concepts {
            classes: &classes,
            defs: self
                .preparations()
                .flat_map(|p| p.concepts.iter())
                .collect(),
        };
        f.params.iter().all(|p| {
            let (named, by_address) = match &p.ty {
                Type::Unknown(n) => (n, false),
                Type::Pointer(inner) => match &**inner {
                    Type::Unknown(n) => (n, true),
                    _ => return true,
                },
                _ => return true,
            };
            let Some((_, concept)) = constrained.iter().find(|(n, _)| n == named) else {
                return true;
            };
            let Some(ty) =
                (call.arguments.get(p.index)).and_then(|a| self.argument_type_text(a, by_address))
            else {
                return true;
            };
            // Libraries ask the same question at every call: answered once per unit.
            let key = (
                std::ptr::from_ref(self.unit) as usize,
                format!("{concept} {} {ty}", f.namespace),
            );
            let known = self.concepts_seen.borrow().get(&key).copied();
            let v = known.unwrap_or_else(|| {
                let v = concepts.satisfied(concept, &f.namespace, &ty);
                self.concepts_seen.borrow_mut().insert(key, v);
                v
            });
            v != Some(false)
        })
    }

    /// The class type of an argument as text (`tile<float, 32, 32>`): an object, a local of
    /// a class type, or (given to a reference or pointer parameter, `by_address`) what a
    /// pointer or reference names.
    pub(super) fn argument_type_text(
        &self,
        a: &Node<Expression>,
        by_address: bool,
    ) -> Option<String> {
        // `tiles[k]` of an array of tiles (shared, or named through a reference): the element.
        if let Some(elem) = self.indexed_element(a) {
            return self.type_name_text(&elem);
        }
        // `s.tiles[k]`, `p[i].b`: a member of an object in shared memory.
        if let Some(ty) = self.member_place_type(a) {
            return self.type_name_text(&ty);
        }
        // `g.C` of a parameter `const globals &g`: the member's declared type.
        if let Expression::Member(m) = &a.node
            && let Expression::Identifier(base) = &m.node.expression.node
            && !matches!(
                self.lookup(&base.node.name),
                Some(Binding::Shared(_) | Binding::Reference(_) | Binding::Pointer(_))
            )
            && let Some(p) = self.running_parameter(&base.node.name)
        {
            let ty = match &p.ty {
                Type::Pointer(t) => (**t).clone(),
                t => t.clone(),
            };
            let field = &m.node.identifier.node.name;
            let member = ty.field_path(std::slice::from_ref(field));
            if member.problem.is_none() {
                return self.type_name_text(&member.ty);
            }
            return self.member_object_type(&self.type_name_text(&ty)?, field);
        }
        let Expression::Identifier(id) = &a.node else {
            return None;
        };
        let ty = match self.lookup(&id.node.name)? {
            Binding::Object(o) if o.template_args.is_empty() => return Some(o.class.clone()),
            Binding::Object(o) => {
                return Some(format!("{}<{}>", o.class, o.template_args.join(", ")));
            }
            Binding::Opaque(Some(local)) if !local.array => local.elem.clone(),
            Binding::Pointer(q) if by_address => q.elem.clone(),
            Binding::Reference(r) => r.target.elem.clone(),
            // A whole `__shared__` object (`__shared__ vec a;`).
            Binding::Shared(s) if self.arrays[*s].decl.dims.is_empty() => {
                self.arrays[*s].decl.elem.clone()
            }
            // A parameter holding no place in shared memory (`const GL &dst` given `g.c`):
            // its declared type, as this run binds its template parameters.
            Binding::Value(_) => match &self.running_parameter(&id.node.name)?.ty {
                Type::Pointer(t) if by_address => (**t).clone(),
                t => t.clone(),
            },
            _ => return None,
        };
        // A template parameter this run has not bound says nothing.
        let unbound = |n: &str| {
            !self.type_args.contains_key(n)
                && (self.running_function().and_then(|f| f.template.as_ref()))
                    .is_some_and(|h| h.params.iter().any(|p| p.name == n))
        };
        if ty.unknown_class().is_some_and(unbound) {
            return None;
        }
        self.type_name_text(&ty)
    }

    /// A class type's name as text: a record's, or the class a name banklint has not laid
    /// out stands for (a local alias `using q_tile = st_bf<64, 64>;` as this run binds it).
    fn type_name_text(&self, ty: &Type) -> Option<String> {
        match ty {
            Type::Record(r) => Some(r.name.clone()),
            Type::Unknown(_) => {
                let n = ty.unknown_class()?;
                let named = (self.type_args.get(n).cloned())
                    .or_else(|| self.local_alias(n))
                    .or_else(|| self.alias_target(n))
                    .or_else(|| self.member_type_text(n))
                    .unwrap_or_else(|| n.to_string());
                // `st_bf<64, 64>` of an alias template: the class it names.
                Some(self.without_alias_templates(&named))
            }
            _ => None,
        }
    }

    /// The class type of the data member `field` of `class` (`C_gl c;` in `globals`, with
    /// `using C_gl = gl<T, C_tile>;`), as text, its member types and aliases resolved.
    fn member_object_type(&self, class: &str, field: &str) -> Option<String> {
        let class = ["struct ", "union ", "class "]
            .iter()
            .find_map(|k| class.strip_prefix(k))
            .unwrap_or(class);
        let written = (self.preparations().flat_map(|p| p.object_fields.iter()))
            .filter(|(c, _)| c == class)
            .find_map(|(_, fs)| fs.iter().find(|(f, _)| f == field).map(|(_, t)| t.clone()))?;
        let named = match self.classes().member(class, &written) {
            Some(crate::front::class_members::Member::Type(t)) => t,
            _ => (self.alias_target(&written)).unwrap_or(written),
        };
        Some(self.without_alias_templates(&named))
    }

    /// What `typename globals::K_tile` (`globals__K_tile` for lang-c) names: the class's
    /// member type, as text.
    fn member_type_text(&self, name: &str) -> Option<String> {
        let (class, member) = name.rsplit_once("__")?;
        match self.classes().member(class, member)? {
            crate::front::class_members::Member::Type(t) => Some(t),
            crate::front::class_members::Member::Value(_) => None,
        }
    }

    /// What a local alias of the function being run names (`using q_tile = st_bf<64, 64>;`).
    fn local_alias(&self, name: &str) -> Option<String> {
        let body = &self.unit.items.get(self.item)?.chunk.span;
        (self.unit.prepared.local_aliases_in(body).iter())
            .find(|(_, n, _)| n == name)
            .map(|(_, _, text)| text.clone())
    }

    fn explicit_arguments_fit(&self, unit: &Unit<'_>, f: &Function, call: &CallExpression) -> bool {
        let at = self.span(call.callee.span).start;
        let given = self.template_arguments_at(at);
        let skip = self.enclosing_class_parameters(f);
        self.given_arguments_fit(f, given, skip)
            && every_parameter_bound(unit, f, skip + given.len())
    }

    /// How many of `f`'s template parameters are its class's, bound by the method that calls
    /// it from inside the class (`load<2, false, ST>(...)` in another method of
    /// `group<W>`): the class template's parameters, when they lead `f`'s header and this run
    /// binds each. None for a function outside a class, or of another class than the caller's.
    pub(super) fn enclosing_class_parameters(&self, f: &Function) -> usize {
        let Some(header) = &f.template else {
            return 0;
        };
        let class = f.namespace.rsplit("__").next().unwrap_or("");
        if f.namespace != self.caller_namespace() || !self.is_class_name(class) {
            return 0;
        }
        let own = self.class_parameters(class);
        let bound = |p: &crate::front::prepared::TemplateParam| {
            self.template_values.contains_key(&p.name) || self.type_args.contains_key(&p.name)
        };
        let leads = own.len() <= header.params.len()
            && own
                .iter()
                .zip(&header.params)
                .all(|(c, p)| c.name == p.name && bound(p));
        if leads { own.len() } else { 0 }
    }

    /// Whether explicit template arguments `given` can stand for `f`'s template parameters
    /// after the first `skip` (a method's class's): a type for a type parameter, a value for
    /// a value parameter, no more than there are parameters (a pack takes any number).
    pub(super) fn given_arguments_fit(&self, f: &Function, given: &[String], skip: usize) -> bool {
        if given.is_empty() {
            return true;
        }
        let Some(header) = &f.template else {
            return false;
        };
        let params = header.params.get(skip..).unwrap_or_default();
        let pack = params.last().is_some_and(|p| p.pack);
        (given.len() <= params.len() || pack)
            && given.iter().zip(params).all(|(a, p)| {
                let a = a.trim();
                if p.is_type {
                    !(a.starts_with(|c: char| c.is_ascii_digit())
                        || matches!(a, "true" | "false")
                        || self.template_values.contains_key(a)
                        || self.is_constant(a))
                } else {
                    !self.is_type_text(a)
                }
            })
    }

    /// Whether template argument text names a type: a built-in one, one the file declares,
    /// or a class template's instance.
    fn is_type_text(&self, a: &str) -> bool {
        let head = a.split('<').next().unwrap_or(a).trim();
        let head = head.rsplit("::").next().unwrap_or(head);
        if self.template_values.contains_key(head) {
            // The caller's own value parameter (`BroadcastAll`).
            return false;
        }
        let keyword =
            crate::front::names::is_type_keyword(a.split_whitespace().next().unwrap_or(""));
        if keyword
            || crate::analysis::types::builtin(head).is_some()
            || self.type_args.contains_key(head)
        {
            return true;
        }
        // A constant (`constexpr int WARPS = 3;`) is a value, though tree-sitter reads it as a
        // type in `allocate<tile, WARPS>()`, as it cannot tell.
        if self.is_constant(head) {
            return false;
        }
        // A qualified name's last part is a type only where one is declared: tree-sitter
        // reads `dim::ROW` in `f<dim::ROW, T>` as a type, as it cannot tell.
        if a.split('<').next().unwrap_or(a).contains("::") {
            return self.declares_type(head);
        }
        std::iter::once(self.unit.prepared)
            .chain(std::iter::once(self.home_unit.prepared))
            .any(|p| p.typenames.iter().any(|t| t == head))
    }

    /// Whether `name` is a constant of this file or the home file (`constexpr int N = 2;`), or
    /// a value in scope (a local `constexpr int STAGES = 4;`).
    fn is_constant(&self, name: &str) -> bool {
        self.unit.constants.contains_key(name)
            || self.home_unit.constants.contains_key(name)
            || matches!(self.lookup(name), Some(Binding::Value(_)))
    }

    /// Whether this file or a header it reads declares `name` as a type (a class, an enum, an
    /// alias, a typedef).
    fn declares_type(&self, name: &str) -> bool {
        if let Some(&known) = self.declared_types.borrow().get(name) {
            return known;
        }
        let known = self
            .preparations()
            .any(|p| p.declared_types.iter().any(|t| t == name));
        self.declared_types
            .borrow_mut()
            .insert(name.to_string(), known);
        known
    }

    fn param_takes(&self, f: &Function, p: &Param, a: &Node<Expression>) -> bool {
        // `{0, 0, row, col}` initializes an aggregate, never a scalar or a pointer (nor a
        // reference to one): `f(void *, uint32_t)` cannot take it where `f(T &, const
        // coord &)` can.
        if matches!(&a.node, Expression::Comma(_)) && self.is_braced_list(a) {
            return !scalar_or_pointer(&p.ty);
        }
        // A parameter of a class type (`tile &t`, `const desc &d`) takes an object of that
        // class or of one derived from it: where the argument's class is known, it decides.
        let own_parameter = |c: &str| {
            (f.template.as_ref()).is_some_and(|h| h.params.iter().any(|t| t.name == class_tag(c)))
        };
        if let Some(want) =
            class_parameter(&p.ty).filter(|c| !own_parameter(c) && self.is_class_name(class_tag(c)))
            && let Some(given) = self.argument_type_text(a, matches!(p.ty, Type::Pointer(_)))
            && !self.is_or_derives(&given, want, 0)
        {
            return false;
        }
        // `put(s[i])`: a reference to a scalar takes no struct, nor a reference to a
        // struct a scalar.
        if let Some(elem) = self.indexed_element(a)
            && let Type::Pointer(inner) = &p.ty
            && matches!(
                (&**inner, &elem),
                (Type::Record(_), Type::Scalar { .. }) | (Type::Scalar { .. }, Type::Record(_))
            )
        {
            return false;
        }
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
    pub(super) fn by_specialization<'c>(
        &mut self,
        candidates: &[&'c Callee<'a, 'p>],
        scope_args: &[String],
        call: &CallExpression,
    ) -> Option<(&'c Callee<'a, 'p>, Option<SpecializationArgs>)> {
        let at = self.span(call.callee.span).start;
        let recorded = self.template_arguments_at(at).to_vec();
        // The arguments a specialization is chosen by: the class's, through a class, else
        // those written at the call (`store<16>(...)`, an explicit specialization's).
        let n = if scope_args.is_empty() {
            (self.unit.prepared.class_scoped_calls.iter())
                .find(|(o, _)| *o == at)
                .map_or(recorded.len(), |(_, n)| *n)
        } else {
            scope_args.len()
        };
        if n == 0 {
            return None;
        }
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
        for c in candidates {
            let f = c.function;
            let spec = (c.unit.prepared.specialized_methods.iter())
                .find(|(r, _, _)| r.contains(&f.span.start))
                .map(|(_, written, params)| (written.as_slice(), params.as_slice()))
                .or_else(|| explicit_specialization(c.unit, f).map(|w| (w, &[][..])));
            let Some((written, params)) = spec else {
                primary.push(*c);
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
                    return Some((*c, Some((n, own))));
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

    /// The element type of the shared memory an argument points to: `s`, `p`, `&s[i]`,
    /// `s + k` (a cast says its own type, which is not read here).
    /// Whether the class `given` names (`tile<float, 32>`) is the class `want` or derives
    /// from it, as far as this file and its headers say. A base banklint does not know as a
    /// class (a template parameter, a library's), or a name that is an alias, may be
    /// anything: true.
    fn is_or_derives(&self, given: &str, want: &str, depth: usize) -> bool {
        // Through aliases first (`sv_bf<64>` is `sv<bf16, 64>`, `using bf16 =
        // __nv_bfloat16;`); one that still names an alias is not told apart here.
        let resolved = |t: &str| {
            let plain = self
                .alias_target(class_tag(t))
                .unwrap_or_else(|| t.to_string());
            self.without_alias_templates(&plain)
        };
        let (given_text, want_text) = (resolved(given), resolved(want));
        let (given, want) = (class_tag(&given_text), class_tag(&want_text));
        let aliased = |t: &str| self.classes().is_alias(t);
        if given == want
            || aliased(given)
            || aliased(want)
            || depth >= crate::limits::MAX_STATIC_MEMBER_NESTING
        {
            return true;
        }
        (self.preparations().flat_map(|p| p.class_bases.iter()))
            .filter(|b| class_tag(&b.class) == given)
            .flat_map(|b| b.bases.iter())
            .any(|base| {
                !self.is_class_name(class_tag(base)) || self.is_or_derives(base, want, depth + 1)
            })
    }

    fn shared_elem_of(&self, a: &Node<Expression>) -> Option<Type> {
        match &a.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Pointer(p)) => Some(p.elem.clone()),
                Some(Binding::Shared(s)) if !self.arrays[*s].decl.dims.is_empty() => {
                    Some(self.arrays[*s].decl.elem.clone())
                }
                _ => None,
            },
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                let mut cur = &u.node.operand;
                while let Expression::BinaryOperator(b) = &cur.node
                    && b.node.operator.node == BinaryOperator::Index
                {
                    cur = &b.node.lhs;
                }
                self.shared_elem_of(cur)
            }
            Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::Plus | BinaryOperator::Minus
                ) =>
            {
                self.shared_elem_of(&b.node.lhs)
                    .or_else(|| self.shared_elem_of(&b.node.rhs))
            }
            _ => None,
        }
    }
}

/// Whether a parameter of type `param` can take a pointer to (or an array of) `elem`: not a
/// scalar parameter, and not a pointer to a scalar of another kind or size.
/// The class a parameter is declared with (`tile &t` and `tile t`: `tile`), if one.
/// A class template's instance banklint has not laid out counts (`const map<T, N> &m`);
/// a bare template parameter (`T &t`) is not a class's name, so it does not.
fn class_parameter(ty: &Type) -> Option<&str> {
    let ty = match ty {
        Type::Pointer(inner) => &**inner,
        t => t,
    };
    match ty {
        Type::Record(r) => Some(&r.name),
        Type::Unknown(_) => ty.unknown_class(),
        _ => None,
    }
}

/// A class's own name, without a tag keyword, scope or template arguments
/// (`struct ns::tile<float, 4>` and `ns__tile`: `tile`).
fn class_tag(text: &str) -> &str {
    let text = text.trim();
    let text = ["struct ", "union ", "class "]
        .iter()
        .find_map(|k| text.strip_prefix(k))
        .unwrap_or(text);
    let text = text.split('<').next().unwrap_or(text).trim();
    let text = text.rsplit("::").next().unwrap_or(text);
    text.rsplit("__").next().unwrap_or(text)
}

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

/// Whether a call giving `given` explicit template arguments binds each of `f`'s template
/// parameters: those after them need a default, a pack, or a mention in a parameter's type to
/// be deduced from (`template <int axis, typename ST> f(ST &)` called as `f(t)` is not
/// viable: `axis` is never bound).
fn every_parameter_bound(unit: &Unit<'_>, f: &Function, given: usize) -> bool {
    let Some(header) = &f.template else {
        return true;
    };
    let unbound: Vec<&str> = (header.params.iter().skip(given))
        .filter(|p| p.default.is_none() && !p.pack)
        .map(|p| p.name.as_str())
        .collect();
    if unbound.is_empty() {
        return true;
    }
    let (Some(def), Some(item)) = (unit.definition(f), unit.items.get(f.item)) else {
        return true;
    };
    // As written: the lowering spells `const map<T, N> &m` without its arguments.
    let p = unit.prepared;
    let Some(signature) = p.source.get(p.map.span(item.span(def.declarator.span))) else {
        return true;
    };
    unbound
        .iter()
        .all(|name| crate::front::names::mentions_word(signature, name))
}

/// A scalar, or a pointer (or reference, typed as one) to a scalar or to `void`.
fn scalar_or_pointer(ty: &Type) -> bool {
    match ty {
        Type::Scalar { .. } => true,
        Type::Pointer(inner) => match &**inner {
            Type::Scalar { .. } => true,
            Type::Unknown(n) => n == "void",
            _ => false,
        },
        _ => false,
    }
}

/// Whether the scope `outer` (`a__b`, empty for the global one) is `inner` or encloses it.
fn encloses(outer: &str, inner: &str) -> bool {
    outer.is_empty()
        || inner == outer
        || inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with("__"))
}

/// Whether `f`, a function of another file than the caller's, declares `__shared__` arrays of
/// its own that its file's run analyzes fully by itself: a function that is neither a
/// template nor given parameters. A template's arrays take their sizes and types from the
/// arguments of each call, and a parameter (`put(int i)` storing at `s[i]`) is known only at
/// a call, so such a function is run at the calls, with the caller's arguments and block.
pub(super) fn own_shared_settled_alone(unit: &Unit<'_>, f: &Function) -> bool {
    f.template.is_none()
        && f.params.is_empty()
        && (unit.prepared.keywords_in(f.span.clone()))
            .any(|(k, _)| *k == crate::front::cuda::Keyword::Shared)
}

/// Whether `f` is a named lambda lifted as a function (see `front::lambdas`).
pub(super) fn is_lambda(unit: &Unit<'_>, f: &Function) -> bool {
    unit.prepared
        .lambdas
        .iter()
        .any(|l| l.span.contains(&f.span.start))
}

/// The arguments an explicit specialization of a function template writes (`<16>` of
/// `template <> void store<16>(...)`), when `f` is one.
fn explicit_specialization<'u>(unit: &'u Unit<'_>, f: &Function) -> Option<&'u [String]> {
    (unit.prepared.explicit_specializations.iter())
        .find(|(r, _)| r.contains(&f.span.start))
        .map(|(_, written)| written.as_slice())
}
