//! The bank rules of plain loads and stores, per architecture family (`docs/BANK_RULES.md`):
//! lanes split into phases by access width (half-warp requests on 1.x, the whole warp on
//! Kepler), the wide-load merge rule measured on 5.x+, and each phase's wavefronts from the
//! distinct words its busiest bank serves.

use crate::bank::access::{LaneOffsets, Op, Phase, Verdict, WARP_SIZE, WarpAccess, phase_ways};
use crate::bank::arch::{BankMode, Family, Target};
use std::ops::Range;

/// Wavefronts, ideal and conflict degree of one plain load or store.
pub fn verdict(target: Target, access: &WarpAccess) -> Verdict {
    let (layout, merged) = phase_layout(target, access);
    let mut phases = Vec::new();
    for part in 0..layout.parts {
        for start in (0..WARP_SIZE).step_by(layout.lanes_per_phase) {
            let lanes = start..start + layout.lanes_per_phase;
            if !access.offsets[lanes.clone()].iter().any(Option::is_some) {
                continue;
            }
            let touches = phase_touches(target, access, lanes.clone(), part);
            let (wavefronts, ideal) = phase_cost(target, access, &touches);
            phases.push(Phase {
                lanes,
                part,
                wavefronts,
                ideal,
            });
        }
    }
    Verdict {
        wavefronts: phases.iter().map(|p| p.wavefronts).sum(),
        ideal: phases.iter().map(|p| p.ideal).sum(),
        conflict_ways: phases.iter().map(phase_ways).max().unwrap_or(1),
        phases,
        merged,
        load_wavefronts: 0,
        instructions: 1,
    }
}

/// The (lane, bank, conflict unit) touches of one phase of a plain load or store.
pub fn touches(target: Target, access: &WarpAccess, phase: &Phase) -> Vec<(usize, u32, u64)> {
    phase_touches(target, access, phase.lanes.clone(), phase.part)
        .into_iter()
        .map(|t| (t.lane, t.bank, t.key))
        .collect()
}

struct Layout {
    lanes_per_phase: usize,
    parts: u32,
}

fn phase_layout(target: Target, access: &WarpAccess) -> (Layout, bool) {
    let w = access.width;
    match target.family() {
        Family::Tesla => (
            Layout {
                lanes_per_phase: 16,
                parts: if w > 4 { w / 4 } else { 1 },
            },
            false,
        ),
        Family::Kepler => (
            Layout {
                lanes_per_phase: 32,
                parts: 1,
            },
            false,
        ),
        Family::Fermi | Family::Maxwell => {
            let base = match w {
                0..=4 => 32,
                5..=8 => 16,
                _ => 8,
            };
            let merged = target.family() == Family::Maxwell
                && access.op == Op::Load
                && w >= 8
                && (pairs_share_address(&access.offsets, 1)
                    || pairs_share_address(&access.offsets, 2));
            let lanes_per_phase = if merged { base * 2 } else { base };
            (
                Layout {
                    lanes_per_phase,
                    parts: 1,
                },
                merged,
            )
        }
    }
}

/// The measured merge condition: lanes n and n^mask use one address whenever both are active.
fn pairs_share_address(offsets: &LaneOffsets, mask: usize) -> bool {
    (0..WARP_SIZE).all(|n| match (offsets[n], offsets[n ^ mask]) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    })
}

#[derive(Clone, Copy, Debug)]
struct Touch {
    lane: usize,
    bank: u32,
    /// The unit whose distinctness decides conflicts within a bank.
    key: u64,
    /// Byte address, for 1.x where distinct addresses inside one word still conflict.
    addr: u64,
}

fn phase_touches(
    target: Target,
    access: &WarpAccess,
    lanes: Range<usize>,
    part: u32,
) -> Vec<Touch> {
    let mut out = Vec::with_capacity(lanes.len() * 4);
    let width = u64::from(access.width.max(1));
    for lane in lanes {
        let Some(offset) = access.offsets[lane] else {
            continue;
        };
        match (target.family(), target.bank_mode) {
            (Family::Tesla, _) => {
                // Wide accesses are split into 32-bit requests; sub-word ones keep their byte.
                let (addr, word) = if width > 4 {
                    let word = offset / 4 + u64::from(part);
                    (word * 4, word)
                } else {
                    (offset, offset / 4)
                };
                out.push(Touch {
                    lane,
                    bank: (word % 16) as u32,
                    key: word,
                    addr,
                });
            }
            (family, mode) => {
                // Banks of 4 bytes, or 8 in Kepler's 8-byte mode; Kepler's 4-byte mode serves
                // words i and i+32 of one 64-word segment from one 64-bit bank row.
                let (unit_bytes, key): (u64, fn(u64) -> u64) = match (family, mode) {
                    (Family::Kepler, BankMode::EightByte) => (8, |unit| unit),
                    (Family::Kepler, BankMode::FourByte) => {
                        (4, |word| (word / 64) * 64 + word % 32)
                    }
                    _ => (4, |word| word),
                };
                for unit in offset / unit_bytes..=(offset + width - 1) / unit_bytes {
                    out.push(Touch {
                        lane,
                        bank: (unit % 32) as u32,
                        key: key(unit),
                        addr: unit * unit_bytes,
                    });
                }
            }
        }
    }
    out
}

/// Returns (wavefronts, ideal) for one phase.
fn phase_cost(target: Target, access: &WarpAccess, touches: &[Touch]) -> (u32, u32) {
    let mut units: Vec<(u32, u64)> = touches.iter().map(|t| (t.bank, t.key)).collect();
    units.sort_unstable();
    units.dedup();
    let ideal = ideal_passes(target, touches, units.len());
    let worst_bank = max_per_bank(&units);
    let cost = match target.family() {
        Family::Tesla => tesla_request_cost(access.op, touches),
        Family::Fermi if access.width > 8 => {
            // The 2.x guide: add 1 to the worst bank's count for 128-bit accesses.
            return (worst_bank + 1, 1);
        }
        _ => worst_bank,
    };
    (cost, ideal)
}

/// The fewest passes that could serve the distinct storage this phase touches: a pass moves
/// one unit per bank (4 bytes; 8 bytes on 3.x in either mode).
fn ideal_passes(target: Target, touches: &[Touch], distinct_units: usize) -> u32 {
    let distinct = match (target.family(), target.bank_mode) {
        (Family::Kepler, BankMode::FourByte) => {
            // Words i and i+32 share a bank row, so a pass can move 64 words.
            let mut words: Vec<u64> = touches.iter().map(|t| t.addr / 4).collect();
            words.sort_unstable();
            words.dedup();
            return (words.len() as u32).div_ceil(64).max(1);
        }
        _ => distinct_units,
    };
    (distinct as u32).div_ceil(target.banks()).max(1)
}

fn max_per_bank(sorted_units: &[(u32, u64)]) -> u32 {
    let mut best = 0;
    let mut run = 0;
    let mut current = None;
    for &(bank, _) in sorted_units {
        if current == Some(bank) {
            run += 1;
        } else {
            current = Some(bank);
            run = 1;
        }
        best = best.max(run);
    }
    best.max(1)
}

/// 1.x: each step serves every address inside one broadcast word (reads only) plus one
/// address per other bank. The hardware's choice of broadcast word is unspecified; we pick
/// the word serving the most remaining addresses, which gives the fewest steps greedily.
fn tesla_request_cost(op: Op, touches: &[Touch]) -> u32 {
    let mut remaining: Vec<(u32, u64, u64)> =
        touches.iter().map(|t| (t.bank, t.key, t.addr)).collect();
    remaining.sort_unstable();
    remaining.dedup();
    if op == Op::Store {
        let units: Vec<(u32, u64)> = remaining.iter().map(|&(b, _, a)| (b, a)).collect();
        return max_per_bank(&units);
    }
    let mut steps = 0;
    while !remaining.is_empty() {
        steps += 1;
        let broadcast = most_shared_word(&remaining);
        let broadcast_bank = remaining.iter().find(|r| r.1 == broadcast).map(|r| r.0);
        remaining.retain(|r| r.1 != broadcast);
        let mut served_banks: Vec<u32> = broadcast_bank.into_iter().collect();
        let mut next = Vec::with_capacity(remaining.len());
        for r in remaining {
            if served_banks.contains(&r.0) {
                next.push(r);
            } else {
                served_banks.push(r.0);
            }
        }
        remaining = next;
    }
    steps
}

fn most_shared_word(remaining: &[(u32, u64, u64)]) -> u64 {
    let mut best = (0usize, u64::MAX);
    for &(_, word, _) in remaining {
        let count = remaining.iter().filter(|r| r.1 == word).count();
        if count > best.0 || (count == best.0 && word < best.1) {
            best = (count, word);
        }
    }
    best.1
}
