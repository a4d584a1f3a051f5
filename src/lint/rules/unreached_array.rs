//! `unreached-array`: a `__shared__` array declared in the file that no access analyzed or
//! reported reaches, with why, so that no declaration is lost without a word.

use crate::lint::report::FileReport;
use crate::lint::rules::Finding;
use crate::lint::rules::Rule;
use codespan_reporting::diagnostic::Severity;

rule! {
    /// ## What it does
    /// Names a `__shared__` array declared in the file that no access banklint analyzed
    /// reaches, neither as a verdict nor as an `unanalyzed-access` note, and says why: it is
    /// declared in a device function that no kernel of the file calls (a header's device
    /// functions are analyzed where the kernels of the files including it call them), in a
    /// kernel whose code never names it after the declaration, or at file scope where no
    /// kernel analyzed uses it.
    ///
    /// ## Why is this bad?
    /// It is not bad in itself: it says what was not checked, so that a clean report is not
    /// read as a verdict on code banklint did not reach. Where a pointer into the array leaves
    /// what the analysis follows, or the declaration is in skipped code, the `skipped-code`
    /// note says so and this one is not given.
    ///
    /// ## Example
    /// ```cuda
    /// __device__ float *scratch() {
    ///     static __shared__ float s[64];   // note: no kernel of this file calls `scratch`
    ///     return s;
    /// }
    /// ```
    UnreachedArray, "unreached-array"
}

/// One note per declaration of the file that nothing reached.
pub fn findings(report: &FileReport) -> Vec<Finding> {
    let reached = |a: usize| {
        report.findings.iter().any(|f| {
            f.array == a
                || crate::analysis::interp::viewed_array(&report.arrays, f.array) == a
                || f.arrays_reached.contains(&a)
        })
    };
    let mut out: Vec<Finding> = Vec::new();
    let mut seen: Vec<(usize, &str)> = Vec::new();
    for entry in &report.arrays {
        let decl = &entry.decl;
        let key = (decl.decl_span.start, decl.name.as_str());
        if entry.byte_view_of.is_some() || decl.declared_in.is_some() || seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let same = |b: usize| {
            let d = &report.arrays[b].decl;
            d.decl_span.start == key.0 && d.name == key.1
        };
        if (0..report.arrays.len()).any(|b| same(b) && reached(b)) {
            continue;
        }
        // Said already: skipped code around it or naming it, or a pointer into it that
        // leaves the analysis.
        let leaves = crate::analysis::interp::pointer_into(&decl.name);
        let names_it = |span: &std::ops::Range<usize>| {
            let text = report.file.text.get(span.clone()).unwrap_or("");
            crate::front::lex::tokenize(text)
                .iter()
                .any(|t| t.text(text) == decl.name)
        };
        if report.skipped.iter().any(|s| {
            s.reason.contains(&leaves)
                || (s.span.start <= decl.name_span.start && decl.name_span.end <= s.span.end)
                || names_it(&s.span)
        }) {
            continue;
        }
        out.push(Finding {
            code: Rule::UnreachedArray,
            severity: Severity::Note,
            span: decl.name_span.clone(),
            message: format!("no access to `{}` was analyzed", decl.name),
            label: why(report, decl),
            secondary: None,
            notes: Vec::new(),
            conflict_ways: None,
            fix: None,
        });
    }
    out
}

/// Why nothing reached the array: where it is declared and what of that banklint ran.
fn why(report: &FileReport, decl: &crate::analysis::extraction::SharedArray) -> String {
    let at = decl.name_span.start;
    let function = (report.functions.iter())
        .filter(|(_, span, _)| span.start <= at && at < span.end)
        .min_by_key(|(_, span, _)| span.len());
    let used_after = |name: &str, span: &std::ops::Range<usize>| {
        let rest = report
            .file
            .text
            .get(decl.decl_span.end..span.end)
            .unwrap_or("");
        crate::front::lex::tokenize(rest)
            .iter()
            .any(|t| t.text(rest) == name)
    };
    match function {
        Some((name, _, false)) => format!(
            "it is declared in the device function `{name}`, which no kernel banklint analyzed in this file calls (a header's device functions are analyzed at the calls of the kernels that include it)"
        ),
        Some((name, span, true)) if !used_after(&decl.name, span) => {
            format!("the kernel `{name}` never names it after this declaration")
        }
        Some((name, _, true)) => format!(
            "the kernel `{name}` names it, but no access to it was reached in the code banklint analyzed (a `skipped-code` note may say what was not followed)"
        ),
        None => "it is declared outside any function banklint analyzed, and no kernel analyzed in this file accesses it".to_string(),
    }
}
