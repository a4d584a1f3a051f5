//! A model of CuTe (CUTLASS's tensor library), whose headers a laptop without CUDA rarely
//! has: its integer tuples ([`tuple`]), its layouts as functions with CuTe's shapes
//! ([`layout`]), its tiled copies and their per-thread partitions ([`copy`]), its MMA atoms and
//! tiled MMAs ([`mma`]), the values CuTe's
//! functions make of them ([`values`]), and the reading of CuTe's types as written ([`text`]). Written from CuTe's documented semantics;
//! the analyzer runs it for each lane (see `interp::cute_values`).

pub mod copy;
pub mod layout;
pub mod mma;
pub mod text;
pub mod tuple;
pub mod values;

#[cfg(test)]
mod tests {
    use super::copy::{CopyAtom, CopyOp, Side, TiledCopy, issue};
    use super::layout::{Layout, Swizzle};
    use super::tuple::IntTuple;

    fn plain(shape: &[i64], stride: &[i64]) -> Layout {
        Layout::strided(IntTuple::ints(shape), IntTuple::ints(stride))
    }

    fn offsets(l: &Layout) -> Vec<i64> {
        (0..l.size()).map(|i| l.at(i).expect("evaluable")).collect()
    }

    /// `Swizzle<B, M, S>` by its definition: the `B` bits from `M + S` XORed into those from `M`.
    fn swizzle(b: u32, m: u32, s: u32, o: i64) -> i64 {
        o ^ (((o >> (m + s)) & ((1 << b) - 1)) << m)
    }

    #[test]
    fn a_swizzled_row_major_atom_moves_each_row_s_chunks() {
        // Swizzle<3,3,3> o (8,64):(64,1): row r keeps its 8-element chunks, chunk c at c ^ r.
        let atom = plain(&[8, 64], &[64, 1]).swizzled(Swizzle::new(3, 3, 3).expect("valid"), 0);
        for i in 0..512 {
            let (r, c) = (i % 8, i / 8);
            assert_eq!(atom.at(i), Some(swizzle(3, 3, 3, r * 64 + c)), "index {i}");
        }
        // Row 1, column 0 is element 64 moved to chunk 1: 72.
        assert_eq!(atom.eval(&IntTuple::ints(&[1, 0])), Some(72));
    }

    #[test]
    fn swizzles_cute_rejects_are_errors() {
        assert!(Swizzle::new(3, 3, 2).is_err());
        assert!(Swizzle::new(2, 4, 3).is_ok());
    }

    #[test]
    fn composition_is_the_function_of_the_documented_example() {
        // (6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8) in CuTe's documentation.
        let a = plain(&[6, 2], &[8, 2]);
        let b = plain(&[4, 3], &[3, 1]);
        let r = a.compose(&b);
        assert_eq!(
            offsets(&r),
            vec![0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42]
        );
        assert_eq!(r.shape, IntTuple::ints(&[4, 3]));
    }

    #[test]
    fn tile_to_shape_repeats_the_block_in_column_major_order() {
        // A (4,8):(8,1) block tiled to (8,16): tile (i, j) starts at 32 * (i + 2 * j).
        let block = plain(&[4, 8], &[8, 1]);
        let tiled = block
            .tile_to_shape(&IntTuple::ints(&[8, 16]))
            .expect("divides");
        for m in 0..8 {
            for n in 0..16 {
                let want = (m % 4) * 8 + (n % 8) + 32 * ((m / 4) + 2 * (n / 8));
                assert_eq!(
                    tiled.eval(&IntTuple::ints(&[m, n])),
                    Some(want),
                    "({m}, {n})"
                );
            }
        }
        assert_eq!(tiled.mode(0).map(|m| m.size()), Some(8));
        assert_eq!(tiled.mode(1).map(|m| m.size()), Some(16));
        assert!(block.tile_to_shape(&IntTuple::ints(&[6, 16])).is_err());
    }

    #[test]
    fn composing_a_swizzled_layout_keeps_the_swizzle_outermost() {
        // The transposed view of a swizzled tile: (64,16) row-major into it, swizzled after.
        let atom = plain(&[8, 32], &[32, 1]).swizzled(Swizzle::new(2, 3, 3).expect("valid"), 0);
        let tiled = atom
            .tile_to_shape(&IntTuple::ints(&[16, 64]))
            .expect("divides");
        let vt = tiled.compose(&Layout::row_major(IntTuple::ints(&[64, 16])));
        for i in 0..1024 {
            // Row-major (64,16): element i is (i / 16, i % 16), i.e. tile (m = i % 16, n = i / 16).
            let (n, m) = (i / 16, i % 16);
            let unswizzled = (m % 8) * 32 + (n % 32) + 256 * ((m / 8) + 2 * (n / 32));
            assert_eq!(
                vt.eval(&IntTuple::ints(&[n, m])),
                Some(swizzle(2, 3, 3, unswizzled)),
                "({n}, {m})"
            );
        }
    }

    fn half_copy(bits: u32) -> CopyAtom {
        CopyAtom {
            op: CopyOp::Universal { bits },
            value_bits: 16,
        }
    }

    #[test]
    fn a_thread_s_partition_is_its_rows_and_columns_in_every_tile() {
        // 128 threads as 16 rows of 8, each moving 8 halfs: a 16 x 64 tile over a 32 x 128
        // tensor (a swizzled (8,32) atom tiled to it). Thread t is at row t / 8, columns
        // 8 * (t % 8) .. + 8, in each of the 2 x 2 tiles.
        let tc = TiledCopy::new(
            half_copy(128),
            &plain(&[16, 8], &[8, 1]),
            &Layout::column_major(IntTuple::ints(&[1, 8])),
        )
        .expect("tiled copy");
        assert_eq!(tc.tiler, vec![16, 64]);
        let atom = plain(&[8, 32], &[32, 1]).swizzled(Swizzle::new(2, 3, 3).expect("valid"), 0);
        let smem = atom
            .tile_to_shape(&IntTuple::ints(&[32, 128]))
            .expect("divides");
        let element = |r: i64, c: i64| {
            swizzle(
                2,
                3,
                3,
                (r % 8) * 32 + (c % 32) + 256 * ((r / 8) + 4 * (c / 32)),
            )
        };
        for t in [0, 1, 7, 8, 9, 63, 127] {
            let p = tc.partition(&smem, t, Side::Source).expect("partition");
            assert_eq!(p.shape.to_string(), "((8,1),2,2)");
            let (row, col) = (t / 8, 8 * (t % 8));
            let mut want = Vec::new();
            for rn in 0..2 {
                for rm in 0..2 {
                    for v in 0..8 {
                        want.push(element(row + 16 * rm, col + 64 * rn + v));
                    }
                }
            }
            assert_eq!(offsets(&p), want, "thread {t}");
        }
        // Thread 63 of CuTe's own run lands at 1248 (row 7, columns 56..: chunk 3 ^ 3 of 248).
        assert_eq!(
            tc.partition(&smem, 63, Side::Source).expect("p").at(0),
            Some(1248)
        );
        assert!(tc.partition(&smem, 128, Side::Source).is_err());
    }

    #[test]
    fn column_major_threads_take_consecutive_rows() {
        // (32,4) threads column-major, (4,1) floats each: thread t at rows 4 * (t % 32) ..,
        // column t / 32; a (128, 8) column-major tensor has 2 tiles along its columns.
        let tc = TiledCopy::new(
            CopyAtom {
                op: CopyOp::Universal { bits: 128 },
                value_bits: 32,
            },
            &Layout::column_major(IntTuple::ints(&[32, 4])),
            &Layout::column_major(IntTuple::ints(&[4, 1])),
        )
        .expect("tiled copy");
        let tensor = Layout::column_major(IntTuple::ints(&[128, 8]));
        for t in [0, 1, 31, 32, 100] {
            let p = tc.partition(&tensor, t, Side::Source).expect("partition");
            assert_eq!(p.shape.to_string(), "((4,1),1,2)");
            let base = 4 * (t % 32) + 128 * (t / 32);
            let want: Vec<i64> = (0..2)
                .flat_map(|rn| (0..4).map(move |v| base + v + 512 * rn))
                .collect();
            assert_eq!(offsets(&p), want, "thread {t}");
        }
    }

    #[test]
    fn fixed_width_atoms_need_contiguous_values_and_auto_vectorizing_ones_widen() {
        let lanes = |run: i64, gap: i64| -> Vec<Vec<i64>> {
            (0..32)
                .map(|l| {
                    (0..16)
                        .map(|i| l * 100 + (i / run) * gap + i % run)
                        .collect()
                })
                .collect()
        };
        // Runs of 8 consecutive halfs: one 16-byte instruction per 8 values.
        let ok = issue(&half_copy(128), 16, &[lanes(8, 1000)]).expect("issues");
        assert_eq!(ok.values, 8);
        assert_eq!(ok.starts, vec![0, 8]);
        // Runs of 4: a 16-byte atom is rejected.
        assert!(issue(&half_copy(128), 16, &[lanes(4, 1000)]).is_err());
        // Auto-vectorizing: as wide as both sides allow.
        let auto = CopyAtom {
            op: CopyOp::AutoVectorizing { max_bits: 128 },
            value_bits: 16,
        };
        let v = issue(&auto, 16, &[lanes(8, 1000), lanes(4, 500)]).expect("issues");
        assert_eq!(v.values, 4);
        let narrow = CopyAtom {
            op: CopyOp::AutoVectorizing { max_bits: 8 },
            value_bits: 16,
        };
        assert_eq!(
            issue(&narrow, 16, &[lanes(8, 1000)])
                .expect("issues")
                .values,
            1
        );
    }
}
