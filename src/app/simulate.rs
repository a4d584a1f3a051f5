//! `banklint simulate`: the bank engine as a calculator. Takes one warp instruction (32 byte
//! offsets, or a base and stride) and shows which lanes land in which bank, the words that
//! collide, and the wavefronts. `banklint archs` is in [`crate::app::archs`].

use crate::app::simulate_ops;
use crate::bank::arch::{Arch, BankMode, Family, Target};
use crate::bank::engine::{self, BankLoad, LaneOffsets, Op, Phase, Verdict, WARP_SIZE, WarpAccess};
use crate::bank::ops;
use clap::{Args, ValueEnum};

pub use crate::app::archs::{ArchsFormat, run_archs};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// Largest byte offset accepted; far beyond any shared memory, small enough for exact math.
const MAX_OFFSET: i128 = u32::MAX as i128;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SimulateFormat {
    Human,
    Json,
}

const SIMULATE_HELP: &str = "\
Examples:
  banklint simulate --stride 4                  float s[tid]: 1 wavefront
  banklint simulate --stride 128                float t[32][32] column: 32-way
  banklint simulate --bytes 8 --stride 16       double s[2*tid]: 4 wavefronts
  banklint simulate --bytes 16 --stride 0       float4 broadcast load: 2
  banklint simulate --arch sm_35 --bank-mode 8 --bytes 8 --stride 8
  banklint simulate --offsets 0,4,8,-,-,...     (32 entries, - = inactive)
  banklint simulate --op atomic --stride 0      atomicAdd on one word: 32
  banklint simulate --op ldmatrix.x4 --stride 128   rows of one bank: 32
  banklint simulate --op cp.async.ca --bytes 16 --stride 16

--op is one of: load, store, atomic[.rmw|.count|.cas|.cas-loop],
ldmatrix.x1|x2|x4[.trans], stmatrix.x1|x2|x4[.trans], cp.async.ca, cp.async.cg.
Lanes an operation does not read (ldmatrix.x1: 8-31) are ignored.

--format json prints {arch, bank_mode, bytes, op, active_lanes, lanes_read,
wavefronts, ideal_wavefronts, conflict_ways, merged, load_wavefronts,
instructions, phases: [{lanes: [first, last], part, wavefronts, ideal, banks:
[{bank, lanes, words, ways}]}]}. words are 4-byte word indices (byte offset /
4); ways counts what the bank serves one after another; load_wavefronts is the
part of wavefronts spent by a CAS loop's loads.
Exit status: 0, or 2 for bad input.";

#[derive(Args, Debug, Clone)]
#[command(after_long_help = SIMULATE_HELP)]
pub struct SimulateArgs {
    /// Target GPU in nvcc spelling: sm_10 ... sm_120, compute_XX.
    #[arg(long, allow_hyphen_values = true, default_value = "sm_90")]
    pub arch: String,
    /// Kepler (sm_3x) bank mode in bytes: 4 or 8.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value = "4",
        value_name = "4|8"
    )]
    pub bank_mode: String,
    /// Bytes each lane accesses: 1, 2, 4, 8 or 16 (default 4; ldmatrix, stmatrix and
    /// cp.async.cg: 16).
    #[arg(long, allow_hyphen_values = true, value_name = "1|2|4|8|16")]
    pub bytes: Option<String>,
    /// load, store, atomic[.rmw|.count|.cas|.cas-loop], ldmatrix.x1|x2|x4[.trans],
    /// stmatrix.x1|x2|x4[.trans], cp.async.ca or cp.async.cg.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value = "load",
        value_name = "OP"
    )]
    pub op: String,
    /// 32 comma-separated byte offsets, one per lane; `-` for an inactive lane.
    #[arg(long, allow_hyphen_values = true, value_name = "O0,O1,...,O31")]
    pub offsets: Option<String>,
    /// Shorthand: lane i at BASE + i * STRIDE bytes.
    #[arg(long, allow_hyphen_values = true, value_name = "BYTES")]
    pub stride: Option<String>,
    /// First lane's byte offset with --stride (default 0).
    #[arg(long, allow_hyphen_values = true, value_name = "BYTES")]
    pub base: Option<String>,
    /// With --stride, how many lanes (from lane 0) are active (default 32).
    #[arg(long, allow_hyphen_values = true, value_name = "N")]
    pub active: Option<String>,
    #[arg(long, value_enum, default_value_t = SimulateFormat::Human)]
    pub format: SimulateFormat,
}

/// A parsed, validated `simulate` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Simulation {
    pub target: Target,
    pub access: WarpAccess,
}

/// Runs `banklint simulate`; returns the exit status (0, or 2 for bad input).
pub fn run(args: &SimulateArgs) -> i32 {
    let sim = match parse(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let verdict = engine::wavefronts(sim.target, &sim.access);
    match args.format {
        SimulateFormat::Human => print!("{}", render_human(&sim, &verdict)),
        SimulateFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&to_json(&sim, &verdict)).unwrap_or_default()
        ),
    }
    0
}

/// Checks the arguments and builds the warp access; errors are one line, without `error:`.
pub fn parse(args: &SimulateArgs) -> Result<Simulation, String> {
    let arch = Arch::parse(&args.arch)?;
    let bank_mode = args
        .bank_mode
        .trim()
        .parse::<u32>()
        .ok()
        .and_then(BankMode::from_bytes)
        .ok_or_else(|| format!("invalid --bank-mode `{}` (expected 4 or 8)", args.bank_mode))?;
    let op = simulate_ops::parse_op(&args.op)?;
    let width = match &args.bytes {
        None => simulate_ops::default_width(op),
        Some(text) => match text.trim().parse::<u32>() {
            Ok(w @ (1 | 2 | 4 | 8 | 16)) => w,
            _ => {
                return Err(format!(
                    "invalid --bytes `{text}` (the access width per lane must be 1, 2, 4, 8 or 16)"
                ));
            }
        },
    };
    simulate_ops::check_width(op, width, args.bytes.as_deref().unwrap_or(""))?;
    simulate_ops::check_arch(op, arch)?;
    let read = ops::lanes_read(op);
    let offsets = match (&args.offsets, &args.stride) {
        (Some(_), Some(_)) => {
            return Err("give either --offsets or --stride, not both".to_string());
        }
        (None, None) => {
            return Err(
                "no lanes given: use --offsets with 32 comma-separated byte offsets, or --stride"
                    .to_string(),
            );
        }
        (Some(list), None) => {
            if args.base.is_some() || args.active.is_some() {
                return Err("--base and --active go with --stride, not --offsets".to_string());
            }
            parse_offsets(list, width, read)?
        }
        (None, Some(stride)) => strided_offsets(
            stride,
            args.base.as_deref(),
            args.active.as_deref(),
            width,
            read,
        )?,
    };
    if read < WARP_SIZE
        && let Some(lane) = (0..read).find(|&l| offsets[l].is_none())
    {
        return Err(format!(
            "{} reads a row address from each of lanes 0-{}; lane {lane} has none",
            op.spelling(),
            read - 1
        ));
    }
    if offsets.iter().all(Option::is_none) {
        return Err("every lane is inactive; give at least one byte offset".to_string());
    }
    Ok(Simulation {
        target: Target::new(arch, bank_mode),
        access: WarpAccess { width, op, offsets },
    })
}

/// Parses a decimal or `0x` hexadecimal integer, with an optional sign.
fn parse_int(text: &str) -> Option<i128> {
    let t = text.trim();
    let (negative, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let value = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        i128::from_str_radix(hex, 16).ok()?
    } else {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<i128>().ok()?
    };
    Some(if negative { -value } else { value })
}

fn check_offset(flag: &str, lane: usize, offset: i128, width: u32) -> Result<u64, String> {
    if offset < 0 {
        return Err(format!(
            "{flag}: lane {lane} is at byte offset {offset}; offsets must not be negative"
        ));
    }
    if offset > MAX_OFFSET {
        return Err(format!(
            "{flag}: lane {lane} is at byte offset {offset}, beyond the largest accepted ({MAX_OFFSET})"
        ));
    }
    if offset % i128::from(width) != 0 {
        return Err(format!(
            "{flag}: lane {lane} is at byte offset {offset}, which is not aligned to the \
             {width}-byte access width (use a multiple of {width})"
        ));
    }
    Ok(offset as u64)
}

/// Parses `--offsets`; lanes from `read` on are not read by the operation: anything goes there.
fn parse_offsets(list: &str, width: u32, read: usize) -> Result<LaneOffsets, String> {
    let items: Vec<&str> = list.split(',').map(str::trim).collect();
    if items.len() != WARP_SIZE {
        return Err(format!(
            "--offsets needs exactly 32 comma-separated byte offsets (one per lane, `-` for an \
             inactive lane), got {}",
            items.len()
        ));
    }
    let mut offsets = [None; WARP_SIZE];
    for (lane, item) in items.iter().enumerate().take(read) {
        if *item == "-" {
            continue;
        }
        let value = parse_int(item).ok_or_else(|| {
            format!(
                "--offsets: lane {lane} has `{item}`, which is not a number (use `-` for an \
                 inactive lane)"
            )
        })?;
        offsets[lane] = Some(check_offset("--offsets", lane, value, width)?);
    }
    Ok(offsets)
}

fn strided_offsets(
    stride: &str,
    base: Option<&str>,
    active: Option<&str>,
    width: u32,
    read: usize,
) -> Result<LaneOffsets, String> {
    let stride_value = parse_int(stride)
        .ok_or_else(|| format!("invalid --stride `{stride}` (expected a number of bytes)"))?;
    let base_value = match base {
        Some(b) => parse_int(b)
            .ok_or_else(|| format!("invalid --base `{b}` (expected a number of bytes)"))?,
        None => 0,
    };
    let active_lanes = match active {
        Some(n) => match parse_int(n) {
            Some(v) if (1..=32).contains(&v) => v as usize,
            _ => {
                return Err(format!(
                    "invalid --active `{n}` (expected a lane count from 1 to 32)"
                ));
            }
        },
        None => WARP_SIZE,
    };
    let mut offsets = [None; WARP_SIZE];
    for (lane, slot) in offsets.iter_mut().enumerate().take(active_lanes.min(read)) {
        let offset = (lane as i128)
            .checked_mul(stride_value)
            .and_then(|o| o.checked_add(base_value))
            .unwrap_or(i128::MAX);
        *slot = Some(check_offset("--stride", lane, offset, width)?);
    }
    Ok(offsets)
}

/// One bank of one phase, with the 4-byte words its lanes touch there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankRow {
    pub bank: u32,
    pub lanes: Vec<usize>,
    /// Distinct 4-byte word indices (byte offset / 4) touched in this bank, sorted.
    pub words: Vec<u64>,
    /// Distinct storage units the bank must serve one after another: the words, except on
    /// 3.x, where one unit is an 8-byte row (8-byte mode) or words w and w+32 of one
    /// 256-byte segment (4-byte mode).
    pub ways: u32,
}

/// The 4-byte words one lane touches in a request, with their banks (the same mapping as
/// the engine's).
fn lane_words(target: Target, width: u32, offset: u64, part: u32) -> Vec<(u32, u64)> {
    let width = u64::from(width);
    match (target.family(), target.bank_mode) {
        (Family::Tesla, _) => {
            let word = if width > 4 {
                offset / 4 + u64::from(part)
            } else {
                offset / 4
            };
            vec![((word % 16) as u32, word)]
        }
        (Family::Kepler, BankMode::EightByte) => (offset / 4..=(offset + width - 1) / 4)
            .map(|w| (((w / 2) % 32) as u32, w))
            .collect(),
        _ => (offset / 4..=(offset + width - 1) / 4)
            .map(|w| ((w % 32) as u32, w))
            .collect(),
    }
}

/// The per-bank picture of one phase, banks in order.
pub fn bank_rows(sim: &Simulation, phase: &Phase) -> Vec<BankRow> {
    let loads: Vec<BankLoad> = engine::bank_map(sim.target, &sim.access, phase);
    loads
        .into_iter()
        .map(|load| {
            let mut words: Vec<u64> = Vec::new();
            for &lane in &load.lanes {
                if let Some(offset) = sim.access.offsets[lane] {
                    for (bank, word) in lane_words(sim.target, sim.access.width, offset, phase.part)
                    {
                        if bank == load.bank {
                            words.push(word);
                        }
                    }
                }
            }
            words.sort_unstable();
            words.dedup();
            BankRow {
                bank: load.bank,
                lanes: load.lanes,
                words,
                ways: load.units.len() as u32,
            }
        })
        .collect()
}

/// Whether lanes n and n^mask use one address wherever both are active.
fn pairs_share(offsets: &LaneOffsets, mask: usize) -> bool {
    (0..WARP_SIZE).all(|n| match (offsets[n], offsets[n ^ mask]) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    })
}

/// One sentence on the wide-load merge rule for this access.
pub fn merge_note(sim: &Simulation, verdict: &Verdict) -> String {
    let access = &sim.access;
    if !access.op.is_plain() {
        return format!("does not apply to {} (see below)", access.op.spelling());
    }
    if sim.target.family() != Family::Maxwell {
        return format!(
            "does not apply on {} (measured on 5.x and later only)",
            sim.target.arch
        );
    }
    if access.width < 8 {
        return "does not apply (only 8- and 16-byte loads merge)".to_string();
    }
    if access.op == Op::Store {
        return "does not apply (stores never merge)".to_string();
    }
    let (base, doubled) = if access.width == 8 { (16, 32) } else { (8, 16) };
    if verdict.merged {
        let pair = if pairs_share(&access.offsets, 1) {
            "n and n^1"
        } else {
            "n and n^2"
        };
        format!("applied (lanes {pair} share addresses): {doubled}-lane phases, not {base}")
    } else {
        "not applied (lanes n, n^1 and n, n^2 do not all share addresses)".to_string()
    }
}

fn ways_of(p: &Phase) -> u32 {
    p.wavefronts.div_ceil(p.ideal.max(1))
}

/// The JSON form (described in `banklint simulate --help`).
pub fn to_json(sim: &Simulation, verdict: &Verdict) -> Value {
    let phases: Vec<Value> = verdict
        .phases
        .iter()
        .map(|p| {
            let banks: Vec<Value> = bank_rows(sim, p)
                .into_iter()
                .map(
                    |r| json!({"bank": r.bank, "lanes": r.lanes, "words": r.words, "ways": r.ways}),
                )
                .collect();
            json!({
                "lanes": [p.lanes.start, p.lanes.end - 1],
                "part": p.part,
                "wavefronts": p.wavefronts,
                "ideal": p.ideal,
                "banks": banks,
            })
        })
        .collect();
    json!({
        "arch": sim.target.arch.name(),
        "bank_mode": match sim.target.bank_mode { BankMode::FourByte => 4, BankMode::EightByte => 8 },
        "bytes": sim.access.width,
        "op": sim.access.op.spelling(),
        "active_lanes": sim.access.offsets.iter().filter(|o| o.is_some()).count(),
        "lanes_read": ops::lanes_read(sim.access.op),
        "wavefronts": verdict.wavefronts,
        "ideal_wavefronts": verdict.ideal,
        "conflict_ways": verdict.conflict_ways,
        "merged": verdict.merged,
        "load_wavefronts": verdict.load_wavefronts,
        "instructions": verdict.instructions,
        "phases": phases,
    })
}

/// Formats sorted numbers compactly (`0-3, 8, 12-15`; `0, 32, ..., 992` for a long
/// progression), cut to `max` characters with a count of what was left out.
pub fn compact_list<T: Copy + Into<u64>>(values: &[T], max: usize) -> String {
    let v: Vec<u64> = values.iter().map(|&x| x.into()).collect();
    if v.is_empty() {
        return String::new();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        if j >= i + 2 {
            parts.push(format!("{}-{}", v[i], v[j]));
        } else {
            parts.extend(v[i..=j].iter().map(u64::to_string));
        }
        i = j + 1;
    }
    let joined = parts.join(", ");
    if joined.len() <= max {
        return joined;
    }
    if v.len() > 3 {
        let step = v[1] - v[0];
        if v.windows(2).all(|w| w[1] - w[0] == step) {
            let text = format!("{}, {}, ..., {}", v[0], v[1], v[v.len() - 1]);
            if text.len() <= max {
                return text;
            }
        }
    }
    let mut out = String::new();
    for (k, part) in parts.iter().enumerate() {
        let rest = parts.len() - k;
        let tail = format!(", +{rest} more");
        let candidate = if out.is_empty() {
            part.clone()
        } else {
            format!("{out}, {part}")
        };
        if candidate.len() + tail.len() > max && k + 1 < parts.len() {
            return format!("{out}{tail}");
        }
        out = candidate;
    }
    out
}

const LANES_WIDTH: usize = 24;
const WORDS_WIDTH: usize = 37;

/// The human-readable picture: lane-to-bank grid, one table per phase, totals.
pub fn render_human(sim: &Simulation, verdict: &Verdict) -> String {
    let mut out = String::new();
    let access = &sim.access;
    let active: Vec<usize> = (0..WARP_SIZE)
        .filter(|&l| access.offsets[l].is_some())
        .collect();
    let read = ops::lanes_read(access.op);
    let _ = writeln!(
        out,
        "{}: {}-byte {}, {} of {} lanes active",
        sim.target.describe(),
        access.width,
        access.op.spelling(),
        active.len(),
        read
    );
    if read < WARP_SIZE {
        let _ = writeln!(
            out,
            "lanes {}-31 are not read by {} (shown as -)",
            read,
            access.op.spelling()
        );
    }
    if sim.target.arch.rules_are_assumed() {
        let _ = writeln!(
            out,
            "note: {} uses the 5.x-9.x bank rules, assumed until measured",
            sim.target.arch
        );
    }
    let inactive: Vec<usize> = (0..read).filter(|&l| access.offsets[l].is_none()).collect();
    if !inactive.is_empty() {
        let _ = writeln!(
            out,
            "inactive lanes: {}",
            compact_list(&to_u64(&inactive), 62)
        );
    }

    let _ = writeln!(out, "\nbank of each lane's first word (- = inactive):");
    for half in [0..16, 16..32] {
        let _ = write!(out, "  lanes {:>2}-{:<2}:", half.start, half.end - 1);
        for lane in half {
            match access.offsets[lane] {
                Some(o) => {
                    let bank = lane_words(sim.target, access.width, o, 0)[0].0;
                    let _ = write!(out, " {bank:>2}");
                }
                None => out.push_str("  -"),
            }
        }
        out.push('\n');
    }

    let lanes_per_phase = verdict.phases.first().map_or(32, |p| p.lanes.len());
    let parts = verdict.phases.iter().map(|p| p.part + 1).max().unwrap_or(1);
    let possible = (read / lanes_per_phase) as u32 * parts;
    let count = verdict.phases.len();
    for (k, phase) in verdict.phases.iter().enumerate() {
        let rows = bank_rows(sim, phase);
        let worst = rows.iter().map(|r| r.ways).max().unwrap_or(1);
        let part = if sim.target.family() == Family::Tesla && access.width > 4 {
            format!(", 32-bit part {} of {}", phase.part + 1, access.width / 4)
        } else if let Some(label) =
            simulate_ops::phase_label(access.op, phase.lanes.start / lanes_per_phase)
        {
            format!(", {label}")
        } else {
            String::new()
        };
        let ways = ways_of(phase);
        let verdict_text = if ways > 1 {
            format!("{ways}-way")
        } else {
            "conflict-free".to_string()
        };
        let _ = writeln!(
            out,
            "\nphase {} of {} (lanes {}-{}{}): {} wavefront{} (ideal {}), {}",
            k + 1,
            count,
            phase.lanes.start,
            phase.lanes.end - 1,
            part,
            phase.wavefronts,
            plural(phase.wavefronts),
            phase.ideal,
            verdict_text
        );
        let _ = writeln!(
            out,
            "  {:>5}  {:>4}  {:<LANES_WIDTH$}  words",
            "bank", "ways", "lanes"
        );
        for group in group_quiet_banks(&rows) {
            let first = group[0];
            let last = group[group.len() - 1];
            let banks = if group.len() == 1 {
                first.bank.to_string()
            } else {
                format!("{}-{}", first.bank, last.bank)
            };
            let mut lanes: Vec<u64> = group.iter().flat_map(|r| to_u64(&r.lanes)).collect();
            lanes.sort_unstable();
            lanes.dedup();
            let mut words: Vec<u64> = group.iter().flat_map(|r| r.words.clone()).collect();
            words.sort_unstable();
            words.dedup();
            let mark = if worst > 1 && first.ways == worst {
                '>'
            } else {
                ' '
            };
            let _ = writeln!(
                out,
                "{mark} {banks:>5}  {:>4}  {:<LANES_WIDTH$}  {}",
                first.ways,
                compact_list(&lanes, LANES_WIDTH),
                compact_list(&words, WORDS_WIDTH)
            );
        }
    }
    if (count as u32) < possible {
        let skipped = possible - count as u32;
        let _ = writeln!(
            out,
            "\n{} phase{} with no active lane cost nothing and {} not shown.",
            skipped,
            plural(skipped),
            if skipped == 1 { "is" } else { "are" }
        );
    }

    out.push('\n');
    let _ = writeln!(
        out,
        "wavefronts:  {} (ideal {})",
        verdict.wavefronts, verdict.ideal
    );
    let conflict = if verdict.conflict_ways > 1 {
        format!(
            "{}-way (the worst phase needs {}x its ideal)",
            verdict.conflict_ways, verdict.conflict_ways
        )
    } else {
        "none".to_string()
    };
    let _ = writeln!(out, "conflict:    {conflict}");
    for line in simulate_ops::extra_totals(access.op, verdict) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "merge rule:  {}", merge_note(sim, verdict));
    for line in family_notes(sim) {
        let _ = writeln!(out, "{line}");
    }
    for line in simulate_ops::notes(access.op) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Splits a phase's banks into display rows: every bank that serves more than one word
/// gets its own row; runs of consecutive banks serving one word each share a row.
fn group_quiet_banks(rows: &[BankRow]) -> Vec<Vec<&BankRow>> {
    let mut groups: Vec<Vec<&BankRow>> = Vec::new();
    for r in rows {
        match groups.last_mut() {
            Some(g) if r.ways == 1 && g[0].ways == 1 && g[g.len() - 1].bank + 1 == r.bank => {
                g.push(r)
            }
            _ => groups.push(vec![r]),
        }
    }
    groups
}

fn family_notes(sim: &Simulation) -> Vec<&'static str> {
    let mut notes = vec!["ways: words a bank serves one after another; > marks the busiest banks."];
    if !sim.access.op.is_plain() {
        return notes;
    }
    match (sim.target.family(), sim.target.bank_mode) {
        (Family::Tesla, _) => {
            notes.push("1.x: 16 banks per half-warp; a load step serves one broadcast word plus");
            notes.push("  one word per other bank; different bytes of one word conflict.");
        }
        (Family::Fermi, _) if sim.access.width == 16 => {
            notes.push("2.x: 16-byte accesses go by quarter-warp and cost one more pass than");
            notes.push("  the busiest bank (the guide: \"the majority cause 2-way conflicts\").");
        }
        (Family::Kepler, BankMode::FourByte) => {
            notes.push("3.x 4-byte mode: words w and w+32 of one 256-byte segment share a");
            notes.push("  64-bit bank row, so they count as one way.");
        }
        (Family::Kepler, BankMode::EightByte) => {
            notes.push("3.x 8-byte mode: a bank serves 8 bytes; words 2k and 2k+1 are one way.");
        }
        _ => {}
    }
    notes
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn to_u64(v: &[usize]) -> Vec<u64> {
    v.iter().map(|&x| x as u64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_lists() {
        assert_eq!(
            compact_list(&[0u64, 1, 2, 3, 8, 12, 13], 40),
            "0-3, 8, 12, 13"
        );
        let column: Vec<u64> = (0..32).map(|i| i * 32).collect();
        assert_eq!(compact_list(&column, 38), "0, 32, ..., 992");
        let scattered: Vec<u64> = (0..32).map(|i| i * i * 7).collect();
        let text = compact_list(&scattered, 38);
        assert!(text.len() <= 38, "{text}");
        assert!(text.ends_with("more"), "{text}");
    }
}
