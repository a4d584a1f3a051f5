//! Preprocessing: runs the directives of a file (`#define`, `#undef`, `#include`, `#if` and
//! its kin) and expands every macro invocation in the code that stays, giving the text the
//! later stages read and the source map from it back to the file.
//!
//! The expanded text is the file with comments, directive lines and code that conditional
//! compilation leaves out replaced by spaces (newlines kept), and each macro invocation
//! replaced by its expansion, surrounded by spaces so that tokens never merge.

use crate::front::const_expr::eval_condition;
use crate::front::lex::{Comment, Token, TokenKind, lex};
use crate::front::macros::{Defines, Expander, MacroDef, MacroTable, Origin, PpToken};
use crate::front::source_map::SourceMap;
use crate::limits;
use std::ops::Range;

/// What an `#include "name"` found, as the caller's loader reports it.
pub enum Included {
    /// The header was read and preprocessed: its macros as they stand at its end.
    Found(MacroTable),
    /// Not found (or not readable); the reason is recorded by the loader.
    NotFound,
}

/// Reads and preprocesses a header, given its name as written, whether it was written in
/// angle brackets, and the macros in force at the `#include` line.
pub type IncludeHook<'h> = dyn FnMut(&str, bool, &MacroTable, Range<usize>) -> Included + 'h;

/// A problem the preprocessor met, at an offset of the expanded text.
#[derive(Clone, Debug)]
pub struct Note {
    pub span: Range<usize>,
    pub message: String,
}

/// The preprocessed file.
pub struct Preprocessed {
    /// The expanded text.
    pub text: String,
    /// From the expanded text to the file.
    pub map: SourceMap,
    pub comments: Vec<Comment>,
    /// The macros of the file (and what its headers and `-D` define), by file offset.
    pub macros: MacroTable,
    /// `#include "x"` and `#include <x>` directives, by file span.
    pub includes: Vec<(String, Range<usize>)>,
    /// File ranges that conditional compilation leaves out.
    pub inactive: Vec<Range<usize>>,
    /// Expansions that were abandoned, in expanded-text offsets.
    pub notes: Vec<Note>,
}

/// Preprocesses `src` starting from `macros` (the `-D`/`-U` flags and whatever an includer
/// defined before), reading local headers through `include`.
pub fn preprocess(src: &str, macros: MacroTable, include: &mut IncludeHook<'_>) -> Preprocessed {
    run_directives(src, macros, include).expand(src)
}

/// A file whose directives have run (macros defined, headers included, conditions
/// evaluated) and whose code is still to expand: what an includer needs of a header comes
/// from here, and the expansion, which only the header's lowering reads, can wait for it.
pub struct Directives {
    pub comments: Vec<Comment>,
    /// The macros of the file (and what its headers and `-D` define), by file offset.
    pub macros: MacroTable,
    pub includes: Vec<(String, Range<usize>)>,
    pub inactive: Vec<Range<usize>>,
    pub expansion: Expansion,
}

/// What expanding a file's code starts from, besides its text and macros.
#[derive(Debug)]
pub struct Expansion {
    /// The file with comments, directive lines and inactive regions blanked.
    blanked: String,
    /// The tokens of the active code.
    tokens: Vec<Token>,
    /// Conditions that could not be evaluated, in file offsets.
    conditions: Vec<Note>,
}

/// Runs the directives of `src`: the first half of [`preprocess`].
pub fn run_directives(src: &str, macros: MacroTable, include: &mut IncludeHook<'_>) -> Directives {
    let lexed = lex(src);
    let mut blank: Vec<Range<usize>> = Vec::new();
    blank.extend(lexed.splices.iter().cloned());
    blank.extend(lexed.comments.iter().map(|c| c.span.clone()));
    let mut state = DirectiveState {
        macros,
        includes: Vec::new(),
        inactive: Vec::new(),
        conditions: Vec::new(),
    };
    let tokens = state.run(src, &lexed.directives, lexed.tokens, include, &mut blank);
    let mut blanked = src.as_bytes().to_vec();
    for r in &blank {
        for b in &mut blanked[r.clone()] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    // Only whole comments, directives and regions were blanked, so this is still UTF-8.
    let blanked = String::from_utf8(blanked)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Directives {
        comments: lexed.comments,
        macros: state.macros,
        includes: state.includes,
        inactive: state.inactive,
        expansion: Expansion {
            blanked,
            tokens,
            conditions: state.conditions,
        },
    }
}

impl Directives {
    /// Expands the active code of `src` (the text the directives ran on): the second half
    /// of [`preprocess`].
    pub fn expand(self, src: &str) -> Preprocessed {
        let (text, map, notes) = self.expansion.run(src, &self.macros);
        Preprocessed {
            text,
            map,
            comments: self.comments,
            macros: self.macros,
            includes: self.includes,
            inactive: self.inactive,
            notes,
        }
    }
}

impl Expansion {
    /// The expanded text of `src`, its map to the file, and the notes on expansions
    /// abandoned and conditions not evaluated (in expanded-text offsets), with `macros` as the
    /// directives left them.
    pub fn run(&self, src: &str, macros: &MacroTable) -> (String, SourceMap, Vec<Note>) {
        let (text, map, mut notes) = expand_file(src, &self.blanked, &self.tokens, macros);
        notes.extend(self.conditions.iter().filter_map(|n| {
            let start = map.to_expanded(n.span.start)?;
            Some(Note {
                span: start..start + n.span.len(),
                message: n.message.clone(),
            })
        }));
        (text, map, notes)
    }
}

/// The macro table a file starts with: nvcc's built-in macros, then the command line's `-D`
/// and `-U`.
pub fn initial_macros(defines: &Defines) -> MacroTable {
    let mut t = MacroTable::default();
    for d in crate::front::toolkit::HEADER_MACROS {
        if let Some(def) = MacroDef::parse(d, 0) {
            t.define(def);
        }
    }
    for (name, value) in &defines.defined {
        // `-D 'F(x)=x'` defines a function-like macro, as with gcc.
        if name.contains('(')
            && let Some(def) = MacroDef::parse(&format!("{name} {value}"), 0)
        {
            t.define(def);
            continue;
        }
        t.define(MacroDef {
            name: name.clone(),
            params: None,
            variadic: false,
            body: value.clone(),
            defined_at: 0,
        });
    }
    for name in &defines.undefined {
        t.undefine(name, 0);
    }
    t
}

struct DirectiveState {
    macros: MacroTable,
    /// Conditions that could not be evaluated, in file offsets.
    conditions: Vec<Note>,
    includes: Vec<(String, Range<usize>)>,
    inactive: Vec<Range<usize>>,
}

impl DirectiveState {
    /// The value of the `#if`/`#elif` written at `d` (`line` is its text); one that cannot
    /// be evaluated is false, and noted on the directive, so the user learns that the code it
    /// guards is not analyzed.
    fn condition(&mut self, word: &str, rest: &str, d: &Range<usize>, line: &str) -> bool {
        eval_condition(rest, &self.macros, d.start).unwrap_or_else(|why| {
            let start = d.start + (line.len() - line.trim_start().len());
            let end = d.start + line.lines().next().unwrap_or("").trim_end().len();
            self.conditions.push(Note {
                span: start..end.clamp(start, d.end),
                message: format!(
                    "the condition of this `#{word}` cannot be evaluated: {why}; banklint takes it as false"
                ),
            });
            false
        })
    }

    /// Runs the directives in order and returns the tokens outside left-out regions; those
    /// regions and every directive line are added to `blank`.
    fn run(
        &mut self,
        src: &str,
        directives: &[Range<usize>],
        tokens: Vec<Token>,
        include: &mut IncludeHook<'_>,
        blank: &mut Vec<Range<usize>>,
    ) -> Vec<Token> {
        // Stack of (this branch active, some branch already taken, parent active).
        let mut stack: Vec<(bool, bool, bool)> = Vec::new();
        let mut disabled: Vec<Range<usize>> = Vec::new();
        let mut disabled_from: Option<usize> = None;
        let active = |stack: &Vec<(bool, bool, bool)>| stack.last().is_none_or(|s| s.0);
        for d in directives {
            blank.push(d.clone());
            let line = strip_comments(&src[d.clone()])
                .replace("\\\r\n", " ")
                .replace("\\\n", " ");
            let body = line.trim_start().trim_start_matches('#').trim_start();
            let (word, rest) = split_word(body);
            let was_active = active(&stack);
            let defined = |m: &MacroTable| m.lookup(split_word(rest).0, d.start).is_some();
            match word {
                "if" | "ifdef" | "ifndef" => {
                    let cond = was_active
                        && match word {
                            "ifdef" => defined(&self.macros),
                            "ifndef" => !defined(&self.macros),
                            _ => self.condition(word, rest, d, &src[d.clone()]),
                        };
                    stack.push((cond, cond, was_active));
                }
                "elif" | "elifdef" | "elifndef" => {
                    if let Some(top) = stack.last_mut() {
                        let cond = top.2
                            && !top.1
                            && match word {
                                "elifdef" => defined(&self.macros),
                                "elifndef" => !defined(&self.macros),
                                _ => self.condition(word, rest, d, &src[d.clone()]),
                            };
                        top.0 = cond;
                        top.1 |= cond;
                    }
                }
                "else" => {
                    if let Some(top) = stack.last_mut() {
                        top.0 = top.2 && !top.1;
                        top.1 = true;
                    }
                }
                "endif" => {
                    stack.pop();
                }
                "define" if was_active => {
                    if let Some(def) = MacroDef::parse(rest, d.start) {
                        self.macros.define(def);
                    }
                }
                "undef" if was_active => self.macros.undefine(split_word(rest).0, d.start),
                "include" if was_active => {
                    let r = rest.trim();
                    let quoted = r.strip_prefix('"').and_then(|s| s.split('"').next());
                    let angled = r.strip_prefix('<').and_then(|s| s.split('>').next());
                    if let Some(name) = quoted.or(angled).filter(|n| !n.is_empty()) {
                        self.includes.push((name.to_string(), d.clone()));
                        let span = d.start..d.start + line.trim_end().len().min(d.len());
                        let in_force = self.macros.in_force_at(d.start);
                        if let Included::Found(header) =
                            include(name, quoted.is_none(), &in_force, span)
                        {
                            // What the header defines is in force from here on.
                            self.macros.absorb(&header, d.start);
                        }
                    }
                }
                _ => {}
            }
            let now_active = active(&stack);
            if was_active && !now_active {
                disabled_from = Some(d.end);
            } else if !was_active
                && now_active
                && let Some(from) = disabled_from.take()
            {
                disabled.push(from..d.start);
            }
        }
        if let Some(from) = disabled_from {
            disabled.push(from..src.len());
        }
        blank.extend(disabled.iter().cloned());
        self.inactive.extend(disabled.iter().cloned());
        // Disabled regions are in file order and disjoint: one pass drops their tokens.
        let mut tokens = tokens;
        let mut r = 0;
        tokens.retain(|t| {
            while r < disabled.len() && disabled[r].end <= t.start {
                r += 1;
            }
            !(r < disabled.len() && disabled[r].start <= t.start)
        });
        tokens
    }
}

/// Builds the expanded text: `blanked` (the file with comments, directives and left-out
/// code blanked) with each macro invocation among `tokens` replaced by its expansion.
fn expand_file(
    src: &str,
    blanked: &str,
    tokens: &[Token],
    macros: &MacroTable,
) -> (String, SourceMap, Vec<Note>) {
    let mut text = String::with_capacity(blanked.len());
    let mut map = SourceMap::default();
    let mut notes = Vec::new();
    let mut copied_to = 0;
    let mut produced = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let name = t.text(src);
        let invocation = t.kind == TokenKind::Ident
            && name != "defined"
            && macros.lookup(name, t.start).is_some_and(|m| {
                m.params.is_none() || tokens.get(i + 1).is_some_and(|n| n.text(src) == "(")
            });
        if !invocation {
            i += 1;
            continue;
        }
        if produced > limits::MAX_FILE_EXPANSION_TOKENS {
            notes.push(Note {
                span: text.len() + (t.start - copied_to)..text.len() + (t.end - copied_to),
                message: format!(
                    "macro expansion in this file passed {} tokens; `{name}` and later macros are left unexpanded",
                    limits::MAX_FILE_EXPANSION_TOKENS
                ),
            });
            break;
        }
        let mut expander = Expander::new(macros, t.start);
        match expander.expand_in_file(src, tokens, i) {
            Ok((out, next)) => {
                produced += expander.produced();
                let end = tokens[next - 1].end;
                copy(&mut text, &mut map, blanked, copied_to..t.start);
                emit(&mut text, &mut map, blanked, &out, t.start..end);
                copied_to = end;
                i = next;
            }
            Err(e) => {
                let at = text.len() + (t.start - copied_to);
                notes.push(Note {
                    span: at..at + name.len(),
                    message: e.describe(name),
                });
                i += 1;
            }
        }
    }
    copy(&mut text, &mut map, blanked, copied_to..blanked.len());
    map.finish(src.len());
    (text, map, notes)
}

fn copy(text: &mut String, map: &mut SourceMap, blanked: &str, r: Range<usize>) {
    text.push_str(&blanked[r.clone()]);
    map.push_copied(r.start, r.len());
}

/// Appends an expansion: tokens written in the file keep their place in the map (and the
/// file's spacing between neighbours), the rest map to the invocation and keep the spacing
/// of the macro body.
fn emit(
    text: &mut String,
    map: &mut SourceMap,
    blanked: &str,
    out: &[PpToken],
    invocation: Range<usize>,
) {
    let space = |text: &mut String, map: &mut SourceMap| {
        text.push(' ');
        map.push_expanded(invocation.clone(), 1);
    };
    space(text, map);
    let mut previous: Option<&Range<usize>> = None;
    for (k, t) in out.iter().enumerate() {
        match &t.origin {
            Origin::Written(r) if blanked.get(r.clone()) == Some(&*t.text) => {
                match previous {
                    // Neighbours in the file keep the file's spacing between them.
                    Some(p) if p.end <= r.start && r.start - p.end <= 64 => {
                        copy(text, map, blanked, p.end..r.start)
                    }
                    _ if k > 0 && (t.space || would_merge(text, &t.text)) => space(text, map),
                    _ => {}
                }
                copy(text, map, blanked, r.clone());
                previous = Some(r);
            }
            _ => {
                if k > 0 && (t.space || would_merge(text, &t.text)) {
                    space(text, map);
                }
                text.push_str(&t.text);
                map.push_expanded(invocation.clone(), t.text.len());
                previous = None;
            }
        }
    }
    space(text, map);
}

/// Whether appending `next` right after `text` would lex differently from the two apart.
fn would_merge(text: &str, next: &str) -> bool {
    let (Some(a), Some(b)) = (text.chars().last(), next.chars().next()) else {
        return false;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    if word(a) && word(b) {
        return true;
    }
    let pair: String = [a, b].iter().collect();
    matches!(
        pair.as_str(),
        "++" | "--"
            | "<<"
            | ">>"
            | "&&"
            | "||"
            | "=="
            | "!="
            | "<="
            | ">="
            | "->"
            | "::"
            | "+="
            | "-="
            | "*="
            | "/="
            | "%="
            | "&="
            | "|="
            | "^="
            | "##"
            | "//"
            | "/*"
            | ".."
            | "<:"
            | "%:"
            | "<%"
    ) || (a == '.' && b.is_ascii_digit())
}

fn split_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// A directive line without its comments (string literals kept).
fn strip_comments(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            let nl = r.find('\n').map_or(r.len(), |p| p);
            rest = &r[nl..];
        } else if let Some(r) = rest.strip_prefix("/*") {
            let end = r.find("*/").map_or(r.len(), |p| p + 2);
            out.push(' ');
            rest = &r[end..];
        } else if rest.starts_with('"') || rest.starts_with('\'') {
            let end = crate::front::lex::quoted_end(rest.as_bytes(), 0);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else {
            let ch = rest.chars().next().unwrap_or(' ');
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> Preprocessed {
        preprocess(src, MacroTable::default(), &mut |_, _, _, _| {
            Included::NotFound
        })
    }

    #[test]
    fn expands_and_maps_back() {
        let src = "#define N 32\n#define AS(i, j) As[i][j]\nx = AS(t, N); // c\n";
        let p = run(src);
        let code = p.text.lines().nth(2).expect("line 3");
        assert_eq!(code.split_whitespace().collect::<String>(), "x=As[t][32];");
        let at = p.text.find("As").expect("As");
        let line3 = src.find("x =").expect("x");
        assert_eq!(p.map.span(at..at + 2), line3 + 4..line3 + 12, "`AS(t, N)`");
        let t = p.text.find("As[t]").expect("As[t]") + 3;
        assert_eq!(
            &src[p.map.span(t..t + 1)],
            "t",
            "an argument keeps its place"
        );
        assert!(p.comments.iter().any(|c| c.body.trim() == "c"));
        assert!(!p.text.contains("//"));
    }

    #[test]
    fn text_without_macros_is_the_file_blanked() {
        let src = "int a; /* x */\n#if 0\nint b;\n#endif\nint c;\n";
        let p = run(src);
        assert_eq!(p.text.len(), src.len());
        assert_eq!(p.map, SourceMap::identity(src.len()));
        assert!(!p.text.contains("int b"));
        assert_eq!(p.inactive.len(), 1);
    }

    #[test]
    fn expansions_never_merge_with_neighbours() {
        let p = run("#define P +\nint x = a+P;\n");
        assert!(!p.text.contains("++"), "{}", p.text);
    }

    #[test]
    fn a_blow_up_is_left_unexpanded_and_noted() {
        let mut src = String::new();
        for i in 0..30 {
            src.push_str(&format!("#define M{i} M{} M{}\n", i + 1, i + 1));
        }
        src.push_str("int x = M0;\n");
        let p = run(&src);
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert!(
            p.notes[0].message.contains("`M0`"),
            "{}",
            p.notes[0].message
        );
        assert!(p.text.contains("M0"));
    }

    #[test]
    fn a_condition_that_cannot_be_evaluated_is_noted_at_its_directive() {
        let src = "#if HOSTED()\nint a;\n#elif 1 1\nint b;\n#else\nint c;\n#endif\n";
        let p = run(src);
        let at: Vec<(&str, &str)> = p
            .notes
            .iter()
            .map(|n| (&src[p.map.span(n.span.clone())], n.message.as_str()))
            .collect();
        assert_eq!(at.len(), 2, "{at:?}");
        assert_eq!(at[0].0, "#if HOSTED()");
        assert!(
            at[0].1.contains("`HOSTED(…)` is not a macro"),
            "{}",
            at[0].1
        );
        assert_eq!(at[1].0, "#elif 1 1");
        // Both taken as false: the `#else` branch is compiled.
        assert!(p.text.contains("int c") && !p.text.contains("int a"));
        // Defined on the command line as gcc takes it, the call has a value.
        let defines = Defines {
            defined: vec![("HOSTED()".to_string(), "1".to_string())],
            undefined: Vec::new(),
        };
        let p = preprocess(src, initial_macros(&defines), &mut |_, _, _, _| {
            Included::NotFound
        });
        assert!(p.text.contains("int a") && !p.text.contains("int c"));
        assert_eq!(p.notes.len(), 0, "{:?}", p.notes);
    }
}
