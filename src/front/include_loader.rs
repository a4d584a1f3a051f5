//! How the front end asks for a header: the request (the name as written, angled or quoted,
//! and who includes it) and the loader that answers with a path and a text, whose state a
//! cached header's check can rewind.

/// An `#include` to resolve: the name as written, whether in angle brackets, and the path of
/// the header that writes it (`None`: the file being prepared).
#[derive(Clone, Copy, Debug)]
pub struct HeaderRequest<'r> {
    pub name: &'r str,
    pub angled: bool,
    pub from: Option<&'r str>,
}

impl HeaderRequest<'_> {
    pub fn to_owned(&self) -> OwnedHeaderRequest {
        OwnedHeaderRequest {
            name: self.name.to_string(),
            angled: self.angled,
            from: self.from.map(str::to_string),
        }
    }
}

/// A [`HeaderRequest`] kept to be made again (see `header_cache`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedHeaderRequest {
    pub name: String,
    pub angled: bool,
    pub from: Option<String>,
}

impl OwnedHeaderRequest {
    pub fn as_request(&self) -> HeaderRequest<'_> {
        HeaderRequest {
            name: &self.name,
            angled: self.angled,
            from: self.from.as_deref(),
        }
    }
}

/// Where a loader's state stood ([`IncludeLoader::mark`]), to go back to it.
#[derive(Clone, Debug, Default)]
pub struct LoaderMark(pub Vec<usize>);

/// Finds headers: each one's path and text. A loader may keep state (headers read so far,
/// `#pragma once`); `mark` and `rewind` undo loads made to check a cached header that then
/// did not match.
pub trait IncludeLoader {
    fn load(&mut self, request: &HeaderRequest) -> Option<(String, String)>;
    fn mark(&self) -> LoaderMark {
        LoaderMark::default()
    }
    fn rewind(&mut self, _to: LoaderMark) {}
}

impl<F: FnMut(&HeaderRequest) -> Option<(String, String)>> IncludeLoader for F {
    fn load(&mut self, request: &HeaderRequest) -> Option<(String, String)> {
        self(request)
    }
}
