rule! {
    /// ## What it does
    /// Reports a kernel whose static `__shared__` arrays add up to more than the target
    /// architecture allows one block (48 KB since Fermi, 16 KB on 1.x), counting arrays
    /// declared in the kernel, in device functions it calls, and file-scope arrays it uses.
    ///
    /// ## Why is this bad?
    /// The kernel does not build or launch: ptxas rejects static shared memory over the
    /// limit. Larger allocations must be dynamic (`extern __shared__`), opted into with
    /// `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)` on 7.x
    /// and later.
    ///
    /// ## Example
    /// ```cuda
    /// __global__ void k(float *out) {
    ///     __shared__ float a[128][128];   // 64 KB: over the 48 KB static limit
    /// }
    /// ```
    ///
    /// The same check backs every padding suggestion: each states the bytes it adds, whether
    /// the block still fits, and blocks per SM as limited by shared memory before and after.
    SharedCapacity, "shared-capacity"
}
