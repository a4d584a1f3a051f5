//! Code actions on the findings of the requested lines: the padding fix of a bank conflict
//! (a WorkspaceEdit replacing the innermost dimension's text, preferred only when `--fix`
//! would apply it, i.e. its applicability is Safe), and an allow comment for the finding's
//! code on its line (added to an `allow(...)` already there, else appended to the line;
//! annotations work anywhere in a comment, so after an existing comment too).

use crate::app::server::analysis::Analysis;
use crate::app::server::diagnostics::{RuleDocs, to_lsp};
use crate::app::server::text::LineIndex;
use crate::front::annotation_syntax::{self, Directive};
use crate::lint::applicability::Applicability;
use crate::lint::rules::Rule;
use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, TextEdit, Uri, WorkspaceEdit};
use std::collections::HashMap;
use std::ops::Range;

/// The actions for the findings that start on the lines of `span` (a cursor or a selection).
pub fn actions(
    analysis: &Analysis,
    index: &LineIndex<'_>,
    uri: &Uri,
    span: Range<usize>,
    docs: &RuleDocs,
) -> Vec<CodeActionOrCommand> {
    let lines = index.line_of(span.start)..=index.line_of(span.end);
    let mut out = Vec::new();
    let mut padded = Vec::new();
    let mut allowed: Vec<(usize, Rule)> = Vec::new();
    for f in &analysis.findings {
        let line = index.line_of(f.span.start);
        if !lines.contains(&line) {
            continue;
        }
        let diagnostic = to_lsp(f, index, uri, docs);
        if let Some(fix) = &f.fix
            && !padded.contains(&fix.array)
        {
            padded.push(fix.array);
            let name = &analysis.report.arrays[fix.array].decl.name;
            let mut title = format!(
                "Pad `{name}` by {} element{}: `{}`",
                fix.pad,
                if fix.pad == 1 { "" } else { "s" },
                fix.declaration
            );
            if let Applicability::Suggestion(why) = fix.applicability {
                title.push_str(&format!(" (not applied by --fix: {why})"));
            }
            out.push(action(
                title,
                uri,
                vec![TextEdit::new(
                    index.range(&fix.dim_span),
                    fix.replacement.clone(),
                )],
                diagnostic.clone(),
                fix.applicability == Applicability::Safe,
            ));
        }
        if allowable(f.code) && !allowed.contains(&(line, f.code)) {
            allowed.push((line, f.code));
            if let Some(edit) = allow_edit(&analysis.text, index, line, f.code) {
                out.push(action(
                    format!(
                        "Allow `{}` on this line: `// banklint: allow({})`",
                        f.code, f.code
                    ),
                    uri,
                    vec![edit],
                    diagnostic,
                    false,
                ));
            }
        }
    }
    out
}

/// Codes an `allow(...)` can silence (the others are about annotations themselves).
fn allowable(code: Rule) -> bool {
    !matches!(
        code,
        Rule::ExpectationFailed | Rule::UnusedAllow | Rule::InvalidAnnotation
    )
}

fn action(
    title: String,
    uri: &Uri,
    edits: Vec<TextEdit>,
    diagnostic: lsp_types::Diagnostic,
    preferred: bool,
) -> CodeActionOrCommand {
    CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic]),
        edit: Some(WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        }),
        is_preferred: preferred.then_some(true),
        ..CodeAction::default()
    })
}

/// The edit that allows `code` on `line`: into an `allow(...)` already on the line, else a
/// comment at the end of the line. `None` on a line continued by a backslash, where a `//`
/// comment would swallow the next line.
pub fn allow_edit(text: &str, index: &LineIndex<'_>, line: usize, code: Rule) -> Option<TextEdit> {
    let span = index.line_span(line);
    let line_text = &text[span.clone()];
    if line_text.trim_end().ends_with('\\') {
        return None;
    }
    let comments = crate::front::lex::lex(text).comments;
    for c in comments
        .iter()
        .filter(|c| c.span.start >= span.start && c.span.start < span.end)
    {
        for found in annotation_syntax::find(&c.body) {
            if let Ok(Directive::Allow(_)) = found.parsed {
                // Before the `)`: the body starts after the two-character delimiter.
                let close = c.span.start + 2 + found.range.end - 1;
                return Some(TextEdit::new(
                    index.range(&(close..close)),
                    format!(", {code}"),
                ));
            }
        }
    }
    let end = span.start + line_text.trim_end().len();
    let separator = if line_text.trim().is_empty() {
        ""
    } else {
        "  "
    };
    Some(TextEdit::new(
        index.range(&(end..end)),
        format!("{separator}// banklint: allow({code})"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::server::text::{Encoding, apply_change};

    fn allowed(text: &str, line: usize) -> Option<String> {
        let index = LineIndex::new(text, Encoding::Utf16);
        let edit = allow_edit(text, &index, line, Rule::BankConflict)?;
        let mut out = text.to_string();
        apply_change(&mut out, Some(edit.range), &edit.new_text, Encoding::Utf16);
        Some(out)
    }

    #[test]
    fn allow_comments_go_where_annotations_are_read() {
        assert_eq!(
            allowed("x = s[i];   \ny;\n", 0).unwrap(),
            "x = s[i];  // banklint: allow(bank-conflict)   \ny;\n"
        );
        assert_eq!(
            allowed("x = s[i]; // column\r\n", 0).unwrap(),
            "x = s[i]; // column  // banklint: allow(bank-conflict)\r\n"
        );
        assert_eq!(
            allowed("x = s[i]; // banklint: allow(skipped-code) why\n", 0).unwrap(),
            "x = s[i]; // banklint: allow(skipped-code, bank-conflict) why\n"
        );
        assert_eq!(allowed("#define L(i) s[i] \\\n  + 1\n", 0), None);
    }
}
