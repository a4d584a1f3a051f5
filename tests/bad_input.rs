//! Bad input never crashes banklint: each broken input gets a one-line error naming its path
//! (or is analyzed), the exit status is 2 when any input failed, and every other file is
//! still analyzed. Each case is built in a temporary directory.

mod common;

use common::temp_dir;
use std::path::Path;
use std::process::{Command, Output};

fn banklint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("banklint runs")
}

const GOOD: &str = "__global__ void k(float *o) {\n    __shared__ float t[32][32];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}\n";

/// About 50 MB: a real kernel followed by host-side data tables.
fn large_file() -> String {
    let mut text = String::from(GOOD);
    let row: String = (0..200).map(|j| format!("{j}.5f, ")).collect();
    let mut i = 0;
    while text.len() < 50 * 1024 * 1024 {
        text.push_str(&format!("static const float table_{i}[] = {{{row}}};\n"));
        i += 1;
    }
    text
}

#[test]
fn every_kind_of_bad_input_is_reported_and_the_rest_analyzed() {
    let dir = temp_dir("all");
    std::fs::write(dir.join("good.cu"), GOOD).expect("write");
    std::fs::write(
        dir.join("binary.cu"),
        [0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0],
    )
    .expect("write");
    std::fs::write(
        dir.join("latin1.cu"),
        b"// r\xe9sum\xe9\nint r\xe9sum\xe9;\n__global__ void k() {}\n",
    )
    .expect("write");
    std::fs::write(dir.join("empty.cu"), "").expect("write");
    std::fs::write(dir.join("large.cu"), large_file()).expect("write");
    let deep = format!(
        "__global__ void k(float *o) {{\n    __shared__ float s[64];\n    int x = {}1{};\n    s[threadIdx.x] = x;\n}}\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    std::fs::write(dir.join("nested.cu"), deep).expect("write");
    let blocks = format!(
        "__global__ void k() {{ {} }}\n",
        "{".repeat(10_000) + &"}".repeat(10_000)
    );
    std::fs::write(dir.join("nested_blocks.cu"), blocks).expect("write");
    #[cfg(unix)]
    {
        // A socket cannot be opened for reading, even by root.
        let _listener =
            std::os::unix::net::UnixListener::bind(dir.join("socket.cu")).expect("bind");
        std::os::unix::fs::symlink(dir.join("self_loop.cu"), dir.join("self_loop.cu"))
            .expect("symlink");
        std::fs::create_dir_all(dir.join("tree")).expect("mkdir");
        std::os::unix::fs::symlink(dir.join("tree"), dir.join("tree/loop")).expect("symlink");
    }
    let args = [
        "check",
        "good.cu",
        "binary.cu",
        "latin1.cu",
        "empty.cu",
        "large.cu",
        "nested.cu",
        "nested_blocks.cu",
        "missing.cu",
        "socket.cu",
        "self_loop.cu",
        "tree",
        "--format",
        "short",
    ];
    let o = banklint(&dir, &args);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        !err.contains("panicked") && !err.contains("overflow"),
        "{err}"
    );
    for (path, message) in [
        ("binary.cu", "looks like a binary file"),
        (
            "latin1.cu",
            "is not valid UTF-8 at line 2, column 6 (outside comments and string literals)",
        ),
        ("missing.cu", "no such file"),
        ("socket.cu", "is a socket, not a regular file"),
        ("self_loop.cu", "cannot read"),
        ("tree", "symbolic link loop"),
    ] {
        let line = err
            .lines()
            .find(|l| l.starts_with(&format!("error: {path}")))
            .unwrap_or_else(|| panic!("no error naming {path}:\n{err}"));
        assert!(
            line.starts_with("error: ") && line.contains(message),
            "{line}"
        );
    }
    // The readable files were analyzed: the good kernel and the one inside the large file.
    assert!(
        out.contains("good.cu:3:5: warning: 32-way bank conflict on `t`"),
        "{out}"
    );
    assert!(
        out.contains("large.cu:3:5: warning: 32-way bank conflict on `t`"),
        "{out}"
    );
    // Too deeply nested code is skipped with a note, not a crash.
    assert!(
        out.contains("nested.cu:1:1: note: code banklint skipped"),
        "{out}"
    );
    assert!(
        out.contains("nested_blocks.cu:1:1: note: code banklint skipped"),
        "{out}"
    );
}

#[test]
fn a_directory_of_ten_thousand_files_is_analyzed_in_order() {
    let dir = temp_dir("many");
    let clean = "__global__ void k(float *o) {\n    __shared__ float t[64];\n    t[threadIdx.x] = o[threadIdx.x];\n}\n";
    for i in 0..10_000 {
        let text = if i % 1000 == 0 { GOOD } else { clean };
        std::fs::write(dir.join(format!("k{i:05}.cu")), text).expect("write");
    }
    let o = banklint(&dir, &["check", ".", "--format", "short"]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    let expected: Vec<String> = (0..10)
        .map(|i| {
            format!("./k{:05}.cu:3:5: warning: 32-way bank conflict on `t` (32 wavefronts per warp instead of 1) [bank-conflict]", i * 1000)
        })
        .collect();
    assert_eq!(
        lines, expected,
        "findings in path order, whatever thread analyzed them"
    );
    let o = banklint(&dir, &["check", ".", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(doc["files"].as_array().map(Vec::len), Some(10_000));
    assert_eq!(doc["accesses"].as_array().map(Vec::len), Some(10_000));
}
