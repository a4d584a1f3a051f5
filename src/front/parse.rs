//! The C parse: each top-level item the front end found is parsed by lang-c on its own, so a
//! construct lang-c cannot read costs at most its smallest enclosing statement (inside a
//! function body) or its own declaration, never the file.

use crate::front::cuda::{Chunk, ChunkKind, Prepared, Skipped};
use crate::front::lex::{BracketError, bracket_error};
use lang_c::ast::ExternalDeclaration;
use lang_c::driver::{Config, Flavor, parse_preprocessed};
use lang_c::span::Node;

/// One parsed top-level item. lang-c spans inside it are relative to the parsed text, which
/// is a short prelude declaring type names followed by the item; `offset` maps them back.
pub struct ParsedItem {
    prelude_len: usize,
    pub chunk: Chunk,
    pub decls: Vec<Node<ExternalDeclaration>>,
}

impl ParsedItem {
    /// The file offset of a lang-c span position inside this item.
    pub fn offset(&self, pos: usize) -> usize {
        (pos + self.chunk.span.start).saturating_sub(self.prelude_len)
    }

    pub fn span(&self, span: lang_c::span::Span) -> std::ops::Range<usize> {
        self.offset(span.start)..self.offset(span.end)
    }
}

#[derive(Default)]
pub struct ParseOutcome {
    pub items: Vec<ParsedItem>,
    pub skipped: Vec<Skipped>,
    /// Items parsed only after dropping some statements.
    pub partly_parsed: usize,
    pub unparsed: usize,
}

const MAX_RECOVERIES: usize = 64;

pub fn parse_chunks(prepared: &Prepared) -> ParseOutcome {
    parse_chunks_where(prepared, &|_| true)
}

/// Like [`parse_chunks`], for the chunks `keep` selects (by index in `prepared.chunks`).
pub fn parse_chunks_where(prepared: &Prepared, keep: &dyn Fn(usize) -> bool) -> ParseOutcome {
    let mut outcome = ParseOutcome {
        items: Vec::new(),
        skipped: Vec::new(),
        partly_parsed: 0,
        unparsed: 0,
    };
    let file_bracket_error = std::cell::OnceCell::new();
    let known = known_types(&prepared.typenames);
    for (index, chunk) in prepared.chunks.iter().enumerate() {
        if chunk.kind == ChunkKind::HostFunction || is_host_data(prepared, chunk) || !keep(index) {
            continue;
        }
        let base = chunk.span.start;
        let mut text = prepared.text[chunk.span.clone()].to_string();
        for hole in &chunk.holes {
            blank(&mut text, hole.start - base..hole.end - base);
        }
        let prelude = prelude_for(&text, &known);
        let config = Config {
            flavor: Flavor::GnuC11,
            ..Config::default()
        };
        let mut dropped = Vec::new();
        let mut parsed = None;
        for _ in 0..=MAX_RECOVERIES {
            match parse_preprocessed(&config, format!("{prelude}{text}")) {
                Ok(parse) => {
                    parsed = Some(parse.unit.0);
                    break;
                }
                Err(err) => {
                    let err_offset = err.offset.saturating_sub(prelude.len());
                    let body_start = match chunk.kind {
                        ChunkKind::DeviceFunction { .. } => text.find('{'),
                        _ => None,
                    };
                    let Some(region) = body_start
                        .filter(|&b| err_offset > b)
                        .and_then(|b| statement_around(&text, err_offset, b))
                    else {
                        break;
                    };
                    let here = base + region.start..base + region.end;
                    let reason = match file_error(prepared, &file_bracket_error, &here) {
                        Some(e) => format!(
                            "lang-c could not parse this statement: {}",
                            e.reason.replacen("this `", "its `", 1)
                        ),
                        None => describe_error(&text, err_offset),
                    };
                    dropped.push(Skipped {
                        span: base + region.start..base + region.end,
                        reason,
                    });
                    blank(&mut text, region);
                }
            }
        }
        match parsed {
            Some(mut decls) => {
                if !dropped.is_empty() && !chunk.quiet {
                    outcome.partly_parsed += 1;
                }
                decls.retain(|d| d.span.start >= prelude.len());
                let at = |pos: usize| (pos + chunk.span.start).saturating_sub(prelude.len());
                crate::front::casts::desugar(&mut decls, &|pos| {
                    let (_, ty) = prepared.casts.iter().find(|(o, _)| *o == at(pos))?;
                    cast_type(ty, &known)
                });
                if !chunk.quiet {
                    outcome.skipped.extend(dropped);
                }
                outcome.items.push(ParsedItem {
                    prelude_len: prelude.len(),
                    chunk: chunk.clone(),
                    decls,
                });
            }
            None if chunk.quiet => {}
            None => {
                outcome.unparsed += 1;
                if is_relevant(prepared, chunk) {
                    let text = &prepared.text[chunk.span.clone()];
                    let what = match chunk.kind {
                        ChunkKind::DeviceFunction { kernel: true } => "kernel",
                        ChunkKind::DeviceFunction { kernel: false } => "device function",
                        _ => "declaration",
                    };
                    // A bracket left open or closed by the wrong one is a syntax error, and
                    // says where; anything else is C++ lang-c does not read.
                    let skipped = match file_error(prepared, &file_bracket_error, &chunk.span) {
                        Some(BracketError { at, reason }) => Skipped {
                            span: *at..at + 1,
                            reason: format!("could not parse this {what}: {reason}"),
                        },
                        None => Skipped {
                            span: chunk.span.start
                                ..chunk.span.start + text.find('\n').unwrap_or(text.len()),
                            reason: format!(
                                "could not parse this {what} (C++ that banklint's C front end does not read yet)"
                            ),
                        },
                    };
                    outcome.skipped.push(skipped);
                }
            }
        }
    }
    outcome
}

/// The file's first bracket error (found once, when first asked), if it lies in `within`.
/// Only the whole file's brackets tell a syntax error apart: a part of valid code, such as a
/// statement lang-c stopped in, need not be balanced on its own.
fn file_error<'c>(
    prepared: &Prepared,
    cell: &'c std::cell::OnceCell<Option<BracketError>>,
    within: &std::ops::Range<usize>,
) -> Option<&'c BracketError> {
    cell.get_or_init(|| bracket_error(&prepared.text))
        .as_ref()
        .filter(|e| within.contains(&e.at))
}

/// The C type name for a C++ cast's type as written (`const cute::half_t *` ->
/// `const cute__half_t *`; template arguments and `typename` dropped, a reference read as a
/// pointer), parsed by lang-c.
fn cast_type(written: &str, typenames: &KnownTypes<'_>) -> Option<Node<lang_c::ast::TypeName>> {
    let mut text = String::new();
    let mut depth = 0usize;
    for c in written.replace("typename ", "").replace("::", "__").chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '&' if depth == 0 => text.push('*'),
            _ if depth == 0 => text.push(c),
            _ => {}
        }
    }
    let prelude = cast_prelude(&text, typenames);
    let src = format!("{prelude}void __f(void) {{ ({text})0; }}");
    let config = Config {
        flavor: Flavor::GnuC11,
        ..Config::default()
    };
    let parsed = parse_preprocessed(&config, src).ok()?;
    let ExternalDeclaration::FunctionDefinition(f) = &parsed.unit.0.last()?.node else {
        return None;
    };
    let lang_c::ast::Statement::Compound(items) = &f.node.statement.node else {
        return None;
    };
    let lang_c::ast::BlockItem::Statement(s) = &items.first()?.node else {
        return None;
    };
    let lang_c::ast::Statement::Expression(Some(e)) = &s.node else {
        return None;
    };
    match &e.node {
        lang_c::ast::Expression::Cast(c) => Some(c.node.type_name.clone()),
        _ => None,
    }
}

/// The builtin type names and the file's, as a set: a tile library has thousands, and every
/// item looks its words up in them.
type KnownTypes<'p> = rustc_hash::FxHashSet<&'p str>;

fn known_types(typenames: &[String]) -> KnownTypes<'_> {
    crate::front::names::BUILTIN_TYPENAMES
        .iter()
        .copied()
        .chain(typenames.iter().map(String::as_str))
        .collect()
}

/// The typedefs a C++ cast's type needs: there every name is a type (`typename
/// KT::Load::TempStorage &`, a library's type banklint has not read), except a name after
/// `struct`/`union`/`enum` and the constants of array bounds.
fn cast_prelude(text: &str, known: &KnownTypes<'_>) -> String {
    let mut words: Vec<&str> = Vec::new();
    let (mut bracket, mut tagged) = (0usize, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 {
            match c {
                '[' => bracket += 1,
                ']' => bracket = bracket.saturating_sub(1),
                _ => {}
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let word = &rest[..len];
        rest = &rest[len..];
        let keyword = crate::front::names::is_type_keyword(word)
            || matches!(
                word,
                "struct" | "union" | "enum" | "restrict" | "__restrict__"
            );
        let is_type = known.contains(word)
            || (bracket == 0
                && !tagged
                && !keyword
                && !word.starts_with(|c: char| c.is_ascii_digit()));
        if is_type {
            words.push(word);
        }
        tagged = matches!(word, "struct" | "union" | "enum");
    }
    typedefs(words)
}

/// `typedef int NAME;` for each known type name the item mentions, so lang-c reads
/// `float4 v;` and C++-style `Point p;` as declarations.
fn prelude_for(text: &str, known: &KnownTypes<'_>) -> String {
    typedefs(
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| known.contains(w))
            .collect(),
    )
}

/// `typedef int NAME;` for each of `words`, once each.
fn typedefs(mut words: Vec<&str>) -> String {
    words.sort_unstable();
    words.dedup();
    let mut prelude = String::new();
    for name in words {
        prelude.push_str("typedef int ");
        prelude.push_str(name);
        prelude.push(';');
    }
    prelude
}

/// A file-scope declaration that cannot affect shared memory: no `__shared__`, no type or
/// constant definition, and long (a data table). Parsing those costs time and memory for
/// nothing; short ones are parsed, since they may be integer constants.
fn is_host_data(prepared: &Prepared, chunk: &Chunk) -> bool {
    const SHORT: usize = 512;
    if chunk.kind != ChunkKind::Declaration || chunk.span.len() <= SHORT {
        return false;
    }
    let defines_something = prepared.tokens[chunk.tokens.clone()].iter().any(|t| {
        matches!(
            t.text(&prepared.text),
            "struct" | "union" | "enum" | "typedef" | "class"
        )
    });
    !defines_something && !is_relevant(prepared, chunk)
}

/// Device code and declarations of shared memory or types matter; host declarations do not.
fn is_relevant(prepared: &Prepared, chunk: &Chunk) -> bool {
    if chunk.quiet {
        return false;
    }
    if matches!(chunk.kind, ChunkKind::DeviceFunction { .. }) {
        return true;
    }
    let text = &prepared.text[chunk.span.clone()];
    prepared
        .keywords_in(chunk.span.clone())
        .any(|(k, _)| *k == crate::front::cuda::Keyword::Shared)
        || text.contains("struct")
        || text.contains("typedef")
}

fn describe_error(text: &str, offset: usize) -> String {
    let rest = &text[offset.min(text.len())..];
    let token: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace())
        .take(24)
        .collect();
    if token.is_empty() {
        "lang-c could not parse this statement".to_string()
    } else if token.starts_with("..") {
        // What is left of a pack expansion banklint does not lower (`{xs...}`).
        "it expands a parameter pack (`...`) where banklint does not: it expands them in a call's arguments, in folds and in `sizeof...`".to_string()
    } else {
        format!("lang-c could not parse this statement (unexpected `{token}`)")
    }
}

fn blank(text: &mut String, region: std::ops::Range<usize>) {
    let replaced: String = text[region.clone()]
        .chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .collect();
    // Blanking keeps byte length only for ASCII; fall back to byte-wise spaces otherwise.
    if replaced.len() == region.len() {
        text.replace_range(region, &replaced);
    } else {
        let spaces: String = text[region.clone()]
            .bytes()
            .map(|b| if b == b'\n' { '\n' } else { ' ' })
            .collect();
        text.replace_range(region, &spaces);
    }
}

/// The statement containing `offset`: from after the previous `;`, `{` or `}` outside
/// parentheses, to the next `;` (or the end of a braced body) at the same depth.
fn statement_around(
    text: &str,
    offset: usize,
    body_start: usize,
) -> Option<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let offset = offset.min(b.len());
    // If the error sits inside parentheses (a `for (...)` header, a call), the statement
    // starts before the outermost unclosed `(`.
    let mut open_parens = Vec::new();
    for (k, &c) in b.iter().enumerate().take(offset).skip(body_start + 1) {
        match c {
            b'(' => open_parens.push(k),
            b')' => {
                open_parens.pop();
            }
            b';' | b'{' | b'}' if open_parens.is_empty() => {}
            _ => {}
        }
    }
    let from = open_parens.first().copied().unwrap_or(offset);
    let mut start = body_start + 1;
    let mut depth = 0i32;
    let mut k = from;
    while k > body_start + 1 {
        k -= 1;
        match b[k] {
            b')' => depth += 1,
            b'(' => depth -= 1,
            b';' | b'{' | b'}' if depth <= 0 => {
                start = k + 1;
                break;
            }
            _ => {}
        }
    }
    let mut paren = 0i32;
    let mut brace = 0i32;
    let mut end = b.len();
    let mut k = start;
    while k < b.len() {
        match b[k] {
            b'(' => paren += 1,
            b')' => paren -= 1,
            b'{' => brace += 1,
            b'}' => {
                if brace == 0 {
                    end = k;
                    break;
                }
                brace -= 1;
                if brace == 0 && paren <= 0 && k >= offset {
                    end = k + 1;
                    break;
                }
            }
            b';' if paren <= 0 && brace == 0 && k >= offset => {
                end = k + 1;
                break;
            }
            _ => {}
        }
        k += 1;
    }
    // Report the statement itself, not the whitespace around it.
    while start < end && b[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    (end > start && start <= offset).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::cuda::{Defines, prepare};

    #[test]
    fn a_bad_statement_costs_only_itself() {
        // A pack expanded in a braced list is C++ that tree-sitter reads and lang-c does not.
        let src = "__global__ void k(float *o) {\n  __shared__ float t[32];\n  int x[] = {xs...};\n  t[threadIdx.x] = 1;\n}\n";
        let p = prepare(src, &Defines::default());
        let out = parse_chunks(&p);
        assert_eq!(out.items.len(), 1);
        assert_eq!(out.skipped.len(), 1, "{:?}", out.skipped);
        assert!(src[out.skipped[0].span.clone()].contains("xs..."));
        assert!(!src[out.skipped[0].span.clone()].contains("t[threadIdx.x]"));
        // Said as what it is: a pack expansion, not an unexpected token.
        assert_eq!(
            out.skipped[0].reason,
            "it expands a parameter pack (`...`) where banklint does not: it expands them in a call's arguments, in folds and in `sizeof...`"
        );
    }

    #[test]
    fn bad_for_header_is_dropped_whole() {
        let src = "__global__ void k() {\n  int a = 0;\n  for (int i = 0; i < 4; i = bar<1>()) { a++; }\n  a--;\n}\n";
        let p = prepare(src, &Defines::default());
        let out = parse_chunks(&p);
        assert_eq!(out.items.len(), 1, "{:?}", out.skipped);
        assert!(
            out.skipped
                .iter()
                .all(|s| !src[s.span.clone()].contains("a--"))
        );
    }
}
