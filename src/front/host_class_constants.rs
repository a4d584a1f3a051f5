//! Class constants in host code: `KT::THREADS` where `using KT = Traits<256, float>;` is in
//! scope, or `Traits<256, float>::THREADS` written out, read through the classes the host
//! reader keeps (`front::host_classes`) with the run's names bound.

use crate::front::class_members::Member;
use crate::front::host_code::{Env, HostReader, HostValue};

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
