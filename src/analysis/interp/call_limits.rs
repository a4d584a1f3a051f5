//! When a call is not inlined: recursion (a call repeating an instantiation being run),
//! the depth of inlined calls, or the budget of calls followed (see `limits`).

use super::*;

impl Analyzer<'_, '_> {
    /// Why a call of `f` is not inlined: recursion, depth, or the budget of inlined calls.
    pub(super) fn not_inlined_because(
        &self,
        f: &Function,
        call: &CallExpression,
    ) -> Option<String> {
        if self.instances.contains(&self.instance_key(f, call)) {
            Some(format!(
                "`{}` calls itself (recursion is not followed)",
                f.name
            ))
        } else if self.call_depth >= MAX_CALL_DEPTH {
            Some(format!(
                "calls are followed {MAX_CALL_DEPTH} levels deep (banklint's limit)"
            ))
        } else if self.inlined_calls >= MAX_INLINED_CALLS {
            Some(format!(
                "{MAX_INLINED_CALLS} calls were already followed in this function (banklint's limit)"
            ))
        } else {
            None
        }
    }

    /// The instantiation a call of `f` runs: its definition, and for a template the template
    /// arguments written at the call (the caller's constants and types put in) and the number
    /// of arguments (a pack's length). `largest(a, rest...)` calling itself with one argument
    /// fewer, or `f<N - 1>()` in `f<N>`, is another instantiation each time, as the compiler
    /// sees it: followed, `MAX_CALL_DEPTH` bounding it. With the caller's `N` unknown, the
    /// text stays `N - 1` and the repeat is recursion.
    pub(super) fn instance_key(&self, f: &Function, call: &CallExpression) -> String {
        let key = f.definition_key();
        if f.template.is_none() {
            return key;
        }
        let at = match &call.callee.node {
            Expression::Member(m) => self.span(m.node.identifier.span).start,
            _ => self.span(call.callee.span).start,
        };
        let written = self.template_arguments_at(at);
        if written.is_empty() {
            return format!("{key}/{}", call.arguments.len());
        }
        // Each word of the arguments a constant or type of the caller names, replaced by it
        // (word by word: the caller's bindings are many, the words few).
        let value = |word: &str| match self.template_values.get(word).and_then(Lanes::as_const) {
            Some(v) => Some(v.to_string()),
            None => self.type_args.get(word).cloned(),
        };
        let text = (written.iter())
            .map(|arg| crate::front::names::replace_words_with(arg, value))
            .collect::<Vec<_>>()
            .join(", ");
        format!("{key}<{text}>/{}", call.arguments.len())
    }
}
