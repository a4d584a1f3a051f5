//! The shared-memory capacity tables against the figures of the CUDA C++ Programming Guide
//! ("Technical Specifications per Compute Capability" and the per-family "Shared Memory"
//! sections) and `cuda_occupancy.h`. Expected values are the documented figures, and the
//! block counts are worked out by hand from them.

use banklint::bank::arch::{Arch, KNOWN_ARCHS};
use banklint::bank::capacity::{
    CacheConfig, KB, allocated_per_block, allocation_granularity, blocks_per_sm_by_shared,
    configurable_capacities, max_dynamic_opt_in_per_block, max_per_sm_capacity,
    max_resident_blocks_per_sm, max_static_per_block, per_sm_capacity, reserved_per_block,
};

fn a(text: &str) -> Arch {
    Arch::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

use CacheConfig::{PreferEqual, PreferL1, PreferNone, PreferShared};

#[test]
fn static_limit_per_block() {
    assert_eq!(max_static_per_block(a("sm_10")), 16 * KB);
    assert_eq!(max_static_per_block(a("sm_13")), 16 * KB);
    for arch in [
        "sm_20", "sm_35", "sm_52", "sm_70", "sm_80", "sm_90", "sm_100", "sm_120",
    ] {
        assert_eq!(max_static_per_block(a(arch)), 48 * KB, "{arch}");
    }
}

#[test]
fn opt_in_limit_per_block() {
    let expected = [
        ("sm_10", 16),
        ("sm_20", 48),
        ("sm_35", 48),
        ("sm_37", 48),
        ("sm_50", 48),
        ("sm_52", 48),
        ("sm_61", 48),
        ("sm_70", 96),
        ("sm_72", 96),
        ("sm_75", 64),
        ("sm_80", 163),
        ("sm_86", 99),
        ("sm_87", 163),
        ("sm_89", 99),
        ("sm_90", 227),
        ("sm_100", 227),
        ("sm_103", 227),
        ("sm_110", 227),
        ("sm_120", 99),
        ("sm_121", 99),
    ];
    for (arch, kb) in expected {
        assert_eq!(max_dynamic_opt_in_per_block(a(arch)), kb * KB, "{arch}");
    }
}

#[test]
fn per_sm_capacity_fixed_parts() {
    let expected = [
        ("sm_10", 16),
        ("sm_12", 16),
        ("sm_50", 64),
        ("sm_52", 96),
        ("sm_53", 64),
        ("sm_60", 64),
        ("sm_61", 96),
        ("sm_62", 64),
        ("sm_70", 96),
        ("sm_72", 96),
        ("sm_75", 64),
        ("sm_80", 164),
        ("sm_86", 100),
        ("sm_87", 164),
        ("sm_89", 100),
        ("sm_90", 228),
        ("sm_100", 228),
        ("sm_110", 228),
        ("sm_120", 100),
    ];
    for (arch, kb) in expected {
        for config in CacheConfig::ALL {
            assert_eq!(per_sm_capacity(a(arch), config), kb * KB, "{arch} {config}");
        }
        assert_eq!(max_per_sm_capacity(a(arch)), kb * KB, "{arch}");
    }
}

#[test]
fn per_sm_capacity_follows_the_cache_config_on_fermi_and_kepler() {
    // 2.x: 16 KB shared with PreferL1, 48 KB otherwise (no equal split).
    for arch in ["sm_20", "sm_21"] {
        assert_eq!(per_sm_capacity(a(arch), PreferL1), 16 * KB);
        assert_eq!(per_sm_capacity(a(arch), PreferNone), 48 * KB);
        assert_eq!(per_sm_capacity(a(arch), PreferShared), 48 * KB);
        assert_eq!(per_sm_capacity(a(arch), PreferEqual), 48 * KB);
    }
    // 3.x: 16/32/48 KB.
    for arch in ["sm_30", "sm_32", "sm_35"] {
        assert_eq!(per_sm_capacity(a(arch), PreferL1), 16 * KB);
        assert_eq!(per_sm_capacity(a(arch), PreferEqual), 32 * KB);
        assert_eq!(per_sm_capacity(a(arch), PreferShared), 48 * KB);
        assert_eq!(per_sm_capacity(a(arch), PreferNone), 48 * KB);
    }
    // 3.7 (K80): 112 KB of shared memory next to the same 16-48 KB of L1.
    assert_eq!(per_sm_capacity(a("sm_37"), PreferL1), 80 * KB);
    assert_eq!(per_sm_capacity(a("sm_37"), PreferEqual), 96 * KB);
    assert_eq!(per_sm_capacity(a("sm_37"), PreferShared), 112 * KB);
}

#[test]
fn resident_blocks_per_sm() {
    let expected = [
        ("sm_10", 8),
        ("sm_13", 8),
        ("sm_20", 8),
        ("sm_30", 16),
        ("sm_37", 16),
        ("sm_50", 32),
        ("sm_62", 32),
        ("sm_70", 32),
        ("sm_72", 32),
        ("sm_75", 16),
        ("sm_80", 32),
        ("sm_86", 16),
        ("sm_87", 16),
        ("sm_89", 24),
        ("sm_90", 32),
        ("sm_100", 32),
        ("sm_103", 32),
        ("sm_120", 24),
        ("sm_121", 24),
    ];
    for (arch, n) in expected {
        assert_eq!(max_resident_blocks_per_sm(a(arch)), n, "{arch}");
    }
}

#[test]
fn system_reservation_and_granularity() {
    for arch in ["sm_10", "sm_20", "sm_35", "sm_61", "sm_70", "sm_75"] {
        assert_eq!(reserved_per_block(a(arch)), 0, "{arch}");
    }
    for arch in ["sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"] {
        assert_eq!(reserved_per_block(a(arch)), KB, "{arch}");
    }
    assert_eq!(allocation_granularity(a("sm_10")), 512);
    assert_eq!(allocation_granularity(a("sm_20")), 128);
    assert_eq!(allocation_granularity(a("sm_35")), 256);
    assert_eq!(allocation_granularity(a("sm_75")), 256);
    assert_eq!(allocation_granularity(a("sm_90")), 128);
    // 1000 bytes on 7.5: rounded to 1024. On 9.0: 1000 + 1024 reserved, rounded to 2048.
    assert_eq!(allocated_per_block(a("sm_75"), 1000), 1024);
    assert_eq!(allocated_per_block(a("sm_90"), 1000), 2048);
}

#[test]
fn blocks_per_sm_by_shared_memory() {
    let cases = [
        // 48 KB blocks: 96/48 = 2 on 7.0; 8.x+ add 1 KB: 164/49 = 3, 100/49 = 2, 228/49 = 4.
        ("sm_70", PreferNone, 48 * KB, 2),
        ("sm_80", PreferNone, 48 * KB, 3),
        ("sm_86", PreferNone, 48 * KB, 2),
        ("sm_90", PreferNone, 48 * KB, 4),
        ("sm_120", PreferNone, 48 * KB, 2),
        // The largest opt-in block fits once; one byte more does not fit at all.
        ("sm_80", PreferNone, 163 * KB, 1),
        ("sm_80", PreferNone, 163 * KB + 1, 0),
        ("sm_90", PreferNone, 227 * KB, 1),
        ("sm_90", PreferNone, 227 * KB + 1, 0),
        ("sm_61", PreferNone, 48 * KB + 1, 0),
        ("sm_75", PreferNone, 64 * KB, 1),
        ("sm_75", PreferNone, 32 * KB, 2),
        // Small blocks hit the resident-block limit: 8 KB on 5.2 would fit 12 times.
        ("sm_52", PreferNone, 8 * KB, 12),
        ("sm_52", PreferNone, KB, 32),
        // 2 KB + 1 KB reserved on 8.9: 33 fit, 24 may be resident.
        ("sm_89", PreferNone, 2 * KB, 24),
        // Even an empty block takes the 1 KB reservation on 8.x+: 164 fit, 32 resident.
        ("sm_80", PreferNone, 0, 32),
        ("sm_10", PreferNone, 0, 8),
        // 1.x: 16 KB per SM, 4 KB blocks: 4.
        ("sm_10", PreferNone, 4 * KB, 4),
        // 16 KB blocks on Kepler by split: 16/16, 32/16, 48/16.
        ("sm_35", PreferL1, 16 * KB, 1),
        ("sm_35", PreferEqual, 16 * KB, 2),
        ("sm_35", PreferShared, 16 * KB, 3),
        // Fermi: 8 KB blocks, 16 KB (PreferL1) or 48 KB shared: 2 or 6.
        ("sm_20", PreferL1, 8 * KB, 2),
        ("sm_20", PreferNone, 8 * KB, 6),
        // A block too big for the preferred split gets the large split: 48/20 = 2.
        ("sm_20", PreferL1, 20 * KB, 2),
        ("sm_35", PreferL1, 20 * KB, 2),
        // 3.7: 80/96/112 KB with 16 KB blocks: 5, 6, 7.
        ("sm_37", PreferL1, 16 * KB, 5),
        ("sm_37", PreferEqual, 16 * KB, 6),
        ("sm_37", PreferShared, 16 * KB, 7),
        // The carveout preference does not shrink the capacity on 7.x and later.
        ("sm_90", PreferL1, 48 * KB, 4),
    ];
    for (arch, config, bytes, blocks) in cases {
        assert_eq!(
            blocks_per_sm_by_shared(a(arch), config, bytes),
            blocks,
            "{arch} {config} {bytes} bytes"
        );
    }
}

#[test]
fn carveouts() {
    let kb = |v: &[u32]| v.iter().map(|k| k * KB).collect::<Vec<_>>();
    assert_eq!(
        configurable_capacities(a("sm_70")),
        kb(&[0, 8, 16, 32, 64, 96])
    );
    assert_eq!(configurable_capacities(a("sm_75")), kb(&[32, 64]));
    assert_eq!(
        configurable_capacities(a("sm_80")),
        kb(&[0, 8, 16, 32, 64, 100, 132, 164])
    );
    assert_eq!(
        configurable_capacities(a("sm_86")),
        kb(&[0, 8, 16, 32, 64, 100])
    );
    assert_eq!(
        configurable_capacities(a("sm_90")),
        kb(&[0, 8, 16, 32, 64, 100, 132, 164, 196, 228])
    );
    assert_eq!(
        configurable_capacities(a("sm_120")),
        kb(&[0, 8, 16, 32, 64, 100])
    );
    // The largest choice is always the per-SM capacity.
    for &(major, minor) in KNOWN_ARCHS {
        let arch = Arch { major, minor };
        assert_eq!(
            configurable_capacities(arch).last().copied(),
            Some(max_per_sm_capacity(arch)),
            "{arch}"
        );
        // 1 KB reservation: the per-block maximum is 1 KB under the SM on 8.x and later.
        if major >= 8 {
            assert_eq!(
                max_dynamic_opt_in_per_block(arch) + reserved_per_block(arch),
                max_per_sm_capacity(arch),
                "{arch}"
            );
        }
    }
}

#[test]
fn cache_config_names() {
    assert_eq!(
        CacheConfig::parse("cudaFuncCachePreferNone"),
        Some(PreferNone)
    );
    assert_eq!(
        CacheConfig::parse("cudaFuncCachePreferShared"),
        Some(PreferShared)
    );
    assert_eq!(CacheConfig::parse("cudaFuncCachePreferL1"), Some(PreferL1));
    assert_eq!(
        CacheConfig::parse("cudaFuncCachePreferEqual"),
        Some(PreferEqual)
    );
    assert_eq!(
        CacheConfig::parse(" CU_FUNC_CACHE_PREFER_L1 "),
        Some(PreferL1)
    );
    assert_eq!(
        CacheConfig::parse("::cudaFuncCachePreferShared"),
        Some(PreferShared)
    );
    assert_eq!(CacheConfig::parse("cudaFuncCachePreferBoth"), None);
    assert_eq!("cudaFuncCachePreferL1".parse::<CacheConfig>(), Ok(PreferL1));
    assert!("L2".parse::<CacheConfig>().is_err());
    for config in CacheConfig::ALL {
        assert_eq!(CacheConfig::parse(config.name()), Some(config));
    }
    assert_eq!(CacheConfig::default(), PreferNone);
}
