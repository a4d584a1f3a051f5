//! Class templates laid out per instantiation: `sv<float, 64>` is `struct sv` read again with
//! `T` bound to `float` and `N` to 64, so that a field whose type or extent names a parameter
//! (`T data[N]`), or a static member computed from one (`ElementType payload[size]` with
//! `size = sizeof(int4) / sizeof(ElementType)`), has its place. The caller evaluates the
//! arguments where they are written; this module only lays the class out.

use crate::analysis::extraction::{struct_type_in_part, type_from_qualifiers};
use crate::analysis::types::{ClassTemplate, Type, TypeTable};
use lang_c::ast::Expression;
use std::collections::HashMap;
use std::rc::Rc;

/// One template argument, evaluated where it is written.
#[derive(Clone, Debug, PartialEq)]
pub enum Argument {
    Type(Type),
    Value(i64),
    /// Not known there (a kernel parameter, a type banklint cannot lay out): fields that
    /// depend on it stay unknown.
    Unknown,
}

/// What an instance's layout needs besides its arguments, each under them: its member types
/// (`using dtype = T;`) and the types of its fields that are class template instances
/// (`base<T, L> tiles[2]`).
#[derive(Default)]
pub struct InstanceTypes {
    pub members: Vec<(String, Type)>,
    pub fields: Vec<(String, Type)>,
    /// The values of the extents that call a function (`ClassTemplate::call_extents`), by
    /// span, evaluated where the class is used.
    pub extents: Vec<((usize, usize), i64)>,
}

/// `template` laid out with `args` (one per parameter, in order), named `display` in reports.
/// `member` gives the class's static constant members (`size`) with these arguments.
pub fn instantiate(
    types: &TypeTable,
    template: &ClassTemplate,
    args: &[Argument],
    member: &dyn Fn(&str) -> Option<i64>,
    own: &InstanceTypes,
    display: &str,
) -> Type {
    let mut bound = types.clone();
    for (name, t) in &own.members {
        bound.named.insert(name.clone(), t.clone());
    }
    bound.field_types = own.fields.iter().cloned().collect();
    let mut values: HashMap<&str, i64> = HashMap::new();
    for (param, arg) in template.header.params.iter().zip(args) {
        match arg {
            Argument::Type(t) if param.is_type => {
                bound.named.insert(param.name.clone(), t.clone());
            }
            Argument::Value(v) if !param.is_type => {
                values.insert(param.name.as_str(), *v);
            }
            _ => {}
        }
    }
    let leaf = |e: &lang_c::span::Node<Expression>| match &e.node {
        Expression::Identifier(id) => values
            .get(id.node.name.as_str())
            .copied()
            .or_else(|| member(&id.node.name)),
        Expression::SizeOfTy(t) => {
            let t = &t.node.0.node;
            if t.declarator.is_some() {
                return Some(8);
            }
            type_from_qualifiers(&bound, &t.specifiers)
                .size()
                .map(i64::from)
        }
        _ => (own.extents.iter())
            .find(|(at, _)| *at == (e.span.start, e.span.end))
            .map(|(_, v)| *v),
    };
    // Laid out where it is used, the last attempt: a field of unknown size (a library's
    // `TempStorage`) leaves the others laid out as far as they can be.
    match struct_type_in_part(&bound, &template.definition, &leaf) {
        Type::Record(r) => {
            let mut r = (*r).clone();
            r.name = display.to_string();
            Type::Record(Rc::new(r))
        }
        other => other,
    }
}

/// The class template a type name names, by its whole name or its last part
/// (`kittens__sv` is `sv`, as [`TypeTable::lookup`] reads qualified names).
pub fn class_template(types: &TypeTable, name: &str) -> Option<Rc<ClassTemplate>> {
    types.class_templates.get(name).cloned().or_else(|| {
        let (bare, _) = crate::front::names::split_qualified(name)?;
        types.class_templates.get(bare).cloned()
    })
}

/// `ns::Row<float, 32>` as the class name the front end spells (`ns__Row`) and the
/// arguments as written.
pub fn instance_parts(text: &str) -> Option<(String, Vec<String>)> {
    let (class, args) = crate::front::names::split_template_args(text.trim())?;
    Some((class.trim().replace("::", "__"), args))
}

/// Whether `text` names an instance of a class template banklint has read (`Row<float, 32>`):
/// a type it lays out once the arguments are evaluated where they are used.
pub fn names_instance(types: &TypeTable, text: &str) -> bool {
    instance_parts(text).is_some_and(|(class, _)| class_template(types, &class).is_some())
}
