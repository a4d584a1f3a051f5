//! The bank model, pure functions of their inputs: [`arch`] (rules per architecture),
//! [`capacity`] (shared-memory limits), [`layout`] (index tuples to byte offsets, for any
//! padding) and [`engine`] (32 lane offsets to wavefronts: [`access`] says what goes in and
//! out, [`plain`] holds the rules of loads and stores, [`ops`] those of other operations).

pub mod access;
pub mod arch;
pub mod capacity;
pub mod engine;
pub mod layout;
pub mod ops;
pub mod plain;
pub mod tma;
