//! Shifts as the GPU computes them (a count of the operand's width or more is clamped, see
//! `intrinsics::shift`), and the record of each shift whose count reaches that width in some
//! thread, for the `shift-overflow` rule.

use super::Analyzer;
use crate::analysis::lanes::Lanes;
use crate::analysis::value::Value;
use crate::arith::BinOp;
use lang_c::ast::{BinaryOperator, BinaryOperatorExpression, Constant, Expression, IntegerSize};
use lang_c::span::Node;
use std::ops::Range;
use std::rc::Rc;

/// A shift whose count reaches its operand's width (or is negative) in some thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShiftOverflow {
    /// The shift expression; at file offsets after `check::to_file_offsets`.
    pub span: Range<usize>,
    /// Its count.
    pub count_span: Range<usize>,
    pub left: bool,
    /// Bits in the shifted operand (32 or 64).
    pub width: u32,
    /// The largest count out of range, over the threads and runs seen.
    pub count: i64,
    /// The text as compiled (macros expanded), for the note and the help.
    pub written: String,
    /// The parenthesized text the precedence of `+` and `-` over shifts suggests was meant,
    /// where the count is a sum written without parentheses (`n >> LOG + n >> (2 * LOG)`).
    pub meant: Option<String>,
}

impl Analyzer<'_, '_> {
    /// `l << r` or `l >> r` for the shift `b`.
    pub(super) fn shift(
        &mut self,
        whole: &Node<Expression>,
        b: &BinaryOperatorExpression,
        l: &Lanes,
        r: &Lanes,
        mask: &[bool],
    ) -> Lanes {
        let left = b.operator.node == BinaryOperator::ShiftLeft;
        let (value, overflow) = self.clamped_shift(left, &b.lhs, l, r, mask);
        self.widen_meant_reading(whole, b);
        if let Some((count, width)) = overflow {
            let meant = self.meant_text(b);
            self.record_shift_overflow(whole.span, b.rhs.span, left, (width, count), meant);
        }
        value
    }

    /// `x <<= r` or `x >>= r` (the variable `lhs`): clamped as `shift` clamps, and warned
    /// about alike. Its count is the whole right side, so there is no other reading to offer.
    pub(super) fn compound_shift(
        &mut self,
        left: bool,
        lhs: &Node<Expression>,
        rhs: &Node<Expression>,
        (old, r): (&Lanes, &Lanes),
        mask: &[bool],
    ) -> Lanes {
        let (value, overflow) = self.clamped_shift(left, lhs, old, r, mask);
        if let Some((count, width)) = overflow {
            let whole = lang_c::span::Span::span(lhs.span.start, rhs.span.end);
            self.record_shift_overflow(whole, rhs.span, left, (width, count), None);
        }
        value
    }

    /// `l << r` or `l >> r` as the GPU computes them on the operand `lhs`, and, where a
    /// count in `mask`'s lanes reaches the operand's width, the largest such count and the
    /// width. The width is looked up only then (no count reaches 32 in most shifts); where
    /// banklint does not know it, a count of 32 to 63 is left as 64-bit arithmetic gives it.
    fn clamped_shift(
        &mut self,
        left: bool,
        lhs: &Node<Expression>,
        l: &Lanes,
        r: &Lanes,
        mask: &[bool],
    ) -> (Lanes, Option<(i64, u32)>) {
        let op = if left { BinOp::Shl } else { BinOp::Shr };
        let value = Lanes::binary(op, l, r, self.n, &mut self.syms);
        let counts = || {
            (0..self.n)
                .filter(|&t| mask[t])
                .filter_map(|t| r.const_at(t))
        };
        if !counts().any(|q| !(0..32).contains(&q)) {
            return (value, None);
        }
        let Some(width) = self.int_width(lhs) else {
            return (value, None);
        };
        let out_of_range = |q: i64| q < 0 || q >= i64::from(width);
        let Some(worst) = counts()
            .filter(|&q| out_of_range(q))
            .max_by_key(|q| if *q < 0 { i64::MAX } else { *q })
        else {
            return (value, None);
        };
        if !left || width == 64 {
            return (value, Some((worst, width)));
        }
        // A 32-bit left shift by 32 or more is 0 (64-bit arithmetic kept the bits).
        let clamped = Lanes::Each(Rc::new(
            (0..self.n)
                .map(|t| match r.const_at(t) {
                    Some(q) if out_of_range(q) => Value::int(0),
                    _ => value.get(t).into_owned(),
                })
                .collect(),
        ));
        (clamped, Some((worst, width)))
    }

    /// Records the shift at `whole` (count at `count_span`), `(width, count)` its operand's
    /// bits and the largest count out of range; a shift seen before keeps the largest count.
    fn record_shift_overflow(
        &mut self,
        whole: lang_c::span::Span,
        count_span: lang_c::span::Span,
        left: bool,
        (width, count): (u32, i64),
        meant: Option<String>,
    ) {
        if self.span_override.is_some() {
            return;
        }
        let span = self.span(whole);
        if let Some(seen) = self.shift_overflows.iter_mut().find(|s| s.span == span) {
            seen.count = seen.count.max(count);
            return;
        }
        let written = self.compiled_text(whole);
        self.shift_overflows.push(ShiftOverflow {
            span,
            count_span: self.span(count_span),
            left,
            width,
            count,
            written,
            meant,
        });
    }

    /// For `x >> a + y` written without parentheses around `a + y`: `(x >> a) + y`; and
    /// when that shift is itself shifted (`x >> a + y >> c`, read `(x >> (a + y)) >> c`),
    /// the reading the macro's author meant is `(x >> a) + (y >> c)`, built by the caller
    /// from this one's parts. `None` when the count was parenthesized or is no sum.
    fn meant_text(&self, b: &BinaryOperatorExpression) -> Option<String> {
        let Expression::BinaryOperator(sum) = &b.rhs.node else {
            return None;
        };
        let plus = match sum.node.operator.node {
            BinaryOperator::Plus => "+",
            BinaryOperator::Minus => "-",
            _ => return None,
        };
        let count_text = self.compiled_text(b.rhs.span);
        if count_text.trim_start().starts_with('(') {
            return None;
        }
        let shift = if b.operator.node == BinaryOperator::ShiftLeft {
            "<<"
        } else {
            ">>"
        };
        let x = self.compiled_text(b.lhs.span);
        let a = self.compiled_text(sum.node.lhs.span);
        let y = self.compiled_text(sum.node.rhs.span);
        Some(format!(
            "({} {shift} {}) {plus} {}",
            x.trim(),
            a.trim(),
            y.trim()
        ))
    }

    /// `x >> a + y >> c` reads `(x >> (a + y)) >> c`: the overflow recorded at the inner
    /// shift gets the whole reading meant, `(x >> a) + (y >> c)`.
    fn widen_meant_reading(&mut self, whole: &Node<Expression>, outer: &BinaryOperatorExpression) {
        let Expression::BinaryOperator(inner) = &outer.lhs.node else {
            return;
        };
        let is_shift = |o: &BinaryOperator| {
            matches!(o, BinaryOperator::ShiftLeft | BinaryOperator::ShiftRight)
        };
        if !is_shift(&inner.node.operator.node) || self.span_override.is_some() {
            return;
        }
        let inner_span = self.span(outer.lhs.span);
        let Some(k) = self
            .shift_overflows
            .iter()
            .position(|s| s.span == inner_span && s.meant.is_some())
        else {
            return;
        };
        let Expression::BinaryOperator(sum) = &inner.node.rhs.node else {
            return;
        };
        let spell = |o: &BinaryOperator| match o {
            BinaryOperator::ShiftLeft => "<<",
            BinaryOperator::ShiftRight => ">>",
            BinaryOperator::Minus => "-",
            _ => "+",
        };
        let text = |e: &Node<Expression>| self.compiled_text(e.span).trim().to_string();
        let meant = format!(
            "({} {} {}) {} ({} {} {})",
            text(&inner.node.lhs),
            spell(&inner.node.operator.node),
            text(&sum.node.lhs),
            spell(&sum.node.operator.node),
            text(&sum.node.rhs),
            spell(&outer.operator.node),
            text(&outer.rhs),
        );
        let written = self.compiled_text(whole.span);
        let record = &mut self.shift_overflows[k];
        record.meant = Some(meant);
        record.written = written;
    }

    /// The text of `s` as compiled: macros expanded, spaced evenly on one line.
    fn compiled_text(&self, s: lang_c::span::Span) -> String {
        tidy(self.unit.prepared.text.get(self.span(s)).unwrap_or(""))
    }

    /// The width in bits of an integer expression's type after promotion: 64 where a 64-bit
    /// variable, parameter, cast or `L`/`LL` literal takes part, 32 where every part is known
    /// narrower; `None` where a part's type is not known to banklint (a member, a call, an
    /// `auto` variable).
    pub(super) fn int_width(&self, e: &Node<Expression>) -> Option<u32> {
        match &e.node {
            Expression::Constant(c) => match &c.node {
                Constant::Integer(i) if i.suffix.size != IntegerSize::Int => Some(64),
                Constant::Integer(_) | Constant::Character(_) => Some(32),
                _ => None,
            },
            Expression::Identifier(id) => {
                let name = &id.node.name;
                if let Some(w) = self.int_widths.get(name) {
                    return Some(*w);
                }
                if matches!(
                    name.as_str(),
                    "threadIdx" | "blockIdx" | "blockDim" | "gridDim"
                ) {
                    return Some(32);
                }
                self.unit
                    .functions
                    .iter()
                    .find(|f| super::objects::shown_name(self.unit, f) == self.function)
                    .and_then(|f| f.params.iter().find(|p| p.name == *name))
                    .and_then(|p| integer_width(&p.ty))
            }
            // `threadIdx.x` and the like are 32-bit.
            Expression::Member(m) => match &m.node.expression.node {
                Expression::Identifier(base)
                    if matches!(
                        base.node.name.as_str(),
                        "threadIdx" | "blockIdx" | "blockDim" | "gridDim"
                    ) =>
                {
                    Some(32)
                }
                _ => None,
            },
            Expression::Cast(c) => {
                let text = self.compiled_text(c.node.type_name.span);
                super::type_from_text(&self.types, &text).and_then(|t| integer_width(&t))
            }
            Expression::BinaryOperator(o) => match o.node.operator.node {
                BinaryOperator::ShiftLeft | BinaryOperator::ShiftRight => {
                    self.int_width(&o.node.lhs)
                }
                _ => Some(
                    self.int_width(&o.node.lhs)?
                        .max(self.int_width(&o.node.rhs)?),
                ),
            },
            Expression::UnaryOperator(u) => self.int_width(&u.node.operand),
            Expression::Conditional(c) => Some(
                self.int_width(&c.node.then_expression)?
                    .max(self.int_width(&c.node.else_expression)?),
            ),
            _ => None,
        }
    }

    /// Notes the width of a declared variable (forgets it when it is not an integer banklint
    /// knows).
    pub(super) fn declare_width(&mut self, name: &str, ty: &crate::analysis::types::Type) {
        match integer_width(ty) {
            Some(w) => self.int_widths.insert(name.to_string(), w),
            None => self.int_widths.remove(name),
        };
    }
}

/// 64 for an 8-byte integer, 32 for a narrower one (promoted), `None` for anything else.
fn integer_width(t: &crate::analysis::types::Type) -> Option<u32> {
    match t {
        crate::analysis::types::Type::Scalar {
            size, float: false, ..
        } => Some(if *size == 8 { 64 } else { 32 }),
        _ => None,
    }
}

/// `((i) >>5 + (i) >> (2 *5))` as `((i) >> 5 + (i) >> (2 * 5))`: one space between tokens,
/// none inside brackets or before a comma (macro expansion leaves uneven spacing).
fn tidy(text: &str) -> String {
    const PAIRS: [&str; 10] = [">>", "<<", "<=", ">=", "==", "!=", "&&", "||", "->", "::"];
    let mut tokens: Vec<String> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if c.is_whitespace() {
            k += 1;
        } else if c.is_alphanumeric() || c == '_' || c == '.' {
            let start = k;
            while k < chars.len()
                && (chars[k].is_alphanumeric() || chars[k] == '_' || chars[k] == '.')
            {
                k += 1;
            }
            tokens.push(chars[start..k].iter().collect());
        } else {
            let triple: String = chars[k..(k + 3).min(chars.len())].iter().collect();
            let pair: String = chars[k..(k + 2).min(chars.len())].iter().collect();
            if triple == "<<=" || triple == ">>=" {
                tokens.push(triple);
                k += 3;
            } else if PAIRS.contains(&pair.as_str()) {
                tokens.push(pair);
                k += 2;
            } else {
                tokens.push(c.to_string());
                k += 1;
            }
        }
    }
    let mut out = String::new();
    for (i, t) in tokens.iter().enumerate() {
        let glued = i == 0
            || matches!(tokens[i - 1].as_str(), "(" | "[" | "~" | "!")
            || matches!(t.as_str(), ")" | "]" | "," | "[")
            || t == "(" && is_word(&tokens[i - 1]);
        if !glued {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

fn is_word(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    #[test]
    fn expanded_text_is_spaced_evenly() {
        assert_eq!(
            super::tidy("((i) >>5 + (i) >> (2 *5))"),
            "((i) >> 5 + (i) >> (2 * 5))"
        );
        assert_eq!(super::tidy("f( a,b )[ 3 ]"), "f(a, b)[3]");
        assert_eq!(super::tidy("m<<=t+ 32"), "m <<= t + 32");
    }
}
