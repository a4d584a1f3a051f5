//! CuTe's MMA atoms and tiled MMAs, for the tiled copies made from them
//! (`make_tiled_copy_A/B/C`): which element of the A, B or C tile each (thread, value) holds.
//! The atoms' layouts are the fragment layouts of PTX's `mma.sync` (the PTX ISA's "matrix
//! fragments" for `.m16n8k16` and `.m16n8k8`), written in CuTe's (thread, value) -> column-major
//! tile index form; a tiled MMA lays atoms out over warps (`AtomLayoutMNK`) and may permute the
//! tile's rows or columns (`PermutationMNK`).

use super::layout::Layout;
use super::tuple::{IntTuple, idx2crd};

/// The operand a tiled copy is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    A,
    B,
    C,
}

/// One warp's MMA instruction: its tile (M, N, K) and the three fragments' layouts, each
/// (lane, value) -> index of the (M, K), (N, K) or (M, N) tile in column-major order.
#[derive(Clone, Debug)]
pub struct MmaAtom {
    pub m: i64,
    pub n: i64,
    pub k: i64,
    a: Layout,
    b: Layout,
    c: Layout,
}

fn layout(shape: IntTuple, stride: IntTuple) -> Layout {
    Layout::strided(shape, stride)
}

fn t(items: Vec<IntTuple>) -> IntTuple {
    IntTuple::Tuple(items)
}

impl MmaAtom {
    /// CuTe's MMA operation `name` (`SM80_16x8x16_F32F16F16F32_TN`), where its shape is one
    /// banklint models: the 16-bit-input `m16n8k16` and `m16n8k8` instructions. Lane `l` is
    /// (l % 4, l / 4): thread `l % 4` of group `l / 4`.
    pub fn named(name: &str) -> Option<MmaAtom> {
        let lane = || IntTuple::ints(&[4, 8]);
        // The C fragment of both: c0, c1 in row `group`, columns 2 * (l % 4) + {0, 1}; c2, c3
        // eight rows down. Index m + 16 n.
        let c = layout(
            t(vec![lane(), IntTuple::ints(&[2, 2])]),
            t(vec![IntTuple::ints(&[32, 1]), IntTuple::ints(&[16, 8])]),
        );
        let sixteen_bit = |rest: &str| {
            rest.starts_with("F32F16F16F32")
                || rest.starts_with("F16F16F16F16")
                || rest.starts_with("F32BF16BF16F32")
        };
        if let Some(rest) = name.strip_prefix("SM80_16x8x16_")
            && sixteen_bit(rest)
        {
            // A (16 x 16): a0 a1 at (group, 2 (l % 4) + {0, 1}), a2 a3 eight rows down, a4..a7
            // eight columns on. Index m + 16 k.
            let a = layout(
                t(vec![lane(), IntTuple::ints(&[2, 2, 2])]),
                t(vec![
                    IntTuple::ints(&[32, 1]),
                    IntTuple::ints(&[16, 8, 128]),
                ]),
            );
            // B (8 x 16, n by k): b0 b1 at (n = group, k = 2 (l % 4) + {0, 1}), b2 b3 eight k on.
            // Index n + 8 k.
            let b = layout(
                t(vec![lane(), IntTuple::ints(&[2, 2])]),
                t(vec![IntTuple::ints(&[16, 1]), IntTuple::ints(&[8, 64])]),
            );
            return Some(MmaAtom {
                m: 16,
                n: 8,
                k: 16,
                a,
                b,
                c,
            });
        }
        if let Some(rest) = name
            .strip_prefix("SM80_16x8x8_")
            .or_else(|| name.strip_prefix("SM75_16x8x8_"))
            && sixteen_bit(rest)
        {
            let a = layout(
                t(vec![lane(), IntTuple::ints(&[2, 2])]),
                t(vec![IntTuple::ints(&[32, 1]), IntTuple::ints(&[16, 8])]),
            );
            let b = layout(
                t(vec![lane(), IntTuple::Int(2)]),
                t(vec![IntTuple::ints(&[16, 1]), IntTuple::Int(8)]),
            );
            return Some(MmaAtom {
                m: 16,
                n: 8,
                k: 8,
                a,
                b,
                c,
            });
        }
        None
    }

    fn fragment(&self, operand: Operand) -> &Layout {
        match operand {
            Operand::A => &self.a,
            Operand::B => &self.b,
            Operand::C => &self.c,
        }
    }

    /// The operand's tile extents (rows, columns): (M, K), (N, K), (M, N).
    fn extents(&self, operand: Operand) -> (i64, i64) {
        match operand {
            Operand::A => (self.m, self.k),
            Operand::B => (self.n, self.k),
            Operand::C => (self.m, self.n),
        }
    }
}

/// `TiledMMA<MMA_Atom<Op>, AtomLayoutMNK, PermutationMNK>`.
#[derive(Clone, Debug)]
pub struct TiledMma {
    pub atom: MmaAtom,
    /// The atoms' layout over (M, N, K): which warp runs which atom.
    warps: Layout,
    /// Each mode's extent and, where given as a layout, its permutation (`Tile<_64, Layout<...>,
    /// _16>`); `None`: the atoms' extent times the warps along it.
    permutation: [Option<Layout>; 3],
}

impl TiledMma {
    pub fn new(
        atom: MmaAtom,
        warps: Layout,
        permutation: [Option<Layout>; 3],
    ) -> Result<TiledMma, String> {
        if warps.rank() > 3 {
            return Err("an MMA atom layout of more than three modes".to_string());
        }
        Ok(TiledMma {
            atom,
            warps,
            permutation,
        })
    }

    fn warps_along(&self, mode: usize) -> i64 {
        self.warps.shape.mode(mode).map_or(1, IntTuple::product)
    }

    /// The threads: 32 per atom the layout places.
    pub fn threads(&self) -> i64 {
        32 * self.warps.size()
    }

    /// The tile's extent along M (0), N (1) or K (2).
    pub fn tile(&self, mode: usize) -> i64 {
        let atom = [self.atom.m, self.atom.n, self.atom.k][mode];
        match &self.permutation[mode] {
            Some(p) => p.size(),
            None => atom * self.warps_along(mode),
        }
    }

    /// `thr_mma.partition_fragment_A/B/C(t)` of a tensor whose two modes have `extents`: the
    /// register fragment's extents, (fragment values, atoms down, atoms across) per thread.
    pub fn fragment_extents(&self, operand: Operand, extents: (i64, i64)) -> [i64; 3] {
        let (rows_mode, cols_mode) = match operand {
            Operand::A => (0, 2),
            Operand::B => (1, 2),
            Operand::C => (0, 1),
        };
        let (atom_rows, atom_cols) = self.atom.extents(operand);
        let values = self
            .atom
            .fragment(operand)
            .shape
            .mode(1)
            .map_or(1, IntTuple::product);
        let per = |extent: i64, atom: i64, warps: i64| {
            let step = (atom * warps).max(1);
            (extent + step - 1) / step
        };
        [
            values,
            per(extents.0, atom_rows, self.warps_along(rows_mode)),
            per(extents.1, atom_cols, self.warps_along(cols_mode)),
        ]
    }

    /// For `make_tiled_copy_A/B/C`: the tile (rows, columns) of the operand and, for thread
    /// `t` and value `v` (of `values` per thread), its element as (row, column). Threads whose
    /// atom does not use the operand's other mode (B for the warps along M) hold the same.
    #[allow(clippy::type_complexity)]
    pub fn operand_tv(
        &self,
        operand: Operand,
    ) -> Result<((i64, i64), i64, Vec<Vec<(i64, i64)>>), String> {
        let (rows_mode, cols_mode) = match operand {
            Operand::A => (0, 2),
            Operand::B => (1, 2),
            Operand::C => (0, 1),
        };
        let (atom_rows, atom_cols) = self.atom.extents(operand);
        let (tile_rows, tile_cols) = (self.tile(rows_mode), self.tile(cols_mode));
        let (warp_rows, warp_cols) = (self.warps_along(rows_mode), self.warps_along(cols_mode));
        if tile_rows % (atom_rows * warp_rows) != 0 || tile_cols % (atom_cols * warp_cols) != 0 {
            return Err(format!(
                "a tiled MMA whose tile ({tile_rows}, {tile_cols}) is not a whole number of its atoms"
            ));
        }
        let rest_rows = tile_rows / (atom_rows * warp_rows);
        let rest_cols = tile_cols / (atom_cols * warp_cols);
        let fragment = self.atom.fragment(operand);
        let frag_values = fragment.shape.mode(1).map_or(1, IntTuple::product);
        let values = frag_values * rest_rows * rest_cols;
        // Thread t is lane t % 32 of the atom the warp layout gives warp t / 32.
        let warp_count = self.warps.size();
        let mut warp_coord = vec![None; warp_count as usize];
        for i in 0..warp_count {
            let w = self
                .warps
                .at(i)
                .ok_or("an MMA atom layout banklint cannot evaluate")?;
            if !(0..warp_count).contains(&w) || warp_coord[w as usize].is_some() {
                return Err("an MMA atom layout that does not number its warps one to one".into());
            }
            warp_coord[w as usize] = Some(idx2crd(i, &self.warps.shape));
        }
        let coord = |c: &IntTuple, m: usize| c.mode(m).and_then(IntTuple::as_int).unwrap_or(0);
        let permute = |mode: usize, x: i64| -> Option<i64> {
            match &self.permutation[mode] {
                Some(p) => p.at(x),
                None => Some(x),
            }
        };
        let mut table = Vec::with_capacity(self.threads() as usize);
        for thread in 0..self.threads() {
            let lane = thread % 32;
            let w = warp_coord[(thread / 32) as usize]
                .clone()
                .ok_or("an MMA atom layout with a gap")?;
            let (wr, wc) = (coord(&w, rows_mode), coord(&w, cols_mode));
            let mut cells = Vec::with_capacity(values as usize);
            for v in 0..values {
                let fv = v % frag_values;
                let rest = v / frag_values;
                let (rr, rc) = (rest % rest_rows, rest / rest_rows);
                let index = fragment
                    .eval(&IntTuple::Tuple(vec![
                        IntTuple::Int(lane),
                        IntTuple::Int(fv),
                    ]))
                    .ok_or("an MMA fragment banklint cannot evaluate")?;
                let (ar, ac) = (index % atom_rows, index / atom_rows);
                let r = ar + atom_rows * (wr + warp_rows * rr);
                let c = ac + atom_cols * (wc + warp_cols * rc);
                let r = permute(rows_mode, r).ok_or("a permutation banklint cannot evaluate")?;
                let c = permute(cols_mode, c).ok_or("a permutation banklint cannot evaluate")?;
                cells.push((r, c));
            }
            table.push(cells);
        }
        Ok(((tile_rows, tile_cols), values, table))
    }
}

#[cfg(test)]
mod tests {
    use super::super::copy::{CopyAtom, CopyOp, Side, TiledCopy};
    use super::super::layout::Layout;
    use super::super::tuple::IntTuple;
    use super::super::values::{Value, apply};

    fn tiled_mma(atom: &str, warps: &[i64]) -> Value {
        let atom = apply(atom, &[]).expect("known").expect("an atom");
        let warps = Value::Layout(Layout::column_major(IntTuple::ints(warps)));
        apply("TiledMMA", &[atom, warps])
            .expect("known")
            .expect("a tiled MMA")
    }

    fn ldmatrix(maker: &str, count: u8, mma: &Value) -> TiledCopy {
        let op = CopyOp::Matrix {
            count,
            trans: false,
            store: false,
        };
        let atom = Value::Atom(CopyAtom { op, value_bits: 16 });
        match apply(maker, &[atom, mma.clone()]).expect("known") {
            Ok(Value::TiledCopy(copy)) => (*copy).clone(),
            other => panic!("{maker} gave {other:?}"),
        }
    }

    /// The element a lane's first value names is the row whose address the lane gives
    /// `ldmatrix`: PTX's `ldmatrix` takes matrix i's eight row addresses from lanes 8i..8i+7.
    fn first_offsets(copy: &TiledCopy, row_stride: i64) -> Vec<i64> {
        let tile = Layout::strided(IntTuple::ints(&[64, 64]), IntTuple::ints(&[row_stride, 1]));
        (0..32)
            .map(|lane| {
                copy.partition(&tile, lane, Side::Source)
                    .expect("partitions")
                    .at(0)
                    .expect("a value")
            })
            .collect()
    }

    #[test]
    fn ldmatrix_x4_for_operand_a_reads_the_m16n8k16_a_fragment_rows() {
        // A of m16n8k16 is four 8x8 matrices: rows 0-7 / 8-15 of columns 0-7, then of 8-15.
        let mma = tiled_mma("SM80_16x8x16_F32F16F16F32_TN", &[1, 1, 1]);
        let copy = ldmatrix("make_tiled_copy_A", 4, &mma);
        let want: Vec<i64> = (0..32).map(|t| (t % 16) * 64 + 8 * (t / 16)).collect();
        assert_eq!(first_offsets(&copy, 64), want);
    }

    #[test]
    fn ldmatrix_x2_for_operand_b_reads_the_m16n8k16_b_fragment_rows() {
        // B (n x k, k contiguous) of m16n8k16 is two 8x8 matrices: columns k 0-7, then 8-15.
        let mma = tiled_mma("SM80_16x8x16_F32F16F16F32_TN", &[1, 1, 1]);
        let copy = ldmatrix("make_tiled_copy_B", 2, &mma);
        let want: Vec<i64> = (0..16).map(|t| (t % 8) * 64 + 8 * (t / 8)).collect();
        assert_eq!(first_offsets(&copy, 64)[..16], want[..]);
    }

    #[test]
    fn warps_of_a_tiled_mma_take_the_next_atom_tiles() {
        // Two warps along M: warp 1 reads rows 16-31 with the same lane pattern.
        let mma = tiled_mma("SM80_16x8x16_F32F16F16F32_TN", &[2, 1, 1]);
        let copy = ldmatrix("make_tiled_copy_A", 4, &mma);
        let tile = Layout::strided(IntTuple::ints(&[64, 64]), IntTuple::ints(&[64, 1]));
        for lane in 0..32 {
            let warp0 = copy
                .partition(&tile, lane, Side::Source)
                .expect("partitions");
            let warp1 = copy
                .partition(&tile, 32 + lane, Side::Source)
                .expect("partitions");
            assert_eq!(warp1.at(0), warp0.at(0).map(|x| x + 16 * 64), "lane {lane}");
        }
    }
}
