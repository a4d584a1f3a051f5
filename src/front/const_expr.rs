//! Integer constant expressions as the preprocessor reads them: `#if` and `#elif`
//! conditions, and a padded dimension re-read as written (`(N) + 1` when `N` is `1 << 5`).
//! Macros are expanded first; an expression that cannot be evaluated says why.

use crate::front::lex::{TokenKind, lex, parse_int_literal};
use crate::front::macros::{Expander, MacroTable, PpToken};
use crate::limits;

/// `expr` with `defined NAME` / `defined(NAME)` answered and the macros in force at `at`
/// expanded; Err says which macro could not be.
fn expand_expression(expr: &str, macros: &MacroTable, at: usize) -> Result<Vec<PpToken>, String> {
    let toks = lex(expr).tokens;
    let mut pre: Vec<PpToken> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let text = toks[i].text(expr);
        if text == "defined" {
            let (name, skip) = match toks.get(i + 1).map(|t| t.text(expr)) {
                Some("(") => (toks.get(i + 2).map_or("", |t| t.text(expr)), 4),
                Some(n) => (n, 2),
                None => ("", 1),
            };
            let value = if macros.lookup(name, at).is_some() {
                "1"
            } else {
                "0"
            };
            pre.push(PpToken::made_number(value));
            i += skip;
            continue;
        }
        pre.push(PpToken::written(expr, &toks[i]));
        i += 1;
    }
    Expander::new(macros, at)
        .expand_tokens(pre)
        .map_err(|e| format!("a macro in it {} and is left unexpanded", e.limit()))
}

/// Evaluates an `#if` expression with the macros in force at `at`: `defined NAME` and
/// `defined(NAME)` first, then macros expanded, then names left are 0 (`true` is 1), and
/// `__has_include(...)` and the other `__has_` queries are 0. Err says why the condition
/// could not be evaluated (a macro too large to expand, a malformed expression, nesting past
/// the limit); the caller reports it and takes the branch as false.
pub fn eval_condition(expr: &str, macros: &MacroTable, at: usize) -> Result<bool, String> {
    let expanded = expand_expression(expr, macros, at)?;
    let mut words: Vec<String> = Vec::with_capacity(expanded.len());
    let mut k = 0;
    while k < expanded.len() {
        let t = &expanded[k];
        k += 1;
        words.push(match t.kind {
            TokenKind::Ident if &*t.text == "true" => "1".to_string(),
            TokenKind::Ident => {
                let call = expanded.get(k).is_some_and(|n| n.is("("));
                if call && !t.text.starts_with("__has_") {
                    // gcc rejects a call of a name that is not a macro: it is one from a
                    // header banklint did not read, and its value is not known.
                    return Err(format!(
                        "`{name}(…)` is not a macro banklint has read (its header may not have been read); define it, e.g. `-D '{name}()=1'`, or pass `-I` for its header",
                        name = t.text
                    ));
                }
                // `__has_include(<x.h>)` and other queries banklint does not answer: 0,
                // arguments and all.
                if call {
                    let mut depth = 0usize;
                    while let Some(n) = expanded.get(k) {
                        k += 1;
                        if n.is("(") {
                            depth += 1;
                        } else if n.is(")") {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                    }
                }
                "0".to_string()
            }
            _ => t.text.to_string(),
        });
    }
    eval_words(&words).map(|v| v != 0)
}

/// The value of an integer constant expression written with macros (a padded dimension,
/// `N + 1`), or why there is none: a name that is not a macro (a `constexpr`, a template
/// parameter) is not a number here.
pub fn eval_constant(expr: &str, macros: &MacroTable, at: usize) -> Result<i64, String> {
    let words: Vec<String> = expand_expression(expr, macros, at)?
        .iter()
        .map(|t| match &*t.text {
            "true" => "1".to_string(),
            "false" => "0".to_string(),
            w => w.to_string(),
        })
        .collect();
    eval_words(&words)
}

/// Whether `expr`, its macros expanded, has an operator binding looser than `+` outside
/// parentheses (`1 << 5`, `a ? b : c`), so that `expr + 1` would not add to its value.
pub fn binds_looser_than_add(expr: &str, macros: &MacroTable, at: usize) -> bool {
    let Ok(tokens) = expand_expression(expr, macros, at) else {
        return true;
    };
    let mut depth = 0i64;
    tokens.iter().any(|t| {
        match &*t.text {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            _ => {}
        }
        depth == 0
            && t.kind == TokenKind::Punct
            && matches!(
                &*t.text,
                "<<" | ">>"
                    | "<"
                    | ">"
                    | "<="
                    | ">="
                    | "=="
                    | "!="
                    | "&"
                    | "^"
                    | "|"
                    | "&&"
                    | "||"
                    | "?"
                    | ":"
                    | ","
                    | "="
                    | "+="
                    | "-="
                    | "*="
                    | "/="
                    | "%="
                    | "<<="
                    | ">>="
                    | "&="
                    | "^="
                    | "|="
            )
    })
}

/// Evaluates expanded words as a C integer expression; Err says why it cannot be.
fn eval_words(words: &[String]) -> Result<i64, String> {
    let mut p = CondParser {
        words,
        pos: 0,
        depth: 0,
        error: None,
    };
    let v = p.ternary();
    if p.error.is_none() && p.pos < words.len() {
        p.fail(format!("`{}` is not expected there", words[p.pos]));
    }
    match p.error {
        Some(e) => Err(e),
        None => Ok(v),
    }
}

struct CondParser<'a> {
    words: &'a [String],
    pos: usize,
    depth: usize,
    /// The first reason the expression cannot be evaluated.
    error: Option<String>,
}

impl CondParser<'_> {
    fn peek(&self) -> &str {
        self.words.get(self.pos).map_or("", String::as_str)
    }

    /// Records why the expression cannot be evaluated and stops reading it.
    fn fail(&mut self, why: String) -> i64 {
        self.error.get_or_insert(why);
        self.pos = self.words.len();
        0
    }

    fn too_deep(&mut self) -> i64 {
        self.fail(format!(
            "it nests more than {} levels deep",
            limits::MAX_NESTING
        ))
    }

    /// Consumes `want` or records that it is missing.
    fn expect(&mut self, want: &str) {
        if self.peek() == want {
            self.pos += 1;
        } else if self.error.is_none() {
            let found = match self.peek() {
                "" => "the end".to_string(),
                w => format!("`{w}`"),
            };
            self.fail(format!("`{want}` is expected where it has {found}"));
        }
    }

    fn ternary(&mut self) -> i64 {
        self.depth += 1;
        if self.depth > limits::MAX_NESTING {
            // Deeper than any real condition: give up on it rather than recurse on.
            return self.too_deep();
        }
        let c = self.binary(0);
        let v = if self.peek() == "?" {
            self.pos += 1;
            let a = self.ternary();
            self.expect(":");
            let b = self.ternary();
            if c != 0 { a } else { b }
        } else {
            c
        };
        self.depth -= 1;
        v
    }

    fn binary(&mut self, min_prec: u8) -> i64 {
        let mut lhs = self.unary();
        loop {
            let op = self.peek().to_string();
            let prec = match op.as_str() {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | "<=" | ">" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => return lhs,
            };
            if prec < min_prec {
                return lhs;
            }
            self.pos += 1;
            let rhs = self.binary(prec + 1);
            if matches!(op.as_str(), "/" | "%") && rhs == 0 {
                // The first error stands (`4 /` ends early, and its missing operand reads 0).
                return self.fail("it divides by zero".to_string());
            }
            lhs = match op.as_str() {
                "||" => i64::from(lhs != 0 || rhs != 0),
                "&&" => i64::from(lhs != 0 && rhs != 0),
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => i64::from(lhs == rhs),
                "!=" => i64::from(lhs != rhs),
                "<" => i64::from(lhs < rhs),
                "<=" => i64::from(lhs <= rhs),
                ">" => i64::from(lhs > rhs),
                ">=" => i64::from(lhs >= rhs),
                "<<" => lhs.checked_shl(rhs as u32).unwrap_or(0),
                ">>" => lhs.checked_shr(rhs as u32).unwrap_or(0),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
    }

    fn unary(&mut self) -> i64 {
        match self.peek() {
            "!" | "-" | "+" | "~" | "(" if self.depth > limits::MAX_NESTING => self.too_deep(),
            "!" => {
                self.pos += 1;
                self.depth += 1;
                let v = i64::from(self.unary() == 0);
                self.depth -= 1;
                v
            }
            "-" => {
                self.pos += 1;
                self.depth += 1;
                let v = self.unary().wrapping_neg();
                self.depth -= 1;
                v
            }
            "+" => {
                self.pos += 1;
                self.depth += 1;
                let v = self.unary();
                self.depth -= 1;
                v
            }
            "~" => {
                self.pos += 1;
                self.depth += 1;
                let v = !self.unary();
                self.depth -= 1;
                v
            }
            "(" => {
                self.pos += 1;
                let v = self.ternary();
                self.expect(")");
                v
            }
            "" => self.fail("it ends where a value is expected".to_string()),
            word => match parse_int_literal(word).or_else(|| char_literal(word)) {
                Some(v) => {
                    self.pos += 1;
                    v
                }
                None => {
                    let why = format!("`{word}` is not a number");
                    self.fail(why)
                }
            },
        }
    }
}

/// The value of a plain character literal (`'a'`, `'\\n'`), as `#if` reads it.
fn char_literal(word: &str) -> Option<i64> {
    let inner = word.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut chars = inner.chars();
    let c = match (chars.next()?, chars.next(), chars.next()) {
        ('\\', Some(e), None) => match e {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            other => other,
        },
        (c, None, _) => c,
        _ => return None,
    };
    Some(i64::from(u32::from(c)))
}

/// An integer constant expression written as text, `sizeof` of scalar types included.
pub fn constant_text(text: &str) -> Result<i64, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("sizeof") {
        out.push_str(&rest[..at]);
        let after = rest[at + 6..].trim_start();
        let Some(inner) = after.strip_prefix('(') else {
            return Err("`sizeof` of an expression".into());
        };
        let close = inner.find(')').ok_or("an unclosed `sizeof(`")?;
        let ty = inner[..close].trim();
        let size = crate::front::host_values::scalar_size(ty)
            .ok_or_else(|| format!("the size of `{ty}` is not known to banklint"))?;
        out.push_str(&format!("({size})"));
        rest = &inner[close + 1..];
    }
    out.push_str(rest);
    eval_constant(&out, &Default::default(), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(defs: &[&str]) -> MacroTable {
        MacroTable::from_definitions(defs)
    }

    #[test]
    fn conditions() {
        let t = table(&["A 2", "B A * 3", "E"]);
        assert_eq!(eval_condition("B == 6", &t, 1), Ok(true));
        assert_eq!(eval_condition("defined(E) && !defined F", &t, 1), Ok(true));
        assert_eq!(eval_condition("UNKNOWN", &t, 1), Ok(false));
        assert_eq!(
            eval_condition("__CUDA_ARCH__ >= 700 || true", &t, 1),
            Ok(true)
        );
        assert_eq!(
            eval_condition("__has_include(<cuda_fp8.h>) || A > 1", &t, 1),
            Ok(true)
        );
        assert_eq!(eval_condition("'a' == 97 && 0x10UL == 16", &t, 1), Ok(true));
        assert_eq!(eval_condition("A ? 3 : 0", &t, 1), Ok(true));
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        let e = eval_condition(&deep, &t, 1).expect_err("too deep, and no overflow");
        assert!(e.contains("levels deep"), "{e}");
        // What gcc rejects is not evaluated, and says why.
        for (cond, why) in [
            ("1 1", "`1` is not expected there"),
            ("(A + 1", "`)` is expected where it has the end"),
            ("A +", "it ends where a value is expected"),
            ("4 / (A - 2)", "it divides by zero"),
            ("4 /", "it ends where a value is expected"),
            // Found by check_program: a division by zero after another one.
            ("3 / ((0 + 0) / 0)", "it divides by zero"),
            ("4 % (1 1)", "`)` is expected where it has `1`"),
            ("1.5 > 1", "`1.5` is not a number"),
            (
                "HOSTED() && A",
                "`HOSTED(…)` is not a macro banklint has read (its header may not have been read); define it, e.g. `-D 'HOSTED()=1'`, or pass `-I` for its header",
            ),
        ] {
            assert_eq!(eval_condition(cond, &t, 1), Err(why.to_string()), "{cond}");
        }
        let mut defs: Vec<String> = (0..24)
            .map(|i| format!("M{i} M{} M{}", i + 1, i + 1))
            .collect();
        defs.push("M24 1".to_string());
        let refs: Vec<&str> = defs.iter().map(String::as_str).collect();
        let e = eval_condition("M0", &table(&refs), 1).expect_err("too long to expand");
        assert!(e.contains("left unexpanded"), "{e}");
    }
}
