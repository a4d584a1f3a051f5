//! What every fuzz target runs once it has a file: the whole check (front end, parse,
//! analysis, findings), every output format and the fixes, on a thread with the stack the
//! command line's workers get. A panic anywhere fails the input.
use banklint::bank::arch::{Arch, BankMode, Target};
use banklint::check::{CheckOptions, check_source};
use banklint::front::source::SourceFile;
use banklint::lint::diagnostics::{self, ReportOptions};
use std::path::PathBuf;

/// The architecture family picked by `selector`, so every bank engine is exercised.
pub fn arch_for(selector: u8) -> &'static str {
    match selector % 4 {
        0 => "sm_10",
        1 => "sm_20",
        2 => "sm_35",
        _ => "sm_90",
    }
}

/// Checks `bytes` as the file at `path` (headers it includes are read from beside it).
pub fn check_all(path: PathBuf, bytes: Vec<u8>, arch: &'static str) {
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let Ok(file) = SourceFile::from_bytes(&path, bytes) else {
                return;
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
            assert!(
                fixed.text.len() >= report.file.text.len(),
                "fixes only add padding text"
            );
            assert!(
                fixed.bytes.len() >= report.file.bytes().len(),
                "and splice into the bytes read"
            );
        });
    worker.expect("spawn").join().expect("no panic");
}
