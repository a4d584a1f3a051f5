//! Coverage statistics for `check --stats`: how much of the input banklint read and analyzed,
//! and the most common reasons it could not, so users (and we) know what was left out.

use crate::check::FileReport;
use crate::findings::Status;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Default, PartialEq)]
pub struct Coverage {
    pub files: usize,
    pub parsed_fully: usize,
    pub parsed_partly: usize,
    pub not_parsed: usize,
    pub shared_arrays: usize,
    pub arrays_with_analyzed_access: usize,
    pub accesses_analyzed: usize,
    pub accesses_unknown: usize,
    /// (reason, count), most common first.
    pub unknown_reasons: Vec<(String, usize)>,
    pub skipped_reasons: Vec<(String, usize)>,
}

pub fn coverage(reports: &[FileReport], failed_files: usize) -> Coverage {
    let mut c = Coverage {
        files: reports.len() + failed_files,
        not_parsed: failed_files,
        ..Coverage::default()
    };
    let mut unknown: BTreeMap<String, usize> = BTreeMap::new();
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    for r in reports {
        let s = r.parse_stats;
        if s.items > 0 && s.unparsed == s.items {
            c.not_parsed += 1;
        } else if s.unparsed > 0 || !r.skipped.is_empty() {
            c.parsed_partly += 1;
        } else {
            c.parsed_fully += 1;
        }
        let mut arrays = BTreeSet::new();
        let mut analyzed_arrays = BTreeSet::new();
        for f in &r.findings {
            let entry = &r.arrays[f.array];
            let key = (entry.decl.decl_span.start, entry.decl.name.clone());
            arrays.insert(key.clone());
            match &f.status {
                Status::Analyzed => {
                    c.accesses_analyzed += 1;
                    analyzed_arrays.insert(key);
                }
                Status::Unknown(reason) => {
                    c.accesses_unknown += 1;
                    *unknown.entry(normalize(reason)).or_default() += 1;
                }
            }
        }
        for a in r.arrays.iter().filter(|a| a.byte_view_of.is_none()) {
            arrays.insert((a.decl.decl_span.start, a.decl.name.clone()));
        }
        c.shared_arrays += arrays.len();
        c.arrays_with_analyzed_access += analyzed_arrays.len();
        for s in &r.skipped {
            *skipped.entry(normalize(&s.reason)).or_default() += 1;
        }
    }
    c.unknown_reasons = most_common(unknown);
    c.skipped_reasons = most_common(skipped);
    c
}

/// Groups reasons that differ only in names: "`n`" -> "`…`".
fn normalize(reason: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for ch in reason.chars() {
        if ch == '`' {
            if !inside {
                out.push_str("`…");
            }
            inside = !inside;
            if !inside {
                out.push('`');
            }
        } else if !inside {
            out.push(ch);
        }
    }
    out
}

fn most_common(counts: BTreeMap<String, usize>) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(10);
    v
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

impl Coverage {
    pub fn render(&self) -> String {
        let mut s = String::new();
        s.push_str("coverage:\n");
        s.push_str(&format!(
            "  files: {} ({} parsed fully, {} partly, {} not at all)\n",
            self.files, self.parsed_fully, self.parsed_partly, self.not_parsed
        ));
        s.push_str(&format!(
            "  shared arrays: {} found, {} ({}) with at least one analyzed access\n",
            self.shared_arrays,
            self.arrays_with_analyzed_access,
            percent(self.arrays_with_analyzed_access, self.shared_arrays)
        ));
        s.push_str(&format!(
            "  accesses: {} analyzed, {} unknown\n",
            self.accesses_analyzed, self.accesses_unknown
        ));
        for (title, list) in [
            ("unknown because", &self.unknown_reasons),
            ("skipped because", &self.skipped_reasons),
        ] {
            if !list.is_empty() {
                s.push_str(&format!("  {title}:\n"));
                for (reason, n) in list {
                    s.push_str(&format!("    {n:5}  {reason}\n"));
                }
            }
        }
        s
    }

    pub fn to_json(&self) -> Value {
        json!({
            "files": self.files,
            "parsed_fully": self.parsed_fully,
            "parsed_partly": self.parsed_partly,
            "not_parsed": self.not_parsed,
            "shared_arrays": self.shared_arrays,
            "arrays_with_analyzed_access": self.arrays_with_analyzed_access,
            "accesses_analyzed": self.accesses_analyzed,
            "accesses_unknown": self.accesses_unknown,
            "unknown_reasons": self.unknown_reasons.iter().map(|(r, n)| json!({"reason": r, "count": n})).collect::<Vec<_>>(),
            "skipped_reasons": self.skipped_reasons.iter().map(|(r, n)| json!({"reason": r, "count": n})).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_group_across_names() {
        assert_eq!(
            normalize("it is data loaded from `in`"),
            "it is data loaded from `…`"
        );
        assert_eq!(normalize("`a` and `b`"), "`…` and `…`");
    }
}
