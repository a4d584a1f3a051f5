//! Macros a kernel compiled at run time gets from its host program (NVRTC, `-D` set by the
//! program), which the file only uses: a word standing where no C++ can is read as expanding
//! to nothing, and a `skipped-code` note names it. The lowering calls in here at a syntax
//! error and at each parameter declaration.

use crate::front::lower::Lowering;
use crate::front::prepared::Skipped;
use tree_sitter::Node;

impl Lowering<'_> {
    /// A word where no C++ can stand, which only a macro banklint has not read explains: one
    /// alone on its line before the next statement (`INIT_DERIVATIVES` then `float x = 0;`),
    /// or after a function's last parameter (`int n PARAMETER_ARGUMENTS)`). Kernels compiled
    /// at run time get such macros from their host program. The word is read as expanding
    /// to nothing, and said: what it stands for is not analyzed.
    pub(crate) fn unread_macro_word(&mut self, n: Node<'_>) -> bool {
        let parameter = n.parent().filter(|p| p.kind() == "parameter_declaration");
        let word = if let Some(p) = parameter {
            // `int n PARAMETER_ARGUMENTS)`: tree-sitter takes the name for an error and the
            // word for the declarator, the list's end right after it.
            let Some(word) = p.child_by_field_name("declarator") else {
                return false;
            };
            let closes = self.src[word.end_byte()..].trim_start().starts_with(')');
            let name_before = n.named_child_count() == 1
                && n.named_child(0).is_some_and(|c| c.kind() == "identifier")
                && n.end_byte() <= word.start_byte();
            if !closes || !name_before {
                return false;
            }
            word
        } else {
            // The statement's first word, the next statement on the following line.
            let stmt = crate::front::lower::enclosing_statement(n);
            if stmt
                .parent()
                .is_none_or(|p| p.kind() != "compound_statement")
            {
                return false;
            }
            let Some(first) = first_leaf(stmt) else {
                return false;
            };
            let rest = &self.src[first.end_byte()..stmt.end_byte()];
            let gap = &rest[..rest.len() - rest.trim_start().len()];
            if !gap.contains('\n')
                || !rest
                    .trim_start()
                    .starts_with(|c: char| c.is_alphabetic() || c == '_')
            {
                return false;
            }
            first
        };
        let text = self.t(word);
        // A type declared here or in a header, or a built-in one, makes it C++ after all.
        let known = self.out.declared_types.iter().any(|d| d == text)
            || crate::front::names::is_type_keyword(text)
            || crate::front::names::BUILTIN_TYPENAMES.contains(&text);
        if !matches!(word.kind(), "identifier" | "type_identifier") || known {
            return false;
        }
        self.unread_macro(word);
        true
    }

    /// `_CCCL_PRAGMA_UNROLL_FULL()` on its own line before a `for`: a call with no `;`, which
    /// tree-sitter closes with a missing one. No C++ puts a call there; a macro from a header
    /// banklint did not read does (an unroll pragma, an attribute). The call is read as
    /// expanding to nothing, the statement after it is analyzed, and a note names the macro.
    pub(crate) fn unread_statement_macro(&mut self, n: Node<'_>) -> bool {
        let semicolon_missing = n
            .child(n.child_count().saturating_sub(1))
            .is_some_and(|c| c.kind() == ";" && c.is_missing());
        if !semicolon_missing || n.parent().is_none_or(|p| p.kind() != "compound_statement") {
            return false;
        }
        let Some(call) = n.named_child(0).filter(|c| c.kind() == "call_expression") else {
            return false;
        };
        let Some(name) = call
            .child_by_field_name("function")
            .filter(|f| f.kind() == "identifier")
        else {
            return false;
        };
        // The next statement starts on a later line: the macro stood alone on its own.
        let on_own_line = n
            .next_named_sibling()
            .is_some_and(|next| self.src[n.end_byte()..next.start_byte()].contains('\n'));
        if !on_own_line {
            return false;
        }
        let text = self.t(name).to_string();
        self.out.skipped.push(Skipped {
            span: call.byte_range(),
            reason: format!(
                "`{text}(...)` is not a macro banklint has read (its header was not found): it stands before a statement with no `;`, as an unroll pragma or an attribute does, and is read as expanding to nothing; pass `-I` for the header that defines it"
            ),
        });
        self.blank_node(call);
        true
    }

    /// Blanks `word`, a macro banklint has not read, and says so.
    fn unread_macro(&mut self, word: Node<'_>) {
        let text = self.t(word).to_string();
        self.out.skipped.push(Skipped {
            span: word.byte_range(),
            reason: format!(
                "`{text}` is not a macro banklint has read: it is read as expanding to nothing, and what it stands for is not analyzed (a kernel compiled at run time gets it from its host program: define it with `-D`)"
            ),
        });
        self.blank_node(word);
    }

    /// `unsigned long long n PARAMETER_ARGUMENTS)` (see `is_name_before_macro`): the word
    /// after the name is blanked and said.
    pub(crate) fn macro_after_parameter(&mut self, n: Node<'_>) {
        if let Some(word) = n
            .child_by_field_name("type")
            .and_then(|t| t.child_by_field_name("type"))
            .filter(|t| is_name_before_macro(*t))
            .and_then(|_| n.child_by_field_name("declarator"))
        {
            self.unread_macro(word);
        }
    }
}

/// Whether the type name `n` is the parameter's name with a macro banklint has not read
/// after it: `unsigned long long n PARAMETER_ARGUMENTS)`, which tree-sitter reads as the
/// type `unsigned long long n` and the declarator `PARAMETER_ARGUMENTS`. No C++ puts a type
/// name after `unsigned` or `long`, so the word after it is what does not belong.
pub(crate) fn is_name_before_macro(n: Node<'_>) -> bool {
    if n.kind() != "type_identifier" {
        return false;
    }
    let parent = n.parent();
    is_name_before_macro_in(parent, parent.and_then(|p| p.parent()))
}

/// [`is_name_before_macro`] for a type name whose parent and grandparent the caller knows
/// (a walk over the whole file keeps them).
pub(crate) fn is_name_before_macro_in(
    parent: Option<Node<'_>>,
    grandparent: Option<Node<'_>>,
) -> bool {
    if parent.is_none_or(|p| p.kind() != "sized_type_specifier") {
        return false;
    }
    grandparent
        .filter(|p| p.kind() == "parameter_declaration")
        .and_then(|p| p.child_by_field_name("declarator"))
        .is_some_and(|d| {
            d.kind() == "identifier"
                && d.next_sibling()
                    .is_none_or(|s| matches!(s.kind(), "," | ")"))
        })
}

/// The first token under `n`.
fn first_leaf(n: Node<'_>) -> Option<Node<'_>> {
    let mut cur = n;
    while cur.child_count() > 0 {
        cur = cur.child(0)?;
    }
    Some(cur)
}
