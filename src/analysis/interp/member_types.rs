//! Types that depend on the template arguments bound in a run: `typename vec4<T>::Type`
//! (spelled `vec4_T___Type`), `typename K::compute_t` (spelled `K__compute_t`) with `K` bound
//! to a traits class, and aliases in a function body that name them. Each instantiation
//! binds them anew.

use super::{Analyzer, type_from_text};
use crate::analysis::types::Type;
use lang_c::span::Span;
use std::rc::Rc;

/// Rounds of alias resolution in a class's arguments (an alias of an alias).
const ALIAS_ROUNDS: usize = 4;

impl Analyzer<'_, '_> {
    /// A local alias's text with this run's arguments: type parameters and aliases by the
    /// text they are bound to, value parameters by their value, a file's alias (`blk_t`) by
    /// the class it names.
    fn alias_text_here(
        &self,
        text: &str,
        classes: &crate::front::class_members::Classes,
    ) -> String {
        let text = &crate::front::names::expand_packs(text, &|n| {
            let list = self.type_args.get(&format!("{n}..."))?;
            Some(crate::front::names::split_list(list))
        });
        let bound = crate::front::class_members::substitute(text, &|w| {
            self.type_args.get(w).cloned().or_else(|| {
                let v = self.template_values.get(w)?.as_const()?;
                Some(v.to_string())
            })
        });
        let bound = self.alias_target(&bound).unwrap_or(bound);
        classes.resolve(&bound)
    }

    /// The class template instance a local alias written before `at` names (`typedef
    /// box_t<__half> box;`, which needs no binding per run and gets none), laid out here.
    pub(super) fn local_alias_instance(&mut self, name: &str, at: Span) -> Option<Type> {
        let before = self.span(at).start;
        let p = self.unit.prepared;
        let (_, _, text) = (p.local_aliases.iter()).rfind(|(o, n, _)| *o < before && n == name)?;
        if !text.contains('<') {
            return None;
        }
        let classes = self.classes();
        let resolved = self.alias_text_here(text, &classes);
        self.type_of_text(&resolved, at)
    }

    /// `typename K::compute_t` (spelled `K__compute_t`) with `K` bound to a class
    /// (`Traits<256, float>`), and the aliases a function body writes with such names
    /// (`using Stats = typename K::Stats;`, then `typename Stats::stats_t`): each gets the
    /// type the class gives it, and a name that is itself a class stays bound to its text
    /// for the members read through it.
    pub(super) fn bind_member_types(&mut self, body: Option<std::ops::Range<usize>>, at: Span) {
        let p = self.unit.prepared;
        // The function's own aliases: recorded in text order.
        let locals = body.as_ref().map_or(&[][..], |b| p.local_aliases_in(b));
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
        let classes = self.classes();
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
                let resolved = self.alias_text_here(text, &classes);
                // Unchanged, it needs no binding (one naming a class template's instance,
                // `typedef box_t<__half> box;`, is laid out where a struct's field needs it:
                // `local_alias_instance`).
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

    /// `Vec<T, N>` with the caller's bindings of `T` and `N` written in: the class instance a
    /// method runs on, named so that its members can be read.
    pub(super) fn instance_text(&self, class: &str, args: &[String]) -> String {
        if args.is_empty() {
            return class.to_string();
        }
        format!("{class}<{}>", self.bound_args(args).join(", "))
    }

    /// A class's template arguments as this run binds them: its type parameters and aliases
    /// by what they name (`using fp32 = float;` read as `float`: the class's members are read
    /// as text, where `sizeof(fp32)` means nothing), its values and the function's
    /// enumerators (`enum { NUM_ELT = K::ELTS };`) by their values, constant expressions
    /// settled (`4 * 2` is `8`, as a specialization `<8>` is written).
    pub(super) fn bound_args(&self, args: &[String]) -> Vec<String> {
        let alias = |w: &str| self.alias_of(w);
        args.iter()
            .map(|a| {
                let mut a = crate::front::class_members::substitute(a, &|w| {
                    self.type_args.get(w).cloned().or_else(|| {
                        let v = match self.template_values.get(w) {
                            Some(v) => v.as_const()?,
                            None => match self.lookup(w)? {
                                super::Binding::Value(v) => v.as_const()?,
                                _ => return None,
                            },
                        };
                        Some(v.to_string())
                    })
                });
                for _ in 0..ALIAS_ROUNDS {
                    let next = crate::front::class_members::substitute(&a, &alias);
                    if next == a {
                        break;
                    }
                    a = next;
                }
                // `TypeToVec2<float>::Type`: the member type a class banklint read names.
                if a.contains("::") {
                    a = self.classes().resolve(&a);
                }
                match crate::front::class_members::looks_arithmetic(&a)
                    .then(|| crate::front::const_expr::constant_text(&a))
                {
                    Some(Ok(v)) => v.to_string(),
                    _ => a.split_whitespace().collect::<Vec<_>>().join(" "),
                }
            })
            .collect()
    }

    /// In a method run on an object, its class's member types by their bare names
    /// (`Vec_type` in `Vec<float, 4>::store_to`, `using Vec_type = typename
    /// BytesToType<16>::Type;`), as the class's arguments make them.
    pub(super) fn bind_receiver_types(&mut self, instance: &str, at: Span) {
        let class = instance.split('<').next().unwrap_or(instance).trim();
        let own = |c: &str| {
            c == class
                || c.rsplit("::").next() == Some(class)
                || c.rsplit("__").next() == Some(class)
        };
        let mut members: Vec<String> = self
            .preparations()
            .flat_map(|p| p.member_typedefs.iter())
            .filter(|m| own(&m.class))
            .map(|m| m.member.clone())
            .collect();
        members.sort();
        members.dedup();
        for member in members {
            let Some(crate::front::class_members::Member::Type(t)) =
                self.class_member(instance, &member)
            else {
                continue;
            };
            if let Some(ty) = self.type_of_text(&t, at) {
                Rc::make_mut(&mut self.types)
                    .named
                    .insert(member.clone(), ty);
            }
            Rc::make_mut(&mut self.type_args).insert(member, t);
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
