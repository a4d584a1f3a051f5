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
        // The function's own aliases: recorded in text order.
        let locals = match &body {
            Some(b) => {
                let from = p.local_aliases.partition_point(|(at, _, _)| *at < b.start);
                let to = p.local_aliases.partition_point(|(at, _, _)| *at < b.end);
                &p.local_aliases[from..to.max(from)]
            }
            None => &[][..],
        };
        let members = self
            .type_args
            .keys()
            .any(|param| !self.unit.member_typenames(param).is_empty());
        if locals.is_empty() && !members {
            return;
        }
        let mut found: Vec<(String, String)> = Vec::new();
        let wanted: Vec<(String, String, String)> = (self.type_args.iter())
            .flat_map(|(param, class)| {
                (self.unit.member_typenames(param).iter())
                    .map(|(member, name)| (class.clone(), member.clone(), name.clone()))
            })
            .collect();
        for (class, member, name) in wanted {
            if let Some(crate::front::class_members::Member::Type(t)) =
                self.class_member(&class, &member)
            {
                found.push((name, t));
            }
        }
        let headers: Vec<&crate::front::cuda::Prepared> =
            self.headers.iter().map(|(_, h)| h.prepared).collect();
        let classes = crate::front::class_members::Classes::new(
            std::iter::once(p).chain(headers.iter().copied()),
        );
        let mut pending: std::collections::VecDeque<(String, String)> = found.into();
        let mut k = 0;
        // Each step binds one name; names only come from the file's type names and aliases.
        let mut steps = self.unit.prepared.typenames.len() + locals.len() + 1;
        while steps > 0 {
            steps -= 1;
            let (name, resolved) = if let Some(next) = pending.pop_front() {
                next
            } else if let Some((_, name, text)) = locals.get(k) {
                k += 1;
                // Type parameters and aliases by the text they are bound to, value
                // parameters by their value.
                let bound = crate::front::class_members::substitute(text, &|w| {
                    self.type_args.get(w).cloned().or_else(|| {
                        let v = self.template_values.get(w)?.as_const()?;
                        Some(v.to_string())
                    })
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
            // Member types named through this alias (`typename P::Type`) resolve now too.
            let named: Vec<(String, String)> = self.unit.member_typenames(&name).to_vec();
            let through: Vec<(String, String)> = named
                .into_iter()
                .filter_map(
                    |(member, full)| match self.class_member(&resolved, &member)? {
                        crate::front::class_members::Member::Type(t) => Some((full, t)),
                        crate::front::class_members::Member::Value(_) => None,
                    },
                )
                .collect();
            Rc::make_mut(&mut self.type_args).insert(name, resolved);
            pending.extend(through);
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
