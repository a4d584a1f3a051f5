//! The README's snippets are the ones users copy: check they are valid and do what they say.

use regex::Regex;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md")
}

/// The fenced block between `<!-- name -->` and `<!-- /name -->`.
fn block(name: &str) -> String {
    let text = readme();
    let start = text
        .find(&format!("<!-- {name} -->"))
        .unwrap_or_else(|| panic!("no {name} block"));
    let end = text
        .find(&format!("<!-- /{name} -->"))
        .unwrap_or_else(|| panic!("no end of {name}"));
    let inner = &text[start..end];
    let body_start = inner.find("```").expect("fence");
    let body = &inner[body_start..];
    let body = &body[body.find('\n').expect("fence line") + 1..];
    body[..body.rfind("```").expect("closing fence")].to_string()
}

/// VS Code's `$gcc` pattern (file 1, line 2, column 3, severity 4, message 5), as its C/C++
/// extension defines it: errors and warnings only.
const GCC: &str = r"^(.*?):(\d+):(\d*):?\s+(?:fatal\s+)?(warning|error):\s+(.*)$";

#[test]
fn tasks_json_problem_matcher_reads_warnings_and_notes_of_real_output() {
    let tasks: serde_json::Value =
        serde_json::from_str(&block("tasks-json")).expect("tasks.json is JSON");
    let task = &tasks["tasks"][0];
    let command = task["command"].as_str().expect("command");
    assert!(command.starts_with("banklint check --format short"));
    let matcher = &task["problemMatcher"];
    assert_eq!(matcher["owner"], "banklint");
    let pattern = &matcher["pattern"];
    // The README's regexp is JavaScript's; this one uses no syntax the two read differently.
    let regex = Regex::new(pattern["regexp"].as_str().expect("regexp")).expect("regex");
    let group = |name: &str| pattern[name].as_u64().expect("group index") as usize;
    // Fixture 68 documents a lambda banklint cannot parse (line 22, skipped: a note, whose
    // wording is not the fixture's), a 32-way store to `g` (line 23) and a 4-way load of `p`
    // (line 24).
    let fixture = "fixtures/68_file_scope_and_recovery.cu";
    let out = Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(["check", fixture, "--format", "short"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/68_file_scope_and_recovery.cu"
    ))
    .expect("fixture");
    let column_of = |line: usize, what: &str| {
        let l = source.lines().nth(line - 1).expect("line");
        (l.find(what).expect("text on the line") + 1).to_string()
    };
    let expected = [
        (22, column_of(22, "[]("), "note", "", "skipped-code"),
        (
            23,
            column_of(23, "g[tid]"),
            "warning",
            "32-way bank conflict on `g`",
            "bank-conflict",
        ),
        (
            24,
            column_of(24, "p[tid]"),
            "warning",
            "4-way bank conflict on `p`",
            "bank-conflict",
        ),
    ];
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{text}");
    let gcc = Regex::new(GCC).expect("regex");
    for (line, (number, column, severity, message, code)) in lines.iter().zip(&expected) {
        let caps = regex
            .captures(line)
            .unwrap_or_else(|| panic!("the README's matcher does not match `{line}`"));
        assert_eq!(&caps[group("file")], fixture);
        assert_eq!(caps[group("line")].parse::<usize>().ok(), Some(*number));
        assert_eq!(&caps[group("column")], column.as_str());
        assert_eq!(&caps[group("severity")], *severity);
        assert!(caps[group("message")].starts_with(message), "{line}");
        assert!(!caps[group("message")].is_empty(), "{line}");
        assert!(!caps[group("message")].ends_with(']'), "{line}");
        assert_eq!(&caps[group("code")], *code);
        // What the matcher is for: `$gcc` loses the note.
        assert_eq!(gcc.is_match(line), *severity != "note", "{line}");
    }
    // And errors: a malformed annotation is one.
    let dir = std::env::temp_dir().join(format!("banklint-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.cu");
    std::fs::write(&bad, "// banklint: expect(sideways)\nint x;\n").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(["check", "--format", "short"])
        .arg(&bad)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let caps = regex.captures(text.trim_end()).expect("an error line");
    assert_eq!(&caps[group("file")], bad.display().to_string());
    assert_eq!(&caps[group("line")], "1");
    assert_eq!(&caps[group("column")], "1");
    assert_eq!(&caps[group("severity")], "error");
    assert_eq!(&caps[group("code")], "invalid-annotation");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn quick_start_commands_are_the_documented_ones() {
    let text = readme();
    // One profile for both, so `cargo test` reuses what `cargo run` built.
    assert!(text.contains("\ncargo run -- check fixtures/13_transpose_naive_tile.cu "));
    assert!(text.contains("\ncargo test "));
    let quick = &text[text.find("## Quick start").expect("quick start")..];
    let quick = &quick[..quick.find("\n## ").expect("next section")];
    assert!(!quick.contains("cargo run --release"), "{quick}");
    assert!(
        std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/13_transpose_naive_tile.cu"
        ))
        .is_file()
    );
}

#[test]
fn pre_commit_snippet_names_the_hook_defined_here() {
    let snippet = block("pre-commit-config");
    assert!(snippet.contains("- id: banklint"));
    let hooks = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/.pre-commit-hooks.yaml"
    ))
    .expect("hooks file");
    assert!(hooks.contains("- id: banklint"));
    assert!(hooks.contains("language: rust"));
    assert!(hooks.contains(r"files: '\.(cu|cuh)$'"));
}

/// The repository root: the quick start's commands run there.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run_banklint(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .expect("banklint runs")
}

#[test]
fn what_it_prints_is_the_quick_start_commands_output() {
    let out = run_banklint(
        root(),
        &[
            "check",
            "fixtures/13_transpose_naive_tile.cu",
            "--color",
            "never",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let real = String::from_utf8(out.stdout).expect("UTF-8");
    let documented = block("human-output");
    if real != documented {
        let diff: Vec<String> = documented
            .lines()
            .zip(real.lines())
            .enumerate()
            .filter(|(_, (d, r))| d != r)
            .map(|(i, (d, r))| format!("line {}:\n  README: {d}\n  real:   {r}", i + 1))
            .collect();
        panic!(
            "the README's sample output differs from the real one ({} and {} lines):\n{}\n--- real output:\n{real}",
            documented.lines().count(),
            real.lines().count(),
            diff.join("\n")
        );
    }
}

/// A reader of the README's JSON schema: JSON where a value may be several, separated by `|`.
struct Schema<'a> {
    text: &'a [u8],
    at: usize,
}

/// Objects whose keys are data (parameter names, bindings), not fields.
const MAPS: [&str; 4] = [
    "launch_arguments",
    "assumed_arguments",
    "assumed_types",
    "by_element_size",
];

impl Schema<'_> {
    fn skip_space(&mut self) {
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    /// The next byte that is not a space (0 at the end).
    fn peek(&mut self) -> u8 {
        self.skip_space();
        self.text.get(self.at).copied().unwrap_or(0)
    }

    fn expect(&mut self, c: u8) {
        assert_eq!(self.peek() as char, c as char, "at byte {}", self.at);
        self.at += 1;
    }

    fn string(&mut self) -> String {
        self.expect(b'"');
        let start = self.at;
        while self.text[self.at] != b'"' {
            self.at += if self.text[self.at] == b'\\' { 2 } else { 1 };
        }
        self.at += 1;
        String::from_utf8_lossy(&self.text[start..self.at - 1]).into_owned()
    }

    /// A value and its alternatives; records each field's path in `fields` and the string
    /// values a field may take in `values`.
    fn value(
        &mut self,
        path: &str,
        fields: &mut BTreeSet<String>,
        values: &mut BTreeMap<String, BTreeSet<String>>,
    ) {
        loop {
            match self.peek() {
                b'{' => {
                    self.at += 1;
                    while self.peek() != b'}' {
                        let key = self.string();
                        let field = if path.is_empty() {
                            key.clone()
                        } else {
                            format!("{path}.{key}")
                        };
                        fields.insert(field.clone());
                        self.expect(b':');
                        if MAPS.contains(&key.as_str()) {
                            self.value("(map)", &mut BTreeSet::new(), &mut BTreeMap::new());
                        } else {
                            self.value(&field, fields, values);
                        }
                        if self.peek() == b',' {
                            self.at += 1;
                        }
                    }
                    self.at += 1;
                }
                b'[' => {
                    self.at += 1;
                    while self.peek() != b']' {
                        self.value(&format!("{path}[]"), fields, values);
                        if self.peek() == b',' {
                            self.at += 1;
                        }
                    }
                    self.at += 1;
                }
                b'"' => {
                    let v = self.string();
                    values.entry(path.to_string()).or_default().insert(v);
                }
                _ => {
                    // A number, true, false or null.
                    while self.at < self.text.len() && !b",]}| \n".contains(&self.text[self.at]) {
                        self.at += 1;
                    }
                }
            }
            if self.peek() == b'|' {
                self.at += 1;
            } else {
                return;
            }
        }
    }
}

/// Every field path of a real document, and the string values of each.
fn real_fields(
    v: &Value,
    path: &str,
    fields: &mut BTreeSet<String>,
    values: &mut BTreeMap<String, BTreeSet<String>>,
) {
    match v {
        Value::Object(map) => {
            for (key, x) in map {
                let field = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                fields.insert(field.clone());
                if !MAPS.contains(&key.as_str()) {
                    real_fields(x, &field, fields, values);
                }
            }
        }
        Value::Array(items) => {
            for x in items {
                real_fields(x, &format!("{path}[]"), fields, values);
            }
        }
        Value::String(s) => {
            values
                .entry(path.to_string())
                .or_default()
                .insert(s.clone());
        }
        _ => {}
    }
}

#[test]
fn the_json_schema_lists_every_field_emitted_and_no_other() {
    let schema_text = block("json-schema");
    let mut documented = BTreeSet::new();
    let mut documented_values = BTreeMap::new();
    let mut reader = Schema {
        text: schema_text.as_bytes(),
        at: 0,
    };
    reader.value("", &mut documented, &mut documented_values);
    // Every fixture (headers from fixtures/include, so accesses written in them are reported at
    // their calls), with --stats; a dry run's fixes; a block shape from the command line.
    let runs: [&[&str]; 3] = [
        &[
            "check",
            "fixtures",
            "-I",
            "fixtures/include",
            "--format",
            "json",
            "--stats",
        ],
        &[
            "check",
            "fixtures/13_transpose_naive_tile.cu",
            "--format",
            "json",
            "--fix",
            "--dry-run",
        ],
        &[
            "check",
            "fixtures/01_matrix_column_32way.cu",
            "--format",
            "json",
            "--block-dim",
            "32x8",
        ],
    ];
    let mut emitted = BTreeSet::new();
    let mut emitted_values = BTreeMap::new();
    for args in runs {
        let out = run_banklint(root(), args);
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e})"));
        real_fields(&doc, "", &mut emitted, &mut emitted_values);
    }
    let undocumented: Vec<&String> = emitted.difference(&documented).collect();
    let never_emitted: Vec<&String> = documented.difference(&emitted).collect();
    assert!(
        undocumented.is_empty(),
        "emitted but not in the README's schema: {undocumented:?}"
    );
    assert!(
        never_emitted.is_empty(),
        "in the README's schema but never emitted: {never_emitted:?}"
    );
    // Fields the README gives a closed set of values for: real values are among them.
    for field in [
        "files[].status",
        "accesses[].kind",
        "accesses[].block_dim_source",
        "accesses[].status",
        "diagnostics[].severity",
        "diagnostics[].suggestion.applicability",
    ] {
        let allowed = &documented_values[field];
        let seen = emitted_values.get(field).cloned().unwrap_or_default();
        assert!(
            seen.is_subset(allowed),
            "{field}: {seen:?} not all in {allowed:?}"
        );
        assert!(!seen.is_empty(), "{field}: no value seen");
    }
    let codes: BTreeSet<String> = emitted_values["diagnostics[].code"].clone();
    for code in codes {
        assert!(
            banklint::lint::rules::Rule::from_code(&code).is_some(),
            "{code}"
        );
    }
}

#[test]
fn the_configuration_example_is_valid() {
    let dir = std::env::temp_dir().join(format!("banklint-readme-toml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("banklint.toml"), block("banklint-toml")).expect("write");
    let out = run_banklint(&dir, &["check", "--print-config"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "arch = \"sm_80\"",
        "bank-mode = 4",
        "cuda-version = \"12.4\"",
        "block-dim = \"32x8\"",
        "min-ways = 2",
        "define = \"TILE=32\"",
        "exclude = \"third_party/**\"",
        "severity.bank-conflict = \"error\"",
        "severity.unanalyzed-access = \"off\"",
    ] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(line) && l.contains("banklint.toml")),
            "{line}: {text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn print_config_sample_is_real_output() {
    let sample = block("print-config");
    let (command, expected) = sample.split_once('\n').expect("a command line");
    assert_eq!(
        command,
        "$ cd /home/me/proj && banklint check --print-config"
    );
    // The project the sample shows: its configuration, and a vendored directory with its own.
    let base = std::env::temp_dir().join(format!("banklint-readme-proj-{}", std::process::id()));
    let proj = base.join("proj");
    std::fs::create_dir_all(proj.join("src")).expect("mkdir");
    std::fs::create_dir_all(proj.join("vendor")).expect("mkdir");
    std::fs::write(
        proj.join("banklint.toml"),
        "arch = \"sm_80\"\ndefines = [\"TILE=32\"]\n\n[severity]\nbank-conflict = \"error\"\n",
    )
    .expect("write");
    std::fs::write(
        proj.join("vendor/banklint.toml"),
        "arch = \"sm_70\"\nmin-ways = 4\n",
    )
    .expect("write");
    std::fs::write(proj.join("src/a.cu"), "__global__ void k() {}\n").expect("write");
    std::fs::write(proj.join("vendor/v.cu"), "__global__ void v() {}\n").expect("write");
    let out = run_banklint(&proj, &["check", "--print-config"]);
    assert_eq!(out.status.code(), Some(0));
    let canonical = std::fs::canonicalize(&proj).expect("canonical");
    let real = String::from_utf8_lossy(&out.stdout)
        .replace(&canonical.display().to_string(), "/home/me/proj");
    assert_eq!(real, expected);
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn the_tests_build_nothing_the_run_command_built_with_other_features() {
    // The quick start's `cargo run` and `cargo test` share one build only if the test-only
    // dependencies turn on no feature of a package the program uses: compare the features of
    // every package without and with the dev-dependencies.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let tree = |edges: &str| -> Option<BTreeSet<String>> {
        let out = Command::new(&cargo)
            .args([
                "tree",
                "--offline",
                "--locked",
                "--prefix",
                "none",
                "-f",
                "{p} [{f}]",
                "-e",
                edges,
            ])
            .current_dir(root())
            .output()
            .ok()?;
        out.status.success().then(|| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(|l| l.trim_end_matches(" (*)").to_string())
                .collect()
        })
    };
    let (Some(normal), Some(with_dev)) = (tree("normal"), tree("normal,dev")) else {
        eprintln!("skipped: `cargo tree --offline` is not available here");
        return;
    };
    let name = |l: &str| l.split(" [").next().unwrap_or("").to_string();
    for package in &normal {
        let same_package: Vec<&String> = with_dev
            .iter()
            .filter(|l| name(l) == name(package))
            .collect();
        assert_eq!(
            same_package,
            vec![package],
            "a dev-dependency changes the features of {package}: the tests would rebuild it"
        );
    }
}

/// Every `cargo run --example NAME` and script the README tells a user to run is in the
/// tree (`cargo test` builds the examples, so a named one also compiles).
#[test]
fn every_tool_the_readme_runs_exists() {
    let text = readme();
    // What the README runs, where it lives, and one it must name.
    let tools = [
        (r"--example ([a-z_]+)", "examples", ".rs", "bench"),
        (r"scripts/([a-z_]+\.py)", "scripts", "", "coverage.py"),
    ];
    for (pattern, folder, extension, expected) in tools {
        let named: BTreeSet<String> = Regex::new(pattern)
            .unwrap()
            .captures_iter(&text)
            .map(|c| c[1].to_string())
            .collect();
        assert!(named.contains(expected), "{named:?}");
        for name in &named {
            let path = root().join(folder).join(format!("{name}{extension}"));
            assert!(
                path.is_file(),
                "the README runs {name}: {path:?} is missing"
            );
        }
    }
}
