//! The command line: `banklint check`, `banklint explain`. Parses arguments with clap,
//! walks directories with walkdir, finds the configuration of each file (`settings`), runs
//! the pipeline on each file, and prints in the chosen format. Exit status: 0 when no warning
//! or error remains, 1 when one does, 2 usage or input errors.

use crate::app::config;
use crate::app::runner::Format;
use crate::app::runner::Input;
use crate::app::settings::Profiles;
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
    /// Compare banklint's prediction with an Nsight Compute profile, line by line (the
    /// profile's source page exported as CSV).
    Profile(crate::app::profile::ProfileArgs),
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
    /// standard input. None: the current directory.
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
    /// Report only these rule codes (comma-separated or repeated), e.g.
    /// `--select bank-conflict,shared-capacity`.
    #[arg(long, value_name = "CODES")]
    pub select: Vec<String>,
    /// Never report these rule codes (comma-separated or repeated).
    #[arg(long, value_name = "CODES")]
    pub ignore: Vec<String>,
    /// Report only bank conflicts of at least this many ways (e.g. 4: 2-way conflicts are
    /// neither reported nor counted in the exit status).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub min_ways: Option<u32>,
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
        Command::Profile(args) => crate::app::profile::run(&args),
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
    // The current directory's configuration (or `--config`'s) first: it validates the flags
    // (rule codes, values) before anything is read.
    let mut profiles = match Profiles::new(args) {
        Ok(p) => p,
        Err(e) => return usage_error(&e),
    };
    if args.fix && !args.dry_run && args.paths.len() > 1 && args.paths.iter().any(|p| p == "-") {
        return usage_error(
            "`--fix -` prints the fixed standard input alone; name no other path with it",
        );
    }
    // No path: the current directory, its files named as found in it (`k.cu`, `src/k.cu`).
    let implicit = args.paths.is_empty();
    let paths = if implicit {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut errors = Vec::new();
    let mut empty = Vec::new();
    let mut files = collect_files(&paths, &mut errors, &mut empty);
    if implicit {
        for (p, _) in &mut files {
            if let Ok(rest) = p.strip_prefix(".") {
                *p = rest.to_path_buf();
            }
        }
    }
    // Each file under the configuration nearest to it, less what that configuration excludes.
    let mut checked: Vec<(PathBuf, Reached, usize)> = Vec::new();
    for (path, reached) in dedup_by_canonical_path(files) {
        let stdin = path.as_os_str() == "-";
        let lookup = match (&args.stdin_filename, stdin) {
            (Some(name), true) => name.clone(),
            (None, true) => PathBuf::from("."),
            _ => path.clone(),
        };
        let profile = match profiles.for_path(args, &lookup) {
            Ok(i) => i,
            Err(e) => return usage_error(&e),
        };
        if stdin || !profiles.list[profile].excludes.is_excluded(&path) {
            checked.push((path, reached, profile));
        }
    }
    if args.print_config {
        let shown: Vec<(PathBuf, usize)> =
            checked.iter().map(|(p, _, i)| (p.clone(), *i)).collect();
        print!(
            "{}",
            crate::app::settings::render_print_config(&profiles, &shown)
        );
        return 0;
    }
    let cwd_settings = &profiles.list[0].resolved;
    let compile_db = match &cwd_settings.compile_commands {
        Some(c) => match config::load_compile_commands(&c.value) {
            Ok(db) => db,
            Err(e) => return usage_error(&e),
        },
        None => Default::default(),
    };
    for dir in &empty {
        eprintln!(
            "warning: {}: no .cu or .cuh files in this directory",
            dir.display()
        );
    }
    if checked.is_empty() && errors.is_empty() && !empty.is_empty() {
        // Nothing was checked: not the same as a clean tree.
        return 2;
    }
    let mut inputs: Vec<(Input, usize)> =
        errors.into_iter().map(|e| (Input::Failed(e), 0)).collect();
    for (path, reached, profile) in checked {
        if path.as_os_str() == "-" {
            let name = args
                .stdin_filename
                .clone()
                .unwrap_or_else(|| PathBuf::from("<stdin>"));
            let input = match crate::front::source::read_limited(std::io::stdin()) {
                Ok(bytes) => Input::Stdin(name, bytes),
                Err(why) => Input::Failed(LoadError {
                    path: name,
                    message: format!("standard input {why}"),
                }),
            };
            inputs.push((input, profile));
        } else {
            inputs.push((Input::File(path, reached), profile));
        }
    }
    let mut settings: Vec<crate::app::runner::FileSettings> = profiles
        .list
        .iter()
        .map(|p| crate::app::runner::FileSettings {
            options: p.options.clone(),
            reporting: p.reporting.clone(),
        })
        .collect();
    if !args.no_includer_context {
        // One index of who includes whom, over every checked file and the include
        // directories of every configuration in force.
        let mut paths: Vec<PathBuf> = inputs
            .iter()
            .filter_map(|(i, _)| match i {
                Input::File(p, _) | Input::Stdin(p, _) => Some(p.clone()),
                Input::Failed(_) => None,
            })
            .collect();
        paths.sort();
        let mut dirs: Vec<PathBuf> = Vec::new();
        for s in &settings {
            for d in &s.options.include_dirs {
                if !dirs.contains(d) {
                    dirs.push(d.clone());
                }
            }
        }
        let index =
            std::sync::Arc::new(crate::front::includes::IncluderIndex::build(&paths, &dirs));
        for s in &mut settings {
            s.options.includers = Some(index.clone());
        }
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
            stats: args.stats,
            fix_stdin: args.fix && !args.dry_run && args.paths.iter().any(|p| p == "-"),
        },
        settings,
        compile_db,
        color,
    };
    crate::app::runner::run(&run, inputs)
}
