//! SARIF 2.1.0 output (`--format sarif`) for GitHub code scanning and other SARIF viewers:
//! one run, the tool's rules with their `explain` text as help, and each finding as a
//! result with its region and, for bank conflicts, the padding fix as a SARIF `fix`.

use crate::lint::report::FileReport;
use crate::lint::rules::Finding;
use crate::lint::rules::Rule;
use codespan_reporting::diagnostic::Severity;
use serde_json::{Value, json};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error | Severity::Bug => "error",
        Severity::Warning => "warning",
        _ => "note",
    }
}

/// Forward slashes, no `./`, percent-encoded (RFC 3986): what code scanning matches
/// against repository paths.
fn uri(report: &FileReport) -> String {
    let path = &report.file.path;
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().replace('\\', "/").into_bytes();
    percent_encode(bytes.strip_prefix(b"./").unwrap_or(&bytes))
}

/// Every byte but RFC 3986's unreserved characters and the `/` separator as `%XX`. A `:`
/// is encoded too, so a relative path is never read as a scheme.
pub fn percent_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn region(report: &FileReport, span: &std::ops::Range<usize>) -> Value {
    let (sl, sc) = report.file.line_col(span.start);
    let (el, ec) = report.file.line_col(span.end.max(span.start));
    json!({"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec})
}

fn rules() -> Vec<Value> {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|rule| {
            let (code, text) = (rule.code(), rule.explanation());
            let short = text
                .lines()
                .skip_while(|l| !l.contains("## What it does"))
                .nth(1)
                .unwrap_or("")
                .trim()
                .to_string();
            json!({
                "id": code,
                "name": code.split('-').map(|w| {
                    let mut c = w.chars();
                    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
                }).collect::<String>(),
                "shortDescription": {"text": short},
                "fullDescription": {"text": text.trim()},
                "help": {"text": text.trim(), "markdown": text.trim()},
            })
        })
        .collect();
    rules
}

/// The SARIF results of one file.
pub fn results(report: &FileReport, findings: &[Finding]) -> Vec<Value> {
    let mut results = Vec::new();
    for f in findings {
        let rule_index = Rule::ALL.iter().position(|r| *r == f.code).unwrap_or(0);
        let mut result = json!({
            "ruleId": f.code.code(),
            "ruleIndex": rule_index,
            "level": level(f.severity),
            "message": {"text": format!("{}: {}", f.message, f.label)},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": uri(report)},
                    "region": region(report, &f.span),
                }
            }],
        });
        if let Some(fix) = &f.fix {
            result["fixes"] = json!([{
                "description": {"text": format!("Pad the innermost dimension: `{}`", fix.declaration)},
                "artifactChanges": [{
                    "artifactLocation": {"uri": uri(report)},
                    "replacements": [{
                        "deletedRegion": region(report, &fix.dim_span),
                        "insertedContent": {"text": fix.replacement},
                    }],
                }],
            }]);
        }
        results.push(result);
    }
    results
}

/// The whole SARIF log around every file's results.
pub fn document(results: Vec<Value>) -> Value {
    let rules = rules();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "banklint",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(
            super::percent_encode("src/a b/k#1%é:x.cu".as_bytes()),
            "src/a%20b/k%231%25%C3%A9%3Ax.cu"
        );
    }
}
