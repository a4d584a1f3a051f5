rule! {
    /// ## What it does
    /// Checks the accesses to a tile that a TMA copy (`cp.async.bulk.tensor`) fills or drains
    /// against the layout the copy gives it. The copy's tensor map sets a swizzle mode
    /// (`CU_TENSOR_MAP_SWIZZLE_NONE`, `_32B`, `_64B`, `_128B`, given to
    /// `cuTensorMapEncodeTiled` in host code): with a swizzle, the 16-byte chunk `c` of row
    /// `r` of the box is stored at chunk `c ^ (r % 8)` (128-byte swizzle, 128-byte rows; the
    /// other modes use fewer bits), following the shared-memory address itself. banklint reads
    /// the mode where the launch passes a map made in the same file, and warns where:
    /// - an `ldmatrix`/`stmatrix` gives row addresses that name one column of the tile under
    ///   another mode than the copy's, not under the copy's own;
    /// - any other access conflicts as written but would not through the copy's swizzle.
    ///
    /// A copy whose mode banklint cannot read gets a note saying why, and its tile's accesses
    /// are not checked against any layout.
    ///
    /// ## Why is this bad?
    /// The swizzle exists so that reading a column of 16-byte chunks (what `ldmatrix` and the
    /// MMA fragments do) touches 8 different bank groups. An access that ignores it reads
    /// other elements than the ones it names, and conflicts 8-way where the swizzle would have
    /// made it clean; one that applies a swizzle the copy did not use is wrong the same way.
    /// The cost was measured on an H100 at source level: `ldmatrix.x4` on a 128-byte-row tile,
    /// 32 wavefronts addressed plainly against 4 through the swizzle. The copy itself costs no
    /// bank wavefronts: the copy engine writes the tile, not the lanes.
    ///
    /// Padding cannot fix a conflict on such a tile: the copy writes the box densely. The
    /// `bank-conflict` warning on it suggests the tensor map's swizzle instead, checked on
    /// every access.
    ///
    /// ## Example
    /// ```cuda
    /// // host: cuTensorMapEncodeTiled(&map, ..., CU_TENSOR_MAP_SWIZZLE_128B, ...);
    /// __shared__ __align__(1024) half tile[64][64];
    /// // ... cp.async.bulk.tensor.2d into tile ...
    /// ldmatrix_x4(&tile[lane % 16][(lane / 16) * 8]);   // ignores the swizzle: 8-way
    /// ```
    ///
    /// Use instead:
    /// ```cuda
    /// int r = lane % 16, c = (lane / 16) * 8;
    /// ldmatrix_x4(&tile[r][c ^ ((r & 7) * 8)]);          // through it: conflict-free
    /// ```
    TmaSwizzle, "tma-swizzle"
}

use crate::lint::rules::Finding;
use crate::lint::tma::{TmaFinding, TmaIssue};
use codespan_reporting::diagnostic::Severity;

/// The diagnostic for one TMA finding; `name` is the tile's array, `copy_line` the copy's line.
pub fn finding(t: &TmaFinding, name: &str, copy_line: usize) -> Finding {
    let map = t
        .copy
        .map
        .as_ref()
        .map_or("its tensor map".to_string(), |m| {
            format!("tensor map `{m}`")
        });
    match &t.issue {
        TmaIssue::Mismatch { actual, read_as } => {
            let made = t
                .copy
                .map_line
                .map_or(String::new(), |l| format!(" made at line {l}"));
            let mut notes = vec![format!(
                "the copy at line {copy_line} lays `{name}` out with {} ({}, {map}{made}); this access names its elements as if it were laid out with {}",
                actual.describe(),
                actual.enumerator(),
                read_as.describe()
            )];
            if *actual != crate::bank::tma::TmaSwizzle::None {
                notes.push(format!(
                    "with {}, chunk `c` (16 bytes) of the row at address `a` is stored at chunk `c ^ ((a >> 7) & {})`",
                    actual.describe(),
                    actual.span() / 16 - 1
                ));
                if !t.aligned {
                    notes.push(format!(
                        "the swizzle follows the address: banklint assumes `{name}` starts at a multiple of {} bytes (declare it `__align__({})`)",
                        actual.repeat(),
                        actual.repeat()
                    ));
                }
            }
            notes.push(format!(
                "help: address `{name}` with the copy's layout, or give the tensor map `{}`",
                read_as.enumerator()
            ));
            Finding {
                code: crate::lint::rules::Rule::TmaSwizzle,
                severity: Severity::Warning,
                span: t.span.clone(),
                message: format!(
                    "this access reads `{name}` as if laid out with {}, but its TMA copy uses {}",
                    read_as.describe(),
                    actual.describe()
                ),
                label: format!("addresses `{name}` with {}", read_as.describe()),
                secondary: Some((t.copy.span.clone(), format!("filled with {}", actual.describe()))),
                notes,
                conflict_ways: None,
                fix: None,
            }
        }
        TmaIssue::UnknownLayout(why) => Finding {
            code: crate::lint::rules::Rule::TmaSwizzle,
            severity: Severity::Note,
            span: t.span.clone(),
            message: format!(
                "the layout this TMA copy gives `{name}` is not known: its accesses are not checked against it"
            ),
            label: "a TMA tile copy".to_string(),
            secondary: None,
            notes: vec![
                why.clone(),
                "help: make the tensor map in this file with `cuTensorMapEncodeTiled` (or a helper given a `CU_TENSOR_MAP_SWIZZLE_*` argument) and pass it at the launch".to_string(),
            ],
            conflict_ways: None,
            fix: None,
        },
    }
}
