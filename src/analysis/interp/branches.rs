//! Branches: a condition per lane or the same in the warp, an `if constexpr` settled at
//! compile time, and the join of what each side assigned and whether it left the function.

use super::loops::assigned_in_stmt;
use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    /// Whether `e` is a constant expression of the C++ program: literals, `sizeof`, and names
    /// of template arguments and constants (not of variables), through operators.
    pub(super) fn is_compile_time_expression(&mut self, e: &Node<Expression>) -> bool {
        match &e.node {
            Expression::Constant(_) | Expression::SizeOfTy(_) | Expression::SizeOfVal(_) => true,
            Expression::Identifier(id) => {
                let name = &id.node.name;
                self.lookup(name).is_none()
                    && (self
                        .template_values
                        .get(name)
                        .is_some_and(|v| v.as_const().is_some())
                        || matches!(name.as_str(), "true" | "false")
                        || self.named_constant(name).is_some())
            }
            Expression::UnaryOperator(u) => {
                matches!(
                    u.node.operator.node,
                    UnaryOperator::Plus
                        | UnaryOperator::Minus
                        | UnaryOperator::Complement
                        | UnaryOperator::Negate
                ) && self.is_compile_time_expression(&u.node.operand)
            }
            Expression::BinaryOperator(b) => {
                !matches!(
                    b.node.operator.node,
                    BinaryOperator::Index
                        | BinaryOperator::Assign
                        | BinaryOperator::AssignMultiply
                        | BinaryOperator::AssignDivide
                        | BinaryOperator::AssignModulo
                        | BinaryOperator::AssignPlus
                        | BinaryOperator::AssignMinus
                        | BinaryOperator::AssignShiftLeft
                        | BinaryOperator::AssignShiftRight
                        | BinaryOperator::AssignBitwiseAnd
                        | BinaryOperator::AssignBitwiseXor
                        | BinaryOperator::AssignBitwiseOr
                ) && self.is_compile_time_expression(&b.node.lhs)
                    && self.is_compile_time_expression(&b.node.rhs)
            }
            Expression::Conditional(c) => {
                self.is_compile_time_expression(&c.node.condition)
                    && self.is_compile_time_expression(&c.node.then_expression)
                    && self.is_compile_time_expression(&c.node.else_expression)
            }
            Expression::Cast(c) => self.is_compile_time_expression(&c.node.expression),
            _ => false,
        }
    }

    pub(super) fn exec_if(&mut self, i: &IfStatement, mask: &[bool]) {
        let c = self.eval(&i.condition, mask);
        // `if constexpr` with its condition settled: the other branch is not instantiated,
        // so nothing in it runs or is reported.
        let at = self.span(i.condition.span).start;
        // A plain `if` on a compile-time constant (`if (BroadcastAll)` with the template
        // argument `false`) likewise: the other side never runs in this instantiation, and
        // nvcc drops it. Not so for values banklint assumed (a launch's block, an `args(...)`):
        // there the side no thread reaches is said to be.
        if let Some(v) = c.as_const()
            && (self.unit.prepared.constexpr_ifs.binary_search(&at).is_ok()
                || self.is_compile_time_expression(&i.condition))
        {
            match (v != 0, &i.else_statement) {
                (true, _) => self.exec(&i.then_statement, mask),
                (false, Some(e)) => self.exec(e, mask),
                (false, None) => {}
            }
            return;
        }
        let line_of_condition = |a: &Self| a.line_of(i.condition.span);
        match &c {
            Lanes::Same(Value::Unknown(_)) | Lanes::Same(Value::Affine(_))
                if c.as_const().is_none() =>
            {
                self.exec_uniform_if(i, mask);
            }
            _ => {
                let mut then_mask = vec![false; self.n];
                let mut else_mask = vec![false; self.n];
                let mut unresolved = false;
                for t in 0..self.n {
                    if !mask[t] {
                        continue;
                    }
                    match c.const_at(t) {
                        Some(0) => else_mask[t] = true,
                        Some(_) => then_mask[t] = true,
                        None => {
                            then_mask[t] = true;
                            else_mask[t] = true;
                            unresolved = true;
                        }
                    }
                }
                if unresolved {
                    let line = line_of_condition(self);
                    let text = self.source_text(i.condition.span);
                    self.assumptions.push(format!(
                        "the condition `{text}` (line {line}) could not be resolved per lane; every lane was assumed to pass it"
                    ));
                    self.uncertain += 1;
                    let before = self.scopes.clone();
                    self.exec(&i.then_statement, &then_mask);
                    let after_then = std::mem::replace(&mut self.scopes, before);
                    if let Some(e) = &i.else_statement {
                        self.exec(e, &else_mask);
                    }
                    let lost = self.join_scopes(after_then, &then_mask, &else_mask, line);
                    self.note_mixed_pointers(lost, i.condition.span);
                    self.uncertain -= 1;
                    self.assumptions.pop();
                } else {
                    let reached = !none(mask);
                    self.exec_switched(&i.then_statement, &then_mask, reached, || {
                        (i.condition.span, "false")
                    });
                    if let Some(e) = &i.else_statement {
                        self.exec_switched(e, &else_mask, reached, || (i.condition.span, "true"));
                    }
                }
            }
        }
    }

    /// Runs one side of a per-lane branch; when threads reached the branch and none takes
    /// this side, the accesses in it say which condition switched them off.
    fn exec_switched(
        &mut self,
        side: &Node<Statement>,
        side_mask: &[bool],
        reached: bool,
        condition: impl Fn() -> (Span, &'static str),
    ) {
        if !(reached && none(side_mask)) {
            self.exec(side, side_mask);
            return;
        }
        let (at, value) = condition();
        let text = self.source_text(at);
        let place = self.place(at);
        self.switched_off.push(format!(
            "the condition `{text}` ({place}) is {value} for every thread that reaches it"
        ));
        self.exec(side, side_mask);
        self.switched_off.pop();
    }

    /// A branch on a warp-uniform unknown: each warp takes one side whole. Accesses on both
    /// sides are real (some warp, some block runs each). Variables the sides assign differ
    /// per path: on a path of this run the decided side alone runs; otherwise both run and
    /// what they assign is joined (and the branch is noted, for a run per side).
    fn exec_uniform_if(&mut self, i: &IfStatement, mask: &[bool]) {
        let at = self.span(i.condition.span).start;
        if let Some(d) = self.path.iter().find(|d| d.at == at) {
            if d.taken() {
                self.exec(&i.then_statement, mask);
            } else if let Some(e) = &i.else_statement {
                self.exec(e, mask);
            }
            return;
        }
        let mut assigned = assigned_in_stmt(&i.then_statement);
        if let Some(e) = &i.else_statement {
            assigned.extend(assigned_in_stmt(e));
        }
        if assigned.is_empty() {
            let before = self.exit_state();
            self.exec(&i.then_statement, mask);
            let after_then = self.exit_state();
            self.set_exit_state(before.clone());
            if let Some(e) = &i.else_statement {
                self.exec(e, mask);
            }
            self.join_exits(&before, &after_then);
            return;
        }
        let line = self.line_of(i.condition.span);
        // The branch's place among the decisions is taken before its sides run, so that an
        // outer branch comes before those nested in it; given back if it decides nothing.
        let slot = (self.path.is_empty()
            && self.decision_points.len() < MAX_DECISIONS
            && !self.decision_points.iter().any(|d| d.at == at))
        .then(|| {
            self.decision_points.push(Decision::branch(
                at,
                line,
                self.source_text(i.condition.span),
            ));
            self.decision_points.len() - 1
        });
        let before = self.scopes.clone();
        let exits_before = self.exit_state();
        self.exec(&i.then_statement, mask);
        let after_then = std::mem::replace(&mut self.scopes, before);
        let exits_after_then = self.exit_state();
        self.set_exit_state(exits_before.clone());
        if let Some(e) = &i.else_statement {
            self.exec(e, mask);
        }
        let (uniform_unknowns, decisive) = self.sides_differ(&after_then, &assigned);
        if let (Some(k), false) = (slot, decisive) {
            self.decision_points.remove(k);
        }
        let lost = self.join_scopes(after_then, mask, mask, line);
        self.note_mixed_pointers(lost, i.condition.span);
        // Each warp holds one side's value, whichever: a warp-uniform unknown still.
        for name in uniform_unknowns {
            let s = self.syms.fresh(format!(
                "`{name}` after the branch at line {line} (either side's value)"
            ));
            self.set_var(&name, &Lanes::Same(Value::sym(s)), mask);
        }
        self.join_exits(&exits_before, &exits_after_then);
    }

    /// How what the two sides of a uniform branch assigned differs: the names that are
    /// warp-uniform unknowns on both sides (their join is one: each warp holds one side's
    /// value), and whether any other difference remains, which only a run per side keeps.
    fn sides_differ(&self, then_scopes: &[Scope], assigned: &[String]) -> (Vec<String>, bool) {
        // A form over warp-uniform symbols, not a constant: what a run per side would keep
        // is no more. An unknown value is not one, though held once for every lane
        // (`Lanes::unknown`): nothing says each warp holds one value of it.
        let symbolic =
            |l: &Lanes| matches!(l, Lanes::Same(Value::Affine(a)) if !a.terms.is_empty());
        let mut uniform_unknowns = Vec::new();
        let mut decisive = false;
        for name in assigned {
            if uniform_unknowns.contains(name) {
                continue;
            }
            let then_b = then_scopes.iter().rev().find_map(|s| s.get(name.as_str()));
            match (then_b, self.lookup(name)) {
                (None, None) => {}
                (Some(Binding::Value(a)), Some(Binding::Value(b))) => {
                    if a.is_same_as(b) {
                        continue;
                    }
                    if symbolic(a) && symbolic(b) {
                        uniform_unknowns.push(name.clone());
                    } else {
                        decisive = true;
                    }
                }
                _ => decisive = true,
            }
        }
        (uniform_unknowns, decisive)
    }

    /// Which lanes have returned, and broken out of or continued each enclosing loop.
    fn exit_state(&self) -> ExitState {
        ExitState {
            exited: self.exited.clone(),
            loops: self
                .loops
                .iter()
                .map(|l| (l.brk.clone(), l.cont.clone()))
                .collect(),
        }
    }

    fn set_exit_state(&mut self, state: ExitState) {
        self.exited = state.exited;
        for (l, (brk, cont)) in self.loops.iter_mut().zip(state.loops) {
            l.brk = brk;
            l.cont = cont;
        }
    }

    /// After both sides of a branch on a warp-uniform unknown (the else side's exits now in
    /// force): a lane has left only if it left on both sides. A warp that returns on one side
    /// goes on past the branch on the other, and what follows must still be analyzed
    /// (`if (blockIdx.x * 16 >= M) return;` guards the rest of most kernels).
    fn join_exits(&mut self, before: &ExitState, after_then: &ExitState) {
        let mut one_side = false;
        let mut both = |now: &mut Vec<bool>, then: &[bool], was: &[bool]| {
            for ((x, t), b) in now.iter_mut().zip(then).zip(was) {
                one_side |= *x != *t;
                *x = *b || (*x && *t);
            }
        };
        both(&mut self.exited, &after_then.exited, &before.exited);
        for ((l, (tb, tc)), (bb, bc)) in self
            .loops
            .iter_mut()
            .zip(&after_then.loops)
            .zip(&before.loops)
        {
            both(&mut l.brk, tb, bb);
            both(&mut l.cont, tc, bc);
        }
        if one_side {
            self.maybe_exits += 1;
        }
    }

    /// Joins variables after an unresolved branch: a thread that may have taken either side
    /// keeps a value only if both sides agree.
    pub(super) fn join_scopes(
        &mut self,
        then_scopes: Vec<Scope>,
        then_mask: &[bool],
        else_mask: &[bool],
        line: usize,
    ) -> Vec<String> {
        let n = self.n;
        let mut lost = Vec::new();
        for (scope, then_scope) in self.scopes.iter_mut().zip(then_scopes) {
            if Rc::ptr_eq(scope, &then_scope) && n > 0 {
                // Neither side wrote here: each thread keeps its value, in the join's form.
                let changed: Vec<(String, Lanes)> = scope
                    .iter()
                    .filter_map(|(name, b)| match b {
                        Binding::Value(v) => Some((name.clone(), v.recompressed(n)?)),
                        _ => None,
                    })
                    .collect();
                if !changed.is_empty() {
                    let scope = Rc::make_mut(scope);
                    for (name, v) in changed {
                        scope.insert(name, Binding::Value(v));
                    }
                }
                continue;
            }
            for (name, binding) in Rc::make_mut(scope).iter_mut() {
                if let (Binding::Pointer(else_p), Some(Binding::Pointer(then_p))) =
                    (&*binding, then_scope.get(name))
                {
                    *binding = super::pointers::join_pointers(
                        then_p, else_p, then_mask, else_mask, name, line,
                    );
                    if matches!(binding, Binding::Opaque(_)) {
                        lost.push(name.clone());
                    }
                    continue;
                }
                // A struct held by value: member by member.
                if let (Binding::Object(else_o), Some(Binding::Object(then_o))) =
                    (&mut *binding, then_scope.get(name))
                {
                    if Rc::ptr_eq(&else_o.fields, &then_o.fields) {
                        continue;
                    }
                    let mut fields = (*else_o.fields).clone();
                    let names: std::collections::BTreeSet<String> =
                        (fields.keys().chain(then_o.fields.keys()))
                            .cloned()
                            .collect();
                    for member in names {
                        let shown = format!("{name}.{member}");
                        let joined = match (then_o.fields.get(&member), fields.get(&member)) {
                            (Some(Binding::Value(t)), Some(Binding::Value(e))) => Binding::Value(
                                join_value(&shown, t, e, then_mask, else_mask, line, n),
                            ),
                            // A value set on one side only.
                            (Some(Binding::Value(_)), None) | (None, Some(Binding::Value(_))) => {
                                Binding::Value(Lanes::unknown(format!(
                                    "`{shown}` depends on which side of the branch at line {line} a thread takes"
                                )))
                            }
                            // Anything else (a pointer an object keeps) as it was before
                            // objects were joined: the other side's.
                            _ => continue,
                        };
                        fields.insert(member, joined);
                    }
                    else_o.fields = Rc::new(fields);
                    continue;
                }
                let (Binding::Value(else_v), Some(Binding::Value(then_v))) =
                    (&*binding, then_scope.get(name))
                else {
                    continue;
                };
                *binding = Binding::Value(join_value(
                    name, then_v, else_v, then_mask, else_mask, line, n,
                ));
            }
        }
        lost
    }

    /// Says which pointers a branch left pointing into different arrays in different threads.
    fn note_mixed_pointers(&mut self, names: Vec<String>, at: Span) {
        for name in names {
            self.note_unfollowed(
                at,
                format!("after this branch `{name}` points into different shared arrays (or at different types) in different threads; banklint analyzes an access in one array, so the accesses through `{name}` after it are not analyzed"),
            );
        }
    }
}

/// See [`Analyzer::exit_state`].
#[derive(Clone)]
struct ExitState {
    exited: Vec<bool>,
    loops: Vec<(Vec<bool>, Vec<bool>)>,
}

/// A variable after an unresolved branch: a thread that may have taken either side keeps its
/// value only if both sides agree.
fn join_value(
    name: &str,
    then_v: &Lanes,
    else_v: &Lanes,
    then_mask: &[bool],
    else_mask: &[bool],
    line: usize,
    n: usize,
) -> Lanes {
    if then_v.is_same_as(else_v) {
        // Both sides left it as it was: every thread keeps its value.
        return else_v.recompressed(n).unwrap_or_else(|| else_v.clone());
    }
    if let Some(v) = Lanes::choose(then_v, else_v, then_mask, else_mask) {
        return v;
    }
    let joined: Vec<Value> = (0..n)
        .map(|t| {
            let (a, b) = (then_v.get(t), else_v.get(t));
            match (then_mask[t], else_mask[t]) {
                (true, true) if a != b => Value::unknown(format!(
                    "`{name}` depends on which side of the branch at line {line} a thread takes"
                )),
                (true, false) => a.into_owned(),
                _ => b.into_owned(),
            }
        })
        .collect();
    Lanes::from_values(joined)
}
