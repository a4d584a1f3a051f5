//! What applies to each checked file: the command line merged over the `banklint.toml`
//! nearest to the file (found from the file's directory upward, as ruff and clang-tidy find
//! theirs), with where each value came from; the rule selection (`--select`, `--ignore`,
//! `[severity]`, `--min-ways`); and `--print-config`, which shows which file applies to which
//! path.

use crate::app::args::CheckArgs;
use crate::app::config::{self, FileConfig, Sourced};
use crate::bank::arch::{Arch, BankMode, Target};
use crate::check::CheckOptions;
use crate::front::toolkit::{self, CudaVersion};
use crate::lint::rules::Rule;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The command line merged over one `banklint.toml`: every value with where it came from.
pub struct Resolved {
    pub arch: Sourced<String>,
    pub bank_mode: Sourced<u32>,
    pub cuda_version: Sourced<String>,
    pub block_dim: Option<Sourced<String>>,
    pub defines: Vec<Sourced<String>>,
    pub undefines: Vec<Sourced<String>>,
    pub include_dirs: Vec<Sourced<PathBuf>>,
    pub exclude: Vec<Sourced<String>>,
    pub severity: BTreeMap<String, Sourced<String>>,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    pub min_ways: Sourced<u32>,
    pub compile_commands: Option<Sourced<PathBuf>>,
    /// Where exclude globs are relative to: the config file's directory, else the current one.
    pub base: PathBuf,
    /// The configuration file merged, if any.
    pub file: Option<PathBuf>,
}

fn sourced<T>(value: T, source: &str) -> Sourced<T> {
    Sourced {
        value,
        source: source.to_string(),
    }
}

/// Which `banklint.toml` applies to files in `dir`: `--config FILE`, none with `--no-config`,
/// else the nearest one from `dir` upward.
pub fn config_for_dir(args: &CheckArgs, dir: &Path) -> Option<PathBuf> {
    if args.no_config {
        None
    } else if let Some(p) = &args.config {
        Some(p.clone())
    } else {
        config::discover(dir)
    }
}

/// The directory a checked path's configuration is looked up from: the file's own (the
/// current one for standard input without `--stdin-filename`).
pub fn lookup_dir(path: &Path) -> PathBuf {
    let dir = if path.is_dir() {
        path
    } else {
        path.parent().unwrap_or(Path::new(""))
    };
    if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir.to_path_buf()
    }
}

/// The settings for the current directory (or `--config`): what `--print-config` shows when
/// no file is checked, and what the language server resolves through.
pub fn resolve(args: &CheckArgs) -> Result<Resolved, String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let config = config_for_dir(args, &cwd);
    resolve_with(args, config.as_deref())
}

/// The command line merged over `config_file` (none: the defaults).
pub fn resolve_with(args: &CheckArgs, config_file: Option<&Path>) -> Result<Resolved, String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let file = match config_file {
        Some(p) => config::load(p)?,
        None => FileConfig::default(),
    };
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
    let cuda_version = pick(
        args.cuda_version.clone(),
        file.cuda_version.clone(),
        Some(crate::front::toolkit::DEFAULT_CUDA_VERSION),
    )
    .expect("has a default");
    let min_ways = pick(
        args.min_ways.map(|w| w.to_string()),
        file.min_ways.map(|w| w.to_string()),
        Some("2"),
    )
    .expect("has a default");
    let min_ways = sourced(min_ways.value.parse().unwrap_or(2), &min_ways.source);
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
        cuda_version,
        block_dim: pick(args.block_dim.clone(), file.block_dim.clone(), None),
        defines: many(&file.defines, &args.define),
        undefines: many(&[], &args.undefine),
        include_dirs,
        exclude: many(&file.exclude, &args.exclude),
        severity,
        select: rule_codes(&args.select).map_err(|e| format!("--select: {e}"))?,
        ignore: rule_codes(&args.ignore).map_err(|e| format!("--ignore: {e}"))?,
        min_ways,
        compile_commands: args.compile_commands.clone().map(|p| sourced(p, cli)),
        base,
        file: file.path.clone(),
    })
}

/// `--select`/`--ignore` values: codes, each flag repeatable and comma-separated. Unknown
/// codes are a usage error naming every one of them.
pub fn rule_codes(values: &[String]) -> Result<Vec<String>, String> {
    let codes: Vec<String> = values
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    let unknown: Vec<String> = codes
        .iter()
        .filter(|c| Rule::from_code(c).is_none())
        .map(|c| format!("`{c}`"))
        .collect();
    if unknown.is_empty() {
        Ok(codes)
    } else {
        Err(format!(
            "unknown rule code{} {}; `banklint explain` lists them",
            if unknown.len() == 1 { "" } else { "s" },
            unknown.join(", ")
        ))
    }
}

/// What decides which findings are reported, and at which severity.
#[derive(Clone, Debug, Default)]
pub struct Reporting {
    /// Per code: error, warning, note or off (`[severity]`, then `--select`/`--ignore`).
    pub severity: BTreeMap<String, String>,
    /// Bank conflicts below this degree are not reported.
    pub min_ways: u32,
    /// Report unused `allow` comments (`--warn-unused-allow`, or `--select unused-allow`).
    pub warn_unused_allow: bool,
}

impl Resolved {
    /// `[severity]` with the command line's selection applied over it: a code left out of a
    /// non-empty `--select`, or named by `--ignore`, is off; a code `--select` names is on
    /// even where `[severity]` turns it off (at its default level), as flags override the
    /// file; `--ignore` wins over `--select`.
    pub fn reporting(&self, warn_unused_allow: bool) -> Reporting {
        let mut severity: BTreeMap<String, String> = self
            .severity
            .iter()
            .map(|(k, v)| (k.clone(), v.value.clone()))
            .collect();
        if !self.select.is_empty() {
            for rule in Rule::ALL {
                let code = rule.code();
                if !self.select.iter().any(|c| c == code) {
                    severity.insert(code.to_string(), "off".to_string());
                } else if severity.get(code).is_some_and(|l| l == "off") {
                    severity.remove(code);
                }
            }
        }
        for code in &self.ignore {
            severity.insert(code.clone(), "off".to_string());
        }
        let selected = |code: &str| severity.get(code).is_none_or(|l| l != "off");
        Reporting {
            warn_unused_allow: selected(Rule::UnusedAllow.code())
                && (warn_unused_allow || self.select.iter().any(|c| c == "unused-allow")),
            severity,
            min_ways: self.min_ways.value,
        }
    }

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
        line(
            "cuda-version",
            format!("{:?}", self.cuda_version.value),
            &self.cuda_version.source,
        );
        match &self.block_dim {
            Some(b) => line("block-dim", format!("{:?}", b.value), &b.source),
            None => line(
                "block-dim",
                "(launch sites, annotation, or one warp)".into(),
                "default",
            ),
        }
        line(
            "min-ways",
            self.min_ways.value.to_string(),
            &self.min_ways.source,
        );
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
        if !self.select.is_empty() {
            line("select", format!("{:?}", self.select), "command line");
        }
        if !self.ignore.is_empty() {
            line("ignore", format!("{:?}", self.ignore), "command line");
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

/// Builds the analysis options from the arguments (and the current directory's
/// banklint.toml).
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

pub fn options_from_resolved(r: &Resolved) -> Result<CheckOptions, String> {
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
            // The device compilation pass as nvcc runs it for --arch with this toolkit (none
            // is read); user -D/-U come after and win.
            let cuda = CudaVersion::parse(&r.cuda_version.value)
                .map_err(|e| blame(&r.cuda_version, "cuda-version", e))?;
            let builtin = toolkit::predefined(&r.arch.value, arch, cuda);
            crate::front::macros::Defines::from_flags(
                builtin
                    .iter()
                    .map(String::as_str)
                    .chain(r.defines.iter().map(|d| d.value.as_str())),
                r.undefines.iter().map(|d| d.value.clone()),
            )
        },
        include_dirs: r.include_dirs.iter().map(|d| d.value.clone()).collect(),
        includers: None,
    })
}

/// Everything that applies to the files under one configuration.
pub struct Profile {
    pub resolved: Resolved,
    pub options: CheckOptions,
    pub reporting: Reporting,
    pub excludes: config::Excludes,
}

/// The profiles of a run, one per configuration file met (the first: the current
/// directory's), and which applies to which directory.
pub struct Profiles {
    pub list: Vec<Profile>,
    by_config: BTreeMap<Option<PathBuf>, usize>,
    by_dir: BTreeMap<PathBuf, usize>,
}

impl Profiles {
    /// Starts with the current directory's profile (or `--config`'s).
    pub fn new(args: &CheckArgs) -> Result<Profiles, String> {
        let mut profiles = Profiles {
            list: Vec::new(),
            by_config: BTreeMap::new(),
            by_dir: BTreeMap::new(),
        };
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        profiles.for_dir(args, &cwd)?;
        Ok(profiles)
    }

    /// The profile for files in `dir`, resolved on first use.
    pub fn for_dir(&mut self, args: &CheckArgs, dir: &Path) -> Result<usize, String> {
        if let Some(&i) = self.by_dir.get(dir) {
            return Ok(i);
        }
        let config = config_for_dir(args, dir);
        let key = config
            .as_ref()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()));
        let i = match self.by_config.get(&key) {
            Some(&i) => i,
            None => {
                let resolved = resolve_with(args, config.as_deref())?;
                let options = options_from_resolved(&resolved)?;
                let patterns: Vec<String> =
                    resolved.exclude.iter().map(|e| e.value.clone()).collect();
                let excludes = config::Excludes::new(&patterns, &resolved.base)?;
                let reporting = resolved.reporting(args.warn_unused_allow);
                self.list.push(Profile {
                    resolved,
                    options,
                    reporting,
                    excludes,
                });
                self.by_config.insert(key, self.list.len() - 1);
                self.list.len() - 1
            }
        };
        self.by_dir.insert(dir.to_path_buf(), i);
        Ok(i)
    }

    /// The profile for a checked path (its directory's).
    pub fn for_path(&mut self, args: &CheckArgs, path: &Path) -> Result<usize, String> {
        self.for_dir(args, &lookup_dir(path))
    }
}

/// `--print-config`: each configuration in force and the files it applies to (named
/// files, or those found in the named directories), then its merged values.
pub fn render_print_config(profiles: &Profiles, files: &[(PathBuf, usize)]) -> String {
    let mut out = String::new();
    let used: Vec<usize> = if files.is_empty() {
        vec![0]
    } else {
        let mut v: Vec<usize> = files.iter().map(|(_, i)| *i).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for (n, &i) in used.iter().enumerate() {
        let p = &profiles.list[i];
        if n > 0 {
            out.push('\n');
        }
        match &p.resolved.file {
            Some(f) => out.push_str(&format!("# configuration: {}\n", f.display())),
            None => out.push_str("# configuration: none (no banklint.toml found)\n"),
        }
        let applies: Vec<String> = files
            .iter()
            .filter(|(_, k)| *k == i)
            .map(|(path, _)| path.display().to_string())
            .collect();
        if !applies.is_empty() {
            out.push_str(&format!("# applies to: {}\n", applies.join(", ")));
        }
        out.push_str(&p.resolved.render());
    }
    out
}
