//! Helpers for the tests that run the real binary: temporary directories, and runs under a
//! time limit that turns a hang into a failure.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one run of banklint may take (debug build, loaded machine) before it counts
/// as a hang.
pub const LIMIT: Duration = Duration::from_secs(60);

/// A kernel with a 32-way conflict at 3:5; its fix pads `[32][32]` to `[32][32 + 1]`.
pub const GOOD: &str = "__global__ void k(float *o) {\n    __shared__ float t[32][32];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}\n";

pub struct Out {
    pub code: Option<i32>,
    pub stdout: String,
    pub stdout_bytes: Vec<u8>,
    pub stderr: String,
}

impl Out {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", self.stdout, self.stderr))
    }
}

/// A test's own directory under the system's temporary one, removed when the test passes
/// (kept when it fails, to look at): left behind, thousands of them slow every later check of
/// a file there, as banklint lists a checked file's ancestor directories.
pub struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            remove(&self.0);
        }
    }
}

/// Removes a directory tree, read-only parts included (the tests make some).
fn remove(dir: &Path) {
    let _ = Command::new("chmod").arg("-R").arg("u+w").arg(dir).status();
    let _ = std::fs::remove_dir_all(dir);
}

pub fn temp_dir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("banklint-robust-{}-{name}", std::process::id()));
    if dir.exists() {
        // A previous failed run may have left it behind.
        remove(&dir);
    }
    std::fs::create_dir_all(&dir).expect("temp dir");
    TempDir(dir)
}

pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

pub fn banklint(dir: &Path, args: &[&str]) -> Out {
    banklint_with(dir, args, &[], None)
}

pub fn banklint_with(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    stdin: Option<Vec<u8>>,
) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_banklint"));
    cmd.args(args).current_dir(dir).env_remove("NO_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_limited(&mut cmd, stdin)
}

/// Runs `cmd`, feeding `stdin`, killing it (and failing the test) past [`LIMIT`].
pub fn run_limited(cmd: &mut Command, stdin: Option<Vec<u8>>) -> Out {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("banklint starts");
    let feeder = child.stdin.take().zip(stdin).map(|(mut pipe, bytes)| {
        // banklint may stop reading early (a capped input): a broken pipe is expected.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err_pipe.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("banklint ran past {LIMIT:?}: {cmd:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let stdout_bytes = out_reader.join().expect("stdout");
    let stderr = err_reader.join().expect("stderr");
    Out {
        code: status.code(),
        stdout: String::from_utf8_lossy(&stdout_bytes).into_owned(),
        stdout_bytes,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// Runs banklint and returns its output and its peak resident memory in KB (Linux): the
/// high-water mark of its own address space, read while it runs (`wait4`'s `ru_maxrss`
/// would count the test process it was started from).
#[cfg(target_os = "linux")]
pub fn run_measured(dir: &Path, args: &[&str]) -> (Out, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("banklint starts");
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err_pipe.read_to_end(&mut v);
        v
    });
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let start = Instant::now();
    let status = loop {
        // The high-water mark only grows: the last reading before exit is the peak, give
        // or take the last few milliseconds.
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kb);
        }
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("banklint ran past {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stdout_bytes = out_reader.join().expect("stdout");
    let stderr = err_reader.join().expect("stderr");
    (
        Out {
            code: status.code(),
            stdout: String::from_utf8_lossy(&stdout_bytes).into_owned(),
            stdout_bytes,
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        },
        peak,
    )
}

/// The diagnostics of `code` in a JSON report, as (line, label).
pub fn labels_of(json: &serde_json::Value, code: &str) -> Vec<(u64, String)> {
    json["diagnostics"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter(|d| d["code"] == code)
                .map(|d| {
                    let label = d["label"].as_str().unwrap_or_default().to_string();
                    (d["line"].as_u64().unwrap_or(0), label)
                })
                .collect()
        })
        .unwrap_or_default()
}
