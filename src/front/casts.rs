//! C++ casts in lang-c's tree. `reinterpret_cast<float4 *>(p)[i]` indexes the cast's result,
//! but its C spelling `(float4 *)(p)[i]` would cast `p[i]`: precedence differs. So the
//! lowering writes the cast as a call of a marker function, `__cast(p)[i]` (a call binds
//! like the C++ cast), and records the type; after lang-c has parsed the item, each marker
//! call becomes a real cast expression of that type, so the analysis sees C casts only.

use lang_c::ast::*;
use lang_c::span::Node;

/// The name the lowering writes in place of `static_cast<T>` and its kin.
pub const CAST_MARKER: &str = "__cast";

/// Replaces every marker call in `decls` by a cast to the type `type_of` gives for the
/// marker's offset (in the parsed text); a marker it has no type for stays a call.
pub fn desugar(
    decls: &mut [Node<ExternalDeclaration>],
    type_of: &dyn Fn(usize) -> Option<Node<TypeName>>,
) {
    let mut w = Walker { type_of };
    for d in decls {
        match &mut d.node {
            ExternalDeclaration::Declaration(decl) => w.declaration(&mut decl.node),
            ExternalDeclaration::FunctionDefinition(f) => w.statement(&mut f.node.statement),
            ExternalDeclaration::StaticAssert(_) => {}
        }
    }
}

struct Walker<'t> {
    type_of: &'t dyn Fn(usize) -> Option<Node<TypeName>>,
}

impl Walker<'_> {
    fn declaration(&mut self, d: &mut Declaration) {
        for init in &mut d.declarators {
            if let Some(i) = &mut init.node.initializer {
                self.initializer(&mut i.node);
            }
        }
    }

    fn initializer(&mut self, i: &mut Initializer) {
        match i {
            Initializer::Expression(e) => self.expression(e),
            Initializer::List(items) => {
                for item in items {
                    self.initializer(&mut item.node.initializer.node);
                }
            }
        }
    }

    fn statement(&mut self, s: &mut Node<Statement>) {
        // Nested statements are visited with an explicit stack: deep code must not overflow.
        let mut stack: Vec<&mut Node<Statement>> = vec![s];
        while let Some(s) = stack.pop() {
            match &mut s.node {
                Statement::Labeled(l) => {
                    if let Label::Case(e) = &mut l.node.label.node {
                        self.expression(e);
                    }
                    stack.push(&mut l.node.statement);
                }
                Statement::Compound(items) => {
                    for item in items {
                        match &mut item.node {
                            BlockItem::Declaration(d) => self.declaration(&mut d.node),
                            BlockItem::Statement(st) => stack.push(st),
                            BlockItem::StaticAssert(_) => {}
                        }
                    }
                }
                Statement::Expression(Some(e)) | Statement::Return(Some(e)) => self.expression(e),
                Statement::If(i) => {
                    self.expression(&mut i.node.condition);
                    stack.push(&mut i.node.then_statement);
                    if let Some(e) = &mut i.node.else_statement {
                        stack.push(e);
                    }
                }
                Statement::Switch(sw) => {
                    self.expression(&mut sw.node.expression);
                    stack.push(&mut sw.node.statement);
                }
                Statement::While(w) => {
                    self.expression(&mut w.node.expression);
                    stack.push(&mut w.node.statement);
                }
                Statement::DoWhile(w) => {
                    self.expression(&mut w.node.expression);
                    stack.push(&mut w.node.statement);
                }
                Statement::For(f) => {
                    match &mut f.node.initializer.node {
                        ForInitializer::Expression(e) => self.expression(e),
                        ForInitializer::Declaration(d) => self.declaration(&mut d.node),
                        _ => {}
                    }
                    if let Some(c) = &mut f.node.condition {
                        self.expression(c);
                    }
                    if let Some(st) = &mut f.node.step {
                        self.expression(st);
                    }
                    stack.push(&mut f.node.statement);
                }
                Statement::Asm(a) => {
                    if let AsmStatement::GnuExtended(g) = &mut a.node {
                        for op in g.outputs.iter_mut().chain(g.inputs.iter_mut()) {
                            self.expression_node(&mut op.node.variable_name);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn expression(&mut self, e: &mut Box<Node<Expression>>) {
        self.expression_node(e);
    }

    fn expression_node(&mut self, e: &mut Node<Expression>) {
        let mut stack: Vec<&mut Node<Expression>> = vec![e];
        while let Some(e) = stack.pop() {
            self.rewrite(e);
            match &mut e.node {
                Expression::Member(m) => stack.push(&mut m.node.expression),
                Expression::Call(c) => {
                    stack.push(&mut c.node.callee);
                    stack.extend(c.node.arguments.iter_mut());
                }
                Expression::CompoundLiteral(c) => {
                    for item in &mut c.node.initializer_list {
                        self.initializer(&mut item.node.initializer.node);
                    }
                }
                Expression::SizeOfVal(s) => stack.push(&mut s.node.0),
                Expression::UnaryOperator(u) => stack.push(&mut u.node.operand),
                Expression::Cast(c) => stack.push(&mut c.node.expression),
                Expression::BinaryOperator(b) => {
                    stack.push(&mut b.node.lhs);
                    stack.push(&mut b.node.rhs);
                }
                Expression::Conditional(c) => {
                    stack.push(&mut c.node.condition);
                    stack.push(&mut c.node.then_expression);
                    stack.push(&mut c.node.else_expression);
                }
                Expression::Comma(list) => stack.extend(list.iter_mut()),
                Expression::Statement(s) => self.statement(s),
                _ => {}
            }
        }
    }

    /// A marker call with one argument becomes a cast.
    fn rewrite(&mut self, e: &mut Node<Expression>) {
        let Expression::Call(c) = &e.node else { return };
        let Expression::Identifier(id) = &c.node.callee.node else {
            return;
        };
        if id.node.name != CAST_MARKER || c.node.arguments.len() != 1 {
            return;
        }
        let Some(type_name) = (self.type_of)(c.node.callee.span.start) else {
            return;
        };
        let Expression::Call(c) = std::mem::replace(
            &mut e.node,
            Expression::Identifier(Box::new(Node::new(
                Identifier {
                    name: String::new(),
                },
                e.span,
            ))),
        ) else {
            unreachable!("matched above")
        };
        let mut call = c.node;
        let arg = call.arguments.pop().expect("one argument");
        e.node = Expression::Cast(Box::new(Node::new(
            CastExpression {
                type_name,
                expression: Box::new(arg),
            },
            e.span,
        )));
    }
}
