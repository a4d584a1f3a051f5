rule! {
    /// ## What it does
    /// Marks a statement or declaration banklint's C front end could not parse. The rest of
    /// the file is still analyzed; accesses inside the skipped region are not. It also marks
    /// where a pointer into shared memory leaves what the analysis follows: an object built
    /// from one (`allocator al((int *)&smem[0]);`), or a call of a function banklint has not
    /// read a definition of (`wmma::load_matrix_sync(a, &tile[0], 16)`, `memset(smem, 0, n)`).
    /// The accesses made through them are not analyzed.
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
