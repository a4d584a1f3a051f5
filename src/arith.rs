//! C integer arithmetic as the GPU computes it, shared by the reading of host code and the
//! analysis of device code: one definition of what `/`, `%`, `<<` and `>>` give.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    LogicalAnd,
    LogicalOr,
    Min,
    Max,
}

impl BinOp {
    pub fn spelling(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::LogicalAnd => "&&",
            BinOp::LogicalOr => "||",
            BinOp::Min => "min",
            BinOp::Max => "max",
        }
    }
}

/// `p op q` on 64-bit integers with C's semantics; `None` where C leaves it undefined
/// (division by zero, a negative or too large shift count).
pub fn fold(op: BinOp, p: i64, q: i64) -> Option<i64> {
    Some(match op {
        BinOp::Add => p.wrapping_add(q),
        BinOp::Sub => p.wrapping_sub(q),
        BinOp::Mul => p.wrapping_mul(q),
        BinOp::Div => p.checked_div(q)?,
        BinOp::Rem => p.checked_rem(q)?,
        BinOp::Shl => p.checked_shl(u32::try_from(q).ok()?)?,
        BinOp::Shr => p.checked_shr(u32::try_from(q).ok()?)?,
        BinOp::And => p & q,
        BinOp::Or => p | q,
        BinOp::Xor => p ^ q,
        BinOp::Lt => i64::from(p < q),
        BinOp::Gt => i64::from(p > q),
        BinOp::Le => i64::from(p <= q),
        BinOp::Ge => i64::from(p >= q),
        BinOp::Eq => i64::from(p == q),
        BinOp::Ne => i64::from(p != q),
        BinOp::LogicalAnd => i64::from(p != 0 && q != 0),
        BinOp::LogicalOr => i64::from(p != 0 || q != 0),
        BinOp::Min => p.min(q),
        BinOp::Max => p.max(q),
    })
}
