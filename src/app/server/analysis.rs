//! One analysis of an open buffer, as `banklint check` would do it on that text: the
//! configuration is resolved for the buffer's file like the command line resolves it (the
//! nearest `banklint.toml` from the file's directory upward, re-read on every analysis:
//! reading one small file costs far less than the analysis, so a changed configuration is
//! always in force), headers are read next to the file and in the include directories, and
//! the file's includer is looked for among the files of its directory and the other open
//! buffers' files. Then `check::check_source` on the buffer's text (never the file on disk)
//! and the findings after annotations and `[severity]`.

use crate::app::args::{Cli, Command};
use crate::app::config;
use crate::app::runner::add_includer_index;
use crate::app::settings::{self, Reporting};
use crate::bank::arch::Target;
use crate::check::check_source;
use crate::front::source::SourceFile;
use crate::lint::diagnostics::{self, ReportOptions};
use crate::lint::report::FileReport;
use crate::lint::rules::Finding;
use clap::Parser;
use std::path::{Path, PathBuf};

/// The result of analyzing one version of a buffer.
pub struct Analysis {
    /// The text analyzed: requests on another text re-analyze.
    pub text: String,
    pub report: FileReport,
    /// What the user sees, after annotations and `[severity]`.
    pub findings: Vec<Finding>,
    pub target: Target,
}

/// What analyzing a buffer gave: the analysis, or nothing (the file is excluded by the
/// configuration, or the analysis failed), and a problem with the configuration to show.
pub struct Outcome {
    pub analysis: Option<Analysis>,
    pub config_problem: Option<String>,
    /// The analysis panicked: the message, shown as a diagnostic.
    pub crashed: Option<String>,
}

/// Analyzes `text` as the file `path`; `others` are the other open buffers' files, among
/// which the file's includer may be.
pub fn analyze(path: &Path, text: &str, others: &[PathBuf]) -> Outcome {
    let (settings, config_problem) = match settings_for(path) {
        Ok(s) => (s, None),
        // A broken banklint.toml: say so, and analyze with the defaults meanwhile.
        Err(problem) => (
            settings_from_argv(path, None).expect("the defaults resolve"),
            Some(problem),
        ),
    };
    if settings.excluded {
        return Outcome {
            analysis: None,
            config_problem,
            crashed: None,
        };
    }
    let mut options = settings.options;
    if path.is_absolute() && path.exists() {
        let mut files = vec![path.to_path_buf()];
        files.extend(others.iter().filter(|p| p.as_path() != path).cloned());
        add_includer_index(&mut options, &files);
    }
    let file = SourceFile::new(path, text.to_string());
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let report = check_source(file, &options);
        let findings = diagnostics::findings(
            &report,
            ReportOptions {
                target: options.target,
                warn_unused_allow: settings.reporting.warn_unused_allow,
                severity: &settings.reporting.severity,
                min_ways: settings.reporting.min_ways,
            },
        );
        (report, findings)
    }));
    match run {
        Ok((report, findings)) => Outcome {
            analysis: Some(Analysis {
                text: text.to_string(),
                report,
                findings,
                target: options.target,
            }),
            config_problem,
            crashed: None,
        },
        Err(panic) => Outcome {
            analysis: None,
            config_problem,
            crashed: Some(
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".to_string()),
            ),
        },
    }
}

/// The resolved settings for one file.
struct Settings {
    options: crate::check::CheckOptions,
    reporting: Reporting,
    excluded: bool,
}

/// The settings the command line would use for `path` with the `banklint.toml` nearest to
/// the file (not to the server's working directory, which an editor chooses).
fn settings_for(path: &Path) -> Result<Settings, String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    settings_from_argv(path, config::discover(dir).as_deref())
}

/// Resolves through the command line's own parser and merge, as `banklint check --config
/// FILE PATH` (or `--no-config`) would.
fn settings_from_argv(path: &Path, config_file: Option<&Path>) -> Result<Settings, String> {
    let mut argv = vec!["banklint".into(), "check".into()];
    match config_file {
        Some(c) => {
            argv.push("--config".into());
            argv.push(c.as_os_str().to_owned());
        }
        None => argv.push("--no-config".into()),
    }
    argv.push(path.as_os_str().to_owned());
    let args = match Cli::try_parse_from(argv)
        .map_err(|e| e.to_string())?
        .command
    {
        Command::Check(args) => args,
        _ => unreachable!("parsed as `check`"),
    };
    let resolved = settings::resolve(&args)?;
    let options = settings::options_from_resolved(&resolved)?;
    let patterns: Vec<String> = resolved.exclude.iter().map(|e| e.value.clone()).collect();
    Ok(Settings {
        options,
        reporting: resolved.reporting(false),
        excluded: config::Excludes::new(&patterns, &resolved.base)?.is_excluded(path),
    })
}
