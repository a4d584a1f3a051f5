//! Which functions of a file and its headers can reach shared memory by themselves, read
//! from their text once per file: those that need analyzing at all.

use crate::analysis::extraction::Unit;
use std::collections::BTreeSet;

/// Which functions of a file (and its headers) can reach shared memory by themselves: they
/// declare `__shared__` memory, name a file-scope `__shared__` array or a shared-memory wrapper
/// class, or call a function that can. Read from the text, once per file.
pub struct SharedReach {
    reaching: BTreeSet<String>,
}

impl SharedReach {
    pub fn of(unit: &Unit<'_>, headers: &[(String, Unit<'_>)]) -> SharedReach {
        let units = std::iter::once(unit).chain(headers.iter().map(|(_, u)| u));
        let mut names: BTreeSet<String> = BTreeSet::new();
        let mut calls: Vec<(String, BTreeSet<String>, bool)> = Vec::new();
        for u in units.clone() {
            names.extend(u.file_shared.iter().map(|a| a.name.clone()));
            names.extend(u.prepared.shared_memory_classes.iter().cloned());
        }
        let defined: BTreeSet<&str> = units
            .clone()
            .flat_map(|u| u.functions.iter().map(|f| f.name.as_str()))
            .collect();
        for u in units {
            for f in &u.functions {
                let text = u.prepared.text.get(f.span.clone()).unwrap_or("");
                let words: BTreeSet<String> = text
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty())
                    .map(str::to_string)
                    .collect();
                let direct = u
                    .prepared
                    .keywords_in(f.span.clone())
                    .any(|(k, _)| *k == crate::front::cuda::Keyword::Shared)
                    || words.iter().any(|w| names.contains(w));
                let callees = words
                    .into_iter()
                    .filter(|w| *w != f.name && defined.contains(w.as_str()))
                    .collect();
                calls.push((f.name.clone(), callees, direct));
            }
        }
        let mut reaching: BTreeSet<String> = calls
            .iter()
            .filter(|(_, _, d)| *d)
            .map(|(n, _, _)| n.clone())
            .collect();
        loop {
            let before = reaching.len();
            for (name, callees, _) in &calls {
                if !reaching.contains(name) && callees.iter().any(|c| reaching.contains(c)) {
                    reaching.insert(name.clone());
                }
            }
            if reaching.len() == before {
                break;
            }
        }
        SharedReach { reaching }
    }

    pub fn reaches(&self, function: &str) -> bool {
        self.reaching.contains(function)
    }

    /// Whether a function named `name`, or a member function of that name however its
    /// class is spelled (`Convert_float___to` for `to`), reaches shared memory.
    pub fn reaches_member(&self, name: &str) -> bool {
        self.reaching.iter().any(|r| {
            r == name
                || r.strip_suffix(name)
                    .is_some_and(|head| head.ends_with('_') || head.ends_with("::"))
        })
    }

    /// No function of the file or its headers touches shared memory, directly or through a
    /// call: there is nothing to find.
    pub fn is_empty(&self) -> bool {
        self.reaching.is_empty()
    }
}
