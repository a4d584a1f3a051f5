//! Fuzzes the whole check of one file, bytes in: loading (binary, non-UTF-8), the front
//! end, parsing, analysis, findings, fixes and every output format must not panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the architecture family, so every engine is exercised.
    let arch = common::arch_for(data.first().copied().unwrap_or(3));
    common::check_all("fuzz.cu".into(), data.to_vec(), arch);
});
