//! What the pipeline found in one file, as the lint stage and the emitters read it.

use crate::analysis::interp::ArrayEntry;
use crate::bank::arch::Arch;
use crate::front::cuda::Skipped;
use crate::front::includes::Includer;
use crate::front::source::SourceFile;
use crate::host::launches::UnresolvedLaunch;
use crate::lint::budget::KernelBudget;
use crate::lint::findings::AccessFinding;
use crate::lint::fix::PaddingFix;

/// How much of a file the parser read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseStats {
    pub items: usize,
    pub partly_parsed: usize,
    pub unparsed: usize,
}

pub struct FileReport {
    pub file: SourceFile,
    pub arrays: Vec<ArrayEntry>,
    pub findings: Vec<AccessFinding>,
    pub fixes: Vec<PaddingFix>,
    /// Swizzles for arrays no padding serves (in array order).
    pub swizzles: Vec<crate::lint::swizzle::Swizzle>,
    pub skipped: Vec<Skipped>,
    pub unresolved_launches: Vec<UnresolvedLaunch>,
    pub parse_stats: ParseStats,
    pub budgets: Vec<KernelBudget>,
    /// Local includes that were not found, with the directive's span.
    pub missing_includes: Vec<(String, std::ops::Range<usize>)>,
    /// Headers that exist but were not read (special files, the header limit), with why.
    pub include_problems: Vec<crate::front::includes::IncludeProblem>,
    pub annotations: Vec<crate::lint::annotations::Annotation>,
    /// Malformed `banklint:` comments: span and message.
    pub annotation_errors: Vec<(std::ops::Range<usize>, String)>,
    /// Kernels and device functions: name, span of the definition, kernel or not.
    pub functions: Vec<(String, std::ops::Range<usize>, bool)>,
    /// The file that includes this one, whose definitions before its `#include` were in force.
    pub context: Option<Includer>,
    /// Byte ranges conditional compilation leaves out.
    pub inactive: Vec<std::ops::Range<usize>>,
    /// Shifts whose count reaches the operand's width, once each (the largest count seen).
    pub shift_overflows: Vec<crate::analysis::interp::shifts::ShiftOverflow>,
    /// Accesses that address a TMA tile under another layout than its copy's, and copies whose
    /// layout is not known.
    pub tma: Vec<crate::lint::tma::TmaFinding>,
    /// Tensor-map swizzles that make a TMA tile's accesses conflict-free (padding cannot).
    pub tma_fixes: Vec<crate::lint::tma::TmaFix>,
}

impl FileReport {
    pub fn conflicts(&self) -> impl Iterator<Item = &AccessFinding> {
        self.findings.iter().filter(|f| f.is_conflict())
    }

    /// Kernels over the static shared-memory limit of `arch`.
    pub fn over_capacity(&self, arch: Arch) -> impl Iterator<Item = &KernelBudget> {
        self.budgets.iter().filter(move |b| b.over_limit(arch))
    }

    /// The swizzle suggested for the array an access reaches (through its byte view too).
    pub fn swizzle_for(&self, array: usize) -> Option<&crate::lint::swizzle::Swizzle> {
        let array = crate::analysis::interp::viewed_array(&self.arrays, array);
        self.swizzles.iter().find(|s| s.array == array)
    }

    pub fn fix_for(&self, array: usize) -> Option<&PaddingFix> {
        // An access through a cast or a PTX address is to the array its byte view views.
        let array = crate::analysis::interp::viewed_array(&self.arrays, array);
        // Fixes are made in array order (see `lint::fix::suggest`).
        let i = self.fixes.partition_point(|f| f.array < array);
        self.fixes.get(i).filter(|f| f.array == array)
    }
}
