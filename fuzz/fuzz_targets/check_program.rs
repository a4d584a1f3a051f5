//! Structure-aware fuzzing of the whole pipeline: the input is decoded (via `arbitrary`) into
//! a CUDA program of macros, a header, kernels and device functions with shared arrays,
//! loops, branches and calls, and host functions whose definitions refer to each other and
//! to themselves, with launches and host-template calls. Names come from small pools so that
//! references collide: cycles, self-reference, fan-out and redefinition are common, not rare.
//! Byte-level mutation seldom gets past the parser; these inputs reach the analysis. Run with
//! a 2 s per-input limit, so a hang is a finding, not only a crash.
#![no_main]
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::fmt::Write;

mod common;

const HEADER: &str = "fuzz_h.cuh";

#[derive(Arbitrary, Debug)]
struct Program {
    arch: u8,
    macros: Vec<Macro>,
    header_guard: Guard,
    header: Vec<DeviceItem>,
    include_twice: bool,
    items: Vec<DeviceItem>,
    host: Vec<HostFn>,
}

#[derive(Arbitrary, Debug)]
enum Guard {
    None,
    PragmaOnce,
    IfNDef,
}

#[derive(Arbitrary, Debug)]
enum Macro {
    Object(u8, Expr),
    Function(u8, Expr),
    /// `#if COND ... #endif` around a definition of a macro.
    Conditional(Expr, u8, Expr),
    Undef(u8),
}

#[derive(Arbitrary, Debug)]
enum DeviceItem {
    Kernel(Kernel),
    DeviceFn(DeviceFn),
}

#[derive(Arbitrary, Debug)]
struct Kernel {
    name: u8,
    template_params: u8,
    launch_bounds: Option<u16>,
    shared: Vec<SharedDecl>,
    body: Vec<Stmt>,
}

#[derive(Arbitrary, Debug)]
struct DeviceFn {
    name: u8,
    template_param: bool,
    /// Takes a shared pointer (`float *p`) rather than an int.
    takes_pointer: bool,
    body: Vec<Stmt>,
}

#[derive(Arbitrary, Debug)]
struct SharedDecl {
    name: u8,
    element: Element,
    dims: Vec<Expr>,
    extern_dynamic: bool,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Element {
    Float,
    Int,
    Double,
    Half2,
    Char,
    Float4,
}

#[derive(Arbitrary, Debug)]
enum Stmt {
    Load {
        array: u8,
        index: Vec<Expr>,
        cast: Option<Element>,
    },
    Store {
        array: u8,
        index: Vec<Expr>,
        value: Expr,
    },
    Atomic {
        array: u8,
        index: Expr,
    },
    Local {
        var: u8,
        value: Expr,
    },
    Assign {
        var: u8,
        op: u8,
        value: Expr,
    },
    For {
        var: u8,
        start: Expr,
        bound: Expr,
        step: Step,
        body: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
    Call {
        func: u8,
        arg: Expr,
        template_arg: Option<Expr>,
    },
    PointerCall {
        func: u8,
        array: u8,
        offset: Expr,
    },
    RowPointer {
        var: u8,
        array: u8,
        offset: Expr,
    },
    ThroughPointer {
        var: u8,
        index: Expr,
        store: bool,
    },
    Sync,
    Return,
    Break,
    InlineLdmatrix {
        array: u8,
        index: Expr,
    },
}

#[derive(Arbitrary, Debug)]
enum Step {
    Inc,
    Add(Expr),
    Mul(Expr),
    Shr(Expr),
}

#[derive(Arbitrary, Debug)]
enum Expr {
    Lit(i16),
    Big(u32),
    Thread(u8),
    Block(u8),
    BlockDim(u8),
    Lane,
    Var(u8),
    Macro(u8),
    MacroCall(u8, Box<Expr>),
    TemplateParam(u8),
    Binary(u8, Box<Expr>, Box<Expr>),
    Unary(u8, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Intrinsic(u8, Box<Expr>),
    Sizeof(Element),
}

#[derive(Arbitrary, Debug)]
struct HostFn {
    name: u8,
    template_params: u8,
    stmts: Vec<HostStmt>,
}

#[derive(Arbitrary, Debug)]
enum HostStmt {
    Int {
        var: u8,
        constexpr: bool,
        value: Expr,
    },
    Reassign {
        var: u8,
        value: Expr,
    },
    Clamp {
        var: u8,
        max: Expr,
    },
    Dim3 {
        var: u8,
        dims: Vec<Expr>,
        spaced: bool,
    },
    Printf {
        var: u8,
    },
    Launch {
        kernel: u8,
        template_args: Vec<Expr>,
        grid: Expr,
        block: LaunchBlock,
        dynamic: Option<Expr>,
    },
    CallHost {
        func: u8,
        template_args: Vec<Expr>,
    },
    CacheConfig {
        kernel: u8,
        prefer_l1: bool,
    },
    Loop {
        var: u8,
        bound: Expr,
        body: Vec<HostStmt>,
    },
}

#[derive(Arbitrary, Debug)]
enum LaunchBlock {
    Var(u8),
    Expr(Expr),
    Dim3(Vec<Expr>),
}

/// Where an expression is written: what its variables and template parameters may name.
#[derive(Clone, Copy)]
struct Scope {
    device: bool,
    template_params: u8,
}

fn pick(n: u8, pool: u8) -> u8 {
    n % pool
}

fn element_name(e: Element) -> &'static str {
    match e {
        Element::Float => "float",
        Element::Int => "int",
        Element::Double => "double",
        Element::Half2 => "__half2",
        Element::Char => "char",
        Element::Float4 => "float4",
    }
}

fn write_expr(out: &mut String, e: &Expr, scope: Scope) {
    match e {
        Expr::Lit(v) => write!(out, "{v}").unwrap(),
        Expr::Big(v) => write!(out, "{v}u").unwrap(),
        Expr::Thread(a) if scope.device => write!(out, "threadIdx.{}", axis(*a)).unwrap(),
        Expr::Block(a) if scope.device => write!(out, "blockIdx.{}", axis(*a)).unwrap(),
        Expr::BlockDim(a) if scope.device => write!(out, "blockDim.{}", axis(*a)).unwrap(),
        Expr::Lane if scope.device => out.push_str("(threadIdx.x & 31)"),
        Expr::Thread(_) | Expr::Block(_) | Expr::BlockDim(_) | Expr::Lane => out.push('3'),
        Expr::Var(v) => write!(out, "v{}", pick(*v, 6)).unwrap(),
        Expr::Macro(m) => write!(out, "M{}", pick(*m, 5)).unwrap(),
        Expr::MacroCall(m, arg) => {
            write!(out, "F{}(", pick(*m, 5)).unwrap();
            write_expr(out, arg, scope);
            out.push(')');
        }
        Expr::TemplateParam(p) if scope.template_params > 0 => {
            write!(out, "T{}", p % scope.template_params).unwrap()
        }
        Expr::TemplateParam(_) => out.push_str("32"),
        Expr::Binary(op, a, b) => {
            const OPS: [&str; 14] = [
                "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "==", "&&", "||",
            ];
            out.push('(');
            write_expr(out, a, scope);
            write!(out, " {} ", OPS[*op as usize % OPS.len()]).unwrap();
            write_expr(out, b, scope);
            out.push(')');
        }
        Expr::Unary(op, a) => {
            out.push_str(["-", "!", "~", "(unsigned)", "(long long)"][*op as usize % 5]);
            out.push('(');
            write_expr(out, a, scope);
            out.push(')');
        }
        Expr::Ternary(c, a, b) => {
            out.push('(');
            write_expr(out, c, scope);
            out.push_str(" ? ");
            write_expr(out, a, scope);
            out.push_str(" : ");
            write_expr(out, b, scope);
            out.push(')');
        }
        Expr::Intrinsic(f, a) => {
            let name =
                ["__popc", "__clz", "__brev", "min(7, ", "max(1, ", "__ffs"][*f as usize % 6];
            out.push_str(name);
            if !name.ends_with(' ') {
                out.push('(');
            }
            write_expr(out, a, scope);
            out.push(')');
        }
        Expr::Sizeof(e) => write!(out, "sizeof({})", element_name(*e)).unwrap(),
    }
}

fn axis(a: u8) -> char {
    ['x', 'y', 'z'][a as usize % 3]
}

/// Up to three expressions, comma-separated: template arguments, `dim3` sizes.
fn expr_list(list: &[Expr], scope: Scope) -> String {
    let parts: Vec<String> = list.iter().take(3).map(|e| expr(e, scope)).collect();
    parts.join(", ")
}

fn expr(e: &Expr, scope: Scope) -> String {
    let mut s = String::new();
    write_expr(&mut s, e, scope);
    s
}

fn template_header(out: &mut String, params: u8) {
    if params > 0 {
        out.push_str("template <");
        for p in 0..params {
            if p > 0 {
                out.push_str(", ");
            }
            write!(out, "int T{p}").unwrap();
        }
        out.push_str(">\n");
    }
}

fn write_macro(out: &mut String, m: &Macro) {
    let scope = Scope {
        device: false,
        template_params: 0,
    };
    match m {
        Macro::Object(n, e) => {
            writeln!(out, "#define M{} {}", pick(*n, 5), expr(e, scope)).unwrap()
        }
        Macro::Function(n, e) => {
            // The body names the parameter through variable `v0`'s spelling.
            let body = expr(e, scope).replace("v0", "x");
            writeln!(out, "#define F{}(x) ({})", pick(*n, 5), body).unwrap();
        }
        Macro::Conditional(cond, n, e) => {
            writeln!(out, "#if {}", expr(cond, scope)).unwrap();
            writeln!(out, "#define M{} {}", pick(*n, 5), expr(e, scope)).unwrap();
            out.push_str("#endif\n");
        }
        Macro::Undef(n) => writeln!(out, "#undef M{}", pick(*n, 5)).unwrap(),
    }
}

fn write_index(out: &mut String, index: &[Expr], scope: Scope) {
    if index.is_empty() {
        out.push_str("[0]");
    }
    for i in index.iter().take(3) {
        out.push('[');
        write_expr(out, i, scope);
        out.push(']');
    }
}

fn write_stmts(out: &mut String, stmts: &[Stmt], scope: Scope, depth: usize) {
    for s in stmts {
        write_stmt(out, s, scope, depth);
    }
}

fn write_stmt(out: &mut String, s: &Stmt, scope: Scope, depth: usize) {
    let pad = "  ".repeat(depth.min(40));
    out.push_str(&pad);
    match s {
        Stmt::Load {
            array,
            index,
            cast: None,
        } => {
            write!(out, "v{} = s{}", pick(*array, 6), pick(*array, 3)).unwrap();
            write_index(out, index, scope);
            out.push_str(";\n");
        }
        Stmt::Load {
            array,
            index,
            cast: Some(e),
        } => {
            let t = element_name(*e);
            write!(
                out,
                "{{ {t} w = reinterpret_cast<{t} *>(s{})",
                pick(*array, 3)
            )
            .unwrap();
            write_index(out, &index[..index.len().min(1)], scope);
            out.push_str("; (void)w; }\n");
        }
        Stmt::Store {
            array,
            index,
            value,
        } => {
            write!(out, "s{}", pick(*array, 3)).unwrap();
            write_index(out, index, scope);
            writeln!(out, " = {};", expr(value, scope)).unwrap();
        }
        Stmt::Atomic { array, index } => {
            writeln!(
                out,
                "atomicAdd(&s{}[{}], 1);",
                pick(*array, 3),
                expr(index, scope)
            )
            .unwrap();
        }
        Stmt::Local { var, value } => {
            writeln!(out, "int v{} = {};", pick(*var, 6), expr(value, scope)).unwrap();
        }
        Stmt::Assign { var, op, value } => {
            let op = ["=", "+=", "*=", "<<=", ">>=", "^=", "|="][*op as usize % 7];
            writeln!(out, "v{} {op} {};", pick(*var, 6), expr(value, scope)).unwrap();
        }
        Stmt::For {
            var,
            start,
            bound,
            step,
            body,
        } => {
            let v = format!("v{}", pick(*var, 6));
            let step = match step {
                Step::Inc => format!("++{v}"),
                Step::Add(e) => format!("{v} += {}", expr(e, scope)),
                Step::Mul(e) => format!("{v} *= {}", expr(e, scope)),
                Step::Shr(e) => format!("{v} >>= {}", expr(e, scope)),
            };
            writeln!(
                out,
                "for (int {v} = {}; {v} < {}; {step}) {{",
                expr(start, scope),
                expr(bound, scope)
            )
            .unwrap();
            write_stmts(out, body, scope, depth + 1);
            out.push_str(&pad);
            out.push_str("}\n");
        }
        Stmt::While { cond, body } => {
            writeln!(out, "while ({}) {{", expr(cond, scope)).unwrap();
            write_stmts(out, body, scope, depth + 1);
            out.push_str(&pad);
            out.push_str("}\n");
        }
        Stmt::If {
            cond,
            then,
            otherwise,
        } => {
            writeln!(out, "if ({}) {{", expr(cond, scope)).unwrap();
            write_stmts(out, then, scope, depth + 1);
            out.push_str(&pad);
            out.push_str("} else {\n");
            write_stmts(out, otherwise, scope, depth + 1);
            out.push_str(&pad);
            out.push_str("}\n");
        }
        Stmt::Call {
            func,
            arg,
            template_arg,
        } => {
            write!(out, "f{}", pick(*func, 4)).unwrap();
            if let Some(t) = template_arg {
                write!(out, "<{}>", expr(t, scope)).unwrap();
            }
            writeln!(out, "({});", expr(arg, scope)).unwrap();
        }
        Stmt::PointerCall {
            func,
            array,
            offset,
        } => {
            writeln!(
                out,
                "g{}(&s{}[0] + ({}));",
                pick(*func, 4),
                pick(*array, 3),
                expr(offset, scope)
            )
            .unwrap();
        }
        Stmt::RowPointer { var, array, offset } => {
            writeln!(
                out,
                "float *p{} = (float *)&s{}[0] + ({});",
                pick(*var, 3),
                pick(*array, 3),
                expr(offset, scope)
            )
            .unwrap();
        }
        Stmt::ThroughPointer { var, index, store } => {
            let target = format!("p{}[{}]", pick(*var, 3), expr(index, scope));
            if *store {
                writeln!(out, "{target} = 1.0f;").unwrap();
            } else {
                writeln!(out, "v0 = {target};").unwrap();
            }
        }
        Stmt::Sync => out.push_str("__syncthreads();\n"),
        Stmt::Return => out.push_str("return;\n"),
        Stmt::Break => out.push_str("break;\n"),
        Stmt::InlineLdmatrix { array, index } => {
            writeln!(
                out,
                "{{ unsigned a = __cvta_generic_to_shared(&s{}[{}]); unsigned r0, r1, r2, r3;\n\
                 asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{%0,%1,%2,%3}}, [%4];\" \
                 : \"=r\"(r0), \"=r\"(r1), \"=r\"(r2), \"=r\"(r3) : \"r\"(a)); }}",
                pick(*array, 3),
                expr(index, scope)
            )
            .unwrap();
        }
    }
}

fn write_locals(out: &mut String) {
    out.push_str("  int v0 = 0, v1 = 1, v2 = 2, v3 = 3, v4 = 4, v5 = 5;\n  float *p0 = 0, *p1 = 0, *p2 = 0;\n");
}

fn write_device_item(out: &mut String, item: &DeviceItem) {
    match item {
        DeviceItem::Kernel(k) => {
            let params = k.template_params % 3;
            let scope = Scope {
                device: true,
                template_params: params,
            };
            template_header(out, params);
            out.push_str("__global__ void ");
            if let Some(b) = k.launch_bounds {
                write!(out, "__launch_bounds__({}) ", b % 1025).unwrap();
            }
            writeln!(out, "k{}(float *out, int n) {{", pick(k.name, 4)).unwrap();
            for d in k.shared.iter().take(4) {
                let t = element_name(d.element);
                if d.extern_dynamic {
                    writeln!(out, "  extern __shared__ {t} s{}[];", pick(d.name, 3)).unwrap();
                    continue;
                }
                write!(out, "  __shared__ {t} s{}", pick(d.name, 3)).unwrap();
                if d.dims.is_empty() {
                    out.push_str("[32]");
                }
                for dim in d.dims.iter().take(3) {
                    write!(out, "[{}]", expr(dim, scope)).unwrap();
                }
                out.push_str(";\n");
            }
            write_locals(out);
            write_stmts(out, &k.body, scope, 1);
            out.push_str("  out[threadIdx.x] = v0;\n}\n");
        }
        DeviceItem::DeviceFn(f) => {
            let params = u8::from(f.template_param);
            let scope = Scope {
                device: true,
                template_params: params,
            };
            template_header(out, params);
            let name = pick(f.name, 4);
            if f.takes_pointer {
                writeln!(out, "__device__ void g{name}(float *q) {{").unwrap();
                out.push_str("  float *p0 = q, *p1 = q, *p2 = q;\n");
                out.push_str("  int v0 = 0, v1 = 1, v2 = 2, v3 = 3, v4 = 4, v5 = 5;\n");
                out.push_str("  __shared__ float s0[32], s1[32], s2[32];\n");
            } else {
                writeln!(out, "__device__ void f{name}(int v5) {{").unwrap();
                out.push_str("  int v0 = 0, v1 = 1, v2 = 2, v3 = 3, v4 = 4;\n");
                out.push_str("  float *p0 = 0, *p1 = 0, *p2 = 0;\n");
                out.push_str("  __shared__ float s0[32][33], s1[64], s2[8][32];\n");
            }
            write_stmts(out, &f.body, scope, 1);
            out.push_str("}\n");
        }
    }
}

fn write_host_stmts(out: &mut String, stmts: &[HostStmt], scope: Scope, depth: usize) {
    let pad = "  ".repeat(depth.min(40));
    for s in stmts {
        out.push_str(&pad);
        match s {
            HostStmt::Int {
                var,
                constexpr,
                value,
            } => {
                let kw = if *constexpr { "constexpr int" } else { "int" };
                writeln!(out, "{kw} v{} = {};", pick(*var, 6), expr(value, scope)).unwrap();
            }
            HostStmt::Reassign { var, value } => {
                writeln!(out, "v{} = {};", pick(*var, 6), expr(value, scope)).unwrap();
            }
            HostStmt::Clamp { var, max } => {
                let v = format!("v{}", pick(*var, 6));
                let m = expr(max, scope);
                writeln!(out, "{v} = {v} > {m} ? {m} : {v};").unwrap();
            }
            HostStmt::Dim3 { var, dims, spaced } => {
                let sep = if *spaced { " " } else { "" };
                let dims = expr_list(dims, scope);
                writeln!(out, "dim3 d{}{sep}({dims});", pick(*var, 3)).unwrap();
            }
            HostStmt::Printf { var } => {
                let v = pick(*var, 3);
                writeln!(
                    out,
                    "printf(\"d{v} (%d, %d) v{v} = %d\\n\", d{v}.x, d{v}.y, v{v});"
                )
                .unwrap();
            }
            HostStmt::Launch {
                kernel,
                template_args,
                grid,
                block,
                dynamic,
            } => {
                write!(out, "k{}", pick(*kernel, 4)).unwrap();
                if !template_args.is_empty() {
                    write!(out, "<{}>", expr_list(template_args, scope)).unwrap();
                }
                let block = match block {
                    LaunchBlock::Var(v) => format!("d{}", pick(*v, 3)),
                    LaunchBlock::Expr(e) => expr(e, scope),
                    LaunchBlock::Dim3(d) => format!("dim3({})", expr_list(d, scope)),
                };
                write!(out, "<<<{}, {block}", expr(grid, scope)).unwrap();
                if let Some(d) = dynamic {
                    write!(out, ", {}", expr(d, scope)).unwrap();
                }
                out.push_str(">>>(out, n);\n");
            }
            HostStmt::CallHost {
                func,
                template_args,
            } => {
                write!(out, "h{}", pick(*func, 3)).unwrap();
                if !template_args.is_empty() {
                    write!(out, "<{}>", expr_list(template_args, scope)).unwrap();
                }
                out.push_str("(out, n);\n");
            }
            HostStmt::CacheConfig { kernel, prefer_l1 } => {
                let c = if *prefer_l1 {
                    "cudaFuncCachePreferL1"
                } else {
                    "cudaFuncCachePreferShared"
                };
                writeln!(out, "cudaFuncSetCacheConfig(k{}, {c});", pick(*kernel, 4)).unwrap();
            }
            HostStmt::Loop { var, bound, body } => {
                let v = format!("v{}", pick(*var, 6));
                writeln!(
                    out,
                    "for (int {v} = 0; {v} < {}; ++{v}) {{",
                    expr(bound, scope)
                )
                .unwrap();
                write_host_stmts(out, body, scope, depth + 1);
                out.push_str(&pad);
                out.push_str("}\n");
            }
        }
    }
}

fn render(p: &Program) -> (String, String) {
    let mut header = String::new();
    match p.header_guard {
        Guard::None => {}
        Guard::PragmaOnce => header.push_str("#pragma once\n"),
        Guard::IfNDef => header.push_str("#ifndef FUZZ_H\n#define FUZZ_H\n"),
    }
    for item in p.header.iter().take(8) {
        write_device_item(&mut header, item);
    }
    if matches!(p.header_guard, Guard::IfNDef) {
        header.push_str("#endif\n");
    }

    let mut main = String::new();
    for m in p.macros.iter().take(12) {
        write_macro(&mut main, m);
    }
    writeln!(main, "#include \"{HEADER}\"").unwrap();
    if p.include_twice {
        writeln!(main, "#include \"{HEADER}\"").unwrap();
    }
    for item in p.items.iter().take(12) {
        write_device_item(&mut main, item);
    }
    for h in p.host.iter().take(6) {
        let params = h.template_params % 3;
        template_header(&mut main, params);
        writeln!(main, "void h{}(float *out, int n) {{", pick(h.name, 3)).unwrap();
        main.push_str("  dim3 d0(32), d1(32, 8), d2(16, 16);\n");
        let scope = Scope {
            device: false,
            template_params: params,
        };
        write_host_stmts(&mut main, &h.stmts, scope, 1);
        main.push_str("}\n");
    }
    (main, header)
}

fuzz_target!(|program: Program| {
    let (main, header) = render(&program);
    // One folder per process: the header is read from beside the checked file.
    let dir = std::env::temp_dir().join(format!("banklint-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    std::fs::write(dir.join(HEADER), header).expect("write the header");
    if std::env::var_os("FUZZ_PRINT").is_some() {
        eprintln!("{main}");
    }
    common::check_all(
        dir.join("fuzz.cu"),
        main.into_bytes(),
        common::arch_for(program.arch),
    );
});
