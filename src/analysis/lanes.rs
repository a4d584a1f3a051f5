//! A variable's values across the threads of the block: one value that every thread holds
//! (which is also how uniformity is known), a warp-uniform affine part plus one integer per
//! thread, or one [`Value`] per thread.
//!
//! The middle form holds thread indices and what arithmetic makes of them: `4 * tid + 1` is
//! two loops over plain integers, not one symbolic evaluation per thread. Every operation on
//! it gives, thread by thread, exactly what [`value::binary`] gives on the threads' own
//! values; an operation the form does not keep falls back to that, thread by thread.

use super::value::{self, Affine, BinOp, Symbols, Value};
use std::borrow::Cow;
use std::rc::Rc;

/// Thread `t` holds `base + offsets[t]` (added as the GPU adds, wrapping).
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    pub base: Affine,
    pub offsets: Vec<i64>,
}

#[derive(Clone, Debug)]
pub enum Lanes {
    /// The same value in every thread, known to be so.
    Same(Value),
    /// A uniform part and one integer per thread. Never taken as uniform, even where the
    /// integers agree, as a vector of equal values is not: uniformity is what is known.
    Spread(Rc<Spread>),
    /// One value per thread.
    Each(Rc<Vec<Value>>),
}

/// `a op b` where each side holds one value in every thread of a warp (`warp_id % 2` with
/// `warp_id = tid / 32`; `(2 + threadIdx.y) * C / 8` when a warp is one row of the block):
/// bank conflicts are a warp's, so the result is one value per warp, a new uniform unknown
/// where it is not affine, rather than an unknown in each thread. Threads are in warp order
/// (32 consecutive ones a warp).
fn per_warp(op: BinOp, a: &Lanes, b: &Lanes, n: usize, syms: &mut Symbols) -> Option<Lanes> {
    let warp = crate::bank::engine::WARP_SIZE;
    let mut values: Vec<Value> = Vec::with_capacity(n);
    for start in (0..n).step_by(warp) {
        let threads = start..(start + warp).min(n);
        let (x, y) = (a.common_in(threads.clone())?, b.common_in(threads.clone())?);
        let v = value::binary(op, &x, &y, true, syms);
        values.extend(std::iter::repeat_n(v, threads.len()));
    }
    if n <= warp {
        return values.pop().map(Lanes::Same);
    }
    Some(Lanes::Each(Rc::new(values)))
}

/// A side of an operation seen as `base + offset(t)`: a `Same` affine value has no offsets.
#[derive(Clone, Copy)]
struct View<'a> {
    base: &'a Affine,
    offsets: Option<&'a [i64]>,
}

impl View<'_> {
    fn offset(&self, t: usize) -> i64 {
        self.offsets.map_or(0, |o| o[t])
    }

    /// The thread's value when the form has no symbolic terms.
    fn constant(&self, t: usize) -> i64 {
        self.base.constant.wrapping_add(self.offset(t))
    }

    /// The one integer every thread holds, where it is one.
    fn uniform_constant(&self) -> Option<i64> {
        (self.offsets.is_none() && self.base.terms.is_empty()).then_some(self.base.constant)
    }

    fn has_terms(&self) -> bool {
        !self.base.terms.is_empty()
    }
}

impl Lanes {
    pub fn int(c: i64) -> Lanes {
        Lanes::Same(Value::int(c))
    }

    pub fn unknown(reason: impl Into<String>) -> Lanes {
        Lanes::Same(Value::unknown(reason))
    }

    /// `base + offsets[t]` in thread `t`.
    pub fn spread(base: Affine, offsets: Vec<i64>) -> Lanes {
        Lanes::Spread(Rc::new(Spread { base, offsets }))
    }

    /// One integer per thread.
    pub fn ints(values: Vec<i64>) -> Lanes {
        Lanes::spread(Affine::default(), values)
    }

    pub fn get(&self, thread: usize) -> Cow<'_, Value> {
        match self {
            Lanes::Same(v) => Cow::Borrowed(v),
            Lanes::Each(vs) => Cow::Borrowed(&vs[thread]),
            Lanes::Spread(s) => Cow::Owned(Value::Affine(Affine {
                constant: s.base.constant.wrapping_add(s.offsets[thread]),
                terms: s.base.terms.clone(),
            })),
        }
    }

    /// A thread's value as its constant and its symbolic terms, without building it; `None`
    /// for an unknown.
    pub fn affine_at(&self, thread: usize) -> Option<(i64, &[(value::Sym, i64)])> {
        let a = match self {
            Lanes::Same(Value::Affine(a)) => a,
            Lanes::Each(vs) => vs[thread].as_affine()?,
            Lanes::Spread(s) => {
                return Some((
                    s.base.constant.wrapping_add(s.offsets[thread]),
                    &s.base.terms,
                ));
            }
            Lanes::Same(Value::Unknown(_)) => return None,
        };
        Some((a.constant, &a.terms))
    }

    /// A thread's integer, where its value is one.
    pub fn const_at(&self, thread: usize) -> Option<i64> {
        match self.affine_at(thread)? {
            (c, []) => Some(c),
            _ => None,
        }
    }

    /// The value every thread of `threads` holds, where they hold one (a spread whose
    /// integers agree there, or equal values thread by thread).
    fn common_in(&self, threads: std::ops::Range<usize>) -> Option<Value> {
        match self {
            Lanes::Same(v) => Some(v.clone()),
            Lanes::Spread(s) => {
                let offsets = s.offsets.get(threads)?;
                let first = *offsets.first()?;
                (offsets.iter().all(|&o| o == first)).then(|| {
                    Value::Affine(Affine {
                        constant: s.base.constant.wrapping_add(first),
                        terms: s.base.terms.clone(),
                    })
                })
            }
            Lanes::Each(vs) => {
                let values = vs.get(threads)?;
                let first = values.first()?;
                (first.as_affine().is_some() && values.iter().all(|v| v == first))
                    .then(|| first.clone())
            }
        }
    }

    /// Whether a thread holds the same value in both, without building either.
    pub fn same_at(&self, other: &Lanes, thread: usize) -> bool {
        match (self.affine_at(thread), other.affine_at(thread)) {
            (Some(a), Some(b)) => a == b,
            (None, None) => self.get(thread) == other.get(thread),
            _ => false,
        }
    }

    /// Whether every one of the first `n` threads holds the same value in both.
    pub fn same_in(&self, other: &Lanes, n: usize) -> bool {
        if let (Lanes::Spread(a), Lanes::Spread(b)) = (self, other)
            && (Rc::ptr_eq(a, b) || a == b)
        {
            return true;
        }
        (0..n).all(|t| self.same_at(other, t))
    }

    /// Whether both are the same lanes: one vector shared, or one value (cheap, and false
    /// does not mean they differ).
    pub fn is_same_as(&self, other: &Lanes) -> bool {
        match (self, other) {
            (Lanes::Same(a), Lanes::Same(b)) => a == b,
            (Lanes::Spread(a), Lanes::Spread(b)) => Rc::ptr_eq(a, b),
            (Lanes::Each(a), Lanes::Each(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// A branch's join of two spread forms with the same terms: `a` where only `from_a`
    /// holds, `b` where only `from_b` does, and where both do, their common value; `None`
    /// where they differ there (the thread may hold either) or the forms do not fit. As
    /// per-thread values, the result is one value when the threads all agree.
    pub fn choose(a: &Lanes, b: &Lanes, from_a: &[bool], from_b: &[bool]) -> Option<Lanes> {
        let (x, y) = (a.view()?, b.view()?);
        if x.base.terms != y.base.terms {
            return None;
        }
        let shift = x.base.constant.wrapping_sub(y.base.constant);
        let offsets = per_thread(from_a.len(), |t| {
            let from_x = shift.wrapping_add(x.offset(t));
            match (from_a[t], from_b[t]) {
                (true, true) if from_x != y.offset(t) => None,
                (true, false) => Some(from_x),
                _ => Some(y.offset(t)),
            }
        })?;
        let first = *offsets.first()?;
        Some(if offsets.iter().all(|&o| o == first) {
            Lanes::Same(Value::Affine(Affine {
                constant: y.base.constant.wrapping_add(first),
                terms: y.base.terms.clone(),
            }))
        } else {
            Lanes::spread(y.base.clone(), offsets)
        })
    }

    pub fn is_uniform(&self) -> bool {
        matches!(self, Lanes::Same(_))
    }

    /// Whether the warp shares a value known as such: a constant or a form over uniform
    /// symbols. An unknown held once (`Lanes::unknown`) claims nothing about its lanes.
    pub fn is_known_uniform(&self) -> bool {
        matches!(self, Lanes::Same(Value::Affine(_)))
    }

    pub fn as_const(&self) -> Option<i64> {
        match self {
            Lanes::Same(v) => v.as_const(),
            _ => None,
        }
    }

    fn view(&self) -> Option<View<'_>> {
        match self {
            Lanes::Same(Value::Affine(a)) => Some(View {
                base: a,
                offsets: None,
            }),
            Lanes::Spread(s) => Some(View {
                base: &s.base,
                offsets: Some(&s.offsets),
            }),
            _ => None,
        }
    }

    pub fn map(&self, mut f: impl FnMut(&Value) -> Value) -> Lanes {
        match self {
            Lanes::Same(v) => Lanes::Same(f(v)),
            Lanes::Each(vs) => Lanes::Each(Rc::new(vs.iter().map(f).collect())),
            Lanes::Spread(s) => Lanes::Each(Rc::new(
                (0..s.offsets.len()).map(|t| f(&self.get(t))).collect(),
            )),
        }
    }

    /// Per-thread values as lanes: one value if they all agree, a spread form if they differ in
    /// their constants only.
    pub fn from_values(values: Vec<Value>) -> Lanes {
        let Some(Value::Affine(first)) = values.first() else {
            return Lanes::Each(Rc::new(values));
        };
        if values.iter().all(|v| v.as_affine() == Some(first)) {
            return Lanes::Same(Value::Affine(first.clone()));
        }
        let offsets: Option<Vec<i64>> = values
            .iter()
            .map(|v| {
                v.as_affine()
                    .filter(|a| a.terms == first.terms)
                    .map(|a| a.constant.wrapping_sub(first.constant))
            })
            .collect();
        match offsets {
            Some(offsets) => Lanes::spread(first.clone(), offsets),
            None => Lanes::Each(Rc::new(values)),
        }
    }

    /// What [`Lanes::from_values`] gives for these lanes' own `n` values, where that differs:
    /// a branch join of a variable neither side wrote, without building the per-thread
    /// vector. One unknown held once becomes one per thread; values that all agree become one.
    pub fn recompressed(&self, n: usize) -> Option<Lanes> {
        match self {
            Lanes::Same(Value::Affine(_)) => None,
            Lanes::Same(u @ Value::Unknown(_)) => Some(Lanes::Each(Rc::new(vec![u.clone(); n]))),
            Lanes::Each(vs) => match vs.first() {
                Some(first @ Value::Affine(_)) if vs.iter().all(|x| x == first) => {
                    Some(Lanes::Same(first.clone()))
                }
                _ => None,
            },
            Lanes::Spread(s) => match s.offsets.first() {
                Some(&first) if s.offsets.iter().all(|&o| o == first) => {
                    Some(Lanes::Same(self.get(0).into_owned()))
                }
                _ => None,
            },
        }
    }

    /// Applies a binary operator thread by thread.
    pub fn binary(op: BinOp, a: &Lanes, b: &Lanes, n: usize, syms: &mut Symbols) -> Lanes {
        match (a, b) {
            (Lanes::Same(x), Lanes::Same(y)) => Lanes::Same(value::binary(op, x, y, true, syms)),
            _ => {
                if let (Some(x), Some(y)) = (a.view(), b.view())
                    && let Some(r) = spread_binary(op, x, y, n)
                        .or_else(|| coarse_division(op, x, y, n, syms))
                        .or_else(|| coarse_bitwise(op, x, y, n, syms))
                {
                    return r;
                }
                if let Some(r) = per_warp(op, a, b, n, syms) {
                    return r;
                }
                Lanes::Each(Rc::new(
                    (0..n)
                        .map(|t| value::binary(op, &a.get(t), &b.get(t), false, syms))
                        .collect(),
                ))
            }
        }
    }

    /// Takes `new` in threads where `mask` is set, keeps `self` elsewhere.
    pub fn merge(&self, new: &Lanes, mask: &[bool]) -> Lanes {
        if mask.iter().all(|&m| m) {
            return new.clone();
        }
        if !mask.iter().any(|&m| m) {
            return self.clone();
        }
        if let (Lanes::Same(a), Lanes::Same(b)) = (self, new)
            && a == b
        {
            return self.clone();
        }
        if let (Some(old), Some(new)) = (self.view(), new.view())
            && old.base.terms == new.base.terms
        {
            // Both sides share their terms: the threads differ in integers only.
            let shift = new.base.constant.wrapping_sub(old.base.constant);
            let offsets = mask
                .iter()
                .enumerate()
                .map(|(t, &m)| {
                    if m {
                        shift.wrapping_add(new.offset(t))
                    } else {
                        old.offset(t)
                    }
                })
                .collect();
            return Lanes::spread(old.base.clone(), offsets);
        }
        Lanes::Each(Rc::new(
            mask.iter()
                .enumerate()
                .map(|(t, &m)| {
                    if m {
                        new.get(t).into_owned()
                    } else {
                        self.get(t).into_owned()
                    }
                })
                .collect(),
        ))
    }
}

/// `f` for every thread, or `None` if it fails for one.
fn per_thread(n: usize, f: impl Fn(usize) -> Option<i64>) -> Option<Vec<i64>> {
    let mut out = Vec::with_capacity(n);
    for t in 0..n {
        out.push(f(t)?);
    }
    Some(out)
}

/// `f` for every thread, where it cannot fail.
fn each_thread(n: usize, f: impl Fn(usize) -> i64) -> Vec<i64> {
    (0..n).map(f).collect()
}

/// `(g*B + r(t)) % m` and `(g*B + r(t)) / m` where `g`, the common factor of the symbolic
/// terms, divides `m`, and every thread's `r(t)` is in `[0, g)`: the thread's part never
/// carries into the next multiple of `g`, so the result is `g * (B % (m/g)) + r(t)`, and
/// `B / (m/g)` in every thread. `threadIdx.x % 128` with the warp's position unknown
/// (`32*W + lane`) is `32 * (W % 4) + lane`: the lane survives, the warp's part is one
/// uniform unknown.
fn coarse_division(
    op: BinOp,
    x: View,
    y: View,
    n: usize,
    syms: &mut value::Symbols,
) -> Option<Lanes> {
    if !matches!(op, BinOp::Div | BinOp::Shr | BinOp::Rem) || !x.has_terms() {
        return None;
    }
    let m = value::split_modulus(op, y.uniform_constant()?).filter(|&m| m > 0)?;
    let terms = Affine {
        constant: 0,
        terms: x.base.terms.clone(),
    };
    let g = terms.content();
    if g <= 1 || m % g != 0 {
        return None;
    }
    let rest = per_thread(n, |t| {
        let c = x.constant(t);
        (0..g).contains(&c).then_some(c)
    })?;
    let b = terms.divide_exact(g);
    let k = Affine {
        constant: m / g,
        terms: Vec::new(),
    };
    Some(match op {
        BinOp::Rem => {
            let q = syms.opaque(BinOp::Rem, &b, &k);
            Lanes::spread(
                Affine {
                    constant: 0,
                    terms: vec![(q, g)],
                },
                rest,
            )
        }
        _ => {
            let q = syms.opaque(BinOp::Div, &b, &k);
            Lanes::Same(Value::sym(q))
        }
    })
}

/// `(A*B + r(t)) op k` for `&`, `|` and `^` with a constant `k >= 0`, where `A`, a power of
/// two, divides every symbolic coefficient and every thread's `r(t)` is in `[0, A)`: the
/// symbolic part and the thread's part hold disjoint bits, and so do `k`'s high and low
/// parts, so the result is `(A*B op k_high) + (r(t) op k_low)`: the thread's part exactly, the
/// warp's a uniform unknown. A bitonic sort's partner `tid ^ j` with `j >= 32` on a warp whose
/// place is unknown (`32*W + lane`) keeps its lanes.
fn coarse_bitwise(
    op: BinOp,
    x: View,
    y: View,
    n: usize,
    syms: &mut value::Symbols,
) -> Option<Lanes> {
    if !matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) {
        return None;
    }
    let (form, k) = match (x.has_terms(), y.has_terms()) {
        (true, false) => (x, y.uniform_constant()?),
        (false, true) => (y, x.uniform_constant()?),
        _ => return None,
    };
    if k < 0 {
        return None;
    }
    let symbolic = Affine {
        constant: 0,
        terms: form.base.terms.clone(),
    };
    // The largest power of two dividing every coefficient.
    let align = 1i64 << symbolic.content().trailing_zeros().min(62);
    if align <= 1 {
        return None;
    }
    let low = per_thread(n, |t| {
        let c = form.constant(t);
        (0..align).contains(&c).then_some(c)
    })?;
    let (k_high, k_low) = (k & !(align - 1), k & (align - 1));
    let high = value::binary(
        op,
        &Value::Affine(symbolic),
        &Value::int(k_high),
        true,
        syms,
    );
    let Value::Affine(base) = high else {
        return None;
    };
    let offsets = low
        .into_iter()
        .map(|c| match op {
            BinOp::And => c & k_low,
            BinOp::Or => c | k_low,
            _ => c ^ k_low,
        })
        .collect();
    Some(Lanes::spread(base, offsets))
}

/// `x op y` on two spread forms, thread by thread as [`value::binary`] computes it, where the
/// result is a spread form again; `None` sends the operation to the per-thread path.
fn spread_binary(op: BinOp, x: View, y: View, n: usize) -> Option<Lanes> {
    if !x.has_terms() && !y.has_terms() {
        // Integers in every thread: C's arithmetic (`value::binary` on two constants).
        let (p, q) = (|t| x.constant(t), |t| y.constant(t));
        // The common operators in a loop the compiler can vectorize; the rest as C folds them.
        let values = match op {
            BinOp::Add => each_thread(n, |t| p(t).wrapping_add(q(t))),
            BinOp::Sub => each_thread(n, |t| p(t).wrapping_sub(q(t))),
            BinOp::Mul => each_thread(n, |t| p(t).wrapping_mul(q(t))),
            BinOp::And => each_thread(n, |t| p(t) & q(t)),
            BinOp::Or => each_thread(n, |t| p(t) | q(t)),
            BinOp::Xor => each_thread(n, |t| p(t) ^ q(t)),
            BinOp::Shl | BinOp::Shr => each_thread(n, |t| {
                crate::analysis::intrinsics::shift(op == BinOp::Shl, p(t), q(t), 64)
            }),
            _ => per_thread(n, |t| value::fold(op, p(t), q(t)))?,
        };
        return Some(Lanes::ints(values));
    }
    let spread = |base: Affine, offsets: Option<Vec<i64>>| Some(Lanes::spread(base, offsets?));
    match op {
        BinOp::Add | BinOp::Sub => {
            let sign = if op == BinOp::Add { 1 } else { -1 };
            spread(
                x.base.add(y.base, sign),
                per_thread(n, |t| {
                    Some(x.offset(t).wrapping_add(sign.wrapping_mul(y.offset(t))))
                }),
            )
        }
        BinOp::Mul | BinOp::Shl => {
            let (form, k) = match (x.uniform_constant(), y.uniform_constant()) {
                (_, Some(k)) if x.has_terms() => (x, k),
                (Some(k), _) if op == BinOp::Mul && y.has_terms() => (y, k),
                _ => return None,
            };
            let k = match op {
                BinOp::Shl if (0..62).contains(&k) => 1 << k,
                BinOp::Shl => return None,
                _ => k,
            };
            spread(
                form.base.scale(k),
                per_thread(n, |t| Some(form.offset(t).wrapping_mul(k))),
            )
        }
        BinOp::Div | BinOp::Shr | BinOp::Rem => {
            let m = value::split_modulus(op, y.uniform_constant()?).filter(|&m| m > 0)?;
            let terms = &x.base.terms;
            let base = Affine {
                constant: 0,
                terms: match op {
                    BinOp::Rem => Vec::new(),
                    _ => terms.iter().map(|&(s, c)| (s, c / m)).collect(),
                },
            };
            spread(
                base,
                per_thread(n, |t| value::split(op, terms, x.constant(t), m)),
            )
        }
        BinOp::And | BinOp::Or | BinOp::Xor => {
            // As `value::binary`: the side with terms is the form, the other the constant.
            let (form, k) = match (x.has_terms(), y.has_terms()) {
                (true, false) => (x, y),
                (false, true) => (y, x),
                _ => return None,
            };
            let terms = &form.base.terms;
            let base = Affine {
                constant: 0,
                terms: if op == BinOp::And {
                    Vec::new()
                } else {
                    terms.clone()
                },
            };
            spread(
                base,
                per_thread(n, |t| {
                    value::low_bits(op, terms, form.constant(t), k.constant(t))
                }),
            )
        }
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne
            if x.base.terms == y.base.terms =>
        {
            spread(
                Affine::default(),
                per_thread(n, |t| {
                    value::fold(op, x.constant(t).wrapping_sub(y.constant(t)), 0)
                }),
            )
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recompressed_is_compress_of_the_threads_own_values() {
        let n = 4;
        let a = Value::int(7);
        let u = Value::unknown("why");
        let cases = [
            Lanes::Same(a.clone()),
            Lanes::Same(u.clone()),
            Lanes::Each(Rc::new(vec![a.clone(); n])),
            Lanes::Each(Rc::new(vec![
                a.clone(),
                Value::int(8),
                a.clone(),
                a.clone(),
            ])),
            Lanes::Each(Rc::new(vec![u.clone(); n])),
            Lanes::ints(vec![3; n]),
            Lanes::ints(vec![3, 4, 3, 3]),
        ];
        for v in cases {
            let expected = Lanes::from_values((0..n).map(|t| v.get(t).into_owned()).collect());
            let got = v.recompressed(n).unwrap_or_else(|| v.clone());
            assert!(got.same_in(&expected, n), "{v:?}");
            assert_eq!(got.is_uniform(), expected.is_uniform(), "{v:?}");
        }
    }

    /// `threadIdx.x` of one warp at an unknown position: `32*W + lane`.
    fn symbolic_warp(syms: &mut Symbols) -> (crate::analysis::value::Sym, Lanes) {
        let w = syms.fresh("W");
        let tid = Lanes::spread(
            Affine {
                constant: 0,
                terms: vec![(w, 32)],
            },
            (0..32).collect(),
        );
        (w, tid)
    }

    #[test]
    fn thread_indices_stay_integers_through_index_arithmetic() {
        // `(tid % 8) * 33 + (tid / 8) * 4` over a symbolic warp: threads differ in integers only.
        let mut syms = Symbols::default();
        let (w, tid) = symbolic_warp(&mut syms);
        let col = Lanes::binary(BinOp::Rem, &tid, &Lanes::int(8), 32, &mut syms);
        let row = Lanes::binary(BinOp::Div, &tid, &Lanes::int(8), 32, &mut syms);
        let a = Lanes::binary(BinOp::Mul, &col, &Lanes::int(33), 32, &mut syms);
        let b = Lanes::binary(BinOp::Mul, &row, &Lanes::int(4), 32, &mut syms);
        let index = Lanes::binary(BinOp::Add, &a, &b, 32, &mut syms);
        let Lanes::Spread(s) = &index else {
            panic!("{index:?}")
        };
        assert_eq!(s.base.terms, vec![(w, 16)]);
        assert_eq!(s.offsets[9], 33 + 4);
    }

    #[test]
    fn a_modulus_wider_than_a_warp_keeps_the_lane_and_folds_the_warp() {
        // `(threadIdx.x % 128) / 32` over a symbolic warp `32*W + lane`: the warp within its
        // group of four, one value for the whole warp; `% 128` keeps each lane's offset.
        let mut syms = Symbols::default();
        let (_, tid) = symbolic_warp(&mut syms);
        let in_group = Lanes::binary(BinOp::Rem, &tid, &Lanes::int(128), 32, &mut syms);
        let Lanes::Spread(s) = &in_group else {
            panic!("{in_group:?}")
        };
        assert_eq!(s.offsets[5], 5);
        assert_eq!(s.base.terms.len(), 1);
        assert_eq!(s.base.terms[0].1, 32);
        let warp = Lanes::binary(BinOp::Div, &in_group, &Lanes::int(32), 32, &mut syms);
        assert!((0..32).all(|t| warp.get(t) == warp.get(0)), "{warp:?}");
        assert!(
            matches!(&*warp.get(0), Value::Affine(a) if a.terms.len() == 1),
            "{warp:?}"
        );
        // Directly: `threadIdx.x / 128` is uniform too.
        let group = Lanes::binary(BinOp::Div, &tid, &Lanes::int(128), 32, &mut syms);
        assert!(group.is_uniform(), "{group:?}");
        // A thread part that reaches the next multiple (`tid + 40`) is not split so.
        let shifted = Lanes::binary(BinOp::Add, &tid, &Lanes::int(40), 32, &mut syms);
        let r = Lanes::binary(BinOp::Rem, &shifted, &Lanes::int(128), 32, &mut syms);
        assert!(!matches!(r, Lanes::Spread(_)), "{r:?}");
    }

    #[test]
    fn bitwise_with_a_constant_splits_the_warp_bits_from_the_lane_bits() {
        // `threadIdx.x ^ 65` over `32*W + lane`: lane ^ 1 in each thread, and one uniform
        // unknown `(32*W) ^ 64` for the warp.
        let mut syms = Symbols::default();
        let (_, tid) = symbolic_warp(&mut syms);
        for (op, k, lane5) in [
            (BinOp::Xor, 65, 4),
            (BinOp::Or, 64 + 2, 7),
            (BinOp::And, 96 + 3, 1),
        ] {
            let r = Lanes::binary(op, &tid, &Lanes::int(k), 32, &mut syms);
            let Lanes::Spread(s) = &r else {
                panic!("{op:?} {r:?}")
            };
            assert_eq!(s.offsets[5], lane5, "{op:?}");
            assert_eq!(s.base.terms.len(), 1, "{op:?}");
        }
        // A thread part past the symbolic part's alignment is not split so.
        let shifted = Lanes::binary(BinOp::Add, &tid, &Lanes::int(40), 32, &mut syms);
        let r = Lanes::binary(BinOp::Xor, &shifted, &Lanes::int(64), 32, &mut syms);
        assert!(!matches!(r, Lanes::Spread(_)), "{r:?}");
    }
}
