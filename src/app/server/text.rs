//! Text coordinates for the language server: byte offsets (what the pipeline reports) to
//! and from LSP positions (line, character in UTF-16 code units, or bytes when the client
//! offers UTF-8), edits of an open buffer, and `file://` URIs to and from paths.

use lsp_types::{Position, Range, Uri};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// How the client counts characters in a line: UTF-16 code units (the LSP default) or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf16,
    Utf8,
}

/// Line starts of one text, for converting offsets and positions.
pub struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
    encoding: Encoding,
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str, encoding: Encoding) -> LineIndex<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            text,
            starts,
            encoding,
        }
    }

    /// The position of a byte offset (clamped to the text, moved back to a char boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let before = &self.text[self.starts[line]..offset];
        let character = match self.encoding {
            Encoding::Utf8 => before.len(),
            Encoding::Utf16 => before.chars().map(char::len_utf16).sum(),
        };
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, span: &std::ops::Range<usize>) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of a position; a character past the line's end is its end, a line past
    /// the text's end is the text's end, as the protocol asks.
    pub fn offset(&self, position: Position) -> usize {
        if position.line as usize >= self.starts.len() {
            return self.text.len();
        }
        let span = self.line_span(position.line as usize);
        let (start, end) = (span.start, span.end);
        let line = &self.text[start..end];
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            if units >= position.character as usize {
                return start + i;
            }
            units += match self.encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
        }
        end
    }

    /// The byte range of a 0-based line, without its line break.
    pub fn line_span(&self, line: usize) -> std::ops::Range<usize> {
        let start = self.starts.get(line).copied().unwrap_or(self.text.len());
        let mut end = self
            .starts
            .get(line + 1)
            .map_or(self.text.len(), |&next| next - 1);
        if end > start && self.text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        start..end.max(start)
    }

    pub fn line_of(&self, offset: usize) -> usize {
        self.position(offset).line as usize
    }
}

/// Applies one content change of `textDocument/didChange`: a range and its new text, or the
/// whole text.
pub fn apply_change(text: &mut String, range: Option<Range>, new_text: &str, encoding: Encoding) {
    match range {
        None => *text = new_text.to_string(),
        Some(range) => {
            let index = LineIndex::new(text, encoding);
            let start = index.offset(range.start);
            let end = index.offset(range.end).max(start);
            text.replace_range(start..end, new_text);
        }
    }
}

/// The path of a `file://` URI; `None` for other schemes.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///a/b` (empty authority) or `file://localhost/a/b`.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(k) if rest[..k].eq_ignore_ascii_case("localhost") => &rest[k..],
        _ => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let decoded = percent_decode(path)?;
    // `/C:/x` on Windows is `C:/x`.
    let bytes = decoded.as_bytes();
    if cfg!(windows) && bytes.len() >= 3 && bytes[0] == b'/' && bytes[2] == b':' {
        return Some(PathBuf::from(&decoded[1..]));
    }
    Some(PathBuf::from(decoded))
}

/// The `file://` URI of an absolute path.
pub fn path_to_uri(path: &Path) -> Option<Uri> {
    let text = path.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&out).ok()
}

fn percent_decode(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_or_bytes() {
        // `é` is 2 bytes and 1 UTF-16 unit; `𝄞` is 4 bytes and 2 units.
        let text = "ab\né𝄞x\r\nlast";
        let utf16 = LineIndex::new(text, Encoding::Utf16);
        assert_eq!(utf16.position(0), Position::new(0, 0));
        assert_eq!(utf16.position(3), Position::new(1, 0));
        let x = text.find('x').unwrap();
        assert_eq!(utf16.position(x), Position::new(1, 3));
        assert_eq!(utf16.offset(Position::new(1, 3)), x);
        assert_eq!(
            utf16.offset(Position::new(1, 99)),
            text.find('\n').unwrap() + 8
        );
        assert_eq!(utf16.offset(Position::new(9, 0)), text.len());
        assert_eq!(&text[utf16.line_span(1)], "é𝄞x");
        let utf8 = LineIndex::new(text, Encoding::Utf8);
        assert_eq!(utf8.position(x), Position::new(1, 6));
        assert_eq!(utf8.offset(Position::new(1, 6)), x);
    }

    #[test]
    fn changes_apply_by_range_or_whole() {
        let mut text = "float t[32][32];\n".to_string();
        let range = Range::new(Position::new(0, 12), Position::new(0, 14));
        apply_change(&mut text, Some(range), "32 + 1", Encoding::Utf16);
        assert_eq!(text, "float t[32][32 + 1];\n");
        apply_change(&mut text, None, "int x;", Encoding::Utf16);
        assert_eq!(text, "int x;");
    }

    #[test]
    fn file_uris_round_trip() {
        let path = Path::new("/tmp/my kernels/ü.cu");
        let uri = path_to_uri(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/my%20kernels/%C3%BC.cu");
        assert_eq!(uri_to_path(&uri).unwrap(), path);
        let other = Uri::from_str("untitled:Untitled-1").unwrap();
        assert_eq!(uri_to_path(&other), None);
    }
}
