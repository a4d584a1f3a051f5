//! Autofix: applies padding suggestions that are safe to apply automatically, writing each
//! file atomically (a temporary file in the same directory, then a rename, permissions kept),
//! or shows them as a unified diff with `--dry-run`.
//!
//! Which fixes are safe is decided when they are made (`lint::applicability`).

use crate::lint::applicability::Applicability;
use crate::lint::fix::PaddingFix;
use crate::lint::report::FileReport;
use std::io::Write;
use std::path::Path;

/// The file's text with every safe fix applied, and how many were applied.
pub fn fixed_text(report: &FileReport) -> (String, usize) {
    let mut fixes: Vec<&PaddingFix> = report
        .fixes
        .iter()
        .filter(|f| f.applicability == Applicability::Safe)
        .collect();
    fixes.sort_by_key(|f| std::cmp::Reverse(f.dim_span.start));
    let mut text = report.file.text.clone();
    let mut applied = 0;
    let mut last_start = usize::MAX;
    for f in fixes {
        // Replacements never overlap: one per declaration dimension.
        if f.dim_span.end > last_start || text.get(f.dim_span.clone()).is_none() {
            continue;
        }
        text.replace_range(f.dim_span.clone(), &f.replacement);
        last_start = f.dim_span.start;
        applied += 1;
    }
    (text, applied)
}

/// Replaces `path`'s contents with `text` so that a crash at any point leaves either the
/// old file or the new one: write a temporary file beside it, flush it to disk, rename.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.banklint-{}.tmp", std::process::id()));
    let permissions = std::fs::metadata(path)?.permissions();
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::set_permissions(&tmp, permissions)?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A unified diff of two texts (`--fix --dry-run`), with three lines of context.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    if a == b {
        return String::new();
    }
    // Fixes replace text inside lines, so the line count is unchanged: compare line by line.
    let changed: Vec<usize> = if a.len() == b.len() {
        (0..a.len()).filter(|&i| a[i] != b[i]).collect()
    } else {
        (0..a.len().max(b.len())).collect()
    };
    let path = path.trim_start_matches('/');
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    let mut i = 0;
    while i < changed.len() {
        let start = changed[i].saturating_sub(3);
        let mut j = i;
        while j + 1 < changed.len() && changed[j + 1] <= changed[j] + 7 {
            j += 1;
        }
        let end = (changed[j] + 4).min(a.len().max(b.len()));
        let old_end = end.min(a.len());
        let new_end = end.min(b.len());
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            start + 1,
            old_end.saturating_sub(start),
            start + 1,
            new_end.saturating_sub(start)
        ));
        for k in start..end {
            let (la, lb) = (a.get(k), b.get(k));
            if la == lb {
                if let Some(l) = la {
                    push_line(&mut out, ' ', l);
                }
            } else {
                if let Some(l) = la {
                    push_line(&mut out, '-', l);
                }
                if let Some(l) = lb {
                    push_line(&mut out, '+', l);
                }
            }
        }
        i = j + 1;
    }
    out
}

fn push_line(out: &mut String, sign: char, line: &str) {
    out.push(sign);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_changed_lines_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let d = unified_diff("k.cu", old, new);
        assert_eq!(
            d,
            "--- a/k.cu\n+++ b/k.cu\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert_eq!(unified_diff("k.cu", old, old), "");
    }

    #[test]
    fn atomic_write_keeps_permissions() {
        let dir = std::env::temp_dir().join(format!("banklint-autofix-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("k.cu");
        std::fs::write(&p, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        write_atomically(&p, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o640
            );
        }
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
