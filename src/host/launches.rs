//! Block shapes: for each kernel, the thread-block shapes to analyze, taken in this order
//! from launch sites in the same file (`k<<<g, dim3(32, 8)>>>`, `dim3 t(16, 16); k<<<g, t>>>`),
//! an annotation on the line before the kernel (`// banklint: block(32, 8)`), `--block-dim`,
//! or else the stated default: one warp of a block whose x extent is a multiple of 32.
//! Each shape also carries what runs with it: template arguments, integer kernel arguments
//! that are constants at the launch, and values a `// banklint: args(n = 1024)` annotation
//! gives the parameters the launch leaves open.

use crate::analysis::extraction::{Function, Unit};
use crate::analysis::interp::{BlockShape, ShapeSource};
use crate::analysis::shape::TensorMapArguments;
use crate::analysis::types::Type;
use crate::analysis::types::{OPAQUE_SIZES, opaque_name};
use crate::front::annotation_syntax::Directive;
use crate::front::cuda::Prepared;
use crate::front::host_code::{HostValue, LaunchValues};

use super::element_sizes::{
    member_types_written, type_param_is_integral, type_param_matters, undeclared_element_types,
    with_element_sizes,
};
use crate::limits::MAX_CONFIGURATIONS;

/// Threads per block allowed by every architecture since 2.x (512 on 1.x).
pub const MAX_THREADS: u32 = 1024;

/// A launch whose block shape could not be used, or an annotation that could not be
/// applied, with the reason.
#[derive(Clone, Debug)]
pub struct UnresolvedLaunch {
    /// In the file (not the expanded text).
    pub span: std::ops::Range<usize>,
    pub reason: String,
    /// What was not used: `None` for a launch's block shape.
    pub annotation: Option<String>,
    /// For a kernel with more configurations than banklint analyzes: how many it has.
    pub configurations: Option<usize>,
}

/// Template arguments and constant kernel arguments, by parameter name.
type TemplateArgs = Vec<(String, String)>;
type Arguments = Vec<(String, i64)>;
/// What runs with a launch whose block shape is not known.
type WithoutShape = (TemplateArgs, Arguments, TensorMapArguments);
/// An annotation's span and the values it gives.
type AnnotatedArguments = (std::ops::Range<usize>, Arguments);

/// The launches of a file that includes this one (directly or through other headers): what
/// its front end found, its path as reported, and how many includes away it is (0: it
/// includes this file itself).
pub struct IncluderLaunches<'p> {
    pub prepared: &'p Prepared,
    pub file: String,
    pub level: usize,
}

pub fn shapes_for(
    unit: &Unit<'_>,
    f: &Function,
    cli: Option<[u32; 3]>,
    unresolved: &mut Vec<UnresolvedLaunch>,
    includers: &[IncluderLaunches<'_>],
) -> Vec<BlockShape> {
    let mut shapes: Vec<BlockShape> = Vec::new();
    // Instantiations and arguments of launches whose block shape is not known.
    let mut without_shape: Vec<WithoutShape> = Vec::new();
    if f.kernel {
        launch_shapes(
            unit.prepared,
            f,
            &|l| ShapeSource::Launch(unit.prepared.source_span(l.span.clone())),
            unresolved,
            &mut shapes,
            &mut without_shape,
        );
        // A kernel this file never launches may be launched by a file that includes it
        // (Rodinia's `main.cu` includes each kernel file, then launches its kernels): the
        // nearest that do, every one at that distance (a library's instantiation files, one
        // configuration each). Problems with those launches are those files' to report.
        let own = !shapes.is_empty() || !without_shape.is_empty();
        let mut launched_at = None;
        for inc in includers.iter().filter(|_| !own) {
            if launched_at.is_some_and(|level| inc.level > level) {
                break;
            }
            let before = shapes.len() + without_shape.len();
            launch_shapes(
                inc.prepared,
                f,
                &|l| ShapeSource::IncluderLaunch {
                    file: inc.file.clone(),
                    line: inc.prepared.line_of(l.span.start),
                },
                &mut Vec::new(),
                &mut shapes,
                &mut without_shape,
            );
            if shapes.len() + without_shape.len() > before {
                launched_at = Some(inc.level);
            }
        }
    }
    let launched = !shapes.is_empty() || !without_shape.is_empty();
    // Launches whose shape is unknown get the fallback shape, with what they did say.
    let annotated = kernel_annotation(unit, f);
    let fallback = fallback_shape(annotated.block, cli);
    for (template_args, arguments, tensor_maps) in without_shape {
        if !shapes.iter().any(|s| {
            s.template_args == template_args
                && s.arguments == arguments
                && s.tensor_maps == tensor_maps
        }) {
            shapes.push(BlockShape {
                template_args,
                arguments,
                tensor_maps,
                ..fallback.clone()
            });
        }
    }
    if shapes.is_empty() {
        shapes.push(fallback);
    }
    // A kernel template nothing here launches is compiled for each explicit instantiation
    // the file writes (`template __global__ void k<4, true>(P);`): those are its
    // configurations, as an `instantiate(...)` annotation would name them.
    let mut instantiations = annotated.instantiations.clone();
    if f.kernel && !launched {
        instantiations.extend(explicit_instantiations(unit.prepared, f));
    }
    let shapes = with_annotated_instantiations(f, shapes, &instantiations, unresolved);
    let known_type = |t: &str| {
        crate::analysis::interp::type_from_text(&unit.types, t).is_some()
            || crate::analysis::class_templates::names_instance(&unit.types, t)
    };
    // As written: lowering blanks template argument lists (`f<T>(x)` -> `f(x)`).
    let p = unit.prepared;
    let text = p.source.get(p.map.span(f.span.clone())).unwrap_or("");
    // Decided once per parameter, not once per shape.
    let mattering: Vec<&str> = f
        .template
        .iter()
        .flat_map(|t| &t.params)
        .filter(|p| p.is_type && type_param_matters(text, &f.name, &p.name))
        .map(|p| p.name.as_str())
        .collect();
    let matters = |p: &str| mattering.contains(&p);
    let integral: Vec<&str> = mattering
        .iter()
        .copied()
        .filter(|p| type_param_is_integral(text, p))
        .collect();
    // `typename Acc::ftype`: a parameter with member types is a class; its members are what
    // an element can be, at each size.
    let members: Vec<(&str, Vec<String>)> = f
        .template
        .iter()
        .flat_map(|t| &t.params)
        .filter(|p| p.is_type)
        .map(|p| (p.name.as_str(), member_types_written(text, &p.name)))
        .filter(|(_, m)| !m.is_empty())
        .collect();
    let member_types = |p: &str| {
        (members.iter())
            .find(|(n, _)| *n == p)
            .map_or_else(Vec::new, |(_, m)| m.clone())
    };
    let mut shapes = with_element_sizes(f, shapes, &known_type, &matters, &member_types, &integral);
    let undeclared = undeclared_element_types(unit, f, &known_type);
    if !undeclared.is_empty() {
        shapes = shapes
            .into_iter()
            .flat_map(|shape| {
                let undeclared = &undeclared;
                OPAQUE_SIZES.iter().map(move |&size| {
                    let mut s = shape.clone();
                    s.assumed_types
                        .extend(undeclared.iter().map(|n| (n.clone(), opaque_name(size))));
                    s.undeclared_types = undeclared.clone();
                    s
                })
            })
            .collect();
    }
    // Annotated arguments fill the parameters a launch leaves open.
    if let Some((span, args)) = annotated.args {
        for (name, _) in args
            .iter()
            .filter(|(n, _)| !f.params.iter().any(|p| p.name == *n))
        {
            unresolved.push(UnresolvedLaunch {
                span: span.clone(),
                reason: format!("`{}` has no parameter `{name}`", f.name),
                annotation: Some(format!("args({name} = ...)")),
                configurations: None,
            });
        }
        for shape in &mut shapes {
            shape.assumed = args
                .iter()
                .filter(|(n, _)| {
                    f.params.iter().any(|p| p.name == *n)
                        && !shape.arguments.iter().any(|(m, _)| m == n)
                })
                .cloned()
                .collect();
        }
    }
    // Every analysis is bounded: a kernel launched in hundreds of configurations (a
    // registration macro expanded per type and size) is analyzed in a few that between them
    // give each template parameter, block shape and argument every value it takes, as far
    // as they can.
    let total = shapes.len();
    if total > MAX_CONFIGURATIONS {
        shapes = crate::host::configurations::spread(shapes, MAX_CONFIGURATIONS);
        unresolved.push(UnresolvedLaunch {
            span: p.source_span(f.span.start..first_line_end(&p.text, f.span.clone())),
            reason: format!(
                "`{}` has {total} configurations (launch shapes, template arguments, element sizes); banklint analyzes {MAX_CONFIGURATIONS} of them, chosen so that each value a template argument, block shape or argument takes, and each pair of them, is in one where it can, and reports the worst of those",
                f.name
            ),
            annotation: None,
            configurations: Some(total),
        });
    }
    shapes
}

/// Where the first line of `span` in `text` ends (within `span`).
fn first_line_end(text: &str, span: std::ops::Range<usize>) -> usize {
    text.get(span.clone())
        .and_then(|t| t.find('\n'))
        .map_or(span.end, |k| span.start + k)
}

/// Each shape under each `// banklint: instantiate(...)` annotation above the kernel: the
/// annotation gives the template arguments a launch leaves open (a launch's own win). A name
/// that is not a template parameter of `f` is reported and the annotation not used.
/// The template arguments of each explicit instantiation of `f` the file writes (its own
/// template calls of `f` that name no open parameter), by `f`'s parameter names.
fn explicit_instantiations(
    prepared: &Prepared,
    f: &Function,
) -> Vec<(std::ops::Range<usize>, TemplateArgs)> {
    let Some(header) = &f.template else {
        return Vec::new();
    };
    let at = prepared.source_span(f.span.clone());
    let mut out: Vec<(std::ops::Range<usize>, TemplateArgs)> = Vec::new();
    for c in
        (prepared.host_template_calls.iter()).filter(|c| c.name == f.name && !c.open && c.is_own())
    {
        let args: TemplateArgs = (header.params.iter())
            .zip(c.argument_texts())
            .map(|(p, a)| (p.name.clone(), a))
            .collect();
        if !args.is_empty() && !out.iter().any(|(_, a)| *a == args) {
            out.push((at.clone(), args));
        }
    }
    out
}

fn with_annotated_instantiations(
    f: &Function,
    shapes: Vec<BlockShape>,
    annotations: &[(std::ops::Range<usize>, TemplateArgs)],
    unresolved: &mut Vec<UnresolvedLaunch>,
) -> Vec<BlockShape> {
    let params: Vec<&str> = f
        .template
        .as_ref()
        .map(|h| h.params.iter().map(|p| p.name.as_str()).collect())
        .unwrap_or_default();
    let mut usable = Vec::new();
    // `Acc::ftype = float`: a member type of a type parameter names the type it stands for.
    let names_param = |n: &str| {
        let class = n.split_once("::").map_or(n, |(c, _)| c);
        params.contains(&class)
    };
    for (span, args) in annotations {
        match args.iter().find(|(n, _)| !names_param(n)) {
            Some((name, _)) => unresolved.push(UnresolvedLaunch {
                span: span.clone(),
                reason: if params.is_empty() {
                    format!("`{}` is not a template", f.name)
                } else {
                    format!(
                        "`{}` has no template parameter `{name}` (it has {})",
                        f.name,
                        params
                            .iter()
                            .map(|p| format!("`{p}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
                annotation: Some(format!("instantiate({name} = ...)")),
                configurations: None,
            }),
            None => usable.push(args),
        }
    }
    if usable.is_empty() {
        return shapes;
    }
    let mut out: Vec<BlockShape> = Vec::new();
    for shape in shapes {
        for args in &usable {
            let mut template_args = shape.template_args.clone();
            for (name, value) in args.iter() {
                if !template_args.iter().any(|(n, _)| n == name) {
                    template_args.push((name.clone(), value.clone()));
                }
            }
            // In the kernel's parameter order, as a launch binds them.
            template_args.sort_by_key(|(n, _)| params.iter().position(|p| p == n));
            let next = BlockShape {
                template_args,
                ..shape.clone()
            };
            if !out.iter().any(|s| {
                s.dims == next.dims
                    && s.template_args == next.template_args
                    && s.arguments == next.arguments
            }) {
                out.push(next);
            }
        }
    }
    out
}

/// The shapes of `f`'s launches in `unit`: known shapes into `shapes`, the template and kernel
/// arguments of launches whose shape is not a constant into `without_shape`.
fn launch_shapes(
    prepared: &Prepared,
    f: &Function,
    source: &dyn Fn(&crate::front::cuda::Launch) -> ShapeSource,
    unresolved: &mut Vec<UnresolvedLaunch>,
    shapes: &mut Vec<BlockShape>,
    without_shape: &mut Vec<WithoutShape>,
) {
    // A launch through a variable (`k<<<...>>>` after `auto k = &kern<4>;`) launches the
    // kernels the host code says it holds there.
    let launches_f = |l: &&crate::front::cuda::Launch| {
        l.kernel == f.name && l.values.iter().all(|v| v.through.is_empty())
            || l.values
                .iter()
                .flat_map(|v| &v.through)
                .any(|k| k.name == f.name)
    };
    for launch in prepared.launches.iter().filter(launches_f) {
        // `cudaLaunchKernelEx` gives no configuration in the call; `<<<grid>>>` is malformed.
        let block = launch.config.get(1);
        if block.is_none() && !launch.config.is_empty() {
            unresolved.push(UnresolvedLaunch {
                span: prepared.source_span(launch.span.clone()),
                reason: "the launch has no block argument".into(),
                annotation: None,
                configurations: None,
            });
            continue;
        }
        let text = block
            .map(|b| prepared.written(b.clone()))
            .unwrap_or_default();
        // A launch in device code has no host run: one with nothing known.
        let device_code = [LaunchValues::default()];
        let runs = if launch.values.is_empty() {
            &device_code[..]
        } else {
            &launch.values[..]
        };
        for values in runs {
            let held: Vec<LaunchValues> = values
                .through
                .iter()
                .filter(|k| k.name == f.name)
                .map(|k| LaunchValues {
                    template_values: k.template_values.clone(),
                    ..values.clone()
                })
                .collect();
            let written: Vec<&[String]> = values
                .through
                .iter()
                .filter(|k| k.name == f.name)
                .map(|k| &k.template_args[..])
                .collect();
            let each: Vec<(&[String], &LaunchValues)> = if values.through.is_empty() {
                vec![(&launch.template_args[..], values)]
            } else {
                written.into_iter().zip(&held).collect()
            };
            for (template_args, values) in each {
                launch_run(
                    prepared,
                    f,
                    (launch, template_args),
                    values,
                    &text,
                    source,
                    unresolved,
                    shapes,
                    without_shape,
                );
            }
        }
    }
}

/// One run of a launch's host function (one instantiation of a host template).
#[allow(clippy::too_many_arguments)]
fn launch_run(
    prepared: &Prepared,
    f: &Function,
    (launch, template_args): (&crate::front::cuda::Launch, &[String]),
    values: &LaunchValues,
    text: &str,
    source: &dyn Fn(&crate::front::cuda::Launch) -> ShapeSource,
    unresolved: &mut Vec<UnresolvedLaunch>,
    shapes: &mut Vec<BlockShape>,
    without_shape: &mut Vec<WithoutShape>,
) {
    let block = launch.config.get(1);
    let dims_here = values.block.as_ref().map(|b| b.as_dims());
    let dims_here = match dims_here {
            Some(Ok(d)) => to_dims(d).ok_or_else(|| "an extent is negative or too large".to_string()),
            Some(Err(why)) => Err(why),
            None if block.is_none() => Err("`cudaLaunchKernelEx` takes it in a `cudaLaunchConfig_t`, and banklint follows only one the launching function declares (`cudaLaunchConfig_t cfg = {grid, block};` or `cfg.blockDim = ...`)".to_string()),
            None => Err("the launch is in device code (dynamic parallelism), whose values banklint does not follow".to_string()),
        };
    // A problem with the block is the launch's, reported once whatever it instantiates.
    let problem = match &dims_here {
        Ok(dims) if valid(*dims) => None,
        Ok(dims) => Some(format!(
            "block ({}, {}, {}) has more than {MAX_THREADS} threads or a zero extent",
            dims[0], dims[1], dims[2]
        )),
        Err(why) if text.is_empty() => Some(format!("the block shape is not known: {why}")),
        Err(why) => Some(format!(
            "the block shape `{text}` is not a compile-time constant: {why}"
        )),
    };
    let dims_here = dims_here.ok();
    if let Some(reason) = problem {
        let span = prepared.source_span(block.unwrap_or(&launch.span).clone());
        // Said once, whichever instantiation it is in.
        if !unresolved
            .iter()
            .any(|u| u.span == span && u.reason == reason)
        {
            unresolved.push(UnresolvedLaunch {
                span,
                reason,
                annotation: None,
                configurations: None,
            });
        }
    }
    let arguments = launch_arguments(f, values);
    let tensor_maps = launch_tensor_maps(f, values);
    for written in host_instantiations(prepared, launch, template_args, values) {
        let template_args = bind_template_args(f, &written);
        match dims_here {
            Some(dims) if valid(dims) => {
                if !shapes.iter().any(|s| {
                    s.dims == Some(dims)
                        && s.template_args == template_args
                        && s.arguments == arguments
                        && s.tensor_maps == tensor_maps
                }) {
                    shapes.push(BlockShape {
                        dims: Some(dims),
                        source: source(launch),
                        template_args,
                        arguments: arguments.clone(),
                        tensor_maps: tensor_maps.clone(),
                        assumed: Vec::new(),
                        assumed_types: Vec::new(),
                        unknown_type_args: Vec::new(),
                        undeclared_types: Vec::new(),
                        path: Vec::new(),
                    });
                }
            }
            Some(_) => {}
            None => {
                // Its template and kernel arguments still say what runs.
                let key = (template_args, arguments.clone(), tensor_maps.clone());
                if (!key.0.is_empty() || !key.1.is_empty() || !key.2.is_empty())
                    && !without_shape.contains(&key)
                {
                    without_shape.push(key);
                }
            }
        }
    }
}

/// The integer arguments of a launch that are compile-time constants there
/// (`k<<<g, b>>>(out, 80, PITCH)`), by the kernel's parameter names, as the host code gives
/// them at the launch (see `front::host_code`).
fn launch_arguments(f: &Function, values: &LaunchValues) -> Vec<(String, i64)> {
    f.params
        .iter()
        .filter(|p| matches!(p.ty, Type::Scalar { float: false, .. }))
        .filter_map(|p| {
            let v = values.arguments.get(p.index)?.as_int()?;
            Some((p.name.clone(), v))
        })
        .collect()
}

/// The tensor maps a launch passes (`k<<<g, b>>>(map, out)` with `map` encoded in the same
/// host function), by the kernel's parameter names: their swizzle, or why it is not known.
fn launch_tensor_maps(f: &Function, values: &LaunchValues) -> TensorMapArguments {
    f.params
        .iter()
        .filter_map(|p| match values.arguments.get(p.index)? {
            HostValue::TensorMap(mode, line) => {
                Some((p.name.clone(), mode.clone().map(|m| (m, *line))))
            }
            _ => None,
        })
        .collect()
}

/// The shape for a kernel without a usable launch: its annotation, else --block-dim, else one
/// warp of a block whose x extent is a multiple of 32.
/// The shape a kernel with nothing known gets, for other modules' tests.
#[cfg(test)]
pub fn fallback_shape_for_tests() -> BlockShape {
    fallback_shape(None, None)
}

fn fallback_shape(annotated: Option<[u32; 3]>, cli: Option<[u32; 3]>) -> BlockShape {
    let (dims, source) = match (annotated, cli) {
        (Some(dims), _) => (Some(dims), ShapeSource::Annotation),
        (None, Some(dims)) => (Some(dims), ShapeSource::Cli),
        (None, None) => (None, ShapeSource::Default),
    };
    BlockShape::plain(dims, source)
}

/// A launch's template arguments, with parameters of the enclosing host function template
/// (`reduce0<T><<<...>>>` inside `template <class T> void reduce(...)`) replaced by each
/// instantiation of that function the file names (`template void reduce<int>(...);`, or a
/// call `reduce<float>(...)`). Arguments that need no replacing come back as written. In a
/// run of the host template for one instantiation (`values.host_args`), that one replaces.
fn host_instantiations(
    p: &Prepared,
    launch: &crate::front::cuda::Launch,
    template_args: &[String],
    values: &LaunchValues,
) -> Vec<Vec<String>> {
    // Arguments the host code makes constants (`constexpr int BM = 32; k<BM><<<...>>>`) by
    // their value; others (types, the host template's own parameters) as written.
    let args: Vec<String> = template_args
        .iter()
        .enumerate()
        .map(
            |(k, a)| match values.template_values.get(k).cloned().flatten() {
                Some(v) => v,
                None => values
                    .host_args
                    .iter()
                    .find(|(name, _)| name == a.trim())
                    .map_or_else(|| a.clone(), |(_, given)| given.clone()),
            },
        )
        .collect();
    let written = vec![args.clone()];
    if !values.host_args.is_empty() {
        return written;
    }
    let Some(chunk) = p.chunks.iter().find(|c| {
        c.kind == crate::front::cuda::ChunkKind::HostFunction && c.span.contains(&launch.span.start)
    }) else {
        return written;
    };
    let Some(header) = p.templates.iter().rfind(|t| {
        t.span.end <= chunk.span.start && p.text[t.span.end..chunk.span.start].trim().is_empty()
    }) else {
        return written;
    };
    let uses_param = template_args
        .iter()
        .any(|a| header.params.iter().any(|hp| hp.name == a.trim()));
    if !uses_param {
        return written;
    }
    // The host function's name: the identifier before its parameter list.
    let tokens = &p.tokens[chunk.tokens.clone()];
    let Some(open) = tokens.iter().position(|t| t.text(&p.text) == "(") else {
        return written;
    };
    let Some(name_tok) = open.checked_sub(1).map(|k| tokens[k]) else {
        return written;
    };
    let name = name_tok.text(&p.text);
    let mut out: Vec<Vec<String>> = Vec::new();
    for (at, args) in &p.template_calls {
        if p.text.get(*at..*at + name.len()) != Some(name) || *at == name_tok.start {
            continue;
        }
        let substituted: Vec<String> = template_args
            .iter()
            .map(|a| {
                header
                    .params
                    .iter()
                    .position(|hp| hp.name == a.trim())
                    .and_then(|k| {
                        args.get(k)
                            .cloned()
                            .or_else(|| header.params[k].default.clone())
                    })
                    .unwrap_or_else(|| a.clone())
            })
            .collect();
        if !out.contains(&substituted) {
            out.push(substituted);
        }
    }
    if out.is_empty() {
        // Nothing instantiates the host template: its parameters bind nothing (an empty
        // argument is skipped), so the kernel's own parameters stay open.
        let open: Vec<String> = args
            .iter()
            .map(|a| {
                if header.params.iter().any(|hp| hp.name == a.trim()) {
                    String::new()
                } else {
                    a.clone()
                }
            })
            .collect();
        vec![open]
    } else {
        out
    }
}

/// Pairs a launch's explicit template arguments with the kernel's parameters, in order. A
/// pack (`typename... Ts`) takes the arguments left, as a call binds one.
fn bind_template_args(f: &Function, args: &[String]) -> Vec<(String, String)> {
    let Some(header) = &f.template else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, p) in header.params.iter().enumerate() {
        if p.pack {
            // None written: the pack is deduced from the launch's arguments, unknown here.
            let rest = args.get(k..).unwrap_or_default();
            if !rest.is_empty() && rest.iter().all(|a| !a.trim().is_empty()) {
                out.push(p.pack_binding(rest));
            }
            break;
        }
        match args.get(k).map(|a| a.trim()) {
            Some(a) if !a.is_empty() => out.push((p.name.clone(), a.to_string())),
            _ => {}
        }
    }
    out
}

fn valid(d: [u32; 3]) -> bool {
    d.iter().all(|&x| x > 0)
        && d.iter().map(|&x| u64::from(x)).product::<u64>() <= u64::from(MAX_THREADS)
}

fn to_dims(d: [i64; 3]) -> Option<[u32; 3]> {
    Some([
        u32::try_from(d[0]).ok()?,
        u32::try_from(d[1]).ok()?,
        u32::try_from(d[2]).ok()?,
    ])
}

/// What the comment lines directly above a kernel (or its template header) say:
/// `// banklint: block(32, 8)` and `// banklint: args(n = 1024)`.
#[derive(Default)]
struct KernelAnnotation {
    block: Option<[u32; 3]>,
    /// The annotation's span and its values.
    args: Option<AnnotatedArguments>,
    /// Each `instantiate(...)` annotation: its span and its template arguments.
    instantiations: Vec<(std::ops::Range<usize>, TemplateArgs)>,
}

fn kernel_annotation(unit: &Unit<'_>, f: &Function) -> KernelAnnotation {
    let mut found = KernelAnnotation::default();
    let start = f
        .template
        .as_ref()
        .map_or(f.span.start, |t| t.span.start.min(f.span.start));
    // Comments are where the file has them: look above the kernel's first line there.
    let text = &unit.prepared.source;
    let start = unit.prepared.map.start(start);
    let line_start = text[..start].rfind('\n').map_or(0, |p| p + 1);
    // Walk back over the comment lines directly above.
    let mut end = line_start;
    for _ in 0..8 {
        if end == 0 {
            break;
        }
        let prev_start = text[..end - 1].rfind('\n').map_or(0, |p| p + 1);
        let mut comments = unit
            .prepared
            .comments
            .iter()
            .filter(|c| c.span.start >= prev_start && c.span.start < end)
            .peekable();
        if comments.peek().is_none() {
            break;
        }
        for comment in comments {
            for a in crate::front::annotation_syntax::find(&comment.body) {
                let span = crate::front::annotation_syntax::file_span(&comment.span, &a);
                match a.parsed {
                    Ok(Directive::Block(dims)) if found.block.is_none() => found.block = Some(dims),
                    Ok(Directive::Args(args)) if found.args.is_none() => {
                        found.args = Some((span, args))
                    }
                    Ok(Directive::Instantiate(args)) => found.instantiations.push((span, args)),
                    _ => {}
                }
            }
        }
        end = prev_start;
    }
    found
}

/// Parses `--block-dim 32x8` (or `32,8`, `32x8x2`).
pub fn parse_block_dim(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(['x', 'X', ',']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!(
            "invalid block shape `{text}` (expected e.g. 256, 32x8 or 8x8x4)"
        ));
    }
    let mut dims = [1u32; 3];
    for (k, p) in parts.iter().enumerate() {
        dims[k] = p.parse().map_err(|_| {
            format!("invalid block shape `{text}` (expected e.g. 256, 32x8 or 8x8x4)")
        })?;
    }
    if !valid(dims) {
        return Err(format!(
            "block shape `{text}` must have 1 to {MAX_THREADS} threads"
        ));
    }
    Ok(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_shapes() {
        assert_eq!(parse_block_dim("32x8"), Ok([32, 8, 1]));
        assert_eq!(parse_block_dim("256"), Ok([256, 1, 1]));
        assert!(parse_block_dim("64x64").is_err());
        assert!(parse_block_dim("ax2").is_err());
    }
}
