//! Inline PTX (`asm volatile("ldmatrix...", ...)`) and the shared-window addresses it takes:
//! `__cvta_generic_to_shared(&s[r][c])` is kept as a byte pointer into `s`, so integer
//! arithmetic on it (`addr + k * 16`) moves it, and each shared-memory instruction of the
//! template (see [`crate::analysis::ptx`]) is recorded at the operand holding its address.

use super::recording::IndexText;
use super::*;
use crate::analysis::atomics::{AtomicUse, atomic_kind};
use crate::analysis::ptx::{self, Bytes, Kind, Operand};
use crate::bank::engine::AtomicKind;

/// The CUDA function that turns a generic pointer into a shared-window address.
pub(super) fn is_shared_window_call(c: &CallExpression) -> bool {
    matches!(&c.callee.node, Expression::Identifier(id)
        if matches!(id.node.name.as_str(), "__cvta_generic_to_shared" | "__cvta_generic_to_shared_u32"))
}

/// A byte-addressed scalar of `bytes` bytes: what one lane of a PTX instruction moves.
pub(super) fn lane_type(bytes: u32) -> Type {
    let name = match bytes {
        1 => "b8",
        2 => "b16",
        4 => "b32",
        8 => "b64",
        _ => "b128",
    };
    Type::scalar(name, bytes, false)
}

/// One shared-memory instruction as it is recorded: its name, what it does and a constant
/// added to its address.
pub(super) struct PtxInstruction<'t> {
    pub name: &'t str,
    pub kind: &'t Kind,
    pub offset: i64,
}

impl<'a, 'p> Analyzer<'a, 'p> {
    /// Whether `e` is a shared-window address: the conversion itself, through casts and
    /// `+`/`-` of an integer, or a variable holding one.
    pub(super) fn is_shared_address(&self, e: &Node<Expression>) -> bool {
        match &e.node {
            Expression::Call(c) => {
                is_shared_window_call(&c.node) || self.call_returns_shared(&c.node)
            }
            Expression::Cast(c) => self.is_shared_address(&c.node.expression),
            Expression::Identifier(id) => matches!(
                self.lookup(&id.node.name),
                Some(Binding::Pointer(p)) if p.elem.size() == Some(1)
            ),
            Expression::BinaryOperator(b) => match b.node.operator.node {
                BinaryOperator::Plus => {
                    self.is_shared_address(&b.node.lhs) || self.is_shared_address(&b.node.rhs)
                }
                // `addr ^ swizzle`: the address with low bits flipped (see `swizzled`).
                BinaryOperator::BitwiseXor => self.is_shared_address(&b.node.lhs),
                BinaryOperator::Minus => {
                    self.is_shared_address(&b.node.lhs) && !self.points_to_shared(&b.node.rhs)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The alignment of `array`'s first byte in the shared window, as its element type
    /// declares it (`struct alignas(1024) page { ... }`): the bits of an address below it are
    /// those of its offset in the array.
    fn base_alignment(&self, array: usize) -> Option<i64> {
        let align = i64::from(self.arrays[array].decl.elem.align()?);
        (align > 0).then_some(align)
    }

    /// `addr % m` (`m` a power of two within the array's alignment) or `addr & m` (`m` below
    /// it) of a shared-window address: the offset's low bits, a number. `None` when the array's
    /// alignment does not settle them (its place in the window is not known to the bit).
    pub(super) fn window_low_bits(
        &mut self,
        b: &BinaryOperatorExpression,
        mask: &[bool],
    ) -> Option<Lanes> {
        let op = match b.operator.node {
            BinaryOperator::Modulo => BinOp::Rem,
            BinaryOperator::BitwiseAnd => BinOp::And,
            _ => return None,
        };
        if !self.is_shared_address(&b.lhs) {
            return None;
        }
        let m = self.eval(&b.rhs, mask).as_const()?;
        let p = self.eval_pointer(&b.lhs, mask, "")?;
        let align = self.base_alignment(p.array)?;
        // `% m`: `m` a power of two no larger than the alignment; `& m`: bits of `m` below it.
        let settled = match op {
            BinOp::Rem => m > 0 && m & (m - 1) == 0 && m <= align,
            _ => (0..align).contains(&m),
        };
        if !settled {
            return None;
        }
        let p = self.retype(p, Type::scalar("char", 1, false))?;
        let Place::Bytes(off) = &p.place else {
            return None;
        };
        Some(Lanes::binary(
            op,
            off,
            &Lanes::int(m),
            self.n,
            &mut self.syms,
        ))
    }

    /// `addr ^ k` of a shared-window address, every lane's `k` known and below the array's
    /// alignment: the same array, the offset with those bits flipped (an XOR swizzle).
    pub(super) fn swizzled(
        &mut self,
        b: &BinaryOperatorExpression,
        mask: &[bool],
        name: &str,
    ) -> Option<SharedPointer> {
        let p = self.eval_pointer(&b.lhs, mask, name)?;
        let k = self.eval(&b.rhs, mask);
        let align = self.base_alignment(p.array)?;
        let fits = (0..self.n)
            .filter(|&t| mask[t])
            .all(|t| k.const_at(t).is_some_and(|v| (0..align).contains(&v)));
        if !fits {
            return None;
        }
        let p = self.retype(p, Type::scalar("char", 1, false))?;
        let Place::Bytes(off) = &p.place else {
            return None;
        };
        let at = Lanes::binary(BinOp::Xor, off, &k, self.n, &mut self.syms);
        Some(SharedPointer {
            place: Place::Bytes(at.clone()),
            anchor: at,
            ..p
        })
    }

    /// `__cvta_generic_to_shared(p)`: `p` as a byte pointer (the address counts bytes).
    pub(super) fn shared_window(
        &mut self,
        c: &CallExpression,
        mask: &[bool],
    ) -> Option<SharedPointer> {
        let p = self.eval_pointer(c.arguments.first()?, mask, "")?;
        self.retype(p, Type::scalar("char", 1, false))
    }

    /// Records the shared-memory instructions of an `asm` statement.
    pub(super) fn inline_asm(&mut self, stmt: &Node<AsmStatement>, mask: &[bool]) {
        let AsmStatement::GnuExtended(g) = &stmt.node else {
            return;
        };
        // Read once per statement: a loop runs the statement trip after trip.
        let key = (std::ptr::from_ref(self.unit) as usize, stmt.span.start);
        let read = match self.ptx_read.get(&key) {
            Some(r) => r.clone(),
            None => {
                let text = ptx::template_text(&g.template.node);
                let (found, unresolved) = ptx::shared_instructions(&text);
                let r = Rc::new((found, unresolved, ptx::lane_id_read(&text)));
                self.ptx_read.insert(key, r.clone());
                r
            }
        };
        let (found, unresolved, lane_into) = (&read.0, &read.1, read.2);
        let operands: Vec<&Node<GnuAsmOperand>> = g.outputs.iter().chain(&g.inputs).collect();
        let at = stmt.span;
        let find = |which: &Operand| match which {
            Operand::Index(i) => operands.get(*i).copied(),
            Operand::Name(n) => operands.iter().copied().find(|o| {
                o.node
                    .symbolic_name
                    .as_ref()
                    .is_some_and(|s| s.node.name == *n)
            }),
        };
        for access in found {
            let operand = find(&access.address);
            let instruction = &access.instruction;
            let Some(operand) = operand else {
                self.note_unfollowed(
                    at,
                    format!("`{instruction}` names an operand the `asm` statement does not have"),
                );
                continue;
            };
            let address = &operand.node.variable_name;
            let map = access
                .map
                .as_ref()
                .and_then(find)
                .map(|o| &o.node.variable_name);
            let instruction = PtxInstruction {
                name: instruction,
                kind: &access.kind,
                offset: access.offset,
            };
            self.record_ptx(at, &instruction, &operands, address, map, mask);
        }
        for instruction in unresolved {
            self.note_unfollowed(
                at,
                format!(
                    "`{instruction}` addresses shared memory through a register of the `asm` template; banklint follows addresses passed as operands"
                ),
            );
        }
        // `mov.u32 %0, %%laneid;`: the lane's index in its warp. Other registers the
        // template writes hold data from now on.
        for (k, out) in g.outputs.iter().enumerate() {
            if let Expression::Identifier(id) = &out.node.variable_name.node
                && matches!(self.lookup(&id.node.name), Some(Binding::Value(_)))
            {
                let value = if lane_into == Some(k) {
                    self.tile_method("thread_rank", 32)
                } else {
                    Lanes::Each(Rc::new(vec![
                        Value::unknown(
                            "it is written by an `asm` statement"
                        );
                        self.n
                    ]))
                };
                self.set_var(&id.node.name, &value, mask);
            }
        }
    }

    /// Records one shared-memory instruction (of an `asm` template, whose `operands` size a
    /// `cp.async`, or of a `cuda::ptx` call, written at `at`) at the address `address`
    /// evaluates to; a TMA tile copy also records its layout through the tensor map `map`.
    /// Whether every lane's address is the same.
    pub(super) fn record_ptx(
        &mut self,
        at: Span,
        instruction: &PtxInstruction<'_>,
        operands: &[&Node<GnuAsmOperand>],
        address: &Node<Expression>,
        map: Option<&Node<Expression>>,
        mask: &[bool],
    ) -> bool {
        let name = instruction.name;
        let Some(p) = self
            .points_to_shared(address)
            .then(|| self.eval_pointer(address, mask, ""))
            .flatten()
        else {
            let written = self.source_text(address.span);
            self.note_unfollowed(
                at,
                format!(
                    "the address `{written}` of `{name}` is not one banklint can follow to a `__shared__` array (it follows `__cvta_generic_to_shared(&s[...])` and arithmetic on it)"
                ),
            );
            return false;
        };
        if let Kind::TensorCopy { .. } = instruction.kind {
            self.tma_copy(p.clone(), address.span, map, mask);
        }
        let (op, bytes, problem) = self.ptx_operation(instruction.kind, operands, mask);
        let array_of = p.array;
        let moved = self
            .retype(p, Type::scalar("char", 1, false))
            .and_then(|p| self.advance(p, &Lanes::int(instruction.offset)))
            .and_then(|p| self.retype(p, lane_type(bytes)));
        let Some(p) = moved else {
            let array = self.arrays[array_of].decl.name.clone();
            self.note_unfollowed(
                at,
                format!("`{name}` addresses `{array}`, whose layout banklint does not know"),
            );
            return false;
        };
        let uniform = match &p.place {
            Place::Bytes(off) => off.is_uniform(),
            Place::Tuple(_) => false,
        };
        let text = IndexText::Source(address.span);
        let array = self.record_at_pointer(address.span, p, text, op, mask);
        if let Some(why) = problem {
            self.mark_site_unknown(address.span, op, array, why);
        }
        uniform
    }

    /// The operation an instruction is priced as, the bytes per lane, and why it cannot be
    /// priced, if so.
    fn ptx_operation(
        &mut self,
        kind: &Kind,
        operands: &[&Node<GnuAsmOperand>],
        mask: &[bool],
    ) -> (Op, u32, Option<String>) {
        match kind {
            Kind::Access { op, bytes } => (*op, *bytes, None),
            Kind::Matrix(op) => (*op, 16, None),
            Kind::Atomic {
                function,
                type_name,
            } => {
                let ty = type_from_text(&self.types, type_name)
                    .unwrap_or_else(|| Type::scalar(type_name, 4, false));
                let bytes = ty.size().unwrap_or(4);
                let usage = AtomicUse {
                    adds_one: false,
                    result_unused: false,
                };
                match atomic_kind(function, &ty, usage) {
                    Ok(k) => (Op::Atomic(k), bytes, None),
                    Err(why) => (Op::Atomic(AtomicKind::Rmw), bytes, Some(why)),
                }
            }
            Kind::CpAsync { bypass_l1, bytes } => {
                let op = Op::CpAsync {
                    bypass_l1: *bypass_l1,
                };
                let size = match bytes {
                    Bytes::Known(n) => Some(i64::from(*n)),
                    Bytes::Operand(Operand::Index(i)) => operands
                        .get(*i)
                        .and_then(|o| self.eval(&o.node.variable_name, mask).as_const()),
                    Bytes::Operand(Operand::Name(_)) => None,
                };
                match size {
                    Some(n @ (4 | 8 | 16)) if !*bypass_l1 || n == 16 => (op, n as u32, None),
                    Some(n) => (
                        op,
                        16,
                        Some(format!(
                            "a `cp.async` of {n} bytes per lane is not valid PTX"
                        )),
                    ),
                    None => (
                        op,
                        16,
                        Some(
                            "the size of this `cp.async` is not a constant banklint can evaluate"
                                .to_string(),
                        ),
                    ),
                }
            }
            Kind::NotModeled(why) => (Op::Load, 4, Some(why.clone())),
            Kind::TensorCopy { to_shared } => (
                Op::TensorCopy {
                    to_shared: *to_shared,
                },
                16,
                None,
            ),
        }
    }

    /// Notes code at `at` whose shared-memory accesses are not analyzed, once per place. In a
    /// header's function the note stands at the call in the analyzed file and names where it
    /// is.
    pub(super) fn note_unfollowed(&mut self, at: Span, why: String) {
        if self.span_override.is_some() {
            return;
        }
        self.note_unfollowed_at(at, why);
    }

    /// [`Self::note_unfollowed`] where a text expression runs under a range in force (a
    /// constructor's member initializers): noted at that range.
    pub(super) fn note_unfollowed_at(&mut self, at: Span, why: String) {
        let (at, why) = match self.origin(at) {
            Some(origin) => {
                let call = self.home_call.as_ref().expect("origin").0.clone();
                (call, format!("in {origin}: {why}"))
            }
            None => (self.span(at), why),
        };
        if !self.not_followed.iter().any(|(s, _)| *s == at) {
            self.not_followed.push((at, why));
        }
    }
}
