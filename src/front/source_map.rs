//! The source map from preprocessed text to the file as written.
//!
//! Preprocessing replaces each macro invocation by its expansion, so the text the later
//! stages read ("expanded text") differs from the file. Every byte of the expanded text is
//! either copied from the file (a token written there, or the space between tokens) or part of
//! an expansion; the map says which, so any span found in the expanded text can be reported at
//! the text the user wrote: a copied span at its exact place, a span inside an expansion at
//! the whole invocation (`FLOAT4(s[i])`), as compilers report macro expansions.

use std::ops::Range;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Origin {
    /// Copied: expanded offset `e` is file offset `source + (e - start)`.
    Copied { source: usize },
    /// Part of the expansion of the invocation written at this file range.
    Expanded { invocation: Range<usize> },
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Segment {
    /// Start in the expanded text; a segment ends where the next one starts.
    start: usize,
    origin: Origin,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    segments: Vec<Segment>,
    /// Length of the expanded text.
    len: usize,
    /// Length of the file.
    source_len: usize,
}

impl SourceMap {
    /// The map of a text that is its own source.
    pub fn identity(len: usize) -> SourceMap {
        let mut m = SourceMap::default();
        m.push_copied(0, len);
        m.finish(len);
        m
    }

    /// Appends `len` bytes copied from file offset `source`.
    pub fn push_copied(&mut self, source: usize, len: usize) {
        if len == 0 {
            return;
        }
        if let Some(last) = self.segments.last()
            && let Origin::Copied { source: s } = last.origin
            && s + (self.len - last.start) == source
        {
            self.len += len;
            return;
        }
        self.segments.push(Segment {
            start: self.len,
            origin: Origin::Copied { source },
        });
        self.len += len;
    }

    /// Appends `len` bytes produced by the invocation written at `invocation`.
    pub fn push_expanded(&mut self, invocation: Range<usize>, len: usize) {
        if len == 0 {
            return;
        }
        if let Some(last) = self.segments.last()
            && last.origin
                == (Origin::Expanded {
                    invocation: invocation.clone(),
                })
        {
            self.len += len;
            return;
        }
        self.segments.push(Segment {
            start: self.len,
            origin: Origin::Expanded { invocation },
        });
        self.len += len;
    }

    /// Records the file's length once every byte is pushed.
    pub fn finish(&mut self, source_len: usize) {
        self.source_len = source_len;
    }

    pub fn expanded_len(&self) -> usize {
        self.len
    }

    fn segment_at(&self, e: usize) -> Option<&Segment> {
        let i = self.segments.partition_point(|s| s.start <= e);
        self.segments.get(i.checked_sub(1)?)
    }

    /// The file offset where a span starting at expanded offset `e` starts.
    pub fn start(&self, e: usize) -> usize {
        if e >= self.len {
            return self.source_len;
        }
        match self.segment_at(e) {
            Some(Segment {
                start,
                origin: Origin::Copied { source },
            }) => source + (e - start),
            Some(Segment {
                origin: Origin::Expanded { invocation },
                ..
            }) => invocation.start,
            None => 0,
        }
    }

    /// The file offset where a span ending at expanded offset `e` (exclusive) ends.
    pub fn end(&self, e: usize) -> usize {
        if e == 0 {
            return self.start(0);
        }
        match self.segment_at(e - 1) {
            Some(Segment {
                start,
                origin: Origin::Copied { source },
            }) => source + (e - start),
            Some(Segment {
                origin: Origin::Expanded { invocation },
                ..
            }) => invocation.end,
            None => 0,
        }
    }

    /// The expanded offset of file offset `f`, when that byte was copied (outside every
    /// macro invocation): directives, which are blanked but copied, always are.
    pub fn to_expanded(&self, f: usize) -> Option<usize> {
        let copied_len = |i: usize| {
            self.segments
                .get(i + 1)
                .map_or(self.len, |n| n.start)
                .saturating_sub(self.segments[i].start)
        };
        // Copied segments are in file order, so the last one starting at or before `f`
        // is the only one that can hold it.
        let i = self
            .segments
            .iter()
            .rposition(|s| matches!(s.origin, Origin::Copied { source } if source <= f))?;
        match self.segments[i].origin {
            Origin::Copied { source } if f - source < copied_len(i) => {
                Some(self.segments[i].start + (f - source))
            }
            _ => None,
        }
    }

    /// The file range an expanded range stands for.
    pub fn span(&self, r: Range<usize>) -> Range<usize> {
        let start = self.start(r.start);
        let end = if r.end > r.start {
            self.end(r.end)
        } else {
            start
        };
        start..end.max(start)
    }

    /// Whether the expanded range is copied from the file byte for byte (no macro involved),
    /// so that editing the file there edits exactly that text.
    pub fn is_verbatim(&self, r: Range<usize>) -> bool {
        if r.is_empty() {
            return true;
        }
        let (Some(first), Some(last)) = (self.segment_at(r.start), self.segment_at(r.end - 1))
        else {
            return false;
        };
        first == last && matches!(first.origin, Origin::Copied { .. })
    }

    /// The invocations (file ranges) that produced text inside the expanded range.
    pub fn invocations_in(&self, r: Range<usize>) -> Vec<Range<usize>> {
        let from = self.segments.partition_point(|s| s.start <= r.start);
        let mut out: Vec<Range<usize>> = Vec::new();
        for s in &self.segments[from.saturating_sub(1)..] {
            if s.start >= r.end {
                break;
            }
            if let Origin::Expanded { invocation } = &s.origin
                && !out.contains(invocation)
            {
                out.push(invocation.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `s[N] = 1;` with `N` expanded to `32`: `s[32] = 1;`.
    fn example() -> SourceMap {
        let mut m = SourceMap::default();
        m.push_copied(0, 2); // `s[`
        m.push_expanded(2..3, 2); // `32` from `N`
        m.push_copied(3, 6); // `] = 1;`
        m.finish(9);
        m
    }

    #[test]
    fn copied_file_offsets_map_back_to_the_expanded_text() {
        let m = example();
        for e in 0..m.expanded_len() {
            if m.is_verbatim(e..e + 1) {
                assert_eq!(m.to_expanded(m.start(e)), Some(e), "expanded offset {e}");
            }
        }
        // Inside an invocation there is no one expanded offset.
        let inside = (0..m.expanded_len())
            .find(|&e| !m.is_verbatim(e..e + 1))
            .expect("an expansion");
        assert_eq!(m.to_expanded(m.start(inside)), None);
    }

    #[test]
    fn copied_text_maps_exactly_and_expansions_to_their_invocation() {
        let m = example();
        assert_eq!(m.expanded_len(), 10);
        assert_eq!(m.span(0..1), 0..1, "`s`");
        assert_eq!(m.span(2..4), 2..3, "`32` is `N`");
        assert_eq!(m.span(0..5), 0..4, "`s[32]` is `s[N]`");
        assert_eq!(
            m.span(3..4),
            2..3,
            "inside the expansion: the whole invocation"
        );
        assert_eq!(m.start(10), 9);
        assert!(m.is_verbatim(4..10));
        assert!(!m.is_verbatim(2..4));
        assert!(!m.is_verbatim(0..5));
        assert_eq!(m.invocations_in(0..10), vec![2..3]);
    }

    #[test]
    fn adjacent_copies_merge() {
        let mut m = SourceMap::default();
        m.push_copied(0, 3);
        m.push_copied(3, 4);
        m.finish(7);
        assert_eq!(m, SourceMap::identity(7));
    }
}
