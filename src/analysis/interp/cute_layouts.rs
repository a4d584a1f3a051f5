//! The layouts of a CuTe tensor across the threads of a run: one layout every thread shares
//! (a tile in shared memory), each thread's offsets in its 1-D order, all of one shape (a
//! thread's partition by a tiled copy, worked out once, so that the slices `t(_, m, k)` a
//! copy loop takes of it are index arithmetic, not a walk through the layout algebra), or
//! only the extents of its modes (global memory, whose offsets no access banklint prices
//! depends on, and whose extents may be run-time values).

use super::Lanes;
use crate::analysis::cute::copy::{Side, TiledCopy};
use crate::analysis::cute::layout::Layout;
use crate::analysis::cute::tuple::{IntTuple, crd2flat, idx2crd};
use crate::limits::MAX_CUTE_VALUES;
use std::borrow::Cow;
use std::rc::Rc;

/// A thread's offsets, or why they are not known.
type Offsets = Result<Rc<[i64]>, Rc<str>>;

#[derive(Clone)]
pub(super) enum Layouts {
    Same(Result<Layout, Rc<str>>),
    Table {
        shape: IntTuple,
        offsets: Rc<Vec<Offsets>>,
    },
    /// Each top-level mode's extent (`None`: a run-time value).
    Extents(Rc<[Option<i64>]>),
}

impl Layouts {
    pub fn unknown(why: impl Into<Rc<str>>) -> Layouts {
        Layouts::Same(Err(why.into()))
    }

    /// The shape every thread's layout has.
    pub fn shape(&self) -> Result<IntTuple, Rc<str>> {
        match self {
            Layouts::Same(l) => l.as_ref().map(|l| l.shape.clone()).map_err(Rc::clone),
            Layouts::Table { shape, .. } => Ok(shape.clone()),
            Layouts::Extents(e) => {
                let known: Option<Vec<i64>> = e.iter().copied().collect();
                match known {
                    Some(k) if k.len() == 1 => Ok(IntTuple::Int(k[0])),
                    Some(k) => Ok(IntTuple::ints(&k)),
                    None => Err(Rc::from("a tensor in global memory with run-time extents")),
                }
            }
        }
    }

    /// The extent of top-level mode `i` (`None`: not known).
    pub fn extent(&self, i: usize) -> Option<i64> {
        match self {
            Layouts::Extents(e) => e.get(i).copied().flatten(),
            _ => self.shape().ok()?.mode(i).map(IntTuple::product),
        }
    }

    /// The number of top-level modes.
    pub fn rank(&self) -> Option<usize> {
        match self {
            Layouts::Extents(e) => Some(e.len()),
            _ => self.shape().ok().map(|s| s.rank()),
        }
    }

    /// The top-level extents, where known.
    pub fn extents(&self) -> Option<Vec<Option<i64>>> {
        match self {
            Layouts::Extents(e) => Some(e.to_vec()),
            _ => {
                let s = self.shape().ok()?;
                Some(s.modes().iter().map(|m| Some(m.product())).collect())
            }
        }
    }

    /// The layout every thread shares, if it is one.
    pub fn shared_layout(&self) -> Option<&Layout> {
        match self {
            Layouts::Same(Ok(l)) => Some(l),
            _ => None,
        }
    }

    /// Thread `thread`'s offsets in 1-D order.
    pub fn offsets(&self, thread: usize) -> Result<Cow<'_, [i64]>, Rc<str>> {
        match self {
            Layouts::Same(l) => {
                let l = l.as_ref().map_err(Rc::clone)?;
                all_offsets(l).map(|o| Cow::Owned(o.to_vec()))
            }
            Layouts::Table { offsets, .. } => match offsets.get(thread) {
                Some(Ok(o)) => Ok(Cow::Borrowed(&o[..])),
                Some(Err(e)) => Err(e.clone()),
                None => Err(Rc::from("a thread past those banklint runs")),
            },
            Layouts::Extents(_) => Err(Rc::from("a tensor in global memory")),
        }
    }

    /// Thread `thread`'s offset of a coordinate (natural, per mode, or 1-D).
    pub fn offset_of(&self, thread: usize, c: &IntTuple) -> Result<i64, Rc<str>> {
        let unmapped = || Rc::from("a coordinate the tensor's layout does not map");
        match self {
            Layouts::Same(l) => {
                let l = l.as_ref().map_err(Rc::clone)?;
                l.eval(c).ok_or_else(unmapped)
            }
            Layouts::Table { shape, offsets } => {
                let i = flat_index(c, shape).ok_or_else(unmapped)?;
                let o = offsets
                    .get(thread)
                    .ok_or_else(|| Rc::from("a thread past those banklint runs"))?
                    .as_ref()
                    .map_err(Rc::clone)?;
                usize::try_from(i)
                    .ok()
                    .and_then(|i| o.get(i).copied())
                    .ok_or_else(unmapped)
            }
            Layouts::Extents(_) => Err(Rc::from("a tensor in global memory")),
        }
    }

    /// Each thread's values under a tiled copy: `threads[a][k]` is thread `k`'s index into it
    /// in alternative `a` (one alternative where the block is known; one per warp of the tiled
    /// copy where it is not). Alternatives follow one another as a last mode of the result.
    pub fn partitioned(
        &self,
        copy: &TiledCopy,
        threads: &[Vec<Option<i64>>],
        side: Side,
    ) -> Layouts {
        let base = match self {
            Layouts::Same(Ok(l)) => l,
            Layouts::Same(Err(e)) => return Layouts::Same(Err(e.clone())),
            // Global memory: the partition's extents, mode 0 the thread's values.
            Layouts::Extents(e) => {
                let mut out = vec![Some(copy.values)];
                for (i, x) in e.iter().enumerate() {
                    let tile = copy.tiler.get(i).copied().unwrap_or(1).max(1);
                    out.push(x.map(|x| (x + tile - 1) / tile));
                }
                if threads.len() > 1 {
                    out.push(Some(threads.len() as i64));
                }
                return Layouts::Extents(out.into());
            }
            Layouts::Table { .. } => {
                return Layouts::unknown("a partition of a thread's partition is not modeled");
            }
        };
        let lanes = threads.first().map_or(0, Vec::len);
        let mut shape = None;
        let offsets: Vec<Offsets> = (0..lanes)
            .map(|k| {
                let mut all: Vec<i64> = Vec::new();
                for alternative in threads {
                    let t = alternative.get(k).copied().flatten().ok_or_else(|| {
                        Rc::from(
                            "the thread index given to `get_thread_slice` is not known in this thread",
                        )
                    })?;
                    let p = copy.partition(base, t, side).map_err(Rc::from)?;
                    all.extend_from_slice(&all_offsets(&p)?);
                    shape.get_or_insert(p.shape);
                }
                Ok(all.into())
            })
            .collect();
        match shape {
            Some(shape) if threads.len() > 1 => {
                let mut modes = shape.modes();
                modes.push(IntTuple::Int(threads.len() as i64));
                Layouts::Table {
                    shape: IntTuple::Tuple(modes),
                    offsets: Rc::new(offsets),
                }
            }
            Some(shape) => Layouts::Table {
                shape,
                offsets: Rc::new(offsets),
            },
            None => match offsets.into_iter().next() {
                Some(Err(e)) => Layouts::Same(Err(e)),
                _ => Layouts::unknown("a partition for no thread"),
            },
        }
    }

    /// The slice with the modes `fixed` gives a coordinate at it (thread by thread), the
    /// others the result's modes in order.
    pub fn sliced(&self, n: usize, fixed: &[Option<Lanes>]) -> Layouts {
        let uniform: Option<Vec<Option<i64>>> = fixed
            .iter()
            .map(|c| match c {
                None => Some(None),
                Some(v) => v.as_const().map(Some),
            })
            .collect();
        let at = |k: usize| -> Result<Vec<Option<i64>>, Rc<str>> {
            fixed
                .iter()
                .map(|c| match c {
                    None => Ok(None),
                    Some(v) => v.const_at(k).map(Some).ok_or_else(|| {
                        Rc::from("a slice at a coordinate that differs from thread to thread in a way banklint does not know")
                    }),
                })
                .collect()
        };
        let slice_layout = |l: &Layout, f: &[Option<i64>]| {
            l.slice(f.iter().map(|c| c.map(IntTuple::Int)).collect())
        };
        match self {
            Layouts::Same(Err(e)) => Layouts::Same(Err(e.clone())),
            Layouts::Extents(e) => Layouts::Extents(
                (e.iter().enumerate())
                    .filter(|(k, _)| fixed.get(*k).is_none_or(Option::is_none))
                    .map(|(_, x)| *x)
                    .collect(),
            ),
            Layouts::Same(Ok(l)) => match &uniform {
                Some(f) => Layouts::Same(Ok(slice_layout(l, f))),
                None => {
                    let mut shape = None;
                    let offsets: Vec<Offsets> = (0..n)
                        .map(|k| {
                            let s = slice_layout(l, &at(k)?);
                            let o = all_offsets(&s)?;
                            shape.get_or_insert(s.shape);
                            Ok(o)
                        })
                        .collect();
                    match shape {
                        Some(shape) => Layouts::Table {
                            shape,
                            offsets: Rc::new(offsets),
                        },
                        None => Layouts::unknown("a slice no thread takes"),
                    }
                }
            },
            Layouts::Table { shape, offsets } => {
                let free_shape = free_modes(shape, fixed);
                let indices = |f: &[Option<i64>]| slice_indices(shape, &free_shape, f);
                let shared = uniform.as_deref().map(indices);
                let gathered: Vec<Offsets> = (0..n)
                    .map(|k| {
                        let own;
                        let idx = match &shared {
                            Some(i) => i,
                            None => {
                                own = indices(&at(k)?);
                                &own
                            }
                        };
                        let idx = idx.as_ref().map_err(Rc::clone)?;
                        let base = offsets
                            .get(k)
                            .ok_or_else(|| Rc::from("a thread past those banklint runs"))?
                            .as_ref()
                            .map_err(Rc::clone)?;
                        idx.iter()
                            .map(|&i| {
                                base.get(i).copied().ok_or_else(|| {
                                    Rc::from("a slice past the end of a thread's values")
                                })
                            })
                            .collect::<Result<Rc<[i64]>, Rc<str>>>()
                    })
                    .collect();
                Layouts::Table {
                    shape: free_shape,
                    offsets: Rc::new(gathered),
                }
            }
        }
    }
}

/// Every offset of a layout in 1-D order, bounded.
fn all_offsets(l: &Layout) -> Result<Rc<[i64]>, Rc<str>> {
    let n = l.size();
    if n > MAX_CUTE_VALUES {
        return Err(Rc::from(format!(
            "a thread's {n} values are more than banklint enumerates"
        )));
    }
    (0..n)
        .map(|i| {
            l.at(i)
                .ok_or_else(|| Rc::from("a value the layout does not map"))
        })
        .collect()
}

/// The modes of `shape` that `fixed` leaves free, as a slice's shape.
fn free_modes(shape: &IntTuple, fixed: &[Option<Lanes>]) -> IntTuple {
    let free: Vec<IntTuple> = (0..shape.rank())
        .filter(|&k| fixed.get(k).is_none_or(Option::is_none))
        .filter_map(|k| shape.mode(k).cloned())
        .collect();
    if free.len() == 1 {
        free.into_iter().next().unwrap_or(IntTuple::Int(1))
    } else {
        IntTuple::Tuple(free)
    }
}

/// For each 1-D index of the slice, the 1-D index in `shape` it is.
fn slice_indices(
    shape: &IntTuple,
    free_shape: &IntTuple,
    fixed: &[Option<i64>],
) -> Result<Vec<usize>, Rc<str>> {
    let rank = shape.rank();
    // CuTe does not check a coordinate; past its mode it would name another mode's value.
    for (k, c) in fixed.iter().enumerate() {
        let extent = shape.mode(k).map(IntTuple::product);
        if let (Some(c), Some(e)) = (c, extent)
            && !(0..e).contains(c)
        {
            return Err(Rc::from(format!(
                "the slice's coordinate {c} along mode {k} is outside the mode's extent {e}"
            )));
        }
    }
    let free_count = (0..rank)
        .filter(|&k| fixed.get(k).is_none_or(Option::is_none))
        .count();
    (0..free_shape.product())
        .map(|r| {
            let free = idx2crd(r, free_shape);
            let mut free = if free_count == 1 {
                vec![free].into_iter()
            } else {
                free.modes().into_iter()
            };
            let full: Vec<IntTuple> = (0..rank)
                .map(|k| match fixed.get(k).copied().flatten() {
                    Some(c) => IntTuple::Int(c),
                    None => free.next().unwrap_or(IntTuple::Int(0)),
                })
                .collect();
            crd2flat(&IntTuple::Tuple(full), shape)
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| Rc::from("a slice banklint cannot index"))
        })
        .collect()
}

/// The 1-D index of a coordinate in `shape` (an integer is one already).
fn flat_index(c: &IntTuple, shape: &IntTuple) -> Option<i64> {
    match (c, shape) {
        (IntTuple::Int(i), _) => Some(*i),
        (IntTuple::Tuple(items), IntTuple::Tuple(modes)) if items.len() <= modes.len() => {
            crd2flat(c, shape)
        }
        (IntTuple::Tuple(items), IntTuple::Int(_)) if items.len() == 1 => {
            flat_index(&items[0], shape)
        }
        _ => None,
    }
}
