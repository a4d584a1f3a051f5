//! Values the index analyzer computes for each thread: an integer, an affine form over
//! warp-uniform unknowns (`blockIdx.x`, a kernel parameter, a loop's trip count), or unknown
//! with the reason why; [`binary`] applies C's operators to them exactly. How a variable's
//! values are held across the threads is [`super::lanes`]'s.

pub use crate::arith::{BinOp, fold};
use std::collections::HashMap;
use std::rc::Rc;

/// A warp-uniform unknown.
pub type Sym = u32;

/// `constant + sum(coef * sym)`, terms sorted by symbol, no zero coefficients.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Affine {
    pub constant: i64,
    pub terms: Vec<(Sym, i64)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Affine(Affine),
    Unknown(Rc<str>),
}

impl Value {
    pub fn int(c: i64) -> Value {
        Value::Affine(Affine {
            constant: c,
            terms: Vec::new(),
        })
    }

    pub fn sym(s: Sym) -> Value {
        Value::Affine(Affine {
            constant: 0,
            terms: vec![(s, 1)],
        })
    }

    pub fn unknown(reason: impl Into<String>) -> Value {
        Value::Unknown(Rc::from(reason.into()))
    }

    pub fn as_const(&self) -> Option<i64> {
        match self {
            Value::Affine(a) if a.terms.is_empty() => Some(a.constant),
            _ => None,
        }
    }

    pub fn as_affine(&self) -> Option<&Affine> {
        match self {
            Value::Affine(a) => Some(a),
            Value::Unknown(_) => None,
        }
    }
}

impl Affine {
    pub(crate) fn scale(&self, k: i64) -> Affine {
        if k == 0 {
            return Affine::default();
        }
        Affine {
            constant: self.constant.wrapping_mul(k),
            terms: self
                .terms
                .iter()
                .map(|&(s, c)| (s, c.wrapping_mul(k)))
                .collect(),
        }
    }

    pub(crate) fn add(&self, other: &Affine, sign: i64) -> Affine {
        let mut terms = self.terms.clone();
        for &(s, c) in &other.terms {
            match terms.binary_search_by_key(&s, |t| t.0) {
                Ok(i) => {
                    terms[i].1 = terms[i].1.wrapping_add(sign.wrapping_mul(c));
                    if terms[i].1 == 0 {
                        terms.remove(i);
                    }
                }
                Err(i) => terms.insert(i, (s, sign.wrapping_mul(c))),
            }
        }
        Affine {
            constant: self
                .constant
                .wrapping_add(sign.wrapping_mul(other.constant)),
            terms,
        }
    }

    /// The greatest common divisor of the constant and every coefficient (at least 1).
    pub(crate) fn content(&self) -> i64 {
        fn gcd(a: u64, b: u64) -> u64 {
            if b == 0 { a } else { gcd(b, a % b) }
        }
        let g = self
            .terms
            .iter()
            .fold(self.constant.unsigned_abs(), |g, &(_, c)| {
                gcd(g, c.unsigned_abs())
            });
        i64::try_from(g).unwrap_or(1).max(1)
    }

    /// Every coefficient and the constant divided by `g`, which divides them all.
    pub(crate) fn divide_exact(&self, g: i64) -> Affine {
        Affine {
            constant: self.constant / g,
            terms: self.terms.iter().map(|&(s, c)| (s, c / g)).collect(),
        }
    }
}

/// What a symbol stands for: a name given where it was made, or a non-linear uniform
/// expression of older symbols, whose name is written only when a message needs it.
#[derive(Debug)]
enum Origin {
    Named(Rc<str>),
    Expression(BinOp, Affine, Affine),
}

/// Names of symbols, and memoised opaque symbols for non-linear uniform expressions.
#[derive(Default, Debug)]
pub struct Symbols {
    origins: Vec<Origin>,
    /// Names written so far, for the first `written.len()` symbols (an expression's name is
    /// built from its operands', which are older).
    written: std::cell::RefCell<Vec<Rc<str>>>,
    memo: HashMap<(BinOp, Affine, Affine), Sym>,
    /// Reasons already written, so a per-thread unknown is formatted once, not per thread.
    reasons: HashMap<(BinOp, Vec<Sym>), Rc<str>>,
}

impl Symbols {
    pub fn fresh(&mut self, name: impl Into<String>) -> Sym {
        self.origins.push(Origin::Named(Rc::from(name.into())));
        (self.origins.len() - 1) as Sym
    }

    pub fn name(&self, s: Sym) -> Rc<str> {
        let s = s as usize;
        if s >= self.origins.len() {
            return Rc::from("?");
        }
        // Write the names up to `s` in order, each from its operands' names, already written.
        while self.written.borrow().len() <= s {
            let next = self.written.borrow().len();
            let name = match &self.origins[next] {
                Origin::Named(name) => name.clone(),
                Origin::Expression(op, a, b) => Rc::from(self.expression_name(*op, a, b)),
            };
            self.written.borrow_mut().push(name);
        }
        self.written.borrow()[s].clone()
    }

    /// Names of the symbols in a form, for messages: "`n`, `blockIdx.x`".
    pub fn describe(&self, a: &Affine) -> String {
        let names: Vec<String> = a
            .terms
            .iter()
            .map(|&(s, _)| format!("`{}`", self.name(s)))
            .collect();
        names.join(", ")
    }

    pub(crate) fn opaque(&mut self, op: BinOp, a: &Affine, b: &Affine) -> Sym {
        let key = (op, a.clone(), b.clone());
        if let Some(&s) = self.memo.get(&key) {
            return s;
        }
        self.origins
            .push(Origin::Expression(op, a.clone(), b.clone()));
        let s = (self.origins.len() - 1) as Sym;
        self.memo.insert(key, s);
        s
    }

    /// `(a op b)`, cut to a bounded length.
    fn expression_name(&self, op: BinOp, a: &Affine, b: &Affine) -> String {
        let mut name = format!("({} {} {})", self.render(a), op.spelling(), self.render(b));
        if name.len() > crate::limits::MAX_SYMBOL_NAME {
            let mut cut = crate::limits::MAX_SYMBOL_NAME;
            while !name.is_char_boundary(cut) {
                cut -= 1;
            }
            name.truncate(cut);
            name.push_str("…)");
        }
        name
    }

    fn render(&self, a: &Affine) -> String {
        let mut parts: Vec<String> = a
            .terms
            .iter()
            .map(|&(s, c)| {
                if c == 1 {
                    self.name(s).to_string()
                } else {
                    format!("{c}*{}", self.name(s))
                }
            })
            .collect();
        if a.constant != 0 || parts.is_empty() {
            parts.push(a.constant.to_string());
        }
        parts.join(" + ")
    }
}

/// Applies a binary operator. `uniform` says both operands are the same in every thread,
/// so a result that is not affine can still be named as a new uniform unknown.
pub fn binary(op: BinOp, a: &Value, b: &Value, uniform: bool, syms: &mut Symbols) -> Value {
    // `0 && x` is 0 and `1 || x` is 1 whatever x is.
    match (op, a.as_const(), b.as_const()) {
        (BinOp::LogicalAnd, Some(0), _) | (BinOp::LogicalAnd, _, Some(0)) => return Value::int(0),
        (BinOp::LogicalOr, Some(c), _) | (BinOp::LogicalOr, _, Some(c)) if c != 0 => {
            return Value::int(1);
        }
        _ => {}
    }
    let (x, y) = match (a, b) {
        (Value::Unknown(r), _) | (_, Value::Unknown(r)) => return Value::Unknown(r.clone()),
        (Value::Affine(x), Value::Affine(y)) => (x, y),
    };
    if let (Some(p), Some(q)) = (a.as_const(), b.as_const()) {
        // Shift counts past the width are what the GPU computes, not undefined (see
        // `intrinsics::shift`; a 32-bit left shift by 32 to 63 is the interpreter's to clamp).
        let folded = match op {
            BinOp::Shl | BinOp::Shr => Some(crate::analysis::intrinsics::shift(
                op == BinOp::Shl,
                p,
                q,
                64,
            )),
            _ => fold(op, p, q),
        };
        return match folded {
            Some(v) => Value::int(v),
            None => Value::unknown(format!(
                "`{p} {} {q}` is undefined (division by zero or overflow)",
                op.spelling()
            )),
        };
    }
    if let Some(v) = affine_rule(op, x, y) {
        return Value::Affine(v);
    }
    if uniform {
        if op == BinOp::Mul {
            // Keep common factors outside the new unknown: `(32*W) * H` is `32 * (W * H)`, so
            // a later `% 32` or `/ 32` still resolves.
            let (gx, gy) = (x.content(), y.content());
            let p = syms.opaque(op, &x.divide_exact(gx), &y.divide_exact(gy));
            return Value::Affine(Affine {
                constant: 0,
                terms: vec![(p, gx.wrapping_mul(gy))],
            });
        }
        return Value::sym(syms.opaque(op, x, y));
    }
    // Name the unknown the thread index meets (`threadIdx.x / max_points`: `max_points`), not
    // the thread index's own symbolic part, where the two sides tell them apart.
    let of_thread = |a: &Affine| (a.terms.iter()).any(|&(s, _)| syms.name(s).contains("threadIdx"));
    let symbolic = match (x.terms.is_empty(), y.terms.is_empty()) {
        (true, _) => y,
        (false, false) if of_thread(x) && !of_thread(y) => y,
        _ => x,
    };
    let key = (op, symbolic.terms.iter().map(|t| t.0).collect::<Vec<_>>());
    if let Some(r) = syms.reasons.get(&key) {
        return Value::Unknown(r.clone());
    }
    let reason: Rc<str> = Rc::from(format!(
        "it combines the thread index with {} through `{}`",
        syms.describe(symbolic),
        op.spelling()
    ));
    syms.reasons.insert(key, reason.clone());
    Value::Unknown(reason)
}

/// Exact results when at least one side is symbolic. Unknowns are taken as non-negative
/// (indices, block indices and trip counts are), so `(32*W + lane) % 32 == lane`.
fn affine_rule(op: BinOp, x: &Affine, y: &Affine) -> Option<Affine> {
    let yc = (y.terms.is_empty()).then_some(y.constant);
    let xc = (x.terms.is_empty()).then_some(x.constant);
    match op {
        BinOp::Add => Some(x.add(y, 1)),
        BinOp::Sub => Some(x.add(y, -1)),
        BinOp::Mul => match (xc, yc) {
            (_, Some(k)) => Some(x.scale(k)),
            (Some(k), _) => Some(y.scale(k)),
            _ => None,
        },
        BinOp::Shl => yc.filter(|k| (0..62).contains(k)).map(|k| x.scale(1 << k)),
        BinOp::Div | BinOp::Shr | BinOp::Rem => {
            let m = split_modulus(op, yc?)?;
            let constant = split(op, &x.terms, x.constant, m)?;
            let terms = match op {
                BinOp::Rem => Vec::new(),
                _ => x.terms.iter().map(|&(s, c)| (s, c / m)).collect(),
            };
            Some(Affine { constant, terms })
        }
        BinOp::And | BinOp::Or | BinOp::Xor => {
            let (form, k) = match (xc, yc) {
                (_, Some(k)) => (x, k),
                (Some(k), _) => (y, k),
                _ => return None,
            };
            let constant = low_bits(op, &form.terms, form.constant, k)?;
            let terms = match op {
                BinOp::And => Vec::new(),
                _ => form.terms.clone(),
            };
            Some(Affine { constant, terms })
        }
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
            let d = x.add(y, -1);
            d.terms.is_empty().then(|| Affine {
                constant: fold(op, d.constant, 0).unwrap_or(0),
                terms: Vec::new(),
            })
        }
        _ => None,
    }
}

/// The divisor `x / k`, `x >> k` and `x % k` split a form by: `k`, or `2^k` for a shift.
pub(crate) fn split_modulus(op: BinOp, k: i64) -> Option<i64> {
    match op {
        BinOp::Shr => 1i64.checked_shl(u32::try_from(k).ok()?),
        _ => Some(k),
    }
}

/// The constant of `(constant + terms) / m` (or `% m` for `Rem`) when every coefficient is a
/// multiple of `m` and the constant is not negative: then the terms only add multiples of `m`.
pub(crate) fn split(op: BinOp, terms: &[(Sym, i64)], constant: i64, m: i64) -> Option<i64> {
    let splits = m > 0 && constant >= 0 && terms.iter().all(|&(_, c)| c % m == 0);
    splits.then(|| match op {
        BinOp::Rem => constant % m,
        _ => constant / m,
    })
}

/// The constant of `(constant + terms) op k` for a bit operation with a constant that only
/// touches bits below every coefficient's lowest set bit (`&` then drops the terms).
pub(crate) fn low_bits(op: BinOp, terms: &[(Sym, i64)], constant: i64, k: i64) -> Option<i64> {
    if k < 0 {
        return None;
    }
    let limit = (constant.max(k) as u64 + 1).next_power_of_two() as i64;
    let splits = limit > 0 && constant >= 0 && terms.iter().all(|&(_, c)| c % limit == 0);
    splits.then_some(match op {
        BinOp::And => constant & k,
        BinOp::Or => constant | k,
        _ => constant ^ k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduces_modulo_and_division_of_warp_index() {
        let mut syms = Symbols::default();
        let w = syms.fresh("W");
        // threadIdx.x = 32*W + 5
        let tid = Value::Affine(Affine {
            constant: 5,
            terms: vec![(w, 32)],
        });
        assert_eq!(
            binary(BinOp::Rem, &tid, &Value::int(32), false, &mut syms),
            Value::int(5)
        );
        assert_eq!(
            binary(BinOp::And, &tid, &Value::int(31), false, &mut syms),
            Value::int(5)
        );
        assert_eq!(
            binary(BinOp::Shr, &tid, &Value::int(5), false, &mut syms),
            Value::sym(w)
        );
        let x = binary(BinOp::Xor, &tid, &Value::int(1), false, &mut syms);
        assert_eq!(x.as_affine().map(|a| a.constant), Some(4));
        // Not reducible: % 3 of a multiple of 32.
        assert!(matches!(
            binary(BinOp::Rem, &tid, &Value::int(3), false, &mut syms),
            Value::Unknown(_)
        ));
        // Uniform non-linear products become a new unknown, memoised.
        let n = Value::sym(syms.fresh("n"));
        let p1 = binary(BinOp::Mul, &n, &n, true, &mut syms);
        let p2 = binary(BinOp::Mul, &n, &n, true, &mut syms);
        assert_eq!(p1, p2);
    }

    #[test]
    fn an_unresolved_index_names_what_the_thread_index_meets() {
        // `threadIdx.x / max_points` in one symbolic warp: the reason names `max_points`,
        // the value a user can give, not the warp's own position.
        let mut syms = Symbols::default();
        let w = syms.fresh("the warp's position within its row (threadIdx.x / 32)");
        let lane5 = Value::Affine(Affine {
            constant: 5,
            terms: vec![(w, 32)],
        });
        let n = Value::sym(syms.fresh("max_points"));
        let Value::Unknown(why) = binary(BinOp::Div, &lane5, &n, false, &mut syms) else {
            panic!("resolved")
        };
        assert_eq!(
            &*why,
            "it combines the thread index with `max_points` through `/`"
        );
    }

    #[test]
    fn names_built_from_names_stay_bounded() {
        // `v |= b` over and over (a fuzzer's loop): each name holds the one before.
        let mut syms = Symbols::default();
        let b = Value::sym(syms.fresh("blockDim.x"));
        let mut v = Value::sym(syms.fresh("v"));
        for _ in 0..1000 {
            v = binary(BinOp::Or, &v, &b, true, &mut syms);
        }
        let Value::Affine(a) = &v else {
            panic!("{v:?}")
        };
        let name = syms.name(a.terms[0].0);
        assert!(
            name.len() <= crate::limits::MAX_SYMBOL_NAME + "…)".len(),
            "{name}"
        );
        assert!(name.starts_with("((((") && name.ends_with("…)"), "{name}");
    }

    #[test]
    fn products_of_unknowns_keep_their_common_factor() {
        let mut syms = Symbols::default();
        // rank = (32 * W) * H + lane, as a block's thread rank with blockDim.x = 32 * W.
        let w = Value::sym(syms.fresh("W"));
        let h = Value::sym(syms.fresh("H"));
        let wide = binary(BinOp::Mul, &w, &Value::int(32), true, &mut syms);
        let product = binary(BinOp::Mul, &wide, &h, true, &mut syms);
        let rank = binary(BinOp::Add, &product, &Value::int(5), false, &mut syms);
        assert_eq!(
            binary(BinOp::Rem, &rank, &Value::int(32), false, &mut syms).as_const(),
            Some(5)
        );
        let tile = binary(BinOp::Div, &rank, &Value::int(8), false, &mut syms);
        assert!(
            tile.as_affine()
                .is_some_and(|a| a.constant == 0 && a.terms.len() == 1)
        );
    }

    #[test]
    fn folds_constants_with_c_semantics() {
        let mut syms = Symbols::default();
        assert_eq!(
            binary(BinOp::Div, &Value::int(-7), &Value::int(2), true, &mut syms),
            Value::int(-3)
        );
        assert_eq!(
            binary(BinOp::Rem, &Value::int(-7), &Value::int(2), true, &mut syms),
            Value::int(-1)
        );
        assert!(matches!(
            binary(BinOp::Div, &Value::int(1), &Value::int(0), true, &mut syms),
            Value::Unknown(_)
        ));
    }
}
