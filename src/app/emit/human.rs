//! Human output: rustc-style diagnostics with source snippets, through codespan-reporting.

use crate::lint::report::FileReport;
use crate::lint::rules::Finding;
use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};

pub fn render(report: &FileReport, findings: &[Finding], color: bool) -> Vec<u8> {
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
            .with_code(f.code.code())
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
