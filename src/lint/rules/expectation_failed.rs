rule! {
    /// ## What it does
    /// Checks `// banklint: expect(conflict-free)` and `// banklint: expect(N-way)` comments:
    /// the access on the comment's line (or the next line, when the comment stands alone)
    /// must be exactly that. A mismatch, or an access banklint cannot analyze, is an error.
    ///
    /// ## Why is this bad?
    /// Paddings and swizzles are easy to break in a refactor (a changed tile width, a new
    /// element type). An expectation turns the layout decision into a check CI runs.
    ///
    /// ## Example
    /// ```cuda
    /// __shared__ float tile[32][33];
    /// v = tile[threadIdx.x][k];   // banklint: expect(conflict-free)
    /// ```
    /// An expectation that holds also acknowledges a conflict it names: `expect(2-way)` on a
    /// 2-way access reports nothing.
    ExpectationFailed, "expectation-failed"
}
