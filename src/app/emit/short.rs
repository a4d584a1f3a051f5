//! Short output: `file:line:col: severity: message [code]`, one line per diagnostic, for
//! gcc-style problem matchers.

use crate::lint::diagnostics::Finding;
use crate::lint::report::FileReport;
use codespan_reporting::diagnostic::Severity;

pub fn render(report: &FileReport, findings: &[Finding]) -> String {
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
            f.code.code()
        ));
    }
    out
}
