//! Autofix: applies padding suggestions that are safe to apply automatically, writing each
//! file atomically (a temporary file in the same directory, then a rename), or shows them
//! as a unified diff with `--dry-run`.
//!
//! A fix never damages the file it is for: the replacements are spliced into the bytes as
//! read (encoding, BOM and line endings kept); a symlink is written through to its target;
//! a file with several hard links, without write permission, or whose owner cannot be kept
//! is refused; and a file that changed since it was read is left alone.
//!
//! Which fixes are safe is decided when they are made (`lint::applicability`).

use crate::lint::applicability::Applicability;
use crate::lint::fix::PaddingFix;
use crate::lint::report::FileReport;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A file with its safe fixes applied.
pub struct Fixed {
    /// The file's bytes as read, with the replacements spliced in.
    pub bytes: Vec<u8>,
    /// The same for the decoded text (what `--dry-run` shows).
    pub text: String,
    pub applied: usize,
}

/// The file with every safe fix applied, and how many were applied.
pub fn fixed(report: &FileReport) -> Fixed {
    fixed_where(report, |_| true)
}

/// The file with the safe fixes of the reported findings applied: a conflict that is
/// allowed, ignored (`--ignore`, `[severity]` off) or below `--min-ways` is not fixed.
pub fn fixed_for(report: &FileReport, reported: &[crate::lint::rules::Finding]) -> Fixed {
    fixed_where(report, |fix| {
        reported
            .iter()
            .filter_map(|f| f.fix.as_ref())
            .any(|r| r.array == fix.array && r.dim_span == fix.dim_span)
    })
}

fn fixed_where(report: &FileReport, keep: impl Fn(&PaddingFix) -> bool) -> Fixed {
    let mut fixes: Vec<&PaddingFix> = report
        .fixes
        .iter()
        .filter(|f| f.applicability == Applicability::Safe && keep(f))
        .collect();
    fixes.sort_by_key(|f| std::cmp::Reverse(f.dim_span.start));
    let mut text = report.file.text.clone();
    let mut edits = Vec::new();
    let mut last_start = usize::MAX;
    for f in fixes {
        // Replacements never overlap: one per declaration dimension.
        if f.dim_span.end > last_start || text.get(f.dim_span.clone()).is_none() {
            continue;
        }
        text.replace_range(f.dim_span.clone(), &f.replacement);
        edits.push((f.dim_span.clone(), f.replacement.as_str()));
        last_start = f.dim_span.start;
    }
    Fixed {
        bytes: report.file.spliced(&edits),
        text,
        applied: edits.len(),
    }
}

/// Temporary names are unique per process and per write.
static WRITES: AtomicUsize = AtomicUsize::new(0);

/// Replaces the file at `path` (a symlink's target) with `new` so that a crash at any point
/// leaves either the old file or the new one: write a temporary file beside it with the
/// same mode and owner, flush it to disk, rename. `read` is what the analysis read: if the
/// file no longer holds it, it is left as it is. Errors are the sentence to print.
pub fn write_atomically(path: &Path, read: &[u8], new: &[u8]) -> Result<(), String> {
    let target = std::fs::canonicalize(path).map_err(|e| format!("cannot resolve: {e}"))?;
    let before = std::fs::metadata(&target).map_err(|e| format!("cannot read: {e}"))?;
    refuse_unsafe(&target, &before)?;
    if !same_content(&target, read) {
        return Err(changed());
    }
    pause_for_tests();
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.banklint-{}-{}.tmp",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| format!("cannot create a temporary file in {}: {e}", dir.display()))?;
        let io = |e: std::io::Error| format!("cannot write {}: {e}", tmp.display());
        f.write_all(new).map_err(io)?;
        keep_owner(&f, &before)?;
        f.set_permissions(before.permissions()).map_err(io)?;
        f.sync_all().map_err(io)?;
        // The last moment to see an edit saved while the file was analyzed.
        let now = std::fs::metadata(&target).map_err(|e| format!("cannot read: {e}"))?;
        if !unchanged(&before, &now) || !same_content(&target, read) {
            return Err(changed());
        }
        std::fs::rename(&tmp, &target)
            .map_err(|e| format!("cannot replace {}: {e}", target.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn changed() -> String {
    "changed since banklint read it; not rewritten (run banklint again)".to_string()
}

fn same_content(target: &Path, read: &[u8]) -> bool {
    crate::front::source::read_capped(target, crate::front::source::Reached::Indirectly)
        .is_ok_and(|now| now == read)
}

/// Files `--fix` must not replace: a rename would break hard links, and would write a
/// file its permissions protect.
fn refuse_unsafe(target: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    if !meta.is_file() {
        return Err("is not a regular file; not rewritten".into());
    }
    if meta.permissions().readonly() {
        return Err("is read-only; not rewritten".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Err(format!(
                "has {} hard links, which rewriting it would break; not rewritten",
                meta.nlink()
            ));
        }
        let c_path = std::ffi::CString::new(target.as_os_str().as_bytes())
            .map_err(|_| "has a NUL byte in its path".to_string())?;
        // SAFETY: `c_path` is a valid NUL-terminated string for the duration of the call.
        if unsafe { libc::access(c_path.as_ptr(), libc::W_OK) } != 0 {
            return Err("is not writable by this user; not rewritten".into());
        }
    }
    Ok(())
}

#[cfg(unix)]
fn keep_owner(f: &std::fs::File, before: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let created = f.metadata().map_err(|e| format!("cannot read: {e}"))?;
    if (created.uid(), created.gid()) == (before.uid(), before.gid()) {
        return Ok(());
    }
    std::os::unix::fs::fchown(f, Some(before.uid()), Some(before.gid())).map_err(|_| {
        format!(
            "is owned by user {} (group {}), which this user cannot keep; not rewritten",
            before.uid(),
            before.gid()
        )
    })
}

#[cfg(not(unix))]
fn keep_owner(_: &std::fs::File, _: &std::fs::Metadata) -> Result<(), String> {
    Ok(())
}

fn unchanged(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (a.ino(), a.dev()) != (b.ino(), b.dev()) {
            return false;
        }
    }
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

/// For the lost-update test only (debug builds): with `BANKLINT_TEST_PAUSE_BEFORE_WRITE=DIR`,
/// each write creates `DIR/paused` and waits (10 s at most) for `DIR/resume`, so the test
/// can edit the file between banklint's read and its write.
#[cfg(not(debug_assertions))]
fn pause_for_tests() {}

#[cfg(debug_assertions)]
fn pause_for_tests() {
    let Some(dir) = std::env::var_os("BANKLINT_TEST_PAUSE_BEFORE_WRITE") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let _ = std::fs::write(dir.join("paused"), "");
    let start = std::time::Instant::now();
    while !dir.join("resume").exists() && start.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
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
        write_atomically(&p, b"old", b"new").unwrap();
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
