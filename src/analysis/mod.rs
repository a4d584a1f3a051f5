//! The analysis: [`extraction`] builds the file's model from lang-c's AST ([`types`] for
//! layouts), and [`interp`] executes each kernel over lane vectors ([`lanes`] of [`value`]s) to give each
//! lane's index at every `__shared__` access, under a [`shape`] (block, arguments); [`ptx`] reads
//! inline PTX templates for their shared-memory instructions; [`cute`] models CuTe's layouts and
//! tiled copies; [`value_functions`] names CUDA's functions that take only values.

pub mod atomics;
pub mod class_templates;
pub mod cuda_ptx;
pub mod cute;
pub mod extraction;
pub mod field_extents;
pub mod interp;
pub mod intrinsics;
pub mod lanes;
pub mod ptx;
pub mod shape;
pub mod types;
pub mod value;
pub mod value_functions;
