//! Host code's C++ scopes that the host reader walks into: lambdas, run where they are
//! written (dispatch macros call them at once), and local type aliases, which a launch's
//! template arguments name.

use crate::front::host_code::{Env, HostReader, HostValue, declared_name};
use crate::front::syntax::named_children;
use tree_sitter::Node;

impl HostReader<'_> {
    /// `using acc_t = float;` or `typedef float acc_t;` in a host function: what a launch's
    /// `k<acc_t>` instantiates.
    pub(super) fn alias(&mut self, n: Node<'_>, env: &mut Env) {
        let Some(ty) = n.child_by_field_name("type") else {
            return;
        };
        let written: String = self.t(ty).split_whitespace().collect::<Vec<_>>().join(" ");
        let ty = match env.get(&written) {
            Some(HostValue::Type(t)) => t.clone(),
            // `using KT = Traits<N, T>;` in a host template's run: its arguments as bound.
            _ => self.bind_words(&written, env),
        };
        let names: Vec<Node<'_>> = if n.kind() == "alias_declaration" {
            n.child_by_field_name("name").into_iter().collect()
        } else {
            named_children(n)
                .into_iter()
                .filter(|d| d.kind() == "type_identifier")
                .collect()
        };
        for name in names {
            env.insert(self.t(name).to_string(), HostValue::Type(ty.clone()));
        }
    }

    /// A lambda's body runs where it is written, with the values in force there: the
    /// dispatch macros of PyTorch extensions (`AT_DISPATCH_FLOATING_TYPES(t, "f", [&] {
    /// ... k<<<grid, block>>>(...); })`) call it at once. Its parameters are not known.
    pub(super) fn lambda(&mut self, x: Node<'_>, env: &Env) {
        let Some(body) = x.child_by_field_name("body") else {
            return;
        };
        let mut inner = env.clone();
        self.unknown_parameters(x, "a lambda", &mut inner);
        self.statement(body, &mut inner);
    }

    /// Binds the parameters of `f` (a function or a lambda) as unknown values in `env`.
    pub(super) fn unknown_parameters(&self, f: Node<'_>, of: &str, env: &mut Env) {
        if let Some(d) = f.child_by_field_name("declarator")
            && let Some(params) = crate::front::syntax::find_descendant(d, &["parameter_list"])
        {
            for p in named_children(params) {
                if let Some(name) = declared_name(p, self.src) {
                    env.insert(
                        name.to_string(),
                        HostValue::Unknown(format!("`{name}` is a parameter of {of}")),
                    );
                }
            }
        }
    }
}
