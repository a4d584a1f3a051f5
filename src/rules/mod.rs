//! Diagnostic codes. Each lives in its own file as a unit struct whose doc comment ("What it
//! does / Why is this bad / Example") is both its rustdoc and the text `banklint explain` prints.

/// Declares a rule: its doc comment becomes `EXPLANATION`.
macro_rules! rule {
    ($(#[doc = $doc:literal])* $name:ident, $code:literal) => {
        $(#[doc = $doc])*
        pub struct $name;
        impl $name {
            pub const CODE: &'static str = $code;
            pub const EXPLANATION: &'static str = concat!($($doc, "\n"),*);
        }
    };
}

mod bank_conflict;
mod block_shape;
mod expectation_failed;
mod include_not_found;
mod invalid_annotation;
mod shared_capacity;
mod skipped_code;
mod unanalyzed_access;
mod unused_allow;

pub use bank_conflict::BankConflict;
pub use block_shape::BlockShape;
pub use expectation_failed::ExpectationFailed;
pub use include_not_found::IncludeNotFound;
pub use invalid_annotation::InvalidAnnotation;
pub use shared_capacity::SharedCapacity;
pub use skipped_code::SkippedCode;
pub use unanalyzed_access::UnanalyzedAccess;
pub use unused_allow::UnusedAllow;

/// Every code with its explanation, in the order `explain --list` shows them.
pub const ALL: &[(&str, &str)] = &[
    (BankConflict::CODE, BankConflict::EXPLANATION),
    (SharedCapacity::CODE, SharedCapacity::EXPLANATION),
    (UnanalyzedAccess::CODE, UnanalyzedAccess::EXPLANATION),
    (SkippedCode::CODE, SkippedCode::EXPLANATION),
    (BlockShape::CODE, BlockShape::EXPLANATION),
    (IncludeNotFound::CODE, IncludeNotFound::EXPLANATION),
    (ExpectationFailed::CODE, ExpectationFailed::EXPLANATION),
    (UnusedAllow::CODE, UnusedAllow::EXPLANATION),
    (InvalidAnnotation::CODE, InvalidAnnotation::EXPLANATION),
];

pub fn explanation(code: &str) -> Option<&'static str> {
    ALL.iter().find(|(c, _)| *c == code).map(|(_, e)| *e)
}
