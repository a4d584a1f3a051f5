//! Short output: `file:line:col: severity: message [code]`, one line per diagnostic, for
//! gcc-style problem matchers. Control characters in the path or message (a file name with
//! a newline) are escaped (`\n`, `\t`, `\x1b`), so a diagnostic is always one line.

use crate::lint::report::FileReport;
use crate::lint::rules::Finding;
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
            one_line(&report.file.path.display().to_string()),
            one_line(&f.message),
            f.code.code()
        ));
    }
    out
}

/// `s` with control characters escaped.
pub fn one_line(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\r' => "\\r".to_string(),
            '\t' => "\\t".to_string(),
            c if c.is_control() => format!("\\x{:02x}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(super::one_line("a\nb\tc\u{1b}.cu"), "a\\nb\\tc\\x1b.cu");
        assert_eq!(super::one_line("plain.cu"), "plain.cu");
    }
}
