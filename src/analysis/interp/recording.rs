//! Recording accesses: each `__shared__` access becomes, warp by warp, the per-lane index
//! tuples of its site, with the layout of the element reached.

use super::*;

/// What an access expression reaches: the array, the indices (evaluated, and as written), the
/// element type and the members selected from it.
pub(super) struct AccessTarget {
    pub array: usize,
    pub indices: Vec<Lanes>,
    pub texts: Vec<IndexText>,
    pub elem: Type,
    pub members: Vec<String>,
}

/// An index as the user wrote it, for messages: written out only when one is needed.
#[derive(Clone)]
pub(super) enum IndexText {
    /// The source text at a span, quoted.
    Source(Span),
    /// Text built where the access was resolved.
    Written(String),
}

/// Why padding is blocked when an access leaves its row (see `ArrayEntry::padding_blocked`).
pub(super) const LEAVES_ROW: &str = "an access reaches the array through an index or pointer that runs past a row, so it assumes the row length the padding changes";

/// Why padding is blocked when the array is handed to a parameter typed with its row length.
pub(super) const ROW_TYPE: &str = "the array is passed to a parameter whose type spells its row length, which the padding changes";

impl<'a, 'p> Analyzer<'a, 'p> {
    /// Records one shared-memory access (an array subscript or a pointer dereference) and
    /// returns the (unknown) value it loads.
    pub(super) fn shared_access(&mut self, e: &Node<Expression>, op: Op, mask: &[bool]) -> Lanes {
        self.shared_access_as(e, &[op], mask)
    }

    /// Records a shared-memory access as each of `ops` (a compound assignment or `++` is a
    /// load and a store), evaluating its indices once, so their side effects happen once.
    pub(super) fn shared_access_as(
        &mut self,
        e: &Node<Expression>,
        ops: &[Op],
        mask: &[bool],
    ) -> Lanes {
        let Some(target) = self.resolve_access(e, mask) else {
            return Lanes::unknown("shared data");
        };
        let mut loaded = Lanes::unknown("shared data");
        for &op in ops {
            let v = self.record_target(e.span, &target, op, mask);
            if op == Op::Load {
                loaded = v;
            }
        }
        loaded
    }

    /// The array, evaluated indices and element an access expression (a subscript, a
    /// dereference, a member through either) reaches, if it reaches shared memory.
    pub(super) fn resolve_access(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
    ) -> Option<AccessTarget> {
        if let Some((array, index_exprs, members)) = self.shared_ref(e) {
            let indices: Vec<Lanes> = index_exprs.iter().map(|x| self.eval(x, mask)).collect();
            let texts: Vec<IndexText> = index_exprs
                .iter()
                .map(|x| IndexText::Source(x.span))
                .collect();
            let elem = self.arrays[array].decl.elem.clone();
            return Some(AccessTarget {
                array,
                indices,
                texts,
                elem,
                members,
            });
        }
        let (ptr, members) = if self.is_member_array_element(e) {
            (self.member_array_element(e, mask)?, Vec::new())
        } else if let Some((inner, members)) = self.nested_member(e) {
            // `q[i].p[1].g`: a member of an element of a member array.
            (self.member_array_element(inner, mask)?, members)
        } else {
            match self.pointer_target(e, mask) {
                Some(found) => found,
                // A pointer into shared memory that does not lead to one place (`(c ? a :
                // b)[i]` with `c` differing between lanes): said, not dropped.
                None if self.is_pointer_access(e) => {
                    self.note_unfollowed(
                        e.span,
                        format!("`{}` goes through a pointer into shared memory that banklint cannot follow to one place for every thread (a choice between arrays that differs between threads, or arithmetic it does not evaluate); this access is not analyzed", self.source_text(e.span)),
                    );
                    return None;
                }
                None => return None,
            }
        };
        let (array, indices, texts, elem) = self.place_parts(ptr, IndexText::Source(e.span), mask);
        Some(AccessTarget {
            array,
            indices,
            texts,
            elem,
            members,
        })
    }

    pub(super) fn record_target(
        &mut self,
        at: Span,
        t: &AccessTarget,
        op: Op,
        mask: &[bool],
    ) -> Lanes {
        self.record_access(
            at, t.array, &t.indices, &t.texts, &t.elem, &t.members, op, mask,
        )
    }

    /// Records an access at `at` to the place `p` points at, its index written as `text`;
    /// returns the array. A barrier operation other than `init`, or a TMA copy, costs no
    /// wavefront wherever its operand is, so an address the analysis cannot resolve does not
    /// leave it unknown: its place is taken as the array's start.
    pub(super) fn record_at_pointer(
        &mut self,
        at: Span,
        p: SharedPointer,
        text: IndexText,
        op: Op,
        mask: &[bool],
    ) -> usize {
        let (array, indices, texts, elem) = self.place_parts(p, text, mask);
        let indices = match op {
            Op::Mbarrier { init: false } | Op::TensorCopy { .. } => {
                vec![Lanes::int(0); indices.len()]
            }
            _ => indices,
        };
        let target = AccessTarget {
            array,
            indices,
            texts,
            elem,
            members: Vec::new(),
        };
        self.record_target(at, &target, op, mask);
        array
    }

    /// Where code at `at` of a header's function stands (`` `f` at h.cuh:12 ``), when the
    /// analysis is inside one; such code is reported at the call in the analyzed file.
    pub(super) fn origin(&self, at: Span) -> Option<String> {
        let (_, header) = self.home_call.as_ref()?;
        let function = &self.function;
        let line = self.unit.line_of(self.span(at).start);
        Some(if header.is_empty() {
            format!("`{function}` at line {line}")
        } else {
            format!("`{function}` at {header}:{line}")
        })
    }

    /// Where `at` is written, as a note names it: `line 12` in the analyzed file, `k.cuh:12`
    /// in a header's function.
    pub(super) fn place(&self, at: Span) -> String {
        place_in(self.unit, self.headers, self.span(at).start)
    }

    /// The `return` at `at` taken by the lanes of `mask`. Only its unit and offset are kept:
    /// a callee's returns are many and forgotten when it ends, so the place is written out
    /// only for an access every thread has returned before.
    pub(super) fn take_exit(&mut self, at: Span, mask: &[bool]) {
        if mask.iter().any(|&m| m) {
            self.last_exit = Some((self.unit, self.span(at).start));
        }
        self.exited.iter_mut().zip(mask).for_each(|(x, m)| *x |= m);
    }

    /// Why no lane runs here, when banklint knows: every thread has returned, or a condition
    /// no running thread passes.
    fn unreached_why(&self) -> Option<String> {
        if self.exited.iter().all(|&e| e)
            && let Some((unit, offset)) = self.last_exit
        {
            let at = place_in(unit, self.headers, offset);
            return Some(format!(
                "every thread has returned before it (the last at the `return` on {at})"
            ));
        }
        self.switched_off.last().cloned()
    }

    /// Where a site at `at` is reported, and its ordinal among sites reported there.
    pub(super) fn site_place(&self, at: Span) -> (Range<usize>, usize) {
        match &self.home_call {
            // Accesses in a header's function are reported at the call in the analyzed file,
            // one site per access of the function.
            Some((call, _)) => (call.clone(), self.span(at).start + 1),
            None if self.span_override.is_some() => (self.span(at), at.start),
            None => (self.span(at), 0),
        }
    }

    /// Where a site at `at` is reported, and its key.
    fn site_key(&self, at: Span, op: Op, array: usize) -> (Range<usize>, SiteKey) {
        let (span, sub) = self.site_place(at);
        let key = SiteKey {
            start: span.start,
            end: span.end,
            op,
            sub,
            decl: self.arrays[array].decl.name_span.start,
        };
        (span, key)
    }

    /// Records why padding `array` (or the array it views) could change what the code
    /// means; the first reason found is kept.
    pub(super) fn block_padding(&mut self, array: usize, why: &'static str) {
        let a = self.arrays[array].byte_view_of.unwrap_or(array);
        self.arrays[a].padding_blocked.get_or_insert(why);
    }

    /// Marks the site recorded at `at` as not analyzable, for `reason`.
    /// Gives the site at `at` the `help:` line that says how to clear its conflict.
    pub(super) fn set_site_hint(&mut self, at: Span, op: Op, array: usize, hint: String) {
        let (_, key) = self.site_key(at, op, array);
        if let Some(site) = self.sites.get_mut(&key) {
            site.hint.get_or_insert(hint);
        }
    }

    pub(super) fn mark_site_unknown(&mut self, at: Span, op: Op, array: usize, reason: String) {
        let (_, key) = self.site_key(at, op, array);
        if let Some(site) = self.sites.get_mut(&key) {
            site.unknown.get_or_insert(reason);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_access(
        &mut self,
        at: Span,
        array: usize,
        indices: &[Lanes],
        index_texts: &[IndexText],
        elem: &Type,
        members: &[String],
        op: Op,
        mask: &[bool],
    ) -> Lanes {
        // An access costs like a statement per lane (and more: its patterns are recorded), so
        // a loop body of many accesses uses up the loop budget sooner.
        self.spend(4 * self.n as u64);
        self.footprint
            .insert(self.arrays[array].byte_view_of.unwrap_or(array));
        // An innermost index past its row (`t[0][ty * 32 + tx]`) reaches what a padding moves.
        let row = self.arrays[array]
            .layout
            .as_ref()
            .filter(|l| l.dims.len() >= 2)
            .and_then(|l| l.dims.last().copied().flatten());
        if let (Some(len), Some(inner)) = (row, indices.last())
            && (0..self.n).any(|t| mask[t] && inner.const_at(t).is_some_and(|i| i < 0 || i >= len))
        {
            self.block_padding(array, LEAVES_ROW);
        }
        let (span, key) = self.site_key(at, op, array);
        // Element type after member selection.
        let crate::analysis::types::FieldPath {
            offset: member_offset,
            ty,
            problem: member_problem,
            ..
        } = elem.field_path(members);
        let pieces = ty.pieces();
        let width = pieces.as_ref().map_or(4, |p| p.0);
        let trips_unknown = self.symbolic_loops > 0;
        if !self.sites.contains_key(&key) {
            let site = Site {
                span: span.clone(),
                op,
                array,
                function: self.function.clone(),
                width,
                patterns: HashMap::default(),
                unknown: None,
                trips_unknown: false,
                assumptions: BTreeSet::new(),
                origin: self.origin(at),
                unreached: None,
                hint: None,
            };
            self.sites.insert(key.clone(), site);
        }
        // Said once per site: the first execution no lane reaches.
        let unreached = (none(mask) && self.sites.get(&key).is_some_and(|s| s.unreached.is_none()))
            .then(|| self.unreached_why())
            .flatten();
        let Some(site) = self.sites.get_mut(&key) else {
            return Lanes::unknown("shared data");
        };
        site.trips_unknown |= trips_unknown;
        if none(mask) {
            if site.unreached.is_none() {
                site.unreached = unreached;
            }
            return Lanes::unknown("shared data");
        }
        // Most executions of a site repeat its assumptions: copied only when new.
        for a in &self.assumptions {
            if !site.assumptions.contains(a) {
                site.assumptions.insert(a.clone());
            }
        }
        // An address holding the result of a function banklint has not read rests on taking
        // that result for one value of the warp (a lane index would be another access).
        if !self.unread_results.is_empty()
            && let Some(t) = mask.iter().position(|&m| m)
        {
            for (_, terms) in indices.iter().filter_map(|i| i.affine_at(t)) {
                for name in terms.iter().filter_map(|(s, _)| self.unread_results.get(s)) {
                    let said = format!(
                        "`{name}`, which banklint has not read a definition of, was taken to return one value for the warp"
                    );
                    if !site.assumptions.contains(&said) {
                        site.assumptions.insert(said);
                    }
                }
            }
        }
        if let Some(p) = member_problem
            .or_else(|| self.arrays[array].layout_problem.clone())
            .or_else(|| pieces.is_none().then(|| ty.size_problem()))
        {
            site.unknown.get_or_insert(p);
            return Lanes::unknown("shared data");
        }
        let (_, piece_offsets) = pieces.unwrap_or((4, vec![0]));
        let normalize = !shift_matters(
            self.target,
            self.arrays[array]
                .layout
                .as_ref()
                .map_or(1, |l| l.elem_size),
        );
        let warps = self.n.div_ceil(WARP_SIZE);
        let rank = indices.len();
        for w in 0..warps {
            let mut pattern = Pattern {
                active: 0,
                rank,
                indices: vec![0; WARP_SIZE * rank],
                member_offset,
                uniform_shift: vec![0; rank],
            };
            // Every active lane must have the first one's symbolic terms, so that they only
            // shift the warp as a whole.
            let mut first_thread: Option<usize> = None;
            let mut problem = None;
            'lanes: for l in 0..WARP_SIZE {
                let t = w * WARP_SIZE + l;
                if t >= self.n || !mask[t] {
                    continue;
                }
                for (d, idx) in indices.iter().enumerate() {
                    match idx.affine_at(t) {
                        Some((constant, terms)) => {
                            pattern.indices[l * rank + d] = constant;
                            pattern.uniform_shift[d] =
                                terms.iter().fold(pattern.uniform_shift[d], |g, (_, c)| {
                                    crate::bank::layout::gcd(g, *c)
                                });
                        }
                        None => {
                            let r = match &*idx.get(t) {
                                Value::Unknown(r) => r.clone(),
                                Value::Affine(_) => Rc::from(""),
                            };
                            problem = Some(format!(
                                "the index {} cannot be resolved: {r}",
                                index_texts
                                    .get(d)
                                    .map_or(String::new(), |t| self.written_index(t))
                            ));
                            break 'lanes;
                        }
                    }
                }
                let terms = |thread: usize, d: usize| {
                    indices[d]
                        .affine_at(thread)
                        .map_or(&[][..], |(_, terms)| terms)
                };
                match first_thread {
                    None => first_thread = Some(t),
                    Some(f) if (0..rank).any(|d| terms(f, d) != terms(t, d)) => {
                        let differing: BTreeSet<String> = (0..rank)
                            .flat_map(|d| terms(f, d).iter().chain(terms(t, d).iter()))
                            .map(|(s, _)| format!("`{}`", self.syms.name(*s)))
                            .collect();
                        problem = Some(format!(
                            "the stride between lanes depends on {}",
                            differing.into_iter().collect::<Vec<_>>().join(", ")
                        ));
                        break 'lanes;
                    }
                    _ => {}
                }
                pattern.active |= 1 << l;
            }
            if let Some(p) = problem {
                if let Some(site) = self.sites.get_mut(&key) {
                    site.unknown.get_or_insert(p);
                }
                return Lanes::unknown("shared data");
            }
            if pattern.active == 0 {
                continue;
            }
            let first_lane = pattern.active.trailing_zeros() as usize;
            let first: Vec<i64> =
                pattern.indices[first_lane * rank..(first_lane + 1) * rank].to_vec();
            let origin = if normalize {
                for l in 0..WARP_SIZE {
                    if pattern.active & (1 << l) != 0 {
                        for (d, f) in first.iter().enumerate() {
                            pattern.indices[l * rank + d] -= f;
                        }
                    }
                }
                first
            } else {
                vec![0; rank]
            };
            let sequence = self.sequence;
            let labels = &self.labels;
            let Some(site) = self.sites.get_mut(&key) else {
                break;
            };
            for &po in &piece_offsets {
                let piece = Pattern {
                    member_offset: member_offset + i64::from(po),
                    ..pattern.clone()
                };
                if let Some(stats) = site.patterns.get_mut(&piece) {
                    stats.count += 1;
                    continue;
                }
                // Named only when first seen: most warps repeat a known pattern.
                let label = std::iter::once(format!("warp {w}"))
                    .chain(labels.iter().map(loops::TripLabel::render))
                    .collect::<Vec<_>>()
                    .join(", ");
                site.patterns.insert(
                    piece,
                    PatternStats {
                        count: 1,
                        first_seen: sequence,
                        label,
                        origin: origin.clone(),
                    },
                );
            }
            self.sequence += 1;
        }
        let uniform_index = indices.iter().all(Lanes::is_uniform);
        if uniform_index {
            let what = format!("a value loaded from `{}`", self.arrays[array].decl.name);
            self.uniform_data(&what)
        } else {
            Lanes::Each(Rc::new(vec![
                Value::unknown(format!(
                    "it is data loaded from `{}`",
                    self.arrays[array].decl.name
                ));
                self.n
            ]))
        }
    }

    /// The explicit template arguments written after the name at `at` (`f<16, float>`), if any.
    pub(super) fn template_arguments_at(&self, at: usize) -> &[String] {
        self.unit
            .prepared
            .template_calls
            .iter()
            .find(|(off, _)| *off == at)
            .map_or(&[], |(_, args)| args.as_slice())
    }

    /// The template arguments written with the type name `name` at `at` (`lib::Pair<T,
    /// int>`: recorded where `Pair` is written, after the qualifier).
    pub(super) fn arguments_written_at(&self, name: &str, at: Span) -> Vec<String> {
        let start = self.span(at).start;
        let bare_at = name.rfind("__").map_or(start, |k| start + k + 2);
        match self.template_arguments_at(start) {
            [] => self.template_arguments_at(bare_at),
            found => found,
        }
        .to_vec()
    }

    pub(super) fn written_index(&self, t: &IndexText) -> String {
        match t {
            IndexText::Source(s) => self.index_text(*s),
            IndexText::Written(w) => w.clone(),
        }
    }

    pub(super) fn index_text(&self, s: Span) -> String {
        format!("`{}`", self.source_text(s))
    }
}

/// `line N` for an offset of the analyzed file's unit, `header:N` for one of a header's.
fn place_in(unit: &Unit<'_>, headers: &[(String, Unit<'_>)], offset: usize) -> String {
    let line = unit.line_of(offset);
    match (headers.iter()).find(|(_, u)| std::ptr::eq(u, unit)) {
        Some((name, _)) if !name.is_empty() => format!("{name}:{line}"),
        _ => format!("line {line}"),
    }
}
