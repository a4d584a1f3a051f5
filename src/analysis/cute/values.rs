//! The values CuTe code computes with before any tensor exists: static integers, tuples
//! (shapes, strides, tilers), layouts, swizzles, copy operations and atoms, tiled copies and
//! value types; and CuTe's functions over them ([`apply`]), shared by the reading of types as
//! written and the analysis of calls in device code.

use super::copy::{CopyAtom, CopyOp, TiledCopy};
use super::layout::{Layout, Swizzle};
use super::mma::{MmaAtom, Operand, TiledMma};
use super::tuple::IntTuple;
use std::rc::Rc;

#[derive(Clone, Debug)]
pub enum Value {
    /// `_8`, `Int<8>{}`, or a plain integer where CuTe takes one.
    Int(i64),
    /// `Shape<...>`, `Stride<...>`, `Tile<...>`, `make_shape(...)`, `make_coord(...)`.
    Tuple(Vec<Value>),
    Layout(Layout),
    Swizzle(Swizzle),
    /// `GenRowMajor{}` (true) or `GenColMajor{}` (false).
    Major(bool),
    /// A copy operation before it has a value type (`UniversalCopy<uint128_t>`).
    Op(CopyOp),
    Atom(CopyAtom),
    TiledCopy(Rc<TiledCopy>),
    /// A value type, by its width in bits (`cute::uint128_t`, `half_t`, `Element`).
    Type(u32),
    /// An MMA operation (`SM80_16x8x16_F32F16F16F32_TN`, `MMA_Atom<...>`).
    MmaOp(Rc<MmaAtom>),
    /// `TiledMMA<...>` / `make_tiled_mma(...)`.
    Mma(Rc<TiledMma>),
    /// `_` in a tile: no permutation of that mode.
    Underscore,
}

impl Value {
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Tuple(_) => "a tuple",
            Value::Layout(_) => "a layout",
            Value::Swizzle(_) => "a swizzle",
            Value::Major(_) => "a major order",
            Value::Op(_) => "a copy operation",
            Value::Atom(_) => "a copy atom",
            Value::TiledCopy(_) => "a tiled copy",
            Value::Type(_) => "a value type",
            Value::MmaOp(_) => "an MMA operation",
            Value::Mma(_) => "a tiled MMA",
            Value::Underscore => "`_`",
        }
    }

    /// An integer tuple of integers and tuples of them (a shape or stride).
    pub fn int_tuple(&self) -> Result<IntTuple, String> {
        match self {
            Value::Int(i) => Ok(IntTuple::Int(*i)),
            Value::Tuple(items) => Ok(IntTuple::Tuple(
                items
                    .iter()
                    .map(Value::int_tuple)
                    .collect::<Result<_, _>>()?,
            )),
            other => Err(format!("{} where CuTe takes a shape", other.kind())),
        }
    }

    /// A layout; a shape is the compact column-major layout of itself, an integer `n` is
    /// `n:1`.
    pub fn layout(&self) -> Result<Layout, String> {
        match self {
            Value::Layout(l) => Ok(l.clone()),
            Value::Int(_) | Value::Tuple(_) => Ok(Layout::column_major(self.int_tuple()?)),
            other => Err(format!("{} where CuTe takes a layout", other.kind())),
        }
    }
}

/// The width of the values of CuTe's and CUTLASS's own numeric types, and C's, by name
/// (any `cute::`/`cutlass::` qualification dropped).
pub fn known_type_bits(name: &str) -> Option<u32> {
    let name = name.trim();
    let short = name.rsplit("::").next().unwrap_or(name);
    Some(match short {
        "uint128_t" | "int128_t" | "float4" | "int4" | "uint4" | "double2" => 128,
        "uint64_t" | "int64_t" | "double" | "float2" | "int2" | "uint2" | "long long" => 64,
        "uint32_t" | "int32_t" | "float" | "int" | "unsigned" | "tfloat32_t" | "half2"
        | "__half2" | "bfloat162" | "__nv_bfloat162" | "uint" => 32,
        "uint16_t" | "int16_t" | "half_t" | "bfloat16_t" | "half" | "__half" | "__nv_bfloat16"
        | "nv_bfloat16" | "short" => 16,
        "uint8_t" | "int8_t" | "char" | "float_e4m3_t" | "float_e5m2_t" | "float_ue8m0_t"
        | "bool" => 8,
        _ => return None,
    })
}

/// CuTe's copy operations by name, with their template arguments' values.
pub fn copy_op(name: &str, args: &[Value]) -> Option<Result<CopyOp, String>> {
    let bits = |k: usize| match args.get(k) {
        Some(Value::Type(b)) => Ok(*b),
        Some(other) => Err(format!(
            "{} where a copy operation takes a type",
            other.kind()
        )),
        None => Err(format!("`{name}` without its type")),
    };
    Some(match name {
        "UniversalCopy" => bits(0).map(|bits| CopyOp::Universal { bits }),
        "AutoVectorizingCopyWithAssumedAlignment" => match args.first() {
            Some(Value::Int(b)) if matches!(b, 8 | 16 | 32 | 64 | 128) => {
                Ok(CopyOp::AutoVectorizing {
                    max_bits: *b as u32,
                })
            }
            None => Ok(CopyOp::AutoVectorizing { max_bits: 128 }),
            _ => Err("`AutoVectorizingCopyWithAssumedAlignment` takes 8, 16, 32, 64 or 128".into()),
        },
        "AutoVectorizingCopy" => Ok(CopyOp::AutoVectorizing { max_bits: 128 }),
        "DefaultCopy" => Ok(CopyOp::AutoVectorizing { max_bits: 8 }),
        "SM80_CP_ASYNC_CACHEALWAYS" | "SM80_CP_ASYNC_CACHEALWAYS_ZFILL" => bits(0).and_then(|b| {
            if matches!(b, 32 | 64 | 128) {
                Ok(CopyOp::CpAsync {
                    bits: b,
                    bypass_l1: false,
                })
            } else {
                Err(format!("`cp.async.ca` of {b} bits is not an instruction"))
            }
        }),
        "SM80_CP_ASYNC_CACHEGLOBAL" | "SM80_CP_ASYNC_CACHEGLOBAL_ZFILL" => bits(0).and_then(|b| {
            if b == 128 {
                Ok(CopyOp::CpAsync {
                    bits: b,
                    bypass_l1: true,
                })
            } else {
                Err(format!(
                    "`cp.async.cg` of {b} bits is not an instruction (only 16 bytes)"
                ))
            }
        }),
        n if matrix_op(n).is_some() => Ok(matrix_op(n).expect("checked")),
        n if n.starts_with("SM75_U32x")
            || n.starts_with("SM75_U16x")
            || n.starts_with("SM90_U32x")
            || n.starts_with("SM90_U16x")
            || n.starts_with("SM100_")
            || n.starts_with("SM90_TMA")
            || n.starts_with("SM90_BULK") =>
        {
            Err(format!(
                "the copy atom `{n}` is not modeled yet; banklint models CuTe's `UniversalCopy`, auto-vectorizing, `cp.async`, `ldmatrix` and `stmatrix` atoms"
            ))
        }
        _ => return None,
    })
}

/// `SM75_U32x4_LDSM_N` (`ldmatrix.x4`), `SM75_U16x8_LDSM_T` (`.x4.trans`: eight 16-bit
/// values per lane in four matrices), `SM90_U32x2_STSM_N` and the like.
fn matrix_op(name: &str) -> Option<CopyOp> {
    let (store, rest) = match (name.strip_prefix("SM75_"), name.strip_prefix("SM90_")) {
        (Some(r), _) if r.ends_with("_LDSM_N") || r.ends_with("_LDSM_T") => (false, r),
        (_, Some(r)) if r.ends_with("_STSM_N") || r.ends_with("_STSM_T") => (true, r),
        _ => return None,
    };
    let trans = rest.ends_with("_T");
    let lanes = rest.split('_').next()?;
    let count: u8 = match lanes {
        "U32x1" | "U16x2" => 1,
        "U32x2" | "U16x4" => 2,
        "U32x4" | "U16x8" => 4,
        _ => return None,
    };
    // `U32x{n}` names the plain form, `U16x{2n}` the transposed one.
    if lanes.starts_with("U32") == trans {
        return None;
    }
    Some(CopyOp::Matrix {
        count,
        trans,
        store,
    })
}

/// The permutation a `Tile<...>` mode of a tiled MMA gives: an extent is the identity over it,
/// a layout permutes, `_` leaves the atoms' own extent.
fn permutation(v: Option<&Value>) -> Result<Option<Layout>, String> {
    match v {
        None | Some(Value::Underscore) => Ok(None),
        Some(Value::Int(n)) => Ok(Some(Layout::column_major(IntTuple::Int(*n)))),
        Some(v) => v.layout().map(Some),
    }
}

fn tiled_mma(args: &[Value]) -> Result<Value, String> {
    let atom = match args.first() {
        Some(Value::MmaOp(a)) => (**a).clone(),
        Some(Value::Mma(m)) if args.len() == 1 => return Ok(Value::Mma(m.clone())),
        Some(other) => return Err(format!("{} as a tiled MMA's atom", other.kind())),
        None => return Err("a tiled MMA without its atom".to_string()),
    };
    let warps = match args.get(1) {
        Some(v) => v.layout()?,
        None => Layout::column_major(IntTuple::ints(&[1, 1, 1])),
    };
    let tile = match args.get(2) {
        Some(Value::Tuple(t)) => t.clone(),
        Some(other) => return Err(format!("{} as a tiled MMA's permutation", other.kind())),
        None => Vec::new(),
    };
    let permutation = [
        permutation(tile.first())?,
        permutation(tile.get(1))?,
        permutation(tile.get(2))?,
    ];
    TiledMma::new(atom, warps, permutation).map(|m| Value::Mma(Rc::new(m)))
}

/// `make_tiled_copy_A/B/C(atom, tiled_mma)`: the atom over the MMA's threads and values of
/// that operand.
fn tiled_copy_of_mma(operand: Operand, args: &[Value]) -> Result<Value, String> {
    let (Some(Value::Atom(atom)), Some(Value::Mma(mma))) = (args.first(), args.get(1)) else {
        return Err("`make_tiled_copy_A/B/C` without a copy atom and a tiled MMA".to_string());
    };
    let ((rows, cols), _, cells) = mma.operand_tv(operand)?;
    TiledCopy::from_cells(*atom, vec![rows, cols], &cells).map(|t| Value::TiledCopy(Rc::new(t)))
}

fn int_arg(args: &[Value], k: usize, what: &str) -> Result<i64, String> {
    match args.get(k) {
        Some(Value::Int(i)) => Ok(*i),
        Some(other) => Err(format!("{} as {what}", other.kind())),
        None => Err(format!("no {what}")),
    }
}

/// CuTe's function or class template `name` (unqualified) applied to `args` (the template
/// arguments of a type, or the arguments of a call). `None`: not one of CuTe's that banklint
/// models.
pub fn apply(name: &str, args: &[Value]) -> Option<Result<Value, String>> {
    if let Some(op) = copy_op(name, args) {
        return Some(op.map(Value::Op));
    }
    if let Some(atom) = MmaAtom::named(name) {
        return Some(Ok(Value::MmaOp(Rc::new(atom))));
    }
    Some(match name {
        "_" => Ok(Value::Underscore),
        "MMA_Atom" | "MMA_Traits" => match args.first() {
            Some(v @ Value::MmaOp(_)) => Ok(v.clone()),
            _ => Err(format!(
                "`{name}` of an MMA operation banklint does not model"
            )),
        },
        "TiledMMA" | "make_tiled_mma" => tiled_mma(args),
        "make_tiled_copy_A" => tiled_copy_of_mma(Operand::A, args),
        "make_tiled_copy_B" => tiled_copy_of_mma(Operand::B, args),
        "make_tiled_copy_C" => tiled_copy_of_mma(Operand::C, args),
        "Int" | "C" | "constant" => {
            int_arg(args, args.len().saturating_sub(1), "an integer").map(Value::Int)
        }
        "Shape" | "Stride" | "Tile" | "Step" | "Coord" | "tuple" | "make_shape" | "make_stride"
        | "make_tile" | "make_coord" | "make_step" => Ok(Value::Tuple(args.to_vec())),
        "GenRowMajor" | "LayoutRight" => Ok(Value::Major(true)),
        "GenColMajor" | "LayoutLeft" => Ok(Value::Major(false)),
        "Swizzle" => (|| {
            let b = int_arg(args, 0, "the swizzle's bits")?;
            let m = int_arg(args, 1, "the swizzle's base")?;
            let s = match args.get(2) {
                Some(_) => int_arg(args, 2, "the swizzle's shift")?,
                None => b,
            };
            Swizzle::new(b, m, s).map(Value::Swizzle)
        })(),
        "Layout" | "make_layout" => make_layout(args),
        "composition" => composition(args),
        // The layout under a swizzle (CuTe's `layout_b()` of a composed layout); a plain
        // layout is its own.
        "get_nonswizzle_portion" => match args {
            [v] => v.layout().map(|l| Value::Layout(l.without_swizzle())),
            _ => Err("`get_nonswizzle_portion` of other than one layout".to_string()),
        },
        "tile_to_shape" => (|| {
            let block = args.first().ok_or("`tile_to_shape` without a block")?;
            let shape = args.get(1).ok_or("`tile_to_shape` without a shape")?;
            if args.len() > 2 {
                return Err("`tile_to_shape` with a mode order is not modeled".to_string());
            }
            block
                .layout()?
                .tile_to_shape(&shape.int_tuple()?)
                .map(Value::Layout)
        })(),
        "Copy_Atom" => (|| {
            let op = match args.first() {
                Some(Value::Op(op)) => *op,
                Some(Value::Atom(a)) => a.op,
                Some(other) => return Err(format!("{} as a copy atom's operation", other.kind())),
                None => return Err("`Copy_Atom` without its operation".to_string()),
            };
            let value_bits = match args.get(1) {
                Some(Value::Type(b)) => *b,
                _ => return Err("`Copy_Atom` without a value type banklint knows".to_string()),
            };
            Ok(Value::Atom(CopyAtom { op, value_bits }))
        })(),
        "Copy_Traits" => match args.first() {
            Some(Value::Op(op)) => Ok(Value::Op(*op)),
            _ => Err("`Copy_Traits` of an unknown operation".to_string()),
        },
        "make_tiled_copy" => (|| {
            let atom = match args.first() {
                Some(Value::Atom(a)) => *a,
                _ => return Err("`make_tiled_copy` without a copy atom".to_string()),
            };
            let thr = args
                .get(1)
                .ok_or("`make_tiled_copy` without a thread layout")?
                .layout()?;
            let val = match args.get(2) {
                Some(v) => v.layout()?,
                None => Layout::column_major(IntTuple::Int(1)),
            };
            TiledCopy::new(atom, &thr, &val).map(|t| Value::TiledCopy(Rc::new(t)))
        })(),
        "size" => size_of(args.first()?).map(Value::Int),
        "cosize" => (|| {
            args.first()
                .ok_or("no layout")?
                .layout()?
                .cosize()
                .map(Value::Int)
        })(),
        "rank" => match args.first()? {
            Value::Layout(l) => Ok(Value::Int(l.rank() as i64)),
            Value::Tuple(t) => Ok(Value::Int(t.len() as i64)),
            _ => Ok(Value::Int(1)),
        },
        _ => return None,
    })
}

/// `size(x)`: a layout's or shape's number of coordinates, a tiled copy's number of threads.
pub fn size_of(v: &Value) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Tuple(_) => Ok(v.int_tuple()?.product()),
        Value::Layout(l) => Ok(l.size()),
        Value::TiledCopy(t) => Ok(t.threads),
        Value::Mma(m) => Ok(m.threads()),
        other => Err(format!("`size` of {}", other.kind())),
    }
}

fn make_layout(args: &[Value]) -> Result<Value, String> {
    match args {
        [] => Err("a layout without a shape".to_string()),
        [shape] => Ok(Value::Layout(shape.layout()?)),
        [shape, Value::Major(row)] => {
            let s = shape.int_tuple()?;
            Ok(Value::Layout(if *row {
                Layout::row_major(s)
            } else {
                Layout::column_major(s)
            }))
        }
        [
            shape @ (Value::Int(_) | Value::Tuple(_)),
            stride @ (Value::Int(_) | Value::Tuple(_)),
        ] => {
            let (s, d) = (shape.int_tuple()?, stride.int_tuple()?);
            if !s.congruent(&d) {
                return Err(format!(
                    "the shape `{s}` and the stride `{d}` are not congruent"
                ));
            }
            Ok(Value::Layout(Layout::strided(s, d)))
        }
        modes => {
            let layouts: Vec<Layout> = modes.iter().map(Value::layout).collect::<Result<_, _>>()?;
            Ok(Value::Layout(Layout::concatenate(&layouts)))
        }
    }
}

fn composition(args: &[Value]) -> Result<Value, String> {
    let (a, b) = match args {
        [a, b] => (a, b),
        [a, Value::Int(0), b] => (a, b),
        _ => return Err("`composition` of other than two operands is not modeled".to_string()),
    };
    match (a, b) {
        (Value::Swizzle(s), b) => Ok(Value::Layout(b.layout()?.swizzled(*s, 0))),
        (a, Value::Tuple(modes)) => {
            // A tiler: one layout per mode (an integer `n` is `n:1`).
            let tiler: Vec<Layout> = modes.iter().map(Value::layout).collect::<Result<_, _>>()?;
            a.layout()?
                .compose_by_mode(&tiler)
                .map(Value::Layout)
                .ok_or_else(|| "a tiler with more modes than the layout".to_string())
        }
        (a, b) => Ok(Value::Layout(a.layout()?.compose(&b.layout()?))),
    }
}
