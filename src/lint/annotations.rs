//! Annotation comments: `// banklint: allow(bank-conflict)` suppresses findings on its line,
//! the next line, or (on the lines above a kernel) the whole kernel; `// banklint:
//! expect(conflict-free)` / `expect(2-way)` asserts what an access must be, and fails when
//! the analysis disagrees, so layouts (paddings, swizzles) stay guarded in CI.

use crate::front::lex::Comment;
use crate::front::source::SourceFile;
use std::ops::Range;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Directive {
    Allow(Vec<String>),
    Expect(Expected),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    ConflictFree,
    Ways(u32),
}

impl Expected {
    pub fn describe(&self) -> String {
        match self {
            Expected::ConflictFree => "conflict-free".to_string(),
            Expected::Ways(n) => format!("{n}-way"),
        }
    }

    pub fn matches(&self, ways: u32) -> bool {
        match self {
            Expected::ConflictFree => ways == 1,
            Expected::Ways(n) => *n == ways,
        }
    }
}

/// One annotation and the lines (0-based) it covers.
#[derive(Clone, Debug)]
pub struct Annotation {
    pub directive: Directive,
    pub span: Range<usize>,
    /// The comment's own line, and the next one when the comment stands alone on its line.
    pub lines: Range<usize>,
}

/// Parses `banklint:` comments. Malformed ones are returned as errors (span, message).
pub fn parse(
    file: &SourceFile,
    comments: &[Comment],
) -> (Vec<Annotation>, Vec<(Range<usize>, String)>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for c in comments {
        let Some(rest) = c.body.trim().strip_prefix("banklint:") else {
            continue;
        };
        let rest = rest.trim();
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
        let directive = if let Some(args) = call_args(rest, "allow") {
            let codes: Vec<String> = args
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            if let Some(bad) = codes
                .iter()
                .find(|c| crate::lint::rules::Rule::from_code(c).is_none())
            {
                errors.push((
                    c.span.clone(),
                    format!("unknown code `{bad}` in `banklint: allow(...)`"),
                ));
                continue;
            }
            Directive::Allow(codes)
        } else if let Some(args) = call_args(rest, "expect") {
            match parse_expected(args.trim()) {
                Some(e) => Directive::Expect(e),
                None => {
                    errors.push((
                        c.span.clone(),
                        format!("`banklint: expect({})` should be `expect(conflict-free)` or `expect(N-way)`", args.trim()),
                    ));
                    continue;
                }
            }
        } else if let Some(args) = call_args(rest, "block") {
            if crate::host::launches::parse_block_annotation(&c.body).is_none() {
                errors.push((
                    c.span.clone(),
                    format!(
                        "`banklint: block({})` should be 1 to 3 integers, e.g. `block(32, 8)`",
                        args.trim()
                    ),
                ));
            }
            continue;
        } else if let Some(parsed) = crate::host::launches::parse_args_annotation(&c.body) {
            if let Err(why) = parsed {
                errors.push((c.span.clone(), why));
            }
            continue;
        } else {
            errors.push((
                c.span.clone(),
                format!("unknown banklint annotation `{rest}`"),
            ));
            continue;
        };
        out.push(Annotation {
            directive,
            span: c.span.clone(),
            lines,
        });
    }
    (out, errors)
}

fn call_args<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(name)?.trim_start().strip_prefix('(')?;
    Some(&rest[..rest.find(')')?])
}

fn parse_expected(text: &str) -> Option<Expected> {
    if text == "conflict-free" {
        return Some(Expected::ConflictFree);
    }
    let n: u32 = text.strip_suffix("-way")?.parse().ok()?;
    Some(if n == 1 {
        Expected::ConflictFree
    } else {
        Expected::Ways(n)
    })
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
        let (ann, errors) = parse(&file, &p.comments);
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
