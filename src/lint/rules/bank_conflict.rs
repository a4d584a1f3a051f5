rule! {
    /// ## What it does
    /// Reports a `__shared__` memory access whose lanes, within one warp instruction, touch
    /// different words that live in the same bank, on the chosen GPU architecture.
    ///
    /// ## Why is this bad?
    /// Shared memory is split into banks (32 banks of 4 bytes since Fermi). A bank serves one
    /// word per pass, so an n-way conflict splits the instruction into n passes
    /// ("wavefronts"): a 32-way conflict makes the access 32 times slower. Reads of the
    /// same word by several lanes are free (broadcast).
    ///
    /// ## Example
    /// ```cuda
    /// __shared__ float tile[32][32];
    /// float v = tile[threadIdx.x][0];   // every lane reads column 0: 32-way on bank 0
    /// ```
    ///
    /// Use instead: pad each row by one element, so consecutive rows start in
    /// consecutive banks.
    /// ```cuda
    /// __shared__ float tile[32][32 + 1];
    /// float v = tile[threadIdx.x][0];   // lanes hit banks 0, 1, 2, ...: conflict-free
    /// ```
    ///
    /// banklint finds the smallest padding that makes every access to the array conflict-free
    /// without making any of them worse, and shows the declaration to write. Wide accesses
    /// (8 and 16 bytes) are served in half- and quarter-warp phases, so a stride that is
    /// clean for `float` may conflict for `float4`. Suppress a finding you accept with
    /// `// banklint: allow(bank-conflict)` on the access line.
    BankConflict, "bank-conflict"
}
