//! The command line: `banklint check`, `banklint explain`. Parses arguments with clap,
//! walks directories with walkdir, runs the pipeline on each file, and prints in the chosen
//! format. Exit status: 0 clean, 1 conflicts found, 2 usage or input errors.

use crate::app::config::{self, Sourced};
use crate::app::runner::Format;
use crate::bank::arch::{Arch, BankMode, Target};
use crate::check::CheckOptions;
use crate::front::source::{LoadError, Reached};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(
    name = "banklint",
    version,
    about = "Finds shared-memory bank conflicts in CUDA source, before the code runs"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Analyze .cu/.cuh files or directories.
    Check(CheckArgs),
    /// Explain a diagnostic code (e.g. `bank-conflict`).
    Explain {
        /// The code to explain; omit to list every code.
        code: Option<String>,
    },
    /// Run the bank engine on one warp access given as 32 byte offsets or a stride.
    Simulate(crate::app::simulate::SimulateArgs),
    /// Run a Language Server on standard input and output, for editors: diagnostics as you
    /// type, quick fixes, hover.
    Server,
    /// Print the bank rules and shared-memory limits of every architecture.
    Archs {
        #[arg(long, value_enum, default_value_t = crate::app::simulate::ArchsFormat::Human)]
        format: crate::app::simulate::ArchsFormat,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or directories (directories are searched for .cu and .cuh files); `-` reads
    /// standard input.
    #[arg(required_unless_present = "print_config")]
    pub paths: Vec<PathBuf>,
    /// The path to report for standard input (`-`), e.g. the editor buffer's file.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// Target GPU in nvcc spelling: sm_10 ... sm_120, compute_XX [default: sm_90].
    #[arg(long)]
    pub arch: Option<String>,
    /// Kepler (sm_3x) bank mode in bytes: 4 or 8 [default: 4].
    #[arg(long)]
    pub bank_mode: Option<u32>,
    /// Use this configuration file instead of the nearest banklint.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore banklint.toml files.
    #[arg(long)]
    pub no_config: bool,
    /// Print the merged configuration and where each value comes from, then exit.
    #[arg(long)]
    pub print_config: bool,
    /// Skip files matching a glob (`third_party/**`, `**/*.gen.cu`); repeatable.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Read per-file -D/-I flags from DIR/compile_commands.json.
    #[arg(short = 'p', value_name = "DIR")]
    pub compile_commands: Option<PathBuf>,
    /// Block shape for kernels without a launch site or annotation, e.g. 32x8.
    #[arg(long)]
    pub block_dim: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Define a macro for #if/#ifdef and for sizes: NAME or NAME=VALUE.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Undefine a macro.
    #[arg(short = 'U', value_name = "NAME")]
    pub undefine: Vec<String>,
    /// Apply the padding fixes that are safe to apply automatically (files are rewritten
    /// atomically); standard input is printed fixed.
    #[arg(long)]
    pub fix: bool,
    /// With --fix: print the changes as a unified diff instead of writing them.
    #[arg(long, requires = "fix")]
    pub dry_run: bool,
    /// Report `banklint: allow(...)` comments that suppress nothing.
    #[arg(long)]
    pub warn_unused_allow: bool,
    /// Print coverage: files parsed, shared arrays and accesses analyzed, top reasons not.
    #[arg(long)]
    pub stats: bool,
    /// Search a directory for `#include "..."` headers (after the file's own directory).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Analyze every file on its own. By default a file that another file includes (a
    /// checked one, or one in its directory) is analyzed after what that includer defines
    /// before its `#include` line, as the compiler sees it.
    #[arg(long)]
    pub no_includer_context: bool,
}

/// Runs the command line and returns the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Command::Check(args) => run_check(&args),
        Command::Explain { code } => run_explain(code.as_deref()),
        Command::Simulate(args) => crate::app::simulate::run(&args),
        Command::Archs { format } => crate::app::simulate::run_archs(format),
        Command::Server => crate::app::server::run(),
    }
}

fn run_explain(code: Option<&str>) -> i32 {
    match code {
        None => {
            for rule in crate::lint::rules::Rule::ALL {
                let (c, text) = (rule.code(), rule.explanation());
                let first = text.lines().nth(1).unwrap_or("").trim();
                println!("{c:20} {first}");
            }
            0
        }
        Some(c) => match crate::lint::rules::Rule::from_code(c) {
            Some(rule) => {
                print!("{}", rule.documentation());
                0
            }
            None => {
                eprintln!("error: unknown code `{c}`; `banklint explain` lists them");
                2
            }
        },
    }
}

fn usage_error(message: &str) -> i32 {
    eprintln!("error: {message}");
    2
}

/// The command line merged over `banklint.toml`: every value with where it came from.
pub struct Resolved {
    pub arch: Sourced<String>,
    pub bank_mode: Sourced<u32>,
    pub block_dim: Option<Sourced<String>>,
    pub defines: Vec<Sourced<String>>,
    pub undefines: Vec<Sourced<String>>,
    pub include_dirs: Vec<Sourced<PathBuf>>,
    pub exclude: Vec<Sourced<String>>,
    pub severity: std::collections::BTreeMap<String, Sourced<String>>,
    pub compile_commands: Option<Sourced<PathBuf>>,
    /// Where exclude globs are relative to: the config file's directory, else the current one.
    pub base: PathBuf,
}

fn sourced<T>(value: T, source: &str) -> Sourced<T> {
    Sourced {
        value,
        source: source.to_string(),
    }
}

pub fn resolve(args: &CheckArgs) -> Result<Resolved, String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let file = if args.no_config {
        None
    } else if let Some(p) = &args.config {
        Some(config::load(p)?)
    } else {
        config::discover(&cwd)
            .map(|p| config::load(&p))
            .transpose()?
    };
    let file = file.unwrap_or_default();
    let in_file = file
        .path
        .as_ref()
        .map_or_else(String::new, |p| p.display().to_string());
    let cli = "command line";
    let pick = |cli_value: Option<String>, file_value: Option<String>, default: Option<&str>| {
        cli_value
            .map(|v| sourced(v, cli))
            .or_else(|| file_value.map(|v| sourced(v, &in_file)))
            .or_else(|| default.map(|d| sourced(d.to_string(), "default")))
    };
    let arch = pick(args.arch.clone(), file.arch.clone(), Some("sm_90")).expect("has a default");
    let bank_mode = pick(
        args.bank_mode.map(|b| b.to_string()),
        file.bank_mode.map(|b| b.to_string()),
        Some("4"),
    )
    .expect("has a default");
    let bank_mode = sourced(
        bank_mode
            .value
            .parse()
            .map_err(|_| format!("invalid bank mode `{}`", bank_mode.value))?,
        &bank_mode.source,
    );
    let many = |file_values: &[String], cli_values: &[String]| -> Vec<Sourced<String>> {
        file_values
            .iter()
            .map(|v| sourced(v.clone(), &in_file))
            .chain(cli_values.iter().map(|v| sourced(v.clone(), cli)))
            .collect()
    };
    let include_dirs = file
        .include_dirs
        .iter()
        .map(|d| sourced(d.clone(), &in_file))
        .chain(args.include.iter().map(|d| sourced(d.clone(), cli)))
        .collect();
    let severity = file
        .severity
        .iter()
        .map(|(k, v)| (k.clone(), sourced(v.clone(), &in_file)))
        .collect();
    let base = file
        .path
        .as_ref()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or(cwd);
    Ok(Resolved {
        arch,
        bank_mode,
        block_dim: pick(args.block_dim.clone(), file.block_dim.clone(), None),
        defines: many(&file.defines, &args.define),
        undefines: many(&[], &args.undefine),
        include_dirs,
        exclude: many(&file.exclude, &args.exclude),
        severity,
        compile_commands: args.compile_commands.clone().map(|p| sourced(p, cli)),
        base,
    })
}

impl Resolved {
    /// The merged configuration, one value per line with its source.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut line = |key: &str, value: String, source: &str| {
            out.push_str(&format!("{:44} # {source}\n", format!("{key} = {value}")));
        };
        line("arch", format!("{:?}", self.arch.value), &self.arch.source);
        line(
            "bank-mode",
            self.bank_mode.value.to_string(),
            &self.bank_mode.source,
        );
        match &self.block_dim {
            Some(b) => line("block-dim", format!("{:?}", b.value), &b.source),
            None => line(
                "block-dim",
                "(launch sites, annotation, or one warp)".into(),
                "default",
            ),
        }
        for d in &self.defines {
            line("define", format!("{:?}", d.value), &d.source);
        }
        for d in &self.undefines {
            line("undefine", format!("{:?}", d.value), &d.source);
        }
        for d in &self.include_dirs {
            line(
                "include-dir",
                format!("{:?}", d.value.display().to_string()),
                &d.source,
            );
        }
        for e in &self.exclude {
            line("exclude", format!("{:?}", e.value), &e.source);
        }
        for (code, level) in &self.severity {
            line(
                &format!("severity.{code}"),
                format!("{:?}", level.value),
                &level.source,
            );
        }
        if let Some(c) = &self.compile_commands {
            line(
                "compile-commands",
                format!("{:?}", c.value.display().to_string()),
                &c.source,
            );
        }
        out
    }
}

/// Builds the analysis options from the arguments (and any banklint.toml).
pub fn options_from(args: &CheckArgs) -> Result<CheckOptions, String> {
    options_from_resolved(&resolve(args)?)
}

/// An error in a value, worded for where it came from: `--flag` or the config file's key.
fn blame<T>(value: &Sourced<T>, flag: &str, e: String) -> String {
    match value.source.as_str() {
        "command line" | "default" => format!("--{flag}: {e}"),
        file => format!("{file}: `{flag}`: {e}"),
    }
}

fn options_from_resolved(r: &Resolved) -> Result<CheckOptions, String> {
    let arch = Arch::parse(&r.arch.value).map_err(|e| blame(&r.arch, "arch", e))?;
    let bank_mode = BankMode::from_bytes(r.bank_mode.value).ok_or_else(|| {
        blame(
            &r.bank_mode,
            "bank-mode",
            format!("invalid bank mode {} (expected 4 or 8)", r.bank_mode.value),
        )
    })?;
    let block_dim = r
        .block_dim
        .as_ref()
        .map(|b| {
            crate::host::launches::parse_block_dim(&b.value).map_err(|e| blame(b, "block-dim", e))
        })
        .transpose()?;
    Ok(CheckOptions {
        target: Target::new(arch, bank_mode),
        block_dim,
        defines: {
            // The device compilation pass: __CUDA_ARCH__ as nvcc sets it for --arch. User
            // -D/-U come after and win.
            let arch_define = format!("__CUDA_ARCH__={}", arch.major * 100 + arch.minor * 10);
            let builtin = [arch_define.as_str(), "__CUDACC__"];
            config::defines_from(
                builtin
                    .into_iter()
                    .chain(r.defines.iter().map(|d| d.value.as_str())),
                r.undefines.iter().map(|d| d.value.clone()),
            )
        },
        include_dirs: r.include_dirs.iter().map(|d| d.value.clone()).collect(),
        includers: None,
    })
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

/// Expands directories into their .cu/.cuh files (sorted), skipping hidden and build
/// directories. Paths named explicitly are kept whatever their extension (and may be
/// pipes); files found in a directory must be regular files. A directory without any CUDA
/// file is named in `empty`.
pub fn collect_files(
    paths: &[PathBuf],
    errors: &mut Vec<LoadError>,
    empty: &mut Vec<PathBuf>,
) -> Vec<(PathBuf, Reached)> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let before = files.len() + errors.len();
            let walker = walkdir::WalkDir::new(p)
                .follow_links(true)
                .sort_by_file_name()
                .into_iter()
                .filter_entry(|e| e.depth() == 0 || !is_ignored_dir(e));
            for entry in walker {
                match entry {
                    // A `.cu` that is a FIFO, socket or device is refused when loaded.
                    Ok(e) if !e.file_type().is_dir() && is_cuda(e.path()) => {
                        files.push((e.into_path(), Reached::Indirectly))
                    }
                    Ok(_) => {}
                    Err(err) => errors.push(LoadError {
                        path: err.path().map_or_else(|| p.clone(), Path::to_path_buf),
                        message: if err.loop_ancestor().is_some() {
                            "symbolic link loop".to_string()
                        } else {
                            err.io_error()
                                .map_or_else(|| err.to_string(), |e| e.to_string())
                        },
                    }),
                }
            }
            if files.len() + errors.len() == before {
                empty.push(p.clone());
            }
        } else {
            files.push((p.clone(), Reached::Named));
        }
    }
    files
}

/// Drops repeated files (`k.cu ./k.cu`, a file named and found in a directory), keeping
/// the first spelling: each file is analyzed, and fixed, once.
fn dedup_by_canonical_path(files: Vec<(PathBuf, Reached)>) -> Vec<(PathBuf, Reached)> {
    let mut seen = std::collections::HashSet::new();
    files
        .into_iter()
        .filter(|(p, _)| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())))
        .collect()
}

fn is_cuda(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("cu" | "cuh"))
}

fn is_ignored_dir(e: &walkdir::DirEntry) -> bool {
    if !e.file_type().is_dir() {
        return false;
    }
    let name = e.file_name().to_string_lossy();
    name.starts_with('.')
        || matches!(
            name.as_ref(),
            "build" | "target" | "node_modules" | "__pycache__" | "CMakeFiles"
        )
}

fn run_check(args: &CheckArgs) -> i32 {
    let resolved = match resolve(args) {
        Ok(r) => r,
        Err(e) => return usage_error(&e),
    };
    if args.print_config {
        print!("{}", resolved.render());
        return 0;
    }
    let options = match options_from_resolved(&resolved) {
        Ok(o) => o,
        Err(e) => return usage_error(&e),
    };
    let compile_db = match &resolved.compile_commands {
        Some(c) => match config::load_compile_commands(&c.value) {
            Ok(db) => db,
            Err(e) => return usage_error(&e),
        },
        None => Default::default(),
    };
    let patterns: Vec<String> = resolved.exclude.iter().map(|e| e.value.clone()).collect();
    let excludes = match config::Excludes::new(&patterns, &resolved.base) {
        Ok(e) => e,
        Err(e) => return usage_error(&e),
    };
    if args.fix && !args.dry_run && args.paths.len() > 1 && args.paths.iter().any(|p| p == "-") {
        return usage_error(
            "`--fix -` prints the fixed standard input alone; name no other path with it",
        );
    }
    let mut errors = Vec::new();
    let mut empty = Vec::new();
    let files = collect_files(&args.paths, &mut errors, &mut empty);
    let files: Vec<(PathBuf, Reached)> = dedup_by_canonical_path(files)
        .into_iter()
        .filter(|(p, _)| p.as_os_str() == "-" || !excludes.is_excluded(p))
        .collect();
    for dir in &empty {
        eprintln!(
            "warning: {}: no .cu or .cuh files in this directory",
            dir.display()
        );
    }
    if files.is_empty() && errors.is_empty() && !empty.is_empty() {
        // Nothing was checked: not the same as a clean tree.
        return 2;
    }
    let mut inputs: Vec<crate::app::runner::Input> = errors
        .into_iter()
        .map(crate::app::runner::Input::Failed)
        .collect();
    for (path, reached) in files {
        if path.as_os_str() == "-" {
            let name = args
                .stdin_filename
                .clone()
                .unwrap_or_else(|| PathBuf::from("<stdin>"));
            match crate::front::source::read_limited(std::io::stdin()) {
                Ok(bytes) => inputs.push(crate::app::runner::Input::Stdin(name, bytes)),
                Err(why) => inputs.push(crate::app::runner::Input::Failed(LoadError {
                    path: name,
                    message: format!("standard input {why}"),
                })),
            }
        } else {
            inputs.push(crate::app::runner::Input::File(path, reached));
        }
    }
    let mut options = options;
    if !args.no_includer_context {
        let paths: Vec<PathBuf> = inputs
            .iter()
            .filter_map(|i| match i {
                crate::app::runner::Input::File(p, _) | crate::app::runner::Input::Stdin(p, _) => {
                    Some(p.clone())
                }
                crate::app::runner::Input::Failed(_) => None,
            })
            .collect();
        add_includer_index(&mut options, &paths);
    }
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    };
    let run = crate::app::runner::Run {
        flags: crate::app::runner::RunFlags {
            format: args.format,
            fix: args.fix,
            dry_run: args.dry_run,
            warn_unused_allow: args.warn_unused_allow,
            stats: args.stats,
            fix_stdin: args.fix && !args.dry_run && args.paths.iter().any(|p| p == "-"),
        },
        options,
        compile_db,
        severity: resolved
            .severity
            .iter()
            .map(|(k, v)| (k.clone(), v.value.clone()))
            .collect(),
        color,
    };
    crate::app::runner::run(&run, inputs)
}
