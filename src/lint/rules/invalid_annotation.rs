rule! {
    /// ## What it does
    /// Reports `banklint:` annotations banklint does not understand, wherever they stand in
    /// a comment: an unknown code in `allow(...)`, an `expect(...)` that is not
    /// `conflict-free` or `N-way`, a `block(...)` or `args(...)` that does not parse, a
    /// missing `)`, or an unknown directive. `banklint:` starts an annotation anywhere in a
    /// comment unless it ends a longer word (`mybanklint:`, `no-banklint:`).
    ///
    /// ## Why is this bad?
    /// A misspelled suppression or expectation silently does nothing: an assertion someone
    /// relies on is not checked. So it is an error, which fails the run;
    /// `[severity] invalid-annotation = "note"` only reports it.
    ///
    /// ## Example
    /// ```cuda
    /// x = s[i];   // banklint: allow(bank-conflicts)   <- the code is `bank-conflict`
    /// y = s[j];   // row read // banklint: alow(bank-conflict)   <- `allow`
    /// ```
    InvalidAnnotation, "invalid-annotation"
}
