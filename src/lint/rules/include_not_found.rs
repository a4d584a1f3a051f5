rule! {
    /// ## What it does
    /// Notes a local `#include "x.h"` whose file banklint could not find next to the file or
    /// in a `-I` directory.
    ///
    /// ## Why is this bad?
    /// Headers often hold the `#define`s and structs that size shared arrays and compute
    /// indices. Without them those arrays and accesses may be unanalyzed.
    ///
    /// ## Example
    /// ```cuda
    /// #include "config.h"   // defines TILE
    /// __shared__ float t[TILE][TILE + 1];
    /// ```
    /// Pass `-I include/` (the same directories as nvcc's `-I`).
    IncludeNotFound, "include-not-found"
}
