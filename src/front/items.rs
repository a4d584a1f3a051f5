//! Top-level items: splits the lowered file into the items lang-c parses one by one
//! (functions, declarations), classifies them (kernel, device, host), and turns C++
//! aggregates into C structs of the same layout.

use crate::front::lex::{Token, TokenKind, argument_texts, lex, matching, matching_angle};
use crate::front::prepared::{Chunk, ChunkKind, Keyword, Prepared, Skipped, WrapperArray};
use crate::limits::MAX_NESTING;
use std::borrow::Cow;
use std::ops::Range;

/// Splits the file into top-level items.
pub fn split_chunks(src: &str, tokens: &[Token], keywords: &[(Keyword, usize)]) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let start = i;
        // Leading keywords that were blanked belong to the chunk too.
        let prev_end = if start == 0 { 0 } else { tokens[start - 1].end };
        let chunk_start = keywords
            .iter()
            .filter(|(_, at)| *at >= prev_end && *at < tokens[start].start)
            .map(|(_, at)| *at)
            .min()
            .unwrap_or(tokens[start].start);
        let mut paren = 0i32;
        let mut aggregate = false;
        let mut end = None;
        let mut kind = ChunkKind::Declaration;
        let mut j = i;
        while j < tokens.len() {
            let t = tokens[j].text(src);
            match t {
                "(" | "[" => paren += 1,
                ")" | "]" => paren -= 1,
                "struct" | "union" | "enum" | "class" if paren == 0 => aggregate = true,
                ";" if paren <= 0 => {
                    end = Some(j);
                    break;
                }
                "}" if paren <= 0 => {
                    // A stray closing brace: end the item before it.
                    end = Some(j);
                    break;
                }
                "{" if paren <= 0 => {
                    let close = matching(src, tokens, j).unwrap_or(tokens.len() - 1);
                    let prev = if j > start {
                        tokens[j - 1].text(src)
                    } else {
                        ""
                    };
                    let is_function = !aggregate
                        && (prev == ")"
                            || matches!(prev, "const" | "noexcept" | "override" | "final"))
                        && tokens[start..j].iter().any(|t| t.text(src) == "(");
                    if is_function {
                        let header = chunk_start..tokens[j].start;
                        let has = |k: Keyword| {
                            keywords
                                .iter()
                                .any(|(kw, at)| *kw == k && header.contains(at))
                        };
                        kind = if has(Keyword::Global) {
                            ChunkKind::DeviceFunction { kernel: true }
                        } else if has(Keyword::Device) {
                            ChunkKind::DeviceFunction { kernel: false }
                        } else {
                            ChunkKind::HostFunction
                        };
                        end = Some(close);
                        break;
                    }
                    j = close;
                }
                _ => {}
            }
            j += 1;
        }
        let last = end.unwrap_or(tokens.len() - 1);
        chunks.push(Chunk {
            span: chunk_start..tokens[last].end,
            kind,
            tokens: start..last + 1,
        });
        i = last + 1;
    }
    chunks
}

pub fn drop_deeply_nested(src: &str, tokens: &[Token], out: &mut Prepared) {
    let mut dropped = Vec::new();
    out.chunks.retain(|c| {
        let mut depth = 0usize;
        let mut deepest = 0usize;
        for t in &tokens[c.tokens.clone()] {
            match t.text(src) {
                "(" | "[" | "{" => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if deepest > MAX_NESTING {
            let first_line = src[c.span.clone()]
                .find('\n')
                .map_or(c.span.end, |p| c.span.start + p);
            dropped.push(Skipped {
                span: c.span.start..first_line,
                reason: format!(
                    "brackets nested {deepest} levels deep (banklint reads at most {MAX_NESTING})"
                ),
            });
            false
        } else {
            true
        }
    });
    out.skipped.extend(dropped);
}

/// C++ aggregates become C structs of the same layout: member functions, constructors,
/// access specifiers and base-class lists are blanked, and `class` is spelled `union` (same
/// length; `class_names` says to lay it out as a struct).
pub fn strip_member_functions(
    src: &str,
    tokens: &[Token],
    out: &mut Prepared,
    blank: &mut Vec<Range<usize>>,
    patches: &mut Vec<(usize, Cow<'static, str>)>,
) {
    let text = |k: usize| tokens.get(k).map_or("", |t| t.text(src));
    for chunk in out
        .chunks
        .iter()
        .filter(|c| c.kind == ChunkKind::Declaration)
    {
        let first = chunk.tokens.start;
        if first >= tokens.len() {
            continue;
        }
        let mut k = first;
        if text(k) == "typedef" {
            k += 1;
        }
        if !matches!(text(k), "struct" | "class") {
            continue;
        }
        let is_class = text(k) == "class";
        let Some(open) = (k..tokens.len())
            .take_while(|&j| tokens[j].start < chunk.span.end)
            .find(|&j| text(j) == "{")
        else {
            continue;
        };
        if is_class {
            patches.push((tokens[k].start, "union".into()));
            if let Some(name) = tokens.get(k + 1).filter(|t| t.kind == TokenKind::Ident) {
                out.class_names.push(name.text(src).to_string());
            }
        }
        // `struct D : public B {`: drop the base list.
        if let Some(colon) = (k + 1..open).find(|&j| text(j) == ":") {
            blank.push(tokens[colon].start..tokens[open - 1].end);
        }
        let Some(close) = matching(src, tokens, open) else {
            continue;
        };
        let mut m = open + 1;
        while m < close {
            if matches!(text(m), "public" | "private" | "protected") && text(m + 1) == ":" {
                blank.push(tokens[m].start..tokens[m + 1].end);
                m += 2;
                continue;
            }
            // One member: up to `;` at depth 0, or a function body.
            let mut j = m;
            let mut depth = 0i32;
            let mut has_call_parens = false;
            let mut end = close - 1;
            while j < close {
                match text(j) {
                    "(" | "[" => {
                        if depth == 0 && text(j) == "(" {
                            has_call_parens = true;
                        }
                        depth += 1;
                    }
                    ")" | "]" => depth -= 1,
                    "{" if depth == 0 => {
                        let body_end = matching(src, tokens, j).unwrap_or(close - 1);
                        end = if text(body_end + 1) == ";" {
                            body_end + 1
                        } else {
                            body_end
                        };
                        if has_call_parens {
                            break;
                        }
                        j = body_end;
                    }
                    ";" if depth == 0 => {
                        end = j;
                        break;
                    }
                    _ => {}
                }
                j += 1;
            }
            if has_call_parens {
                blank.push(tokens[m].start..tokens[end].end);
            }
            m = end + 1;
        }
    }
}

/// Finds classes whose body declares `extern __shared__` storage and hands it out, records
/// their names and arrays, and drops their definitions from the items to parse.
pub fn take_shared_memory_classes(src: &str, tokens: &[Token], out: &mut Prepared) {
    let shared: Vec<usize> = out
        .keywords
        .iter()
        .filter(|(k, _)| *k == Keyword::Shared)
        .map(|(_, at)| *at)
        .collect();
    let mut names = Vec::new();
    let mut arrays = Vec::new();
    out.chunks.retain(|c| {
        if c.kind != ChunkKind::Declaration || !shared.iter().any(|at| c.span.contains(at)) {
            return true;
        }
        let first = Some(c.tokens.start).filter(|&k| k < tokens.len());
        let Some(k) = first else { return true };
        if !matches!(tokens[k].text(src), "struct" | "class")
            || !src[c.span.clone()].contains("extern")
        {
            return true;
        }
        if let Some(name) = tokens.get(k + 1).filter(|t| t.kind == TokenKind::Ident) {
            let class = name.text(src).to_string();
            let args = angle_arguments(&src[name.end..c.span.end]);
            for &at in shared.iter().filter(|at| c.span.contains(at)) {
                // The declared name: the first identifier after `__shared__` followed by `[`.
                let array = tokens[c.tokens.clone()]
                    .windows(2)
                    .find(|w| {
                        w[0].start > at && w[0].kind == TokenKind::Ident && w[1].text(src) == "["
                    })
                    .map(|w| &w[0]);
                if let Some(array) = array {
                    arrays.push(WrapperArray {
                        class: class.clone(),
                        args: args.clone(),
                        array: array.text(src).to_string(),
                        file: String::new(),
                        // The expanded offset for now; its file line below.
                        line: array.start,
                    });
                }
            }
            names.push(class);
        }
        false
    });
    out.shared_memory_classes.extend(names);
    out.shared_memory_classes.sort();
    out.shared_memory_classes.dedup();
    for a in &mut arrays {
        a.line = out.line_of(a.line);
    }
    out.shared_memory_arrays.extend(arrays);
}

/// The template arguments `text` starts with (`<float>` after `SharedMemory`), if any. Read
/// from the source text, lexed again: the rewritten tokens no longer hold them.
fn angle_arguments(text: &str) -> Option<Vec<String>> {
    let tokens = lex(text).tokens;
    if tokens.first()?.text(text) != "<" {
        return None;
    }
    let close = matching_angle(text, &tokens, 0)?;
    Some(argument_texts(text, &tokens[1..close]))
}
