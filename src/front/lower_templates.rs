//! Template arguments in device code: `f<16, float>(x)` and `x.template get<2>()` read as
//! calls with their arguments recorded at the name, C++ casts as a marker call, template types
//! as their name, and the comparison the grammar misreads as a template (`m < size<1>(S)`).

use crate::front::casts::CAST_MARKER;
use crate::front::lower::Lowering;
use crate::front::names::CXX_CASTS;
use crate::front::syntax::named_children;
use tree_sitter::Node;

impl Lowering<'_> {
    /// `f<16, float>(x)` -> `f(x)`, the arguments recorded at the name;
    /// `static_cast<T>(x)` -> `(T)(x)`.
    pub(crate) fn template_function(&mut self, n: Node<'_>) {
        let (Some(name), Some(args)) = (
            n.child_by_field_name("name"),
            n.child_by_field_name("arguments"),
        ) else {
            return;
        };
        if self.comparison_read_as_template(n, name, args) {
            return;
        }
        let cast = CXX_CASTS.contains(&self.t(name));
        if cast && n.parent().is_some_and(|p| p.kind() == "call_expression") {
            // `static_cast<T>(x)` -> `__cast(x)` (a call binds like the C++ cast; its C
            // spelling would not), the type recorded for after parsing (see `casts`).
            let ty = named_children(args)
                .first()
                .map(|t| self.t(*t).split_whitespace().collect::<Vec<_>>().join(" "))
                .unwrap_or_default();
            self.blank_node(n);
            self.patch(n.start_byte(), CAST_MARKER);
            self.out.casts.push((n.start_byte(), ty));
            return;
        }
        self.lower(name);
        self.record_arguments(name.start_byte(), args);
        // `wt::fill<BM>(s)` reads as `wt__fill(s)`: the call starts at a qualifier. Which
        // one depends on what was blanked (a leading `::`), so each records the arguments.
        let mut outer = n.parent();
        while let Some(q) = outer.filter(|q| q.kind() == "qualified_identifier") {
            self.record_arguments(q.start_byte(), args);
            outer = q.parent();
        }
        self.blank_node(args);
    }

    /// `m < size<1>(S)`: the grammar reads `m<size<1>(S)` as a call of a template `m` given
    /// `size < 1`; C++ does not when `m` is a variable. Where one of that name is declared
    /// before, the `<` is a comparison and `size<1>(S)` the call: its arguments are recorded
    /// at `size` and blanked, and `m <` is left as written.
    fn comparison_read_as_template(&mut self, n: Node<'_>, name: Node<'_>, args: Node<'_>) -> bool {
        let inner = named_children(args);
        let [compare] = inner.as_slice() else {
            return false;
        };
        let (Some(callee), Some(first_arg), Some(op)) = (
            compare.child_by_field_name("left"),
            compare.child_by_field_name("right"),
            compare.child_by_field_name("operator"),
        ) else {
            return false;
        };
        if compare.kind() != "binary_expression"
            || op.kind() != "<"
            || !matches!(callee.kind(), "identifier" | "qualified_identifier")
            || name.kind() != "identifier"
            || n.parent().is_none_or(|p| p.kind() != "call_expression")
            || !crate::front::syntax::declares_variable_before(n, self.t(name), self.src)
        {
            return false;
        }
        let written = self
            .t(first_arg)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        self.lower(callee);
        self.out
            .template_calls
            .push((callee.start_byte(), vec![written.clone()]));
        let mut at = callee.child_by_field_name("name");
        while let Some(q) = at {
            self.out
                .template_calls
                .push((q.start_byte(), vec![written.clone()]));
            at = q.child_by_field_name("name");
        }
        self.blank(op.start_byte()..args.end_byte());
        true
    }

    /// `x.template get<2>()`.
    pub(crate) fn template_method(&mut self, n: Node<'_>) {
        if let (Some(name), Some(args)) = (
            n.child_by_field_name("name"),
            n.child_by_field_name("arguments"),
        ) {
            self.record_arguments(name.start_byte(), args);
            self.blank_node(args);
        }
    }

    /// `Tensor<T, 2, true>` in a type: `Tensor`, a type name, its arguments recorded.
    pub(crate) fn template_type(&mut self, n: Node<'_>) {
        let (Some(name), Some(args)) = (
            n.child_by_field_name("name"),
            n.child_by_field_name("arguments"),
        ) else {
            return;
        };
        self.record_arguments(name.start_byte(), args);
        self.blank_node(args);
        let name = self.t(name).to_string();
        self.add_typename(name);
    }

    pub(crate) fn record_arguments(&mut self, at: usize, args: Node<'_>) {
        let list: Vec<String> = named_children(args)
            .iter()
            .map(|a| self.t(*a).split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        self.out.template_calls.push((at, list));
    }
}
