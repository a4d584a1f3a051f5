rule! {
    /// ## What it does
    /// Lists a `__shared__` memory access whose per-lane addresses banklint could not derive,
    /// with the reason: an index read from memory (`s[in[i]]`), a stride that depends on a
    /// runtime value (`s[threadIdx.x * n]`), or an array whose size is not a compile-time
    /// constant.
    ///
    /// ## Why is this bad?
    /// It is not bad in itself: banklint never guesses, so such an access is neither reported
    /// as a conflict nor called clean. The reason says what would let banklint decide.
    ///
    /// ## Example
    /// ```cuda
    /// __global__ void k(int n) {
    ///     __shared__ float s[1024];
    ///     s[threadIdx.x * n] = 0;   // the stride between lanes is `n`: unknown
    /// }
    /// ```
    ///
    /// Each note ends with a `help:` saying what would resolve it: give a run-time kernel
    /// parameter a value with `// banklint: args(n = 32)` on the line before the kernel (or
    /// make it a `#define` or template constant), give the block shape with
    /// `// banklint: block(X, Y)` when the index depends on `blockDim` or the warp, or define
    /// a missing macro with `-D`. Indices that are run-time data stay unknown.
    UnanalyzedAccess, "unanalyzed-access"
}
