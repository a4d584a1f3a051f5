//! Kernel launches met while lowering host code: `k<16><<<g, b>>>(x)` and the runtime API's
//! launch calls, each recorded with its kernel, explicit template arguments and configuration
//! (the host reader gives the values each run of its function sees).

use crate::front::cuda::Launch;
use crate::front::lower::Lowering;
use crate::front::syntax::{children, named_children};
use tree_sitter::Node;

impl Lowering<'_> {
    /// `k<16><<<g, b>>>(x)`: recorded; the chevrons become `(  g, b  )`, a call of a call.
    pub(crate) fn launch(&mut self, syntax: Node<'_>) {
        let Some(call) = syntax.parent() else { return };
        let Some(f) = call.child_by_field_name("function") else {
            return;
        };
        let (name_node, template_args) = self.kernel_name(f);
        let name = self.t(name_node);
        let kernel = name.rsplit("::").next().unwrap_or(name).trim().to_string();
        let parts = children(syntax);
        let config = parts
            .iter()
            .filter(|c| c.is_named())
            .map(|c| c.byte_range())
            .collect();
        self.out.launches.push(Launch {
            kernel,
            template_args,
            config,
            span: f.start_byte()..syntax.end_byte(),
            values: Default::default(),
        });
        if let (Some(open), Some(close)) = (parts.first(), parts.last())
            && open.byte_range().len() == 3
            && close.byte_range().len() == 3
        {
            self.patch(open.start_byte(), "(  ");
            self.patch(close.start_byte(), "  )");
        }
        for c in parts.iter().filter(|c| c.is_named()) {
            self.lower(*c);
        }
    }

    /// A launch through the runtime API (see `syntax::api_launch`), recorded as `<<<...>>>`
    /// would be: the configuration it gives, at the kernel's name.
    pub(crate) fn api_launch(&mut self, api: &crate::front::syntax::ApiLaunch<'_>, call: Node<'_>) {
        let (name_node, template_args) = self.kernel_name(api.kernel);
        let name = self.t(name_node);
        self.out.launches.push(Launch {
            kernel: name.rsplit("::").next().unwrap_or(name).trim().to_string(),
            template_args,
            config: api.config.iter().map(|c| c.byte_range()).collect(),
            span: api.kernel.start_byte()..call.end_byte(),
            values: Default::default(),
        });
    }

    /// The name and the explicit template arguments of a launched kernel (`k<16, float>`).
    fn kernel_name<'t>(&self, f: Node<'t>) -> (Node<'t>, Vec<String>) {
        // `ns::k<T>`, `a::b::k<T>`: the template function inside.
        let f = crate::front::syntax::unqualified(f);
        match f.kind() {
            "template_function" => {
                let args = f
                    .child_by_field_name("arguments")
                    .map(|a| {
                        named_children(a)
                            .iter()
                            .map(|x| self.t(*x).split_whitespace().collect::<Vec<_>>().join(" "))
                            .collect()
                    })
                    .unwrap_or_default();
                (f.child_by_field_name("name").unwrap_or(f), args)
            }
            _ => (f, Vec::new()),
        }
    }
}
