//! `banklint archs`: the bank rules and shared-memory limits of every architecture as one
//! table (human, Markdown for `docs/ARCHS.md`, or JSON).

use crate::bank::arch::{Arch, BankMode, Family, KNOWN_ARCHS, Target};
use crate::bank::capacity::{self, CacheConfig, KB};
use clap::ValueEnum;
use serde_json::{Value, json};
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ArchsFormat {
    Human,
    Json,
    /// The Markdown table of docs/ARCHS.md.
    Markdown,
}

/// One row of the `archs` table: what the bank engine and the capacity tables say about a
/// group of consecutive compute capabilities that agree on everything shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchRow {
    pub archs: Vec<Arch>,
    pub family: Family,
    pub banks: u32,
    /// Bytes a bank delivers per clock (8 on 3.x).
    pub bank_width: u32,
    /// Lanes served together for <=4, 8 and 16-byte accesses, as printed.
    pub split: [&'static str; 3],
    pub broadcast: &'static str,
    pub merge: bool,
    pub static_per_block: u32,
    pub opt_in_per_block: u32,
    pub per_sm: u32,
    pub per_sm_prefer_l1: u32,
    pub per_sm_prefer_equal: u32,
    pub reserved_per_block: u32,
    pub max_blocks_per_sm: u32,
    pub rules_assumed: bool,
}

fn row_for(arch: Arch) -> ArchRow {
    let family = arch.family();
    let target = Target::new(arch, BankMode::FourByte);
    let (split, broadcast, bank_width) = match family {
        Family::Tesla => (["16", "16x2", "16x4"], "1 word", 4),
        Family::Fermi => (["32", "16", "8*"], "multi", 4),
        Family::Kepler => (["32", "32", "32"], "multi", 8),
        Family::Maxwell => (["32", "16", "8"], "multi", 4),
    };
    ArchRow {
        archs: vec![arch],
        family,
        banks: target.banks(),
        bank_width,
        split,
        broadcast,
        merge: family == Family::Maxwell,
        static_per_block: capacity::max_static_per_block(arch),
        opt_in_per_block: capacity::max_dynamic_opt_in_per_block(arch),
        per_sm: capacity::per_sm_capacity(arch, CacheConfig::PreferShared),
        per_sm_prefer_l1: capacity::per_sm_capacity(arch, CacheConfig::PreferL1),
        per_sm_prefer_equal: capacity::per_sm_capacity(arch, CacheConfig::PreferEqual),
        reserved_per_block: capacity::reserved_per_block(arch),
        max_blocks_per_sm: capacity::max_resident_blocks_per_sm(arch),
        rules_assumed: arch.rules_are_assumed(),
    }
}

/// The rows of `banklint archs`: consecutive known archs that agree on every column merge.
pub fn arch_rows() -> Vec<ArchRow> {
    let mut rows: Vec<ArchRow> = Vec::new();
    for &(major, minor) in KNOWN_ARCHS {
        let row = row_for(Arch { major, minor });
        match rows.last_mut() {
            Some(last)
                if ArchRow {
                    archs: row.archs.clone(),
                    ..last.clone()
                } == row =>
            {
                last.archs.push(row.archs[0]);
            }
            _ => rows.push(row),
        }
    }
    rows
}

impl ArchRow {
    /// `1.0-1.3`, `5.3, 6.0`, `9.0`.
    pub fn label(&self) -> String {
        let cc = |a: &Arch| format!("{}.{}", a.major, a.minor);
        match self.archs.as_slice() {
            [one] => cc(one),
            [a, b] => format!("{}, {}", cc(a), cc(b)),
            [first, .., last] => format!("{}-{}", cc(first), cc(last)),
            [] => String::new(),
        }
    }

    fn per_sm_text(&self) -> String {
        let star = if self.per_sm_prefer_l1 != self.per_sm {
            "*"
        } else {
            ""
        };
        format!("{}{star}", kb(self.per_sm))
    }

    fn opt_in_text(&self) -> String {
        let plus = if self.reserved_per_block > 0 { "+" } else { "" };
        format!("{}{plus}", kb(self.opt_in_per_block))
    }
}

fn kb(bytes: u32) -> String {
    if bytes.is_multiple_of(KB) {
        format!("{} KB", bytes / KB)
    } else {
        format!("{bytes} B")
    }
}

const ARCHS_LEGEND: &[&str] = &[
    "<=4B, 8B, 16B: lanes served together (a warp of 32 splits into 32/N phases);",
    "  16x2, 16x4: half-warps, each wide access split into 2 or 4 32-bit requests;",
    "  8*: quarter-warps that cost one pass more than the busiest bank (2.x guide).",
    "banks: 3.x banks deliver 8 bytes per clock, in 4- or 8-byte addressing mode.",
    "bcast: lanes reading one word never conflict (\"multi\": any number of such",
    "  words per request; \"1 word\": one broadcast word per step on 1.x).",
    "merge: 8- and 16-byte LOADS where lanes n and n^1 (or n and n^2) read the",
    "  same address get phases twice as long (measured on sm_90).",
    "static: most static __shared__ per block. opt-in: most per block after",
    "  cudaFuncAttributeMaxDynamicSharedMemorySize; + = 1 KB more per block is",
    "  reserved for the system (8.x and later).",
    "per SM: shared memory of one SM (largest carveout on 7.x and later);",
    "  * = default/PreferShared split: PreferL1 gives 16 KB (2.x, 3.x) or 80 KB",
    "  (3.7), PreferEqual 32 KB (3.x) or 96 KB (3.7).",
    "blocks: most resident blocks per SM.",
    "10.x, 11.x and 12.x use the 5.x-9.x bank rules until measured otherwise.",
    "Sources: docs/ARCHS.md.",
];

/// The human table, at most 80 columns wide.
pub fn render_archs_human() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<12}{:<7}{:<5}{:<6}{:<6}{:<7}{:<6}{:>6} {:>7} {:>7} {:>6}",
        "CC",
        "banks",
        "<=4B",
        "8B",
        "16B",
        "bcast",
        "merge",
        "static",
        "opt-in",
        "per SM",
        "blocks"
    );
    for r in arch_rows() {
        let _ = writeln!(
            out,
            "{:<12}{:<7}{:<5}{:<6}{:<6}{:<7}{:<6}{:>6} {:>7} {:>7} {:>6}",
            r.label(),
            format!("{}x{}B", r.banks, r.bank_width),
            r.split[0],
            r.split[1],
            r.split[2],
            r.broadcast,
            if r.merge { "loads" } else { "-" },
            kb(r.static_per_block),
            r.opt_in_text(),
            r.per_sm_text(),
            r.max_blocks_per_sm
        );
    }
    out.push('\n');
    for line in ARCHS_LEGEND {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The Markdown table embedded in docs/ARCHS.md.
pub fn render_archs_markdown() -> String {
    let mut out = String::new();
    out.push_str(
        "| CC | banks x width | <=4 B | 8 B | 16 B | broadcast | merge | static/block | \
         opt-in/block | per SM | blocks/SM |\n",
    );
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for r in arch_rows() {
        let _ = writeln!(
            out,
            "| {} | {} x {} B | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.label(),
            r.banks,
            r.bank_width,
            r.split[0],
            r.split[1],
            r.split[2].replace('*', "\\*"),
            r.broadcast,
            if r.merge { "loads" } else { "-" },
            kb(r.static_per_block),
            r.opt_in_text(),
            r.per_sm_text().replace('*', "\\*"),
            r.max_blocks_per_sm
        );
    }
    out
}

/// The JSON form of the `archs` table.
pub fn archs_json() -> Value {
    let rows: Vec<Value> = arch_rows()
        .iter()
        .map(|r| {
            let lanes = |s: &str| -> Value {
                let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
                json!(digits.parse::<u32>().unwrap_or(32))
            };
            json!({
                "compute_capability": r.label(),
                "archs": r.archs.iter().map(|a| a.name()).collect::<Vec<_>>(),
                "family": match r.family {
                    Family::Tesla => "1.x",
                    Family::Fermi => "2.x",
                    Family::Kepler => "3.x",
                    Family::Maxwell => "5.x+",
                },
                "banks": r.banks,
                "bank_width_bytes": r.bank_width,
                "lanes_per_phase": {"4": lanes(r.split[0]), "8": lanes(r.split[1]), "16": lanes(r.split[2])},
                "split": {"4": r.split[0], "8": r.split[1], "16": r.split[2]},
                "broadcast": r.broadcast,
                "wide_load_merge": r.merge,
                "static_per_block": r.static_per_block,
                "opt_in_per_block": r.opt_in_per_block,
                "reserved_per_block": r.reserved_per_block,
                "per_sm": r.per_sm,
                "per_sm_prefer_l1": r.per_sm_prefer_l1,
                "per_sm_prefer_equal": r.per_sm_prefer_equal,
                "max_blocks_per_sm": r.max_blocks_per_sm,
                "rules_assumed": r.rules_assumed,
            })
        })
        .collect();
    json!({
        "archs": rows,
        "note": "10.x, 11.x and 12.x use the 5.x-9.x bank rules until measured otherwise",
    })
}

/// Runs `banklint archs`.
pub fn run_archs(format: ArchsFormat) -> i32 {
    match format {
        ArchsFormat::Human => print!("{}", render_archs_human()),
        ArchsFormat::Markdown => print!("{}", render_archs_markdown()),
        ArchsFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&archs_json()).unwrap_or_default()
        ),
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archs_table_fits_80_columns() {
        for line in render_archs_human().lines() {
            assert!(line.len() <= 80, "{line}");
        }
    }
}
