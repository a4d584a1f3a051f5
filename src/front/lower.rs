//! Lowering: rewrites device code, construct by construct from its syntax tree, into C that
//! lang-c parses, with the same length, so lang-c's offsets are offsets of the expanded text.
//!
//! CUDA words are blanked and recorded (`keywords`); C++ becomes C of the same length:
//! `static_cast<T>(x)` -> `(T)(x)`, `cg::tile` -> `cg__tile`, `T &x` -> `T *x`,
//! `f<16>(x)` -> `f(x)` with its template arguments recorded, `Tensor<T, 2> t` -> `Tensor t`,
//! `and` -> `&&`; what has no C form (lambdas, range-`for`, structured bindings, `new`) is
//! blanked and reported as skipped code with the construct named. Launches are recorded
//! wherever they are.

use crate::front::host_code::HostReader;
use crate::front::names::{FUNCTIONAL_CASTS, dependent_type_name};
use crate::front::prepared::{DependentType, Keyword, Prepared, Skipped};
use crate::front::syntax::{children, follows_with_qualified_call, named_children, text};
use std::borrow::Cow;
use std::ops::Range;
use tree_sitter::Node;

/// The edits lowering makes to the expanded text, and what it records.
pub struct Lowering<'p> {
    pub src: &'p str,
    pub out: &'p mut Prepared,
    /// Ranges replaced by spaces (newlines kept).
    pub blank: Vec<Range<usize>>,
    /// Same-length replacements.
    pub patches: Vec<(usize, Cow<'static, str>)>,
    /// Statements skipped whole: blanked, and no replacement inside them is written (the
    /// lowering of their parts, before or after the skip, would leave words behind that
    /// join the next statement: `Q__Load` + `f(x);` reads as a declaration).
    pub wiped: Vec<Range<usize>>,
    /// Reading host code: launches and template arguments are recorded, nothing is
    /// rewritten (host code is read for what it says about kernels, not parsed).
    pub host: bool,
    /// Host functions run as programs: what each launch sees.
    pub host_reader: HostReader<'p>,
    /// The namespace of the item being lowered, `a__b` for `namespace a::b` (empty: global).
    pub namespace: String,
    /// The source's first bracket error, found when a region that does not parse asks.
    pub bracket_error: std::cell::OnceCell<Option<crate::front::lex::BracketError>>,
    /// The template header of the class template being lowered, for its methods.
    pub class_template: Option<crate::front::prepared::TemplateHeader>,
    /// Methods read as device functions of their own, recorded while their class is
    /// lowered and added after its chunk (their ranges are left out of the class's parse).
    pub lifted: Vec<crate::front::prepared::Chunk>,
    /// `out.typenames` as a set (a tile library names thousands of types, each many times).
    pub(crate) typename_set: rustc_hash::FxHashSet<String>,
    /// How deep the tree being lowered goes (unknown: `usize::MAX`): below the limit no item
    /// needs its own depth measured.
    pub tree_depth: usize,
}

/// Whether a braced list stands where C wants an expression: an argument, a subscript, the
/// right side of an assignment or a `return` (not an initializer, which C reads as is).
fn in_expression(n: Node<'_>) -> bool {
    n.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "argument_list"
                | "subscript_argument_list"
                | "subscript_expression"
                | "assignment_expression"
                | "return_statement"
        )
    })
}

/// Statement kinds C has no form for: blanked and reported, with what to call them.
const NOT_IN_C: &[(&str, &str)] = &[
    ("for_range_loop", "a range-based `for` loop"),
    ("try_statement", "a `try` block"),
    ("throw_statement", "a `throw`"),
    ("co_return_statement", "a coroutine statement"),
    ("co_yield_statement", "a coroutine statement"),
];

impl<'p> Lowering<'p> {
    pub fn new(src: &'p str, out: &'p mut Prepared) -> Lowering<'p> {
        let typename_set = out.typenames.iter().cloned().collect();
        Lowering {
            src,
            out,
            blank: Vec::new(),
            patches: Vec::new(),
            wiped: Vec::new(),
            host: false,
            host_reader: HostReader::new(src),
            namespace: String::new(),
            bracket_error: std::cell::OnceCell::new(),
            class_template: None,
            lifted: Vec::new(),
            typename_set,
            tree_depth: usize::MAX,
        }
    }

    /// The tokens of `out.tokens` that start inside `span`.
    pub(crate) fn token_range(&self, span: &Range<usize>) -> Range<usize> {
        let tokens = &self.out.tokens;
        tokens.partition_point(|t| t.start < span.start)
            ..tokens.partition_point(|t| t.start < span.end)
    }

    pub(crate) fn t(&self, n: Node<'_>) -> &'p str {
        text(n, self.src)
    }

    pub fn blank_node(&mut self, n: Node<'_>) {
        self.blank.push(n.byte_range());
    }

    pub(crate) fn patch(&mut self, at: usize, s: impl Into<Cow<'static, str>>) {
        self.patches.push((at, s.into()));
    }

    fn keyword(&mut self, k: Keyword, n: Node<'_>) {
        self.out.keywords.push((k, n.start_byte()));
        self.blank_node(n);
    }

    /// Blanks a statement and says why it is not analyzed.
    fn skip(&mut self, n: Node<'_>, what: &str) {
        self.out.skipped.push(Skipped {
            span: n.byte_range(),
            reason: format!("{what} is C++ that banklint does not analyze; shared-memory accesses in it are not seen"),
        });
        self.wipe(n);
    }

    /// Lowers every node below `n` (device code, or host code read for its launches).
    pub fn lower(&mut self, n: Node<'_>) {
        // An explicit stack of nodes still to visit: deep code must not overflow ours.
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            if self.lower_one(n) {
                let kids = children(n);
                stack.extend(kids.into_iter().rev());
            }
        }
    }

    /// Lowers one node; returns whether its children still need lowering.
    fn lower_one(&mut self, n: Node<'_>) -> bool {
        if self.host {
            return self.read_host(n);
        }
        match n.kind() {
            "__global__" => self.keyword(Keyword::Global, n),
            "__device__" => self.keyword(Keyword::Device, n),
            "__host__" => self.keyword(Keyword::Host, n),
            "__forceinline__" | "__noinline__" | "__tile__" | "__tile_global__" => {
                self.keyword(Keyword::Other, n)
            }
            "launch_bounds"
            | "alignas_qualifier"
            | "attribute_declaration"
            | "attribute_specifier"
            | "virtual"
            | "explicit_function_specifier"
            | "static_assert_declaration"
            | "using_declaration"
            | "namespace_alias_definition"
            | "template_parameter_list"
            | "requires_clause"
            | "noexcept"
            | "throw_specifier"
            | "virtual_specifier"
            | "ref_qualifier"
            | "trailing_return_type"
            // `: w0_(static_cast<T *>(p))`: C has no member initializers; a lifted
            // constructor's are recorded as text (`methods::prepare_constructor`), and no
            // rewrite may land inside the blanked list.
            | "field_initializer_list" => self.blank_node(n),
            "type_qualifier" => return self.type_qualifier(n),
            "storage_class_specifier" if matches!(self.t(n), "thread_local" | "mutable") => {
                self.blank_node(n)
            }
            // `Ts... xs`, `const T *... ps`: a function parameter pack reads as one parameter
            // of the pattern's type (`const T *    ps`); what expands it is its own matter.
            "variadic_declarator" => {
                self.pack_parameter(n);
                for c in children(n).into_iter().filter(|c| c.kind() == "...") {
                    self.blank_node(c);
                }
            }
            "sizeof_expression" if self.pack_size(n) => {}
            "parameter_pack_expansion" if self.pack_expansion(n) => return false,
            "fold_expression" if self.fold(n) => return false,
            "alias_declaration" => self.alias(n),
            // Kept for lang-c; one in a function body is also resolved per instantiation.
            "type_definition" => {
                self.local_typedef(n);
                return true;
            }
            "ERROR" if self.type_after_attribute_macro(n) => {}
            "ERROR"
                if n.parent()
                    .is_some_and(|p| p.kind() == "variadic_parameter_declaration")
                    && self.stray_declarator_tokens(n) =>
            {
                return false;
            }
            // `typename KT::Reduce(tmp).Sum(x)`: the grammar has no functional cast of a
            // dependent type and leaves only the keyword as an error before an expression it
            // read; without the keyword it is a call, as lang-c reads the rest.
            "ERROR" if self.t(n) == "typename" && follows_with_qualified_call(n) => {
                self.blank_node(n)
            }
            // `make_tensor(p, typename KT::SmemLayout{})`: likewise the keyword alone, before
            // a value of the type written `T{}`.
            "ERROR"
                if self.t(n) == "typename"
                    && n.next_sibling().is_some_and(|s| {
                        s.kind() == "compound_literal_expression"
                            && s.child(0).is_some_and(|t| t.kind() == "qualified_identifier")
                    }) =>
            {
                self.blank_node(n)
            }
            // `const T *... ps`: the grammar takes only `T... ps`, and leaves the `*` of a pack
            // of pointers as an error; with the `...` gone it is plain C.
            "ERROR"
                if n.parent().is_some_and(|p| p.kind() == "variadic_parameter_declaration")
                    && self.t(n).chars().all(|c| c == '*' || c.is_whitespace()) => {}
            "ERROR" => self.error(n),
            "lambda_expression" => {
                self.out.skipped.push(Skipped {
                    span: n.byte_range(),
                    reason: "a lambda is C++ that banklint does not analyze; shared-memory accesses in its body are not seen".into(),
                });
                self.blank_node(n);
                self.patch(n.start_byte(), "0");
            }
            "new_expression" | "delete_expression" => {
                self.skip(enclosing_statement(n), "`new`/`delete`");
            }
            "declaration" if self.lift_lambda(n) => {}
            "declaration" if self.constructor_read_as_prototype(n) => {}
            "structured_binding_declarator" => {
                // `[a, b]` -> ` a, b `: the names stay, each declared as data.
                for c in children(n) {
                    match c.kind() {
                        "[" | "]" => self.blank_node(c),
                        "identifier" => self.out.structured_bindings.push(c.start_byte()),
                        _ => {}
                    }
                }
            }
            "initializer_list" if in_expression(n) => {
                let parts = children(n);
                let elements = named_children(n);
                match (
                    elements.first(),
                    elements.last(),
                    parts.first(),
                    parts.last(),
                ) {
                    (Some(first), Some(last), Some(open), Some(close))
                        if open.kind() == "{" && close.kind() == "}" =>
                    {
                        self.patch(open.start_byte(), "(");
                        self.patch(close.start_byte(), ")");
                        // A trailing comma, `{a, b,}`, has no place in a C comma expression.
                        for c in &parts {
                            if c.kind() == "," && c.start_byte() > last.end_byte() {
                                self.blank_node(*c);
                            }
                        }
                        self.out
                            .braced_lists
                            .push((first.start_byte(), last.end_byte()));
                        return true;
                    }
                    // `{}`: a value-initialized object, zero.
                    _ if elements.is_empty() && n.byte_range().len() >= 2 => {
                        self.blank_node(n);
                        self.patch(n.start_byte(), "0");
                    }
                    _ => return true,
                }
            }
            "expression_statement" if self.unread_statement_macro(n) => {}
            "expression_statement" if self.declaration_read_as_expression(n) => {}
            "expression_statement" if self.row_pointer_declaration(n) => {}
            "for_range_loop" if self.range_for(n) => return false,
            kind if NOT_IN_C.iter().any(|(k, _)| *k == kind) => {
                let what = NOT_IN_C
                    .iter()
                    .find(|(k, _)| *k == kind)
                    .map_or("", |(_, w)| w);
                self.skip(n, what);
            }
            "optional_parameter_declaration" => {
                // A default argument: C has none; the parameter stays, and the value is
                // kept for a call that leaves it out.
                if let Some(d) = n.child_by_field_name("default_value") {
                    if let Some(name) = (n.child_by_field_name("declarator"))
                        .and_then(|x| crate::front::syntax::find_descendant(x, &["identifier"]))
                        && let Some(text) = self.src.get(d.byte_range())
                    {
                        let text = text.to_string();
                        self.out.default_arguments.push((name.start_byte(), text));
                    }
                    for c in children(n) {
                        if c.kind() == "=" {
                            self.blank_node(c);
                        }
                    }
                    self.blank_node(d);
                }
                for c in children(n) {
                    if c.kind() == "ERROR" && self.stray_declarator_tokens(c) {
                        continue;
                    }
                    if c.kind() != "="
                        && Some(c.id()) != n.child_by_field_name("default_value").map(|d| d.id())
                    {
                        self.lower(c);
                    }
                }
            }
            "if_statement" => {
                for c in children(n) {
                    if c.kind() == "constexpr" {
                        self.blank_node(c);
                        // Its condition's start: the branch not taken is not instantiated.
                        if let Some(cond) = n.child_by_field_name("condition")
                            && let Some(value) = named_children(cond).first()
                        {
                            self.out.constexpr_ifs.push(value.start_byte());
                        }
                    }
                }
                return true;
            }
            "template_function" => self.template_function(n),
            "template_method" => self.template_method(n),
            "template_type" => self.template_type(n),
            "dependent_type" => self.dependent_type(n),
            "dependent_name" => {
                for c in children(n) {
                    if c.kind() == "template" {
                        self.blank_node(c);
                    }
                }
                return true;
            }
            "qualified_identifier" | "nested_namespace_specifier" => return self.qualified(n),
            "reference_declarator" | "abstract_reference_declarator" => {
                // `T &f(...)`: a function that returns a reference (see `reference_returns`).
                if n.named_child(0)
                    .is_some_and(|d| d.kind() == "function_declarator")
                    && let Some(f) = n.parent().filter(|p| p.kind() == "function_definition")
                {
                    self.out.reference_returns.push(f.byte_range());
                }
                self.reference_parameter(n);
                for c in children(n) {
                    match c.kind() {
                        "&" => self.patch(c.start_byte(), "*"),
                        "&&" => self.patch(c.start_byte(), "* "),
                        _ => {}
                    }
                }
                return true;
            }
            "placeholder_type_specifier" => {
                // `auto`: the analyzer takes the initializer's value, whatever the type.
                self.blank_node(n);
                if n.byte_range().len() >= 3 {
                    self.patch(n.start_byte(), "int");
                    self.out.auto_types.push(n.start_byte());
                }
            }
            "decltype" => self.as_identifier(n),
            "call_expression" => return self.call(n),
            "kernel_call_syntax" => self.launch(n),
            "init_declarator" => return self.init_declarator(n),
            "parameter_declaration" => {
                self.macro_after_parameter(n);
                return true;
            }
            "compound_literal_expression" => {
                // C++ `T{...}` is a value of class type: data, not an index.
                let first = n.child(0);
                if first.is_some_and(|f| f.kind() != "(") {
                    let ty = (n.child_by_field_name("type").or(first))
                        .map(|t| self.t(t).split_whitespace().collect::<Vec<_>>().join(" "))
                        .unwrap_or_default();
                    self.blank_node(n);
                    self.patch(n.start_byte(), "0");
                    let at = n.start_byte();
                    let values = &mut self.out.class_values;
                    let k = values.partition_point(|(o, _)| *o < at);
                    values.insert(k, (at, ty));
                } else {
                    return true;
                }
            }
            "binary_expression" | "unary_expression" => {
                for c in children(n) {
                    if let Some(op) = alternative_token(c.kind()) {
                        self.blank_node(c);
                        self.patch(c.start_byte(), op);
                    }
                }
                return true;
            }
            "class_specifier" | "struct_specifier" | "union_specifier" => {
                self.lower_class(n);
            }
            // `this->items` in a method: the field, which the analyzer binds by name.
            "field_expression"
                if n.child(0).is_some_and(|c| c.kind() == "this")
                    && n.child(1).is_some_and(|c| c.kind() == "->") =>
            {
                for c in children(n).into_iter().take(2) {
                    self.blank_node(c);
                }
            }
            "gnu_asm_expression" => {
                // lang-c reads GNU asm; its operands are expressions like any other.
                return true;
            }
            _ => return true,
        }
        false
    }

    /// In host code: launches and explicit template arguments.
    fn read_host(&mut self, n: Node<'_>) -> bool {
        match n.kind() {
            "kernel_call_syntax" => self.launch(n),
            "call_expression" => {
                if let Some(api) = crate::front::syntax::api_launch(n, self.src) {
                    self.api_launch(&api, n);
                }
                return true;
            }
            // Host code cannot declare shared memory: the function was misread, most likely
            // for a word before it that banklint does not know.
            "type_qualifier" if self.t(n) == "__shared__" => {
                self.out.skipped.push(Skipped {
                    span: n.byte_range(),
                    reason: "`__shared__` in a function banklint reads as host code: nothing it knows marks the function `__global__` or `__device__` (a macro or attribute before its name may be one banklint does not know; define it with `-D`)".into(),
                });
                return true;
            }
            "template_function" => {
                if let (Some(name), Some(args)) = (
                    n.child_by_field_name("name"),
                    n.child_by_field_name("arguments"),
                ) {
                    self.record_arguments(name.start_byte(), args);
                }
                return true;
            }
            _ => return true,
        }
        false
    }

    fn type_qualifier(&mut self, n: Node<'_>) -> bool {
        match self.t(n) {
            "__shared__" => self.keyword(Keyword::Shared, n),
            "__constant__" => self.keyword(Keyword::Constant, n),
            "constexpr" => self.keyword(Keyword::Constexpr, n),
            "__managed__" | "__grid_constant__" | "__restrict__" | "__local__" | "constinit"
            | "consteval" | "mutable" | "__tile__" | "__device__" | "__global__" => {
                self.keyword(Keyword::Other, n)
            }
            _ if has_child(n, "alignas_qualifier") => self.blank_node(n),
            // A method's `const` after its parameters: C has no such thing.
            "const" | "volatile"
                if n.parent()
                    .is_some_and(|p| p.kind() == "function_declarator") =>
            {
                self.blank_node(n)
            }
            _ => return true,
        }
        false
    }

    /// `using T = X;`: a type name for lang-c, its meaning for the analyzer.
    fn alias(&mut self, n: Node<'_>) {
        if let (Some(name), Some(ty)) =
            (n.child_by_field_name("name"), n.child_by_field_name("type"))
        {
            let name = self.t(name).to_string();
            let ty = self.t(ty).split_whitespace().collect::<Vec<_>>().join(" ");
            self.local_alias(n, &name, &ty);
            self.out.aliases.push((name.clone(), ty));
            self.add_typename(name);
        }
        self.blank_node(n);
    }

    /// An alias in a function body may name the function's template parameters (`using T =
    /// typename K::compute_t;`): recorded to be resolved per instantiation.
    fn local_alias(&mut self, n: Node<'_>, name: &str, ty: &str) {
        if std::iter::successors(n.parent(), |p| p.parent())
            .any(|p| p.kind() == "compound_statement")
        {
            self.out
                .local_aliases
                .push((n.start_byte(), name.to_string(), ty.to_string()));
        }
    }

    /// `typedef PackedStorage<T, N> P;` in a function body: a local alias too.
    fn local_typedef(&mut self, n: Node<'_>) {
        let Some(ty) = n.child_by_field_name("type") else {
            return;
        };
        let ty = self.t(ty).split_whitespace().collect::<Vec<_>>().join(" ");
        for d in named_children(n) {
            if d.kind() == "type_identifier" {
                let name = self.t(d).to_string();
                self.local_alias(n, &name, &ty);
            }
        }
    }

    /// `static _CCCL_DEVICE FType *f()`: a word banklint does not know before a function's
    /// type (an attribute macro from a header it did not read) is taken for the type, and
    /// the real type becomes an error node. Two types in a row are no C++, so the first word
    /// is blanked and the type kept.
    fn type_after_attribute_macro(&mut self, n: Node<'_>) -> bool {
        let Some(f) = n.parent().filter(|p| p.kind() == "function_definition") else {
            return false;
        };
        let (Some(word), Some(declarator)) = (
            f.child_by_field_name("type"),
            f.child_by_field_name("declarator"),
        ) else {
            return false;
        };
        let parts = named_children(n);
        let type_like = !parts.is_empty()
            && parts.iter().all(|c| {
                matches!(
                    c.kind(),
                    "identifier" | "type_identifier" | "primitive_type" | "sized_type_specifier"
                )
            });
        if word.kind() != "type_identifier"
            || word.end_byte() > n.start_byte()
            || n.end_byte() > declarator.start_byte()
            || !type_like
        {
            return false;
        }
        self.blank_node(word);
        for c in parts {
            let word = self.t(c);
            let keyword =
                crate::front::names::is_type_keyword(word) || matches!(word, "static" | "inline");
            if matches!(c.kind(), "identifier" | "type_identifier") && !keyword {
                self.add_typename(word.to_string());
            }
        }
        true
    }

    /// `void setup(int &n)`, declared or defined: its parameter is a non-const reference,
    /// which a call banklint does not follow may write (see `Prepared::reference_params`).
    pub(crate) fn reference_parameter(&mut self, n: Node<'_>) {
        let Some(param) = n.parent().filter(|p| p.kind() == "parameter_declaration") else {
            return;
        };
        let constant = children(param)
            .iter()
            .any(|c| c.kind() == "type_qualifier" && self.t(*c) == "const");
        let Some(list) = param.parent().filter(|l| l.kind() == "parameter_list") else {
            return;
        };
        let Some(function) = list
            .parent()
            .filter(|f| f.kind() == "function_declarator")
            .and_then(|f| f.child_by_field_name("declarator"))
        else {
            return;
        };
        let index = named_children(list)
            .iter()
            .filter(|c| c.kind().ends_with("parameter_declaration"))
            .position(|c| c.id() == param.id());
        let name = self.t(function).rsplit("::").next().unwrap_or("").trim();
        if let Some(index) = index
            && !constant
            && !name.is_empty()
        {
            self.out.reference_params.push((name.to_string(), index));
        }
    }

    /// `uint8_t * = nullptr`, `const T & = T{}`: an unnamed parameter with a default, which the
    /// grammar reads only with a name, and `T *... ptrs`, a pack of pointers, which it reads
    /// only without the `*`: both leave the `*`/`&` as an error. It is the declarator C reads
    /// (`uint8_t *`, `T *    ptrs`), a reference as a pointer, as elsewhere.
    fn stray_declarator_tokens(&mut self, n: Node<'_>) -> bool {
        let tokens = children(n);
        if tokens.is_empty()
            || !(tokens.iter()).all(|c| {
                matches!(
                    c.kind(),
                    "*" | "&"
                        | "&&"
                        | "type_qualifier"
                        | "abstract_pointer_declarator"
                        | "abstract_reference_declarator"
                )
            })
        {
            return false;
        }
        for c in tokens {
            match c.kind() {
                "&" => self.patch(c.start_byte(), "*"),
                "&&" => self.patch(c.start_byte(), "* "),
                "*" => {}
                _ => {
                    self.lower(c);
                }
            }
        }
        true
    }

    /// A syntax error: the smallest statement around it is reported and left out.
    fn error(&mut self, n: Node<'_>) {
        if self.unread_macro_word(n) {
            return;
        }
        let stmt = enclosing_statement(n);
        let first = self.t(n).split_whitespace().next().unwrap_or("");
        let first: String = first.chars().take(24).collect();
        self.out.skipped.push(Skipped {
            span: stmt.byte_range(),
            reason: if first.is_empty() {
                "this statement has a syntax error".to_string()
            } else {
                format!("this statement does not parse (at `{first}`)")
            },
        });
        self.wipe(stmt);
    }

    /// Blanks a statement skipped whole, replacements inside it included.
    fn wipe(&mut self, stmt: Node<'_>) {
        self.blank_node(stmt);
        self.wiped.push(stmt.byte_range());
    }

    /// `typename vec4<T>::Type` -> one identifier of the same length, resolved once `T` is
    /// bound; other dependent types become an identifier the analyzer does not know.
    fn dependent_type(&mut self, n: Node<'_>) {
        let whole = self.t(n);
        if let Some(name) = dependent_type_name(whole)
            && let Some(q) = n.named_child(0)
        {
            let span = q.byte_range();
            if name.len() <= span.len() {
                let inner = self.t(q);
                let (class, rest) = inner.split_once('<').unwrap_or((inner, ""));
                let (args, member) = rest.rsplit_once('>').unwrap_or(("", ""));
                let args: Vec<String> = args.split(',').map(|a| a.trim().to_string()).collect();
                let member = member.trim().trim_start_matches("::").trim().to_string();
                self.blank(n.start_byte()..span.start);
                self.blank(span.clone());
                self.patch(span.start, name.clone());
                if !self.out.dependent_types.iter().any(|d| d.name == name) {
                    self.out.dependent_types.push(DependentType {
                        name: name.clone(),
                        class: class.trim().to_string(),
                        args,
                        member,
                    });
                }
                self.add_typename(name);
                return;
            }
        }
        // `typename T::value_type`: blank `typename`, the rest one identifier.
        if let Some(q) = n.named_child(0) {
            self.blank(n.start_byte()..q.start_byte());
            self.as_identifier(q);
        }
    }

    pub(crate) fn blank(&mut self, r: Range<usize>) {
        if !r.is_empty() {
            self.blank.push(r);
        }
    }

    /// `a::b::c` -> `a__b__c`; a leading `::` goes; with template arguments inside a type
    /// (`cub::BlockReduce<T, 128>::TempStorage`), the whole name becomes one identifier.
    fn qualified(&mut self, n: Node<'_>) -> bool {
        let in_type = is_type_position(n);
        let has_template_scope = named_children(n).iter().any(|c| {
            c.kind() == "template_type" && c.end_byte() < n.end_byte()
                || c.kind() == "qualified_identifier" && self.t(*c).contains('<') && {
                    // The template part is not the last component.
                    let t = self.t(*c);
                    t.rfind('>').is_some_and(|p| t[p..].contains("::"))
                }
        });
        if has_template_scope && self.call_through_class_template(n) {
            return false;
        }
        if has_template_scope {
            // `AsianOption<Real>::Put`, `Info<T>::convert(x)`: one name the analysis does
            // not know (a value it treats as data, a call it cannot follow).
            self.as_identifier(n);
            return false;
        }
        if self.spaced_qualifiers(n) {
            return false;
        }
        // Join the `::` of this name (nested parts are reached as children).
        for c in children(n) {
            if c.kind() == "::" {
                let before = c.prev_sibling();
                let after = c.next_sibling();
                let joined = before.is_some_and(|b| b.end_byte() == c.start_byte())
                    && after.is_some_and(|a| a.start_byte() == c.end_byte());
                if joined {
                    self.patch(c.start_byte(), "__");
                } else {
                    self.blank_node(c);
                }
            }
        }
        if in_type {
            let joined = self.t(n).replace("::", "__");
            let name = joined
                .split('<')
                .next()
                .unwrap_or(&joined)
                .trim()
                .to_string();
            if name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                self.add_typename(name);
            }
        }
        true
    }

    /// Replaces a type's text by one identifier of the same length (every character that
    /// cannot be in a name becomes `_`), declared as a type name the analyzer does not know.
    fn as_identifier(&mut self, n: Node<'_>) {
        let t = self.t(n);
        let ident: String = t
            .chars()
            .flat_map(|c| {
                let r = if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                };
                std::iter::repeat_n(r, c.len_utf8())
            })
            .collect();
        let ident = if ident.starts_with(|c: char| c.is_ascii_digit()) {
            format!("_{}", &ident[1..])
        } else {
            ident
        };
        self.blank_node(n);
        self.patch(n.start_byte(), ident.clone());
        self.add_typename(ident);
    }

    pub fn add_typename(&mut self, name: String) {
        if !name.is_empty() && self.typename_set.insert(name.clone()) {
            self.out.typenames.push(name);
        }
    }

    /// Calls: functional casts `float(x)`, launches, and C++ casts reached through
    /// `template_function`.
    fn call(&mut self, n: Node<'_>) -> bool {
        if let Some(f) = n.child_by_field_name("function")
            && f.kind() == "primitive_type"
            && let Some((_, alias)) = FUNCTIONAL_CASTS.iter().find(|(w, _)| *w == self.t(f))
        {
            self.blank_node(f);
            self.patch(f.start_byte(), *alias);
        }
        true
    }

    /// `T x(a, b)` (a constructor call) and `T x{a}` (brace initialization).
    fn init_declarator(&mut self, n: Node<'_>) -> bool {
        let Some(value) = n.child_by_field_name("value") else {
            return true;
        };
        match value.kind() {
            "argument_list" => {
                // A constructor's arguments: the object is data, not an index. Kept as
                // written: an object built from a shared-memory pointer is noted.
                self.blank_node(value);
                if let Some(d) = n.child_by_field_name("declarator") {
                    let args = self.t(value);
                    let args = args.strip_prefix('(').unwrap_or(args);
                    let args = args.strip_suffix(')').unwrap_or(args).trim().to_string();
                    self.out.constructor_args.push((d.start_byte(), args));
                    self.lower(d);
                }
                false
            }
            "initializer_list" if !has_child(n, "=") => {
                let elements = named_children(value);
                let parts = children(value);
                if let ([one], Some(open), Some(close)) =
                    (elements.as_slice(), parts.first(), parts.last())
                {
                    // `int m{3}` -> `int m=3 `.
                    self.patch(open.start_byte(), "=");
                    self.patch(close.start_byte(), " ");
                    if let Some(d) = n.child_by_field_name("declarator") {
                        self.lower(d);
                    }
                    self.lower(*one);
                } else if self.src.as_bytes().get(value.start_byte().wrapping_sub(1)) == Some(&b' ')
                {
                    // `float4 v {a, b}` -> `float4 v={a, b}`.
                    self.patch(value.start_byte() - 1, "=");
                    return true;
                } else {
                    self.blank_node(value);
                    if let Some(d) = n.child_by_field_name("declarator") {
                        let elements = self.t(value);
                        let elements = elements.strip_prefix('{').unwrap_or(elements);
                        let elements = elements.strip_suffix('}').unwrap_or(elements);
                        let elements = elements.trim().to_string();
                        self.out
                            .braced_initializers
                            .push((d.start_byte(), elements));
                        self.lower(d);
                    }
                }
                false
            }
            _ => true,
        }
    }

    /// `cg::thread_block_tile<32> t = ...;` reads as a comparison to a grammar without a
    /// symbol table: `Name<args> ident` followed by `=`, `;`, `,`, `[` or `{` is a
    /// declaration. Lowered as one: the name joined, the arguments recorded and blanked.
    fn declaration_read_as_expression(&mut self, n: Node<'_>) -> bool {
        let toks = crate::front::lex::tokenize(self.t(n));
        let base = n.start_byte();
        let src = self.t(n);
        let word = |k: usize| toks.get(k).map_or("", |t| t.text(src));
        // Name (`::` Name)* `<`
        let mut k = 0;
        if toks
            .first()
            .is_none_or(|t| t.kind != crate::front::lex::TokenKind::Ident)
        {
            return false;
        }
        while word(k + 1) == "::" && toks.get(k + 2).is_some() {
            k += 2;
        }
        if word(k + 1) != "<" || toks[k].end != toks[k + 1].start {
            return false;
        }
        let Some(close) = crate::front::lex::matching_angle(src, &toks, k + 1) else {
            return false;
        };
        let declared = toks
            .get(close + 1)
            .is_some_and(|t| t.kind == crate::front::lex::TokenKind::Ident)
            && matches!(word(close + 2), "=" | ";" | "," | "[" | "{");
        let reference = word(close + 1) == "&"
            && toks
                .get(close + 2)
                .is_some_and(|t| t.kind == crate::front::lex::TokenKind::Ident);
        if !declared && !reference {
            return false;
        }
        let name: String = (0..=k).map(word).collect::<String>().replace("::", "__");
        for j in (1..=k).step_by(2) {
            if word(j) == "::" {
                self.patch(base + toks[j].start, "__");
            }
        }
        let args = crate::front::lex::argument_texts(src, &toks[k + 2..close]);
        self.out.template_calls.push((base + toks[k].start, args));
        self.blank(base + toks[k + 1].start..base + toks[close].end);
        if reference {
            self.patch(base + toks[close + 1].start, "*");
        }
        self.add_typename(name);
        // The initializer is an expression like any other.
        if let Some(eq) = (close + 2..toks.len()).find(|&j| word(j) == "=") {
            let from = base + toks[eq].end;
            let mut stack: Vec<Node<'_>> = Vec::new();
            let mut c = n.walk();
            let mut pending = vec![n];
            while let Some(x) = pending.pop() {
                if x.start_byte() >= from {
                    stack.push(x);
                } else if x.end_byte() > from {
                    pending.extend(x.children(&mut c).collect::<Vec<_>>());
                }
            }
            for x in stack {
                self.lower(x);
            }
        }
        true
    }
}

/// The C spelling of a C++ alternative operator token.
fn alternative_token(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "and" => "&&",
        "or" => "||",
        "not" => "!",
        "bitand" => "&",
        "bitor" => "|",
        "xor" => "^",
        "compl" => "~",
        "and_eq" => "&=",
        "or_eq" => "|=",
        "xor_eq" => "^=",
        "not_eq" => "!=",
        _ => return None,
    })
}

fn has_child(n: Node<'_>, kind: &str) -> bool {
    children(n).iter().any(|c| c.kind() == kind)
}

/// The statement (or declaration) that contains `n`: what to leave out when `n` cannot be
/// lowered.
pub fn enclosing_statement(n: Node<'_>) -> Node<'_> {
    let mut cur = n;
    loop {
        let Some(p) = cur.parent() else { return cur };
        let is_statement = cur.kind().ends_with("_statement")
            || matches!(
                cur.kind(),
                "declaration" | "field_declaration" | "for_range_loop" | "compound_statement"
            );
        if is_statement && matches!(p.kind(), "compound_statement" | "field_declaration_list") {
            return cur;
        }
        if matches!(
            p.kind(),
            "translation_unit" | "declaration_list" | "function_definition"
        ) {
            return cur;
        }
        cur = p;
    }
}

/// Whether a name is used as a type (a declaration's type, a cast, a template argument).
pub(crate) fn is_type_position(n: Node<'_>) -> bool {
    let Some(p) = n.parent() else { return false };
    match p.kind() {
        "declaration"
        | "field_declaration"
        | "parameter_declaration"
        | "optional_parameter_declaration"
        | "type_descriptor"
        | "type_definition"
        | "dependent_type"
        | "function_definition"
        | "template_argument_list"
        | "new_expression"
        | "compound_literal_expression"
        | "sizeof_expression"
        | "alias_declaration" => p
            .child_by_field_name("type")
            .is_none_or(|t| t.id() == n.id()),
        "qualified_identifier" => is_type_position(p),
        _ => false,
    }
}
