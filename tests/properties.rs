//! Properties of the bank engine and the padding search, on random warps and layouts, and of
//! the analyzer's lane values against its per-thread arithmetic: 2,000 cases each (more for
//! the cheap ones), from a seeded generator, so every run checks the same cases and a failure
//! names the one that reproduces it.

use banklint::analysis::lanes::Lanes;
use banklint::analysis::value::{Affine, BinOp, Symbols, Value, binary};
use banklint::bank::arch::{Arch, BankMode, Target};
use banklint::bank::engine::{Op, WARP_SIZE, WarpAccess, wavefronts};
use banklint::check::{CheckOptions, check_source};
use banklint::front::source::SourceFile;
use std::rc::Rc;

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

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(0..from.len() as u64) as usize]
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
/// banks: the cost is unchanged. On 3.x the bank rows repeat every 256 bytes. (`bank::layout`
/// analyzes a warp-uniform unknown shift at each byte within a word only, on the strength of it.)
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

// ---------------------------------------------------------------------------------------
// Lane values: a spread form (`base + offsets[t]`) gives what each thread computes alone.

const OPS: [BinOp; 20] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Lt,
    BinOp::Gt,
    BinOp::Le,
    BinOp::Ge,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::LogicalAnd,
    BinOp::LogicalOr,
    BinOp::Min,
    BinOp::Max,
];

const INTS: [i64; 14] = [0, 1, 2, 3, 5, 7, 8, 31, 32, 64, -1, -33, i64::MAX, i64::MIN];

/// Lanes of `n` threads in one of the three forms, over the symbols 0 and 1.
fn lanes(rng: &mut Rng, n: usize) -> Lanes {
    let mut terms = Vec::new();
    for s in 0..2 {
        if rng.next().is_multiple_of(3) {
            terms.push((s, rng.pick(&[1, 2, 4, 32, 64, -32, 96])));
        }
    }
    let base = Affine {
        constant: rng.pick(&INTS),
        terms,
    };
    match rng.next() % 4 {
        0 => Lanes::Same(Value::Affine(base)),
        1 => Lanes::Same(Value::unknown("why")),
        2 => {
            let offsets = (0..n)
                .map(|t| match rng.next() % 3 {
                    0 => t as i64,
                    1 => rng.pick(&INTS),
                    _ => (t as i64) * rng.pick(&[2, 4, 8, 32]),
                })
                .collect();
            Lanes::spread(base, offsets)
        }
        _ => Lanes::Each(Rc::new(
            (0..n)
                .map(|t| {
                    if rng.next().is_multiple_of(5) {
                        Value::unknown("why")
                    } else {
                        Value::Affine(Affine {
                            constant: base.constant.wrapping_add(t as i64),
                            terms: base.terms.clone(),
                        })
                    }
                })
                .collect(),
        )),
    }
}

#[test]
fn spread_forms_give_what_each_thread_gives_alone() {
    let n = 8;
    for case in 0..20_000u64 {
        let mut rng = Rng::case(11, case);
        let (a, b) = (lanes(&mut rng, n), lanes(&mut rng, n));
        let op = rng.pick(&OPS);
        let mut syms = Symbols::default();
        syms.fresh("W");
        syms.fresh("n");
        let got = Lanes::binary(op, &a, &b, n, &mut syms);
        for t in 0..n {
            // The reference: the threads' own values, as a non-uniform operation sees them.
            let expected = if a.is_uniform() && b.is_uniform() {
                continue;
            } else {
                binary(op, &a.get(t), &b.get(t), false, &mut syms)
            };
            assert_eq!(
                *got.get(t),
                expected,
                "case {case}: {a:?} {op:?} {b:?}, thread {t}"
            );
            assert!(got.same_at(&Lanes::Each(Rc::new(vec![expected; n])), t));
        }
        assert_eq!(got.is_uniform(), a.is_uniform() && b.is_uniform());
    }
}

#[test]
fn merging_keeps_each_threads_value() {
    let n = 8;
    for case in 0..5_000u64 {
        let mut rng = Rng::case(12, case);
        let (old, new) = (lanes(&mut rng, n), lanes(&mut rng, n));
        let mask: Vec<bool> = (0..n).map(|_| rng.next().is_multiple_of(2)).collect();
        let merged = old.merge(&new, &mask);
        for (t, &m) in mask.iter().enumerate() {
            let want = if m { new.get(t) } else { old.get(t) };
            assert_eq!(*merged.get(t), *want, "case {case}, thread {t}");
        }
    }
}

#[test]
fn a_join_of_spread_forms_keeps_what_both_sides_agree_on() {
    let n = 8;
    let mut joined = 0;
    for case in 0..5_000u64 {
        let mut rng = Rng::case(13, case);
        let a = lanes(&mut rng, n);
        // The other side: the same terms, some threads moved (as a branch's assignment).
        let moved = Lanes::ints((0..n).map(|_| rng.pick(&[0, 0, 0, 1, -4, 32])).collect());
        let b = if rng.next().is_multiple_of(4) {
            lanes(&mut rng, n)
        } else {
            Lanes::binary(BinOp::Add, &a, &moved, n, &mut Symbols::default())
        };
        let from_a: Vec<bool> = (0..n).map(|_| !rng.next().is_multiple_of(3)).collect();
        // Mostly one side per thread, as a branch on the thread index splits them.
        let from_b: Vec<bool> = from_a
            .iter()
            .map(|&x| !x || rng.next().is_multiple_of(4))
            .collect();
        let Some(got) = Lanes::choose(&a, &b, &from_a, &from_b) else {
            continue;
        };
        joined += 1;
        for t in 0..n {
            let want = match (from_a[t], from_b[t]) {
                (true, true) => {
                    assert_eq!(
                        a.get(t),
                        b.get(t),
                        "case {case}: a thread that may take either"
                    );
                    b.get(t)
                }
                (true, false) => a.get(t),
                _ => b.get(t),
            };
            assert_eq!(*got.get(t), *want, "case {case}, thread {t}");
        }
        let agree = (0..n).all(|t| got.same_at(&got, 0) && *got.get(t) == *got.get(0));
        assert_eq!(got.is_uniform(), agree, "case {case}");
    }
    assert!(joined > 500, "{joined}");
}
