//! Where a TMA tile copy (`cp.async.bulk.tensor`) puts each element in shared memory, per
//! swizzle mode of its tensor map: measured on an H100 for every mode, box width and base
//! offset (`hw/probe_tma.cu`, `docs/TMA_SWIZZLE.md`).
//!
//! Box row `r`, byte `b` of the row, goes to `dst + r * pitch + b`, the pitch being the
//! swizzle span (32, 64 or 128 bytes) in a swizzled mode, even for narrower boxes, and the
//! box row's bytes without one; then bits 4.. of the shared-memory address (its 16-byte chunk)
//! are XORed with as many bits from bit 7 up (its 128-byte line) as the mode has: 1, 2 or 3.
//! The address is the absolute one, so the pattern follows the address, not the box.

/// A tensor map's `CUtensorMapSwizzle`, as far as banklint models it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TmaSwizzle {
    None,
    B32,
    B64,
    B128,
}

impl TmaSwizzle {
    pub const ALL: [TmaSwizzle; 4] = [
        TmaSwizzle::None,
        TmaSwizzle::B32,
        TmaSwizzle::B64,
        TmaSwizzle::B128,
    ];

    /// From the enumerator's name (`CU_TENSOR_MAP_SWIZZLE_128B`) or value (0..3).
    pub fn from_enumerator(name: &str) -> Option<TmaSwizzle> {
        match name.trim().rsplit("::").next()? {
            "CU_TENSOR_MAP_SWIZZLE_NONE" => Some(TmaSwizzle::None),
            "CU_TENSOR_MAP_SWIZZLE_32B" => Some(TmaSwizzle::B32),
            "CU_TENSOR_MAP_SWIZZLE_64B" => Some(TmaSwizzle::B64),
            "CU_TENSOR_MAP_SWIZZLE_128B" => Some(TmaSwizzle::B128),
            _ => None,
        }
    }

    pub fn from_value(v: i64) -> Option<TmaSwizzle> {
        TmaSwizzle::ALL.get(usize::try_from(v).ok()?).copied()
    }

    /// The enumerator to write in `cuTensorMapEncodeTiled`.
    pub fn enumerator(self) -> &'static str {
        match self {
            TmaSwizzle::None => "CU_TENSOR_MAP_SWIZZLE_NONE",
            TmaSwizzle::B32 => "CU_TENSOR_MAP_SWIZZLE_32B",
            TmaSwizzle::B64 => "CU_TENSOR_MAP_SWIZZLE_64B",
            TmaSwizzle::B128 => "CU_TENSOR_MAP_SWIZZLE_128B",
        }
    }

    /// The swizzle span in bytes: the row pitch in shared memory; 0 without a swizzle.
    pub fn span(self) -> i64 {
        match self {
            TmaSwizzle::None => 0,
            TmaSwizzle::B32 => 32,
            TmaSwizzle::B64 => 64,
            TmaSwizzle::B128 => 128,
        }
    }

    /// Bits of the 128-byte line index XORed into the 16-byte chunk index.
    fn mask(self) -> i64 {
        (self.span() / 16 - 1).max(0)
    }

    /// The address pattern repeats every this many bytes: the alignment a tile needs for its
    /// row `r` to be permuted by `r`'s own bits.
    pub fn repeat(self) -> i64 {
        (self.span() * 8).max(16)
    }

    /// Where the copy stores the byte it would store at address `a` without a swizzle: the
    /// 16-byte chunk XORed with the 128-byte line's low bits. Its own inverse:
    /// `swizzle(swizzle(a)) == a`, so it also gives what an address holds.
    pub fn swizzle(self, address: i64) -> i64 {
        address ^ (((address >> 7) & self.mask()) << 4)
    }

    /// Bytes from one box row to the next in shared memory.
    pub fn pitch(self, row_bytes: i64) -> i64 {
        match self {
            TmaSwizzle::None => row_bytes,
            s => s.span(),
        }
    }

    /// The byte address of element byte `b` of box row `r`, for a copy to `dst`.
    pub fn place(self, dst: i64, row: i64, b: i64, row_bytes: i64) -> i64 {
        self.swizzle(dst + row * self.pitch(row_bytes) + b)
    }

    /// The mode's name as people say it: "no swizzle", "the 128-byte swizzle".
    pub fn describe(self) -> &'static str {
        match self {
            TmaSwizzle::None => "no swizzle",
            TmaSwizzle::B32 => "the 32-byte swizzle",
            TmaSwizzle::B64 => "the 64-byte swizzle",
            TmaSwizzle::B128 => "the 128-byte swizzle",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_128_byte_swizzle_permutes_chunks_by_the_line() {
        let s = TmaSwizzle::B128;
        // Row 1 of a 1024-aligned tile of 128-byte rows: chunk 0 goes to chunk 1.
        assert_eq!(s.place(0, 1, 0, 128), 128 + 16);
        // Row 9: line 9, 9 & 7 = 1.
        assert_eq!(s.place(0, 9, 32, 128), 9 * 128 + (2 ^ 1) * 16);
        for a in 0..4096 {
            assert_eq!(s.swizzle(s.swizzle(a)), a);
        }
    }

    #[test]
    fn swizzled_modes_pad_narrow_rows_to_the_span() {
        // Measured: 16-byte rows under the 64-byte swizzle are 64 bytes apart.
        assert_eq!(TmaSwizzle::B64.place(0, 1, 0, 16), 64);
        assert_eq!(TmaSwizzle::None.place(0, 1, 0, 16), 16);
    }

    #[test]
    fn enumerators_round_trip() {
        for s in TmaSwizzle::ALL {
            assert_eq!(TmaSwizzle::from_enumerator(s.enumerator()), Some(s));
        }
        assert_eq!(TmaSwizzle::from_value(3), Some(TmaSwizzle::B128));
        assert_eq!(
            TmaSwizzle::from_enumerator("CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B"),
            None
        );
    }
}
