//! Loops: enumerated trip by trip when their bounds are known and the work budget allows,
//! else run with their induction variables made symbolic.

use super::*;
use crate::bank::layout::gcd;
use crate::limits::MAX_TRIP_PERIOD;

impl<'a, 'p> Analyzer<'a, 'p> {
    pub(super) fn exec_loop(
        &mut self,
        span: Span,
        cond: Option<&Node<Expression>>,
        step: Option<&Node<Expression>>,
        body: &Node<Statement>,
        body_first: bool,
        mask: &[bool],
    ) {
        if !none(mask) {
            let saved_scopes = self.scopes.clone();
            let saved_exited = self.exited.clone();
            let saved_last_exit = self.last_exit;
            let saved_sites = std::mem::take(&mut self.sites);
            if self.run_concrete_loop(span, cond, step, body, body_first, mask) {
                let new_sites = std::mem::replace(&mut self.sites, saved_sites);
                merge_sites(&mut self.sites, new_sites);
                return;
            }
            self.sites = saved_sites;
            self.scopes = saved_scopes;
            self.exited = saved_exited;
            self.last_exit = saved_last_exit;
        }
        self.run_symbolic_loop(span, cond, step, body, mask);
    }

    /// Enumerates the loop trip by trip. Returns false (leaving state to be restored) when a
    /// trip's condition is not known for every thread or the loop runs too long.
    pub(super) fn run_concrete_loop(
        &mut self,
        span: Span,
        cond: Option<&Node<Expression>>,
        step: Option<&Node<Expression>>,
        body: &Node<Statement>,
        body_first: bool,
        mask: &[bool],
    ) -> bool {
        let line = self.line_of(span);
        let step_vars: Rc<[String]> = step.map(assigned_in_expr).unwrap_or_default().into();
        self.loops.push(LoopCtl::new(self.n));
        let mut trips = 0u64;
        // Set once the loop's bound turns out to be warp-uniform but unknown.
        let mut assumed_bound = false;
        // What the body assigns, as it stood before the loop and after each trip: with an
        // unknown bound any of them may be what the code after the loop sees.
        let carried = assigned_in_stmt(body);
        let mut seen_values = vec![self.carried_values(&carried)];
        // Whether the condition has held in every thread at every trip (`while (true)`): such
        // a loop ends only at a `break` or `return`.
        let mut always_true = true;
        let ok = loop {
            // A trip count that turned out unknown: its first trips stand for all.
            if assumed_bound && trips >= ASSUMED_TRIPS {
                break true;
            }
            let running = self.live(mask);
            if !(body_first && trips == 0)
                && let Some(c) = cond
            {
                let v = self.eval(c, &running);
                always_true &= v.as_const().is_some_and(|k| k != 0);
                if v.is_uniform() && v.as_const().is_none() && !none(&running) {
                    // `size < n` with `n` a kernel parameter: every warp runs the same trips,
                    // how many is unknown. The first trips are analyzed, and the accesses say
                    // so; per-block totals are not given.
                    if trips >= ASSUMED_TRIPS || !self.bound_is_enumerable(&step_vars, &running) {
                        break trips > 0 && assumed_bound;
                    }
                    if !assumed_bound {
                        assumed_bound = true;
                        self.symbolic_loops += 1;
                        let text = self.source_text(c.span);
                        self.assumptions.push(format!(
                            "the bound `{text}` of the loop at line {line} is not known: its first {ASSUMED_TRIPS} trips (at most) were analyzed, so this is a lower bound"
                        ));
                    }
                } else {
                    let mut leaving = vec![false; self.n];
                    for t in 0..self.n {
                        if running[t] {
                            match v.const_at(t) {
                                Some(0) => leaving[t] = true,
                                Some(_) => {}
                                None => break,
                            }
                        }
                    }
                    if (0..self.n).any(|t| running[t] && v.const_at(t).is_none()) {
                        break false;
                    }
                    if let Some(l) = self.loops.last_mut() {
                        l.brk.iter_mut().zip(&leaving).for_each(|(b, x)| *b |= x);
                    }
                }
            }
            let running = self.live(mask);
            if none(&running) {
                break true;
            }
            trips += 1;
            if trips > MAX_TRIPS || !self.spend(self.n as u64) {
                break false;
            }
            let label = self.trip_label(line, trips, &step_vars, &running);
            let before = self.uniform_values(&step_vars, &running);
            let patterns_before = self.pattern_count();
            self.labels.push(label);
            let exits_before = self.maybe_exits;
            self.exec(body, &running);
            self.labels.pop();
            // `if (x == n) break;` with `n` a kernel parameter: the loop may end at any trip.
            // So may `while (true)` whose only ways out depend on data: run trip by trip, its
            // exits never resolve, and it would run to the trip limit.
            let on_data = always_true && self.loops.last().is_some_and(|l| l.maybe_left);
            if (self.maybe_exits != exits_before || on_data) && !assumed_bound {
                assumed_bound = true;
                self.symbolic_loops += 1;
                let on = if on_data {
                    "data (each thread's own values)"
                } else {
                    "a kernel parameter"
                };
                self.assumptions.push(format!(
                    "the loop at line {line} may end early at a `break` or `return` that depends on {on}: its first {ASSUMED_TRIPS} trips (at most) were analyzed, so this is a lower bound"
                ));
            }
            if let Some(l) = self.loops.last_mut() {
                l.cont.iter_mut().for_each(|c| *c = false);
            }
            if let Some(st) = step {
                let running = self.live(mask);
                self.eval(st, &running);
            }
            if seen_values.len() <= ASSUMED_TRIPS as usize + 1 {
                seen_values.push(self.carried_values(&carried));
            }
            // Every thread has left at a `break` (or `return`): the loop is done, and its
            // step ran for none of them.
            if none(&self.live(mask)) {
                break true;
            }
            // `s *= 1`: the step changed nothing, so every trip would be this one again.
            if before.is_some() && before == self.uniform_values(&step_vars, &running) {
                break false;
            }
            // With an unknown bound there are no totals to count: once a trip shows no new
            // warp pattern, later trips only repeat the ones seen.
            if assumed_bound
                && trips > 1
                && self.pattern_count() == patterns_before
                && !ring_unsettled(&seen_values)
            {
                break true;
            }
        };
        self.loops.pop();
        if assumed_bound {
            self.symbolic_loops -= 1;
            self.assumptions.pop();
            if ok {
                let at = self.span(span).start;
                self.join_carried(&carried, &seen_values, line, at);
            }
        }
        ok
    }

    /// The values of `names` bound as values now (absent: not a value here).
    fn carried_values(&self, names: &[String]) -> Vec<Option<Lanes>> {
        names
            .iter()
            .map(|n| match self.lookup(n) {
                Some(Binding::Value(v)) => Some(v.clone()),
                _ => None,
            })
            .collect()
    }

    /// After a loop whose trip count is unknown: a lane keeps a value the body assigns only
    /// if it had that value before the loop and after every trip analyzed; else it depends
    /// on how many trips run (`computed` set in the last trip, read after the loop). Values
    /// that cycle (`stage = 1 - stage`, `buf ^= 1`: double buffering; `stage = (stage + 1) %
    /// 3`: a ring of stages) are, after k trips, what they were after k modulo the cycle's
    /// length: the analysis runs once for each residue (see `Decision`), and the code after
    /// the loop sees each.
    fn join_carried(
        &mut self,
        names: &[String],
        seen: &[Vec<Option<Lanes>>],
        line: usize,
        at: usize,
    ) {
        let n = self.n;
        let decided = self
            .path
            .iter()
            .find(|d| d.at == at)
            .map(|d| d.choice as usize);
        // The values the body changes, as they stood before the loop and after each trip.
        let changing: Vec<(usize, Vec<Lanes>)> = (names.iter().enumerate())
            .filter_map(|(k, _)| {
                let versions: Vec<Lanes> = seen.iter().filter_map(|v| v[k].clone()).collect();
                let last = versions.last()?;
                (versions.len() == seen.len() && !versions.iter().all(|v| v.same_in(last, n)))
                    .then_some((k, versions))
            })
            .collect();
        // The loop's cycle: the least common multiple of the cycles of the values that have
        // one (the others depend on the trip count whatever it is).
        let cycles: Vec<Option<usize>> = (changing.iter())
            .map(|(_, versions)| trip_period(versions, n))
            .collect();
        let period = (changing.iter().zip(&cycles))
            .filter_map(|((_, versions), c)| c.map(|c| (c, versions.len())))
            .try_fold(1, |cycle, (own, seen)| {
                let both = cycle * own / gcd(cycle as i64, own as i64) as usize;
                (both <= MAX_TRIP_PERIOD && seen > both).then_some(both)
            })
            .filter(|&p| p > 1);
        for ((k, versions), cycle) in changing.iter().zip(&cycles) {
            let name = &names[*k];
            if let (Some(p), Some(r), Some(_)) = (period, decided, cycle)
                && r < p
            {
                self.set_var(name, &versions[r], &vec![true; n]);
                continue;
            }
            let reason: Rc<str> = Rc::from(format!(
                "`{name}` depends on how many trips the loop at line {line} runs"
            ));
            let last = &versions[versions.len() - 1];
            let joined: Vec<Value> = (0..n)
                .map(|t| {
                    let v = last.get(t);
                    if versions.iter().all(|other| other.get(t) == v) {
                        v.into_owned()
                    } else {
                        Value::Unknown(reason.clone())
                    }
                })
                .collect();
            let all = vec![true; n];
            self.set_var(name, &Lanes::Each(Rc::new(joined)), &all);
        }
        if let Some(p) = period
            && self.path.is_empty()
            && self.decision_points.len() < MAX_DECISIONS
            && !self.decision_points.iter().any(|d| d.at == at)
        {
            self.decision_points.push(Decision {
                at,
                line,
                condition: String::new(),
                choice: 0,
                choices: p as u32,
            });
        }
    }

    /// Distinct warp patterns recorded so far, over every site.
    pub(super) fn pattern_count(&self) -> usize {
        self.sites.values().map(|s| s.patterns.len()).sum()
    }

    /// Whether a loop with an unknown bound can still be followed trip by trip: its step
    /// changes only variables that hold one known value in every running thread.
    pub(super) fn bound_is_enumerable(&self, step_vars: &[String], running: &[bool]) -> bool {
        let first = running.iter().position(|&r| r).unwrap_or(0);
        !step_vars.is_empty()
            && step_vars.iter().all(|v| match self.lookup(v) {
                Some(Binding::Value(l)) => {
                    l.is_uniform() && l.const_at(first).is_some_and(|c| c.abs() < 1 << 24)
                }
                _ => false,
            })
    }

    /// The values of uniform integer variables, if every one has a single known value.
    pub(super) fn uniform_values(&self, vars: &[String], running: &[bool]) -> Option<Vec<i64>> {
        let first = running.iter().position(|&r| r)?;
        if vars.is_empty() {
            return None;
        }
        vars.iter()
            .map(|v| match self.lookup(v) {
                Some(Binding::Value(l)) if l.is_uniform() => l.const_at(first),
                _ => None,
            })
            .collect()
    }

    pub(super) fn trip_label(
        &self,
        line: usize,
        trip: u64,
        vars: &Rc<[String]>,
        running: &[bool],
    ) -> TripLabel {
        let first = running.iter().position(|&r| r).unwrap_or(0);
        let values = vars
            .iter()
            .map(|v| match self.lookup(v) {
                Some(Binding::Value(l)) if l.is_uniform() => l.const_at(first),
                _ => None,
            })
            .collect();
        TripLabel::Trip {
            line,
            trip,
            vars: vars.clone(),
            values,
        }
    }

    /// Runs the body once with every variable the loop changes made symbolic.
    pub(super) fn run_symbolic_loop(
        &mut self,
        span: Span,
        cond: Option<&Node<Expression>>,
        step: Option<&Node<Expression>>,
        body: &Node<Statement>,
        mask: &[bool],
    ) {
        let line = self.line_of(span);
        let mut changed = assigned_in_stmt(body);
        if let Some(s) = step {
            changed.extend(assigned_in_expr(s));
        }
        if let Some(c) = cond {
            changed.extend(assigned_in_expr(c));
        }
        changed.sort();
        changed.dedup();
        let trips = Value::sym(
            self.syms
                .fresh(format!("the trip count of the loop at line {line}")),
        );
        for name in &changed {
            let Some(Binding::Value(start)) = self.lookup(name).cloned() else {
                continue;
            };
            let widened = match single_increment(name, body, step) {
                Some(inc) => {
                    let inc_v = self.eval_pure(inc);
                    let k = Lanes::Same(trips.clone());
                    let delta = Lanes::binary(BinOp::Mul, &k, &inc_v, self.n, &mut self.syms);
                    Lanes::binary(BinOp::Add, &start, &delta, self.n, &mut self.syms)
                }
                None if start.is_uniform() => Lanes::Same(Value::sym(
                    self.syms
                        .fresh(format!("`{name}` in the loop at line {line}")),
                )),
                None => Lanes::unknown(format!(
                    "`{name}` changes on each trip through the loop at line {line}"
                )),
            };
            self.set_var(name, &widened, &vec![true; self.n]);
        }
        self.loops.push(LoopCtl::new(self.n));
        self.symbolic_loops += 1;
        self.labels.push(TripLabel::Any { line });
        let running = self.live(mask);
        let mut body_mask = running.clone();
        if let Some(c) = cond {
            let v = self.eval(c, &running);
            for (t, m) in body_mask.iter_mut().enumerate() {
                if v.const_at(t) == Some(0) {
                    *m = false;
                }
            }
        }
        self.exec(body, &body_mask);
        if let Some(st) = step {
            let running = self.live(mask);
            self.eval(st, &running);
        }
        self.labels.pop();
        self.symbolic_loops -= 1;
        self.loops.pop();
        for name in &changed {
            if let Some(Binding::Value(v)) = self.lookup(name).cloned() {
                let after = if v.is_uniform() {
                    Lanes::Same(Value::sym(
                        self.syms
                            .fresh(format!("`{name}` after the loop at line {line}")),
                    ))
                } else {
                    Lanes::unknown(format!(
                        "`{name}` after the loop at line {line} depends on its trip count"
                    ))
                };
                self.set_var(name, &after, &vec![true; self.n]);
            }
        }
    }
}

/// The shortest cycle the values after 0, 1, 2, ... trips repeat in, seen repeating at least
/// once (a value after `p` trips that is the one before the loop); `None` if there is none of
/// [`MAX_TRIP_PERIOD`] trips or fewer.
fn trip_period(versions: &[Lanes], n: usize) -> Option<usize> {
    (1..=MAX_TRIP_PERIOD.min(versions.len().saturating_sub(1)))
        .find(|&p| (versions.iter().enumerate()).all(|(i, v)| v.same_in(&versions[i % p], n)))
}

/// Whether more trips could show a ring of stages come round: a value the body changes that
/// is, before the loop and after each trip so far, one small integer for the warp (below
/// [`MAX_TRIP_PERIOD`]), a different one each time. (A ring's stages look alike to the warp
/// patterns, which would end the trips before the ring repeats; other values, pointers and
/// offsets, leave the trips to the patterns.)
fn ring_unsettled(seen: &[Vec<Option<Lanes>>]) -> bool {
    let Some(last) = seen.last() else {
        return false;
    };
    let period = MAX_TRIP_PERIOD as i64;
    seen.len() <= MAX_TRIP_PERIOD
        && (0..last.len()).any(|k| {
            let stages: Option<Vec<i64>> = (seen.iter())
                .map(|v| {
                    let l = v[k].as_ref()?;
                    (l.is_uniform()).then(|| l.const_at(0)).flatten()
                })
                .collect();
            stages.is_some_and(|s| {
                s.iter().all(|x| (0..period).contains(x))
                    && (1..s.len()).all(|i| !s[..i].contains(&s[i]))
            })
        })
}

/// Variables an expression assigns to.
fn assigned_in_expr(e: &Node<Expression>) -> Vec<String> {
    let mut out = Vec::new();
    collect_assigned_expr(e, &mut out);
    out
}

pub(super) fn assigned_in_stmt(s: &Node<Statement>) -> Vec<String> {
    let mut out = Vec::new();
    collect_assigned_stmt(s, &mut out);
    out
}

fn collect_assigned_expr(e: &Node<Expression>, out: &mut Vec<String>) {
    match &e.node {
        Expression::BinaryOperator(b) => {
            let assigns = !matches!(
                b.node.operator.node,
                BinaryOperator::Index
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide
                    | BinaryOperator::Modulo
                    | BinaryOperator::Plus
                    | BinaryOperator::Minus
                    | BinaryOperator::ShiftLeft
                    | BinaryOperator::ShiftRight
                    | BinaryOperator::Less
                    | BinaryOperator::Greater
                    | BinaryOperator::LessOrEqual
                    | BinaryOperator::GreaterOrEqual
                    | BinaryOperator::Equals
                    | BinaryOperator::NotEquals
                    | BinaryOperator::BitwiseAnd
                    | BinaryOperator::BitwiseXor
                    | BinaryOperator::BitwiseOr
                    | BinaryOperator::LogicalAnd
                    | BinaryOperator::LogicalOr
            );
            if assigns && let Expression::Identifier(id) = &b.node.lhs.node {
                out.push(id.node.name.clone());
            }
            collect_assigned_expr(&b.node.lhs, out);
            collect_assigned_expr(&b.node.rhs, out);
        }
        Expression::UnaryOperator(u) => {
            if matches!(
                u.node.operator.node,
                UnaryOperator::PreIncrement
                    | UnaryOperator::PostIncrement
                    | UnaryOperator::PreDecrement
                    | UnaryOperator::PostDecrement
            ) && let Expression::Identifier(id) = &u.node.operand.node
            {
                out.push(id.node.name.clone());
            }
            collect_assigned_expr(&u.node.operand, out);
        }
        Expression::Call(c) => c
            .node
            .arguments
            .iter()
            .for_each(|a| collect_assigned_expr(a, out)),
        Expression::Comma(list) => list.iter().for_each(|a| collect_assigned_expr(a, out)),
        Expression::Conditional(c) => {
            collect_assigned_expr(&c.node.condition, out);
            collect_assigned_expr(&c.node.then_expression, out);
            collect_assigned_expr(&c.node.else_expression, out);
        }
        Expression::Cast(c) => collect_assigned_expr(&c.node.expression, out),
        Expression::Member(m) => collect_assigned_expr(&m.node.expression, out),
        _ => {}
    }
}

fn collect_assigned_stmt(s: &Node<Statement>, out: &mut Vec<String>) {
    match &s.node {
        Statement::Compound(items) => {
            for i in items {
                match &i.node {
                    BlockItem::Statement(st) => collect_assigned_stmt(st, out),
                    BlockItem::Declaration(d) => {
                        for init in &d.node.declarators {
                            if let Some(Node {
                                node: Initializer::Expression(e),
                                ..
                            }) = &init.node.initializer
                            {
                                collect_assigned_expr(e, out);
                            }
                        }
                    }
                    BlockItem::StaticAssert(_) => {}
                }
            }
        }
        Statement::Expression(Some(e)) => collect_assigned_expr(e, out),
        Statement::If(i) => {
            collect_assigned_expr(&i.node.condition, out);
            collect_assigned_stmt(&i.node.then_statement, out);
            if let Some(e) = &i.node.else_statement {
                collect_assigned_stmt(e, out);
            }
        }
        Statement::While(w) => {
            collect_assigned_expr(&w.node.expression, out);
            collect_assigned_stmt(&w.node.statement, out);
        }
        Statement::DoWhile(w) => {
            collect_assigned_expr(&w.node.expression, out);
            collect_assigned_stmt(&w.node.statement, out);
        }
        Statement::For(f) => {
            if let ForInitializer::Expression(e) = &f.node.initializer.node {
                collect_assigned_expr(e, out);
            }
            if let Some(c) = &f.node.condition {
                collect_assigned_expr(c, out);
            }
            if let Some(st) = &f.node.step {
                collect_assigned_expr(st, out);
            }
            collect_assigned_stmt(&f.node.statement, out);
        }
        Statement::Switch(sw) => collect_assigned_stmt(&sw.node.statement, out),
        Statement::Labeled(l) => collect_assigned_stmt(&l.node.statement, out),
        Statement::Return(Some(e)) => collect_assigned_expr(e, out),
        _ => {}
    }
}

/// The increment `e` if `name` changes only by one `name += e` / `name++` (in the step, or
/// at the top level of the body), with `e` not changed by the loop.
fn single_increment<'e>(
    name: &str,
    body: &'e Node<Statement>,
    step: Option<&'e Node<Expression>>,
) -> Option<&'e Node<Expression>> {
    let in_body = assigned_in_stmt(body).iter().filter(|n| *n == name).count();
    let in_step = step.map_or(0, |s| {
        assigned_in_expr(s).iter().filter(|n| *n == name).count()
    });
    if in_body + in_step != 1 {
        return None;
    }
    let candidates: Vec<&Node<Expression>> = match (&body.node, step) {
        (_, Some(s)) if in_step == 1 => vec![s],
        (Statement::Compound(items), _) => items
            .iter()
            .filter_map(|i| match &i.node {
                BlockItem::Statement(Node {
                    node: Statement::Expression(Some(e)),
                    ..
                }) => Some(&**e),
                _ => None,
            })
            .collect(),
        (Statement::Expression(Some(e)), _) => vec![&**e],
        _ => return None,
    };
    let changed_in_loop = {
        let mut all = assigned_in_stmt(body);
        if let Some(s) = step {
            all.extend(assigned_in_expr(s));
        }
        all
    };
    for c in candidates {
        let found = match &c.node {
            Expression::BinaryOperator(b) if matches!(&b.node.lhs.node, Expression::Identifier(id) if id.node.name == name) => {
                match b.node.operator.node {
                    BinaryOperator::AssignPlus => Some(IncrementOf::Plus(&b.node.rhs)),
                    BinaryOperator::AssignMinus => Some(IncrementOf::Minus),
                    _ => None,
                }
            }
            Expression::UnaryOperator(u) if matches!(&u.node.operand.node, Expression::Identifier(id) if id.node.name == name) => {
                match u.node.operator.node {
                    UnaryOperator::PreIncrement | UnaryOperator::PostIncrement => {
                        Some(IncrementOf::One)
                    }
                    UnaryOperator::PreDecrement | UnaryOperator::PostDecrement => {
                        Some(IncrementOf::MinusOne)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match found {
            Some(IncrementOf::Plus(e)) => {
                let reads_changed = identifiers_in(e)
                    .iter()
                    .any(|i| changed_in_loop.contains(i));
                return (!reads_changed).then_some(e);
            }
            Some(IncrementOf::One) => return Some(&ONE_EXPR),
            Some(IncrementOf::Minus) | Some(IncrementOf::MinusOne) => return None,
            None => {}
        }
    }
    None
}

enum IncrementOf<'e> {
    Plus(&'e Node<Expression>),
    Minus,
    One,
    MinusOne,
}

pub(super) fn identifiers_in(e: &Node<Expression>) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(e: &Node<Expression>, out: &mut Vec<String>) {
        match &e.node {
            Expression::Identifier(id) => out.push(id.node.name.clone()),
            Expression::BinaryOperator(b) => {
                walk(&b.node.lhs, out);
                walk(&b.node.rhs, out);
            }
            Expression::UnaryOperator(u) => walk(&u.node.operand, out),
            Expression::Cast(c) => walk(&c.node.expression, out),
            Expression::Call(c) => c.node.arguments.iter().for_each(|a| walk(a, out)),
            Expression::Member(m) => walk(&m.node.expression, out),
            Expression::Conditional(c) => {
                walk(&c.node.condition, out);
                walk(&c.node.then_expression, out);
                walk(&c.node.else_expression, out);
            }
            _ => {}
        }
    }
    walk(e, &mut out);
    out
}

/// Where in one loop an access ran, for the label of a warp pattern; written out only for a
/// pattern seen first, as most trips repeat known ones.
#[derive(Clone)]
pub(super) enum TripLabel {
    /// A trip enumerated, with the uniform values its step variables had.
    Trip {
        line: usize,
        trip: u64,
        vars: Rc<[String]>,
        values: Vec<Option<i64>>,
    },
    /// The one symbolic run of a loop.
    Any { line: usize },
}

impl TripLabel {
    pub(super) fn render(&self) -> String {
        match self {
            TripLabel::Trip {
                line,
                trip,
                vars,
                values,
            } => {
                let values: Vec<String> = vars
                    .iter()
                    .zip(values)
                    .filter_map(|(v, c)| c.map(|c| format!("{v} = {c}")))
                    .collect();
                if values.is_empty() {
                    format!("trip {trip} of the loop at line {line}")
                } else {
                    format!(
                        "{} (trip {trip} of the loop at line {line})",
                        values.join(", ")
                    )
                }
            }
            TripLabel::Any { line } => format!("any trip of the loop at line {line}"),
        }
    }
}
