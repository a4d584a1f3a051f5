//! CuTe's integer tuples: an integer or a tuple of them, nested. Shapes, strides and
//! coordinates are all of this form; a coordinate may also be a single integer for a shape
//! of any depth (read colexicographically, first mode fastest).

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntTuple {
    Int(i64),
    Tuple(Vec<IntTuple>),
}

impl IntTuple {
    pub fn tuple(items: Vec<IntTuple>) -> IntTuple {
        IntTuple::Tuple(items)
    }

    /// `(a, b, ...)` of plain integers.
    pub fn ints(items: &[i64]) -> IntTuple {
        IntTuple::Tuple(items.iter().map(|&i| IntTuple::Int(i)).collect())
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            IntTuple::Int(i) => Some(*i),
            IntTuple::Tuple(_) => None,
        }
    }

    /// The number of top-level modes: 1 for an integer.
    pub fn rank(&self) -> usize {
        match self {
            IntTuple::Int(_) => 1,
            IntTuple::Tuple(t) => t.len(),
        }
    }

    /// Mode `i`: an integer is its own only mode.
    pub fn mode(&self, i: usize) -> Option<&IntTuple> {
        match self {
            IntTuple::Int(_) if i == 0 => Some(self),
            IntTuple::Int(_) => None,
            IntTuple::Tuple(t) => t.get(i),
        }
    }

    /// The top-level modes (an integer is one).
    pub fn modes(&self) -> Vec<IntTuple> {
        match self {
            IntTuple::Int(_) => vec![self.clone()],
            IntTuple::Tuple(t) => t.clone(),
        }
    }

    /// The product of every integer in it (a shape's number of coordinates); saturating.
    pub fn product(&self) -> i64 {
        match self {
            IntTuple::Int(i) => *i,
            IntTuple::Tuple(t) => t.iter().fold(1i64, |p, x| p.saturating_mul(x.product())),
        }
    }

    /// The integers in order, depth first.
    pub fn flatten(&self) -> Vec<i64> {
        let mut out = Vec::new();
        self.flatten_into(&mut out);
        out
    }

    fn flatten_into(&self, out: &mut Vec<i64>) {
        match self {
            IntTuple::Int(i) => out.push(*i),
            IntTuple::Tuple(t) => t.iter().for_each(|x| x.flatten_into(out)),
        }
    }

    /// Whether `other` has the same nesting (congruent: both integers, or tuples of the same
    /// length whose modes are congruent).
    pub fn congruent(&self, other: &IntTuple) -> bool {
        match (self, other) {
            (IntTuple::Int(_), IntTuple::Int(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }

    /// A tuple of the same nesting with every integer replaced by `f` of it.
    pub fn map(&self, f: &dyn Fn(i64) -> i64) -> IntTuple {
        match self {
            IntTuple::Int(i) => IntTuple::Int(f(*i)),
            IntTuple::Tuple(t) => IntTuple::Tuple(t.iter().map(|x| x.map(f)).collect()),
        }
    }

    /// The compact column-major strides of this shape, starting at `start`: each mode's
    /// stride is the product of the sizes before it (`(4, (2, 3))` -> `(1, (4, 8))`).
    pub fn column_major(&self, start: i64) -> IntTuple {
        let mut next = start;
        self.column_major_from(&mut next)
    }

    fn column_major_from(&self, next: &mut i64) -> IntTuple {
        match self {
            IntTuple::Int(s) => {
                let d = *next;
                *next = next.saturating_mul(*s);
                IntTuple::Int(d)
            }
            IntTuple::Tuple(t) => {
                IntTuple::Tuple(t.iter().map(|x| x.column_major_from(next)).collect())
            }
        }
    }

    /// The compact row-major strides of this shape: the last mode fastest, each top-level
    /// mode's own modes column-major within it, as CuTe's `GenRowMajor` makes them.
    pub fn row_major(&self) -> IntTuple {
        match self {
            IntTuple::Int(_) => IntTuple::Int(1),
            IntTuple::Tuple(t) => {
                let mut next = 1i64;
                let mut out: Vec<IntTuple> = t
                    .iter()
                    .rev()
                    .map(|x| x.column_major_from(&mut next))
                    .collect();
                out.reverse();
                IntTuple::Tuple(out)
            }
        }
    }
}

impl fmt::Display for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntTuple::Int(i) => write!(f, "{i}"),
            IntTuple::Tuple(t) => {
                write!(f, "(")?;
                for (k, x) in t.iter().enumerate() {
                    if k > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// The natural coordinate (congruent to `shape`) of the 1-D index `i`, colexicographic: the
/// first mode fastest, the last mode taking what is left (an index past the end stays in it).
pub fn idx2crd(i: i64, shape: &IntTuple) -> IntTuple {
    match shape {
        IntTuple::Int(_) => IntTuple::Int(i),
        IntTuple::Tuple(t) => {
            let mut rest = i;
            let n = t.len();
            let mut out = Vec::with_capacity(n);
            for (k, s) in t.iter().enumerate() {
                let size = s.product().max(1);
                if k + 1 == n {
                    out.push(idx2crd(rest, s));
                } else {
                    out.push(idx2crd(rest % size, s));
                    rest /= size;
                }
            }
            IntTuple::Tuple(out)
        }
    }
}

/// The offset of coordinate `c` under `shape` and `stride` (congruent): the inner product of
/// the natural coordinate and the strides. An integer coordinate of a tuple mode is first
/// made natural; `None` when `c` has more modes than the shape.
pub fn crd2idx(c: &IntTuple, shape: &IntTuple, stride: &IntTuple) -> Option<i64> {
    match (c, shape, stride) {
        (IntTuple::Int(i), IntTuple::Int(_), IntTuple::Int(d)) => Some(i.wrapping_mul(*d)),
        (IntTuple::Int(i), IntTuple::Tuple(_), _) => crd2idx(&idx2crd(*i, shape), shape, stride),
        (IntTuple::Tuple(cs), IntTuple::Tuple(ss), IntTuple::Tuple(ds)) => {
            if cs.len() > ss.len() || ss.len() != ds.len() {
                return None;
            }
            let mut sum = 0i64;
            for (k, (s, d)) in ss.iter().zip(ds).enumerate() {
                // Missing trailing coordinates are 0.
                let ck = cs.get(k).cloned().unwrap_or(IntTuple::Int(0));
                sum = sum.wrapping_add(crd2idx(&ck, s, d)?);
            }
            Some(sum)
        }
        // A one-mode tuple coordinate of an integer mode.
        (IntTuple::Tuple(cs), IntTuple::Int(_), IntTuple::Int(_)) if cs.len() == 1 => {
            crd2idx(&cs[0], shape, stride)
        }
        _ => None,
    }
}

/// The colexicographic 1-D index of a natural coordinate `c` under `shape` (the inverse of
/// [`idx2crd`]); an integer coordinate is taken as already 1-D.
pub fn crd2flat(c: &IntTuple, shape: &IntTuple) -> Option<i64> {
    match (c, shape) {
        (IntTuple::Int(i), _) => Some(*i),
        (IntTuple::Tuple(cs), IntTuple::Tuple(ss)) => {
            if cs.len() > ss.len() {
                return None;
            }
            let mut index = 0i64;
            let mut scale = 1i64;
            for (k, s) in ss.iter().enumerate() {
                let ck = cs.get(k).cloned().unwrap_or(IntTuple::Int(0));
                index = index.wrapping_add(crd2flat(&ck, s)?.wrapping_mul(scale));
                scale = scale.saturating_mul(s.product());
            }
            Some(index)
        }
        (IntTuple::Tuple(cs), IntTuple::Int(_)) if cs.len() == 1 => crd2flat(&cs[0], shape),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(items: Vec<IntTuple>) -> IntTuple {
        IntTuple::Tuple(items)
    }
    fn i(v: i64) -> IntTuple {
        IntTuple::Int(v)
    }

    #[test]
    fn column_major_strides_are_prefix_products() {
        // (4, (2, 3)) -> (1, (4, 8)), as CuTe's compact column-major layouts.
        let shape = t(vec![i(4), IntTuple::ints(&[2, 3])]);
        assert_eq!(
            shape.column_major(1),
            t(vec![i(1), IntTuple::ints(&[4, 8])])
        );
        assert_eq!(shape.product(), 24);
    }

    #[test]
    fn row_major_strides_put_the_last_mode_fastest() {
        // GenRowMajor of (4, 8) is (8, 1); of (2, 3, 4) is (12, 4, 1).
        assert_eq!(IntTuple::ints(&[4, 8]).row_major(), IntTuple::ints(&[8, 1]));
        assert_eq!(
            IntTuple::ints(&[2, 3, 4]).row_major(),
            IntTuple::ints(&[12, 4, 1])
        );
    }

    #[test]
    fn coordinates_are_colexicographic() {
        // The documentation's (3, (2, 3)) example: index 16 is (1, (1, 2)).
        let shape = t(vec![i(3), IntTuple::ints(&[2, 3])]);
        assert_eq!(idx2crd(16, &shape), t(vec![i(1), IntTuple::ints(&[1, 2])]));
        assert_eq!(crd2flat(&idx2crd(16, &shape), &shape), Some(16));
        // Every index round-trips.
        for k in 0..18 {
            assert_eq!(crd2flat(&idx2crd(k, &shape), &shape), Some(k));
        }
    }

    #[test]
    fn offsets_are_inner_products_with_the_strides() {
        // (3, (2, 3)):(3, (12, 1)) from the documentation: coordinate (1, (1, 2)) is 3 + 12 + 2.
        let shape = t(vec![i(3), IntTuple::ints(&[2, 3])]);
        let stride = t(vec![i(3), IntTuple::ints(&[12, 1])]);
        let c = t(vec![i(1), IntTuple::ints(&[1, 2])]);
        assert_eq!(crd2idx(&c, &shape, &stride), Some(17));
        // The same through the 1-D index and through a 2-D coordinate (1, 5).
        assert_eq!(crd2idx(&i(16), &shape, &stride), Some(17));
        assert_eq!(crd2idx(&IntTuple::ints(&[1, 5]), &shape, &stride), Some(17));
    }
}
