//! Range-based `for` over a braced list, `for (int stride : {32, 16, 8}) body`: lowered byte
//! for byte into the C loop header `for (int stride ;  32, 16, 8; ) body` (the `:` and the
//! closing brace become `;`, the opening brace a blank), its offset recorded. The analyzer
//! runs it as a counted loop that gives the variable each element in turn (see
//! `analysis::interp::range_for`). A range that is not a braced list (a container, a local
//! array), a reference or structured binding, or a C++20 init statement is left as it was:
//! skipped code with a note.

use crate::front::lower::Lowering;
use crate::front::syntax::{children, named_children};
use tree_sitter::Node;

impl Lowering<'_> {
    /// Lowers `n` (a `for_range_loop`) when it can be; returns whether it did.
    pub(crate) fn range_for(&mut self, n: Node<'_>) -> bool {
        let (Some(ty), Some(declarator), Some(range), Some(body)) = (
            n.child_by_field_name("type"),
            n.child_by_field_name("declarator"),
            n.child_by_field_name("right"),
            n.child_by_field_name("body"),
        ) else {
            return false;
        };
        if n.child_by_field_name("initializer").is_some()
            || declarator.kind() != "identifier"
            || range.kind() != "initializer_list"
            || named_children(range).is_empty()
        {
            return false;
        }
        let kids = children(n);
        let colon = kids.iter().find(|c| c.kind() == ":");
        let braces = (
            children(range).first().copied(),
            children(range).last().copied(),
        );
        let (Some(colon), (Some(open), Some(close))) = (colon, braces) else {
            return false;
        };
        if open.kind() != "{" || close.kind() != "}" {
            return false;
        }
        // `auto` would leave lang-c a declaration without a type: the elements are integers
        // where an index is made of them.
        if ty.kind() == "placeholder_type_specifier" {
            if self.t(ty) != "auto" {
                return false;
            }
            self.patch(ty.start_byte(), "int ");
        } else {
            self.lower(ty);
        }
        for c in &kids {
            if c.kind() == "type_qualifier" {
                self.lower(*c);
            }
        }
        self.patch(colon.start_byte(), ";");
        self.blank_node(open);
        self.patch(close.start_byte(), ";");
        for element in named_children(range) {
            self.lower(element);
        }
        self.lower(body);
        self.out.range_fors.push(n.start_byte());
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::front::cuda::{Defines, prepare};

    #[test]
    fn a_braced_range_becomes_a_c_loop_header_of_the_same_length() {
        let src = "__global__ void k(float *s) {\n  for (int w : {32, 16, 8}) { s[w] = 0; }\n  for (auto v : {1, 2}) s[v] = 1;\n}\n";
        let p = prepare(src, &Defines::default());
        assert!(
            p.text.contains("for (int w ;  32, 16, 8;) { s[w] = 0; }"),
            "{}",
            p.text
        );
        assert!(
            p.text.contains("for (int  v ;  1, 2;) s[v] = 1;"),
            "{}",
            p.text
        );
        assert_eq!(p.text.len(), src.len());
        let fors: Vec<usize> = src.match_indices("for").map(|(at, _)| at).collect();
        assert_eq!(p.range_fors, fors);
        assert!(p.skipped.is_empty(), "{:?}", p.skipped);
    }

    #[test]
    fn other_ranges_stay_skipped_code() {
        let src = "__global__ void k(float *s, int n) {\n  int a[2] = {1, 2};\n  for (int x : a) { s[x] = 0; }\n  for (auto &y : {1, 2}) { s[y] = 0; }\n}\n";
        let p = prepare(src, &Defines::default());
        assert!(p.range_fors.is_empty());
        assert_eq!(p.skipped.len(), 2, "{:?}", p.skipped);
    }
}
