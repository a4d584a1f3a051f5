//! banklint: finds shared-memory bank conflicts in CUDA source before the code runs.
//!
//! Folders follow the pipeline, in the order data flows:
//! - [`front`]: loading, preprocessing, lowering CUDA C++ to C, parsing, includes;
//! - [`host`]: what host code says about each kernel (launch shapes, arguments);
//! - [`analysis`]: the file's model (types, constants, `__shared__` arrays, functions) and the
//!   per-thread abstract execution that gives each lane's byte offset;
//! - [`bank`]: the bank model: architectures, capacities, layouts and the wavefront engine;
//! - [`lint`]: findings, fixes, suppressions, rules and the diagnostics built from them;
//! - [`app`]: the command line, configuration, runs over many files, emitters, autofix.
//!
//! [`check`] ties the stages together for one file; [`limits`] holds every bound on the work;
//! [`arith`] is C's integer arithmetic, shared by host and device evaluation.

pub mod analysis;
pub mod app;
pub mod arith;
pub mod bank;
pub mod check;
pub mod front;
pub mod host;
pub mod limits;
pub mod lint;
