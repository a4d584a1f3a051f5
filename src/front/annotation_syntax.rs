//! The `banklint:` comment syntax, the one parser of it: finds every annotation in a
//! comment's text, wherever it stands (`// column read  // banklint: allow(bank-conflict)`,
//! `/* banklint: block(32, 8) */`), as clang-tidy's `NOLINT` and ruff's `noqa` are found
//! anywhere in a comment, and parses each one into a [`Directive`] or says what is wrong
//! with it. What the directives mean is decided elsewhere: `allow`/`expect` by
//! `lint::annotations`, `block`/`args`/`instantiate` by `host::launches`.
//!
//! An annotation is `banklint:` (at the start of a word: not preceded by a letter, digit,
//! `_`, `-` or `.`), then a directive name and its parenthesized arguments; text after the
//! closing `)` is free (a reason, another annotation).

use std::ops::Range;

/// What an annotation says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Directive {
    /// `allow(bank-conflict, unanalyzed-access)`: the codes, as written (checked by lint).
    Allow(Vec<String>),
    /// `expect(conflict-free)`, `expect(2-way)`.
    Expect(Expected),
    /// `block(32, 8)`: the block shape, missing extents 1.
    Block([u32; 3]),
    /// `args(n = 1024, dir = -1)`: values of integer kernel parameters.
    Args(Vec<(String, i64)>),
    /// `instantiate(T = float, BLOCK = 256)`: template arguments, as written, to analyze a
    /// kernel under (one instantiation per annotation).
    Instantiate(Vec<(String, String)>),
}

/// What an `expect(...)` asserts about an access.
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

/// One annotation found in a comment's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Byte range in the comment's text (its body, between the delimiters): from `banklint:`
    /// to the closing `)`, or to the end of the text when the annotation is malformed.
    pub range: Range<usize>,
    /// Whether only blanks stand before it in the comment.
    pub leads: bool,
    /// The directive, or why it is malformed (a message naming what was written).
    pub parsed: Result<Directive, String>,
}

const MARKER: &str = "banklint:";

/// Every annotation in `body`, in order.
pub fn find(body: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = body[from..].find(MARKER).map(|p| p + from) {
        let word_start = body[..pos]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')));
        if !word_start {
            from = pos + MARKER.len();
            continue;
        }
        let after = pos + MARKER.len();
        let (end, parsed) = directive(body, after);
        out.push(Found {
            range: pos..end,
            leads: body[..pos].trim().is_empty(),
            parsed,
        });
        from = end.max(after);
    }
    out
}

/// Parses the directive that starts at `at` (just after `banklint:`): where it ends, and
/// what it says.
fn directive(body: &str, at: usize) -> (usize, Result<Directive, String>) {
    let rest = &body[at..];
    let name_start = at + (rest.len() - rest.trim_start().len());
    let name_len = body[name_start..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(body.len() - name_start);
    let name = &body[name_start..name_start + name_len];
    let after_name = &body[name_start + name_len..];
    let open = after_name
        .trim_start()
        .strip_prefix('(')
        .map(|_| name_start + name_len + (after_name.len() - after_name.trim_start().len()));
    let known = matches!(name, "allow" | "expect" | "block" | "args" | "instantiate");
    let unknown = || {
        // Up to the next annotation, if another follows in the same comment.
        let text = &body[at..];
        let text = text.find(MARKER).map_or(text, |k| &text[..k]);
        Err(format!("unknown banklint annotation `{}`", text.trim()))
    };
    let Some(open) = open.filter(|_| known) else {
        let end = body[at..].find(MARKER).map_or(body.len(), |k| at + k);
        return (end, unknown());
    };
    let Some(close) = closing_paren(body, open) else {
        return (
            body.len(),
            Err(format!("`banklint: {name}(...)` has no closing `)`")),
        );
    };
    let args = body[open + 1..close].trim();
    let parsed = match name {
        "allow" => allow(args),
        "expect" => expect(args),
        "block" => block(args),
        "instantiate" => instantiate(args),
        _ => arguments(args),
    };
    (close + 1, parsed)
}

fn allow(args: &str) -> Result<Directive, String> {
    let codes: Vec<String> = args
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if codes.is_empty() {
        return Err(
            "`banklint: allow()` names no code; write e.g. `allow(bank-conflict)`".to_string(),
        );
    }
    Ok(Directive::Allow(codes))
}

fn expect(args: &str) -> Result<Directive, String> {
    let parsed = if args == "conflict-free" {
        Some(Expected::ConflictFree)
    } else {
        args.strip_suffix("-way")
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|&n| n >= 1)
            .map(|n| {
                if n == 1 {
                    Expected::ConflictFree
                } else {
                    Expected::Ways(n)
                }
            })
    };
    parsed.map(Directive::Expect).ok_or_else(|| {
        format!("`banklint: expect({args})` should be `expect(conflict-free)` or `expect(N-way)`")
    })
}

fn block(args: &str) -> Result<Directive, String> {
    let bad =
        || format!("`banklint: block({args})` should be 1 to 3 integers, e.g. `block(32, 8)`");
    let parts: Vec<&str> = args.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(bad());
    }
    let mut dims = [1u32; 3];
    for (k, p) in parts.iter().enumerate() {
        dims[k] = p.parse().map_err(|_| bad())?;
    }
    Ok(Directive::Block(dims))
}

fn arguments(args: &str) -> Result<Directive, String> {
    let mut out = Vec::new();
    for part in args.split(',').map(str::trim) {
        let parsed = part.split_once('=').and_then(|(name, value)| {
            let name = name.trim();
            Some((name.to_string(), integer(value.trim())?)).filter(|_| is_word(name))
        });
        match parsed {
            Some(pair) => out.push(pair),
            None => {
                return Err(format!(
                    "`{part}` in `banklint: args(...)` should be `name = integer`"
                ));
            }
        }
    }
    Ok(Directive::Args(out))
}

/// The `)` closing the `(` at `open`: template arguments may hold parentheses
/// (`instantiate(N = (64 * 4))`).
fn closing_paren(body: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, c) in body[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + k);
                }
            }
            _ => {}
        }
    }
    None
}

/// `T = float, BLOCK = 256, V = vec<float, 4>`: commas inside `<>` or `()` belong to a value.
fn instantiate(args: &str) -> Result<Directive, String> {
    let parts = crate::front::names::split_top_level(args);
    let mut out = Vec::new();
    for part in parts.iter().map(|p| p.trim()) {
        let parsed = part.split_once('=').and_then(|(name, value)| {
            let (name, value) = (name.trim(), value.split_whitespace().collect::<Vec<_>>());
            // `T`, or a member type of a class parameter, `Acc::ftype`.
            let ident = match name.split_once("::") {
                Some((class, member)) => is_word(class.trim()) && is_word(member.trim()),
                None => is_word(name),
            };
            let name = name.split_whitespace().collect::<String>();
            (ident && !value.is_empty()).then(|| (name.to_string(), value.join(" ")))
        });
        match parsed {
            Some((name, _)) if out.iter().any(|(n, _)| *n == name) => {
                return Err(format!(
                    "`{name}` is given twice in `banklint: instantiate(...)`; write one annotation per instantiation"
                ));
            }
            Some(pair) => out.push(pair),
            None => {
                return Err(format!(
                    "`{part}` in `banklint: instantiate(...)` should be `PARAMETER = argument`, e.g. `instantiate(T = float, BLOCK = 256)`"
                ));
            }
        }
    }
    Ok(Directive::Instantiate(out))
}

/// An identifier: a letter or `_`, then letters, digits and `_`.
fn is_word(w: &str) -> bool {
    w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A decimal or `0x` integer, optionally negative.
fn integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d.trim_start()),
        None => (false, text),
    };
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    Some(if negative { -value } else { value })
}

/// The file span of an annotation found in a comment: from the comment's start when the
/// annotation leads the comment, else from its `banklint:`, to its end.
pub fn file_span(comment: &Range<usize>, found: &Found) -> Range<usize> {
    // The text starts after the two-character delimiter (`//` or `/*`).
    let body_start = comment.start + 2;
    let start = if found.leads {
        comment.start
    } else {
        body_start + found.range.start
    };
    start..(body_start + found.range.end).min(comment.end).max(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(body: &str) -> Vec<Result<Directive, String>> {
        find(body).into_iter().map(|f| f.parsed).collect()
    }

    #[test]
    fn finds_annotations_anywhere_in_a_comment() {
        assert_eq!(
            parsed(" column read  // banklint: allow(bank-conflict)"),
            vec![Ok(Directive::Allow(vec!["bank-conflict".into()]))]
        );
        assert_eq!(
            parsed(" note // banklint: expect(32-way)"),
            vec![Ok(Directive::Expect(Expected::Ways(32)))]
        );
        assert_eq!(
            parsed(" banklint: allow(bank-conflict) because it runs once; banklint: expect(2-way)"),
            vec![
                Ok(Directive::Allow(vec!["bank-conflict".into()])),
                Ok(Directive::Expect(Expected::Ways(2)))
            ]
        );
        assert!(find(" mybanklint: allow(x)").is_empty());
        assert!(find(" no-banklint: here").is_empty());
        let f = &find(" see // banklint: block(32)")[0];
        assert_eq!(f.range, 8..27);
        assert!(!f.leads);
        assert!(find(" banklint: block(32)")[0].leads);
    }

    #[test]
    fn parses_shapes_and_arguments() {
        assert_eq!(
            parsed(" banklint: block(32, 8)"),
            vec![Ok(Directive::Block([32, 8, 1]))]
        );
        assert_eq!(
            parsed("banklint: block(16,16,2)"),
            vec![Ok(Directive::Block([16, 16, 2]))]
        );
        assert_eq!(
            parsed(" banklint: args(n = 1024, dir=-1, mask = 0x1F)"),
            vec![Ok(Directive::Args(vec![
                ("n".to_string(), 1024),
                ("dir".to_string(), -1),
                ("mask".to_string(), 31)
            ]))]
        );
        assert!(find("block(16)").is_empty());
    }

    #[test]
    fn malformed_annotations_say_what_is_wrong() {
        for (body, message) in [
            (
                " banklint: expect(sideways)",
                "`banklint: expect(sideways)` should be `expect(conflict-free)` or `expect(N-way)`",
            ),
            (
                " banklint: block(32, x)",
                "`banklint: block(32, x)` should be 1 to 3 integers, e.g. `block(32, 8)`",
            ),
            (
                " banklint: args(n = big)",
                "`n = big` in `banklint: args(...)` should be `name = integer`",
            ),
            (
                " banklint: args(2n = 4)",
                "`2n = 4` in `banklint: args(...)` should be `name = integer`",
            ),
            (
                " banklint: args(n = 4",
                "`banklint: args(...)` has no closing `)`",
            ),
            (
                " x // banklint: alow(bank-conflict)",
                "unknown banklint annotation `alow(bank-conflict)`",
            ),
            (
                " banklint: allow()",
                "`banklint: allow()` names no code; write e.g. `allow(bank-conflict)`",
            ),
        ] {
            assert_eq!(parsed(body), vec![Err(message.to_string())], "{body}");
        }
    }

    #[test]
    fn file_spans_start_at_the_comment_or_the_annotation() {
        // `x; // a // banklint: allow(c)`: the comment at 3, its text at 5.
        let text = "x; // a // banklint: allow(c) why";
        let comment = 3..text.len();
        let found = &find(&text[5..])[0];
        assert_eq!(&text[file_span(&comment, found)], "banklint: allow(c)");
        let text = "// banklint: allow(c)";
        let found = &find(&text[2..])[0];
        assert_eq!(file_span(&(0..text.len()), found), 0..text.len());
    }
}
