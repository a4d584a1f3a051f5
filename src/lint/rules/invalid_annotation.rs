rule! {
    /// ## What it does
    /// Reports `banklint:` comments banklint does not understand: an unknown code in
    /// `allow(...)`, an `expect(...)` that is not `conflict-free` or `N-way`, or an unknown
    /// directive.
    ///
    /// ## Why is this bad?
    /// A misspelled suppression or expectation silently does nothing.
    ///
    /// ## Example
    /// ```cuda
    /// x = s[i];   // banklint: allow(bank-conflicts)   <- the code is `bank-conflict`
    /// ```
    InvalidAnnotation, "invalid-annotation"
}
