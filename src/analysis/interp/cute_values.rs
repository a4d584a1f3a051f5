//! CuTe objects in a run: the static values of `analysis::cute` (layouts, tiled copies) read
//! from the types and calls device code writes, tensors over shared memory with each
//! thread's layout, and thread slices of tiled copies. What they do at `cute::copy` and at a
//! tensor's element is `cute_accesses`'.

use super::cute_layouts::Layouts;
use super::*;
use crate::analysis::cute::copy::{Side, TiledCopy};
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
        /// Each thread's index into the tiled copy, per alternative: one where the block is
        /// known; where it is not (one symbolic warp), one per warp the tiled copy has.
        threads: Rc<Vec<Vec<Option<i64>>>>,
    },
    /// `tiled_mma.get_thread_slice(t)`: what it partitions are register fragments.
    MmaSlice(Rc<crate::analysis::cute::mma::TiledMma>),
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
    /// Modes of a slice left free because the coordinate written for them is one value for
    /// the warp that banklint does not know (`D(_, m, k)` with `m` a loop's symbolic trip):
    /// what uses the tensor covers each of their values, and says so (these texts).
    pub enumerated: Vec<String>,
    /// Alternatives the last mode of the layouts stands for (the warps a partition covers when
    /// the block is not known), 1 where there are none: an element is read in each.
    pub alternatives: usize,
}

impl Tensor {
    pub(super) fn new(engine: Engine, layouts: Layouts) -> Tensor {
        Tensor {
            engine,
            layouts,
            enumerated: Vec::new(),
            alternatives: 1,
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
    "get_nonswizzle_portion",
    "make_tiled_copy",
    "make_tiled_copy_A",
    "make_tiled_copy_B",
    "make_tiled_copy_C",
    "make_tiled_mma",
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
            // `Traits::kFlag ? sV.data() + size(sV) : sK.data()`: a constant condition picks
            // its branch; any other leaves the object unknown, said so.
            Expression::Conditional(c) => {
                let cond = self.eval(&c.node.condition, mask).as_const();
                match cond {
                    Some(0) => self.cute_value(&c.node.else_expression, mask),
                    Some(_) => self.cute_value(&c.node.then_expression, mask),
                    None => {
                        let then = self.cute_value(&c.node.then_expression, mask);
                        let other = self.cute_value(&c.node.else_expression, mask);
                        let why = format!(
                            "a place chosen by `{}`, a condition banklint cannot decide",
                            self.source_text(c.node.condition.span)
                        );
                        match (then, other) {
                            // Two places in one array: still that array's, at a place unknown.
                            (
                                Some(Cute::Pointer(Engine::Shared(a))),
                                Some(Cute::Pointer(Engine::Shared(b))),
                            ) if a.array == b.array => {
                                Some(Cute::Pointer(Engine::Shared(super::SharedPointer {
                                    place: super::Place::Bytes(Lanes::unknown(&why)),
                                    ..a
                                })))
                            }
                            (None, None) => None,
                            _ => Some(Cute::Unmodeled(Rc::from(why))),
                        }
                    }
                }
            }
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
                // `shape(t)`: a tensor's extents, a static shape where all are known.
                if short == "shape"
                    && let Some(Cute::Tensor(t)) = call
                        .arguments
                        .first()
                        .and_then(|a| self.cute_value(a, mask))
                {
                    return Some(match t.layouts.shape() {
                        Ok(s) => Cute::Static(static_of(&s)),
                        Err(why) => Cute::Unmodeled(why),
                    });
                }
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
                let threads = self.thread_alternatives(&t, &copy);
                Cute::Slice {
                    copy,
                    threads: Rc::new(threads),
                }
            }
            (Cute::Slice { copy, threads }, "partition_S" | "partition_D") => {
                let Some(arg) = call.arguments.first() else {
                    return Cute::Unmodeled(Rc::from("a partition of nothing"));
                };
                let side = if method == "partition_S" {
                    Side::Source
                } else {
                    Side::Destination
                };
                match self.cute_value(arg, mask) {
                    Some(Cute::Tensor(t)) => {
                        Cute::Tensor(Rc::new(self.partitioned(&copy, &threads, &t, side)))
                    }
                    Some(Cute::Unmodeled(why)) => Cute::Unmodeled(why),
                    _ => Cute::Unmodeled(Rc::from(format!(
                        "`{method}` of a tensor banklint does not model (`{}`)",
                        self.source_text(arg.span)
                    ))),
                }
            }
            (Cute::Slice { .. }, "retile_S" | "retile_D") => Cute::Tensor(Rc::new(Tensor::new(
                Engine::Register,
                Layouts::Same(Err(Rc::from("a retiled register fragment"))),
            ))),
            (Cute::Tensor(t), "data") => Cute::Pointer(t.engine.clone()),
            (Cute::Tensor(t), "layout") => match t.layouts.shared_layout() {
                Some(l) => Cute::Static(Static::Layout(l.clone())),
                None => Cute::Unmodeled(Rc::from("the layout of a thread's partition")),
            },
            (Cute::Tensor(t), "shape") => match t.layouts.shape() {
                Ok(s) => Cute::Static(static_of(&s)),
                Err(e) => Cute::Unmodeled(e),
            },
            (Cute::Pointer(engine), "get") => Cute::Pointer(engine),
            // An MMA's thread slice partitions into its register fragments.
            (Cute::Static(Static::Mma(m)), "get_thread_slice" | "get_slice") => Cute::MmaSlice(m),
            (
                Cute::MmaSlice(m),
                "partition_fragment_A" | "partition_fragment_B" | "partition_fragment_C",
            ) => {
                use crate::analysis::cute::mma::Operand;
                let operand = match method {
                    "partition_fragment_A" => Operand::A,
                    "partition_fragment_B" => Operand::B,
                    _ => Operand::C,
                };
                let extents = call
                    .arguments
                    .first()
                    .and_then(|a| match self.cute_value(a, mask) {
                        Some(Cute::Tensor(t)) => {
                            let e = t.layouts.extents()?;
                            Some((e.first().copied().flatten()?, e.get(1).copied().flatten()?))
                        }
                        _ => None,
                    });
                let layouts = match extents {
                    Some(e) => Layouts::Extents(
                        m.fragment_extents(operand, e)
                            .iter()
                            .map(|&x| Some(x))
                            .collect(),
                    ),
                    None => Layouts::unknown(
                        "an MMA's register fragment of a tensor banklint does not know",
                    ),
                };
                Cute::Tensor(Rc::new(Tensor::new(Engine::Register, layouts)))
            }
            (Cute::MmaSlice(_), method) => Cute::Unmodeled(Rc::from(format!(
                "a tiled MMA's `{method}` (its thread's share of a tensor) is not modeled"
            ))),
            // A partition by a tiled copy banklint does not model, of a tensor in shared
            // memory: still that memory, its accesses reported with why they are not known.
            (Cute::Unmodeled(why), "partition_S" | "partition_D") => {
                match call
                    .arguments
                    .first()
                    .and_then(|a| self.cute_value(a, mask))
                {
                    Some(Cute::Tensor(t)) if matches!(t.engine, Engine::Shared(_)) => Cute::Tensor(
                        Rc::new(Tensor::new(t.engine.clone(), Layouts::Same(Err(why)))),
                    ),
                    _ => Cute::Unmodeled(why),
                }
            }
            (Cute::Unmodeled(why), _) => Cute::Unmodeled(why),
            (other, method) => Cute::Unmodeled(Rc::from(format!(
                "the method `{method}` of {} is not modeled",
                other.describe()
            ))),
        }
    }

    /// A thread's values of `t` under a tiled copy, for every thread run.
    fn partitioned(
        &self,
        copy: &TiledCopy,
        threads: &[Vec<Option<i64>>],
        t: &Tensor,
        side: Side,
    ) -> Tensor {
        let mut enumerated = t.enumerated.clone();
        if threads.len() > 1 {
            enumerated.push(format!(
                "the block shape is not known (one warp stands for all): each of the {} warps of the tiled copy was analyzed",
                threads.len()
            ));
        }
        Tensor {
            engine: t.engine.clone(),
            layouts: t.layouts.partitioned(copy, threads, side),
            enumerated,
            alternatives: t.alternatives * threads.len().max(1),
        }
    }

    /// Each lane's thread index into a tiled copy, per alternative: the lanes' own where they
    /// are constants; where the block is not known and the index is the lane plus 32 times
    /// the warp's unknown position (`threadIdx.x`), one alternative per warp of the tiled copy.
    fn thread_alternatives(&self, t: &Lanes, copy: &TiledCopy) -> Vec<Vec<Option<i64>>> {
        let own: Vec<Option<i64>> = (0..self.n).map(|k| t.const_at(k)).collect();
        if own.iter().all(Option::is_some) {
            return vec![own];
        }
        let warps = copy.threads / 32;
        let by_warp = (0..self.n).all(|k| {
            t.affine_at(k)
                .is_some_and(|(_, terms)| matches!(terms, [(_, 32)]))
        });
        if !by_warp || warps < 1 || copy.threads % 32 != 0 {
            return vec![own];
        }
        (0..warps)
            .map(|w| {
                (0..self.n)
                    .map(|k| t.affine_at(k).map(|(c, _)| c + 32 * w))
                    .collect()
            })
            .collect()
    }

    /// `t(_, m, k)`: the modes given a coordinate fixed at it (thread by thread), the others
    /// the result's. A coordinate that is one value for the warp that banklint does not know
    /// (a trip of a loop run symbolically) leaves its mode free, so that what uses the slice
    /// covers each value it can take (see `Tensor::enumerated`). `None` when no argument is
    /// `_` (an element, not a tensor).
    fn cute_slice(&mut self, c: &Cute, call: &CallExpression, mask: &[bool]) -> Option<Cute> {
        let underscore = |e: &Node<Expression>| {
            matches!(&e.node, Expression::Identifier(id)
                if matches!(id.node.name.as_str(), "_" | "cute___"))
        };
        if !call.arguments.iter().any(underscore) {
            return None;
        }
        let Cute::Tensor(t) = c else {
            return Some(Cute::Unmodeled(Rc::from(
                "a slice of a CuTe object that is not a tensor",
            )));
        };
        let mut enumerated = t.enumerated.clone();
        let mut coordinates: Vec<Option<Lanes>> = Vec::with_capacity(call.arguments.len());
        for (k, a) in call.arguments.iter().enumerate() {
            if underscore(a) {
                coordinates.push(None);
                continue;
            }
            // `_0{}`, `Int<2>{}`: CuTe's integers.
            let v = match self.cute_value(a, mask) {
                Some(Cute::Static(Static::Int(i))) => Lanes::int(i),
                _ => self.eval(a, mask),
            };
            if v.is_known_uniform() && v.as_const().is_none() {
                let size = t
                    .layouts
                    .shape()
                    .ok()
                    .and_then(|s| s.mode(k).map(IntTuple::product));
                let written = self.source_text(a.span);
                let whole = self.source_text(call.callee.span);
                enumerated.push(match size {
                    Some(n) => format!(
                        "the coordinate `{written}` of `{whole}(...)` is one value for the warp that banklint does not know: each of its {n} values was analyzed"
                    ),
                    None => format!(
                        "the coordinate `{written}` of `{whole}(...)` is one value for the warp that banklint does not know: each of its values was analyzed"
                    ),
                });
                coordinates.push(None);
                continue;
            }
            coordinates.push(Some(v));
        }
        let layouts = t.layouts.sliced(self.n, &coordinates);
        Some(Cute::Tensor(Rc::new(Tensor {
            engine: t.engine.clone(),
            layouts,
            enumerated,
            alternatives: t.alternatives,
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
            "make_tiled_copy_S" | "make_tiled_copy_D" | "make_tiled_copy_C_atom" => {
                Cute::Unmodeled(Rc::from(format!("CuTe's `{name}` is not modeled yet")))
            }
            "partition_fragment_A" | "partition_fragment_B" | "partition_fragment_C" => {
                Cute::Tensor(Rc::new(Tensor::new(
                    Engine::Register,
                    Layouts::Same(Err(Rc::from("an MMA's register fragment"))),
                )))
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
            Cute::Tensor(Rc::new(Tensor::new(
                engine,
                Layouts::Same(layout.map_err(Rc::from)),
            )))
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
                    // Global memory: only the extents matter (and may be run-time values).
                    Some(Some(Cute::Pointer(Engine::Global))) if !explicit => {
                        let extents = self.extents_of(args.get(1), mask);
                        Cute::Tensor(Rc::new(Tensor::new(Engine::Global, extents)))
                    }
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

    /// The extents of a global tensor's shape as written: a CuTe shape, or `make_shape(a,
    /// b, ...)` of values some of which are run-time ones.
    fn extents_of(&mut self, shape: Option<&Node<Expression>>, mask: &[bool]) -> Layouts {
        let Some(shape) = shape else {
            return Layouts::unknown("a tensor without a shape");
        };
        if let Ok(v) = self.cute_static(shape, mask)
            && let Ok(s) = v.int_tuple()
        {
            return Layouts::Extents(s.modes().iter().map(|m| Some(m.product())).collect());
        }
        if let Expression::Call(c) = &shape.node
            && let Expression::Identifier(id) = &c.node.callee.node
            && cute_name(&id.node.name) == "make_shape"
        {
            let extents: Vec<Option<i64>> = (c.node.arguments.iter())
                .map(|a| match self.cute_static(a, mask) {
                    Ok(v) => v.int_tuple().ok().map(|t| t.product()),
                    Err(_) => None,
                })
                .collect();
            return Layouts::Extents(extents.into());
        }
        Layouts::unknown(format!(
            "the shape `{}` of a tensor in global memory",
            self.source_text(shape.span)
        ))
    }

    /// `local_tile(t, tiler, coord)`: the tile's extents, then a mode for each `_` of the
    /// coordinate (and each mode of `t` past it). Of a global tensor, only those extents
    /// matter; of a shared one, its place is not modeled yet.
    fn local_tile(&mut self, call: &CallExpression, mask: &[bool]) -> Cute {
        let Some(Cute::Tensor(t)) = call
            .arguments
            .first()
            .and_then(|a| self.cute_value(a, mask))
        else {
            return Cute::Unmodeled(Rc::from("`local_tile` of a tensor banklint does not model"));
        };
        if !matches!(t.engine, Engine::Global) {
            return Cute::Tensor(Rc::new(Tensor::new(
                t.engine.clone(),
                Layouts::unknown("`local_tile` of a tensor in shared memory is not modeled yet"),
            )));
        }
        let tile = call
            .arguments
            .get(1)
            .map(|a| self.cute_static(a, mask))
            .unwrap_or_else(|| Err("`local_tile` without a tiler".to_string()))
            .and_then(|v| v.int_tuple());
        let tile: Vec<i64> = match tile {
            Ok(t) => t.modes().iter().map(IntTuple::product).collect(),
            Err(e) => {
                return Cute::Tensor(Rc::new(Tensor::new(Engine::Global, Layouts::unknown(e))));
            }
        };
        let source = t.layouts.extents().unwrap_or_default();
        // The coordinate's `_` entries keep their rest mode.
        let free: Vec<bool> = match call.arguments.get(2).map(|c| &c.node) {
            Some(Expression::Call(c)) => (c.node.arguments.iter())
                .map(|a| matches!(&a.node, Expression::Identifier(id) if matches!(id.node.name.as_str(), "_" | "cute___")))
                .collect(),
            _ => Vec::new(),
        };
        let mut extents: Vec<Option<i64>> = tile.iter().map(|&x| Some(x)).collect();
        let rank = source.len().max(tile.len());
        for k in 0..rank {
            let keep = free
                .get(k)
                .copied()
                .unwrap_or(k >= free.len() && !free.is_empty());
            if keep {
                let size = source.get(k).copied().flatten();
                let t = tile.get(k).copied().unwrap_or(1).max(1);
                extents.push(size.map(|s| (s + t - 1) / t));
            }
        }
        Cute::Tensor(Rc::new(Tensor::new(
            Engine::Global,
            Layouts::Extents(extents.into()),
        )))
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
                return match t.layouts.shared_layout() {
                    Some(l) => Ok(Static::Layout(l.clone())),
                    None => Err("a tensor where CuTe takes a layout".to_string()),
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
        // An alias of an alias (`using C = typename KT::Copy;`): followed to the type.
        let mut text = self.cute_type_text(written, Some(at));
        for _ in 0..crate::limits::MAX_CUTE_ALIAS_DEPTH {
            match text.as_deref() {
                Some(t) if !looks_like_cute(t) => match self.cute_type_text(t, Some(at)) {
                    Some(next) if next != t => text = Some(next),
                    _ => break,
                },
                _ => break,
            }
        }
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
    pub(super) fn cute_type_text(&mut self, written: &str, at: Option<Span>) -> Option<String> {
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
        // An alias the running function writes before `at` (one its run did not bind, as
        // its text needed nothing of the run), or a file's.
        if let Some(at) = at {
            let before = self.span(at).start;
            let p = self.unit.prepared;
            let function = (self.unit.functions.iter()).find(|f| f.span.contains(&before));
            if let Some(f) = function
                && let Some((_, _, text)) = (p.local_aliases.iter())
                    .rfind(|(o, n, _)| *o < before && f.span.contains(o) && n == written)
            {
                return Some(text.clone());
            }
        }
        let local = self
            .preparations()
            .any(|p| p.local_aliases.iter().any(|(_, n, _)| n == written));
        if local {
            return None;
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
            Cute::MmaSlice(_) => "a tiled MMA's thread slice",
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
            | "get_nonswizzle_portion"
            | "make_layout"
            | "make_shape"
            | "make_tiled_copy"
            | "make_tiled_copy_A"
            | "make_tiled_copy_B"
            | "make_tiled_copy_C"
            | "TiledMMA"
            | "MMA_Atom"
            | "make_tiled_mma"
    ) || head.starts_with("SM80_")
        || head.starts_with("SM75_")
        || head.starts_with("SM90_")
        || (head.starts_with('_')
            && head[1..].chars().all(|c| c.is_ascii_digit())
            && head.len() > 1)
}

impl RunScope<'_, '_, '_> {
    /// `text` with each `sizeof(T)` of a type whose size is known replaced by that size: a
    /// traits class's expanded constants name library types (`sizeof(cute::uint128_t) /
    /// sizeof(cutlass::half_t)`) that the text's own parse cannot tell from values.
    fn sizes_written_out(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(k) = rest.find("sizeof(") {
            let before_ok = rest[..k]
                .chars()
                .last()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
            let inner_start = k + "sizeof(".len();
            let close = rest[inner_start..].find(')').map(|c| inner_start + c);
            let (Some(close), true) = (close, before_ok) else {
                out.push_str(&rest[..inner_start]);
                rest = &rest[inner_start..];
                continue;
            };
            let inner = rest[inner_start..close]
                .trim()
                .trim_start_matches("typename ");
            let size = self.size_of_type_text(inner).or_else(|| {
                // A member type of a class template's instance (`typename
                // Traits<128, cutlass::bfloat16_t>::Element`), as the class defines it.
                let (class, member) = inner.rsplit_once("::")?;
                let class = class.trim();
                if !class.ends_with('>') {
                    return None;
                }
                match self.a.class_member(class, member.trim())? {
                    crate::front::class_members::Member::Type(t) => self.size_of_type_text(&t),
                    crate::front::class_members::Member::Value(_) => None,
                }
            });
            out.push_str(&rest[..k]);
            match size {
                Some(n) => out.push_str(&format!("({n})")),
                None => out.push_str(&rest[k..=close]),
            }
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// The bytes of a type written as text, a CuTe or CUTLASS numeric type included.
    fn size_of_type_text(&mut self, text: &str) -> Option<i64> {
        let text = text.trim().trim_start_matches("typename ");
        if let Some(bits) = crate::analysis::cute::values::known_type_bits(text) {
            return Some(i64::from(bits / 8));
        }
        let t = self.a.type_of_text(text, self.at)?;
        t.size().map(i64::from)
    }
}

/// Names in a CuTe type, resolved where the run stands: integer expressions by the run's
/// values (a traits class's constants), aliases and value types by its bindings.
struct RunScope<'x, 'a, 'p> {
    a: &'x mut Analyzer<'a, 'p>,
    at: Span,
}

impl Scope for RunScope<'_, '_, '_> {
    fn constant(&mut self, text: &str) -> Option<i64> {
        // A type trait (`std::is_same_v<T, cutlass::half_t>`): decided as traits are.
        if text.contains("is_same") {
            return self.a.condition_value(text, self.at, None).map(i64::from);
        }
        let text = self.sizes_written_out(text);
        let mask = vec![true; self.a.n];
        self.a.eval_text(&text, self.at, &mask, &text).as_const()
    }

    fn alias(&mut self, name: &str) -> Option<String> {
        self.a.cute_type_text(name, Some(self.at))
    }

    fn value_bits(&mut self, name: &str) -> Option<u32> {
        let t = self.a.type_of_text(name, self.at)?;
        t.size().map(|s| s * 8)
    }
}
