//! Class constants in host code: `KT::THREADS` where `using KT = Traits<256, float>;` is in
//! scope, or `Traits<256, float>::THREADS` written out, as launches give a traits class's
//! thread count (`k<KT><<<grid, KT::THREADS, KT::SMEM>>>`). The host reader keeps a copy of
//! the classes read so far (this file's, then its headers') and reads the member through
//! `front::class_members`.

use crate::front::class_members::{Classes, Member};
use crate::front::cuda::Prepared;
use crate::front::host_code::{Env, HostReader, HostValue};
use std::sync::Arc;

/// The class declarations the host reader sees: this file's so far, and its headers'.
#[derive(Debug, Default)]
pub struct HostClasses {
    own: Prepared,
    headers: Vec<Arc<Prepared>>,
    /// The class whose method runs, if any: its constants are named bare there.
    within: Option<String>,
}

impl HostClasses {
    /// Takes in what the front end has recorded since the last call.
    pub fn sync(&mut self, out: &Prepared) {
        fn more<T: Clone>(mine: &mut Vec<T>, theirs: &[T]) {
            if theirs.len() > mine.len() {
                mine.extend_from_slice(&theirs[mine.len()..]);
            }
        }
        more(&mut self.own.static_members, &out.static_members);
        more(&mut self.own.member_typedefs, &out.member_typedefs);
        more(&mut self.own.class_bases, &out.class_bases);
        more(&mut self.own.class_templates, &out.class_templates);
        if self.headers.len() != out.headers.len() {
            self.headers = out.headers.iter().map(|(_, h)| h.clone()).collect();
        }
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
            let next = crate::front::class_members::substitute(&scope, &|w| match env
                .get(w)
                .or_else(|| self.globals.get(w))?
            {
                HostValue::Type(t) if t != w => Some(t.clone()),
                HostValue::Int(v) => Some(v.to_string()),
                _ => None,
            });
            if next == scope {
                break;
            }
            scope = next;
        }
        let text = match self.classes.classes().member(&scope, member)? {
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
        Some(match constant_text(&text) {
            Ok(v) => HostValue::Int(v),
            Err(why) => HostValue::Unknown(format!("`{path}` is `{text}`: {why}")),
        })
    }
}

/// Rounds of alias substitution in a class path (an alias of an alias of a parameter).
const ALIAS_ROUNDS: usize = 4;

/// An integer constant expression written as text, `sizeof` of scalar types included.
fn constant_text(text: &str) -> Result<i64, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("sizeof") {
        out.push_str(&rest[..at]);
        let after = rest[at + 6..].trim_start();
        let Some(inner) = after.strip_prefix('(') else {
            return Err("`sizeof` of an expression".into());
        };
        let close = inner.find(')').ok_or("an unclosed `sizeof(`")?;
        let ty = inner[..close].trim();
        let size = crate::front::host_values::scalar_size(ty)
            .ok_or_else(|| format!("the size of `{ty}` is not known to banklint"))?;
        out.push_str(&format!("({size})"));
        rest = &inner[close + 1..];
    }
    out.push_str(rest);
    crate::front::const_expr::eval_constant(&out, &Default::default(), 0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn constants_with_sizes() {
        assert_eq!(
            super::constant_text("(4) * (256) * sizeof(float)"),
            Ok(4096)
        );
        assert_eq!(super::constant_text("2 < 3 ? sizeof( double ) : 1"), Ok(8));
        assert!(super::constant_text("N * 2").is_err());
        assert!(super::constant_text("sizeof(Widget)").is_err());
    }
}
