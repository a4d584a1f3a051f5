//! Diagnostics: turns file reports into what users read. Human output is rustc-style via
//! codespan-reporting (primary label on the subscript, secondary on the declaration,
//! `= note:` for the why, `help:` with the literal padded declaration); `short` is one
//! gcc-style line per finding for problem matchers; `json` is the stable schema of the README.

use crate::arch::Target;
use crate::bank_engine::{Op, bank_map};
use crate::check::FileReport;
use crate::findings::{AccessFinding, Status};
use crate::fix_suggestion::PaddingFix;
use crate::index_analysis::ShapeSource;
use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};
use serde_json::{Value as Json, json};

/// Diagnostic codes, each explained by `banklint explain CODE`.
pub const BANK_CONFLICT: &str = "bank-conflict";
pub const UNANALYZED_ACCESS: &str = "unanalyzed-access";
pub const SKIPPED_CODE: &str = "skipped-code";
pub const BLOCK_SHAPE: &str = "block-shape";
pub const SHARED_CAPACITY: &str = "shared-capacity";
pub const INCLUDE_NOT_FOUND: &str = "include-not-found";
pub const EXPECTATION_FAILED: &str = "expectation-failed";
pub const UNUSED_ALLOW: &str = "unused-allow";
pub const INVALID_ANNOTATION: &str = "invalid-annotation";

/// How findings are filtered and what extra checks run.
#[derive(Clone, Copy, Debug)]
pub struct ReportOptions<'a> {
    pub target: Target,
    pub warn_unused_allow: bool,
    /// Per-code level from the configuration: error, warning, note, or off.
    pub severity: &'a std::collections::BTreeMap<String, String>,
}

/// One reportable finding, independent of the output format.
#[derive(Clone, Debug)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    pub span: std::ops::Range<usize>,
    pub message: String,
    pub label: String,
    /// Secondary label: span and text.
    pub secondary: Option<(std::ops::Range<usize>, String)>,
    pub notes: Vec<String>,
    pub conflict_ways: Option<u32>,
    pub fix: Option<PaddingFix>,
}

/// Builds every finding of a report, in file order, after `banklint:` annotations: allowed
/// findings are dropped, failed expectations added.
pub fn findings(report: &FileReport, options: ReportOptions) -> Vec<Finding> {
    let all = raw_findings(report, options.target);
    let mut out = apply_annotations(report, all, options);
    out.retain_mut(|f| match options.severity.get(f.code).map(String::as_str) {
        Some("off") => false,
        Some("error") => {
            f.severity = Severity::Error;
            true
        }
        Some("warning") => {
            f.severity = Severity::Warning;
            true
        }
        Some("note") => {
            f.severity = Severity::Note;
            true
        }
        _ => true,
    });
    out
}

fn apply_annotations(
    report: &FileReport,
    all: Vec<Finding>,
    options: ReportOptions,
) -> Vec<Finding> {
    use crate::annotations::Directive;
    let line = |offset: usize| report.file.line_index(offset);
    let mut used = vec![false; report.annotations.len()];
    let mut out = Vec::new();
    // An access whose `expect(...)` holds is acknowledged: its conflict is not reported again.
    let asserted: Vec<std::ops::Range<usize>> = report
        .annotations
        .iter()
        .filter_map(|a| match &a.directive {
            Directive::Expect(e) => Some((a, e)),
            _ => None,
        })
        .flat_map(|(a, e)| {
            report.findings.iter().filter(move |f| {
                a.lines.contains(&line(f.span.start))
                    && matches!(f.status, Status::Analyzed)
                    && e.matches(f.conflict_ways())
            })
        })
        .map(|f| f.span.clone())
        .collect();
    for f in all {
        if f.code == BANK_CONFLICT && asserted.contains(&f.span) {
            continue;
        }
        let at = line(f.span.start);
        let allowed_by = report.annotations.iter().position(|a| {
            let Directive::Allow(codes) = &a.directive else {
                return false;
            };
            codes.iter().any(|c| c == f.code)
                && (a.lines.contains(&at) || covers_function(report, a, f.span.start))
        });
        match allowed_by {
            Some(i) => used[i] = true,
            None => out.push(f),
        }
    }
    for (a, used) in report.annotations.iter().zip(&used) {
        match &a.directive {
            Directive::Allow(codes) if !used && options.warn_unused_allow => out.push(Finding {
                code: UNUSED_ALLOW,
                severity: Severity::Warning,
                span: a.span.clone(),
                message: format!("`allow({})` suppresses nothing here", codes.join(", ")),
                label: "no finding on this line, the next, or in the kernel below".to_string(),
                secondary: None,
                notes: vec![
                    "remove it, or move it next to the access it was meant for".to_string(),
                ],
                conflict_ways: None,
                fix: None,
            }),
            Directive::Expect(expected) => {
                let accesses: Vec<&AccessFinding> = report
                    .findings
                    .iter()
                    .filter(|f| a.lines.contains(&line(f.span.start)))
                    .collect();
                if accesses.is_empty() {
                    out.push(expectation_error(
                        a.span.clone(),
                        format!(
                            "`expect({})` has no shared-memory access on its line or the next",
                            expected.describe()
                        ),
                        "nothing to check".to_string(),
                    ));
                }
                for f in accesses {
                    let name = &report.arrays[f.array].decl.name;
                    match &f.status {
                        Status::Unknown(reason) => out.push(expectation_error(
                            f.span.clone(),
                            format!(
                                "cannot check `expect({})` on this {} of `{name}`",
                                expected.describe(),
                                f.op.name()
                            ),
                            reason.clone(),
                        )),
                        Status::Analyzed if !expected.matches(f.conflict_ways()) => {
                            let got = if f.conflict_ways() == 1 {
                                "conflict-free".to_string()
                            } else {
                                format!("{}-way", f.conflict_ways())
                            };
                            out.push(expectation_error(
                                f.span.clone(),
                                format!(
                                    "expected this {} of `{name}` to be {}, but it is {got}",
                                    f.op.name(),
                                    expected.describe()
                                ),
                                format!("{got} on {}", options.target.describe()),
                            ));
                        }
                        Status::Analyzed => {}
                    }
                }
            }
            _ => {}
        }
    }
    for (span, message) in &report.annotation_errors {
        out.push(Finding {
            code: INVALID_ANNOTATION,
            severity: Severity::Error,
            span: span.clone(),
            message: message.clone(),
            label: "not understood".to_string(),
            secondary: None,
            notes: vec!["annotations are `banklint: allow(CODE)`, `banklint: expect(conflict-free | N-way)`, `banklint: block(X, Y, Z)` and `banklint: args(NAME = VALUE)`".to_string()],
            conflict_ways: None,
            fix: None,
        });
    }
    out.sort_by_key(|f| (f.span.start, f.span.end));
    out
}

fn expectation_error(span: std::ops::Range<usize>, message: String, label: String) -> Finding {
    Finding {
        code: EXPECTATION_FAILED,
        severity: Severity::Error,
        span,
        message,
        label,
        secondary: None,
        notes: vec![
            "a `banklint: expect(...)` comment asserts what the analysis must find here"
                .to_string(),
        ],
        conflict_ways: None,
        fix: None,
    }
}

/// An allow on the lines directly above a function covers the whole function.
fn covers_function(report: &FileReport, a: &crate::annotations::Annotation, offset: usize) -> bool {
    report.functions.iter().any(|(_, span, _)| {
        span.contains(&offset) && {
            let first_line = report.file.line_index(span.start);
            let mut l = first_line;
            // Walk up over comment lines and template headers to the annotation.
            while l > 0 && l > a.lines.start {
                let prev = &report.file.text[report.file.line_span(l - 1)];
                let t = prev.trim_start();
                if t.starts_with("//") || t.starts_with("/*") || t.starts_with("template") {
                    l -= 1;
                } else {
                    break;
                }
            }
            a.lines.start >= l.saturating_sub(0) && a.lines.start < first_line
        }
    })
}

/// What the user can do about an access banklint could not analyze, from its reason.
fn unanalyzed_help(reason: &str, f: &AccessFinding) -> String {
    let silence =
        "or silence this note with `// banklint: allow(unanalyzed-access)` on the line before";
    if f.shape.dims.is_none() && (reason.contains("warp's position") || reason.contains("blockDim"))
    {
        return "help: give the block shape, `// banklint: block(X, Y)` on the line before the kernel or --block-dim, and each warp is evaluated on its own; give run-time kernel parameters in the index a value with `// banklint: args(NAME = VALUE)`".to_string();
    }
    if reason.contains("is not known to banklint") {
        return format!(
            "help: if that name is a macro or constant from elsewhere, define it with `-D NAME=VALUE` or pass `-I` for the header that defines it; {silence}"
        );
    }
    if reason.contains("data loaded from")
        || reason.contains("side of the branch")
        || reason.contains("the result of")
        || reason.contains("chosen by a condition")
    {
        return format!(
            "help: the address depends on data known only when the kernel runs; a profiler can measure it, {silence}"
        );
    }
    if reason.contains("element type") {
        return format!(
            "help: declare the element type in this file or a header banklint follows (`-I DIR`); {silence}"
        );
    }
    format!(
        "help: if it comes from a kernel parameter, give its value with `// banklint: args(NAME = VALUE)` on the line before the kernel, or make it a `#define` or template constant; {silence}"
    )
}

fn raw_findings(report: &FileReport, target: Target) -> Vec<Finding> {
    let mut out = Vec::new();
    for f in &report.findings {
        match &f.status {
            Status::Analyzed if f.is_conflict() => out.push(conflict_finding(report, f, target)),
            Status::Analyzed => {}
            Status::Unknown(reason) => {
                let array = &report.arrays[f.array].decl.name;
                out.push(Finding {
                    code: UNANALYZED_ACCESS,
                    severity: Severity::Note,
                    span: f.span.clone(),
                    message: format!("could not analyze this {} of `{array}`", f.op.name()),
                    label: reason.clone(),
                    secondary: None,
                    notes: f
                        .origin
                        .as_ref()
                        .map(|o| format!("the access is in {o}, called here"))
                        .into_iter()
                        .chain(std::iter::once(unanalyzed_help(reason, f)))
                        .collect(),
                    conflict_ways: None,
                    fix: None,
                });
            }
        }
    }
    for b in report.over_capacity(target.arch) {
        let mut notes: Vec<String> = b
            .arrays
            .iter()
            .take(6)
            .map(|(name, bytes)| format!("`{name}`: {bytes} bytes"))
            .collect();
        notes.push(format!(
            "{} allows {} bytes ({} KB) of static shared memory per block; larger buffers must be dynamic (`extern __shared__`) and opted into with cudaFuncSetAttribute",
            target.arch,
            b.limit(target.arch),
            b.limit(target.arch) / 1024
        ));
        out.push(Finding {
            code: SHARED_CAPACITY,
            severity: Severity::Error,
            span: b.span.clone(),
            message: format!(
                "kernel `{}` needs {} bytes of static shared memory, over the {}-byte limit of {}",
                b.kernel,
                b.static_bytes,
                b.limit(target.arch),
                target.arch
            ),
            label: format!("{} bytes of `__shared__` arrays", b.static_bytes),
            secondary: None,
            notes,
            conflict_ways: None,
            fix: None,
        });
    }
    for (name, span) in &report.missing_includes {
        out.push(Finding {
            code: INCLUDE_NOT_FOUND,
            severity: Severity::Note,
            span: span.clone(),
            message: format!("header `{name}` was not found"),
            label: "not next to this file nor in any -I directory".to_string(),
            secondary: None,
            notes: vec![format!(
                "pass `-I DIR` so banklint can read the macros and types `{name}` defines"
            )],
            conflict_ways: None,
            fix: None,
        });
    }
    for s in &report.skipped {
        out.push(Finding {
            code: SKIPPED_CODE,
            severity: Severity::Note,
            span: s.span.clone(),
            message: "skipped code banklint could not parse".to_string(),
            label: s.reason.clone(),
            secondary: None,
            notes: vec!["shared-memory accesses in this region are not analyzed".to_string()],
            conflict_ways: None,
            fix: None,
        });
    }
    for u in &report.unresolved_launches {
        let (message, note) = match &u.annotation {
            None => (
                "block shape of this launch is not used".to_string(),
                "add `// banklint: block(X, Y)` on the line before the kernel, or pass --block-dim",
            ),
            Some(what) => (
                format!("`banklint: {what}` is not used"),
                "name the kernel's parameters as declared",
            ),
        };
        out.push(Finding {
            code: BLOCK_SHAPE,
            severity: Severity::Note,
            span: u.span.clone(),
            message,
            label: u.reason.clone(),
            secondary: None,
            notes: vec![note.to_string()],
            conflict_ways: None,
            fix: None,
        });
    }
    out.sort_by_key(|f| (f.span.start, f.span.end));
    out
}

fn conflict_finding(report: &FileReport, f: &AccessFinding, target: Target) -> Finding {
    let entry = &report.arrays[f.array];
    let name = &entry.decl.name;
    let worst = f
        .worst
        .as_ref()
        .expect("a conflict has a worst instruction");
    let v = &worst.evaluation.verdict;
    let ways = v.conflict_ways;
    let message = format!(
        "{ways}-way bank conflict on `{name}` ({} wavefronts per warp instead of {})",
        v.wavefronts, v.ideal
    );
    let mut notes = Vec::new();
    notes.push(bank_note(target, worst));
    notes.push(format!("worst instruction: {}", worst.label));
    if let Some(shift) = worst.evaluation.worst_shift {
        notes.push(format!(
            "worst when the warp-uniform part of the index shifts the access by {shift} bytes; other shifts conflict less"
        ));
    }
    if v.merged {
        notes.push("lanes n and n^1 (or n^2) share addresses, so this wide load is served in merged phases".to_string());
    }
    if let Some(origin) = &f.origin {
        notes.push(format!("the access is in {origin}, called here"));
    }
    if let Some(w) = &entry.decl.declared_in {
        let (file, line) = declaration_place(report, w);
        notes.push(format!(
            "`{name}` is `{}`, the dynamic shared memory that `{}{}` declares at {file}:{line}",
            w.array,
            w.class,
            w.args
                .as_ref()
                .map_or(String::new(), |a| format!("<{}>", a.join(", ")))
        ));
    }
    notes.push(context_note(report, f, target));
    for a in &f.assumptions {
        notes.push(a.clone());
    }
    if let Some(fix) = report.fix_for(f.array) {
        let costs = crate::shared_budget::fix_costs(&report.budgets, fix, target.arch);
        let mut help = help_text(fix, name, &costs);
        match crate::autofix::applicability(report, fix, target.arch) {
            crate::autofix::Applicability::Safe => {
                help.push_str(" [applied by `banklint check --fix`]")
            }
            crate::autofix::Applicability::Suggestion(why) => {
                help.push_str(&format!(" [not applied by --fix: {why}]"));
            }
        }
        notes.push(help);
    }
    notes.push(format!("for more, run `banklint explain {BANK_CONFLICT}`"));
    Finding {
        code: BANK_CONFLICT,
        severity: Severity::Warning,
        span: f.span.clone(),
        message,
        label: format!(
            "{} of {} byte{} per lane, {ways}-way conflict",
            f.op.name(),
            f.width,
            if f.width == 1 { "" } else { "s" }
        ),
        secondary: Some((
            entry.decl.decl_span.clone(),
            format!("`{name}` declared here"),
        )),
        notes,
        conflict_ways: Some(ways),
        fix: report.fix_for(f.array).cloned(),
    }
}

fn help_text(fix: &PaddingFix, name: &str, costs: &[crate::shared_budget::FixCost]) -> String {
    let effect = if fix.conflict_free {
        format!("every access to `{name}` becomes conflict-free")
    } else {
        format!(
            "the worst conflict on `{name}` drops from {}-way to {}-way",
            fix.ways_before, fix.ways_after
        )
    };
    let mut text = format!(
        "help: pad the innermost dimension by {} element{}: `{}` (+{} bytes, {} bytes in all); {effect}",
        fix.pad,
        if fix.pad == 1 { "" } else { "s" },
        fix.declaration,
        fix.bytes_added,
        fix.total_bytes
    );
    for c in costs.iter().take(2) {
        text.push_str(&format!(
            "; kernel `{}`: {} -> {} bytes of static shared memory, {}",
            c.kernel,
            c.before,
            c.after,
            if c.fits() {
                format!("within the {}-byte limit", c.limit)
            } else {
                format!("OVER the {}-byte limit", c.limit)
            }
        ));
        if let Some((b, a)) = c.blocks_per_sm {
            text.push_str(&format!(
                ", blocks per SM limited by shared memory: {b} -> {a}"
            ));
        }
    }
    if fix.unchecked_accesses > 0 {
        text.push_str(&format!(
            " ({} access{} to `{name}` could not be analyzed and {} not checked)",
            fix.unchecked_accesses,
            if fix.unchecked_accesses == 1 {
                ""
            } else {
                "es"
            },
            if fix.unchecked_accesses == 1 {
                "was"
            } else {
                "were"
            }
        ));
    }
    text
}

/// Which lanes meet in which bank in the worst phase, compressed.
fn bank_note(target: Target, worst: &crate::findings::Worst) -> String {
    let v = &worst.evaluation.verdict;
    let Some(phase) = v.worst_phase() else {
        return String::new();
    };
    let banks = bank_map(target, &worst.evaluation.access, phase);
    let max = banks.iter().map(|b| b.units.len()).max().unwrap_or(1);
    let hot: Vec<_> = banks.iter().filter(|b| b.units.len() == max).collect();
    let active: usize = (phase.lanes.clone())
        .filter(|&l| worst.evaluation.access.offsets[l].is_some())
        .count();
    let phase_text = if phase.lanes.len() < 32 {
        format!(
            " (in the phase of lanes {}-{})",
            phase.lanes.start,
            phase.lanes.end - 1
        )
    } else {
        String::new()
    };
    if let [only] = hot.as_slice()
        && only.lanes.len() == active
        && active > 1
    {
        return format!(
            "lanes {} all hit bank {}, {} different words{phase_text}",
            compress_lanes(&only.lanes),
            only.bank,
            max
        );
    }
    let shown: Vec<String> = hot
        .iter()
        .take(3)
        .map(|b| format!("bank {} by lanes {}", b.bank, compress_lanes(&b.lanes)))
        .collect();
    let more = if hot.len() > 3 { ", ..." } else { "" };
    format!(
        "{} bank{} each serve {max} different words{phase_text}: {}{more}",
        hot.len(),
        if hot.len() == 1 { "" } else { "s" },
        shown.join("; ")
    )
}

/// `0-15`, `0, 2, ..., 30`, `1, 5, 9`.
pub fn compress_lanes(lanes: &[usize]) -> String {
    match lanes {
        [] => String::new(),
        [a] => a.to_string(),
        [a, b] => format!("{a} and {b}"),
        _ => {
            let step = lanes[1] - lanes[0];
            let progression = lanes.windows(2).all(|w| w[1] - w[0] == step);
            if progression && step == 1 {
                format!("{}-{}", lanes[0], lanes[lanes.len() - 1])
            } else if progression && lanes.len() > 3 {
                format!(
                    "{}, {}, ..., {}",
                    lanes[0],
                    lanes[1],
                    lanes[lanes.len() - 1]
                )
            } else {
                lanes
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        }
    }
}

fn context_note(report: &FileReport, f: &AccessFinding, target: Target) -> String {
    let shape = &f.shape;
    let source = match &shape.source {
        ShapeSource::Launch(span) => format!(
            "from the launch at line {}",
            report.file.line_col(span.start).0
        ),
        ShapeSource::IncluderLaunch { file, line } => {
            format!("from the launch at {file}:{line}")
        }
        ShapeSource::Annotation => "from the `// banklint: block(...)` annotation".to_string(),
        ShapeSource::Cli => "from --block-dim".to_string(),
        ShapeSource::Default => {
            "(no launch or annotation found; add `// banklint: block(X, Y)` above the kernel)"
                .to_string()
        }
    };
    let mut text = format!(
        "on {} with block {} {source}",
        target.describe(),
        shape.describe()
    );
    let template = shape.describe_template();
    if !template.is_empty() {
        text.push_str(&format!(", instantiated with {template}"));
    }
    let arguments = shape.describe_arguments();
    if !arguments.is_empty() {
        text.push_str(&format!(", with arguments {arguments} from the launch"));
    }
    let assumed = shape.describe_assumed();
    if !assumed.is_empty() {
        text.push_str(&format!(
            ", with {assumed} from the `banklint: args` annotation"
        ));
    }
    if f.shapes_analyzed > 1 {
        text.push_str(&format!(
            ", the worst of {} launch shapes",
            f.shapes_analyzed
        ));
    }
    if let Some(t) = f.totals {
        text.push_str(&format!(
            "; per block: {} instruction{}, {} wavefronts (ideal {})",
            t.instructions,
            if t.instructions == 1 { "" } else { "s" },
            t.wavefronts,
            t.ideal
        ));
    }
    if target.arch.rules_are_assumed() {
        text.push_str(&format!(
            "; {} is assumed to follow the 5.x-9.x bank rules",
            target.arch
        ));
    }
    text
}

// ---- output formats ----

pub fn render_human(report: &FileReport, findings: &[Finding], color: bool) -> Vec<u8> {
    let file = SimpleFile::new(
        report.file.path.display().to_string(),
        report.file.text.as_str(),
    );
    let mut buffer = if color {
        termcolor::Buffer::ansi()
    } else {
        termcolor::Buffer::no_color()
    };
    let config = term::Config::default();
    for f in findings {
        let mut labels = vec![Label::primary((), f.span.clone()).with_message(&f.label)];
        if let Some((span, text)) = &f.secondary {
            labels.push(Label::secondary((), span.clone()).with_message(text));
        }
        let diagnostic = Diagnostic::new(f.severity)
            .with_message(&f.message)
            .with_code(f.code)
            .with_labels(labels)
            .with_notes(
                f.notes
                    .iter()
                    .map(|n| {
                        if n.starts_with("help:") {
                            n.clone()
                        } else {
                            format!("note: {n}")
                        }
                    })
                    .collect(),
            );
        let _ = term::emit_to_write_style(&mut buffer, &config, &file, &diagnostic);
    }
    buffer.into_inner()
}

pub fn render_short(report: &FileReport, findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let (line, col) = report.file.line_col(f.span.start);
        let severity = match f.severity {
            Severity::Warning => "warning",
            Severity::Error | Severity::Bug => "error",
            _ => "note",
        };
        out.push_str(&format!(
            "{}:{line}:{col}: {severity}: {} [{}]\n",
            report.file.path.display(),
            f.message,
            f.code
        ));
    }
    out
}

/// GitHub Actions workflow commands: `::warning file=...,line=...::message`.
pub fn render_github(report: &FileReport, findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let (line, col) = report.file.line_col(f.span.start);
        let (end_line, end_col) = report.file.line_col(f.span.end);
        let command = match f.severity {
            Severity::Error | Severity::Bug => "error",
            Severity::Warning => "warning",
            _ => "notice",
        };
        out.push_str(&format!(
            "::{command} file={},line={line},col={col},endLine={end_line},endColumn={end_col},title={}::{}\n",
            escape_property(&report.file.path.display().to_string()),
            escape_property(f.code),
            escape_data(&format!("{} ({})", f.message, f.label))
        ));
    }
    out
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The file and line of a wrapper class's array: a header's path, or this file's.
fn declaration_place(
    report: &FileReport,
    w: &crate::cuda_frontend::WrapperArray,
) -> (String, usize) {
    let file = if w.file.is_empty() {
        report.file.path.display().to_string()
    } else {
        w.file.clone()
    };
    (file, w.line)
}

/// The `accesses` entries of the JSON schema for one file.
pub fn json_accesses(report: &FileReport) -> Vec<Json> {
    report
        .findings
        .iter()
        .map(|f| {
            let (line, column) = report.file.line_col(f.span.start);
            let (end_line, end_column) = report.file.line_col(f.span.end);
            let entry = &report.arrays[f.array];
            let mut obj = json!({
                "file": report.file.path.display().to_string(),
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
                "kernel": f.function,
                "array": entry.decl.name,
                "kind": match f.op { Op::Load => "load", Op::Store => "store" },
                "access_bytes": f.width,
                "block_dim": f.shape.dims.map(|d| json!(d)).unwrap_or(Json::Null),
                "block_dim_source": f.shape.source.name(),
                "launch_arguments": f.shape.arguments.iter().map(|(n, v)| (n.clone(), json!(v))).collect::<serde_json::Map<String, Json>>(),
                "assumed_arguments": f.shape.assumed.iter().map(|(n, v)| (n.clone(), json!(v))).collect::<serde_json::Map<String, Json>>(),
            });
            let map = obj.as_object_mut().expect("object");
            match &f.status {
                Status::Analyzed => {
                    map.insert("status".into(), json!("analyzed"));
                    map.insert("reason".into(), Json::Null);
                    let (wf, ideal, ways) = f.worst.as_ref().map_or((0, 0, 1), |w| {
                        let v = &w.evaluation.verdict;
                        (v.wavefronts, v.ideal, v.conflict_ways)
                    });
                    map.insert("wavefronts".into(), json!(wf));
                    map.insert("ideal_wavefronts".into(), json!(ideal));
                    map.insert("conflict_ways".into(), json!(ways));
                    if let Some(t) = f.totals {
                        map.insert(
                            "block_totals".into(),
                            json!({"instructions": t.instructions, "wavefronts": t.wavefronts}),
                        );
                    }
                    if let Some(w) = &f.worst {
                        map.insert("worst_instance".into(), json!(w.label));
                    }
                }
                Status::Unknown(reason) => {
                    map.insert("status".into(), json!("unknown"));
                    map.insert("reason".into(), json!(reason));
                    map.insert("wavefronts".into(), Json::Null);
                    map.insert("ideal_wavefronts".into(), Json::Null);
                    map.insert("conflict_ways".into(), Json::Null);
                }
            }
            if !f.assumptions.is_empty() {
                map.insert("assumptions".into(), json!(f.assumptions));
            }
            if let Some(origin) = &f.origin {
                map.insert("written_in".into(), json!(origin));
            }
            // Wrapper-class memory: the class's declaration for each instantiation analyzed.
            let mut declared_in: Vec<Json> = Vec::new();
            for w in f.arrays_reached.iter().filter_map(|&a| report.arrays[a].decl.declared_in.as_ref()) {
                let (file, line) = declaration_place(report, w);
                let place = json!({"file": file, "line": line, "array": w.array, "class": w.class});
                if !declared_in.contains(&place) {
                    declared_in.push(place);
                }
            }
            if !declared_in.is_empty() {
                map.insert("declared_in".into(), json!(declared_in));
            }
            obj
        })
        .collect()
}

pub fn json_diagnostics(
    report: &FileReport,
    findings: &[Finding],
    options_arch: crate::arch::Arch,
) -> Vec<Json> {
    findings
        .iter()
        .map(|f| {
            let (line, column) = report.file.line_col(f.span.start);
            let severity = match f.severity {
                Severity::Warning => "warning",
                Severity::Error | Severity::Bug => "error",
                Severity::Help => "help",
                Severity::Note => "note",
            };
            let suggestion = f.fix.as_ref().map(|fix| {
                let (l, c) = report.file.line_col(fix.dim_span.start);
                let (el, ec) = report.file.line_col(fix.dim_span.end);
                json!({
                    "file": report.file.path.display().to_string(),
                    "line": l, "column": c, "end_line": el, "end_column": ec,
                    "replacement": fix.replacement,
                    "declaration": fix.declaration,
                    "bytes_added": fix.bytes_added,
                    "conflict_free": fix.conflict_free,
                    "applicability": match crate::autofix::applicability(report, fix, options_arch) {
                        crate::autofix::Applicability::Safe => "safe",
                        crate::autofix::Applicability::Suggestion(_) => "suggestion",
                    },
                })
            });
            json!({
                "code": f.code,
                "severity": severity,
                "file": report.file.path.display().to_string(),
                "line": line,
                "column": column,
                "message": f.message,
                "conflict_ways": f.conflict_ways,
                "notes": f.notes,
                "suggestion": suggestion,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_an_explanation() {
        for code in [
            BANK_CONFLICT,
            UNANALYZED_ACCESS,
            SKIPPED_CODE,
            BLOCK_SHAPE,
            SHARED_CAPACITY,
            INCLUDE_NOT_FOUND,
            EXPECTATION_FAILED,
            UNUSED_ALLOW,
            INVALID_ANNOTATION,
        ] {
            let text = crate::rules::explanation(code)
                .unwrap_or_else(|| panic!("no explanation for {code}"));
            assert!(
                text.contains("## What it does") && text.contains("## Why is this bad?"),
                "{code}"
            );
        }
    }

    #[test]
    fn lane_lists_compress() {
        assert_eq!(compress_lanes(&(0..32).collect::<Vec<_>>()), "0-31");
        assert_eq!(compress_lanes(&[0, 2, 4, 6]), "0, 2, ..., 6");
        assert_eq!(compress_lanes(&[0, 16]), "0 and 16");
        assert_eq!(compress_lanes(&[1, 5, 6]), "1, 5, 6");
    }
}
