//! Emitters: one module per output format, each turning a file's report and its diagnostics
//! into text. `--format sarif` is [`sarif`]; [`stream`] writes the JSON documents as files
//! are analyzed.

pub mod github;
pub mod human;
pub mod json;
pub mod sarif;
pub mod short;
pub mod stream;
