//! Source loading: reads a file (or stdin) into text, refusing binary and non-UTF-8 input
//! with a message that names the file, and maps byte offsets to 1-based lines and columns.

use std::fmt;
use std::path::{Path, PathBuf};

/// One CUDA source file as read from disk.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as the user named it (used in every report).
    pub path: PathBuf,
    pub text: String,
    line_starts: Vec<usize>,
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

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, text: String) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// Reads and validates a file from disk.
    pub fn load(path: &Path) -> Result<SourceFile, LoadError> {
        let bytes = std::fs::read(path).map_err(|e| LoadError {
            path: path.to_path_buf(),
            message: describe_io_error(&e),
        })?;
        SourceFile::from_bytes(path, bytes)
    }

    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<SourceFile, LoadError> {
        if bytes.contains(&0) {
            return Err(LoadError {
                path: path.to_path_buf(),
                message: "looks like a binary file (contains NUL bytes); not CUDA source".into(),
            });
        }
        match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(path, text)),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let probe = SourceFile::new(
                    path,
                    String::from_utf8_lossy(&e.into_bytes()[..at]).into_owned(),
                );
                let (line, col) = probe.line_col(at);
                Err(LoadError {
                    path: path.to_path_buf(),
                    message: format!(
                        "is not valid UTF-8 (first bad byte at line {line}, column {col})"
                    ),
                })
            }
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// 0-based line index of a byte offset.
    pub fn line_index(&self, offset: usize) -> usize {
        self.line_col(offset).0 - 1
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

fn describe_io_error(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ if e.raw_os_error() == Some(21) => "is a directory".into(),
        _ => format!("cannot read: {e}"),
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
        assert_eq!(f.line_span(1), 3..6);
    }

    #[test]
    fn rejects_binary_and_bad_utf8() {
        assert!(SourceFile::from_bytes(Path::new("x.cu"), vec![1, 0, 2]).is_err());
        let e = SourceFile::from_bytes(Path::new("x.cu"), b"ok\n\xff".to_vec()).unwrap_err();
        assert!(e.message.contains("line 2"), "{}", e.message);
    }
}
