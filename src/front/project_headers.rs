//! Headers found in the project tree: `#include "kittens.cuh"` from `kernels/attn/a.cu`
//! where the build passes `-I include`, or `#include <raft/core/macros.hpp>` under
//! `cpp/include/`. A linter has no build system to ask, so when a header is neither next to
//! its includer nor in a `-I` directory, it is looked up by path suffix among the project's
//! files, as an editor's indexer would.
//!
//! The project is the nearest enclosing directory with a `.git`, else the working directory
//! when the file is inside it (never `/` or the home directory), else the file's directory.
//! Its file names are indexed on first use (bounded by [`MAX_INDEXED_ENTRIES`]) and kept for
//! [`INDEX_LIFETIME`], so a long-lived editor session sees headers added since; a lookup takes
//! the candidate nearest to the including file and refuses a tie.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Directory entries visited when indexing one project: a monorepo is cut off, not walked
/// for minutes.
pub const MAX_INDEXED_ENTRIES: usize = 200_000;

/// How long one index serves before the tree is walked again (the language server runs for
/// hours; one command-line run rarely outlives it).
pub const INDEX_LIFETIME: Duration = Duration::from_secs(10);

/// How deep below the project root headers are indexed.
const MAX_DEPTH: usize = 24;

/// Directories that hold build outputs or other tools' files, not the project's headers.
const SKIPPED_DIRS: &[&str] = &["build", "node_modules", "target", "__pycache__"];

/// File names of one project, by final component.
#[derive(Debug, Default)]
pub struct HeaderIndex {
    by_name: HashMap<String, Vec<PathBuf>>,
    /// Components in the project root's absolute path: a bare name found below a folder
    /// the includer shares beyond the root is a near relative.
    root_depth: usize,
    /// Answers already given, by name and including file: every file of a library asks
    /// the same questions.
    found: Mutex<HashMap<(String, PathBuf), Found>>,
}

/// What [`HeaderIndex::find`] answers.
type Found = Result<Option<PathBuf>, Vec<PathBuf>>;

impl HeaderIndex {
    /// Indexes the files under `root` (hidden and build directories left out).
    pub fn build(root: &Path) -> HeaderIndex {
        let mut by_name: HashMap<String, Vec<PathBuf>> = HashMap::new();
        let walk = walkdir::WalkDir::new(root)
            .max_depth(MAX_DEPTH)
            .into_iter()
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                e.depth() == 0
                    || !(name.starts_with('.')
                        || e.file_type().is_dir() && SKIPPED_DIRS.contains(&name.as_ref()))
            });
        for entry in walk.take(MAX_INDEXED_ENTRIES).flatten() {
            if entry.file_type().is_file() {
                by_name
                    .entry(entry.file_name().to_string_lossy().into_owned())
                    .or_default()
                    .push(entry.into_path());
            }
        }
        HeaderIndex {
            by_name,
            root_depth: absolute(root).components().count(),
            found: Mutex::default(),
        }
    }

    /// The file `name` (`a/b.h`) names for a file in `from`'s directory: the candidates whose
    /// path ends with `name`, the one sharing the longest leading path with `from`, then the
    /// shortest. `Err` lists a tie. A name without a directory matches little by itself, so
    /// it is looked for only in folders named like include folders (`include`, `inc`,
    /// `common`) and in folders sharing with `from` a folder below the project root
    /// (`kernels/attn/utils/utils.h` for `kernels/attn/mma/k.cu`, as a build's `-I ../utils`
    /// gives); the toolkit's and the C library's headers are never looked for.
    pub fn find(&self, name: &str, from: &Path) -> Found {
        let key = (name.to_string(), from.to_path_buf());
        if let Some(known) = self.found.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return known;
        }
        let answer = self.search(name, from);
        if let Ok(mut m) = self.found.lock() {
            m.insert(key, answer.clone());
        }
        answer
    }

    fn search(&self, name: &str, from: &Path) -> Found {
        if is_toolkit_header(name) {
            return Ok(None);
        }
        let wanted: Vec<Component> = Path::new(name)
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .collect();
        // `../x.h` is relative to a directory, never a suffix to search for.
        if wanted.is_empty() || wanted.iter().any(|c| !matches!(c, Component::Normal(_))) {
            return Ok(None);
        }
        let Some(Component::Normal(file_name)) = wanted.last() else {
            return Ok(None);
        };
        let Some(candidates) = self.by_name.get(&*file_name.to_string_lossy()) else {
            return Ok(None);
        };
        let from = absolute(from);
        let mut ranked: Vec<(usize, usize, &PathBuf)> = candidates
            .iter()
            .filter(|p| {
                let parts: Vec<Component> = p.components().collect();
                parts.len() >= wanted.len() && parts[parts.len() - wanted.len()..] == wanted[..]
            })
            .map(|p| {
                let shared = absolute(p)
                    .components()
                    .zip(from.components())
                    .take_while(|(a, b)| a == b)
                    .count();
                (shared, p.components().count(), p)
            })
            .filter(|(shared, _, p)| {
                wanted.len() > 1 || in_include_folder(p) || *shared > self.root_depth
            })
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        match ranked.as_slice() {
            [] => Ok(None),
            [(s, n, best), (s2, n2, second), ..] if s == s2 && n == n2 => {
                Err(vec![(*best).clone(), (*second).clone()])
            }
            [(_, _, best), ..] => Ok(Some((*best).clone())),
        }
    }
}

/// Whether `path` is directly in a folder named like an include folder.
fn in_include_folder(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .map(|d| d.to_string_lossy().to_ascii_lowercase())
        .is_some_and(|d| matches!(d.as_str(), "include" | "includes" | "inc" | "common"))
}

/// Headers of the CUDA toolkit and the C and C++ libraries, named without a folder: a
/// project's copy of one (a benchmark suite's own `cuda.h`) is not what the compiler reads.
/// A name with folders (`cub/block/block_load.cuh`) is a strong match and is looked for.
fn is_toolkit_header(name: &str) -> bool {
    const C_LIBRARY: &[&str] = &[
        "assert.h",
        "ctype.h",
        "errno.h",
        "float.h",
        "limits.h",
        "math.h",
        "stdarg.h",
        "stdbool.h",
        "stddef.h",
        "stdint.h",
        "stdio.h",
        "stdlib.h",
        "string.h",
        "time.h",
        "unistd.h",
        "malloc.h",
        "memory.h",
        "omp.h",
        "mpi.h",
    ];
    const TOOLKIT_FILES: &[&str] = &[
        "cuda.h",
        "cudaGL.h",
        "cudaEGL.h",
        "mma.h",
        "math_constants.h",
        "math_functions.h",
        "vector_types.h",
        "vector_functions.h",
        "driver_types.h",
        "host_defines.h",
    ];
    const TOOLKIT_PREFIXES: &[&str] = &[
        "cuda_",
        "cublas",
        "cufft",
        "curand",
        "cusparse",
        "cusolver",
        "cudnn",
        "nvrtc",
        "nvml",
        "nvtx",
        "sm_",
        "device_",
        "texture_",
        "surface_",
        "cooperative_groups",
    ];
    let file = name.rsplit('/').next().unwrap_or(name);
    !name.contains('.')
        || C_LIBRARY.contains(&file)
        || TOOLKIT_FILES.contains(&file)
        || TOOLKIT_PREFIXES.iter().any(|p| file.starts_with(p)) && !name.contains('/')
}

fn absolute(p: &Path) -> PathBuf {
    canonical(p)
}

/// `path` with links resolved, remembered for the run: each file of a library reads the
/// same headers, and resolving costs a system call per path component.
pub fn canonical(path: &Path) -> PathBuf {
    static KNOWN: std::sync::OnceLock<Mutex<HashMap<PathBuf, PathBuf>>> =
        std::sync::OnceLock::new();
    let known = KNOWN.get_or_init(Default::default);
    if let Some(c) = known.lock().ok().and_then(|m| m.get(path).cloned()) {
        return c;
    }
    let c = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if let Ok(mut m) = known.lock() {
        m.insert(path.to_path_buf(), c.clone());
    }
    c
}

/// The project root of `file` (see the module comment), found once per folder: the includer
/// index resolves every include of every file in a directory through it.
pub fn project_root(file: &Path) -> PathBuf {
    static ROOTS: OnceLock<Mutex<HashMap<PathBuf, PathBuf>>> = OnceLock::new();
    let file = absolute(file);
    let dir = file.parent().unwrap_or(Path::new("/")).to_path_buf();
    let roots = ROOTS.get_or_init(Default::default);
    if let Some(root) = roots.lock().ok().and_then(|m| m.get(&dir).cloned()) {
        return root;
    }
    let root = root_of(&dir);
    if let Ok(mut m) = roots.lock() {
        m.insert(dir, root.clone());
    }
    root
}

fn root_of(dir: &Path) -> PathBuf {
    if let Some(root) = dir.ancestors().find(|d| d.join(".git").exists()) {
        return root.to_path_buf();
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match std::env::current_dir().map(|d| absolute(&d)) {
        Ok(cwd)
            if dir.starts_with(&cwd)
                && cwd.parent().is_some()
                && home.as_deref() != Some(cwd.as_path()) =>
        {
            cwd
        }
        _ => dir.to_path_buf(),
    }
}

/// The index of `root`, built on first use and shared by every file of the run.
pub fn index_for(root: &Path) -> Arc<HeaderIndex> {
    type Indexes = HashMap<PathBuf, (Instant, Arc<HeaderIndex>)>;
    static INDEXES: OnceLock<Mutex<Indexes>> = OnceLock::new();
    let indexes = INDEXES.get_or_init(Default::default);
    let fresh = |m: &Indexes| {
        m.get(root)
            .filter(|(built, _)| built.elapsed() < INDEX_LIFETIME)
            .map(|(_, index)| index.clone())
    };
    if let Some(done) = indexes.lock().ok().and_then(|m| fresh(&m)) {
        return done;
    }
    let built = Arc::new(HeaderIndex::build(root));
    if let Ok(mut m) = indexes.lock() {
        m.insert(root.to_path_buf(), (Instant::now(), built.clone()));
    }
    built
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch tree, removed when dropped.
    struct Tree(PathBuf);

    impl Tree {
        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn tree(files: &[&str]) -> (Tree, HeaderIndex) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = Tree(std::env::temp_dir().join(format!(
            "banklint-headers-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        )));
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "").unwrap();
        }
        let index = HeaderIndex::build(dir.path());
        (dir, index)
    }

    #[test]
    fn finds_a_header_by_its_path_suffix() {
        let (dir, index) = tree(&["include/kittens.cuh", "kernels/attn/a.cu"]);
        let from = dir.path().join("kernels/attn/a.cu");
        let found = index.find("kittens.cuh", &from).unwrap().unwrap();
        assert!(found.ends_with("include/kittens.cuh"));
        let (dir, index) = tree(&["cpp/include/raft/core/macros.hpp", "cpp/src/k.cu"]);
        let from = dir.path().join("cpp/src/k.cu");
        assert!(
            index
                .find("raft/core/macros.hpp", &from)
                .unwrap()
                .unwrap()
                .ends_with("cpp/include/raft/core/macros.hpp")
        );
        // The toolkit's headers are never taken from the project; a bare name only from an
        // include folder.
        let (dir, index) = tree(&["util/cuda/cuda.h", "src/common.h", "k/a.cu"]);
        let from = dir.path().join("k/a.cu");
        assert_eq!(index.find("cuda.h", &from), Ok(None));
        assert_eq!(index.find("common.h", &from), Ok(None));
        let (dir, index) = tree(&["cpp/include/raft/core/macros.hpp", "cpp/src/k.cu"]);
        let from = dir.path().join("cpp/src/k.cu");
        // A suffix must match whole components.
        assert_eq!(index.find("aft/core/macros.hpp", &from), Ok(None));
        assert_eq!(index.find("../core/macros.hpp", &from), Ok(None));
    }

    #[test]
    fn the_nearest_candidate_wins_and_a_tie_is_refused() {
        let (dir, index) = tree(&[
            "a/include/common.h",
            "a/x/k.cu",
            "b/include/common.h",
            "c/d/include/common.h",
            ".hidden/include/common.h",
        ]);
        let from = dir.path().join("a/x/k.cu");
        let found = index.find("common.h", &from).unwrap().unwrap();
        assert!(found.ends_with("a/include/common.h"));
        let from = dir.path().join("e/k.cu");
        let tie = index.find("common.h", &from).unwrap_err();
        assert_eq!(tie.len(), 2);
    }

    #[test]
    fn a_bare_name_is_found_in_a_folder_the_includer_shares_below_the_root() {
        let (dir, index) = tree(&[
            "kernels/attn/utils/utils.h",
            "kernels/attn/mma/basic/k.cu",
            "kernels/gemm/utils/utils.h",
            "tools/helpers.h",
            "main.cu",
        ]);
        let from = dir.path().join("kernels/attn/mma/basic/k.cu");
        let found = index.find("utils.h", &from).unwrap().unwrap();
        assert!(found.ends_with("kernels/attn/utils/utils.h"));
        // Sharing only the root is no kinship.
        assert_eq!(index.find("helpers.h", &from), Ok(None));
        assert_eq!(index.find("utils.h", &dir.path().join("main.cu")), Ok(None));
    }
}
