//! What calls give back and take that is not a plain value: a shared-memory pointer or
//! shared-window address a function returns (known from its definition, or when it is given
//! one), a static method called through a tile in shared memory (`src.idx(base, {r, c})`),
//! and aggregate arguments (`{row, col}`, `make_int2(row, col)`) kept element by element.

use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    /// The elements of an aggregate argument, evaluated: a braced list (`{row, col}`) or a
    /// vector constructor (`make_int2(row, col)`). `None` for any other expression.
    pub(super) fn aggregate_elements(
        &mut self,
        a: &Node<Expression>,
        mask: &[bool],
    ) -> Option<Vec<Lanes>> {
        let items: Vec<&Node<Expression>> = match &a.node {
            Expression::Comma(list) if self.is_braced_list(a) => list.iter().collect(),
            Expression::Call(c)
                if matches!(&c.node.callee.node, Expression::Identifier(id)
                    if id.node.name.strip_prefix("make_")
                        .is_some_and(|t| crate::analysis::types::builtin(t).is_some())) =>
            {
                c.node.arguments.iter().collect()
            }
            _ => return None,
        };
        Some(items.into_iter().map(|x| self.eval(x, mask)).collect())
    }

    /// `obj.f(...)` with `obj` a class instance in shared memory (a reference or pointer to
    /// one, an element of an array of them) whose class has a static method `f`: that
    /// method, with the instance's template arguments for the class's parameters.
    pub(super) fn static_method_of_shared(
        &self,
        m: &MemberExpression,
        arity: usize,
    ) -> Option<Callee<'a, 'p>> {
        let elem = match &m.expression.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name)? {
                Binding::Reference(r) => r.target.elem.clone(),
                Binding::Pointer(p) => p.elem.clone(),
                _ => return None,
            },
            _ => {
                let (array, _, members) = self.shared_ref(&m.expression)?;
                if !members.is_empty() {
                    return None;
                }
                self.arrays[array].decl.elem.clone()
            }
        };
        let Type::Record(r) = elem else {
            return None;
        };
        let (class, args) = crate::analysis::class_templates::instance_parts(&r.name)
            .unwrap_or_else(|| (r.name.clone(), Vec::new()));
        let class = class.rsplit("__").next().unwrap_or(&class).to_string();
        let name = format!("{class}__{}", m.identifier.node.name);
        let found = self.callee(&name, arity)?;
        // Only a static method: one the class's objects do not hold fields for.
        let head = (found.unit.prepared.text)
            .get(found.function.span.clone())
            .unwrap_or_default();
        let is_static = head
            .split(['(', '{'])
            .next()
            .is_some_and(|h| h.split_whitespace().any(|w| w == "static"));
        is_static.then_some(Callee {
            scope_args: args,
            ..found
        })
    }

    /// Whether a call reaches a device function that returns a pointer and declares shared
    /// memory or names a file-scope `__shared__` array: an accessor whose result is followed
    /// as a pointer into that array.
    pub(super) fn call_returns_shared(&self, call: &CallExpression) -> bool {
        let name = match &call.callee.node {
            Expression::Identifier(id) => id.node.name.clone(),
            Expression::Member(m) => {
                match self.static_method_of_shared(&m.node, call.arguments.len()) {
                    Some(c) => c.lookup,
                    None => return self.method_returns_shared(call),
                }
            }
            _ => return false,
        };
        // By the unit too: a header's function may call another `f` than the file's.
        let unit = std::ptr::from_ref(self.unit) as usize;
        let key = (name, call.arguments.len(), unit);
        let known = self.accessors.borrow().get(&key).copied();
        let returns = known.unwrap_or_else(|| {
            let answer = self.returns_shared_uncached(&key.0, key.1);
            self.accessors.borrow_mut().insert(key, answer);
            answer
        });
        match returns {
            Returns::Other => false,
            Returns::Shared => true,
            // `float *carve(int *base, int n) { return (float *)base + n; }`: a pointer into
            // shared memory when it is given one.
            Returns::Pointer => call
                .arguments
                .iter()
                .any(|a| self.points_to_shared(a) || self.is_shared_object(a)),
            // `uint32_t idx(uint32_t ptr, int2 c) { ... return addr ^ swizzle; }`: a
            // shared-window address when it is given one.
            Returns::Window => call.arguments.iter().any(|a| self.is_shared_address(a)),
        }
    }

    /// `obj.grab(n)` on an object that keeps a pointer into shared memory, whose method
    /// returns a pointer: most likely one derived from the object's.
    fn method_returns_shared(&self, call: &CallExpression) -> bool {
        let Expression::Member(m) = &call.callee.node else {
            return false;
        };
        let Expression::Identifier(object) = &m.node.expression.node else {
            return false;
        };
        let Some(Binding::Object(obj)) = self.lookup(&object.node.name) else {
            return false;
        };
        if !obj
            .fields
            .values()
            .any(|b| matches!(b, Binding::Pointer(_)))
        {
            return false;
        }
        let name = &m.node.identifier.node.name;
        self.method(
            &obj.class,
            name,
            call.arguments.len(),
            false,
            &obj.template_args,
            self.method_template_arguments(call),
        )
        .and_then(|found| found.unit.definition(found.function))
        .is_some_and(|def| returns_pointer(&def.declarator.node))
    }

    fn returns_shared_uncached(&self, name: &str, arity: usize) -> Returns {
        let Some(c) = self.callee(name, arity) else {
            return Returns::Other;
        };
        let Some(def) = c.unit.definition(c.function) else {
            return Returns::Other;
        };
        let span = c.function.span.clone();
        // `uint32_t smem_addr(const void *p) { return __cvta_generic_to_shared(p); }`: an
        // integer that is a shared-window address, followed like the intrinsic. Only when
        // every `return` returns the conversion: a function that merely uses a window
        // address returns something else, and is evaluated as a value.
        let returns_window = || {
            let Some(t) = c.unit.prepared.text.get(span.clone()) else {
                return false;
            };
            let tokens = crate::front::lex::tokenize(t);
            let words: Vec<&str> = tokens.iter().map(|k| k.text(t)).collect();
            let returns: Vec<usize> = (0..words.len()).filter(|&k| words[k] == "return").collect();
            !returns.is_empty()
                && returns.iter().all(|&k| {
                    words[k..]
                        .iter()
                        .take_while(|w| **w != ";")
                        .any(|w| *w == "__cvta_generic_to_shared")
                })
        };
        if !returns_pointer(&def.declarator.node) {
            return if returns_window() {
                Returns::Shared
            } else if c.function.params.is_empty() {
                Returns::Other
            } else {
                Returns::Window
            };
        }
        let mentions_shared = c
            .unit
            .prepared
            .keywords_in(span.clone())
            .any(|(k, _)| *k == crate::front::cuda::Keyword::Shared)
            || c.unit.prepared.text.get(span).is_some_and(|t| {
                t.split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                    .any(|w| c.unit.file_shared.iter().any(|a| a.name == w))
            });
        if mentions_shared {
            Returns::Shared
        } else {
            Returns::Pointer
        }
    }
}

/// What a function returns, as far as following shared-memory pointers goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Returns {
    /// A pointer into shared memory it names (or a shared-window address).
    Shared,
    /// A pointer: into shared memory when it is given one.
    Pointer,
    /// An integer: a shared-window address when it is given one.
    Window,
    Other,
}

/// Whether a function's declarator returns a pointer (`float *f(...)`).
fn returns_pointer(d: &lang_c::ast::Declarator) -> bool {
    d.derived
        .iter()
        .any(|d| matches!(d.node, lang_c::ast::DerivedDeclarator::Pointer(_)))
}
