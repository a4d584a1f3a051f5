//! Named lambdas in device code, `auto load = [&](int i) { s[i] = ...; };`: lowered in place
//! to the C function `int load (int i) { ... }` of the same length and read as a device
//! function of their own. The analyzer inlines a call of `load` in the scope of the function
//! that defines it, so the lambda sees the variables it captures (see `analysis::interp`).

use crate::front::lower::Lowering;
use crate::front::prepared::Lambda;
use crate::front::prepared::{Chunk, ChunkKind};
use crate::front::syntax::{children, find_descendant, named_children, text};
use tree_sitter::Node;

impl Lowering<'_> {
    /// Lifts `auto NAME = [captures](params) -> R { body };` when it can be written as a C
    /// function in place; returns false (nothing changed) otherwise: the lambda is then skipped
    /// with a note as before. Parameter packs, lambdas in lambdas and lambdas outside a function
    /// are left alone.
    pub(crate) fn lift_lambda(&mut self, n: Node<'_>) -> bool {
        if self.host {
            return false;
        }
        let inits: Vec<Node<'_>> = named_children(n)
            .into_iter()
            .filter(|c| c.kind() == "init_declarator")
            .collect();
        let [init] = inits.as_slice() else {
            return false;
        };
        let (Some(name), Some(value)) = (
            init.child_by_field_name("declarator"),
            init.child_by_field_name("value"),
        ) else {
            return false;
        };
        if name.kind() != "identifier"
            || value.kind() != "lambda_expression"
            || !named_children(n)
                .iter()
                .any(|c| c.kind() == "placeholder_type_specifier")
        {
            return false;
        }
        let (Some(captures), Some(body)) = (
            value.child_by_field_name("captures"),
            value.child_by_field_name("body"),
        ) else {
            return false;
        };
        let declarator = value.child_by_field_name("declarator");
        let params = declarator.and_then(|d| d.child_by_field_name("parameters"));
        // Only in a function: at file scope there is no scope to capture.
        let mut enclosing = n.parent();
        while let Some(q) = enclosing.filter(|q| q.kind() != "function_definition") {
            enclosing = q.parent();
        }
        if enclosing.is_none() {
            return false;
        }
        if find_descendant(body, &["lambda_expression", "ERROR"]).is_some()
            || params.is_some_and(|p| text(p, self.src).contains("..."))
            || (params.is_none() && captures.byte_range().len() < 2)
        {
            return false;
        }
        // `auto` (or `const auto`) stays and becomes the return type.
        for c in children(n) {
            if c.id() == init.id() {
                continue;
            }
            if c.kind() == ";" {
                self.blank_node(c);
            } else {
                self.lower(c);
            }
        }
        for c in children(*init) {
            if c.kind() == "=" {
                self.blank_node(c);
            }
        }
        // The captures go; a lambda without a parameter list gets `()` in their place.
        self.blank_node(captures);
        match (declarator, params) {
            (Some(d), Some(p)) => {
                for c in children(d) {
                    if c.id() != p.id() {
                        self.blank_node(c);
                    }
                }
                self.lower(p);
            }
            _ => self.patches.push((captures.start_byte(), "()".into())),
        }
        // `mutable`, `__device__` and the like between the captures and the body.
        for c in children(value) {
            if ![captures.id(), body.id()].contains(&c.id())
                && declarator.is_none_or(|d| d.id() != c.id())
            {
                self.blank_node(c);
            }
        }
        self.lower(body);
        let span = n.byte_range();
        self.out.lambdas.push(Lambda { span: span.clone() });
        self.lifted.push(Chunk {
            tokens: self.token_range(&span),
            span,
            kind: ChunkKind::DeviceFunction { kernel: false },
            namespace: self.namespace.clone(),
            quiet: false,
            holes: Vec::new(),
            template: None,
            display_name: None,
        });
        true
    }
}
