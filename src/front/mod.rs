//! The front end: source files in, parsed C items out. [`source`] loads a file, [`cuda`]
//! preprocesses it and rewrites CUDA C++ into C that lang-c parses, [`parse`] parses each
//! top-level item on its own, and [`includes`] finds the files that include a file.

pub mod cuda;
pub mod includes;
pub mod parse;
pub mod source;
