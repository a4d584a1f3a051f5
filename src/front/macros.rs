//! Macros: the `#define`s in force at each offset of a file, their expansion as the C
//! preprocessor does it, and `#if` conditions.
//!
//! Expansion follows the standard algorithm: arguments are macro-expanded before they are
//! substituted (except next to `#` and `##`), the result is rescanned, and each token carries
//! the set of macros it came from ("hide set") so that a macro never expands inside its own
//! expansion (`#define X (X + X)` expands once). Each token also remembers where it came
//! from: written in the file, or produced by an invocation, which is what the source map is
//! built from. Every expansion is bounded (see `limits`).

use crate::front::lex::{Token, TokenKind, lex_body};
use crate::limits;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

/// Whether `text` names one of `names` followed by template arguments (`f<`, `f <`).
pub fn names_with_arguments(text: &str, names: &[&str]) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    names.iter().any(|name| {
        text.match_indices(name).any(|(at, _)| {
            !text[..at].ends_with(word) && text[at + name.len()..].trim_start().starts_with('<')
        })
    })
}

/// A `#define`, object-like (`params == None`) or function-like.
#[derive(Clone, Debug, PartialEq)]
pub struct MacroDef {
    pub name: String,
    pub params: Option<Vec<String>>,
    /// The last parameter is `...` (`__VA_ARGS__`) or `name...`.
    pub variadic: bool,
    pub body: String,
    /// Offset of the `#` of the directive: the macro is visible after it.
    pub defined_at: usize,
}

impl MacroDef {
    /// Parses the text after `#define`: `NAME body`, `NAME(a, b) body`, `NAME(a, ...) body`.
    pub fn parse(rest: &str, at: usize) -> Option<MacroDef> {
        let rest = rest.trim_start();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let after = &rest[end..];
        let mut variadic = false;
        let (params, body) = if let Some(p) = after.strip_prefix('(') {
            let close = p.find(')')?;
            let mut params = Vec::new();
            for raw in p[..close]
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                if raw == "..." {
                    variadic = true;
                    params.push("__VA_ARGS__".to_string());
                } else if let Some(named) = raw.strip_suffix("...") {
                    variadic = true;
                    params.push(named.trim().to_string());
                } else {
                    params.push(raw.to_string());
                }
            }
            (Some(params), &p[close + 1..])
        } else {
            (None, after)
        };
        Some(MacroDef {
            name: name.to_string(),
            params,
            variadic,
            body: body.trim().to_string(),
            defined_at: at,
        })
    }
}

/// The macros of a file in definition order (a later `#define` or `#undef` wins from its
/// position on).
#[derive(Clone, Debug, Default)]
pub struct MacroTable {
    entries: rustc_hash::FxHashMap<Arc<str>, Vec<Definition>>,
}

/// From this file offset on, the macro has this definition (`None`: `#undef`).
type Definition = (usize, Option<Arc<MacroDef>>);

impl MacroTable {
    /// A table of `#define` bodies (`"N 32"`, `"F(x) x"`), all in force from offset 0.
    #[cfg(test)]
    pub fn from_definitions(defs: &[&str]) -> MacroTable {
        let mut t = MacroTable::default();
        for d in defs {
            t.define(MacroDef::parse(d, 0).expect("a definition"));
        }
        t
    }

    pub fn define(&mut self, def: MacroDef) {
        let at = def.defined_at;
        self.entries
            .entry(def.name.as_str().into())
            .or_default()
            .push((at, Some(Arc::new(def))));
    }

    pub fn undefine(&mut self, name: &str, at: usize) {
        self.entries
            .entry(name.into())
            .or_default()
            .push((at, None));
    }

    /// The definition of `name` in force at byte `at`.
    pub fn lookup(&self, name: &str, at: usize) -> Option<&MacroDef> {
        let defs = self.entries.get(name)?;
        defs.iter()
            .rev()
            .find(|(pos, _)| *pos <= at)
            .and_then(|(_, d)| d.as_deref())
    }

    fn lookup_rc(&self, name: &str, at: usize) -> Option<Arc<MacroDef>> {
        let defs = self.entries.get(name)?;
        defs.iter()
            .rev()
            .find(|(pos, _)| *pos <= at)
            .and_then(|(_, d)| d.clone())
    }

    /// The macros (as they stand at the end) whose body names one of `names` with template
    /// arguments (`launch_<...>`): a file invoking one instantiates that template.
    pub fn instantiating(&self, names: &[&str]) -> Vec<String> {
        let mut out: Vec<String> = (self.entries.iter())
            .filter_map(|(name, defs)| {
                let def = defs.last()?.1.as_ref()?;
                names_with_arguments(&def.body, names).then(|| name.to_string())
            })
            .collect();
        out.sort();
        out
    }

    /// Adds every definition of `other` (as it stands at its end) as if made at offset `at`.
    /// Definitions are shared, not copied: a header's table holds every macro in force where
    /// it is included, and a library includes hundreds of headers.
    pub fn absorb(&mut self, other: &MacroTable, at: usize) {
        for (name, defs) in &other.entries {
            if let Some((_, def)) = defs.last() {
                let entry = self.entries.entry(name.clone()).or_default();
                let in_order = entry.last().is_none_or(|(pos, _)| *pos <= at);
                entry.push((at, def.clone()));
                if !in_order {
                    entry.sort_by_key(|(pos, _)| *pos);
                }
            }
        }
    }

    /// The definitions in force at `at`, as a table of their own from offset 0 (what a header
    /// included there sees).
    pub fn in_force_at(&self, at: usize) -> MacroTable {
        let entries = self
            .entries
            .keys()
            .filter_map(|name| {
                let def = self.lookup_rc(name, at)?;
                Some((name.clone(), vec![(0, Some(def))]))
            })
            .collect();
        MacroTable { entries }
    }

    /// The entries whose definition at the end is not the one `before` has (the same
    /// definition, not an equal one): what a header's directives defined or removed, with
    /// what its own headers did, starting from the macros in force where it was included.
    pub fn changed_from(&self, before: &MacroTable) -> MacroTable {
        let changed = |name: &str, defs: &[Definition]| {
            let now = defs.last().and_then(|(_, d)| d.as_ref());
            match (now, before.lookup_rc(name, usize::MAX)) {
                (None, None) => false,
                (Some(now), Some(was)) => !Arc::ptr_eq(now, &was),
                _ => true,
            }
        };
        MacroTable {
            entries: self
                .entries
                .iter()
                .filter(|(name, defs)| changed(name, defs))
                .map(|(name, defs)| (name.clone(), defs.clone()))
                .collect(),
        }
    }

    /// Object-like macros in force at `at`, as name and body.
    pub fn object_like_at(&self, at: usize) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .entries
            .keys()
            .filter_map(|name| self.lookup(name, at))
            .filter(|d| d.params.is_none())
            .map(|d| (d.name.clone(), d.body.clone()))
            .collect();
        out.sort();
        out
    }
}

/// Command-line `-D`/`-U` settings for conditional compilation.
#[derive(Clone, Debug, Default)]
pub struct Defines {
    pub defined: Vec<(String, String)>,
    pub undefined: Vec<String>,
}

impl Defines {
    /// `-D NAME[=VALUE]` (`NAME` alone is 1) and `-U NAME` settings as the front end takes them.
    pub fn from_flags<'a>(
        defined: impl Iterator<Item = &'a str>,
        undefined: impl Iterator<Item = String>,
    ) -> Defines {
        Defines {
            defined: defined
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.trim().to_string(), v.to_string()),
                    None => (d.trim().to_string(), "1".to_string()),
                })
                .collect(),
            undefined: undefined.collect(),
        }
    }
}

/// Where a token of the expanded text comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Written at this range of the file.
    Written(Range<usize>),
    /// Produced by the macro invocation written at this range of the file.
    Invocation(Range<usize>),
}

/// A token during expansion.
#[derive(Clone, Debug)]
pub struct PpToken {
    pub text: Rc<str>,
    pub kind: TokenKind,
    pub origin: Origin,
    /// Whitespace came before it where it was written (kept in the expanded text, so that
    /// `wmma::mem_row_major` stays one name).
    pub space: bool,
    /// Names of the macros this token must not expand again.
    hide: Rc<Vec<Rc<str>>>,
}

impl PpToken {
    pub fn written(src: &str, t: &Token) -> PpToken {
        PpToken {
            text: Rc::from(&src[t.start..t.end]),
            kind: t.kind,
            origin: Origin::Written(t.start..t.end),
            space: space_before(src, t.start),
            hide: Rc::default(),
        }
    }

    /// A number made up by the preprocessor (`defined X` read as `1`), written nowhere.
    pub fn made_number(text: &str) -> PpToken {
        PpToken {
            text: Rc::from(text),
            kind: TokenKind::Number,
            origin: Origin::Written(0..0),
            space: true,
            hide: Rc::default(),
        }
    }

    pub fn is(&self, text: &str) -> bool {
        &*self.text == text
    }

    fn hidden(&self, name: &str) -> bool {
        self.hide.iter().any(|h| &**h == name)
    }

    /// The file range of the invocation this token starts (or stands in).
    fn invocation_start(&self) -> Range<usize> {
        match &self.origin {
            Origin::Written(r) | Origin::Invocation(r) => r.clone(),
        }
    }
}

/// Why an expansion was abandoned.
#[derive(Clone, Debug, PartialEq)]
pub enum ExpansionError {
    TooLong { name: String },
    TooDeep { name: String },
}

impl ExpansionError {
    /// The limit reached: "expands to more than N tokens (through `NAME`)".
    pub fn limit(&self) -> String {
        match self {
            ExpansionError::TooLong { name } => format!(
                "expands to more than {} tokens (through `{name}`)",
                limits::MAX_EXPANSION_TOKENS
            ),
            ExpansionError::TooDeep { name } => format!(
                "nests more than {} expansions deep (through `{name}`)",
                limits::MAX_MACRO_DEPTH
            ),
        }
    }

    /// Says why the invocation of `invoked` was left unexpanded.
    pub fn describe(&self, invoked: &str) -> String {
        format!(
            "the macro `{invoked}` {}; it is left unexpanded",
            self.limit()
        )
    }
}

/// Tokens still to be read by an expansion: what it pushed back first, then (at the top
/// level only) the file's tokens from `next` on.
struct Input<'s> {
    pending: Vec<PpToken>,
    file: Option<(&'s str, &'s [Token], usize)>,
}

impl Input<'_> {
    fn next(&mut self) -> Option<PpToken> {
        if let Some(t) = self.pending.pop() {
            return Some(t);
        }
        let (src, toks, next) = self.file.as_mut()?;
        let t = toks.get(*next)?;
        *next += 1;
        Some(PpToken::written(src, t))
    }

    fn peek_is(&mut self, text: &str) -> bool {
        match self.next() {
            Some(t) => {
                let yes = t.is(text);
                self.pending.push(t);
                yes
            }
            None => false,
        }
    }

    fn push_front(&mut self, tokens: Vec<PpToken>) {
        self.pending.extend(tokens.into_iter().rev());
    }
}

/// Expands macros with the definitions in force at one offset.
pub struct Expander<'m> {
    macros: &'m MacroTable,
    at: usize,
    produced: usize,
    depth: usize,
}

impl<'m> Expander<'m> {
    pub fn new(macros: &'m MacroTable, at: usize) -> Expander<'m> {
        Expander {
            macros,
            at,
            produced: 0,
            depth: 0,
        }
    }

    /// Tokens produced so far (for the file-wide budget).
    pub fn produced(&self) -> usize {
        self.produced
    }

    /// Expands the invocation that starts at `toks[start]` of the file (a macro name), reading
    /// further file tokens as the expansion needs (a function-like macro's arguments, or a
    /// name the expansion ends with followed by `(`). Returns the tokens and the index of the
    /// first file token not consumed.
    pub fn expand_in_file(
        &mut self,
        src: &str,
        toks: &[Token],
        start: usize,
    ) -> Result<(Vec<PpToken>, usize), ExpansionError> {
        let mut input = Input {
            pending: Vec::new(),
            file: Some((src, toks, start)),
        };
        let first = input.next().expect("a token at start");
        let mut out = Vec::new();
        // Expand the first token, then keep going only while the tail of what was produced
        // can still consume file tokens (a pending function-like macro name).
        input.pending.push(first);
        while let Some(t) = input.pending.pop() {
            self.step(t, &mut input, &mut out)?;
        }
        let consumed = input.file.map_or(start + 1, |(_, _, next)| next);
        Ok((out, consumed))
    }

    /// Expands a token list on its own (a macro argument, an `#if` condition).
    pub fn expand_tokens(&mut self, tokens: Vec<PpToken>) -> Result<Vec<PpToken>, ExpansionError> {
        let mut input = Input {
            pending: Vec::new(),
            file: None,
        };
        input.push_front(tokens);
        let mut out = Vec::new();
        while let Some(t) = input.next() {
            self.step(t, &mut input, &mut out)?;
        }
        Ok(out)
    }

    /// Handles one token: expands it if it names a macro that may expand here, else emits it.
    fn step(
        &mut self,
        t: PpToken,
        input: &mut Input<'_>,
        out: &mut Vec<PpToken>,
    ) -> Result<(), ExpansionError> {
        let def = (t.kind == TokenKind::Ident && !t.hidden(&t.text))
            .then(|| self.macros.lookup_rc(&t.text, self.at))
            .flatten();
        let Some(def) = def else {
            out.push(t);
            return Ok(());
        };
        match &def.params {
            None => {
                let origin = Origin::Invocation(t.invocation_start());
                let mut hide = (*t.hide).clone();
                hide.push(Rc::from(def.name.as_str()));
                let hide = Rc::new(hide);
                let body = self.body_tokens(&def, &origin, &hide);
                self.count(body.len(), &def.name)?;
                input.push_front(body);
            }
            Some(params) => {
                if !input.peek_is("(") {
                    out.push(t);
                    return Ok(());
                }
                let open = input.next().expect("peeked");
                let Some((args, close)) = collect_arguments(input) else {
                    // No closing parenthesis: not an invocation.
                    out.push(t);
                    out.push(open);
                    return Ok(());
                };
                let range = t.invocation_start().start..close.invocation_start().end;
                let origin = Origin::Invocation(range);
                // The hide set of the result: what both the name and `)` had, plus this macro.
                let mut hide: Vec<Rc<str>> = t
                    .hide
                    .iter()
                    .filter(|h| close.hide.contains(h))
                    .cloned()
                    .collect();
                hide.push(Rc::from(def.name.as_str()));
                let hide = Rc::new(hide);
                let result = self.substitute(&def, params, args, &origin, &hide)?;
                self.count(result.len(), &def.name)?;
                input.push_front(result);
            }
        }
        Ok(())
    }

    fn count(&mut self, n: usize, name: &str) -> Result<(), ExpansionError> {
        self.produced += n;
        if self.produced > limits::MAX_EXPANSION_TOKENS {
            return Err(ExpansionError::TooLong {
                name: name.to_string(),
            });
        }
        Ok(())
    }

    fn body_tokens(
        &self,
        def: &MacroDef,
        origin: &Origin,
        hide: &Rc<Vec<Rc<str>>>,
    ) -> Vec<PpToken> {
        lex_body(&def.body)
            .iter()
            .map(|b| PpToken {
                text: Rc::from(b.text(&def.body)),
                kind: b.kind,
                origin: origin.clone(),
                space: space_before(&def.body, b.start),
                hide: hide.clone(),
            })
            .collect()
    }

    /// A function-like macro's body with its arguments in place: `#p` stringized, `a ## b`
    /// pasted from the arguments as written, other parameters replaced by their expansion.
    fn substitute(
        &mut self,
        def: &MacroDef,
        params: &[String],
        mut args: Vec<Vec<PpToken>>,
        origin: &Origin,
        hide: &Rc<Vec<Rc<str>>>,
    ) -> Result<Vec<PpToken>, ExpansionError> {
        // Variadic: the trailing arguments, commas included, are one.
        if def.variadic && args.len() > params.len() && !params.is_empty() {
            let tail = args.split_off(params.len() - 1);
            let mut joined = Vec::new();
            for (k, a) in tail.into_iter().enumerate() {
                if k > 0 {
                    joined.push(PpToken {
                        text: Rc::from(","),
                        kind: TokenKind::Punct,
                        origin: origin.clone(),
                        space: false,
                        hide: Rc::default(),
                    });
                }
                joined.extend(a);
            }
            args.push(joined);
        }
        // `F()` passes one empty argument; a macro with no parameters takes none.
        if params.is_empty() && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        let body = self.body_tokens(def, origin, hide);
        let param_of = |t: &PpToken| {
            (t.kind == TokenKind::Ident)
                .then(|| params.iter().position(|p| **p == *t.text))
                .flatten()
        };
        let mut expanded_args: HashMap<usize, Vec<PpToken>> = HashMap::new();
        let mut out: Vec<PpToken> = Vec::new();
        let mut k = 0;
        while k < body.len() {
            let t = &body[k];
            let next_is_paste = body.get(k + 1).is_some_and(|n| n.is("##"));
            let prev_was_paste = k > 0 && body[k - 1].is("##");
            if t.is("#")
                && let Some(p) = body.get(k + 1).and_then(param_of)
            {
                out.push(PpToken {
                    text: Rc::from(stringize(args.get(p).map_or(&[][..], Vec::as_slice))),
                    kind: TokenKind::Str,
                    origin: origin.clone(),
                    space: t.space,
                    hide: hide.clone(),
                });
                k += 2;
                continue;
            }
            if t.is("##") {
                // Paste the last token so far with the first of what follows.
                let right: Vec<PpToken> = match body.get(k + 1) {
                    Some(n) => match param_of(n) {
                        Some(p) => args.get(p).cloned().unwrap_or_default(),
                        None => vec![n.clone()],
                    },
                    None => Vec::new(),
                };
                let mut right = right.into_iter();
                if let (Some(left), Some(first)) = (out.pop(), right.next()) {
                    out.push(paste(&left, &first, origin, hide));
                } else if let Some(first) = right.next() {
                    out.push(first);
                }
                out.extend(right);
                k += 2;
                continue;
            }
            match param_of(t) {
                Some(p) if next_is_paste || prev_was_paste => {
                    out.extend(with_space(
                        args.get(p).cloned().unwrap_or_default(),
                        t.space,
                    ));
                }
                Some(p) => {
                    if let std::collections::hash_map::Entry::Vacant(slot) = expanded_args.entry(p)
                    {
                        let arg = args.get(p).cloned().unwrap_or_default();
                        self.depth += 1;
                        if self.depth > limits::MAX_MACRO_DEPTH {
                            return Err(ExpansionError::TooDeep {
                                name: def.name.clone(),
                            });
                        }
                        let e = self.expand_tokens(arg);
                        self.depth -= 1;
                        slot.insert(e?);
                    }
                    let e = &expanded_args[&p];
                    self.count(e.len(), &def.name)?;
                    let e: Vec<PpToken> = e
                        .iter()
                        .map(|a| {
                            let mut a = a.clone();
                            let mut h = (*a.hide).clone();
                            h.extend(hide.iter().cloned());
                            a.hide = Rc::new(h);
                            a
                        })
                        .collect();
                    out.extend(with_space(e, t.space));
                }
                None => out.push(t.clone()),
            }
            k += 1;
        }
        Ok(out)
    }
}

/// The arguments of an invocation after its `(`, up to the matching `)`: each argument's
/// tokens, and the `)`. `None` if the input ends first.
fn collect_arguments(input: &mut Input<'_>) -> Option<(Vec<Vec<PpToken>>, PpToken)> {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    loop {
        let t = input.next()?;
        match &*t.text {
            "(" | "[" | "{" => depth += 1,
            ")" if depth == 0 => return Some((args, t)),
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            "," if depth == 0 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        args.last_mut().expect("one").push(t);
    }
}

fn stringize(tokens: &[PpToken]) -> String {
    let mut s = String::from("\"");
    for (k, t) in tokens.iter().enumerate() {
        if k > 0 {
            s.push(' ');
        }
        if matches!(t.kind, TokenKind::Str | TokenKind::Char) {
            s.push_str(&t.text.replace('\\', "\\\\").replace('"', "\\\""));
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    s
}

fn paste(left: &PpToken, right: &PpToken, origin: &Origin, hide: &Rc<Vec<Rc<str>>>) -> PpToken {
    let text = format!("{}{}", left.text, right.text);
    let toks = lex_body(&text);
    let kind = match toks.as_slice() {
        [one] if one.start == 0 && one.end == text.len() => one.kind,
        _ => TokenKind::Punct,
    };
    PpToken {
        text: Rc::from(text),
        kind,
        origin: origin.clone(),
        space: left.space,
        hide: hide.clone(),
    }
}

/// Whether whitespace precedes offset `at` of `text`.
fn space_before(text: &str, at: usize) -> bool {
    at > 0
        && text
            .as_bytes()
            .get(at - 1)
            .is_some_and(|b| b.is_ascii_whitespace())
}

/// Substituted tokens take the spacing of the parameter they replace.
fn with_space(mut tokens: Vec<PpToken>, space: bool) -> Vec<PpToken> {
    if let Some(first) = tokens.first_mut() {
        first.space = space;
    }
    tokens
}

/// `text` expanded with `table`, its tokens joined by spaces (for tests).
#[cfg(test)]
pub(crate) fn expand_with(table: &MacroTable, text: &str) -> String {
    let toks = crate::front::lex::lex(text).tokens;
    let pre: Vec<PpToken> = toks.iter().map(|k| PpToken::written(text, k)).collect();
    Expander::new(table, 1)
        .expand_tokens(pre)
        .expect("expands")
        .iter()
        .map(|t| t.text.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lex::lex;

    fn table(defs: &[&str]) -> MacroTable {
        MacroTable::from_definitions(defs)
    }

    #[test]
    fn a_header_exports_only_what_it_changed() {
        let outer = table(&["KEEP 1", "REDEFINED 2", "REMOVED 3"]);
        let seen = outer.in_force_at(usize::MAX);
        // The header's directives, run on what it saw.
        let mut header = seen.clone();
        header.define(MacroDef::parse("REDEFINED 2", 10).unwrap());
        header.define(MacroDef::parse("NEW 4", 20).unwrap());
        header.undefine("REMOVED", 30);
        header.undefine("NEVER", 40);
        let changed = header.changed_from(&seen);
        let mut names: Vec<&str> = changed.entries.keys().map(|n| &**n).collect();
        names.sort();
        // An equal body written again is still a definition the header made.
        assert_eq!(names, ["NEW", "REDEFINED", "REMOVED"]);
        // Absorbed where the header is included, the includer sees what it would have.
        let mut after = outer.clone();
        after.absorb(&changed, 100);
        assert_eq!(after.lookup("KEEP", 200).map(|d| &*d.body), Some("1"));
        assert_eq!(after.lookup("NEW", 200).map(|d| &*d.body), Some("4"));
        assert!(after.lookup("REMOVED", 200).is_none());
        assert!(after.lookup("REMOVED", 50).is_some());
    }

    fn expand(defs: &[&str], text: &str) -> String {
        super::expand_with(&table(defs), text)
    }

    #[test]
    fn expands_as_the_preprocessor_does() {
        assert_eq!(expand(&["W 32 + 1"], "s[t * W]"), "s [ t * 32 + 1 ]");
        assert_eq!(
            expand(&["AS(i, j) As[i][j]"], "AS(t, 0) = 1"),
            "As [ t ] [ 0 ] = 1"
        );
        assert_eq!(
            expand(&["F4(v) (reinterpret_cast<float4 *>(&(v))[0])"], "F4(s[i])"),
            "( reinterpret_cast < float4 * > ( & ( s [ i ] ) ) [ 0 ] )"
        );
        // Self-reference expands once.
        assert_eq!(expand(&["X (X + X)"], "X"), "( X + X )");
        // Arguments are expanded before substitution, and the result rescanned.
        assert_eq!(
            expand(&["N 4", "SQ(x) ((x) * (x))"], "SQ(N)"),
            "( ( 4 ) * ( 4 ) )"
        );
        assert_eq!(expand(&["A B", "B(x) x + 1"], "A(2)"), "2 + 1");
        // Stringizing and pasting.
        assert_eq!(expand(&["S(x) #x"], "S(a + b)"), "\"a + b\"");
        assert_eq!(expand(&["CAT(a, b) a ## b"], "CAT(x, 1)"), "x1");
        assert_eq!(
            expand(&["V(f, ...) f(__VA_ARGS__)"], "V(g, 1, 2)"),
            "g ( 1 , 2 )"
        );
        // A function-like macro name without `(` stays.
        assert_eq!(expand(&["F(x) x"], "F + 1"), "F + 1");
    }

    #[test]
    fn the_gems_scan_macro_keeps_c_precedence() {
        // `+` binds tighter than `>>`: the shift count is LOG_NUM_BANKS + n.
        assert_eq!(
            expand(
                &[
                    "LOG_NUM_BANKS 5",
                    "OFF(n) ((n) >> LOG_NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS))"
                ],
                "OFF(i)"
            ),
            "( ( i ) >> 5 + ( i ) >> ( 2 * 5 ) )"
        );
    }

    #[test]
    fn doubling_chains_stop_at_the_limit() {
        let mut defs: Vec<String> = (0..24)
            .map(|i| format!("M{i} M{} M{}", i + 1, i + 1))
            .collect();
        defs.push("M24 x".to_string());
        let refs: Vec<&str> = defs.iter().map(String::as_str).collect();
        let t = table(&refs);
        let text = "M0";
        let toks = lex(text).tokens;
        let r = Expander::new(&t, 1).expand_in_file(text, &toks, 0);
        assert!(matches!(r, Err(ExpansionError::TooLong { .. })), "{r:?}");
    }

    #[test]
    fn origins_point_at_the_file() {
        let t = table(&["F(x) (x) * 2"]);
        let text = "a = F(b);";
        let toks = lex(text).tokens;
        let (out, next) = Expander::new(&t, 1)
            .expand_in_file(text, &toks, 2)
            .expect("expands");
        assert_eq!(next, 6, "consumed `F ( b )`");
        let b = out.iter().find(|t| t.is("b")).expect("b");
        assert_eq!(b.origin, Origin::Written(6..7));
        let two = out.iter().find(|t| t.is("2")).expect("2");
        assert_eq!(two.origin, Origin::Invocation(4..8));
    }

    #[test]
    fn macros_that_instantiate_a_template_are_found_by_its_name_and_arguments() {
        let t = table(&[
            "REGISTER(N, T) void run_##N(P &p) { launch_<T, N>(p); }",
            "CALLS(p) launch_(p)",
            "OTHER(N) relaunch_<N>()",
        ]);
        assert_eq!(t.instantiating(&["launch_"]), ["REGISTER"]);
        assert!(names_with_arguments("x = launch_ <4>(p);", &["launch_"]));
        assert!(!names_with_arguments(
            "launch_(p); my_launch_<4>(p);",
            &["launch_"]
        ));
    }
}
