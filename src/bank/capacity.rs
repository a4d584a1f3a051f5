//! Shared-memory capacity per architecture: how much a block may declare, how much an SM
//! holds under each L1/shared split, how many blocks fit on an SM by shared memory alone.
//!
//! Pure functions of the compute capability; figures in bytes (1 KB = 1024 bytes, as in
//! NVIDIA's tables).
//!
//! # Sources
//! - CUDA C++ Programming Guide, "Compute Capabilities": table "Technical Specifications per
//!   Compute Capability" (rows "Maximum amount of shared memory per SM", "... per thread
//!   block", "Maximum number of resident blocks per SM") and the per-family "Shared Memory"
//!   sections (7.x: "0, 8, 16, 32, 64 or 96 KB" on Volta, "32 KB or 64 KB" on Turing; 8.x:
//!   "0, 8, 16, 32, 64, 100, 132 or 164 KB" on 8.0/8.7, "0, 8, 16, 32, 64 or 100 KB" on
//!   8.6/8.9; 9.0 and 10.0: up to 228 KB; 12.0: up to 100 KB; and on 8.x and later "The 1 KB
//!   of shared memory not made available to a thread block is reserved for system use").
//!   The 1.x-3.x columns come from the guide's older editions (v5.x-v10.x, appendix
//!   "Compute Capabilities"), which also describe the 2.x 16/48 KB and 3.x 16/32/48 KB
//!   L1/shared splits chosen with `cudaFuncSetCacheConfig`.
//! - The per-architecture tuning guides (Volta, Turing, Ampere, Hopper, Blackwell), which
//!   repeat the capacities and carveouts above.
//! - `cuda_occupancy.h` (the CUDA occupancy calculator shipped with the toolkit): shared
//!   allocation granularity per family (`cudaOccSMemAllocationGranularity`), resident
//!   blocks (`cudaOccMaxBlocksPerMultiprocessor`), how a cache preference maps to a
//!   split on 2.x/3.x (`cudaOccSMemPerMultiprocessor`; a preference too small for one block
//!   is overridden), and the per-block reservation added on 8.x and later
//!   (`reservedSharedMemPerBlock`).
//!
//! # Less certain figures
//! - 10.1 and 11.0 (the Thor part, renamed from sm_101 to sm_110 in CUDA 13): 228 KB per SM
//!   and 227 KB per block as in the guide's 11.0 column; resident blocks read as 24 from a
//!   table whose merged cells are ambiguous (24 or 32). We use 24.
//! - 10.3 and 12.1 are not separate columns in the guide's table; they take the figures of
//!   their families (10.0 and 12.0).
//! - 12.0: the guide gives 100 KB per SM; the Blackwell tuning guide says 128 KB, which is
//!   the unified L1/shared size. We use the guide's 100 KB (99 KB per block).

use crate::bank::arch::{Arch, Family};
use std::fmt;
use std::str::FromStr;

pub const KB: u32 = 1024;

/// The L1/shared split a program asks for with `cudaFuncSetCacheConfig(kernel, X)` or
/// `cudaDeviceSetCacheConfig(X)`. It only changes the shared capacity on 2.x and 3.x; on
/// 7.x and later it becomes a carveout hint (see [`per_sm_capacity`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CacheConfig {
    /// `cudaFuncCachePreferNone`: no preference; the device default (48 KB shared on 2.x/3.x).
    #[default]
    PreferNone,
    /// `cudaFuncCachePreferShared`: larger shared memory, smaller L1.
    PreferShared,
    /// `cudaFuncCachePreferL1`: larger L1, smaller shared memory.
    PreferL1,
    /// `cudaFuncCachePreferEqual`: equal L1 and shared memory (3.x only; 2.x has no such split).
    PreferEqual,
}

impl CacheConfig {
    pub const ALL: [CacheConfig; 4] = [
        CacheConfig::PreferNone,
        CacheConfig::PreferShared,
        CacheConfig::PreferL1,
        CacheConfig::PreferEqual,
    ];

    /// Parses the runtime names (`cudaFuncCachePreferL1`), the driver names
    /// (`CU_FUNC_CACHE_PREFER_L1`), either with an optional namespace qualifier, and the
    /// enumerators' numeric values 0-3.
    pub fn parse(text: &str) -> Option<CacheConfig> {
        let t = text.trim();
        let t = t.rsplit("::").next().unwrap_or(t);
        match t {
            "cudaFuncCachePreferNone" | "CU_FUNC_CACHE_PREFER_NONE" | "0" => {
                Some(CacheConfig::PreferNone)
            }
            "cudaFuncCachePreferShared" | "CU_FUNC_CACHE_PREFER_SHARED" | "1" => {
                Some(CacheConfig::PreferShared)
            }
            "cudaFuncCachePreferL1" | "CU_FUNC_CACHE_PREFER_L1" | "2" => {
                Some(CacheConfig::PreferL1)
            }
            "cudaFuncCachePreferEqual" | "CU_FUNC_CACHE_PREFER_EQUAL" | "3" => {
                Some(CacheConfig::PreferEqual)
            }
            _ => None,
        }
    }

    /// The runtime API name.
    pub fn name(self) -> &'static str {
        match self {
            CacheConfig::PreferNone => "cudaFuncCachePreferNone",
            CacheConfig::PreferShared => "cudaFuncCachePreferShared",
            CacheConfig::PreferL1 => "cudaFuncCachePreferL1",
            CacheConfig::PreferEqual => "cudaFuncCachePreferEqual",
        }
    }
}

impl fmt::Display for CacheConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CacheConfig {
    type Err = String;

    fn from_str(s: &str) -> Result<CacheConfig, String> {
        CacheConfig::parse(s).ok_or_else(|| {
            format!(
                "unknown cache configuration `{s}` (expected cudaFuncCachePreferNone, \
                 cudaFuncCachePreferShared, cudaFuncCachePreferL1 or cudaFuncCachePreferEqual)"
            )
        })
    }
}

/// Largest total of statically declared `__shared__` variables per block: 16 KB on 1.x,
/// 48 KB on 2.x and later (larger blocks need dynamic shared memory and the opt-in).
/// On 1.x the kernel's parameters also live in shared memory, which this does not count.
pub fn max_static_per_block(arch: Arch) -> u32 {
    match arch.family() {
        Family::Tesla => 16 * KB,
        _ => 48 * KB,
    }
}

/// Largest shared memory one block may use (static plus dynamic) after opting in with
/// `cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, n)`. Up to 6.x
/// there is no opt-in and this equals [`max_static_per_block`]. On 8.x and later it excludes
/// the 1 KB per block reserved for the system ([`reserved_per_block`]).
pub fn max_dynamic_opt_in_per_block(arch: Arch) -> u32 {
    match (arch.major, arch.minor) {
        (1, _) => 16 * KB,
        (2..=6, _) => 48 * KB,
        (7, 5) => 64 * KB,
        (7, _) => 96 * KB,
        (8, 0) | (8, 7) => 163 * KB,
        (8, _) => 99 * KB,
        (9, _) | (10, _) | (11, _) => 227 * KB,
        (12, _) => 99 * KB,
        // Unknown future parts: the newest documented data-center figure.
        _ => 227 * KB,
    }
}

/// The largest shared-memory capacity of one SM (the largest carveout on 7.x and later, the
/// PreferShared split on 2.x/3.x).
pub fn max_per_sm_capacity(arch: Arch) -> u32 {
    match (arch.major, arch.minor) {
        (1, _) => 16 * KB,
        (2, _) => 48 * KB,
        (3, 7) => 112 * KB,
        (3, _) => 48 * KB,
        (5, 2) | (6, 1) => 96 * KB,
        (5, _) | (6, _) => 64 * KB,
        (7, 5) => 64 * KB,
        (7, _) => 96 * KB,
        (8, 0) | (8, 7) => 164 * KB,
        (8, _) => 100 * KB,
        (9, _) | (10, _) | (11, _) => 228 * KB,
        (12, _) => 100 * KB,
        _ => 228 * KB,
    }
}

/// Shared memory per SM under a cache configuration.
///
/// - 1.x: 16 KB, no L1 to trade against.
/// - 2.x: 64 KB split between L1 and shared; `PreferL1` gives 16 KB shared, anything else
///   48 KB (2.x has no equal split; `cuda_occupancy.h` treats `PreferEqual` as 48 KB).
/// - 3.x: 16/32/48 KB for `PreferL1`/`PreferEqual`/`PreferShared` (or none); on 3.7, whose
///   SM has 112 KB of shared memory next to the same 16-48 KB of L1, 80/96/112 KB.
/// - 5.x and 6.x: dedicated shared memory, the configuration changes nothing.
/// - 7.x and later: the largest carveout. There the legacy configuration is only a hint
///   (the occupancy calculator maps `PreferL1`/`PreferEqual`/`PreferShared` to carveouts of
///   0%/50%/100%, and the driver enlarges any carveout that cannot hold one block), so the
///   figure is the most an SM can hold rather than what a given launch gets.
pub fn per_sm_capacity(arch: Arch, config: CacheConfig) -> u32 {
    let high = max_per_sm_capacity(arch);
    match arch.family() {
        Family::Fermi => match config {
            CacheConfig::PreferL1 => 16 * KB,
            _ => high,
        },
        Family::Kepler => {
            // L1 ranges over 16..48 KB out of a fixed total of high + 16 KB.
            let low = high + 16 * KB - 48 * KB;
            match config {
                CacheConfig::PreferL1 => low,
                CacheConfig::PreferEqual => (high + low) / 2,
                CacheConfig::PreferNone | CacheConfig::PreferShared => high,
            }
        }
        Family::Tesla | Family::Maxwell => high,
    }
}

/// The shared-memory capacities an SM can be configured to, in bytes, smallest first: the
/// carveouts on 7.x and later, the L1/shared splits on 2.x/3.x, the fixed size elsewhere.
pub fn configurable_capacities(arch: Arch) -> Vec<u32> {
    let kb = |v: &[u32]| v.iter().map(|k| k * KB).collect();
    match (arch.major, arch.minor) {
        (2, _) => kb(&[16, 48]),
        (3, 7) => kb(&[80, 96, 112]),
        (3, _) => kb(&[16, 32, 48]),
        (7, 5) => kb(&[32, 64]),
        (7, _) => kb(&[0, 8, 16, 32, 64, 96]),
        (8, 0) | (8, 7) => kb(&[0, 8, 16, 32, 64, 100, 132, 164]),
        (8, _) | (12, _) => kb(&[0, 8, 16, 32, 64, 100]),
        (9, _) | (10, _) | (11, _) => kb(&[0, 8, 16, 32, 64, 100, 132, 164, 196, 228]),
        _ => vec![max_per_sm_capacity(arch)],
    }
}

/// Most blocks resident on one SM, whatever their resources.
pub fn max_resident_blocks_per_sm(arch: Arch) -> u32 {
    match (arch.major, arch.minor) {
        (1, _) | (2, _) => 8,
        (3, _) => 16,
        (5, _) | (6, _) => 32,
        (7, 5) => 16,
        (7, _) => 32,
        (8, 0) => 32,
        (8, 9) => 24,
        (8, _) => 16,
        (9, _) => 32,
        // 10.1 is the Thor part that CUDA 13 renamed 11.0.
        (10, 1) | (11, _) => 24,
        (10, _) => 32,
        (12, _) => 24,
        _ => 32,
    }
}

/// Shared memory the driver reserves for every block on 8.x and later ("1 KB of shared
/// memory ... is reserved for system use"); it counts against the SM's capacity.
pub fn reserved_per_block(arch: Arch) -> u32 {
    if arch.major >= 8 { KB } else { 0 }
}

/// Unit in which shared memory is allocated to a block (`cuda_occupancy.h`): 512 bytes on
/// 1.x, 128 on 2.x, 256 on 3.x-7.x, 128 on 8.x and later.
pub fn allocation_granularity(arch: Arch) -> u32 {
    match arch.major {
        1 => 512,
        2 => 128,
        3..=7 => 256,
        _ => 128,
    }
}

/// Bytes a block that uses `bytes_per_block` of shared memory takes from its SM: the usage
/// plus the system reservation, rounded up to the allocation granularity.
pub fn allocated_per_block(arch: Arch, bytes_per_block: u32) -> u32 {
    let used = u64::from(bytes_per_block) + u64::from(reserved_per_block(arch));
    let unit = u64::from(allocation_granularity(arch));
    u32::try_from(used.div_ceil(unit) * unit).unwrap_or(u32::MAX)
}

/// How many blocks using `bytes_per_block` of shared memory (static plus dynamic) can be
/// resident on one SM, counting only shared memory and the resident-block limit.
///
/// Returns 0 when one block is over [`max_dynamic_opt_in_per_block`]. Each block takes
/// [`allocated_per_block`] bytes (usage + 1 KB reserved on 8.x and later, rounded to the
/// granularity). The SM's capacity is [`per_sm_capacity`] for `config`; on 2.x/3.x a
/// preference too small for even one block is overridden by the driver, which then uses
/// the largest split, as `cuda_occupancy.h` models it.
pub fn blocks_per_sm_by_shared(arch: Arch, config: CacheConfig, bytes_per_block: u32) -> u32 {
    if bytes_per_block > max_dynamic_opt_in_per_block(arch) {
        return 0;
    }
    let max_blocks = max_resident_blocks_per_sm(arch);
    let allocated = allocated_per_block(arch, bytes_per_block);
    if allocated == 0 {
        return max_blocks;
    }
    let preferred = per_sm_capacity(arch, config);
    let capacity = if preferred >= allocated {
        preferred
    } else {
        max_per_sm_capacity(arch)
    };
    (capacity / allocated).min(max_blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(text: &str) -> Arch {
        Arch::parse(text).unwrap()
    }

    #[test]
    fn reservation_and_granularity() {
        assert_eq!(allocated_per_block(a("sm_80"), 48 * KB), 49 * KB);
        assert_eq!(allocated_per_block(a("sm_70"), 48 * KB), 48 * KB);
        assert_eq!(allocated_per_block(a("sm_70"), 1), 256);
        assert_eq!(allocated_per_block(a("sm_90"), 1), KB + 128);
        assert_eq!(allocated_per_block(a("sm_10"), 1), 512);
        assert_eq!(allocated_per_block(a("sm_10"), 0), 0);
    }

    #[test]
    fn fermi_preference_too_small_is_overridden() {
        // 20 KB does not fit the 16 KB PreferL1 split, so the driver uses 48 KB.
        assert_eq!(
            blocks_per_sm_by_shared(a("sm_20"), CacheConfig::PreferL1, 20 * KB),
            2
        );
        assert_eq!(
            blocks_per_sm_by_shared(a("sm_20"), CacheConfig::PreferL1, 8 * KB),
            2
        );
    }
}
