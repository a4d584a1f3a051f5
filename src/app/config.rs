//! Configuration: `banklint.toml`, found for each checked file from its directory upward,
//! merged with the command line (flags win; see `settings`), plus per-file `-D`/`-I` flags
//! from a `compile_commands.json` (`-p build/`), as clang-tidy reads them. `--print-config`
//! shows which file applies to which path and where each value came from.
//!
//! ```toml
//! arch = "sm_80"
//! bank-mode = 4
//! block-dim = "32x8"
//! min-ways = 4
//! defines = ["TILE=32", "USE_PADDING"]
//! include-dirs = ["include"]
//! exclude = ["third_party/**", "**/*.gen.cu"]
//!
//! [severity]
//! bank-conflict = "error"      # error | warning | note | off
//! unanalyzed-access = "off"
//! ```

use crate::check::CheckOptions;
use crate::front::cuda::Defines;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "banklint.toml";

/// A value and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Sourced<T> {
    pub value: T,
    pub source: String,
}

/// What `banklint.toml` may set. Every key is optional.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileConfig {
    pub path: Option<PathBuf>,
    pub arch: Option<String>,
    pub bank_mode: Option<u32>,
    pub cuda_version: Option<String>,
    pub block_dim: Option<String>,
    pub min_ways: Option<u32>,
    pub defines: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    pub exclude: Vec<String>,
    pub severity: BTreeMap<String, String>,
}

/// Finds `banklint.toml` in `start` or the nearest ancestor (whatever kind of file it is:
/// loading it refuses anything but a regular file).
pub fn discover(start: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    start
        .ancestors()
        .map(|d| d.join(FILE_NAME))
        .find(|p| p.exists())
}

/// A configuration input as text: a regular file (a FIFO or device is refused, never
/// waited on), at most `MAX_INPUT_BYTES`, UTF-8.
fn read_config_text(path: &Path) -> Result<String, String> {
    use crate::front::source::{Reached, read_capped};
    let bytes = read_capped(path, Reached::Indirectly)
        .map_err(|why| format!("{}: {why}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{}: is not valid UTF-8", path.display()))
}

/// Reads and validates a config file; paths in it are relative to its directory.
pub fn load(path: &Path) -> Result<FileConfig, String> {
    let text = read_config_text(path)?;
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| format!("{}: {}", path.display(), e.to_string().trim()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut cfg = FileConfig {
        path: Some(path.to_path_buf()),
        ..FileConfig::default()
    };
    let err = |key: &str, what: &str| format!("{}: `{key}` must be {what}", path.display());
    for (key, value) in &table {
        match key.as_str() {
            "arch" => {
                cfg.arch = Some(
                    value
                        .as_str()
                        .ok_or_else(|| err(key, "a string like \"sm_90\""))?
                        .to_string(),
                )
            }
            "bank-mode" => {
                cfg.bank_mode = match value.as_integer() {
                    Some(4) => Some(4),
                    Some(8) => Some(8),
                    Some(n) => return Err(err(key, &format!("4 or 8, not {n}"))),
                    None => return Err(err(key, "4 or 8")),
                };
            }
            "cuda-version" => {
                cfg.cuda_version = Some(
                    value
                        .as_str()
                        .ok_or_else(|| err(key, "a string like \"12.4\""))?
                        .to_string(),
                )
            }
            "block-dim" => {
                cfg.block_dim = Some(
                    value
                        .as_str()
                        .ok_or_else(|| err(key, "a string like \"32x8\""))?
                        .to_string(),
                )
            }
            "min-ways" => {
                cfg.min_ways = match value.as_integer() {
                    Some(n) if (1..=64).contains(&n) => Some(n as u32),
                    Some(n) => return Err(err(key, &format!("an integer from 1 to 64, not {n}"))),
                    None => return Err(err(key, "an integer from 1 to 64")),
                };
            }
            "defines" => {
                cfg.defines = strings(value).ok_or_else(|| err(key, "a list of strings"))?
            }
            "include-dirs" => {
                cfg.include_dirs = strings(value)
                    .ok_or_else(|| err(key, "a list of strings"))?
                    .into_iter()
                    .map(|d| base.join(d))
                    .collect();
            }
            "exclude" => {
                cfg.exclude = strings(value).ok_or_else(|| err(key, "a list of glob strings"))?
            }
            "severity" => {
                let t = value
                    .as_table()
                    .ok_or_else(|| err(key, "a table of code = level"))?;
                for (code, level) in t {
                    let level = level
                        .as_str()
                        .ok_or_else(|| err(code, "\"error\", \"warning\", \"note\" or \"off\""))?;
                    if crate::lint::rules::Rule::from_code(code).is_none() {
                        return Err(format!(
                            "{}: unknown code `{code}` in [severity]",
                            path.display()
                        ));
                    }
                    if !matches!(level, "error" | "warning" | "note" | "off") {
                        return Err(err(code, "\"error\", \"warning\", \"note\" or \"off\""));
                    }
                    cfg.severity.insert(code.clone(), level.to_string());
                }
            }
            other => return Err(format!("{}: unknown key `{other}`", path.display())),
        }
    }
    Ok(cfg)
}

fn strings(v: &toml::Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_string))
        .collect()
}

/// `--exclude` and `exclude = [...]` globs, compiled once: `*` and `?` within one path
/// component, `**` across components. Matching is linear in the path (globset), whatever
/// the pattern.
pub struct Excludes {
    set: globset::GlobSet,
    base: PathBuf,
}

impl Excludes {
    /// `base` is what the patterns are relative to: the config file's directory, else the
    /// current one.
    pub fn new(patterns: &[String], base: &Path) -> Result<Excludes, String> {
        let mut set = globset::GlobSetBuilder::new();
        for p in patterns {
            let glob = globset::GlobBuilder::new(p.trim_start_matches("./"))
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|e| format!("invalid exclude glob `{p}`: {}", e.kind()))?;
            set.add(glob);
        }
        Ok(Excludes {
            set: set.build().map_err(|e| e.to_string())?,
            base: std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf()),
        })
    }

    /// Whether `path` is excluded: a pattern matches its path relative to the base, or one
    /// of that path's trailing components (so `vendor/**` matches at any depth).
    pub fn is_excluded(&self, path: &Path) -> bool {
        if self.set.is_empty() {
            return false;
        }
        let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let rel = abs.strip_prefix(&self.base).unwrap_or(path);
        let text = rel.to_string_lossy().replace('\\', "/");
        let text = text.trim_start_matches("./");
        self.set.is_match(text)
            || text
                .match_indices('/')
                .any(|(i, _)| self.set.is_match(&text[i + 1..]))
    }
}

/// Per-file flags from a compilation database.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompileFlags {
    pub defines: Vec<String>,
    pub undefines: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
}

/// Reads `dir/compile_commands.json`: absolute source path -> its -D/-U/-I flags.
pub fn load_compile_commands(dir: &Path) -> Result<BTreeMap<PathBuf, CompileFlags>, String> {
    let path = if dir.is_dir() {
        dir.join("compile_commands.json")
    } else {
        dir.to_path_buf()
    };
    let text = read_config_text(&path)?;
    let doc: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
    let entries = doc.as_array().ok_or_else(|| {
        format!(
            "{}: expected a JSON array of compile commands",
            path.display()
        )
    })?;
    let mut out = BTreeMap::new();
    for e in entries {
        let (Some(directory), Some(file)) = (e["directory"].as_str(), e["file"].as_str()) else {
            continue;
        };
        let args: Vec<String> = match (e["arguments"].as_array(), e["command"].as_str()) {
            (Some(a), _) => a
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect(),
            (None, Some(c)) => split_command(c),
            _ => continue,
        };
        let dir = PathBuf::from(directory);
        let mut flags = CompileFlags::default();
        let mut it = args.iter().peekable();
        while let Some(a) = it.next() {
            let mut take = |prefix: &str| -> Option<String> {
                if a == prefix {
                    it.next().cloned()
                } else {
                    a.strip_prefix(prefix)
                        .filter(|v| !v.is_empty())
                        .map(str::to_string)
                }
            };
            if let Some(v) = take("-D") {
                flags.defines.push(v);
            } else if let Some(v) = take("-U") {
                flags.undefines.push(v);
            } else if let Some(v) = take("-I") {
                flags.include_dirs.push(dir.join(v));
            }
        }
        let file = dir.join(file);
        let key = std::fs::canonicalize(&file).unwrap_or(file);
        out.insert(key, flags);
    }
    Ok(out)
}

/// Splits a shell command line (quotes and backslashes, no expansions).
fn split_command(c: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut has = false;
    let mut chars = c.chars();
    while let Some(ch) = chars.next() {
        match (quote, ch) {
            (None, '\'' | '"') => {
                quote = Some(ch);
                has = true;
            }
            (Some(q), _) if ch == q => quote = None,
            (None, '\\') | (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (None, w) if w.is_whitespace() => {
                if has || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            _ => cur.push(ch),
        }
    }
    if has || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Options for one file: the global ones plus its compile command's flags.
pub fn options_for_file(
    base: &CheckOptions,
    db: &std::collections::BTreeMap<PathBuf, CompileFlags>,
    path: &Path,
) -> CheckOptions {
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let Some(flags) = db.get(&key) else {
        return base.clone();
    };
    let mut o = base.clone();
    let extra = Defines::from_flags(
        flags.defines.iter().map(String::as_str),
        flags.undefines.iter().cloned(),
    );
    o.defines.defined.extend(extra.defined);
    o.defines.undefined.extend(extra.undefined);
    o.include_dirs.extend(flags.include_dirs.iter().cloned());
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let matches = |pattern: &str, path: &str| {
            Excludes::new(&[pattern.to_string()], Path::new("/nonexistent"))
                .expect("glob")
                .is_excluded(Path::new(path))
        };
        assert!(matches("*.cu", "a.cu"));
        assert!(matches("**/*.cu", "dir/sub/a.cu"));
        assert!(matches("**/*.cu", "a.cu"));
        assert!(matches("third_party/**", "third_party/x/y.cu"));
        assert!(matches("third_party/**", "src/third_party/x/y.cu"));
        assert!(matches("k?.cu", "k1.cu"));
        assert!(!matches("k?.cu", "k12.cu"));
        assert!(!matches("dir/*.cu", "dir/sub/a.cu"));
        assert!(Excludes::new(&["a[".to_string()], Path::new(".")).is_err());
    }

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(
            split_command("nvcc -DTILE=32 -I \"my dir\" -c 'a b.cu'"),
            vec!["nvcc", "-DTILE=32", "-I", "my dir", "-c", "a b.cu"]
        );
    }
}
