//! Coverage statistics for `check --stats`: how much of the input banklint read and analyzed,
//! and the most common reasons it could not, so users (and we) know what was left out.
//! Counts are gathered per file and merged, so a run never holds every report at once.

use crate::lint::findings::Status;
use crate::lint::report::FileReport;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coverage {
    pub files: usize,
    pub parsed_fully: usize,
    pub parsed_partly: usize,
    pub not_parsed: usize,
    pub shared_arrays: usize,
    pub arrays_with_analyzed_access: usize,
    /// Arrays whose every access is unknown (the reasons are among `unknown_reasons`).
    pub arrays_only_unknown: usize,
    /// Arrays with no access at all in what was analyzed, by why.
    pub arrays_without_access: BTreeMap<String, usize>,
    pub accesses_analyzed: usize,
    pub accesses_unknown: usize,
    /// Why accesses were unknown, grouped, with counts.
    pub unknown_reasons: BTreeMap<String, usize>,
    pub skipped_reasons: BTreeMap<String, usize>,
}

impl Coverage {
    /// A file that could not be read.
    pub fn add_failed(&mut self) {
        self.files += 1;
        self.not_parsed += 1;
    }

    pub fn add_report(&mut self, r: &FileReport) {
        self.files += 1;
        let s = r.parse_stats;
        if s.items > 0 && s.unparsed == s.items {
            self.not_parsed += 1;
        } else if s.unparsed > 0 || !r.skipped.is_empty() {
            self.parsed_partly += 1;
        } else {
            self.parsed_fully += 1;
        }
        let mut arrays = BTreeSet::new();
        let mut analyzed_arrays = BTreeSet::new();
        let mut accessed = BTreeSet::new();
        for f in &r.findings {
            let entry = &r.arrays[f.array];
            let key = (entry.decl.decl_span.start, entry.decl.name.clone());
            arrays.insert(key.clone());
            accessed.insert(key.clone());
            match &f.status {
                Status::Analyzed => {
                    self.accesses_analyzed += 1;
                    analyzed_arrays.insert(key);
                }
                Status::Unknown(reason) => {
                    self.accesses_unknown += 1;
                    *self.unknown_reasons.entry(normalize(reason)).or_default() += 1;
                }
            }
        }
        for a in r.arrays.iter().filter(|a| a.byte_view_of.is_none()) {
            arrays.insert((a.decl.decl_span.start, a.decl.name.clone()));
        }
        self.shared_arrays += arrays.len();
        self.arrays_with_analyzed_access += analyzed_arrays.len();
        for (_, name) in arrays.difference(&analyzed_arrays) {
            let key = arrays
                .iter()
                .find(|(_, n)| n == name)
                .expect("from the set");
            if accessed.contains(key) {
                self.arrays_only_unknown += 1;
                continue;
            }
            // Where its pointer leaves the analysis a skipped-code note names it.
            let leaves = crate::analysis::interp::pointer_into(name);
            let why = if r.skipped.iter().any(|s| s.reason.contains(&leaves)) {
                "a pointer into it leaves what banklint follows (the skipped-code note says where)"
            } else {
                "no access to it in the code analyzed"
            };
            *self
                .arrays_without_access
                .entry(why.to_string())
                .or_default() += 1;
        }
        for s in &r.skipped {
            *self
                .skipped_reasons
                .entry(normalize(&s.reason))
                .or_default() += 1;
        }
    }

    /// Merges another file's (or batch's) counts into this one.
    pub fn merge(&mut self, other: &Coverage) {
        self.files += other.files;
        self.parsed_fully += other.parsed_fully;
        self.parsed_partly += other.parsed_partly;
        self.not_parsed += other.not_parsed;
        self.shared_arrays += other.shared_arrays;
        self.arrays_with_analyzed_access += other.arrays_with_analyzed_access;
        self.arrays_only_unknown += other.arrays_only_unknown;
        for (k, v) in &other.arrays_without_access {
            *self.arrays_without_access.entry(k.clone()).or_default() += v;
        }
        self.accesses_analyzed += other.accesses_analyzed;
        self.accesses_unknown += other.accesses_unknown;
        for (k, v) in &other.unknown_reasons {
            *self.unknown_reasons.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.skipped_reasons {
            *self.skipped_reasons.entry(k.clone()).or_default() += v;
        }
    }

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
        let without: usize = self.arrays_without_access.values().sum();
        if self.arrays_only_unknown + without > 0 {
            s.push_str(&format!(
                "  arrays without one: {} with only unknown accesses, {} with no access analyzed\n",
                self.arrays_only_unknown, without
            ));
        }
        s.push_str(&format!(
            "  accesses: {} analyzed, {} unknown\n",
            self.accesses_analyzed, self.accesses_unknown
        ));
        for (title, counts) in [
            ("no access analyzed because", &self.arrays_without_access),
            ("unknown because", &self.unknown_reasons),
            ("skipped because", &self.skipped_reasons),
        ] {
            let list = most_common(counts);
            if !list.is_empty() {
                s.push_str(&format!("  {title}:\n"));
                for (reason, n) in &list {
                    s.push_str(&format!("    {n:5}  {reason}\n"));
                }
            }
        }
        s
    }

    pub fn to_json(&self) -> Value {
        let list = |m: &BTreeMap<String, usize>| -> Vec<Value> {
            most_common(m)
                .iter()
                .map(|(r, n)| json!({"reason": r, "count": n}))
                .collect()
        };
        json!({
            "files": self.files,
            "parsed_fully": self.parsed_fully,
            "parsed_partly": self.parsed_partly,
            "not_parsed": self.not_parsed,
            "shared_arrays": self.shared_arrays,
            "arrays_with_analyzed_access": self.arrays_with_analyzed_access,
            "arrays_only_unknown": self.arrays_only_unknown,
            "arrays_without_access": list(&self.arrays_without_access),
            "accesses_analyzed": self.accesses_analyzed,
            "accesses_unknown": self.accesses_unknown,
            "unknown_reasons": list(&self.unknown_reasons),
            "skipped_reasons": list(&self.skipped_reasons),
        })
    }
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
    // Line numbers and sizes differ between otherwise equal reasons.
    let mut grouped = String::with_capacity(out.len());
    let mut in_number = false;
    for ch in out.chars() {
        if ch.is_ascii_digit() {
            if !in_number {
                grouped.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            grouped.push(ch);
        }
    }
    grouped
}

fn most_common(counts: &BTreeMap<String, usize>) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = counts.iter().map(|(k, n)| (k.clone(), *n)).collect();
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
        assert_eq!(normalize("the loop at line 12"), "the loop at line N");
    }

    #[test]
    fn merging_adds_counts() {
        let mut a = Coverage::default();
        a.add_failed();
        a.unknown_reasons.insert("x".into(), 2);
        let mut b = Coverage::default();
        b.merge(&a);
        b.merge(&a);
        assert_eq!((b.files, b.not_parsed, b.unknown_reasons["x"]), (2, 2, 4));
    }
}
