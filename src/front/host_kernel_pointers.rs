//! Kernels held in host variables: `auto k = &kern<T, 4>;`, `void (*k)(float *) = kern;`,
//! `k = flag ? kern<true> : kern<false>;`. The variable's value is the set of kernels it may
//! hold where the code stands (each side of a branch adds its own), so that a launch through
//! it (`k<<<g, b>>>(x)`, `cudaLaunchKernel((void *)k, ...)`) runs every one of them.

use crate::front::host_code::{Env, HostReader, HostValue};
use crate::front::host_values::kernel_union;
pub use crate::front::host_values::{KernelRef, MAX_KERNELS_PER_POINTER};
use tree_sitter::Node;

impl HostReader<'_> {
    /// The kernel a function designator names (`kern`, `ns::kern<T>`, `&kern<4>`, `(void *)k`),
    /// or the kernels a variable holds; `None` for anything else.
    pub(super) fn kernels_named(&self, n: Node<'_>, env: &Env) -> Option<Vec<KernelRef>> {
        match n.kind() {
            "pointer_expression" if self.t(n).starts_with('&') => {
                self.kernels_named(n.child_by_field_name("argument")?, env)
            }
            "parenthesized_expression" => self.kernels_named(n.named_child(0)?, env),
            "cast_expression" => self.kernels_named(n.child_by_field_name("value")?, env),
            "conditional_expression" => {
                let pick = |field: &str| self.kernels_named(n.child_by_field_name(field)?, env);
                match self.eval(n.child_by_field_name("condition")?, env).as_int() {
                    Some(0) => pick("alternative"),
                    Some(_) => pick("consequence"),
                    None => Some(kernel_union(&pick("consequence")?, &pick("alternative")?)),
                }
            }
            "identifier" | "qualified_identifier" | "template_function" => {
                if let Some(HostValue::Kernels(ks)) = env.get(self.t(n).trim()) {
                    return Some(ks.clone());
                }
                let plain = crate::front::syntax::unqualified(n);
                let name_node = match plain.kind() {
                    "template_function" => plain.child_by_field_name("name")?,
                    "identifier" => plain,
                    _ => return None,
                };
                // A name declared here (a variable, a parameter) is not a kernel.
                let name = self.t(name_node).trim();
                if plain.kind() == "identifier" && self.is_declared(name, env) {
                    return None;
                }
                let template_args = plain
                    .child_by_field_name("arguments")
                    .map(|a| {
                        crate::front::syntax::named_children(a)
                            .iter()
                            .map(|x| self.t(*x).split_whitespace().collect::<Vec<_>>().join(" "))
                            .collect()
                    })
                    .unwrap_or_default();
                Some(vec![KernelRef {
                    name: name.to_string(),
                    template_args,
                    template_values: self.template_values(plain, env),
                }])
            }
            _ => None,
        }
    }
}
