//! Parameter packs, where the front end recorded them (see `front::lower_packs`): a function
//! parameter pack binds each argument it takes as an element of its own, `xs...0`, `xs...1`,
//! and its length as `xs...` (names no source can spell); a template pack is the argument
//! list its binding holds (`Ns...` -> `4, 8`). An expansion `f(g(xs)...)` is rewritten as the
//! call `f(g(xs...0), g(xs...1))`, a fold `(xs + ...)` as `xs...0 + xs...1`, and
//! `sizeof...(xs)` is the length. Where the elements are not known, the value is unknown and
//! says so: the pattern alone is never taken for the whole.

use super::*;
use crate::front::lower_packs::Fold;

/// The name a pack's `i`-th element is bound under.
fn element(pack: &str, i: usize) -> String {
    format!("{pack}...{i}")
}

/// The name a function parameter pack's length is bound under.
fn length(pack: &str) -> String {
    format!("{pack}...")
}

/// Binds a function parameter pack: its elements, its length, and the pack's own name as a
/// value no index can use (C++ names it only where `...` expands it).
pub(super) fn bind_parameter_pack(
    frame: &mut HashMap<String, Binding, rustc_hash::FxBuildHasher>,
    name: &str,
    elements: Vec<Binding>,
) {
    frame.insert(
        length(name),
        Binding::Value(Lanes::int(elements.len() as i64)),
    );
    frame.insert(
        name.to_string(),
        Binding::Value(Lanes::unknown(format!(
            "`{name}` is a parameter pack, which names its elements only where `...` expands it"
        ))),
    );
    for (i, b) in elements.into_iter().enumerate() {
        frame.insert(element(name, i), b);
    }
}

/// Binds the length of a template pack deduced from a function parameter pack's arguments.
pub(super) fn bind_deduced_length(
    frame: &mut HashMap<String, Binding, rustc_hash::FxBuildHasher>,
    name: &str,
    len: usize,
) {
    frame.insert(length(name), Binding::Value(Lanes::int(len as i64)));
}

impl<'a, 'p> Analyzer<'a, 'p> {
    /// `sizeof...(P)` and folds; None for any other expression.
    pub(super) fn pack_value(&mut self, e: &Node<Expression>, mask: &[bool]) -> Option<Lanes> {
        let sites = &self.unit.prepared.packs;
        if sites.sizes.is_empty() && sites.folds.is_empty() {
            return None;
        }
        match &e.node {
            Expression::SizeOfTy(_) | Expression::SizeOfVal(_)
                if sites.is_size(self.span(e.span).start) =>
            {
                let Some(name) = sizeof_operand(e) else {
                    return Some(Lanes::unknown(
                        "`sizeof...` of something that is not a name",
                    ));
                };
                Some(match self.pack_length(&name) {
                    Some(n) => Lanes::int(n as i64),
                    None => Lanes::unknown(format!(
                        "`sizeof...({name})`: banklint does not know the elements of the pack `{name}` here (the call neither gives them nor deduces them from its arguments alone)"
                    )),
                })
            }
            Expression::BinaryOperator(_) | Expression::Comma(_) => {
                let fold = sites.fold_at(&self.span(e.span))?.clone();
                Some(self.fold(e, &fold, mask))
            }
            _ => None,
        }
    }

    /// An expansion or fold banklint cannot write out: its value is unknown, and what its
    /// pattern would have run (the calls, the accesses) is noted as not analyzed.
    pub(super) fn not_expanded(&mut self, at: Span, why: String) -> Lanes {
        self.note_unfollowed(
            at,
            format!("{why}: the shared-memory accesses it makes are not analyzed"),
        );
        Lanes::unknown(why)
    }

    /// How many elements the pack `name` has here: a function parameter pack's arguments, or
    /// a template pack's.
    fn pack_length(&self, name: &str) -> Option<usize> {
        if let Some(Binding::Value(v)) = self.lookup(&length(name)) {
            return v.as_const().and_then(|n| usize::try_from(n).ok());
        }
        self.template_pack(name).map(|items| items.len())
    }

    /// A template pack's arguments, as its binding (`Ns...` -> `4, 8`) writes them.
    fn template_pack(&self, name: &str) -> Option<Vec<String>> {
        let list = self.type_args.get(&length(name))?;
        Some(if list.trim().is_empty() {
            Vec::new()
        } else {
            crate::front::names::split_top_level(list)
                .into_iter()
                .map(|a| a.trim().to_string())
                .collect()
        })
    }

    /// `pattern` written once per element: the packs it names renamed to their `i`-th
    /// element. Err says why it cannot be (no pack it names is known, or two differ in length).
    fn expand_pattern(
        &mut self,
        pattern: &Node<Expression>,
        mask: &[bool],
    ) -> Result<Vec<Node<Expression>>, String> {
        let mut names = Vec::new();
        identifiers(pattern, &mut names);
        names.sort();
        names.dedup();
        let mut packs: Vec<(String, usize)> = Vec::new();
        for n in names {
            if let Some(len) = self.pack_length(&n) {
                packs.push((n, len));
            }
        }
        let Some(&(_, count)) = packs.first() else {
            return Err(
                "it expands a parameter pack (`...`) whose elements banklint does not know here"
                    .to_string(),
            );
        };
        if packs.iter().any(|(_, n)| *n != count) {
            return Err("it expands packs of different lengths together".to_string());
        }
        // A template value pack's elements are bound as template values of their own.
        for (name, _) in &packs {
            if self.lookup(&length(name)).is_some() {
                continue;
            }
            let items = self.template_pack(name).unwrap_or_default();
            for (i, item) in items.iter().enumerate() {
                let v = self.eval_text(item, pattern.span, mask, name);
                Rc::make_mut(&mut self.template_values).insert(element(name, i), v);
            }
        }
        Ok((0..count)
            .map(|i| {
                let renames: Vec<(String, String)> = packs
                    .iter()
                    .map(|(n, _)| (n.clone(), element(n, i)))
                    .collect();
                let mut copy = pattern.clone();
                rename(&mut copy, &renames);
                copy
            })
            .collect())
    }

    /// The call with each pack expansion among its arguments written out; None when it has
    /// none, Err when one cannot be.
    pub(super) fn expand_call_arguments(
        &mut self,
        call: &CallExpression,
        mask: &[bool],
    ) -> Option<Result<CallExpression, String>> {
        let sites = &self.unit.prepared.packs;
        if sites.expansions.is_empty()
            || !(call.arguments.iter()).any(|a| sites.is_expansion(self.span(a.span).start))
        {
            return None;
        }
        let mut arguments = Vec::new();
        for a in &call.arguments {
            if self
                .unit
                .prepared
                .packs
                .is_expansion(self.span(a.span).start)
            {
                match self.expand_pattern(a, mask) {
                    Ok(elements) => arguments.extend(elements),
                    Err(why) => return Some(Err(why)),
                }
            } else {
                arguments.push(a.clone());
            }
        }
        Some(Ok(CallExpression {
            callee: call.callee.clone(),
            arguments,
        }))
    }

    /// A fold: its chain of the operator over the pattern's elements, with the initial
    /// value where one is written, associated as the fold's direction says.
    fn fold(&mut self, e: &Node<Expression>, fold: &Fold, mask: &[bool]) -> Lanes {
        // lang-c's span of an operand may take the blanks after it.
        let text = &self.unit.prepared.text;
        let find = |r: &Option<Range<usize>>, me: &Self| {
            r.as_ref().and_then(|r| {
                let is_operand = |s: Span| {
                    let s = me.span(s);
                    s.start == r.start
                        && s.end >= r.end
                        && text.get(r.end..s.end).is_some_and(|t| t.trim().is_empty())
                };
                find_by_span(e, &is_operand).cloned()
            })
        };
        let (left, right) = (find(&fold.left, self), find(&fold.right, self));
        let names_pack = |x: &Option<Node<Expression>>, me: &Self| {
            x.as_ref().is_some_and(|x| {
                let mut names = Vec::new();
                identifiers(x, &mut names);
                names.iter().any(|n| me.pack_length(n).is_some())
            })
        };
        // `(pattern op ...)` and `(pattern op ... op init)` fold to the right.
        let (pattern, init, to_right) = if names_pack(&left, self) {
            (left, right, true)
        } else if names_pack(&right, self) {
            (right, left, false)
        } else {
            return self.not_expanded(
                e.span,
                "a fold over a parameter pack whose elements banklint does not know here".into(),
            );
        };
        let Some(pattern) = pattern else {
            return self.not_expanded(e.span, "a fold banklint could not take apart".into());
        };
        let elements = match self.expand_pattern(&pattern, mask) {
            Ok(x) => x,
            Err(why) => return self.not_expanded(e.span, format!("a fold: {why}")),
        };
        let mut operands: Vec<Node<Expression>> = elements;
        if let Some(i) = init {
            if to_right {
                operands.push(i);
            } else {
                operands.insert(0, i);
            }
        }
        if operands.is_empty() {
            // An empty unary fold has a value only for these three.
            return match fold.op.as_str() {
                "&&" => Lanes::int(1),
                "||" => Lanes::int(0),
                "," => Lanes::int(0),
                op => Lanes::unknown(format!("a fold over `{op}` of an empty pack")),
            };
        }
        // The chain spans the pattern, not the fold, which would fold it again.
        let span = pattern.span;
        let chain = if fold.op == "," {
            Node::new(Expression::Comma(Box::new(operands)), span)
        } else {
            let Some(op) = binary_operator(&fold.op) else {
                return Lanes::unknown(format!("a fold over `{}`", fold.op));
            };
            let join = |l: Node<Expression>, r: Node<Expression>| {
                let b = BinaryOperatorExpression {
                    operator: Node::new(op.clone(), span),
                    lhs: Box::new(l),
                    rhs: Box::new(r),
                };
                Node::new(
                    Expression::BinaryOperator(Box::new(Node::new(b, span))),
                    span,
                )
            };
            if to_right {
                let mut it = operands.into_iter().rev();
                let last = it.next().expect("not empty");
                it.fold(last, |acc, x| join(x, acc))
            } else {
                let mut it = operands.into_iter();
                let first = it.next().expect("not empty");
                it.fold(first, join)
            }
        };
        self.eval(&chain, mask)
    }
}

/// The name `sizeof...(P)` counts (lang-c reads it as a type or as a value).
fn sizeof_operand(e: &Node<Expression>) -> Option<String> {
    match &e.node {
        Expression::SizeOfVal(v) => match &v.node.0.node {
            Expression::Identifier(id) => Some(id.node.name.clone()),
            _ => None,
        },
        Expression::SizeOfTy(t) => {
            let t = &t.node.0.node;
            match (t.specifiers.as_slice(), &t.declarator) {
                ([s], None) => match &s.node {
                    SpecifierQualifier::TypeSpecifier(ts) => match &ts.node {
                        TypeSpecifier::TypedefName(id) => Some(id.node.name.clone()),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// The operator a fold writes, as lang-c's.
fn binary_operator(op: &str) -> Option<BinaryOperator> {
    use BinaryOperator as B;
    Some(match op {
        "+" => B::Plus,
        "-" => B::Minus,
        "*" => B::Multiply,
        "/" => B::Divide,
        "%" => B::Modulo,
        "<<" => B::ShiftLeft,
        ">>" => B::ShiftRight,
        "&" => B::BitwiseAnd,
        "|" => B::BitwiseOr,
        "^" => B::BitwiseXor,
        "&&" => B::LogicalAnd,
        "||" => B::LogicalOr,
        "<" => B::Less,
        ">" => B::Greater,
        "<=" => B::LessOrEqual,
        ">=" => B::GreaterOrEqual,
        "==" => B::Equals,
        "!=" => B::NotEquals,
        _ => return None,
    })
}

/// The sub-expressions of `e` that are each of its parts: what a walk descends into.
fn parts(e: &Expression) -> Vec<&Node<Expression>> {
    match e {
        Expression::Call(c) => std::iter::once(&*c.node.callee)
            .chain(c.node.arguments.iter())
            .collect(),
        Expression::Member(m) => vec![&*m.node.expression],
        Expression::UnaryOperator(u) => vec![&*u.node.operand],
        Expression::BinaryOperator(b) => vec![&*b.node.lhs, &*b.node.rhs],
        Expression::Conditional(c) => vec![
            &*c.node.condition,
            &*c.node.then_expression,
            &*c.node.else_expression,
        ],
        Expression::Comma(list) => list.iter().collect(),
        Expression::Cast(c) => vec![&*c.node.expression],
        Expression::SizeOfVal(v) => vec![&*v.node.0],
        _ => Vec::new(),
    }
}

/// The same, for rewriting.
fn parts_mut(e: &mut Expression) -> Vec<&mut Node<Expression>> {
    match e {
        Expression::Call(c) => {
            let c = &mut c.node;
            std::iter::once(&mut *c.callee)
                .chain(c.arguments.iter_mut())
                .collect()
        }
        Expression::Member(m) => vec![&mut *m.node.expression],
        Expression::UnaryOperator(u) => vec![&mut *u.node.operand],
        Expression::BinaryOperator(b) => {
            let b = &mut b.node;
            vec![&mut *b.lhs, &mut *b.rhs]
        }
        Expression::Conditional(c) => {
            let c = &mut c.node;
            vec![
                &mut *c.condition,
                &mut *c.then_expression,
                &mut *c.else_expression,
            ]
        }
        Expression::Comma(list) => list.iter_mut().collect(),
        Expression::Cast(c) => vec![&mut *c.node.expression],
        Expression::SizeOfVal(v) => vec![&mut *v.node.0],
        _ => Vec::new(),
    }
}

fn identifiers(e: &Node<Expression>, out: &mut Vec<String>) {
    if let Expression::Identifier(id) = &e.node {
        out.push(id.node.name.clone());
    }
    for p in parts(&e.node) {
        identifiers(p, out);
    }
}

fn rename(e: &mut Node<Expression>, renames: &[(String, String)]) {
    if let Expression::Identifier(id) = &mut e.node
        && let Some((_, to)) = renames.iter().find(|(from, _)| *from == id.node.name)
    {
        id.node.name = to.clone();
    }
    for p in parts_mut(&mut e.node) {
        rename(p, renames);
    }
}

fn find_by_span<'e>(
    e: &'e Node<Expression>,
    wanted: &dyn Fn(Span) -> bool,
) -> Option<&'e Node<Expression>> {
    if wanted(e.span) {
        return Some(e);
    }
    parts(&e.node)
        .into_iter()
        .find_map(|p| find_by_span(p, wanted))
}
