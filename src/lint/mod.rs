//! Lint: [`findings`] from analyzed accesses, padding [`fix`]es, the shared-memory
//! [`budget`] of each kernel, the [`op_notes`] of atomics, `banklint:` [`annotations`], the [`rules`] (one file per
//! diagnostic code) and the [`diagnostics`] built from all of them.

pub mod annotations;
pub mod applicability;
pub mod budget;
pub mod diagnostics;
pub mod findings;
pub mod fix;
pub mod op_notes;
pub mod report;
pub mod rules;
pub mod swizzle;
pub mod tma;
