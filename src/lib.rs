//! banklint: finds shared-memory bank conflicts in CUDA source before the code runs.
//!
//! Pipeline, one module per stage: [`source`] loads files, [`cuda_frontend`] makes CUDA text
//! parseable by lang-c without moving byte offsets, [`extraction`] finds `__shared__` arrays,
//! kernels and launch sites, [`index_analysis`] derives each lane's byte offset,
//! [`bank_engine`] turns offsets into wavefronts, [`fix_suggestion`] finds the padding, and
//! [`diagnostics`] prints the report.

pub mod annotations;
pub mod arch;
pub mod autofix;
pub mod bank_engine;
pub mod capacity;
pub mod check;
pub mod cli;
pub mod config;
pub mod cuda_frontend;
pub mod diagnostics;
pub mod extraction;
pub mod findings;
pub mod fix_suggestion;
pub mod include_context;
pub mod index_analysis;
pub mod launch_config;
pub mod layout;
pub mod parse;
pub mod rules;
pub mod runner;
pub mod sarif;
pub mod shared_budget;
pub mod simulate;
pub mod source;
pub mod stats;
pub mod types;
pub mod value;
