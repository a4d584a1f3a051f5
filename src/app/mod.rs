//! The application around the pipeline: [`cli`] (its definition in [`args`]), [`config`] and the [`settings`] each file
//! is checked with, parallel ordered runs over
//! many files ([`runner`]), [`autofix`], coverage [`stats`], one emitter per output format ([`emit`]) and the
//! bank engine as a calculator ([`simulate`]); [`server`] is the language server.

pub mod archs;
pub mod args;
pub mod autofix;
pub mod cli;
pub mod config;
pub mod emit;
pub mod profile;
pub mod runner;
pub mod server;
pub mod settings;
pub mod simulate;
pub mod simulate_ops;
pub mod stats;
