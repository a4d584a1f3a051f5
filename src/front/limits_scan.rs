//! A cheap pre-scan for input so deep that parsing or analyzing it would overflow the stack
//! or blow up: 200,000 unary `!`, a 200,000-term sum, 300,000 nested `if`s, a million
//! `else if`s, millions of parentheses in an `#if`. The parser and the analyzer recurse
//! once per level of the syntax tree, so depth is estimated from tokens before anything
//! recurses, in one linear pass: a top-level item (function, declaration) that is too deep
//! is blanked (its bytes become spaces, lines and directives kept) and reported as skipped
//! code; a too-deep `#if` or `#elif` condition becomes `0`, a too-deep `#define` is dropped.
//! Offsets never move.

use crate::front::cuda::Skipped;
use crate::limits::MAX_NESTING;
use std::borrow::Cow;
use std::ops::Range;

/// Control statements (`if`, `for`, `while`, `do`, `switch`, each `else if` of a chain)
/// nested in one another, with braces or without. Real kernels nest a handful; the
/// analyzer's cost grows with every level (a 2,000-long `else if` chain needs 660 MB).
pub const MAX_NESTED_STATEMENTS: usize = 1_000;

/// Operators in one expression, counted through its brackets: a bound on the depth of its
/// syntax tree (`!!!x`, `a + b + c`, `x ? y : z ? ...`). Generated code reaches thousands;
/// 200,000 overflowed the stack.
pub const MAX_EXPRESSION_OPERATORS: usize = 10_000;

/// What the scan found: regions to report, and how to defuse them.
#[derive(Debug, Default)]
pub struct Scan {
    pub skipped: Vec<Skipped>,
    /// Byte ranges to blank, and `#if` conditions to replace by `0`.
    blank: Vec<Range<usize>>,
    falsify: Vec<Range<usize>>,
}

impl Scan {
    /// `text` with every too-deep region defused; borrowed when there is none.
    pub fn apply<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.blank.is_empty() && self.falsify.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut bytes = text.as_bytes().to_vec();
        for r in self.blank.iter().chain(&self.falsify) {
            for b in &mut bytes[r.clone()] {
                // Keep line structure; blank everything else, whole UTF-8 sequences too.
                if *b != b'\n' && *b != b'\r' {
                    *b = b' ';
                }
            }
        }
        for r in &self.falsify {
            // `#if (((...` becomes `#if  0  `: a space after the word, lines kept.
            let at = (r.start + 1..r.end)
                .chain(r.start..r.start + 1)
                .find(|&k| bytes[k] != b'\n' && bytes[k] != b'\r');
            if let Some(k) = at {
                bytes[k] = b'0';
            }
        }
        Cow::Owned(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        )
    }
}

/// Scans a file's text; see the module comment.
pub fn scan(text: &str) -> Scan {
    Scanner {
        b: text.as_bytes(),
        out: Scan::default(),
        levels: Vec::new(),
        opaque: 0,
        ctl_base: 0,
        ops_base: 0,
        ctl: 0,
        ops: 0,
        reset_pending: false,
        item: None,
        deepest_ctl: 0,
        deepest_ops: 0,
        directives: Vec::new(),
    }
    .run()
}

/// An open bracket: the counts of the level it was opened in, restored when it closes.
#[derive(Clone, Copy)]
struct Level {
    ctl_base: usize,
    ops_base: usize,
    ctl: usize,
    ops: usize,
    /// A `namespace` or `extern "C"` body: items inside it are items of their own.
    transparent: bool,
}

struct Scanner<'a> {
    b: &'a [u8],
    out: Scan,
    levels: Vec<Level>,
    /// Open brackets other than namespace bodies: 0 between top-level items.
    opaque: usize,
    /// Control statements and operators of the enclosing levels (a bracket counts as an
    /// operator), and of this level so far.
    ctl_base: usize,
    ops_base: usize,
    ctl: usize,
    ops: usize,
    /// A statement ended: nesting goes back to the level's unless `else` follows.
    reset_pending: bool,
    /// Where the current top-level item starts, and its deepest counts so far.
    item: Option<usize>,
    deepest_ctl: usize,
    deepest_ops: usize,
    /// Directive lines inside the current item, kept when it is blanked.
    directives: Vec<Range<usize>>,
}

impl Scanner<'_> {
    fn run(mut self) -> Scan {
        let b = self.b;
        let mut i = 0;
        let mut line_start = true;
        let mut prev_word: Range<usize> = 0..0;
        let mut before_prev_word: Range<usize> = 0..0;
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
            if c == b'#' && line_start {
                let end = directive_end(b, i);
                self.directive(i..end);
                i = end;
                continue;
            }
            line_start = false;
            if c == b'/' && b.get(i + 1) == Some(&b'/') {
                i = line_comment_end(b, i);
                continue;
            }
            if c == b'/' && b.get(i + 1) == Some(&b'*') {
                i = find(b, i + 2, b"*/").map_or(b.len(), |p| p + 2);
                continue;
            }
            let start = i;
            if c == b'"' || c == b'\'' {
                let raw = c == b'"'
                    && matches!(&b[prev_word.clone()], b"R" | b"u8R" | b"uR" | b"UR" | b"LR")
                    && prev_word.end == i;
                i = if raw { raw_end(b, i) } else { quoted_end(b, i) };
                self.token(start, Token::Operand);
                continue;
            }
            if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
                // A number, as the preprocessor reads one: `1.5e-3f`, `1'000`, `0x1p+4`.
                i += 1;
                while i < b.len() {
                    let d = b[i];
                    let sign =
                        (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                    if d.is_ascii_alphanumeric() || matches!(d, b'.' | b'_' | b'\'') || sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                if self.reset_pending || self.item.is_none() {
                    self.token(start, Token::Operand);
                }
                continue;
            }
            if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80)
                {
                    i += 1;
                }
                let word = &b[start..i];
                let token = match word {
                    b"if" | b"for" | b"while" | b"do" | b"switch" => Token::Control,
                    b"else" => Token::Else,
                    _ => Token::Operand,
                };
                before_prev_word = std::mem::replace(&mut prev_word, start..i);
                self.token(start, token);
                continue;
            }
            i += 1;
            let token = match c {
                b'(' | b'[' | b'{' => {
                    // `namespace x {` and `extern "C" {` hold items, not statements.
                    let opener = &b[prev_word.clone()];
                    let transparent = c == b'{'
                        && self.opaque == 0
                        && (opener == b"namespace"
                            || &b[before_prev_word.clone()] == b"namespace"
                            || (opener == b"extern"
                                && b[prev_word.end..start].trim_ascii() == b"\"C\""));
                    Token::Open(transparent)
                }
                b')' | b']' | b'}' => Token::Close(c == b'}'),
                b';' => Token::Semicolon,
                b',' => Token::Comma,
                _ => Token::Operator,
            };
            self.token(start, token);
        }
        self.end_item(b.len());
        self.out
    }

    fn token(&mut self, at: usize, token: Token) {
        if self.reset_pending && token != Token::Close(true) {
            self.reset_pending = false;
            if token != Token::Else {
                self.ctl = 0;
            }
        }
        if self.item.is_none() && !matches!(token, Token::Close(_)) {
            self.item = Some(at);
        }
        match token {
            Token::Control => {
                self.ctl += 1;
                self.deepest_ctl = self.deepest_ctl.max(self.ctl_base + self.ctl);
            }
            Token::Else | Token::Operand => {}
            Token::Operator => {
                self.ops += 1;
                self.deepest_ops = self.deepest_ops.max(self.ops_base + self.ops);
            }
            Token::Comma => self.ops = 0,
            Token::Semicolon => {
                self.ops = 0;
                self.reset_pending = true;
                if self.opaque == 0 {
                    self.end_item(at + 1);
                }
            }
            Token::Open(transparent) => {
                let level = Level {
                    ctl_base: self.ctl_base,
                    ops_base: self.ops_base,
                    ctl: self.ctl,
                    ops: self.ops,
                    transparent,
                };
                self.levels.push(level);
                if transparent {
                    self.end_item(at);
                    (self.ctl_base, self.ops_base) = (0, 0);
                } else {
                    self.opaque += 1;
                    self.ctl_base += self.ctl;
                    self.ops_base += self.ops + 1;
                    self.deepest_ops = self.deepest_ops.max(self.ops_base);
                }
                self.ctl = 0;
                self.ops = 0;
            }
            Token::Close(brace) => {
                let Some(level) = self.levels.pop() else {
                    return;
                };
                // Back to the enclosing level's counts.
                (self.ctl_base, self.ops_base) = (level.ctl_base, level.ops_base);
                (self.ctl, self.ops) = (level.ctl, level.ops);
                if level.transparent {
                    self.end_item(at);
                    (self.ctl, self.ops) = (0, 0);
                    return;
                }
                self.opaque -= 1;
                if brace {
                    // A block ends a statement (and a function body ends an item).
                    self.ops = 0;
                    self.reset_pending = true;
                    if self.opaque == 0 {
                        self.end_item(at + 1);
                    }
                }
            }
        }
    }

    fn end_item(&mut self, end: usize) {
        let directives = std::mem::take(&mut self.directives);
        let (deepest_ctl, deepest_ops) = (self.deepest_ctl, self.deepest_ops);
        (self.deepest_ctl, self.deepest_ops) = (0, 0);
        let Some(start) = self.item.take() else {
            return;
        };
        let reason = if deepest_ctl > MAX_NESTED_STATEMENTS {
            format!(
                "control statements nested {deepest_ctl} deep (banklint reads at most {MAX_NESTED_STATEMENTS}, `else if` chains counted)"
            )
        } else if deepest_ops > MAX_EXPRESSION_OPERATORS {
            format!(
                "an expression of {deepest_ops} operators (banklint reads at most {MAX_EXPRESSION_OPERATORS} in one expression)"
            )
        } else {
            return;
        };
        let first_line_end = find(self.b, start, b"\n").unwrap_or(end).min(end);
        self.out.skipped.push(Skipped {
            span: start..first_line_end,
            reason,
        });
        let mut from = start;
        for d in directives {
            self.out.blank.push(from..d.start);
            from = d.end;
        }
        self.out.blank.push(from..end.max(from));
    }

    /// A directive line: too-deep `#if`/`#elif` conditions become false, other too-deep
    /// directives are dropped.
    fn directive(&mut self, span: Range<usize>) {
        if self.item.is_some() {
            self.directives.push(span.clone());
        }
        let b = self.b;
        let mut i = span.start + 1;
        while i < span.end && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        let word_start = i;
        while i < span.end && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let word = &b[word_start..i];
        let (deepest, ops) = expression_depth(&b[i..span.end]);
        let what = if deepest > MAX_NESTING {
            format!("brackets nested {deepest} levels deep (banklint reads at most {MAX_NESTING})")
        } else if ops > MAX_EXPRESSION_OPERATORS {
            format!(
                "{ops} operators (banklint reads at most {MAX_EXPRESSION_OPERATORS} in one expression)"
            )
        } else {
            return;
        };
        let line_end = find(b, span.start, b"\n").unwrap_or(span.end).min(span.end);
        let conditional = matches!(word, b"if" | b"elif");
        let word = String::from_utf8_lossy(word);
        self.out.skipped.push(Skipped {
            span: span.start..line_end,
            reason: if conditional {
                format!("`#{word}` condition with {what}; taken as false")
            } else {
                format!("`#{word}` directive with {what}; ignored")
            },
        });
        if conditional {
            self.out.falsify.push(i..span.end);
        } else {
            self.out.blank.push(span);
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    Control,
    Else,
    Operand,
    Operator,
    Comma,
    Semicolon,
    /// An opening bracket; `true` for a namespace or `extern "C"` body.
    Open(bool),
    /// A closing bracket; `true` for `}`.
    Close(bool),
}

/// Deepest bracket nesting and most operators between commas in a directive's text.
fn expression_depth(b: &[u8]) -> (usize, usize) {
    let (mut depth, mut deepest, mut ops, mut most) = (0usize, 0usize, 0usize, 0usize);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' => ops = 0,
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find(b, i + 2, b"*/").map_or(b.len(), |p| p + 2);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => break,
            b'"' | b'\'' => {
                i = quoted_end(b, i);
                continue;
            }
            c if c.is_ascii_punctuation() && c != b'_' && c != b'\\' => {
                ops += 1;
                most = most.max(ops);
            }
            _ => {}
        }
        i += 1;
    }
    (deepest, most)
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let from = from.min(b.len());
    b[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// The end of a directive: its line, with backslash continuations and block comments.
fn directive_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\n' => {
                let mut k = i;
                while k > 0 && matches!(b[k - 1], b' ' | b'\t' | b'\r') {
                    k -= 1;
                }
                if k > 0 && b[k - 1] == b'\\' {
                    i += 1;
                    continue;
                }
                return i;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find(b, i + 2, b"*/").map_or(b.len(), |p| p + 2);
            }
            _ => i += 1,
        }
    }
    i
}

fn line_comment_end(b: &[u8], i: usize) -> usize {
    let mut at = i;
    loop {
        let Some(nl) = find(b, at, b"\n") else {
            return b.len();
        };
        let before = b[..nl].trim_ascii_end();
        if before.ends_with(b"\\") {
            at = nl + 1;
        } else {
            return nl;
        }
    }
}

fn quoted_end(b: &[u8], start: usize) -> usize {
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

fn raw_end(b: &[u8], start: usize) -> usize {
    let Some(open) = b[start + 1..]
        .iter()
        .take(17)
        .position(|&x| x == b'(')
        .map(|p| start + 1 + p)
    else {
        return quoted_end(b, start);
    };
    let close = [b")", &b[start + 1..open], b"\""].concat();
    find(b, open, &close).map_or(b.len(), |p| p + close.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reasons(text: &str) -> Vec<String> {
        scan(text).skipped.into_iter().map(|s| s.reason).collect()
    }

    #[test]
    fn ordinary_code_passes() {
        let text = "namespace a {\n__global__ void k(float *o) {\n  if (x) { for (;;) { o[0] = -a + b * c; } } else if (y) o[1] = 2;\n}\n}\n#if (A + (B))\n#endif\n";
        assert!(reasons(text).is_empty());
        assert!(matches!(scan(text).apply(text), Cow::Borrowed(_)));
    }

    #[test]
    fn long_else_if_chains_and_nested_ifs_are_deep() {
        let chain = format!(
            "void f() {{\n if (a) x = 1;{}\n}}\nint after;\n",
            " else if (a) x = 1;".repeat(MAX_NESTED_STATEMENTS + 5)
        );
        let r = reasons(&chain);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].starts_with("control statements nested 1006 deep"),
            "{r:?}"
        );
        let scan = scan(&chain);
        let applied = scan.apply(&chain);
        assert_eq!(applied.len(), chain.len());
        assert!(applied.trim_start().starts_with("int after;"));
        let separate = "void f() { if (a) x; if (b) y; }\n".repeat(2);
        assert!(reasons(&separate.repeat(600)).is_empty());
        let nested = format!("void f() {{ {} x = 1; }}\n", "if (a) ".repeat(1_001));
        assert_eq!(reasons(&nested).len(), 1);
    }

    #[test]
    fn long_expressions_are_deep_but_long_lists_are_not() {
        let sum = format!("void f() {{ x = {}1; }}", "1 + ".repeat(10_001));
        // `=`, the 10,001 `+` and the body's brace.
        assert!(reasons(&sum)[0].starts_with("an expression of 10003 operators"));
        let list = format!("int t[] = {{ {} }};", "-1, ".repeat(20_000));
        assert!(reasons(&list).is_empty());
        let unary = format!("void f() {{ s[{}x] = 0; }}", "!".repeat(20_000));
        assert_eq!(reasons(&unary).len(), 1);
    }

    #[test]
    fn deep_conditions_become_false_and_directives_inside_items_stay() {
        let text = format!(
            "#if {}1{}\nint a;\n#endif\n",
            "(".repeat(300),
            ")".repeat(300)
        );
        let s = scan(&text);
        assert!(s.skipped[0].reason.contains("taken as false"));
        assert!(s.apply(&text).starts_with("#if 0   "));
        let inside = format!(
            "void f() {{\n#ifdef X\n x = {}1;\n#endif\n}}\n",
            "1 + ".repeat(10_001)
        );
        let s = scan(&inside);
        let applied = s.apply(&inside);
        assert!(applied.contains("#ifdef X\n") && applied.contains("#endif\n"));
        assert!(!applied.contains("void"));
    }
}
