//! CuTe's tiled copies: a copy atom (the instruction one thread issues), a thread layout and
//! a value layout make a tile that the threads cover together (`make_tiled_copy`); a thread's
//! slice partitions a tensor into the values it moves (`partition_S`, `partition_D`), and
//! `copy` issues one instruction per atom of them. Everything here is per thread: the caller
//! runs it for each lane of a warp.

use super::layout::Layout;
use super::tuple::IntTuple;
use std::rc::Rc;

/// The instruction a copy atom stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyOp {
    /// `UniversalCopy<T>`: one load or store of `bits` per thread.
    Universal { bits: u32 },
    /// `AutoVectorizingCopyWithAssumedAlignment<B>` (and `DefaultCopy`, `B` = 8): as wide as
    /// both sides' layouts allow, at most `max_bits`.
    AutoVectorizing { max_bits: u32 },
    /// `SM80_CP_ASYNC_CACHEALWAYS<T>` (`cp.async.ca`) and `..._CACHEGLOBAL<T>` (`.cg`).
    CpAsync { bits: u32, bypass_l1: bool },
    /// `SM75_U32x{1,2,4}_LDSM_N` and `SM75_U16x{2,4,8}_LDSM_T` (`ldmatrix .x{count}[.trans]`):
    /// a warp loads `count` 8 x 8 matrices of 16-bit values, each lane giving the address of
    /// one 16-byte row; `SM90_U32x{1,2,4}_STSM_N` / `SM90_U16x{2,4,8}_STSM_T` store them.
    Matrix { count: u8, trans: bool, store: bool },
}

/// Which side of a copy a partition is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Source,
    Destination,
}

impl CopyOp {
    /// What the instruction is called, for messages.
    pub fn describe(&self) -> String {
        match self {
            CopyOp::Universal { bits } => format!("`UniversalCopy` of {bits} bits"),
            CopyOp::AutoVectorizing { max_bits } => {
                format!("`AutoVectorizingCopyWithAssumedAlignment<{max_bits}>`")
            }
            CopyOp::CpAsync { bits, bypass_l1 } => format!(
                "`cp.async.{}` of {} bytes",
                if *bypass_l1 { "cg" } else { "ca" },
                bits / 8
            ),
            CopyOp::Matrix {
                count,
                trans,
                store,
            } => format!(
                "`{}.x{count}{}`",
                if *store { "stmatrix" } else { "ldmatrix" },
                if *trans { ".trans" } else { "" }
            ),
        }
    }
}

/// `Copy_Atom<Op, T>`: the instruction and the value type it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyAtom {
    pub op: CopyOp,
    pub value_bits: u32,
}

impl CopyAtom {
    /// Values one instruction moves per thread: its width over the value's (1 for an
    /// auto-vectorizing atom, which widens at the call).
    pub fn values(&self) -> Result<i64, String> {
        let bits = match self.op {
            CopyOp::AutoVectorizing { .. } => return Ok(1),
            CopyOp::Universal { bits } | CopyOp::CpAsync { bits, .. } => bits,
            CopyOp::Matrix { count, .. } => {
                self.sixteen_bit()?;
                return Ok(2 * i64::from(count));
            }
        };
        if self.value_bits == 0 || bits % self.value_bits != 0 {
            return Err(format!(
                "{} does not move a whole number of {}-bit values",
                self.op.describe(),
                self.value_bits
            ));
        }
        Ok(i64::from(bits / self.value_bits))
    }
}

impl CopyAtom {
    fn sixteen_bit(&self) -> Result<(), String> {
        if self.value_bits == 16 {
            Ok(())
        } else {
            Err(format!(
                "{} of {}-bit values is not modeled (16-bit values are)",
                self.op.describe(),
                self.value_bits
            ))
        }
    }

    /// The threads one atom takes: a warp for a matrix copy, else one.
    pub fn threads(&self) -> i64 {
        match self.op {
            CopyOp::Matrix { .. } => 32,
            _ => 1,
        }
    }

    /// Values per thread on `side` of one atom. A matrix copy's shared side is one 16-byte
    /// row (8 values), its register side 2 per matrix.
    pub fn side_values(&self, side: Side) -> Result<i64, String> {
        match self.op {
            CopyOp::Matrix { store, .. } => {
                let shared = if store {
                    side == Side::Destination
                } else {
                    side == Side::Source
                };
                if shared { Ok(8) } else { self.values() }
            }
            _ => self.values(),
        }
    }

    /// For thread `t`'s value `j` on `side` of one atom, the (thread, value) of the atom's
    /// reference (its register side) that moves the same element, as `thread + threads *
    /// value`. A matrix copy's element (matrix `i`, row `r`, column `c`) is value `j` of row
    /// lane `8 i + r` (lanes past the last matrix repeat the first ones) and sits, in the
    /// registers, in lane `4 r + c / 2`, value `c % 2` of register `i`; transposed, in lane
    /// `4 c + r / 2`, value `r % 2`.
    pub fn reference(&self, side: Side, t: i64, j: i64) -> i64 {
        let CopyOp::Matrix {
            count,
            trans,
            store,
        } = self.op
        else {
            return j;
        };
        let shared = if store {
            side == Side::Destination
        } else {
            side == Side::Source
        };
        if !shared {
            return t + 32 * j;
        }
        let matrix = (t / 8) % i64::from(count);
        let (r, c) = (t % 8, j);
        let (lane, half) = if trans {
            (4 * c + r / 2, r % 2)
        } else {
            (4 * r + c / 2, c % 2)
        };
        lane + 32 * (half + 2 * matrix)
    }
}

/// `make_tiled_copy(atom, thr_layout, val_layout)`: which tile element each (thread, value)
/// moves.
#[derive(Clone, Debug)]
pub struct TiledCopy {
    pub atom: CopyAtom,
    /// The tile's extent in each mode: the thread layout's times the value layout's.
    pub tiler: Vec<i64>,
    pub threads: i64,
    pub values: i64,
    /// For `t + threads * v`, the tile coordinate, one integer per mode.
    points: Rc<Vec<Vec<i64>>>,
}

/// Tiles larger than this are not enumerated.
const MAX_TILE: i64 = 1 << 16;

impl TiledCopy {
    /// The tiled copy of `thr` threads each moving `val` values, raked as CuTe rakes them:
    /// along each mode a thread's values are consecutive and the threads follow one another
    /// (`(16, 8):(8, 1)` threads with `(1, 8)` values make a 16 x 64 tile, thread `t` at row
    /// `t / 8` and columns `8 * (t % 8)` on). The thread layout must map its coordinates one to
    /// one onto `0..threads` and the value layout onto `0..values`; others are not modeled.
    pub fn new(atom: CopyAtom, thr: &Layout, val: &Layout) -> Result<TiledCopy, String> {
        let rank = thr.rank().max(val.rank());
        let extent = |l: &Layout, i: usize| l.shape.mode(i).map_or(1, IntTuple::product);
        let tiler: Vec<i64> = (0..rank).map(|i| extent(thr, i) * extent(val, i)).collect();
        let threads = thr.size();
        let values = val.size();
        let size = threads.saturating_mul(values);
        if size > MAX_TILE || size <= 0 {
            return Err(format!("a copy tile of {size} elements is not enumerated"));
        }
        let thr_inv = inverse(thr, "thread")?;
        let val_inv = inverse(val, "value")?;
        let mut points = vec![Vec::new(); size as usize];
        for t in 0..threads {
            let tc = mode_coordinates(thr, thr_inv[t as usize], rank);
            for v in 0..values {
                let vc = mode_coordinates(val, val_inv[v as usize], rank);
                let point = (0..rank).map(|i| tc[i] * extent(val, i) + vc[i]).collect();
                points[(t + threads * v) as usize] = point;
            }
        }
        let atom_values = atom.values()?;
        if values % atom_values != 0 {
            return Err(format!(
                "{} values per thread are not a whole number of atoms of {atom_values}",
                values
            ));
        }
        Ok(TiledCopy {
            atom,
            tiler,
            threads,
            values,
            points: Rc::new(points),
        })
    }

    /// A tiled copy over a tile of `tiler` whose thread `t`'s value `v` is element `cells[t][v]`
    /// (per mode): `make_tiled_copy_A/B/C` of a tiled MMA.
    pub fn from_cells(
        atom: CopyAtom,
        tiler: Vec<i64>,
        cells: &[Vec<(i64, i64)>],
    ) -> Result<TiledCopy, String> {
        let threads = cells.len() as i64;
        let values = cells.first().map_or(0, Vec::len) as i64;
        let size = threads.saturating_mul(values);
        if size > MAX_TILE || size <= 0 {
            return Err(format!("a copy tile of {size} elements is not enumerated"));
        }
        let mut points = vec![Vec::new(); size as usize];
        for (t, row) in cells.iter().enumerate() {
            for (v, &(r, c)) in row.iter().enumerate() {
                points[t + threads as usize * v] = vec![r, c];
            }
        }
        let (atom_threads, atom_values) = (atom.threads(), atom.values()?);
        if threads % atom_threads != 0 || values % atom_values != 0 {
            return Err(format!(
                "{} threads of {values} values are not a whole number of {}'s",
                threads,
                atom.op.describe()
            ));
        }
        Ok(TiledCopy {
            atom,
            tiler,
            threads,
            values,
            points: Rc::new(points),
        })
    }

    /// The values of thread `thread` in `tensor` (`partition_S`/`partition_D` of the slice
    /// `get_thread_slice(thread)`): mode 0 is (atom values, atoms), then one mode per tile
    /// count of each mode of `tensor`. A thread outside the tiled copy's threads is not
    /// modeled (CuTe extrapolates its layout past the last thread).
    pub fn partition(&self, tensor: &Layout, thread: i64, side: Side) -> Result<Layout, String> {
        let rank = tensor.rank();
        if rank < self.tiler.len() {
            return Err(format!(
                "a tensor of rank {rank} is partitioned by a copy tile of rank {}",
                self.tiler.len()
            ));
        }
        if !(0..self.threads).contains(&thread) {
            return Err(format!(
                "thread {thread} is outside the tiled copy's {} threads",
                self.threads
            ));
        }
        // An atom of several threads (a warp's matrix copy) takes its threads and reference
        // values together: thread `t` is lane `t % n` of its atom, and its value `v` on this
        // side is value `v % s` of one atom, the `v / s`-th of the atoms it takes part in.
        let atom_threads = self.atom.threads();
        let ref_values = self.atom.values()?;
        let side_values = self.atom.side_values(side)?;
        let atoms = self.values / ref_values;
        let (lane, rest_thread) = (thread % atom_threads, thread / atom_threads);
        let points: Vec<Vec<i64>> = (0..side_values * atoms)
            .map(|v| {
                let (j, rest_value) = (v % side_values, v / side_values);
                let r = self.atom.reference(side, lane, j);
                let (ref_thread, ref_value) = (r % atom_threads, r / atom_threads);
                let t = ref_thread + atom_threads * rest_thread;
                let value = ref_value + ref_values * rest_value;
                self.points[(t + self.threads * value) as usize].clone()
            })
            .collect();
        let mut rest = Vec::with_capacity(rank);
        for i in 0..rank {
            let size = tensor.shape.mode(i).map_or(1, IntTuple::product);
            let tile = self.tiler.get(i).copied().unwrap_or(1);
            rest.push((size + tile - 1) / tile);
        }
        Ok(Layout::gathered(
            tensor.clone(),
            self.tiler.clone(),
            Rc::new(points),
            (side_values, atoms),
            rest,
        ))
    }
}

/// For a layout that maps its coordinates one to one onto `0..size`, the 1-D coordinate of
/// each offset.
fn inverse(l: &Layout, what: &str) -> Result<Vec<i64>, String> {
    let n = l.size();
    let mut inv = vec![-1i64; n.max(0) as usize];
    for i in 0..n {
        let o = l
            .at(i)
            .ok_or_else(|| format!("the {what} layout is not evaluable"))?;
        if !(0..n).contains(&o) || inv[o as usize] >= 0 {
            return Err(format!(
                "the {what} layout `{}` does not map its coordinates one to one onto 0..{n}, which banklint's model of `make_tiled_copy` needs",
                l.shape
            ));
        }
        inv[o as usize] = i;
    }
    Ok(inv)
}

/// The per-mode coordinates (each mode's 1-D index) of the 1-D index `i` of `l`, padded to
/// `rank` modes with zeros.
fn mode_coordinates(l: &Layout, i: i64, rank: usize) -> Vec<i64> {
    let mut out = Vec::with_capacity(rank);
    let mut rest = i;
    let r = l.rank();
    for k in 0..rank {
        if k >= r {
            out.push(0);
            continue;
        }
        let size = l.shape.mode(k).map_or(1, IntTuple::product).max(1);
        if k + 1 == r {
            out.push(rest);
        } else {
            out.push(rest % size);
            rest /= size;
        }
    }
    out
}

/// How one thread's part of a `copy` splits into instructions: the 1-D index of each
/// instruction's first value, and how many values each moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub starts: Vec<i64>,
    pub values: i64,
}

/// The instructions of `copy(atom, src, dst)` for one thread, given each side's offsets in
/// 1-D order (`None` for a side whose offsets are not known, such as global memory): an
/// atom of fixed width takes consecutive runs of its values, which must be contiguous on
/// every side known; an auto-vectorizing one the widest power of two of values both sides
/// keep contiguous and aligned, up to its width. `sides` are the known sides' offsets for
/// every lane (`sides[s][lane][i]`), so the width is one for the warp.
pub fn issue(atom: &CopyAtom, size: i64, sides: &[Vec<Vec<i64>>]) -> Result<Issue, String> {
    let values = match atom.op {
        CopyOp::AutoVectorizing { max_bits } => {
            let most = i64::from(max_bits / atom.value_bits.max(1)).max(1);
            let mut n = 1i64;
            while n * 2 <= most && size % (n * 2) == 0 && sides.iter().all(|s| runs(s, n * 2)) {
                n *= 2;
            }
            // A vector is only formed of whole bytes wider than one value.
            if n > 1 && (n * i64::from(atom.value_bits)) % 8 != 0 {
                n = 1;
            }
            n
        }
        _ => {
            // A matrix copy moves one 16-byte row of each lane's shared side per instruction.
            let n = match atom.op {
                CopyOp::Matrix { .. } => 8,
                _ => atom.values()?,
            };
            if size % n != 0 {
                return Err(format!(
                    "{size} values per thread are not a whole number of {}'s {n}",
                    atom.op.describe()
                ));
            }
            if !sides.iter().all(|s| runs(s, n)) {
                return Err(format!(
                    "the values one {} moves are not contiguous in shared memory, which CuTe rejects",
                    atom.op.describe()
                ));
            }
            n
        }
    };
    Ok(Issue {
        starts: (0..size).step_by(values.max(1) as usize).collect(),
        values,
    })
}

/// Whether every lane's offsets come in runs of `n` consecutive offsets, each run starting at
/// a multiple of `n` from the lane's first offset.
fn runs(lanes: &[Vec<i64>], n: i64) -> bool {
    lanes.iter().all(|offsets| {
        let Some(&first) = offsets.first() else {
            return true;
        };
        offsets.chunks(n as usize).all(|run| {
            run.len() as i64 == n
                && (run[0] - first).rem_euclid(n) == 0
                && run.windows(2).all(|w| w[1] == w[0] + 1)
        })
    })
}
