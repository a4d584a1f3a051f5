//! What a class declares that the analysis reads beside its layout: member typedefs, base
//! classes, enumerators and static data members with a value, each with the template
//! parameters around it.

use crate::front::lower::Lowering;
use crate::front::prepared::{MemberTypedef, StaticMember};
use crate::front::syntax::{named_children, text};
use tree_sitter::Node;

/// `typedef TYPE MEMBER;` or `using MEMBER = TYPE;` inside a class (template or
/// specialization).
pub(crate) fn record_member_typedef(
    l: &mut Lowering<'_>,
    t: Node<'_>,
    class: &str,
    args: &Option<Vec<String>>,
) {
    let Some(ty) = t.child_by_field_name("type") else {
        return;
    };
    let Some(decl) = t
        .child_by_field_name("declarator")
        .or_else(|| t.child_by_field_name("name"))
    else {
        return;
    };
    let params = template_params_around(l, t);
    l.out.member_typedefs.push(MemberTypedef {
        class: class.to_string(),
        args: args.clone(),
        params,
        member: text(decl, l.src).to_string(),
        ty: text(ty, l.src)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    });
}

/// `struct K : public Base<N>`: the bases as written, in the class's own terms; a member
/// the class does not declare is looked for in them.
pub(crate) fn record_bases(
    l: &mut Lowering<'_>,
    clause: Node<'_>,
    class: &str,
    args: &Option<Vec<String>>,
) {
    let bases = named_children(clause)
        .iter()
        .filter(|b| !matches!(b.kind(), "access_specifier" | "virtual"))
        .map(|b| {
            text(*b, l.src)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let params = template_params_around(l, clause);
    l.out.class_bases.push(crate::front::prepared::ClassBases {
        class: class.replace("::", "__"),
        args: args.clone(),
        params,
        bases,
    });
}

/// `enum { THREADS = N, WARPS = THREADS / 32, NEXT };` inside a class: each enumerator is
/// one of its static constants (`K::WARPS`), one more than the one before when not given.
pub(crate) fn record_member_enumerators(
    l: &mut Lowering<'_>,
    member: Node<'_>,
    class: &str,
    args: &Option<Vec<String>>,
) {
    let Some(list) = member
        .child_by_field_name("type")
        .and_then(|t| t.child_by_field_name("body"))
    else {
        return;
    };
    let mut previous: Option<String> = None;
    for e in named_children(list)
        .into_iter()
        .filter(|e| e.kind() == "enumerator")
    {
        let Some(name) = e.child_by_field_name("name") else {
            continue;
        };
        let name = text(name, l.src).to_string();
        let value = match e.child_by_field_name("value") {
            Some(v) => text(v, l.src).to_string(),
            None => previous.map_or_else(|| "0".to_string(), |p| format!("{p} + 1")),
        };
        previous = Some(name.clone());
        record_static(l, member, (class, args), name, value);
    }
}

/// `static constexpr int size = 4;` inside `struct x128`: `x128::size` is 4.
pub(crate) fn record_static_member(
    l: &mut Lowering<'_>,
    f: Node<'_>,
    class: &str,
    args: &Option<Vec<String>>,
) {
    if class.is_empty() {
        return;
    }
    // `static constexpr int rows = R, cols = C;`: each declarator with the value after it.
    let mut cursor = f.walk();
    let names: Vec<Node<'_>> = f
        .children_by_field_name("declarator", &mut cursor)
        .collect();
    let values: Vec<Node<'_>> = f
        .children_by_field_name("default_value", &mut cursor)
        .collect();
    for (k, name) in names.iter().enumerate() {
        let next = names.get(k + 1).map_or(usize::MAX, |n| n.start_byte());
        let Some(value) = values
            .iter()
            .find(|v| v.start_byte() > name.end_byte() && v.start_byte() < next)
        else {
            continue;
        };
        let (name, value) = (
            text(*name, l.src).to_string(),
            text(*value, l.src).to_string(),
        );
        record_static(l, f, (class, args), name, value);
    }
}

/// A static constant of `class` (`args`: a specialization's arguments as written).
fn record_static(
    l: &mut Lowering<'_>,
    f: Node<'_>,
    (class, args): (&str, &Option<Vec<String>>),
    member: String,
    value: String,
) {
    if class.is_empty() {
        return;
    }
    // The class template around the member, if any: its parameters may appear in the value.
    let params = template_params_around(l, f);
    l.out.static_members.push(StaticMember {
        class: class.to_string(),
        args: args.clone(),
        member,
        value,
        params,
    });
}

/// The parameters of the template declaration around `n` (a class template's, or a partial
/// specialization's own), in order.
fn template_params_around(l: &Lowering<'_>, n: Node<'_>) -> Vec<String> {
    std::iter::successors(n.parent(), |n| n.parent())
        .find(|n| n.kind() == "template_declaration")
        .and_then(|t| t.child_by_field_name("parameters"))
        .map(|list| {
            named_children(list)
                .iter()
                .filter_map(|p| crate::front::syntax::template_param(*p, l.src).map(|(n, _)| n))
                .collect()
        })
        .unwrap_or_default()
}
