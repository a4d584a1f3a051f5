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
pub mod shift_overflow;
mod skipped_code;
mod source_encoding;
pub mod tma_swizzle;
mod unanalyzed_access;
pub mod unreached_array;
mod unused_allow;

pub use bank_conflict::BankConflict;
pub use block_shape::BlockShape;
pub use expectation_failed::ExpectationFailed;
pub use include_not_found::IncludeNotFound;
pub use invalid_annotation::InvalidAnnotation;
pub use shared_capacity::SharedCapacity;
pub use shift_overflow::ShiftOverflow;
pub use skipped_code::SkippedCode;
pub use source_encoding::SourceEncoding;
pub use tma_swizzle::TmaSwizzle;
pub use unanalyzed_access::UnanalyzedAccess;
pub use unreached_array::UnreachedArray;
pub use unused_allow::UnusedAllow;

/// One reportable finding, independent of the output format.
#[derive(Clone, Debug)]
pub struct Finding {
    pub code: Rule,
    pub severity: codespan_reporting::diagnostic::Severity,
    pub span: std::ops::Range<usize>,
    pub message: String,
    pub label: String,
    /// Secondary label: span and text.
    pub secondary: Option<(std::ops::Range<usize>, String)>,
    pub notes: Vec<String>,
    pub conflict_ways: Option<u32>,
    pub fix: Option<crate::lint::fix::PaddingFix>,
}

/// The rules, one per diagnostic code: the one registry every stage names them by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    BankConflict,
    SharedCapacity,
    UnanalyzedAccess,
    UnreachedArray,
    SkippedCode,
    BlockShape,
    IncludeNotFound,
    ExpectationFailed,
    UnusedAllow,
    InvalidAnnotation,
    SourceEncoding,
    ShiftOverflow,
    TmaSwizzle,
}

impl Rule {
    /// Every rule, in the order `banklint explain` lists them.
    pub const ALL: [Rule; 13] = [
        Rule::BankConflict,
        Rule::SharedCapacity,
        Rule::UnanalyzedAccess,
        Rule::UnreachedArray,
        Rule::SkippedCode,
        Rule::BlockShape,
        Rule::IncludeNotFound,
        Rule::ExpectationFailed,
        Rule::UnusedAllow,
        Rule::InvalidAnnotation,
        Rule::SourceEncoding,
        Rule::ShiftOverflow,
        Rule::TmaSwizzle,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Rule::BankConflict => BankConflict::CODE,
            Rule::SharedCapacity => SharedCapacity::CODE,
            Rule::UnanalyzedAccess => UnanalyzedAccess::CODE,
            Rule::UnreachedArray => UnreachedArray::CODE,
            Rule::SkippedCode => SkippedCode::CODE,
            Rule::BlockShape => BlockShape::CODE,
            Rule::IncludeNotFound => IncludeNotFound::CODE,
            Rule::ExpectationFailed => ExpectationFailed::CODE,
            Rule::UnusedAllow => UnusedAllow::CODE,
            Rule::InvalidAnnotation => InvalidAnnotation::CODE,
            Rule::SourceEncoding => SourceEncoding::CODE,
            Rule::ShiftOverflow => ShiftOverflow::CODE,
            Rule::TmaSwizzle => TmaSwizzle::CODE,
        }
    }

    /// The rule's documentation: what `banklint explain CODE` prints.
    pub fn explanation(self) -> &'static str {
        match self {
            Rule::BankConflict => BankConflict::EXPLANATION,
            Rule::SharedCapacity => SharedCapacity::EXPLANATION,
            Rule::UnanalyzedAccess => UnanalyzedAccess::EXPLANATION,
            Rule::UnreachedArray => UnreachedArray::EXPLANATION,
            Rule::SkippedCode => SkippedCode::EXPLANATION,
            Rule::BlockShape => BlockShape::EXPLANATION,
            Rule::IncludeNotFound => IncludeNotFound::EXPLANATION,
            Rule::ExpectationFailed => ExpectationFailed::EXPLANATION,
            Rule::UnusedAllow => UnusedAllow::EXPLANATION,
            Rule::InvalidAnnotation => InvalidAnnotation::EXPLANATION,
            Rule::SourceEncoding => SourceEncoding::EXPLANATION,
            Rule::ShiftOverflow => ShiftOverflow::EXPLANATION,
            Rule::TmaSwizzle => TmaSwizzle::EXPLANATION,
        }
    }

    /// The page `banklint explain CODE` prints (and the language server links): the code as
    /// a title, then the explanation.
    pub fn documentation(self) -> String {
        format!(
            "# {}\n{}\n",
            self.code(),
            self.explanation().replace("\n ", "\n")
        )
    }

    pub fn from_code(code: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.code() == code)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}
