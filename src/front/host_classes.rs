//! The classes host code sees: the host reader keeps a copy of the classes read so far (this
//! file's, then its headers'), so that launches can give a traits class's thread count
//! (`k<KT><<<grid, KT::THREADS, KT::SMEM>>>`, read in `front::host_class_constants`); a
//! member is read through `front::class_members`.

use crate::front::class_members::{Classes, Member};
use crate::front::prepared::Prepared;
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
    pub(super) within: Option<String>,
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
    pub(super) fn member(&self, class: &str, member: &str) -> Option<Member> {
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
