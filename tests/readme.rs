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

#[test]
fn tasks_json_uses_the_gcc_problem_matcher_and_short_output_matches_it() {
    let tasks: serde_json::Value =
        serde_json::from_str(&block("tasks-json")).expect("tasks.json is JSON");
    let task = &tasks["tasks"][0];
    assert_eq!(task["problemMatcher"]["base"], "$gcc");
    let command = task["command"].as_str().expect("command");
    assert!(command.starts_with("banklint check --format short"));
    // VS Code's built-in $gcc pattern (file 1, line 2, column 3, severity 4, message 5).
    let gcc =
        Regex::new(r"^(.*?):(\d+):(\d*):?\s+(?:fatal\s+)?(warning|error):\s+(.*)$").expect("regex");
    let out = Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args([
            "check",
            "fixtures/13_transpose_naive_tile.cu",
            "--format",
            "short",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text.lines().next().expect("a finding");
    let caps = gcc
        .captures(line)
        .unwrap_or_else(|| panic!("$gcc does not match `{line}`"));
    assert_eq!(&caps[1], "fixtures/13_transpose_naive_tile.cu");
    assert_eq!(&caps[2], "22");
    assert_eq!(&caps[3], "39");
    assert_eq!(&caps[4], "warning");
    assert!(caps[5].starts_with("32-way bank conflict on `tile`"));
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
