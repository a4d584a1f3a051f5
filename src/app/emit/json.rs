//! JSON output (`version: 1`): the `accesses` and `diagnostics` entries of one file; the
//! runner assembles the document.

use crate::analysis::extraction::DeclaredElsewhere;
use crate::lint::diagnostics::declaration_place;
use crate::lint::findings::Status;
use crate::lint::report::FileReport;
use crate::lint::rules::Finding;
use codespan_reporting::diagnostic::Severity;
use serde_json::{Value as Json, json};

/// The `accesses` entries of the JSON schema for one file.
pub fn accesses(report: &FileReport) -> Vec<Json> {
    report
        .findings
        .iter()
        .map(|f| {
            let (line, column) = report.file.line_col(f.span.start);
            let (end_line, end_column) = report.file.line_col(f.span.end);
            let entry = &report.arrays[f.array];
            let mut obj = json!({
                "file": report.file.path.display().to_string(),
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
                "kernel": f.function,
                "array": entry.decl.name,
                "kind": f.op.name(),
                // The instruction form priced: `atomic.count`, `ldmatrix.x4`, `load`.
                "operation": f.op.spelling(),
                "access_bytes": f.width,
                "block_dim": f.shape.dims.map(|d| json!(d)).unwrap_or(Json::Null),
                "block_dim_source": f.shape.source.name(),
                "launch_arguments": f.shape.arguments.iter().map(|(n, v)| (n.clone(), json!(v))).collect::<serde_json::Map<String, Json>>(),
                "assumed_arguments": f.shape.assumed.iter().map(|(n, v)| (n.clone(), json!(v))).collect::<serde_json::Map<String, Json>>(),
            });
            let map = obj.as_object_mut().expect("object");
            if !f.shape.path.is_empty() {
                // The worst path through branches on warp-uniform unknowns.
                map.insert(
                    "path".into(),
                    f.shape
                        .path
                        .iter()
                        .map(|d| {
                            if d.condition.is_empty() {
                                json!({"line": d.line, "loop_trips": d.trips()})
                            } else {
                                json!({"line": d.line, "condition": d.condition, "taken": d.taken()})
                            }
                        })
                        .collect::<Vec<Json>>()
                        .into(),
                );
            }
            if !f.shape.assumed_types.is_empty() {
                // A template nothing instantiates: the binding analyzed here, and each size's.
                map.insert(
                    "assumed_types".into(),
                    f.shape
                        .assumed_types
                        .iter()
                        .map(|(n, v)| (n.clone(), json!(v)))
                        .collect::<serde_json::Map<String, Json>>()
                        .into(),
                );
                map.insert(
                    "by_element_size".into(),
                    f.by_element_size
                        .iter()
                        .map(|(b, w)| (b.clone(), json!(w)))
                        .collect::<serde_json::Map<String, Json>>()
                        .into(),
                );
            }
            match &f.status {
                Status::Analyzed => {
                    map.insert("status".into(), json!("analyzed"));
                    map.insert("reason".into(), Json::Null);
                    let (wf, ideal, ways) = f.worst.as_ref().map_or((0, 0, 1), |w| {
                        let v = &w.evaluation.verdict;
                        (v.wavefronts, v.ideal, v.conflict_ways)
                    });
                    map.insert("wavefronts".into(), json!(wf));
                    map.insert("ideal_wavefronts".into(), json!(ideal));
                    map.insert("conflict_ways".into(), json!(ways));
                    // Totals of a block only when its shape is known (else one warp's).
                    if let Some(t) = f.totals.filter(|_| f.shape.dims.is_some()) {
                        map.insert(
                            "block_totals".into(),
                            json!({"instructions": t.instructions, "wavefronts": t.wavefronts}),
                        );
                    }
                    if let Some(w) = &f.worst {
                        map.insert("worst_instance".into(), json!(w.label));
                    }
                }
                Status::Unknown(reason) => {
                    map.insert("status".into(), json!("unknown"));
                    map.insert("reason".into(), json!(reason));
                    map.insert("wavefronts".into(), Json::Null);
                    map.insert("ideal_wavefronts".into(), Json::Null);
                    map.insert("conflict_ways".into(), Json::Null);
                }
            }
            if !f.assumptions.is_empty() {
                map.insert("assumptions".into(), json!(f.assumptions));
            }
            if let Some(origin) = &f.origin {
                map.insert("written_in".into(), json!(origin));
            }
            // Memory declared elsewhere (a wrapper class's, a header function's own): where,
            // for each instantiation analyzed.
            let mut declared_in: Vec<Json> = Vec::new();
            for w in f.arrays_reached.iter().filter_map(|&a| report.arrays[a].decl.declared_in.as_ref()) {
                let (file, line) = declaration_place(report, w);
                let mut place = json!({"file": file, "line": line, "array": w.array()});
                let (key, declarer) = match w {
                    DeclaredElsewhere::Wrapper(c) => ("class", c.class.clone()),
                    DeclaredElsewhere::Function { function, .. } => ("function", function.clone()),
                };
                place[key] = json!(declarer);
                if !declared_in.contains(&place) {
                    declared_in.push(place);
                }
            }
            if !declared_in.is_empty() {
                map.insert("declared_in".into(), json!(declared_in));
            }
            obj
        })
        .collect()
}

pub fn diagnostics(report: &FileReport, findings: &[Finding]) -> Vec<Json> {
    findings
        .iter()
        .map(|f| {
            let (line, column) = report.file.line_col(f.span.start);
            let severity = match f.severity {
                Severity::Warning => "warning",
                Severity::Error | Severity::Bug => "error",
                Severity::Help => "help",
                Severity::Note => "note",
            };
            let suggestion = f.fix.as_ref().map(|fix| {
                let (l, c) = report.file.line_col(fix.dim_span.start);
                let (el, ec) = report.file.line_col(fix.dim_span.end);
                json!({
                    "file": report.file.path.display().to_string(),
                    "line": l, "column": c, "end_line": el, "end_column": ec,
                    "replacement": fix.replacement,
                    "declaration": fix.declaration,
                    "bytes_added": fix.bytes_added,
                    "conflict_free": fix.conflict_free,
                    "applicability": match fix.applicability {
                        crate::lint::applicability::Applicability::Safe => "safe",
                        crate::lint::applicability::Applicability::Suggestion(_) => "suggestion",
                    },
                })
            });
            json!({
                "code": f.code.code(),
                "severity": severity,
                "file": report.file.path.display().to_string(),
                "line": line,
                "column": column,
                "message": f.message,
                "label": f.label,
                "conflict_ways": f.conflict_ways,
                "notes": f.notes,
                "suggestion": suggestion,
            })
        })
        .collect()
}
