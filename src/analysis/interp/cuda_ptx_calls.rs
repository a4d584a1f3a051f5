//! Calls of libcu++'s `cuda::ptx` functions (`cuda::ptx::mbarrier_init(&bar, 1)`,
//! `ptx::cp_async_bulk_tensor(...)`, `cuda::ptx::get_sreg_laneid()`), read without the library:
//! each is the one PTX instruction it documents (see [`crate::analysis::cuda_ptx`]), recorded
//! at its address argument as the same instruction in an `asm` statement is.

use super::inline_ptx::PtxInstruction;
use super::*;
use crate::analysis::cuda_ptx::{self, LaneRegister, MapArgument, MaskKind, PtxFunction};
use crate::analysis::ptx;

/// The name a call is made by, when it is one (`f(x)`, `ns::f(x)` as lowered), not an
/// expression (`obj.f(x)`, `(*fp)(x)`).
pub(super) fn callee_name(call: &CallExpression) -> Option<&str> {
    match &call.callee.node {
        Expression::Identifier(id) => Some(id.node.name.as_str()),
        _ => None,
    }
}

impl<'a, 'p> Analyzer<'a, 'p> {
    /// The call's value when it is a `cuda::ptx` function banklint reads; `None` otherwise
    /// (the call is handled as any function without a definition).
    pub(super) fn cuda_ptx_call(
        &mut self,
        whole: &Node<Expression>,
        call: &CallExpression,
        mask: &[bool],
    ) -> Option<Lanes> {
        let function = cuda_ptx::function_name(callee_name(call)?)?;
        // Each argument's text up to the next one: the front end may have written a tag
        // object (`conditional_t<C, A, B>{}`) as a shorter placeholder.
        let texts: Vec<String> = (0..call.arguments.len())
            .map(|k| {
                let start = call.arguments[k].span.start;
                let end = call
                    .arguments
                    .get(k + 1)
                    .map_or(whole.span.end, |next| next.span.start);
                let text = (self.unit.prepared).written_in_full(self.span(Span::span(start, end)));
                let text = text.trim_end();
                let text = text.strip_suffix([',', ')']).unwrap_or(text);
                text.trim_end().to_string()
            })
            .collect();
        let (tags, operands): (Vec<usize>, Vec<usize>) =
            (0..texts.len()).partition(|&k| cuda_ptx::is_tag(&texts[k]));
        let tags: Vec<&str> = tags.iter().map(|&k| texts[k].as_str()).collect();
        let shown = format!("cuda::ptx::{function}");
        let (instruction, kind, map) = match cuda_ptx::function(function, &tags)? {
            PtxFunction::LaneRegister(r) => return Some(self.lane_register(r)),
            PtxFunction::Elect => return Some(self.elect(call, mask)),
            // Recorded at the first shared-memory argument, as not modeled.
            PtxFunction::Undecided(why) => (shown.clone(), ptx::Kind::NotModeled(why), None),
            PtxFunction::Instruction { instruction, map } => {
                let kind = ptx::classify(&instruction)?;
                (instruction, kind, map)
            }
        };
        let at = operands
            .iter()
            .position(|&k| self.points_to_shared(&call.arguments[k]))?;
        let address = &call.arguments[operands[at]];
        let map = match map {
            Some(MapArgument::AfterAddress) => operands.get(at + 1),
            Some(MapArgument::First) => operands.first(),
            None => None,
        }
        .map(|&k| &call.arguments[k]);
        // The other operands (a count, a size, a source) are read as the call reads them.
        for &k in operands.iter().filter(|&&k| k != operands[at]) {
            if !self.points_to_shared(&call.arguments[k]) {
                self.eval(&call.arguments[k], mask);
            }
        }
        let recorded = PtxInstruction {
            name: &instruction,
            kind: &kind,
            offset: 0,
        };
        let uniform = self.record_ptx(whole.span, &recorded, &[], address, map, mask);
        // What it returns (a barrier's state, whether its phase completed) is data: one value
        // for the warp when every lane names one barrier, as other results are taken to be.
        Some(if uniform {
            self.uniform_data(&format!("the result of `{shown}`"))
        } else {
            Lanes::Each(Rc::new(vec![
                Value::unknown(format!(
                    "it is the result of `{shown}`"
                ));
                self.n
            ]))
        })
    }

    /// `elect_sync(membermask)`: in each warp, true in the lowest lane that runs the call and
    /// is in the mask, false elsewhere, as measured on sm_90 (`hw/ELECT.md`; PTX says only
    /// that the choice is the same for the same mask). Unknown in every lane where the mask is
    /// not a constant.
    fn elect(&mut self, call: &CallExpression, mask: &[bool]) -> Lanes {
        let unknown = |why: &str| Lanes::Each(Rc::new(vec![Value::unknown(why); mask.len()]));
        let Some(members) = (call.arguments.first())
            .map(|a| self.eval(a, mask))
            .and_then(|v| v.as_const())
        else {
            return unknown(
                "it is elected by `cuda::ptx::elect_sync` with a mask banklint cannot evaluate",
            );
        };
        let lane = self.tile_method("thread_rank", 32);
        let warp = self.tile_method("meta_group_rank", 32);
        // One warp analyzed (the block's shape unknown: a symbolic warp) is one election.
        let one_warp = mask.len() <= 32;
        let mut places = Vec::with_capacity(mask.len());
        for t in 0..mask.len() {
            let w = if one_warp { Some(0) } else { warp.const_at(t) };
            match (lane.const_at(t), w) {
                (Some(l), Some(w)) => places.push((l, w)),
                _ => {
                    return unknown(
                        "it is elected by `cuda::ptx::elect_sync` in a warp banklint does not know",
                    );
                }
            }
        }
        // The lanes of each warp that run the call, then the one each warp elects.
        let mut running: std::collections::BTreeMap<i64, u32> = Default::default();
        for t in (0..mask.len()).filter(|&t| mask[t]) {
            let (l, w) = places[t];
            *running.entry(w).or_default() |= 1u32 << (l & 31);
        }
        let elected = (0..mask.len())
            .map(|t| {
                let (l, w) = places[t];
                let leader = running
                    .get(&w)
                    .and_then(|&r| cuda_ptx::elected_lane(members, r));
                i64::from(mask[t] && leader == Some(l as u32))
            })
            .collect();
        Lanes::ints(elected)
    }

    /// `%laneid`, or one of the lane masks derived from it.
    fn lane_register(&mut self, register: LaneRegister) -> Lanes {
        let lane = self.tile_method("thread_rank", 32);
        let LaneRegister::Mask(kind) = register else {
            return lane;
        };
        let n = self.n;
        let bit = Lanes::binary(BinOp::Shl, &Lanes::int(1), &lane, n, &mut self.syms);
        let below = Lanes::binary(BinOp::Sub, &bit, &Lanes::int(1), n, &mut self.syms);
        let through = Lanes::binary(BinOp::Or, &below, &bit, n, &mut self.syms);
        let all = Lanes::int(0xffff_ffff);
        match kind {
            MaskKind::Eq => bit,
            MaskKind::Lt => below,
            MaskKind::Le => through,
            MaskKind::Gt => Lanes::binary(BinOp::Xor, &all, &through, n, &mut self.syms),
            MaskKind::Ge => Lanes::binary(BinOp::Xor, &all, &below, n, &mut self.syms),
        }
    }
}
