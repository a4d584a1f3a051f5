//! TMA tile copies (`cp.async.bulk.tensor` in inline PTX). The copy engine moves the tile, not the lanes,
//! so a copy costs no bank wavefronts (measured: 0 at its line); what it decides is where each
//! element of the tile lies, by its tensor map's swizzle. Each copy is recorded with its tile,
//! its byte offset there and that swizzle (from the launch, through the kernel parameter the
//! map is), for the lint to check the accesses that read or write the tile.

use super::*;
use crate::bank::tma::TmaSwizzle;

/// A TMA tile copy as one analysis saw it.
#[derive(Clone, Debug)]
pub struct TmaCopy {
    /// The copy's shared-memory address, in the file.
    pub span: Range<usize>,
    /// The array the tile is in (the viewed array, for a byte view).
    pub array: usize,
    /// The tile's first byte in the array, where every issuing thread agrees on a constant.
    pub offset: Option<i64>,
    /// The kernel parameter that is the tensor map, when banklint could follow it.
    pub map: Option<String>,
    /// The map's swizzle, or why it is not known.
    pub swizzle: Result<TmaSwizzle, String>,
    /// The line of the host code that made the map.
    pub map_line: Option<usize>,
}

impl<'a, 'p> Analyzer<'a, 'p> {
    /// `&p` of a kernel parameter: one warp-uniform symbol per parameter, so the tensor map a
    /// copy names can be traced back to the parameter through calls and casts.
    pub(super) fn parameter_address(&mut self, e: &Node<Expression>) -> Option<Lanes> {
        let Expression::Identifier(id) = &e.node else {
            return None;
        };
        let name = &id.node.name;
        let param = self.uniform_syms.get(name)?.clone();
        match self.lookup(name) {
            Some(Binding::Value(Lanes::Same(v))) if *v == param => {
                Some(self.uniform(&format!("&{name}")))
            }
            _ => None,
        }
    }

    /// The kernel parameter a tensor-map operand names: `&map`, `(uint64_t)&map`, or a device
    /// function's parameter given either.
    fn tensor_map_parameter(&mut self, e: &Node<Expression>, mask: &[bool]) -> Option<String> {
        let lane = mask.iter().position(|&m| m)?;
        let v = self.eval(e, mask);
        let v = v.get(lane);
        let a = v.as_affine()?;
        match a.terms.as_slice() {
            [(s, 1)] if a.constant == 0 => {
                let name = self.syms.name(*s);
                let name = name.strip_prefix('&').unwrap_or(&name);
                self.uniform_syms
                    .contains_key(name)
                    .then(|| name.to_string())
            }
            _ => None,
        }
    }

    /// Records a TMA tile copy whose shared side is `p` (written at `span`) and whose tensor
    /// map is `map`.
    pub(super) fn tma_copy(
        &mut self,
        p: SharedPointer,
        span: Span,
        map: Option<&Node<Expression>>,
        mask: &[bool],
    ) {
        // A copy in a header's function is reported at the call in the analyzed file.
        let (at, _) = self.site_place(span);
        let array = viewed_array(&self.arrays.entries, p.array);
        self.footprint.insert(array);
        let offset = self
            .retype(p, Type::scalar("char", 1, false))
            .and_then(|p| match p.place {
                Place::Bytes(off) => {
                    let mut lanes = mask.iter().enumerate().filter(|(_, m)| **m);
                    let first = off.const_at(lanes.next()?.0)?;
                    lanes
                        .all(|(l, _)| off.const_at(l) == Some(first))
                        .then_some(first)
                }
                Place::Tuple(_) => None,
            });
        let param = map.and_then(|m| self.tensor_map_parameter(m, mask));
        let given = param
            .as_ref()
            .and_then(|p| self.tensor_maps.iter().find(|(n, _)| n == p));
        let (swizzle, map_line) = match (&param, given) {
            (_, Some((_, Ok((s, line))))) => (Ok(*s), Some(*line)),
            (Some(p), Some((_, Err(why)))) => (
                Err(format!("the launch passes tensor map `{p}`, but {why}")),
                None,
            ),
            (Some(p), None) => (
                Err(format!(
                    "tensor map `{p}` is made where banklint cannot see it (no launch in this file passes one made by `cuTensorMapEncodeTiled` or with a `CU_TENSOR_MAP_SWIZZLE_*` argument)"
                )),
                None,
            ),
            (None, _) => (
                Err("banklint cannot follow its tensor map to a kernel parameter".to_string()),
                None,
            ),
        };
        let copy = TmaCopy {
            span: at,
            array,
            offset,
            map: param,
            swizzle,
            map_line,
        };
        if !self
            .tma_copies
            .iter()
            .any(|c| c.span == copy.span && c.array == copy.array && c.offset == copy.offset)
        {
            self.tma_copies.push(copy);
        }
    }
}
