rule! {
    /// ## What it does
    /// Marks a statement or declaration banklint's C front end could not parse. The rest of
    /// the file is still analyzed; accesses inside the skipped region are not.
    ///
    /// ## Why is this bad?
    /// A conflict inside skipped code goes unreported. Most C++ around kernels is read
    /// (templates, casts, namespaces); constructs that are not cost only their smallest
    /// enclosing statement. A syntax error in brackets (a `{` never closed, a `(` closed by
    /// a `}`) is said as such, at the bracket.
    ///
    /// ## Example
    /// ```cuda
    /// auto t = std::tuple<int, float>{1, 2.0f};   // skipped: C++ library types
    /// ```
    SkippedCode, "skipped-code"
}
