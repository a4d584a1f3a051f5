//! Each header prepared once per run for each set of definitions it can see. Every file of a
//! library includes the same headers (a raft source reaches about 110 of them, 900 KB); a
//! directory run or an editor session that preprocessed, parsed and lowered them again for
//! each file would spend nearly all its time there.
//!
//! A header's result depends on three things, and a cached one is reused only when all three
//! are as they were:
//! - its text (compared by hash);
//! - the macros in force at the `#include` line, but only those its text, the texts of the
//!   headers it reaches, and the bodies of those macros name: any other definition cannot
//!   change its preprocessing;
//! - what the loader answers for each header it reaches, in order (the same file and text,
//!   `#pragma once` headers already read left empty). These requests are made again on a
//!   hit, so the loader's state (headers counted, `#pragma once`, problems logged) moves
//!   exactly as if the header had been read; where an answer differs, the loader is rewound
//!   and the header is prepared anew.
//!
//! A run that includes a header once (one file checked on its own, as a pre-commit hook or
//! an editor does) never asks for a reuse, so the names a header can look up are worked out
//! only at its first reuse attempt, from what its first preparation kept: the macros in force
//! there and the texts it reached.
//!
//! What a cached result hands its includer is what its directives changed (each definition
//! made or removed, not the macros it merely saw), so it does not depend on the file that
//! first included it.

use crate::front::include_loader::{HeaderRequest, IncludeLoader, LoaderMark, OwnedHeaderRequest};
use crate::front::macros::{MacroDef, MacroTable};
use crate::front::prepared::PendingHeader;
use crate::front::prepared::Prepared;
use crate::front::preprocess::Directives;
use crate::limits::{MAX_CACHED_HEADER_BYTES, MAX_CACHED_VARIANTS};
use rustc_hash::FxHashSet as HashSet;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

/// A loader's answer, kept small: the path found and its text's hash.
type Answer = Option<(String, u64)>;

/// A macro's definition as it affects expansion (not where it was made).
#[derive(Clone, Debug, PartialEq)]
struct Signature {
    params: Option<Vec<String>>,
    variadic: bool,
    body: String,
}

impl Signature {
    fn of(def: &MacroDef) -> Signature {
        Signature {
            params: def.params.clone(),
            variadic: def.variadic,
            body: def.body.clone(),
        }
    }
}

struct Entry {
    text_hash: u64,
    /// Each name the header could look up, with its definition where it was included; set
    /// at the first reuse attempt, from `sees_from`.
    sees: OnceLock<Vec<(Name, Option<Signature>)>>,
    /// The macros in force where the header was first included, and the texts it reached
    /// (its own first) with their hashes; taken when `sees` is set, which lets the texts go.
    sees_from: Mutex<Option<(MacroTable, Vec<Reached>)>>,
    /// The loader's requests while the header was prepared, and its answers.
    loads: Vec<(OwnedHeaderRequest, Answer)>,
    prepared: Arc<PendingHeader>,
    bytes: usize,
}

#[derive(Default)]
struct Cache {
    by_path: HashMap<String, Vec<Arc<Entry>>>,
    bytes: usize,
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// A header's text, by hash (a reuse also needs the same path): rustc-hash's, several
/// times faster than SipHash on whole headers, and no input here is adversarial.
fn text_hash(text: &str) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

/// A name a header can look up; shared by the sets of every header that reaches it.
type Name = Arc<str>;
type NameSet = HashSet<Name>;

/// A text a header reached, with its hash.
type Reached = (u64, Arc<str>);

/// The text with `hash`, shared by every entry that reached it (one copy however many
/// headers include it), and kept only while one does: an editor session prepares a header
/// again at each edit, and evicted entries must not leave their texts behind.
fn shared_text(text: &str, hash: u64) -> Reached {
    static TEXTS: OnceLock<Mutex<HashMap<u64, std::sync::Weak<str>>>> = OnceLock::new();
    let Ok(mut texts) = TEXTS.get_or_init(Default::default).lock() else {
        return (hash, text.into());
    };
    if let Some(kept) = texts.get(&hash).and_then(std::sync::Weak::upgrade) {
        return (hash, kept);
    }
    // Texts no entry holds any longer are dropped now and then (a run reads hundreds).
    if texts.len() >= 4096 {
        texts.retain(|_, t| t.strong_count() > 0);
    }
    let kept: Arc<str> = text.into();
    texts.insert(hash, Arc::downgrade(&kept));
    (hash, kept)
}

/// The identifiers of a text, by the text's hash: a header's are needed again by every header
/// that includes it, directly or not, and by every file of the run.
fn identifiers_of((hash, text): &Reached) -> Arc<NameSet> {
    static MEMO: OnceLock<Mutex<HashMap<u64, Arc<NameSet>>>> = OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    if let Some(found) = memo.lock().ok().and_then(|m| m.get(hash).cloned()) {
        return found;
    }
    let mut names = NameSet::default();
    add_identifiers(text, &mut names);
    let names = Arc::new(names);
    if let Ok(mut m) = memo.lock() {
        m.insert(*hash, names.clone());
    }
    names
}

/// Adds each identifier of `text` (comments and strings included: more names only make a
/// reuse rarer, never wrong).
fn add_identifiers(text: &str, out: &mut NameSet) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if !b[start].is_ascii_digit() && !out.contains(&text[start..i]) {
                out.insert(text[start..i].into());
            }
        } else {
            i += 1;
        }
    }
}

/// A loader that records the requests made through it, their answers, and the texts it
/// hands out.
struct Recording<'l> {
    inner: &'l mut dyn IncludeLoader,
    loads: Vec<(OwnedHeaderRequest, Answer)>,
    reached: Vec<Reached>,
}

impl IncludeLoader for Recording<'_> {
    fn load(&mut self, request: &HeaderRequest) -> Option<(String, String)> {
        let answer = self.inner.load(request);
        let kept = answer.as_ref().map(|(path, text)| {
            let hash = text_hash(text);
            self.reached.push(shared_text(text, hash));
            (path.clone(), hash)
        });
        self.loads.push((request.to_owned(), kept));
        answer
    }

    fn mark(&self) -> LoaderMark {
        let mut mark = self.inner.mark();
        mark.0.push(self.loads.len());
        mark
    }

    fn rewind(&mut self, mut to: LoaderMark) {
        if let Some(len) = to.0.pop() {
            self.loads.truncate(len);
        }
        self.inner.rewind(to);
    }
}

/// The names a header can look up: those of its text and of what it reaches, and, through
/// the macros in force, those their bodies name.
fn names_seen(mut names: NameSet, in_force: &MacroTable) -> NameSet {
    let mut work: Vec<Name> = names.iter().cloned().collect();
    while let Some(name) = work.pop() {
        if let Some(def) = in_force.lookup(&name, usize::MAX) {
            let mut body = HashSet::default();
            add_identifiers(&def.body, &mut body);
            for n in body {
                if !names.contains(&n) {
                    names.insert(n.clone());
                    work.push(n);
                }
            }
        }
    }
    names
}

/// Each name the header can look up, with its definition where it was first included:
/// those of the texts it reached (once each, however often reached), and through the macros
/// in force there, those their bodies name.
fn sees_of(in_force: &MacroTable, reached: &[Reached]) -> Vec<(Name, Option<Signature>)> {
    let mut names = NameSet::default();
    let mut merged = HashSet::<u64>::default();
    for text in reached {
        if merged.insert(text.0) {
            for n in identifiers_of(text).iter() {
                if !names.contains(n) {
                    names.insert(n.clone());
                }
            }
        }
    }
    // In no order: a reuse checks every name.
    names_seen(names, in_force)
        .into_iter()
        .map(|n| {
            let seen = in_force.lookup(&n, usize::MAX).map(Signature::of);
            (n, seen)
        })
        .collect()
}

impl Entry {
    fn sees(&self) -> &[(Name, Option<Signature>)] {
        self.sees.get_or_init(|| {
            // Taken once, here: `sees` is set only by this call.
            let from = (self.sees_from.lock())
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            let (in_force, reached) = from.unwrap_or_default();
            sees_of(&in_force, &reached)
        })
    }
}

fn sees_the_same(entry: &Entry, in_force: &MacroTable) -> bool {
    entry.sees().iter().all(|(name, seen)| {
        let now = in_force.lookup(name, usize::MAX);
        match (now, seen) {
            (None, None) => true,
            (Some(def), Some(sig)) => Signature::of(def) == *sig,
            _ => false,
        }
    })
}

/// Makes the entry's requests again; on the first different answer, rewinds the loader.
fn replays(entry: &Entry, load: &mut dyn IncludeLoader) -> bool {
    let mark = load.mark();
    for (request, expected) in &entry.loads {
        let got = load.load(&request.as_request());
        let same = match (&got, expected) {
            (None, None) => true,
            (Some((path, text)), Some((want_path, want_hash))) => {
                path == want_path && text_hash(text) == *want_hash
            }
            _ => false,
        };
        if !same {
            load.rewind(mark);
            return false;
        }
    }
    true
}

/// The header at `path` with `text`, included where `in_force` holds: from the cache when
/// one prepared before saw the same, else `prepare(loader)`, kept for the next file.
pub fn prepared_header(
    path: &str,
    text: &str,
    in_force: &MacroTable,
    load: &mut dyn IncludeLoader,
    prepare: impl FnOnce(&mut dyn IncludeLoader) -> (Prepared, Directives),
) -> Arc<PendingHeader> {
    let hash = text_hash(text);
    let candidates: Vec<Arc<Entry>> = cache()
        .lock()
        .ok()
        .and_then(|c| c.by_path.get(path).cloned())
        .unwrap_or_default();
    for entry in candidates {
        if entry.text_hash == hash && sees_the_same(&entry, in_force) && replays(&entry, load) {
            return entry.prepared.clone();
        }
    }

    let mut recording = Recording {
        inner: load,
        loads: Vec::new(),
        reached: vec![shared_text(text, hash)],
    };
    let (mut prepared, directives) = prepare(&mut recording);
    let Recording { loads, reached, .. } = recording;
    // The includer already has every macro the header saw; it needs what the header changed.
    prepared.macros = directives.macros.changed_from(in_force);
    let prepared = Arc::new(PendingHeader::new(
        prepared,
        directives.expansion,
        directives.macros,
    ));
    crate::front::spare_threads::lower_soon(&prepared);
    // What an entry holds is several times its text: the expanded text, tokens, items.
    let bytes = text.len() * 8;
    if let Ok(mut c) = cache().lock()
        && c.bytes + bytes <= MAX_CACHED_HEADER_BYTES
    {
        c.bytes += bytes;
        let variants = c.by_path.entry(path.to_string()).or_default();
        if variants.len() == MAX_CACHED_VARIANTS {
            let dropped = variants.remove(0);
            c.bytes -= dropped.bytes;
        }
        c.by_path
            .get_mut(path)
            .expect("just inserted")
            .push(Arc::new(Entry {
                text_hash: hash,
                sees: OnceLock::new(),
                sees_from: Mutex::new(Some((in_force.clone(), reached))),
                loads,
                prepared: prepared.clone(),
                bytes,
            }));
    }
    prepared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_skip_numbers_and_keep_words() {
        let mut names = HashSet::default();
        add_identifiers(
            "#define TILE 0x20 /* rows */\nfloat t[TILE][1e3];",
            &mut names,
        );
        let mut got: Vec<&str> = names.iter().map(|n| &**n).collect();
        got.sort();
        assert_eq!(got, ["TILE", "define", "float", "rows", "t"]);
    }

    #[test]
    fn a_reached_text_is_shared_while_held_and_let_go_after() {
        let text = "#define SHARED_TEXT_TEST 1\n";
        let hash = text_hash(text);
        let first = shared_text(text, hash);
        let again = shared_text(text, hash);
        assert!(Arc::ptr_eq(&first.1, &again.1));
        let weak = Arc::downgrade(&first.1);
        drop((first, again));
        // Nothing holds it: gone, not kept for the rest of the run.
        assert!(weak.upgrade().is_none());
        assert_eq!(&*shared_text(text, hash).1, text);
    }

    /// Headers from memory, counting what is read, with `#pragma once`-like state to rewind.
    struct Files {
        texts: HashMap<&'static str, String>,
        loads: usize,
    }

    impl IncludeLoader for Files {
        fn load(&mut self, request: &HeaderRequest) -> Option<(String, String)> {
            let path = format!("/virtual/cache-test/{}", request.name);
            let text = self.texts.get(request.name)?.clone();
            self.loads += 1;
            Some((path, text))
        }
        fn mark(&self) -> LoaderMark {
            LoaderMark(vec![self.loads])
        }
        fn rewind(&mut self, to: LoaderMark) {
            self.loads = to.0[0];
        }
    }

    fn top(row: u32) -> String {
        format!("#define ROW {row}\n#include \"h.cuh\"\nint after = NESTED;\n")
    }

    fn header_of(p: &Prepared) -> &Arc<Prepared> {
        &p.headers[0].1
    }

    #[test]
    fn a_header_is_reused_only_when_its_macros_and_includes_are_as_before() {
        use crate::front::cuda::{Defines, prepare_with_includes};
        let mut files = Files {
            texts: HashMap::from([
                ("h.cuh", "#include \"n.cuh\"\nint h[ROW];\n".to_string()),
                ("n.cuh", "#define NESTED 7\n".to_string()),
            ]),
            loads: 0,
        };
        let d = Defines::default();
        let first = prepare_with_includes(&top(32), &d, &mut files);
        assert_eq!(files.loads, 2);
        // Same definitions, same files: the same result, and the nested header is asked for
        // again, so the loader counts it as read.
        let again = prepare_with_includes(&top(32), &d, &mut files);
        assert!(Arc::ptr_eq(header_of(&first), header_of(&again)));
        assert_eq!(files.loads, 4);
        // The macro the header's nested include defines reaches the includer either way.
        assert!(again.text.contains(" 7 ;"), "{}", again.text);
        // Another ROW: prepared anew.
        let other = prepare_with_includes(&top(33), &d, &mut files);
        assert!(!Arc::ptr_eq(header_of(&first), header_of(&other)));
        assert!(
            other.headers[0].1.text.contains("33"),
            "{}",
            other.headers[0].1.text
        );
        // The nested header's text changed: the replay does not match, the loader is rewound
        // (its count is as if the header had been read once), and the header prepared anew.
        files
            .texts
            .insert("n.cuh", "#define NESTED 8\n".to_string());
        let before = files.loads;
        let changed = prepare_with_includes(&top(32), &d, &mut files);
        assert_eq!(files.loads, before + 2);
        assert!(!Arc::ptr_eq(header_of(&first), header_of(&changed)));
        assert!(changed.text.contains(" 8 ;"), "{}", changed.text);
    }

    #[test]
    fn headers_are_lowered_only_for_a_file_with_device_code() {
        use crate::front::cuda::{Defines, prepare_to_check};
        let mut files = Files {
            texts: HashMap::from([(
                "k.cuh",
                "#define KERNEL __global__ void\n#define N 7\nstruct Pair { int a, b; };\n"
                    .to_string(),
            )]),
            loads: 0,
        };
        let d = Defines::default();
        let host = "#include \"k.cuh\"\nint main() { return N; }\n";
        let p = prepare_to_check(host, &d, &mut files, None, None);
        assert!(!p.device_code);
        assert!(p.headers.is_empty() && p.typenames.is_empty());
        assert_eq!(p.pending.len(), 1);
        // Its macros still apply.
        assert!(p.text.contains("return  7 ;"), "{}", p.text);
        // A device lambda or member function is analyzed only where a kernel calls it.
        let members = "#include \"k.cuh\"\nstruct Op { __device__ int operator()(int i) const { return i; } };\nvoid h() { auto f = [] __device__ (int i) { return i; }; }\n";
        assert!(!prepare_to_check(members, &d, &mut files, None, None).device_code);
        // A device function at namespace scope is analyzed on its own when it can reach
        // shared memory: here through a header's wrapper class, not by arithmetic alone.
        let function =
            "#include \"k.cuh\"\nnamespace a { __device__ int twice(int i) { return 2 * i; } }\n";
        assert!(!prepare_to_check(function, &d, &mut files, None, None).device_code);
        files.texts.insert(
            "sm.cuh",
            "template <class T> struct Smem { __device__ T *get() { extern __shared__ T s[]; return s; } };\n"
                .to_string(),
        );
        let wrapped = "#include \"sm.cuh\"\n__device__ void fill() { Smem<float> m; m.get()[threadIdx.x] = 1; }\n";
        assert!(prepare_to_check(wrapped, &d, &mut files, None, None).device_code);
        // A kernel spelled through the header's macro is device code: the header is lowered,
        // once, and its declarations reach the file.
        let device = "#include \"k.cuh\"\nKERNEL k(struct Pair *p) {}\n";
        let p = prepare_to_check(device, &d, &mut files, None, None);
        assert!(p.device_code);
        assert_eq!(p.headers.len(), 1);
        assert!(Arc::ptr_eq(&p.headers[0].1, &p.pending[0].2.lowered()));
        assert!(p.typenames.iter().any(|t| t == "Pair"), "{:?}", p.typenames);
    }

    #[test]
    fn names_seen_follow_macro_bodies() {
        let mut table = MacroTable::default();
        for (d, at) in [("A B + 1", 0), ("B C", 0), ("C 4", 0), ("D 5", 0)] {
            table.define(MacroDef::parse(d, at).unwrap());
        }
        let start: NameSet = ["A".into()].into_iter().collect();
        let mut got: Vec<String> = names_seen(start, &table)
            .into_iter()
            .map(|n| n.to_string())
            .collect();
        got.sort();
        assert_eq!(got, ["A", "B", "C"]);
    }
}
