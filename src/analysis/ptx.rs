//! Inline PTX read for its shared-memory accesses: which instruction of an `asm` template
//! touches shared memory, as what operation and width, through which operand. The analyzer
//! evaluates that operand (a `__cvta_generic_to_shared` address) lane by lane.
//!
//! Modeled: `ld.shared`/`st.shared` (scalar and `.v2`/`.v4`), `ldmatrix`/`stmatrix`
//! (`.m8n8`, `.x1/.x2/.x4`, `.trans`), `cp.async.ca/.cg` (4, 8, 16 bytes), `atom.shared`
//! (what the CUDA atomic functions compile to) and the measured `mbarrier` operations. TMA
//! tile copies (`cp.async.bulk.tensor`) are found with their shared-memory and tensor-map
//! operands: they cost no bank wavefronts but lay out the tiles other instructions read.
//! Recognized but not priced, so reported as such: `red.shared`, other bulk copies,
//! distributed shared memory (`::cluster`, barriers included), and `ldmatrix`/`stmatrix`
//! shapes other than `m8n8`.

use crate::bank::engine::Op;

/// An operand of the `asm` statement: `%2` or `%[name]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Index(usize),
    Name(String),
}

/// How many bytes a lane moves: written in the instruction, or an operand's value
/// (`cp.async ... [%0], [%1], %2;` with `"n"(16)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bytes {
    Known(u32),
    Operand(Operand),
}

/// What one instruction does to shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A plain load (`ld`) or store (`st`) of `bytes` per lane, or an `mbarrier` operation
    /// on the 8-byte barrier.
    Access {
        op: Op,
        bytes: u32,
    },
    /// `atom.shared.OP.TYPE`: the CUDA function it is the body of, and the element type.
    Atomic {
        function: &'static str,
        type_name: &'static str,
    },
    Matrix(Op),
    CpAsync {
        bypass_l1: bool,
        bytes: Bytes,
    },
    /// A TMA tile copy, into shared memory or out of it.
    TensorCopy {
        to_shared: bool,
    },
    /// Touches shared memory in a way banklint does not price: why, for the report.
    NotModeled(String),
}

/// A shared-memory instruction of a template and the operand holding its address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxAccess {
    pub kind: Kind,
    pub address: Operand,
    /// A constant added in the address (`[%4+16]`).
    pub offset: i64,
    /// The instruction's name (`ldmatrix.sync.aligned.m8n8.x4.shared.b16`).
    pub instruction: String,
    /// For a TMA copy, the operand holding the tensor map's address.
    pub map: Option<Operand>,
}

/// A shared-memory instruction whose address is not an operand (a PTX register of the
/// template's own): the instruction, for the report.
pub type Unresolved = String;

/// The template's text: its string literals (as lang-c keeps them, quotes included) joined
/// and unescaped.
/// The output operand a template that only reads the lane index writes
/// (`mov.u32 %0, %%laneid;`), if it is one.
pub fn lane_id_read(template: &str) -> Option<usize> {
    let t: String = template
        .replace("%%", "%")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let t = t.strip_suffix(';').unwrap_or(&t);
    let rest = ["mov.u32%", "mov.s32%", "mov.b32%"]
        .iter()
        .find_map(|p| t.strip_prefix(p))?;
    let (operand, register) = rest.split_once(',')?;
    (register == "%laneid")
        .then(|| operand.parse().ok())
        .flatten()
}

pub fn template_text(literals: &[String]) -> String {
    let mut out = String::new();
    for lit in literals {
        let body = lit
            .strip_prefix('"')
            .and_then(|l| l.strip_suffix('"'))
            .unwrap_or(lit);
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        }
    }
    out
}

/// The shared-memory instructions of a template, and those whose address banklint cannot
/// follow.
pub fn shared_instructions(template: &str) -> (Vec<PtxAccess>, Vec<Unresolved>) {
    let mut found = Vec::new();
    let mut unresolved = Vec::new();
    for statement in template.split([';', '\n']) {
        let statement = strip_label_and_guard(statement.trim());
        let (name, operands) = match statement.find(char::is_whitespace) {
            Some(at) => (&statement[..at], statement[at..].trim()),
            None => (statement, ""),
        };
        let Some(kind) = classify(name) else {
            continue;
        };
        let operands = split_operands(operands);
        let address_at = match &kind {
            Kind::Access { op: Op::Store, .. } | Kind::Matrix(Op::Stmatrix { .. }) => 0,
            Kind::CpAsync { .. } => 0,
            Kind::TensorCopy { to_shared } => usize::from(!to_shared),
            Kind::Atomic { .. } => 1,
            _ => operands
                .iter()
                .position(|o| o.starts_with('['))
                .unwrap_or(usize::MAX),
        };
        let kind = match kind {
            Kind::CpAsync { bypass_l1, .. } => Kind::CpAsync {
                bypass_l1,
                bytes: operands
                    .get(2)
                    .and_then(|b| bytes_of(b))
                    .unwrap_or(Bytes::Known(0)),
            },
            other => other,
        };
        // `[%1, {%2, %3}]`: the tensor map is the first operand in the brackets.
        let map = match kind {
            Kind::TensorCopy { to_shared } => operands
                .get(usize::from(to_shared))
                .and_then(|o| o.trim().strip_prefix('['))
                .and_then(|o| operand_of(o.split([',', ']']).next()?)),
            _ => None,
        };
        match operands.get(address_at).and_then(|a| address_of(a)) {
            Some((address, offset)) => found.push(PtxAccess {
                kind,
                address,
                offset,
                instruction: name.to_string(),
                map,
            }),
            None => unresolved.push(name.to_string()),
        }
    }
    (found, unresolved)
}

/// `@p ld...` and `L1: ld...` without the guard and the label.
fn strip_label_and_guard(s: &str) -> &str {
    let mut s = s;
    if let Some(colon) = s.find(':')
        && !s[..colon].contains(char::is_whitespace)
        && !s[..colon].contains('.')
        && s[colon + 1..].starts_with(char::is_whitespace)
    {
        s = s[colon + 1..].trim_start();
    }
    if s.starts_with('@') {
        s = s
            .find(char::is_whitespace)
            .map_or("", |at| s[at..].trim_start());
    }
    s
}

/// Operands at top level of brackets and braces: `{%0, %1}, [%4]` -> `{%0, %1}`, `[%4]`.
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// `%4`, `%[addr]`.
fn operand_of(s: &str) -> Option<Operand> {
    let rest = s.trim().strip_prefix('%')?;
    if let Some(name) = rest.strip_prefix('[') {
        return Some(Operand::Name(name.strip_suffix(']')?.trim().to_string()));
    }
    rest.parse().ok().map(Operand::Index)
}

/// `[%4]`, `[%4+16]`, `[%[addr] + 16]`, `[%4-8]`: the operand and the constant.
fn address_of(s: &str) -> Option<(Operand, i64)> {
    let inner = s.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    // The sign that starts the constant: after the operand, at top level of `%[...]`.
    let split = inner
        .char_indices()
        .skip(1)
        .find(|&(i, c)| (c == '+' || c == '-') && !inner[..i].ends_with('%'))
        .map(|(i, _)| i)
        .filter(|&i| !inner[..i].contains('[') || inner[..i].contains(']'));
    let (base, offset) = match split {
        Some(i) => {
            let sign = if inner[i..].starts_with('-') { -1 } else { 1 };
            let number = inner[i + 1..].trim();
            (&inner[..i], sign * parse_number(number)?)
        }
        None => (inner, 0),
    };
    Some((operand_of(base)?, offset))
}

fn parse_number(s: &str) -> Option<i64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

fn bytes_of(s: &str) -> Option<Bytes> {
    match operand_of(s) {
        Some(o) => Some(Bytes::Operand(o)),
        None => parse_number(s.trim()).map(|n| Bytes::Known(n as u32)),
    }
}

/// Bytes of a PTX type suffix (`.b32`, `.f16x2`, `.b128`).
fn type_bytes(part: &str) -> Option<u32> {
    let bits: u32 = match part {
        "b8" | "u8" | "s8" => 8,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 16,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => 32,
        "b64" | "u64" | "s64" | "f64" => 64,
        "b128" => 128,
        _ => return None,
    };
    Some(bits / 8)
}

/// What an instruction does to shared memory, from its name; `None` when it does not touch
/// shared memory (or names no address: `cp.async.commit_group`).
pub fn classify(name: &str) -> Option<Kind> {
    let parts: Vec<&str> = name.split('.').collect();
    let has = |p: &str| parts.contains(&p);
    let shared = parts.iter().any(|p| p.starts_with("shared"));
    let cluster = parts.contains(&"shared::cluster");
    let not_modeled = |why: &str| Some(Kind::NotModeled(format!("`{name}`: {why}")));
    match parts.first().copied()? {
        "ldmatrix" | "stmatrix" => {
            if !has("m8n8") || !has("b16") && parts.iter().any(|p| p.starts_with('b')) {
                return not_modeled(
                    "only the m8n8 b16 shapes are measured; this one is not modeled",
                );
            }
            let count = if has("x4") {
                4
            } else if has("x2") {
                2
            } else {
                1
            };
            let trans = has("trans");
            Some(Kind::Matrix(if parts[0] == "ldmatrix" {
                Op::Ldmatrix { count, trans }
            } else {
                Op::Stmatrix { count, trans }
            }))
        }
        "cp" if parts.get(1) == Some(&"async") => {
            // Group and barrier bookkeeping (`cp.async.bulk.wait_group.read 0`) address nothing.
            if has("commit_group") || has("wait_group") || has("wait_all") || has("mbarrier") {
                return None;
            }
            if has("bulk") && has("tensor") {
                // `.shared::cluster.global` copies in, `.global.shared::cta` out.
                let at = |p: &str| parts.iter().position(|x| x.starts_with(p));
                return match (at("shared"), at("global")) {
                    (Some(s), Some(g)) => Some(Kind::TensorCopy { to_shared: s < g }),
                    _ => not_modeled("a bulk tensor copy without a shared and a global side"),
                };
            }
            if has("bulk") {
                return not_modeled(
                    "a bulk copy (the TMA engine) writes shared memory in its own order, not per lane; it is not modeled",
                );
            }
            if !shared {
                return None;
            }
            Some(Kind::CpAsync {
                bypass_l1: has("cg"),
                bytes: Bytes::Known(0),
            })
        }
        "ld" | "st" if shared => {
            if cluster {
                return not_modeled("distributed shared memory of another block is not modeled");
            }
            let vector = if has("v4") {
                4
            } else if has("v2") {
                2
            } else {
                1
            };
            let Some(size) = parts.iter().rev().find_map(|p| type_bytes(p)) else {
                return not_modeled("its width is not known, so it is not modeled");
            };
            let op = if parts[0] == "ld" {
                Op::Load
            } else {
                Op::Store
            };
            Some(Kind::Access {
                op,
                bytes: vector * size,
            })
        }
        "atom" if shared => {
            let function = if has("add") {
                "atomicAdd"
            } else if has("exch") {
                "atomicExch"
            } else if has("cas") {
                "atomicCAS"
            } else if has("min") {
                "atomicMin"
            } else if has("max") {
                "atomicMax"
            } else if has("and") {
                "atomicAnd"
            } else if has("or") {
                "atomicOr"
            } else if has("xor") {
                "atomicXor"
            } else if has("inc") {
                "atomicInc"
            } else if has("dec") {
                "atomicDec"
            } else {
                return not_modeled("this atomic operation was not measured; it is not modeled");
            };
            let type_name = match parts.last().copied() {
                Some("u32" | "b32") => "unsigned int",
                Some("s32") => "int",
                Some("f32") => "float",
                Some("u64" | "b64") => "unsigned long long",
                Some("s64") => "long long",
                Some("f64") => "double",
                _ => return not_modeled("this atomic type was not measured; it is not modeled"),
            };
            Some(Kind::Atomic {
                function,
                type_name,
            })
        }
        "red" if shared => not_modeled(
            "a reduction without a result was not measured (the same operation through atomicAdd was); it is not modeled",
        ),
        "mbarrier" => match parts.get(1).copied() {
            // Reads a state register, not the barrier.
            Some("pending_count") => None,
            _ if cluster => not_modeled(
                "an mbarrier operation on a barrier of the cluster (`shared::cluster`) was not measured; it is not modeled",
            ),
            Some(
                op @ ("init" | "arrive" | "expect_tx" | "complete_tx" | "test_wait" | "try_wait"
                | "arrive_drop" | "inval"),
            ) => Some(Kind::Access {
                op: Op::Mbarrier { init: op == "init" },
                bytes: 8,
            }),
            _ => not_modeled("this mbarrier operation was not measured; it is not modeled"),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_lane_index_register_is_read_by_operand() {
        assert_eq!(lane_id_read("mov.u32 %0, %%laneid;"), Some(0));
        assert_eq!(lane_id_read("mov.s32 %1, %laneid;"), Some(1));
        assert_eq!(lane_id_read("mov.u32 %0, %%warpid;"), None);
        assert_eq!(
            lane_id_read("mov.u32 %0, %%laneid; add.u32 %0, %0, 1;"),
            None
        );
    }
    use super::*;

    fn one(template: &str) -> PtxAccess {
        let (found, unresolved) = shared_instructions(template);
        assert!(unresolved.is_empty(), "{unresolved:?}");
        assert_eq!(found.len(), 1, "{found:?}");
        found.into_iter().next().unwrap()
    }

    #[test]
    fn ldmatrix_in_either_qualifier_order() {
        let a = one("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n");
        assert_eq!(
            a.kind,
            Kind::Matrix(Op::Ldmatrix {
                count: 4,
                trans: false
            })
        );
        assert_eq!((a.address, a.offset), (Operand::Index(4), 0));
        let t = one("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2 + 32];");
        assert_eq!(
            t.kind,
            Kind::Matrix(Op::Ldmatrix {
                count: 2,
                trans: true
            })
        );
        assert_eq!(t.offset, 32);
    }

    #[test]
    fn stores_take_the_first_operand() {
        let s = one("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};");
        assert_eq!(s.address, Operand::Index(0));
        let v = one("st.shared.v4.b32 [%[dst]-16], {%1, %2, %3, %4};");
        assert_eq!(
            v.kind,
            Kind::Access {
                op: Op::Store,
                bytes: 16
            }
        );
        assert_eq!((v.address, v.offset), (Operand::Name("dst".into()), -16));
    }

    #[test]
    fn cp_async_size_from_an_operand_or_written() {
        let c = one("cp.async.cg.shared.global.L2::128B [%0], [%1], %2;\n");
        assert_eq!(
            c.kind,
            Kind::CpAsync {
                bypass_l1: true,
                bytes: Bytes::Operand(Operand::Index(2))
            }
        );
        let c = one("cp.async.ca.shared.global [%0], [%1], 8;");
        assert_eq!(
            c.kind,
            Kind::CpAsync {
                bypass_l1: false,
                bytes: Bytes::Known(8)
            }
        );
        assert!(shared_instructions("cp.async.commit_group;\n").0.is_empty());
        // The bulk (TMA) group's bookkeeping addresses nothing: neither found nor unresolved.
        for t in [
            "cp.async.bulk.commit_group;",
            "cp.async.bulk.wait_group 0;",
            "cp.async.bulk.wait_group.read %0;",
        ] {
            assert_eq!(shared_instructions(t), (vec![], vec![]), "{t}");
        }
        assert!(
            shared_instructions("cp.async.wait_group %0;\n")
                .0
                .is_empty()
        );
    }

    #[test]
    fn loads_by_width_and_guards_and_labels() {
        let l = one("@p ld.shared.v2.f32 {%0, %1}, [%2];");
        assert_eq!(
            l.kind,
            Kind::Access {
                op: Op::Load,
                bytes: 8
            }
        );
        let l = one("L0: ld.volatile.shared::cta.u16 %0, [%1+0x10];");
        assert_eq!(
            (l.kind, l.offset),
            (
                Kind::Access {
                    op: Op::Load,
                    bytes: 2
                },
                16
            )
        );
        // Global memory is not shared memory.
        assert!(shared_instructions("ld.global.f32 %0, [%1];").0.is_empty());
    }

    #[test]
    fn atomics_bulk_copies_and_registers() {
        let a = one("atom.shared.add.u32 %0, [%1], %2;");
        assert_eq!(
            a.kind,
            Kind::Atomic {
                function: "atomicAdd",
                type_name: "unsigned int"
            }
        );
        let b = one(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];",
        );
        assert_eq!(b.kind, Kind::TensorCopy { to_shared: true });
        assert_eq!(
            (b.address, b.map),
            (Operand::Index(0), Some(Operand::Index(1)))
        );
        let s = one("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];");
        assert_eq!(s.kind, Kind::TensorCopy { to_shared: false });
        assert_eq!(
            (s.address, s.map),
            (Operand::Index(3), Some(Operand::Index(0)))
        );
        // A bulk copy that is not a tensor copy is not modeled.
        let c = one(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];",
        );
        assert!(matches!(c.kind, Kind::NotModeled(_)), "{c:?}");
        // An address in a register of the template's own cannot be followed.
        let (found, unresolved) = shared_instructions(
            "{ .reg .u32 a; cvta.to.shared.u32 a, %1; ld.shared.u32 %0, [a]; }",
        );
        assert!(found.is_empty());
        assert_eq!(unresolved, ["ld.shared.u32"]);
    }

    #[test]
    fn template_literals_are_joined_and_unescaped() {
        let lits = [
            r#""ld.shared.b32 %0, [%1];\n""#.to_string(),
            r#""\t""#.to_string(),
        ];
        assert_eq!(template_text(&lits), "ld.shared.b32 %0, [%1];\n\t");
    }
}
