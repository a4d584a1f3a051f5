//! Hostile and ordinary input never hangs, aborts or goes silent (issues 16 and 17): each
//! case builds its input in a temporary directory and runs the real binary under a time
//! limit that turns a hang into a failure.

mod common;

use common::{GOOD, banklint, banklint_with, temp_dir, write};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// Every position in every output format: (format, line, column) per finding.
fn positions(dir: &Path, file: &str) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    let short = banklint(dir, &["check", file, "--format", "short"]);
    for l in short.stdout.lines() {
        let mut parts = l.splitn(4, ':');
        let (_, line, col) = (parts.next(), parts.next(), parts.next());
        out.push((
            "short".into(),
            line.unwrap().parse().unwrap(),
            col.unwrap().parse().unwrap(),
        ));
    }
    let json = banklint(dir, &["check", file, "--format", "json"]).json();
    for d in json["diagnostics"].as_array().unwrap() {
        out.push((
            "json".into(),
            d["line"].as_u64().unwrap(),
            d["column"].as_u64().unwrap(),
        ));
    }
    let github = banklint(dir, &["check", file, "--format", "github"]);
    for l in github.stdout.lines() {
        let field = |k: &str| -> u64 {
            let at = l.find(&format!(",{k}=")).unwrap() + k.len() + 2;
            l[at..].split([',', ':']).next().unwrap().parse().unwrap()
        };
        out.push(("github".into(), field("line"), field("col")));
    }
    let sarif = banklint(dir, &["check", file, "--format", "sarif"]).json();
    for r in sarif["runs"][0]["results"].as_array().unwrap() {
        let region = &r["locations"][0]["physicalLocation"]["region"];
        out.push((
            "sarif".into(),
            region["startLine"].as_u64().unwrap(),
            region["startColumn"].as_u64().unwrap(),
        ));
    }
    let human = banklint(dir, &["check", file, "--color", "never"]);
    for l in human
        .stdout
        .lines()
        .filter(|l| l.contains(&format!("─ {file}:")))
    {
        let mut parts = l.rsplitn(3, ':');
        let (col, line) = (parts.next(), parts.next());
        out.push((
            "human".into(),
            line.unwrap().parse().unwrap(),
            col.unwrap().parse().unwrap(),
        ));
    }
    out
}

/// The same positions, format by format, as a list per format.
fn by_format(p: &[(String, u64, u64)], format: &str) -> Vec<(u64, u64)> {
    p.iter()
        .filter(|(f, _, _)| f == format)
        .map(|&(_, l, c)| (l, c))
        .collect()
}

#[test]
fn a_bom_is_skipped_with_positions_exact_in_every_format() {
    let dir = temp_dir("bom");
    write(&dir, "plain.cu", GOOD.as_bytes());
    write(&dir, "bom.cu", &[b"\xEF\xBB\xBF", GOOD.as_bytes()].concat());
    let plain = positions(&dir, "plain.cu");
    let bom = positions(&dir, "bom.cu");
    for format in ["short", "json", "github", "sarif", "human"] {
        assert_eq!(by_format(&plain, format), vec![(3, 5)], "{format}");
        assert_eq!(by_format(&bom, format), vec![(3, 5)], "{format}");
    }
    // The fix's span is the same in JSON and SARIF.
    for name in ["plain.cu", "bom.cu"] {
        let json = banklint(&dir, &["check", name, "--format", "json"]).json();
        let s = &json["diagnostics"][0]["suggestion"];
        let span: Vec<&Value> = ["line", "column", "end_line", "end_column"]
            .iter()
            .map(|k| &s[*k])
            .collect();
        assert_eq!(span, [2, 28, 2, 30], "{name}");
        let sarif = banklint(&dir, &["check", name, "--format", "sarif"]).json();
        let region = &sarif["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"]
            [0]["deletedRegion"];
        assert_eq!(region["startColumn"], 28, "{name}");
        assert_eq!(region["endColumn"], 30, "{name}");
    }
    // The fix lands where it belongs and the BOM stays.
    let o = banklint(&dir, &["check", "bom.cu", "--fix"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let fixed = std::fs::read(dir.join("bom.cu")).unwrap();
    let expected = [
        b"\xEF\xBB\xBF".as_slice(),
        GOOD.replace("[32][32]", "[32][32 + 1]").as_bytes(),
    ]
    .concat();
    assert_eq!(fixed, expected);
}

#[test]
fn line_endings_and_tabs_keep_columns_in_every_format() {
    let dir = temp_dir("eol");
    // The access is after a tab and a statement: column 15 counting a tab as one.
    let lines = [
        "__global__ void k(float *o) {",
        "\t__shared__ float t[32][32];",
        "\tfloat x = 1; t[threadIdx.x][0] = o[threadIdx.x];",
        "}",
        "",
    ];
    for (name, eol) in [("lf.cu", "\n"), ("crlf.cu", "\r\n"), ("cr.cu", "\r")] {
        write(&dir, name, lines.join(eol).as_bytes());
        let p = positions(&dir, name);
        for format in ["short", "json", "github", "sarif", "human"] {
            assert_eq!(
                by_format(&p, format),
                vec![(3, 15)],
                "{name} {format}: {p:?}"
            );
        }
        // --fix keeps the line endings.
        let o = banklint(&dir, &["check", name, "--fix"]);
        assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
        let fixed = std::fs::read_to_string(dir.join(name)).unwrap();
        assert_eq!(fixed, lines.join(eol).replace("[32][32]", "[32][32 + 1]"));
    }
}

#[test]
fn bytes_that_are_not_utf8_in_comments_and_literals_are_accepted() {
    let dir = temp_dir("latin1");
    let text = b"// r\xe9sum\xe9 of the kernel\n__global__ void k(float *o) {\n    __shared__ float t[32][32];\n    const char *s = \"caf\xe9\"; char c = '\xe9';\n    t[threadIdx.x][0] = o[threadIdx.x]; /* \xff */\n}\n";
    write(&dir, "latin1.cu", text);
    let o = banklint(&dir, &["check", "latin1.cu", "--color", "never"]);
    assert_eq!(o.code, Some(1), "analyzed, with its conflict: {}", o.stderr);
    assert!(
        o.stdout.contains("32-way bank conflict on `t`"),
        "{}",
        o.stdout
    );
    // One note, naming the first byte; the snippet shows the bytes replaced.
    assert_eq!(o.stdout.matches("note[source-encoding]").count(), 1);
    assert!(
        o.stdout.contains(
            "5 bytes in comments or string literals are not UTF-8, shown as `?`; the first at line 1, column 5"
        ),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("// r?sum? of the kernel"), "{}", o.stdout);
    let short = banklint(&dir, &["check", "latin1.cu", "--format", "short"]);
    assert!(
        short
            .stdout
            .starts_with("latin1.cu:1:5: note: 5 bytes in comments"),
        "{}",
        short.stdout
    );
    // The fix rewrites the declaration and nothing else: the Latin-1 bytes stay.
    let o = banklint(&dir, &["check", "latin1.cu", "--fix", "--format", "short"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let fixed = std::fs::read(dir.join("latin1.cu")).unwrap();
    let expected = String::from_utf8_lossy(text).replace("[32][32]", "[32][32 + 1]");
    assert_eq!(fixed.len(), text.len() + 4);
    assert!(fixed.windows(4).any(|w| w == b"r\xe9su"));
    assert_eq!(
        String::from_utf8_lossy(&fixed),
        expected,
        "only the dimension changed"
    );
}

#[test]
fn bytes_that_are_not_utf8_in_code_are_an_error_and_the_rest_is_analyzed() {
    let dir = temp_dir("badcode");
    write(&dir, "good.cu", GOOD.as_bytes());
    write(&dir, "bad.cu", b"int ok;\n\tint caf\xe9 = 1;\n");
    let o = banklint(&dir, &["check", "bad.cu", "good.cu", "--format", "short"]);
    assert_eq!(o.code, Some(2));
    assert_eq!(
        o.stderr.trim_end(),
        "error: bad.cu: is not valid UTF-8 at line 2, column 9 (outside comments and string literals)"
    );
    assert!(
        o.stdout.contains("good.cu:3:5: warning: 32-way"),
        "{}",
        o.stdout
    );
}

#[test]
fn an_unterminated_comment_ending_in_a_multibyte_character_does_not_panic() {
    let dir = temp_dir("comment");
    write(&dir, "a.cu", "/* TODO: résumé".as_bytes());
    write(&dir, "b.cu", "__global__ void k() {}\n/* abéx".as_bytes());
    write(&dir, "good.cu", GOOD.as_bytes());
    let o = banklint(
        &dir,
        &["check", "a.cu", "b.cu", "good.cu", "--format", "json"],
    );
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    let doc = o.json();
    assert_eq!(doc["files"].as_array().unwrap().len(), 3);
    assert!(
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["status"] == "ok")
    );
    assert_eq!(doc["accesses"].as_array().unwrap().len(), 1);
}

#[test]
fn a_panic_costs_one_file_never_the_others() {
    let dir = temp_dir("panic");
    write(&dir, "a.cu", GOOD.as_bytes());
    write(&dir, "boom.cu", GOOD.as_bytes());
    write(&dir, "c.cu", GOOD.as_bytes());
    let env = [("BANKLINT_TEST_PANIC_ON", "boom.cu")];
    let o = banklint_with(&dir, &["check", ".", "--format", "json"], &env, None);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    let line = o
        .stderr
        .lines()
        .find(|l| l.contains("boom.cu"))
        .unwrap_or_default();
    assert!(
        line.starts_with("error: ./boom.cu: internal error: banklint panicked while analyzing this file (panic requested by BANKLINT_TEST_PANIC_ON at src/"),
        "{}",
        o.stderr
    );
    assert_eq!(
        o.stderr.lines().count(),
        1,
        "one line, no backtrace: {}",
        o.stderr
    );
    let doc = o.json();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[1]["status"], "error");
    assert_eq!(
        doc["accesses"].as_array().unwrap().len(),
        2,
        "a.cu and c.cu"
    );
    let human = banklint_with(&dir, &["check", "."], &env, None);
    assert!(
        human
            .stdout
            .contains("checked 3 files, 2 shared-memory accesses"),
        "{}",
        human.stdout
    );
}

#[test]
fn a_path_without_cuda_files_is_a_warning() {
    let dir = temp_dir("empty");
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    write(&dir.join("docs"), "notes.txt", b"no kernels here");
    let o = banklint(&dir, &["check", "empty", "docs"]);
    assert_eq!(o.code, Some(2), "nothing was checked");
    assert_eq!(
        o.stderr,
        "warning: empty: no .cu or .cuh files in this directory\nwarning: docs: no .cu or .cuh files in this directory\n"
    );
    assert_eq!(o.stdout, "");
    // Beside a file that is checked, the warning does not change the status.
    write(&dir, "clean.cu", b"__global__ void k() {}\n");
    let o = banklint(&dir, &["check", "empty", "clean.cu"]);
    assert_eq!(o.code, Some(0));
    assert!(o.stderr.contains("warning: empty: no .cu or .cuh files"));
}

#[test]
fn brackets_left_open_or_closed_wrongly_are_syntax_errors_at_the_bracket() {
    let dir = temp_dir("brackets");
    // The body of the second kernel is never closed: the file ends inside it. The first
    // kernel is still analyzed.
    write(
        &dir,
        "unclosed.cu",
        format!("{GOOD}__global__ void k2(float *o) {{\n    __shared__ float s[64];\n    s[threadIdx.x] = 1;\n")
            .as_bytes(),
    );
    let o = banklint(&dir, &["check", "--format", "json", "unclosed.cu"]);
    let json = o.json();
    let skipped: Vec<&Value> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "skipped-code")
        .collect();
    assert_eq!(skipped.len(), 1, "{json}");
    let first_line = GOOD.lines().count() as u64 + 1;
    assert_eq!(skipped[0]["line"], first_line, "{json}");
    assert_eq!(
        skipped[0]["column"], 30,
        "the `{{` of `k2(float *o) {{`: {json}"
    );
    let message = skipped[0]["label"].to_string();
    assert!(
        message.contains("this `{` is never closed (a syntax error)")
            && !message.contains("does not read yet"),
        "{message}"
    );
    assert!(
        json["accesses"]
            .as_array()
            .expect("accesses")
            .iter()
            .any(|a| a["status"] == "analyzed"),
        "{json}"
    );
    // Inside a body, the statement with the bracket left open is skipped, and says why.
    write(
        &dir,
        "statement.cu",
        b"__global__ void k(float *o) {\n    __shared__ float s[64];\n    if (threadIdx.x < 8 {\n        s[threadIdx.x] = 1;\n    }\n}\n",
    );
    let o = banklint(&dir, &["check", "--color", "never", "statement.cu"]);
    assert!(
        o.stdout.contains("statement.cu:3:5")
            && o.stdout.contains(
                "lang-c could not parse this statement: its `(` is closed by a `}` (a syntax error)"
            ),
        "{}",
        o.stdout
    );
    // A `(` closed by a `}` at file scope of a kernel's header: the error is at the `(`.
    write(
        &dir,
        "mismatched.cu",
        b"__global__ void k(float *o } {\n    o[0] = 1;\n}\n",
    );
    let o = banklint(&dir, &["check", "--color", "never", "mismatched.cu"]);
    assert!(
        o.stdout.contains("mismatched.cu:1:18")
            && o.stdout
                .contains("this `(` is closed by a `}` (a syntax error)"),
        "{}",
        o.stdout
    );
}

#[test]
fn a_file_of_many_small_kernels_is_analyzed_whole_in_linear_time() {
    // 16 MB of 150,000 small kernels took over 120 s when each kernel rescanned the file.
    // 10,000 here (1.4 MB): every kernel's column read, 32-way, is reported. The runner's
    // time limit only turns a hang into a failure (a debug build takes about 20 s, a loaded
    // machine twice that); the growth is measured in the benchmark.
    let n = 10_000;
    let mut text = String::with_capacity(n * 140);
    for i in 0..n {
        text.push_str(&format!(
            "__global__ void k{i}(float *o)\n{{\n    __shared__ float t[32][32];\n    o[threadIdx.x] = t[threadIdx.x][0];\n}}\n\n"
        ));
    }
    let dir = temp_dir("many-kernels");
    write(&dir, "many.cu", text.as_bytes());
    let o = banklint(&dir, &["check", "--format", "short", "many.cu"]);
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert_eq!(o.stdout.matches("32-way bank conflict").count(), n);
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_and_never_block() {
    let dir = temp_dir("special");
    write(&dir, "k.cu", GOOD.as_bytes());
    mkfifo(&dir.join("fifo.h"));
    std::fs::create_dir_all(dir.join("somedir")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.cu")).unwrap();
    let includes =
        format!("#include \"fifo.h\"\n#include \"somedir\"\n#include \"/dev/zero\"\n{GOOD}");
    write(&dir, "inc.cu", includes.as_bytes());
    let o = banklint(&dir, &["check", "inc.cu", "--format", "short"]);
    assert_eq!(o.code, Some(2), "{}{}", o.stdout, o.stderr);
    for expected in [
        "inc.cu:1:1: error: header `fifo.h` was not read: `fifo.h` is a named pipe (FIFO), not a regular file [include-not-found]",
        "inc.cu:2:1: note: header `somedir` was not read: `somedir` is a directory [include-not-found]",
        "inc.cu:3:1: error: header `/dev/zero` was not read: `/dev/zero` is a character device, not a regular file [include-not-found]",
        "inc.cu:6:5: warning: 32-way bank conflict on `t`",
    ] {
        assert!(o.stdout.contains(expected), "{expected}\n{}", o.stdout);
    }
    for (args, error) in [
        (
            vec!["check", "/dev/zero"],
            "error: /dev/zero: is a character device, not a regular file",
        ),
        (
            vec!["check", "k.cu", "--config", "fifo.h"],
            "error: fifo.h: is a named pipe (FIFO), not a regular file",
        ),
        (
            vec!["check", "k.cu", "--config", "/dev/zero"],
            "error: /dev/zero: is a character device, not a regular file",
        ),
        (
            vec!["check", "k.cu", "-p", "fifo.h"],
            "error: fifo.h: is a named pipe (FIFO), not a regular file",
        ),
        (
            vec!["check", "k.cu", "-p", "/dev/zero"],
            "error: /dev/zero: is a character device, not a regular file",
        ),
    ] {
        let o = banklint(&dir, &args);
        assert_eq!(o.code, Some(2), "{args:?}");
        assert_eq!(
            o.stderr.lines().next(),
            Some(error),
            "{args:?}: {}",
            o.stderr
        );
    }
    // Found in a directory, a `.cu` that is a FIFO or a device is refused, not read.
    std::fs::create_dir_all(dir.join("tree")).unwrap();
    mkfifo(&dir.join("tree/f.cu"));
    std::os::unix::fs::symlink("/dev/zero", dir.join("tree/z.cu")).unwrap();
    write(&dir.join("tree"), "k.cu", GOOD.as_bytes());
    let o = banklint(&dir, &["check", "tree", "--format", "short"]);
    assert_eq!(o.code, Some(2));
    for error in [
        "error: tree/f.cu: is a named pipe (FIFO), not a regular file",
        "error: tree/z.cu: is a character device, not a regular file",
    ] {
        assert!(o.stderr.contains(error), "{}", o.stderr);
    }
    assert!(o.stdout.contains("tree/k.cu:3:5: warning"), "{}", o.stdout);
    // (`zero.cu` is the same file as `tree/z.cu`, so it is checked on its own.)
    let o = banklint(&dir, &["check", "zero.cu"]);
    assert_eq!(o.code, Some(2));
    assert_eq!(
        o.stderr.lines().next(),
        Some("error: zero.cu: is a character device, not a regular file")
    );
}

#[cfg(unix)]
#[test]
fn a_pipe_named_on_the_command_line_is_read() {
    let dir = temp_dir("pipe");
    write(&dir, "k.cu", GOOD.as_bytes());
    // What `banklint check <(git show HEAD:k.cu)` does.
    let o = common::run_limited(
        std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "{} check <(cat k.cu) --format short",
                env!("CARGO_BIN_EXE_banklint")
            ))
            .current_dir(&dir),
        None,
    );
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert!(o.stdout.starts_with("/dev/fd/"), "{}", o.stdout);
    assert!(
        o.stdout.contains(":3:5: warning: 32-way bank conflict"),
        "{}",
        o.stdout
    );
    // A named FIFO with a writer, named explicitly.
    mkfifo(&dir.join("named.cu"));
    let path = dir.join("named.cu");
    let writer = std::thread::spawn(move || std::fs::write(path, GOOD).unwrap());
    let o = banklint(&dir, &["check", "named.cu", "--format", "short"]);
    writer.join().unwrap();
    assert_eq!(o.code, Some(1), "{}", o.stderr);
}

#[test]
fn standard_input_is_capped() {
    let dir = temp_dir("stdin-cap");
    // 64 MiB and one more byte of a comment: valid source, one byte too long.
    let mut big = b"//".to_vec();
    big.resize((64 << 20) + 1, b'x');
    let o = banklint_with(&dir, &["check", "-"], &[], Some(big));
    assert_eq!(o.code, Some(2));
    assert_eq!(
        o.stderr,
        "error: <stdin>: standard input is larger than 64 MiB, the most banklint reads from one input\n"
    );
}

#[test]
fn the_header_limit_is_reported_where_it_is_reached() {
    let limit = banklint::limits::MAX_HEADERS;
    let dir = temp_dir("headers");
    let mut main = String::new();
    for i in 0..limit + 2 {
        write(
            &dir,
            &format!("h{i}.h"),
            format!("#define H{i} {i}\n").as_bytes(),
        );
        main.push_str(&format!("#include \"h{i}.h\"\n"));
    }
    main.push_str(GOOD);
    write(&dir, "k.cu", main.as_bytes());
    let o = banklint(&dir, &["check", "k.cu", "--format", "short"]);
    let notes: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| l.contains("include-not-found"))
        .collect();
    assert_eq!(notes.len(), 2, "{}", o.stdout);
    assert!(
        notes[0].starts_with(&format!(
            "k.cu:{}:1: note: header `h{limit}.h` was not read: banklint reads at most {limit} headers for one file",
            limit + 1
        )),
        "{}",
        notes[0]
    );
    assert!(notes[1].starts_with(&format!(
        "k.cu:{}:1: note: header `h{}.h` was not read",
        limit + 2,
        limit + 1
    )));
}

#[test]
fn a_header_marked_pragma_once_is_read_once() {
    // Included 3 * MAX_HEADERS times: without `#pragma once` the limit would be reached.
    let dir = temp_dir("pragma-once");
    write(&dir, "once.h", b"#pragma once\n#define TILE 32\n");
    let mut main = String::new();
    for _ in 0..3 * banklint::limits::MAX_HEADERS {
        main.push_str("#include \"once.h\"\n");
    }
    main.push_str(
        "__global__ void k(float *o) {\n    __shared__ float t[TILE][TILE];\n    o[threadIdx.x] = t[threadIdx.x][0];\n}\n",
    );
    write(&dir, "k.cu", main.as_bytes());
    let o = banklint(&dir, &["check", "k.cu", "--format", "short"]);
    assert!(!o.stdout.contains("include-not-found"), "{}", o.stdout);
    assert!(
        o.stdout.contains("32-way bank conflict on `t`"),
        "{}",
        o.stdout
    );
}

#[test]
fn exclude_globs_match_in_linear_time() {
    let dir = temp_dir("globs");
    let long = format!("{}.cu", "a".repeat(57));
    write(&dir, &long, GOOD.as_bytes());
    let deep: std::path::PathBuf = std::iter::repeat_n("d", 40).collect();
    std::fs::create_dir_all(dir.join(&deep)).unwrap();
    write(&dir.join(&deep), "k.cu", GOOD.as_bytes());
    let start = Instant::now();
    let o = banklint(
        &dir,
        &[
            "check",
            &long,
            "--exclude",
            "*a*a*a*a*a*a*a*a*b",
            "--no-includer-context",
            "--format",
            "short",
        ],
    );
    assert_eq!(o.code, Some(1), "not excluded, and analyzed");
    let deep_file = deep.join("k.cu").display().to_string();
    let patterns = format!("{}x.cu", "**/".repeat(10));
    let o = banklint(
        &dir,
        &[
            "check",
            &deep_file,
            "--exclude",
            &patterns,
            "--no-includer-context",
        ],
    );
    assert_eq!(o.code, Some(1));
    let matching = format!("{}k.cu", "**/".repeat(10));
    let o = banklint(&dir, &["check", &deep_file, "--exclude", &matching]);
    assert_eq!((o.code, o.stdout.as_str()), (Some(0), ""), "excluded");
    // Before globset, each of the first two ran past 60 s.
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    let o = banklint(&dir, &["check", ".", "--exclude", "a[b"]);
    assert_eq!(o.code, Some(2));
    assert!(
        o.stderr.starts_with("error: invalid exclude glob `a[b`"),
        "{}",
        o.stderr
    );
}

#[test]
fn many_accesses_on_one_line_are_reported_at_their_columns() {
    let dir = temp_dir("longline");
    let n = 20_000;
    let body: String = (0..n).map(|_| "a += s[threadIdx.x * 2]; ").collect();
    let text = format!(
        "__global__ void k(float *o) {{\n    __shared__ float s[64];\n    float a = 0; {body}\n    o[threadIdx.x] = a;\n}}\n"
    );
    write(&dir, "k.cu", text.as_bytes());
    let o = banklint(&dir, &["check", "k.cu", "--format", "json"]);
    let doc = o.json();
    let accesses = doc["accesses"].as_array().unwrap();
    assert_eq!(accesses.len(), n);
    for (i, a) in accesses.iter().enumerate().step_by(997) {
        assert_eq!(a["line"], 3);
        assert_eq!(a["column"].as_u64(), Some(23 + 25 * i as u64), "access {i}");
    }
    // Tens of megabytes of generated input: not left behind.
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn deep_input_is_skipped_code_never_an_abort() {
    let dir = temp_dir("deep");
    let kernel = |body: &str| {
        format!("__global__ void k(float *o) {{\n    __shared__ float s[64];\n{body}}}\n")
    };
    let cases = [
        (
            "unary.cu",
            kernel(&format!(
                "    o[0] = s[{}threadIdx.x];\n",
                "!".repeat(200_000)
            )),
            "an expression of",
        ),
        (
            "sum.cu",
            kernel(&format!(
                "    o[0] = {};\n",
                vec!["s[threadIdx.x]"; 200_000].join(" + ")
            )),
            "an expression of",
        ),
        (
            "ifs.cu",
            kernel(&format!(
                "    {}o[0] = s[threadIdx.x];\n",
                "if (threadIdx.x) ".repeat(300_000)
            )),
            "control statements nested 300000 deep",
        ),
        (
            "elseif.cu",
            kernel(&format!(
                "    if (threadIdx.x == 0) o[0] = s[0];\n{}",
                "    else if (threadIdx.x == 1) o[0] = s[1];\n".repeat(999_999)
            )),
            "control statements nested 1000000 deep",
        ),
        (
            "parens.cu",
            format!(
                "#if {}1{}\n{}#endif\n",
                "(".repeat(3_000_000),
                ")".repeat(3_000_000),
                kernel("    o[0] = s[threadIdx.x];\n")
            ),
            "`#if` condition with brackets nested 3000000 levels deep (banklint reads at most 256); taken as false",
        ),
    ];
    for (name, text, _) in &cases {
        write(&dir, name, text.as_bytes());
    }
    write(&dir, "good.cu", GOOD.as_bytes());
    let mut args = vec!["check", "--color", "never", "good.cu"];
    args.extend(cases.iter().map(|(n, _, _)| *n));
    let o = banklint(&dir, &args);
    assert_eq!(o.code, Some(1), "not 134: {}", o.stderr);
    assert!(
        o.stdout.contains("good.cu:3:5"),
        "the other files are analyzed"
    );
    for (name, _, reason) in &cases {
        let at = o
            .stdout
            .find(&format!("┌─ {name}:1:1"))
            .unwrap_or_else(|| panic!("{name}: {}", o.stdout));
        let before = &o.stdout[..at];
        assert!(
            before.ends_with(
                "note[skipped-code]: code banklint skipped: shared-memory accesses in it are not analyzed\n  "
            ),
            "{name}"
        );
        let snippet = &o.stdout[at..o.stdout[at..]
            .find("\n\n")
            .map_or(o.stdout.len(), |e| at + e)];
        assert!(snippet.contains(reason), "{name}: {snippet}");
    }
    // Tens of megabytes of generated input: not left behind.
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_file_named_twice_is_checked_once() {
    let dir = temp_dir("twice");
    write(&dir, "k.cu", GOOD.as_bytes());
    let o = banklint(&dir, &["check", "k.cu", "./k.cu", ".", "--format", "short"]);
    assert_eq!(o.code, Some(1));
    assert_eq!(o.stdout.lines().count(), 1, "{}", o.stdout);
    assert!(o.stdout.starts_with("k.cu:3:5"));
}

#[test]
fn config_errors_name_the_config_file() {
    let dir = temp_dir("config");
    write(&dir, "k.cu", GOOD.as_bytes());
    write(&dir, "banklint.toml", b"bank-mode = 3\n");
    let o = banklint(&dir, &["check", "k.cu"]);
    assert_eq!(o.code, Some(2));
    let toml = std::fs::canonicalize(&dir).unwrap().join("banklint.toml");
    assert_eq!(
        o.stderr,
        format!(
            "error: {}: `bank-mode` must be 4 or 8, not 3\n",
            toml.display()
        )
    );
    std::fs::remove_file(dir.join("banklint.toml")).unwrap();
    let o = banklint(&dir, &["check", "k.cu", "--bank-mode", "3"]);
    assert_eq!(
        o.stderr,
        "error: --bank-mode: invalid bank mode 3 (expected 4 or 8)\n"
    );
    write(&dir, "banklint.toml", b"cuda-version = \"12.10\"\n");
    let o = banklint(&dir, &["check", "k.cu"]);
    assert_eq!(o.code, Some(2));
    assert_eq!(
        o.stderr,
        format!(
            "error: {}: `cuda-version`: invalid CUDA version `12.10` (expected MAJOR.MINOR as nvcc --version prints it, e.g. 12.4)\n",
            toml.display()
        )
    );
    std::fs::remove_file(dir.join("banklint.toml")).unwrap();
    let o = banklint(&dir, &["check", "k.cu", "--cuda-version", "twelve"]);
    assert_eq!(o.code, Some(2));
    assert_eq!(
        o.stderr,
        "error: --cuda-version: invalid CUDA version `twelve` (expected MAJOR.MINOR as nvcc --version prints it, e.g. 12.4)\n"
    );
}

#[cfg(unix)]
#[test]
fn paths_with_newlines_and_spaces_stay_well_formed() {
    let dir = temp_dir("names");
    let name = "odd\nname #1 é.cu";
    write(&dir, name, GOOD.as_bytes());
    let o = banklint(&dir, &["check", name, "--format", "short"]);
    assert_eq!(
        o.stdout,
        "odd\\nname #1 é.cu:3:5: warning: 32-way bank conflict on `t` (32 wavefronts per warp instead of 1) [bank-conflict]\n"
    );
    let sarif = banklint(&dir, &["check", name, "--format", "sarif"]).json();
    let uri = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    assert_eq!(uri, "odd%0Aname%20%231%20%C3%A9.cu");
}

/// Peak memory of the JSON run over many files stays small: the document is streamed.
#[cfg(target_os = "linux")]
#[test]
fn json_over_many_files_is_streamed() {
    let dir = temp_dir("stream");
    let n = 5_000;
    for i in 0..n {
        write(&dir, &format!("k{i:04}.cu"), GOOD.as_bytes());
    }
    let (o, peak_kb) = common::run_measured(
        &dir,
        &["check", ".", "--format", "json", "--no-includer-context"],
    );
    assert_eq!(o.code, Some(1));
    let doc: Value = serde_json::from_str(&o.stdout).expect("one JSON document");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["files"].as_array().unwrap().len(), n);
    assert_eq!(doc["accesses"].as_array().unwrap().len(), n);
    assert_eq!(doc["diagnostics"].as_array().unwrap().len(), n);
    // Holding the whole document took 96 MB here (19 KB a file); streamed, under 10 MB.
    assert!(peak_kb < 40_000, "peak {peak_kb} KB");
    // Tens of megabytes of generated input: not left behind.
    let _ = std::fs::remove_dir_all(&dir);
}
