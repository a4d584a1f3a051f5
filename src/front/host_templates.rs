//! Host function templates run once per instantiation. A dispatcher written
//! `template <int kHeadDim, int kStage> void launch(...) { constexpr int Br = ...;
//! k<Br, kStage><<<grid, block>>>(...); }`, called as `launch<64, 2>(q)`, launches its kernel
//! with constants only that call gives. Each such call seen in host code (also inside another
//! template's run) binds the template's parameters, and the function's body runs again with
//! them, so its launches see the block shapes and template arguments of that instantiation.
//! A template no call instantiates runs with its defaults when every parameter has one.
//! Runs are bounded by [`MAX_HOST_INSTANCES`] per file.

use crate::front::host_code::{Env, HostReader, HostValue};
use crate::front::host_values::TemplateParamKind as Param;
pub use crate::front::host_values::{HostTemplate, TemplateCall};
use crate::front::syntax::{children, named_children, text};
use crate::limits::{MAX_HOST_INSTANCES, MAX_TEMPLATE_ARGUMENT_TEXT};
use std::collections::HashSet;
use std::ops::Range;
use tree_sitter::Node;

/// For a file's host templates that launch and that nothing in it instantiates (by name),
/// the calls the files including it make of them; given the file as prepared so far.
pub type IncluderCalls<'c> =
    &'c mut dyn FnMut(&crate::front::prepared::Prepared, &[String]) -> Vec<TemplateCall>;

impl HostReader<'_> {
    /// `f` as a host template, when a `template <...>` header declares it.
    pub(super) fn host_template(&self, f: Node<'_>) -> Option<HostTemplate> {
        let header = f.parent().filter(|p| p.kind() == "template_declaration")?;
        let list = header.child_by_field_name("parameters")?;
        let name = function_name(f, self.src)?;
        let mut params = Vec::new();
        for p in named_children(list) {
            let (pname, is_type) = crate::front::syntax::template_param(p, self.src)?;
            let param = if is_type {
                Param::Type
            } else {
                let globals = self.globals.clone();
                Param::Value(
                    p.child_by_field_name("default_value")
                        .map(|d| self.eval(d, &globals)),
                )
            };
            params.push((pname, param));
        }
        Some(HostTemplate {
            name,
            range: f.byte_range(),
            params,
            class: member_of_class_template(f, self.src),
            runs: Vec::new(),
        })
    }

    /// Records a function named with explicit template arguments: called
    /// (`launch<64, 2>(q)`) or passed as a pointer (`bench(launch<2, 2048>, m)`). A kernel
    /// launch is not one.
    pub(super) fn template_call(&mut self, f: Node<'_>, env: &Env) {
        if f.kind() != "template_function" {
            return;
        }
        let launch = f.parent().is_some_and(|call| {
            call.kind() == "call_expression"
                && children(call)
                    .iter()
                    .any(|c| c.kind() == "kernel_call_syntax")
        });
        if launch || self.template_calls.len() >= MAX_RECORDED_CALLS {
            return;
        }
        let (Some(name), Some(list)) = (
            f.child_by_field_name("name"),
            f.child_by_field_name("arguments"),
        ) else {
            return;
        };
        let name = text(name, self.src);
        let word = |c: char| !(c.is_ascii_alphanumeric() || c == '_');
        let open = !self.open_params.is_empty()
            && text(list, self.src)
                .split(word)
                .any(|w| self.open_params.iter().any(|p| p == w));
        let args: Vec<(HostValue, String)> = named_children(list)
            .iter()
            .map(|a| (self.eval(*a, env), self.bound_text(*a, env)))
            .collect();
        // A template that calls one of its name with its own arguments inside others'
        // (`f<A, B, C>` calling `f<X<A, B>, A, B>`) grows them at each run.
        if args
            .iter()
            .any(|(_, t)| t.len() > MAX_TEMPLATE_ARGUMENT_TEXT)
        {
            return;
        }
        self.template_calls.push(TemplateCall {
            name: name.rsplit("::").next().unwrap_or(name).trim().to_string(),
            args,
            line: f.start_position().row + 1,
            file: None,
            open,
            of_class: false,
        });
    }

    /// Records an explicit instantiation of a class template, `template class MLP<float,
    /// 64>;` (`t` is its `MLP<float, 64>`): its members defined outside the class run with
    /// these arguments.
    pub fn class_instantiation(&mut self, t: Node<'_>) {
        let (Some(name), Some(list)) = (
            t.child_by_field_name("name"),
            t.child_by_field_name("arguments"),
        ) else {
            return;
        };
        if self.template_calls.len() >= MAX_RECORDED_CALLS {
            return;
        }
        let globals = self.globals.clone();
        let args = named_children(list)
            .iter()
            .map(|a| (self.eval(*a, &globals), self.bound_text(*a, &globals)))
            .collect();
        let name = text(name, self.src);
        self.template_calls.push(TemplateCall {
            name: name.rsplit("::").next().unwrap_or(name).trim().to_string(),
            args,
            line: t.start_position().row + 1,
            file: None,
            open: false,
            of_class: true,
        });
    }

    /// Whether `call` names `t`: a function template by its name, or a member of a class
    /// template that an explicit instantiation of the class names.
    fn names(t: &HostTemplate, call: &TemplateCall) -> bool {
        match (&t.class, call.of_class) {
            (_, false) => call.name == t.name,
            (Some((class, _)), true) => *class == call.name,
            (None, true) => false,
        }
    }

    /// What `call` binds `t`'s parameters to (see [`HostReader::bind`]); for a class's
    /// instantiation, each parameter takes the argument at its place among the class's
    /// arguments as the member's definition writes them (`MLP<T, W>::run`).
    fn binding(
        &self,
        t: &HostTemplate,
        call: &TemplateCall,
    ) -> Option<(Env, Vec<(String, String)>)> {
        if !Self::names(t, call) {
            return None;
        }
        let Some((_, written)) = t.class.as_ref().filter(|_| call.of_class) else {
            return self.bind(t, call);
        };
        let args: Option<Vec<(HostValue, String)>> = (t.params.iter())
            .map(|(name, _)| {
                let at = written.iter().position(|w| w == name)?;
                call.args.get(at).cloned()
            })
            .collect();
        self.bind(
            t,
            &TemplateCall {
                args: args?,
                ..call.clone()
            },
        )
    }

    /// An argument as written, with the run's parameters in it replaced by what they are
    /// bound to.
    fn bound_text(&self, a: Node<'_>, env: &Env) -> String {
        let written = text(a, self.src).split_whitespace().collect::<Vec<_>>();
        self.bind_words(&written.join(" "), env)
    }

    /// Calls another file makes of this file's templates (an includer's `launch_<64>(p)` of
    /// a template its header defines): run like the file's own.
    pub fn import_calls(&mut self, calls: Vec<TemplateCall>) {
        self.template_calls.extend(calls);
    }

    /// The calls with explicit template arguments the file made, its templates' runs included.
    pub fn calls(&self) -> &[TemplateCall] {
        &self.template_calls
    }

    /// The host templates that launch a kernel (themselves, or through another template of
    /// the file they name) and that no call instantiated (nor their defaults): their launches
    /// wait for a call from another file. Call after [`HostReader::finish`]; the front end
    /// asks before the runs ([`HostReader::unrun_before_runs`]), and a test checks the two
    /// agree.
    #[cfg(test)]
    pub fn unrun_templates(&self) -> Vec<String> {
        self.launching_where(|t| t.runs.is_empty())
    }

    /// What `HostReader::unrun_templates` will say, known before any template runs: the
    /// launching templates that no recorded call binds and whose parameters do not all have
    /// defaults. Their includers' calls are then imported before the runs, so that the file
    /// is read once.
    pub fn unrun_before_runs(&self) -> Vec<String> {
        self.launching_where(|t| {
            let defaults = !t.params.is_empty()
                && (t.params.iter())
                    .all(|(_, p)| matches!(p, Param::Value(Some(HostValue::Int(_)))));
            !defaults && !(self.template_calls.iter()).any(|c| self.binding(t, c).is_some())
        })
    }

    /// The names of the templates that launch (themselves or through the file's templates
    /// they name) and that `unrun` picks.
    fn launching_where(&self, unrun: impl Fn(&HostTemplate) -> bool) -> Vec<String> {
        let launches = |r: &Range<usize>| self.launches.iter().any(|(at, _)| r.contains(at));
        let mut launching: Vec<bool> = self.templates.iter().map(|t| launches(&t.range)).collect();
        // A dispatcher that calls a launching template launches too (a few levels).
        for _ in 0..TEMPLATE_NESTING {
            let names: Vec<&str> = (self.templates.iter().zip(&launching))
                .filter(|(_, l)| **l)
                .map(|(t, _)| t.name.as_str())
                .collect();
            let mut grew = false;
            for (t, l) in self.templates.iter().zip(launching.iter_mut()) {
                if !*l
                    && let Some(body) = self.src.get(t.range.clone())
                    && body
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .any(|w| names.contains(&w))
                {
                    *l = true;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let mut names: Vec<String> = (self.templates.iter().zip(&launching))
            .filter(|(t, l)| **l && unrun(t))
            .map(|(t, _)| t.name.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Records an explicit instantiation, `template void reduce<int>(int *);`, as a call.
    pub fn instantiation(&mut self, f: Node<'_>) {
        let globals = self.globals.clone();
        self.template_call(f, &globals);
    }

    /// Runs each host template once per instantiation its calls give (calls found in those
    /// runs included), then keeps, for each launch that an instantiation saw, only the
    /// launch values of instantiations. Runs are bounded, so calls are taken depth first:
    /// the calls a run makes are taken before the next call of the level above, so that a
    /// chain of dispatchers (`run_mha<T>` calls `run_kernel<Traits<T>>`, which launches)
    /// reaches its launches before the budget goes to the next chain's first step. Among
    /// the calls of one level, those that bind every parameter go first: a call naming a
    /// template's own open parameters (read without its arguments) tells less than one an
    /// instantiation makes.
    pub fn finish(&mut self, root: Node<'_>) {
        let mut ran = 0usize;
        // Call indices still to take, the next on top.
        let mut pending: Vec<usize> = Vec::new();
        let push_level = |pending: &mut Vec<usize>, calls: &[TemplateCall], level: Range<usize>| {
            // Open calls under closed ones, each group in call order from the top.
            let (closed, open): (Vec<usize>, Vec<usize>) = level.partition(|&c| !calls[c].open);
            pending.extend(open.into_iter().rev());
            pending.extend(closed.into_iter().rev());
        };
        push_level(
            &mut pending,
            &self.template_calls,
            0..self.template_calls.len(),
        );
        'calls: while let Some(c) = pending.pop() {
            let call = self.template_calls[c].clone();
            for t in 0..self.templates.len() {
                let Some((env, written)) = self.binding(&self.templates[t], &call) else {
                    continue;
                };
                if self.templates[t].runs.contains(&written) {
                    continue;
                }
                if ran >= MAX_HOST_INSTANCES || self.budget == 0 {
                    break 'calls;
                }
                ran += 1;
                self.templates[t].runs.push(written.clone());
                let range = self.templates[t].range.clone();
                let Some(f) = definition_at(root, range) else {
                    continue;
                };
                let before = self.template_calls.len();
                self.instance = written;
                self.run_function(f, env);
                self.instance.clear();
                let made = before..self.template_calls.len();
                push_level(&mut pending, &self.template_calls, made);
            }
        }
        // A template no call names, whose parameters all have defaults, runs once with them
        // (`template <int STAGES = 2> void launch(...)`, called from another file).
        for t in 0..self.templates.len() {
            let called = (self.template_calls.iter()).any(|c| Self::names(&self.templates[t], c));
            if called || !self.templates[t].runs.is_empty() || ran >= MAX_HOST_INSTANCES {
                continue;
            }
            let defaults: Option<Vec<(String, i64)>> = self.templates[t]
                .params
                .iter()
                .map(|(name, p)| match p {
                    Param::Value(Some(HostValue::Int(v))) => Some((name.clone(), *v)),
                    _ => None,
                })
                .collect();
            let Some(defaults) = defaults.filter(|d| !d.is_empty()) else {
                continue;
            };
            let Some(f) = definition_at(root, self.templates[t].range.clone()) else {
                continue;
            };
            let mut env = self.globals.clone();
            for (name, v) in &defaults {
                env.insert(name.clone(), HostValue::Int(*v));
            }
            let written: Vec<(String, String)> = defaults
                .iter()
                .map(|(n, v)| (n.clone(), v.to_string()))
                .collect();
            ran += 1;
            self.templates[t].runs.push(written.clone());
            self.instance = written;
            self.run_function(f, env);
            self.instance.clear();
        }
        let instanced: HashSet<usize> = self
            .launches
            .iter()
            .filter(|(_, v)| !v.host_args.is_empty())
            .map(|(at, _)| *at)
            .collect();
        // In a template that ran, a launch no run reached (a branch its arguments rule out:
        // `if (KT::CTAS == 1) ... else coop_launch(...)`) is not made by the instantiations
        // seen; what the template read without arguments says nothing of them.
        let ran: Vec<Range<usize>> = (self.templates.iter())
            .filter(|t| !t.runs.is_empty())
            .map(|t| t.range.clone())
            .collect();
        self.launches.retain(|(at, v)| {
            !v.host_args.is_empty()
                || !(instanced.contains(at) || ran.iter().any(|r| r.contains(at)))
        });
    }

    /// The environment and the written arguments of `call` instantiating `t`; `None` when
    /// the call binds nothing (every value argument unknown, no type argument).
    fn bind(&self, t: &HostTemplate, call: &TemplateCall) -> Option<(Env, Vec<(String, String)>)> {
        let mut env = self.globals.clone();
        let mut written = Vec::new();
        let mut binds_something = false;
        for (k, (name, param)) in t.params.iter().enumerate() {
            let arg = call.args.get(k);
            match param {
                Param::Type => {
                    if let Some((_, text)) = arg {
                        written.push((name.clone(), text.clone()));
                        env.insert(name.clone(), HostValue::Type(text.clone()));
                        binds_something = true;
                    }
                }
                Param::Value(default) => {
                    let value = match (arg, default) {
                        (Some((v, _)), _) => v.clone(),
                        (None, Some(d)) => d.clone(),
                        (None, None) => HostValue::Unknown(format!("no argument for `{name}`")),
                    };
                    let value = match value {
                        HostValue::Int(v) => {
                            written.push((name.clone(), v.to_string()));
                            binds_something = true;
                            HostValue::Int(v)
                        }
                        HostValue::Unknown(why) => {
                            if let Some((_, text)) = arg {
                                written.push((name.clone(), text.clone()));
                            }
                            HostValue::Unknown(format!(
                                "`{name}`, a template parameter of `{}`, has no constant value at the call at {}: {why}",
                                t.name,
                                call.place()
                            ))
                        }
                        other => other,
                    };
                    env.insert(name.clone(), value);
                }
            }
        }
        binds_something.then_some((env, written))
    }
}

/// Levels of host templates calling host templates followed to find the ones that launch.
const TEMPLATE_NESTING: usize = 4;

/// Template calls kept per file: a generated file of millions of calls costs bounded memory.
const MAX_RECORDED_CALLS: usize = 100_000;

/// The function definition spanning exactly `range`.
fn definition_at(root: Node<'_>, range: Range<usize>) -> Option<Node<'_>> {
    let mut n = root.descendant_for_byte_range(range.start, range.end)?;
    loop {
        if n.kind() == "function_definition" && n.byte_range() == range {
            return Some(n);
        }
        n = n.parent()?;
    }
}

/// The class template and its arguments as written when `f` defines a member of one outside
/// the class (`void MLP<T, W>::run(...)`: `MLP`, `[T, W]`).
fn member_of_class_template(f: Node<'_>, src: &str) -> Option<(String, Vec<String>)> {
    let mut d = f.child_by_field_name("declarator")?;
    while d.kind() != "function_declarator" {
        d = d.child_by_field_name("declarator")?;
    }
    let name = d.child_by_field_name("declarator")?;
    let scope = name
        .child_by_field_name("scope")
        .filter(|s| name.kind() == "qualified_identifier" && s.kind() == "template_type")?;
    let class = text(scope.child_by_field_name("name")?, src);
    let args = named_children(scope.child_by_field_name("arguments")?)
        .iter()
        .map(|a| text(*a, src).trim().to_string())
        .collect();
    Some((class.rsplit("::").next().unwrap_or(class).to_string(), args))
}

/// The unqualified name a function definition declares.
fn function_name(f: Node<'_>, src: &str) -> Option<String> {
    let mut d = f.child_by_field_name("declarator")?;
    while d.kind() != "function_declarator" {
        d = d.child_by_field_name("declarator")?;
    }
    let name = d.child_by_field_name("declarator")?;
    let name = match name.kind() {
        "template_function" => name.child_by_field_name("name")?,
        _ => name,
    };
    let t = text(name, src);
    Some(t.rsplit("::").next().unwrap_or(t).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch's block and the host template arguments of the run that saw it.
    type Seen = (Result<[i64; 3], String>, Vec<(String, String)>);

    /// What each run saw of each launch in `src`, in the order of the launches.
    fn blocks(src: &str) -> Vec<Seen> {
        blocks_with_calls(src, Vec::new())
    }

    /// The calls with explicit template arguments that the host code of `src` makes.
    fn calls_in(src: &str) -> Vec<TemplateCall> {
        let tree = crate::front::syntax::parse(src).expect("a tree");
        let mut r = HostReader::new(src);
        for n in named_children(tree.root_node()) {
            if n.kind() == "function_definition" {
                r.function(n);
            }
        }
        r.finish(tree.root_node());
        r.calls().to_vec()
    }

    /// A reader that has read `src` (without running its templates), with calls another
    /// file makes of its templates.
    fn read_all<'s>(src: &'s str, root: Node<'_>, calls: Vec<TemplateCall>) -> HostReader<'s> {
        let mut r = HostReader::new(src);
        r.import_calls(calls);
        for n in named_children(root) {
            match n.kind() {
                "function_definition" => r.function(n),
                "template_declaration" => {
                    for f in named_children(n) {
                        if f.kind() == "function_definition" {
                            r.function(f);
                        }
                    }
                }
                "template_instantiation" => {
                    if let Some(f) =
                        crate::front::syntax::find_descendant(n, &["template_function"])
                    {
                        r.instantiation(f);
                    }
                }
                _ => r.global(n),
            }
        }
        r
    }

    /// Like `blocks`, with calls another file makes of `src`'s templates.
    fn blocks_with_calls(src: &str, calls: Vec<TemplateCall>) -> Vec<Seen> {
        let tree = crate::front::syntax::parse(src).expect("a tree");
        let mut r = read_all(src, tree.root_node(), calls);
        r.finish(tree.root_node());
        r.launches.sort_by_key(|(at, _)| *at);
        r.launches
            .into_iter()
            .map(|(_, v)| (v.block.expect("a block").as_dims(), v.host_args))
            .collect()
    }

    #[test]
    fn each_call_runs_the_template_with_its_arguments() {
        let got = blocks(
            "template <int kHead, int kWarps = 4> void go(float *d) {\n\
               constexpr int threads = 32 * kWarps * (kHead < 64 ? 1 : 2);\n\
               k<kHead><<<1, threads>>>(d);\n\
             }\n\
             void run(float *d) { go<32>(d); go<128, 2>(d); go<32>(d); }\n",
        );
        let dims: Vec<[i64; 3]> = got.iter().map(|(b, _)| b.clone().unwrap()).collect();
        assert_eq!(dims, vec![[128, 1, 1], [128, 1, 1]]);
        assert_eq!(
            got[0].1,
            vec![
                ("kHead".to_string(), "32".to_string()),
                ("kWarps".into(), "4".into())
            ]
        );
        assert_eq!(got[1].1[0], ("kHead".to_string(), "128".to_string()));
    }

    #[test]
    fn templates_calling_templates_and_calls_with_nothing_known() {
        let got = blocks(
            "template <int P> void inner(float *d) { k<P><<<1, P>>>(d); }\n\
             template <int Q> void outer(float *d) { inner<Q + 32>(d); }\n\
             template <int R> void lost(float *d) { k<R><<<1, R>>>(d); }\n\
             void run(float *d, int n) { outer<32>(d); lost<n>(d); }\n",
        );
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, Ok([64, 1, 1]));
        // No call gives `R` a constant: the one run keeps it open, and says why.
        let why = got[1].0.clone().unwrap_err();
        assert!(
            why.contains("`R` is a template parameter of the host function `lost`"),
            "{why}"
        );
    }

    #[test]
    fn calls_an_includer_makes_run_the_header_template() {
        let header = "template <typename T, int W> void launch_(T *d) {\n\
               using KT = Traits<T, W>;\n\
               k<KT><<<1, 32 * W>>>(d);\n\
             }\n";
        let alone = blocks(header);
        assert_eq!(alone.len(), 1);
        assert!(alone[0].0.is_err(), "{alone:?}");
        let calls: Vec<TemplateCall> = calls_in(
            "void run_2(float *d) { launch_<float, 2>(d); }\n\
             void run_4(float *d) { launch_<float, 4>(d); }\n",
        )
        .iter()
        .map(|c| c.made_in("sizes.cu"))
        .collect();
        assert_eq!(calls.len(), 2);
        let got = blocks_with_calls(header, calls);
        let dims: Vec<[i64; 3]> = got.iter().map(|(b, _)| b.clone().unwrap()).collect();
        assert_eq!(dims, vec![[64, 1, 1], [128, 1, 1]]);
        assert_eq!(got[0].1[0], ("T".to_string(), "float".to_string()));
    }

    #[test]
    fn a_dispatcher_writes_its_arguments_into_the_class_it_hands_on() {
        // `dispatch_<float, 4>` calls `run_<Traits<W, T>>`: the run of `run_` sees the class
        // with the arguments written in, not the dispatcher's parameter names.
        let header = "template <typename KT> void run_(float *d) { k<KT><<<1, 32>>>(d); }\n\
             template <typename T, int W> void dispatch_(float *d) { run_<Traits<W, T>>(d); }\n";
        let calls: Vec<TemplateCall> = calls_in("void go(float *d) { dispatch_<float, 4>(d); }\n")
            .iter()
            .map(|c| c.made_in("a.cu"))
            .collect();
        let got = blocks_with_calls(header, calls);
        assert!(
            got.iter()
                .any(|(_, args)| args == &[("KT".to_string(), "Traits<4, float>".to_string())]),
            "{got:?}"
        );
    }

    #[test]
    fn calls_that_bind_every_parameter_run_before_open_ones() {
        // Read without its arguments, `many` makes 70 calls of `inner` with its own open `T`:
        // more than the runs allowed. The includer's `outer<4>` binds everything, and runs.
        let open_calls: String = (0..70).map(|i| format!("inner<T, {i}>(d); ")).collect();
        let header = format!(
            "template <typename T, int I> void inner(float *d) {{ k<I><<<1, 32>>>(d); }}\n\
             template <typename T> void many(float *d) {{ {open_calls}}}\n\
             template <int W> void outer(float *d) {{ k<W><<<1, 32 * W>>>(d); }}\n"
        );
        let calls: Vec<TemplateCall> = calls_in("void go(float *d) { outer<4>(d); }\n")
            .iter()
            .map(|c| c.made_in("a.cu"))
            .collect();
        let got = blocks_with_calls(&header, calls);
        assert!(
            got.iter().any(|(b, _)| *b == Ok([128, 1, 1])),
            "{:?}",
            got.iter().map(|(b, _)| b.clone()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn templates_only_includers_run_are_known_before_any_runs() {
        // `launch_` launches and nothing here calls it; `dispatch_` calls `launch_` with its own
        // parameters and nothing calls it; `defaults_` runs with its defaults; `called_` is
        // called here. Before the runs and after them, the same ones wait for an includer.
        let src = "template <typename T, int W> void launch_(T *d) { k<W><<<1, 32 * W>>>(d); }\n\
             template <typename T> void dispatch_(T *d) { launch_<T, 4>(d); }\n\
             template <int S = 2> void defaults_(float *d) { k<S><<<1, 32>>>(d); }\n\
             template <int C> void called_(float *d) { k<C><<<1, 32>>>(d); }\n\
             void go(float *d) { called_<8>(d); }\n";
        let tree = crate::front::syntax::parse(src).expect("a tree");
        let mut r = read_all(src, tree.root_node(), Vec::new());
        let before = r.unrun_before_runs();
        assert_eq!(before, ["dispatch_"]);
        r.finish(tree.root_node());
        assert_eq!(r.unrun_templates(), before);
    }

    #[test]
    fn sizeof_a_type_parameter_is_its_argument_s() {
        let got = blocks(
            "template <typename T> void go(T *d) { k<1><<<1, 32 * sizeof(T)>>>(d); }\n\
             void run(double *d) { go<double>(d); }\n",
        );
        assert_eq!(got[0].0, Ok([256, 1, 1]));
    }

    #[test]
    fn a_launch_no_instantiation_reaches_is_not_kept() {
        // `go<1>` takes the first arm only: the second arm's launch, read without arguments,
        // has no block to give and no run that makes it.
        let got = blocks(
            "template <int C> void go(float *d) {\n\
               if (C == 1) { k<1><<<1, 32>>>(d); } else { k<2><<<1, C * 32>>>(d); }\n\
             }\n\
             void run(float *d) { go<1>(d); }\n",
        );
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, Ok([32, 1, 1]));
    }

    #[test]
    fn a_template_passed_as_a_function_pointer_is_instantiated() {
        let got = blocks(
            "template <int W> void go(float *d) { k<W><<<1, 32 * W>>>(d); }\n\
             void bench(void (*f)(float *), float *d);\n\
             void run(float *d) { bench(go<2>, d); bench(go<4>, d); }\n",
        );
        let dims: Vec<[i64; 3]> = got.iter().map(|(b, _)| b.clone().unwrap()).collect();
        assert_eq!(dims, vec![[64, 1, 1], [128, 1, 1]]);
    }

    #[test]
    fn explicit_instantiations_count_as_calls_and_defaults_wait_for_none() {
        let got = blocks(
            "template <int W = 1> void go(float *d) { k<W><<<1, 32 * W>>>(d); }\n\
             template void go<2>(float *);\n\
             void run(float *d, int n) { go<4>(d); go<n>(d); }\n",
        );
        let dims: Vec<[i64; 3]> = got.iter().map(|(b, _)| b.clone().unwrap()).collect();
        // go<2> and go<4>; never the default, which a call overrides.
        assert_eq!(dims, vec![[64, 1, 1], [128, 1, 1]]);
    }

    #[test]
    fn a_template_nothing_calls_runs_with_its_defaults() {
        let got = blocks(
            "template <int STAGES = 2, int W = 4> void go(float *d) { k<STAGES><<<1, 32 * W>>>(d); }\n",
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, Ok([128, 1, 1]));
        assert_eq!(got[0].1[0], ("STAGES".to_string(), "2".to_string()));
    }

    #[test]
    fn a_template_that_instantiates_itself_stops_at_the_bound() {
        let got = blocks(
            "template <int N> void grow(float *d) { k<N><<<1, 32>>>(d); grow<N + 1>(d); }\n\
             void run(float *d) { grow<0>(d); }\n",
        );
        assert_eq!(got.len(), MAX_HOST_INSTANCES);
    }

    #[test]
    fn arguments_that_grow_at_each_run_stop_at_their_length_bound() {
        // Each run doubles its arguments' text: without a bound on their length the runs
        // would stop only at the count of runs, after writing 2^64 bytes.
        let got = blocks(
            "template <typename A, typename B> void grow(float *d) {\n\
               k<1><<<1, 32>>>(d); grow<P<A, B>, P<B, A>>(d);\n\
             }\n\
             void run(float *d) { grow<int, int>(d); }\n",
        );
        // Each run's arguments are 2 n + 5 bytes for the last run's n (`P<`, `, `, `>` around
        // two of them), and each run launches once. From `grow<int, int>`: 3, 11, 27, 59, 123,
        // 251, 507, 1019, 2043, 4091 (8187 is past 4096): 10 runs. From the call the template
        // makes read without arguments, its parameters open (`A`): 7, 19, 43, 91, 187, 379,
        // 763, 1531, 3067 (6139 is past): 9 runs.
        assert_eq!(MAX_TEMPLATE_ARGUMENT_TEXT, 4096);
        assert_eq!(got.len(), 10 + 9, "{}", got.len());
        for (_, bound) in &got {
            assert!(
                bound
                    .iter()
                    .all(|(_, t)| t.len() <= MAX_TEMPLATE_ARGUMENT_TEXT)
            );
        }
    }

    #[test]
    fn chains_of_dispatchers_reach_their_launches_within_the_bound() {
        // 40 entry points, each a chain of three templates that launches at its end: taken
        // level by level, the runs would go to the first two levels (80 > 64) and no launch
        // would see its block; taken chain by chain, each chain run reaches its launch.
        let calls: String = (1..=40).map(|n| format!("top<{n}>(d); ")).collect();
        let src = format!(
            "template <int A> void last(float *d) {{ k<A><<<1, 32 * A>>>(d); }}\n\
             template <int B> void middle(float *d) {{ last<B>(d); }}\n\
             template <int C> void top(float *d) {{ middle<C>(d); }}\n\
             void run(float *d) {{ {calls}}}\n"
        );
        let got = blocks(&src);
        let known: Vec<[i64; 3]> = got.iter().filter_map(|(b, _)| b.clone().ok()).collect();
        assert_eq!(known.len(), MAX_HOST_INSTANCES / 3);
        assert_eq!(known[0], [32, 1, 1]);
        assert_eq!(
            known[known.len() - 1],
            [32 * (MAX_HOST_INSTANCES as i64 / 3), 1, 1]
        );
    }
}
