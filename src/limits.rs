//! Every bound on banklint's work, in one place. Each keeps one analysis (or one input) from
//! costing unbounded time or memory; reaching one is always reported where it happens (a
//! `skipped-code` region or an `unknown` access with the reason), never silent.

/// Tokens one macro invocation may expand to, rescans included (a doubling chain
/// `#define M1 M2 M2` ... reaches millions within twenty levels).
pub const MAX_EXPANSION_TOKENS: usize = 50_000;

/// Tokens macro expansion may produce in one file, all invocations together.
pub const MAX_FILE_EXPANSION_TOKENS: usize = 2_000_000;

/// Nesting of macro invocations inside macro arguments, expanded one within another.
pub const MAX_MACRO_DEPTH: usize = 64;

/// Deepest bracket nesting given to the parsers; the parser and the analyzer recurse once
/// per level, so deeper code is skipped instead of overflowing the stack.
pub const MAX_NESTING: usize = 256;

/// Statements lang-c may fail on in one item before the item is given up.
pub const MAX_RECOVERIES: usize = 64;

/// Headers read while preprocessing one file, includes of includes counted (include cycles
/// end here too; a header marked `#pragma once` and included again is not read again).
/// A tile library's umbrella header (ThunderKittens' `kittens.cuh`) reaches about 150.
pub const MAX_HEADERS: usize = 256;

/// Stack for each thread that parses or analyzes: the parser and analyzer recurse once per
/// nesting level. Input is capped before parsing (`front::limits_scan`, `MAX_NESTING`); at
/// those caps a debug build needs well under this.
pub const THREAD_STACK: usize = 256 << 20;

/// Headers kept prepared for the rest of a run (see `front::header_cache`), counted as about
/// eight times their text: a library's headers fit; a run over several libraries stops adding
/// once this is reached and prepares the rest per file.
pub const MAX_CACHED_HEADER_BYTES: usize = 1 << 30;

/// Prepared variants kept for one header (included under different definitions).
pub const MAX_CACHED_VARIANTS: usize = 16;

/// Statements of host code read per file to find what each launch sees.
pub const MAX_HOST_STATEMENTS: usize = 200_000;

/// Runs of host function templates per file, one per instantiation a call gives
/// (`launch<64, 2>(q)`; see `front::host_templates`).
pub const MAX_HOST_INSTANCES: usize = 64;

/// Bytes of a template argument as a host template's run writes it, its parameters bound: a
/// call whose argument is longer is not taken (arguments that grow at each run of a template
/// calling its own name).
pub const MAX_TEMPLATE_ARGUMENT_TEXT: usize = 4096;

/// Calls of a header's host templates taken from the files that include it (one file per
/// configuration in a library: `launch_<fp32, 256>(p)`); each runs the template once, within
/// [`MAX_HOST_INSTANCES`].
pub const MAX_INCLUDER_TEMPLATE_CALLS: usize = 256;

/// Bytes of the name of a warp-uniform unknown built from others (`(n | blockDim.x)`), as
/// messages show it: a name built from names would otherwise grow with each loop trip that
/// rebuilds it (`v |= blockDim.x` in a loop), and the names' memory quadratically.
pub const MAX_SYMBOL_NAME: usize = 160;

/// Trips of one loop enumerated one by one.
pub const MAX_TRIPS: u64 = 4096;

/// Trips analyzed of a loop whose bound is warp-uniform but unknown (`size < n`): enough to
/// show how a doubling stride's pattern changes up to 2^16.
pub const ASSUMED_TRIPS: u64 = 16;

/// Thread-statements a kernel may spend on enumerating loops trip by trip before the rest are
/// analyzed symbolically (a 2048-trip loop over 256 threads stays fast).
pub const WORK_BUDGET: u64 = 8_000_000;

/// A function analyzed under many shapes (launches, instantiations, paths) shares
/// [`WORK_BUDGET`] among its runs, each keeping at least this fraction of it: 14
/// instantiations of an attention kernel cost about twice one run, not 14 times.
pub const MIN_RUN_BUDGET_SHARE: u64 = 8;

/// Thread-statements all the runs of one file may spend on enumerating loops: a file of
/// many kernels, each in many configurations, costs a bounded amount; runs past it enumerate
/// a small share each and analyze the rest of their loops symbolically.
pub const FILE_WORK_BUDGET: u64 = 4 * WORK_BUDGET;

/// Configurations of one function analyzed (launch shapes, template arguments, element
/// sizes): with a share of [`WORK_BUDGET`] each of at least 1/[`MIN_RUN_BUDGET_SHARE`],
/// this bounds one function's analysis at 1.5 budgets; further ones are said, not analyzed.
pub const MAX_CONFIGURATIONS: usize = 12;

/// Runs of one file's functions in all (configurations times the paths of branches on
/// uniform unknowns, [`MAX_DECISIONS`]): past this, a run's paths stay joined in it.
pub const MAX_RUNS_PER_FILE: usize = 128;

/// Branches on a warp-uniform unknown that assign variables differently, analyzed side by
/// side (each one doubles the runs of its function; further ones are joined).
pub const MAX_DECISIONS: usize = 3;

/// The longest cycle of values followed through a loop whose trip count is unknown (`stage
/// = (stage + 1) % STAGES`): each of its values is analyzed after the loop, one run each, when
/// the trips analyzed show the cycle repeat; a longer one, or none, is joined as unknown.
pub const MAX_TRIP_PERIOD: usize = 8;

/// Device-function calls inlined one inside another.
pub const MAX_CALL_DEPTH: usize = 8;

/// Device-function calls inlined in all, per function analyzed under one shape: a call tree
/// that fans out (ten calls each calling ten) stays linear in this, not exponential.
pub const MAX_INLINED_CALLS: usize = 20_000;

/// Rounds of substituting a class's static members into one another's values
/// (`MMA_PIPE_DEPTH = OVERLAP ? 2 : 1` reads `OVERLAP`): deeper chains stay unresolved.
pub const MAX_STATIC_MEMBER_NESTING: usize = 8;

/// Class template instances laid out inside one another's arguments (`Pair<Pair<T, int>,
/// int>`): deeper ones, and a type argument that names itself, stay unknown.
pub const MAX_INSTANCE_NESTING: usize = 16;

/// Aliases followed while reading one CuTe type (`using A = decltype(...)` naming another
/// alias): a cycle or a deeper chain is reported as a type banklint does not follow.
pub const MAX_CUTE_ALIAS_DEPTH: usize = 32;

/// Values one thread's CuTe tensor may hold for banklint to enumerate them at a `copy` (a
/// thread's partition of a tile holds tens): a larger one is reported as not analyzed.
pub const MAX_CUTE_VALUES: i64 = 4096;
