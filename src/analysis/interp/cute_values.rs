//! CuTe objects in a run: the static values of `analysis::cute` (layouts, tiled copies) read
//! from the types and calls device code writes, tensors over shared memory with each
//! thread's layout, and thread slices of tiled copies. What they do at `cute::copy` and at a
//! tensor's element is `cute_accesses`'.

use super::*;
use crate::analysis::cute::copy::TiledCopy;
use crate::analysis::cute::layout::Layout;
use crate::analysis::cute::text::{self as cute_text, Scope};
use crate::analysis::cute::tuple::IntTuple;
use crate::analysis::cute::values::{self as cute_values, Value as Static};

/// A CuTe object a variable holds.
#[derive(Clone)]
pub(super) enum Cute {
    /// A layout, shape, tiled copy or other value with no thread in it.
    Static(Static),
    /// `make_smem_ptr(p)`, `t.data()`, `t.data() + k`: where a tensor's elements are.
    Pointer(Engine),
    Tensor(Rc<Tensor>),
    /// `tiled_copy.get_thread_slice(t)`: each thread's index into the tiled copy.
    Slice {
        copy: Rc<TiledCopy>,
        threads: Rc<Vec<Option<i64>>>,
    },
    /// A CuTe object banklint does not model, with why: what uses it says so.
    Unmodeled(Rc<str>),
}

/// Where a tensor's elements live.
#[derive(Clone)]
pub(super) enum Engine {
    /// Shared memory, from this pointer (its pointee the element type).
    Shared(SharedPointer),
    /// Global memory (`make_gmem_ptr`): no access banklint prices.
    Global,
    /// Registers (`make_tensor<T>(shape)`, fragments).
    Register,
    /// `make_identity_tensor(shape)`: each element is its own coordinate.
    Identity(IntTuple),
}

/// A tensor: its engine and each thread's layout.
pub(super) struct Tensor {
    pub engine: Engine,
    pub layouts: Layouts,
}

/// One layout for every thread, or each thread's own (a thread's partition).
#[derive(Clone)]
pub(super) enum Layouts {
    Same(Result<Layout, Rc<str>>),
    Each(Rc<Vec<Result<Layout, Rc<str>>>>),
}

impl Layouts {
    pub fn of(&self, thread: usize) -> Result<&Layout, Rc<str>> {
        match self {
            Layouts::Same(l) => l.as_ref().map_err(Rc::clone),
            Layouts::Each(ls) => match ls.get(thread) {
                Some(l) => l.as_ref().map_err(Rc::clone),
                None => Err(Rc::from("a thread past those banklint runs")),
            },
        }
    }

    /// A layout every thread shares (its shape is every thread's).
    pub fn shape(&self) -> Result<IntTuple, Rc<str>> {
        self.of(0).map(|l| l.shape.clone())
    }

    /// Each thread's layout through `f`.
    pub fn map(&self, n: usize, f: &dyn Fn(&Layout, usize) -> Result<Layout, String>) -> Layouts {
        match self {
            Layouts::Same(Ok(l)) if n > 0 => {
                // The same for all only when `f` does not look at the thread.
                let each: Vec<_> = (0..n).map(|t| f(l, t).map_err(Rc::from)).collect();
                Layouts::Each(Rc::new(each))
            }
            Layouts::Same(e) => Layouts::Same(e.clone()),
            Layouts::Each(ls) => Layouts::Each(Rc::new(
                ls.iter()
                    .enumerate()
                    .map(|(t, l)| match l {
                        Ok(l) => f(l, t).map_err(Rc::from),
                        Err(e) => Err(e.clone()),
                    })
                    .collect(),
            )),
        }
    }
}

/// CuTe's functions that make tensors or pointers, and those that make static values (see
/// `cute_values::apply`), by their unqualified names.
const TENSOR_FUNCTIONS: &[&str] = &[
    "make_tensor",
    "make_smem_ptr",
    "make_gmem_ptr",
    "make_rmem_ptr",
    "make_identity_tensor",
    "make_fragment_like",
    "make_tensor_like",
    "local_tile",
    "local_partition",
    "partition_fragment_A",
    "partition_fragment_B",
    "partition_fragment_C",
    "make_tiled_copy_A",
    "make_tiled_copy_B",
    "make_tiled_copy_C",
    "make_tiled_copy_S",
    "make_tiled_copy_D",
    "make_tiled_copy_C_atom",
    "group_modes",
    "flatten",
    "coalesce",
    "recast",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "filter_zeros",
];

const STATIC_FUNCTIONS: &[&str] = &[
    "make_shape",
    "make_stride",
    "make_layout",
    "make_tile",
    "make_coord",
    "make_step",
    "composition",
    "tile_to_shape",
    "make_tiled_copy",
];

/// The name CuTe's function is called by, `cute::` (spelled `cute__`) dropped.
pub(super) fn cute_name(name: &str) -> &str {
    name.strip_prefix("cute__").unwrap_or(name)
}

impl<'a, 'p> Analyzer<'a, 'p> {
    /// The CuTe object `e` is, or `None` for an expression that is not CuTe's.
    pub(super) fn cute_value(&mut self, e: &Node<Expression>, mask: &[bool]) -> Option<Cute> {
        match &e.node {
            Expression::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Binding::Cute(c)) => Some(c.clone()),
                _ => None,
            },
            Expression::Constant(_) if self.span_override.is_none() => {
                let at = self.span(e.span).start;
                let written = self.unit.prepared.class_value_at(at)?.to_string();
                self.cute_type(&written, e.span)
            }
            Expression::Cast(c) => self.cute_value(&c.node.expression, mask),
            Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::Plus | BinaryOperator::Minus
                ) =>
            {
                let Some(Cute::Pointer(engine)) = self.cute_value(&b.node.lhs, mask) else {
                    return None;
                };
                let k = self.eval(&b.node.rhs, mask);
                let k = if b.node.operator.node == BinaryOperator::Minus {
                    Lanes::binary(BinOp::Sub, &Lanes::int(0), &k, self.n, &mut self.syms)
                } else {
                    k
                };
                Some(Cute::Pointer(match engine {
                    Engine::Shared(p) => match self.advance(p, &k) {
                        Some(p) => Engine::Shared(p),
                        None => return Some(Cute::Unmodeled(Rc::from("a pointer banklint lost"))),
                    },
                    other => other,
                }))
            }
            Expression::Call(call) => self.cute_call_value(e, &call.node, mask),
            _ => None,
        }
    }

    /// A call that makes a CuTe object: CuTe's functions, a method of a CuTe object, a slice
    /// of a tensor.
    fn cute_call_value(
        &mut self,
        whole: &Node<Expression>,
        call: &CallExpression,
        mask: &[bool],
    ) -> Option<Cute> {
        match &call.callee.node {
            Expression::Member(m) => {
                let object = self.cute_value(&m.node.expression, mask)?;
                let method = m.node.identifier.node.name.clone();
                Some(self.cute_method(object, &method, call, mask))
            }
            Expression::Identifier(id) => {
                let name = id.node.name.clone();
                if let Some(Binding::Cute(c)) = self.lookup(&name).cloned() {
                    // `t(_, m, k)`: a slice (an element access is a value, not an object).
                    return self.cute_slice(&c, call, mask);
                }
                let short = cute_name(&name);
                let is_cute =
                    TENSOR_FUNCTIONS.contains(&short) || STATIC_FUNCTIONS.contains(&short);
                if !is_cute || (short == name && self.callee(&name, call.arguments.len()).is_some())
                {
                    return None;
                }
                Some(self.cute_function(whole, short, call, mask))
            }
            _ => None,
        }
    }

    /// `obj.method(args)` on a CuTe object.
    fn cute_method(
        &mut self,
        object: Cute,
        method: &str,
        call: &CallExpression,
        mask: &[bool],
    ) -> Cute {
        match (object, method) {
            (Cute::Static(Static::TiledCopy(copy)), "get_thread_slice" | "get_slice") => {
                let Some(arg) = call.arguments.first() else {
                    return Cute::Unmodeled(Rc::from("a thread slice without its thread"));
                };
                let t = self.eval(arg, mask);
                let threads = (0..self.n).map(|k| t.const_at(k)).collect();
                Cute::Slice {
                    copy,
                    threads: Rc::new(threads),
                }
            }
            (Cute::Slice { copy, threads }, "partition_S" | "partition_D") => {
                let Some(arg) = call.arguments.first() else {
                    return Cute::Unmodeled(Rc::from("a partition of nothing"));
                };
                match self.cute_value(arg, mask) {
                    Some(Cute::Tensor(t)) => {
                        Cute::Tensor(Rc::new(self.partitioned(&copy, &threads, &t)))
                    }
                    Some(Cute::Unmodeled(why)) => Cute::Unmodeled(why),
                    _ => Cute::Unmodeled(Rc::from(format!(
                        "`{method}` of a tensor banklint does not model (`{}`)",
                        self.source_text(arg.span)
                    ))),
                }
            }
            (Cute::Slice { .. }, "retile_S" | "retile_D") => Cute::Tensor(Rc::new(Tensor {
                engine: Engine::Register,
                layouts: Layouts::Same(Err(Rc::from("a retiled register fragment"))),
            })),
            (Cute::Tensor(t), "data") => Cute::Pointer(t.engine.clone()),
            (Cute::Tensor(t), "layout") => match &t.layouts {
                Layouts::Same(Ok(l)) => Cute::Static(Static::Layout(l.clone())),
                _ => Cute::Unmodeled(Rc::from("the layout of a thread's partition")),
            },
            (Cute::Tensor(t), "shape") => match t.layouts.shape() {
                Ok(s) => Cute::Static(static_of(&s)),
                Err(e) => Cute::Unmodeled(e),
            },
            (Cute::Pointer(engine), "get") => Cute::Pointer(engine),
            (Cute::Unmodeled(why), _) => Cute::Unmodeled(why),
            (other, method) => Cute::Unmodeled(Rc::from(format!(
                "the method `{method}` of {} is not modeled",
                other.describe()
            ))),
        }
    }

    /// A thread's values of `t` under a tiled copy, for every thread run.
    fn partitioned(&self, copy: &TiledCopy, threads: &[Option<i64>], t: &Tensor) -> Tensor {
        let layouts = t.layouts.map(self.n, &|l, k| {
            let thread = threads.get(k).copied().flatten().ok_or(
                "the thread index given to `get_thread_slice` is not known in this thread",
            )?;
            copy.partition(l, thread)
        });
        Tensor {
            engine: t.engine.clone(),
            layouts,
        }
    }

    /// `t(_, m, k)`: the modes given a coordinate fixed at it (thread by thread), the others
    /// the result's. `None` when no argument is `_` (an element, not a tensor).
    fn cute_slice(&mut self, c: &Cute, call: &CallExpression, mask: &[bool]) -> Option<Cute> {
        let underscore = |e: &Node<Expression>| matches!(&e.node, Expression::Identifier(id) if matches!(id.node.name.as_str(), "_" | "cute___"));
        if !call.arguments.iter().any(underscore) {
            return None;
        }
        let Cute::Tensor(t) = c else {
            return Some(Cute::Unmodeled(Rc::from(
                "a slice of a CuTe object that is not a tensor",
            )));
        };
        let coordinates: Vec<Option<Lanes>> = (call.arguments.iter())
            .map(|a| (!underscore(a)).then(|| self.eval(a, mask)))
            .collect();
        let layouts = t.layouts.map(self.n, &|l, k| {
            let fixed = coordinates
                .iter()
                .map(|c| match c {
                    None => Ok(None),
                    Some(v) => v
                        .const_at(k)
                        .map(|i| Some(IntTuple::Int(i)))
                        .ok_or_else(|| {
                            "a slice at a coordinate banklint does not know".to_string()
                        }),
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok(l.slice(fixed))
        });
        Some(Cute::Tensor(Rc::new(Tensor {
            engine: t.engine.clone(),
            layouts,
        })))
    }

    /// CuTe's function `name` (unqualified) called in device code.
    fn cute_function(
        &mut self,
        whole: &Node<Expression>,
        name: &str,
        call: &CallExpression,
        mask: &[bool],
    ) -> Cute {
        let args = &call.arguments;
        match name {
            "make_smem_ptr" => match args.first() {
                Some(a) if self.points_to_shared(a) => match self.eval_pointer(a, mask, "") {
                    Some(p) => Cute::Pointer(Engine::Shared(p)),
                    None => Cute::Unmodeled(Rc::from(
                        "a pointer into shared memory banklint does not follow",
                    )),
                },
                Some(a) => match self.cute_value(a, mask) {
                    Some(Cute::Pointer(e)) => Cute::Pointer(e),
                    _ => Cute::Unmodeled(Rc::from(format!(
                        "`make_smem_ptr` of `{}`, which banklint does not follow to a `__shared__` array",
                        self.source_text(a.span)
                    ))),
                },
                None => Cute::Unmodeled(Rc::from("`make_smem_ptr` of nothing")),
            },
            "make_gmem_ptr" => Cute::Pointer(Engine::Global),
            "make_rmem_ptr" => Cute::Pointer(Engine::Register),
            "make_tensor" | "make_identity_tensor" | "make_fragment_like" | "make_tensor_like" => {
                self.make_tensor(whole, name, call, mask)
            }
            "local_tile" => self.local_tile(call, mask),
            _ if STATIC_FUNCTIONS.contains(&name) => {
                let values: Result<Vec<Static>, String> =
                    args.iter().map(|a| self.cute_static(a, mask)).collect();
                match values.and_then(|v| {
                    cute_values::apply(name, &v)
                        .unwrap_or_else(|| Err(format!("`{name}` is not modeled")))
                }) {
                    Ok(v) => Cute::Static(v),
                    Err(why) => Cute::Unmodeled(Rc::from(why)),
                }
            }
            "make_tiled_copy_A"
            | "make_tiled_copy_B"
            | "make_tiled_copy_C"
            | "make_tiled_copy_S"
            | "make_tiled_copy_D"
            | "make_tiled_copy_C_atom" => Cute::Unmodeled(Rc::from(format!(
                "the tiled copy `{name}` makes from a `TiledMMA`'s layouts is not modeled yet (banklint models `make_tiled_copy` of a thread and a value layout)"
            ))),
            "partition_fragment_A" | "partition_fragment_B" | "partition_fragment_C" => {
                Cute::Tensor(Rc::new(Tensor {
                    engine: Engine::Register,
                    layouts: Layouts::Same(Err(Rc::from("an MMA's register fragment"))),
                }))
            }
            other => Cute::Unmodeled(Rc::from(format!("CuTe's `{other}` is not modeled"))),
        }
    }

    /// `make_tensor(ptr, layout)`, `make_tensor(ptr, shape, stride)`, `make_tensor<T>(shape)`
    /// (registers), `make_identity_tensor(shape)`, `make_fragment_like(t)`.
    fn make_tensor(
        &mut self,
        whole: &Node<Expression>,
        name: &str,
        call: &CallExpression,
        mask: &[bool],
    ) -> Cute {
        let args = &call.arguments;
        let layout_of = |a: &mut Self, rest: &[Node<Expression>]| -> Result<Layout, String> {
            let values: Vec<Static> = rest
                .iter()
                .map(|x| a.cute_static(x, mask))
                .collect::<Result<_, _>>()?;
            match cute_values::apply("make_layout", &values) {
                Some(Ok(Static::Layout(l))) => Ok(l),
                Some(Err(e)) => Err(e),
                _ => Err("a tensor's layout banklint cannot read".to_string()),
            }
        };
        let tensor = |engine, layout: Result<Layout, String>| {
            Cute::Tensor(Rc::new(Tensor {
                engine,
                layouts: Layouts::Same(layout.map_err(Rc::from)),
            }))
        };
        match name {
            "make_identity_tensor" => {
                let layout = layout_of(self, &args[..args.len().min(1)]);
                match layout {
                    Ok(l) => {
                        let shape = l.shape.clone();
                        tensor(
                            Engine::Identity(shape.clone()),
                            Ok(Layout::column_major(shape)),
                        )
                    }
                    Err(e) => tensor(Engine::Register, Err(e)),
                }
            }
            "make_fragment_like" | "make_tensor_like" => {
                let shape = args.first().and_then(|a| match self.cute_value(a, mask) {
                    Some(Cute::Tensor(t)) => t.layouts.shape().ok(),
                    Some(Cute::Static(Static::Layout(l))) => Some(l.shape),
                    _ => None,
                });
                let layout = shape
                    .map(Layout::column_major)
                    .ok_or_else(|| "a fragment of a shape banklint does not know".to_string());
                tensor(Engine::Register, layout)
            }
            _ => {
                let explicit = !self
                    .template_arguments_at(self.span(call.callee.span).start)
                    .is_empty();
                let first = args.first().map(|a| self.cute_value(a, mask));
                match first {
                    Some(Some(Cute::Pointer(engine))) if !explicit => {
                        tensor(engine, layout_of(self, &args[1..]))
                    }
                    // `make_tensor<T>(shape)`: a register tensor.
                    _ if explicit => tensor(Engine::Register, layout_of(self, args)),
                    Some(Some(Cute::Unmodeled(why))) => Cute::Unmodeled(why),
                    _ => {
                        let _ = whole;
                        Cute::Unmodeled(Rc::from(
                            "`make_tensor` of an iterator banklint does not follow",
                        ))
                    }
                }
            }
        }
    }

    /// `local_tile(t, tiler, coord)`: of a global tensor, its tile's shape (its offsets are
    /// no access banklint prices); of a shared one, not modeled yet.
    fn local_tile(&mut self, call: &CallExpression, mask: &[bool]) -> Cute {
        let Some(Cute::Tensor(t)) = call
            .arguments
            .first()
            .and_then(|a| self.cute_value(a, mask))
        else {
            return Cute::Unmodeled(Rc::from("`local_tile` of a tensor banklint does not model"));
        };
        if !matches!(t.engine, Engine::Global) {
            return Cute::Unmodeled(Rc::from(
                "`local_tile` of a tensor in shared memory is not modeled yet",
            ));
        }
        let tile = call
            .arguments
            .get(1)
            .map(|a| self.cute_static(a, mask))
            .unwrap_or_else(|| Err("`local_tile` without a tiler".to_string()))
            .and_then(|v| v.int_tuple());
        Cute::Tensor(Rc::new(Tensor {
            engine: Engine::Global,
            layouts: Layouts::Same(tile.map(Layout::column_major).map_err(Rc::from)),
        }))
    }

    /// A static CuTe value an argument is: a class value (`Shape<_8, _64>{}`), a variable
    /// holding one, a call of CuTe's functions, or an integer.
    pub(super) fn cute_static(
        &mut self,
        e: &Node<Expression>,
        mask: &[bool],
    ) -> Result<Static, String> {
        match self.cute_value(e, mask) {
            Some(Cute::Static(v)) => return Ok(v),
            Some(Cute::Unmodeled(why)) => return Err(why.to_string()),
            Some(Cute::Tensor(t)) => {
                return match &t.layouts {
                    Layouts::Same(Ok(l)) => Ok(Static::Layout(l.clone())),
                    _ => Err("a tensor where CuTe takes a layout".to_string()),
                };
            }
            Some(_) => return Err("a CuTe object where CuTe takes a layout".to_string()),
            None => {}
        }
        match self.eval(e, mask).as_const() {
            Some(i) => Ok(Static::Int(i)),
            None => Err(format!(
                "`{}` is not a value banklint can read as CuTe's",
                self.source_text(e.span)
            )),
        }
    }

    /// The CuTe value of a type as written at `at` (`typename KT::SmemLayout`, `Shape<_8,
    /// Int<N>>`), or `None` when the type is not CuTe's.
    pub(super) fn cute_type(&mut self, written: &str, at: Span) -> Option<Cute> {
        let text = self.cute_type_text(written);
        let looks_cute = text.as_deref().is_some_and(looks_like_cute);
        let text = text.unwrap_or_else(|| written.to_string());
        if !looks_cute && !looks_like_cute(&text) {
            return None;
        }
        let mut scope = RunScope { a: self, at };
        match cute_text::read(&text, &mut scope) {
            Ok(v) => Some(Cute::Static(v)),
            Err(why) => Some(Cute::Unmodeled(Rc::from(why))),
        }
    }

    /// What a type name written in the run stands for, as text: a member type of the class a
    /// bound parameter names (`KT::SmemLayout`, spelled `KT__SmemLayout` too), a bound type
    /// parameter, an alias. `None`: nothing to resolve.
    pub(super) fn cute_type_text(&mut self, written: &str) -> Option<String> {
        let written = written.trim().trim_start_matches("typename ").trim();
        let spelled = written.replace("::", "__");
        for (class, member) in crate::front::names::scope_splits(&spelled) {
            let owner = self.class_named(class);
            if let Some(crate::front::class_members::Member::Type(t)) =
                self.class_member(&owner, member)
            {
                return Some(t);
            }
        }
        if let Some(t) = self.type_args.get(written) {
            return Some(t.clone());
        }
        self.alias_target(written)
    }

    /// A declaration of a CuTe object: `Tensor t = ...;`, `auto s = c.get_thread_slice(t);`,
    /// `typename KT::TiledCopy copy;`. `None`: not CuTe's, declared as any other.
    pub(super) fn cute_declared(
        &mut self,
        specs: &[Node<DeclarationSpecifier>],
        init: Option<&Node<Expression>>,
        mask: &[bool],
    ) -> Option<Cute> {
        if let Some(e) = init {
            return self.cute_value(e, mask);
        }
        let name = specs.iter().find_map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) => match &t.node {
                TypeSpecifier::TypedefName(n) => Some((n.node.name.clone(), t.span)),
                _ => None,
            },
            _ => None,
        })?;
        self.cute_type(&name.0, name.1)
    }
}

impl Cute {
    pub(super) fn describe(&self) -> &'static str {
        match self {
            Cute::Static(v) => v.kind(),
            Cute::Pointer(_) => "a CuTe pointer",
            Cute::Tensor(_) => "a CuTe tensor",
            Cute::Slice { .. } => "a tiled copy's thread slice",
            Cute::Unmodeled(_) => "a CuTe object banklint does not model",
        }
    }
}

/// A shape as a static value.
fn static_of(s: &IntTuple) -> Static {
    match s {
        IntTuple::Int(i) => Static::Int(*i),
        IntTuple::Tuple(t) => Static::Tuple(t.iter().map(static_of).collect()),
    }
}

/// Whether a type's text is CuTe's: it starts with one of CuTe's types, or is `decltype` of
/// one of its functions.
fn looks_like_cute(text: &str) -> bool {
    let t = text.trim().trim_start_matches("typename ").trim();
    let t = t.strip_prefix("decltype(").unwrap_or(t).trim_start();
    let t = t.strip_prefix("cute::").unwrap_or(t);
    let head: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    matches!(
        head.as_str(),
        "Layout"
            | "Shape"
            | "Stride"
            | "Tile"
            | "Step"
            | "Int"
            | "Swizzle"
            | "ComposedLayout"
            | "Copy_Atom"
            | "TiledCopy"
            | "UniversalCopy"
            | "AutoVectorizingCopy"
            | "AutoVectorizingCopyWithAssumedAlignment"
            | "DefaultCopy"
            | "GenRowMajor"
            | "GenColMajor"
            | "composition"
            | "tile_to_shape"
            | "make_layout"
            | "make_shape"
            | "make_tiled_copy"
    ) || head.starts_with("SM80_CP_ASYNC")
        || (head.starts_with('_')
            && head[1..].chars().all(|c| c.is_ascii_digit())
            && head.len() > 1)
}

/// Names in a CuTe type, resolved where the run stands: integer expressions by the run's
/// values (a traits class's constants), aliases and value types by its bindings.
struct RunScope<'x, 'a, 'p> {
    a: &'x mut Analyzer<'a, 'p>,
    at: Span,
}

impl Scope for RunScope<'_, '_, '_> {
    fn constant(&mut self, text: &str) -> Option<i64> {
        let mask = vec![true; self.a.n];
        self.a.eval_text(text, self.at, &mask, text).as_const()
    }

    fn alias(&mut self, name: &str) -> Option<String> {
        self.a.cute_type_text(name)
    }

    fn value_bits(&mut self, name: &str) -> Option<u32> {
        let t = self.a.type_of_text(name, self.at)?;
        t.size().map(|s| s * 8)
    }
}
