//! Fuzzes the whole check of one file, bytes in: loading (binary, non-UTF-8), the front
//! end, parsing, analysis, findings, fixes and every output format must not panic.
#![no_main]
use banklint::bank::arch::{Arch, BankMode, Target};
use banklint::check::{check_source, CheckOptions};
use banklint::lint::diagnostics::{self, ReportOptions};
use banklint::front::source::SourceFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = data.to_vec();
    let worker = std::thread::Builder::new().stack_size(256 << 20).spawn(move || {
        let path = std::path::Path::new("fuzz.cu");
        let Ok(file) = SourceFile::from_bytes(path, bytes) else { return };
        // The first byte picks the architecture family, so every engine is exercised.
        let arch = match file.text.as_bytes().first().map(|b| b % 4) {
            Some(0) => "sm_10",
            Some(1) => "sm_20",
            Some(2) => "sm_35",
            _ => "sm_90",
        };
        let target = Target::new(Arch::parse(arch).expect("known arch"), BankMode::EightByte);
        let options = CheckOptions {
            target,
            block_dim: None,
            defines: Default::default(),
            include_dirs: Vec::new(),
            includers: None,
        };
        let report = check_source(file, &options);
        let severity = Default::default();
        let findings = diagnostics::findings(
            &report,
            ReportOptions {
                target,
                warn_unused_allow: true,
                severity: &severity,
                min_ways: 1,
            },
        );
        let _ = banklint::app::emit::human::render(&report, &findings, false);
        let _ = banklint::app::emit::short::render(&report, &findings);
        let _ = banklint::app::emit::json::accesses(&report);
        let _ = banklint::app::emit::json::diagnostics(&report, &findings);
        let _ = banklint::app::emit::sarif::results(&report, &findings);
        let fixed = banklint::app::autofix::fixed(&report);
        assert!(fixed.text.len() >= report.file.text.len(), "fixes only add padding text");
        assert!(fixed.bytes.len() >= report.file.bytes().len(), "and splice into the bytes read");
    });
    worker.expect("spawn").join().expect("no panic");
});
