//! Members of a class named with its template arguments (`Traits<256, float>`), as traits
//! classes handed to kernels give them (`template <typename K> __global__ void k()` reading
//! `K::THREADS` and `typename K::compute_t`): static constants and enumerators, member types
//! (`typedef`, `using`), and what the class's bases give it. The class's parameters are bound
//! to the arguments, missing ones to their defaults (each default seeing the parameters
//! before it). Values are text with every name the class knows replaced (sibling members,
//! `Base::X`, `typename Base::T`, `Other<A>::Y`), evaluated by the caller.

use crate::front::names::{split_path, split_template_args};
use crate::front::prepared::{Prepared, TemplateHeader};
use crate::limits::MAX_STATIC_MEMBER_NESTING;

/// What a member is: a constant's value or a type, as text in the caller's terms.
#[derive(Clone, Debug, PartialEq)]
pub enum Member {
    Value(String),
    Type(String),
}

/// The classes of a file and its headers.
pub struct Classes<'p> {
    preps: Vec<&'p Prepared>,
    /// The specializations each class tag has (written arguments, own parameters), each once:
    /// built at the first choice, as a lookup makes many.
    specializations: std::cell::OnceCell<Specializations<'p>>,
    /// The names of the alias and variable templates, for the many lookups of names that
    /// are neither.
    template_texts: std::cell::OnceCell<std::collections::HashSet<&'p str>>,
    /// Members looked up, by class and member: a library's classes are asked the same
    /// ones again and again, each answer a walk through their bases and members.
    found: std::cell::RefCell<std::collections::HashMap<(String, String), Option<Member>>>,
    /// Whether the lookup under way met the nesting bound.
    cut: std::cell::Cell<bool>,
}

type Specializations<'p> = std::collections::HashMap<&'p str, Vec<(&'p [String], &'p [String])>>;

impl<'p> Classes<'p> {
    pub fn new(preps: impl IntoIterator<Item = &'p Prepared>) -> Classes<'p> {
        Classes {
            preps: preps.into_iter().collect(),
            specializations: std::cell::OnceCell::new(),
            template_texts: std::cell::OnceCell::new(),
            found: Default::default(),
            cut: std::cell::Cell::new(false),
        }
    }

    fn specializations_of(&self, tag: &str) -> &[(&'p [String], &'p [String])] {
        let all = self.specializations.get_or_init(|| {
            let mut all: Specializations<'p> = std::collections::HashMap::new();
            for p in &self.preps {
                let statics = (p.static_members.iter()).map(|m| (&m.class, &m.args, &m.params));
                let typedefs = (p.member_typedefs.iter()).map(|m| (&m.class, &m.args, &m.params));
                let bases = p.class_bases.iter().map(|b| (&b.class, &b.args, &b.params));
                for (class, written, params) in statics.chain(typedefs).chain(bases) {
                    let Some(written) = written.as_deref() else {
                        continue;
                    };
                    let known = all.entry(class.as_str()).or_default();
                    if !known
                        .iter()
                        .any(|(w, p)| *w == written && *p == params.as_slice())
                    {
                        known.push((written, params.as_slice()));
                    }
                }
            }
            all
        });
        all.get(tag).map_or(&[], Vec::as_slice)
    }

    /// Member `member` of the class `class` names (`ns::Traits<256, float>`, `x128`), with
    /// every name in it that the class knows replaced.
    pub fn member(&self, class: &str, member: &str) -> Option<Member> {
        self.member_at(class, member, 0)
    }

    /// `text` (a type or a value written outside any class) with `typename` dropped and each
    /// `A<x>::m` whose class banklint has read replaced by what it is.
    pub fn resolve(&self, text: &str) -> String {
        let text = drop_word(text, "typename");
        let resolve = |path: &str| -> Option<String> {
            if let Some(v) = self.variable_instance(path) {
                return Some(v);
            }
            let parts = split_path(path);
            let (last, scope) = parts.split_last()?;
            if scope.is_empty() {
                return None;
            }
            Some(match self.member_at(&scope.join("::"), last, 0)? {
                Member::Value(v) => format!("({v})"),
                Member::Type(t) => t,
            })
        };
        let out = replace_paths(&text, &resolve);
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// An alias template's instance (`tile_f<32, 32>`) as the type it names (`tile<float, 32,
    /// 32>`): parameters replaced by the arguments or their defaults, a pack (`dims...`) by
    /// the arguments left. `None` when `text` names no alias template.
    pub fn alias_instance(&self, text: &str) -> Option<String> {
        let out = self.instance_of(text, &|p| &p.alias_templates, false)?;
        // `typename A<x>::type` of a pack's recursion reads as the member type it is.
        Some(out.trim_start_matches("typename ").to_string())
    }

    /// A variable template's instance (`TILE_DIM<float>`, `ns::TILE_DIM<T>` with `T` bound)
    /// as its value, parenthesized, with the instances it uses replaced in turn. `None` when
    /// `text` names none.
    pub fn variable_instance(&self, text: &str) -> Option<String> {
        self.variable_instance_at(text, 0)
    }

    fn variable_instance_at(&self, text: &str, depth: usize) -> Option<String> {
        if depth > MAX_STATIC_MEMBER_NESTING {
            self.cut.set(true);
            return None;
        }
        let value = self.instance_of(text, &|p| &p.variable_templates, true)?;
        let value = replace_paths(&value, &|p| self.variable_instance_at(p, depth + 1));
        Some(format!("({value})"))
    }

    /// `text` as an instance of one of the templates `list` gives, with its text's parameters
    /// replaced; `needs_args`: only written with `<...>` (a variable's name alone is not one).
    fn instance_of(
        &self,
        text: &str,
        list: &dyn Fn(&'p Prepared) -> &'p [crate::front::prepared::TemplateText],
        needs_args: bool,
    ) -> Option<String> {
        let t = text.trim().trim_start_matches("typename ").trim();
        let names = self.template_texts.get_or_init(|| {
            (self.preps.iter())
                .flat_map(|p| p.alias_templates.iter().chain(&p.variable_templates))
                .map(|a| a.name.as_str())
                .collect()
        });
        let head = t.split('<').next().unwrap_or(t);
        if !names.contains(head.rsplit("::").next().unwrap_or(head).trim()) {
            return None;
        }
        let (name, args) = match split_template_args(t) {
            Some(parts) => parts,
            None if needs_args => return None,
            None => (t, Vec::new()),
        };
        let tag = name.rsplit("::").next()?.trim();
        let found = (self.preps.iter().copied())
            .flat_map(list)
            .find(|a| a.name == tag)?;
        let mut bindings: Bindings = Vec::new();
        let mut out = found.text.clone();
        for (k, p) in found.header.params.iter().enumerate() {
            if p.pack {
                let rest = args.get(k..).unwrap_or_default().to_vec();
                out = crate::front::names::expand_packs(&out, &|n| {
                    (n == p.name).then(|| rest.clone())
                });
                continue;
            }
            let value = match args.get(k) {
                Some(a) if !a.is_empty() => a.clone(),
                _ => substitute(p.default.as_deref()?, &|w| bound(&bindings, w)),
            };
            bindings.push((p.name.clone(), value));
        }
        Some(substitute(&out, &|w| bound(&bindings, w)))
    }

    /// `text` written inside the class `class` names (`base<T, layout>` in `rt<float, 32,
    /// 32>`), with the class's parameters and members replaced.
    pub fn within(&self, class: &str, text: &str) -> String {
        let (tag, args) = tag_and_args(class);
        let bindings = self.bindings(&tag, &args);
        let bound_text = substitute(text, &|w| bound(&bindings, w));
        let out = self.expand(&bound_text, class, 0);
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn member_at(&self, class: &str, member: &str, depth: usize) -> Option<Member> {
        if depth > MAX_STATIC_MEMBER_NESTING {
            self.cut.set(true);
            return None;
        }
        let key = (class.to_string(), member.to_string());
        if let Some(known) = self.found.borrow().get(&key) {
            return known.clone();
        }
        let outer_cut = self.cut.replace(false);
        let found = self.member_uncached(class, member, depth);
        let cut = self.cut.get();
        self.cut.set(outer_cut || cut);
        // Only whole answers are kept: one the nesting bound cut short may be asked again
        // from less deep and do better.
        if !cut {
            self.found.borrow_mut().insert(key, found.clone());
        }
        found
    }

    fn member_uncached(&self, class: &str, member: &str, depth: usize) -> Option<Member> {
        if let Some(target) = self.alias_instance(class) {
            return self.member_at(&target, member, depth + 1);
        }
        let (tag, args) = tag_and_args(class);
        let primary = self.bindings(&tag, &args);
        let bind = |t: &str, spec: &Option<Bindings>| {
            let b = spec.as_ref().unwrap_or(&primary);
            let t = crate::front::names::expand_packs(t, &|n| {
                let list = bound(b, &format!("{n}..."))?;
                Some(crate::front::names::split_list(&list))
            });
            substitute(&t, &|w| bound(b, w))
        };
        let found = self
            .own_member(&tag, &args, member)
            .map(|(m, spec)| match m {
                Member::Value(v) => Member::Value(bind(&v, &spec)),
                Member::Type(t) => Member::Type(bind(&t, &spec)),
            });
        let found = match found {
            Some(m) => m,
            None => {
                // Inherited: the first base that has it.
                let (bases, spec) = self.bases(&tag, &args);
                return bases
                    .iter()
                    .find_map(|b| self.member_at(&bind(b, &spec), member, depth + 1));
            }
        };
        // Names the value uses that the class knows: its other members, its bases' members.
        let expanded = self.expand(&found_text(&found), class, depth + 1);
        let expanded = expanded.split_whitespace().collect::<Vec<_>>().join(" ");
        Some(match found {
            Member::Value(_) => Member::Value(expanded),
            Member::Type(_) => Member::Type(expanded),
        })
    }

    /// Rewrites `text` (a value or a type written in `class`) so that it names nothing of
    /// `class`: `typename` dropped, a sibling or inherited member replaced by what it is,
    /// `A::m` and `A<x>::m` resolved where `A` is a class banklint has read.
    fn expand(&self, text: &str, class: &str, depth: usize) -> String {
        if depth > MAX_STATIC_MEMBER_NESTING {
            self.cut.set(true);
            return text.to_string();
        }
        let text = drop_word(text, "typename");
        let resolve = |path: &str| -> Option<String> {
            if let Some(v) = self.variable_instance(path) {
                return Some(self.expand(&v, class, depth + 1));
            }
            let parts = split_path(path);
            let (last, scope) = parts.split_last()?;
            let as_text = |m: Member| match m {
                Member::Value(v) => format!("({v})"),
                Member::Type(t) => t,
            };
            if scope.is_empty() {
                // A bare name: a member of the class it is written in.
                return self.member_at(class, last, depth + 1).map(as_text);
            }
            // `A::m`: `A` may itself be a member type of the class (`Base`, `Reducer`); the
            // class's values and types in its arguments are read first
            // (`BytesToType<BYTES>::Type`, `base<T, layout>::size` with `using T = ...;`).
            let scope = scope.join("::");
            let scope = if scope.contains('<') {
                substitute(&scope, &|w| match self.member_at(class, w, depth + 1)? {
                    Member::Value(v) => Some(format!("({v})")),
                    Member::Type(t) => Some(t),
                })
            } else {
                scope
            };
            let owner = match self.member_at(class, &scope, depth + 1) {
                Some(Member::Type(t)) => t,
                _ => scope,
            };
            self.member_at(&owner, last, depth + 1).map(as_text)
        };
        replace_paths(&text, &resolve)
    }

    /// Whether banklint has read the class `class` names (`tile<float, 32, 32>`, an alias
    /// template's instance): a class template, or a class with members it recorded.
    pub fn knows(&self, class: &str) -> bool {
        let class = self
            .alias_instance(class)
            .unwrap_or_else(|| class.to_string());
        let (tag, _) = tag_and_args(&class);
        self.header(&tag).is_some()
            || self.preps.iter().any(|p| {
                p.static_members.iter().any(|m| m.class == tag)
                    || p.member_typedefs.iter().any(|m| m.class == tag)
            })
    }

    /// Whether `name` is a type alias outside any class in some file read (`using bf16 =
    /// __nv_bfloat16;`, a typedef, an alias template): two different names may then be one
    /// type.
    pub fn is_alias(&self, name: &str) -> bool {
        self.preps.iter().any(|p| {
            p.aliases.iter().any(|(a, _)| a == name)
                || p.alias_templates.iter().any(|a| a.name == name)
        })
    }

    /// The class template's header, by tag, from this file or a header.
    fn header(&self, tag: &str) -> Option<&'p TemplateHeader> {
        self.preps
            .iter()
            .flat_map(|p| p.class_templates.iter())
            .find(|(t, _)| t == tag)
            .map(|(_, h)| h)
    }

    /// The class's parameters bound to `args`, missing ones to their defaults.
    fn bindings(&self, tag: &str, args: &[String]) -> Vec<(String, String)> {
        let Some(header) = self.header(tag) else {
            return Vec::new();
        };
        let mut out: Vec<(String, String)> = Vec::new();
        for (k, p) in header.params.iter().enumerate() {
            let value = match (args.get(k), &p.default) {
                (Some(a), _) => a.clone(),
                (None, Some(d)) => substitute(d, &|w| bound(&out, w)),
                (None, None) => continue,
            };
            out.push((p.name.clone(), value));
        }
        out
    }

    /// `args` completed with the primary template's defaults (`tile<16, 8, half2>` of
    /// `template <int I, int J, typename T, layout L = ROW>` is `tile<16, 8, half2, ROW>`, which
    /// a specialization `tile<I, J, T, ROW>` matches); `None` when nothing is missing or a
    /// missing parameter has no default.
    pub fn with_defaults(&self, tag: &str, args: &[String]) -> Option<Vec<String>> {
        let header = self.header(tag)?;
        if header.params.len() <= args.len() || header.params.iter().any(|p| p.pack) {
            return None;
        }
        let full: Vec<String> = (self.bindings(tag, args).into_iter())
            .map(|(_, v)| v)
            .collect();
        (full.len() == header.params.len()).then_some(full)
    }

    /// Which definition of the class `args` select: the specialization whose arguments they
    /// match (its written arguments and its own parameters' bindings), or the primary
    /// template (`Some(None)`). `None` when that cannot be decided: an argument that is
    /// neither a number nor a built-in type (an alias or parameter banklint did not resolve)
    /// stands where a specialization writes something else, so either could be meant.
    fn choose(&self, tag: &str, args: &[String]) -> Option<Option<(Vec<String>, Bindings)>> {
        let full = self.with_defaults(tag, args);
        let args = full.as_deref().unwrap_or(args);
        let mut undecided = false;
        // The most specialized match wins, as in C++: the one that fixes the most arguments
        // (`Stats<T, 1, W, 1>` over `Stats<T, 1, W, N>` for `Stats<float, 1, 4, 1>`).
        let mut best: Option<(usize, Vec<String>, Bindings)> = None;
        for &(written, params) in self.specializations_of(tag) {
            match unify(written, params, args) {
                Some(bound) => {
                    let fixed = written.iter().filter(|w| !params.contains(*w)).count();
                    // A full specialization cannot be beaten.
                    if fixed == written.len() {
                        return Some(Some((written.to_vec(), bound)));
                    }
                    if best.as_ref().is_none_or(|(f, _, _)| fixed > *f) {
                        best = Some((fixed, written.to_vec(), bound));
                    }
                }
                None => undecided |= could_match(written, params, args),
            }
        }
        if let Some((_, written, bound)) = best {
            return Some(Some((written, bound)));
        }
        (!undecided).then_some(None)
    }

    /// A member the chosen definition of the class declares, with the bindings of a
    /// specialization's own parameters when one was chosen.
    fn own_member(
        &self,
        tag: &str,
        args: &[String],
        member: &str,
    ) -> Option<(Member, Option<Bindings>)> {
        let chosen = self.choose(tag, args)?;
        let written = chosen.as_ref().map(|(w, _)| w);
        let is_chosen = |a: &Option<Vec<String>>| a.as_ref() == written;
        let statics = self
            .preps
            .iter()
            .flat_map(|p| p.static_members.iter())
            .find(|m| m.class == tag && m.member == member && is_chosen(&m.args))
            .map(|m| Member::Value(m.value.clone()));
        let typedef = || {
            self.preps
                .iter()
                .flat_map(|p| p.member_typedefs.iter())
                .find(|m| m.class == tag && m.member == member && is_chosen(&m.args))
                .map(|m| Member::Type(m.ty.clone()))
        };
        let m = statics.or_else(typedef)?;
        Some((m, chosen.map(|(_, bound)| bound)))
    }

    /// The bases of the chosen definition of the class, with the bindings of a
    /// specialization's own parameters when one was chosen.
    fn bases(&self, tag: &str, args: &[String]) -> (Vec<String>, Option<Bindings>) {
        let Some(chosen) = self.choose(tag, args) else {
            return (Vec::new(), None);
        };
        let written = chosen.as_ref().map(|(w, _)| w);
        let bases = self
            .preps
            .iter()
            .flat_map(|p| p.class_bases.iter())
            .find(|b| b.class == tag && b.args.as_ref() == written)
            .map(|b| b.bases.clone())
            .unwrap_or_default();
        (bases, chosen.map(|(_, bound)| bound))
    }
}

type Bindings = Vec<(String, String)>;

/// Whether a specialization that does not unify with `actual` might still be the one meant:
/// where it writes something other than its own parameter, the actual argument is a name
/// banklint has not resolved (not a number, not a built-in type, no template arguments).
pub(crate) fn could_match(written: &[String], params: &[String], actual: &[String]) -> bool {
    let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let settled = |a: &str| {
        a.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '(')
            || matches!(a, "true" | "false")
            || a.contains('<')
            || crate::front::names::BUILTIN_TYPENAMES.contains(&a)
            || a.split(' ').all(|w| {
                matches!(
                    w,
                    "unsigned"
                        | "signed"
                        | "int"
                        | "short"
                        | "long"
                        | "char"
                        | "float"
                        | "double"
                        | "bool"
                        | "const"
                )
            })
    };
    written.len() == actual.len()
        && written.iter().zip(actual).all(|(w, a)| {
            let (w, a) = (norm(w), norm(a));
            params.contains(&w) || w == a || !settled(&a)
        })
}

/// A specialization's written arguments matched against the actual ones: a written argument
/// that is one of the specialization's parameters takes the actual one (the same wherever it
/// appears), any other must be the same text. `None` when they do not match.
pub(crate) fn unify(written: &[String], params: &[String], actual: &[String]) -> Option<Bindings> {
    let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    // `<A, first, rest...>`: the pack takes the arguments left, none or more; it is bound
    // as `rest...` (see `expand_packs`).
    let pack = (written.last())
        .and_then(|w| w.trim().strip_suffix("..."))
        .map(str::trim)
        .filter(|p| params.iter().any(|q| q == p));
    let fixed = written.len() - usize::from(pack.is_some());
    if pack.is_some() && actual.len() >= fixed {
        let mut bound = unify(&written[..fixed], params, &actual[..fixed])?;
        let rest: Vec<String> = actual[fixed..].iter().map(|a| norm(a)).collect();
        bound.push((format!("{}...", pack.unwrap_or_default()), rest.join(", ")));
        return Some(bound);
    }
    if written.len() != actual.len() {
        return None;
    }
    let mut bound: Bindings = Vec::new();
    for (w, a) in written.iter().zip(actual) {
        let w = norm(w);
        if params.contains(&w) {
            match bound.iter().find(|(n, _)| *n == w) {
                Some((_, v)) if *v != norm(a) => return None,
                Some(_) => {}
                None => bound.push((w, norm(a))),
            }
        } else if w != norm(a) {
            return None;
        }
    }
    Some(bound)
}

fn found_text(m: &Member) -> String {
    match m {
        Member::Value(v) | Member::Type(v) => v.clone(),
    }
}

fn bound(bindings: &[(String, String)], word: &str) -> Option<String> {
    bindings
        .iter()
        .find(|(n, _)| n == word)
        .map(|(_, v)| v.clone())
}

/// `ns::Traits<256, float>` -> (`Traits`, [`256`, `float`]): the tag classes are kept by.
fn tag_and_args(class: &str) -> (String, Vec<String>) {
    let class = class.trim().trim_start_matches("typename ").trim();
    let (name, mut args) = split_template_args(class).unwrap_or((class, Vec::new()));
    args.retain(|a| !a.is_empty());
    // `BytesToType<(4 * sizeof(float))>` is `BytesToType<16>`: a specialization's arguments
    // are matched as written, so constant expressions are settled first.
    for a in &mut args {
        if looks_arithmetic(a)
            && let Ok(v) = crate::front::const_expr::constant_text(a)
        {
            *a = v.to_string();
        }
    }
    let tag = name.rsplit("::").next().unwrap_or(name).trim().to_string();
    (tag, args)
}

/// Whether a template argument may be a constant expression to settle (`(16) / sizeof(half)`,
/// `2 * 32`, `(sizeof(float)) == 4 ? 4 : 8`, `(sizeof(float))`): an operator, a `sizeof` or
/// a conditional, and no type of its own (`Tile<64, 64>`, `ns::T`).
pub(crate) fn looks_arithmetic(a: &str) -> bool {
    let operand = a.bytes().any(|b| b.is_ascii_digit()) || a.contains("sizeof");
    operand
        && a.contains(['+', '-', '*', '/', '%', '(', '&', '|', '^', '?', '='])
        && !a.contains(['<', '>', '.', '"'])
        && !a.contains("::")
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn drop_word(text: &str, word: &str) -> String {
    substitute(text, &|w| (w == word).then(String::new))
}

/// Replaces each whole word `f` gives a replacement for, except words after `::`, `.` or
/// `->` (members, not names in scope).
pub fn substitute(text: &str, f: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        if is_word_char(chars[k]) && (k == 0 || !is_word_char(chars[k - 1])) {
            let start = k;
            while k < chars.len() && is_word_char(chars[k]) {
                k += 1;
            }
            let word: String = chars[start..k].iter().collect();
            let before: String = out.trim_end().chars().rev().take(2).collect();
            let member = before.starts_with(':') || before.starts_with('.') || before == ">-";
            match f(&word).filter(|_| !member && !word.starts_with(|c: char| c.is_ascii_digit())) {
                Some(r) => out.push_str(&r),
                None => out.push_str(&word),
            }
        } else {
            out.push(chars[k]);
            k += 1;
        }
    }
    out
}

/// Replaces each name path in `text` (`X`, `A::m`, `ns::A<x, y>::m`) that `resolve` knows;
/// a path it does not know is kept as written, its template arguments rewritten in turn.
fn replace_paths(text: &str, resolve: &dyn Fn(&str) -> Option<String>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        let after_member = {
            let t = out.trim_end();
            t.ends_with('.') || t.ends_with("->")
        };
        if !is_word_char(c) || c.is_ascii_digit() || after_member {
            // Copy a number or a member name whole.
            let start = k;
            k += 1;
            while is_word_char(c) && k < chars.len() && is_word_char(chars[k]) {
                k += 1;
            }
            out.extend(&chars[start..k]);
            continue;
        }
        // A path: words joined by `::`, each with an optional `<...>`.
        let start = k;
        let mut end;
        loop {
            while k < chars.len() && is_word_char(chars[k]) {
                k += 1;
            }
            end = k;
            let mut j = k;
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
            if j < chars.len() && chars[j] == '<' {
                if let Some(close) = matching_angle(&chars, j) {
                    j = close + 1;
                    end = j;
                } else {
                    break;
                }
            }
            let mut i = j;
            while i < chars.len() && chars[i] == ' ' {
                i += 1;
            }
            if i + 1 < chars.len() && chars[i] == ':' && chars[i + 1] == ':' {
                i += 2;
                while i < chars.len() && chars[i] == ' ' {
                    i += 1;
                }
                if i < chars.len() && is_word_char(chars[i]) {
                    k = i;
                    continue;
                }
            }
            break;
        }
        k = end;
        let path: String = chars[start..end].iter().collect();
        match resolve(&path) {
            Some(r) => out.push_str(&r),
            None => {
                // Unknown: its template arguments may still hold names to resolve.
                match path.find('<') {
                    Some(open) if path.ends_with('>') => {
                        out.push_str(&path[..open + 1]);
                        out.push_str(&replace_paths(&path[open + 1..path.len() - 1], resolve));
                        out.push('>');
                    }
                    _ => out.push_str(&path),
                }
            }
        }
    }
    out
}

/// The `>` closing the `<` at `open`, if the text between is a template argument list
/// (balanced, no `;`); `a < b` comparisons find none.
fn matching_angle(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => {
                depth -= 1;
                if depth == 0 {
                    return (c == '>').then_some(k);
                }
            }
            ';' | '{' | '}' => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(src: &str) -> Prepared {
        crate::front::cuda::prepare(src, &Default::default())
    }

    #[test]
    fn alias_templates_name_their_targets() {
        let p = file(
            "template <typename T, int R, int C> struct Tile { static constexpr int cols = C; };\n\
             template <int C, int R = C * 2> using Wide = Tile<float, R, C>;\n\
             template <typename A, int... dims> using First = Tile<A, dims...>;\n\
             template <typename X, size_t N, Concept Y> void f(Y &y, X x);\n",
        );
        let c = Classes::new([&p]);
        assert_eq!(
            c.alias_instance("Wide<8>").as_deref(),
            Some("Tile<float, 8 * 2, 8>")
        );
        assert_eq!(
            c.alias_instance("ns::Wide<8, 3>").as_deref(),
            Some("Tile<float, 3, 8>")
        );
        assert_eq!(
            c.alias_instance("First<int, 4, 5>").as_deref(),
            Some("Tile<int, 4, 5>")
        );
        assert_eq!(c.alias_instance("Tile<int, 4, 5>"), None);
        // Members are read through the alias.
        assert_eq!(
            c.member("Wide<16>", "cols"),
            Some(Member::Value("16".into()))
        );
        assert!(c.knows("Wide<16>") && !c.knows("Other<1>"));
    }

    #[test]
    fn variable_templates_and_instance_fields() {
        let p = file(
            "namespace kit { constexpr int BASE = 16;\n\
             template <typename T> constexpr int ROWS = BASE;\n\
             template <typename T> constexpr int COLS = sizeof(T) == 1 ? ROWS<T> * 2 : ROWS<T>;\n\
             template <typename T> constexpr int AREA{ROWS<T> * COLS<T>};\n\
             template <typename P> struct unpack { using type = P; };\n\
             template <typename _T, typename L> struct base { using T = _T; static constexpr int n = COLS<T>; T data[n]; };\n\
             template <typename _T, int R> struct tile { using T = typename unpack<_T>::type; static constexpr int h = R / base<T, int>::n; base<T, int> parts[h]; }; }\n",
        );
        let c = Classes::new([&p]);
        assert_eq!(
            c.variable_instance("kit::ROWS<float>").as_deref(),
            Some("(BASE)")
        );
        assert_eq!(
            c.variable_instance("COLS<char>").as_deref(),
            Some("(sizeof(char) == 1 ? (BASE) * 2 : (BASE))")
        );
        assert_eq!(
            c.variable_instance("AREA<int>").as_deref(),
            Some("((BASE) * (sizeof(int) == 1 ? (BASE) * 2 : (BASE)))")
        );
        assert_eq!(c.variable_instance("ROWS"), None);
        // A member reading another class's member through the class's own member type.
        assert_eq!(
            c.member("tile<float, 64>", "h"),
            Some(Member::Value(
                "64 / ((sizeof(float) == 1 ? (BASE) * 2 : (BASE)))".into()
            ))
        );
        assert_eq!(
            c.within("tile<float, 64>", "base<T, int>"),
            "base<float, int>"
        );
        assert_eq!(
            p.template_fields,
            [(
                "tile".to_string(),
                "parts".to_string(),
                "base<T, int>".to_string()
            )]
        );
    }

    #[test]
    fn members_through_bases_defaults_and_siblings() {
        let p = file(
            "template <int N, typename T> struct Base { using elem_t = T; enum { THREADS = N, WARPS = THREADS / 32 }; };\n\
             template <int M, typename U, typename B = Base<M * 32, U>> struct K : public B {\n\
               enum { ROWS = B::WARPS * 2 };\n\
               static constexpr int BYTES = ROWS * sizeof(typename B::elem_t);\n\
               using vec_t = typename B::elem_t;\n\
             };\n",
        );
        let c = Classes::new([&p]);
        assert_eq!(
            c.member("K<2, float>", "THREADS"),
            // The base's argument `M * 32` is settled before the base is read.
            Some(Member::Value("64".into()))
        );
        assert_eq!(
            c.member("K<2, float>", "vec_t"),
            Some(Member::Type("float".into()))
        );
        let Some(Member::Value(rows)) = c.member("K<2, float>", "ROWS") else {
            panic!("ROWS")
        };
        assert_eq!(rows.replace(' ', ""), "((64)/32)*2");
        let Some(Member::Value(bytes)) = c.member("K<2, float>", "BYTES") else {
            panic!("BYTES")
        };
        assert!(bytes.replace(' ', "").contains("sizeof(float)"), "{bytes}");
        assert_eq!(c.member("K<2, float>", "missing"), None);
    }

    #[test]
    fn the_most_specialized_matching_specialization_wins() {
        let p = file(
            "template <typename T, int C, int W, int N> struct St { enum { K = 0 }; };\n\
             template <typename T, int W, int N> struct St<T, 1, W, N> { enum { K = N }; };\n\
             template <typename T, int W> struct St<T, 1, W, 1> { enum { K = 100 + W }; };\n",
        );
        let c = Classes::new([&p]);
        assert_eq!(
            c.member("St<float, 1, 4, 1>", "K"),
            Some(Member::Value("100 + 4".into()))
        );
        assert_eq!(
            c.member("St<float, 1, 4, 8>", "K"),
            Some(Member::Value("8".into()))
        );
        assert_eq!(
            c.member("St<float, 2, 4, 1>", "K"),
            Some(Member::Value("0".into()))
        );
    }

    #[test]
    fn a_matching_partial_specialization_wins() {
        let p = file(
            "template <typename T, int N> struct Packed { enum { PER_LDG = N }; typedef T Type; };\n\
             template <int N> struct Packed<short, N> { enum { PER_LDG = N / 2 }; typedef int Type; };\n",
        );
        let c = Classes::new([&p]);
        assert_eq!(
            c.member("Packed<float, 8>", "Type"),
            Some(Member::Type("float".into()))
        );
        assert_eq!(
            c.member("Packed<float, 8>", "PER_LDG"),
            Some(Member::Value("8".into()))
        );
        assert_eq!(
            c.member("Packed<short, 8>", "Type"),
            Some(Member::Type("int".into()))
        );
        assert_eq!(
            c.member("Packed<short, 8>", "PER_LDG"),
            Some(Member::Value("8 / 2".into()))
        );
        // A name banklint has not resolved may be `short`: neither definition is taken.
        assert_eq!(c.member("Packed<Storage, 8>", "PER_LDG"), None);
        assert_eq!(
            c.member("Packed<Pair<int>, 8>", "PER_LDG"),
            Some(Member::Value("8".into()))
        );
    }

    #[test]
    fn paths_and_comparisons() {
        let r = |p: &str| (p == "A::x").then(|| "(1)".to_string());
        assert_eq!(replace_paths("A::x + a < b", &r), "(1) + a < b");
        assert_eq!(replace_paths("s.A::x", &r), "s.A::x");
        assert_eq!(
            substitute("T + B::T", &|w| (w == "T").then(|| "int".into())),
            "int + B::T"
        );
    }
}
