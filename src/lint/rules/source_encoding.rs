rule! {
    /// ## What it does
    /// Notes bytes that are not UTF-8 inside comments or string and character literals
    /// (Latin-1 or Windows-1252 text in older code). Compilers accept any bytes there, and
    /// so does banklint: the file is analyzed, and each such byte is shown as `?`. The note
    /// names the first one's line and column.
    ///
    /// ## Why is this bad?
    /// It is not: the note only says why a comment reads differently in banklint's output.
    /// Bytes that are not UTF-8 in code are an error (exit status 2), as they are for a
    /// compiler. Re-saving the file as UTF-8 silences the note.
    ///
    /// ## Example
    /// ```cuda
    /// // r\xe9sum\xe9 (Latin-1 "résumé")
    /// ```
    SourceEncoding, "source-encoding"
}
