//! Diagnostics: turns file reports into what users read. Human output is rustc-style via
//! codespan-reporting (primary label on the subscript, secondary on the declaration,
//! `= note:` for the why, `help:` with the literal padded declaration); `short` is one
//! gcc-style line per finding for problem matchers; `json` is the stable schema of the README.

use crate::analysis::extraction::DeclaredElsewhere;
use crate::analysis::interp::ShapeSource;
use crate::bank::arch::Target;
use crate::bank::engine::bank_map;
use crate::lint::findings::{AccessFinding, Status};
use crate::lint::fix::PaddingFix;
use crate::lint::op_notes::compress_lanes;
use crate::lint::report::FileReport;
use crate::lint::rules::{Finding, Rule};
use codespan_reporting::diagnostic::Severity;

/// How findings are filtered and what extra checks run.
#[derive(Clone, Copy, Debug)]
pub struct ReportOptions<'a> {
    pub target: Target,
    pub warn_unused_allow: bool,
    /// Per-code level from the configuration: error, warning, note, or off.
    pub severity: &'a std::collections::BTreeMap<String, String>,
    /// Bank conflicts of fewer ways are not reported (`--min-ways`; 1 or 2 report all).
    pub min_ways: u32,
}

/// Builds every finding of a report, in file order, after `banklint:` annotations: allowed
/// findings are dropped, failed expectations added; then severities (`off` drops a code) and
/// the minimum conflict degree apply.
pub fn findings(report: &FileReport, options: ReportOptions) -> Vec<Finding> {
    let all = raw_findings(report, options.target);
    let mut out = apply_annotations(report, all, options);
    out.retain(|f| {
        f.code != Rule::BankConflict || f.conflict_ways.unwrap_or(0) >= options.min_ways
    });
    out.retain_mut(
        |f| match options.severity.get(f.code.code()).map(String::as_str) {
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
        },
    );
    out
}

fn apply_annotations(
    report: &FileReport,
    all: Vec<Finding>,
    options: ReportOptions,
) -> Vec<Finding> {
    use crate::lint::annotations::Directive;
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
        if f.code == Rule::BankConflict && asserted.contains(&f.span) {
            continue;
        }
        let at = line(f.span.start);
        let allowed_by = report.annotations.iter().position(|a| {
            let Directive::Allow(codes) = &a.directive else {
                return false;
            };
            codes.iter().any(|c| c == f.code.code())
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
                code: Rule::UnusedAllow,
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
            code: Rule::InvalidAnnotation,
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
        code: Rule::ExpectationFailed,
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
fn covers_function(
    report: &FileReport,
    a: &crate::lint::annotations::Annotation,
    offset: usize,
) -> bool {
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
    if reason.contains("the size of dimension") {
        return format!(
            "help: the array's size must be a compile-time constant: if it is a macro or constant from a header, pass `-I` for that header or define it with `-D NAME=VALUE`; {silence}"
        );
    }
    if reason.contains("the slice's coordinate") {
        return format!(
            "help: CuTe does not check a slice's coordinates: compare the loop's bound or the coordinate with the tensor's shape (`size<K>(t)`); where banklint does not know that bound, the trips it assumed may run past it; {silence}"
        );
    }
    if reason.contains("declared nowhere banklint reads") {
        return format!(
            "help: give the type as the build does (`-D NAME=float2`, a `typedef` in a header banklint reads, or `-I` for that header), and its fields are laid out; {silence}"
        );
    }
    if reason.contains("a member of a struct banklint does not track")
        || reason.contains("a value of class type")
    {
        return format!(
            "help: a member is followed in an object banklint builds (a local of a class it lays out, set field by field or by its constructor); a struct a call returns or each lane loads is unknown in each lane; {silence}"
        );
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
    if reason.contains("was not measured") {
        return format!(
            "help: Nsight Compute measures it (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom`); {silence}"
        );
    }
    if reason.starts_with("no thread reaches it") && reason.contains("has returned before it") {
        return format!(
            "help: as banklint reads this configuration, every thread takes that `return`; code compiled out for the architecture analyzed (under `#if __CUDA_ARCH__` or a feature macro) is checked with the `--arch` that runs it; otherwise check the block shape and values banklint used (`// banklint: block(X, Y)`, `// banklint: args(NAME = VALUE)`); {silence}"
        );
    }
    if reason.starts_with("no thread reaches it") {
        return format!(
            "help: if this code runs, check the block shape and the values banklint used (`// banklint: block(X, Y)`, `// banklint: args(NAME = VALUE)`); {silence}"
        );
    }
    if reason.contains("is not modeled") || reason.contains("not valid PTX") {
        return format!(
            "help: banklint recognizes this operation but does not price it; Nsight Compute measures it on the GPU; {silence}"
        );
    }
    if reason.contains("whose size is not known")
        || reason.contains("the size of `")
        || reason.contains("whose layout banklint does not know")
    {
        return format!(
            "help: banklint lays a type out from its definition: pass `-I DIR` for the header that defines it or its sizes (a library's, such as CUB's `TempStorage`); {silence}"
        );
    }
    if reason.contains("element type") {
        return format!(
            "help: declare the element type in this file or a header banklint follows (`-I DIR`); {silence}"
        );
    }
    format!(
        "help: if it comes from a kernel parameter, give its value with `// banklint: args(NAME = VALUE)` on the line before the kernel; from a template parameter, with a launch or `// banklint: instantiate(NAME = VALUE)`; or make it a `#define` or constant; {silence}"
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
                    code: Rule::UnanalyzedAccess,
                    severity: Severity::Note,
                    span: f.span.clone(),
                    message: format!("could not analyze this {} of `{array}`", f.op.noun()),
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
        notes.extend(b.sizes_unknown.iter().map(|name| {
            format!("`{name}`: not counted, its size is not a constant banklint can evaluate")
        }));
        notes.push(format!(
            "{} allows {} bytes ({} KB) of static shared memory per block; larger buffers must be dynamic (`extern __shared__`) and opted into with cudaFuncSetAttribute",
            target.arch,
            b.limit(target.arch),
            b.limit(target.arch) / 1024
        ));
        out.push(Finding {
            code: Rule::SharedCapacity,
            severity: Severity::Error,
            span: b.span.clone(),
            message: format!(
                "kernel `{}` needs {}{} bytes of static shared memory, over the {}-byte limit of {}",
                b.kernel,
                if b.sizes_unknown.is_empty() { "" } else { "at least " },
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
        if report
            .include_problems
            .iter()
            .any(|p| p.span == *span && p.nested.is_none())
        {
            continue;
        }
        out.push(Finding {
            code: Rule::IncludeNotFound,
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
    for p in &report.include_problems {
        let message = match &p.nested {
            None => format!("header `{}` was not read: {}", p.name, p.reason),
            Some(n) => format!(
                "header `{n}`, included through `{}`, was not read: {}",
                p.name, p.reason
            ),
        };
        out.push(Finding {
            code: Rule::IncludeNotFound,
            severity: if p.input_error {
                Severity::Error
            } else {
                Severity::Note
            },
            span: p.span.clone(),
            message,
            label: "not read".into(),
            secondary: None,
            notes: vec!["the macros and types it defines are unknown to the analysis".into()],
            conflict_ways: None,
            fix: None,
        });
    }
    if let Some((at, count)) = report.file.replaced {
        let (line, col) = report.file.line_col(at);
        out.push(Finding {
            code: Rule::SourceEncoding,
            severity: Severity::Note,
            span: at..at + 1,
            message: format!(
                "{count} byte{} in comments or string literals {} not UTF-8, shown as `?`; the first at line {line}, column {col}",
                if count == 1 { "" } else { "s" },
                if count == 1 { "is" } else { "are" },
            ),
            label: "not UTF-8".into(),
            secondary: None,
            notes: vec!["compilers accept any bytes there; the file was analyzed".into()],
            conflict_ways: None,
            fix: None,
        });
    }
    for t in &report.tma {
        let name = &report.arrays[t.copy.array].decl.name;
        let line = report.file.line_col(t.copy.span.start).0;
        out.push(crate::lint::rules::tma_swizzle::finding(t, name, line));
    }
    for o in &report.shift_overflows {
        let one_line = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let in_macro =
            report.file.text.get(o.span.clone()).map(one_line) != Some(one_line(&o.written));
        out.push(crate::lint::rules::shift_overflow::finding(o, in_macro));
    }
    out.extend(crate::lint::rules::unreached_array::findings(report));
    for s in &report.skipped {
        out.push(Finding {
            code: Rule::SkippedCode,
            severity: Severity::Note,
            span: s.span.clone(),
            message: "code banklint skipped: shared-memory accesses in it are not analyzed"
                .to_string(),
            label: s.reason.clone(),
            secondary: None,
            notes: Vec::new(),
            conflict_ways: None,
            fix: None,
        });
    }
    for u in &report.unresolved_launches {
        let (message, note) = match &u.annotation {
            None if u.configurations.is_some() => (
                "some configurations of this kernel are not analyzed".to_string(),
                "a launch or an `// banklint: instantiate(...)` annotation in this file names the configuration to analyze".to_string(),
            ),
            None => (
                "block shape of this launch is not used".to_string(),
                match launched_kernel(report, u.span.start)
                    .and_then(|k| block_annotation(report, &k).map(|a| (k, a)))
                {
                    // Advice to add what is there would mislead: say what is used instead.
                    Some((kernel, annotation)) => format!(
                        "the `{annotation}` annotation above `{kernel}` gives the shape instead"
                    ),
                    None => "add `// banklint: block(X, Y)` on the line before the kernel, or pass --block-dim".to_string(),
                },
            ),
            Some(what) => (
                format!("`banklint: {what}` is not used"),
                "name the kernel's parameters as declared".to_string(),
            ),
        };
        out.push(Finding {
            code: Rule::BlockShape,
            severity: Severity::Note,
            span: u.span.clone(),
            message,
            label: u.reason.clone(),
            secondary: None,
            notes: vec![note],
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
    notes.extend(crate::lint::op_notes::op_note(f.op, v));
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
        let declarer = w.declarer();
        notes.push(match w {
            DeclaredElsewhere::Wrapper(_) => format!(
                "`{name}` is `{}`, the dynamic shared memory that `{declarer}` declares at {file}:{line}",
                w.array()
            ),
            DeclaredElsewhere::Function { .. } => format!(
                "`{name}` is `{declarer}`'s own array, declared at {file}:{line}; it is analyzed with this call's arguments and block"
            ),
        });
    }
    notes.push(context_note(report, f, target));
    if let Some(n) = element_size_note(f) {
        notes.push(n);
    }
    for a in &f.assumptions {
        notes.push(a.clone());
    }
    if let Some(hint) = &f.hint {
        notes.push(hint.clone());
    }
    if let Some(fix) = report.fix_for(f.array) {
        let mut help = help_text(fix, name, &fix.costs);
        match fix.applicability {
            crate::lint::applicability::Applicability::Safe => {
                help.push_str(" [applied by `banklint check --fix`]")
            }
            crate::lint::applicability::Applicability::Suggestion(why) => {
                help.push_str(&format!(" [not applied by --fix: {why}]"));
            }
        }
        notes.push(help);
    }
    let base = crate::analysis::interp::viewed_array(&report.arrays, f.array);
    let elem = report.arrays[base]
        .layout
        .as_ref()
        .map_or(1, |l| l.elem_size);
    if let Some(swizzle) = report.swizzle_for(f.array) {
        notes.push(swizzle.help(name, elem));
    }
    if let Some(fix) = report.tma_fixes.iter().find(|t| t.array == base) {
        notes.push(fix.help(name, elem));
    }
    notes.push(format!(
        "for more, run `banklint explain {}`",
        Rule::BankConflict
    ));
    Finding {
        code: Rule::BankConflict,
        severity: Severity::Warning,
        span: f.span.clone(),
        message,
        label: format!(
            "{} of {} byte{} per lane, {ways}-way conflict",
            f.op.noun(),
            f.width,
            if f.width == 1 { "" } else { "s" }
        ),
        secondary: declared_label(entry, name, &f.span),
        notes,
        conflict_ways: Some(ways),
        fix: report.fix_for(f.array).cloned(),
    }
}

fn help_text(fix: &PaddingFix, name: &str, costs: &[crate::lint::budget::FixCost]) -> String {
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
pub fn bank_note(target: Target, worst: &crate::lint::findings::Worst) -> String {
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
    if let Some(note) =
        crate::lint::op_notes::per_lane_bank_note(worst.evaluation.access.op, &hot, &phase_text)
    {
        return note;
    }
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

/// For a template nothing instantiates, analyzed once per element size of its type
/// parameters: what each size gives, when they differ.
pub fn element_size_note(f: &AccessFinding) -> Option<String> {
    let verdicts: Vec<&Option<u32>> = f.by_element_size.iter().map(|(_, w)| w).collect();
    if verdicts.len() < 2 || verdicts.windows(2).all(|w| w[0] == w[1]) {
        return None;
    }
    let parts: Vec<String> = f
        .by_element_size
        .iter()
        .map(|(binding, ways)| {
            let verdict = match ways {
                Some(1) => "conflict-free".to_string(),
                Some(n) => format!("{n}-way"),
                None => "not analyzed".to_string(),
            };
            format!("{binding}: {verdict}")
        })
        .collect();
    // `T = __half` -> `T`: the parameter an `instantiate` annotation would pin.
    // An index type bound to `int` stays `int`; element types are pinned to `float`.
    let params: Vec<(&str, &str)> = f
        .by_element_size
        .first()
        .map(|(binding, _)| {
            binding
                .split(", ")
                .filter_map(|b| b.split_once(" = "))
                .collect()
        })
        .unwrap_or_default();
    let pin = params
        .iter()
        .map(|(p, v)| format!("{p} = {}", if *v == "int" { "int" } else { "float" }))
        .collect::<Vec<_>>()
        .join(", ");
    // A type the host defines is pinned the way the host does it.
    let pin = if f.shape.undeclared_types.is_empty() {
        format!("with a launch or `// banklint: instantiate({pin})` above the kernel")
    } else {
        let defines: Vec<String> = f
            .shape
            .undeclared_types
            .iter()
            .map(|n| format!("-D {n}=float"))
            .collect();
        format!("as the host does, with `{}`", defines.join(" "))
    };
    Some(format!(
        "{}, so it was analyzed for each element size: {}; \
         the worst is reported (pin the type {pin}, or silence with an allow)",
        f.shape.why_types_assumed(),
        parts.join("; ")
    ))
}

/// Where the verdict holds: the target, the block shape and where it came from, template and
/// argument values, per-block totals.
pub fn context_note(report: &FileReport, f: &AccessFinding, target: Target) -> String {
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
            let launched = report
                .unresolved_launches
                .iter()
                .filter(|u| u.annotation.is_none())
                .any(|u| launched_kernel(report, u.span.start).as_deref() == Some(&f.function));
            if launched {
                "(its launch's block shape is not a compile-time constant; add `// banklint: block(X, Y)` above the kernel)".to_string()
            } else {
                "(no launch or annotation found; add `// banklint: block(X, Y)` above the kernel)"
                    .to_string()
            }
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
    if !shape.path.is_empty() {
        let sides: Vec<String> = shape.path.iter().map(|d| d.describe()).collect();
        text.push_str(&format!(", where {}", sides.join(" and ")));
    }
    let assumed_types = shape.describe_assumed_types();
    if !assumed_types.is_empty() {
        text.push_str(&format!(
            ", with {assumed_types} assumed ({})",
            shape.why_types_assumed()
        ));
    }
    if f.shapes_analyzed > 1 {
        text.push_str(&format!(
            ", the worst of {} analyses of it (launch shapes, instantiations, paths)",
            f.shapes_analyzed
        ));
    }
    if let Some(t) = f.totals {
        // With no block shape one warp was analyzed: its totals are not a block's.
        text.push_str(&format!(
            "; per {}: {} instruction{}, {} wavefronts (ideal {})",
            if shape.dims.is_some() {
                "block"
            } else {
                "warp"
            },
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

/// The kernel a launch at `offset` (inside its `<<<...>>>`) starts: the name before `<<<`,
/// past any template arguments, without its namespace.
fn launched_kernel(report: &FileReport, offset: usize) -> Option<String> {
    let text = report.file.text.get(..offset)?;
    let before = text[..text.rfind("<<<")?].trim_end();
    let mut end = before.len();
    if before.ends_with('>') {
        // Skip `<...>` template arguments, nested ones included.
        let mut depth = 0usize;
        for (i, c) in before.char_indices().rev() {
            match c {
                '>' => depth += 1,
                '<' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let head = before[..end].trim_end();
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let name = &head[start..];
    (!name.is_empty()).then(|| name.to_string())
}

/// The `banklint: block(...)` annotation on the comment lines directly above kernel `name`
/// (or its `template` line), as written.
fn block_annotation(report: &FileReport, name: &str) -> Option<String> {
    report
        .functions
        .iter()
        .filter(|(n, _, kernel)| *kernel && n.rsplit("::").next() == Some(name))
        .find_map(|(_, span, _)| {
            let mut line = report.file.line_index(span.start);
            while line > 0 {
                line -= 1;
                let text = report.file.text[report.file.line_span(line)].trim();
                if let Some(at) = text.find("banklint: block(") {
                    let rest = &text[at..];
                    return Some(rest[..rest.find(')').map_or(rest.len(), |i| i + 1)].to_string());
                }
                if !(text.starts_with("//")
                    || text.starts_with("/*")
                    || text.starts_with("template"))
                {
                    break;
                }
            }
            None
        })
}

/// The file and line of a wrapper class's array: a header's path, or this file's.
/// The secondary label at the array's declaration, or at the first call that runs a header
/// function with an array of its own (none when that call is the access's own place).
fn declared_label(
    entry: &crate::analysis::interp::ArrayEntry,
    name: &str,
    access: &std::ops::Range<usize>,
) -> Option<(std::ops::Range<usize>, String)> {
    let at = entry.decl.decl_span.clone();
    match &entry.decl.declared_in {
        Some(w @ DeclaredElsewhere::Function { .. }) => (at != *access).then(|| {
            let declarer = w.declarer();
            (
                at,
                format!("`{name}` is `{declarer}`'s own array, first run at this call"),
            )
        }),
        _ => Some((at, format!("`{name}` declared here"))),
    }
}

pub fn declaration_place(report: &FileReport, w: &DeclaredElsewhere) -> (String, usize) {
    let (file, line) = w.place();
    let file = if file.is_empty() {
        report.file.path.display().to_string()
    } else {
        file.to_string()
    };
    (file, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_documentation_and_a_unique_code() {
        for rule in Rule::ALL {
            let text = rule.explanation();
            assert!(
                text.contains("## What it does") && text.contains("## Why is this bad?"),
                "{rule}"
            );
            assert_eq!(Rule::from_code(rule.code()), Some(rule));
        }
    }
}
