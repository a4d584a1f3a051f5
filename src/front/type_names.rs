//! The names a file's syntax tree uses as types (`uint`, `KVPair`, a template's `T`), which
//! lang-c must know as type names to parse a declaration; which of them the file declares;
//! and the element type each `__shared__` declaration names (a type declared nowhere is
//! analyzed at each size it may have).

use crate::front::lower::Lowering;
use crate::front::syntax::{children, find_descendant, named_children, text};
use tree_sitter::Node;

/// Every name the tree uses as a type (`uint`, `KVPair`, a template's `T`): lang-c must
/// know them as type names to parse a declaration. Returns how deep the tree goes.
///
/// This walk visits every node of the file and its headers, so it compares symbol ids, not
/// kind strings, and keeps the ancestors on a stack rather than asking tree-sitter for a
/// node's parent (which walks down again from the root).
pub(crate) fn collect_type_names(l: &mut Lowering<'_>, root: Node<'_>) -> usize {
    let kinds = crate::front::syntax::WalkKinds::get();
    let mut c = root.walk();
    let mut ancestors: Vec<Node<'_>> = Vec::new();
    let mut deepest = 0;
    loop {
        let n = c.node();
        let id = n.kind_id();
        if kinds.type_identifier.contains(&id) {
            let parent = ancestors.last().copied();
            let grandparent = ancestors.len().checked_sub(2).map(|i| ancestors[i]);
            if !crate::front::unread_macros::is_name_before_macro_in(parent, grandparent) {
                let name = text(n, l.src).to_string();
                if declares_type(n, parent, grandparent) {
                    l.out.declared_types.push(name.clone());
                }
                l.add_typename(name);
            }
        } else if kinds.declaration.contains(&id) && text(n, l.src).contains("__shared__") {
            shared_declaration(l, n, ancestors.last().copied());
        }
        if c.goto_first_child() {
            ancestors.push(n);
            deepest = deepest.max(ancestors.len());
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return deepest;
            }
            ancestors.pop();
        }
    }
}

/// A `__shared__` declaration: the element type it names, and at file or namespace scope
/// its names (a method that names one reaches shared memory).
fn shared_declaration(l: &mut Lowering<'_>, n: Node<'_>, parent: Option<Node<'_>>) {
    if !children(n).iter().any(|c| text(*c, l.src) == "__shared__") {
        return;
    }
    match n.child_by_field_name("type") {
        Some(ty) if ty.kind() == "type_identifier" => {
            let name = text(ty, l.src).to_string();
            l.out.shared_element_types.push((n.start_byte(), name));
        }
        // `Pair<T, idx_t>`: the element's layout needs each type argument's size.
        Some(ty) if ty.kind() == "template_type" => {
            let args = ty.child_by_field_name("arguments");
            for a in args.map(named_children).unwrap_or_default() {
                if let Some(t) = a.child_by_field_name("type")
                    && t.kind() == "type_identifier"
                    && a.named_child_count() == 1
                {
                    let name = text(t, l.src).to_string();
                    l.out.shared_element_types.push((n.start_byte(), name));
                }
            }
        }
        _ => {}
    }
    if parent.is_some_and(|p| matches!(p.kind(), "translation_unit" | "declaration_list")) {
        for d in named_children(n) {
            if let Some(id) = find_descendant(d, &["identifier"])
                && d.kind() != "primitive_type"
            {
                l.out.file_shared_names.push(text(id, l.src).to_string());
            }
        }
    }
}

/// Whether a type name is the one a declaration introduces: a class, union or enum (a
/// specialization's too), a typedef, a `using` alias or a template's type parameter.
fn declares_type(n: Node<'_>, parent: Option<Node<'_>>, grandparent: Option<Node<'_>>) -> bool {
    let Some(parent) = parent else {
        return false;
    };
    let names = |p: Node<'_>, field: &str| {
        p.child_by_field_name(field)
            .is_some_and(|c| c.id() == n.id())
    };
    match parent.kind() {
        "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier" => {
            names(parent, "name")
        }
        // `struct Limits<idx_t> { ... }` declares `Limits`, not its arguments.
        "template_type" => {
            names(parent, "name")
                && grandparent.is_some_and(|g| {
                    matches!(
                        g.kind(),
                        "struct_specifier" | "class_specifier" | "union_specifier"
                    ) && g
                        .child_by_field_name("name")
                        .is_some_and(|c| c.id() == parent.id())
                })
        }
        "type_definition" => names(parent, "declarator"),
        "alias_declaration" => names(parent, "name"),
        "type_parameter_declaration" | "variadic_type_parameter_declaration" => true,
        // `typename IndexT = idx_t` declares `IndexT`; its default is a use.
        "optional_type_parameter_declaration" => names(parent, "name"),
        _ => false,
    }
}
