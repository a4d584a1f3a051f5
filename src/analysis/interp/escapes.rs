//! Shared-memory pointers that leave what banklint follows: an object built from one
//! (`allocator al((int *)&smem[0]);`), a function it has no definition of given one
//! (`wmma::load_matrix_sync(a, &tile[0], 16)`, `memset(smem, 0, n)`). Each is noted where it
//! happens, so that the accesses made through them are reported as not analyzed instead of
//! being lost without a word.

use super::*;

/// How a note names the array a pointer leaves from (`a pointer into `smem``): counts of
/// arrays whose pointer left the analysis find their notes by it.
pub fn pointer_into(array: &str) -> String {
    format!("a pointer into `{array}`")
}

impl Analyzer<'_, '_> {
    /// Locals that `name`, called here and not followed, may write: those whose address it
    /// is given (`setup(&n)`), those it takes by reference where its parameters are known
    /// (`int &n`, lowered to a pointer, given a plain `n`), and those an object it is given
    /// was built from (`args a{n}` with a reference member, then `setup(a)`). Each becomes
    /// unknown in every thread rather than keep a value the call may have changed: a
    /// loop's `if (n < 0) break;` after `setup` is not taken for certain.
    pub(super) fn forget_written_by(
        &mut self,
        name: &str,
        call: &CallExpression,
        params: Option<&[crate::analysis::extraction::Param]>,
        mask: &[bool],
    ) {
        let mut written: Vec<String> = Vec::new();
        for (k, a) in call.arguments.iter().enumerate() {
            match &a.node {
                Expression::UnaryOperator(u)
                    if u.node.operator.node == UnaryOperator::Address
                        && let Expression::Identifier(id) = &u.node.operand.node =>
                {
                    written.push(id.node.name.clone());
                }
                Expression::Identifier(id) => {
                    let declared = |p: &crate::front::prepared::Prepared| {
                        let short = name.rsplit("__").next().unwrap_or(name);
                        (p.reference_params.iter()).any(|(f, i)| f == short && *i == k)
                    };
                    let by_reference = match params {
                        Some(p) => (p.iter().find(|p| p.index == k))
                            .is_some_and(|p| matches!(p.ty, Type::Pointer(_))),
                        // No definition: a declaration that says so, here or in a header.
                        None => {
                            declared(self.unit.prepared)
                                || declared(self.home_unit.prepared)
                                || self.headers.iter().any(|(_, u)| declared(u.prepared))
                        }
                    };
                    if by_reference {
                        written.push(id.node.name.clone());
                    }
                    if let Some(sources) = self.object_sources.get(&id.node.name) {
                        written.extend(sources.iter().cloned());
                    }
                }
                _ => {}
            }
        }
        let shown = name.replace("__", "::");
        for w in written {
            // A struct held by value (see `value_objects`): its members are no longer known.
            if let Some(Binding::Object(o)) =
                self.binding_mut(&w, |b| matches!(b, Binding::Object(_)))
                && !o.fields.values().any(|b| !matches!(b, Binding::Value(_)))
            {
                o.fields = Rc::new(HashMap::default());
                continue;
            }
            if !matches!(self.lookup(&w), Some(Binding::Value(_))) {
                continue;
            }
            let why = format!(
                "`{w}` may be written by `{shown}`, which banklint does not follow: it is handed `{w}` by address or reference, or an object that refers to it"
            );
            let v = Lanes::Each(Rc::new(vec![Value::unknown(why); self.n]));
            self.set_var(&w, &v, mask);
        }
    }

    /// Records the locals an object of a class that can hold references (one with a pointer
    /// field, which a reference is lowered to, or one banklint has no layout of) is built
    /// from, for [`Self::forget_written_by`].
    pub(super) fn record_object_sources(
        &mut self,
        name: &str,
        class: &Type,
        initializer: Option<&Node<Expression>>,
        constructor_args: Option<&str>,
    ) {
        let may_refer = match class {
            Type::Record(r) => r.fields.iter().any(|f| matches!(f.ty, Type::Pointer(_))),
            Type::Unknown(_) => true,
            _ => false,
        };
        self.object_sources.remove(name);
        if !may_refer {
            return;
        }
        let mut named: Vec<String> = initializer
            .map(super::loops::identifiers_in)
            .unwrap_or_default();
        if let Some(text) = constructor_args {
            let tokens = crate::front::lex::tokenize(text);
            named.extend(
                (tokens.iter())
                    .filter(|t| t.kind == crate::front::lex::TokenKind::Ident)
                    .map(|t| t.text(text).to_string()),
            );
        }
        named.retain(|n| matches!(self.lookup(n), Some(Binding::Value(_))));
        named.dedup();
        if !named.is_empty() {
            self.object_sources.insert(name.to_string(), named);
        }
    }

    /// The shared array a pointer, reference or array named by `word` reaches, if any.
    fn shared_array_named(&self, word: &str) -> Option<usize> {
        match self.lookup(word) {
            Some(Binding::Shared(a)) => Some(*a),
            Some(Binding::Pointer(p)) => Some(p.array),
            Some(Binding::Reference(r)) => Some(r.target.array),
            Some(_) => None,
            None => {
                let decl = self.unit.file_shared.iter().find(|a| a.name == word)?;
                self.arrays
                    .by_decl
                    .get(&(decl.decl_span.clone(), decl.name.clone()))?
                    .first()
                    .copied()
            }
        }
    }

    /// The first shared array the words of `text` reach, by name. A library object (a
    /// `cuda::barrier`: one object of a type banklint does not know) has no elements to
    /// access and is left out.
    fn shared_array_in_text(&self, text: &str) -> Option<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .filter_map(|w| self.shared_array_named(w))
            .map(|a| &self.arrays[a].decl)
            .find(|d| !(d.dims.is_empty() && matches!(d.elem, Type::Unknown(_))))
            .map(|d| d.name.clone())
    }

    /// `T name(args);` whose arguments reach shared memory: the object keeps a pointer banklint
    /// does not follow through its methods.
    pub(super) fn note_shared_constructor(&mut self, name: &str, declarator: Span) {
        let at = self.span(declarator).start;
        let Some(args) = self
            .unit
            .prepared
            .constructor_args
            .iter()
            .find(|(o, _)| *o == at)
            .map(|(_, a)| a.clone())
        else {
            return;
        };
        if let Some(array) = self.shared_array_in_text(&args) {
            self.note_unfollowed(
                declarator,
                format!(
                    "`{name}` is built from {} (`{args}`); banklint does not follow objects that keep shared-memory pointers, so the accesses made through `{name}` are not analyzed",
                    pointer_into(&array)
                ),
            );
        }
    }

    /// A constructor's member initializer banklint could not read (`rows_(as_rows<T>(smem))`)
    /// whose words reach shared memory: the field it sets, and the accesses made through it,
    /// are not followed. Noted at the constructor (the range in force while it runs).
    pub(super) fn note_unread_initializer(&mut self, field: &str, text: &str) {
        let (Some(array), true) = (
            self.shared_array_in_text(text),
            self.span_override.is_some(),
        ) else {
            return;
        };
        let why = format!(
            "the member initializer `{field}({text})` names {}, and banklint could not read what it gives `{field}`: the accesses made through `{field}` are not analyzed",
            pointer_into(&array)
        );
        // Any span is the range in force.
        self.note_unfollowed_at(Span::none(), why);
    }

    /// A call of `name`, which banklint has no definition of, given a pointer into shared
    /// memory: the accesses the callee makes are not analyzed.
    pub(super) fn note_undefined_callee(
        &mut self,
        name: &str,
        whole: &Node<Expression>,
        call: &CallExpression,
    ) {
        // `make_float2(s[i], s[i + 32])` is given the loaded values.
        if inline_ptx::is_shared_window_call(call)
            || crate::analysis::value_functions::takes_only_values(name)
        {
            return;
        }
        let array = call.arguments.iter().find_map(|a| {
            self.reaches_shared(a)
                .then(|| self.shared_array_in_text(&self.source_text(a.span)))
                .flatten()
        });
        // `uint64_t(p)`: a conversion, not a call (an address as an integer). A type given a
        // whole object (`Sorter(tmp.sort)`) is a constructor: a call.
        let object = || {
            call.arguments.iter().any(|a| {
                self.is_shared_object(a)
                    || (self.member_place_type(a))
                        .is_some_and(|t| matches!(t, Type::Record(_) | Type::Unknown(_)))
            })
        };
        let conversion = || {
            crate::analysis::types::builtin(name).is_some()
                || (self.unit.prepared.typenames.iter().any(|t| t == name) && !object())
        };
        if let Some(array) = array
            && !conversion()
        {
            let shown = written_name(name);
            self.note_unfollowed(
                whole.span,
                format!(
                    "`{shown}` is given {}, and banklint has not read a definition of it (a library function, one in a file it did not read, or one it could not parse): the shared-memory accesses it makes are not analyzed",
                    pointer_into(&array)
                ),
            );
        }
    }
}

impl<'a, 'p> Analyzer<'a, 'p> {
    /// Whether a call's argument hands the callee shared memory: a pointer into it, a whole
    /// `__shared__` struct or element of one, or a reference to one.
    pub(super) fn reaches_shared(&self, a: &Node<Expression>) -> bool {
        self.points_to_shared(a)
            || self.is_shared_object(a)
            // An element or member bound to a reference parameter (`put(s[i])`).
            || self.binds_shared_reference(a)
            // An object that is a member of one in shared memory (`s.tiles[k]`, `p[i].b`).
            || self
                .member_place_type(a)
                .is_some_and(|t| matches!(t, Type::Record(_) | Type::Unknown(_)))
            || matches!(&a.node, Expression::Identifier(id)
                if self.is_shared_record(&id.node.name)
                    || matches!(self.lookup(&id.node.name), Some(Binding::Reference(_))))
    }

    /// An object in shared memory (a struct wider than a load, or a type banklint does not
    /// know behind a pointer): `tiles[i]` through a pointer, `tiles[i][j]` of an array of them
    /// (named directly, or through a pointer to rows), `s.tiles[k]` or `p[i].b` of a member of
    /// class type or of a type banklint cannot size (a library's `TempStorage`: `tmp.sort`).
    /// Handed to a function, it is most likely passed by reference, not loaded.
    pub(super) fn is_shared_object(&self, e: &Node<Expression>) -> bool {
        if self
            .member_place_type(e)
            .is_some_and(|t| is_large_object(&t) || t.size().is_none())
        {
            return true;
        }
        let Some((base, subscripts)) = super::references::peel_subscripts(e) else {
            return false;
        };
        let Expression::Identifier(id) = &base.node else {
            return false;
        };
        if subscripts.is_empty() {
            return false;
        }
        match self.lookup(&id.node.name) {
            Some(Binding::Pointer(p)) => {
                matches!(p.elem, Type::Unknown(_)) || is_large_object(&p.elem)
            }
            Some(Binding::Rows { first, .. }) => is_large_object(&first.elem),
            Some(Binding::Shared(s)) => {
                subscripts.len() == self.arrays[*s].decl.dims.len()
                    && is_large_object(&self.arrays[*s].decl.elem)
            }
            _ => false,
        }
    }
}

/// Whether `t` is an object a function is taken to receive by reference: a struct wider than
/// one load can move (16 bytes), or one whose layout banklint could not settle. A smaller
/// one (`half2`, a pair) is passed by value as C++ code passes it, read at the call.
fn is_large_object(t: &Type) -> bool {
    match t {
        Type::Record(_) => t.size().is_none_or(|s| s > 16),
        Type::Unknown(n) => n.starts_with("`struct ") || n.starts_with("`union "),
        _ => false,
    }
}

/// A qualified name as the user wrote it: the front end joins `cuda::ptx::f` as
/// `cuda__ptx__f`; a name's own leading underscores (`__popc`) stay.
pub(super) fn written_name(name: &str) -> String {
    let rest = name.trim_start_matches('_');
    let lead = &name[..name.len() - rest.len()];
    format!("{lead}{}", rest.replace("__", "::"))
}
