//! `--fix` writes each file atomically: a process killed at any moment leaves every file
//! either wholly old or wholly new, never half written. The test kills `banklint --fix` at
//! staggered moments over a directory of files that all need a fix.

mod common;

use common::temp_dir;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const FILES: usize = 24;

fn original(i: usize) -> String {
    // Each file has its own tile size and a host table, so writes take a little while.
    let n = 32 + (i % 4) * 32;
    let table: String = (0..5_000).map(|j| format!("{j}, ")).collect();
    format!(
        "__global__ void k{i}(float *o) {{\n    __shared__ float t[32][{n}];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}}\nstatic const int table_{i}[] = {{{table}}};\n"
    )
}

fn write_originals(dir: &Path) {
    for i in 0..FILES {
        std::fs::write(dir.join(format!("k{i:02}.cu")), original(i)).expect("write");
    }
}

#[test]
fn killing_fix_leaves_each_file_old_or_new() {
    // What a complete run produces.
    let reference = temp_dir("reference");
    write_originals(&reference);
    let started = std::time::Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(["check", ".", "--fix", "--format", "short"])
        .current_dir(&reference)
        .output()
        .expect("runs");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let full_run = started.elapsed().as_millis() as u64;
    let fixed: Vec<String> = (0..FILES)
        .map(|i| std::fs::read_to_string(reference.join(format!("k{i:02}.cu"))).expect("read"))
        .collect();
    for (i, f) in fixed.iter().enumerate() {
        assert_ne!(*f, original(i), "file {i} needs a fix");
    }

    let dir = temp_dir("killed");
    let mut interrupted = 0;
    for round in 0..30u64 {
        write_originals(&dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_banklint"))
            .args(["check", ".", "--fix", "--format", "short"])
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        // Kill moments spread over the whole length of a full run.
        std::thread::sleep(Duration::from_millis(full_run * (round + 1) / 31));
        let _ = child.kill();
        let _ = child.wait();
        let mut old = 0;
        for (i, expected) in fixed.iter().enumerate() {
            let path = dir.join(format!("k{i:02}.cu"));
            let now = std::fs::read_to_string(&path).expect("the file still exists and is UTF-8");
            if now == original(i) {
                old += 1;
            } else {
                assert_eq!(
                    now, *expected,
                    "round {round}: k{i:02}.cu is neither the old nor the new text"
                );
            }
        }
        if old > 0 && old < FILES {
            interrupted += 1;
        }
        // Temporary files from a killed write are hidden and never taken for sources.
        for entry in std::fs::read_dir(&dir).expect("ls").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".tmp") {
                assert!(name.starts_with('.'), "{name}");
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    eprintln!(
        "{interrupted} of 30 rounds were killed with some files fixed and some not (a full run: {full_run} ms)"
    );
    assert!(
        interrupted > 0,
        "no kill landed while files were being written"
    );
}
