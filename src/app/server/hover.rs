//! Hover on a shared-memory access: its verdict and cost, where they hold (block shape,
//! launch, per-block totals), the worst warp instruction, and the lane-to-bank picture of
//! that instruction, drawn by the same code as `banklint simulate`; for a conflict, the
//! padding that fixes it, as the diagnostic's help says it.

use crate::app::server::analysis::Analysis;
use crate::app::simulate::{Simulation, render_human};
use crate::lint::diagnostics::context_note;
use crate::lint::findings::{AccessFinding, Status};
use std::fmt::Write as _;
use std::ops::Range;

/// The hover text (Markdown) and the span it is about, for the access at `offset`.
pub fn hover(analysis: &Analysis, offset: usize) -> Option<(String, Range<usize>)> {
    let report = &analysis.report;
    // The innermost access under the cursor (`s[s[i]]`), with all its operations
    // (`s[i] += x` is a load and a store).
    let under: Vec<&AccessFinding> = report
        .findings
        .iter()
        .filter(|f| f.span.start <= offset && offset <= f.span.end)
        .collect();
    let smallest = under.iter().map(|f| f.span.len()).min()?;
    let shown: Vec<&AccessFinding> = under
        .into_iter()
        .filter(|f| f.span.len() == smallest)
        .collect();
    let span = shown[0].span.clone();
    let mut out = String::new();
    for (k, f) in shown.iter().enumerate() {
        if k > 0 {
            out.push_str("\n---\n\n");
        }
        describe(analysis, f, &mut out);
    }
    // The padding fix, as the diagnostic's help gives it.
    let helps: Vec<&String> = analysis
        .findings
        .iter()
        .filter(|d| d.span == span)
        .flat_map(|d| d.notes.iter().filter(|n| n.starts_with("help:")))
        .collect();
    if let Some(help) = helps.first() {
        let _ = write!(out, "\n{help}\n");
    }
    Some((out, span))
}

fn describe(analysis: &Analysis, f: &AccessFinding, out: &mut String) {
    let report = &analysis.report;
    let name = &report.arrays[f.array].decl.name;
    let what = format!("{} of {} byte{}", f.op.noun(), f.width, plural(f.width));
    let worst = match (&f.status, &f.worst) {
        (Status::Unknown(reason), _) => {
            let _ = writeln!(out, "**`{name}`: {what}, not analyzed**\n\n{reason}");
            return;
        }
        (Status::Analyzed, None) => {
            let _ = writeln!(
                out,
                "**`{name}`: {what}**\n\nno thread executes this access with block {}",
                f.shape.describe()
            );
            return;
        }
        (Status::Analyzed, Some(w)) => w,
    };
    let v = &worst.evaluation.verdict;
    let verdict = if v.conflict_ways > 1 {
        format!("{}-way bank conflict", v.conflict_ways)
    } else {
        "conflict-free".to_string()
    };
    let _ = writeln!(
        out,
        "**`{name}`: {what}, {verdict}** ({} wavefront{} per warp, ideal {})\n",
        v.wavefronts,
        plural(v.wavefronts),
        v.ideal
    );
    let _ = writeln!(out, "{}\n", context_note(report, f, analysis.target));
    let _ = writeln!(out, "worst instruction: {}\n", worst.label);
    if let Some(origin) = &f.origin {
        let _ = writeln!(out, "the access is in {origin}, called here\n");
    }
    let picture = render_human(
        &Simulation {
            target: analysis.target,
            access: worst.evaluation.access.clone(),
        },
        v,
    );
    let _ = writeln!(out, "```text\n{}```", picture);
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}
