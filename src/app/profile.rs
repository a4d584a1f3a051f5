//! `banklint profile`: banklint's prediction next to Nsight Compute's measurement, line by
//! line. It reads the source page of a profile exported as CSV (`ncu --page source --csv
//! --print-source cuda`, SASS rows too if `cuda,sass`), analyzes the profiled file as `check`
//! does, and prints for each line with shared-memory traffic the wavefronts (and ideal) of one
//! block each way, and banklint's lane-to-bank picture where they differ.

use crate::app::args::{Cli, Command, ProfileArgs};
use crate::front::source::{Reached, SourceFile};
use crate::lint::findings::{AccessFinding, Status};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// One source line of one profiled function: ncu's counts over the whole launch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    pub source: String,
    pub wavefronts: f64,
    pub ideal: f64,
}

/// One function's section of the source page.
#[derive(Debug, Default, PartialEq)]
pub struct Section {
    /// As ncu names it: `pad(float *)`, `void k<32>(float *)`.
    pub function: String,
    pub lines: BTreeMap<usize, Measured>,
}

/// Parses the source page CSV: sections start at `"Function Name"` rows; the header row is
/// the one whose second column is `Source`; rows with a line number are source lines (SASS
/// rows, with none, are skipped). Rows of other files (inlined headers) are left out when the
/// export names its `"File Path"`.
pub fn parse_source_csv(text: &str, file_name: &str) -> Result<Vec<Section>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut sections: Vec<Section> = Vec::new();
    let mut header: Option<Vec<String>> = None;
    let mut this_file = true;
    for record in reader.records() {
        let record = record.map_err(|e| format!("not a CSV file ({e})"))?;
        let row: Vec<&str> = record.iter().collect();
        match row.as_slice() {
            ["File Path", path, ..] => {
                this_file = Path::new(path)
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy() == file_name);
                continue;
            }
            ["Function Name", name, ..] => {
                this_file = true;
                if sections.last().is_none_or(|s| s.function != *name) {
                    sections.push(Section {
                        function: name.to_string(),
                        lines: BTreeMap::new(),
                    });
                }
                continue;
            }
            [_, "Source", ..] => {
                header = Some(row.iter().map(|c| c.to_string()).collect());
                continue;
            }
            _ => {}
        }
        let (Some(header), true) = (&header, this_file) else {
            continue;
        };
        let Ok(line) = row.first().map_or("", |c| c.trim()).parse::<usize>() else {
            continue;
        };
        let column = |name: &str| -> f64 {
            header
                .iter()
                .position(|h| h == name)
                .and_then(|k| row.get(k))
                .and_then(|v| v.replace(',', "").trim().parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        if sections.is_empty() {
            sections.push(Section::default());
        }
        let section = sections.last_mut().expect("one section");
        let entry = section.lines.entry(line).or_default();
        entry.source = row.get(1).map_or(String::new(), |s| s.trim().to_string());
        entry.wavefronts = column("L1 Wavefronts Shared");
        entry.ideal = column("L1 Wavefronts Shared Ideal");
    }
    if header.is_none() {
        return Err(
            "no source-page table in it (export with `ncu --page source --csv --print-source cuda`)"
                .to_string(),
        );
    }
    Ok(sections)
}

/// The kernel's name in ncu's function name: `void ns::k<32>(float *)` -> `k`.
fn kernel_name(function: &str) -> &str {
    // The argument list is the last top-level `(...)`: `(anonymous namespace)::k(float *)`.
    let before_args = function
        .strip_suffix(')')
        .and_then(|f| {
            let mut depth = 0i32;
            f.char_indices().rev().find_map(|(k, c)| match c {
                ')' => {
                    depth += 1;
                    None
                }
                '(' if depth == 0 => Some(&f[..k]),
                '(' => {
                    depth -= 1;
                    None
                }
                _ => None,
            })
        })
        .unwrap_or(function);
    let before_template = before_args.split('<').next().unwrap_or(before_args);
    let last_word = before_template
        .split_whitespace()
        .last()
        .unwrap_or(before_template);
    last_word.rsplit("::").next().unwrap_or(last_word)
}

/// What banklint says about one line of one kernel.
#[derive(Default)]
struct Predicted<'r> {
    wavefronts: u64,
    ideal: u64,
    unknown: Option<String>,
    /// No block shape known: totals are one warp's.
    one_warp: bool,
    findings: Vec<&'r AccessFinding>,
}

pub fn run(args: &ProfileArgs) -> i32 {
    let fail = |message: String| {
        eprintln!("error: {message}");
        2
    };
    let text = match std::fs::read_to_string(&args.ncu_csv) {
        Ok(t) => t,
        Err(e) => return fail(format!("{}: {e}", args.ncu_csv.display())),
    };
    let file_name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sections = match parse_source_csv(&text, &file_name) {
        Ok(s) => s,
        Err(e) => return fail(format!("{}: {e}", args.ncu_csv.display())),
    };
    let options = match check_options(args) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let file = match SourceFile::load(&args.file, Reached::Named) {
        Ok(f) => f,
        Err(e) => return fail(format!("{}: {}", e.path.display(), e.message)),
    };
    let report = crate::check::check_source(file, &options);
    // Written at the end in one piece: a closed pipe (`| head`) ends the output, not the run.
    let mut out = String::new();
    let mut differ = 0;
    let mut compared = 0;
    for section in &sections {
        let kernel = kernel_name(&section.function);
        let mut predicted: BTreeMap<usize, Predicted<'_>> = BTreeMap::new();
        for f in report.findings.iter().filter(|f| f.function == kernel) {
            let line = report.file.line_col(f.span.start).0;
            let p = predicted.entry(line).or_default();
            p.findings.push(f);
            match (&f.status, &f.totals) {
                (Status::Unknown(why), _) => p.unknown = Some(why.clone()),
                (Status::Analyzed, Some(t)) => {
                    p.wavefronts += t.wavefronts;
                    p.ideal += t.ideal;
                    p.one_warp |= f.shape.dims.is_none();
                }
                (Status::Analyzed, None) => {}
            }
        }
        let _ = writeln!(
            out,
            "{}: `{}`, measured over {} block{} and shown per block",
            args.file.display(),
            section.function,
            args.blocks,
            if args.blocks == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            out,
            "{:>6}  {:>18}  {:>18}  verdict",
            "line", "banklint wf (ideal)", "measured wf (ideal)"
        );
        let lines: std::collections::BTreeSet<usize> = predicted
            .keys()
            .copied()
            .chain(
                section
                    .lines
                    .iter()
                    .filter(|(_, m)| m.wavefronts > 0.0)
                    .map(|(l, _)| *l),
            )
            .collect();
        for line in lines {
            let m = section.lines.get(&line).cloned().unwrap_or_default();
            let per_block = |v: f64| v / args.blocks as f64;
            let measured = format!(
                "{} ({})",
                number(per_block(m.wavefronts)),
                number(per_block(m.ideal))
            );
            let (ours, verdict, explain) = match predicted.get(&line) {
                None => (
                    "-".to_string(),
                    "not seen by banklint (no shared-memory access written on this line)"
                        .to_string(),
                    false,
                ),
                Some(p) if p.unknown.is_some() => (
                    "unknown".to_string(),
                    format!(
                        "banklint could not analyze it: {}",
                        p.unknown.as_deref().unwrap_or("")
                    ),
                    false,
                ),
                Some(p) => {
                    let agree = per_block(m.wavefronts) == p.wavefronts as f64
                        && per_block(m.ideal) == p.ideal as f64;
                    let verdict = if p.one_warp {
                        "banklint's totals are one warp's (no block shape: give `--block-dim`)"
                            .to_string()
                    } else if agree {
                        "agree".to_string()
                    } else if m.wavefronts == 0.0 {
                        "differ: no shared-memory traffic measured on this line (the compiler removed the access or moved it to another line; see the SASS)".to_string()
                    } else {
                        "differ".to_string()
                    };
                    (format!("{} ({})", p.wavefronts, p.ideal), verdict, !agree)
                }
            };
            compared += 1;
            if verdict != "agree" {
                differ += 1;
            }
            let _ = writeln!(out, "{line:>6}  {ours:>18}  {measured:>18}  {verdict}");
            let written = report
                .file
                .text
                .lines()
                .nth(line.saturating_sub(1))
                .map_or(m.source.as_str(), str::trim);
            if !written.is_empty() {
                let _ = writeln!(
                    out,
                    "        {}",
                    written.chars().take(100).collect::<String>()
                );
            }
            if explain && let Some(p) = predicted.get(&line) {
                for f in &p.findings {
                    if let Some(w) = &f.worst {
                        let note = crate::lint::diagnostics::bank_note(options.target, w);
                        let _ = writeln!(
                            out,
                            "        banklint, worst instruction ({}): {note}",
                            w.label
                        );
                    }
                }
            }
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "{compared} line{} compared, {} agree, {differ} differ or could not be compared",
        if compared == 1 { "" } else { "s" },
        compared - differ
    );
    let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
    i32::from(differ > 0)
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// `check`'s options for the file, from the same flags and configuration.
fn check_options(args: &ProfileArgs) -> Result<crate::check::CheckOptions, String> {
    let mut argv: Vec<std::ffi::OsString> = vec!["banklint".into(), "check".into()];
    if let Some(a) = &args.arch {
        argv.extend(["--arch".into(), a.into()]);
    }
    if let Some(b) = &args.block_dim {
        argv.extend(["--block-dim".into(), b.into()]);
    }
    for d in &args.define {
        argv.extend(["-D".into(), d.into()]);
    }
    for i in &args.include {
        argv.extend(["-I".into(), i.as_os_str().to_owned()]);
    }
    argv.push(args.file.as_os_str().to_owned());
    let check = match <Cli as clap::Parser>::try_parse_from(argv)
        .map_err(|e| e.to_string())?
        .command
    {
        Command::Check(c) => c,
        _ => unreachable!("parsed as `check`"),
    };
    let resolved = crate::app::settings::resolve(&check)?;
    crate::app::settings::options_from_resolved(&resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_source_page_of_one_file() {
        let csv = "\"File Path\",\"/x/k.cu\"\n\"Function Name\",\"void k<32>(float *)\"\n\
                   \"Line No\",\"Source\",\"Address\",\"Source\",\"L1 Wavefronts Shared\",\"L1 Wavefronts Shared Ideal\"\n\
                   \"7\",\"s[t] = 1;\",\"-\",\"-\",\"64\",\"2\"\n\
                   \"\",\"\",\"0x1\",\"STS [R1], R2\",\"64\",\"2\"\n\
                   \"File Path\",\"/usr/include/h.h\"\n\
                   \"9\",\"other\",\"-\",\"-\",\"5\",\"5\"\n";
        let sections = parse_source_csv(csv, "k.cu").unwrap();
        assert_eq!(sections.len(), 1);
        assert_eq!(kernel_name(&sections[0].function), "k");
        let lines: Vec<(usize, f64, f64)> = sections[0]
            .lines
            .iter()
            .map(|(l, m)| (*l, m.wavefronts, m.ideal))
            .collect();
        assert_eq!(lines, [(7, 64.0, 2.0)]);
        assert!(parse_source_csv("a,b\n1,2\n", "k.cu").is_err());
    }

    #[test]
    fn kernel_names_as_ncu_writes_them() {
        assert_eq!(kernel_name("pad(float *)"), "pad");
        assert_eq!(kernel_name("void ns::k<32, float>(float *, int)"), "k");
        assert_eq!(kernel_name("(anonymous namespace)::k(float *)"), "k");
        assert_eq!(kernel_name("k(void (*)(int))"), "k");
    }
}
