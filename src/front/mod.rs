//! The front end: source files in, parsed C items out. [`source`] loads a file, [`cuda`]
//! preprocesses it and rewrites CUDA C++ into C that lang-c parses, [`parse`] parses each
//! top-level item on its own, and [`includes`] finds the files that include a file.
//! [`limits_scan`] defuses input too deep to parse, before anything recurses into it.

pub mod cuda;
pub mod includes;
pub mod limits_scan;
pub mod parse;
pub mod source;
