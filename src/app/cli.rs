//! The command line: `banklint check`, `banklint explain`. Parses arguments with clap,
//! walks directories with walkdir, finds the configuration of each file (`settings`), runs
//! the pipeline on each file, and prints in the chosen format. Exit status: 0 when no warning
//! or error remains, 1 when one does, 2 usage or input errors.

use crate::app::args::{CheckArgs, Cli, ColorChoice, Command};
use crate::app::config;
use crate::app::runner::Input;
use crate::app::settings::Profiles;
use crate::front::source::{LoadError, Reached};
use clap::Parser;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

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

/// Expands directories into their .cu/.cuh files and the C++ headers among them that hold
/// device code (see [`is_device_header`]), sorted, skipping hidden and build directories.
/// Paths named explicitly are kept whatever their extension (and may be pipes); files found
/// in a directory must be regular files. A directory without any CUDA file is named in
/// `empty`.
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
                    Ok(e)
                        if !e.file_type().is_dir()
                            && (is_cuda(e.path()) || is_device_header(e.path())) =>
                    {
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

/// A C++ header (`.h`, `.hpp`, `.hh`, `.hxx`, `.inl`) whose code, outside comments, string
/// literals and directives, names device code: `__global__`, `__device__`, `__shared__`, or
/// the thread's index (a kernel behind a macro such as `RAFT_KERNEL` still reads it). Many
/// projects keep kernels in `.h` files; each is analyzed in the context of its includer, as
/// when it is named. One that cannot be read is kept, so that its error is reported.
fn is_device_header(p: &Path) -> bool {
    if !matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("h" | "hpp" | "hh" | "hxx" | "inl")
    ) {
        return false;
    }
    let Ok(bytes) = crate::front::source::read_capped(p, Reached::Indirectly) else {
        return true;
    };
    let text = String::from_utf8_lossy(&bytes);
    crate::front::lex::tokenize(&text).iter().any(|t| {
        t.kind == crate::front::lex::TokenKind::Ident
            && matches!(
                t.text(&text),
                "__global__" | "__device__" | "__shared__" | "threadIdx" | "blockIdx"
            )
    })
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
