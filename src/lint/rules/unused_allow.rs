rule! {
    /// ## What it does
    /// With `--warn-unused-allow` (or `--select unused-allow`), reports `// banklint:
    /// allow(CODE)` comments that suppress nothing: no finding with that code on their line,
    /// the next line, or (above a kernel) in the kernel. A warning, so asking for it makes a
    /// stale suppression fail the run; `[severity] unused-allow = "note"` only reports it.
    ///
    /// ## Why is this bad?
    /// A stale suppression hides the next real finding that lands on that line.
    ///
    /// ## Example
    /// ```cuda
    /// s[threadIdx.x] = 0;   // banklint: allow(bank-conflict)   <- nothing to allow
    /// ```
    UnusedAllow, "unused-allow"
}
