//! Numbers and docs that are true: no per-block totals for a block of unknown shape (that is
//! one warp), no advice to add an annotation that is there, and the bank rules documented in
//! `docs/BANK_RULES.md`, where every reference points.

mod common;

use common::{banklint, temp_dir, write};
use std::path::{Path, PathBuf};

/// The column of a 32x32 float tile: 32 lanes on 32 words of bank 0, 32 wavefronts for one
/// warp instruction (ideal 1).
const COLUMN: &str = "__global__ void k(float *o) {\n    __shared__ float t[32][32];\n    t[threadIdx.x][0] = o[threadIdx.x];\n}\n";

#[test]
fn an_unknown_block_gets_totals_per_warp_and_none_in_json() {
    let dir = temp_dir("truth-warp");
    write(&dir, "k.cu", COLUMN.as_bytes());
    let o = banklint(&dir, &["check", "k.cu", "--color", "never"]);
    assert!(
        o.stdout
            .contains("per warp: 1 instruction, 32 wavefronts (ideal 1)"),
        "{}",
        o.stdout
    );
    assert!(!o.stdout.contains("per block"), "{}", o.stdout);
    let doc = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let access = &doc["accesses"][0];
    assert_eq!(access["block_dim"], serde_json::Value::Null);
    assert_eq!(access["block_dim_source"], "default");
    assert_eq!(access["wavefronts"], 32);
    assert!(access.get("block_totals").is_none(), "{access}");

    // Launched with 64 threads: two warps, each 32 wavefronts, so 2 and 64 per block.
    write(
        &dir,
        "launched.cu",
        format!("{COLUMN}void h(float *o) {{ k<<<1, 64>>>(o); }}\n").as_bytes(),
    );
    let o = banklint(&dir, &["check", "launched.cu", "--color", "never"]);
    assert!(
        o.stdout
            .contains("per block: 2 instructions, 64 wavefronts (ideal 2)"),
        "{}",
        o.stdout
    );
    let doc = banklint(&dir, &["check", "launched.cu", "--format", "json"]).json();
    assert_eq!(
        doc["accesses"][0]["block_totals"],
        serde_json::json!({"instructions": 2, "wavefronts": 64})
    );
}

#[test]
fn no_advice_to_add_the_block_annotation_that_is_there() {
    let dir = temp_dir("truth-advice");
    // The launch's shape is a run-time value; the annotation gives (16, 16).
    let host = "void h(float *o, int n) {\n    dim3 b(n, n);\n    k<<<1, b>>>(o);\n}\n";
    let kernel = "__global__ void k(float *o) {\n    __shared__ float t[16][16];\n    t[threadIdx.x][threadIdx.y] = o[threadIdx.x];\n}\n";
    write(
        &dir,
        "annotated.cu",
        format!("// banklint: block(16, 16)\n{kernel}{host}").as_bytes(),
    );
    write(&dir, "bare.cu", format!("{kernel}{host}").as_bytes());
    let advice = "add `// banklint: block(X, Y)`";
    let o = banklint(&dir, &["check", "annotated.cu", "--color", "never"]);
    assert!(
        o.stdout
            .contains("note[block-shape]: block shape of this launch is not used")
    );
    assert!(!o.stdout.contains(advice), "{}", o.stdout);
    assert!(
        o.stdout
            .contains("the `banklint: block(16, 16)` annotation above `k` gives the shape instead"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("with block (16, 16) from the `// banklint: block(...)` annotation")
    );
    // Without it, the advice is given, and the unknown shape says why.
    let o = banklint(&dir, &["check", "bare.cu", "--color", "never"]);
    assert!(o.stdout.contains(advice), "{}", o.stdout);
    assert!(
        o.stdout
            .contains("its launch's block shape is not a compile-time constant"),
        "{}",
        o.stdout
    );
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's text files (what git tracks, less the measured data).
fn text_files() -> Vec<PathBuf> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard"])
        .current_dir(repo())
        .output();
    let listed = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        // Not a git checkout: the folders that cite documents.
        _ => [
            "README.md",
            "docs/ARCHS.md",
            "docs/BANK_RULES.md",
            "fixtures/README.md",
            "hw/README.md",
        ]
        .join("\n"),
    };
    listed
        .lines()
        .filter(|p| {
            [".md", ".rs", ".py", ".cu", ".cuh", ".sh", ".toml"]
                .iter()
                .any(|e| p.ends_with(e))
        })
        .map(|p| repo().join(p))
        .filter(|p| p.is_file())
        .collect()
}

#[test]
fn every_reference_to_the_bank_rules_points_into_docs() {
    let rules = repo().join("docs/BANK_RULES.md");
    let text = std::fs::read_to_string(&rules).expect("docs/BANK_RULES.md");
    // What it must cover: the measured merge rule and the measured operations, with sources.
    for needed in [
        "wide-load merge rule",
        "n XOR 1",
        "ldmatrix",
        "stmatrix",
        "cp.async.cg",
        "atomicCAS",
        "ATOMS.POPC.INC",
        "## Sources",
        "Programming Guide",
        "S41723",
    ] {
        assert!(text.contains(needed), "docs/BANK_RULES.md lacks {needed:?}");
    }
    let mut bad = Vec::new();
    for file in text_files() {
        let Ok(body) = std::fs::read_to_string(&file) else {
            continue;
        };
        let in_docs = file.parent() == Some(repo().join("docs").as_path());
        for (at, _) in body.match_indices("BANK_RULES.md") {
            let before = &body[..at];
            let ok = before.ends_with("docs/")
                || (in_docs && before.ends_with('('))
                || (in_docs && before.ends_with('`'));
            if !ok && file != rules && !file.ends_with(file!()) {
                let line = before.matches('\n').count() + 1;
                bad.push(format!("{}:{line}", file.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "references not to docs/BANK_RULES.md: {bad:?}"
    );
}

#[test]
fn relative_links_in_the_docs_resolve() {
    let mut broken = Vec::new();
    for doc in [
        "README.md",
        "docs/ARCHS.md",
        "docs/BANK_RULES.md",
        "hw/README.md",
        "fixtures/README.md",
    ] {
        let path = repo().join(doc);
        let text = std::fs::read_to_string(&path).expect(doc);
        let dir = path.parent().expect("dir").to_path_buf();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            if !Path::new(&dir).join(target).exists() {
                broken.push(format!("{doc}: {target}"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links: {broken:?}");
}
