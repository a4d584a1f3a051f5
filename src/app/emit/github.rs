//! GitHub Actions workflow commands: annotations on the pull request.

use crate::lint::report::FileReport;
use crate::lint::rules::Finding;
use codespan_reporting::diagnostic::Severity;

/// GitHub Actions workflow commands: `::warning file=...,line=...::message`.
pub fn render(report: &FileReport, findings: &[Finding]) -> String {
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
            escape_property(f.code.code()),
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
