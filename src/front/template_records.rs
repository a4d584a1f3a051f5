//! What template declarations declare besides code: alias templates and variable templates
//! (text with parameters, see `class_members`), concepts (see `concepts`), the fields of class
//! templates declared with another class template's instance.

use crate::front::lower::Lowering;
use crate::front::prepared::TemplateHeader;
use crate::front::syntax::{find_descendant, named_children, text};
use tree_sitter::Node;

/// `template <int R, int C> using tile_f = tile<float, R, C>;`.
pub(crate) fn record_alias_template(l: &mut Lowering<'_>, n: Node<'_>, header: &TemplateHeader) {
    if let (Some(name), Some(ty)) = (n.child_by_field_name("name"), n.child_by_field_name("type")) {
        l.out
            .alias_templates
            .push(crate::front::prepared::TemplateText {
                name: text(name, l.src).to_string(),
                header: header.clone(),
                text: text(ty, l.src)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
            });
    }
}

/// The fields of a class template declared with a class template instance (`base<T, L>
/// tiles[2];`): laid out per instance of the class, with its arguments.
pub(crate) fn record_template_fields(l: &mut Lowering<'_>, class: Node<'_>) {
    let (Some(tag), Some(body)) = (
        class.child_by_field_name("name"),
        class.child_by_field_name("body"),
    ) else {
        return;
    };
    for f in named_children(body) {
        let Some(ty) = f.child_by_field_name("type") else {
            continue;
        };
        if f.kind() != "field_declaration" || find_descendant(ty, &["template_type"]).is_none() {
            continue;
        }
        let written = text(ty, l.src)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for d in named_children(f) {
            if d.id() != ty.id()
                && let Some(name) = find_descendant(d, &["field_identifier"])
            {
                l.out.template_fields.push((
                    text(tag, l.src).to_string(),
                    text(name, l.src).to_string(),
                    written.clone(),
                ));
            }
        }
    }
}

/// `template <typename T> constexpr int DIM = 16;` (or `DIM{16}`): recorded, and true, when the
/// declaration is a variable template with an initializer.
pub(crate) fn record_variable_template(
    l: &mut Lowering<'_>,
    n: Node<'_>,
    header: &TemplateHeader,
) -> bool {
    let Some(d) = n.child_by_field_name("declarator") else {
        return false;
    };
    let (Some(name), Some(value)) = (
        d.child_by_field_name("declarator"),
        d.child_by_field_name("value"),
    ) else {
        return false;
    };
    if d.kind() != "init_declarator" || name.kind() != "identifier" {
        return false;
    }
    let value = text(value, l.src);
    let value = match value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
        Some(inner) => inner,
        None => value,
    };
    l.out
        .variable_templates
        .push(crate::front::prepared::TemplateText {
            name: text(name, l.src).to_string(),
            header: header.clone(),
            text: value.split_whitespace().collect::<Vec<_>>().join(" "),
        });
    true
}

/// `template <typename T> concept all = ...;`, in the namespace it is written in.
pub(crate) fn record_concept(l: &mut Lowering<'_>, n: Node<'_>, header: &TemplateHeader) {
    let (Some(name), Some(param)) = (n.child_by_field_name("name"), header.params.first()) else {
        return;
    };
    let Some(body) = named_children(n).into_iter().rfind(|c| c.id() != name.id()) else {
        return;
    };
    l.out.concepts.push(crate::front::prepared::ConceptDef {
        name: text(name, l.src).to_string(),
        namespace: l.namespace.clone(),
        param: param.name.clone(),
        body: text(body, l.src)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    });
}
