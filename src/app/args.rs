//! The command line's definition, for clap: `check`, `explain`, `simulate`, `profile`,
//! `server`, `archs` and their options. What runs them is in `cli`; `settings`, `profile` and
//! the language server read the same `check` options.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

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
    Profile(ProfileArgs),
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
    /// Files or directories (directories are searched for .cu and .cuh files, and for the
    /// .h, .hpp, .hh, .hxx and .inl headers that hold device code); `-` reads standard
    /// input. None: the current directory.
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
    /// The CUDA toolkit the code is built with, MAJOR.MINOR: sets `__CUDACC_VER_MAJOR__`,
    /// `__CUDACC_VER_MINOR__` and `CUDART_VERSION` [default: 13.0].
    #[arg(long, value_name = "VERSION")]
    pub cuda_version: Option<String>,
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

#[derive(Args, Debug)]
pub struct ProfileArgs {
    /// The CUDA file the profile was taken of.
    pub file: PathBuf,
    /// Nsight Compute's source page as CSV: `ncu --page source --csv --print-source cuda
    /// --import-source yes ...` (or `-i report.ncu-rep --page source --csv`).
    #[arg(long, value_name = "CSV")]
    pub ncu_csv: PathBuf,
    /// Thread blocks the profiled launch ran: ncu sums over all of them, banklint predicts one.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub blocks: u64,
    /// Target GPU, as for `check` [default: sm_90].
    #[arg(long)]
    pub arch: Option<String>,
    /// Block shape for kernels without a launch site or annotation, e.g. 32x8.
    #[arg(long)]
    pub block_dim: Option<String>,
    /// Define a macro: NAME or NAME=VALUE.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Search a directory for `#include "..."` headers.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Short,
    Json,
    /// GitHub Actions workflow commands (annotations on the pull request).
    Github,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
}
