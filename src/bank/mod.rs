//! The bank model, pure functions of their inputs: [`arch`] (rules per architecture),
//! [`capacity`] (shared-memory limits), [`layout`] (index tuples to byte offsets, for any
//! padding) and [`engine`] (32 lane offsets to wavefronts).

pub mod arch;
pub mod capacity;
pub mod engine;
pub mod layout;
pub mod ops;
pub mod tma;
