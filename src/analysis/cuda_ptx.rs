//! libcu++'s `cuda::ptx` functions read as the PTX instruction each one issues. The library
//! documents every function as one instruction (`cuda::ptx::mbarrier_init(bar, n)` is
//! `mbarrier.init.shared.b64 [bar], n;`), with its state space, ordering and scope chosen by tag
//! arguments (`cuda::ptx::space_cluster`, `sem_release`, `scope_cta`). This module turns a call
//! into that instruction's name, which [`crate::analysis::ptx`] prices as it does in an `asm`
//! statement, and says which argument holds the shared-memory address. Pure: it reads names
//! and argument texts, nothing else.

/// What a `cuda::ptx` function is, by its name without the namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxFunction {
    /// A special register read per lane (`get_sreg_laneid`, `get_sreg_lanemask_lt`).
    LaneRegister(LaneRegister),
    /// A shared-memory instruction: its name as PTX writes it, and for a TMA tile copy where
    /// its tensor map is. Its shared-memory address is the first argument pointing into shared
    /// memory (the barrier; a copy's shared side, which comes before its barrier).
    Instruction {
        instruction: String,
        map: Option<MapArgument>,
    },
    /// `elect_sync(membermask)`: true in one lane of the mask, false in the others.
    Elect,
    /// An instruction whose state space the tags leave open (`conditional_t<..., space_shared_t,
    /// space_cluster_t>{}`): why, for the report.
    Undecided(String),
}

/// Where a TMA tile copy's tensor map is among the arguments that are not tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapArgument {
    /// Right after the shared-memory address (`dst, map, coords, bar`: a copy in).
    AfterAddress,
    /// The first (`map, coords, src`: a copy out).
    First,
}

/// The per-lane special registers: `%laneid` and the lane masks derived from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneRegister {
    LaneId,
    /// `%lanemask_eq`, `_lt`, `_le`, `_gt`, `_ge`: the lanes equal to, below, ... this one.
    Mask(MaskKind),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskKind {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The name of a `cuda::ptx` function as the front end writes a qualified call
/// (`cuda__ptx__mbarrier_init`), or through a namespace alias (`ptx__mbarrier_init` after
/// `namespace ptx = ::cuda::ptx;`): the function's own name.
pub fn function_name(lowered: &str) -> Option<&str> {
    let name = lowered.strip_prefix("__").unwrap_or(lowered);
    name.strip_prefix("cuda__ptx__")
        .or_else(|| name.strip_prefix("ptx__"))
        .filter(|n| !n.contains("__"))
}

/// Whether an argument is a tag: a state space, memory order or scope (`space_shared`,
/// `sem_release`, `scope_cta`, written through any namespace, as a value or as `T{}`).
pub fn is_tag(argument: &str) -> bool {
    const TAGS: [(&str, &[&str]); 3] = [
        ("space_", &["shared", "cluster", "global"]),
        (
            "sem_",
            &["relaxed", "release", "acquire", "acq_rel", "sc", "weak"],
        ),
        ("scope_", &["cta", "cluster", "gpu", "sys"]),
    ];
    argument
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| {
            let w = w.strip_suffix("_t").unwrap_or(w);
            TAGS.iter()
                .any(|(prefix, names)| w.strip_prefix(prefix).is_some_and(|n| names.contains(&n)))
        })
}

/// The state spaces the tags name, in order, each `Some("shared::cta")`, `Some("shared::cluster")`
/// or `Some("global")`, `None` for a tag that names more than one.
fn spaces(tags: &[&str]) -> Vec<Option<&'static str>> {
    tags.iter()
        .filter(|t| t.contains("space_"))
        .map(|t| {
            let named: Vec<&'static str> = [
                ("space_shared", "shared::cta"),
                ("space_cluster", "shared::cluster"),
                ("space_global", "global"),
            ]
            .iter()
            .filter(|(tag, _)| t.contains(tag))
            .map(|(_, space)| *space)
            .collect();
            match named.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        })
        .collect()
}

/// The instruction `function` issues with the tag arguments `tags` (their texts, in order);
/// `None` for a function that does not touch shared memory (fences, group bookkeeping) or one
/// this table does not know.
pub fn function(function: &str, tags: &[&str]) -> Option<PtxFunction> {
    let lane_mask = |k| Some(PtxFunction::LaneRegister(LaneRegister::Mask(k)));
    match function {
        "get_sreg_laneid" => return Some(PtxFunction::LaneRegister(LaneRegister::LaneId)),
        "elect_sync" => return Some(PtxFunction::Elect),
        "get_sreg_lanemask_eq" => return lane_mask(MaskKind::Eq),
        "get_sreg_lanemask_lt" => return lane_mask(MaskKind::Lt),
        "get_sreg_lanemask_le" => return lane_mask(MaskKind::Le),
        "get_sreg_lanemask_gt" => return lane_mask(MaskKind::Gt),
        "get_sreg_lanemask_ge" => return lane_mask(MaskKind::Ge),
        _ => {}
    }
    let spaces = spaces(tags);
    let undecided = || {
        Some(PtxFunction::Undecided(format!(
            "the state space of `cuda::ptx::{function}` is chosen by a type banklint does not evaluate, so which instruction it issues is not known"
        )))
    };
    if let Some(op) = function.strip_prefix("mbarrier_") {
        let op = match op {
            "init" | "inval" | "arrive" | "arrive_drop" | "expect_tx" | "complete_tx"
            | "test_wait" | "try_wait" => op.to_string(),
            "arrive_no_complete" => "arrive.noComplete".to_string(),
            "arrive_expect_tx" => "arrive.expect_tx".to_string(),
            "arrive_drop_expect_tx" => "arrive_drop.expect_tx".to_string(),
            "test_wait_parity" => "test_wait.parity".to_string(),
            "try_wait_parity" => "try_wait.parity".to_string(),
            _ => return None,
        };
        // Without a space tag the barrier is the block's own (`.shared::cta`).
        let space = match spaces.first() {
            None => "shared::cta",
            Some(Some(s)) if s.starts_with("shared") => s,
            Some(Some(_)) => return None,
            Some(None) => return undecided(),
        };
        return Some(PtxFunction::Instruction {
            instruction: format!("mbarrier.{op}.{space}.b64"),
            map: None,
        });
    }
    let tensor = match function {
        "cp_async_bulk" => false,
        "cp_async_bulk_tensor" => true,
        _ => return None,
    };
    let (dst, src) = match spaces.as_slice() {
        [Some(dst), Some(src), ..] => (*dst, *src),
        [_, _, ..] => return undecided(),
        _ => return None,
    };
    let into_shared = dst.starts_with("shared");
    Some(if tensor {
        PtxFunction::Instruction {
            instruction: format!("cp.async.bulk.tensor.{dst}.{src}"),
            map: Some(if into_shared {
                MapArgument::AfterAddress
            } else {
                MapArgument::First
            }),
        }
    } else {
        PtxFunction::Instruction {
            instruction: format!("cp.async.bulk.{dst}.{src}"),
            map: None,
        }
    })
}

/// The lane `elect_sync(members)` elects among the lanes `running` (bit `l` for lane `l`) of
/// one warp: the lowest running lane in the mask, as measured on sm_90 (`hw/ELECT.md`); `None`
/// when no running lane is in it.
pub fn elected_lane(members: i64, running: u32) -> Option<u32> {
    let candidates = running & (members as u32);
    (candidates != 0).then(|| candidates.trailing_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_and_aliased_names_are_read() {
        assert_eq!(
            function_name("cuda__ptx__mbarrier_init"),
            Some("mbarrier_init")
        );
        assert_eq!(
            function_name("ptx__get_sreg_laneid"),
            Some("get_sreg_laneid")
        );
        assert_eq!(function_name("cuda__std__min"), None);
        assert_eq!(function_name("mbarrier_init"), None);
    }

    #[test]
    fn tags_choose_the_state_space() {
        let f = |name, tags: &[&str]| function(name, tags);
        let instruction = |i: &str| {
            Some(PtxFunction::Instruction {
                instruction: i.to_string(),
                map: None,
            })
        };
        assert_eq!(
            f("mbarrier_init", &[]),
            instruction("mbarrier.init.shared::cta.b64")
        );
        assert_eq!(
            f(
                "mbarrier_arrive_expect_tx",
                &[
                    "cuda::ptx::sem_release",
                    "ptx::scope_cta",
                    "ptx::space_shared"
                ]
            ),
            instruction("mbarrier.arrive.expect_tx.shared::cta.b64")
        );
        assert_eq!(
            f(
                "mbarrier_arrive",
                &["sem_release", "scope_cluster", "space_cluster"]
            ),
            instruction("mbarrier.arrive.shared::cluster.b64")
        );
        assert!(matches!(
            f(
                "mbarrier_arrive",
                &["conditional_t<C, space_shared_t, space_cluster_t>{}"]
            ),
            Some(PtxFunction::Undecided(_))
        ));
        assert_eq!(
            f("cp_async_bulk", &["space_global", "space_shared"]),
            instruction("cp.async.bulk.global.shared::cta")
        );
        assert_eq!(
            f("cp_async_bulk_tensor", &["space_cluster", "space_global"]),
            Some(PtxFunction::Instruction {
                instruction: "cp.async.bulk.tensor.shared::cluster.global".to_string(),
                map: Some(MapArgument::AfterAddress),
            })
        );
        assert_eq!(f("fence_proxy_async", &["space_shared"]), None);
        assert_eq!(f("elect_sync", &[]), Some(PtxFunction::Elect));
    }

    #[test]
    fn the_elected_lane_is_the_one_measured_on_sm90() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/hw/measurements/sm90_elect.jsonl"
        );
        let text = std::fs::read_to_string(path).expect("the measurement");
        let hex = |line: &str, key: &str| {
            let at = line.find(&format!("\"{key}\": \"0x")).expect(key) + key.len() + 7;
            u32::from_str_radix(&line[at..at + 8], 16).expect("hex")
        };
        let mut launches = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (active, mask, elected) =
                (hex(line, "active"), hex(line, "mask"), hex(line, "elected"));
            assert_eq!(elected.count_ones(), 1, "{line}");
            assert_eq!(
                elected_lane(i64::from(mask), active),
                Some(elected.trailing_zeros()),
                "{line}"
            );
            launches += 1;
        }
        assert_eq!(launches, 30);
    }

    #[test]
    fn tags_are_told_from_operands() {
        assert!(is_tag("::cuda::ptx::space_shared"));
        assert!(is_tag(
            "cuda::std::conditional_t<(X >= 860), ptx::sem_relaxed_t, ptx::sem_release_t>{}"
        ));
        assert!(!is_tag("&bar"));
        assert!(!is_tag("smem_space"));
    }
}
