//! What CuTe objects do in device code: `cute::copy` issues its atom's instructions over the
//! threads' partitions (each a warp-wide access of shared memory, priced like any other), a
//! tensor's element is a load or a store, and `size<I>(t)`, `get<I>(c)` are numbers.

use super::cute_values::{Cute, Engine, Tensor, cute_name};
use super::recording::IndexText;
use super::*;
use crate::analysis::cute::copy::{CopyAtom, CopyOp, issue};
use crate::analysis::cute::tuple::{IntTuple, idx2crd};
use crate::analysis::cute::values::{Value as Static, size_of};

/// Per thread, the offsets (in elements) of a shared tensor's values, or why not known.
type ThreadOffsets = Vec<Result<Vec<i64>, Rc<str>>>;

impl<'a, 'p> Analyzer<'a, 'p> {
    /// A call CuTe's model answers: `copy`, a tensor's element, `size`, `get`, a method of a
    /// CuTe object. `None`: not one.
    pub(super) fn cute_call(
        &mut self,
        whole: &Node<Expression>,
        call: &CallExpression,
        mask: &[bool],
    ) -> Option<Lanes> {
        match &call.callee.node {
            Expression::Member(m) => {
                if let Expression::Identifier(id) = &m.node.expression.node
                    && matches!(self.lookup(&id.node.name), Some(Binding::Cute(_)))
                {
                    return Some(Lanes::unknown("a CuTe object"));
                }
                None
            }
            Expression::Identifier(id) => {
                let name = id.node.name.clone();
                if let Some(Binding::Cute(c)) = self.lookup(&name).cloned() {
                    return Some(self.cute_element(whole, &c, call, Op::Load, mask));
                }
                let short = cute_name(&name);
                let user = short == name && self.callee(&name, call.arguments.len()).is_some();
                if user {
                    return None;
                }
                match short {
                    "copy" | "copy_aligned" if call.arguments.len() >= 2 => {
                        let values: Vec<Option<Cute>> = (call.arguments.iter())
                            .map(|a| self.cute_value(a, mask))
                            .collect();
                        if values.iter().all(Option::is_none) {
                            return None;
                        }
                        // A side banklint has no CuTe object for is none it prices (a register
                        // fragment a device function returned, say).
                        let none = || Cute::Unmodeled(Rc::from("not a CuTe object banklint has"));
                        let side = |v: &Option<Cute>| v.clone().unwrap_or_else(none);
                        let (atom, src, dst) = match values.as_slice() {
                            [a, s, d] => (Some(side(a)), side(s), side(d)),
                            [s, d] => (None, side(s), side(d)),
                            _ => return None,
                        };
                        self.cute_copy(whole, atom.as_ref(), &src, &dst, mask);
                        Some(Lanes::unknown("the result of `copy`"))
                    }
                    "clear" | "fill" => {
                        let t = call
                            .arguments
                            .first()
                            .and_then(|a| self.cute_value(a, mask))?;
                        self.cute_fill(whole, &t, mask);
                        Some(Lanes::unknown("the result of `clear`"))
                    }
                    "size" | "rank" | "cosize" | "get" | "depth" | "shape" => {
                        self.cute_number(call, short, mask)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `size(t)`, `size<I>(t)`, `rank(t)`, `get<I>(c)` of a CuTe object or an identity
    /// tensor's coordinate.
    fn cute_number(&mut self, call: &CallExpression, name: &str, mask: &[bool]) -> Option<Lanes> {
        let arg = call.arguments.first()?;
        let at = self.span(call.callee.span).start;
        let index: Option<usize> = self
            .template_arguments_at(at)
            .first()
            .and_then(|a| a.trim().parse().ok());
        if name == "get" {
            return self.identity_coordinate(arg, index?, mask);
        }
        let object = self.cute_value(arg, mask)?;
        let unknown =
            || Lanes::unknown(format!("`{name}` of a CuTe value banklint does not model"));
        if let Cute::Tensor(t) = &object {
            let l = &t.layouts;
            // The alternatives' mode (warps of an unknown block) is banklint's, not the code's.
            let hidden = usize::from(t.alternatives > 1);
            let result = match (name, index) {
                ("size", None) => l.extents().and_then(|e| {
                    let keep = e.len().saturating_sub(hidden);
                    e.into_iter().take(keep).product::<Option<i64>>()
                }),
                ("size", Some(i)) => l.extent(i),
                ("rank", None) => l.rank().map(|r| (r - hidden.min(r)) as i64),
                ("rank", Some(i)) => l
                    .shape()
                    .ok()
                    .and_then(|s| s.mode(i).map(|m| m.rank() as i64)),
                _ => None,
            };
            return Some(result.map_or_else(unknown, Lanes::int));
        }
        let value = match &object {
            Cute::Static(v) => v.clone(),
            Cute::Slice { copy, .. } => Static::TiledCopy(copy.clone()),
            other => return Some(Lanes::unknown(format!("`{name}` of {}", other.describe()))),
        };
        let shape = match &value {
            Static::Layout(l) => Some(l.shape.clone()),
            Static::Tuple(_) | Static::Int(_) => value.int_tuple().ok(),
            _ => None,
        };
        let result = match (name, index, &shape) {
            ("size", None, _) => size_of(&value).ok(),
            ("size", Some(i), Some(s)) => s.mode(i).map(IntTuple::product),
            ("rank", None, Some(s)) => Some(s.rank() as i64),
            ("rank", Some(i), Some(s)) => s.mode(i).map(|m| m.rank() as i64),
            _ => None,
        };
        Some(result.map_or_else(unknown, Lanes::int))
    }

    /// `get<I>(c(0, m, 0))` with `c` an identity tensor (or a thread's partition of one): the
    /// coordinate's mode `I`, thread by thread.
    fn identity_coordinate(
        &mut self,
        e: &Node<Expression>,
        index: usize,
        mask: &[bool],
    ) -> Option<Lanes> {
        let Expression::Call(c) = &e.node else {
            return None;
        };
        let Expression::Identifier(id) = &c.node.callee.node else {
            return None;
        };
        let Some(Binding::Cute(Cute::Tensor(t))) = self.lookup(&id.node.name).cloned() else {
            return None;
        };
        let Engine::Identity(shape) = &t.engine else {
            return None;
        };
        if t.alternatives > 1 {
            // Each warp's coordinates differ, and one value per thread is asked for.
            return Some(Lanes::unknown(
                "an identity tensor's coordinate in a block whose shape banklint does not know",
            ));
        }
        let coordinates = self.coordinates(&c.node, mask);
        let values = (0..self.n)
            .map(|k| {
                let coordinate = coordinates.get(k).cloned().flatten();
                let offset = coordinate.and_then(|c| t.layouts.offset_of(k, &c).ok());
                match offset.map(|o| idx2crd(o, shape)) {
                    Some(c) => match c.mode(index).map(|m| m.as_int()) {
                        Some(Some(v)) => Value::int(v),
                        _ => Value::unknown("a coordinate mode banklint does not flatten"),
                    },
                    None => {
                        Value::unknown("an identity tensor's coordinate banklint does not know")
                    }
                }
            })
            .collect();
        Some(Lanes::from_values(values))
    }

    /// Each thread's coordinate for an element access `t(i, j)` (`None` where not known).
    fn coordinates(&mut self, call: &CallExpression, mask: &[bool]) -> Vec<Option<IntTuple>> {
        let values: Vec<Lanes> = (call.arguments.iter())
            .map(|a| match self.cute_value(a, mask) {
                // `_0{}`, `Int<2>{}`: CuTe's integers.
                Some(Cute::Static(Static::Int(i))) => Lanes::int(i),
                _ => self.eval(a, mask),
            })
            .collect();
        (0..self.n)
            .map(|k| {
                let ints: Option<Vec<i64>> = values.iter().map(|v| v.const_at(k)).collect();
                let ints = ints?;
                Some(if ints.len() == 1 {
                    IntTuple::Int(ints[0])
                } else {
                    IntTuple::ints(&ints)
                })
            })
            .collect()
    }

    /// `t(i, j)` of a tensor as a value (`op` load) or the target of an assignment (`op`
    /// store): an access of one element when `t` is in shared memory.
    pub(super) fn cute_element(
        &mut self,
        whole: &Node<Expression>,
        c: &Cute,
        call: &CallExpression,
        op: Op,
        mask: &[bool],
    ) -> Lanes {
        let Cute::Tensor(t) = c else {
            return Lanes::unknown("a CuTe object");
        };
        let underscore = call.arguments.iter().any(|a| {
            matches!(&a.node, Expression::Identifier(id) if matches!(id.node.name.as_str(), "_" | "cute___"))
        });
        if underscore {
            return Lanes::unknown("a slice of a CuTe tensor");
        }
        let coordinates = self.coordinates(call, mask);
        let Engine::Shared(p) = &t.engine else {
            return self.element_data();
        };
        // In each alternative (each warp, where the block is not known): the coordinate in
        // the last mode's slot the alternatives take.
        let alternatives = t.alternatives.max(1);
        let per = t
            .layouts
            .shape()
            .map_or(0, |s| s.product() / alternatives as i64);
        let offsets: ThreadOffsets = (0..self.n)
            .map(|k| {
                let c = coordinates[k].as_ref().ok_or_else(|| {
                    Rc::from("the element's coordinate is not known in this thread")
                })?;
                (0..alternatives)
                    .map(|a| {
                        let c = match c {
                            _ if alternatives == 1 => c.clone(),
                            IntTuple::Int(i) => IntTuple::Int(i + a as i64 * per),
                            IntTuple::Tuple(items) => {
                                let mut items = items.clone();
                                items.push(IntTuple::Int(a as i64));
                                IntTuple::Tuple(items)
                            }
                        };
                        t.layouts.offset_of(k, &c)
                    })
                    .collect()
            })
            .collect();
        let elem = p.elem.size().unwrap_or(0);
        let text = self.source_text(whole.span);
        let said = self.assumptions.len();
        self.assumptions.extend(t.enumerated.iter().cloned());
        let enumerated = !t.enumerated.is_empty();
        self.symbolic_loops += usize::from(enumerated);
        for a in 0..alternatives {
            self.cute_record(whole.span, p, &offsets, a, elem, op, text.clone(), mask);
        }
        self.assumptions.truncate(said);
        self.symbolic_loops -= usize::from(enumerated);
        self.element_data()
    }

    /// `clear(t)`, `fill(t, v)` of a shared tensor. CuTe writes it element by element; nvcc
    /// merges a thread's contiguous elements into stores of up to 16 bytes (STS.128 for 8
    /// halfs, measured on sm_90: fixture 189), which is what is priced: each store as wide as
    /// an auto-vectorizing copy from registers would make it.
    fn cute_fill(&mut self, whole: &Node<Expression>, t: &Cute, mask: &[bool]) {
        let Cute::Tensor(t) = t else {
            return;
        };
        let Engine::Shared(p) = &t.engine else {
            return;
        };
        let offsets = self.thread_offsets(t);
        let size = offsets
            .iter()
            .find_map(|o| o.as_ref().ok().map(Vec::len))
            .unwrap_or(0) as i64;
        let elem = p.elem.size().unwrap_or(0);
        let text = self.source_text(whole.span);
        let known: Vec<Vec<i64>> = (0..self.n)
            .filter(|&k| mask[k])
            .filter_map(|k| offsets[k].as_ref().ok().cloned())
            .collect();
        let atom = CopyAtom {
            op: CopyOp::AutoVectorizing { max_bits: 128 },
            value_bits: elem * 8,
        };
        let issued = issue(&atom, size, &[known]).unwrap_or(crate::analysis::cute::copy::Issue {
            starts: (0..size).collect(),
            values: 1,
        });
        let said = self.assumptions.len();
        self.assumptions.extend(t.enumerated.iter().cloned());
        let enumerated = !t.enumerated.is_empty();
        self.symbolic_loops += usize::from(enumerated);
        let width = (issued.values as u32) * elem;
        for &start in &issued.starts {
            self.cute_record(
                whole.span,
                p,
                &offsets,
                start as usize,
                width,
                Op::Store,
                text.clone(),
                mask,
            );
        }
        self.assumptions.truncate(said);
        self.symbolic_loops -= usize::from(enumerated);
    }

    /// Each thread's element offsets of a tensor, in its 1-D order.
    fn thread_offsets(&self, t: &Tensor) -> ThreadOffsets {
        (0..self.n)
            .map(|k| t.layouts.offsets(k).map(|o| o.into_owned()))
            .collect()
    }

    /// `copy(atom, src, dst)` (or `copy(src, dst)`): the atom's instructions over the
    /// threads' values, each an access of every shared side.
    fn cute_copy(
        &mut self,
        whole: &Node<Expression>,
        atom: Option<&Cute>,
        src: &Cute,
        dst: &Cute,
        mask: &[bool],
    ) {
        let shared = |c: &Cute| match c {
            Cute::Tensor(t) => matches!(t.engine, Engine::Shared(_)),
            _ => false,
        };
        if !shared(src) && !shared(dst) {
            return;
        }
        let atom: Result<CopyAtom, Rc<str>> = match atom {
            Some(Cute::Static(Static::TiledCopy(t))) => Ok(t.atom),
            Some(Cute::Static(Static::Atom(a))) => Ok(*a),
            Some(Cute::Unmodeled(why)) => Err(why.clone()),
            Some(other) => Err(Rc::from(format!(
                "`copy` with {} as its atom",
                other.describe()
            ))),
            // `copy(src, dst)` of static layouts: auto-vectorizing, 128 bits at most.
            None => Ok(CopyAtom {
                op: CopyOp::AutoVectorizing { max_bits: 128 },
                value_bits: 0,
            }),
        };
        let sides: Vec<(&Tensor, bool)> = [(src, false), (dst, true)]
            .into_iter()
            .filter_map(|(c, is_dst)| match c {
                Cute::Tensor(t) => Some((&**t, is_dst)),
                _ => None,
            })
            .collect();
        let text = self.source_text(whole.span);
        let matrix = matches!(
            atom,
            Ok(CopyAtom {
                op: CopyOp::Matrix { .. },
                ..
            })
        );
        // Each shared side's offsets, and the register sides' (compact) for vectorizing.
        let mut known: Vec<Vec<Vec<i64>>> = Vec::new();
        let mut shared_sides: Vec<(SharedPointer, ThreadOffsets, bool)> = Vec::new();
        let mut problem: Option<Rc<str>> = atom.as_ref().err().cloned();
        let mut size = None;
        for (t, is_dst) in &sides {
            match &t.engine {
                Engine::Shared(p) => {
                    let offsets = self.thread_offsets(t);
                    for (k, o) in offsets.iter().enumerate() {
                        match o {
                            Ok(o) => {
                                size.get_or_insert(o.len() as i64);
                            }
                            Err(why) if mask.get(k).copied().unwrap_or(false) => {
                                problem.get_or_insert(why.clone());
                            }
                            Err(_) => {}
                        }
                    }
                    let lanes: Vec<Vec<i64>> = (0..self.n)
                        .filter(|&k| mask[k])
                        .filter_map(|k| offsets[k].as_ref().ok().cloned())
                        .collect();
                    known.push(lanes);
                    shared_sides.push((p.clone(), offsets, *is_dst));
                }
                // A matrix copy's register side is the instruction's own business.
                Engine::Register if matrix => {}
                Engine::Register => {
                    if let Ok(shape) = t.layouts.shape() {
                        let n = shape.product();
                        known.push(vec![(0..n).collect()]);
                    }
                }
                _ => {}
            }
        }
        let size = size.unwrap_or(0);
        let mut atom = atom.unwrap_or(CopyAtom {
            op: CopyOp::Universal { bits: 8 },
            value_bits: 8,
        });
        let elem = shared_sides
            .first()
            .and_then(|(p, _, _)| p.elem.size())
            .unwrap_or(0);
        if atom.value_bits == 0 {
            atom.value_bits = elem * 8;
        }
        let issued = match &problem {
            Some(_) => None,
            None => match issue(&atom, size, &known) {
                Ok(i) => Some(i),
                Err(why) => {
                    problem = Some(Rc::from(why));
                    None
                }
            },
        };
        let global_side = sides
            .iter()
            .any(|(t, _)| matches!(t.engine, Engine::Global));
        let said = self.assumptions.len();
        // A mode covered value by value stands for one of them: no per-block totals.
        let enumerated = sides.iter().any(|(t, _)| !t.enumerated.is_empty());
        self.symbolic_loops += usize::from(enumerated);
        for (t, _) in &sides {
            for e in &t.enumerated {
                if !self.assumptions.contains(e) {
                    self.assumptions.push(e.clone());
                }
            }
        }
        if matches!(atom.op, CopyOp::AutoVectorizing { .. }) && global_side {
            self.assumptions.push(
                "the global-memory side of this CuTe copy was taken to keep its values as contiguous as the shared side (its strides are run-time values banklint does not read)".to_string(),
            );
        }
        for (p, offsets, is_dst) in shared_sides {
            let op = match (is_dst, atom.op) {
                (true, CopyOp::CpAsync { bypass_l1, .. }) => Op::CpAsync { bypass_l1 },
                (
                    false,
                    CopyOp::Matrix {
                        count,
                        trans,
                        store: false,
                    },
                ) => Op::Ldmatrix { count, trans },
                (
                    true,
                    CopyOp::Matrix {
                        count,
                        trans,
                        store: true,
                    },
                ) => Op::Stmatrix { count, trans },
                (true, _) => Op::Store,
                (false, _) => Op::Load,
            };
            match (&issued, &problem) {
                (Some(i), None) => {
                    let width = (i.values as u32) * elem;
                    for &start in &i.starts {
                        self.cute_record(
                            whole.span,
                            &p,
                            &offsets,
                            start as usize,
                            width,
                            op,
                            text.clone(),
                            mask,
                        );
                    }
                }
                _ => {
                    let why = problem
                        .clone()
                        .unwrap_or_else(|| Rc::from("a copy banklint does not model"));
                    let unknown: ThreadOffsets = vec![Err(why); self.n];
                    self.cute_record(
                        whole.span,
                        &p,
                        &unknown,
                        0,
                        elem.max(1),
                        op,
                        text.clone(),
                        mask,
                    );
                }
            }
        }
        self.assumptions.truncate(said);
        self.symbolic_loops -= usize::from(enumerated);
    }

    /// One warp-wide access of `width` bytes per thread at value `index` of each thread's
    /// offsets (in elements of `p`'s pointee) from `p`.
    #[allow(clippy::too_many_arguments)]
    fn cute_record(
        &mut self,
        at: Span,
        p: &SharedPointer,
        offsets: &ThreadOffsets,
        index: usize,
        width: u32,
        op: Op,
        text: String,
        mask: &[bool],
    ) {
        let elem = i64::from(p.elem.size().unwrap_or(0));
        let mut unknown: Option<Rc<str>> = None;
        let bytes: Vec<Value> = (0..self.n)
            .map(|k| match &offsets[k] {
                Ok(o) => match o.get(index) {
                    Some(v) if elem > 0 => Value::int(v * elem),
                    _ => Value::unknown(p.elem.size_problem()),
                },
                Err(why) => {
                    if mask[k] {
                        unknown.get_or_insert(why.clone());
                    }
                    Value::unknown(why.to_string())
                }
            })
            .collect();
        let bytes = Lanes::from_values(bytes);
        let moved = self
            .retype(p.clone(), Type::scalar("char", 1, false))
            .and_then(|q| self.advance(q, &bytes))
            .and_then(|q| self.retype(q, super::inline_ptx::lane_type(width.max(1))));
        let Some(q) = moved else {
            return;
        };
        let array = self.record_at_pointer(at, q, IndexText::Written(text), op, mask);
        if let Some(why) = unknown {
            self.mark_site_unknown(at, op, array, why.to_string());
        }
    }
}
