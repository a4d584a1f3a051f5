//! Index analysis: executes a kernel abstractly for every thread of one block (or for one
//! symbolic warp when the block shape is unknown), keeping each variable per thread as an
//! integer, an affine form over warp-uniform unknowns, or unknown with a reason. At every
//! subscript of a `__shared__` array it records, warp by warp, the per-lane index tuples.
//!
//! Loops with known bounds are enumerated trip by trip; other loops are run once with their
//! induction variables made symbolic. Conditions on thread indices switch lanes off; a
//! condition that cannot be resolved per lane keeps every lane on (an upper bound), and the
//! access says so.

use crate::analysis::extraction::{Function, NamedConstant, SharedArray, Unit, shared_arrays_in};
pub use crate::analysis::shape::{BlockShape, ShapeSource};
use crate::analysis::types::Type;
use crate::analysis::value::{Affine, BinOp, Lanes, Symbols, Value};
use crate::bank::arch::Target;
use crate::bank::engine::{Op, WARP_SIZE};
use crate::bank::layout::{ArrayLayout, Pattern, shift_matters};
use crate::front::cuda::WrapperArray;
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::rc::Rc;

/// `base.a.b` read through `.` only: `base` and the member names, outermost first.
fn direct_members(e: &Node<Expression>) -> Option<(&Node<Expression>, Vec<String>)> {
    let mut members = Vec::new();
    let mut cur = e;
    while let Expression::Member(m) = &cur.node {
        if m.node.operator.node != MemberOperator::Direct {
            return None;
        }
        members.push(m.node.identifier.node.name.clone());
        cur = &m.node.expression;
    }
    members.reverse();
    Some((cur, members))
}

/// Identifies one access site: its span, the kind, and an ordinal for several accesses that
/// share a span (inside one macro use).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SiteKey {
    pub start: usize,
    pub end: usize,
    pub op: Op,
    pub sub: usize,
}

#[derive(Clone, Debug)]
pub struct PatternStats {
    pub count: u64,
    /// Execution order of the first occurrence, to name the first worst instance.
    pub first_seen: u64,
    /// Where the pattern was first seen: "warp 3, s = 8".
    pub label: String,
    /// The index tuple subtracted from every lane when the pattern was normalized (zeros
    /// otherwise), so reports can show the real banks of the first occurrence.
    pub origin: Vec<i64>,
}

/// What the analysis saw at one access site under one block shape.
#[derive(Clone, Debug)]
pub struct Site {
    pub span: Range<usize>,
    pub op: Op,
    pub array: usize,
    pub function: String,
    pub width: u32,
    pub patterns: HashMap<Pattern, PatternStats, crate::bank::layout::FastHash>,
    pub unknown: Option<String>,
    /// Some enclosing loop's trip count is unknown: no per-block totals.
    pub trips_unknown: bool,
    pub assumptions: BTreeSet<String>,
    /// For an access in a header's device function, reported at the call: where it is written
    /// (`` `load_row` at strided_access.cuh:12 ``).
    pub origin: Option<String>,
}

/// A `__shared__` array seen during analysis, with its evaluated layout.
#[derive(Clone, Debug)]
pub struct ArrayEntry {
    /// For a byte view (accesses through a cast pointer), the array it views.
    pub byte_view_of: Option<usize>,
    pub decl: SharedArray,
    pub layout: Option<ArrayLayout>,
    /// Why the layout is unknown.
    pub layout_problem: Option<String>,
}

/// Options that shape the analysis.
#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    pub target: Target,
}

/// The raw outcome for one function under one block shape.
pub struct ShapeRun {
    pub function: String,
    pub kernel: bool,
    pub shape: BlockShape,
    pub sites: HashMap<SiteKey, Site>,
    /// Arrays the function (and what it calls) declares or accesses.
    pub footprint: BTreeSet<usize>,
}

/// Functions reached by inlining from kernels (not analyzed again on their own).
pub struct FileRuns {
    pub runs: Vec<ShapeRun>,
    pub arrays: Vec<ArrayEntry>,
}

const MAX_TRIPS: u64 = 4096;
/// Trips analyzed of a loop whose bound is warp-uniform but unknown (`size < n`): enough to
/// show how a doubling stride's pattern changes up to 2^16.
const ASSUMED_TRIPS: u64 = 16;
/// Thread-statements a kernel may spend on enumerating loops trip by trip before the rest
/// are analyzed symbolically (a 2048-trip loop over 256 threads stays fast).
const WORK_BUDGET: u64 = 8_000_000;
const MAX_CALL_DEPTH: usize = 8;

#[derive(Clone)]
enum Binding {
    Value(Lanes),
    Shared(usize),
    /// A pointer into a `__shared__` array.
    Pointer(SharedPointer),
    /// A local array or struct: reads give data, not indices.
    Opaque,
    /// A variable of a shared-memory wrapper class (`SharedMemory<T> smem;`), with its
    /// template argument: `smem.getPointer()` is the dynamic shared array of that type.
    MemoryClass {
        class: String,
        argument: String,
    },
    /// A cooperative-groups handle.
    Group(Group),
    /// A C++ reference parameter bound to one `__shared__` element (`swap(s[i], s[j])` with
    /// `void swap(T &a, T &b)`): compiled code loads it at the first read and keeps it in a
    /// register, and stores it at each assignment.
    Reference(Reference),
}

/// A device function a call reaches: its unit and definition, and for a header's (or the
/// includer's) the name its accesses are reported under (empty for the includer).
struct Callee<'a, 'p> {
    unit: &'a Unit<'p>,
    function: &'a Function,
    header: Option<String>,
}

#[derive(Clone)]
struct Reference {
    target: SharedPointer,
    /// The element as the caller wrote it (`s_key[pos + 0]`), for reasons.
    written: String,
    /// Read once already: the value is in a register.
    loaded: bool,
}

/// What a cooperative-groups handle covers: the block, or a tile of threads
/// (`cg::tiled_partition<32>(block)`, `cg::thread_block_tile<32>`) whose size is known or not.
#[derive(Clone, Debug, PartialEq)]
enum Group {
    Block,
    Tile(Result<u32, String>),
}

/// Where a pointer into shared memory points, per thread.
#[derive(Clone)]
struct SharedPointer {
    array: usize,
    /// The pointee type (after casts).
    elem: Type,
    place: Place,
}

#[derive(Clone)]
enum Place {
    /// An element of the array, by index tuple: `&tile[ty][0]`. Arithmetic moves along the
    /// innermost dimension.
    Tuple(Vec<Lanes>),
    /// A byte offset into the array, after a cast to another element type.
    Bytes(Lanes),
}

struct LoopCtl {
    brk: Vec<bool>,
    cont: Vec<bool>,
}

struct Analyzer<'a, 'p> {
    unit: &'a Unit<'p>,
    /// The analyzed file's unit, while `unit` is a header's during one of its functions.
    home_unit: &'a Unit<'p>,
    /// Local headers with device functions (see `check::header_units`), callable by name.
    headers: &'a [(String, Unit<'p>)],
    /// Inside a function from a header: the call site in the analyzed file where its accesses
    /// are reported, and the header's name.
    home_call: Option<(Range<usize>, String)>,
    target: Target,
    syms: Symbols,
    n: usize,
    thread_idx: [Lanes; 3],
    block_dim: [Lanes; 3],
    uniform_syms: HashMap<String, Value>,
    scopes: Vec<HashMap<String, Binding>>,
    exited: Vec<bool>,
    loops: Vec<LoopCtl>,
    returns: Vec<Option<Lanes>>,
    labels: Vec<String>,
    symbolic_loops: usize,
    /// Depth of branches taken under an unresolved condition: exits there are not trusted.
    uncertain: usize,
    assumptions: Vec<String>,
    item: usize,
    span_override: Option<Range<usize>>,
    function: String,
    sites: HashMap<SiteKey, Site>,
    arrays: &'a mut Vec<ArrayEntry>,
    budget: u64,
    call_depth: usize,
    reached_functions: &'a mut BTreeSet<String>,
    constant_cache: HashMap<String, Option<i64>>,
    template_values: HashMap<String, Lanes>,
    /// Evaluating host code before this offset: unknown names are looked up in its text.
    sequence: u64,
    /// The file's types plus this instantiation's template type arguments.
    types: crate::analysis::types::TypeTable,
    template_args: Vec<(String, String)>,
    /// Type parameters bound by assumption (see `BlockShape::assumed_types`).
    assumed_types: Vec<(String, String)>,
    /// Template type parameters bound so far, as written (`T` -> `float`), for dependent
    /// member types (`typename vec4<T>::Type`).
    type_args: HashMap<String, String>,
    /// Kernel arguments known at the launch being analyzed.
    arguments: Vec<(String, i64)>,
    /// Arrays declared in the analyzed code or accessed by it (for shared-memory totals).
    footprint: BTreeSet<usize>,
}

/// Runs every kernel under each of its block shapes, and every device function no kernel
/// reaches on its own.
pub fn analyze<'p>(
    unit: &Unit<'p>,
    headers: &[(String, Unit<'p>)],
    options: &AnalysisOptions,
    shapes_for: &dyn Fn(&Function) -> Vec<BlockShape>,
) -> FileRuns {
    let mut arrays = Vec::new();
    let mut runs = Vec::new();
    let mut reached = BTreeSet::new();
    let order: Vec<&Function> = unit
        .functions
        .iter()
        .filter(|f| f.kernel)
        .chain(unit.functions.iter().filter(|f| !f.kernel))
        .collect();
    for f in order {
        if !f.kernel && reached.contains(&f.overload_key()) {
            continue;
        }
        for shape in shapes_for(f) {
            let mut a = Analyzer::new(unit, options.target, &shape, &mut arrays, &mut reached);
            a.headers = headers;
            a.run_function(f);
            runs.push(ShapeRun {
                function: f.name.clone(),
                kernel: f.kernel,
                shape,
                sites: a.sites,
                footprint: a.footprint,
            });
        }
    }
    FileRuns { runs, arrays }
}

/// Evaluates a constant with no thread context (one thread, no arrays).
fn eval_constant(unit: &Unit<'_>, expr: &Node<Expression>, item: usize) -> Option<i64> {
    let mut arrays = Vec::new();
    let mut reached = BTreeSet::new();
    let shape = BlockShape {
        dims: Some([1, 1, 1]),
        source: ShapeSource::Default,
        template_args: Vec::new(),
        arguments: Vec::new(),
        assumed: Vec::new(),
        assumed_types: Vec::new(),
    };
    let target = Target::new(crate::bank::arch::Arch::DEFAULT, Default::default());
    let mut a = Analyzer::new(unit, target, &shape, &mut arrays, &mut reached);
    a.item = item;
    a.eval(expr, &[true]).as_const()
}

/// Evaluates an expression written as text (a template argument) to an integer.
pub fn const_eval_text(unit: &Unit<'_>, text: &str) -> Option<i64> {
    let expr = parse_expression_text(unit, text)?;
    eval_constant(unit, &expr, 0)
}

/// Parses an expression written outside any parsed item (a macro body, a launch argument).
pub fn parse_expression_text(unit: &Unit<'_>, text: &str) -> Option<Node<Expression>> {
    let mut prelude = String::new();
    for name in crate::front::names::BUILTIN_TYPENAMES
        .iter()
        .copied()
        .chain(unit.prepared.typenames.iter().map(String::as_str))
    {
        if text.contains(name) {
            prelude.push_str(&format!("typedef int {name};"));
        }
    }
    let src = format!("{prelude}int __banklint_expr = ({text});");
    let config = lang_c::driver::Config {
        flavor: lang_c::driver::Flavor::GnuC11,
        ..Default::default()
    };
    let parsed = lang_c::driver::parse_preprocessed(&config, src).ok()?;
    let ExternalDeclaration::Declaration(decl) = &parsed.unit.0.last()?.node else {
        return None;
    };
    match &decl
        .node
        .declarators
        .first()?
        .node
        .initializer
        .as_ref()?
        .node
    {
        Initializer::Expression(e) => Some((**e).clone()),
        Initializer::List(_) => None,
    }
}

fn none(mask: &[bool]) -> bool {
    !mask.iter().any(|&m| m)
}

fn and_not(a: &[bool], b: &[bool]) -> Vec<bool> {
    a.iter().zip(b).map(|(x, y)| *x && !*y).collect()
}

impl<'a, 'p> Analyzer<'a, 'p> {
    fn new(
        unit: &'a Unit<'p>,
        target: Target,
        shape: &BlockShape,
        arrays: &'a mut Vec<ArrayEntry>,
        reached: &'a mut BTreeSet<String>,
    ) -> Analyzer<'a, 'p> {
        let mut syms = Symbols::default();
        let (n, thread_idx, block_dim) = match shape.dims {
            Some([x, y, z]) => {
                let (x, y, z) = (x as usize, y as usize, z as usize);
                let n = (x * y * z).max(1);
                let each = |f: &dyn Fn(usize) -> usize| {
                    Lanes::Each(Rc::new((0..n).map(|t| Value::int(f(t) as i64)).collect()))
                };
                (
                    n,
                    [
                        each(&|t| t % x),
                        each(&|t| (t / x) % y),
                        each(&|t| t / (x * y)),
                    ],
                    [
                        Lanes::int(x as i64),
                        Lanes::int(y as i64),
                        Lanes::int(z as i64),
                    ],
                )
            }
            None => {
                let w = syms.fresh("the warp's position within its row (threadIdx.x / 32)");
                let m = syms.fresh("blockDim.x / 32");
                let ty = syms.fresh("threadIdx.y");
                let tz = syms.fresh("threadIdx.z");
                let by = syms.fresh("blockDim.y");
                let bz = syms.fresh("blockDim.z");
                let tx = Lanes::Each(Rc::new(
                    (0..WARP_SIZE)
                        .map(|l| {
                            Value::Affine(Affine {
                                constant: l as i64,
                                terms: vec![(w, 32)],
                            })
                        })
                        .collect(),
                ));
                let bx = Value::Affine(Affine {
                    constant: 0,
                    terms: vec![(m, 32)],
                });
                (
                    WARP_SIZE,
                    [tx, Lanes::Same(Value::sym(ty)), Lanes::Same(Value::sym(tz))],
                    [
                        Lanes::Same(bx),
                        Lanes::Same(Value::sym(by)),
                        Lanes::Same(Value::sym(bz)),
                    ],
                )
            }
        };
        Analyzer {
            unit,
            home_unit: unit,
            headers: &[],
            home_call: None,
            target,
            syms,
            n,
            thread_idx,
            block_dim,
            uniform_syms: HashMap::new(),
            scopes: vec![HashMap::new()],
            exited: vec![false; n],
            loops: Vec::new(),
            returns: Vec::new(),
            labels: Vec::new(),
            symbolic_loops: 0,
            uncertain: 0,
            assumptions: Vec::new(),
            item: 0,
            span_override: None,
            function: String::new(),
            sites: HashMap::new(),
            arrays,
            budget: WORK_BUDGET,
            call_depth: 0,
            reached_functions: reached,
            constant_cache: HashMap::new(),
            template_values: HashMap::new(),
            sequence: 0,
            types: unit.types.clone(),
            template_args: shape.template_args.clone(),
            assumed_types: shape.assumed_types.clone(),
            // Launch values first: an annotation only fills what the launch leaves open.
            arguments: shape
                .arguments
                .iter()
                .chain(&shape.assumed)
                .cloned()
                .collect(),
            type_args: HashMap::new(),
            footprint: BTreeSet::new(),
        }
    }

    fn run_function(&mut self, f: &Function) {
        let Some(def) = self.unit.definition(f) else {
            return;
        };
        for a in self.unit.file_shared.clone() {
            let id = self.register_array(a.clone());
            if let Some(global) = self.scopes.first_mut() {
                global.insert(a.name.clone(), Binding::Shared(id));
            }
        }
        self.item = f.item;
        self.function = f.name.clone();
        for param in f.template.iter().flat_map(|t| t.params.iter()) {
            let given = self
                .template_args
                .iter()
                .chain(&self.assumed_types)
                .find(|(n, _)| *n == param.name)
                .map(|(_, v)| v.clone())
                .or_else(|| param.default.clone());
            if param.is_type {
                if let Some(ty) = given
                    .as_deref()
                    .and_then(|t| type_from_text(&self.types, t))
                {
                    self.types.named.insert(param.name.clone(), ty);
                }
                if let Some(t) = given {
                    self.type_args.insert(param.name.clone(), t);
                }
                continue;
            }
            let value = given
                .as_deref()
                .and_then(|d| const_eval_text(self.unit, d))
                .map_or_else(
                    || {
                        Lanes::unknown(format!(
                            "template parameter `{}` has no known value (launch `{}<...>` in this file or give it a default)",
                            param.name, f.name
                        ))
                    },
                    Lanes::int,
                );
            self.template_values.insert(param.name.clone(), value);
        }
        self.bind_dependent_types();
        for p in &f.params {
            let known = self
                .arguments
                .iter()
                .find(|(n, _)| *n == p.name)
                .map(|(_, v)| *v);
            let v = if let (true, Some(v)) = (f.kernel, known) {
                Lanes::int(v)
            } else if f.kernel {
                self.uniform(&p.name)
            } else {
                Lanes::Each(Rc::new(vec![
                    Value::unknown(format!(
                        "it depends on parameter `{}` of device function `{}`, which no kernel in this file calls",
                        p.name, f.name
                    ));
                    self.n
                ]))
            };
            self.bind(&p.name, Binding::Value(v));
        }
        let mask = vec![true; self.n];
        self.returns.push(None);
        self.exec(&def.statement, &mask);
        self.returns.pop();
    }

    /// Gives each dependent member type (`typename vec4<T>::Type`, spelled `vec4_T___Type`)
    /// the type it names under the current template bindings; one that does not resolve is
    /// left unknown.
    fn bind_dependent_types(&mut self) {
        let p = self.unit.prepared;
        for dep in &p.dependent_types {
            let ty = p
                .resolve_dependent(dep, &self.type_args)
                .and_then(|t| type_from_text(&self.types, &t));
            match ty {
                Some(ty) => {
                    self.types.named.insert(dep.name.clone(), ty);
                }
                None => {
                    self.types.named.remove(&dep.name);
                }
            }
        }
    }

    /// A warp-uniform unknown, one per name.
    fn uniform(&mut self, name: &str) -> Lanes {
        if let Some(v) = self.uniform_syms.get(name) {
            return Lanes::Same(v.clone());
        }
        let v = Value::sym(self.syms.fresh(name));
        self.uniform_syms.insert(name.to_string(), v.clone());
        Lanes::Same(v)
    }

    fn bind(&mut self, name: &str, b: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), b);
        }
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn set_var(&mut self, name: &str, value: &Lanes, mask: &[bool]) {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(Binding::Value(old)) = scope.get_mut(name) {
                *old = old.merge(value, mask);
                return;
            }
        }
    }

    fn span(&self, s: Span) -> Range<usize> {
        if let Some(o) = &self.span_override {
            return o.clone();
        }
        match self.unit.items.get(self.item) {
            Some(item) => item.span(s),
            None => s.start..s.end,
        }
    }

    fn line_of(&self, s: Span) -> usize {
        self.unit.line_of(self.span(s).start)
    }

    /// Threads still running here: not returned, not broken out of or continuing the loop.
    fn live(&self, mask: &[bool]) -> Vec<bool> {
        let mut m = and_not(mask, &self.exited);
        if let Some(l) = self.loops.last() {
            m = and_not(&m, &l.brk);
            m = and_not(&m, &l.cont);
        }
        m
    }

    fn spend(&mut self, work: u64) -> bool {
        self.budget = self.budget.saturating_sub(work);
        self.budget > 0
    }

    // ---- statements ----

    fn exec(&mut self, s: &Node<Statement>, mask: &[bool]) {
        let mask = self.live(mask);
        self.spend(self.n as u64);
        match &s.node {
            Statement::Compound(items) => {
                self.scopes.push(HashMap::new());
                for item in items {
                    let m = self.live(&mask);
                    match &item.node {
                        BlockItem::Declaration(d) => self.declare(d, &m),
                        BlockItem::Statement(st) => self.exec(st, &m),
                        BlockItem::StaticAssert(_) => {}
                    }
                }
                self.scopes.pop();
            }
            Statement::Expression(Some(e)) => {
                self.eval(e, &mask);
            }
            Statement::Expression(None) | Statement::Asm(_) | Statement::Goto(_) => {}
            Statement::Labeled(l) => self.exec(&l.node.statement, &mask),
            Statement::If(i) => self.exec_if(&i.node, &mask),
            Statement::Switch(sw) => {
                self.eval(&sw.node.expression, &mask);
                self.uncertain += 1;
                self.loops.push(LoopCtl {
                    brk: vec![false; self.n],
                    cont: vec![false; self.n],
                });
                self.exec(&sw.node.statement, &mask);
                self.loops.pop();
                self.uncertain -= 1;
            }
            Statement::While(w) => self.exec_loop(
                s.span,
                Some(&w.node.expression),
                None,
                &w.node.statement,
                false,
                &mask,
            ),
            Statement::DoWhile(d) => self.exec_loop(
                s.span,
                Some(&d.node.expression),
                None,
                &d.node.statement,
                true,
                &mask,
            ),
            Statement::For(f) => {
                self.scopes.push(HashMap::new());
                match &f.node.initializer.node {
                    ForInitializer::Expression(e) => {
                        self.eval(e, &mask);
                    }
                    ForInitializer::Declaration(d) => self.declare(d, &mask),
                    _ => {}
                }
                self.exec_loop(
                    s.span,
                    f.node.condition.as_deref(),
                    f.node.step.as_deref(),
                    &f.node.statement,
                    false,
                    &mask,
                );
                self.scopes.pop();
            }
            Statement::Continue => {
                if self.uncertain == 0
                    && let Some(l) = self.loops.last_mut()
                {
                    l.cont.iter_mut().zip(&mask).for_each(|(c, m)| *c |= m);
                }
            }
            Statement::Break => {
                if self.uncertain == 0
                    && let Some(l) = self.loops.last_mut()
                {
                    l.brk.iter_mut().zip(&mask).for_each(|(c, m)| *c |= m);
                }
            }
            Statement::Return(e) => {
                if let Some(e) = e {
                    let v = self.eval(e, &mask);
                    if let Some(slot) = self.returns.last_mut() {
                        *slot = Some(match slot.take() {
                            Some(old) => old.merge(&v, &mask),
                            None => v,
                        });
                    }
                }
                if self.uncertain == 0 {
                    self.exited.iter_mut().zip(&mask).for_each(|(x, m)| *x |= m);
                }
            }
        }
    }

    fn declare(&mut self, d: &Node<Declaration>, mask: &[bool]) {
        let item = &self.unit.items[self.item];
        if self.span_override.is_none()
            && let Some(arrays) =
                shared_arrays_in(self.unit.prepared, item, self.item, &self.types, d)
        {
            for a in arrays {
                let id = self.register_array(a.clone());
                self.footprint.insert(id);
                self.bind(&a.name, Binding::Shared(id));
            }
            return;
        }
        crate::analysis::extraction::register_types(&mut self.types, &d.node);
        if let Some((class, argument)) = self.memory_class_of(&d.node.specifiers) {
            for init in &d.node.declarators {
                if let Some(name) =
                    crate::analysis::extraction::declarator_name(&init.node.declarator.node)
                {
                    let (class, argument) = (class.clone(), argument.clone());
                    self.bind(&name, Binding::MemoryClass { class, argument });
                }
            }
            return;
        }
        let base = crate::analysis::extraction::base_type(&self.types, &d.node.specifiers);
        for init in &d.node.declarators {
            let Some(name) =
                crate::analysis::extraction::declarator_name(&init.node.declarator.node)
            else {
                continue;
            };
            let init_expr = match &init.node.initializer {
                Some(Node {
                    node: Initializer::Expression(e),
                    ..
                }) => Some(&**e),
                _ => None,
            };
            if let Some(group) = self.group_of(&d.node.specifiers, init_expr) {
                self.bind(&name, Binding::Group(group));
                continue;
            }
            let is_array = init
                .node
                .declarator
                .node
                .derived
                .iter()
                .any(|x| matches!(x.node, DerivedDeclarator::Array(_)));
            let is_pointer = init
                .node
                .declarator
                .node
                .derived
                .iter()
                .any(|x| matches!(x.node, DerivedDeclarator::Pointer(_)));
            if is_pointer
                && let Some(Node {
                    node: Initializer::Expression(e),
                    ..
                }) = &init.node.initializer
                && self.points_to_shared(e)
                && let Some(p) = self.eval_pointer(e, mask, &name)
            {
                self.bind(&name, Binding::Pointer(p));
                continue;
            }
            if is_array || matches!(base, Type::Record(_)) {
                if let Some(Node {
                    node: Initializer::Expression(e),
                    ..
                }) = &init.node.initializer
                {
                    self.eval(e, mask);
                }
                self.bind(&name, Binding::Opaque);
                continue;
            }
            let value = match &init.node.initializer {
                Some(Node {
                    node: Initializer::Expression(e),
                    ..
                }) => {
                    let v = self.eval(e, mask);
                    if base.is_float() {
                        self.data_value(&v, "a floating-point value")
                    } else {
                        v
                    }
                }
                _ => Lanes::unknown(format!("`{name}` is used before it is assigned")),
            };
            self.bind(&name, Binding::Value(value));
        }
    }

    fn register_array(&mut self, decl: SharedArray) -> usize {
        let saved = self.item;
        self.item = decl.item;
        let mut dims = Vec::new();
        let mut problem = None;
        for (k, d) in decl.dims.iter().enumerate() {
            match d {
                Some(e) => {
                    let v = self.eval(e, &vec![true; self.n]).as_const();
                    if v.is_none() {
                        problem = Some(format!(
                            "the size of dimension {} of `{}` is not a compile-time constant banklint can evaluate",
                            k + 1,
                            decl.name
                        ));
                    }
                    dims.push(v);
                }
                None => dims.push(None),
            }
        }
        self.item = saved;
        let elem_size = decl.elem.size();
        if elem_size.is_none() {
            problem = Some(format!(
                "the element type `{}` of `{}` is not known",
                decl.elem.name(),
                decl.name
            ));
        }
        let layout = elem_size.map(|s| ArrayLayout {
            elem_size: i64::from(s),
            dims,
            pad: 0,
        });
        // One entry per declaration and layout: template instantiations may differ.
        if let Some(i) = self.arrays.iter().position(|a| {
            a.decl.decl_span == decl.decl_span
                && a.decl.name == decl.name
                && a.layout == layout
                && a.decl.elem == decl.elem
        }) {
            return i;
        }
        self.arrays.push(ArrayEntry {
            byte_view_of: None,
            decl,
            layout,
            layout_problem: problem,
        });
        self.arrays.len() - 1
    }

    fn exec_if(&mut self, i: &IfStatement, mask: &[bool]) {
        let c = self.eval(&i.condition, mask);
        let line_of_condition = |a: &Self| a.line_of(i.condition.span);
        match &c {
            Lanes::Same(Value::Unknown(_)) | Lanes::Same(Value::Affine(_))
                if c.as_const().is_none() =>
            {
                // A warp-uniform condition: each warp takes one side whole.
                self.exec(&i.then_statement, mask);
                if let Some(e) = &i.else_statement {
                    self.exec(e, mask);
                }
            }
            _ => {
                let mut then_mask = vec![false; self.n];
                let mut else_mask = vec![false; self.n];
                let mut unresolved = false;
                for t in 0..self.n {
                    if !mask[t] {
                        continue;
                    }
                    match c.get(t).as_const() {
                        Some(0) => else_mask[t] = true,
                        Some(_) => then_mask[t] = true,
                        None => {
                            then_mask[t] = true;
                            else_mask[t] = true;
                            unresolved = true;
                        }
                    }
                }
                if unresolved {
                    let line = line_of_condition(self);
                    let text = self.source_text(i.condition.span);
                    self.assumptions.push(format!(
                        "the condition `{text}` (line {line}) could not be resolved per lane; every lane was assumed to pass it"
                    ));
                    self.uncertain += 1;
                    let before = self.scopes.clone();
                    self.exec(&i.then_statement, &then_mask);
                    let after_then = std::mem::replace(&mut self.scopes, before);
                    if let Some(e) = &i.else_statement {
                        self.exec(e, &else_mask);
                    }
                    self.join_scopes(after_then, &then_mask, &else_mask, line);
                    self.uncertain -= 1;
                    self.assumptions.pop();
                } else {
                    self.exec(&i.then_statement, &then_mask);
                    if let Some(e) = &i.else_statement {
                        self.exec(e, &else_mask);
                    }
                }
            }
        }
    }

    /// Joins variables after an unresolved branch: a thread that may have taken either side
    /// keeps a value only if both sides agree.
    fn join_scopes(
        &mut self,
        then_scopes: Vec<HashMap<String, Binding>>,
        then_mask: &[bool],
        else_mask: &[bool],
        line: usize,
    ) {
        let n = self.n;
        for (scope, then_scope) in self.scopes.iter_mut().zip(then_scopes) {
            for (name, binding) in scope.iter_mut() {
                let (Binding::Value(else_v), Some(Binding::Value(then_v))) =
                    (&*binding, then_scope.get(name))
                else {
                    continue;
                };
                let joined: Vec<Value> = (0..n)
                    .map(|t| {
                        let (a, b) = (then_v.get(t), else_v.get(t));
                        match (then_mask[t], else_mask[t]) {
                            (true, true) if a != b => Value::unknown(format!(
                                "`{name}` depends on which side of the branch at line {line} a thread takes"
                            )),
                            (true, false) => a.clone(),
                            _ => b.clone(),
                        }
                    })
                    .collect();
                *binding = Binding::Value(compress(joined));
            }
        }
    }

    /// The source as the user wrote it, for messages.
    fn source_text(&self, s: Span) -> String {
        self.unit.prepared.written(self.span(s))
    }

    fn exec_loop(
        &mut self,
        span: Span,
        cond: Option<&Node<Expression>>,
        step: Option<&Node<Expression>>,
        body: &Node<Statement>,
        body_first: bool,
        mask: &[bool],
    ) {
        if !none(mask) {
            let saved_scopes = self.scopes.clone();
            let saved_exited = self.exited.clone();
            let saved_sites = std::mem::take(&mut self.sites);
            if self.run_concrete_loop(span, cond, step, body, body_first, mask) {
                let new_sites = std::mem::replace(&mut self.sites, saved_sites);
                merge_sites(&mut self.sites, new_sites);
                return;
            }
            self.sites = saved_sites;
            self.scopes = saved_scopes;
            self.exited = saved_exited;
        }
        self.run_symbolic_loop(span, cond, step, body, mask);
    }

    /// Enumerates the loop trip by trip. Returns false (leaving state to be restored) when a
    /// trip's condition is not known for every thread or the loop runs too long.
    fn run_concrete_loop(
        &mut self,
        span: Span,
        cond: Option<&Node<Expression>>,
        step: Option<&Node<Expression>>,
        body: &Node<Statement>,
        body_first: bool,
        mask: &[bool],
    ) -> bool {
        let line = self.line_of(span);
        let step_vars = step.map(assigned_in_expr).unwrap_or_default();
        self.loops.push(LoopCtl {
            brk: vec![false; self.n],
            cont: vec![false; self.n],
        });
        let mut trips = 0u64;
        // Set once the loop's bound turns out to be warp-uniform but unknown.
        let mut assumed_bound = false;
        let ok = loop {
            let running = self.live(mask);
            if !(body_first && trips == 0)
                && let Some(c) = cond
            {
                let v = self.eval(c, &running);
                if v.is_uniform() && v.as_const().is_none() && !none(&running) {
                    // `size < n` with `n` a kernel parameter: every warp runs the same trips,
                    // how many is unknown. The first trips are analyzed, and the accesses say
                    // so; per-block totals are not given.
                    if trips >= ASSUMED_TRIPS || !self.bound_is_enumerable(&step_vars, &running) {
                        break trips > 0 && assumed_bound;
                    }
                    if !assumed_bound {
                        assumed_bound = true;
                        self.symbolic_loops += 1;
                        let text = self.source_text(c.span);
                        self.assumptions.push(format!(
                            "the bound `{text}` of the loop at line {line} is not known: its first {ASSUMED_TRIPS} trips (at most) were analyzed, so this is a lower bound"
                        ));
                    }
                } else {
                    let mut leaving = vec![false; self.n];
                    for t in 0..self.n {
                        if running[t] {
                            match v.get(t).as_const() {
                                Some(0) => leaving[t] = true,
                                Some(_) => {}
                                None => break,
                            }
                        }
                    }
                    if (0..self.n).any(|t| running[t] && v.get(t).as_const().is_none()) {
                        break false;
                    }
                    if let Some(l) = self.loops.last_mut() {
                        l.brk.iter_mut().zip(&leaving).for_each(|(b, x)| *b |= x);
                    }
                }
            }
            let running = self.live(mask);
            if none(&running) {
                break true;
            }
            trips += 1;
            if trips > MAX_TRIPS || !self.spend(self.n as u64) {
                break false;
            }
            let label = self.trip_label(line, trips, &step_vars, &running);
            let before = self.uniform_values(&step_vars, &running);
            let patterns_before = self.pattern_count();
            self.labels.push(label);
            self.exec(body, &running);
            self.labels.pop();
            if let Some(l) = self.loops.last_mut() {
                l.cont.iter_mut().for_each(|c| *c = false);
            }
            if let Some(st) = step {
                let running = self.live(mask);
                self.eval(st, &running);
            }
            // `s *= 1`: the step changed nothing, so every trip would be this one again.
            if before.is_some() && before == self.uniform_values(&step_vars, &running) {
                break false;
            }
            // With an unknown bound there are no totals to count: once a trip shows no new
            // warp pattern, later trips only repeat the ones seen.
            if assumed_bound && trips > 1 && self.pattern_count() == patterns_before {
                break true;
            }
        };
        self.loops.pop();
        if assumed_bound {
            self.symbolic_loops -= 1;
            self.assumptions.pop();
        }
        ok
    }

    /// Distinct warp patterns recorded so far, over every site.
    fn pattern_count(&self) -> usize {
        self.sites.values().map(|s| s.patterns.len()).sum()
    }

    /// Whether a loop with an unknown bound can still be followed trip by trip: its step
    /// changes only variables that hold one known value in every running thread.
    fn bound_is_enumerable(&self, step_vars: &[String], running: &[bool]) -> bool {
        let first = running.iter().position(|&r| r).unwrap_or(0);
        !step_vars.is_empty()
            && step_vars.iter().all(|v| match self.lookup(v) {
                Some(Binding::Value(l)) => {
                    l.is_uniform() && l.get(first).as_const().is_some_and(|c| c.abs() < 1 << 24)
                }
                _ => false,
            })
    }

    /// The values of uniform integer variables, if every one has a single known value.
    fn uniform_values(&self, vars: &[String], running: &[bool]) -> Option<Vec<i64>> {
        let first = running.iter().position(|&r| r)?;
        if vars.is_empty() {
            return None;
        }
        vars.iter()
            .map(|v| match self.lookup(v) {
                Some(Binding::Value(l)) if l.is_uniform() => l.get(first).as_const(),
                _ => None,
            })
            .collect()
    }

    fn trip_label(&self, line: usize, trip: u64, vars: &[String], running: &[bool]) -> String {
        let first = running.iter().position(|&r| r).unwrap_or(0);
        let values: Vec<String> = vars
            .iter()
            .filter_map(|v| match self.lookup(v) {
                Some(Binding::Value(l)) if l.is_uniform() => {
                    l.get(first).as_const().map(|c| format!("{v} = {c}"))
                }
                _ => None,
            })
            .collect();
        if values.is_empty() {
            format!("trip {trip} of the loop at line {line}")
        } else {
            format!(
                "{} (trip {trip} of the loop at line {line})",
                values.join(", ")
            )
        }
    }

    /// Runs the body once with every variable the loop changes made symbolic.
    fn run_symbolic_loop(
        &mut self,
        span: Span,
        cond: Option<&Node<Expression>>,
        step: Option<&Node<Expression>>,
        body: &Node<Statement>,
        mask: &[bool],
    ) {
        let line = self.line_of(span);
        let mut changed = assigned_in_stmt(body);
        if let Some(s) = step {
            changed.extend(assigned_in_expr(s));
        }
        if let Some(c) = cond {
            changed.extend(assigned_in_expr(c));
        }
        changed.sort();
        changed.dedup();
        let trips = Value::sym(
            self.syms
                .fresh(format!("the trip count of the loop at line {line}")),
        );
        for name in &changed {
            let Some(Binding::Value(start)) = self.lookup(name).cloned() else {
                continue;
            };
            let widened = match single_increment(name, body, step) {
                Some(inc) => {
                    let inc_v = self.eval_pure(inc);
                    let k = Lanes::Same(trips.clone());
                    let delta = Lanes::binary(BinOp::Mul, &k, &inc_v, self.n, &mut self.syms);
                    Lanes::binary(BinOp::Add, &start, &delta, self.n, &mut self.syms)
                }
                None if start.is_uniform() => Lanes::Same(Value::sym(
                    self.syms
                        .fresh(format!("`{name}` in the loop at line {line}")),
                )),
                None => Lanes::unknown(format!(
                    "`{name}` changes on each trip through the loop at line {line}"
                )),
            };
            self.set_var(name, &widened, &vec![true; self.n]);
        }
        self.loops.push(LoopCtl {
            brk: vec![false; self.n],
            cont: vec![false; self.n],
        });
        self.symbolic_loops += 1;
        self.labels
            .push(format!("any trip of the loop at line {line}"));
        let running = self.live(mask);
        let mut body_mask = running.clone();
        if let Some(c) = cond {
            let v = self.eval(c, &running);
            for (t, m) in body_mask.iter_mut().enumerate() {
                if v.get(t).as_const() == Some(0) {
                    *m = false;
                }
            }
        }
        self.exec(body, &body_mask);
        if let Some(st) = step {
            let running = self.live(mask);
            self.eval(st, &running);
        }
        self.labels.pop();
        self.symbolic_loops -= 1;
        self.loops.pop();
        for name in &changed {
            if let Some(Binding::Value(v)) = self.lookup(name).cloned() {
                let after = if v.is_uniform() {
                    Lanes::Same(Value::sym(
                        self.syms
                            .fresh(format!("`{name}` after the loop at line {line}")),
                    ))
                } else {
                    Lanes::unknown(format!(
                        "`{name}` after the loop at line {line} depends on its trip count"
                    ))
                };
                self.set_var(name, &after, &vec![true; self.n]);
            }
        }
    }

    /// Evaluates an expression that has no side effects worth recording (an increment).
    fn eval_pure(&mut self, e: &Node<Expression>) -> Lanes {
        let saved = std::mem::take(&mut self.sites);
        let v = self.eval(e, &vec![true; self.n]);
        self.sites = saved;
        v
    }

    // ---- expressions ----

    fn eval(&mut self, e: &Node<Expression>, mask: &[bool]) -> Lanes {
        match &e.node {
            Expression::Identifier(id) if self.is_shared_scalar(&id.node.name) => {
                // A `__shared__` scalar read: an access (every lane the same word).
                self.shared_access(e, Op::Load, mask)
            }
            Expression::Identifier(id) => self.identifier(&id.node.name, e.span, mask),
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) => {
                    let digits = i.number.replace('\'', "");
                    let radix = match i.base {
                        IntegerBase::Decimal => 10,
                        IntegerBase::Octal => 8,
                        IntegerBase::Hexadecimal => 16,
                        IntegerBase::Binary => 2,
                    };
                    i64::from_str_radix(&digits, radix).map_or_else(
                        |_| Lanes::unknown("an integer literal too large"),
                        Lanes::int,
                    )
                }
                Constant::Character(ch) => {
                    let inner = ch
                        .trim_start_matches(['L', 'u', 'U', '8'])
                        .trim_matches('\'');
                    match inner.chars().next() {
                        Some(c) if inner.len() == c.len_utf8() => Lanes::int(c as i64),
                        _ => Lanes::unknown("a character literal"),
                    }
                }
                Constant::Float(_) => Lanes::unknown("a floating-point value"),
            },
            Expression::StringLiteral(_) => Lanes::unknown("a string"),
            Expression::Member(m) => self.member(e, &m.node, mask),
            Expression::Call(call) => self.call(e, &call.node, mask),
            Expression::UnaryOperator(u) => self.unary(e, &u.node, mask),
            Expression::Cast(c) => {
                let v = self.eval(&c.node.expression, mask);
                let floaty = c.node.type_name.node.specifiers.iter().any(|s| {
                    matches!(&s.node, SpecifierQualifier::TypeSpecifier(t) if matches!(t.node, TypeSpecifier::Float | TypeSpecifier::Double))
                });
                if floaty {
                    self.data_value(&v, "a floating-point value")
                } else {
                    v
                }
            }
            Expression::BinaryOperator(b) => self.binary(e, &b.node, mask),
            Expression::Conditional(c) => {
                let cond = self.eval(&c.node.condition, mask);
                let mut then_mask = mask.to_vec();
                let mut else_mask = mask.to_vec();
                for t in 0..self.n {
                    match cond.get(t).as_const() {
                        Some(0) => then_mask[t] = false,
                        Some(_) => else_mask[t] = false,
                        None => {}
                    }
                }
                let a = self.eval(&c.node.then_expression, &then_mask);
                let b = self.eval(&c.node.else_expression, &else_mask);
                if cond.is_uniform() && cond.as_const().is_none() {
                    return if lanes_equal(&a, &b, self.n) {
                        a
                    } else {
                        self.data_value(&a, "a value chosen by a condition")
                    };
                }
                compress(
                    (0..self.n)
                        .map(|t| match cond.get(t).as_const() {
                            Some(0) => b.get(t).clone(),
                            Some(_) => a.get(t).clone(),
                            None if a.get(t) == b.get(t) => a.get(t).clone(),
                            None => Value::unknown(
                                "it is chosen by a condition banklint cannot resolve",
                            ),
                        })
                        .collect(),
                )
            }
            Expression::Comma(list) => {
                let mut last = Lanes::int(0);
                for x in list.iter() {
                    last = self.eval(x, mask);
                }
                last
            }
            Expression::SizeOfTy(t) => {
                let pointer = t.node.0.node.declarator.is_some();
                let ty = crate::analysis::extraction::type_from_qualifiers(
                    &self.types,
                    &t.node.0.node.specifiers,
                );
                match (pointer, ty.size()) {
                    (true, _) => Lanes::int(8),
                    (false, Some(s)) => Lanes::int(i64::from(s)),
                    _ => Lanes::unknown("the size of an unknown type"),
                }
            }
            Expression::SizeOfVal(v) => self.size_of_expr(&v.node.0),
            Expression::AlignOf(_) => Lanes::unknown("an alignment"),
            _ => Lanes::unknown("an expression banklint does not evaluate"),
        }
    }

    fn size_of_expr(&mut self, e: &Node<Expression>) -> Lanes {
        if let Expression::Identifier(id) = &e.node
            && let Some(Binding::Shared(a)) = self.lookup(&id.node.name).cloned()
            && let Some(total) = self.arrays[a]
                .layout
                .as_ref()
                .and_then(ArrayLayout::total_bytes)
        {
            return Lanes::int(total);
        }
        if let Some((array, indices, _)) = self.shared_ref(e)
            && let Some(layout) = &self.arrays[array].layout
            && indices.len() == layout.dims.len()
        {
            return Lanes::int(layout.elem_size);
        }
        Lanes::unknown("a sizeof banklint does not evaluate")
    }

    /// A value read from memory or computed from non-integers: unknown, but uniform when its
    /// inputs were.
    fn data_value(&mut self, from: &Lanes, what: &str) -> Lanes {
        if from.is_uniform() {
            self.uniform_data(what)
        } else {
            Lanes::Each(Rc::new(vec![
                Value::unknown(format!("it is {what}"));
                self.n
            ]))
        }
    }

    /// A value that is the same in every thread but unknown (read from memory at a uniform
    /// address, returned by a call with uniform arguments): a fresh warp-uniform symbol, so
    /// `s[base + threadIdx.x]` is still a known pattern shifted by `base`.
    fn uniform_data(&mut self, what: &str) -> Lanes {
        Lanes::Same(Value::sym(self.syms.fresh(what.to_string())))
    }

    fn identifier(&mut self, name: &str, span: Span, mask: &[bool]) -> Lanes {
        match self.lookup(name) {
            Some(Binding::Value(v)) => return v.clone(),
            Some(Binding::Shared(_))
            | Some(Binding::Opaque)
            | Some(Binding::Pointer(_))
            | Some(Binding::MemoryClass { .. }) => {
                return Lanes::unknown(format!("`{name}` is an array, not an integer"));
            }
            Some(Binding::Group(_)) => {
                return Lanes::unknown(format!("`{name}` is a thread group, not an integer"));
            }
            Some(Binding::Reference(r)) => {
                if !r.loaded {
                    let r = r.clone();
                    self.reference_access(name, span, r, Op::Load, mask);
                }
                return Lanes::unknown("shared data");
            }
            None => {}
        }
        if let Some(v) = self.template_values.get(name) {
            return v.clone();
        }
        match name {
            "warpSize" => return Lanes::int(32),
            "true" => return Lanes::int(1),
            "false" | "nullptr" | "NULL" => return Lanes::int(0),
            _ => {}
        }
        if let Some(v) = self.named_constant(name) {
            return Lanes::int(v);
        }
        if self.unit.file_shared.iter().any(|a| a.name == name) {
            return Lanes::unknown(format!("`{name}` is an array, not an integer"));
        }
        Lanes::unknown(format!("`{name}` is not known to banklint"))
    }

    /// Evaluates source text standing for an expression at `span` (a macro body).
    fn eval_text(&mut self, text: &str, span: Span, mask: &[bool], what: &str) -> Lanes {
        if self.call_depth > MAX_CALL_DEPTH * 4 {
            return Lanes::unknown(format!("`{what}` expands too deeply"));
        }
        let Some(expr) = parse_expression_text(self.unit, text) else {
            return Lanes::unknown(format!(
                "the macro `{what}` does not expand to an expression"
            ));
        };
        let outer = self.span(span);
        let saved = self.span_override.replace(outer);
        self.call_depth += 1;
        let v = self.eval(&expr, mask);
        self.call_depth -= 1;
        self.span_override = saved;
        v
    }

    /// A file-scope constant expression, evaluated in its own item.
    fn constant_in(&mut self, expr: &Node<Expression>, item: usize) -> Option<i64> {
        let saved = (self.item, self.span_override.take());
        self.item = item;
        let v = self.eval(expr, &vec![true; self.n]).as_const();
        (self.item, self.span_override) = saved;
        v
    }

    fn named_constant(&mut self, name: &str) -> Option<i64> {
        if let Some(v) = self.constant_cache.get(name) {
            return *v;
        }
        self.constant_cache.insert(name.to_string(), None);
        let v = match self.unit.constants.get(name) {
            Some(NamedConstant::Value(v)) => Some(*v),
            Some(NamedConstant::Expr { expr, item }) => self.constant_in(expr, *item),
            Some(NamedConstant::Enumerator { expr, offset, item }) => self
                .constant_in(expr, *item)
                .and_then(|v| v.checked_add(*offset)),
            None => self
                .header_constant(name)
                .or_else(|| self.static_member(name)),
        };
        self.constant_cache.insert(name.to_string(), v);
        v
    }

    /// A constant of a header or of the includer's text before its `#include`
    /// (`const int WARPSIZE = 32;`), evaluated in that file.
    fn header_constant(&self, name: &str) -> Option<i64> {
        self.headers
            .iter()
            .find_map(|(_, h)| match h.constants.get(name)? {
                NamedConstant::Value(v) => Some(*v),
                NamedConstant::Expr { expr, item } => eval_constant(h, expr, *item),
                NamedConstant::Enumerator { expr, offset, item } => {
                    eval_constant(h, expr, *item).and_then(|v| v.checked_add(*offset))
                }
            })
    }

    /// `x128::size` (written `x128__size` for lang-c): a class's static constant member.
    fn static_member(&mut self, name: &str) -> Option<i64> {
        let prepared = self.unit.prepared;
        let m = prepared
            .static_members
            .iter()
            .chain(
                self.headers
                    .iter()
                    .flat_map(|(_, h)| h.prepared.static_members.iter()),
            )
            .find(|m| name == format!("{}__{}", m.class, m.member))?;
        let expr = parse_expression_text(self.unit, &m.value)?;
        eval_constant(self.unit, &expr, 0)
    }

    fn member(&mut self, whole: &Node<Expression>, m: &MemberExpression, mask: &[bool]) -> Lanes {
        if let Some(field) = self.reference_member(whole) {
            self.reference_member_access(whole, field, Op::Load, mask);
            return Lanes::unknown("shared data");
        }
        if let Expression::Identifier(base) = &m.expression.node {
            let axis = match m.identifier.node.name.as_str() {
                "x" => Some(0),
                "y" => Some(1),
                "z" => Some(2),
                _ => None,
            };
            if let (Some(k), None) = (axis, self.lookup(&base.node.name)) {
                match base.node.name.as_str() {
                    "threadIdx" => return self.thread_idx[k].clone(),
                    "blockDim" => return self.block_dim[k].clone(),
                    "blockIdx" | "gridDim" | "clusterIdx" | "clusterDim" => {
                        return self
                            .uniform(&format!("{}.{}", base.node.name, m.identifier.node.name));
                    }
                    _ => {}
                }
            }
        }
        if let Expression::Call(c) = &m.expression.node {
            let callee = match &c.node.callee.node {
                Expression::Member(mm) => Some(mm.node.identifier.node.name.clone()),
                Expression::Identifier(id) => id.node.name.rsplit("__").next().map(str::to_string),
                _ => None,
            };
            let axis = match m.identifier.node.name.as_str() {
                "x" => Some(0),
                "y" => Some(1),
                "z" => Some(2),
                _ => None,
            };
            if let (Some(callee), Some(k)) = (callee, axis) {
                match callee.as_str() {
                    "thread_index" => return self.thread_idx[k].clone(),
                    "dim_threads" | "group_dim" => return self.block_dim[k].clone(),
                    "group_index" | "block_index" => {
                        return self.uniform(&format!("blockIdx.{}", m.identifier.node.name));
                    }
                    _ => {}
                }
            }
        }
        if self.shared_ref(whole).is_some() || self.is_pointer_access(whole) {
            return self.shared_access(whole, Op::Load, mask);
        }
        let inner = self.eval(&m.expression, mask);
        self.data_value(&inner, "a member of a struct banklint does not track")
    }

    fn call(&mut self, whole: &Node<Expression>, call: &CallExpression, mask: &[bool]) -> Lanes {
        let name = match &call.callee.node {
            Expression::Identifier(id) => Some(id.node.name.clone()),
            _ => None,
        };
        let arity = call.arguments.len();
        let callee = name.as_deref().and_then(|n| self.callee(n, arity));
        let args: Vec<Lanes> = call
            .arguments
            .iter()
            .enumerate()
            .map(|(k, a)| {
                // A `__shared__` object or element handed to a reference parameter (a pointer
                // once the front end has rewritten `T &p`) is not read at the call: the callee
                // reads it, if at all.
                let by_reference = callee
                    .as_ref()
                    .and_then(|c| c.function.params.iter().find(|p| p.index == k))
                    .is_some_and(|p| matches!(p.ty, Type::Pointer(_)));
                match &a.node {
                    Expression::Identifier(id)
                        if by_reference
                            && matches!(
                                self.lookup(&id.node.name),
                                Some(Binding::Shared(_) | Binding::Reference(_))
                            ) =>
                    {
                        Lanes::unknown("a reference")
                    }
                    _ if by_reference
                        && self.shared_ref(a).is_some_and(|(_, idx, members)| {
                            members.is_empty() && !idx.is_empty()
                        }) =>
                    {
                        Lanes::unknown("a reference")
                    }
                    // A whole `__shared__` object of a type banklint does not know, handed to
                    // a function it does not have: a library object (`cuda::barrier` to
                    // `cuda::memcpy_async`), which such functions take by reference.
                    Expression::Identifier(id)
                        if callee.is_none() && self.is_library_object(&id.node.name) =>
                    {
                        Lanes::unknown("a reference")
                    }
                    _ => self.eval(a, mask),
                }
            })
            .collect();
        if let Expression::Member(m) = &call.callee.node {
            // Cooperative groups: `tile.thread_rank()`, `block.thread_rank()`,
            // `cg::this_thread_block().thread_rank()`.
            let method = &m.node.identifier.node.name;
            if let Expression::Identifier(id) = &m.node.expression.node
                && let Some(Binding::Group(Group::Tile(tile))) = self.lookup(&id.node.name)
            {
                return match tile.clone() {
                    Ok(tile) => self.tile_method(method, tile),
                    Err(why) => Lanes::unknown(why),
                };
            }
            if let Some(v) = self.group_method(method) {
                return v;
            }
            // A method of a `__shared__` object (`bar.arrive()` on a `cuda::barrier`): library
            // code touches the object, not an access banklint can place.
            if let Expression::Identifier(id) = &m.node.expression.node
                && matches!(self.lookup(&id.node.name), Some(Binding::Shared(_)))
            {
                return self.uniform_data("the result of a method call");
            }
            let base = self.eval(&m.node.expression, mask);
            return self.data_value(&base, "the result of a method call");
        }
        let Some(name) = name else {
            return Lanes::unknown("the result of a call through a pointer");
        };
        if let Some(float) = crate::front::names::is_functional_cast(&name) {
            let v = args.into_iter().next().unwrap_or_else(|| Lanes::int(0));
            return if float {
                self.data_value(&v, "a floating-point value")
            } else {
                v
            };
        }
        if let Some(v) = self
            .group_method(name.rsplit("__").next().unwrap_or(&name))
            .filter(|_| name.contains("__"))
        {
            return v;
        }
        match (name.as_str(), args.as_slice()) {
            ("min" | "umin" | "llmin" | "ullmin" | "fminf" | "imin", [a, b]) => {
                return Lanes::binary(BinOp::Min, a, b, self.n, &mut self.syms);
            }
            ("max" | "umax" | "llmax" | "ullmax" | "imax", [a, b]) => {
                return Lanes::binary(BinOp::Max, a, b, self.n, &mut self.syms);
            }
            ("__mul24" | "__umul24", [a, b]) => {
                return Lanes::binary(BinOp::Mul, a, b, self.n, &mut self.syms);
            }
            ("abs" | "llabs", [a]) => {
                let neg = Lanes::binary(BinOp::Sub, &Lanes::int(0), a, self.n, &mut self.syms);
                return Lanes::binary(BinOp::Max, a, &neg, self.n, &mut self.syms);
            }
            _ => {}
        }
        if let Some(c) = callee
            && self.call_depth < MAX_CALL_DEPTH
        {
            let Some(header) = c.header else {
                return self.inline_call_in(c.unit, c.function, call, args, mask);
            };
            let saved = (self.unit, self.home_call.clone());
            if self.home_call.is_none() {
                self.home_call = Some((self.span(whole.span), header));
            }
            let v = self.inline_call_in(c.unit, c.function, call, args, mask);
            (self.unit, self.home_call) = saved;
            return v;
        }
        let uniform_args = args.iter().all(Lanes::is_uniform);
        if uniform_args && !matches!(name.as_str(), "clock" | "clock64" | "__lane_id" | "laneid") {
            self.uniform_data(&format!("the result of `{name}`"))
        } else {
            Lanes::Each(Rc::new(vec![
                Value::unknown(format!(
                    "it is the result of `{name}`"
                ));
                self.n
            ]))
        }
    }

    /// Thread-block queries of cooperative groups, in terms of threadIdx and blockDim.
    fn group_method(&mut self, method: &str) -> Option<Lanes> {
        let n = self.n;
        match method {
            "thread_rank" => {
                let [tx, ty, tz] = self.thread_idx.clone();
                let [bx, by, _] = self.block_dim.clone();
                let row = Lanes::binary(BinOp::Mul, &tz, &by, n, &mut self.syms);
                let row = Lanes::binary(BinOp::Add, &row, &ty, n, &mut self.syms);
                let row = Lanes::binary(BinOp::Mul, &row, &bx, n, &mut self.syms);
                Some(Lanes::binary(BinOp::Add, &row, &tx, n, &mut self.syms))
            }
            "size" | "num_threads" => {
                let [bx, by, bz] = self.block_dim.clone();
                let p = Lanes::binary(BinOp::Mul, &bx, &by, n, &mut self.syms);
                Some(Lanes::binary(BinOp::Mul, &p, &bz, n, &mut self.syms))
            }
            _ => None,
        }
    }

    /// Methods of a tile of `tile` threads: ranks within the tile and of the tile in the block.
    fn tile_method(&mut self, method: &str, tile: u32) -> Lanes {
        let n = self.n;
        let size = Lanes::int(i64::from(tile));
        match method {
            "thread_rank" | "meta_group_rank" => {
                let rank = self
                    .group_method("thread_rank")
                    .unwrap_or_else(|| Lanes::int(0));
                let op = if method == "thread_rank" {
                    BinOp::Rem
                } else {
                    BinOp::Div
                };
                Lanes::binary(op, &rank, &size, n, &mut self.syms)
            }
            "size" | "num_threads" => size,
            "meta_group_size" => {
                let block = self.group_method("size").unwrap_or_else(|| Lanes::int(0));
                let rounded = Lanes::binary(
                    BinOp::Add,
                    &block,
                    &Lanes::int(i64::from(tile) - 1),
                    n,
                    &mut self.syms,
                );
                Lanes::binary(BinOp::Div, &rounded, &size, n, &mut self.syms)
            }
            _ => self.uniform_data("the result of a method call"),
        }
    }

    /// The group a declaration's initializer or type names: `cg::this_thread_block()` or
    /// `cg::thread_block` (the block), `cg::tiled_partition<32>(b)` or
    /// `cg::thread_block_tile<32>` (a tile of 32).
    fn group_of(
        &mut self,
        specs: &[Node<DeclarationSpecifier>],
        init: Option<&Node<Expression>>,
    ) -> Option<Group> {
        // The arguments are recorded at the last part of a qualified name (`cg::tiled_partition`).
        let tile_size = |a: &mut Self, span: Span| -> Result<u32, String> {
            let name = a.span(span);
            let text = a
                .unit
                .prepared
                .template_calls
                .iter()
                .find(|(off, _)| name.contains(off))
                .and_then(|(_, args)| args.first().cloned())
                .ok_or_else(|| "a thread group's tile size is not written".to_string())?;
            a.eval_text(&text, span, &[true], "the tile size")
                .as_const()
                .and_then(|t| u32::try_from(t).ok())
                .filter(|&t| t > 0)
                .ok_or_else(|| format!("the tile size `{text}` is not a compile-time constant"))
        };
        if let Some(Node {
            node: Expression::Call(c),
            ..
        }) = init
            && let Expression::Identifier(id) = &c.node.callee.node
        {
            let name = id.node.name.as_str();
            if name.ends_with("tiled_partition") && c.node.arguments.len() == 2 {
                // The run-time form, `cg::tiled_partition(block, 16)`.
                let size = self.eval(&c.node.arguments[1], &vec![true; self.n]);
                return Some(Group::Tile(
                    size.as_const()
                        .and_then(|t| u32::try_from(t).ok())
                        .filter(|&t| t > 0)
                        .ok_or_else(|| "the tile size is not a compile-time constant".to_string()),
                ));
            }
            if name.ends_with("tiled_partition") {
                return Some(Group::Tile(tile_size(self, c.node.callee.span)));
            }
            if name.ends_with("this_thread_block") {
                return Some(Group::Block);
            }
        }
        for spec in specs {
            if let DeclarationSpecifier::TypeSpecifier(ts) = &spec.node
                && let TypeSpecifier::TypedefName(id) = &ts.node
            {
                let name = id.node.name.as_str();
                if name.ends_with("thread_block_tile") {
                    return Some(Group::Tile(tile_size(self, ts.span)));
                }
                if name == "thread_block" || name.ends_with("__thread_block") {
                    return Some(Group::Block);
                }
            }
        }
        None
    }

    /// A device function of a local header (or of the includer before its `#include`), by
    /// name: the header's name, its unit, the function. Not one that declares `__shared__`
    /// memory of its own, whose declaration would be in another file than the report's.
    fn header_function(&self, name: &str, arity: usize) -> Option<Callee<'a, 'p>> {
        let units = std::iter::once(("", self.home_unit))
            .chain(self.headers.iter().map(|(n, u)| (n.as_str(), u)));
        for (header, unit) in units {
            if std::ptr::eq(unit, self.unit) {
                continue;
            }
            let Some(f) = unit.function(name, arity).filter(|f| !f.kernel) else {
                continue;
            };
            let declares_shared =
                unit.prepared.keywords.iter().any(|(k, at)| {
                    *k == crate::front::cuda::Keyword::Shared && f.span.contains(at)
                });
            if declares_shared {
                return None;
            }
            let header = if std::ptr::eq(unit, self.home_unit) {
                String::new()
            } else {
                header.to_string()
            };
            return Some(Callee {
                unit,
                function: f,
                header: Some(header),
            });
        }
        None
    }

    /// The device function a call of `name` with `arity` arguments reaches, looked up once per
    /// call: this unit's, else a local header's.
    fn callee(&self, name: &str, arity: usize) -> Option<Callee<'a, 'p>> {
        let unit = self.unit;
        match unit.function(name, arity).filter(|f| !f.kernel) {
            Some(function) => Some(Callee {
                unit,
                function,
                header: None,
            }),
            None => self.header_function(name, arity),
        }
    }

    /// Inlines `f`, defined in `unit` (the caller's, or a header's).
    fn inline_call_in(
        &mut self,
        unit: &'a Unit<'p>,
        f: &Function,
        call: &CallExpression,
        args: Vec<Lanes>,
        mask: &[bool],
    ) -> Lanes {
        let Some(def) = unit.definition(f) else {
            return Lanes::unknown(format!("the result of `{}`", f.name));
        };
        self.reached_functions.insert(f.overload_key());
        let mut frame = HashMap::new();
        for (k, p) in f.params.iter().enumerate() {
            let arg_expr = call.arguments.get(k);
            let shared = arg_expr.and_then(|a| match &a.node {
                Expression::Identifier(id) => match self.lookup(&id.node.name) {
                    Some(Binding::Shared(s)) => Some(*s),
                    _ => None,
                },
                _ => None,
            });
            let pointer = match (shared, arg_expr) {
                (None, Some(a)) if self.points_to_shared(a) => self.eval_pointer(a, mask, &p.name),
                _ => None,
            };
            // A `T &` parameter (a pointer once the front end has rewritten it) given an element.
            let reference = match (&p.ty, arg_expr) {
                (Type::Pointer(_), Some(a)) if shared.is_none() && pointer.is_none() => {
                    self.reference_target(a, mask)
                }
                _ => None,
            };
            let group = arg_expr.and_then(|a| match &a.node {
                Expression::Identifier(id) => match self.lookup(&id.node.name) {
                    Some(Binding::Group(g)) => Some(g.clone()),
                    _ => None,
                },
                _ => None,
            });
            let binding = match (group, shared, args.get(k)) {
                _ if reference.is_some() => Binding::Reference(reference.clone().expect("checked")),
                (Some(g), _, _) => Binding::Group(g),
                (None, Some(s), _) => Binding::Shared(s),
                (None, None, _) if pointer.is_some() => {
                    Binding::Pointer(pointer.clone().expect("checked"))
                }
                (None, None, Some(v)) => Binding::Value(v.clone()),
                (None, None, None) => Binding::Value(Lanes::unknown(format!(
                    "parameter `{}` was not passed",
                    p.name
                ))),
            };
            frame.insert(p.name.clone(), binding);
        }
        // Explicit template arguments at the call, `body<BS, T>(o)`, bound in the caller.
        let saved_templates = (
            self.template_values.clone(),
            self.types.clone(),
            self.type_args.clone(),
        );
        if let Some(header) = &f.template {
            let at = self.span(call.callee.span).start;
            let given = self.template_arguments_at(at).to_vec();
            for (k, param) in header.params.iter().enumerate() {
                let text = given.get(k).cloned().or_else(|| param.default.clone());
                if param.is_type {
                    if let Some(ty) = text.as_deref().and_then(|t| type_from_text(&self.types, t)) {
                        self.types.named.insert(param.name.clone(), ty);
                    }
                    // `f<T>(...)` inside a template: the caller's binding of `T`.
                    if let Some(t) = text {
                        let t = self.type_args.get(t.trim()).cloned().unwrap_or(t);
                        self.type_args.insert(param.name.clone(), t);
                    }
                } else {
                    let value = match text {
                        Some(t) => {
                            let v = self.eval_text(&t, call.callee.span, mask, &param.name);
                            if v.as_const().is_some() {
                                v
                            } else {
                                Lanes::unknown(format!(
                                    "template argument `{t}` of `{}` is not a constant",
                                    f.name
                                ))
                            }
                        }
                        None => Lanes::unknown(format!(
                            "template parameter `{}` of `{}` has no value at this call",
                            param.name, f.name
                        )),
                    };
                    self.template_values.insert(param.name.clone(), value);
                }
            }
        }
        self.bind_dependent_types();
        let saved_unit = std::mem::replace(&mut self.unit, unit);
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![frame]);
        let saved_item = std::mem::replace(&mut self.item, f.item);
        let saved_fn = std::mem::replace(&mut self.function, f.name.clone());
        let saved_override = self.span_override.take();
        let saved_exited = self.exited.clone();
        let saved_loops = std::mem::take(&mut self.loops);
        self.call_depth += 1;
        self.returns.push(None);
        self.exec(&def.statement, mask);
        let ret = self.returns.pop().flatten();
        self.call_depth -= 1;
        self.loops = saved_loops;
        self.exited = saved_exited;
        self.span_override = saved_override;
        self.function = saved_fn;
        self.item = saved_item;
        self.scopes = saved_scopes;
        (self.template_values, self.types, self.type_args) = saved_templates;
        self.unit = saved_unit;
        ret.unwrap_or_else(|| Lanes::unknown(format!("the result of `{}`", f.name)))
    }

    fn unary(
        &mut self,
        whole: &Node<Expression>,
        u: &UnaryOperatorExpression,
        mask: &[bool],
    ) -> Lanes {
        let n = self.n;
        match u.operator.node {
            UnaryOperator::Plus => self.eval(&u.operand, mask),
            UnaryOperator::Minus => {
                let v = self.eval(&u.operand, mask);
                Lanes::binary(BinOp::Sub, &Lanes::int(0), &v, n, &mut self.syms)
            }
            UnaryOperator::Complement => {
                let v = self.eval(&u.operand, mask);
                Lanes::binary(BinOp::Sub, &Lanes::int(-1), &v, n, &mut self.syms)
            }
            UnaryOperator::Negate => {
                let v = self.eval(&u.operand, mask);
                Lanes::binary(BinOp::Eq, &v, &Lanes::int(0), n, &mut self.syms)
            }
            UnaryOperator::Address => {
                // `&s[i]` takes an address; no shared-memory access happens here.
                self.eval_subscripts_only(&u.operand, mask);
                Lanes::unknown("an address")
            }
            UnaryOperator::Indirection => {
                if self.is_pointer_access(whole) {
                    return self.shared_access(whole, Op::Load, mask);
                }
                let v = self.eval(&u.operand, mask);
                self.data_value(&v, "a value loaded through a pointer")
            }
            UnaryOperator::PreIncrement
            | UnaryOperator::PostIncrement
            | UnaryOperator::PreDecrement
            | UnaryOperator::PostDecrement => {
                let delta = if matches!(
                    u.operator.node,
                    UnaryOperator::PreIncrement | UnaryOperator::PostIncrement
                ) {
                    1
                } else {
                    -1
                };
                let post = matches!(
                    u.operator.node,
                    UnaryOperator::PostIncrement | UnaryOperator::PostDecrement
                );
                if self.shared_ref(&u.operand).is_some() || self.is_pointer_access(&u.operand) {
                    return self.shared_access_as(&u.operand, &[Op::Load, Op::Store], mask);
                }
                if let Expression::Identifier(id) = &u.operand.node
                    && let Some(Binding::Pointer(p)) = self.lookup(&id.node.name).cloned()
                {
                    if let Some(moved) = self.advance(p, &Lanes::int(delta)) {
                        self.bind_pointer(&id.node.name, moved);
                    }
                    return Lanes::unknown("an address");
                }
                // `c++` through a reference parameter: a load unless the value is in a register
                // already, then a store; `n.x++`: both, on the field.
                if let Expression::Identifier(id) = &u.operand.node
                    && let Some(Binding::Reference(r)) = self.lookup(&id.node.name).cloned()
                {
                    let name = &id.node.name;
                    if !r.loaded {
                        self.reference_access(name, u.operand.span, r.clone(), Op::Load, mask);
                    }
                    self.reference_access(name, u.operand.span, r, Op::Store, mask);
                    return Lanes::unknown("shared data");
                }
                if let Some(field) = self.reference_member(&u.operand) {
                    self.reference_member_access(&u.operand, field.clone(), Op::Load, mask);
                    self.reference_member_access(&u.operand, field, Op::Store, mask);
                    return Lanes::unknown("shared data");
                }
                let old = self.eval(&u.operand, mask);
                let new = Lanes::binary(BinOp::Add, &old, &Lanes::int(delta), n, &mut self.syms);
                if let Expression::Identifier(id) = &u.operand.node {
                    self.set_var(&id.node.name, &new, mask);
                }
                if post { old } else { new }
            }
        }
    }

    /// Evaluates the index expressions under `&...` for the accesses they contain.
    fn eval_subscripts_only(&mut self, e: &Node<Expression>, mask: &[bool]) {
        match &e.node {
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                self.eval_subscripts_only(&b.node.lhs, mask);
                self.eval(&b.node.rhs, mask);
            }
            Expression::Member(m) => self.eval_subscripts_only(&m.node.expression, mask),
            Expression::Identifier(_) => {}
            _ => {
                self.eval(e, mask);
            }
        }
    }

    fn binary(
        &mut self,
        whole: &Node<Expression>,
        b: &BinaryOperatorExpression,
        mask: &[bool],
    ) -> Lanes {
        let n = self.n;
        if let Some(compound) = assignment_op(&b.operator.node) {
            return self.assign(&b.lhs, compound, &b.rhs, mask);
        }
        let op = match b.operator.node {
            BinaryOperator::Index => {
                if self.shared_ref(whole).is_some() || self.is_pointer_access(whole) {
                    return self.shared_access(whole, Op::Load, mask);
                }
                let base = self.eval(&b.lhs, mask);
                let idx = self.eval(&b.rhs, mask);
                let uniform = base.is_uniform() && idx.is_uniform();
                let name = base_name(&b.lhs).unwrap_or_else(|| "memory".to_string());
                return if uniform {
                    self.uniform_data(&format!("a value loaded from `{name}`"))
                } else {
                    Lanes::Each(Rc::new(vec![
                        Value::unknown(format!(
                            "it is data loaded from `{name}`"
                        ));
                        n
                    ]))
                };
            }
            BinaryOperator::LogicalAnd | BinaryOperator::LogicalOr => {
                let and_op = b.operator.node == BinaryOperator::LogicalAnd;
                let l = self.eval(&b.lhs, mask);
                // The right side runs only where the left does not decide.
                let rmask: Vec<bool> = (0..n)
                    .map(|t| mask[t] && l.get(t).as_const().is_none_or(|c| (c != 0) == and_op))
                    .collect();
                let r = self.eval(&b.rhs, &rmask);
                return Lanes::binary(
                    if and_op {
                        BinOp::LogicalAnd
                    } else {
                        BinOp::LogicalOr
                    },
                    &l,
                    &r,
                    n,
                    &mut self.syms,
                );
            }
            BinaryOperator::Multiply => BinOp::Mul,
            BinaryOperator::Divide => BinOp::Div,
            BinaryOperator::Modulo => BinOp::Rem,
            BinaryOperator::Plus => BinOp::Add,
            BinaryOperator::Minus => BinOp::Sub,
            BinaryOperator::ShiftLeft => BinOp::Shl,
            BinaryOperator::ShiftRight => BinOp::Shr,
            BinaryOperator::Less => BinOp::Lt,
            BinaryOperator::Greater => BinOp::Gt,
            BinaryOperator::LessOrEqual => BinOp::Le,
            BinaryOperator::GreaterOrEqual => BinOp::Ge,
            BinaryOperator::Equals => BinOp::Eq,
            BinaryOperator::NotEquals => BinOp::Ne,
            BinaryOperator::BitwiseAnd => BinOp::And,
            BinaryOperator::BitwiseXor => BinOp::Xor,
            BinaryOperator::BitwiseOr => BinOp::Or,
            // Assignments returned above.
            _ => return Lanes::unknown("an assignment"),
        };
        let l = self.eval(&b.lhs, mask);
        let r = self.eval(&b.rhs, mask);
        Lanes::binary(op, &l, &r, n, &mut self.syms)
    }

    fn assign(
        &mut self,
        lhs: &Node<Expression>,
        op: Option<BinOp>,
        rhs: &Node<Expression>,
        mask: &[bool],
    ) -> Lanes {
        if let Expression::Identifier(id) = &lhs.node
            && let Some(Binding::Pointer(p)) = self.lookup(&id.node.name).cloned()
        {
            let moved = match op {
                None => self.eval_pointer(rhs, mask, &id.node.name),
                Some(BinOp::Add) => {
                    let k = self.eval(rhs, mask);
                    self.advance(p, &k)
                }
                Some(BinOp::Sub) => {
                    let k = self.eval(rhs, mask);
                    let neg = Lanes::binary(BinOp::Sub, &Lanes::int(0), &k, self.n, &mut self.syms);
                    self.advance(p, &neg)
                }
                _ => None,
            };
            match moved {
                Some(m) => self.bind_pointer(&id.node.name, m),
                None => self.bind_pointer_lost(&id.node.name),
            }
            return Lanes::unknown("an address");
        }
        if let Expression::Identifier(id) = &lhs.node
            && let Some(Binding::Reference(target)) = self.lookup(&id.node.name).cloned()
        {
            let r = self.eval(rhs, mask);
            if op.is_some() && !target.loaded {
                self.reference_access(&id.node.name, lhs.span, target.clone(), Op::Load, mask);
            }
            self.reference_access(&id.node.name, lhs.span, target, Op::Store, mask);
            return r;
        }
        if let Some(field) = self.reference_member(lhs) {
            let r = self.eval(rhs, mask);
            if op.is_some() {
                self.reference_member_access(lhs, field.clone(), Op::Load, mask);
            }
            self.reference_member_access(lhs, field, Op::Store, mask);
            return r;
        }
        let r = self.eval(rhs, mask);
        if self.shared_ref(lhs).is_some() || self.is_pointer_access(lhs) {
            let ops: &[Op] = if op.is_some() {
                &[Op::Load, Op::Store]
            } else {
                &[Op::Store]
            };
            self.shared_access_as(lhs, ops, mask);
            return r;
        }
        match &lhs.node {
            Expression::Identifier(id) => {
                let name = id.node.name.clone();
                let new = match op {
                    Some(op) => {
                        let old = self.identifier(&name, lhs.span, mask);
                        Lanes::binary(op, &old, &r, self.n, &mut self.syms)
                    }
                    None => r,
                };
                let new = match self.lookup(&name) {
                    Some(Binding::Value(_)) => new,
                    _ => return new,
                };
                self.set_var(&name, &new, mask);
                new
            }
            _ => {
                // A store to global memory, a local array or a struct field: evaluate the
                // subscripts for the shared loads they may contain.
                self.eval_subscripts_only(lhs, mask);
                r
            }
        }
    }

    /// Resolves `s[i][j].f` to (array, index expressions, member names) when `s` is a
    /// `__shared__` array indexed in every dimension.
    fn shared_ref<'e>(&self, e: &'e Node<Expression>) -> Option<SharedRef<'e>> {
        self.shared_ref_indexed(e, false)
    }

    /// Like `shared_ref`, optionally accepting fewer indices than the rank (`&tile[i]`).
    fn shared_ref_indexed<'e>(
        &self,
        e: &'e Node<Expression>,
        partial: bool,
    ) -> Option<SharedRef<'e>> {
        let (mut cur, members) = direct_members(e)?;
        let mut indices = Vec::new();
        while let Expression::BinaryOperator(b) = &cur.node {
            if b.node.operator.node != BinaryOperator::Index {
                return None;
            }
            indices.push(&*b.node.rhs);
            cur = &b.node.lhs;
        }
        indices.reverse();
        let Expression::Identifier(id) = &cur.node else {
            return None;
        };
        let array = match self.lookup(&id.node.name) {
            Some(Binding::Shared(a)) => *a,
            Some(_) => return None,
            None => {
                let decl = self
                    .unit
                    .file_shared
                    .iter()
                    .find(|a| a.name == id.node.name)?;
                self.arrays
                    .iter()
                    .position(|a| a.decl.decl_span == decl.decl_span && a.decl.name == decl.name)?
            }
        };
        let rank = self.arrays[array].decl.dims.len();
        let complete =
            indices.len() == rank || (partial && !indices.is_empty() && indices.len() < rank);
        (complete && (rank > 0 || indices.is_empty())).then_some((array, indices, members))
    }

    /// Records an access through the reference parameter `name` at `at`; after it the value
    /// is in a register, so later reads load nothing.
    fn reference_access(&mut self, name: &str, at: Span, r: Reference, op: Op, mask: &[bool]) {
        let text = format!("`{}` (through `{name}`)", r.written);
        let (array, indices, texts, elem) = self.place_parts(r.target.clone(), text);
        self.record_access(at, array, indices, texts, elem, &[], op, mask);
        for scope in self.scopes.iter_mut().rev() {
            if let Some(b) = scope.get_mut(name) {
                *b = Binding::Reference(Reference { loaded: true, ..r });
                return;
            }
        }
    }

    /// `n.x` (or `n.p.x`) with `n` a reference parameter: its target and the member names.
    fn reference_member(&self, e: &Node<Expression>) -> Option<(String, Reference, Vec<String>)> {
        let (cur, members) = direct_members(e)?;
        let Expression::Identifier(id) = &cur.node else {
            return None;
        };
        match self.lookup(&id.node.name) {
            Some(Binding::Reference(r)) if !members.is_empty() => {
                Some((id.node.name.clone(), r.clone(), members))
            }
            _ => None,
        }
    }

    /// An access to one field through a reference parameter: loaded or stored each time.
    fn reference_member_access(
        &mut self,
        e: &Node<Expression>,
        (name, r, members): (String, Reference, Vec<String>),
        op: Op,
        mask: &[bool],
    ) {
        let text = format!("`{}` (through `{name}`)", r.written);
        let (array, indices, texts, elem) = self.place_parts(r.target, text);
        self.record_access(e.span, array, indices, texts, elem, &members, op, mask);
    }

    /// What `record_access` needs to know of a pointer's target: the array (a byte view for a
    /// byte offset), its index tuple, the index texts, the element type.
    fn place_parts(
        &mut self,
        ptr: SharedPointer,
        text: String,
    ) -> (usize, Vec<Lanes>, Vec<String>, Type) {
        match ptr.place {
            Place::Tuple(indices) => {
                let texts = vec![text; indices.len()];
                (ptr.array, indices, texts, ptr.elem)
            }
            Place::Bytes(offset) => (
                self.byte_view(ptr.array),
                vec![offset],
                vec![text],
                ptr.elem,
            ),
        }
    }

    /// The target of a C++ reference parameter given `arg`: a whole `__shared__` element
    /// (`s[i][j]`, its indices evaluated here, in the caller), or a reference the caller
    /// itself received.
    fn reference_target(&mut self, arg: &Node<Expression>, mask: &[bool]) -> Option<Reference> {
        if let Expression::Identifier(id) = &arg.node
            && let Some(Binding::Reference(r)) = self.lookup(&id.node.name)
        {
            // Handed on: the callee reads it afresh.
            return Some(Reference {
                loaded: false,
                ..r.clone()
            });
        }
        let (array, index_exprs, members) = self.shared_ref(arg)?;
        if !members.is_empty() || index_exprs.is_empty() {
            return None;
        }
        let indices: Vec<Lanes> = index_exprs.iter().map(|x| self.eval(x, mask)).collect();
        Some(Reference {
            target: SharedPointer {
                array,
                elem: self.arrays[array].decl.elem.clone(),
                place: Place::Tuple(indices),
            },
            written: self.source_text(arg.span),
            loaded: false,
        })
    }

    /// Records one shared-memory access (an array subscript or a pointer dereference) and
    /// returns the (unknown) value it loads.
    fn shared_access(&mut self, e: &Node<Expression>, op: Op, mask: &[bool]) -> Lanes {
        self.shared_access_as(e, &[op], mask)
    }

    /// Records a shared-memory access as each of `ops` (a compound assignment or `++` is a
    /// load and a store), evaluating its indices once, so their side effects happen once.
    fn shared_access_as(&mut self, e: &Node<Expression>, ops: &[Op], mask: &[bool]) -> Lanes {
        let (array, indices, texts, elem, members) =
            if let Some((array, index_exprs, members)) = self.shared_ref(e) {
                let indices: Vec<Lanes> = index_exprs.iter().map(|x| self.eval(x, mask)).collect();
                let texts: Vec<String> = index_exprs
                    .iter()
                    .map(|x| self.index_text(x.span))
                    .collect();
                let elem = self.arrays[array].decl.elem.clone();
                (array, indices, texts, elem, members)
            } else if let Some((ptr, members)) = self.pointer_target(e, mask) {
                let text = format!("`{}`", self.source_text(e.span));
                let (array, indices, texts, elem) = self.place_parts(ptr, text);
                (array, indices, texts, elem, members)
            } else {
                return Lanes::unknown("shared data");
            };
        let mut loaded = Lanes::unknown("shared data");
        for &op in ops {
            let v = self.record_access(
                e.span,
                array,
                indices.clone(),
                texts.clone(),
                elem.clone(),
                &members,
                op,
                mask,
            );
            if op == Op::Load {
                loaded = v;
            }
        }
        loaded
    }

    #[allow(clippy::too_many_arguments)]
    fn record_access(
        &mut self,
        at: Span,
        array: usize,
        indices: Vec<Lanes>,
        index_texts: Vec<String>,
        elem: Type,
        members: &[String],
        op: Op,
        mask: &[bool],
    ) -> Lanes {
        self.footprint
            .insert(self.arrays[array].byte_view_of.unwrap_or(array));
        let (span, sub) = match &self.home_call {
            // Accesses in a header's function are reported at the call in the analyzed file,
            // one site per access of the function.
            Some((call, _)) => (call.clone(), self.span(at).start + 1),
            None if self.span_override.is_some() => (self.span(at), at.start),
            None => (self.span(at), 0),
        };
        let key = SiteKey {
            start: span.start,
            end: span.end,
            op,
            sub,
        };
        // Element type after member selection.
        let mut ty = elem;
        let mut member_offset = 0i64;
        let mut member_problem = None;
        for m in members {
            match ty.field(m) {
                Some(f) => {
                    member_offset += i64::from(f.offset);
                    ty = f.ty.clone();
                }
                None => {
                    member_problem =
                        Some(format!("the field `{m}` of `{}` is not known", ty.name()));
                    break;
                }
            }
        }
        let pieces = ty.pieces();
        let width = pieces.as_ref().map_or(4, |p| p.0);
        let function = self.function.clone();
        let assumptions: Vec<String> = self.assumptions.clone();
        let trips_unknown = self.symbolic_loops > 0;
        let layout_problem = self.arrays[array].layout_problem.clone();
        let origin = self.home_call.as_ref().map(|(_, header)| {
            let line = self.unit.line_of(self.span(at).start);
            if header.is_empty() {
                format!("`{function}` at line {line}")
            } else {
                format!("`{function}` at {header}:{line}")
            }
        });
        let site = self.sites.entry(key).or_insert_with(|| Site {
            span: span.clone(),
            op,
            array,
            function,
            width,
            patterns: HashMap::default(),
            unknown: None,
            trips_unknown: false,
            assumptions: BTreeSet::new(),
            origin,
        });
        site.trips_unknown |= trips_unknown;
        if none(mask) {
            return Lanes::unknown("shared data");
        }
        site.assumptions.extend(assumptions);
        if let Some(p) = member_problem.or(layout_problem).or_else(|| {
            pieces
                .is_none()
                .then(|| format!("the size of `{}` is not known", ty.name()))
        }) {
            site.unknown.get_or_insert(p);
            return Lanes::unknown("shared data");
        }
        let (_, piece_offsets) = pieces.unwrap_or((4, vec![0]));
        let normalize = !shift_matters(
            self.target,
            self.arrays[array]
                .layout
                .as_ref()
                .map_or(1, |l| l.elem_size),
        );
        let warps = self.n.div_ceil(WARP_SIZE);
        let rank = indices.len();
        let key = SiteKey {
            start: span.start,
            end: span.end,
            op,
            sub,
        };
        for w in 0..warps {
            let mut pattern = Pattern {
                active: 0,
                rank,
                indices: vec![0; WARP_SIZE * rank],
                member_offset,
                uniform_shift: vec![0; rank],
            };
            // Every active lane must have the first one's symbolic terms, so that they only
            // shift the warp as a whole.
            let mut first_thread: Option<usize> = None;
            let mut problem = None;
            'lanes: for l in 0..WARP_SIZE {
                let t = w * WARP_SIZE + l;
                if t >= self.n || !mask[t] {
                    continue;
                }
                for (d, idx) in indices.iter().enumerate() {
                    match idx.get(t) {
                        Value::Affine(a) => {
                            pattern.indices[l * rank + d] = a.constant;
                            pattern.uniform_shift[d] =
                                a.terms.iter().fold(pattern.uniform_shift[d], |g, (_, c)| {
                                    crate::bank::layout::gcd(g, *c)
                                });
                        }
                        Value::Unknown(r) => {
                            problem = Some(format!(
                                "the index {} cannot be resolved: {r}",
                                index_texts.get(d).map_or("", String::as_str)
                            ));
                            break 'lanes;
                        }
                    }
                }
                let terms = |thread: usize, d: usize| match indices[d].get(thread) {
                    Value::Affine(a) => a.terms.as_slice(),
                    Value::Unknown(_) => &[],
                };
                match first_thread {
                    None => first_thread = Some(t),
                    Some(f) if (0..rank).any(|d| terms(f, d) != terms(t, d)) => {
                        let differing: BTreeSet<String> = (0..rank)
                            .flat_map(|d| terms(f, d).iter().chain(terms(t, d).iter()))
                            .map(|(s, _)| format!("`{}`", self.syms.name(*s)))
                            .collect();
                        problem = Some(format!(
                            "the stride between lanes depends on {}",
                            differing.into_iter().collect::<Vec<_>>().join(", ")
                        ));
                        break 'lanes;
                    }
                    _ => {}
                }
                pattern.active |= 1 << l;
            }
            if let Some(p) = problem {
                if let Some(site) = self.sites.get_mut(&key) {
                    site.unknown.get_or_insert(p);
                }
                return Lanes::unknown("shared data");
            }
            if pattern.active == 0 {
                continue;
            }
            let first_lane = pattern.active.trailing_zeros() as usize;
            let first: Vec<i64> =
                pattern.indices[first_lane * rank..(first_lane + 1) * rank].to_vec();
            let origin = if normalize {
                for l in 0..WARP_SIZE {
                    if pattern.active & (1 << l) != 0 {
                        for (d, f) in first.iter().enumerate() {
                            pattern.indices[l * rank + d] -= f;
                        }
                    }
                }
                first
            } else {
                vec![0; rank]
            };
            let sequence = self.sequence;
            let labels = &self.labels;
            let Some(site) = self.sites.get_mut(&key) else {
                break;
            };
            for &po in &piece_offsets {
                let piece = Pattern {
                    member_offset: member_offset + i64::from(po),
                    ..pattern.clone()
                };
                if let Some(stats) = site.patterns.get_mut(&piece) {
                    stats.count += 1;
                    continue;
                }
                // Named only when first seen: most warps repeat a known pattern.
                let label = if labels.is_empty() {
                    format!("warp {w}")
                } else {
                    format!("warp {w}, {}", labels.join(", "))
                };
                site.patterns.insert(
                    piece,
                    PatternStats {
                        count: 1,
                        first_seen: sequence,
                        label,
                        origin: origin.clone(),
                    },
                );
            }
            self.sequence += 1;
        }
        let uniform_index = indices.iter().all(Lanes::is_uniform);
        if uniform_index {
            let what = format!("a value loaded from `{}`", self.arrays[array].decl.name);
            self.uniform_data(&what)
        } else {
            Lanes::Each(Rc::new(vec![
                Value::unknown(format!(
                    "it is data loaded from `{}`",
                    self.arrays[array].decl.name
                ));
                self.n
            ]))
        }
    }

    // ---- pointers into shared memory ----

    /// The explicit template arguments written after the name at `at` (`f<16, float>`), if any.
    fn template_arguments_at(&self, at: usize) -> &[String] {
        self.unit
            .prepared
            .template_calls
            .iter()
            .find(|(off, _)| *off == at)
            .map_or(&[], |(_, args)| args.as_slice())
    }

    /// The class and its template argument when declaration specifiers name a shared-memory
    /// wrapper class.
    fn memory_class_of(&self, specs: &[Node<DeclarationSpecifier>]) -> Option<(String, String)> {
        specs.iter().find_map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) => match &t.node {
                TypeSpecifier::TypedefName(id)
                    if self
                        .unit
                        .prepared
                        .shared_memory_classes
                        .contains(&id.node.name) =>
                {
                    let at = self.span(id.span).start;
                    let argument = self
                        .template_arguments_at(at)
                        .first()
                        .cloned()
                        .unwrap_or_default();
                    Some((id.node.name.clone(), argument))
                }
                _ => None,
            },
            _ => None,
        })
    }

    /// Whether `name` is a `__shared__` object (rank 0) of a type banklint does not know.
    fn is_library_object(&self, name: &str) -> bool {
        matches!(self.lookup(name), Some(Binding::Shared(a))
            if self.arrays[*a].decl.dims.is_empty()
                && matches!(self.arrays[*a].decl.elem, Type::Unknown(_)))
    }

    /// Whether `name` is a `__shared__` scalar (rank 0): reading it is a shared access.
    fn is_shared_scalar(&self, name: &str) -> bool {
        matches!(self.lookup(name), Some(Binding::Shared(a)) if self.arrays[*a].decl.dims.is_empty())
    }

    /// Rebinds a pointer variable where it is declared.
    fn bind_pointer(&mut self, name: &str, p: SharedPointer) {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(b) = scope.get_mut(name) {
                *b = Binding::Pointer(p);
                return;
            }
        }
    }

    /// A pointer assigned something banklint cannot follow: accesses through it are unknown.
    fn bind_pointer_lost(&mut self, name: &str) {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(b) = scope.get_mut(name) {
                *b = Binding::Opaque;
                return;
            }
        }
    }

    /// Whether `e` dereferences a pointer into shared memory (`p[i]`, `*p`, `p->f`),
    /// judged from its shape without evaluating anything.
    fn is_pointer_access(&self, e: &Node<Expression>) -> bool {
        let mut cur = e;
        while let Expression::Member(m) = &cur.node {
            if m.node.operator.node == MemberOperator::Indirect {
                return self.points_to_shared(&m.node.expression);
            }
            cur = &m.node.expression;
        }
        match &cur.node {
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                self.points_to_shared(&b.node.lhs) && !self.is_multi_dim_array(&b.node.lhs)
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                self.points_to_shared(&u.node.operand)
            }
            _ => false,
        }
    }

    fn is_multi_dim_array(&self, e: &Node<Expression>) -> bool {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Shared(a)) => self.arrays[*a].decl.dims.len() > 1,
                _ => false,
            },
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => true,
            _ => false,
        }
    }

    /// Whether an expression can evaluate to a pointer into shared memory.
    fn points_to_shared(&self, e: &Node<Expression>) -> bool {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Pointer(_)) => true,
                Some(Binding::Shared(a)) => !self.arrays[*a].decl.dims.is_empty(),
                Some(_) => false,
                None => self.unit.file_shared.iter().any(|a| a.name == id.node.name),
            },
            Expression::Cast(c) => self.points_to_shared(&c.node.expression),
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                base_name(&u.node.operand).is_some_and(|n| {
                    matches!(
                        self.lookup(&n),
                        Some(Binding::Pointer(_)) | Some(Binding::Shared(_))
                    ) || self.unit.file_shared.iter().any(|a| a.name == n)
                })
            }
            Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::Plus | BinaryOperator::Minus
                ) =>
            {
                self.points_to_shared(&b.node.lhs) || self.points_to_shared(&b.node.rhs)
            }
            Expression::Call(c) => self.is_shared_memory_class_call(c),
            _ => false,
        }
    }

    fn is_shared_memory_class_call(&self, c: &Node<CallExpression>) -> bool {
        match &c.node.callee.node {
            Expression::Identifier(id) => self
                .unit
                .prepared
                .shared_memory_classes
                .contains(&id.node.name),
            // `smem.getPointer()` on a wrapper-class variable.
            Expression::Member(m) => matches!(&m.node.expression.node, Expression::Identifier(v)
                if matches!(self.lookup(&v.node.name), Some(Binding::MemoryClass { .. }))),
            _ => false,
        }
    }

    /// Where `p[i]`, `*p`, `p->f` or `(*p).f` points.
    fn pointer_target(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
    ) -> Option<(SharedPointer, Vec<String>)> {
        if !self.is_pointer_access(e) {
            return None;
        }
        let mut members = Vec::new();
        let mut cur = e;
        let mut arrow = false;
        while let Expression::Member(m) = &cur.node {
            members.push(m.node.identifier.node.name.clone());
            cur = &m.node.expression;
            if m.node.operator.node == MemberOperator::Indirect {
                arrow = true;
                break;
            }
        }
        members.reverse();
        let ptr = if arrow {
            self.eval_pointer(cur, mask, "")?
        } else {
            match &cur.node {
                Expression::BinaryOperator(b) => {
                    let base = self.eval_pointer(&b.node.lhs, mask, "")?;
                    let k = self.eval(&b.node.rhs, mask);
                    self.advance(base, &k)?
                }
                Expression::UnaryOperator(u) => self.eval_pointer(&u.node.operand, mask, "")?,
                _ => return None,
            }
        };
        Some((ptr, members))
    }

    /// Evaluates an expression that yields a pointer into shared memory. `name` names a
    /// wrapper-class array after the variable it initializes.
    fn eval_pointer(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
        name: &str,
    ) -> Option<SharedPointer> {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name).cloned() {
                Some(Binding::Pointer(p)) => Some(p),
                Some(Binding::Shared(a)) => Some(self.decay(a)),
                Some(_) => None,
                None => {
                    let decl = self
                        .unit
                        .file_shared
                        .iter()
                        .find(|a| a.name == id.node.name)?
                        .clone();
                    let a = self.register_array(decl);
                    Some(self.decay(a))
                }
            },
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                if let Some((array, index_exprs, members)) =
                    self.shared_ref_indexed(&u.node.operand, true)
                {
                    if !members.is_empty() {
                        return None;
                    }
                    let rank = self.arrays[array].decl.dims.len();
                    let mut tuple: Vec<Lanes> =
                        index_exprs.iter().map(|x| self.eval(x, mask)).collect();
                    tuple.resize(rank, Lanes::int(0));
                    return Some(SharedPointer {
                        array,
                        elem: self.arrays[array].decl.elem.clone(),
                        place: Place::Tuple(tuple),
                    });
                }
                match &u.node.operand.node {
                    Expression::BinaryOperator(b)
                        if b.node.operator.node == BinaryOperator::Index =>
                    {
                        let base = self.eval_pointer(&b.node.lhs, mask, name)?;
                        let k = self.eval(&b.node.rhs, mask);
                        self.advance(base, &k)
                    }
                    Expression::UnaryOperator(inner)
                        if inner.node.operator.node == UnaryOperator::Indirection =>
                    {
                        self.eval_pointer(&inner.node.operand, mask, name)
                    }
                    _ => None,
                }
            }
            Expression::Cast(c) => {
                let p = self.eval_pointer(&c.node.expression, mask, name)?;
                match self.cast_pointee(&c.node.type_name.node) {
                    Some(target) => self.retype(p, target),
                    None => Some(p),
                }
            }
            Expression::BinaryOperator(b) => {
                let op = b.node.operator.node.clone();
                if !matches!(op, BinaryOperator::Plus | BinaryOperator::Minus) {
                    return None;
                }
                if self.points_to_shared(&b.node.lhs) {
                    let p = self.eval_pointer(&b.node.lhs, mask, name)?;
                    let mut k = self.eval(&b.node.rhs, mask);
                    if op == BinaryOperator::Minus {
                        k = Lanes::binary(BinOp::Sub, &Lanes::int(0), &k, self.n, &mut self.syms);
                    }
                    self.advance(p, &k)
                } else if op == BinaryOperator::Plus {
                    let k = self.eval(&b.node.lhs, mask);
                    let p = self.eval_pointer(&b.node.rhs, mask, name)?;
                    self.advance(p, &k)
                } else {
                    None
                }
            }
            Expression::Call(c) if self.is_shared_memory_class_call(c) => {
                let (class, type_text) = match &c.node.callee.node {
                    Expression::Member(m) => match &m.node.expression.node {
                        Expression::Identifier(v) => match self.lookup(&v.node.name) {
                            Some(Binding::MemoryClass { class, argument }) => {
                                (class.clone(), argument.clone())
                            }
                            _ => return None,
                        },
                        _ => return None,
                    },
                    Expression::Identifier(id) => {
                        let at = self.span(c.node.callee.span).start;
                        let argument = self.template_arguments_at(at).first().cloned()?;
                        (id.node.name.clone(), argument)
                    }
                    _ => return None,
                };
                let elem = type_from_text(&self.types, &type_text)
                    .unwrap_or(Type::Unknown(type_text.clone()));
                let span = self.span(e.span);
                let declared_in = self.wrapper_array(&class, &type_text, &elem);
                let decl = SharedArray {
                    name: if name.is_empty() {
                        format!("{class}<{type_text}>")
                    } else {
                        name.to_string()
                    },
                    elem,
                    dims: vec![None],
                    dim_spans: vec![None],
                    decl_span: span.clone(),
                    name_span: span,
                    is_extern: true,
                    item: self.item,
                    declared_in,
                };
                let a = self.register_array(decl);
                Some(self.decay(a))
            }
            _ => None,
        }
    }

    /// The `extern __shared__` declaration behind `class<argument>`: the specialization
    /// for the bound argument (`SharedMemory<float>` for `T = float`), else the primary
    /// template's.
    fn wrapper_array(&self, class: &str, argument: &str, elem: &Type) -> Option<WrapperArray> {
        let bound = self
            .type_args
            .get(argument.trim())
            .map_or(argument, String::as_str);
        let same = |written: &str| {
            written.split_whitespace().eq(bound.split_whitespace())
                || type_from_text(&self.types, written).is_some_and(|t| t == *elem)
        };
        let of_class = self
            .unit
            .prepared
            .shared_memory_arrays
            .iter()
            .filter(|w| w.class == class);
        of_class
            .clone()
            .find(|w| matches!(w.args.as_deref(), Some([one]) if same(one)))
            .or_else(|| of_class.clone().find(|w| w.args.is_none()))
            .cloned()
    }

    /// An array used as a pointer: its first element.
    fn decay(&self, array: usize) -> SharedPointer {
        let rank = self.arrays[array].decl.dims.len().max(1);
        SharedPointer {
            array,
            elem: self.arrays[array].decl.elem.clone(),
            place: Place::Tuple(vec![Lanes::int(0); rank]),
        }
    }

    /// `p + k`: along the innermost dimension, or by `k` elements of the pointee in bytes.
    fn advance(&mut self, p: SharedPointer, k: &Lanes) -> Option<SharedPointer> {
        let n = self.n;
        let place = match p.place {
            Place::Tuple(mut t) => {
                let last = t.last_mut()?;
                *last = Lanes::binary(BinOp::Add, last, k, n, &mut self.syms);
                Place::Tuple(t)
            }
            Place::Bytes(off) => {
                let size = Lanes::int(i64::from(p.elem.size()?));
                let delta = Lanes::binary(BinOp::Mul, k, &size, n, &mut self.syms);
                Place::Bytes(Lanes::binary(BinOp::Add, &off, &delta, n, &mut self.syms))
            }
        };
        Some(SharedPointer { place, ..p })
    }

    /// A pointer cast: the same element type keeps indices; another one works in bytes.
    fn retype(&mut self, p: SharedPointer, elem: Type) -> Option<SharedPointer> {
        if p.elem == elem {
            return Some(p);
        }
        let n = self.n;
        let offset = match p.place {
            Place::Bytes(off) => off,
            Place::Tuple(t) => {
                let strides = self.arrays[p.array].layout.as_ref()?.strides()?;
                let mut off = Lanes::int(0);
                for (i, s) in t.iter().zip(strides) {
                    let term = Lanes::binary(BinOp::Mul, i, &Lanes::int(s), n, &mut self.syms);
                    off = Lanes::binary(BinOp::Add, &off, &term, n, &mut self.syms);
                }
                off
            }
        };
        Some(SharedPointer {
            array: p.array,
            elem,
            place: Place::Bytes(offset),
        })
    }

    /// The pointee type of a pointer cast `(float4 *)`, or `None` for a value cast.
    fn cast_pointee(&self, t: &TypeName) -> Option<Type> {
        let declarator = t.declarator.as_ref()?;
        if !declarator
            .node
            .derived
            .iter()
            .any(|d| matches!(d.node, DerivedDeclarator::Pointer(_)))
        {
            return None;
        }
        Some(crate::analysis::extraction::type_from_qualifiers(
            &self.types,
            &t.specifiers,
        ))
    }

    /// The byte view of an array, for accesses through pointers of another element type.
    fn byte_view(&mut self, array: usize) -> usize {
        if let Some(v) = self
            .arrays
            .iter()
            .position(|a| a.byte_view_of == Some(array))
        {
            return v;
        }
        let mut decl = self.arrays[array].decl.clone();
        decl.elem = Type::scalar("char", 1, false);
        decl.dims = vec![None];
        decl.dim_spans = vec![None];
        self.arrays.push(ArrayEntry {
            byte_view_of: Some(array),
            decl,
            layout: Some(ArrayLayout {
                elem_size: 1,
                dims: vec![None],
                pad: 0,
            }),
            layout_problem: None,
        });
        self.arrays.len() - 1
    }

    fn index_text(&self, s: Span) -> String {
        format!("`{}`", self.source_text(s))
    }
}

/// A type written as text in a template argument: `float`, `unsigned int`, `float4`.
pub fn type_from_text(types: &crate::analysis::types::TypeTable, text: &str) -> Option<Type> {
    if let Some(name) = crate::front::names::dependent_type_name(text) {
        return types.lookup(&name);
    }
    let words: Vec<&str> = text.split_whitespace().filter(|w| *w != "const").collect();
    if let [one] = words.as_slice()
        && let Some(t) = types.lookup(one)
    {
        return Some(t);
    }
    crate::analysis::types::scalar_from_words(&words)
}

/// A resolved `s[i][j].f`: the array, its index expressions, and the member names.
type SharedRef<'e> = (usize, Vec<&'e Node<Expression>>, Vec<String>);

fn base_name(e: &Node<Expression>) -> Option<String> {
    match &e.node {
        Expression::Identifier(id) => Some(id.node.name.clone()),
        Expression::BinaryOperator(b) => base_name(&b.node.lhs),
        Expression::Member(m) => base_name(&m.node.expression),
        _ => None,
    }
}

fn compress(values: Vec<Value>) -> Lanes {
    match values.first() {
        Some(first @ Value::Affine(_)) if values.iter().all(|v| v == first) => {
            Lanes::Same(first.clone())
        }
        _ => Lanes::Each(Rc::new(values)),
    }
}

fn lanes_equal(a: &Lanes, b: &Lanes, n: usize) -> bool {
    (0..n).all(|t| a.get(t) == b.get(t))
}

/// Adds the sites of a finished loop into the enclosing table.
fn merge_sites(into: &mut HashMap<SiteKey, Site>, from: HashMap<SiteKey, Site>) {
    for (key, site) in from {
        match into.get_mut(&key) {
            None => {
                into.insert(key, site);
            }
            Some(existing) => {
                for (p, s) in site.patterns {
                    existing
                        .patterns
                        .entry(p)
                        .and_modify(|e| e.count += s.count)
                        .or_insert(s);
                }
                existing.trips_unknown |= site.trips_unknown;
                existing.assumptions.extend(site.assumptions);
                if existing.unknown.is_none() {
                    existing.unknown = site.unknown;
                }
            }
        }
    }
}

/// For an assignment operator, the operator it applies (`None` for plain `=`).
fn assignment_op(op: &BinaryOperator) -> Option<Option<BinOp>> {
    Some(match op {
        BinaryOperator::Assign => None,
        BinaryOperator::AssignMultiply => Some(BinOp::Mul),
        BinaryOperator::AssignDivide => Some(BinOp::Div),
        BinaryOperator::AssignModulo => Some(BinOp::Rem),
        BinaryOperator::AssignPlus => Some(BinOp::Add),
        BinaryOperator::AssignMinus => Some(BinOp::Sub),
        BinaryOperator::AssignShiftLeft => Some(BinOp::Shl),
        BinaryOperator::AssignShiftRight => Some(BinOp::Shr),
        BinaryOperator::AssignBitwiseAnd => Some(BinOp::And),
        BinaryOperator::AssignBitwiseXor => Some(BinOp::Xor),
        BinaryOperator::AssignBitwiseOr => Some(BinOp::Or),
        _ => return None,
    })
}

/// Variables an expression assigns to.
fn assigned_in_expr(e: &Node<Expression>) -> Vec<String> {
    let mut out = Vec::new();
    collect_assigned_expr(e, &mut out);
    out
}

fn assigned_in_stmt(s: &Node<Statement>) -> Vec<String> {
    let mut out = Vec::new();
    collect_assigned_stmt(s, &mut out);
    out
}

fn collect_assigned_expr(e: &Node<Expression>, out: &mut Vec<String>) {
    match &e.node {
        Expression::BinaryOperator(b) => {
            let assigns = !matches!(
                b.node.operator.node,
                BinaryOperator::Index
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide
                    | BinaryOperator::Modulo
                    | BinaryOperator::Plus
                    | BinaryOperator::Minus
                    | BinaryOperator::ShiftLeft
                    | BinaryOperator::ShiftRight
                    | BinaryOperator::Less
                    | BinaryOperator::Greater
                    | BinaryOperator::LessOrEqual
                    | BinaryOperator::GreaterOrEqual
                    | BinaryOperator::Equals
                    | BinaryOperator::NotEquals
                    | BinaryOperator::BitwiseAnd
                    | BinaryOperator::BitwiseXor
                    | BinaryOperator::BitwiseOr
                    | BinaryOperator::LogicalAnd
                    | BinaryOperator::LogicalOr
            );
            if assigns && let Expression::Identifier(id) = &b.node.lhs.node {
                out.push(id.node.name.clone());
            }
            collect_assigned_expr(&b.node.lhs, out);
            collect_assigned_expr(&b.node.rhs, out);
        }
        Expression::UnaryOperator(u) => {
            if matches!(
                u.node.operator.node,
                UnaryOperator::PreIncrement
                    | UnaryOperator::PostIncrement
                    | UnaryOperator::PreDecrement
                    | UnaryOperator::PostDecrement
            ) && let Expression::Identifier(id) = &u.node.operand.node
            {
                out.push(id.node.name.clone());
            }
            collect_assigned_expr(&u.node.operand, out);
        }
        Expression::Call(c) => c
            .node
            .arguments
            .iter()
            .for_each(|a| collect_assigned_expr(a, out)),
        Expression::Comma(list) => list.iter().for_each(|a| collect_assigned_expr(a, out)),
        Expression::Conditional(c) => {
            collect_assigned_expr(&c.node.condition, out);
            collect_assigned_expr(&c.node.then_expression, out);
            collect_assigned_expr(&c.node.else_expression, out);
        }
        Expression::Cast(c) => collect_assigned_expr(&c.node.expression, out),
        Expression::Member(m) => collect_assigned_expr(&m.node.expression, out),
        _ => {}
    }
}

fn collect_assigned_stmt(s: &Node<Statement>, out: &mut Vec<String>) {
    match &s.node {
        Statement::Compound(items) => {
            for i in items {
                match &i.node {
                    BlockItem::Statement(st) => collect_assigned_stmt(st, out),
                    BlockItem::Declaration(d) => {
                        for init in &d.node.declarators {
                            if let Some(Node {
                                node: Initializer::Expression(e),
                                ..
                            }) = &init.node.initializer
                            {
                                collect_assigned_expr(e, out);
                            }
                        }
                    }
                    BlockItem::StaticAssert(_) => {}
                }
            }
        }
        Statement::Expression(Some(e)) => collect_assigned_expr(e, out),
        Statement::If(i) => {
            collect_assigned_expr(&i.node.condition, out);
            collect_assigned_stmt(&i.node.then_statement, out);
            if let Some(e) = &i.node.else_statement {
                collect_assigned_stmt(e, out);
            }
        }
        Statement::While(w) => {
            collect_assigned_expr(&w.node.expression, out);
            collect_assigned_stmt(&w.node.statement, out);
        }
        Statement::DoWhile(w) => {
            collect_assigned_expr(&w.node.expression, out);
            collect_assigned_stmt(&w.node.statement, out);
        }
        Statement::For(f) => {
            if let ForInitializer::Expression(e) = &f.node.initializer.node {
                collect_assigned_expr(e, out);
            }
            if let Some(c) = &f.node.condition {
                collect_assigned_expr(c, out);
            }
            if let Some(st) = &f.node.step {
                collect_assigned_expr(st, out);
            }
            collect_assigned_stmt(&f.node.statement, out);
        }
        Statement::Switch(sw) => collect_assigned_stmt(&sw.node.statement, out),
        Statement::Labeled(l) => collect_assigned_stmt(&l.node.statement, out),
        Statement::Return(Some(e)) => collect_assigned_expr(e, out),
        _ => {}
    }
}

/// The increment `e` if `name` changes only by one `name += e` / `name++` (in the step, or
/// at the top level of the body), with `e` not changed by the loop.
fn single_increment<'e>(
    name: &str,
    body: &'e Node<Statement>,
    step: Option<&'e Node<Expression>>,
) -> Option<&'e Node<Expression>> {
    let in_body = assigned_in_stmt(body).iter().filter(|n| *n == name).count();
    let in_step = step.map_or(0, |s| {
        assigned_in_expr(s).iter().filter(|n| *n == name).count()
    });
    if in_body + in_step != 1 {
        return None;
    }
    let candidates: Vec<&Node<Expression>> = match (&body.node, step) {
        (_, Some(s)) if in_step == 1 => vec![s],
        (Statement::Compound(items), _) => items
            .iter()
            .filter_map(|i| match &i.node {
                BlockItem::Statement(Node {
                    node: Statement::Expression(Some(e)),
                    ..
                }) => Some(&**e),
                _ => None,
            })
            .collect(),
        (Statement::Expression(Some(e)), _) => vec![&**e],
        _ => return None,
    };
    let changed_in_loop = {
        let mut all = assigned_in_stmt(body);
        if let Some(s) = step {
            all.extend(assigned_in_expr(s));
        }
        all
    };
    for c in candidates {
        let found = match &c.node {
            Expression::BinaryOperator(b) if matches!(&b.node.lhs.node, Expression::Identifier(id) if id.node.name == name) => {
                match b.node.operator.node {
                    BinaryOperator::AssignPlus => Some(IncrementOf::Plus(&b.node.rhs)),
                    BinaryOperator::AssignMinus => Some(IncrementOf::Minus),
                    _ => None,
                }
            }
            Expression::UnaryOperator(u) if matches!(&u.node.operand.node, Expression::Identifier(id) if id.node.name == name) => {
                match u.node.operator.node {
                    UnaryOperator::PreIncrement | UnaryOperator::PostIncrement => {
                        Some(IncrementOf::One)
                    }
                    UnaryOperator::PreDecrement | UnaryOperator::PostDecrement => {
                        Some(IncrementOf::MinusOne)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match found {
            Some(IncrementOf::Plus(e)) => {
                let reads_changed = identifiers_in(e)
                    .iter()
                    .any(|i| changed_in_loop.contains(i));
                return (!reads_changed).then_some(e);
            }
            Some(IncrementOf::One) => return Some(&ONE_EXPR),
            Some(IncrementOf::Minus) | Some(IncrementOf::MinusOne) => return None,
            None => {}
        }
    }
    None
}

enum IncrementOf<'e> {
    Plus(&'e Node<Expression>),
    Minus,
    One,
    MinusOne,
}

static ONE_EXPR: std::sync::LazyLock<Node<Expression>> = std::sync::LazyLock::new(|| {
    Node::new(
        Expression::Constant(Box::new(Node::new(
            Constant::Integer(Integer {
                base: IntegerBase::Decimal,
                number: "1".into(),
                suffix: IntegerSuffix {
                    size: IntegerSize::Int,
                    unsigned: false,
                    imaginary: false,
                },
            }),
            Span::none(),
        ))),
        Span::none(),
    )
});

fn identifiers_in(e: &Node<Expression>) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(e: &Node<Expression>, out: &mut Vec<String>) {
        match &e.node {
            Expression::Identifier(id) => out.push(id.node.name.clone()),
            Expression::BinaryOperator(b) => {
                walk(&b.node.lhs, out);
                walk(&b.node.rhs, out);
            }
            Expression::UnaryOperator(u) => walk(&u.node.operand, out),
            Expression::Cast(c) => walk(&c.node.expression, out),
            Expression::Call(c) => c.node.arguments.iter().for_each(|a| walk(a, out)),
            Expression::Member(m) => walk(&m.node.expression, out),
            Expression::Conditional(c) => {
                walk(&c.node.condition, out);
                walk(&c.node.then_expression, out);
                walk(&c.node.else_expression, out);
            }
            _ => {}
        }
    }
    walk(e, &mut out);
    out
}
