//! Methods of classes that keep pointers (`struct Queue { float *items; ... }`): each
//! `__device__` method and constructor defined in the class is read as a device function of
//! its own, recorded here with its class, so that the analyzer can run `Queue q(smem);` and
//! `q.push(v)` on an object whose fields it tracks (see `analysis::interp::objects`). So are
//! those of a class with a method or constructor that takes a pointer (`v.store_to(smem, i)` on
//! a vector type; `Stats(void *smem)` building its reducer member).

use crate::front::lower::Lowering;
pub use crate::front::prepared::Method;
use crate::front::syntax::{children, find_descendant, named_children, text};
use tree_sitter::Node;

/// Whether a class body declares a data member that is a pointer (not a static one).
pub fn holds_pointer(l: &Lowering<'_>, body: Node<'_>) -> bool {
    children(body).into_iter().any(|m| {
        m.kind() == "field_declaration"
            && find_descendant(m, &["function_declarator"]).is_none()
            && !text(m, l.src).trim_start().starts_with("static")
            && find_descendant(m, &["pointer_declarator"]).is_some()
    })
}

/// Whether a method (or method template) defined in a class takes a pointer parameter
/// (`void store_to(void *ptr, int i)`): on an object of any class, it may reach shared
/// memory through its arguments.
pub fn takes_pointer(member: Node<'_>) -> bool {
    let f = if member.kind() == "template_declaration" {
        match named_children(member)
            .into_iter()
            .find(|c| c.kind() == "function_definition")
        {
            Some(f) => f,
            None => return false,
        }
    } else {
        member
    };
    let Some(d) = f
        .child_by_field_name("declarator")
        .and_then(|d| find_descendant(d, &["function_declarator"]))
    else {
        return false;
    };
    d.child_by_field_name("parameters").is_some_and(|ps| {
        named_children(ps).into_iter().any(|p| {
            find_descendant(p, &["pointer_declarator", "abstract_pointer_declarator"]).is_some()
        })
    })
}

/// A class body's declarations of data members (not static ones, not methods).
fn data_members<'t>(l: &Lowering<'_>, body: Node<'t>) -> Vec<Node<'t>> {
    children(body)
        .into_iter()
        .filter(|m| {
            m.kind() == "field_declaration"
                && find_descendant(*m, &["function_declarator"]).is_none()
                && !text(*m, l.src).trim_start().starts_with("static")
        })
        .collect()
}

/// The names of a class's data members (not static ones, not methods).
pub fn field_names(l: &Lowering<'_>, body: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for m in data_members(l, body) {
        for d in named_children(m) {
            if let Some(id) = find_descendant(d, &["field_identifier"]) {
                out.push(text(id, l.src).to_string());
            }
        }
    }
    out
}

/// The data members of a class whose type names a class (`WarpStats warp_stats_;`,
/// `Reducer<T, 1> r_;`), with that type as written: objects the constructor builds.
pub fn object_fields(l: &Lowering<'_>, body: Node<'_>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for m in data_members(l, body) {
        let Some(ty) = m.child_by_field_name("type") else {
            continue;
        };
        if !matches!(
            ty.kind(),
            "type_identifier" | "template_type" | "qualified_identifier" | "dependent_type"
        ) {
            continue;
        }
        let written: String = text(ty, l.src)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for d in named_children(m) {
            if d.kind() == "field_identifier" {
                out.push((text(d, l.src).to_string(), written.clone()));
            }
        }
    }
    out
}

/// The name a function definition declares (`push` of `void push(float v)`).
pub fn declared_name<'t>(f: Node<'t>) -> Option<Node<'t>> {
    let d = find_descendant(
        f.child_by_field_name("declarator")?,
        &["function_declarator"],
    )?;
    d.child_by_field_name("declarator")
}

/// Readies a constructor `__device__ Queue(float *p) : items(p), n(0) { ... }` for lang-c:
/// `int        _____(float *p)                   { ... }`: the initializers are blanked and
/// returned, a return type is written over `__device__` and the name made one no type has.
/// `None` when `f` is not a constructor of `class`; `Some(None)` when it is one that cannot be
/// written so (no `__device__` before its name to write the type over).
pub fn prepare_constructor(
    l: &mut Lowering<'_>,
    f: Node<'_>,
    class: &str,
) -> Option<Option<Vec<(String, String)>>> {
    let name = declared_name(f)?;
    if text(name, l.src) != class || class.is_empty() {
        return None;
    }
    let Some(device) = children(f)
        .into_iter()
        .find(|c| c.end_byte() <= name.start_byte() && text(*c, l.src) == "__device__")
    else {
        return Some(None);
    };
    let mut inits = Vec::new();
    if let Some(list) = children(f)
        .into_iter()
        .find(|c| c.kind() == "field_initializer_list")
    {
        for init in named_children(list) {
            let field = init.named_child(0).map(|n| text(n, l.src).to_string());
            let value = init.named_child(1).map(|v| {
                let t = text(v, l.src).trim();
                let inner = t
                    .strip_prefix('(')
                    .and_then(|t| t.strip_suffix(')'))
                    .or_else(|| t.strip_prefix('{').and_then(|t| t.strip_suffix('}')))
                    .unwrap_or(t);
                inner.split_whitespace().collect::<Vec<_>>().join(" ")
            });
            if let (Some(field), Some(value)) = (field, value) {
                inits.push((field, value));
            }
        }
        l.blank_node(list);
    }
    l.patches.push((device.start_byte(), "int".into()));
    l.blank_node(name);
    l.patches.push((
        name.start_byte(),
        "_".repeat(name.byte_range().len()).into(),
    ));
    Some(Some(inits))
}

impl Lowering<'_> {
    /// `Stage<float> st(t);` in a function body, which the grammar reads as a prototype (a
    /// function `st` taking a `t`): when every "parameter" is a plain name that is no type, it
    /// is an object built by a constructor. Its arguments are blanked and recorded as those of
    /// `T x(a, b)` are.
    pub(crate) fn constructor_read_as_prototype(&mut self, n: Node<'_>) -> bool {
        if n.parent().is_none_or(|p| p.kind() != "compound_statement") {
            return false;
        }
        let Some(d) = n
            .child_by_field_name("declarator")
            .filter(|d| d.kind() == "function_declarator")
        else {
            return false;
        };
        let (Some(name), Some(params)) = (
            d.child_by_field_name("declarator"),
            d.child_by_field_name("parameters"),
        ) else {
            return false;
        };
        let args = named_children(params);
        let plain = |p: &Node<'_>| {
            p.kind() == "parameter_declaration"
                && p.child_by_field_name("declarator").is_none()
                && p.child_by_field_name("type").is_some_and(|t| {
                    let name = text(t, self.src);
                    t.kind() == "type_identifier"
                        && !self.out.declared_types.iter().any(|d| d == name)
                        && !crate::front::names::BUILTIN_TYPENAMES.contains(&name)
                })
        };
        if name.kind() != "identifier" || args.is_empty() || !args.iter().all(plain) {
            return false;
        }
        let inner = text(params, self.src);
        let inner = inner.strip_prefix('(').unwrap_or(inner);
        let inner = inner.strip_suffix(')').unwrap_or(inner).trim().to_string();
        self.out.constructor_args.push((name.start_byte(), inner));
        self.blank_node(params);
        for c in children(n) {
            if c.id() != d.id() {
                self.lower(c);
            }
        }
        true
    }
}
