//! Benchmark: how fast banklint is on generated and on real kernels, side by side with
//! `gcc -E -x c` (what a compiler-based tool pays before it even parses) on the same files.
//!
//! Sections, in order (`--sections` picks some):
//! - `generated`: 250 generated files of realistic kernels (1,000 kernels, about 5 MB): banklint
//!   over the directory (best of three: MB/s, files/s, peak RSS) and `gcc -E -x c` once per
//!   file with its `#include` lines removed;
//! - `latency`: one typical 20 KB file alone in its directory, process start included (median
//!   and p90 of 50 runs), beside an empty file and the same file among the 250 generated ones
//!   (where banklint also reads its neighbours to find the file's includer);
//! - `scaling`: one file of 1k/2k/4k/8k/16k small kernels (each one `__shared__ float
//!   t[32][32]` and one access): time, time per kernel and growth, peak RSS;
//! - `real`: real kernels: the repository's `fixtures/` always, plus external corpora when
//!   present (`--real DIR`, repeatable, or `BANKLINT_BENCH_REAL=DIR:DIR`; by default `../corpus`,
//!   where `../shared/corpus/extract.py` puts the development corpus, and each folder of
//!   `../ref`; an absent one is skipped with a message). Files: `.cu`/`.cuh` and the
//!   `.h`/`.hpp`/`.inl` headers with device code, as `scripts/coverage.py` selects them; a
//!   corpus whose folders are named `OWNER+NAME` after `../shared/corpus/repos.tsv` (`--repos`)
//!   is measured per repository with that repository's `-D` defines. First the sweep: each file
//!   analyzed on its own (process start included, `--sweep-timeout`, default 20 s), the slowest
//!   ten printed and every file over 1 s flagged; then banklint once per repository over all
//!   its files (files that timed out in the sweep left out and named), and `gcc -E -x c` once
//!   per file (includes removed, same defines), sequentially as a compiler-based tool would.
//!
//! The bench times whole processes itself (a monotonic clock from spawn to exit; peak RSS
//! from the kernel's accounting of the reaped child, `wait4`), so it runs on a fresh clone with
//! nothing but cargo and gcc; repeated measures report the median.
//!
//! Run: `cargo build --release && cargo run --release --example bench [-- OPTIONS]`
//! (`-- --help` lists the options; set BANKLINT to another binary to measure it instead).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FILES: usize = 250;
const KERNELS_PER_FILE: usize = 4;
const SLOW_FILE: Duration = Duration::from_secs(1);

struct Opts {
    sections: Vec<String>,
    real: Option<Vec<PathBuf>>,
    repos: PathBuf,
    sweep_timeout: Duration,
    scaling: Vec<usize>,
    scaling_timeout: Duration,
    latency_runs: usize,
    keep: bool,
}

const USAGE: &str = "usage: cargo run --release --example bench -- [OPTIONS]
  --sections LIST        generated,latency,scaling,real (default: all)
  --real DIR             a corpus of real kernels (repeatable; replaces the defaults ../corpus
                         and ../ref/*); also BANKLINT_BENCH_REAL=DIR:DIR
  --no-external          only fixtures/ as real kernels
  --repos FILE           repos.tsv naming the corpus's repositories and their defines
                         (default ../shared/corpus/repos.tsv)
  --sweep-timeout SECS   per file in the sweep (default 20)
  --scaling N,N,...      kernels per file (default 1000,2000,4000,8000,16000)
  --scaling-timeout SECS per size; larger sizes are skipped after one runs out (default 120)
  --latency-runs N       runs of the 20 KB file (default 50)
  --keep                 keep the generated files (their folder is printed)
BANKLINT=path measures another binary (default target/release/banklint).";

fn parse_opts(root: &Path) -> Opts {
    let mut o = Opts {
        sections: vec![
            "generated".into(),
            "latency".into(),
            "scaling".into(),
            "real".into(),
        ],
        real: std::env::var_os("BANKLINT_BENCH_REAL").map(|v| std::env::split_paths(&v).collect()),
        repos: root.join("../shared/corpus/repos.tsv"),
        sweep_timeout: Duration::from_secs(20),
        scaling: vec![1000, 2000, 4000, 8000, 16000],
        scaling_timeout: Duration::from_secs(120),
        latency_runs: 50,
        keep: false,
    };
    let mut args = std::env::args().skip(1);
    let secs = |v: Option<String>| {
        Duration::from_secs_f64(
            v.and_then(|s| s.parse().ok())
                .unwrap_or_else(|| usage_error("expected seconds")),
        )
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sections" => {
                o.sections = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(String::from)
                    .collect()
            }
            "--real" => o
                .real
                .get_or_insert_with(Vec::new)
                .push(PathBuf::from(args.next().unwrap_or_default())),
            "--no-external" => o.real = Some(Vec::new()),
            "--repos" => o.repos = PathBuf::from(args.next().unwrap_or_default()),
            "--sweep-timeout" => o.sweep_timeout = secs(args.next()),
            "--scaling-timeout" => o.scaling_timeout = secs(args.next()),
            "--scaling" => {
                o.scaling = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|n| {
                        n.parse()
                            .unwrap_or_else(|_| usage_error("--scaling N,N,..."))
                    })
                    .collect()
            }
            "--latency-runs" => {
                o.latency_runs = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|&n| n > 0)
                    .unwrap_or_else(|| usage_error("--latency-runs N"))
            }
            "--keep" => o.keep = true,
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            // cargo bench passes --bench to bench targets; accept it if run that way.
            "--bench" => {}
            other => usage_error(&format!("unknown argument {other}")),
        }
    }
    o
}

fn usage_error(msg: &str) -> ! {
    eprintln!("{msg}\n{USAGE}");
    std::process::exit(2);
}

/// Figures for the summary against the targets of the analyzer issue.
#[derive(Default)]
struct Summary {
    generated_peak_mb: Option<f64>,
    generated_ratio: Option<f64>,
    latency_ms: Option<(f64, f64)>,
    scaling_largest: Option<(usize, f64, bool)>,
    real_ratio: Option<f64>,
    files_over_1s: Option<usize>,
    sweep_timeouts: usize,
    /// Only fixtures/ measured: the real-kernel targets speak of the public corpus.
    fixtures_only: bool,
}

fn main() {
    // The repository: where this was built, or the current directory when the binary was
    // copied elsewhere.
    let built_in = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cwd = std::env::current_dir().expect("current directory");
    let root = if built_in.join("fixtures").is_dir() {
        built_in
    } else {
        cwd.as_path()
    };
    let opts = parse_opts(root);
    let banklint = std::env::var_os("BANKLINT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/release/banklint"));
    if !banklint.is_file() {
        eprintln!(
            "build first: cargo build --release ({} not found)",
            banklint.display()
        );
        std::process::exit(2);
    }
    let gcc = which("gcc");
    let dir = std::env::temp_dir().join(format!("banklint-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    println!(
        "banklint: {} ({}); {} cores; gcc: {}",
        banklint.display(),
        version(&banklint),
        threads(),
        gcc.as_ref()
            .map_or("not found".to_string(), |g| g.display().to_string())
    );
    if let Some(l) = load_average() {
        println!("load average at the start: {l}");
    }
    let mut summary = Summary::default();
    let on = |s: &str| opts.sections.iter().any(|x| x == s);
    if on("generated") || on("latency") {
        let corpus = generate_corpus(&dir);
        if on("generated") {
            generated(&banklint, gcc.as_deref(), &dir, &corpus, &mut summary);
        }
        if on("latency") {
            latency(&banklint, &dir, &corpus, opts.latency_runs, &mut summary);
        }
    }
    if on("scaling") {
        scaling(&banklint, &dir, &opts, &mut summary);
    }
    if on("real") {
        real(&banklint, gcc.as_deref(), &dir, root, &opts, &mut summary);
    }
    print_summary(&summary);
    if let Some(l) = load_average() {
        println!("load average at the end: {l} (other work on the machine slows every figure)");
    }
    if opts.keep {
        println!("generated files kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

// ---------------------------------------------------------------------------------------
// Running a child: wall time from spawn to exit, peak RSS, an optional time limit.

struct Outcome {
    wall: Duration,
    /// Exit code; `None` when a signal ended it.
    code: Option<i32>,
    timed_out: bool,
    peak_kb: Option<u64>,
}

impl Outcome {
    fn secs(&self) -> f64 {
        self.wall.as_secs_f64()
    }
    fn failed(&self) -> bool {
        self.timed_out || self.code.is_none_or(|c| c > 1)
    }
}

#[cfg(unix)]
fn run(cmd: &mut Command, timeout: Option<Duration>) -> Outcome {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Condvar, Mutex};
    cmd.stdin(Stdio::null());
    let start = Instant::now();
    let child = cmd.spawn().expect("the command starts");
    let pid = child.id() as libc::pid_t;
    let done = Arc::new((Mutex::new(false), Condvar::new()));
    let killed = Arc::new(AtomicBool::new(false));
    let watchdog = timeout.map(|limit| {
        let (done, killed) = (Arc::clone(&done), Arc::clone(&killed));
        std::thread::spawn(move || {
            let (lock, cv) = &*done;
            let guard = lock.lock().expect("lock");
            let (guard, _) = cv
                .wait_timeout_while(guard, limit, |finished| !*finished)
                .expect("lock");
            if !*guard {
                // The child is not reaped before `done` is set, so this pid is still ours.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                killed.store(true, Ordering::SeqCst);
            }
        })
    });
    // Wait for the exit without reaping (WNOWAIT), so the watchdog can never signal a reused
    // pid; then reap with wait4 for the child's resource usage.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOWAIT,
        );
    }
    let wall = start.elapsed();
    {
        let (lock, cv) = &*done;
        *lock.lock().expect("lock") = true;
        cv.notify_all();
    }
    if let Some(w) = watchdog {
        w.join().expect("watchdog");
    }
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    drop(child);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // ru_maxrss is in kilobytes on Linux, in bytes on macOS.
    let scale = if cfg!(target_os = "macos") { 1024 } else { 1 };
    Outcome {
        wall,
        code,
        timed_out: killed.load(Ordering::SeqCst),
        peak_kb: (reaped == pid).then(|| usage.ru_maxrss as u64 / scale),
    }
}

#[cfg(not(unix))]
fn run(cmd: &mut Command, timeout: Option<Duration>) -> Outcome {
    cmd.stdin(Stdio::null());
    let start = Instant::now();
    let mut child = cmd.spawn().expect("the command starts");
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return Outcome {
                wall: start.elapsed(),
                code: status.code(),
                timed_out: false,
                peak_kb: None,
            };
        }
        if timeout.is_some_and(|t| start.elapsed() > t) {
            let _ = child.kill();
            let _ = child.wait();
            return Outcome {
                wall: start.elapsed(),
                code: None,
                timed_out: true,
                peak_kb: None,
            };
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn banklint_cmd(banklint: &Path, cwd: &Path, defines: &[String]) -> Command {
    let mut c = Command::new(banklint);
    c.current_dir(cwd)
        .args(["check", "--format", "json", "--no-config"])
        .args(defines.iter().map(|d| format!("-D{d}")))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

fn gcc_cmd(gcc: &Path, file: &Path, defines: &[String]) -> Command {
    let mut c = Command::new(gcc);
    c.args(["-E", "-x", "c", "-o", "/dev/null"])
        .args(defines.iter().map(|d| format!("-D{d}")))
        .arg(file)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

fn strip_includes(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("#include"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn mb(kb: Option<u64>) -> String {
    kb.map_or("-".into(), |k| format!("{:.1} MB", k as f64 / 1024.0))
}

// ---------------------------------------------------------------------------------------
// Generated corpus and the 20 KB file

fn generate_corpus(dir: &Path) -> PathBuf {
    let corpus = dir.join("generated");
    std::fs::create_dir_all(&corpus).expect("corpus dir");
    for f in 0..FILES {
        std::fs::write(corpus.join(format!("kernels_{f:03}.cu")), generate_file(f)).expect("write");
    }
    corpus
}

fn generated(banklint: &Path, gcc: Option<&Path>, dir: &Path, corpus: &Path, s: &mut Summary) {
    let files: Vec<PathBuf> = (0..FILES)
        .map(|f| corpus.join(format!("kernels_{f:03}.cu")))
        .collect();
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    let mbytes = bytes as f64 / 1e6;
    println!(
        "\n== generated corpus: {FILES} files, {} kernels, {mbytes:.2} MB ({:.1} KB per file) ==",
        FILES * KERNELS_PER_FILE,
        bytes as f64 / FILES as f64 / 1e3
    );
    // Best of three (the first also warms the page cache); peak RSS of the best run.
    let best = (0..3)
        .map(|_| {
            let o = run(banklint_cmd(banklint, corpus, &[]).arg("."), None);
            assert!(!o.failed(), "banklint failed on the generated corpus");
            o
        })
        .min_by(|a, b| a.wall.cmp(&b.wall))
        .expect("three runs");
    let secs = best.secs();
    println!(
        "banklint check (directory, {} threads): {secs:.3} s = {:.1} MB/s, {:.0} files/s; peak RSS {}",
        threads(),
        mbytes / secs,
        FILES as f64 / secs,
        mb(best.peak_kb)
    );
    s.generated_peak_mb = best.peak_kb.map(|k| k as f64 / 1024.0);
    let Some(gcc) = gcc else {
        println!("gcc -E: not measured (gcc not found)");
        return;
    };
    let stripped = dir.join("generated-no-includes");
    std::fs::create_dir_all(&stripped).expect("dir");
    let copies: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            let to = stripped.join(f.file_name().expect("name"));
            std::fs::write(
                &to,
                strip_includes(&std::fs::read_to_string(f).expect("read")),
            )
            .expect("write");
            to
        })
        .collect();
    let t = Instant::now();
    for c in &copies {
        let o = run(&mut gcc_cmd(gcc, c, &[]), None);
        assert_eq!(o.code, Some(0), "gcc -E failed on {}", c.display());
    }
    let g = t.elapsed().as_secs_f64();
    s.generated_ratio = Some(secs / g);
    println!(
        "gcc -E -x c, once per file, sequentially: {g:.3} s; banklint / gcc = {:.2}",
        secs / g
    );
}

fn latency(banklint: &Path, dir: &Path, corpus: &Path, runs: usize, s: &mut Summary) {
    // The file alone in its directory (what the target speaks of), and the same file among the
    // 250 of the generated corpus, where banklint also reads its neighbours to find includers.
    let in_corpus = corpus.join("kernels_000.cu");
    let alone_dir = dir.join("alone");
    std::fs::create_dir_all(&alone_dir).expect("dir");
    let alone = alone_dir.join("kernels_000.cu");
    std::fs::copy(&in_corpus, &alone).expect("copy");
    let empty = alone_dir.join("empty.cu");
    std::fs::write(&empty, "").expect("write");
    let size = std::fs::metadata(&alone).map_or(0, |m| m.len());
    let times = |file: &Path, n: usize| {
        let cmd = || {
            let mut c = Command::new(banklint);
            c.args(["check", "--format", "short", "--no-config"])
                .arg(file)
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            c
        };
        for _ in 0..3 {
            run(&mut cmd(), None);
        }
        let mut t: Vec<f64> = (0..n).map(|_| run(&mut cmd(), None).secs() * 1e3).collect();
        t.sort_by(f64::total_cmp);
        t
    };
    let t = times(&alone, runs);
    let (med, p90) = (t[t.len() / 2], t[t.len() * 9 / 10]);
    let mut e = times(&empty, runs.min(20));
    let mut c = times(&in_corpus, runs.min(20));
    println!(
        "\n== one {:.1} KB file, process start included ({runs} runs) ==\nalone in its directory: median {med:.2} ms, p90 {p90:.2} ms, min {:.2} ms\nan empty file: median {:.2} ms; the same 20 KB file among the 250 generated files (banklint reads them to find includers): median {:.2} ms",
        size as f64 / 1e3,
        t[0],
        median(&mut e),
        median(&mut c)
    );
    s.latency_ms = Some((med, p90));
}

// ---------------------------------------------------------------------------------------
// Scaling: N small kernels in one file

fn many_kernels(n: usize) -> String {
    let mut s = String::with_capacity(n * 140);
    for i in 0..n {
        s.push_str(&format!(
            "__global__ void k{i}(float *o)\n{{\n    __shared__ float t[32][32];\n    o[threadIdx.x] = t[threadIdx.x][0];\n}}\n\n"
        ));
    }
    s
}

fn scaling(banklint: &Path, dir: &Path, opts: &Opts, s: &mut Summary) {
    println!(
        "\n== scaling: N kernels in one file, each `__shared__ float t[32][32]` and one access =="
    );
    println!(
        "{:>7} {:>8} {:>10} {:>13} {:>9} {:>10}",
        "kernels", "MB", "seconds", "us per kernel", "x prev", "peak RSS"
    );
    let mut prev: Option<f64> = None;
    for (i, &n) in opts.scaling.iter().enumerate() {
        let path = dir.join(format!("many_{n}.cu"));
        let text = many_kernels(n);
        std::fs::write(&path, &text).expect("write");
        let o = run(
            banklint_cmd(banklint, dir, &[]).arg(&path),
            Some(opts.scaling_timeout),
        );
        if o.timed_out {
            println!(
                "{n:>7} {:>8.2} over {:.0} s: stopped; larger sizes not run",
                text.len() as f64 / 1e6,
                opts.scaling_timeout.as_secs_f64()
            );
            s.scaling_largest = Some((n, o.secs(), true));
            return;
        }
        let growth = prev.map_or("-".into(), |p| format!("{:.2}", o.secs() / p));
        println!(
            "{n:>7} {:>8.2} {:>10.3} {:>13.1} {:>9} {:>10}{}",
            text.len() as f64 / 1e6,
            o.secs(),
            o.secs() * 1e6 / n as f64,
            growth,
            mb(o.peak_kb),
            if o.failed() {
                "  (banklint failed)"
            } else {
                ""
            }
        );
        prev = Some(o.secs());
        if i + 1 == opts.scaling.len() {
            s.scaling_largest = Some((n, o.secs(), false));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Real kernels

/// Files measured together, with the same defines: one repository of a corpus.
struct Group {
    name: String,
    root: PathBuf,
    defines: Vec<String>,
    files: Vec<PathBuf>, // relative to root
    bytes: u64,
}

struct Corpus {
    name: String,
    groups: Vec<Group>,
}

fn real(
    banklint: &Path,
    gcc: Option<&Path>,
    dir: &Path,
    root: &Path,
    opts: &Opts,
    s: &mut Summary,
) {
    println!("\n== real kernels ==");
    let mut corpora = vec![Corpus {
        name: "fixtures".into(),
        groups: vec![group("fixtures".into(), root.join("fixtures"), Vec::new())],
    }];
    let external = opts.real.clone().unwrap_or_else(|| {
        let mut v = vec![root.join("../corpus")];
        match std::fs::read_dir(root.join("../ref")) {
            Ok(rd) => {
                let mut refs: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_dir())
                    .collect();
                refs.sort();
                v.extend(refs);
            }
            Err(_) => println!(
                "{}: absent, skipped (reference corpora: NVIDIA/cuda-samples, yuhc/gpu-rodinia)",
                root.join("../ref").display()
            ),
        }
        v
    });
    let repos = read_repos(&opts.repos);
    for path in external {
        if !path.is_dir() {
            println!(
                "{}: absent, skipped (the development corpus: see ../shared/corpus/README.md; or give --real DIR)",
                path.display()
            );
            continue;
        }
        corpora.push(corpus(&path, &repos));
    }
    println!(
        "\nbanklint s: one banklint process per repository over all its files (all cores); gcc -E s: gcc -E -x c once per\nfile, includes removed, one after the other; lint/gcc: their ratio; per file: the sweep's banklint time (each file\non its own, one process each) over gcc's, file by file the same work on one core\n"
    );
    print_real_header();
    let mut sweep: Vec<(String, f64, bool)> = Vec::new(); // (corpus: group: file, secs, timed out)
    let mut rows = Vec::new();
    let mut all = RealRow::default();
    for c in &corpora {
        let files: usize = c.groups.iter().map(|g| g.files.len()).sum();
        eprintln!("sweeping {} ({files} files)...", c.name);
        let mut row = RealRow::default();
        for g in &c.groups {
            let r = measure_group(banklint, gcc, dir, g, opts, &mut sweep, &c.name);
            if c.groups.len() > 1 {
                print_real_row(&format!("  {}", g.name), &r);
            }
            row.add(&r);
        }
        print_real_row(&c.name, &row);
        all.add(&row);
        rows.push((c.name.clone(), row));
    }
    if rows.len() > 1 {
        print_real_row("all", &all);
    }
    s.fixtures_only = rows.len() == 1;
    if all.gcc_secs > 0.0 && all.files_run > all.fixtures_files {
        // The ratio the target speaks of is over real kernels beyond the fixtures when present.
        let ext = rows.iter().filter(|(n, _)| n != "fixtures").fold(
            RealRow::default(),
            |mut acc, (_, r)| {
                acc.add(r);
                acc
            },
        );
        s.real_ratio = Some(ext.lint_secs / ext.gcc_secs);
    } else if all.gcc_secs > 0.0 {
        s.real_ratio = Some(all.lint_secs / all.gcc_secs);
    }

    sweep.sort_by(|a, b| b.1.total_cmp(&a.1));
    let over: Vec<&(String, f64, bool)> = sweep
        .iter()
        .filter(|x| x.1 >= SLOW_FILE.as_secs_f64())
        .collect();
    println!(
        "\nsweep: {} files, each on its own; the slowest ten:",
        sweep.len()
    );
    for (name, secs, timed_out) in sweep.iter().take(10) {
        let flag = if *timed_out {
            "  TIMEOUT"
        } else if *secs >= SLOW_FILE.as_secs_f64() {
            "  OVER 1 s"
        } else {
            ""
        };
        println!("  {secs:8.3} s  {name}{flag}");
    }
    println!("files over 1 s: {}", over.len());
    for (name, secs, timed_out) in over.iter().skip(10) {
        println!(
            "  {secs:8.3} s  {name}{}",
            if *timed_out { "  TIMEOUT" } else { "" }
        );
    }
    s.files_over_1s = Some(over.len());
    s.sweep_timeouts = sweep.iter().filter(|x| x.2).count();
}

#[derive(Default, Clone)]
struct RealRow {
    files: usize,
    files_run: usize,
    fixtures_files: usize,
    bytes: u64,
    bytes_run: u64,
    lint_secs: f64,
    lint_failed: usize,
    lint_input_errors: usize,
    peak_kb: Option<u64>,
    gcc_secs: f64,
    gcc_failed: usize,
    sweep_secs: f64,
    sweep_gcc_secs: f64,
    left_out: Vec<String>,
}

impl RealRow {
    fn add(&mut self, o: &RealRow) {
        self.files += o.files;
        self.files_run += o.files_run;
        self.fixtures_files += o.fixtures_files;
        self.bytes += o.bytes;
        self.bytes_run += o.bytes_run;
        self.lint_secs += o.lint_secs;
        self.lint_failed += o.lint_failed;
        self.lint_input_errors += o.lint_input_errors;
        self.peak_kb = self.peak_kb.max(o.peak_kb);
        self.gcc_secs += o.gcc_secs;
        self.gcc_failed += o.gcc_failed;
        self.sweep_secs += o.sweep_secs;
        self.sweep_gcc_secs += o.sweep_gcc_secs;
        self.left_out.extend(o.left_out.iter().cloned());
    }
}

fn print_real_header() {
    println!(
        "{:<40} {:>6} {:>7} {:>10} {:>7} {:>8} {:>8} {:>9} {:>10} {:>9}",
        "corpus",
        "files",
        "MB",
        "banklint s",
        "MB/s",
        "files/s",
        "gcc -E s",
        "lint/gcc",
        "peak RSS",
        "per file"
    );
}

fn print_real_row(name: &str, r: &RealRow) {
    let ratio = |a: f64, b: f64| {
        if b > 0.0 {
            format!("{:.2}", a / b)
        } else {
            "-".into()
        }
    };
    let name: String = if name.chars().count() > 40 {
        name.chars().take(39).chain(['…']).collect()
    } else {
        name.to_string()
    };
    println!(
        "{:<40} {:>6} {:>7.2} {:>10.2} {:>7.2} {:>8.0} {:>8.2} {:>9} {:>10} {:>9}{}{}",
        name,
        r.files_run,
        r.bytes_run as f64 / 1e6,
        r.lint_secs,
        r.bytes_run as f64 / 1e6 / r.lint_secs.max(1e-9),
        r.files_run as f64 / r.lint_secs.max(1e-9),
        r.gcc_secs,
        ratio(r.lint_secs, r.gcc_secs),
        mb(r.peak_kb),
        ratio(r.sweep_secs, r.sweep_gcc_secs),
        if r.left_out.is_empty() {
            String::new()
        } else {
            format!("  ({} left out: timed out in the sweep)", r.left_out.len())
        },
        [
            (r.lint_failed, "banklint runs crashed or timed out"),
            (
                r.lint_input_errors,
                "banklint runs exited 2 (a file it could not read)",
            ),
            (r.gcc_failed, "files gcc -E rejected"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("  ({n} {what})"))
        .collect::<String>()
    );
}

fn measure_group(
    banklint: &Path,
    gcc: Option<&Path>,
    dir: &Path,
    g: &Group,
    opts: &Opts,
    sweep: &mut Vec<(String, f64, bool)>,
    corpus: &str,
) -> RealRow {
    let mut row = RealRow {
        files: g.files.len(),
        bytes: g.bytes,
        fixtures_files: if corpus == "fixtures" {
            g.files.len()
        } else {
            0
        },
        ..RealRow::default()
    };
    // Sweep: each file on its own.
    let mut ok_files = Vec::new();
    let mut sweep_ok_secs = BTreeMap::new();
    for f in &g.files {
        let o = run(
            banklint_cmd(banklint, &g.root, &g.defines).arg(f),
            Some(opts.sweep_timeout),
        );
        let label = if corpus == g.name {
            format!("{corpus}: {}", f.display())
        } else {
            format!("{corpus}: {}: {}", g.name, f.display())
        };
        sweep.push((label.clone(), o.secs(), o.timed_out));
        if o.timed_out {
            row.left_out.push(label);
        } else {
            sweep_ok_secs.insert(f.clone(), o.secs());
            ok_files.push(f.clone());
        }
    }
    row.files_run = ok_files.len();
    row.bytes_run = ok_files
        .iter()
        .map(|f| std::fs::metadata(g.root.join(f)).map_or(0, |m| m.len()))
        .sum();
    // banklint over all the group's files in one process.
    if !ok_files.is_empty() {
        let o = run(
            banklint_cmd(banklint, &g.root, &g.defines).args(&ok_files),
            Some(Duration::from_secs(600)),
        );
        row.lint_secs = o.secs();
        row.peak_kb = o.peak_kb;
        match o.code {
            Some(0 | 1) => {}
            Some(2) => row.lint_input_errors += 1,
            _ => row.lint_failed += 1,
        }
    }
    // gcc -E once per file, includes removed.
    if let Some(gcc) = gcc {
        let stripped = dir.join("real").join(&g.name);
        for f in &ok_files {
            let text = String::from_utf8_lossy(&std::fs::read(g.root.join(f)).unwrap_or_default())
                .into_owned();
            let to = stripped.join(f);
            std::fs::create_dir_all(to.parent().expect("parent")).expect("dir");
            std::fs::write(&to, strip_includes(&text)).expect("write");
            let o = run(
                &mut gcc_cmd(gcc, &to, &g.defines),
                Some(Duration::from_secs(60)),
            );
            row.gcc_secs += o.secs();
            row.sweep_gcc_secs += o.secs();
            row.sweep_secs += sweep_ok_secs[f];
            if o.code != Some(0) {
                row.gcc_failed += 1;
            }
        }
    }
    row
}

fn corpus(path: &Path, repos: &[(String, String, Vec<String>)]) -> Corpus {
    let name = path
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| path.display().to_string());
    let mut groups = Vec::new();
    for (repo, subdir, defines) in repos {
        let base = path.join(repo.replace('/', "+"));
        let root = if subdir.is_empty() || subdir == "." {
            base
        } else {
            base.join(subdir)
        };
        if root.is_dir() {
            groups.push(group(repo.clone(), root, defines.clone()));
        }
    }
    if groups.is_empty() {
        groups.push(group(name.clone(), path.to_path_buf(), Vec::new()));
    } else {
        println!(
            "{}: {} repositories named in repos.tsv, each with its defines",
            path.display(),
            groups.len()
        );
    }
    Corpus { name, groups }
}

/// repos.tsv rows: (OWNER/NAME, subdir, defines); empty when the file is absent.
fn read_repos(path: &Path) -> Vec<(String, String, Vec<String>)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let (Some(repo), subdir, defines) = (col("repo"), col("subdir"), col("defines")) else {
        return Vec::new();
    };
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            let cell = |i: Option<usize>| {
                i.and_then(|i| cells.get(i))
                    .map_or(String::new(), |c| c.trim().to_string())
            };
            (
                cell(Some(repo)),
                cell(subdir).trim_matches('/').to_string(),
                cell(defines)
                    .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
                    .filter(|d| !d.is_empty())
                    .map(String::from)
                    .collect(),
            )
        })
        .collect()
}

/// The files of a group as `scripts/coverage.py` selects them: `.cu`/`.cuh`, and headers
/// (`.h`/`.hpp`/`.inl`) with device code outside comments, not of another GPU back end.
fn group(name: String, root: PathBuf, defines: Vec<String>) -> Group {
    let mut files = Vec::new();
    let mut bytes = 0;
    for entry in walkdir::WalkDir::new(&root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
    {
        let p = entry.path();
        let rel = p.strip_prefix(&root).expect("under root").to_path_buf();
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        let take = match ext {
            "cu" | "cuh" => true,
            "h" | "hpp" | "inl" => {
                !other_backend(&rel)
                    && std::fs::read(p).is_ok_and(|b| has_device_code(&String::from_utf8_lossy(&b)))
            }
            _ => false,
        };
        if take {
            bytes += entry.metadata().map_or(0, |m| m.len());
            files.push(rel);
        }
    }
    Group {
        name,
        root,
        defines,
        files,
        bytes,
    }
}

fn other_backend(rel: &Path) -> bool {
    const OTHERS: [&str; 4] = ["hip", "sycl", "opencl", "ocl"];
    let comps: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_lowercase())
        .collect();
    let dirs = &comps[..comps.len().saturating_sub(1)];
    let stem = rel
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    dirs.iter().any(|d| OTHERS.contains(&d.as_str()))
        || OTHERS.iter().any(|o| stem.ends_with(&format!("_{o}")))
}

/// `__global__`, `__device__` or `__shared__` outside comments and string literals.
fn has_device_code(text: &str) -> bool {
    let b = text.as_bytes();
    let mut code = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            (b'/', Some(b'/')) => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                code.push(b' ');
            }
            (b'"', _) => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                code.push(b' ');
            }
            (c, _) => {
                code.push(c);
                i += 1;
            }
        }
    }
    let code = String::from_utf8_lossy(&code);
    ["__global__", "__device__", "__shared__"].iter().any(|w| {
        code.match_indices(w).any(|(at, _)| {
            let before = code[..at].chars().next_back();
            let after = code[at + w.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

// ---------------------------------------------------------------------------------------
// Summary

fn print_summary(s: &Summary) {
    println!("\n== against the targets ==");
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    let only = if s.fixtures_only {
        " (fixtures only: the targets are on the public corpus, absent here)"
    } else {
        ""
    };
    if let Some(r) = s.real_ratio {
        println!(
            "banklint / gcc -E on real kernels: {r:.2} (target <= 0.5: {}){only}",
            verdict(r <= 0.5)
        );
    }
    if let Some(r) = s.generated_ratio {
        println!("banklint / gcc -E on the generated corpus: {r:.2}");
    }
    if let Some((med, p90)) = s.latency_ms {
        println!(
            "20 KB file: median {med:.2} ms, p90 {p90:.2} ms (target median <= 5 ms: {})",
            verdict(med <= 5.0)
        );
    }
    if let Some((n, secs, timed_out)) = s.scaling_largest {
        if timed_out {
            println!(
                "{n} kernels in one file: over {secs:.0} s (target <= 2 s for 16,000: NOT met)"
            );
        } else {
            println!(
                "{n} kernels in one file: {secs:.2} s (target <= 2 s for 16,000: {})",
                verdict(n >= 16000 && secs <= 2.0)
            );
        }
    }
    if let Some(n) = s.files_over_1s {
        println!(
            "files of the real corpora over 1 s on their own: {n}, of which {} timed out (target 0: {}){only}",
            s.sweep_timeouts,
            verdict(n == 0)
        );
    }
    if let Some(p) = s.generated_peak_mb {
        println!(
            "peak RSS on the 5 MB generated corpus: {p:.1} MB (target <= 100 MB: {})",
            verdict(p <= 100.0)
        );
    }
}

fn version(banklint: &Path) -> String {
    Command::new(banklint)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The 1, 5 and 15 minute load averages, where /proc has them.
fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(
        text.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// One file: four kernels of different kinds and sizes, their host launcher, and the
/// comments and helpers real files carry. About 20 KB.
fn generate_file(f: usize) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "// kernels_{f:03}.cu: generated for banklint's benchmark.\n#include <cuda_runtime.h>\n#include <stdio.h>\n#include \"helpers_{f:03}.h\"\n\n"
    ));
    let tile = [8, 16, 32, 64][f % 4];
    let pad = f % 2;
    let ty = ["float", "double", "int", "float2"][(f / 2) % 4];
    s.push_str(&format!(
        "#define TILE_{f} {tile}\n#define PAD_{f} {pad}\n#define ROWS_{f} 8\n\n"
    ));
    for k in 0..KERNELS_PER_FILE {
        let id = f * KERNELS_PER_FILE + k;
        s.push_str(&doc_comment(id));
        s.push_str(&match (f + k) % 4 {
            0 => format!(
                "__global__ void transpose_{id}({ty} *out, const {ty} *in, int width)\n{{\n    __shared__ {ty} tile[TILE_{f}][TILE_{f} + PAD_{f}];\n    int x = blockIdx.x * TILE_{f} + threadIdx.x;\n    int y = blockIdx.y * TILE_{f} + threadIdx.y;\n    for (int j = 0; j < TILE_{f}; j += ROWS_{f}) {{\n        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];\n    }}\n    __syncthreads();\n    x = blockIdx.y * TILE_{f} + threadIdx.x;\n    y = blockIdx.x * TILE_{f} + threadIdx.y;\n    for (int j = 0; j < TILE_{f}; j += ROWS_{f}) {{\n        out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];\n    }}\n}}\n\n"
            ),
            1 => format!(
                "__global__ void reduce_{id}(const int *in, int *out, unsigned int n)\n{{\n    extern __shared__ int sdata[];\n    unsigned int tid = threadIdx.x;\n    unsigned int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;\n    int sum = (i < n) ? in[i] : 0;\n    if (i + blockDim.x < n) sum += in[i + blockDim.x];\n    sdata[tid] = sum;\n    __syncthreads();\n    for (unsigned int s = {}; s > 0; s >>= 1) {{\n        if (tid < s) {{\n            sdata[tid] = sum = sum + sdata[tid + s];\n        }}\n        __syncthreads();\n    }}\n    if (tid == 0) out[blockIdx.x] = sdata[0];\n}}\n\n",
                "blockDim.x / 2"
            ),
            2 => format!(
                "__global__ void matmul_{id}(const float *A, const float *B, float *C, int n)\n{{\n    __shared__ float As[16][16 + {pad}];\n    __shared__ float Bs[16][16];\n    int tx = threadIdx.x, ty = threadIdx.y;\n    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;\n    float acc = 0.0f;\n    for (int t = 0; t < n / 16; ++t) {{\n        As[ty][tx] = A[row * n + t * 16 + tx];\n        Bs[ty][tx] = B[(t * 16 + ty) * n + col];\n        __syncthreads();\n        for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];\n        __syncthreads();\n    }}\n    C[row * n + col] = acc;\n}}\n\n"
            ),
            _ => format!(
                "__global__ void stencil_{id}(const float *in, float *out, int n)\n{{\n    __shared__ float halo[256 + 2 * {r}];\n    int g = blockIdx.x * blockDim.x + threadIdx.x;\n    int l = threadIdx.x + {r};\n    halo[l] = in[g];\n    if (threadIdx.x < {r}) {{\n        halo[l - {r}] = in[g - {r}];\n        halo[l + 256] = in[g + 256];\n    }}\n    __syncthreads();\n    float v = 0.0f;\n    for (int o = -{r}; o <= {r}; ++o) v += halo[l + o * {stride}];\n    out[g] = v;\n}}\n\n",
                r = 1 + f % 4,
                stride = 1 + (f % 3)
            ),
        });
    }
    s.push_str(&format!("void launch_{f}(float *a, float *b, float *c, int *ia, int *ib, {ty} *ta, {ty} *tb, int n)\n{{\n"));
    for k in 0..KERNELS_PER_FILE {
        let id = f * KERNELS_PER_FILE + k;
        s.push_str(&match (f + k) % 4 {
            0 => format!("    transpose_{id}<<<dim3(n / TILE_{f}, n / TILE_{f}), dim3(TILE_{f}, ROWS_{f})>>>(ta, tb, n);\n"),
            1 => format!("    reduce_{id}<<<n / 512, 256, 256 * sizeof(int)>>>(ia, ib, n);\n"),
            2 => format!("    matmul_{id}<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(a, b, c, n);\n"),
            _ => format!("    stencil_{id}<<<n / 256, 256>>>(a, b, n);\n"),
        });
    }
    s.push_str("    cudaDeviceSynchronize();\n}\n\n");
    // Host-side helpers and tables: the bulk of real files.
    while s.len() < 20_000 {
        let n = s.len();
        s.push_str(&format!(
            "/* Host helper {n}: validates inputs and reports errors. */\nstatic int check_{f}_{n}(const float *ref, const float *got, int count, float tol)\n{{\n    int bad = 0;\n    for (int i = 0; i < count; ++i) {{\n        float d = ref[i] - got[i];\n        if (d > tol || d < -tol) {{\n            if (bad < 10) printf(\"mismatch at %d: %f vs %f\\n\", i, ref[i], got[i]);\n            ++bad;\n        }}\n    }}\n    return bad;\n}}\n\n"
        ));
    }
    s
}

fn doc_comment(id: usize) -> String {
    format!(
        "// Kernel {id}: one of the benchmark's generated kernels. The comment block stands in\n// for the documentation real kernels carry: parameters, launch shape, and what each\n// shared-memory buffer holds.\n"
    )
}
