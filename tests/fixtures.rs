//! Walks `fixtures/` and checks every expectation written on an access line:
//! `// expect: [load|store|OP] VERDICT [wavefronts=N] [ideal=N] [instructions=N] [total=N] [array=NAME]`,
//! (OP as `banklint simulate --op` spells it: `atomic.count`), clauses separated by `;`, VERDICT one of `conflict-free`, `N-way`, `unknown`.
//! A header `// banklint-args: ...` gives the file's command-line flags. Every line with a
//! shared-memory access must carry an expectation, and every expectation must match an access.

use banklint::app::args::{Cli, Command};
use banklint::app::runner::add_includer_index;
use banklint::app::settings::options_from;
use banklint::bank::engine::Op;
use banklint::check::check_source;
use banklint::front::source::SourceFile;
use banklint::lint::findings::Status;
use banklint::lint::report::FileReport;
use clap::Parser;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug)]
enum Verdict {
    ConflictFree,
    Ways(u32),
    Unknown,
}

#[derive(Debug)]
struct Clause {
    kind: Option<Op>,
    verdict: Verdict,
    numbers: Vec<(String, u64)>,
    /// Only the accesses to this array (a helper's line reached with several arrays).
    array: Option<String>,
}

fn parse_clause(text: &str) -> Result<Clause, String> {
    let mut words = text.split_whitespace().peekable();
    let kind = match words.peek() {
        Some(&"load") => {
            words.next();
            Some(Op::Load)
        }
        Some(&"store") => {
            words.next();
            Some(Op::Store)
        }
        // Other operations by their `simulate --op` spelling: `atomic.count`, `ldmatrix.x4`.
        Some(w)
            if w.starts_with("atomic")
                || w.contains("matrix")
                || w.starts_with("cp.")
                || w.starts_with("tma.") =>
        {
            let op = banklint::app::simulate_ops::parse_op(w)?;
            words.next();
            Some(op)
        }
        _ => None,
    };
    let verdict = match words.next() {
        Some("conflict-free") => Verdict::ConflictFree,
        Some("unknown") => Verdict::Unknown,
        Some(w) if w.ends_with("-way") => Verdict::Ways(
            w.trim_end_matches("-way")
                .parse()
                .map_err(|_| format!("bad verdict `{w}`"))?,
        ),
        other => return Err(format!("bad verdict {other:?} in `{text}`")),
    };
    let mut numbers = Vec::new();
    let mut array = None;
    for w in words {
        let (k, v) = w.split_once('=').ok_or_else(|| format!("bad term `{w}`"))?;
        if k == "array" {
            array = Some(v.to_string());
            continue;
        }
        if !matches!(k, "wavefronts" | "ideal" | "instructions" | "total") {
            return Err(format!("unknown key `{k}`"));
        }
        numbers.push((
            k.to_string(),
            v.parse().map_err(|_| format!("bad number in `{w}`"))?,
        ));
    }
    Ok(Clause {
        array,
        kind,
        verdict,
        numbers,
    })
}

fn run(path: &Path) -> FileReport {
    let text = std::fs::read_to_string(path).expect("fixture is readable");
    let mut argv = vec![
        "banklint".to_string(),
        "check".to_string(),
        path.display().to_string(),
    ];
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix("// banklint-args:") {
            argv.extend(rest.split_whitespace().map(String::from));
        }
    }
    let cli = Cli::try_parse_from(&argv)
        .unwrap_or_else(|e| panic!("{}: bad banklint-args: {e}", path.display()));
    let Command::Check(args) = cli.command else {
        panic!("not a check command")
    };
    let mut options = options_from(&args).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if !args.no_includer_context {
        add_includer_index(&mut options, &[path.to_path_buf()]);
    }
    check_source(SourceFile::new(path, text), &options)
}

fn check_fixture(path: &Path) -> Vec<String> {
    let report = run(path);
    let mut problems = Vec::new();
    let name = path.display();
    let mut by_line: BTreeMap<usize, Vec<&banklint::lint::findings::AccessFinding>> =
        BTreeMap::new();
    for f in &report.findings {
        by_line
            .entry(report.file.line_col(f.span.start).0)
            .or_default()
            .push(f);
    }
    let mut expected_lines = Vec::new();
    for (i, line) in report.file.text.lines().enumerate() {
        let line_no = i + 1;
        let Some(pos) = line.find("// expect:") else {
            continue;
        };
        expected_lines.push(line_no);
        let accesses = by_line.get(&line_no).cloned().unwrap_or_default();
        if accesses.is_empty() {
            problems.push(format!(
                "{name}:{line_no}: expectation but no shared-memory access found"
            ));
            continue;
        }
        for clause_text in line[pos + "// expect:".len()..].split(';') {
            let clause = match parse_clause(clause_text) {
                Ok(c) => c,
                Err(e) => {
                    problems.push(format!("{name}:{line_no}: {e}"));
                    continue;
                }
            };
            let matching: Vec<_> = accesses
                .iter()
                .filter(|a| clause.kind.is_none_or(|k| a.op == k))
                .filter(|a| {
                    clause
                        .array
                        .as_ref()
                        .is_none_or(|n| report.arrays[a.array].decl.name == *n)
                })
                .collect();
            if matching.is_empty() {
                problems.push(format!(
                    "{name}:{line_no}: no {:?} access for `{}`",
                    clause.kind,
                    clause_text.trim()
                ));
            }
            for a in matching {
                let what = format!(
                    "{name}:{line_no}: {} `{}`",
                    a.op.name(),
                    &report.file.text[a.span.clone()]
                );
                let (got_verdict, ok) = match (&clause.verdict, &a.status) {
                    (Verdict::Unknown, Status::Unknown(_)) => ("unknown".to_string(), true),
                    (_, Status::Unknown(r)) => (format!("unknown ({r})"), false),
                    (Verdict::ConflictFree, Status::Analyzed) => {
                        (format!("{}-way", a.conflict_ways()), a.conflict_ways() == 1)
                    }
                    (Verdict::Ways(n), Status::Analyzed) => (
                        format!("{}-way", a.conflict_ways()),
                        a.conflict_ways() == *n,
                    ),
                    (Verdict::Unknown, Status::Analyzed) => {
                        (format!("analyzed {}-way", a.conflict_ways()), false)
                    }
                };
                if !ok {
                    problems.push(format!(
                        "{what}: expected {:?}, got {got_verdict}",
                        clause.verdict
                    ));
                }
                let worst = a.worst.as_ref().map(|w| &w.evaluation.verdict);
                for (key, want) in &clause.numbers {
                    let got = match key.as_str() {
                        "wavefronts" => worst.map(|v| u64::from(v.wavefronts)),
                        "ideal" => worst.map(|v| u64::from(v.ideal)),
                        "instructions" => a.totals.map(|t| t.instructions),
                        _ => a.totals.map(|t| t.wavefronts),
                    };
                    if got != Some(*want) {
                        problems.push(format!("{what}: expected {key}={want}, got {got:?}"));
                    }
                }
            }
        }
    }
    for (line, accesses) in &by_line {
        if !expected_lines.contains(line) {
            for a in accesses {
                problems.push(format!(
                    "{name}:{line}: access `{}` ({}) has no `// expect:` comment",
                    &report.file.text[a.span.clone()],
                    a.op.name()
                ));
            }
        }
    }
    problems
}

/// Every `.cu`/`.cuh` of `fixtures/`, and of its numbered folders (a fixture spread over
/// several files, `83_nested/`), at any depth; `include/` holds headers checked through the
/// fixtures that include them.
fn fixtures() -> Vec<PathBuf> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for p in std::fs::read_dir(dir)
            .expect("readable")
            .filter_map(|e| e.ok().map(|e| e.path()))
        {
            let numbered = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()));
            if p.is_dir() && (numbered || dir.file_name().is_some_and(|n| n != "fixtures")) {
                walk(&p, files);
            } else if p.extension().is_some_and(|e| e == "cu" || e == "cuh") {
                files.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &mut files,
    );
    files.sort();
    files
}

#[test]
fn every_fixture_expectation_holds() {
    let files = fixtures();
    assert!(files.len() >= 40, "only {} fixtures", files.len());
    let mut problems = Vec::new();
    let mut expectations = 0;
    for f in &files {
        expectations += std::fs::read_to_string(f)
            .unwrap_or_default()
            .matches("// expect:")
            .count();
        problems.extend(check_fixture(f));
    }
    assert!(expectations >= 100, "only {expectations} expectations");
    assert!(
        problems.is_empty(),
        "{} problems in {} fixtures:\n{}",
        problems.len(),
        files.len(),
        problems.join("\n")
    );
}
