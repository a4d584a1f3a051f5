//! Source loading: reads a file, a pipe or stdin (capped at [`MAX_INPUT_BYTES`], special
//! files refused), decodes it as compilers read it, and maps byte offsets to 1-based lines
//! and columns.
//!
//! Decoding keeps every byte offset of the file (after a UTF-8 byte-order mark, which is
//! skipped): bytes that are not UTF-8 inside comments and string or character literals
//! become one `?` each, and a lone CR line ending becomes LF, so the rest of the pipeline
//! reads valid UTF-8 with `\n` lines. The file's own bytes are kept for `--fix`, which
//! splices its replacements into them and never rewrites anything else.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most bytes banklint reads from any one input: a source file, a header, a pipe,
/// standard input, `banklint.toml` or `compile_commands.json`. Larger inputs are refused.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// One CUDA source file as read from disk.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as the user named it (used in every report).
    pub path: PathBuf,
    /// What the pipeline reads: valid UTF-8, with the byte offsets of the file after its BOM.
    pub text: String,
    /// The file's bytes, when `text` differs from them (BOM, replaced bytes, lone CRs).
    original: Option<Vec<u8>>,
    /// Length of the skipped byte-order mark: 0 or 3.
    bom: usize,
    /// Bytes that are not UTF-8 in comments and literals: the first one's offset in `text`,
    /// and how many were replaced.
    pub replaced: Option<(usize, usize)>,
    line_starts: Vec<usize>,
    /// Each multi-byte character's offset, with the continuation bytes before it and in
    /// it, so a column is a subtraction after a binary search.
    wide: Vec<(usize, usize)>,
}

#[derive(Debug)]
pub struct LoadError {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// How an input was reached, which decides the files it may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reached {
    /// Named on the command line: a regular file, or a pipe (`<(git show HEAD:k.cu)`).
    Named,
    /// Through a directory walk, `#include`, `--config` or `-p`: regular files only, so a
    /// FIFO never blocks the run.
    Indirectly,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, text: String) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let mut wide = Vec::new();
        if !text.is_ascii() {
            let mut extra = 0;
            for (i, c) in text.char_indices().filter(|(_, c)| !c.is_ascii()) {
                extra += c.len_utf8() - 1;
                wide.push((i, extra));
            }
        }
        SourceFile {
            path: path.into(),
            text,
            original: None,
            bom: 0,
            replaced: None,
            line_starts,
            wide,
        }
    }

    /// Reads and decodes a file from disk.
    pub fn load(path: &Path, reached: Reached) -> Result<SourceFile, LoadError> {
        let bytes = read_capped(path, reached).map_err(|message| LoadError {
            path: path.to_path_buf(),
            message,
        })?;
        SourceFile::from_bytes(path, bytes)
    }

    /// Decodes a file's bytes (see the module comment); refuses binary files and bytes that
    /// are not UTF-8 in code, naming the first one's line and column.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<SourceFile, LoadError> {
        if bytes.contains(&0) {
            return Err(LoadError {
                path: path.to_path_buf(),
                message: "looks like a binary file (contains NUL bytes); not CUDA source".into(),
            });
        }
        let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let decoded = decode(&bytes[bom..]);
        let changed = bom > 0 || decoded.changed;
        let text = String::from_utf8(decoded.text)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        let mut file = SourceFile::new(path, text);
        if let Some(at) = decoded.first_in_code {
            let (line, col) = file.line_col(at);
            return Err(LoadError {
                path: path.to_path_buf(),
                message: format!(
                    "is not valid UTF-8 at line {line}, column {col} (outside comments and string literals)"
                ),
            });
        }
        file.bom = bom;
        file.replaced = decoded.first_replaced.map(|at| (at, decoded.replaced));
        if changed {
            file.original = Some(bytes);
        }
        Ok(file)
    }

    /// The file's bytes as read.
    pub fn bytes(&self) -> &[u8] {
        self.original.as_deref().unwrap_or(self.text.as_bytes())
    }

    /// The file's bytes with `edits` (ranges of `text`, in any order, not overlapping)
    /// replaced: every other byte stays as it was read, BOM, line endings and all.
    pub fn spliced(&self, edits: &[(std::ops::Range<usize>, &str)]) -> Vec<u8> {
        let mut edits: Vec<_> = edits.iter().collect();
        edits.sort_by_key(|(r, _)| r.start);
        let bytes = self.bytes();
        let mut out = Vec::with_capacity(bytes.len() + 64);
        let mut at = 0;
        for (r, new) in edits {
            let (start, end) = (r.start + self.bom, r.end + self.bom);
            if start < at || end > bytes.len() {
                continue;
            }
            out.extend_from_slice(&bytes[at..start]);
            out.extend_from_slice(new.as_bytes());
            at = end;
        }
        out.extend_from_slice(&bytes[at..]);
        out
    }

    /// 1-based line and column of a byte offset. Columns count characters (a tab is one),
    /// as SARIF's `unicodeCodePoints`; O(log n) whatever the line's length.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_index(offset);
        let start = self.line_starts[line];
        (
            line + 1,
            offset - start - self.continuation_bytes(start, offset) + 1,
        )
    }

    /// Continuation bytes of multi-byte characters in `from..to`.
    fn continuation_bytes(&self, from: usize, to: usize) -> usize {
        let before = |at: usize| -> usize {
            // Continuation bytes of the characters that start before `at`, the last of
            // which may reach past it.
            let n = self.wide.partition_point(|&(p, _)| p < at);
            if n == 0 {
                return 0;
            }
            let (p, extra) = self.wide[n - 1];
            let len = self.text[p..].chars().next().map_or(1, char::len_utf8);
            extra - (p + len).saturating_sub(at).min(len - 1)
        };
        before(to) - before(from)
    }

    /// 0-based line index of a byte offset.
    pub fn line_index(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Byte range of a 0-based line, without its newline.
    pub fn line_span(&self, line: usize) -> std::ops::Range<usize> {
        let start = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |&n| n - 1);
        start..end.max(start)
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
}

/// Reads `path` whole, at most [`MAX_INPUT_BYTES`]: regular files, and pipes when named on
/// the command line; devices, sockets and directories are refused without being opened.
pub fn read_capped(path: &Path, reached: Reached) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| describe_io_error(&e))?;
    let kind = special_kind(&meta.file_type());
    match kind {
        None if meta.len() > MAX_INPUT_BYTES => return Err(too_large()),
        None => {}
        Some("a named pipe (FIFO)") if reached == Reached::Named => {}
        Some(kind) => return Err(format!("is {kind}, not a regular file")),
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    if kind.is_none() {
        // If the file is swapped for a FIFO after the check, opening must not block.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| describe_io_error(&e))?;
    if kind.is_none() {
        let now = file.metadata().map_err(|e| describe_io_error(&e))?;
        if let Some(kind) = special_kind(&now.file_type()) {
            return Err(format!("is {kind}, not a regular file"));
        }
    }
    read_limited(file)
}

/// Reads a stream to its end, refusing more than [`MAX_INPUT_BYTES`] (standard input).
pub fn read_limited(reader: impl Read) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

fn too_large() -> String {
    format!(
        "is larger than {} MiB, the most banklint reads from one input",
        MAX_INPUT_BYTES >> 20
    )
}

/// What a file that is not a regular file is, in words; `None` for a regular file.
fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a named pipe (FIFO)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

fn describe_io_error(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ if e.raw_os_error() == Some(21) => "is a directory".into(),
        _ => format!("cannot read: {e}"),
    }
}

/// The decoded text and what decoding changed.
struct Decoded {
    text: Vec<u8>,
    changed: bool,
    replaced: usize,
    first_replaced: Option<usize>,
    first_in_code: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Code,
    LineComment,
    BlockComment,
    /// A string or character literal closed by this quote.
    Quoted(u8),
    /// A raw string literal, closed by `)delim"`.
    Raw,
}

/// Replaces bytes that are not UTF-8 by `?` (recording whether any is in code) and lone CRs
/// by LF, byte for byte. The lexical scan knows just enough C to tell code from comments
/// and literals: `//`, `/* */`, quotes with escapes, raw strings and digit separators.
fn decode(b: &[u8]) -> Decoded {
    if std::str::from_utf8(b).is_ok() {
        // Nothing to replace, so no lexing: only lone CRs change.
        let mut text = b.to_vec();
        let mut changed = false;
        let mut at = 0;
        while let Some(p) = text[at..].iter().position(|&c| c == b'\r') {
            let i = at + p;
            if text.get(i + 1) != Some(&b'\n') {
                text[i] = b'\n';
                changed = true;
            }
            at = i + 1;
        }
        return Decoded {
            text,
            changed,
            replaced: 0,
            first_replaced: None,
            first_in_code: None,
        };
    }
    let mut out = Decoded {
        text: b.to_vec(),
        changed: false,
        replaced: 0,
        first_replaced: None,
        first_in_code: None,
    };
    let mut ctx = Context::Code;
    let mut raw_close: Vec<u8> = Vec::new();
    // Where the identifier or number that ends at `i` started (for prefixes and `1'000`).
    let mut word_start: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c >= 0x80 {
            // Non-ASCII letters may be part of identifiers (C++ allows them).
            if ctx == Context::Code {
                word_start.get_or_insert(i);
            }
            match utf8_len(b, i) {
                Ok(n) => i += n,
                Err(n) => {
                    for k in i..i + n {
                        out.text[k] = b'?';
                    }
                    out.changed = true;
                    if ctx == Context::Code {
                        out.first_in_code.get_or_insert(i);
                    } else {
                        out.replaced += n;
                        out.first_replaced.get_or_insert(i);
                    }
                    i += n;
                }
            }
            continue;
        }
        let newline = c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n'));
        if c == b'\r' && newline {
            out.text[i] = b'\n';
            out.changed = true;
        }
        let in_word = c.is_ascii_alphanumeric() || c == b'_';
        match ctx {
            Context::Code => {
                if c == b'/' && b.get(i + 1) == Some(&b'/') {
                    ctx = Context::LineComment;
                    i += 1;
                } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
                    ctx = Context::BlockComment;
                    i += 1;
                } else if c == b'"' {
                    let prefix = word_start.map_or(&b[i..i], |s| &b[s..i]);
                    if matches!(prefix, b"R" | b"u8R" | b"uR" | b"UR" | b"LR") {
                        let delim_end = b[i + 1..]
                            .iter()
                            .take(17)
                            .position(|&x| x == b'(')
                            .map(|p| i + 1 + p);
                        if let Some(open) = delim_end {
                            raw_close = [b")", &b[i + 1..open], b"\""].concat();
                            ctx = Context::Raw;
                            i = open;
                        } else {
                            ctx = Context::Quoted(b'"');
                        }
                    } else {
                        ctx = Context::Quoted(b'"');
                    }
                } else if c == b'\'' {
                    // A digit separator (`1'000'000`) follows a number.
                    let number = word_start.is_some_and(|s| b[s].is_ascii_digit());
                    if !number {
                        ctx = Context::Quoted(b'\'');
                    }
                }
            }
            Context::LineComment => {
                if newline && !continued(b, i) {
                    ctx = Context::Code;
                }
            }
            Context::BlockComment => {
                if c == b'*' && b.get(i + 1) == Some(&b'/') {
                    ctx = Context::Code;
                    i += 1;
                }
            }
            Context::Quoted(q) => {
                if c == b'\\' && b.get(i + 1).is_some_and(|&n| n < 0x80 && n != b'\r') {
                    i += 1;
                } else if c == q || newline {
                    ctx = Context::Code;
                }
            }
            Context::Raw => {
                if b[i..].starts_with(&raw_close) {
                    i += raw_close.len() - 1;
                    ctx = Context::Code;
                }
            }
        }
        word_start = if in_word && ctx == Context::Code {
            word_start.or(Some(i))
        } else {
            None
        };
        i += 1;
    }
    out
}

/// Whether the newline at `i` is escaped by a backslash (a line comment goes on).
fn continued(b: &[u8], i: usize) -> bool {
    let before = if i > 0 && b[i] == b'\n' && b[i - 1] == b'\r' {
        i - 1
    } else {
        i
    };
    before > 0 && b[before - 1] == b'\\'
}

/// The length of the UTF-8 character at `i`, or the number of bytes that are not one.
fn utf8_len(b: &[u8], i: usize) -> Result<usize, usize> {
    let end = (i + 4).min(b.len());
    match std::str::from_utf8(&b[i..end]) {
        Ok(s) => Ok(s.chars().next().map_or(1, char::len_utf8)),
        Err(e) if e.valid_up_to() > 0 => Ok(std::str::from_utf8(&b[i..i + e.valid_up_to()])
            .ok()
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8)),
        Err(e) => Err(e.error_len().unwrap_or(end - i).max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_is_one_based_and_counts_chars() {
        let f = SourceFile::new("a.cu", "ab\nçd\n".to_string());
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(5), (2, 2));
        assert_eq!(f.line_col(4), (2, 2), "inside a character: the next column");
        assert_eq!(f.line_span(1), 3..6);
    }

    #[test]
    fn columns_match_counting_characters() {
        let text = "é€x\n\t😀y€é\nzz\n";
        let f = SourceFile::new("a.cu", text.to_string());
        for (offset, _) in text.char_indices() {
            let line_start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
            let expect = text[line_start..offset].chars().count() + 1;
            assert_eq!(f.line_col(offset).1, expect, "offset {offset}");
        }
    }

    #[test]
    fn columns_on_a_long_line_do_not_count_from_its_start() {
        // 50,000 lookups on a 1.3 MB line with multi-byte characters: counting from the
        // line start each time took minutes.
        let line: String = (0..50_000).map(|_| "s[é] = 1; ").collect();
        let f = SourceFile::new("a.cu", format!("x\n{line}\n"));
        let start = std::time::Instant::now();
        let mut sum = 0;
        for i in 0..50_000 {
            let offset = 2 + i * "s[é] = 1; ".len();
            let (l, c) = f.line_col(offset);
            assert_eq!((l, c), (2, 1 + i * 10));
            sum += c;
        }
        assert!(sum > 0);
        assert!(start.elapsed().as_secs() < 2, "{:?}", start.elapsed());
    }

    #[test]
    fn rejects_binary_and_bad_utf8_in_code() {
        assert!(SourceFile::from_bytes(Path::new("x.cu"), vec![1, 0, 2]).is_err());
        let e = SourceFile::from_bytes(Path::new("x.cu"), b"ok\nint \xff;".to_vec()).unwrap_err();
        assert!(e.message.contains("line 2, column 5"), "{}", e.message);
    }

    #[test]
    fn bad_bytes_in_comments_and_literals_become_question_marks() {
        let src = b"// caf\xe9\nconst char *s = \"\xff\\\"\xfe\"; char c = '\xe9'; /* \xc3 */ int n = 1'000;\n";
        let f = SourceFile::from_bytes(Path::new("x.cu"), src.to_vec()).expect("decoded");
        assert_eq!(f.text.len(), src.len());
        assert_eq!(f.replaced, Some((6, 5)));
        assert!(f.text.contains("\"?\\\"?\""), "{}", f.text);
        assert_eq!(f.bytes(), src);
    }

    #[test]
    fn bom_is_skipped_and_lone_cr_ends_lines() {
        let f = SourceFile::from_bytes(Path::new("x.cu"), b"\xEF\xBB\xBFa\rb\r\nc".to_vec())
            .expect("decoded");
        assert_eq!(f.text, "a\nb\r\nc");
        assert_eq!(f.line_col(2), (2, 1));
        assert_eq!(f.spliced(&[(2..3, "B")]), b"\xEF\xBB\xBFa\rB\r\nc");
    }

    #[test]
    fn raw_strings_hold_any_bytes() {
        let src = b"auto s = R\"x(\xff)\" )x\"; int a;";
        let f = SourceFile::from_bytes(Path::new("x.cu"), src.to_vec()).expect("decoded");
        assert_eq!(f.replaced, Some((13, 1)));
    }
}
