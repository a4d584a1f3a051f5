//! The GPU's integer intrinsics, as the hardware computes them on 32-bit (and, where named
//! `ll`, 64-bit) registers: `__popc`, `__clz`, `__ffs`, `__brev`, `__funnelshift_*`,
//! `__mul24`, `__umul24`, `__sad`, `__usad`. Pure functions of constant arguments; the
//! interpreter applies them lane by lane.

/// The value of `name(args)`, or `None` when `name` is not one of these intrinsics or the
/// arguments do not fit it.
pub fn evaluate(name: &str, args: &[i64]) -> Option<i64> {
    let u32_of = |v: i64| v as u32;
    let u64_of = |v: i64| v as u64;
    Some(match (name, args) {
        ("__popc", [x]) => i64::from(u32_of(*x).count_ones()),
        ("__popcll", [x]) => i64::from(u64_of(*x).count_ones()),
        ("__clz", [x]) => i64::from(u32_of(*x).leading_zeros()),
        ("__clzll", [x]) => i64::from(u64_of(*x).leading_zeros()),
        // Position of the lowest set bit, from 1; 0 when none is set.
        ("__ffs", [x]) => match u32_of(*x) {
            0 => 0,
            v => i64::from(v.trailing_zeros() + 1),
        },
        ("__ffsll", [x]) => match u64_of(*x) {
            0 => 0,
            v => i64::from(v.trailing_zeros() + 1),
        },
        ("__brev", [x]) => i64::from(u32_of(*x).reverse_bits()),
        ("__brevll", [x]) => u64_of(*x).reverse_bits() as i64,
        // The high word of (hi:lo) << s, s taken mod 32 (`_lc`: clamped to 32).
        ("__funnelshift_l" | "__funnelshift_lc", [lo, hi, s]) => {
            let s = shift_amount(name.ends_with('c'), *s);
            let wide = (u64::from(u32_of(*hi)) << 32) | u64::from(u32_of(*lo));
            i64::from(((wide << s) >> 32) as u32)
        }
        // The low word of (hi:lo) >> s, s taken mod 32 (`_rc`: clamped to 32).
        ("__funnelshift_r" | "__funnelshift_rc", [lo, hi, s]) => {
            let s = shift_amount(name.ends_with('c'), *s);
            let wide = (u64::from(u32_of(*hi)) << 32) | u64::from(u32_of(*lo));
            i64::from((wide >> s) as u32)
        }
        // The low 32 bits of the product of the low 24 bits of each operand.
        ("__umul24", [a, b]) => {
            let p = u64::from(u32_of(*a) & 0xFF_FFFF) * u64::from(u32_of(*b) & 0xFF_FFFF);
            i64::from(p as u32)
        }
        ("__mul24", [a, b]) => {
            let low24 = |v: i64| i64::from(((u32_of(v) << 8) as i32) >> 8);
            i64::from(low24(*a).wrapping_mul(low24(*b)) as i32)
        }
        // |a - b| + c.
        // Signed operands, an unsigned result.
        ("__sad", [a, b, c]) => {
            let d = i64::from(u32_of(*a) as i32) - i64::from(u32_of(*b) as i32);
            i64::from((d.unsigned_abs() as u32).wrapping_add(u32_of(*c)))
        }
        ("__usad", [a, b, c]) => {
            let d = i64::from(u32_of(*a)) - i64::from(u32_of(*b));
            i64::from((d.unsigned_abs() as u32).wrapping_add(u32_of(*c)))
        }
        _ => return None,
    })
}

/// Whether `name` is one of the intrinsics [`evaluate`] computes.
pub fn is_intrinsic(name: &str) -> bool {
    matches!(
        name,
        "__popc"
            | "__popcll"
            | "__clz"
            | "__clzll"
            | "__ffs"
            | "__ffsll"
            | "__brev"
            | "__brevll"
            | "__funnelshift_l"
            | "__funnelshift_lc"
            | "__funnelshift_r"
            | "__funnelshift_rc"
            | "__umul24"
            | "__mul24"
            | "__sad"
            | "__usad"
    )
}

fn shift_amount(clamped: bool, s: i64) -> u32 {
    let s = s as u32;
    if clamped { s.min(32) } else { s & 31 }
}

/// `p << q` or `p >> q` as the GPU's `shl`/`shr` compute them: a count of the register's
/// width or more (or negative, read as unsigned) is clamped, so `shr` gives 0 (or -1 for a
/// negative value, an arithmetic shift) and `shl` gives 0. C leaves those counts undefined;
/// the hardware's answer is what a kernel gets (`hw/shift_clamp`, measured on an H100).
/// Counts from 32 to 63 are exact for 64-bit values and for 32-bit values right-shifted;
/// `width` is the left operand's width in bits (32 or 64).
pub fn shift(left: bool, p: i64, q: i64, width: u32) -> i64 {
    let clamped = q < 0 || q >= i64::from(width);
    match (left, clamped) {
        (true, true) => 0,
        (false, true) => {
            if p < 0 {
                -1
            } else {
                0
            }
        }
        (true, false) => p.wrapping_shl(q as u32),
        (false, false) => p >> q,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_counts_and_positions() {
        assert_eq!(evaluate("__popc", &[0xF0F0]), Some(8));
        assert_eq!(evaluate("__popc", &[-1]), Some(32));
        assert_eq!(evaluate("__popcll", &[-1]), Some(64));
        assert_eq!(evaluate("__clz", &[1]), Some(31));
        assert_eq!(evaluate("__clz", &[0]), Some(32));
        assert_eq!(evaluate("__ffs", &[0]), Some(0));
        assert_eq!(evaluate("__ffs", &[0b1000]), Some(4));
        assert_eq!(evaluate("__brev", &[1]), Some(0x8000_0000));
        assert_eq!(evaluate("__brev", &[0x8000_0000]), Some(1));
    }

    #[test]
    fn funnel_shifts_wrap_or_clamp_the_count() {
        // hi:lo = 0x00000001:0x80000000.
        assert_eq!(evaluate("__funnelshift_l", &[0x8000_0000, 1, 1]), Some(3));
        assert_eq!(evaluate("__funnelshift_l", &[0x8000_0000, 1, 33]), Some(3));
        assert_eq!(
            evaluate("__funnelshift_lc", &[0x8000_0000, 1, 40]),
            Some(0x8000_0000)
        );
        assert_eq!(
            evaluate("__funnelshift_r", &[0x8000_0000, 1, 4]),
            Some(0x1800_0000)
        );
        assert_eq!(evaluate("__funnelshift_rc", &[0, 7, 40]), Some(7));
    }

    #[test]
    fn twenty_four_bit_products() {
        assert_eq!(evaluate("__umul24", &[3, 5]), Some(15));
        // Bits above 23 are ignored.
        assert_eq!(evaluate("__umul24", &[0x0100_0003, 2]), Some(6));
        // Bit 23 is the sign of a 24-bit operand.
        assert_eq!(evaluate("__mul24", &[0x00FF_FFFF, 5]), Some(-5));
        assert_eq!(evaluate("__sad", &[3, 10, 1]), Some(8));
        assert_eq!(evaluate("__usad", &[10, 3, 0]), Some(7));
    }

    #[test]
    fn shifts_clamp_their_count() {
        // The scan padding macro: `60 >> (4 + 60)` is 0 on the GPU.
        assert_eq!(shift(false, 60, 64, 32), 0);
        assert_eq!(shift(false, 60, 36, 32), 0);
        assert_eq!(shift(false, -60, 40, 32), -1);
        assert_eq!(shift(true, 1, 32, 32), 0);
        assert_eq!(shift(true, 1, 32, 64), 1 << 32);
        assert_eq!(shift(false, 60, -1, 32), 0);
        assert_eq!(shift(false, 64, 2, 32), 16);
    }
}
