//! End to end with a real editor: a headless Neovim with its built-in LSP client, configured
//! with exactly the README's Neovim snippet (cut from between its marker comments), opens a
//! fixture and receives banklint's diagnostics, asks for hover and code actions, applies the
//! preferred fix through its own edit code, and sees the diagnostic go. `tests/editor/
//! nvim_e2e.lua` drives Neovim and records what happened; this test checks the record against
//! the fixture's documented expectations.
//!
//! Skipped, with a message, only when `nvim` is not installed on this machine; CI (`CI` set,
//! as `.ci/run` runs) installs it, and there its absence is a failure.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn readme_block(name: &str) -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let start = text
        .find(&format!("<!-- {name} -->"))
        .unwrap_or_else(|| panic!("no {name} block in the README"));
    let end = text
        .find(&format!("<!-- /{name} -->"))
        .unwrap_or_else(|| panic!("no end of the {name} block"));
    let inner = &text[start..end];
    let body = &inner[inner.find("```").expect("fence")..];
    let body = &body[body.find('\n').expect("fence line") + 1..];
    body[..body.rfind("```").expect("closing fence")].to_string()
}

fn nvim_installed() -> bool {
    Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn neovim_with_the_readme_snippet_shows_diagnostics_hover_and_applies_the_fix() {
    if !nvim_installed() {
        assert!(
            std::env::var_os("CI").is_none(),
            "nvim is not installed, and CI must run this test (.ci/run installs neovim)"
        );
        eprintln!(
            "SKIPPED neovim_with_the_readme_snippet_shows_diagnostics_hover_and_applies_the_fix: \
             nvim is not installed (Debian: apt-get install neovim)"
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("banklint-nvim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let snippet = dir.join("banklint.lua");
    std::fs::write(&snippet, readme_block("neovim-lsp")).expect("write the snippet");
    // Fixture 13: the read on line 22 is a 32-way conflict on `tile` (declared on line 13);
    // padding its innermost dimension, `tile[TILE_DIM][TILE_DIM + 1]` (fixture 14), makes
    // every access conflict-free. A copy, so the file on disk is the test's.
    let original = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/13_transpose_naive_tile.cu"
    ))
    .expect("fixture");
    let file = dir.join("transpose.cu");
    std::fs::write(&file, &original).expect("write");
    let out = dir.join("record.json");
    let binary_dir = Path::new(env!("CARGO_BIN_EXE_banklint"))
        .parent()
        .expect("target dir")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(binary_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/editor/nvim_e2e.lua");
    let home: PathBuf = dir.join("home");
    let mut child = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("PATH", path)
        .env("BANKLINT_SNIPPET", &snippet)
        .env("BANKLINT_FIXTURE", &file)
        .env("BANKLINT_OUT", &out)
        // Neovim's and banklint's own files (logs, rule pages) stay in the test's directory.
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nvim starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let record: Value = serde_json::from_str(
        &std::fs::read_to_string(&out)
            .unwrap_or_else(|e| panic!("no record from nvim ({status}): {e}")),
    )
    .expect("the record is JSON");
    assert!(record.get("error").is_none(), "{record:#}");
    assert_eq!(record["filetype"], "cuda");

    // What Neovim's client received on open: one warning, the conflict, at the read.
    assert_eq!(record["received"], true, "{record:#}");
    let opened = record["opened"].as_array().expect("diagnostics");
    assert_eq!(opened.len(), 1, "{record:#}");
    let d = &opened[0];
    let line22 = original.lines().nth(21).expect("line 22");
    let access = "tile[threadIdx.x][threadIdx.y + j]";
    let col = line22.find(access).expect("the read");
    assert_eq!(d["lnum"], 21);
    assert_eq!(d["col"], col);
    assert_eq!(d["end_lnum"], 21);
    assert_eq!(d["end_col"], col + access.len());
    assert_eq!(d["severity"], 2, "vim.diagnostic.severity.WARN");
    assert_eq!(d["code"], "bank-conflict");
    assert_eq!(d["source"], "banklint");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("32-way bank conflict on `tile`"),
        "{d}"
    );

    // Hover: the verdict and the lanes all in bank 0.
    let hover = record["hover"].as_str().expect("hover text");
    assert!(hover.contains("32-way bank conflict"), "{hover}");
    assert!(hover.contains("lanes  0-15:  0  0  0"), "{hover}");

    // The fix, applied by Neovim: line 13 padded, and the diagnostic gone.
    let titles: Vec<&str> = record["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        titles.iter().any(|t| t.starts_with("Pad `tile`")),
        "{titles:?}"
    );
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("Allow `bank-conflict`")),
        "{titles:?}"
    );
    assert_eq!(
        record["edited_lines"][12],
        "    __shared__ float tile[TILE_DIM][TILE_DIM + 1];"
    );
    assert_eq!(record["modified"], true, "edited in the buffer, not saved");
    assert_eq!(record["cleared"], true, "{record:#}");
    assert_eq!(record["after_fix"], serde_json::json!([]));
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        original,
        "the file on disk is untouched: the server analyzed the buffer"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_readme_snippet_runs_banklint_server() {
    let snippet = readme_block("neovim-lsp");
    assert!(
        snippet.contains(r#"cmd = { "banklint", "server" }"#),
        "{snippet}"
    );
    assert!(snippet.contains(r#"pattern = "cuda""#), "{snippet}");
}
