//! What the host reader records at each launch site, `k<<<grid, block>>>(a)` or a runtime-API
//! call (`cudaLaunchKernel`, `cudaLaunchKernelEx`, see `syntax::api_launch`): the block, the
//! template arguments and the kernel arguments, evaluated with the values in force there.

use crate::front::host_code::{Env, HostReader, HostValue, LaunchValues};
use crate::front::syntax::named_children;
use tree_sitter::Node;

impl HostReader<'_> {
    /// Records the launches inside `n` with the values in force.
    pub(super) fn launches_in(&mut self, n: Node<'_>, env: &Env) {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if x.kind() == "kernel_call_syntax" {
                self.chevron_launch(x, env);
            } else if x.kind() == "call_expression"
                && let Some(api) = crate::front::syntax::api_launch(x, self.src)
            {
                let block = match api.launch_config {
                    Some(config) => self.launch_config_block(config, env),
                    None => api.config.get(1).map(|b| self.eval(*b, env)),
                };
                self.record_launch(api.kernel, block, &api.arguments, env);
            } else if x.kind() == "template_function" {
                self.template_call(x, env);
            }
            if x.kind() == "lambda_expression" {
                self.lambda(x, env);
            } else {
                stack.extend(named_children(x));
            }
        }
    }

    /// The launches in a statement's header (a condition), not its body.
    pub(super) fn launches_in_header(&mut self, n: Node<'_>, env: &Env) {
        for field in ["condition", "initializer", "update"] {
            if let Some(c) = n.child_by_field_name(field) {
                self.launches_in(c, env);
            }
        }
    }

    /// `k<T><<<grid, block>>>(a, b)`.
    fn chevron_launch(&mut self, syntax: Node<'_>, env: &Env) {
        let Some(call) = syntax.parent() else { return };
        let Some(f) = call.child_by_field_name("function") else {
            return;
        };
        let block = named_children(syntax).get(1).copied();
        let arguments = call
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        let block = block.map(|b| self.eval(b, env));
        self.record_launch(f, block, &arguments, env);
    }

    /// The values at a launch of `kernel` (where its name starts: the key the front end's
    /// launch has too).
    fn record_launch(
        &mut self,
        kernel: Node<'_>,
        block: Option<HostValue>,
        arguments: &[Node<'_>],
        env: &Env,
    ) {
        let through = match env.get(self.t(kernel).trim()) {
            Some(HostValue::Kernels(ks)) => ks.clone(),
            _ => Vec::new(),
        };
        let values = LaunchValues {
            block,
            template_values: self.template_values(kernel, env),
            arguments: arguments.iter().map(|a| self.eval(*a, env)).collect(),
            host_args: self.instance.clone(),
            through,
        };
        self.launches.push((kernel.start_byte(), values));
    }

    /// The template arguments of a launched kernel (`k<BM, T>`, `ns::k<BM>`) as their values
    /// here: a number, a type, or `None` where unknown.
    pub(super) fn template_values(&self, f: Node<'_>, env: &Env) -> Vec<Option<String>> {
        let f = crate::front::syntax::unqualified(f);
        if f.kind() != "template_function" {
            return Vec::new();
        }
        f.child_by_field_name("arguments")
            .map(|a| {
                named_children(a)
                    .iter()
                    .map(|x| match self.eval(*x, env) {
                        HostValue::Int(v) => Some(v.to_string()),
                        HostValue::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}
