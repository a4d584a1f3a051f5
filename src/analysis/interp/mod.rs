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
use crate::analysis::lanes::Lanes;
pub use crate::analysis::shape::{BlockShape, Decision, ShapeSource};
use crate::analysis::types::Type;
use crate::analysis::value::{Affine, BinOp, Symbols, Value};
use crate::bank::arch::Target;
use crate::bank::engine::{Op, WARP_SIZE};
use crate::bank::layout::{ArrayLayout, Pattern, shift_matters};
use crate::front::cuda::WrapperArray;
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::rc::Rc;

mod atomics;
mod branches;
mod call_arguments;
mod call_limits;
mod call_results;
mod calls;
mod cuda_ptx_calls;
mod cute_accesses;
mod cute_layouts;
mod cute_values;
mod entry;
mod escapes;
mod overloads;
mod packs;
mod range_for;
pub use escapes::pointer_into;
mod expressions;
mod inert;
mod reach;
pub use reach::SharedReach;
mod inline_ptx;
mod instances;
mod loops;
mod member_types;
mod objects;
mod pointer_declarations;
mod pointers;
mod recording;
mod references;
pub mod shifts;
mod statements;
mod text_expressions;
mod type_traits;
mod value_objects;
use text_expressions::eval_constant;
pub use text_expressions::{const_eval_text, parse_expression_text};
pub mod tma;
mod wmma;

/// `base.a.b` read through `.` only: `base` and the member names, outermost first.
pub(super) fn direct_members(e: &Node<Expression>) -> Option<(&Node<Expression>, Vec<String>)> {
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
    /// The array's declaration: a helper's access reached with two arrays is two sites.
    pub decl: usize,
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
    pub patterns: HashMap<Pattern, PatternStats, rustc_hash::FxBuildHasher>,
    pub unknown: Option<String>,
    /// Some enclosing loop's trip count is unknown: no per-block totals.
    pub trips_unknown: bool,
    pub assumptions: BTreeSet<String>,
    /// For an access in a header's device function, reported at the call: where it is written
    /// (`` `load_row` at strided_access.cuh:12 ``).
    pub origin: Option<String>,
    /// Why no lane reached the access in some execution of this run (the `return` every
    /// thread took, the condition no thread passes), for when no execution reaches it.
    pub unreached: Option<String>,
    /// How to make the access conflict-free where the operation says (a WMMA fragment's
    /// leading dimension), as a `help:` line.
    pub hint: Option<String>,
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
    /// Why padding the array could change what the code means, found while running it: a
    /// pointer that leaves the row it was taken in, or a parameter type that spells the row
    /// length. A padding fix is then only a suggestion.
    pub padding_blocked: Option<&'static str>,
}

/// The array an access to `arrays[a]` reaches: the viewed one for a byte view (an access
/// through a cast or a PTX address), else `a` itself.
pub fn viewed_array(arrays: &[ArrayEntry], a: usize) -> usize {
    arrays.get(a).and_then(|e| e.byte_view_of).unwrap_or(a)
}

/// The arrays seen while analyzing a file, indexed so that finding one is not a scan: by
/// declaration (one entry per layout: template instantiations may differ) and byte views by
/// the array they view.
#[derive(Default)]
pub struct ArrayTable {
    entries: Vec<ArrayEntry>,
    by_decl: HashMap<(Range<usize>, String), Vec<usize>>,
    views: HashMap<usize, usize>,
    /// A header function's own array (by its file, line and name) to the call it was first
    /// met at: the place it is reported at, whichever call runs it (it is one array).
    first_calls: HashMap<(String, usize, String), Range<usize>>,
}

impl std::ops::Index<usize> for ArrayTable {
    type Output = ArrayEntry;
    fn index(&self, i: usize) -> &ArrayEntry {
        &self.entries[i]
    }
}

impl std::ops::IndexMut<usize> for ArrayTable {
    fn index_mut(&mut self, i: usize) -> &mut ArrayEntry {
        &mut self.entries[i]
    }
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
    /// Calls not followed (recursion, depth, the inlining budget) whose callee could reach
    /// shared memory: where, and why. Shared-memory accesses in them are not analyzed.
    pub not_followed: Vec<(Range<usize>, String)>,
    /// Shifts whose count reaches the operand's width in some thread.
    pub shift_overflows: Vec<shifts::ShiftOverflow>,
    /// TMA tile copies to or from shared memory: they lay out the tiles other accesses read.
    pub tma_copies: Vec<tma::TmaCopy>,
}

/// Functions reached by inlining from kernels (not analyzed again on their own).
pub struct FileRuns {
    pub runs: Vec<ShapeRun>,
    pub arrays: Vec<ArrayEntry>,
}

use crate::limits::{
    ASSUMED_TRIPS, MAX_CALL_DEPTH, MAX_DECISIONS, MAX_INLINED_CALLS, MAX_TRIPS, WORK_BUDGET,
};

/// One block's variables. A loop or branch snapshot shares them with the running state until
/// one side writes, so taking it copies pointers, not maps.
type Scope = Rc<HashMap<String, Binding, rustc_hash::FxBuildHasher>>;

#[derive(Clone)]
enum Binding {
    Value(Lanes),
    Shared(usize),
    /// A pointer into a `__shared__` array.
    Pointer(SharedPointer),
    /// A pointer to rows of a shared array, `float (*t)[33] = (float (*)[33])smem;`: `t[i]`
    /// is the row `i` rows of `row_bytes` on from `first`, a pointer to its first element.
    Rows {
        first: SharedPointer,
        row_bytes: u32,
    },
    /// An object of a class that keeps pointers, built by a constructor banklint ran: its
    /// fields, for its methods (see `objects`).
    Object(objects::Object),
    /// A local array or struct: reads give data, not indices. A local array's element type
    /// and extent, where known, tell overloads apart (see `overloads`).
    Opaque(Option<Rc<overloads::LocalArray>>),
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
    /// A CuTe object: a layout, a tiled copy, a tensor (see `cute_values`).
    Cute(cute_values::Cute),
}

/// A device function a call reaches: its unit and definition, and for a header's (or the
/// includer's) the name its accesses are reported under (empty for the includer).
struct Callee<'a, 'p> {
    unit: &'a Unit<'p>,
    function: &'a Function,
    header: Option<String>,
    /// The template arguments of the class a static method is called through when an alias
    /// names it (`warp::load` with `using warp = group<1>;`: `1`).
    scope_args: Vec<String>,
    /// The name it was found by (a static method through an alias: its class's joined
    /// name), under which its overloads are looked up.
    lookup: String,
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
    /// Where the pointer was taken from the array's subscripts, in the place's units (the
    /// innermost index for a tuple, the byte offset for bytes). Accesses in the anchor's row
    /// move with a padding; one that leaves it was reached by arithmetic that assumes the
    /// row length.
    anchor: Lanes,
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
    /// A `break` or `return` was reached under a condition unresolved per thread (data):
    /// some threads may leave at this trip, which ones is not known.
    maybe_left: bool,
}

impl LoopCtl {
    fn new(n: usize) -> LoopCtl {
        LoopCtl {
            brk: vec![false; n],
            cont: vec![false; n],
            maybe_left: false,
        }
    }
}

struct Analyzer<'a, 'p> {
    unit: &'a Unit<'p>,
    /// The analyzed file's unit, while `unit` is a header's during one of its functions.
    home_unit: &'a Unit<'p>,
    /// Local headers with device functions (see `check::header_units`), callable by name.
    headers: &'a [(String, Unit<'p>)],
    /// Header functions already looked up by name, arity and current unit: the unit found
    /// (0: `home_unit`, else `headers[i - 1]`) and the function's index, or none.
    #[allow(clippy::type_complexity)]
    header_callees: std::cell::RefCell<HashMap<(String, usize, usize), Option<(usize, usize)>>>,
    /// Inside a function from a header: the call site in the analyzed file where its accesses
    /// are reported, and the header's name.
    home_call: Option<(Range<usize>, String)>,
    target: Target,
    syms: Symbols,
    n: usize,
    thread_idx: [Lanes; 3],
    block_dim: [Lanes; 3],
    uniform_syms: HashMap<String, Value>,
    scopes: Vec<Scope>,
    exited: Vec<bool>,
    /// The unit and offset of the last `return` some thread took: when every thread has
    /// returned, what an access after it is told (`line 51`, `k.cuh:12`).
    last_exit: Option<(&'a Unit<'p>, usize)>,
    /// The conditions that switched off every lane still running, innermost last.
    switched_off: Vec<String>,
    loops: Vec<LoopCtl>,
    returns: Vec<Option<Lanes>>,
    labels: Vec<loops::TripLabel>,
    /// Inline PTX templates read so far: their shared-memory instructions.
    /// Each `asm` statement's template read, by the unit and the statement's offset: a loop
    /// runs the statement trip after trip.
    ptx_read: HashMap<(usize, usize), PtxRead>,
    /// The `fragment<...>` declaration each WMMA call's fragment names, by unit and call.
    wmma_declarations: HashMap<(usize, usize), Option<String>>,
    symbolic_loops: usize,
    /// Locals each local object was built from (`args a{n}`, `args a(n, m)`) where the
    /// object's class can hold references: a call banklint does not follow, given the object,
    /// may write them (see `escapes::forget_written_by`).
    object_sources: HashMap<String, Vec<String>>,
    /// The symbols standing for template value parameters nothing gives a value, with what
    /// would give one: where a constant is needed (an array's extent), that is the reason.
    unvalued_template_params: HashMap<crate::analysis::value::Sym, String>,
    /// Returns, breaks and continues taken on one side only of a branch on a warp-uniform
    /// unknown, so far: a loop whose trip sees one may end at any trip.
    maybe_exits: u64,
    /// Depth of branches taken under an unresolved condition: exits there are not trusted.
    uncertain: usize,
    assumptions: Vec<String>,
    /// Uniform symbols standing for the results of functions banklint has not read, by the
    /// function's name: an access whose address holds one says what was assumed.
    unread_results: HashMap<crate::analysis::value::Sym, String>,
    item: usize,
    span_override: Option<Range<usize>>,
    /// The expression of the expression statement being run: a call there has its result
    /// discarded (which decides what `atomicAdd(p, 1)` compiles to).
    discarded: Option<Span>,
    function: String,
    sites: HashMap<SiteKey, Site>,
    arrays: &'a mut ArrayTable,
    budget: u64,
    call_depth: usize,
    reached_functions: &'a mut BTreeSet<String>,
    constant_cache: HashMap<String, Option<i64>>,
    template_values: Rc<HashMap<String, Lanes>>,
    /// Evaluating host code before this offset: unknown names are looked up in its text.
    sequence: u64,
    /// The file's types plus this instantiation's template type arguments.
    types: Rc<crate::analysis::types::TypeTable>,
    template_args: Vec<(String, String)>,
    /// Type parameters bound by assumption (see `BlockShape::assumed_types`).
    assumed_types: Vec<(String, String)>,
    /// Template type parameters bound so far, as written (`T` -> `float`), for dependent
    /// member types (`typename vec4<T>::Type`).
    type_args: Rc<HashMap<String, String>>,
    /// Kernel arguments known at the launch being analyzed.
    arguments: Vec<(String, i64)>,
    /// Arrays declared in the analyzed code or accessed by it (for shared-memory totals).
    footprint: BTreeSet<usize>,
    /// Functions being inlined, outermost first, by definition.
    call_stack: Vec<String>,
    /// The same calls by instantiation (see `instance_key`): a call that repeats one of them
    /// is recursion; one of a template with other arguments is the compiler's unrolling.
    instances: Vec<String>,
    /// Calls inlined so far in this run (bounded by `MAX_INLINED_CALLS`).
    inlined_calls: usize,
    /// Class template instances laid out so far, by template and arguments as read, with
    /// the arguments evaluated (see `instances`).
    class_instances:
        HashMap<(String, Vec<String>), (Vec<crate::analysis::class_templates::Argument>, Type)>,
    /// Class template instances being laid out inside one another (see `instances`).
    instance_depth: usize,
    /// See `ShapeRun::not_followed`.
    not_followed: Vec<(Range<usize>, String)>,
    /// The shared-memory pointer each function being inlined returns, innermost last
    /// (`float *smem() { extern __shared__ float s[]; return s + k; }`): none yet, the
    /// pointer, or why it cannot be followed.
    returned_pointers: Vec<Option<Result<SharedPointer, String>>>,
    /// The object each function being inlined returns by value, innermost last (see
    /// `value_objects`).
    returned_objects: Vec<Option<objects::Object>>,
    /// What the last call returned as an object, with the call's number.
    last_returned_object: Option<(usize, objects::Object)>,
    /// Calls started so far (each is numbered), and the numbers of those running.
    calls_started: usize,
    call_serials: Vec<usize>,
    /// Whether a call of a name with an arity, from a unit, reaches an accessor of shared
    /// memory (see `call_returns_shared`), looked up once.
    accessors: std::cell::RefCell<HashMap<(String, usize, usize), call_results::Returns>>,
    /// The overloads a call of a name with an arity may name, from a unit (see
    /// `overload_set`), by slot (this unit, the home file, each header) and index.
    overload_sets: std::cell::RefCell<overloads::OverloadSets>,
    /// Whether a scope's name is a class's (see `is_class_name`).
    class_scopes: std::cell::RefCell<HashMap<String, bool>>,
    /// Whether a name is one a file or header declares as a type, by name (`ROW` of
    /// `dim::ROW` is a value however tree-sitter took it).
    declared_types: std::cell::RefCell<HashMap<String, bool>>,
    /// What the last inlined call returned as a shared-memory pointer.
    last_returned_pointer: Option<Result<SharedPointer, String>>,
    /// Whether the last inlined call returns a reference (`T &f()`): what it returned is
    /// an element to bind, not a pointer.
    last_call_returned_reference: bool,
    /// The class template arguments the next inlined call gets from an alias (see `Callee`).
    scope_args: Vec<String>,
    /// Members of classes named with their arguments (`Traits<256, float>::THREADS`), by the
    /// unit asking, the class and the member: resolving one reads every class of the file
    /// and its headers, and a library's functions ask the same ones at every call.
    class_members: HashMap<(usize, String, String), Option<crate::front::class_members::Member>>,
    /// The classes code run in a unit sees (see `classes`), built once per unit: building
    /// one reads every class of the file and its headers.
    classes_by_unit:
        std::cell::RefCell<HashMap<usize, Rc<crate::front::class_members::Classes<'p>>>>,
    /// The file-scope aliases code run in a unit sees (see `alias_of`), built once per unit:
    /// a tile library asks for them at every declaration, across a hundred headers.
    aliases_by_unit: std::cell::RefCell<HashMap<usize, Rc<rustc_hash::FxHashMap<String, String>>>>,
    /// The aggregate arguments (`{row, col}`) of the call about to be inlined, element by
    /// element, by argument index.
    pending_aggregates: Vec<(usize, Vec<Lanes>)>,
    /// Type texts with alias templates expanded (see `without_alias_templates`), by unit.
    alias_expansions: std::cell::RefCell<HashMap<(usize, String), String>>,
    /// Whether a type satisfies a concept (see `overloads`), by the unit asking and the
    /// concept, namespace and type: asked while the candidates are borrowed, so in a cell.
    concepts_seen: std::cell::RefCell<HashMap<(usize, String), Option<bool>>>,
    /// For the next inlined call, a static method of a class template specialization: how
    /// many leading template arguments are the class's, and the specialization's own
    /// parameters' values that replace them (see `overloads`).
    specialization_args: Option<overloads::SpecializationArgs>,
    /// The object the next inlined call is a method of (see `objects`), and once it has
    /// returned, its fields as the method left them.
    method_of: Option<objects::Receiver>,
    /// Whether each function being inlined returns a reference, innermost last.
    returns_reference: Vec<bool>,
    /// The class of each method being run (its static members are read by bare name).
    method_classes: Vec<String>,
    /// Set while `T &x = f(...)` runs `f` (at this call depth): the reference `f` returns
    /// is bound, not read.
    binding_reference: Option<usize>,
    method_done: Option<Scope>,
    /// See `ShapeRun::shift_overflows`.
    shift_overflows: Vec<shifts::ShiftOverflow>,
    /// See `ShapeRun::tma_copies`.
    tma_copies: Vec<tma::TmaCopy>,
    /// Tensor maps the launch passes (see `BlockShape::tensor_maps`).
    tensor_maps: crate::analysis::shape::TensorMapArguments,
    /// Integer variables of the function being run by their declared width in bits (32 or
    /// 64): the width their shifts clamp at. A name not here has no width banklint knows.
    int_widths: HashMap<String, u32>,
    /// The sides taken at branches on uniform unknowns (`BlockShape::path`).
    path: Vec<Decision>,
    /// Branches on uniform unknowns whose sides assign differently, met in a run without a
    /// path (at most `MAX_DECISIONS`): the analysis is run again once per side.
    decision_points: Vec<Decision>,
}

/// Runs every kernel under each of its block shapes, and every device function no kernel
/// reaches on its own.
pub fn analyze<'p>(
    unit: &Unit<'p>,
    headers: &[(String, Unit<'p>)],
    options: &AnalysisOptions,
    shapes_for: &dyn Fn(&Function) -> Vec<BlockShape>,
) -> FileRuns {
    let reach = SharedReach::of(unit, headers);
    // A numerical kernel without shared memory would otherwise be run thread by thread for
    // nothing.
    if reach.is_empty() {
        return FileRuns {
            runs: Vec::new(),
            arrays: Vec::new(),
        };
    }
    let mut arrays = ArrayTable::default();
    let mut runs = Vec::new();
    let mut reached = BTreeSet::new();
    // Shared by every run of the file: many kernels, each in many configurations, still
    // cost a bounded amount.
    let mut file_budget = crate::limits::FILE_WORK_BUDGET;
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
        // A device function no kernel reaches is analyzed on its own only if it can reach
        // shared memory by itself: its pointer parameters are unknown there, so nothing else
        // could be seen.
        if !f.kernel && !reach.reaches(&f.name) {
            continue;
        }
        let shapes = inert::distinct_for_shared_memory(
            shapes_for(f),
            &inert::inert_type_params(unit, f, &reach),
        );
        let run_budget = run_budget(shapes.len());
        for shape in shapes {
            let mut a = Analyzer::new(unit, options.target, &shape, &mut arrays, &mut reached);
            a.headers = headers;
            a.budget = within_file_budget(run_budget, file_budget);
            let granted = a.budget;
            a.run_function(f);
            file_budget = file_budget.saturating_sub(granted - a.budget);
            let points = std::mem::take(&mut a.decision_points);
            let first = ShapeRun {
                function: f.name.clone(),
                kernel: f.kernel,
                shape: shape.clone(),
                sites: a.sites,
                footprint: a.footprint,
                not_followed: a.not_followed,
                shift_overflows: a.shift_overflows,
                tma_copies: a.tma_copies,
            };
            // Paths multiply the runs: past `MAX_RUNS_PER_FILE` in the file, a function keeps
            // its branches joined in one run.
            let paths: usize = points.iter().map(|p| p.choices as usize).product();
            if points.is_empty() || runs.len() + paths > crate::limits::MAX_RUNS_PER_FILE {
                runs.push(first);
                continue;
            }
            // Branches on uniform unknowns that assign differently, and loops after which
            // values cycle: one run per path, so that what follows them sees each side's
            // values (the worst is reported).
            for number in 0..paths {
                let mut rest = number;
                let path: Vec<Decision> = points
                    .iter()
                    .map(|p| {
                        let choice = (rest % p.choices as usize) as u32;
                        rest /= p.choices as usize;
                        Decision {
                            choice,
                            ..p.clone()
                        }
                    })
                    .collect();
                let shape = BlockShape {
                    path,
                    ..shape.clone()
                };
                let mut a = Analyzer::new(unit, options.target, &shape, &mut arrays, &mut reached);
                a.headers = headers;
                a.budget = within_file_budget(run_budget, file_budget);
                let granted = a.budget;
                a.run_function(f);
                file_budget = file_budget.saturating_sub(granted - a.budget);
                runs.push(ShapeRun {
                    function: f.name.clone(),
                    kernel: f.kernel,
                    shape,
                    sites: a.sites,
                    footprint: a.footprint,
                    not_followed: a.not_followed,
                    shift_overflows: a.shift_overflows,
                    tma_copies: a.tma_copies,
                });
            }
        }
    }
    FileRuns {
        runs,
        arrays: arrays.entries,
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
        arrays: &'a mut ArrayTable,
        reached: &'a mut BTreeSet<String>,
    ) -> Analyzer<'a, 'p> {
        let mut syms = Symbols::default();
        let (n, thread_idx, block_dim) = match shape.dims {
            Some([x, y, z]) => {
                let (x, y, z) = (x as usize, y as usize, z as usize);
                let n = (x * y * z).max(1);
                let each =
                    |f: &dyn Fn(usize) -> usize| Lanes::ints((0..n).map(|t| f(t) as i64).collect());
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
                let tx = Lanes::spread(
                    Affine {
                        constant: 0,
                        terms: vec![(w, 32)],
                    },
                    (0..WARP_SIZE as i64).collect(),
                );
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
            header_callees: Default::default(),
            home_call: None,
            target,
            syms,
            n,
            thread_idx,
            block_dim,
            uniform_syms: HashMap::new(),
            scopes: vec![Scope::default()],
            exited: vec![false; n],
            last_exit: None,
            switched_off: Vec::new(),
            loops: Vec::new(),
            returns: Vec::new(),
            labels: Vec::new(),
            ptx_read: HashMap::new(),
            wmma_declarations: HashMap::new(),
            symbolic_loops: 0,
            object_sources: HashMap::new(),
            unvalued_template_params: HashMap::new(),
            maybe_exits: 0,
            uncertain: 0,
            assumptions: Vec::new(),
            unread_results: HashMap::new(),
            item: 0,
            span_override: None,
            discarded: None,
            function: String::new(),
            sites: HashMap::new(),
            arrays,
            budget: WORK_BUDGET,
            call_depth: 0,
            reached_functions: reached,
            constant_cache: HashMap::new(),
            template_values: Rc::default(),
            sequence: 0,
            types: Rc::new(unit.types.clone()),
            template_args: shape.template_args.clone(),
            assumed_types: shape.assumed_types.clone(),
            // Launch values first: an annotation only fills what the launch leaves open.
            arguments: shape
                .arguments
                .iter()
                .chain(&shape.assumed)
                .cloned()
                .collect(),
            // A type argument banklint cannot lay out (`config<256, 4>`) still names its
            // class: `C::DEPTH` reads the class's static member (see `static_member`).
            type_args: Rc::new(shape.unknown_type_args.iter().cloned().collect()),
            footprint: BTreeSet::new(),
            call_stack: Vec::new(),
            instances: Vec::new(),
            inlined_calls: 0,
            class_instances: HashMap::new(),
            instance_depth: 0,
            not_followed: Vec::new(),
            shift_overflows: Vec::new(),
            tma_copies: Vec::new(),
            tensor_maps: shape.tensor_maps.clone(),
            int_widths: Default::default(),
            returned_pointers: Vec::new(),
            returned_objects: Vec::new(),
            last_returned_object: None,
            calls_started: 0,
            call_serials: Vec::new(),
            accessors: Default::default(),
            overload_sets: Default::default(),
            class_scopes: Default::default(),
            declared_types: Default::default(),
            last_returned_pointer: None,
            last_call_returned_reference: false,
            scope_args: Vec::new(),
            specialization_args: None,
            class_members: HashMap::default(),
            concepts_seen: Default::default(),
            classes_by_unit: Default::default(),
            aliases_by_unit: Default::default(),
            alias_expansions: Default::default(),
            pending_aggregates: Vec::new(),
            method_of: None,
            returns_reference: Vec::new(),
            method_classes: Vec::new(),
            binding_reference: None,
            method_done: None,
            path: shape.path.clone(),
            decision_points: Vec::new(),
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
            Rc::make_mut(scope).insert(name.to_string(), b);
        }
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn set_var(&mut self, name: &str, value: &Lanes, mask: &[bool]) {
        let holds_value = |b: &Binding| matches!(b, Binding::Value(_));
        if let Some(Binding::Value(old)) = self.binding_mut(name, holds_value) {
            *old = old.merge(value, mask);
        }
    }

    /// The innermost binding of `name` that `wanted` accepts, for writing (its scope is
    /// copied first if a snapshot shares it).
    fn binding_mut(
        &mut self,
        name: &str,
        wanted: impl Fn(&Binding) -> bool,
    ) -> Option<&mut Binding> {
        let scope = self
            .scopes
            .iter_mut()
            .rev()
            .find(|s| s.get(name).is_some_and(&wanted))?;
        Rc::make_mut(scope).get_mut(name)
    }

    /// The preparations whose declarations (classes, aliases, static members) code run here
    /// sees: the running function's file, the analyzed file (where a header's function runs
    /// with the caller's classes as arguments), and the local headers.
    fn preparations(&self) -> impl Iterator<Item = &'p crate::front::cuda::Prepared> + '_ {
        let home = (!std::ptr::eq(self.unit, self.home_unit)).then_some(self.home_unit.prepared);
        std::iter::once(self.unit.prepared)
            .chain(home)
            .chain(self.headers.iter().map(|(_, h)| h.prepared))
    }

    /// What the file-scope alias `name` names in the first preparation that writes it.
    fn alias_of(&self, name: &str) -> Option<String> {
        let key = std::ptr::from_ref(self.unit) as usize;
        let found = self.aliases_by_unit.borrow().get(&key).cloned();
        let aliases = found.unwrap_or_else(|| {
            let mut all: rustc_hash::FxHashMap<String, String> = Default::default();
            for p in self.preparations() {
                for (alias, target) in &p.aliases {
                    all.entry(alias.clone()).or_insert_with(|| target.clone());
                }
            }
            let all = Rc::new(all);
            self.aliases_by_unit.borrow_mut().insert(key, all.clone());
            all
        });
        aliases.get(name).cloned()
    }

    /// The classes of the preparations code run here sees, built once per unit.
    fn classes(&self) -> Rc<crate::front::class_members::Classes<'p>> {
        let key = std::ptr::from_ref(self.unit) as usize;
        if let Some(c) = self.classes_by_unit.borrow().get(&key) {
            return c.clone();
        }
        let c = Rc::new(crate::front::class_members::Classes::new(
            self.preparations(),
        ));
        self.classes_by_unit.borrow_mut().insert(key, c.clone());
        c
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
        let exited = &self.exited;
        match self.loops.last() {
            Some(l) => mask
                .iter()
                .zip(exited)
                .zip(l.brk.iter().zip(&l.cont))
                .map(|((m, e), (b, c))| *m && !e && !b && !c)
                .collect(),
            None => and_not(mask, exited),
        }
    }

    fn spend(&mut self, work: u64) -> bool {
        self.budget = self.budget.saturating_sub(work);
        self.budget > 0
    }
}

/// A run's enumeration budget once the file's runs so far have spent theirs: what is left of
/// the file's, but never less than a small share, so that each run still enumerates its
/// first loops.
fn within_file_budget(run_budget: u64, file_left: u64) -> u64 {
    run_budget.min(file_left.max(WORK_BUDGET / crate::limits::MIN_RUN_BUDGET_SHARE / 8))
}

/// The enumeration budget of each of a function's `runs` runs (see `MIN_RUN_BUDGET_SHARE`).
fn run_budget(runs: usize) -> u64 {
    (WORK_BUDGET / runs.max(1) as u64).max(WORK_BUDGET / crate::limits::MIN_RUN_BUDGET_SHARE)
}

/// A type written as text in a template argument: `float`, `unsigned int`, `float4`.
pub fn type_from_text(types: &crate::analysis::types::TypeTable, text: &str) -> Option<Type> {
    if let (elem, extents) = crate::analysis::types::split_array_suffix(text)
        && !extents.is_empty()
    {
        let elem = type_from_text(types, elem).filter(|t| t.size().is_some())?;
        return Some(crate::analysis::types::array_of(elem, &extents));
    }
    if let Some(t) = crate::analysis::types::opaque_element(text) {
        return Some(t);
    }
    if let Some(name) = crate::front::names::dependent_type_name(text) {
        return types.lookup(&name);
    }
    // `typename Acc::ftype` names the type `Acc::ftype` (a template argument written so).
    let words: Vec<&str> = (text.split_whitespace())
        .filter(|w| !matches!(*w, "const" | "typename"))
        .collect();
    if let [one] = words.as_slice() {
        // `lib::index_t` is looked up as the front end spells it, `lib__index_t`.
        let spelled = one.trim_start_matches("::").replace("::", "__");
        if let Some(t) = types.lookup(one).or_else(|| types.lookup(&spelled)) {
            return Some(t);
        }
    }
    crate::analysis::types::scalar_from_words(&words)
}

/// What an inline PTX template holds: its shared-memory instructions, those banklint cannot
/// follow, and the output operand that reads `%laneid`, if one does.
type PtxRead = Rc<(
    Vec<crate::analysis::ptx::PtxAccess>,
    Vec<crate::analysis::ptx::Unresolved>,
    Option<usize>,
)>;

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
                if existing.unreached.is_none() {
                    existing.unreached = site.unreached;
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

static ONE_EXPR: std::sync::LazyLock<Node<Expression>> =
    std::sync::LazyLock::new(|| crate::analysis::field_extents::integer_expr(1, Span::none()));
