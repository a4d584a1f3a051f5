//! The README's snippets are the ones users copy: check they are valid and do what they say.

use regex::Regex;
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
    assert!(text.contains("cargo run --release -- check fixtures/13_transpose_naive_tile.cu"));
    assert!(text.contains("\ncargo test "));
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
