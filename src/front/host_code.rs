//! Host code read as a program: each host function's statements run in order, once, over
//! the integer and `dim3` values of its names, so that a launch sees what the code gives
//! those names at that point: a reassignment wins (`threads = threads > 1024 ? 1024 :
//! threads`), a name changed in a loop around the launch or differently by the two arms of a
//! branch is not a constant (and says why), and a name is only what its own function (or the
//! file's constants) defines: never a same-named variable of another function or text in a
//! string. Each launch gets its block shape, template arguments and kernel arguments
//! evaluated where it stands.

pub(super) use crate::front::host_values::Env;
use crate::front::host_values::{HostTemplate, TemplateCall};
pub use crate::front::host_values::{HostValue, LaunchValues};
use crate::front::host_values::{arith, dim3, scalar_size, short};
use crate::front::lex::parse_int_literal;
use crate::front::syntax::{children, named_children, text};
use tree_sitter::Node;

/// Reads host code. `globals` holds the file's constants (`const int N = 32;`, enumerators).
pub struct HostReader<'s> {
    pub(super) src: &'s str,
    pub(super) globals: Env,
    /// Launch values by the start of the launch's kernel name: one per run of the function
    /// that holds the launch (a host function template runs once per instantiation).
    pub launches: Vec<(usize, LaunchValues)>,
    /// Bound on statements run, so that no input costs more than linear work.
    pub(super) budget: usize,
    /// Host function templates, run again per instantiation once the file is read (see
    /// `front::host_templates`).
    pub(super) templates: Vec<HostTemplate>,
    /// Calls with explicit template arguments (`launch<64, 2>(q)`) seen so far.
    pub(super) template_calls: Vec<TemplateCall>,
    /// The host template arguments of the run in progress.
    pub(super) instance: Vec<(String, String)>,
    /// The classes read so far, for their constants (`KT::THREADS`).
    pub classes: crate::front::host_classes::HostClasses,
    /// The parameters of the host function template read without arguments, if one is.
    pub(super) open_params: Vec<String>,
    /// A header lowered for its declarations (what a file including it needs): its host
    /// functions are not run, as their launches and calls serve only the header's own check,
    /// which prepares it as a file.
    pub declarations_only: bool,
}

impl<'s> HostReader<'s> {
    pub fn new(src: &'s str) -> HostReader<'s> {
        HostReader {
            src,
            globals: Env::new(),
            launches: Vec::new(),
            budget: crate::limits::MAX_HOST_STATEMENTS,
            templates: Vec::new(),
            template_calls: Vec::new(),
            instance: Vec::new(),
            classes: Default::default(),
            open_params: Vec::new(),
            declarations_only: false,
        }
    }

    pub(super) fn t(&self, n: Node<'_>) -> &'s str {
        text(n, self.src)
    }

    /// Constants a header (or the includer's text before its `#include`) defines: visible to
    /// every function of this file.
    pub fn import(&mut self, constants: &[(String, i64)]) {
        for (name, v) in constants {
            self.globals
                .entry(name.clone())
                .or_insert(HostValue::Int(*v));
        }
    }

    /// The file-scope integer constants found (for files that include this one).
    pub fn constants(&self) -> Vec<(String, i64)> {
        let mut out: Vec<(String, i64)> = self
            .globals
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_int()?)))
            .collect();
        out.sort();
        out
    }

    /// A file-scope declaration: its integer constants become visible to every function.
    pub fn global(&mut self, decl: Node<'_>) {
        self.global_in(decl, "");
    }

    /// A file-scope declaration in `namespace` (`a__b` for `namespace a::b`): its constants
    /// are also named with the qualifiers code outside can write (`b::N`, `a::b::N`).
    pub fn global_in(&mut self, decl: Node<'_>, namespace: &str) {
        let before: Option<std::collections::HashSet<String>> =
            (!namespace.is_empty()).then(|| self.globals.keys().cloned().collect());
        self.read_global(decl);
        let Some(before) = before else {
            return;
        };
        let parts: Vec<&str> = namespace.split("__").collect();
        let declared: Vec<(String, HostValue)> = self
            .globals
            .iter()
            .filter(|(k, _)| !before.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (name, value) in declared {
            for k in 0..parts.len() {
                let qualified = format!("{}::{name}", parts[k..].join("::"));
                self.globals
                    .entry(qualified)
                    .or_insert_with(|| value.clone());
            }
        }
    }

    fn read_global(&mut self, decl: Node<'_>) {
        let mut env = std::mem::take(&mut self.globals);
        let constant = children(decl)
            .iter()
            .any(|c| matches!(self.t(*c), "const" | "constexpr" | "static const"))
            || self.t(decl).starts_with("const")
            || self.t(decl).starts_with("constexpr");
        if decl.kind() == "declaration" && constant {
            self.declaration(decl, &mut env);
        }
        if let Some(e) = find_enum(decl) {
            self.enumerators(e, &mut env);
        }
        self.globals = env;
    }

    fn enumerators(&mut self, e: Node<'_>, env: &mut Env) {
        let Some(body) = e.child_by_field_name("body") else {
            return;
        };
        let mut next = 0i64;
        for en in named_children(body) {
            let Some(name) = en.child_by_field_name("name") else {
                continue;
            };
            if let Some(v) = en.child_by_field_name("value") {
                match self.eval(v, env) {
                    HostValue::Int(x) => next = x,
                    _ => {
                        env.insert(
                            self.t(name).to_string(),
                            HostValue::Unknown(format!(
                                "the enumerator `{}` has no constant value",
                                self.t(name)
                            )),
                        );
                        continue;
                    }
                }
            }
            env.insert(self.t(name).to_string(), HostValue::Int(next));
            next = next.wrapping_add(1);
        }
    }

    /// Runs a host function's body; a function template's parameters are open in this run
    /// (see `front::host_templates` for the runs per instantiation).
    pub fn function(&mut self, f: Node<'_>) {
        if self.declarations_only {
            return;
        }
        let mut env = self.globals.clone();
        if let Some(template) = self.host_template(f) {
            for name in template.param_names() {
                env.insert(
                    name.to_string(),
                    HostValue::Unknown(format!(
                        "`{name}` is a template parameter of the host function `{}`, and no call in this file gives it a constant",
                        template.name
                    )),
                );
            }
            let open = template.param_names().map(str::to_string).collect();
            self.templates.push(template);
            let outer = std::mem::replace(&mut self.open_params, open);
            self.run_function(f, env);
            self.open_params = outer;
            return;
        }
        self.run_function(f, env);
    }

    /// A host method defined in its class (`args`: a specialization's arguments): its body
    /// runs with the class's constants readable by their bare names (`THREADS`).
    pub fn method(&mut self, f: Node<'_>, class: &str, args: &Option<Vec<String>>) {
        let class = match args {
            Some(a) => format!("{class}<{}>", a.join(", ")),
            None => class.to_string(),
        };
        let outer = self.classes.enter(class);
        self.function(f);
        self.classes.leave(outer);
    }

    /// Runs `f`'s body from `env`.
    pub(super) fn run_function(&mut self, f: Node<'_>, mut env: Env) {
        // Parameters are whatever the caller passes.
        self.unknown_parameters(f, "the host function", &mut env);
        if let Some(body) = f.child_by_field_name("body") {
            self.statement(body, &mut env);
        }
    }

    pub(super) fn statement(&mut self, n: Node<'_>, env: &mut Env) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        match n.kind() {
            "compound_statement" => {
                let outer: std::collections::HashSet<String> = env.keys().cloned().collect();
                let shadowed: Vec<(String, HostValue)> = declared_in(n, self.src)
                    .into_iter()
                    .filter_map(|d| Some((d.to_string(), env.get(d)?.clone())))
                    .collect();
                for s in named_children(n) {
                    self.statement(s, env);
                }
                // Names declared inside go out of scope; what they shadowed comes back.
                env.retain(|k, _| outer.contains(k));
                env.extend(shadowed);
            }
            "declaration" => {
                self.launches_in(n, env);
                self.declaration(n, env);
            }
            "expression_statement" => {
                self.launches_in(n, env);
                if let Some(e) = n.named_child(0) {
                    self.effects(e, env);
                }
            }
            "alias_declaration" | "type_definition" => self.alias(n, env),
            "if_statement" => self.branch(n, env),
            "for_statement" | "while_statement" | "do_statement" | "for_range_loop" => {
                self.looping(n, env)
            }
            "switch_statement" => {
                self.launches_in_header(n, env);
                // Each case runs from the same values; after the switch, a name any case
                // changes is not a constant.
                let assigned = assigned_names(n, self.src);
                let line = self.line(n);
                if let Some(body) = n.child_by_field_name("body") {
                    let mut inner = env.clone();
                    for s in named_children(body) {
                        let mut case_env = inner.clone();
                        for c in named_children(s) {
                            self.statement(c, &mut case_env);
                        }
                        inner = env.clone();
                    }
                }
                for name in assigned {
                    let why = format!("`{name}` is assigned in the `switch` at line {line}");
                    forget(env, &name, &why);
                }
            }
            "labeled_statement" | "case_statement" => {
                for c in named_children(n) {
                    self.statement(c, env);
                }
            }
            "return_statement" => self.launches_in(n, env),
            _ => self.launches_in(n, env),
        }
    }

    /// `if`: a constant condition runs one arm; otherwise both run and a name they leave
    /// different is not a constant after the branch.
    fn branch(&mut self, n: Node<'_>, env: &mut Env) {
        self.launches_in_header(n, env);
        let cond = n
            .child_by_field_name("condition")
            .map(|c| self.eval(c, env).as_int());
        let then = n.child_by_field_name("consequence");
        let other = n
            .child_by_field_name("alternative")
            .and_then(|a| a.named_child(0).or(Some(a)));
        match cond {
            Some(Some(v)) => {
                let taken = if v != 0 { then } else { other };
                if let Some(s) = taken {
                    self.statement(s, env);
                }
            }
            _ => {
                let mut a = env.clone();
                let mut b = env.clone();
                if let Some(s) = then {
                    self.statement(s, &mut a);
                }
                if let Some(s) = other {
                    self.statement(s, &mut b);
                }
                let line = self.line(n);
                for (k, va) in a {
                    let vb = b.get(&k);
                    let joined = match (vb, &va) {
                        (Some(vb), _) if *vb == va => va,
                        // A variable holding a kernel holds either side's.
                        (Some(HostValue::Kernels(kb)), HostValue::Kernels(ka)) => {
                            HostValue::Kernels(crate::front::host_values::kernel_union(ka, kb))
                        }
                        _ => HostValue::Unknown(format!(
                            "`{k}` depends on which side of the branch at line {line} runs"
                        )),
                    };
                    if env.contains_key(&k) {
                        env.insert(k, joined);
                    }
                }
            }
        }
    }

    /// A loop: names assigned anywhere in it change from trip to trip, so inside and after
    /// it they are not constants; its launches are read once with that.
    fn looping(&mut self, n: Node<'_>, env: &mut Env) {
        if let Some(init) = n.child_by_field_name("initializer") {
            match init.kind() {
                "declaration" => self.declaration(init, env),
                _ => self.effects(init, env),
            }
        }
        let line = self.line(n);
        for name in assigned_names(n, self.src) {
            forget(
                env,
                &name,
                &format!("`{name}` changes in the loop at line {line}"),
            );
        }
        self.launches_in_header(n, env);
        if let Some(body) = n.child_by_field_name("body") {
            let mut inner = env.clone();
            self.statement(body, &mut inner);
        }
    }

    fn line(&self, n: Node<'_>) -> usize {
        n.start_position().row + 1
    }

    /// `int n = 256;`, `dim3 t(16, 16);`, `dim3 t{16, 16};`, `const int w = 2 * n;`.
    fn declaration(&mut self, n: Node<'_>, env: &mut Env) {
        let is_dim3 = n
            .child_by_field_name("type")
            .is_some_and(|t| self.t(t).trim_start_matches("const ").trim() == "dim3");
        let is_launch_config = n
            .child_by_field_name("type")
            .is_some_and(|t| crate::front::host_values::is_launch_config(self.t(t)));
        for d in named_children(n) {
            let (name_node, value) = match d.kind() {
                "init_declarator" => (
                    d.child_by_field_name("declarator"),
                    d.child_by_field_name("value"),
                ),
                "identifier" => (Some(d), None),
                // `dim3 b(TILE, TILE);` reads as a function declaration to a grammar that
                // does not know `TILE` is a value: inside a function body it is an object
                // constructed from those names.
                // `void (*k)(float *);`: a pointer to a function, assigned later.
                "function_declarator"
                    if d.child_by_field_name("declarator")
                        .is_some_and(|x| x.kind() == "parenthesized_declarator") =>
                {
                    (Some(d), None)
                }
                "function_declarator" => {
                    let name = d.child_by_field_name("declarator");
                    let args: Vec<HostValue> = d
                        .child_by_field_name("parameters")
                        .map(named_children)
                        .unwrap_or_default()
                        .iter()
                        .map(|p| self.eval_name(self.t(*p), env))
                        .collect();
                    if let Some(name) = name.filter(|x| x.kind() == "identifier") {
                        let v = if is_dim3 {
                            dim3(&args)
                        } else {
                            args.into_iter().next().unwrap_or(HostValue::Unknown(
                                "a declaration without a value".into(),
                            ))
                        };
                        env.insert(self.t(name).to_string(), v);
                    }
                    continue;
                }
                _ => continue,
            };
            // `auto k = &kern<4>;`, `void (*k)(float *) = kern;`: a kernel held.
            if let Some(declarator) = name_node
                && crate::front::syntax::declares_function_holder(n, declarator, self.src)
                && let Some(id) = crate::front::syntax::declared_identifier(declarator)
                && let Some(ks) = match value {
                    Some(v) => self.kernels_named(v, env),
                    // Assigned later: `void (*k)(float *); k = &kern<4>;`.
                    None => Some(Vec::new()),
                }
            {
                env.insert(self.t(id).to_string(), HostValue::Kernels(ks));
                continue;
            }
            let Some(name) = name_node.filter(|x| x.kind() == "identifier") else {
                continue;
            };
            let name = self.t(name).to_string();
            if is_launch_config {
                self.declare_launch_config(&name, value, env);
                continue;
            }
            let v = match value {
                None if is_dim3 => HostValue::Dim3([1, 1, 1]),
                None => HostValue::Unknown(format!("`{name}` is declared without a value")),
                Some(v) if matches!(v.kind(), "argument_list" | "initializer_list") => {
                    let parts: Vec<HostValue> = named_children(v)
                        .iter()
                        .map(|p| self.eval(*p, env))
                        .collect();
                    if is_dim3 {
                        dim3(&parts)
                    } else {
                        parts
                            .into_iter()
                            .next()
                            .unwrap_or(HostValue::Unknown(format!("`{name}` has no value")))
                    }
                }
                Some(v) => {
                    let x = self.eval(v, env);
                    match (is_dim3, x) {
                        (true, HostValue::Int(i)) => HostValue::Dim3([i, 1, 1]),
                        (_, x) => x,
                    }
                }
            };
            env.insert(name, v);
        }
    }

    /// What an expression statement does to names: assignments, increments, `&name` handed
    /// to a function.
    fn effects(&mut self, e: Node<'_>, env: &mut Env) {
        match e.kind() {
            "assignment_expression" => {
                let (Some(lhs), Some(rhs)) = (
                    e.child_by_field_name("left"),
                    e.child_by_field_name("right"),
                ) else {
                    return;
                };
                self.effects(rhs, env);
                let op = e.child_by_field_name("operator").map_or("=", |o| self.t(o));
                match lhs.kind() {
                    "identifier" => {
                        let name = self.t(lhs).to_string();
                        let holds_kernel = matches!(env.get(&name), Some(HostValue::Kernels(_)));
                        let new = if let (true, "=", Some(ks)) =
                            (holds_kernel, op, self.kernels_named(rhs, env))
                        {
                            HostValue::Kernels(ks)
                        } else if op == "=" {
                            self.eval(rhs, env)
                        } else {
                            let old = env
                                .get(&name)
                                .cloned()
                                .unwrap_or(HostValue::Unknown(format!("`{name}` is not known")));
                            let r = self.eval(rhs, env);
                            arith(&op[..op.len() - 1], &old, &r)
                        };
                        env.insert(name, new);
                    }
                    "field_expression" => {
                        // `block.x = 64`.
                        let (Some(base), Some(field)) = (
                            lhs.child_by_field_name("argument"),
                            lhs.child_by_field_name("field"),
                        ) else {
                            return;
                        };
                        let name = self.t(base).to_string();
                        let k = match self.t(field) {
                            "x" => 0,
                            "y" => 1,
                            "z" => 2,
                            // `cfg.blockDim = b` of a launch configuration.
                            other => {
                                self.assign_launch_config_field((&name, other), op, rhs, env);
                                return;
                            }
                        };
                        let v = self.eval(rhs, env);
                        let new = match (env.get(&name), v, op) {
                            (Some(HostValue::Dim3(d)), HostValue::Int(i), "=") => {
                                let mut d = *d;
                                d[k] = i;
                                HostValue::Dim3(d)
                            }
                            _ => HostValue::Unknown(format!("`{name}` is changed field by field")),
                        };
                        env.insert(name, new);
                    }
                    _ => {}
                }
            }
            "update_expression" => {
                if let Some(arg) = e.child_by_field_name("argument")
                    && arg.kind() == "identifier"
                {
                    let name = self.t(arg).to_string();
                    let delta = if self.t(e).contains("++") { 1 } else { -1 };
                    let new = arith(
                        "+",
                        env.get(&name).unwrap_or(&HostValue::Int(0)),
                        &HostValue::Int(delta),
                    );
                    let new = if env.contains_key(&name) {
                        new
                    } else {
                        HostValue::Unknown(format!("`{name}` is not known"))
                    };
                    env.insert(name, new);
                }
            }
            "call_expression" => {
                // A name whose address a function receives may be changed by it.
                let made = self
                    .tensor_map_call(e, env)
                    .and_then(|m| Some((m.target?, m.value)));
                // A launch reads its configuration through its address and changes nothing.
                let launch = crate::front::syntax::api_launch(e, self.src).is_some();
                if let Some(args) = e.child_by_field_name("arguments")
                    && !launch
                {
                    let callee = e.child_by_field_name("function").map_or("", |f| self.t(f));
                    for a in named_children(args) {
                        if a.kind() == "pointer_expression"
                            && self.t(a).starts_with('&')
                            && let Some(x) = a.child_by_field_name("argument")
                            && x.kind() == "identifier"
                        {
                            let name = self.t(x);
                            let why = format!("`{name}` is passed by address to `{callee}`");
                            forget(env, name, &why);
                        }
                    }
                }
                if let Some((name, map)) = made {
                    env.insert(name, map);
                }
            }
            "comma_expression" | "parenthesized_expression" => {
                for c in named_children(e) {
                    self.effects(c, env);
                }
            }
            _ => {}
        }
    }

    /// Whether `name` is a variable, parameter or constant the host code declares.
    pub(super) fn is_declared(&self, name: &str, env: &Env) -> bool {
        env.contains_key(name) || self.globals.contains_key(name)
    }

    /// Type or value text with the names this run binds written in: a type parameter or
    /// alias by the type it names, an integer by its value (`Traits<H, 64, T>` in
    /// `dispatch<float, 128>` is `Traits<128, 64, float>`).
    pub(super) fn bind_words(&self, text: &str, env: &Env) -> String {
        crate::front::class_members::substitute(text, &|w| match env
            .get(w)
            .or_else(|| self.globals.get(w))?
        {
            HostValue::Type(t) if t != w => Some(t.clone()),
            HostValue::Int(v) => Some(v.to_string()),
            _ => None,
        })
    }

    /// The value of a name written as text.
    pub(super) fn eval_name(&self, name: &str, env: &Env) -> HostValue {
        let name = name.trim();
        // `::N` is the global `N`.
        let name = name.strip_prefix("::").unwrap_or(name);
        env.get(name)
            .or_else(|| self.globals.get(name))
            .cloned()
            .or_else(|| self.class_constant(name, env))
            .or_else(|| {
                crate::bank::tma::TmaSwizzle::from_enumerator(name)
                    .map(|s| HostValue::Int(s as i64))
            })
            .unwrap_or_else(|| HostValue::Unknown(format!("`{name}` is not known to banklint")))
    }

    /// The value of a host expression.
    pub fn eval(&self, n: Node<'_>, env: &Env) -> HostValue {
        let unknown = |why: String| HostValue::Unknown(why);
        match n.kind() {
            "number_literal" => parse_int_literal(self.t(n)).map_or_else(
                || unknown(format!("`{}` is not an integer", self.t(n))),
                HostValue::Int,
            ),
            "true" => HostValue::Int(1),
            "false" => HostValue::Int(0),
            "char_literal" => {
                let t = self.t(n);
                let c = t.trim_matches('\'');
                match c.chars().next() {
                    Some(ch) if c.chars().count() == 1 => HostValue::Int(ch as i64),
                    _ => unknown(format!("`{t}` is not known")),
                }
            }
            // A template argument that names a constant reads as a type to the grammar.
            "identifier" | "qualified_identifier" | "type_identifier" | "type_descriptor" => {
                self.eval_name(self.t(n), env)
            }
            "parenthesized_expression" | "condition_clause" => match n.named_child(0) {
                Some(c) => self.eval(c, env),
                None => unknown("an empty expression".into()),
            },
            "binary_expression" => {
                let (Some(l), Some(r), Some(op)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                    n.child_by_field_name("operator"),
                ) else {
                    return unknown("an incomplete expression".into());
                };
                arith(self.t(op), &self.eval(l, env), &self.eval(r, env))
            }
            "unary_expression" => {
                let (Some(arg), Some(op)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("operator"),
                ) else {
                    return unknown("an incomplete expression".into());
                };
                match (self.t(op), self.eval(arg, env)) {
                    ("-", HostValue::Int(v)) => HostValue::Int(v.wrapping_neg()),
                    ("+", HostValue::Int(v)) => HostValue::Int(v),
                    ("~", HostValue::Int(v)) => HostValue::Int(!v),
                    ("!" | "not", HostValue::Int(v)) => HostValue::Int(i64::from(v == 0)),
                    (_, HostValue::Unknown(w)) => HostValue::Unknown(w),
                    (o, _) => unknown(format!("`{o}` of a non-integer")),
                }
            }
            "conditional_expression" => {
                let (Some(c), Some(a), Some(b)) = (
                    n.child_by_field_name("condition"),
                    n.child_by_field_name("consequence"),
                    n.child_by_field_name("alternative"),
                ) else {
                    return unknown("an incomplete expression".into());
                };
                match self.eval(c, env) {
                    HostValue::Int(v) if v != 0 => self.eval(a, env),
                    HostValue::Int(_) => self.eval(b, env),
                    other => other,
                }
            }
            "cast_expression" => match n.child_by_field_name("value") {
                Some(v) => self.eval(v, env),
                None => unknown("an incomplete cast".into()),
            },
            "sizeof_expression" => {
                // `sizeof(half)`, a type the grammar does not know, reads as a parenthesized
                // name; a type parameter or alias of the run names its type.
                let written = match n.child_by_field_name("type") {
                    Some(t) => self.t(t),
                    None => n.child_by_field_name("value").map_or("", |v| self.t(v)),
                };
                let written = written.trim();
                let written = written
                    .strip_prefix('(')
                    .and_then(|w| w.strip_suffix(')'))
                    .unwrap_or(written)
                    .trim();
                let ty = match env.get(written).or_else(|| self.globals.get(written)) {
                    Some(HostValue::Type(t)) => t.clone(),
                    _ => written.to_string(),
                };
                match scalar_size(&ty) {
                    Some(s) => HostValue::Int(s),
                    None => unknown(format!("the size of `{ty}`")),
                }
            }
            "field_expression" => {
                let (Some(base), Some(field)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("field"),
                ) else {
                    return unknown("an incomplete expression".into());
                };
                let k = match self.t(field) {
                    "x" => 0,
                    "y" => 1,
                    "z" => 2,
                    other => {
                        return self
                            .launch_config_field(self.t(base), other, env)
                            .unwrap_or_else(|| {
                                unknown(format!("`{}` is not known to banklint", self.t(n)))
                            });
                    }
                };
                match self.eval(base, env) {
                    HostValue::Dim3(d) => HostValue::Int(d[k]),
                    HostValue::Unknown(w) => HostValue::Unknown(w),
                    HostValue::Int(_)
                    | HostValue::TensorMap(..)
                    | HostValue::Type(_)
                    | HostValue::Kernels(_) => unknown(format!("`{}` is not a dim3", self.t(base))),
                }
            }
            "call_expression" => self.call(n, env),
            "initializer_list" => {
                let parts: Vec<HostValue> = named_children(n)
                    .iter()
                    .map(|p| self.eval(*p, env))
                    .collect();
                dim3(&parts)
            }
            _ => unknown(format!(
                "`{}` is not a compile-time constant",
                short(self.t(n))
            )),
        }
    }

    fn call(&self, n: Node<'_>, env: &Env) -> HostValue {
        if let Some(made) = self.tensor_map_call(n, env)
            && made.target.is_none()
        {
            return made.value;
        }
        let f = n.child_by_field_name("function");
        let args: Vec<Node<'_>> = n
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        let name = f.map_or("", |f| match f.kind() {
            "template_function" => f.child_by_field_name("name").map_or("", |x| self.t(x)),
            _ => self.t(f),
        });
        let name = name.rsplit("::").next().unwrap_or(name);
        let values = || args.iter().map(|a| self.eval(*a, env)).collect::<Vec<_>>();
        match name {
            "dim3" => dim3(&values()),
            "min" | "max" | "fminf" | "fmaxf" if args.len() == 2 => {
                let v = values();
                arith(
                    if name.contains("min") { "min" } else { "max" },
                    &v[0],
                    &v[1],
                )
            }
            "static_cast" | "int" | "unsigned" | "size_t" | "uint32_t" | "int32_t" | "int64_t"
                if args.len() == 1 =>
            {
                self.eval(args[0], env)
            }
            _ => HostValue::Unknown(format!("`{}` is the result of `{name}`", short(self.t(n)))),
        }
    }
}

fn find_enum(n: Node<'_>) -> Option<Node<'_>> {
    if n.kind() == "enum_specifier" {
        return Some(n);
    }
    named_children(n)
        .into_iter()
        .find(|c| c.kind() == "enum_specifier")
}

/// The name a parameter declares.
pub(super) fn declared_name<'s>(p: Node<'_>, src: &'s str) -> Option<&'s str> {
    let d = p.child_by_field_name("declarator")?;
    crate::front::syntax::find_descendant(d, &["identifier"]).map(|i| text(i, src))
}

/// Names assigned (or incremented, or handed out by address) anywhere inside `n`.
/// `name` is no longer known, nor any field the reader keeps of it (`cfg.blockDim`).
fn forget(env: &mut Env, name: &str, why: &str) {
    let fields = format!("{name}.");
    for (key, value) in env.iter_mut() {
        if key.starts_with(&fields) {
            *value = HostValue::Unknown(why.to_string());
        }
    }
    env.insert(name.to_string(), HostValue::Unknown(why.to_string()));
}

fn assigned_names(n: Node<'_>, src: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // One cursor in preorder: loops nest, and each walks all it holds.
    crate::front::syntax::preorder(n, |x| {
        let target = match x.kind() {
            "assignment_expression" => x.child_by_field_name("left"),
            "update_expression" => x.child_by_field_name("argument"),
            "pointer_expression" if text(x, src).starts_with('&') => {
                x.child_by_field_name("argument")
            }
            _ => None,
        };
        if let Some(t) = target {
            let t = if t.kind() == "field_expression" {
                t.child_by_field_name("argument").unwrap_or(t)
            } else {
                t
            };
            if t.kind() == "identifier" {
                let name = text(t, src).to_string();
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        true
    });
    out
}

/// Whether a block declares `name` itself (so that the outer one is back after it).
/// The names a block's own declarations declare (what they may shadow).
fn declared_in<'s>(block: Node<'_>, src: &'s str) -> Vec<&'s str> {
    let mut out = Vec::new();
    for s in named_children(block) {
        if s.kind() != "declaration" {
            continue;
        }
        for d in named_children(s) {
            let n = if d.kind() == "init_declarator" {
                d.child_by_field_name("declarator")
            } else {
                Some(d)
            };
            if let Some(n) = n.filter(|n| n.kind() == "identifier") {
                out.push(text(n, src));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values of every launch in `src` (host functions and file-scope constants).
    fn launches(src: &str) -> Vec<LaunchValues> {
        let tree = crate::front::syntax::parse(src).expect("a tree");
        let mut r = HostReader::new(src);
        for n in named_children(tree.root_node()) {
            match n.kind() {
                "function_definition" => r.function(n),
                _ => r.global(n),
            }
        }
        r.launches.sort_by_key(|(at, _)| *at);
        r.launches.into_iter().map(|(_, v)| v).collect()
    }

    fn block(v: &LaunchValues) -> Result<[i64; 3], String> {
        v.block.as_ref().expect("a block").as_dims()
    }

    #[test]
    fn a_launch_configuration_s_block_is_known_until_something_may_change_it() {
        let l = launches(
            "void h(float *o, int n) {\n  cudaLaunchConfig_t c = {dim3(2), dim3(64)};\n  cudaLaunchKernelEx(&c, k, o);\n  cudaLaunchKernelEx(&c, k, o);\n  for (int i = 0; i < n; i++) { c.blockDim = dim3(32 * (i + 1)); }\n  cudaLaunchKernelEx(&c, k, o);\n  c.blockDim = 128;\n  cudaLaunchKernelEx(&c, k, o);\n  set_up(&c);\n  cudaLaunchKernelEx(&c, k, o);\n  cudaLaunchConfig_t d = c;\n  cudaLaunchKernelEx(&d, k, o);\n}\n",
        );
        assert_eq!(block(&l[0]), Ok([64, 1, 1]));
        assert_eq!(block(&l[1]), Ok([64, 1, 1]), "a launch changes nothing");
        let after_loop = block(&l[2]).expect_err("set in a loop");
        assert!(after_loop.contains("changes in the loop"), "{after_loop}");
        assert_eq!(block(&l[3]), Ok([128, 1, 1]), "an integer is dim3(x)");
        let passed = block(&l[4]).expect_err("handed to a function");
        assert!(passed.contains("passed by address to `set_up`"), "{passed}");
        assert!(block(&l[5]).is_err(), "a copy of what is not known");
    }

    #[test]
    fn values_follow_the_program_order() {
        let l = launches(
            "const int TILE = 16;\nvoid h(int n) {\n  int threads = 256;\n  threads = threads > 1024 ? 1024 : threads;\n  k<<<1, threads>>>(n);\n  dim3 b(TILE, TILE);\n  b.y = 4;\n  k<<<1, b>>>(n, TILE * 2);\n  constexpr int BM = 32;\n  t<BM, 2 * BM><<<1, BM>>>();\n}\n",
        );
        assert_eq!(block(&l[0]), Ok([256, 1, 1]), "the clamp idiom, in order");
        assert_eq!(block(&l[1]), Ok([16, 4, 1]));
        assert_eq!(l[1].arguments[1], HostValue::Int(32));
        assert!(
            matches!(l[1].arguments[0], HostValue::Unknown(_)),
            "a parameter"
        );
        assert_eq!(
            l[2].template_values,
            vec![Some("32".to_string()), Some("64".to_string())]
        );
    }

    #[test]
    fn sizeof_a_type_the_grammar_reads_as_a_name() {
        // `half` is no type the grammar knows: `sizeof(half)` parses as a parenthesized name.
        let l = launches(
            "void h(half *o) {\n  constexpr int bx = 128 / sizeof(half);\n  dim3 b(bx, 256 / bx);\n  k<bx><<<1, b>>>(o);\n  k<1><<<1, sizeof(unsigned int) * 8>>>(o);\n}\n",
        );
        assert_eq!(block(&l[0]), Ok([64, 4, 1]));
        assert_eq!(l[0].template_values, vec![Some("64".to_string())]);
        assert_eq!(block(&l[1]), Ok([32, 1, 1]));
    }

    #[test]
    fn no_scope_leaks_and_no_string_text() {
        let l = launches(
            "__global__ void k() { int rows = 64; }\nvoid h() {\n  printf(\"block (%d,%d)\\n\", 1, 2);\n  k<<<1, rows>>>();\n}\n",
        );
        assert!(block(&l[0]).is_err(), "`rows` belongs to another function");
    }

    #[test]
    fn self_reference_loops_and_branches_are_not_constants() {
        let l = launches(
            "void h(int c) {\n  int n = n * n + n;\n  k<<<1, n>>>();\n  int s = 32;\n  for (int i = 0; i < 4; i++) { k<<<1, s>>>(); s *= 2; }\n  int w = 64;\n  if (c) w = 128;\n  k<<<1, w>>>();\n  int v = 8;\n  if (1) v = 16; else v = 4;\n  k<<<1, v>>>();\n}\n",
        );
        assert!(block(&l[0]).is_err(), "{:?}", l[0]);
        let e = block(&l[1]).expect_err("changes in the loop");
        assert!(e.contains("loop at line 5"), "{e}");
        let e = block(&l[2]).expect_err("a branch");
        assert!(e.contains("branch at line 7"), "{e}");
        assert_eq!(block(&l[3]), Ok([16, 1, 1]), "a constant condition");
    }

    #[test]
    fn what_a_function_does_to_a_name_after_its_definition_counts() {
        let l = launches(
            "void h(int *o) {\n  int a = 4; int b = 8; int c = 16; int d = 32; dim3 t(8, 8);\n  b += 1; f(&c); int e = a & d; t.x = 2;\n  k<<<1, 32>>>(a, b, c, d, e, t.x);\n}\n",
        );
        let args = &l[0].arguments;
        assert_eq!(args[0], HostValue::Int(4));
        assert_eq!(args[1], HostValue::Int(9), "compound assignment, in order");
        assert!(
            matches!(&args[2], HostValue::Unknown(w) if w.contains("by address")),
            "{:?}",
            args[2]
        );
        assert_eq!(args[3], HostValue::Int(32));
        assert_eq!(args[4], HostValue::Int(0), "`a & d` is a bitwise and");
        assert_eq!(args[5], HostValue::Int(2), "a field of a dim3");
    }

    #[test]
    fn a_long_chain_costs_linear_time() {
        let mut src = String::from("void h() {\n  int b0 = 1;\n  int b1 = 1;\n");
        for i in 2..200 {
            src.push_str(&format!(
                "  int b{i} = b{} + b{} - b{};\n",
                i - 1,
                i - 2,
                i - 2
            ));
        }
        src.push_str("  k<<<1, b199>>>();\n}\n");
        let l = launches(&src);
        assert_eq!(block(&l[0]), Ok([1, 1, 1]));
    }
}
