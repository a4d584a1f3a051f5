//! Properties of the bank engine and the padding search, on random warps and layouts: 2,000
//! cases each, from a seeded generator, so every run checks the same cases and a failure
//! names the one that reproduces it.

use banklint::bank::arch::{Arch, BankMode, Target};
use banklint::bank::engine::{Op, WARP_SIZE, WarpAccess, wavefronts};
use banklint::check::{CheckOptions, check_source};
use banklint::front::source::SourceFile;

const WIDTHS: [u32; 5] = [1, 2, 4, 8, 16];

/// Cases per property.
const CASES: u64 = 2000;

fn target(arch: &str, mode: BankMode) -> Target {
    Target::new(Arch::parse(arch).expect("arch"), mode)
}

/// SplitMix64: a small, fast, well-mixed generator. Each case starts from its own seed, so a
/// failure names the case that reproduces it (`case N`), with its input in the message.
struct Rng(u64);

impl Rng {
    fn case(property: u64, case: u64) -> Rng {
        Rng(property.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ case)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `range` (the bias of a modulo over 64 bits is negligible here).
    fn below(&mut self, range: std::ops::Range<u64>) -> u64 {
        range.start + self.next() % (range.end - range.start)
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// A warp access: width, op, and per-lane offsets aligned to the width (some lanes off).
fn warp(rng: &mut Rng) -> WarpAccess {
    let width = WIDTHS[rng.below(0..WIDTHS.len() as u64) as usize];
    let load = rng.chance(0.5);
    let mut offsets = [None; WARP_SIZE];
    for o in offsets.iter_mut() {
        if rng.chance(0.85) {
            let v = rng.below(0..2048);
            *o = Some(v / u64::from(width) * u64::from(width));
        }
    }
    WarpAccess {
        width,
        op: if load { Op::Load } else { Op::Store },
        offsets,
    }
}

fn shifted(a: &WarpAccess, by: u64) -> WarpAccess {
    let mut b = a.clone();
    for o in b.offsets.iter_mut().flatten() {
        *o += by;
    }
    b
}

/// On 2.x and 5.x+, shifting every lane by the same whole number of words only renames
/// banks: the cost is unchanged. On 3.x the bank rows repeat every 256 bytes.
#[test]
fn uniform_shifts_do_not_change_the_cost() {
    for case in 0..CASES {
        let mut rng = Rng::case(1, case);
        let a = warp(&mut rng);
        let words = rng.below(0..4096);
        for (arch, unit) in [("sm_90", 4), ("sm_20", 4), ("sm_35", 256)] {
            let t = target(arch, BankMode::FourByte);
            let by = words * unit;
            let by = by / u64::from(a.width).max(1) * u64::from(a.width);
            if !by.is_multiple_of(unit) {
                continue;
            }
            assert_eq!(
                wavefronts(t, &a).wavefronts,
                wavefronts(t, &shifted(&a, by)).wavefronts,
                "case {case}: {arch} shift {by} of {a:?}"
            );
        }
    }
}

/// Switching a lane off never makes an instruction cost more.
#[test]
fn inactive_lanes_never_add_cost() {
    for case in 0..CASES {
        let mut rng = Rng::case(2, case);
        let a = warp(&mut rng);
        let lane = rng.below(0..WARP_SIZE as u64) as usize;
        for arch in ["sm_10", "sm_20", "sm_35", "sm_90"] {
            for mode in [BankMode::FourByte, BankMode::EightByte] {
                let t = target(arch, mode);
                let mut b = a.clone();
                b.offsets[lane] = None;
                let (full, less) = (wavefronts(t, &a), wavefronts(t, &b));
                // On 5.x+ a wide load only merges phases when lane pairs share addresses;
                // switching a lane off can enable the merge, which only lowers the cost.
                assert!(
                    less.wavefronts <= full.wavefronts,
                    "case {case}: {arch} {mode:?}, lane {lane} off: {} > {} for {a:?}",
                    less.wavefronts,
                    full.wavefronts
                );
            }
        }
    }
}

/// The wide-load merge rule only ever lowers the cost: a load never costs more than the
/// same pattern stored (stores never merge).
#[test]
fn merging_only_lowers_cost() {
    let t = target("sm_90", BankMode::FourByte);
    for case in 0..CASES {
        let a = warp(&mut Rng::case(3, case));
        let load = WarpAccess {
            op: Op::Load,
            ..a.clone()
        };
        let store = WarpAccess { op: Op::Store, ..a };
        assert!(
            wavefronts(t, &load).wavefronts <= wavefronts(t, &store).wavefronts,
            "case {case}: {load:?}"
        );
    }
}

/// Every padding banklint calls conflict-free is: applying it and checking again leaves
/// no conflict on that array.
#[test]
fn padding_suggestions_recheck_conflict_free() {
    let options = CheckOptions {
        target: target("sm_90", BankMode::FourByte),
        block_dim: None,
        defines: Default::default(),
        include_dirs: Vec::new(),
        includers: None,
    };
    for case in 0..CASES {
        let mut rng = Rng::case(4, case);
        let rows = rng.below(2..40);
        let cols = rng.below(1..70);
        let (ty, _) =
            [("char", 1), ("short", 2), ("float", 4), ("double", 8)][rng.below(0..4) as usize];
        let row_mul = rng.below(1..9);
        let col = rng.below(0..4).min(cols - 1);
        let block_x = [16u32, 32, 64][rng.below(0..3) as usize];
        let text = format!(
            "__global__ void k(float *o) {{\n    __shared__ {ty} t[{rows}][{cols}];\n    t[(threadIdx.x * {row_mul}) % {rows}][{col}] = 1;\n}}\nvoid h(float *o) {{ k<<<1, {block_x}>>>(o); }}\n"
        );
        let report = check_source(SourceFile::new("p.cu", text.clone()), &options);
        for fix in report.fixes.iter().filter(|f| f.conflict_free) {
            let padded = format!(
                "{}{}{}",
                &text[..fix.dim_span.start],
                fix.replacement,
                &text[fix.dim_span.end..]
            );
            let again = check_source(SourceFile::new("p.cu", padded.clone()), &options);
            assert!(
                again.conflicts().next().is_none(),
                "case {case}: still conflicting after the fix:\n{padded}"
            );
        }
    }
}
