//! The syntax tree of the expanded text, from tree-sitter's CUDA grammar: error-tolerant, so a
//! construct it cannot read becomes one local error node and the rest of the file stays
//! readable. The front end reads where kernels, classes, templates and launches are from it,
//! and lowers device code to C construct by construct.

use std::cell::RefCell;
use tree_sitter::{Node, Parser, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `text` (expanded: no directives, no comments).
pub fn parse(text: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_cuda::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        slot.as_mut()?.parse(text, None)
    })
}

/// The grammar's symbol ids that walks over a whole file or template look for: comparing
/// `Node::kind`'s strings there shows in profiles. An alias can share its name with a
/// symbol, so a kind may have several ids.
pub(crate) struct WalkKinds {
    pub type_identifier: Vec<u16>,
    pub declaration: Vec<u16>,
    pub compound_statement: Vec<u16>,
}

impl WalkKinds {
    pub fn get() -> &'static WalkKinds {
        static KINDS: std::sync::OnceLock<WalkKinds> = std::sync::OnceLock::new();
        KINDS.get_or_init(|| {
            let language: tree_sitter::Language = tree_sitter_cuda::LANGUAGE.into();
            let ids = |kind: &str| -> Vec<u16> {
                (0..language.node_kind_count() as u16)
                    .filter(|&id| {
                        language.node_kind_is_named(id)
                            && language.node_kind_for_id(id) == Some(kind)
                    })
                    .collect()
            };
            WalkKinds {
                type_identifier: ids("type_identifier"),
                declaration: ids("declaration"),
                compound_statement: ids("compound_statement"),
            }
        })
    }
}

/// The node's children, named and anonymous, in order.
pub fn children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.children(&mut c).collect()
}

/// The node's named children, in order.
pub fn named_children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

pub fn text<'s>(n: Node<'_>, src: &'s str) -> &'s str {
    src.get(n.byte_range()).unwrap_or("")
}

/// How deep the tree below `n` goes, counted without recursion (a file of 300,000 nested
/// `if`s must not overflow the stack here), stopping once past `limit`.
pub fn depth_exceeds(n: Node<'_>, limit: usize) -> bool {
    let mut c = n.walk();
    let mut depth = 0usize;
    loop {
        if c.goto_first_child() {
            depth += 1;
            if depth > limit {
                return true;
            }
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return false;
            }
            depth -= 1;
        }
    }
}

/// Whether the byte at `at` surely lies in a class body, a function body or a lambda. Below
/// an error node only a lambda is sure (the grammar reads `[] __device__ (int i)` as a lambda
/// with an error in it); a body around an error may be a misread.
pub fn inside_body(root: Node<'_>, at: usize) -> bool {
    let Some(mut n) = root.descendant_for_byte_range(at, at + 1) else {
        return false;
    };
    let mut error = false;
    loop {
        match n.kind() {
            "lambda_expression" => return true,
            "field_declaration_list" | "compound_statement" if !error => return true,
            "ERROR" => error = true,
            _ => {}
        }
        match n.parent() {
            Some(p) => n = p,
            None => return false,
        }
    }
}

/// The name a qualified identifier ends in, however deeply its scopes nest (`a::b::k<4>` is
/// `k<4>`); any other node as it is.
pub fn unqualified(n: Node<'_>) -> Node<'_> {
    let mut n = n;
    while n.kind() == "qualified_identifier"
        && let Some(name) = n.child_by_field_name("name")
    {
        n = name;
    }
    n
}

/// The first descendant (or `n` itself) of one of `kinds`, searched without recursion.
pub fn find_descendant<'t>(n: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut found = None;
    preorder(n, |x| {
        if kinds.contains(&x.kind()) {
            found = Some(x);
        }
        found.is_none()
    });
    found
}

/// Visits `n` and every node under it in preorder with one cursor (no list of children per
/// node, no recursion), until `visit` returns false.
pub fn preorder<'t>(n: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    let mut c = n.walk();
    loop {
        if !visit(c.node()) {
            return;
        }
        if c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return;
            }
        }
    }
}

/// A template parameter's name (`T` of `typename T`, `N` of `int N = 4`, `Ts` of
/// `class... Ts`) and whether it is a type parameter, from a node of a
/// `template_parameter_list`.
pub fn template_param(p: Node<'_>, src: &str) -> Option<(String, bool)> {
    template_param_constrained(p, src, constraint(p, src).as_deref())
}

/// [`template_param`] given the parameter's [`constraint`], which costs a walk of the template.
fn template_param_constrained(
    p: Node<'_>,
    src: &str,
    constraint: Option<&str>,
) -> Option<(String, bool)> {
    let is_type = matches!(
        p.kind(),
        "type_parameter_declaration"
            | "optional_type_parameter_declaration"
            | "variadic_type_parameter_declaration"
            | "template_template_parameter_declaration"
    ) || constraint.is_some();
    let name = p
        .child_by_field_name("name")
        .or_else(|| p.child_by_field_name("declarator"))
        .or_else(|| {
            named_children(p)
                .into_iter()
                .rfind(|c| matches!(c.kind(), "type_identifier" | "identifier"))
        })?;
    let name = text(name, src).trim_start_matches("...").trim().to_string();
    Some((name, is_type))
}

/// The concept a constrained type parameter names (`ducks::rt::all` of `ducks::rt::all RT`),
/// which the grammar reads as a value parameter of that type: a parameter whose type is a
/// name, and whose own name the template's signature or member declarations use as a type
/// (`RT &dst`). A value parameter's name (`size_t N`) is never written where a type goes.
pub fn constraint(p: Node<'_>, src: &str) -> Option<String> {
    constraint_among(p, src, &mut None)
}

/// [`constraint`], with the names the template writes as types gathered into `used` once for
/// all its parameters.
fn constraint_among<'s>(
    p: Node<'_>,
    src: &'s str,
    used: &mut Option<rustc_hash::FxHashSet<&'s str>>,
) -> Option<String> {
    if !matches!(
        p.kind(),
        "parameter_declaration" | "optional_parameter_declaration"
    ) {
        return None;
    }
    let ty = p.child_by_field_name("type")?;
    if !matches!(
        ty.kind(),
        "type_identifier" | "qualified_identifier" | "template_type"
    ) {
        return None;
    }
    let name = text(p.child_by_field_name("declarator")?, src).trim();
    let used = match used {
        Some(used) => used,
        None => {
            let list = p.parent()?;
            used.insert(names_used_as_types(list.parent()?, list, src))
        }
    };
    used.contains(name).then(|| {
        text(ty, src)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The names `whole` writes as types, outside its parameter list `list` and function bodies:
/// a deduced parameter is written in the signature (or a class's member declarations), and
/// bodies are most of the text.
fn names_used_as_types<'s>(
    whole: Node<'_>,
    list: Node<'_>,
    src: &'s str,
) -> rustc_hash::FxHashSet<&'s str> {
    let kinds = WalkKinds::get();
    let mut used = rustc_hash::FxHashSet::default();
    let mut c = whole.walk();
    if !c.goto_first_child() {
        return used;
    }
    loop {
        let n = c.node();
        let id = n.kind_id();
        if kinds.type_identifier.contains(&id) {
            used.insert(text(n, src));
        }
        let skip = n.id() == list.id() || kinds.compound_statement.contains(&id);
        if !skip && c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return used;
            }
        }
    }
}

/// A launch through the runtime API rather than `<<<...>>>`.
pub struct ApiLaunch<'t> {
    /// The kernel as named (`k`, `k<T>`, `ns::k<T>`), under any cast or `&`.
    pub kernel: Node<'t>,
    /// Grid and block, where the call gives them (`cudaLaunchKernel`); `cudaLaunchKernelEx`
    /// takes them in a `cudaLaunchConfig_t`.
    pub config: Vec<Node<'t>>,
    /// The kernel's arguments, where the call passes them one by one (`cudaLaunchKernelEx`);
    /// `cudaLaunchKernel` passes an array of pointers.
    pub arguments: Vec<Node<'t>>,
    /// The `cudaLaunchConfig_t` argument of `cudaLaunchKernelEx` (`&config`).
    pub launch_config: Option<Node<'t>>,
}

/// `cudaLaunchKernel((void *)k<T>, grid, block, args, smem, stream)`,
/// `cudaLaunchCooperativeKernel(...)` (the same arguments) and
/// `cudaLaunchKernelEx(&config, k<T>, a, b)`.
pub fn api_launch<'t>(call: Node<'t>, src: &str) -> Option<ApiLaunch<'t>> {
    let function = call.child_by_field_name("function")?;
    // `cudaLaunchCooperativeKernel<F>(...)`: the C++ overload, named with its template.
    let function = match function.kind() {
        "template_function" => function.child_by_field_name("name")?,
        _ => function,
    };
    let name = text(function, src);
    let name = name.rsplit("::").next().unwrap_or(name).trim();
    // Every call of host code is asked: the name first, the arguments only for a launch.
    if !name.starts_with("cudaLaunch") {
        return None;
    }
    let args = named_children(call.child_by_field_name("arguments")?);
    let (kernel, config, arguments, launch_config) = match name {
        "cudaLaunchKernel" | "cudaLaunchCooperativeKernel" => (
            args.first()?,
            args.get(1..3).unwrap_or_default().to_vec(),
            Vec::new(),
            None,
        ),
        "cudaLaunchKernelEx" => (
            args.get(1)?,
            Vec::new(),
            args.get(2..).unwrap_or_default().to_vec(),
            args.first().copied(),
        ),
        _ => return None,
    };
    let mut kernel = *kernel;
    // `(void *)k`, `&k`, `(k)`, `reinterpret_cast<void *>(k)`.
    loop {
        kernel = match kernel.kind() {
            "cast_expression" => kernel.child_by_field_name("value")?,
            "pointer_expression" | "parenthesized_expression" => *named_children(kernel).last()?,
            "call_expression" if function_is_cast(kernel, src) => {
                *named_children(kernel.child_by_field_name("arguments")?).first()?
            }
            _ => break,
        };
    }
    matches!(
        kernel.kind(),
        "identifier" | "template_function" | "qualified_identifier"
    )
    .then_some(ApiLaunch {
        kernel,
        config,
        arguments,
        launch_config,
    })
}

/// `reinterpret_cast<void *>(...)` and the other named casts, as a call.
fn function_is_cast(call: Node<'_>, src: &str) -> bool {
    call.child_by_field_name("function")
        .filter(|f| f.kind() == "template_function")
        .and_then(|f| f.child_by_field_name("name"))
        .is_some_and(|n| {
            matches!(
                text(n, src),
                "reinterpret_cast" | "static_cast" | "const_cast"
            )
        })
}

/// The template header `whole` starts with (`template <int N, typename T = float>`), its
/// parameter list `params`.
pub fn template_header(
    src: &str,
    whole: Node<'_>,
    params: Node<'_>,
) -> crate::front::template_header::TemplateHeader {
    let mut header = crate::front::template_header::TemplateHeader {
        span: whole.start_byte()..params.end_byte(),
        params: Vec::new(),
    };
    let mut used = None;
    for p in named_children(params) {
        let constraint = constraint_among(p, src, &mut used);
        let Some((name, is_type)) = template_param_constrained(p, src, constraint.as_deref())
        else {
            continue;
        };
        let default = p
            .child_by_field_name("default_type")
            .or_else(|| p.child_by_field_name("default_value"))
            .map(|d| {
                text(d, src)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            });
        header
            .params
            .push(crate::front::template_header::TemplateParam {
                name,
                is_type,
                default,
                pack: p.kind().starts_with("variadic_"),
                constraint,
            });
    }
    header
}

/// Whether a declaration declares a variable that holds a function: `auto`,
/// `decltype(...)`, or a pointer-to-function declarator (`void (*k)(float *)`).
pub fn declares_function_holder(decl: Node<'_>, declarator: Node<'_>, src: &str) -> bool {
    let ty = decl
        .child_by_field_name("type")
        .map_or("", |t| text(t, src));
    ty.split_whitespace()
        .any(|w| w == "auto" || w.starts_with("decltype"))
        || declarator.kind() == "function_declarator"
}

/// The identifier a declarator declares, through pointers, references and a function
/// declarator's parenthesized name (`(*k)(float *)`).
pub fn declared_identifier(mut d: Node<'_>) -> Option<Node<'_>> {
    for _ in 0..16 {
        d = match d.kind() {
            "identifier" => return Some(d),
            "parenthesized_declarator" => d.named_child(0)?,
            _ => d.child_by_field_name("declarator")?,
        };
    }
    None
}

/// Whether a variable named `name` is declared before `n` in a scope that encloses it: a
/// declaration in an enclosing block before it, a `for` statement's initializer, or a
/// parameter of the enclosing function.
pub fn declares_variable_before(n: Node<'_>, name: &str, src: &str) -> bool {
    let declares = |d: Node<'_>| {
        d.kind() == "declaration"
            && children(d).iter().any(|c| {
                let c = if c.kind() == "init_declarator" {
                    c.child_by_field_name("declarator").unwrap_or(*c)
                } else {
                    *c
                };
                declared_identifier(c).is_some_and(|i| text(i, src) == name)
            })
    };
    let mut cur = n;
    while let Some(parent) = cur.parent() {
        match parent.kind() {
            "function_definition" => {
                let params = parent
                    .child_by_field_name("declarator")
                    .and_then(|d| find_descendant(d, &["parameter_list"]));
                return params.is_some_and(|list| {
                    named_children(list).iter().any(|p| {
                        p.child_by_field_name("declarator")
                            .and_then(declared_identifier)
                            .is_some_and(|i| text(i, src) == name)
                    })
                });
            }
            _ => {
                if children(parent)
                    .iter()
                    .take_while(|c| c.end_byte() <= cur.start_byte())
                    .any(|c| declares(*c))
                {
                    return true;
                }
            }
        }
        cur = parent;
    }
    false
}

/// Whether the node right after `n` is an expression that starts with a qualified call
/// (`KT::Reduce(tmp)...`), as a stray `typename` before a functional cast leaves it.
pub fn follows_with_qualified_call(n: Node<'_>) -> bool {
    let Some(next) = n.next_sibling() else {
        return false;
    };
    let mut e = next;
    loop {
        match e.kind() {
            "call_expression" | "field_expression" | "subscript_expression" => {
                match e
                    .child_by_field_name("function")
                    .or_else(|| e.child_by_field_name("argument"))
                {
                    Some(inner) => e = inner,
                    None => return false,
                }
            }
            "qualified_identifier" => {
                return e.start_byte() == next.start_byte()
                    && e.parent().is_some_and(|p| p.kind() == "call_expression");
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constrained_type_parameters_are_types() {
        let src = "template <typename X, size_t N, ducks::rt::all Y, int... Ks> __device__ void f(Y &y, X x) { }\n";
        let tree = parse(src).expect("a tree");
        let t = find_descendant(tree.root_node(), &["template_declaration"]).expect("template");
        let params = t.child_by_field_name("parameters").expect("parameters");
        let h = template_header(src, t, params);
        let got: Vec<(&str, bool, Option<&str>, bool)> = (h.params.iter())
            .map(|p| (p.name.as_str(), p.is_type, p.constraint.as_deref(), p.pack))
            .collect();
        assert_eq!(
            got,
            [
                ("X", true, None, false),
                ("N", false, None, false),
                ("Y", true, Some("ducks::rt::all"), false),
                ("Ks", false, None, true),
            ]
        );
    }

    #[test]
    fn parses_cuda_and_bounds_depth() {
        let src = "template <int N> __global__ void k() { __shared__ float s[N]; s[threadIdx.x] = 0; }\nvoid h() { k<4><<<1, 32>>>(); }\n";
        let tree = parse(src).expect("a tree");
        let root = tree.root_node();
        assert!(!root.has_error(), "{}", root.to_sexp());
        assert!(find_descendant(root, &["kernel_call_syntax"]).is_some());
        assert!(!depth_exceeds(root, 64));
        let deep = format!("void f() {{ {} }}", "if (a) ".repeat(3000) + "x = 1;");
        let tree = parse(&deep).expect("a tree");
        assert!(depth_exceeds(tree.root_node(), 1000));
    }
}
