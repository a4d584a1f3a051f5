//! `cudaLaunchConfig_t` in host code: the configuration `cudaLaunchKernelEx(&cfg, k, ...)`
//! launches with, its grid and block given in its initializer
//! (`cudaLaunchConfig_t cfg = {grid, block, smem, stream};`, `{.blockDim = b}`) or field by
//! field (`cfg.blockDim = dim3(256);`). The host reader keeps each shape as a value named
//! `cfg.gridDim` and `cfg.blockDim`, so that scopes, branches and loops treat it as any other
//! name.

use crate::front::host_code::{Env, HostReader, HostValue};
use crate::front::syntax::named_children;
use tree_sitter::Node;

/// The fields of `cudaLaunchConfig_t` that hold shapes, in the order an initializer gives them.
const SHAPE_FIELDS: [&str; 2] = ["gridDim", "blockDim"];

/// The name a field of `base` is kept under (`cfg.blockDim`).
fn field_name(base: &str, field: &str) -> String {
    format!("{}.{field}", base.trim())
}

/// The variable a launch call's configuration argument names: `cfg` of `&cfg`, `(&cfg)` or a
/// pointer `cfg`.
fn config_variable<'t>(mut n: Node<'t>, src: &str) -> Option<Node<'t>> {
    loop {
        n = match n.kind() {
            "pointer_expression" if crate::front::syntax::text(n, src).starts_with('&') => {
                n.child_by_field_name("argument")?
            }
            "parenthesized_expression" => n.named_child(0)?,
            "identifier" => return Some(n),
            _ => return None,
        };
    }
}

impl HostReader<'_> {
    /// `cudaLaunchConfig_t name = value;` (or without a value): the shapes it starts with. A
    /// shape the initializer does not give is a default `dim3`, (1, 1, 1), as C++ makes it.
    pub(super) fn declare_launch_config(&self, name: &str, value: Option<Node<'_>>, env: &mut Env) {
        let mut shapes = SHAPE_FIELDS.map(|_| HostValue::Dim3([1, 1, 1]));
        match value {
            Some(list) if matches!(list.kind(), "initializer_list" | "argument_list") => {
                let mut position = 0;
                for part in named_children(list) {
                    if part.kind() == "initializer_pair" {
                        // `.blockDim = b`: a shape by its name; other fields do not matter.
                        let field = part
                            .child_by_field_name("designator")
                            .map_or("", |d| self.t(d).trim_start_matches('.').trim());
                        let value = part.child_by_field_name("value");
                        if let (Some(k), Some(v)) =
                            (SHAPE_FIELDS.iter().position(|f| *f == field), value)
                        {
                            shapes[k] = self.shape(v, env);
                        }
                        continue;
                    }
                    if let Some(shape) = shapes.get_mut(position) {
                        *shape = self.shape(part, env);
                    }
                    position += 1;
                }
            }
            // A copy of another configuration: its shapes, where the reader keeps them.
            Some(other) => {
                for (k, f) in SHAPE_FIELDS.iter().enumerate() {
                    let kept = config_variable(other, self.src)
                        .and_then(|v| env.get(&field_name(self.t(v), f)).cloned());
                    shapes[k] = kept.unwrap_or_else(|| {
                        HostValue::Unknown(format!(
                            "`{name}` is copied from `{}`, whose `{f}` banklint does not know",
                            self.t(other).trim()
                        ))
                    });
                }
            }
            None => {}
        }
        for (f, shape) in SHAPE_FIELDS.iter().zip(shapes) {
            env.insert(field_name(name, f), shape);
        }
    }

    /// `cfg.blockDim = dim3(256);` (or `cfg->blockDim`): true when `base.field` is a shape the
    /// reader keeps, now set.
    pub(super) fn assign_launch_config_field(
        &self,
        (base, field): (&str, &str),
        op: &str,
        rhs: Node<'_>,
        env: &mut Env,
    ) -> bool {
        let key = field_name(base, field);
        if !env.contains_key(&key) {
            return false;
        }
        let value = if op == "=" {
            self.shape(rhs, env)
        } else {
            HostValue::Unknown(format!("`{key}` is changed with `{op}`"))
        };
        env.insert(key, value);
        true
    }

    /// A shape field the reader keeps, read as an expression (`cfg.blockDim`).
    pub(super) fn launch_config_field(
        &self,
        base: &str,
        field: &str,
        env: &Env,
    ) -> Option<HostValue> {
        env.get(&field_name(base, field)).cloned()
    }

    /// The block `cudaLaunchKernelEx(config, ...)` launches with: the `blockDim` of the
    /// configuration `config` names, where the reader kept it.
    pub(super) fn launch_config_block(&self, config: Node<'_>, env: &Env) -> Option<HostValue> {
        let variable = config_variable(config, self.src)?;
        self.launch_config_field(self.t(variable), "blockDim", env)
    }

    /// A shape as an initializer or assignment gives it: an integer is its x extent.
    fn shape(&self, n: Node<'_>, env: &Env) -> HostValue {
        match self.eval(n, env) {
            HostValue::Int(x) => HostValue::Dim3([x, 1, 1]),
            other => other,
        }
    }
}
