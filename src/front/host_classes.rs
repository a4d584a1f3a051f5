//! Class constants in host code: `KT::THREADS` where `using KT = Traits<256, float>;` is in
//! scope, or `Traits<256, float>::THREADS` written out, as launches give a traits class's
//! thread count (`k<KT><<<grid, KT::THREADS, KT::SMEM>>>`). The host reader keeps a copy of
//! the classes read so far (this file's, then its headers') and reads the member through
//! `front::class_members`.

use crate::front::class_members::{Classes, Member};
use crate::front::cuda::Prepared;
use crate::front::host_code::{Env, HostReader, HostValue};
use std::collections::HashMap;
use std::sync::Arc;

/// The class declarations the host reader sees: this file's so far, and its headers'.
#[derive(Debug, Default)]
pub struct HostClasses {
    own: Prepared,
    headers: Vec<Arc<Prepared>>,
    /// How many headers the file had when `headers` was gathered.
    direct_headers: usize,
    /// The class whose method runs, if any: its constants are named bare there.
    within: Option<String>,
    /// Members read so far, by class and member: a dispatcher's runs read the same traits
    /// class's constants at every launch. Cleared when more classes are read.
    read: std::cell::RefCell<HashMap<(String, String), Option<Member>>>,
}

impl HostClasses {
    /// Takes in what the front end has recorded since the last call.
    pub fn sync(&mut self, out: &Prepared) {
        fn more<T: Clone>(mine: &mut Vec<T>, theirs: &[T]) {
            if theirs.len() > mine.len() {
                mine.extend_from_slice(&theirs[mine.len()..]);
            }
        }
        let before = self.own.static_members.len()
            + self.own.member_typedefs.len()
            + self.own.class_bases.len()
            + self.own.class_templates.len()
            + self.headers.len();
        more(&mut self.own.static_members, &out.static_members);
        more(&mut self.own.member_typedefs, &out.member_typedefs);
        more(&mut self.own.class_bases, &out.class_bases);
        more(&mut self.own.class_templates, &out.class_templates);
        if self.direct_headers != out.headers.len() {
            // Nested headers too: a traits class is often defined two includes down.
            self.headers = out.nested_headers().into_iter().cloned().collect();
            self.direct_headers = out.headers.len();
        }
        let after = self.own.static_members.len()
            + self.own.member_typedefs.len()
            + self.own.class_bases.len()
            + self.own.class_templates.len()
            + self.headers.len();
        if after != before {
            self.read.get_mut().clear();
        }
    }

    /// `member` of `class`, read once per set of classes.
    fn member(&self, class: &str, member: &str) -> Option<Member> {
        let key = (class.to_string(), member.to_string());
        if let Some(found) = self.read.borrow().get(&key) {
            return found.clone();
        }
        let found = self.classes().member(class, member);
        self.read.borrow_mut().insert(key, found.clone());
        found
    }

    /// Starts a method of `class`; gives back the class it was in before.
    pub fn enter(&mut self, class: String) -> Option<String> {
        self.within.replace(class)
    }

    pub fn leave(&mut self, outer: Option<String>) {
        self.within = outer;
    }

    fn classes(&self) -> Classes<'_> {
        Classes::new(std::iter::once(&self.own).chain(self.headers.iter().map(|h| &**h)))
    }
}

impl HostReader<'_> {
    /// `A::m` (or `ns::A<x>::m`) as an integer, when `A` names a class banklint has read
    /// (through a type alias or type parameter in scope, or written out) and `m` is one of
    /// its constants with a value here; as the type it names when `m` is a member type.
    pub(super) fn class_constant(&self, path: &str, env: &Env) -> Option<HostValue> {
        if !path.contains("::") && self.classes.within.is_none() {
            return None;
        }
        let parts = crate::front::names::split_path(path);
        let (member, scope) = parts.split_last()?;
        let scope = match (scope.is_empty(), &self.classes.within) {
            (false, _) => scope.join("::"),
            // A bare name in a method: its class's member.
            (true, Some(class)) => class.clone(),
            (true, None) => return None,
        };
        // An alias in scope names a class whose arguments may be the run's own parameters
        // (`using KT = Traits<WARPS_M, T>;` in `launch_<4, float>`): substituted again, a few
        // rounds at most (an alias cannot name itself).
        let mut scope = scope;
        for _ in 0..ALIAS_ROUNDS {
            let next = self.bind_words(&scope, env);
            if next == scope {
                break;
            }
            scope = next;
        }
        let text = match self.classes.member(&scope, member)? {
            Member::Value(text) => text,
            // A member type (`typedef uint16_t StorageType;`) names its type, as an alias does.
            Member::Type(t) => return Some(HostValue::Type(t)),
        };
        // Names the class's members leave open are the file's constants
        // (`WARPS_M * THREADS_PER_WARP` with `constexpr int THREADS_PER_WARP = 32;`).
        let text = crate::front::class_members::substitute(&text, &|w| match env
            .get(w)
            .or_else(|| self.globals.get(w))?
        {
            HostValue::Int(v) => Some(format!("({v})")),
            _ => None,
        });
        Some(match crate::front::const_expr::constant_text(&text) {
            Ok(v) => HostValue::Int(v),
            Err(why) => HostValue::Unknown(format!("`{path}` is `{text}`: {why}")),
        })
    }
}

/// Rounds of alias substitution in a class path (an alias of an alias of a parameter).
const ALIAS_ROUNDS: usize = 4;

#[cfg(test)]
mod tests {
    #[test]
    fn constants_with_sizes() {
        assert_eq!(
            crate::front::const_expr::constant_text("(4) * (256) * sizeof(float)"),
            Ok(4096)
        );
        assert_eq!(
            crate::front::const_expr::constant_text("2 < 3 ? sizeof( double ) : 1"),
            Ok(8)
        );
        assert!(crate::front::const_expr::constant_text("N * 2").is_err());
        assert!(crate::front::const_expr::constant_text("sizeof(Widget)").is_err());
    }
}
