//! Tensor maps in host code. `cuTensorMapEncodeTiled(&map, ..., swizzle, ...)` gives `map`
//! the swizzle mode its TMA copies lay tiles out with; so does a helper called with a
//! `CU_TENSOR_MAP_SWIZZLE_*` enumerator (`make_map(&map, p, CU_TENSOR_MAP_SWIZZLE_128B)`, or
//! `CUtensorMap map = make_map(p, CU_TENSOR_MAP_SWIZZLE_128B);`). A launch that passes `map`
//! then tells the kernel which layout its TMA-filled tiles have.

use crate::bank::tma::TmaSwizzle;
use crate::front::host_code::{Env, HostReader, HostValue};
use crate::front::syntax::named_children;
use tree_sitter::Node;

/// Where `cuTensorMapEncodeTiled` takes the swizzle (0-based).
const TILED_SWIZZLE_ARGUMENT: usize = 9;

/// A call that makes a tensor map: the name it writes through `&name` (none: the call's result
/// is the map), and the map.
pub struct TensorMapCall {
    pub target: Option<String>,
    pub value: HostValue,
}

impl HostReader<'_> {
    /// The tensor map a call makes, if it makes one.
    pub(super) fn tensor_map_call(&self, call: Node<'_>, env: &Env) -> Option<TensorMapCall> {
        let callee = call
            .child_by_field_name("function")
            .map_or("", |f| self.t(f));
        let args: Vec<Node<'_>> = call
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        let line = call.start_position().row + 1;
        let by_address = |a: &Node<'_>| {
            (a.kind() == "pointer_expression" && self.t(*a).starts_with('&'))
                .then(|| a.child_by_field_name("argument"))
                .flatten()
                .filter(|x| x.kind() == "identifier")
                .map(|x| self.t(x).to_string())
        };
        let mode = if callee.contains("TensorMapEncodeTiled") {
            let arg = args.get(TILED_SWIZZLE_ARGUMENT)?;
            match self.eval(*arg, env) {
                HostValue::Int(v) => TmaSwizzle::from_value(v)
                    .ok_or_else(|| format!("swizzle value {v} is not one banklint models")),
                HostValue::Unknown(why) => Err(format!(
                    "its swizzle `{}` is not known here: {why}",
                    self.t(*arg)
                )),
                _ => Err(format!(
                    "its swizzle `{}` is not an enumerator",
                    self.t(*arg)
                )),
            }
        } else if callee.contains("TensorMapEncode") {
            Err(format!(
                "`{callee}` makes a tensor map whose layout banklint does not model"
            ))
        } else {
            let written = args.iter().find_map(|a| {
                let t = self.t(*a).trim();
                t.rsplit("::")
                    .next()
                    .filter(|n| n.starts_with("CU_TENSOR_MAP_SWIZZLE_"))
                    .map(|n| (n.to_string(), TmaSwizzle::from_enumerator(n)))
            })?;
            match written {
                (_, Some(mode)) => Ok(mode),
                (name, None) => Err(format!("the swizzle mode `{name}` is not modeled")),
            }
        };
        Some(TensorMapCall {
            target: args.first().and_then(by_address),
            value: HostValue::TensorMap(mode, line),
        })
    }
}
