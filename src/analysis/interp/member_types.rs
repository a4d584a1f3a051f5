//! Types that depend on the template arguments bound in a run: `typename vec4<T>::Type`
//! (spelled `vec4_T___Type`), `typename K::compute_t` (spelled `K__compute_t`) with `K` bound
//! to a traits class, and aliases in a function body that name them. Each instantiation
//! binds them anew.

use super::{Analyzer, type_from_text};
use lang_c::span::Span;
use std::rc::Rc;

impl Analyzer<'_, '_> {
    /// `typename K::compute_t` (spelled `K__compute_t`) with `K` bound to a class
    /// (`Traits<256, float>`), and the aliases a function body writes with such names
    /// (`using Stats = typename K::Stats;`, then `typename Stats::stats_t`): each gets the
    /// type the class gives it, and a name that is itself a class stays bound to its text
    /// for the members read through it.
    pub(super) fn bind_member_types(&mut self, body: Option<std::ops::Range<usize>>, at: Span) {
        let p = self.unit.prepared;
        let headers: Vec<&crate::front::cuda::Prepared> =
            self.headers.iter().map(|(_, h)| h.prepared).collect();
        let classes = crate::front::class_members::Classes::new(
            std::iter::once(p).chain(headers.iter().copied()),
        );
        let mut found: Vec<(String, String)> = Vec::new();
        if !self.type_args.is_empty() {
            for name in p.typenames.iter().filter(|n| n.contains("__")) {
                let Some((param, member)) = name.split_once("__") else {
                    continue;
                };
                if let Some(class) = self.type_args.get(param)
                    && let Some(crate::front::class_members::Member::Type(t)) =
                        classes.member(class, member)
                {
                    found.push((name.clone(), t));
                }
            }
        }
        let locals = if body.is_some() {
            &p.local_aliases[..]
        } else {
            &[][..]
        };
        let mut pending = found.into_iter();
        let mut k = 0;
        loop {
            let (name, resolved) = if let Some(next) = pending.next() {
                next
            } else if let Some((at, name, text)) = locals.get(k) {
                k += 1;
                if !body.as_ref().is_some_and(|b| b.contains(at)) {
                    continue;
                }
                let bound = crate::front::class_members::substitute(text, &|w| {
                    self.type_args.get(w).cloned()
                });
                let resolved = classes.resolve(&bound);
                if resolved == text.split_whitespace().collect::<Vec<_>>().join(" ") {
                    continue;
                }
                (name.clone(), resolved)
            } else {
                break;
            };
            if let Some(ty) = self.type_of_text(&resolved, at) {
                Rc::make_mut(&mut self.types).named.insert(name.clone(), ty);
            }
            Rc::make_mut(&mut self.type_args).insert(name, resolved);
        }
    }

    /// Gives each dependent member type (`typename vec4<T>::Type`, spelled `vec4_T___Type`)
    /// the type it names under the current template bindings; one that does not resolve is
    /// left unknown.
    pub(super) fn bind_dependent_types(&mut self) {
        let p = self.unit.prepared;
        for dep in &p.dependent_types {
            let ty = p
                .resolve_dependent(dep, &self.type_args)
                .and_then(|t| type_from_text(&self.types, &t));
            // Written only when it changes: the table is shared with the callers' saved copies.
            match ty {
                Some(ty) if self.types.named.get(&dep.name) != Some(&ty) => {
                    Rc::make_mut(&mut self.types)
                        .named
                        .insert(dep.name.clone(), ty);
                }
                None if self.types.named.contains_key(&dep.name) => {
                    Rc::make_mut(&mut self.types).named.remove(&dep.name);
                }
                _ => {}
            }
        }
    }
}
