//! The runner: checks many files in parallel and prints their results in a deterministic
//! order (path order, then position), streaming each file's output as soon as every file
//! before it is done, so memory holds a few files' results rather than the whole tree.
//! Also: `--fix` per file, the progress line on a terminal, the summary and `--stats`.
//! A panic while analyzing one file is caught and reported as that file's internal error;
//! the other files' results are kept.

use crate::app::args::Format;
use crate::app::autofix;
use crate::app::config::CompileFlags;
use crate::app::emit::stream::{JsonDocument, SarifDocument};
use crate::app::settings::Reporting;
use crate::app::stats::Coverage;
use crate::bank::arch::BankMode;
use crate::check::{CheckOptions, check_source};
use crate::front::source::{LoadError, Reached, SourceFile};
use crate::lint::diagnostics::{self, ReportOptions};
use crate::lint::report::FileReport;
use crate::lint::rules::Finding;
use codespan_reporting::diagnostic::Severity;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::limits::THREAD_STACK as WORKER_STACK;

/// What the command line asks of a run besides the analysis options.
#[derive(Clone, Copy, Debug)]
pub struct RunFlags {
    pub format: Format,
    pub fix: bool,
    pub dry_run: bool,
    pub stats: bool,
    /// `--fix -`: standard output holds the fixed source alone.
    pub fix_stdin: bool,
}

/// What one file is checked with: the analysis options and what is reported, from the
/// configuration nearest to it.
#[derive(Clone)]
pub struct FileSettings {
    pub options: CheckOptions,
    pub reporting: Reporting,
}

/// Everything a worker needs, shared read-only.
pub struct Run {
    pub flags: RunFlags,
    /// One per configuration in force; each input names its own. The first is the current
    /// directory's, whose target the JSON document names at its top.
    pub settings: Vec<FileSettings>,
    pub compile_db: BTreeMap<PathBuf, CompileFlags>,
    pub color: bool,
}

pub enum Input {
    /// A file, named on the command line or found in a directory.
    File(PathBuf, Reached),
    /// Standard input, already read, reported under this name.
    Stdin(PathBuf, Vec<u8>),
    /// A path that failed before reading (directory walk errors).
    Failed(LoadError),
}

/// One file's contribution to the output.
#[derive(Default)]
struct FileOutput {
    stdout: Vec<u8>,
    stderr: String,
    json_file: Option<Value>,
    json_accesses: Vec<Value>,
    json_diagnostics: Vec<Value>,
    /// `--fix --dry-run --format json`: the file's diff.
    json_fix: Option<Value>,
    sarif_results: Vec<Value>,
    coverage: Coverage,
    /// An input error (unreadable file, refused header, fix not written): exit status 2.
    input_error: bool,
    failing: bool,
    accesses: usize,
    ways: BTreeMap<u32, usize>,
    other_problems: usize,
    fixes: usize,
    fixed_files: usize,
    /// Files whose shared-memory accesses were not all reached, with a header missing
    /// (the first count) or, with every header found, a name nothing defines.
    missing_headers: usize,
    undefined_names: usize,
}

/// Where the run's standard output goes: per-file text, or a streamed document.
enum Sink {
    Text,
    Json(JsonDocument<std::io::BufWriter<std::io::Stdout>>),
    Sarif(SarifDocument<std::io::BufWriter<std::io::Stdout>>),
}

impl Sink {
    fn new(flags: &RunFlags) -> std::io::Result<Sink> {
        let out = || std::io::BufWriter::new(std::io::stdout());
        Ok(match flags.format {
            _ if flags.fix_stdin => Sink::Text,
            Format::Json => Sink::Json(JsonDocument::start(out(), flags.dry_run)?),
            Format::Sarif => Sink::Sarif(SarifDocument::start(out())?),
            _ => Sink::Text,
        })
    }

    fn take(&mut self, out: &mut FileOutput) -> std::io::Result<()> {
        match self {
            Sink::Text => {
                let mut lock = std::io::stdout().lock();
                lock.write_all(&out.stdout)?;
                lock.flush()
            }
            Sink::Json(doc) => {
                for a in out.json_accesses.drain(..) {
                    doc.accesses.push(&a)?;
                }
                for d in out.json_diagnostics.drain(..) {
                    doc.diagnostics.push(&d)?;
                }
                if let Some(f) = out.json_file.take() {
                    doc.files.push(&f)?;
                }
                if let (Some(fixes), Some(f)) = (&mut doc.fixes, out.json_fix.take()) {
                    fixes.push(&f)?;
                }
                Ok(())
            }
            Sink::Sarif(doc) => {
                for r in out.sarif_results.drain(..) {
                    doc.results.push(&r)?;
                }
                Ok(())
            }
        }
    }

    fn finish(self, run: &Run, totals: &FileOutput) -> std::io::Result<()> {
        match self {
            Sink::Text => Ok(()),
            Sink::Json(doc) => {
                let target = run.settings[0].options.target;
                let stats = run.flags.stats.then(|| totals.coverage.to_json());
                doc.finish(
                    &target.arch.name(),
                    bank_mode_bytes(target.bank_mode),
                    stats.as_ref(),
                )
                .map(drop)
            }
            Sink::Sarif(doc) => doc.finish().map(drop),
        }
    }
}

fn bank_mode_bytes(mode: BankMode) -> u32 {
    match mode {
        BankMode::FourByte => 4,
        BankMode::EightByte => 8,
    }
}

/// Checks `inputs`, each with the settings of `run.settings` it names, and prints the results
/// in input order; returns the exit status.
pub fn run(run: &Run, inputs: Vec<(Input, usize)>) -> i32 {
    let total = inputs.len();
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 16)
        .min(total.max(1));
    // Cores no file worker uses lower a file's headers side by side.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    crate::front::cuda::set_spare_threads((cores / workers).saturating_sub(1));
    let (tx, rx) = mpsc::channel::<(usize, FileOutput)>();
    let progress = std::io::stderr().is_terminal() && total > 1;
    let progress_after = progress_delay();
    let start = Instant::now();
    let mut totals = FileOutput::default();
    let mut sink = match Sink::new(&run.flags) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            return 2;
        }
    };
    let mut write_error = None;
    catch_panics_quietly();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let next = &next;
            let inputs = &inputs;
            let spawned = std::thread::Builder::new()
                .stack_size(WORKER_STACK)
                .spawn_scoped(scope, move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((input, settings)) = inputs.get(i) else {
                            break;
                        };
                        let settings = &run.settings[*settings];
                        if tx.send((i, process_guarded(run, settings, input))).is_err() {
                            break;
                        }
                    }
                });
            if let Err(e) = spawned {
                eprintln!("error: cannot start a worker thread: {e}");
            }
        }
        drop(tx);
        // Print in input order as results arrive.
        let mut pending: BTreeMap<usize, FileOutput> = BTreeMap::new();
        let mut printed = 0;
        let mut shown_progress = false;
        for (i, out) in rx {
            pending.insert(i, out);
            while let Some(mut out) = pending.remove(&printed) {
                if shown_progress {
                    eprint!("\r\x1b[K");
                }
                if let Err(e) = sink.take(&mut out) {
                    write_error.get_or_insert(e);
                }
                if !out.stderr.is_empty() {
                    eprint!("{}", out.stderr);
                }
                absorb(&mut totals, out);
                printed += 1;
            }
            if progress && start.elapsed() >= progress_after && printed < total {
                eprint!("\rchecking: {printed}/{total} files");
                shown_progress = true;
            }
        }
        if shown_progress {
            eprint!("\r\x1b[K");
        }
    });
    if let Err(e) = sink.finish(run, &totals) {
        write_error.get_or_insert(e);
    }
    // A closed pipe (`| head`) is the reader's choice, not an error.
    if let Some(e) = write_error.filter(|e| e.kind() != std::io::ErrorKind::BrokenPipe) {
        eprintln!("error: cannot write the output: {e}");
        return 2;
    }
    finish(run, totals)
}

/// How long a run goes before it shows progress: 300 ms, so quick runs stay quiet.
/// `BANKLINT_PROGRESS_AFTER_MS` changes it (the tests set 0 to see the line on any machine).
fn progress_delay() -> Duration {
    std::env::var("BANKLINT_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Duration::from_millis(300), Duration::from_millis)
}

fn absorb(totals: &mut FileOutput, out: FileOutput) {
    totals.coverage.merge(&out.coverage);
    totals.input_error |= out.input_error;
    totals.failing |= out.failing;
    totals.accesses += out.accesses;
    for (w, n) in out.ways {
        *totals.ways.entry(w).or_default() += n;
    }
    totals.other_problems += out.other_problems;
    totals.fixes += out.fixes;
    totals.fixed_files += usize::from(out.fixes > 0);
    totals.missing_headers += out.missing_headers;
    totals.undefined_names += out.undefined_names;
}

fn finish(run: &Run, totals: FileOutput) -> i32 {
    let args = run.flags;
    let files = totals.coverage.files;
    if args.fix_stdin {
        // Standard output holds the fixed source alone.
        eprintln!("{}", summary_line(&totals, files));
    } else {
        let mut out = std::io::stdout().lock();
        if args.format == Format::Human && !args.dry_run && files > 0 {
            let _ = writeln!(out, "{}", summary_line(&totals, files));
        }
        if args.stats && !matches!(args.format, Format::Json | Format::Sarif) {
            let _ = write!(out, "{}", totals.coverage.render());
        }
        let _ = out.flush();
    }
    if args.fix && totals.fixes > 0 {
        eprintln!(
            "{} {} padding fix{} in {} file{}",
            if args.dry_run {
                "would apply"
            } else {
                "applied"
            },
            totals.fixes,
            if totals.fixes == 1 { "" } else { "es" },
            totals.fixed_files,
            if totals.fixed_files == 1 { "" } else { "s" }
        );
    }
    if totals.input_error {
        2
    } else if args.dry_run {
        i32::from(totals.fixes > 0)
    } else {
        i32::from(totals.failing)
    }
}

/// `checked 12 files, 40 shared-memory accesses; 3 bank conflicts (2 x 32-way, 1 x 2-way)`.
fn summary_line(t: &FileOutput, files: usize) -> String {
    let conflicts: usize = t.ways.values().sum();
    let mut parts = vec![format!(
        "checked {files} file{}, {} shared-memory access{}",
        if files == 1 { "" } else { "s" },
        t.accesses,
        if t.accesses == 1 { "" } else { "es" }
    )];
    if conflicts > 0 {
        let detail: Vec<String> = t
            .ways
            .iter()
            .rev()
            .map(|(w, n)| format!("{n} x {w}-way"))
            .collect();
        parts.push(format!(
            "{conflicts} bank conflict{} ({})",
            if conflicts == 1 { "" } else { "s" },
            detail.join(", ")
        ));
    } else {
        parts.push("no bank conflicts".to_string());
    }
    if t.other_problems > 0 {
        parts.push(format!(
            "{} other error{} or warning{}",
            t.other_problems,
            if t.other_problems == 1 { "" } else { "s" },
            if t.other_problems == 1 { "" } else { "s" }
        ));
    }
    if t.coverage.not_parsed > 0 && t.input_error {
        parts.push("some files could not be read".to_string());
    }
    let files = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
    let mut incomplete = Vec::new();
    if t.missing_headers > 0 {
        incomplete.push(format!("{} had missing headers", files(t.missing_headers)));
    }
    if t.undefined_names > 0 {
        incomplete.push(format!(
            "{} used macros or constants nothing defines",
            files(t.undefined_names)
        ));
    }
    if !incomplete.is_empty() {
        parts.push(format!(
            "{}: results may be incomplete",
            incomplete.join(", ")
        ));
    }
    parts.join("; ")
}

/// Whether some shared-memory access of the file was not reached, and why: a header that was
/// not found or read (first), or else a name nothing defines (an index or array size that is
/// an undefined macro or constant). Reached means analyzed: an access banklint could not
/// analyze, code it skipped, or `__shared__` in a file where no access was found.
fn incompleteness(report: &FileReport) -> (bool, bool) {
    use crate::lint::findings::Status;
    let unknown: Vec<&str> = report
        .findings
        .iter()
        .filter_map(|f| match &f.status {
            Status::Unknown(reason) => Some(reason.as_str()),
            Status::Analyzed => None,
        })
        .collect();
    let unreached = !unknown.is_empty()
        || !report.skipped.is_empty()
        || (report.findings.is_empty() && report.file.text.contains("__shared__"));
    let header_missing = !report.missing_includes.is_empty()
        || report.include_problems.iter().any(|p| !p.input_error);
    let undefined = unknown
        .iter()
        .any(|r| r.contains("is not known to banklint") || r.contains("the size of dimension"));
    (unreached && header_missing, !header_missing && undefined)
}

thread_local! {
    /// The message of a panic caught while analyzing a file on this thread.
    static PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    static IN_FILE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Panics while analyzing a file are recorded for its error line instead of printed;
/// others still print as before.
fn catch_panics_quietly() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let lowering =
                std::thread::current().name() == Some(crate::front::cuda::LOWERING_THREAD);
            if IN_FILE.with(|f| f.get()) || lowering {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                let at = info
                    .location()
                    .map(|l| format!(" at {}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{at}")));
            } else {
                default(info);
            }
        }));
    });
}

/// [`process`], with a panic turned into an internal error of this file (exit status 2).
fn process_guarded(run: &Run, settings: &FileSettings, input: &Input) -> FileOutput {
    IN_FILE.with(|f| f.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        process(run, settings, input)
    }));
    IN_FILE.with(|f| f.set(false));
    result.unwrap_or_else(|_| {
        let why = PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "unknown panic".into());
        let path = match input {
            Input::File(p, _) | Input::Stdin(p, _) => p.clone(),
            Input::Failed(e) => e.path.clone(),
        };
        failed(
            &LoadError {
                path,
                message: format!(
                    "internal error: banklint panicked while analyzing this file ({why}); other files are still analyzed; please report this"
                ),
            },
            settings,
        )
    })
}

fn process(run: &Run, settings: &FileSettings, input: &Input) -> FileOutput {
    let mut out = FileOutput::default();
    let (file, options) = match input {
        Input::Failed(e) => return failed(e, settings),
        Input::Stdin(name, bytes) => match SourceFile::from_bytes(name, bytes.clone()) {
            Ok(f) => (f, settings.options.clone()),
            Err(e) => return failed(&e, settings),
        },
        Input::File(path, reached) => match SourceFile::load(path, *reached) {
            Ok(f) => {
                let options =
                    crate::app::config::options_for_file(&settings.options, &run.compile_db, path);
                (f, options)
            }
            Err(e) => return failed(&e, settings),
        },
    };
    let is_stdin = matches!(input, Input::Stdin(..));
    // Debug builds only: lets the tests show that a panic costs one file, not the run.
    #[cfg(debug_assertions)]
    if let Some(name) = std::env::var_os("BANKLINT_TEST_PANIC_ON")
        && file.path.ends_with(&name)
    {
        panic!("panic requested by BANKLINT_TEST_PANIC_ON");
    }
    let mut report = check_source(file, &options);
    let recheck = |bytes: Vec<u8>, path: &std::path::Path| {
        SourceFile::from_bytes(path, bytes)
            .ok()
            .map(|f| check_source(f, &options))
    };
    let report_findings = |report: &FileReport| {
        diagnostics::findings(
            report,
            ReportOptions {
                target: options.target,
                warn_unused_allow: settings.reporting.warn_unused_allow,
                severity: &settings.reporting.severity,
                min_ways: settings.reporting.min_ways,
            },
        )
    };
    let mut findings: Vec<Finding> = report_findings(&report);
    let format = run.flags.format;
    // Dry runs in the text formats print the diff alone.
    let mut diff_only = false;
    if run.flags.fix {
        // Only what is reported is fixed.
        let fixed = autofix::fixed_for(&report, &findings);
        out.fixes = fixed.applied;
        let path = report.file.path.display().to_string();
        if run.flags.dry_run {
            let diff = autofix::unified_diff(&path, &report.file.text, &fixed.text);
            match format {
                Format::Json if fixed.applied > 0 => {
                    out.json_fix =
                        Some(json!({"file": path, "applied": fixed.applied, "diff": diff}));
                }
                Format::Json | Format::Sarif => {}
                _ => {
                    out.stdout = diff.into_bytes();
                    diff_only = true;
                }
            }
        } else if is_stdin {
            // Fixing standard input prints the fixed bytes, as formatters do.
            if fixed.applied > 0
                && let Some(r) = recheck(fixed.bytes.clone(), &report.file.path)
            {
                report = r;
                findings = report_findings(&report);
            }
            out.stdout = fixed.bytes;
        } else if fixed.applied > 0 {
            match autofix::write_atomically(&report.file.path, report.file.bytes(), &fixed.bytes) {
                Ok(()) => {
                    if let Some(r) = recheck(fixed.bytes, &report.file.path) {
                        report = r;
                        findings = report_findings(&report);
                    }
                }
                Err(e) => {
                    out.fixes = 0;
                    out.input_error = true;
                    out.stderr = format!("error: {path}: --fix: {e}\n");
                }
            }
        }
    }
    if !diff_only && !run.flags.fix_stdin {
        emit(&mut out, format, &report, &findings, run.color);
    }
    out.json_file = Some(json!({
        "path": report.file.path.display().to_string(),
        "status": "ok",
        "message": null,
        "arch": options.target.arch.name(),
        "bank_mode": bank_mode_bytes(options.target.bank_mode),
        "context": report.context.as_ref().map(|c| c.path.display().to_string()),
        "inactive_lines": report.inactive.iter().map(|r| {
            // A region starts at the end of its directive's line.
            let text = &report.file.text;
            let region = text.get(r.clone()).unwrap_or("");
            let start = r.start + region.len() - region.trim_start_matches(['\r', '\n']).len();
            let (first, _) = report.file.line_col(start.min(r.end));
            let (last, _) = report.file.line_col(r.end.saturating_sub(1).max(r.start));
            json!([first, last])
        }).collect::<Vec<_>>(),
    }));
    out.accesses = report.findings.len();
    out.input_error |= report.include_problems.iter().any(|p| p.input_error);
    for f in &findings {
        if f.code == crate::lint::rules::Rule::BankConflict {
            *out.ways.entry(f.conflict_ways.unwrap_or(0)).or_default() += 1;
        } else if f.severity >= Severity::Warning {
            out.other_problems += 1;
        }
        out.failing |= f.severity >= Severity::Warning;
    }
    let (missing_headers, undefined_names) = incompleteness(&report);
    out.missing_headers = usize::from(missing_headers);
    out.undefined_names = usize::from(undefined_names);
    out.coverage.add_report(&report);
    out
}

fn emit(
    out: &mut FileOutput,
    format: Format,
    report: &crate::lint::report::FileReport,
    findings: &[Finding],
    color: bool,
) {
    use crate::app::emit;
    match format {
        Format::Human => out.stdout = emit::human::render(report, findings, color),
        Format::Short => out.stdout = emit::short::render(report, findings).into_bytes(),
        Format::Github => out.stdout = emit::github::render(report, findings).into_bytes(),
        Format::Json => {
            out.json_accesses = emit::json::accesses(report);
            out.json_diagnostics = emit::json::diagnostics(report, findings);
        }
        Format::Sarif => out.sarif_results = emit::sarif::results(report, findings),
    }
}

fn failed(e: &LoadError, settings: &FileSettings) -> FileOutput {
    let target = settings.options.target;
    let mut out = FileOutput {
        stderr: format!("error: {e}\n"),
        json_file: Some(json!({
            "path": e.path.display().to_string(),
            "status": "error",
            "message": e.message,
            "arch": target.arch.name(),
            "bank_mode": bank_mode_bytes(target.bank_mode),
            "context": null,
            "inactive_lines": [],
        })),
        input_error: true,
        ..FileOutput::default()
    };
    out.coverage.add_failed();
    out
}

/// Lets the analysis of each of `files` see what its includer defines first (see
/// `include_context`): indexes who includes whom among them and their directories.
pub fn add_includer_index(options: &mut CheckOptions, files: &[PathBuf]) {
    let mut files = files.to_vec();
    files.sort();
    options.includers = Some(std::sync::Arc::new(
        crate::front::includes::IncluderIndex::build(&files, &options.include_dirs),
    ));
}
