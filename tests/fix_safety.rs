//! `--fix` never damages code (issue 17): it writes through symlinks, refuses hard links,
//! read-only files and owners it cannot keep, leaves a file edited since it was read, exits
//! 2 when a write fails, fixes a file named twice once, and `--fix -` prints the fixed
//! source alone. Each case runs the real binary in a temporary directory, time-limited.

mod common;

use common::{GOOD, banklint, banklint_with, run_limited, temp_dir, write};
use std::path::Path;
use std::process::Command;

fn fixed_good() -> String {
    GOOD.replace("[32][32]", "[32][32 + 1]")
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).expect("read")
}

/// No temporary file of banklint's is left in `dir`.
fn no_temporaries(dir: &Path) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".banklint-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[cfg(unix)]
#[test]
fn a_symlink_is_fixed_through_to_its_target() {
    use std::os::unix::fs::MetadataExt;
    let dir = temp_dir("fix-symlink");
    std::fs::create_dir_all(dir.join("real")).unwrap();
    let target = write(&dir.join("real"), "k.cu", GOOD.as_bytes());
    std::os::unix::fs::symlink("real/k.cu", dir.join("link.cu")).unwrap();
    let o = banklint(&dir, &["check", "link.cu", "--fix"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        std::fs::symlink_metadata(dir.join("link.cu"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    assert_eq!(read(&target), fixed_good());
    assert_eq!(std::fs::metadata(&target).unwrap().nlink(), 1);
    no_temporaries(&dir);
    no_temporaries(&dir.join("real"));
}

#[cfg(unix)]
#[test]
fn hard_links_and_read_only_files_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("fix-refused");
    write(&dir, "hard.cu", GOOD.as_bytes());
    std::fs::hard_link(dir.join("hard.cu"), dir.join("other-name.cu")).unwrap();
    let ro = write(&dir, "ro.cu", GOOD.as_bytes());
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    write(&dir, "ok.cu", GOOD.as_bytes());
    let o = banklint(
        &dir,
        &[
            "check", "hard.cu", "ro.cu", "ok.cu", "--fix", "--format", "short",
        ],
    );
    assert_eq!(
        o.code,
        Some(2),
        "a fix that could not be written is an error"
    );
    assert!(
        o.stderr.contains(
            "error: hard.cu: --fix: has 2 hard links, which rewriting it would break; not rewritten"
        ),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("error: ro.cu: --fix: is read-only; not rewritten"),
        "{}",
        o.stderr
    );
    assert_eq!(read(&dir.join("hard.cu")), GOOD);
    assert_eq!(read(&dir.join("other-name.cu")), GOOD);
    assert_eq!(read(&ro), GOOD);
    assert_eq!(
        read(&dir.join("ok.cu")),
        fixed_good(),
        "the others are fixed"
    );
    // The refused files still report their conflicts.
    assert!(o.stdout.contains("hard.cu:3:5: warning"), "{}", o.stdout);
    assert!(o.stderr.contains("applied 1 padding fix in 1 file"));
    no_temporaries(&dir);
}

/// Whether this test process runs as root (then it can drop to `nobody` with setpriv).
#[cfg(unix)]
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// banklint as an unprivileged user: `nobody` through setpriv when the tests run as root.
#[cfg(unix)]
fn unprivileged(dir: &Path, args: &[&str]) -> Option<common::Out> {
    let mut cmd = if is_root() {
        if Command::new("setpriv").arg("--version").output().is_err() {
            return None;
        }
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_banklint"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_banklint"))
    };
    cmd.args(args).current_dir(dir);
    Some(run_limited(&mut cmd, None))
}

#[cfg(unix)]
#[test]
fn owner_and_mode_are_kept_or_the_file_is_left() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = temp_dir("fix-owner");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let k = write(&dir, "k.cu", GOOD.as_bytes());
    std::fs::set_permissions(&k, std::fs::Permissions::from_mode(0o640)).unwrap();
    if is_root() {
        std::os::unix::fs::chown(&k, Some(1234), Some(2345)).unwrap();
    }
    let before = std::fs::metadata(&k).unwrap();
    let o = banklint(&dir, &["check", "k.cu", "--fix"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let after = std::fs::metadata(&k).unwrap();
    assert_eq!(read(&k), fixed_good());
    assert_eq!(after.mode() & 0o7777, 0o640);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    // Another user who may write the file but cannot give it back its owner leaves it.
    if is_root() {
        let shared = write(&dir, "shared.cu", GOOD.as_bytes());
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o666)).unwrap();
        let o = unprivileged(&dir, &["check", "shared.cu", "--fix"]).expect("setpriv");
        assert_eq!(o.code, Some(2), "{}", o.stderr);
        assert!(
            o.stderr.contains("error: shared.cu: --fix: is owned by user 0 (group 0), which this user cannot keep; not rewritten"),
            "{}",
            o.stderr
        );
        assert_eq!(read(&shared), GOOD);
        assert_eq!(std::fs::metadata(&shared).unwrap().uid(), 0);
        no_temporaries(&dir);
    }
}

#[cfg(unix)]
#[test]
fn a_failed_write_exits_2() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("fix-rodir");
    let sub = dir.join("locked");
    std::fs::create_dir_all(&sub).unwrap();
    let k = write(&sub, "k.cu", GOOD.as_bytes());
    // Writable file, read-only directory: the temporary file cannot be created.
    std::fs::set_permissions(&k, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o555)).unwrap();
    let Some(o) = unprivileged(
        &dir,
        &["check", "locked/k.cu", "--fix", "--format", "short"],
    ) else {
        eprintln!("skipped: no setpriv to drop root");
        return;
    };
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr
            .starts_with("error: locked/k.cu: --fix: cannot create a temporary file in"),
        "{}",
        o.stderr
    );
    assert_eq!(read(&k), GOOD);
}

#[test]
fn an_edit_saved_during_the_run_is_not_overwritten() {
    let dir = temp_dir("fix-lost-update");
    let k = write(&dir, "k.cu", GOOD.as_bytes());
    let sync = dir.join("sync");
    std::fs::create_dir_all(&sync).unwrap();
    let edited = format!("// saved by the editor while banklint ran\n{GOOD}");
    let editor = {
        let (k, sync, edited) = (k.clone(), sync.clone(), edited.clone());
        std::thread::spawn(move || {
            // banklint has read and analyzed the file and is about to write its fix.
            let start = std::time::Instant::now();
            while !sync.join("paused").exists() && start.elapsed() < common::LIMIT {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            std::fs::write(&k, edited).unwrap();
            std::fs::write(sync.join("resume"), "").unwrap();
        })
    };
    let sync_dir = sync.display().to_string();
    let o = banklint_with(
        &dir,
        &["check", "k.cu", "--fix", "--format", "short"],
        &[("BANKLINT_TEST_PAUSE_BEFORE_WRITE", &sync_dir)],
        None,
    );
    editor.join().unwrap();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "error: k.cu: --fix: changed since banklint read it; not rewritten (run banklint again)"
        ),
        "{}",
        o.stderr
    );
    assert_eq!(read(&k), edited, "the edit is kept");
    no_temporaries(&dir);
}

#[test]
fn fixing_standard_input_prints_only_the_fixed_source() {
    let dir = temp_dir("fix-stdin");
    let source = format!(
        "{GOOD}__global__ void clean(float *o) {{ __shared__ float s[64]; s[threadIdx.x] = 0; }}\n"
    );
    for format in ["human", "json", "sarif", "short"] {
        let o = banklint_with(
            &dir,
            &["check", "--fix", "-", "--format", format],
            &[],
            Some(source.clone().into_bytes()),
        );
        assert_eq!(o.code, Some(0), "{format}: {}", o.stderr);
        assert_eq!(
            o.stdout,
            source.replace("[32][32]", "[32][32 + 1]"),
            "{format}"
        );
        assert_eq!(
            o.stderr,
            "checked 1 file, 2 shared-memory accesses; no bank conflicts\napplied 1 padding fix in 1 file\n",
            "{format}"
        );
    }
    let o = banklint(&dir, &["check", "--fix", "-", "other.cu"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr
            .contains("`--fix -` prints the fixed standard input alone")
    );
}

#[test]
fn one_file_named_twice_is_fixed_once() {
    let dir = temp_dir("fix-twice");
    let k = write(&dir, "k.cu", GOOD.as_bytes());
    let o = banklint(
        &dir,
        &["check", "k.cu", "./k.cu", ".", "--fix", "--format", "short"],
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stderr, "applied 1 padding fix in 1 file\n");
    assert_eq!(read(&k), fixed_good());
    no_temporaries(&dir);
}

#[test]
fn a_dry_run_in_json_is_the_document_with_the_diffs() {
    let dir = temp_dir("fix-dry-json");
    write(&dir, "k.cu", GOOD.as_bytes());
    write(&dir, "clean.cu", b"__global__ void k() {}\n");
    let o = banklint(
        &dir,
        &[
            "check",
            "k.cu",
            "clean.cu",
            "--fix",
            "--dry-run",
            "--format",
            "json",
        ],
    );
    assert_eq!(o.code, Some(1), "a fix would apply: {}", o.stderr);
    let doc = o.json();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["accesses"].as_array().unwrap().len(), 1);
    assert_eq!(doc["diagnostics"][0]["code"], "bank-conflict");
    let fixes = doc["fixes"].as_array().unwrap();
    assert_eq!(fixes.len(), 1, "files with a fix only");
    assert_eq!(fixes[0]["file"], "k.cu");
    assert_eq!(fixes[0]["applied"], 1);
    assert_eq!(
        fixes[0]["diff"],
        "--- a/k.cu\n+++ b/k.cu\n@@ -1,4 +1,4 @@\n __global__ void k(float *o) {\n-    __shared__ float t[32][32];\n+    __shared__ float t[32][32 + 1];\n     t[threadIdx.x][0] = o[threadIdx.x];\n }\n"
    );
    assert_eq!(read(&dir.join("k.cu")), GOOD, "nothing written");
    // Without --dry-run, JSON has no `fixes` key.
    let o = banklint(&dir, &["check", "k.cu", "--format", "json"]);
    assert!(o.json().get("fixes").is_none());
}

#[test]
fn a_macro_dimension_is_padded_so_that_it_reads_as_meant() {
    // `N + 1` with `#define N 1 << 5` is `1 << 5 + 1`, that is 64: the fix writes `(N) + 1`,
    // 33 columns, with which the column store (lanes 33 words apart) is conflict-free.
    let dir = temp_dir("fix-macro-precedence");
    let src = "#define N 1 << 5\n__global__ void k(float *o) {\n    __shared__ float tile[N][N];\n    tile[threadIdx.x][0] = o[threadIdx.x];\n}\nvoid h(float *o) { k<<<1, 32>>>(o); }\n";
    let p = write(&dir, "k.cu", src.as_bytes());
    let o = banklint(&dir, &["check", "k.cu", "--fix"]);
    assert_eq!(o.code, Some(0), "{}{}", o.stdout, o.stderr);
    assert_eq!(read(&p), src.replace("[N][N]", "[N][(N) + 1]"));
    // With 64 columns (what `N + 1` would be) the store stays 32-way.
    let o = banklint(&dir, &["check", "--format", "json", "k.cu"]);
    let json = o.json();
    let accesses = json["accesses"].as_array().expect("accesses");
    assert_eq!(accesses.len(), 1, "{accesses:?}");
    assert_eq!(accesses[0]["status"], "analyzed");
    assert_eq!(accesses[0]["conflict_ways"], 1, "{accesses:?}");
}

#[test]
fn a_padding_that_would_change_what_the_code_means_is_not_applied() {
    // Each file has the 32-way column read `tile[tx][ty]`, which padding alone would fix,
    // and one more use of `tile` that assumes rows of 32: a flat alias written across rows,
    // a float4 view moved across rows, a parameter typed `float (*)[32]`.
    let cases = [
        (
            "alias.cu",
            "    float *flat = &tile[0][0];\n    flat[threadIdx.y * 32 + threadIdx.x] = o[threadIdx.x];\n",
            "32 + 1",
            "runs past a row",
        ),
        (
            "view.cu",
            "    reinterpret_cast<float4 *>(&tile[0][0])[threadIdx.y * 8 + threadIdx.x % 8] = make_float4(0.f, 0.f, 0.f, 0.f);\n",
            // 16-byte stores keep the padding a multiple of 4 floats.
            "32 + 4",
            "runs past a row",
        ),
        (
            "param.cu",
            "    fill(tile);\n",
            "32 + 1",
            "spells its row length",
        ),
    ];
    for (name, use_, padded, why) in cases {
        let dir = temp_dir("fix-meaning");
        let src = format!(
            "__device__ void fill(float (*t)[32]) {{ t[threadIdx.y][threadIdx.x] = 0.0f; }}\n__global__ void k(float *o) {{\n    __shared__ float tile[32][32];\n{use_}    __syncthreads();\n    o[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];\n}}\nvoid h(float *o) {{ k<<<1, dim3(32, 32)>>>(o); }}\n"
        );
        let p = write(&dir, name, src.as_bytes());
        let o = banklint(&dir, &["check", name, "--fix", "--color", "never"]);
        assert_eq!(read(&p), src, "{name} is left as it was: {}", o.stdout);
        let o = banklint(&dir, &["check", name, "--color", "never"]);
        assert!(
            o.stdout.contains("32-way bank conflict on `tile`")
                && o.stdout
                    .contains(&format!("`__shared__ float tile[32][{padded}];`"))
                && o.stdout.contains("not applied by --fix: ")
                && o.stdout.contains(why),
            "{name}: {}",
            o.stdout
        );
    }
    // Pointers that stay in the row they were taken in move with the padding: applied.
    let dir = temp_dir("fix-meaning-rows");
    let src = "__global__ void k(float *o) {\n    __shared__ float tile[32][32];\n    float *row = tile[threadIdx.x];\n    row[threadIdx.y] = o[threadIdx.x];\n    float *at = &tile[threadIdx.x][1];\n    at[-1] += 1.0f;\n    __syncthreads();\n    o[threadIdx.x] = tile[threadIdx.y][threadIdx.x];\n}\nvoid h(float *o) { k<<<1, dim3(32, 2)>>>(o); }\n";
    let p = write(&dir, "rows.cu", src.as_bytes());
    let o = banklint(&dir, &["check", "rows.cu", "--fix"]);
    assert_eq!(o.code, Some(0), "{}", o.stdout);
    assert_eq!(read(&p), src.replace("[32][32]", "[32][32 + 1]"));
}
