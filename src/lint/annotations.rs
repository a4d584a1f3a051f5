//! Annotation comments: `// banklint: allow(bank-conflict)` suppresses findings on its line,
//! the next line, or (on the lines above a kernel) the whole kernel; `// banklint:
//! expect(conflict-free)` / `expect(2-way)` asserts what an access must be, and fails when
//! the analysis disagrees, so layouts (paddings, swizzles) stay guarded in CI. Annotations
//! are found anywhere in a comment (`x = s[i]; // column read  // banklint: allow(...)`);
//! their syntax is `front::annotation_syntax`'s.

use crate::front::annotation_syntax as syntax;
pub use crate::front::annotation_syntax::Expected;
use crate::front::lex::Comment;
use crate::front::source::SourceFile;
use std::ops::Range;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Directive {
    Allow(Vec<String>),
    Expect(Expected),
}

/// One annotation and the lines (0-based) it covers.
#[derive(Clone, Debug)]
pub struct Annotation {
    pub directive: Directive,
    pub span: Range<usize>,
    /// The comment's own line, and the next one when the comment stands alone on its line.
    pub lines: Range<usize>,
}

/// Parses `banklint:` annotations, wherever they stand in a comment. Malformed ones (and
/// `allow` of a code `known_code` refuses: the caller holds the rule registry) are returned
/// as errors (span, message); `block` and `args` are read by `host::launches`, so only
/// checked here.
pub fn parse(
    file: &SourceFile,
    comments: &[Comment],
    known_code: impl Fn(&str) -> bool,
) -> (Vec<Annotation>, Vec<(Range<usize>, String)>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for c in comments {
        let found = syntax::find(&c.body);
        if found.is_empty() {
            continue;
        }
        let line = file.line_index(c.span.start);
        let alone = file.text[file.line_span(line)]
            .trim_start()
            .starts_with("//")
            || file.text[file.line_span(line)]
                .trim_start()
                .starts_with("/*");
        let lines = if alone {
            line..line + 2
        } else {
            line..line + 1
        };
        for f in found {
            let span = syntax::file_span(&c.span, &f);
            let directive = match f.parsed {
                Err(message) => {
                    errors.push((span, message));
                    continue;
                }
                Ok(syntax::Directive::Allow(codes)) => {
                    if let Some(bad) = codes.iter().find(|c| !known_code(c)) {
                        errors.push((
                            span,
                            format!("unknown code `{bad}` in `banklint: allow(...)`"),
                        ));
                        continue;
                    }
                    Directive::Allow(codes)
                }
                Ok(syntax::Directive::Expect(e)) => Directive::Expect(e),
                Ok(
                    syntax::Directive::Block(_)
                    | syntax::Directive::Args(_)
                    | syntax::Directive::Instantiate(_),
                ) => continue,
            };
            out.push(Annotation {
                directive,
                span,
                lines: lines.clone(),
            });
        }
    }
    (out, errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::cuda::{Defines, prepare};

    #[test]
    fn parses_allow_and_expect() {
        let text = "// banklint: allow(bank-conflict)\nx = s[i]; // banklint: expect(2-way)\n// banklint: expect(sideways)\n";
        let file = SourceFile::new("a.cu", text.to_string());
        let p = prepare(text, &Defines::default());
        let known = |c: &str| crate::lint::rules::Rule::from_code(c).is_some();
        let (ann, errors) = parse(&file, &p.comments, known);
        assert_eq!(ann.len(), 2);
        assert_eq!(
            ann[0].directive,
            Directive::Allow(vec!["bank-conflict".into()])
        );
        assert_eq!(ann[0].lines, 0..2);
        assert_eq!(ann[1].directive, Directive::Expect(Expected::Ways(2)));
        assert_eq!(ann[1].lines, 1..2);
        assert_eq!(errors.len(), 1);
    }
}
