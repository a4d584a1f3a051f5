//! Top-level items, read from the syntax tree: the functions and declarations lang-c parses
//! one by one, found inside namespaces, `extern "C"` blocks and template declarations;
//! each function classified as kernel, device or host code by its qualifiers (macros are
//! expanded by then, so `RAFT_KERNEL` reads as `__global__`); template headers and explicit
//! instantiations recorded; C++ classes turned into C structs of the same layout, with their
//! member typedefs, static members (see `class_records`) and shared-memory wrappers recorded.

use crate::front::class_records::{
    record_bases, record_member_enumerators, record_member_typedef, record_static_member,
};
use crate::front::lower::Lowering;
use crate::front::prepared::{Chunk, ChunkKind, Skipped, TemplateHeader, WrapperArray};
use crate::front::syntax::{children, depth_exceeds, find_descendant, named_children, text};
use crate::front::template_records::{
    record_alias_template, record_concept, record_template_fields, record_variable_template,
};
use crate::limits::MAX_NESTING;
use tree_sitter::Node;

/// Syntax-tree depth past which an item is not lowered: the C parser and the analyzer
/// recurse once per level. A tree level is about one bracket or operator.
const MAX_TREE_DEPTH: usize = 4 * MAX_NESTING;

/// Walks the file's top-level declarations, lowering each item and recording its chunk.
pub fn lower_items(
    l: &mut Lowering<'_>,
    root: Node<'_>,
    includer_calls: Option<crate::front::host_templates::IncluderCalls<'_>>,
) {
    l.tree_depth = crate::front::type_names::collect_type_names(l, root);
    // Each node with the namespace it is in.
    let mut pending: Vec<(Node<'_>, String)> = named_children(root)
        .into_iter()
        .map(|n| (n, String::new()))
        .collect();
    pending.reverse();
    while let Some((n, namespace)) = pending.pop() {
        l.namespace.clone_from(&namespace);
        match n.kind() {
            "namespace_definition" => {
                // `namespace a::b {` and its `}` go; what is inside is read as top level,
                // remembering the namespace (an anonymous one adds nothing).
                if let Some(body) = n.child_by_field_name("body") {
                    l.blank.push(n.start_byte()..body.start_byte() + 1);
                    l.blank
                        .push(body.end_byte().saturating_sub(1)..body.end_byte());
                    let inner_namespace = match n.child_by_field_name("name") {
                        Some(name) => {
                            let name = text(name, l.src).replace("::", "__");
                            let name = name.split_whitespace().collect::<String>();
                            if namespace.is_empty() {
                                name
                            } else {
                                format!("{namespace}__{name}")
                            }
                        }
                        None => namespace.clone(),
                    };
                    let mut inner: Vec<_> = named_children(body)
                        .into_iter()
                        .map(|c| (c, inner_namespace.clone()))
                        .collect();
                    inner.reverse();
                    pending.extend(inner);
                } else {
                    l.blank_node(n);
                }
            }
            "linkage_specification" => {
                // `extern "C" ...`: the words go, the declarations stay.
                let Some(body) = n.child_by_field_name("body") else {
                    l.blank_node(n);
                    continue;
                };
                l.blank.push(n.start_byte()..body.start_byte());
                if body.kind() == "declaration_list" {
                    l.blank.push(body.start_byte()..body.start_byte() + 1);
                    l.blank
                        .push(body.end_byte().saturating_sub(1)..body.end_byte());
                    let mut inner: Vec<_> = named_children(body)
                        .into_iter()
                        .map(|c| (c, namespace.clone()))
                        .collect();
                    inner.reverse();
                    pending.extend(inner);
                } else {
                    pending.push((body, namespace.clone()));
                }
            }
            "template_declaration" => template_declaration(l, n),
            "template_instantiation" => {
                // `template void reduce<int>(...)`: its arguments say what the host code
                // instantiates. No item: nothing in it for lang-c.
                record_call_arguments(l, n);
            }
            "function_definition" => item(l, n, n),
            "declaration" | "type_definition" | "enum_specifier" | "struct_specifier"
            | "class_specifier" | "union_specifier" => item(l, n, n),
            "alias_declaration"
            | "using_declaration"
            | "namespace_alias_definition"
            | "static_assert_declaration"
            | "concept_definition" => l.lower(n),
            "ERROR" => error_at_top(l, n),
            // Anything else at file scope (a stray `;`, a leftover macro call) is no item.
            _ => {}
        }
    }
    // Each launch read as part of its host function gets the values it sees, once per run
    // of that function.
    l.host_reader.classes.sync(l.out);
    // Templates only the includers instantiate run with the includers' calls.
    if let Some(provide) = includer_calls {
        let names = l.host_reader.unrun_before_runs();
        if !names.is_empty() {
            let calls = provide(l.out, &names);
            l.host_reader.import_calls(calls);
        }
    }
    l.host_reader.finish(root);
    l.out.host_template_calls = l.host_reader.calls().to_vec();
    let values = std::mem::take(&mut l.host_reader.launches);
    for (at, v) in values {
        // Runs that see the same values (the two sides of a dispatch switch) are one.
        if let Some(launch) = l.out.launches.iter_mut().find(|x| x.span.start == at)
            && !launch.values.contains(&v)
        {
            launch.values.push(v);
        }
    }
}

/// `template <...>` and what it declares.
fn template_declaration(l: &mut Lowering<'_>, n: Node<'_>) {
    let Some(params) = n.child_by_field_name("parameters") else {
        return;
    };
    let header = template_header(l, n, params);
    l.out.templates.push(header.clone());
    l.blank.push(n.start_byte()..params.end_byte());
    for inner in named_children(n) {
        if inner.id() == params.id() {
            continue;
        }
        match inner.kind() {
            "struct_specifier" | "class_specifier" | "union_specifier" => {
                record_template_fields(l, inner);
                let outer = l.class_template.replace(header.clone());
                item(l, inner, n);
                l.class_template = outer;
            }
            "declaration" if record_variable_template(l, inner, &header) => item(l, inner, n),
            "function_definition" => {
                if header.params.is_empty() {
                    record_explicit_specialization(l, inner, n);
                }
                item(l, inner, n)
            }
            "declaration" | "type_definition" => item(l, inner, n),
            "template_declaration" => template_declaration(l, inner),
            "requires_clause" => l.blank_node(inner),
            "alias_declaration" => {
                record_alias_template(l, inner, &header);
                l.lower(inner);
            }
            "concept_definition" => {
                record_concept(l, inner, &header);
                l.lower(inner);
            }
            _ => l.lower(inner),
        }
    }
}

/// `template <> __device__ void store<16>(...)`, an explicit specialization of a function
/// template: its written arguments, by the definition's range, choose it among the
/// definitions a call `store<16>(...)` could run (see `analysis::interp::overloads`).
fn record_explicit_specialization(l: &mut Lowering<'_>, f: Node<'_>, whole: Node<'_>) {
    let mut d = f.child_by_field_name("declarator");
    while let Some(n) = d.filter(|n| n.kind() != "function_declarator") {
        d = n.child_by_field_name("declarator");
    }
    let Some(args) = d
        .and_then(|fd| fd.child_by_field_name("declarator"))
        .filter(|name| name.kind() == "template_function")
        .and_then(|name| name.child_by_field_name("arguments"))
    else {
        return;
    };
    let written = written_arguments(l, args);
    l.out
        .explicit_specializations
        .push((whole.byte_range(), written));
}

fn template_header(l: &Lowering<'_>, whole: Node<'_>, params: Node<'_>) -> TemplateHeader {
    crate::front::syntax::template_header(l.src, whole, params)
}

/// Whether the tree below `n` is deeper than an item may be; measured only in a tree that
/// goes that deep at all.
fn too_deep(l: &Lowering<'_>, n: Node<'_>) -> bool {
    l.tree_depth > MAX_TREE_DEPTH && depth_exceeds(n, MAX_TREE_DEPTH)
}

/// One item: lowered, and recorded as a chunk of its kind. `whole` includes a template
/// header when there is one.
fn item(l: &mut Lowering<'_>, n: Node<'_>, whole: Node<'_>) {
    if too_deep(l, n) {
        l.out.skipped.push(Skipped {
            span: first_line(l.src, n),
            reason: format!(
                "nested too deeply (banklint reads at most {MAX_NESTING} levels of brackets)"
            ),
        });
        l.blank_node(whole);
        return;
    }
    let (kind, quiet) = match n.kind() {
        "function_definition" => function_kind(l, n),
        _ => (ChunkKind::Declaration, false),
    };
    if n.kind() == "type_definition" {
        record_typedef_alias(l, n);
    }
    // A prototype declares nothing the analysis needs (the definition is what it reads).
    if n.kind() == "declaration" && named_children(n).iter().any(|d| is_prototype(*d)) {
        // But which parameters are references it says: a call of it may write those.
        for mut d in named_children(n).into_iter().filter(|d| is_prototype(*d)) {
            // `int *f(int &x)`: the function declarator is inside the pointer's.
            while d.kind() != "function_declarator"
                && let Some(inner) = d.child_by_field_name("declarator")
            {
                d = inner;
            }
            let params = d.child_by_field_name("parameters");
            for p in params.map(named_children).unwrap_or_default() {
                if let Some(r) = p
                    .child_by_field_name("declarator")
                    .filter(|r| r.kind() == "reference_declarator")
                {
                    l.reference_parameter(r);
                }
            }
        }
        return;
    }
    // A class that hands out shared memory is recorded, not parsed.
    let class = if is_class(n) {
        Some(n)
    } else {
        named_children(n).into_iter().find(|c| is_class(*c))
    };
    if let Some(c) = class
        && c.child_by_field_name("body")
            .is_some_and(|b| !wrapper_arrays(l, b).is_empty())
    {
        l.lower_class(c);
        return;
    }
    l.host = kind == ChunkKind::HostFunction;
    let skipped_before = l.out.skipped.len();
    let lifted_before = l.lifted.len();
    l.lower(n);
    let lifted = l.lifted.split_off(lifted_before);
    l.host = false;
    if quiet {
        l.out.skipped.truncate(skipped_before);
    }
    match kind {
        ChunkKind::HostFunction => {
            l.host_reader.classes.sync(l.out);
            l.host_reader.function(n)
        }
        ChunkKind::Declaration => l.host_reader.global_in(n, &l.namespace),
        ChunkKind::DeviceFunction { .. } => {}
    }
    let mut span = n.byte_range();
    // `struct P { ... };` ends at its `;`.
    if let Some(semi) = n.next_sibling().filter(|s| s.kind() == ";") {
        span.end = semi.end_byte();
    }
    l.out.chunks.push(Chunk {
        tokens: l.token_range(&span),
        span,
        kind,
        namespace: l.namespace.clone(),
        quiet,
        // Its methods read as chunks of their own.
        holes: lifted.iter().map(|c| c.span.clone()).collect(),
        template: None,
        display_name: None,
    });
    l.out.chunks.extend(lifted);
}

/// Kernel, device function or host function, by the qualifiers before its name.
/// What a function definition is, and whether it is read only for its constants (see
/// `Chunk::quiet`).
fn function_kind(l: &Lowering<'_>, f: Node<'_>) -> (ChunkKind, bool) {
    let declarator = f.child_by_field_name("declarator").map(|d| d.start_byte());
    let before = |c: &Node<'_>| declarator.is_none_or(|d| c.start_byte() < d);
    let mut kernel = false;
    let mut device = false;
    let mut constexpr = false;
    for c in children(f).iter().filter(|c| before(c)) {
        let word = match c.kind() {
            "type_qualifier" | "storage_class_specifier" => text(*c, l.src),
            k => k,
        };
        match word {
            "__global__" => kernel = true,
            "__device__" => device = true,
            // What device code calls for its constants (with `--expt-relaxed-constexpr`, or
            // in an array size): read as device code.
            "constexpr" => constexpr = true,
            _ => {}
        }
    }
    // Only device code can declare shared memory or read the thread's index: a function whose
    // body does is device code, whatever word before its name marks it (`_CCCL_DEVICE`,
    // `_CCCL_KERNEL_ATTRIBUTES` from a header banklint did not read); not one written
    // `__host__` alone.
    let host = children(f)
        .iter()
        .filter(|c| before(c))
        .any(|c| text(*c, l.src) == "__host__");
    let declares_shared = || {
        !host
            && f.child_by_field_name("body").is_some_and(|b| {
                let body = text(b, l.src);
                (body.contains("__shared__") && has_shared_qualifier(b, l.src))
                    || ((body.contains("threadIdx") || body.contains("blockIdx"))
                        && reads_thread_index(b, l.src))
            })
    };
    if kernel {
        (ChunkKind::DeviceFunction { kernel: true }, false)
    } else if device || constexpr {
        (ChunkKind::DeviceFunction { kernel: false }, !device)
    } else if declares_shared() {
        // `__global__` the grammar did not see where it stands (after a word it misread), or
        // `__launch_bounds__`, which only a kernel takes (`__launch_bounds__(256)
        // CUB_DETAIL_KERNEL_ATTRIBUTES void k(...)` with the macro's header not read).
        let head = f
            .child_by_field_name("body")
            .map_or("", |b| &l.src[f.start_byte()..b.start_byte()]);
        let kernel = head
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| matches!(w, "__global__" | "__launch_bounds__"));
        (ChunkKind::DeviceFunction { kernel }, false)
    } else {
        (ChunkKind::HostFunction, false)
    }
}

/// Whether `threadIdx` or `blockIdx` is read in `n`. Host code has neither (`blockDim` and
/// `gridDim` are also names host code gives its `dim3` variables, so they do not count).
fn reads_thread_index(n: Node<'_>, src: &str) -> bool {
    outside_lambdas_any(n, &|node| {
        node.kind() == "identifier" && matches!(text(node, src), "threadIdx" | "blockIdx")
    })
}

/// Whether a `__shared__` qualifier stands in `n`.
fn has_shared_qualifier(n: Node<'_>, src: &str) -> bool {
    outside_lambdas_any(n, &|node| {
        node.kind() == "type_qualifier" && text(node, src) == "__shared__"
    })
}

/// Whether a node under `n` is `wanted`, looking into neither comments and strings nor
/// lambdas (a host function may hold a device lambda).
fn outside_lambdas_any(n: Node<'_>, wanted: &dyn Fn(Node<'_>) -> bool) -> bool {
    let mut cursor = n.walk();
    let mut stack = vec![n];
    while let Some(node) = stack.pop() {
        if wanted(node) {
            return true;
        }
        if !matches!(
            node.kind(),
            "comment" | "string_literal" | "raw_string_literal" | "lambda_expression"
        ) {
            stack.extend(node.children(&mut cursor));
        }
    }
    false
}

/// `void f(int);` (also behind pointers or references to the result).
fn is_prototype(d: Node<'_>) -> bool {
    match d.kind() {
        "function_declarator" => true,
        "pointer_declarator" | "reference_declarator" | "attributed_declarator" => d
            .child_by_field_name("declarator")
            .is_some_and(is_prototype),
        _ => false,
    }
}

fn is_class(n: Node<'_>) -> bool {
    matches!(
        n.kind(),
        "struct_specifier" | "class_specifier" | "union_specifier"
    )
}

impl Lowering<'_> {
    /// Turns a C++ class into a C struct of the same layout: `class` is spelled `union` (same
    /// length; `class_names` says to lay it out as a struct), base lists, access specifiers and
    /// member functions are blanked; member typedefs and static members are recorded. A class
    /// whose methods declare `extern __shared__` memory (`SharedMemory<T>`) is recorded as a
    /// wrapper with its arrays, and left out.
    pub(crate) fn lower_class(&mut self, n: Node<'_>) {
        let src = self.src;
        let name_node = n.child_by_field_name("name");
        let (class, args) = match name_node {
            Some(nm) if nm.kind() == "template_type" => {
                let class = nm
                    .child_by_field_name("name")
                    .map_or("", |x| text(x, src))
                    .to_string();
                let args = nm.child_by_field_name("arguments").map(|a| {
                    named_children(a)
                        .iter()
                        .map(|x| {
                            text(*x, src)
                                .split_whitespace()
                                .collect::<Vec<_>>()
                                .join(" ")
                        })
                        .collect::<Vec<_>>()
                });
                if let Some(a) = nm.child_by_field_name("arguments") {
                    self.blank_node(a);
                }
                (class, args)
            }
            Some(nm) => (text(nm, src).to_string(), None),
            None => (String::new(), None),
        };
        if !class.is_empty() {
            self.add_typename(class.replace("::", "__"));
        }
        // The primary template itself (not a specialization, not a class nested in one).
        if let Some(header) = &self.class_template
            && args.is_none()
            && !class.is_empty()
            && n.parent()
                .is_some_and(|p| p.kind() == "template_declaration")
        {
            self.out
                .class_templates
                .push((class.replace("::", "__"), header.clone()));
        }
        if let Some(first) = n.child(0)
            && first.kind() == "class"
        {
            self.blank_node(first);
            self.patches.push((first.start_byte(), "union".into()));
            if !class.is_empty() {
                self.out.class_names.push(class.clone());
            }
        }
        let Some(body) = n.child_by_field_name("body") else {
            if let Some(nm) = name_node {
                self.lower(nm);
            }
            return;
        };
        // The shared memory a method declares `extern __shared__`: a wrapper class.
        let wrapper_arrays = wrapper_arrays(self, body);
        if !wrapper_arrays.is_empty() {
            for (array, at) in wrapper_arrays {
                let line = self.out.line_of(at);
                self.out.shared_memory_arrays.push(WrapperArray {
                    class: class.clone(),
                    args: args.clone(),
                    array,
                    file: String::new(),
                    line,
                });
            }
            if !self.out.shared_memory_classes.contains(&class) {
                self.out.shared_memory_classes.push(class);
                self.out.shared_memory_classes.sort();
            }
            self.blank_node(n);
            return;
        }
        for c in children(n) {
            if c.kind() == "base_class_clause" && !class.is_empty() {
                record_bases(self, c, &class, &args);
            }
            if c.kind() == "alignas_qualifier"
                && !class.is_empty()
                && let Some(align) = alignas_value(text(c, self.src))
            {
                self.out
                    .class_alignments
                    .push((class.replace("::", "__"), align));
            }
            if matches!(
                c.kind(),
                "base_class_clause" | "attribute_specifier" | "alignas_qualifier"
            ) {
                self.blank_node(c);
            }
        }
        let holds_pointer = crate::front::methods::holds_pointer(self, body);
        let takes_pointers = children(body).into_iter().any(|m| {
            matches!(m.kind(), "function_definition" | "template_declaration")
                && crate::front::methods::takes_pointer(m)
        });
        if holds_pointer || takes_pointers {
            let fields = crate::front::methods::field_names(self, body);
            self.out.class_fields.push((class.clone(), fields));
        }
        // Of every class: a member's type tells overloads apart (`f(g.c)`, with `g` a `globals`).
        let objects = crate::front::methods::object_fields(self, body);
        if !objects.is_empty() {
            self.out.object_fields.push((class.clone(), objects));
        }
        for member in children(body) {
            match member.kind() {
                "{" | "}" => {}
                "access_specifier" => {
                    self.blank_node(member);
                    if let Some(colon) = member.next_sibling().filter(|s| s.kind() == ":") {
                        self.blank_node(colon);
                    }
                }
                ":" => {}
                "type_definition" | "alias_declaration" => {
                    record_member_typedef(self, member, &class, &args);
                    self.blank_node(member);
                }
                "field_declaration"
                    if member
                        .child_by_field_name("type")
                        .is_some_and(|t| t.kind() == "enum_specifier") =>
                {
                    record_member_enumerators(self, member, &class, &args);
                    self.lower(member);
                }
                "field_declaration" if is_static(self, member) => {
                    record_static_member(self, member, &class, &args);
                    self.blank_node(member);
                }
                "field_declaration"
                    if find_descendant(member, &["function_declarator"]).is_some() =>
                {
                    // A method declared here and defined elsewhere.
                    self.blank_node(member);
                }
                "field_declaration" => self.lower(member),
                "function_definition" | "template_declaration"
                    if lift_method(
                        self,
                        member,
                        &class,
                        &args,
                        holds_pointer || takes_pointers,
                    ) => {}
                // A host method launches kernels with the class's constants in scope.
                "function_definition"
                    if function_kind(self, member).0 == ChunkKind::HostFunction =>
                {
                    // Lowered for its launch sites only, then left out of the class's parse.
                    let patches_before = self.patches.len();
                    self.host = true;
                    self.lower(member);
                    self.host = false;
                    self.patches.truncate(patches_before);
                    self.host_reader.classes.sync(self.out);
                    self.host_reader.method(member, &class, &args);
                    self.blank_node(member);
                }
                "template_declaration" => {
                    record_nested_template(self, member);
                    self.blank_node(member);
                }
                _ => self.blank_node(member),
            }
        }
    }
}

/// A template declared inside a class body that is no method: an alias template, or a
/// nested class template or partial specialization (`template <typename A> struct
/// varr<A> { using type = A; };`), whose member types and constants are recorded as a
/// class's are (by its own tag). Its text is not parsed.
fn record_nested_template(l: &mut Lowering<'_>, n: Node<'_>) {
    let Some(params) = n.child_by_field_name("parameters") else {
        return;
    };
    let header = template_header(l, n, params);
    for inner in named_children(n) {
        match inner.kind() {
            "alias_declaration" => record_alias_template(l, inner, &header),
            "struct_specifier" | "class_specifier" => {
                let (Some(name), Some(body)) = (
                    inner.child_by_field_name("name"),
                    inner.child_by_field_name("body"),
                ) else {
                    continue;
                };
                let (tag, args) = match name.kind() {
                    "template_type" => (
                        name.child_by_field_name("name")
                            .map_or("", |x| text(x, l.src)),
                        name.child_by_field_name("arguments").map(|a| {
                            (named_children(a).iter())
                                .map(|x| {
                                    text(*x, l.src)
                                        .split_whitespace()
                                        .collect::<Vec<_>>()
                                        .join(" ")
                                })
                                .collect::<Vec<_>>()
                        }),
                    ),
                    _ => (text(name, l.src), None),
                };
                let tag = tag.to_string();
                if args.is_none() {
                    l.out.class_templates.push((tag.clone(), header.clone()));
                }
                for m in named_children(body) {
                    match m.kind() {
                        "type_definition" | "alias_declaration" => {
                            record_member_typedef(l, m, &tag, &args);
                        }
                        "field_declaration" if is_static(l, m) => {
                            record_static_member(l, m, &tag, &args);
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether a method's text names an array declared `__shared__` at file or namespace scope
/// (here or in a header): it reaches shared memory without declaring any.
fn names_file_shared(l: &Lowering<'_>, f: Node<'_>) -> bool {
    if l.out.file_shared_names.is_empty() {
        return false;
    }
    text(f, l.src)
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| l.out.file_shared_names.iter().any(|n| n == w))
}

/// A `__device__` method that declares `__shared__` memory (a functor's `operator()`, a
/// block-reduce helper), a static one, or one the analyzer runs on objects (`object_method`:
/// of a class that keeps pointers, or taking a pointer): lowered in place and read as a
/// device function of its own, with its class's template parameters and its own, so its
/// arrays are analyzed like those of any device function no kernel reaches. The class's
/// parse leaves it out.
fn lift_method(
    l: &mut Lowering<'_>,
    member: Node<'_>,
    class: &str,
    class_args: &Option<Vec<String>>,
    object_method: bool,
) -> bool {
    let (f, own) = if member.kind() == "template_declaration" {
        let Some(params) = member.child_by_field_name("parameters") else {
            return false;
        };
        let Some(f) = named_children(member)
            .into_iter()
            .find(|c| c.kind() == "function_definition")
        else {
            return false;
        };
        (f, Some((template_header(l, member, params), params)))
    } else {
        (member, None)
    };
    let declares = text(f, l.src).contains("__shared__") || names_file_shared(l, f);
    // `Ops::copy(dst, src)`, `group<4>::load(...)`: a static method is a function in its
    // class's scope, called by its qualified name.
    let stat = is_static(l, f) && !class.is_empty();
    if function_kind(l, f).0 != (ChunkKind::DeviceFunction { kernel: false })
        || !(declares || object_method || stat)
        || too_deep(l, f)
    {
        return false;
    }
    // A constructor or method of a class that keeps pointers: recorded for the analyzer.
    let method = if object_method && !declares && !stat {
        let inits = match crate::front::methods::prepare_constructor(l, f, class) {
            Some(None) => return false,
            Some(Some(inits)) => Some(inits),
            None => None,
        };
        let name = crate::front::methods::declared_name(f).map(|n| text(n, l.src).to_string());
        match name {
            Some(name) if !name.contains("operator") => Some(crate::front::methods::Method {
                class: class.to_string(),
                constructor: inits.is_some(),
                name,
                span: member.byte_range(),
                inits: inits.unwrap_or_default(),
            }),
            _ => None,
        }
    } else {
        None
    };
    if object_method && !declares && !stat && method.is_none() {
        return false;
    }
    if let Some(m) = method {
        l.out.methods.push(m);
    }
    let mut display_name = None;
    if let Some(op) = find_descendant(f, &["operator_name"]) {
        // `operator()` becomes an identifier of the same length; reports name it as written.
        let written: String = text(op, l.src).split_whitespace().collect();
        display_name = Some(if class.is_empty() {
            written
        } else {
            format!("{class}::{written}")
        });
        let len = op.byte_range().len();
        l.blank_node(op);
        l.patches.push((
            op.start_byte(),
            format!("operator{}", "_".repeat(len - 8)).into(),
        ));
    }
    let template = match (l.class_template.clone(), own) {
        (None, None) => None,
        (Some(c), None) => Some(c),
        (outer, Some((mut h, params))) => {
            l.blank.push(member.start_byte()..params.end_byte());
            if let Some(c) = outer {
                h.params.splice(0..0, c.params);
            }
            Some(h)
        }
    };
    l.lower(f);
    let span = member.byte_range();
    if (stat || object_method)
        && let Some(written) = class_args
    {
        let params = (l.class_template.iter())
            .flat_map(|h| h.params.iter().map(|p| p.name.clone()))
            .collect();
        l.out
            .specialized_methods
            .push((span.clone(), written.clone(), params));
    }
    let namespace = match (stat, l.namespace.is_empty()) {
        (false, _) => l.namespace.clone(),
        (true, true) => class.replace("::", "__"),
        (true, false) => format!("{}__{}", l.namespace, class.replace("::", "__")),
    };
    l.lifted.push(Chunk {
        tokens: l.token_range(&span),
        span,
        kind: ChunkKind::DeviceFunction { kernel: false },
        namespace,
        quiet: false,
        holes: Vec::new(),
        template,
        display_name,
    });
    true
}

/// The alignment `alignas(16)` asks for, when it is an integer literal (a power of two).
fn alignas_value(written: &str) -> Option<u32> {
    let inner = written.split_once('(')?.1.rsplit_once(')')?.0.trim();
    let v = u32::try_from(crate::front::lex::parse_int_literal(inner)?).ok()?;
    v.is_power_of_two().then_some(v)
}

/// `extern __shared__` arrays declared in the class's member functions.
fn wrapper_arrays(l: &Lowering<'_>, body: Node<'_>) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    // Most classes have none: not worth a walk of every method.
    if !text(body, l.src).contains("__shared__") {
        return out;
    }
    for member in named_children(body) {
        let f = match member.kind() {
            "function_definition" => Some(member),
            "template_declaration" => named_children(member)
                .into_iter()
                .find(|c| c.kind() == "function_definition"),
            _ => None,
        };
        let Some(f) = f else { continue };
        let mut stack = vec![f];
        while let Some(x) = stack.pop() {
            if x.kind() == "declaration" {
                let words: Vec<&str> = children(x).iter().map(|c| text(*c, l.src)).collect();
                if words.contains(&"extern") && words.contains(&"__shared__") {
                    for d in named_children(x) {
                        if let Some(id) = find_descendant(d, &["identifier"])
                            && d.kind() == "array_declarator"
                        {
                            out.push((text(id, l.src).to_string(), id.start_byte()));
                        }
                    }
                }
                continue;
            }
            stack.extend(named_children(x));
        }
    }
    out
}

fn is_static(l: &Lowering<'_>, member: Node<'_>) -> bool {
    children(member)
        .iter()
        .any(|c| c.kind() == "storage_class_specifier" && text(*c, l.src) == "static")
}

/// `typedef Packed128<floatX> x128;`: an alias whose static members (`x128::size`) are the
/// class template's, with its arguments.
fn record_typedef_alias(l: &mut Lowering<'_>, n: Node<'_>) {
    let Some(ty) = n.child_by_field_name("type") else {
        return;
    };
    if ty.kind() != "template_type" {
        return;
    }
    let ty = text(ty, l.src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for d in named_children(n) {
        if d.kind() == "type_identifier" {
            l.out.aliases.push((text(d, l.src).to_string(), ty.clone()));
        }
    }
}

/// A template argument list's arguments as written, spaces normalized.
fn written_arguments(l: &Lowering<'_>, args: Node<'_>) -> Vec<String> {
    named_children(args)
        .iter()
        .map(|a| {
            text(*a, l.src)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// The template arguments written in an explicit instantiation, recorded at the name as a
/// call's are (`template void reduce<int>(...)`).
fn record_call_arguments(l: &mut Lowering<'_>, n: Node<'_>) {
    if let Some(f) = find_descendant(n, &["template_function"])
        && let (Some(name), Some(args)) = (
            f.child_by_field_name("name"),
            f.child_by_field_name("arguments"),
        )
    {
        let list = written_arguments(l, args);
        l.out.template_calls.push((name.start_byte(), list));
        // A host function template instantiated this way runs with these arguments too.
        l.host_reader.instantiation(f);
    } else if let Some(class) = n
        .child_by_field_name("type")
        .filter(|t| matches!(t.kind(), "class_specifier" | "struct_specifier"))
        .and_then(|t| t.child_by_field_name("name"))
        .filter(|t| t.kind() == "template_type")
    {
        // `template class MLP<float, 64>;`: the class's members defined outside it run.
        l.host_reader.class_instantiation(class);
    }
}

/// A top-level region tree-sitter could not read: reported when it holds device code.
fn error_at_top(l: &mut Lowering<'_>, n: Node<'_>) {
    // Items it still recognises inside are read as usual.
    for inner in named_children(n) {
        if matches!(inner.kind(), "function_definition" | "declaration") {
            item(l, inner, inner);
        }
    }
    let t = text(n, l.src);
    if t.contains("__global__") || t.contains("__device__") || t.contains("__shared__") {
        // A bracket left open or closed by the wrong one is named where it stands.
        let src = l.src;
        let error = l
            .bracket_error
            .get_or_init(|| crate::front::lex::bracket_error(src))
            .as_ref()
            .filter(|e| (n.start_byte()..n.end_byte()).contains(&e.at));
        let skipped = match error {
            Some(e) => Skipped {
                span: e.at..e.at + 1,
                reason: format!("this code does not parse as CUDA C++: {}", e.reason),
            },
            None => Skipped {
                span: first_line(l.src, n),
                reason: "this code does not parse as CUDA C++ (a syntax error, or a construct banklint's grammar does not know)".into(),
            },
        };
        l.out.skipped.push(skipped);
    }
}

fn first_line(src: &str, n: Node<'_>) -> std::ops::Range<usize> {
    let t = text(n, src);
    let end = t.find('\n').map_or(n.end_byte(), |p| n.start_byte() + p);
    n.start_byte()..end
}
