rule! {
    /// ## What it does
    /// Notes a kernel launch whose block shape banklint could not evaluate (a runtime
    /// value), so the launch does not contribute a block shape to the analysis.
    ///
    /// ## Why is this bad?
    /// Bank conflicts depend on how threads map to warps: with `blockDim.x = 16` one warp
    /// spans two rows of a tile. Without a shape banklint assumes `blockDim.x` is a multiple
    /// of 32 and analyzes one warp, which may miss conflicts between rows.
    ///
    /// ## Example
    /// ```cuda
    /// // banklint: block(16, 16)
    /// __global__ void k(float *out) { ... }
    /// ```
    /// An annotation on the line before the kernel, or `--block-dim 16x16`, gives the shape.
    BlockShape, "block-shape"
}
