//! Includer context: a file that another file `#include`s is compiled as part of that file,
//! after whatever the includer defined first. Rodinia's `reduce_kernel.cu` uses `fp`, which
//! `main.cu` defines just before `#include "reduce_kernel.cu"`; a header of NVIDIA's samples
//! uses a block size its `.cu` file sets. Read alone, such a file has unknown types and
//! sizes. This module finds each file's includer, among the files being checked and the
//! file's own directory, and rebuilds what the includer's front end had seen by its
//! `#include` line, as clangd does for headers.

use crate::front::cuda::{
    Defines, HeaderRequest, IncludeLoader, LoaderMark, Prepared, prepare_in_context,
};
use crate::front::project_headers::{HeaderIndex, canonical, index_for, project_root};
use crate::front::source::{Reached, SourceFile, read_capped};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Extensions of files that may include a checked file (host sources and headers too).
const INCLUDER_EXTENSIONS: &[&str] = &[
    "cu", "cuh", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "inl",
];

/// Files larger than this are not scanned for includes (generated sources, data tables).
const MAX_SCANNED_BYTES: u64 = 8 << 20;

/// How many includers deep a context is rebuilt (`a.cu` includes `b.cuh` includes `c.cuh`).
const MAX_DEPTH: usize = 8;

/// Directories above a checked file searched for its includers.
const INCLUDER_LEVELS_UP: usize = 2;

/// Files whose launches may say how a header's kernels run (see
/// [`IncluderIndex::launching_includers`]): a library's instantiation files, one per
/// configuration, are read up to this many.
pub const MAX_LAUNCHING_INCLUDERS: usize = 16;

/// Files visited looking for those (a header every file of a library includes has many
/// includers, most of which launch nothing of it).
const MAX_VISITED_INCLUDERS: usize = 256;

/// Where a file is included: the includer and the byte offset of its `#include` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Includer {
    pub path: PathBuf,
    pub directive_at: usize,
    /// Written `#include <dir/name>`, or found only by its path in the project: followed to
    /// find launches, not taken as the file's context (a library's headers include each
    /// other this way everywhere; what matters of its includers is their launches).
    pub by_path: bool,
}

/// For each included file (canonical path), its includers in path order (the first gives
/// the context); and, filled as a run needs them, the includers' own front-end results (each
/// file prepared once per run, whichever worker asks first).
#[derive(Debug, Default)]
pub struct IncluderIndex {
    includers: HashMap<PathBuf, Vec<Includer>>,
    prepared: Mutex<HashMap<PathBuf, Option<Arc<Prepared>>>>,
}

impl IncluderIndex {
    /// Scans `files` and every source file in their directories for includes, resolved like
    /// the front end does: next to the includer, then in `include_dirs`, then (for a name
    /// with a directory, `<lib/utils/k.cuh>`) in the project by path suffix.
    pub fn build(files: &[PathBuf], include_dirs: &[PathBuf]) -> IncluderIndex {
        let mut candidates: Vec<PathBuf> = files.to_vec();
        let mut dirs_seen = HashSet::new();
        for f in files {
            let here = f.parent().unwrap_or(Path::new("")).to_path_buf();
            // A library keeps the files that instantiate a header's kernels in a folder
            // beside it (`utils/blockselect/*.cu` for `utils/BlockSelectKernel.cuh`).
            for sub in subdirectories(&here) {
                if dirs_seen.insert(sub.clone()) {
                    candidates.extend(source_files_in(&sub));
                }
            }
            // A header's includer is usually beside it or a directory or two up
            // (`src/kernels/k.cuh` included by `src/kernels.cuh`, launched from `src/main.cu`).
            let mut dir = here;
            for _ in 0..=INCLUDER_LEVELS_UP {
                if dirs_seen.insert(dir.clone()) {
                    candidates.extend(source_files_in(&dir));
                }
                match dir.parent() {
                    Some(up) if !dir.as_os_str().is_empty() => dir = up.to_path_buf(),
                    _ => break,
                }
            }
        }
        candidates.sort();
        candidates.dedup();
        let mut index = IncluderIndex::default();
        for includer in candidates {
            let Some(includes) = includes_in(&includer) else {
                continue;
            };
            for (name, directive_at, angled) in includes {
                let Some((target, in_project)) = resolve(&includer, &name, include_dirs) else {
                    continue;
                };
                let known = index.includers.entry(target).or_default();
                if !known.iter().any(|i| i.path == includer) {
                    known.push(Includer {
                        path: includer.clone(),
                        directive_at,
                        by_path: angled || in_project,
                    });
                }
            }
        }
        index
    }

    /// The files that include `path`, nearest first: its includer, that file's includer, and
    /// so on (cycles cut, at most `MAX_DEPTH`).
    pub fn chain(&self, path: &Path) -> Vec<Includer> {
        let mut chain: Vec<Includer> = Vec::new();
        let mut seen: HashSet<PathBuf> = HashSet::new();
        let Ok(first) = std::fs::canonicalize(path) else {
            return chain;
        };
        seen.insert(first);
        let mut at = path.to_path_buf();
        while chain.len() < MAX_DEPTH {
            let Some(inc) = self.includer_of(&at) else {
                break;
            };
            let Ok(key) = std::fs::canonicalize(&inc.path) else {
                break;
            };
            if !seen.insert(key) {
                break;
            }
            at = inc.path.clone();
            chain.push(inc.clone());
        }
        chain
    }

    /// The front end's result for a whole includer (its launches say how the kernels it
    /// includes run), prepared once per run.
    pub fn prepared_whole(
        &self,
        path: &Path,
        defines: &Defines,
        include_dirs: &[PathBuf],
    ) -> Option<Arc<Prepared>> {
        let key = std::fs::canonicalize(path).ok()?;
        if let Some(done) = self.prepared.lock().ok()?.get(&key) {
            return done.clone();
        }
        let made = read_small(path).map(|text| {
            // Problems with the includer's headers are the includer's to report.
            let log = HeaderLog::default();
            let mut load = header_loader(path, include_dirs, &log);
            // Its headers are lowered too: a launch's shape may name their constants.
            Arc::new(prepare_in_context(&text, defines, &mut load, None))
        });
        self.prepared.lock().ok()?.insert(key, made.clone());
        made
    }

    pub fn includer_of(&self, path: &Path) -> Option<&Includer> {
        self.includers_of(path).into_iter().find(|i| !i.by_path)
    }

    /// Every file that includes `path` directly, in path order (never `path` itself).
    fn includers_of(&self, path: &Path) -> Vec<&Includer> {
        let Ok(key) = std::fs::canonicalize(path) else {
            return Vec::new();
        };
        self.includers.get(&key).map_or(Vec::new(), |all| {
            all.iter()
                .filter(|i| std::fs::canonicalize(&i.path).ok().as_deref() != Some(key.as_path()))
                .collect()
        })
    }

    /// The files that include `path`, directly or not, that may launch one of `kernels`, by
    /// distance: its includers, theirs, and so on (cycles cut, at most `MAX_DEPTH` levels and
    /// [`MAX_LAUNCHING_INCLUDERS`] files). A header's kernels are launched where a library
    /// instantiates them, often in several files (one per configuration) that include the
    /// header through another. Besides the chain of first includers (the context), only a
    /// file that names one of the kernels, or that includes one that does on its way to
    /// `path` (the launch may be in a macro it invokes), is worth preparing whole.
    ///
    /// When more files qualify than are read, they are taken in turn by the name each
    /// names first, so that every kernel or entry point named gets its share (a library's
    /// instantiation files of one entry point, in name order, would otherwise crowd out
    /// another's).
    pub fn launching_includers(&self, path: &Path, kernels: &[&str]) -> Vec<(usize, Includer)> {
        let first_chain = self.chain(path);
        // Each qualifying file with its depth and the name it is grouped by (`None`: the
        // chain of first includers only).
        let mut found: Vec<(usize, Includer, Option<usize>)> = Vec::new();
        let mut seen: HashSet<PathBuf> = std::fs::canonicalize(path).into_iter().collect();
        // The files of the level being walked, and the name one on their way names.
        let mut level: Vec<(PathBuf, Option<usize>)> = vec![(path.to_path_buf(), None)];
        let mut visited = 0;
        for depth in 0..MAX_DEPTH {
            let mut next = Vec::new();
            for (at, named_below) in &level {
                for inc in self.includers_of(at) {
                    let Ok(key) = std::fs::canonicalize(&inc.path) else {
                        continue;
                    };
                    if visited == MAX_VISITED_INCLUDERS || !seen.insert(key) {
                        continue;
                    }
                    visited += 1;
                    let named = named_below
                        .or_else(|| read_small(&inc.path).and_then(|t| first_named(&t, kernels)));
                    if named.is_some() || first_chain.contains(inc) {
                        found.push((depth, inc.clone(), named));
                    }
                    next.push((inc.path.clone(), named));
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        take_in_turn(found, MAX_LAUNCHING_INCLUDERS)
    }

    /// What the includer of `path` had seen at its `#include` line, as a header named after
    /// the includer; `None` when nothing includes `path`. Chains of includers are followed
    /// (each prefix in its own includer's context) up to `MAX_DEPTH`, cycles cut.
    pub fn context_for(
        &self,
        path: &Path,
        defines: &Defines,
        include_dirs: &[PathBuf],
    ) -> Option<IncluderContext> {
        self.context_as(path, defines, include_dirs, true)
    }

    /// Like [`Self::context_for`], with the includers' texts only preprocessed: their macros
    /// and headers, nothing parsed or lowered (see `cuda::probe_to_check`).
    pub fn macro_context_for(
        &self,
        path: &Path,
        defines: &Defines,
        include_dirs: &[PathBuf],
    ) -> Option<IncluderContext> {
        self.context_as(path, defines, include_dirs, false)
    }

    fn context_as(
        &self,
        path: &Path,
        defines: &Defines,
        include_dirs: &[PathBuf],
        lowered: bool,
    ) -> Option<IncluderContext> {
        let chain = self.chain(path);
        // Outermost includer first: each prefix is prepared in the context of the one before,
        // its `#pragma once` headers already read (as in the translation unit they make).
        let mut context: Option<(String, Prepared)> = None;
        let mut read_once = Vec::new();
        for inc in chain.iter().rev() {
            let text = read_small(&inc.path)?;
            let prefix = text.get(..inc.directive_at)?;
            let log = HeaderLog::default();
            let mut load = header_loader(&inc.path, include_dirs, &log).after(read_once);
            let prepared = if lowered {
                prepare_in_context(prefix, defines, &mut load, context.take())
            } else {
                crate::front::cuda::preprocess_in_context(
                    prefix,
                    defines,
                    &mut load,
                    context.take(),
                )
            };
            read_once = load.read_once();
            context = Some((inc.path.display().to_string(), prepared));
        }
        let (_, prepared) = context?;
        Some(IncluderContext {
            includer: chain.first()?.clone(),
            prepared,
            read_once,
        })
    }
}

fn source_files_in(dir: &Path) -> Vec<PathBuf> {
    entries_in(dir, |e| {
        e.file_type().is_ok_and(|t| t.is_file())
            && Path::new(&e.file_name())
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| INCLUDER_EXTENSIONS.contains(&x))
    })
}

/// The folders directly inside `dir`, hidden ones and build outputs left out.
fn subdirectories(dir: &Path) -> Vec<PathBuf> {
    entries_in(dir, |e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        e.file_type().is_ok_and(|t| t.is_dir())
            && !name.starts_with('.')
            && !["build", "target", "node_modules"].contains(&&*name)
    })
}

/// The entries of `dir` that `wanted` keeps, in path order, spelled as the checked paths are
/// (`dir/x.cu`, not `./dir/x.cu`; `x.cu` for the working directory).
fn entries_in(dir: &Path, wanted: impl Fn(&std::fs::DirEntry) -> bool) -> Vec<PathBuf> {
    let listed = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(listed) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| wanted(e))
        .map(|e| {
            if dir == Path::new(".") {
                PathBuf::from(e.file_name())
            } else {
                dir.join(e.file_name())
            }
        })
        .collect();
    out.sort();
    out
}

/// A file read for its declarations (an includer), decoded leniently; `None` when it is
/// not a regular file or is over 8 MB.
pub fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SCANNED_BYTES {
        return None;
    }
    let bytes = read_capped(path, Reached::Indirectly).ok()?;
    Some(lenient_text(path, bytes))
}

/// The text of a file that is read for its declarations, not reported on: decoded as a
/// checked file is, with bytes that are not UTF-8 in code replaced too.
/// Too-deep code is defused as in a checked file.
fn lenient_text(path: &Path, bytes: Vec<u8>) -> String {
    let text = decoded_leniently(path, bytes);
    match crate::front::limits_scan::scan(&text).apply(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(defused) => defused,
    }
}

/// `bytes` decoded as a checked file is (`SourceFile::from_bytes`), with bytes that are not
/// UTF-8 in code replaced too; without a copy in the common case, UTF-8 without NUL bytes.
fn decoded_leniently(path: &Path, bytes: Vec<u8>) -> String {
    let bytes = match plain_utf8(bytes) {
        Ok(text) => return text,
        Err(bytes) => bytes,
    };
    match SourceFile::from_bytes(path, bytes.clone()) {
        Ok(f) => f.text,
        Err(_) => {
            let bytes: Vec<u8> = bytes
                .into_iter()
                .map(|b| if b >= 0x80 || b == 0 { b'?' } else { b })
                .collect();
            String::from_utf8(bytes).unwrap_or_default()
        }
    }
}

/// The text of `bytes` when they are UTF-8 without NUL bytes, as `SourceFile::from_bytes`
/// decodes them (a byte-order mark dropped, a lone CR read as a line break), in place; the
/// bytes back otherwise.
fn plain_utf8(mut bytes: Vec<u8>) -> Result<String, Vec<u8>> {
    if bytes.contains(&0) || std::str::from_utf8(&bytes).is_err() {
        return Err(bytes);
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    let mut at = 0;
    while let Some(p) = bytes[at..].iter().position(|&c| c == b'\r') {
        let i = at + p;
        if bytes.get(i + 1) != Some(&b'\n') {
            bytes[i] = b'\n';
        }
        at = i + 1;
    }
    String::from_utf8(bytes).map_err(|e| e.into_bytes())
}

/// The `#include` directives of the file at `path` (see [`local_includes`]), for the
/// includer index: decoded as [`read_small`] does, without the depth scan, which keeps
/// directive lines as they are.
fn includes_in(path: &Path) -> Option<Vec<(String, usize, bool)>> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SCANNED_BYTES {
        return None;
    }
    let bytes = read_capped(path, Reached::Indirectly).ok()?;
    Some(local_includes(&decoded_leniently(path, bytes)))
}

/// `#include "name"` and `#include <dir/name>` directives (an angled name without a
/// directory is a system header): the name, the offset of the `#` and whether it is angled. A plain text scan (by
/// the word `include`, so files without one cost one pass of a substring search);
/// conditional compilation is not evaluated (an include in a disabled branch still says which
/// file the includer means to compile).
pub fn local_includes(text: &str) -> Vec<(String, usize, bool)> {
    let mut out = Vec::new();
    if !text.contains("include") {
        return out;
    }
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let start = line_start;
        line_start += line.len();
        let trimmed = line.trim_start();
        let Some(rest) = trimmed.strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim_start();
        let (name, angled) = if let Some(quoted) = rest.strip_prefix('"') {
            (quoted.split('"').next(), false)
        } else if let Some(angled) = rest.strip_prefix('<') {
            (angled.split('>').next().filter(|n| n.contains('/')), true)
        } else {
            (None, false)
        };
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            out.push((
                name.to_string(),
                start + (line.len() - trimmed.len()),
                angled,
            ));
        }
    }
    out
}

/// The file an include names, and whether it was found only by its path in the project.
fn resolve(includer: &Path, name: &str, include_dirs: &[PathBuf]) -> Option<(PathBuf, bool)> {
    let here = includer.parent().map(|p| p.join(name));
    let found = here
        .into_iter()
        .chain(include_dirs.iter().map(|d| d.join(name)))
        .find(|p| p.is_file());
    match found {
        Some(p) => Some((canonical(&p), false)),
        // `<faiss/gpu/utils/k.cuh>`: found in the project by path suffix, as headers are.
        None if name.contains('/') => {
            match index_for(&project_root(includer)).find(name, includer) {
                Ok(Some(p)) => Some((canonical(&p), true)),
                _ => None,
            }
        }
        None => None,
    }
}

/// Whether `text` has one of `names` as a whole word.
/// The index in `names` of the first one `text` names as a whole word.
fn first_named(text: &str, names: &[&str]) -> Option<usize> {
    names.iter().position(|name| {
        text.match_indices(name).any(|(at, _)| {
            let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
            !text[..at].ends_with(word) && !text[at + name.len()..].starts_with(word)
        })
    })
}

/// At most `limit` of `found`, taken a group at a time in turn (groups in the order they
/// first appear), kept in their first order.
fn take_in_turn<T>(found: Vec<(usize, T, Option<usize>)>, limit: usize) -> Vec<(usize, T)> {
    // Each group's members by their place in `found`, groups in first-appearance order.
    let mut groups: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    for (k, (_, _, g)) in found.iter().enumerate() {
        match groups.iter_mut().find(|(h, _)| h == g) {
            Some((_, members)) => members.push(k),
            None => groups.push((*g, vec![k])),
        }
    }
    let mut chosen = vec![false; found.len()];
    let longest = groups.iter().map(|(_, m)| m.len()).max().unwrap_or(0);
    let turns = (0..longest).flat_map(|round| groups.iter().filter_map(move |(_, m)| m.get(round)));
    for &k in turns.take(limit) {
        chosen[k] = true;
    }
    (found.into_iter().zip(chosen))
        .filter(|(_, c)| *c)
        .map(|((depth, inc, _), _)| (depth, inc))
        .collect()
}

use crate::limits::MAX_HEADERS as MAX_HEADER_LOADS;

/// Why headers the front end reports "not found" were not read: (name as written, reason,
/// whether it is an input error: a special file or one over the size cap).
pub type HeaderLog = std::cell::RefCell<Vec<(String, String, bool)>>;

/// Reads headers for `file`: a quoted name next to the header that writes it, then next to
/// `file`; then in `include_dirs`; then anywhere in the project by path suffix
/// ([`crate::front::project_headers`]). Gives each one's path and text; regular files only (a FIFO never
/// blocks, a device is never read), at most [`MAX_HEADER_LOADS`] of them. A header that exists
/// but is not read is logged in `log` with the reason.
pub fn header_loader<'a>(
    file: &'a Path,
    include_dirs: &'a [PathBuf],
    log: &'a HeaderLog,
) -> HeaderLoader<'a> {
    HeaderLoader {
        file,
        include_dirs,
        log,
        loads: 0,
        project: None,
        once: Vec::new(),
    }
}

/// What the includers of a file had read before its `#include` line (see
/// [`IncluderIndex::context_for`]).
pub struct IncluderContext {
    /// The file's nearest includer.
    pub includer: Includer,
    /// The front end's result for the includers' text before the line, outermost first.
    pub prepared: Prepared,
    /// The `#pragma once` headers they read: included again, they are empty.
    pub read_once: Vec<PathBuf>,
}

/// The loader [`header_loader`] makes: where a file's headers are found and how many are read.
pub struct HeaderLoader<'a> {
    file: &'a Path,
    include_dirs: &'a [PathBuf],
    log: &'a HeaderLog,
    loads: usize,
    project: Option<Arc<HeaderIndex>>,
    /// Headers marked `#pragma once` already read for this file: included again, they are
    /// empty.
    once: Vec<PathBuf>,
}

impl HeaderLoader<'_> {
    /// The loader of a file read after `read_once`, `#pragma once` headers its includers read.
    pub fn after(mut self, read_once: Vec<PathBuf>) -> Self {
        self.once = read_once;
        self
    }

    /// The `#pragma once` headers read so far (those it started [`Self::after`] included).
    pub fn read_once(self) -> Vec<PathBuf> {
        self.once
    }

    fn refuse(&self, name: &str, reason: String, input_error: bool) -> Option<(String, String)> {
        self.log
            .borrow_mut()
            .push((name.to_string(), reason, input_error));
        None
    }
}

impl IncludeLoader for HeaderLoader<'_> {
    fn load(&mut self, request: &HeaderRequest) -> Option<(String, String)> {
        let name = request.name;
        let file = self.file;
        let beside = |p: &Path| p.parent().map(|d| d.join(name));
        let quoted_dirs = if request.angled {
            Vec::new()
        } else {
            request
                .from
                .and_then(|f| beside(Path::new(f)))
                .into_iter()
                .chain(beside(file))
                .collect()
        };
        let mut found = quoted_dirs
            .into_iter()
            .chain(self.include_dirs.iter().map(|d| d.join(name)))
            .find(|p| std::fs::metadata(p).is_ok());
        if found.is_none() {
            let index = self
                .project
                .get_or_insert_with(|| index_for(&project_root(file)));
            let from = request.from.map_or(file, Path::new);
            match index.find(name, from) {
                Ok(hit) => found = hit,
                Err(tie) if !request.angled => {
                    let reason = format!(
                        "not next to its includer or in a `-I` directory, and the project has several: `{}` and `{}`; pass `-I` for the right one",
                        tie[0].display(),
                        tie[1].display()
                    );
                    return self.refuse(name, reason, false);
                }
                Err(_) => return None,
            }
        }
        let found = found?;
        let key = canonical(&found);
        if self.once.contains(&key) {
            return Some((found.display().to_string(), String::new()));
        }
        if std::fs::metadata(&found).is_ok_and(|m| m.is_dir()) {
            return self.refuse(name, format!("`{}` is a directory", found.display()), false);
        }
        if self.loads == MAX_HEADER_LOADS {
            let reason = format!(
                "banklint reads at most {MAX_HEADER_LOADS} headers for one file (includes of includes counted), and this one is past that limit"
            );
            return self.refuse(name, reason, false);
        }
        self.loads += 1;
        match read_capped(&found, Reached::Indirectly) {
            Ok(bytes) => {
                let text = lenient_text(&found, bytes);
                if has_pragma_once(&text) {
                    self.once.push(key);
                }
                Some((found.display().to_string(), text))
            }
            Err(why) => self.refuse(name, format!("`{}` {why}", found.display()), true),
        }
    }

    fn mark(&self) -> LoaderMark {
        LoaderMark(vec![self.loads, self.once.len(), self.log.borrow().len()])
    }

    fn rewind(&mut self, to: LoaderMark) {
        if let [loads, once, logged] = to.0[..] {
            self.loads = loads;
            self.once.truncate(once);
            self.log.borrow_mut().truncate(logged);
        }
    }
}

/// Whether a line of `text` is `#pragma once` (spaces allowed around `#`).
fn has_pragma_once(text: &str) -> bool {
    text.lines().any(|l| {
        l.trim_start()
            .strip_prefix('#')
            .and_then(|r| r.trim_start().strip_prefix("pragma"))
            .is_some_and(|r| r.split_whitespace().next() == Some("once"))
    })
}

/// A header the checked file includes, directly or through its headers, that exists but
/// was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncludeProblem {
    /// The header as the checked file's `#include` names it.
    pub name: String,
    /// The header that was not read, when the checked file includes it only indirectly.
    pub nested: Option<String>,
    /// The checked file's `#include` directive.
    pub span: std::ops::Range<usize>,
    pub reason: String,
    pub input_error: bool,
}

/// Ties the logged reasons to the checked file's `#include` lines: a header it names, or
/// the header through which it reaches a nested one (where it is reported: the checked
/// file's diagnostics point into the checked file).
pub fn include_problems(prepared: &Prepared, log: &HeaderLog) -> Vec<IncludeProblem> {
    let log = log.borrow();
    let reason = |name: &str| log.iter().find(|(n, _, _)| n == name);
    let mut out = Vec::new();
    for (name, span) in &prepared.missing_includes {
        if let Some((_, why, input_error)) = reason(name) {
            out.push(IncludeProblem {
                name: name.clone(),
                nested: None,
                span: span.clone(),
                reason: why.clone(),
                input_error: *input_error,
            });
        }
    }
    fn nested_missing<'p>(p: &'p Prepared, out: &mut Vec<&'p str>) {
        for (name, _) in &p.missing_includes {
            out.push(name);
        }
        for (_, _, h) in &p.pending {
            nested_missing(h.preprocessed(), out);
        }
    }
    for (header, _, pending) in &prepared.pending {
        let Some((_, directive)) = prepared.includes.iter().find(|(n, _)| n == header) else {
            continue;
        };
        let mut names = Vec::new();
        nested_missing(pending.preprocessed(), &mut names);
        for name in names {
            if let Some((_, why, input_error)) = reason(name) {
                out.push(IncludeProblem {
                    name: header.clone(),
                    nested: Some(name.to_string()),
                    span: directive.clone(),
                    reason: why.clone(),
                    input_error: *input_error,
                });
            }
        }
    }
    out.sort_by_key(|p| p.span.start);
    out.dedup_by(|a, b| a.span == b.span && a.nested == b.nested);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_decoding_without_a_copy_is_the_checked_file_decoding() {
        let path = Path::new("h.cuh");
        for bytes in [
            &b"#include \"a.cuh\"\r\nint x;\r\n"[..],
            b"\xEF\xBB\xBF#define N 4\rint y; // \xC3\xA9\n",
            b"int z; // \xFF not UTF-8 in a comment\n",
            b"int \xFF w;\n",
            b"a\0b",
        ] {
            let expected = match SourceFile::from_bytes(path, bytes.to_vec()) {
                Ok(f) => f.text,
                Err(_) => String::from_utf8(
                    bytes
                        .iter()
                        .map(|&b| if b >= 0x80 || b == 0 { b'?' } else { b })
                        .collect(),
                )
                .unwrap(),
            };
            assert_eq!(
                decoded_leniently(path, bytes.to_vec()),
                expected,
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn includers_are_taken_in_turn_by_the_name_they_name() {
        // Six files of entry point 0 come first, two of entry point 1 after them: with room
        // for four, each entry point gets two, in their first order; the context chain's
        // file (no name) is a group of its own.
        let found: Vec<(usize, &str, Option<usize>)> = vec![
            (0, "a0", Some(0)),
            (0, "a1", Some(0)),
            (0, "a2", Some(0)),
            (0, "a3", Some(0)),
            (0, "a4", Some(0)),
            (0, "a5", Some(0)),
            (0, "b0", Some(1)),
            (0, "b1", Some(1)),
        ];
        fn names(v: Vec<(usize, &'static str)>) -> Vec<&'static str> {
            v.into_iter().map(|(_, n)| n).collect()
        }
        assert_eq!(
            names(take_in_turn(found.clone(), 4)),
            ["a0", "a1", "b0", "b1"]
        );
        assert_eq!(names(take_in_turn(found.clone(), 100)).len(), 8);
        let mut with_chain = vec![(0, "ctx", None)];
        with_chain.extend(found);
        assert_eq!(names(take_in_turn(with_chain, 3)), ["ctx", "a0", "b0"]);
        // The name found first in the list, as a whole word.
        assert_eq!(
            first_named("run_b<1>(p); run_a<2>(p);", &["run_a", "run_b"]),
            Some(0)
        );
        assert_eq!(first_named("run_ab<1>(p);", &["run_a"]), None);
    }

    #[test]
    fn finds_include_directives_with_their_offsets() {
        let text = "int a;\n  #  include \"k.cu\"\n#include <stdio.h>\n#include \"\"\nint include = 1; // #include \"no.h\"\n#include\"b.cuh\"\n#include <lib/k.cuh>\n";
        assert_eq!(
            local_includes(text),
            vec![
                ("k.cu".to_string(), 9, false),
                ("b.cuh".to_string(), 94, false),
                ("lib/k.cuh".to_string(), 110, true),
            ]
        );
    }
}
