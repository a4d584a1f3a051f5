//! Properties of the bank engine and the padding search, on random warps and layouts.

use banklint::bank::arch::{Arch, BankMode, Target};
use banklint::bank::engine::{Op, WARP_SIZE, WarpAccess, wavefronts};
use banklint::check::{CheckOptions, check_source};
use banklint::front::source::SourceFile;
use proptest::prelude::*;

const WIDTHS: [u32; 5] = [1, 2, 4, 8, 16];

fn target(arch: &str, mode: BankMode) -> Target {
    Target::new(Arch::parse(arch).expect("arch"), mode)
}

/// A warp access: width, op, and per-lane offsets aligned to the width (some lanes off).
fn warp() -> impl Strategy<Value = WarpAccess> {
    (
        0..WIDTHS.len(),
        any::<bool>(),
        prop::collection::vec(prop::option::weighted(0.85, 0u64..2048), WARP_SIZE),
    )
        .prop_map(|(w, load, lanes)| {
            let width = WIDTHS[w];
            let mut offsets = [None; WARP_SIZE];
            for (o, l) in offsets.iter_mut().zip(lanes) {
                *o = l.map(|v| v / u64::from(width) * u64::from(width));
            }
            WarpAccess {
                width,
                op: if load { Op::Load } else { Op::Store },
                offsets,
            }
        })
}

fn shifted(a: &WarpAccess, by: u64) -> WarpAccess {
    let mut b = a.clone();
    for o in b.offsets.iter_mut().flatten() {
        *o += by;
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// On 2.x and 5.x+, shifting every lane by the same whole number of words only renames
    /// banks: the cost is unchanged. On 3.x the bank rows repeat every 256 bytes.
    #[test]
    fn uniform_shifts_do_not_change_the_cost(a in warp(), words in 0u64..4096) {
        for (arch, unit) in [("sm_90", 4), ("sm_20", 4), ("sm_35", 256)] {
            let t = target(arch, BankMode::FourByte);
            let by = words * unit;
            let by = by / u64::from(a.width).max(1) * u64::from(a.width);
            if by % unit != 0 {
                continue;
            }
            prop_assert_eq!(wavefronts(t, &a).wavefronts, wavefronts(t, &shifted(&a, by)).wavefronts, "{} shift {}", arch, by);
        }
    }

    /// Switching a lane off never makes an instruction cost more.
    #[test]
    fn inactive_lanes_never_add_cost(a in warp(), lane in 0usize..WARP_SIZE) {
        for arch in ["sm_10", "sm_20", "sm_35", "sm_90"] {
            for mode in [BankMode::FourByte, BankMode::EightByte] {
                let t = target(arch, mode);
                let mut b = a.clone();
                b.offsets[lane] = None;
                let (full, less) = (wavefronts(t, &a), wavefronts(t, &b));
                // On 5.x+ a wide load only merges phases when lane pairs share addresses;
                // switching a lane off can enable the merge, which only lowers the cost.
                prop_assert!(less.wavefronts <= full.wavefronts, "{arch} {mode:?}: {} > {}", less.wavefronts, full.wavefronts);
            }
        }
    }

    /// The wide-load merge rule only ever lowers the cost: a load never costs more than the
    /// same pattern stored (stores never merge).
    #[test]
    fn merging_only_lowers_cost(a in warp()) {
        let t = target("sm_90", BankMode::FourByte);
        let load = WarpAccess { op: Op::Load, ..a.clone() };
        let store = WarpAccess { op: Op::Store, ..a };
        prop_assert!(wavefronts(t, &load).wavefronts <= wavefronts(t, &store).wavefronts);
    }

    /// Every padding banklint calls conflict-free is: applying it and checking again leaves
    /// no conflict on that array.
    #[test]
    fn padding_suggestions_recheck_conflict_free(
        rows in 2i64..40,
        cols in 1i64..70,
        elem in 0usize..4,
        row_mul in 1i64..9,
        col in 0i64..4,
        block_x in prop::sample::select(vec![16u32, 32, 64]),
    ) {
        let (ty, _) = [("char", 1), ("short", 2), ("float", 4), ("double", 8)][elem];
        let col = col.min(cols - 1);
        let text = format!(
            "__global__ void k(float *o) {{\n    __shared__ {ty} t[{rows}][{cols}];\n    t[(threadIdx.x * {row_mul}) % {rows}][{col}] = 1;\n}}\nvoid h(float *o) {{ k<<<1, {block_x}>>>(o); }}\n"
        );
        let options = CheckOptions {
            target: target("sm_90", BankMode::FourByte),
            block_dim: None,
            defines: Default::default(),
            include_dirs: Vec::new(),
            includers: None,
        };
        let report = check_source(SourceFile::new("p.cu", text.clone()), &options);
        for fix in report.fixes.iter().filter(|f| f.conflict_free) {
            let padded = format!("{}{}{}", &text[..fix.dim_span.start], fix.replacement, &text[fix.dim_span.end..]);
            let again = check_source(SourceFile::new("p.cu", padded.clone()), &options);
            prop_assert!(again.conflicts().next().is_none(), "still conflicting after the fix:\n{}", padded);
        }
    }
}
