//! The runner: checks many files in parallel and prints their results in a deterministic
//! order (path order, then position), streaming each file's output as soon as every file
//! before it is done, so memory holds a few files' results rather than the whole tree.
//! Also: `--fix` per file, the progress line on a terminal, the summary and `--stats`.

use crate::app::autofix;
use crate::app::config::CompileFlags;
use crate::app::stats::Coverage;
use crate::bank::arch::BankMode;
use crate::check::{CheckOptions, check_source};
use crate::front::source::{LoadError, SourceFile};
use crate::lint::diagnostics::{self, Finding, ReportOptions};
use codespan_reporting::diagnostic::Severity;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Stack for each worker: the parser and analyzer recurse once per nesting level, and input
/// is capped at `cuda_frontend::MAX_NESTING` levels.
const WORKER_STACK: usize = 256 << 20;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Short,
    Json,
    /// GitHub Actions workflow commands (annotations on the pull request).
    Github,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
}

/// What the command line asks of a run besides the analysis options.
#[derive(Clone, Copy, Debug)]
pub struct RunFlags {
    pub format: Format,
    pub fix: bool,
    pub dry_run: bool,
    pub warn_unused_allow: bool,
    pub stats: bool,
}

/// Everything a worker needs, shared read-only.
pub struct Run {
    pub flags: RunFlags,
    pub options: CheckOptions,
    pub compile_db: BTreeMap<PathBuf, CompileFlags>,
    pub severity: BTreeMap<String, String>,
    pub color: bool,
}

pub enum Input {
    File(PathBuf),
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
    sarif_results: Vec<Value>,
    coverage: Coverage,
    failed_to_read: bool,
    failing: bool,
    accesses: usize,
    ways: BTreeMap<u32, usize>,
    other_problems: usize,
    fixes: usize,
    fixed_files: usize,
}

pub fn run(run: &Run, inputs: Vec<Input>) -> i32 {
    let total = inputs.len();
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 16)
        .min(total.max(1));
    let (tx, rx) = mpsc::channel::<(usize, FileOutput)>();
    let stdout = std::io::stdout();
    let progress = std::io::stderr().is_terminal() && total > 1;
    let progress_after = progress_delay();
    let start = Instant::now();
    let mut totals = FileOutput::default();
    let mut files_json = Vec::new();
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
                        let Some(input) = inputs.get(i) else { break };
                        if tx.send((i, process(run, input))).is_err() {
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
            while let Some(out) = pending.remove(&printed) {
                if shown_progress {
                    eprint!("\r\x1b[K");
                }
                let mut lock = stdout.lock();
                let _ = lock.write_all(&out.stdout);
                let _ = lock.flush();
                drop(lock);
                if !out.stderr.is_empty() {
                    eprint!("{}", out.stderr);
                }
                files_json.extend(out.json_file.clone());
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
    finish(run, totals, files_json)
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
    totals.json_accesses.extend(out.json_accesses);
    totals.json_diagnostics.extend(out.json_diagnostics);
    totals.sarif_results.extend(out.sarif_results);
    totals.coverage.merge(&out.coverage);
    totals.failed_to_read |= out.failed_to_read;
    totals.failing |= out.failing;
    totals.accesses += out.accesses;
    for (w, n) in out.ways {
        *totals.ways.entry(w).or_default() += n;
    }
    totals.other_problems += out.other_problems;
    totals.fixes += out.fixes;
    totals.fixed_files += usize::from(out.fixes > 0);
}

fn finish(run: &Run, mut totals: FileOutput, files_json: Vec<Value>) -> i32 {
    let args = run.flags;
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json if !args.dry_run => {
            let mut doc = json!({
                "version": 1,
                "arch": run.options.target.arch.name(),
                "bank_mode": match run.options.target.bank_mode { BankMode::FourByte => 4, BankMode::EightByte => 8 },
                "files": files_json,
                "accesses": totals.json_accesses,
                "diagnostics": totals.json_diagnostics,
            });
            if args.stats {
                doc["stats"] = totals.coverage.to_json();
            }
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            );
        }
        Format::Sarif if !args.dry_run => {
            let doc = crate::app::emit::sarif::document(std::mem::take(&mut totals.sarif_results));
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            );
        }
        _ => {}
    }
    let files = totals.coverage.files;
    if args.format == Format::Human && !args.dry_run && files > 0 {
        let _ = writeln!(out, "{}", summary_line(&totals, files));
    }
    if args.stats && !matches!(args.format, Format::Json | Format::Sarif) {
        let _ = write!(out, "{}", totals.coverage.render());
    }
    let _ = out.flush();
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
    if totals.failed_to_read {
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
    if t.coverage.not_parsed > 0 && t.failed_to_read {
        parts.push("some files could not be read".to_string());
    }
    parts.join("; ")
}

fn process(run: &Run, input: &Input) -> FileOutput {
    let mut out = FileOutput::default();
    let (file, options) = match input {
        Input::Failed(e) => return failed(e),
        Input::Stdin(name, bytes) => match SourceFile::from_bytes(name, bytes.clone()) {
            Ok(f) => (f, run.options.clone()),
            Err(e) => return failed(&e),
        },
        Input::File(path) => match SourceFile::load(path) {
            Ok(f) => {
                let options =
                    crate::app::config::options_for_file(&run.options, &run.compile_db, path);
                (f, options)
            }
            Err(e) => return failed(&e),
        },
    };
    let is_stdin = matches!(input, Input::Stdin(..));
    let mut report = check_source(file, &options);
    if run.flags.fix {
        let (text, applied) = autofix::fixed_text(&report);
        out.fixes = applied;
        if run.flags.dry_run {
            let path = report.file.path.display().to_string();
            out.stdout = autofix::unified_diff(&path, &report.file.text, &text).into_bytes();
            out.coverage.files += 1;
            return out;
        }
        if is_stdin {
            // Fixing standard input prints the fixed text, as formatters do.
            out.stdout = text.into_bytes();
            out.coverage.files += 1;
            return out;
        }
        if applied > 0 {
            match autofix::write_atomically(&report.file.path, &text) {
                Ok(()) => {
                    report = check_source(SourceFile::new(report.file.path.clone(), text), &options)
                }
                Err(e) => {
                    out.fixes = 0;
                    out.stderr = format!(
                        "error: {}: cannot write the fix: {e}\n",
                        report.file.path.display()
                    );
                }
            }
        }
    }
    let findings: Vec<Finding> = diagnostics::findings(
        &report,
        ReportOptions {
            target: options.target,
            warn_unused_allow: run.flags.warn_unused_allow,
            severity: &run.severity,
        },
    );
    match run.flags.format {
        Format::Human => {
            out.stdout = crate::app::emit::human::render(&report, &findings, run.color)
        }
        Format::Short => {
            out.stdout = crate::app::emit::short::render(&report, &findings).into_bytes()
        }
        Format::Github => {
            out.stdout = crate::app::emit::github::render(&report, &findings).into_bytes()
        }
        Format::Json => {
            out.json_accesses = crate::app::emit::json::accesses(&report);
            out.json_diagnostics = crate::app::emit::json::diagnostics(&report, &findings);
        }
        Format::Sarif => out.sarif_results = crate::app::emit::sarif::results(&report, &findings),
    }
    out.json_file = Some(json!({
        "path": report.file.path.display().to_string(),
        "status": "ok",
        "message": null,
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
    for f in &findings {
        if f.code == crate::lint::rules::Rule::BankConflict {
            *out.ways.entry(f.conflict_ways.unwrap_or(0)).or_default() += 1;
        } else if f.severity >= Severity::Warning {
            out.other_problems += 1;
        }
        out.failing |= f.severity >= Severity::Warning;
    }
    out.coverage.add_report(&report);
    out
}

fn failed(e: &LoadError) -> FileOutput {
    let mut out = FileOutput {
        stderr: format!("error: {e}\n"),
        json_file: Some(
            json!({"path": e.path.display().to_string(), "status": "error", "message": e.message, "context": null, "inactive_lines": []}),
        ),
        failed_to_read: true,
        ..FileOutput::default()
    };
    out.coverage.add_failed();
    out
}
