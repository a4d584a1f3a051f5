//! Structs held by value in registers: a local declared without a constructor banklint runs
//! (`Pos p;`, `Pos q = {r, c};`) is an object whose members are set one by one (`p.row = t`,
//! each lane under its branch's mask), copied (`q = p`), handed to a by-value parameter, and
//! returned (`return p;`, `return {r, c};`, CUDA's `make_int2(a, b)`): the caller's `Pos q =
//! f(t);` binds what was returned, so `q.row` is a value per lane. Several `return`s join
//! member by member, each lane keeping what its own `return` gave; a member set on one side
//! of a branch a lane may take either way is known only where both sides agree.

use super::objects::Object;
use super::*;

impl Analyzer<'_, '_> {
    /// The object `e`, returned by the function being inlined, is: an object banklint
    /// builds or a braced list of the function's return type (a call is
    /// [`Self::call_and_object`]'s). `None` for anything else, before anything is evaluated.
    pub(super) fn object_of_return(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
    ) -> Option<Object> {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Object(o)) => Some(o.clone()),
                _ => None,
            },
            _ if self.is_braced_list(e) => self.braced_return(e, mask),
            _ => None,
        }
    }

    /// Evaluates the call `e`: its value, and the object it returns if it returns one.
    pub(super) fn call_and_object(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
    ) -> (Lanes, Option<Object>) {
        // Calls are numbered as they start: `e` is the next one, its arguments' after it.
        let serial = self.calls_started + 1;
        let v = self.eval(e, mask);
        let object = match self.last_returned_object.take() {
            Some((s, o)) if s == serial => Some(o),
            _ => None,
        };
        (v, object)
    }

    /// `return {r, c};` in a function returning a struct banklint lays out: the struct's
    /// fields in order, given the elements.
    fn braced_return(&mut self, e: &Node<Expression>, mask: &[bool]) -> Option<Object> {
        let f = self.running_function()?;
        let def = self.unit.definition(f)?;
        let Type::Record(record) = self.declared_type(&def.specifiers) else {
            return None;
        };
        let elements: Vec<&Node<Expression>> = match &e.node {
            Expression::Comma(list) => list.iter().collect(),
            _ => vec![e],
        };
        if elements.len() > record.fields.len() {
            return None;
        }
        Some(self.object_of_elements(&record, &elements, mask))
    }

    /// An object of `record` whose members, in the order it declares them, are the
    /// elements' values.
    fn object_of_elements(
        &mut self,
        record: &crate::analysis::types::Record,
        elements: &[&Node<Expression>],
        mask: &[bool],
    ) -> Object {
        let mut fields: HashMap<String, Binding, rustc_hash::FxBuildHasher> = HashMap::default();
        for (field, x) in record.fields.iter().zip(elements) {
            let v = self.eval(x, mask);
            fields.insert(field.name.clone(), Binding::Value(v));
        }
        Object {
            class: record.name.clone(),
            template_args: Vec::new(),
            fields: Rc::new(fields),
        }
    }

    /// `make_int2(a, b)`, `make_float4(x, y, z, w)`: CUDA's vector constructors, an object
    /// whose members `x`, `y`, `z`, `w` are the arguments; recorded as what call `serial`
    /// returned.
    pub(super) fn vector_constructor(&mut self, name: &str, args: &[Lanes], serial: usize) {
        let Some(vector) = name.strip_prefix("make_") else {
            return;
        };
        let Some(Type::Record(record)) = crate::analysis::types::builtin(vector) else {
            return;
        };
        if record.fields.len() != args.len() {
            return;
        }
        let fields = (record.fields.iter().zip(args))
            .map(|(f, v)| (f.name.clone(), Binding::Value(v.clone())))
            .collect();
        let object = Object {
            class: vector.to_string(),
            template_args: Vec::new(),
            fields: Rc::new(fields),
        };
        self.last_returned_object = Some((serial, object));
    }

    /// Whether `record` is a plain struct, the kind held by value here: not a class
    /// template's instance and with no method banklint lifted (an object of a class with
    /// methods is built by its constructor, see `objects`).
    pub(super) fn is_plain_struct(&self, record: &crate::analysis::types::Record) -> bool {
        let tag = record.name.rsplit("__").next().unwrap_or(&record.name);
        !record.name.contains('<')
            && !self.preparations().any(|p| {
                (p.methods.iter()).any(|m| m.class.rsplit("__").next() == Some(tag))
                    || p.class_templates.iter().any(|(t, _)| t == tag)
            })
    }

    /// `Pos p;` of a struct banklint lays out: an object with no member set yet.
    pub(super) fn declare_value_object(
        &mut self,
        name: &str,
        record: &crate::analysis::types::Record,
    ) {
        let object = Object {
            class: record.name.clone(),
            template_args: Vec::new(),
            fields: Rc::new(HashMap::default()),
        };
        self.bind(name, Binding::Object(object));
    }

    /// `Pos q = {r, c};`: the struct's members in order, given the elements; `None` for a list
    /// with designators or nested lists, or more elements than members.
    pub(super) fn listed_object(
        &mut self,
        record: &crate::analysis::types::Record,
        items: &[Node<InitializerListItem>],
        mask: &[bool],
    ) -> Option<Object> {
        if items.len() > record.fields.len() || items.iter().any(|i| !i.node.designation.is_empty())
        {
            return None;
        }
        let elements: Option<Vec<&Node<Expression>>> = (items.iter())
            .map(|item| match &item.node.initializer.node {
                Initializer::Expression(e) => Some(&**e),
                Initializer::List(_) => None,
            })
            .collect();
        Some(self.object_of_elements(record, &elements?, mask))
    }

    /// `p.row = v` (or `p.row += v`) of an object held by value: the member, in the lanes of
    /// `mask`. `None` when `lhs` is no member of such an object.
    pub(super) fn assign_object_member(
        &mut self,
        lhs: &Node<Expression>,
        op: Option<BinOp>,
        r: &Lanes,
        mask: &[bool],
    ) -> Option<Lanes> {
        let Expression::Member(m) = &lhs.node else {
            return None;
        };
        let Expression::Identifier(id) = &m.node.expression.node else {
            return None;
        };
        // `p->row` too: a reference parameter, lowered to a pointer, given the object.
        let Some(Binding::Object(o)) = self.lookup(&id.node.name) else {
            return None;
        };
        let member = m.node.identifier.node.name.clone();
        let old = match o.fields.get(&member) {
            Some(Binding::Value(v)) => Some(v.clone()),
            Some(_) => return None,
            None => None,
        };
        let new = match (op, &old) {
            (None, _) => r.clone(),
            (Some(op), Some(old)) => Lanes::binary(op, old, r, self.n, &mut self.syms),
            (Some(_), None) => Lanes::unknown(format!("`{member}` is used before it is set")),
        };
        let set = match old {
            Some(old) => old.merge(&new, mask),
            None if mask.iter().all(|&m| m) => new.clone(),
            None => Lanes::unknown(format!(
                "`{member}` is set only in some threads before this use"
            ))
            .merge(&new, mask),
        };
        if let Some(Binding::Object(o)) =
            self.binding_mut(&id.node.name, |b| matches!(b, Binding::Object(_)))
        {
            Rc::make_mut(&mut o.fields).insert(member, Binding::Value(set));
        }
        Some(new)
    }

    /// `q = p;` or `q = f(t);` of an object held by value: the object given, in the lanes of
    /// `mask`; what is not one leaves every member of `q` unknown. `None` when `lhs` is not
    /// such an object.
    pub(super) fn assign_object(
        &mut self,
        lhs: &Node<Expression>,
        rhs: &Node<Expression>,
        mask: &[bool],
    ) -> Option<Lanes> {
        let Expression::Identifier(id) = &lhs.node else {
            return None;
        };
        let Some(Binding::Object(old)) = self.lookup(&id.node.name).cloned() else {
            return None;
        };
        let given = match &rhs.node {
            Expression::Call(_) => self.call_and_object(rhs, mask).1,
            Expression::Identifier(r) => match self.lookup(&r.node.name) {
                Some(Binding::Object(o)) => Some(o.clone()),
                _ => None,
            },
            // `c = {r, 3};`: the members in the order the struct declares them.
            Expression::Comma(list) if self.is_braced_list(rhs) => {
                match self.types.lookup(&old.class) {
                    Some(Type::Record(record)) if list.len() <= record.fields.len() => {
                        let elements: Vec<&Node<Expression>> = list.iter().collect();
                        let given = self.object_of_elements(&record, &elements, mask);
                        Some(Object {
                            fields: given.fields,
                            ..old.clone()
                        })
                    }
                    _ => {
                        self.eval(rhs, mask);
                        None
                    }
                }
            }
            _ => {
                self.eval(rhs, mask);
                None
            }
        };
        let new = match given {
            Some(o) if mask.iter().all(|&m| m) => o,
            Some(o) => joined(old, &o, mask),
            None => Object {
                fields: Rc::new(HashMap::default()),
                ..old
            },
        };
        if let Some(b) = self.binding_mut(&id.node.name, |b| matches!(b, Binding::Object(_))) {
            *b = Binding::Object(new);
        }
        Some(Lanes::unknown("an object"))
    }

    /// A `return` of the object `o` in the function being inlined, by the lanes of `mask`.
    pub(super) fn return_object(&mut self, o: Object, mask: &[bool]) {
        if let Some(slot) = self.returned_objects.last_mut() {
            *slot = Some(match slot.take() {
                None => o,
                Some(old) => joined(old, &o, mask),
            });
        }
    }
}

/// `old` with the members `new` gives the lanes of `mask`; a member the two do not both hold
/// as a value is no longer known.
pub(super) fn joined(old: Object, new: &Object, mask: &[bool]) -> Object {
    let mut fields = (*old.fields).clone();
    let names: Vec<String> = (fields.keys().chain(new.fields.keys()))
        .cloned()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    for name in names {
        let joined = match (fields.get(&name), new.fields.get(&name)) {
            (Some(Binding::Value(a)), Some(Binding::Value(b))) => Binding::Value(a.merge(b, mask)),
            _ => Binding::Value(Lanes::unknown(format!(
                "the member `{name}` is returned from more than one `return`, not as a value by each"
            ))),
        };
        fields.insert(name, joined);
    }
    Object {
        fields: Rc::new(fields),
        ..old
    }
}
