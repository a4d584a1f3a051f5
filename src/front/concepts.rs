//! C++20 concepts, as a constrained template parameter names them (`template <ducks::rt::all
//! RT, ducks::st::all ST> void load(RT &, const ST &)`): each definition is kept as written,
//! and evaluated for a type the way overload resolution needs it. Read: `requires {
//! typename T::X; }`, `std::is_same_v<A, B>` (and `std::is_same<A, B>::value`), other
//! concepts, `&&`, `||`, `!`, parentheses, `true` and `false`. Anything else (a requirement
//! on an expression, a trait banklint does not read, a class it has not read) is not known,
//! and a choice that depends on it stays undecided rather than guessed.

use crate::front::class_members::{Classes, Member};
use crate::front::names::split_template_args;
use crate::front::prepared::ConceptDef;
use crate::limits::MAX_STATIC_MEMBER_NESTING;

/// What concepts are evaluated against: the classes (for member types) and the definitions.
pub struct Concepts<'c, 'p> {
    pub classes: &'c Classes<'p>,
    pub defs: Vec<&'p ConceptDef>,
}

impl Concepts<'_, '_> {
    /// Whether `ty` (a type as text, `tile<float, 32, 32>`) satisfies the concept written
    /// `written` (`ducks::rt::all`) in namespace `scope`; `None` when banklint cannot tell.
    pub fn satisfied(&self, written: &str, scope: &str, ty: &str) -> Option<bool> {
        self.satisfied_at(written, scope, ty, 0)
    }

    fn satisfied_at(&self, written: &str, scope: &str, ty: &str, depth: usize) -> Option<bool> {
        if depth > MAX_STATIC_MEMBER_NESTING {
            return None;
        }
        let def = self.find(written, scope)?;
        let mut p = Parser {
            c: self,
            def,
            ty,
            depth,
            s: def.body.as_bytes(),
            at: 0,
        };
        let v = p.disjunction();
        p.skip_ws();
        if p.at != p.s.len() {
            // Text the grammar above does not cover: not known.
            return None;
        }
        v
    }

    /// The definition `written` names from `scope`: looked up from the innermost enclosing
    /// namespace outwards, as C++ looks a name up.
    fn find(&self, written: &str, scope: &str) -> Option<&ConceptDef> {
        let written = written.trim().trim_start_matches("::").replace("::", "__");
        let mut prefix = scope.to_string();
        loop {
            let full = if prefix.is_empty() {
                written.clone()
            } else {
                format!("{prefix}__{written}")
            };
            if let Some(d) = (self.defs.iter()).find(|d| qualified(&d.namespace, &d.name) == full) {
                return Some(d);
            }
            if prefix.is_empty() {
                return None;
            }
            prefix = prefix
                .rsplit_once("__")
                .map_or(String::new(), |(p, _)| p.to_string());
        }
    }
}

fn qualified(namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        name.to_string()
    } else {
        format!("{namespace}__{name}")
    }
}

/// A recursive-descent reader of one concept's body, with its parameter bound to `ty`.
struct Parser<'x, 'c, 'p> {
    c: &'x Concepts<'c, 'p>,
    def: &'x ConceptDef,
    ty: &'x str,
    depth: usize,
    s: &'x [u8],
    at: usize,
}

impl Parser<'_, '_, '_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    /// What is left to read (nothing once a term gave up, which moves past the end).
    fn rest(&self) -> &[u8] {
        self.s.get(self.at..).unwrap_or_default()
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token.as_bytes()) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn disjunction(&mut self) -> Option<bool> {
        self.chain("||", Self::conjunction, true)
    }

    fn conjunction(&mut self) -> Option<bool> {
        self.chain("&&", Self::term, false)
    }

    /// Operands read by `operand` joined by `op`, in three-valued logic: `decisive` (true for
    /// `||`, false for `&&`) in any operand decides; otherwise any unknown leaves it unknown.
    fn chain(
        &mut self,
        op: &str,
        operand: fn(&mut Self) -> Option<bool>,
        decisive: bool,
    ) -> Option<bool> {
        let mut v = operand(self);
        while self.eat(op) {
            let w = operand(self);
            v = match (v, w) {
                (Some(a), _) | (_, Some(a)) if a == decisive => Some(decisive),
                (Some(_), Some(_)) => Some(!decisive),
                _ => None,
            };
        }
        v
    }

    fn term(&mut self) -> Option<bool> {
        if self.eat("!") {
            return self.term().map(|v| !v);
        }
        if self.eat("(") {
            let v = self.disjunction();
            if !self.eat(")") {
                self.at = self.s.len() + 1;
            }
            return v;
        }
        let path = self.path();
        match path.as_str() {
            "" => {
                // Not a term this reader knows: the whole body is unknown.
                self.at = self.s.len() + 1;
                None
            }
            "true" => Some(true),
            "false" => Some(false),
            "requires" => self.requirements(),
            _ => {
                let args = if self.peek('<') {
                    self.balanced('<', '>')
                } else {
                    Vec::new()
                };
                let bare = path.rsplit("::").next().unwrap_or(&path);
                if bare == "is_same_v" || (bare == "is_same" && self.eat("::value")) {
                    let [a, b] = args.as_slice() else {
                        return None;
                    };
                    return self.same_type(a, b);
                }
                let [arg] = args.as_slice() else {
                    return None;
                };
                let arg = self.bind(arg);
                self.c
                    .satisfied_at(&path, &self.def.namespace, &arg, self.depth + 1)
            }
        }
    }

    fn peek(&mut self, c: char) -> bool {
        self.skip_ws();
        self.s.get(self.at) == Some(&(c as u8))
    }

    /// A name, qualified or not (`std::is_same_v`, `ducks::rt::all`).
    fn path(&mut self) -> String {
        self.skip_ws();
        let start = self.at;
        while let Some(&b) = self.s.get(self.at) {
            if b.is_ascii_alphanumeric() || b == b'_' {
                self.at += 1;
            } else if self.rest().starts_with(b"::")
                && self
                    .s
                    .get(self.at + 2)
                    .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            {
                self.at += 2;
            } else {
                break;
            }
        }
        String::from_utf8_lossy(self.s.get(start..self.at).unwrap_or_default()).into_owned()
    }

    /// The text between `open` and its matching `close`, split at its top-level commas.
    fn balanced(&mut self, open: char, close: char) -> Vec<String> {
        let start = self.at;
        let mut depth = 0usize;
        while let Some(&b) = self.s.get(self.at) {
            self.at += 1;
            if b == open as u8 {
                depth += 1;
            } else if b == close as u8 {
                depth -= 1;
                if depth == 0 {
                    let inner = self.s.get(start + 1..self.at - 1).unwrap_or_default();
                    let inner = String::from_utf8_lossy(inner);
                    return split_template_args(&format!("_<{inner}>"))
                        .map(|(_, a)| a)
                        .unwrap_or_default();
                }
            }
        }
        Vec::new()
    }

    /// `requires { typename T::X; ... }`: each requirement must be a member type that the
    /// class has. A parameter list (`requires (T t) { ... }`) or an expression requirement
    /// is not read.
    fn requirements(&mut self) -> Option<bool> {
        if !self.peek('{') {
            self.at = self.s.len() + 1;
            return None;
        }
        let start = self.at;
        let mut depth = 0usize;
        while let Some(&b) = self.s.get(self.at) {
            self.at += 1;
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        if depth != 0 {
            // Unbalanced: not read.
            return None;
        }
        let inner = self.s.get(start + 1..self.at - 1).unwrap_or_default();
        let inner = String::from_utf8_lossy(inner);
        let mut all = Some(true);
        for req in inner.split(';').map(str::trim).filter(|r| !r.is_empty()) {
            let v = match req.strip_prefix("typename ") {
                Some(t) => self.member_type(&self.bind(t)).map(|m| m.is_some()),
                None => None,
            };
            all = match (all, v) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
        }
        all
    }

    /// The concept's parameter replaced by the type tested.
    fn bind(&self, text: &str) -> String {
        crate::front::names::replace_words(text.trim(), &[(self.def.param.as_str(), self.ty)])
    }

    /// `C<args>::X` as the member type it names: `Some(None)` when `C` is a class banklint
    /// has read that has no such member type, `None` when it cannot tell.
    fn member_type(&self, text: &str) -> Option<Option<String>> {
        let text = text.trim().trim_start_matches("typename ").trim();
        let (class, member) = text.rsplit_once("::")?;
        if !self.c.classes.knows(class) {
            return None;
        }
        Some(match self.c.classes.member(class, member) {
            Some(Member::Type(t)) => Some(t),
            _ => None,
        })
    }

    /// `std::is_same_v<A, B>` with the concept's parameter bound: the texts the two name,
    /// compared as qualified names (`ducks::st::identifier` written in a class and
    /// `identifier` written in namespace `kittens::ducks::st` are one).
    fn same_type(&self, a: &str, b: &str) -> Option<bool> {
        let side = |t: &str| -> Option<String> {
            let t = self.bind(t);
            let t = t.trim().trim_start_matches("typename ").trim().to_string();
            if t.contains("::") && self.c.classes.knows(t.rsplit_once("::")?.0) {
                return self.member_type(&t)?;
            }
            Some(t)
        };
        let (a, b) = (side(a)?, side(b)?);
        let qualify = |t: &str| {
            let ns = self.def.namespace.replace("__", "::");
            if ns.is_empty() || t.contains("::") {
                t.to_string()
            } else {
                format!("{ns}::{t}")
            }
        };
        let (a, b) = (a.trim_start_matches("::"), qualify(&b));
        if a == b {
            return Some(true);
        }
        let plain = |t: &str| {
            t.split("::")
                .all(|w| !w.is_empty() && w.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
        };
        if !(plain(a) && plain(&b)) {
            return None;
        }
        let (x, y): (Vec<&str>, Vec<&str>) = (a.split("::").collect(), b.split("::").collect());
        let (short, long) = if x.len() <= y.len() {
            (&x, &y)
        } else {
            (&y, &x)
        };
        if long.ends_with(short) {
            return Some(true);
        }
        // Different names: one type only through an alias.
        let aliased = |t: &[&str]| t.last().is_some_and(|n| self.c.classes.is_alias(n));
        (!(aliased(&x) || aliased(&y))).then_some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = r#"
namespace lib { namespace kinds {
namespace a { struct id {}; template <typename T> concept all = requires { typename T::id; } && std::is_same_v<typename T::id, id>; }
namespace b { struct id {}; template <typename T> concept all = requires { typename T::id; } && std::is_same<typename T::id, id>::value; }
template <typename T> concept either = a::all<T> || b::all<T>;
template <typename T> concept neither = !a::all<T> && !(b::all<T>);
template <typename T> concept sized = requires (T t) { t.size(); };
} }
template <typename T, int N> struct A { using id = lib::kinds::a::id; T v[N]; };
template <typename T, int N> struct B { using id = kinds::b::id; T v[N]; };
template <int N> using FA = A<float, N>;
template <typename T> struct Plain { static constexpr int n = 1; };
"#;

    fn check(written: &str, ty: &str) -> Option<bool> {
        let p = crate::front::cuda::prepare(LIB, &Default::default());
        let classes = Classes::new([&p]);
        let concepts = Concepts {
            classes: &classes,
            defs: p.concepts.iter().collect(),
        };
        concepts.satisfied(written, "lib", ty)
    }

    #[test]
    fn member_types_and_same_type() {
        assert_eq!(check("kinds::a::all", "A<float, 4>"), Some(true));
        assert_eq!(check("kinds::b::all", "A<float, 4>"), Some(false));
        assert_eq!(check("kinds::b::all", "B<int, 2>"), Some(true));
        // Through an alias template.
        assert_eq!(check("kinds::a::all", "FA<8>"), Some(true));
        // A class without the member type does not satisfy `requires { typename T::id; }`.
        assert_eq!(check("kinds::a::all", "Plain<int>"), Some(false));
    }

    #[test]
    fn composed_concepts_and_negation() {
        assert_eq!(check("kinds::either", "B<int, 2>"), Some(true));
        assert_eq!(check("kinds::either", "Plain<int>"), Some(false));
        assert_eq!(check("kinds::neither", "Plain<int>"), Some(true));
        assert_eq!(check("kinds::neither", "A<float, 1>"), Some(false));
    }

    #[test]
    fn what_is_not_read_stays_unknown() {
        // A requirement on an expression, a class banklint never read, a concept it has not.
        assert_eq!(check("kinds::sized", "A<float, 4>"), None);
        assert_eq!(check("kinds::a::all", "Elsewhere<3>"), None);
        assert_eq!(check("kinds::missing", "A<float, 4>"), None);
    }

    #[test]
    fn malformed_bodies_are_unknown_not_a_panic() {
        let bodies = [
            "requires {",
            "(true",
            "true &&",
            "std::is_same_v<T",
            "!",
            "a<T> ||",
            "requires (T t",
        ];
        let defs: Vec<ConceptDef> = (bodies.iter())
            .map(|b| ConceptDef {
                name: "c".into(),
                namespace: String::new(),
                param: "T".into(),
                body: (*b).into(),
            })
            .collect();
        let p = crate::front::cuda::prepare("", &Default::default());
        let classes = Classes::new([&p]);
        for (def, body) in defs.iter().zip(bodies) {
            let concepts = Concepts {
                classes: &classes,
                defs: vec![def],
            };
            assert_eq!(concepts.satisfied("c", "", "int"), None, "{body}");
        }
    }
}
