//! How sure banklint is that a padding fix is right to apply without a person looking,
//! decided once, when the fix is made: safe when it makes every access to the array
//! conflict-free, every access to the array was analyzed, every kernel still fits in shared
//! memory, banklint read the whole file, and nothing in the code assumes the row length (the
//! analysis says so in `ArrayEntry::padding_blocked`). Anything else stays a suggestion,
//! with why.

use crate::bank::arch::Arch;
use crate::lint::budget::{BudgetIndex, FixCost, KernelBudget};

/// How sure banklint is that a fix is right to apply without a person looking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applicability {
    /// Applied by `--fix`.
    Safe,
    /// Shown as `help:` only, with the reason.
    Suggestion(&'static str),
}

/// What the decision rests on besides the fix itself.
#[derive(Clone, Copy)]
pub struct FileFacts<'a> {
    /// Why not every access to the array may have been seen (code not parsed, or not
    /// followed); `None` when the whole file was read.
    pub unread: Option<&'static str>,
    pub budgets: &'a [KernelBudget],
    pub budget_index: &'a BudgetIndex,
    pub arch: Arch,
    /// The file's macros, to re-read a fix's text as written.
    pub macros: &'a crate::front::macros::MacroTable,
}

/// The applicability of a padding that leaves `ways_after`-way conflicts, costs `costs` in
/// the kernels that use the array, with `unchecked_accesses` accesses to it not analyzed.
pub fn decide(
    ways_after: u32,
    unchecked_accesses: usize,
    costs: &[FixCost],
    unread: Option<&'static str>,
) -> Applicability {
    if let Some(why) = unread {
        Applicability::Suggestion(why)
    } else if unchecked_accesses > 0 {
        Applicability::Suggestion("some accesses to the array could not be analyzed")
    } else if ways_after > 1 {
        Applicability::Suggestion("the padding reduces but does not remove the conflict")
    } else if costs.iter().any(|c| !c.fits()) {
        Applicability::Suggestion("the padded block would exceed the shared-memory limit")
    } else {
        Applicability::Safe
    }
}
