//! WMMA fragments loaded from and stored to shared memory, `wmma::load_matrix_sync(a, p, ldm)`
//! and `wmma::store_matrix_sync(p, c, ldm, layout)`: each is the shared-memory instructions
//! nvcc compiles it to, with each lane's address, as measured on an H200 with nvcc 13.0
//! (`hw/wmma/`, 224 fragment kinds and leading dimensions; every modeled one predicted):
//! - a 16-bit `matrix_a`/`matrix_b` (`half`; any shape, either layout) and an 8-bit one
//!   (`signed char`/`unsigned char`, `matrix_a` row-major or `matrix_b` column-major) is
//!   `ldmatrix`: the stored matrix's lines (rows, or columns when column-major), `ldm`
//!   elements apart, are cut into 8-line, 16-byte matrices, four to an instruction, each block
//!   of 16 lines and 32 bytes one instruction (`.trans` for `matrix_a` column-major and
//!   `matrix_b` row-major);
//! - `__nv_bfloat16` 16x16 and `tf32` fragments are four 4-byte loads: lane `l` at stored
//!   line `l / 4` (then 8 on) and element `2 (l % 4)` (`l % 4` for `tf32`; then 8 or 4 on),
//!   or, for `tf32` stored as 8 lines of 16, line `l % 4` and element `l / 4`;
//! - a 32-bit accumulator (`float`, `int`) of shape 16x16 is, row-major, four 8-byte accesses
//!   (lane `l` at row `l / 4`, columns `2 (l % 4)` and on, then 8 rows and 8 columns on) and,
//!   column-major, eight 4-byte ones (the same elements one by one); a `half` one row-major is
//!   four 4-byte accesses at the same places.
//!
//! The others (`double` fragments, 8-bit ones in the other layouts,
//! accumulators of other shapes, `half` column-major) compile to other instructions whose
//! lanes' addresses were not modeled: their accesses are unknown, and say so.

use super::inline_ptx::lane_type;
use super::recording::IndexText;
use super::*;

/// What a fragment's declaration says: `wmma::fragment<use, M, N, K, T, layout>`.
struct Fragment {
    usage: String,
    m: i64,
    n: i64,
    k: i64,
    element: String,
    layout: Option<String>,
}

/// The instructions one call compiles to: the operation, the bytes each lane moves, and per
/// instruction each lane's byte offset from the fragment's pointer.
type Instructions = (Op, u32, Vec<Vec<i64>>);

impl<'a, 'p> Analyzer<'a, 'p> {
    /// A WMMA load or store through a pointer into shared memory; None for any other call.
    pub(super) fn wmma_call(
        &mut self,
        whole: &Node<Expression>,
        call: &CallExpression,
        mask: &[bool],
    ) -> Option<Lanes> {
        let name = super::cuda_ptx_calls::callee_name(call)?;
        let short = name
            .strip_prefix("nvcuda__")
            .unwrap_or(name)
            .strip_prefix("wmma__")
            .unwrap_or(name);
        let store = match short {
            "load_matrix_sync" => false,
            "store_matrix_sync" => true,
            _ => return None,
        };
        let (fragment, pointer) = if store {
            (call.arguments.get(1)?, call.arguments.first()?)
        } else {
            (call.arguments.first()?, call.arguments.get(1)?)
        };
        let ldm = call.arguments.get(2)?;
        if !self.points_to_shared(pointer) {
            return None;
        }
        let base = self.eval_pointer(pointer, mask, "")?;
        let array = base.array;
        let op = if store { Op::Store } else { Op::Load };
        let planned = self.wmma_plan(fragment, call, ldm, store, whole.span, mask);
        let (op, bytes, instructions, hint) = match planned {
            Ok((plan, hint)) => (plan.0, plan.1, plan.2, hint),
            Err(why) => {
                // Recorded where the pointer points, and marked unknown with the reason.
                let text = IndexText::Source(pointer.span);
                let array = self.record_at_pointer(whole.span, base, text, op, mask);
                self.mark_site_unknown(whole.span, op, array, why);
                return Some(Lanes::unknown("a WMMA fragment"));
            }
        };
        let help = hint.map(|h| {
            let name = self.arrays[array].decl.name.clone();
            h.help(&self.source_text(ldm.span), &name)
        });
        // Each thread's lane in its warp picks its offset.
        let lane = self.tile_method("thread_rank", 32);
        for offsets in instructions {
            let per_thread: Vec<i64> = (0..self.n)
                .map(|t| {
                    let l = lane.const_at(t).map_or(t % 32, |l| l as usize % 32);
                    offsets[l]
                })
                .collect();
            let moved = self
                .retype(base.clone(), Type::scalar("char", 1, false))
                .and_then(|p| self.advance(p, &Lanes::ints(per_thread)))
                .and_then(|p| self.retype(p, lane_type(bytes)));
            let Some(p) = moved else {
                let name = self.arrays[array].decl.name.clone();
                self.note_unfollowed(
                    whole.span,
                    format!(
                        "`wmma::{short}` addresses `{name}`, whose layout banklint does not know"
                    ),
                );
                return Some(Lanes::unknown("a WMMA fragment"));
            };
            let text = IndexText::Source(pointer.span);
            let array = self.record_at_pointer(whole.span, p, text, op, mask);
            if let Some(h) = &help {
                self.set_site_hint(whole.span, op, array, h.clone());
            }
        }
        Some(Lanes::unknown("a WMMA fragment"))
    }

    /// The instructions a load or store of `fragment` with leading dimension `ldm` compiles
    /// to, or why banklint does not know them.
    fn wmma_plan(
        &mut self,
        fragment: &Node<Expression>,
        call: &CallExpression,
        ldm: &Node<Expression>,
        store: bool,
        at: Span,
        mask: &[bool],
    ) -> Result<(Instructions, Option<LeadingDimension>), String> {
        let arch = self.target.arch;
        if arch.major * 10 + arch.minor < 75 {
            return Err(format!(
                "WMMA on sm_{}{} compiles to instructions banklint has not measured (it models sm_75 and later)",
                arch.major, arch.minor
            ));
        }
        let name = fragment_name(fragment)
            .ok_or("the fragment is not a variable banklint can find the declaration of")?;
        let written = self
            .fragment_declaration(&name, self.span(at).start)
            .ok_or_else(|| {
                format!("banklint did not find the `wmma::fragment<...>` declaration of `{name}`")
            })?;
        let f = self.read_fragment(&written, at, mask)?;
        let ldm = self
            .eval(ldm, mask)
            .as_const()
            .ok_or("the leading dimension is not a constant banklint can evaluate")?;
        let layout = match (&f.layout, call.arguments.get(3)) {
            (Some(l), _) => l.clone(),
            // `wmma::mem_row_major`, read as lowering joins it (`wmma__mem_row_major`), also
            // when a macro spells it (`C_LAYOUT`).
            (None, Some(a)) => match &a.node {
                Expression::Identifier(id) => {
                    id.node.name.rsplit("__").next().unwrap_or("").to_string()
                }
                _ => last_part(&self.source_text(a.span)),
            },
            (None, None) => String::new(),
        };
        let planned = plan(&f, &layout, ldm, store)?;
        let hint = clean_leading_dimension(self.target, &f, &layout, ldm, store);
        Ok((planned, hint))
    }

    /// The template arguments of the `fragment<...>` declaration of `name` last written before
    /// `before` (directly, or through one `typedef`/`using` alias).
    /// Read once per call site: a loop runs the call trip after trip.
    fn fragment_declaration(&mut self, name: &str, before: usize) -> Option<String> {
        let key = (std::ptr::from_ref(self.unit) as usize, before);
        if let Some(found) = self.wmma_declarations.get(&key) {
            return found.clone();
        }
        let found = self.find_fragment_declaration(name, before);
        self.wmma_declarations.insert(key, found.clone());
        found
    }

    fn find_fragment_declaration(&self, name: &str, before: usize) -> Option<String> {
        let p = self.unit.prepared;
        let (text, end) = if p.expanded.is_empty() {
            let at = p.source_span(before..before).start;
            (p.source.as_str(), at)
        } else {
            (p.expanded.as_str(), before)
        };
        let head = text.get(..end.min(text.len()))?;
        declared_fragment(head, name).or_else(|| {
            // `FragA a;` after `using FragA = wmma::fragment<...>;`.
            let alias = declared_type(head, name)?;
            aliased_fragment(head, &alias)
        })
    }

    fn read_fragment(&mut self, args: &str, at: Span, mask: &[bool]) -> Result<Fragment, String> {
        let parts: Vec<String> = crate::front::names::split_top_level(args)
            .into_iter()
            .map(|s| s.trim().to_string())
            .collect();
        if parts.len() < 4 {
            return Err(format!("`fragment<{args}>` does not have its shape"));
        }
        let mut dim = |k: usize| -> Result<i64, String> {
            self.eval_text(&parts[k], at, mask, &parts[k])
                .as_const()
                .ok_or_else(|| {
                    format!(
                        "the fragment's shape `{}` is not a constant banklint can evaluate",
                        parts[k]
                    )
                })
        };
        let (m, n, k) = (dim(1)?, dim(2)?, dim(3)?);
        let element = parts.get(4).map(|t| {
            let t = t.trim();
            self.type_args
                .get(t)
                .cloned()
                .unwrap_or_else(|| t.to_string())
        });
        Ok(Fragment {
            usage: last_part(&parts[0]),
            m,
            n,
            k,
            element: element.map(|e| last_part(&e)).unwrap_or_default(),
            layout: parts.get(5).map(|l| {
                let l = l.trim();
                last_part(self.type_args.get(l).map_or(l, String::as_str))
            }),
        })
    }
}

/// The instructions a load (or store) of fragment `f` laid out as `layout` with leading
/// dimension `ldm` compiles to, as measured; Err says why banklint does not model them.
fn plan(f: &Fragment, layout: &str, ldm: i64, store: bool) -> Result<Instructions, String> {
    let element = f.element.trim().to_string();
    let width = element_bytes(&element);
    let shape = (f.m, f.n, f.k);
    match f.usage.as_str() {
        "matrix_a" | "matrix_b" if !matches!(layout, "row_major" | "col_major") => Err(format!(
            "the fragment's layout `{layout}` is not `row_major` or `col_major` as banklint reads it"
        )),
        "matrix_a" | "matrix_b" if !store => {
            let a = f.usage == "matrix_a";
            let row = layout == "row_major";
            let ldsm = match width {
                Some(2) => matches!(element.as_str(), "half" | "__half"),
                Some(1) => a == row,
                _ => false,
            };
            let (lines, elements) = match (a, row) {
                (true, true) => (f.m, f.k),
                (true, false) => (f.k, f.m),
                (false, true) => (f.k, f.n),
                (false, false) => (f.n, f.k),
            };
            // `__nv_bfloat16` (16x16) and `tf32` (16x8 or 8x16 stored): four 4-byte loads.
            let paired = match (element.as_str(), lines, elements) {
                ("__nv_bfloat16" | "nv_bfloat16", 16, 16) => Some(pair_offsets(ldm, 2, 2, 8)),
                ("tf32", 16, 8) => Some(pair_offsets(ldm, 4, 1, 4)),
                ("tf32", 8, 16) => Some(transposed_offsets(ldm)),
                _ => None,
            };
            if let Some(offsets) = paired.filter(|_| !ldsm) {
                return Ok((Op::Load, 4, offsets));
            }
            if !ldsm {
                return Err(format!(
                    "a `{}` fragment of `{element}` ({layout}) compiles to instructions whose lanes' addresses banklint does not model",
                    f.usage
                ));
            }
            let es = width.unwrap_or(2);
            let instructions = ldmatrix_offsets(lines, elements * es, ldm * es);
            let count = instructions.first().map_or(4, |(c, _)| *c);
            let trans = es == 2 && (a != row);
            let op = Op::Ldmatrix { count, trans };
            Ok((op, 16, instructions.into_iter().map(|(_, o)| o).collect()))
        }
        "accumulator" if matches!(shape, (16, 16, 16) | (16, 16, 8)) => {
            let row = layout == "mem_row_major";
            let col = layout == "mem_col_major";
            let op = if store { Op::Store } else { Op::Load };
            match (width, row, col) {
                (Some(4), true, _) if element != "tf32" => {
                    Ok((op, 8, accumulator_offsets(ldm, 4, true)))
                }
                (Some(4), _, true) if element != "tf32" => {
                    Ok((op, 4, accumulator_offsets(ldm, 4, false)))
                }
                (Some(2), true, _) if matches!(element.as_str(), "half" | "__half") => {
                    Ok((op, 4, accumulator_offsets(ldm, 2, true)))
                }
                _ => Err(format!(
                    "an accumulator of `{element}` ({}) compiles to instructions whose lanes' addresses banklint does not model",
                    if layout.is_empty() {
                        "no layout given"
                    } else {
                        layout
                    }
                )),
            }
        }
        "accumulator" => Err(format!(
            "an accumulator of shape {}x{}x{} compiles to instructions whose lanes' addresses banklint does not model",
            f.m, f.n, f.k
        )),
        other => Err(format!("a `{other}` fragment is not one banklint reads")),
    }
}

/// A leading dimension under which a conflicted fragment's instructions are all clean.
struct LeadingDimension {
    ldm: i64,
    bytes: i64,
    pad: i64,
}

impl LeadingDimension {
    fn help(&self, written: &str, array: &str) -> String {
        let written = written.trim();
        let apart = if written == self.ldm.to_string() {
            format!("{} elements", self.ldm)
        } else {
            format!("`{written}` = {} elements", self.ldm)
        };
        format!(
            "help: the fragment's lines are {apart} ({} bytes) apart; with a leading dimension of {} (`{written} + {}`), and the rows of `{array}` padded to match, every instruction of this call is conflict-free",
            self.bytes,
            self.ldm + self.pad,
            self.pad,
        )
    }
}

/// The smallest padding of `ldm` (in the 16-byte steps WMMA allows, up to 8 of them) that
/// makes every instruction conflict-free, when `ldm` itself does not.
fn clean_leading_dimension(
    target: Target,
    f: &Fragment,
    layout: &str,
    ldm: i64,
    store: bool,
) -> Option<LeadingDimension> {
    let es = element_bytes(f.element.trim())?;
    let clean = |ldm: i64| -> Option<bool> {
        let (op, width, instructions) = plan(f, layout, ldm, store).ok()?;
        Some(instructions.iter().all(|offsets| {
            let mut lanes = [None; 32];
            for (l, o) in offsets.iter().enumerate() {
                lanes[l] = u64::try_from(*o).ok();
            }
            let access = crate::bank::engine::WarpAccess {
                width,
                op,
                offsets: lanes,
            };
            crate::bank::engine::wavefronts(target, &access).conflict_ways <= 1
        }))
    };
    if clean(ldm)? {
        return None;
    }
    let step = (16 / es).max(1);
    (1..=8)
        .map(|k| k * step)
        .find(|&pad| clean(ldm + pad) == Some(true))
        .map(|pad| LeadingDimension {
            ldm,
            bytes: ldm * es,
            pad,
        })
}

/// The variable a fragment argument names: `a`, `a[i]`, `a[i][j]`.
fn fragment_name(e: &Node<Expression>) -> Option<String> {
    match &e.node {
        Expression::Identifier(id) => Some(id.node.name.clone()),
        Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
            fragment_name(&b.node.lhs)
        }
        _ => None,
    }
}

/// `nvcuda::wmma::matrix_a` -> `matrix_a`; `signed char` stays.
fn last_part(t: &str) -> String {
    t.rsplit("::").next().unwrap_or(t).trim().to_string()
}

fn element_bytes(t: &str) -> Option<i64> {
    match t {
        "half" | "__half" | "__nv_bfloat16" | "nv_bfloat16" => Some(2),
        "signed char" | "unsigned char" | "char" | "int8_t" | "uint8_t" => Some(1),
        "float" | "int" | "int32_t" | "tf32" => Some(4),
        "double" => Some(8),
        _ => None,
    }
}

/// `ldmatrix` for `lines` lines of `line_bytes` bytes, `stride` bytes apart: blocks of 16
/// lines and 32 bytes, one instruction each, of 8-line, 16-byte matrices; lane `i` gives row
/// `i % 8` of the block's matrix `i / 8`. Each instruction: its matrix count and offsets.
fn ldmatrix_offsets(lines: i64, line_bytes: i64, stride: i64) -> Vec<(u8, Vec<i64>)> {
    let mut out = Vec::new();
    let mut line = 0;
    while line < lines {
        let mut chunk = 0;
        while chunk * 16 < line_bytes {
            let mut matrices = Vec::new();
            for g in (line..(line + 16).min(lines)).step_by(8) {
                for c in chunk..(chunk + 2).min(line_bytes / 16) {
                    matrices.push((g, c));
                }
            }
            let count = matrices.len() as u8;
            let offsets = (0..32)
                .map(|lane: usize| {
                    let (g, c) = matrices[(lane / 8) % matrices.len()];
                    (g + (lane % 8) as i64) * stride + c * 16
                })
                .collect();
            out.push((count, offsets));
            chunk += 2;
        }
        line += 16;
    }
    out
}

/// Four 4-byte loads of 16 stored lines: lane `l` at line `l / 4` (then 8 lines on) and
/// element `step (l % 4)` (then `skip` elements on), `es` bytes each.
fn pair_offsets(ldm: i64, es: i64, step: i64, skip: i64) -> Vec<Vec<i64>> {
    [(0, 0), (8, 0), (0, skip), (8, skip)]
        .iter()
        .map(|&(dl, de)| {
            (0..32)
                .map(|l| ((l / 4 + dl) * ldm + step * (l % 4) + de) * es)
                .collect()
        })
        .collect()
}

/// A `tf32` fragment stored as 8 lines of 16: lane `l` at line `l % 4` (then 4 on) and
/// element `l / 4` (then 8 on).
fn transposed_offsets(ldm: i64) -> Vec<Vec<i64>> {
    [(0, 0), (4, 0), (0, 8), (4, 8)]
        .iter()
        .map(|&(dl, de)| {
            (0..32)
                .map(|l| ((l % 4 + dl) * ldm + l / 4 + de) * 4)
                .collect()
        })
        .collect()
}

/// A 16x16 accumulator's elements as lane `l` holds them: row `l / 4 (+ 8)`, columns
/// `2 (l % 4) (+ 1) (+ 8)`. Row-major: the pairs of columns as one access each, in the order
/// nvcc issues them; column-major: each element on its own.
fn accumulator_offsets(ldm: i64, es: i64, row_major: bool) -> Vec<Vec<i64>> {
    let lanes = |f: &dyn Fn(i64, i64) -> i64| (0..32).map(|l| f(l / 4, (l % 4) * 2)).collect();
    if row_major {
        [(0, 0), (8, 0), (0, 8), (8, 8)]
            .iter()
            .map(|&(dr, dc)| lanes(&|r, c| ((r + dr) * ldm + c + dc) * es))
            .collect()
    } else {
        [
            (0, 0),
            (1, 0),
            (0, 8),
            (1, 8),
            (8, 0),
            (9, 0),
            (8, 8),
            (9, 8),
        ]
        .iter()
        .map(|&(dc, dr)| lanes(&|r, c| ((c + dc) * ldm + r + dr) * es))
        .collect()
    }
}

/// The `<...>` of the last `fragment<...>` declaration in `text` that declares `name`.
fn declared_fragment(text: &str, name: &str) -> Option<String> {
    let mut found = None;
    for (at, _) in text.match_indices("fragment") {
        let rest = &text[at + "fragment".len()..];
        let Some(args) = angle_arguments(rest) else {
            continue;
        };
        let after = &rest[args.len() + 2..];
        let declarators = after.split(';').next().unwrap_or("");
        if declares(declarators, name) {
            found = Some(args.to_string());
        }
    }
    found
}

/// The type name of the last declaration `T name...;` in `text`.
fn declared_type(text: &str, name: &str) -> Option<String> {
    let mut found = None;
    for (at, _) in text.match_indices(name) {
        let before = text[..at].trim_end();
        let word_start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(0, |i| i + 1);
        let after = text[at + name.len()..].trim_start();
        let ends = after.starts_with(['[', ';', ',', '=', '{']);
        let boundary = text[..at]
            .chars()
            .last()
            .is_some_and(|c| !(c.is_alphanumeric() || c == '_'));
        if ends && boundary && word_start < before.len() {
            found = Some(last_part(&before[word_start..]));
        }
    }
    found
}

/// The `<...>` of `fragment<...>` that `using alias = ...;` or `typedef ... alias;` names.
fn aliased_fragment(text: &str, alias: &str) -> Option<String> {
    let using = format!("using {alias}");
    if let Some(at) = text.rfind(&using) {
        let rest = &text[at..];
        let body = rest.split(';').next().unwrap_or("");
        if let Some(k) = body.find("fragment") {
            return angle_arguments(&body[k + "fragment".len()..]).map(str::to_string);
        }
    }
    for (at, _) in text.match_indices("typedef") {
        let body = text[at..].split(';').next().unwrap_or("");
        if body.trim_end().ends_with(alias)
            && let Some(k) = body.find("fragment")
        {
            return angle_arguments(&body[k + "fragment".len()..]).map(str::to_string);
        }
    }
    None
}

/// `<a, b<c>> rest` -> `a, b<c>` (the text after optional blanks must open with `<`).
fn angle_arguments(text: &str) -> Option<&str> {
    let open = text.find(|c: char| !c.is_whitespace())?;
    if !text[open..].starts_with('<') || open != 0 {
        return None;
    }
    let mut depth = 0;
    for (k, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[1..k]);
                }
            }
            ';' | '{' | '}' => return None,
            _ => {}
        }
    }
    None
}

/// Whether a declarator list (`a_frag[2], b_frag`) declares `name`.
fn declares(declarators: &str, name: &str) -> bool {
    crate::front::names::split_top_level(declarators)
        .into_iter()
        .any(|d| {
            let d = d.trim();
            let word: String = d
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            word == name
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::arch::{Arch, BankMode, Target};
    use crate::bank::engine::{WarpAccess, wavefronts};

    /// Every kernel of the H200 measurement (`hw/wmma/sm90_wmma.tsv`): a fragment banklint
    /// models gives the measured instructions and wavefronts; one it does not is refused.
    #[test]
    fn every_measured_fragment_is_predicted_or_refused() {
        let target = Target::new(Arch::parse("sm_90").expect("sm_90"), BankMode::FourByte);
        let (mut predicted, mut refused) = (0, 0);
        for line in include_str!("../../../hw/wmma/sm90_wmma.tsv").lines() {
            let c: Vec<&str> = line.split('\t').collect();
            if line.starts_with('#') || c[0] == "kernel" {
                continue;
            }
            let num = |k: usize| c[k].parse::<i64>().expect("a number");
            let f = Fragment {
                usage: c[2].to_string(),
                m: num(3),
                n: num(4),
                k: num(5),
                element: c[6].to_string(),
                layout: (c[1] == "ab").then(|| c[7].to_string()),
            };
            let store = c[1] == "acc_store";
            let (inst, waves) = match (c[1], num(11)) {
                ("ab", 0) | ("acc_load", _) => (num(9), num(12)),
                ("ab", ldsm) => (ldsm, num(12)),
                // The store probe reads one word back.
                _ => (num(10), num(13)),
            };
            match plan(&f, c[7], num(8), store) {
                Ok((op, width, instructions)) => {
                    let total: u32 = (instructions.iter())
                        .map(|offsets| {
                            let mut lanes = [None; 32];
                            for (l, o) in offsets.iter().enumerate() {
                                lanes[l] = Some(*o as u64);
                            }
                            let access = WarpAccess {
                                width,
                                op,
                                offsets: lanes,
                            };
                            wavefronts(target, &access).wavefronts
                        })
                        .sum();
                    assert_eq!(
                        (instructions.len() as i64, i64::from(total)),
                        (inst, waves),
                        "{line}"
                    );
                    predicted += 1;
                }
                Err(_) => {
                    let modeled_kind = matches!(c[6], "half")
                        && (c[1] == "ab" || c[7] == "mem_row_major")
                        && (c[1] == "ab" || (num(3), num(4)) == (16, 16));
                    assert!(!modeled_kind, "refused a kind banklint models: {line}");
                    refused += 1;
                }
            }
        }
        assert_eq!((predicted, refused), (144, 80));
    }

    #[test]
    fn a_layout_banklint_cannot_read_is_refused_not_guessed() {
        let f = |layout: &str| Fragment {
            usage: "matrix_a".into(),
            m: 16,
            n: 16,
            k: 16,
            element: "half".into(),
            layout: Some(layout.into()),
        };
        // A template parameter no launch binds is neither layout.
        let why = plan(&f("INPUT_LAYOUT"), "INPUT_LAYOUT", 24, false).err();
        assert!(why.is_some_and(|w| w.contains("`INPUT_LAYOUT`")));
        assert!(plan(&f("col_major"), "col_major", 24, false).is_ok());
        // An accumulator's layout is the call's: a variable is not one.
        let acc = Fragment {
            usage: "accumulator".into(),
            layout: None,
            element: "float".into(),
            ..f("x")
        };
        assert!(plan(&acc, "output_layout", 16, true).is_err());
        assert!(plan(&acc, "mem_col_major", 16, true).is_ok());
    }

    #[test]
    fn the_help_names_the_smallest_clean_leading_dimension() {
        let target = Target::new(Arch::parse("sm_90").expect("sm_90"), BankMode::FourByte);
        let fragment = |usage: &str, element: &str, layout: Option<&str>| Fragment {
            usage: usage.into(),
            m: 16,
            n: 16,
            k: 16,
            element: element.into(),
            layout: layout.map(str::to_string),
        };
        let a = fragment("matrix_a", "half", Some("row_major"));
        // 32-byte rows are 2-way; 48-byte ones (ldm 24) clean, the measured ideal.
        let fix = clean_leading_dimension(target, &a, "row_major", 16, false).expect("a fix");
        assert_eq!((fix.ldm, fix.bytes, fix.pad), (16, 32, 8));
        assert!(clean_leading_dimension(target, &a, "row_major", 24, false).is_none());
        assert_eq!(
            fix.help("16", "tile"),
            "help: the fragment's lines are 16 elements (32 bytes) apart; with a leading dimension of 24 (`16 + 8`), and the rows of `tile` padded to match, every instruction of this call is conflict-free"
        );
        assert!(
            fix.help("LDM", "tile")
                .contains("`LDM` = 16 elements (32 bytes)")
        );
        // A float accumulator stored column-major: 20 (measured clean), not 16 (4-way).
        let c = fragment("accumulator", "float", None);
        let fix = clean_leading_dimension(target, &c, "mem_col_major", 16, true).expect("a fix");
        assert_eq!(fix.pad, 4);
    }

    #[test]
    fn ldmatrix_blocks_are_16_lines_by_32_bytes() {
        // matrix_a 16x16 row-major: one .x4.
        let x4 = ldmatrix_offsets(16, 32, 48);
        assert_eq!(x4.len(), 1);
        assert_eq!(x4[0].0, 4);
        assert_eq!(x4[0].1[..9], [0, 48, 96, 144, 192, 240, 288, 336, 16]);
        // matrix_a 32x8 row-major: two .x4, the second 16 lines on; column-major (16 lines of
        // 64 bytes): two, the second 32 bytes on.
        let rows = ldmatrix_offsets(32, 32, 32);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].1[0], 16 * 32);
        let cols = ldmatrix_offsets(16, 64, 64);
        assert_eq!(cols.len(), 2);
        assert_eq!(cols[1].1[0], 32);
        // 8-bit matrix_a 16x16 row-major: 16 lines of 16 bytes, one .x2.
        let x2 = ldmatrix_offsets(16, 16, 16);
        assert_eq!((x2.len(), x2[0].0), (1, 2));
    }

    #[test]
    fn declarations_are_found_directly_and_through_an_alias() {
        let text = "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2], b;\n\
                    using Acc = nvcuda::wmma::fragment<wmma::accumulator, 16, 16, 16, float>;\nAcc c;\n";
        assert_eq!(
            declared_fragment(text, "b").as_deref(),
            Some("wmma::matrix_a, 16, 16, 16, half, wmma::row_major")
        );
        assert!(declared_fragment(text, "c").is_none());
        assert_eq!(declared_type(text, "c").as_deref(), Some("Acc"));
        assert_eq!(
            aliased_fragment(text, "Acc").as_deref(),
            Some("wmma::accumulator, 16, 16, 16, float")
        );
    }
}
