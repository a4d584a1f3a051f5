//! Includer context: a file that another file `#include`s is compiled as part of that file,
//! after whatever the includer defined first. Rodinia's `reduce_kernel.cu` uses `fp`, which
//! `main.cu` defines just before `#include "reduce_kernel.cu"`; a header of NVIDIA's samples
//! uses a block size its `.cu` file sets. Read alone, such a file has unknown types and
//! sizes. This module finds each file's includer, among the files being checked and the
//! file's own directory, and rebuilds what the includer's front end had seen by its
//! `#include` line, as clangd does for headers.

use crate::front::cuda::{Defines, Prepared, prepare_in_context};
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

/// Where a file is included: the includer and the byte offset of its `#include` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Includer {
    pub path: PathBuf,
    pub directive_at: usize,
}

/// For each included file (canonical path), its first includer in path order; and, filled
/// as a run needs them, the includers' own front-end results (each file prepared once per
/// run, whichever worker asks first).
#[derive(Debug, Default)]
pub struct IncluderIndex {
    includers: HashMap<PathBuf, Includer>,
    prepared: Mutex<HashMap<PathBuf, Option<Arc<Prepared>>>>,
}

impl IncluderIndex {
    /// Scans `files` and every source file in their directories for local includes, resolved
    /// like the front end does: next to the includer, then in `include_dirs`.
    pub fn build(files: &[PathBuf], include_dirs: &[PathBuf]) -> IncluderIndex {
        let mut candidates: Vec<PathBuf> = files.to_vec();
        let mut dirs_seen = HashSet::new();
        for f in files {
            // A header's includer is usually beside it or a directory or two up
            // (`src/kernels/k.cuh` included by `src/kernels.cuh`, launched from `src/main.cu`).
            let mut dir = f.parent().unwrap_or(Path::new("")).to_path_buf();
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
            let Some(text) = read_small(&includer) else {
                continue;
            };
            for (name, directive_at) in local_includes(&text) {
                let Some(target) = resolve(&includer, &name, include_dirs) else {
                    continue;
                };
                index.includers.entry(target).or_insert_with(|| Includer {
                    path: includer.clone(),
                    directive_at,
                });
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
            let mut load = header_loader(path, include_dirs);
            Arc::new(prepare_in_context(&text, defines, &mut load, None))
        });
        self.prepared.lock().ok()?.insert(key, made.clone());
        made
    }

    pub fn includer_of(&self, path: &Path) -> Option<&Includer> {
        let key = std::fs::canonicalize(path).ok()?;
        self.includers.get(&key).filter(|i| {
            // A file that includes itself has no context to take.
            std::fs::canonicalize(&i.path).ok().as_deref() != Some(key.as_path())
        })
    }

    /// What the includer of `path` had seen at its `#include` line, as a header named after
    /// the includer; `None` when nothing includes `path`. Chains of includers are followed
    /// (each prefix in its own includer's context) up to `MAX_DEPTH`, cycles cut.
    pub fn context_for(
        &self,
        path: &Path,
        defines: &Defines,
        include_dirs: &[PathBuf],
    ) -> Option<(Includer, Prepared)> {
        let chain = self.chain(path);
        // Outermost includer first: each prefix is prepared in the context of the one before.
        let mut context: Option<(String, Prepared)> = None;
        for inc in chain.iter().rev() {
            let text = read_small(&inc.path)?;
            let prefix = text.get(..inc.directive_at)?;
            let mut load = header_loader(&inc.path, include_dirs);
            let prepared = prepare_in_context(prefix, defines, &mut load, context.take());
            context = Some((inc.path.display().to_string(), prepared));
        }
        let (_, prepared) = context?;
        Some((chain.first()?.clone(), prepared))
    }
}

fn source_files_in(dir: &Path) -> Vec<PathBuf> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| INCLUDER_EXTENSIONS.contains(&e))
        })
        .map(|p| {
            // Keep the spelling of the checked paths (`dir/x.cu`, not `./dir/x.cu`).
            if dir == Path::new(".") {
                p.strip_prefix("./").map(Path::to_path_buf).unwrap_or(p)
            } else {
                p
            }
        })
        .collect()
}

fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SCANNED_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// `#include "name"` directives: the name and the offset of the `#`. A plain text scan (by
/// the word `include`, so files without one cost one pass of a substring search);
/// conditional compilation is not evaluated (an include in a disabled branch still says which
/// file the includer means to compile).
pub fn local_includes(text: &str) -> Vec<(String, usize)> {
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
        let Some(quoted) = rest.trim_start().strip_prefix('"') else {
            continue;
        };
        if let Some(name) = quoted.split('"').next().filter(|n| !n.is_empty()) {
            out.push((name.to_string(), start + (line.len() - trimmed.len())));
        }
    }
    out
}

fn resolve(includer: &Path, name: &str, include_dirs: &[PathBuf]) -> Option<PathBuf> {
    let here = includer.parent().map(|p| p.join(name));
    here.into_iter()
        .chain(include_dirs.iter().map(|d| d.join(name)))
        .find(|p| p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// Reads local headers next to `file`, then in `include_dirs`, giving each one's path and
/// text; at most 64 files, so include cycles end.
pub fn header_loader<'a>(
    file: &'a Path,
    include_dirs: &'a [PathBuf],
) -> impl FnMut(&str) -> Option<(String, String)> + 'a {
    let mut budget = 64;
    move |name: &str| {
        if budget == 0 {
            return None;
        }
        budget -= 1;
        let here = file.parent().map(|p| p.join(name));
        here.into_iter()
            .chain(include_dirs.iter().map(|d| d.join(name)))
            .find_map(|p| {
                let text = String::from_utf8(std::fs::read(&p).ok()?).ok()?;
                Some((p.display().to_string(), text))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_include_directives_with_their_offsets() {
        let text = "int a;\n  #  include \"k.cu\"\n#include <stdio.h>\n#include \"\"\nint include = 1; // #include \"no.h\"\n#include\"b.cuh\"\n";
        assert_eq!(
            local_includes(text),
            vec![("k.cu".to_string(), 9), ("b.cuh".to_string(), 94)]
        );
    }
}
