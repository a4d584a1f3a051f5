//! Findings as LSP diagnostics: the range of the access (or annotation, launch, header), the
//! severity after `[severity]` (notes are Information), the rule code with a link to its
//! documentation, the `__shared__` declaration and the notes as related information.
//!
//! The documentation link: banklint has no documentation site, so each rule's text (what
//! `banklint explain CODE` prints, from the binary itself) is written once per version to
//! `<cache>/banklint/<version>/rules/<code>.md` and linked as a `file://` URI: it always
//! matches the installed binary and needs no network.

use crate::app::server::text::{LineIndex, path_to_uri};
use crate::lint::rules::Finding;
use crate::lint::rules::Rule;
use codespan_reporting::diagnostic::Severity;
use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Uri,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const SOURCE: &str = "banklint";

/// Where each rule's documentation is, when it could be written.
#[derive(Clone, Default)]
pub struct RuleDocs {
    links: HashMap<Rule, Uri>,
}

impl RuleDocs {
    /// Writes the rule documentation under `root` (if not already there with this text) and
    /// links it; a rule whose file cannot be written gets no link.
    pub fn write_under(root: &Path) -> RuleDocs {
        let dir = root
            .join("banklint")
            .join(env!("CARGO_PKG_VERSION"))
            .join("rules");
        let mut links = HashMap::new();
        if std::fs::create_dir_all(&dir).is_err() {
            return RuleDocs { links };
        }
        for rule in Rule::ALL {
            let path = dir.join(format!("{}.md", rule.code()));
            let text = rule.documentation();
            let current = std::fs::read_to_string(&path).ok();
            let written =
                current.as_deref() == Some(text.as_str()) || write_atomically(&path, &text).is_ok();
            let absolute = std::fs::canonicalize(&path).unwrap_or(path);
            if let Some(uri) = written.then(|| path_to_uri(&absolute)).flatten() {
                links.insert(rule, uri);
            }
        }
        RuleDocs { links }
    }

    /// The user's cache directory: `$XDG_CACHE_HOME`, `~/.cache`, else the temporary one.
    pub fn default_root() -> PathBuf {
        std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir)
    }

    pub fn link(&self, rule: Rule) -> Option<&Uri> {
        self.links.get(&rule)
    }
}

/// Several servers may start at once: each writes its own file and renames it into place.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("md.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Bug | Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
        Severity::Help => DiagnosticSeverity::HINT,
    }
}

/// One finding as a diagnostic of the document `uri`.
pub fn to_lsp(f: &Finding, index: &LineIndex<'_>, uri: &Uri, docs: &RuleDocs) -> Diagnostic {
    let range = index.range(&f.span);
    let mut related = Vec::new();
    if let Some((span, text)) = &f.secondary {
        related.push(DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), index.range(span)),
            message: text.clone(),
        });
    }
    for note in &f.notes {
        related.push(DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), range),
            message: note.clone(),
        });
    }
    // The label says why (a reason, a header's place); a conflict's repeats its message.
    let message =
        if f.label.is_empty() || matches!(f.code, Rule::BankConflict | Rule::InvalidAnnotation) {
            f.message.clone()
        } else {
            format!("{}: {}", f.message, f.label)
        };
    Diagnostic {
        range,
        severity: Some(severity(f.severity)),
        code: Some(NumberOrString::String(f.code.code().to_string())),
        code_description: docs
            .link(f.code)
            .map(|href| CodeDescription { href: href.clone() }),
        source: Some(SOURCE.to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

/// The diagnostic shown when the analysis itself failed on this text.
pub fn crash(message: &str) -> Diagnostic {
    Diagnostic {
        range: lsp_types::Range::default(),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some(SOURCE.to_string()),
        message: format!(
            "banklint failed on this text ({message}); please report it with the file"
        ),
        ..Diagnostic::default()
    }
}
