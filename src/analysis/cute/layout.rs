//! CuTe layouts as functions from coordinates to offsets, each with the shape CuTe gives it.
//! A plain layout is a shape and congruent strides; the others are kept as the functions
//! they are (a swizzle after a layout, a composition, a blocked product, a slice), so every
//! offset is the one CuTe's own algebra computes, without reproducing how CuTe simplifies
//! their representation. Only the top-level modes' sizes are observable through this type,
//! and those match CuTe's.

use super::tuple::{IntTuple, crd2flat, crd2idx, idx2crd};
use std::rc::Rc;

/// `Swizzle<B, M, S>`: the `B` bits from bit `M + S` up are XORed into the `B` bits from bit
/// `M` (for a positive shift; a negative one swaps the roles), so each run of `2^M`
/// consecutive offsets stays together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swizzle {
    pub bits: u32,
    pub base: u32,
    pub shift: i32,
}

impl Swizzle {
    /// The swizzle, or why CuTe rejects it (`|S| >= B` is its own static assertion).
    pub fn new(bits: i64, base: i64, shift: i64) -> Result<Swizzle, String> {
        if !(0..=16).contains(&bits) || !(0..=32).contains(&base) || shift.abs() > 32 {
            return Err(format!(
                "`Swizzle<{bits}, {base}, {shift}>` is out of range"
            ));
        }
        if shift.abs() < bits {
            return Err(format!(
                "`Swizzle<{bits}, {base}, {shift}>` shifts by less than its bit count, which CuTe rejects"
            ));
        }
        Ok(Swizzle {
            bits: bits as u32,
            base: base as u32,
            shift: shift as i32,
        })
    }

    pub fn apply(&self, offset: i64) -> i64 {
        let mask = (1i64 << self.bits) - 1;
        let yyy = mask << (self.base as i32 + self.shift.max(0));
        let moved = offset & yyy;
        let shifted = if self.shift >= 0 {
            moved >> self.shift
        } else {
            moved << (-self.shift)
        };
        offset ^ shifted
    }
}

/// What a layout's offset is made of.
#[derive(Debug)]
enum Map {
    /// The inner product of the natural coordinate with strides congruent with the shape.
    Strided(IntTuple),
    /// `outer(offset + inner(c))`: CuTe's `ComposedLayout`, and `composition(A, B)` with `A`
    /// taken at `B`'s 1-D result. The layout's shape is `inner`'s.
    Composed {
        outer: Outer,
        offset: i64,
        inner: Layout,
    },
    /// Each top-level mode is a pair (block coordinate, tile coordinate): the block's offset
    /// plus the tiles' (`blocked_product`, `tile_to_shape`).
    Blocked { block: Layout, tiles: Layout },
    /// The coordinates of `base` with the modes named in `fixed` given: what is left of a
    /// slice `T(_, m, k)`, in the order the free modes appear.
    Slice {
        base: Layout,
        fixed: Vec<Option<IntTuple>>,
    },
    /// `base` read through its 1-D index: a layout given another shape of the same size.
    Reshaped(Layout),
    /// Layouts side by side, one per top-level mode, their offsets added (`make_layout(A, B)`).
    Concatenated(Vec<Layout>),
    /// One thread's values of `base` under a tiled copy: mode 0 is the value index, each
    /// further mode `i` a tile count along mode `i` of `base`; value `v` in tile `r` is
    /// element `r * tiler + points[v]` (mode by mode, each mode's 1-D index).
    Gathered {
        base: Layout,
        tiler: Vec<i64>,
        points: Rc<Vec<Vec<i64>>>,
    },
}

#[derive(Debug)]
enum Outer {
    Swizzle(Swizzle),
    Layout(Layout),
}

#[derive(Clone, Debug)]
pub struct Layout {
    pub shape: IntTuple,
    map: Rc<Map>,
}

impl Layout {
    /// `shape:stride`, congruent (checked by the caller that reads them).
    pub fn strided(shape: IntTuple, stride: IntTuple) -> Layout {
        Layout {
            shape,
            map: Rc::new(Map::Strided(stride)),
        }
    }

    /// The compact column-major layout of a shape (`make_layout(shape)`).
    pub fn column_major(shape: IntTuple) -> Layout {
        let stride = shape.column_major(1);
        Layout::strided(shape, stride)
    }

    /// The compact row-major layout of a shape (`make_layout(shape, GenRowMajor{})`).
    pub fn row_major(shape: IntTuple) -> Layout {
        let stride = shape.row_major();
        Layout::strided(shape, stride)
    }

    /// The strides, for a plain layout.
    pub fn strides(&self) -> Option<&IntTuple> {
        match &*self.map {
            Map::Strided(s) => Some(s),
            _ => None,
        }
    }

    pub fn size(&self) -> i64 {
        self.shape.product()
    }

    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// The offset of a coordinate: natural, partly natural, or 1-D.
    pub fn eval(&self, c: &IntTuple) -> Option<i64> {
        match &*self.map {
            Map::Strided(stride) => crd2idx(c, &self.shape, stride),
            Map::Composed {
                outer,
                offset,
                inner,
            } => {
                let i = offset.wrapping_add(inner.eval(c)?);
                match outer {
                    Outer::Swizzle(s) => Some(s.apply(i)),
                    Outer::Layout(l) => l.eval(&IntTuple::Int(i)),
                }
            }
            Map::Blocked { block, tiles } => {
                let natural = self.natural(c)?;
                let modes = natural.modes();
                let mut block_c = Vec::with_capacity(modes.len());
                let mut tile_c = Vec::with_capacity(modes.len());
                for (k, m) in modes.iter().enumerate() {
                    // An integer coordinate of a (block, tiles) mode is its 1-D index there.
                    let m = match m {
                        IntTuple::Int(i) => idx2crd(*i, self.shape.mode(k)?),
                        _ => m.clone(),
                    };
                    let pair = m.modes();
                    block_c.push(pair.first()?.clone());
                    tile_c.push(pair.get(1).cloned().unwrap_or(IntTuple::Int(0)));
                }
                let b = block.eval(&IntTuple::Tuple(block_c))?;
                let t = tiles.eval(&IntTuple::Tuple(tile_c))?;
                Some(b.wrapping_add(t))
            }
            Map::Slice { base, fixed } => {
                let free = self.natural(c)?.modes();
                let mut free = free.into_iter();
                let mut full = Vec::with_capacity(fixed.len());
                for f in fixed {
                    match f {
                        Some(v) => full.push(v.clone()),
                        None => full.push(free.next().unwrap_or(IntTuple::Int(0))),
                    }
                }
                base.eval(&IntTuple::Tuple(full))
            }
            Map::Reshaped(base) => {
                let i = crd2flat(&self.natural(c)?, &self.shape)?;
                base.eval(&IntTuple::Int(i))
            }
            Map::Gathered {
                base,
                tiler,
                points,
            } => {
                let natural = self.natural(c)?.modes();
                let values = self.shape.mode(0)?;
                let v = crd2flat(natural.first()?, values)?;
                let point = points.get(usize::try_from(v).ok()?)?;
                let full: Vec<IntTuple> = (1..natural.len())
                    .map(|m| {
                        let r = natural[m]
                            .as_int()
                            .or_else(|| crd2flat(&natural[m], self.shape.mode(m)?))?;
                        let i = m - 1;
                        let tile = tiler.get(i).copied().unwrap_or(1);
                        let p = point.get(i).copied().unwrap_or(0);
                        Some(IntTuple::Int(r * tile + p))
                    })
                    .collect::<Option<_>>()?;
                base.eval(&IntTuple::Tuple(full))
            }
            Map::Concatenated(modes) => {
                let natural = self.natural(c)?.modes();
                let mut sum = 0i64;
                for (m, ci) in modes.iter().zip(&natural) {
                    sum = sum.wrapping_add(m.eval(ci)?);
                }
                Some(sum)
            }
        }
    }

    /// The offset of the 1-D index `i`.
    pub fn at(&self, i: i64) -> Option<i64> {
        self.eval(&IntTuple::Int(i))
    }

    /// `c` as a coordinate with one entry per top-level mode (an integer spread over them).
    fn natural(&self, c: &IntTuple) -> Option<IntTuple> {
        match (c, &self.shape) {
            (IntTuple::Int(i), IntTuple::Tuple(_)) => Some(idx2crd(*i, &self.shape)),
            (IntTuple::Int(_), IntTuple::Int(_)) => Some(IntTuple::Tuple(vec![c.clone()])),
            (IntTuple::Tuple(items), IntTuple::Tuple(modes)) if items.len() <= modes.len() => {
                let mut out = items.clone();
                out.resize(modes.len(), IntTuple::Int(0));
                Some(IntTuple::Tuple(out))
            }
            (IntTuple::Tuple(items), IntTuple::Int(_)) if items.len() == 1 => Some(c.clone()),
            _ => None,
        }
    }

    /// `outer o (offset + self)` for a swizzle: `composition(Swizzle{}, offset, layout)`.
    pub fn swizzled(self, s: Swizzle, offset: i64) -> Layout {
        Layout {
            shape: self.shape.clone(),
            map: Rc::new(Map::Composed {
                outer: Outer::Swizzle(s),
                offset,
                inner: self,
            }),
        }
    }

    /// The layout under an outermost swizzle (and its offset), or `self` unswizzled.
    pub fn without_swizzle(&self) -> Layout {
        match &*self.map {
            Map::Composed {
                outer: Outer::Swizzle(_),
                inner,
                ..
            } => inner.clone(),
            _ => self.clone(),
        }
    }

    /// `composition(self, b)`: `self` taken at `b`'s offsets, with `b`'s shape. A swizzled
    /// layout keeps its swizzle outermost and composes its inner layout, as CuTe does.
    pub fn compose(&self, b: &Layout) -> Layout {
        if let Map::Composed {
            outer: Outer::Swizzle(s),
            offset,
            inner,
        } = &*self.map
        {
            return inner.compose(b).swizzled(*s, *offset);
        }
        Layout {
            shape: b.shape.clone(),
            map: Rc::new(Map::Composed {
                outer: Outer::Layout(self.clone()),
                offset: 0,
                inner: b.clone(),
            }),
        }
    }

    /// `composition(self, tiler)` with a tiler of one layout per mode: mode `i` of the result is
    /// mode `i` of `self` composed with the tiler's `i`-th layout; modes past the tiler stay.
    pub fn compose_by_mode(&self, tiler: &[Layout]) -> Option<Layout> {
        let modes: Vec<Layout> = (0..self.rank())
            .map(|i| {
                let m = self.mode(i)?;
                Some(match tiler.get(i) {
                    Some(t) => m.compose(t),
                    None => m,
                })
            })
            .collect::<Option<_>>()?;
        Some(Layout::concatenate(&modes))
    }

    /// Mode `i` as a layout of its own (`layout<i>(L)`): the other modes at coordinate 0.
    pub fn mode(&self, i: usize) -> Option<Layout> {
        let rank = self.rank();
        if i >= rank {
            return None;
        }
        if let Map::Strided(stride) = &*self.map {
            return Some(Layout::strided(
                self.shape.mode(i)?.clone(),
                stride.mode(i)?.clone(),
            ));
        }
        if rank == 1 {
            return Some(self.clone());
        }
        let fixed = (0..rank)
            .map(|k| (k != i).then_some(IntTuple::Int(0)))
            .collect();
        Some(self.slice(fixed))
    }

    /// The modes of several layouts side by side, each evaluated on its own coordinate, their
    /// offsets added: `make_layout(L0, L1, ...)`.
    pub fn concatenate(modes: &[Layout]) -> Layout {
        if modes.len() == 1 {
            return modes[0].clone();
        }
        // Plain modes stay plain.
        let strides: Option<Vec<IntTuple>> = modes.iter().map(|m| m.strides().cloned()).collect();
        if let Some(strides) = strides {
            return Layout::strided(
                IntTuple::Tuple(modes.iter().map(|m| m.shape.clone()).collect()),
                IntTuple::Tuple(strides),
            );
        }
        // Otherwise a product: every mode a block of its own with no tiles.
        let shape = IntTuple::Tuple(modes.iter().map(|m| m.shape.clone()).collect());
        Layout {
            shape,
            map: Rc::new(Map::Concatenated(modes.to_vec())),
        }
    }

    /// The layout with the modes whose coordinate `fixed` gives taken at it; the others,
    /// in order, are the result's modes (`T(_, m, k)`).
    pub fn slice(&self, fixed: Vec<Option<IntTuple>>) -> Layout {
        let free: Vec<IntTuple> = (fixed.iter().enumerate())
            .filter(|(_, f)| f.is_none())
            .filter_map(|(k, _)| self.shape.mode(k).cloned())
            .collect();
        let shape = if free.len() == 1 {
            free.into_iter().next().unwrap_or(IntTuple::Int(1))
        } else {
            IntTuple::Tuple(free)
        };
        Layout {
            shape,
            map: Rc::new(Map::Slice {
                base: self.clone(),
                fixed,
            }),
        }
    }

    /// One thread's values of `base` under a tiled copy (see [`Map::Gathered`]): shape
    /// ((atom values, atoms), rest...).
    pub fn gathered(
        base: Layout,
        tiler: Vec<i64>,
        points: Rc<Vec<Vec<i64>>>,
        (atom_values, atoms): (i64, i64),
        rest: Vec<i64>,
    ) -> Layout {
        let mut modes = vec![IntTuple::ints(&[atom_values, atoms])];
        modes.extend(rest.iter().map(|&r| IntTuple::Int(r)));
        Layout {
            shape: IntTuple::Tuple(modes),
            map: Rc::new(Map::Gathered {
                base,
                tiler,
                points,
            }),
        }
    }

    /// The same function read through another shape of the same size (its 1-D index).
    pub fn reshaped(&self, shape: IntTuple) -> Layout {
        Layout {
            shape,
            map: Rc::new(Map::Reshaped(self.clone())),
        }
    }

    /// `tile_to_shape(block, target)`: the block repeated, tiles in column-major order, to
    /// cover `target` mode by mode. Each mode of the result is (block mode, tile count); a
    /// swizzled block keeps its swizzle outermost. An error when a mode does not divide.
    pub fn tile_to_shape(&self, target: &IntTuple) -> Result<Layout, String> {
        if let Map::Composed {
            outer: Outer::Swizzle(s),
            offset,
            inner,
        } = &*self.map
        {
            return Ok(inner.tile_to_shape(target)?.swizzled(*s, *offset));
        }
        let rank = target.rank().max(self.rank());
        let mut counts = Vec::with_capacity(rank);
        let mut modes = Vec::with_capacity(rank);
        for i in 0..rank {
            let block = self.shape.mode(i).map_or(1, IntTuple::product);
            let want = target.mode(i).map_or(1, IntTuple::product);
            if block <= 0 || want % block != 0 {
                return Err(format!(
                    "mode {i} of the target shape ({want}) is not a multiple of the block's ({block})"
                ));
            }
            counts.push(want / block);
            modes.push(IntTuple::Tuple(vec![
                self.shape.mode(i).cloned().unwrap_or(IntTuple::Int(1)),
                IntTuple::Int(want / block),
            ]));
        }
        // The tiles follow one another past the block's whole range: CuTe places them by the
        // block's complement, which for a compact block is its size; others are not modeled.
        let span = self.cosize()?;
        if span != self.size() {
            return Err(format!(
                "the block `{}` is not compact (it spans {span} offsets for {} elements)",
                self.shape,
                self.size()
            ));
        }
        let tiles = Layout::strided(
            IntTuple::ints(&counts),
            IntTuple::ints(&counts).column_major(span),
        );
        let mut block = self.clone();
        if block.rank() < rank {
            let mut shape = self.shape.modes();
            let mut stride = self.strides().map(IntTuple::modes).unwrap_or_default();
            shape.resize(rank, IntTuple::Int(1));
            stride.resize(rank, IntTuple::Int(0));
            block = Layout::strided(IntTuple::Tuple(shape), IntTuple::Tuple(stride));
        }
        Ok(Layout {
            shape: IntTuple::Tuple(modes),
            map: Rc::new(Map::Blocked { block, tiles }),
        })
    }

    /// One past the largest offset of a plain or composed layout over its whole shape (its
    /// `cosize`), found by evaluating it: layouts here are small. An error past 1 << 22.
    pub fn cosize(&self) -> Result<i64, String> {
        let n = self.size();
        if n > 1 << 22 {
            return Err(format!(
                "a layout of {n} elements is larger than banklint evaluates"
            ));
        }
        let mut top = 0i64;
        for i in 0..n {
            let o = self.at(i).ok_or("a coordinate the layout does not map")?;
            top = top.max(o + 1);
        }
        Ok(top)
    }
}
