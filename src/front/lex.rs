//! Lexing: C/C++ tokens with byte spans, comments, directive lines and line splices, and
//! the bracket-matching helpers every later stage uses on token lists.

use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Ident,
    Number,
    Str,
    Char,
    Punct,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }
}

/// A comment, with its text between the delimiters.
#[derive(Clone, Debug)]
pub struct Comment {
    pub span: Range<usize>,
    pub body: String,
}

/// Tokens of a piece of C text (comments and directives dropped).
pub fn tokenize(src: &str) -> Vec<Token> {
    lex(src).tokens
}

pub struct Lexed {
    pub tokens: Vec<Token>,
    pub comments: Vec<Comment>,
    /// Backslash-newline splices outside directives (lang-c does not join lines).
    pub splices: Vec<Range<usize>>,
    /// Directive line spans (including continuations), in order.
    pub directives: Vec<Range<usize>>,
}

pub fn lex(src: &str) -> Lexed {
    lex_with(src, true)
}

/// Tokens of a macro body: `#` is an operator there, not the start of a directive.
pub fn lex_body(src: &str) -> Vec<Token> {
    lex_with(src, false).tokens
}

fn lex_with(src: &str, directives_allowed: bool) -> Lexed {
    let b = src.as_bytes();
    let mut tokens = Vec::new();
    let mut comments = Vec::new();
    let mut directives = Vec::new();
    let mut splices = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'\\' {
            let next = if b.get(i + 1) == Some(&b'\r') {
                i + 2
            } else {
                i + 1
            };
            if b.get(next) == Some(&b'\n') {
                splices.push(i..next);
                i = next + 1;
                continue;
            }
        }
        if c == b'#' && line_start && directives_allowed {
            let start = i;
            i = directive_end(b, i);
            directives.push(start..i);
            continue;
        }
        line_start = false;
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = memchr_or_end(b, i, b'\n');
            comments.push(Comment {
                span: i..end,
                body: src[i + 2..end].to_string(),
            });
            i = end;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            // An unterminated comment runs to the end of the file (no `*/` to strip).
            let close = src[i + 2..].find("*/").map(|p| i + 2 + p);
            let end = close.map_or(b.len(), |c| c + 2);
            comments.push(Comment {
                span: i..end,
                body: src[i + 2..close.unwrap_or(b.len())].to_string(),
            });
            i = end;
            continue;
        }
        let start = i;
        let kind;
        if c == b'"' || c == b'\'' {
            i = quoted_end(b, i);
            kind = if c == b'"' {
                TokenKind::Str
            } else {
                TokenKind::Char
            };
        } else if c == b'R' && b.get(i + 1) == Some(&b'"') {
            i = raw_string_end(src, i);
            kind = TokenKind::Str;
        } else if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            // String prefixes: u8"..", L"..".
            if i < b.len() && b[i] == b'"' && matches!(&src[start..i], "L" | "u" | "U" | "u8") {
                i = quoted_end(b, i);
                kind = TokenKind::Str;
            } else {
                kind = TokenKind::Ident;
            }
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < b.len() {
                let d = b[i];
                let exponent_sign =
                    (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if d.is_ascii_alphanumeric()
                    || d == b'.'
                    || d == b'_'
                    || d == b'\''
                    || exponent_sign
                {
                    i += 1;
                } else {
                    break;
                }
            }
            kind = TokenKind::Number;
        } else {
            i += punct_len(&b[i..]);
            kind = TokenKind::Punct;
        }
        tokens.push(Token {
            kind,
            start,
            end: i,
        });
    }
    Lexed {
        tokens,
        comments,
        splices,
        directives,
    }
}

/// A syntax error in an item's brackets: where, and what is wrong there.
pub struct BracketError {
    pub at: usize,
    pub reason: String,
}

/// The first bracket in `text` that is never closed, or a closing one that does not match the
/// bracket open before it (strings, characters and comments are not brackets).
pub fn bracket_error(text: &str) -> Option<BracketError> {
    let mut open: Vec<(usize, u8)> = Vec::new();
    for t in tokenize(text) {
        if t.kind != TokenKind::Punct || t.end != t.start + 1 {
            continue;
        }
        let c = text.as_bytes()[t.start];
        match c {
            b'(' | b'[' | b'{' => open.push((t.start, c)),
            b')' | b']' | b'}' => {
                let want = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                match open.pop() {
                    Some((_, o)) if o == want => {}
                    Some((at, o)) => {
                        return Some(BracketError {
                            at,
                            reason: format!(
                                "this `{}` is closed by a `{}` (a syntax error)",
                                o as char, c as char
                            ),
                        });
                    }
                    None => {
                        return Some(BracketError {
                            at: t.start,
                            reason: format!(
                                "this `{}` closes no bracket (a syntax error)",
                                c as char
                            ),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    open.first().map(|&(at, c)| BracketError {
        at,
        reason: format!("this `{}` is never closed (a syntax error)", c as char),
    })
}

pub fn memchr_or_end(b: &[u8], from: usize, needle: u8) -> usize {
    b[from..]
        .iter()
        .position(|&x| x == needle)
        .map_or(b.len(), |p| from + p)
}

pub fn directive_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\n' => {
                let mut k = i;
                while k > 0 && (b[k - 1] == b' ' || b[k - 1] == b'\t' || b[k - 1] == b'\r') {
                    k -= 1;
                }
                if k > 0 && b[k - 1] == b'\\' {
                    i += 1;
                    continue;
                }
                return i;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                // A block comment inside a directive may span lines.
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |p| i + 2 + p + 2);
            }
            _ => i += 1,
        }
    }
    i
}

pub fn quoted_end(b: &[u8], start: usize) -> usize {
    let q = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            x if x == q => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

pub fn raw_string_end(src: &str, start: usize) -> usize {
    let rest = &src[start + 2..];
    let Some(open) = rest.find('(') else {
        return src.len();
    };
    let delim = &rest[..open];
    let close = format!("){delim}\"");
    rest[open..]
        .find(&close)
        .map_or(src.len(), |p| start + 2 + open + p + close.len())
}

pub fn punct_len(b: &[u8]) -> usize {
    const THREE: &[&[u8]] = &[b"...", b">>=", b"<<=", b"->*"];
    const TWO: &[&[u8]] = &[
        b"::", b"->", b"++", b"--", b"<<", b">>", b"<=", b">=", b"==", b"!=", b"&&", b"||", b"*=",
        b"/=", b"%=", b"+=", b"-=", b"&=", b"^=", b"|=", b"##",
    ];
    if THREE.iter().any(|p| b.starts_with(p)) {
        3
    } else if TWO.iter().any(|p| b.starts_with(p)) {
        2
    } else {
        // One character (a whole UTF-8 sequence for stray non-ASCII bytes).
        let lead = b[0];
        if lead < 0x80 {
            1
        } else {
            (lead.leading_ones() as usize).clamp(1, 4).min(b.len())
        }
    }
}

/// Parses a C integer literal with suffixes (`32`, `0x20u`, `1'000`, `'a'`).
pub fn parse_int_literal(text: &str) -> Option<i64> {
    let t = text.replace('\'', "");
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(bin) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        i64::from_str_radix(bin, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') && t.bytes().all(|b| b.is_ascii_digit()) {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

/// The text of each top-level, comma-separated argument in `tokens` (`16`, `float`).
pub fn argument_texts(src: &str, tokens: &[Token]) -> Vec<String> {
    split_top_level(src, tokens)
        .iter()
        .filter_map(|p| Some(src[p.first()?.start..p.last()?.end].to_string()))
        .collect()
}

pub fn adjacent_tokens(tokens: &[Token], a: usize, b: usize) -> bool {
    tokens[a].end == tokens[b].start
}

pub fn is_ident(w: &str) -> bool {
    w.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Splits tokens at commas outside brackets of any kind.
pub fn split_top_level<'t>(src: &str, toks: &'t [Token]) -> Vec<&'t [Token]> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (k, t) in toks.iter().enumerate() {
        match t.text(src) {
            "(" | "[" | "{" | "<" => depth += 1,
            ")" | "]" | "}" | ">" => depth -= 1,
            ">>" => depth -= 2,
            "," if depth == 0 => {
                parts.push(&toks[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    if start < toks.len() {
        parts.push(&toks[start..]);
    }
    parts
}

/// Index of the token closing the bracket opened at `open`.
pub fn matching(src: &str, tokens: &[Token], open: usize) -> Option<usize> {
    let (o, c) = match tokens[open].text(src) {
        "(" => ("(", ")"),
        "[" => ("[", "]"),
        "{" => ("{", "}"),
        _ => return None,
    };
    let mut depth = 0;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        let s = t.text(src);
        if s == o {
            depth += 1;
        } else if s == c {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// Closing `>` of a template argument or parameter list (`>>` closes two levels).
pub fn matching_angle(src: &str, tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut paren = 0i32;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.text(src) {
            "(" => paren += 1,
            ")" => paren -= 1,
            "<" if paren == 0 => depth += 1,
            ">" if paren == 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            ">>" if paren == 0 => {
                depth -= 2;
                if depth <= 0 {
                    return Some(k);
                }
            }
            ";" | "{" => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracket_errors_ignore_strings_characters_and_comments() {
        assert!(bracket_error("f(\"{\", '(', /* [ */ a[1]) { }").is_none());
        let e = bracket_error("k() { if (x { } ").expect("open");
        assert_eq!(
            (e.at, e.reason.as_str()),
            (4, "this `{` is never closed (a syntax error)")
        );
        let e = bracket_error("k(a } ").expect("mismatch");
        assert_eq!(e.at, 1);
        assert!(e.reason.contains("`(` is closed by a `}`"), "{}", e.reason);
        let e = bracket_error("a ) b").expect("stray");
        assert_eq!(
            (e.at, e.reason.as_str()),
            (2, "this `)` closes no bracket (a syntax error)")
        );
    }

    #[test]
    fn int_literals() {
        assert_eq!(parse_int_literal("0x20u"), Some(32));
        assert_eq!(parse_int_literal("017"), Some(15));
        assert_eq!(parse_int_literal("32ULL"), Some(32));
        assert_eq!(parse_int_literal("1.5f"), None);
    }
}
