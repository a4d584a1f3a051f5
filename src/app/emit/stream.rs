//! Streamed JSON documents: `--format json` and `--format sarif` are written while files
//! are analyzed, byte for byte as serde_json's pretty printer would write the whole
//! document (keys in its sorted order), so memory holds one file's entries, not a tree's.
//! The first array of the document goes straight to the output; the others are spooled to
//! an unlinked temporary file (memory only if none can be made) and copied after it.

use serde_json::Value;
use std::io::{self, BufWriter, Seek, Write};

/// A JSON array written element by element, at a nesting depth (2 spaces a level).
pub struct ArrayOut<W: Write> {
    w: W,
    depth: usize,
    count: usize,
}

impl<W: Write> ArrayOut<W> {
    pub fn new(w: W, depth: usize) -> ArrayOut<W> {
        ArrayOut { w, depth, count: 0 }
    }

    pub fn push(&mut self, v: &Value) -> io::Result<()> {
        self.w
            .write_all(if self.count == 0 { b"[\n" } else { b",\n" })?;
        let indent = " ".repeat(2 * self.depth);
        // Strings are escaped in JSON, so every line break is the printer's.
        for (k, line) in pretty(v).split('\n').enumerate() {
            if k > 0 {
                self.w.write_all(b"\n")?;
            }
            self.w.write_all(indent.as_bytes())?;
            self.w.write_all(line.as_bytes())?;
        }
        self.count += 1;
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<W> {
        if self.count == 0 {
            self.w.write_all(b"[]")?;
        } else {
            let indent = " ".repeat(2 * (self.depth - 1));
            write!(self.w, "\n{indent}]")?;
        }
        Ok(self.w)
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into())
}

/// A value as a member of an object at `depth`: its later lines indented to match.
fn nested(v: &Value, depth: usize) -> String {
    pretty(v).replace('\n', &format!("\n{}", " ".repeat(2 * depth)))
}

/// Bytes kept for later: an unlinked temporary file, or memory if none can be created.
pub enum Spool {
    File(BufWriter<std::fs::File>),
    Memory(Vec<u8>),
}

impl Spool {
    pub fn new() -> Spool {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("banklint-spool-{}-{n}", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path);
        match file {
            Ok(f) => {
                // Gone from the directory at once; the open handle keeps the data.
                let _ = std::fs::remove_file(&path);
                Spool::File(BufWriter::new(f))
            }
            Err(_) => Spool::Memory(Vec::new()),
        }
    }

    pub fn copy_to(self, out: &mut impl Write) -> io::Result<()> {
        match self {
            Spool::Memory(v) => out.write_all(&v),
            Spool::File(w) => {
                let mut f = w.into_inner().map_err(|e| e.into_error())?;
                f.rewind()?;
                io::copy(&mut f, out)?;
                Ok(())
            }
        }
    }
}

impl Default for Spool {
    fn default() -> Spool {
        Spool::new()
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Spool::File(w) => w.write(buf),
            Spool::Memory(v) => v.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Spool::File(w) => w.flush(),
            Spool::Memory(_) => Ok(()),
        }
    }
}

/// The `--format json` document (`version: 1`); `fixes` only with `--fix --dry-run`.
pub struct JsonDocument<W: Write> {
    pub accesses: ArrayOut<W>,
    pub diagnostics: ArrayOut<Spool>,
    pub files: ArrayOut<Spool>,
    pub fixes: Option<ArrayOut<Spool>>,
}

impl<W: Write> JsonDocument<W> {
    pub fn start(mut w: W, with_fixes: bool) -> io::Result<JsonDocument<W>> {
        w.write_all(b"{\n  \"accesses\": ")?;
        Ok(JsonDocument {
            accesses: ArrayOut::new(w, 2),
            diagnostics: ArrayOut::new(Spool::new(), 2),
            files: ArrayOut::new(Spool::new(), 2),
            fixes: with_fixes.then(|| ArrayOut::new(Spool::new(), 2)),
        })
    }

    pub fn finish(self, arch: &str, bank_mode: u32, stats: Option<&Value>) -> io::Result<W> {
        let mut w = self.accesses.finish()?;
        write!(w, ",\n  \"arch\": {}", Value::from(arch))?;
        write!(w, ",\n  \"bank_mode\": {bank_mode}")?;
        w.write_all(b",\n  \"diagnostics\": ")?;
        self.diagnostics.finish()?.copy_to(&mut w)?;
        w.write_all(b",\n  \"files\": ")?;
        self.files.finish()?.copy_to(&mut w)?;
        if let Some(fixes) = self.fixes {
            w.write_all(b",\n  \"fixes\": ")?;
            fixes.finish()?.copy_to(&mut w)?;
        }
        if let Some(stats) = stats {
            write!(w, ",\n  \"stats\": {}", nested(stats, 1))?;
        }
        w.write_all(b",\n  \"version\": 1\n}\n")?;
        w.flush()?;
        Ok(w)
    }
}

/// The SARIF log around its results, streamed (see `sarif::document` for the whole value).
pub struct SarifDocument<W: Write> {
    pub results: ArrayOut<W>,
}

impl<W: Write> SarifDocument<W> {
    pub fn start(mut w: W) -> io::Result<SarifDocument<W>> {
        let doc = crate::app::emit::sarif::document(Vec::new());
        write!(
            w,
            "{{\n  \"$schema\": {},\n  \"runs\": [\n    {{\n      \"columnKind\": {},\n      \"results\": ",
            doc["$schema"], doc["runs"][0]["columnKind"]
        )?;
        Ok(SarifDocument {
            results: ArrayOut::new(w, 4),
        })
    }

    pub fn finish(self) -> io::Result<W> {
        let doc = crate::app::emit::sarif::document(Vec::new());
        let mut w = self.results.finish()?;
        write!(
            w,
            ",\n      \"tool\": {}\n    }}\n  ],\n  \"version\": {}\n}}\n",
            nested(&doc["runs"][0]["tool"], 3),
            doc["version"]
        )?;
        w.flush()?;
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_document_is_what_the_pretty_printer_writes() {
        let access =
            json!({"file": "k.cu", "line": 3, "block_dim": [32, 8, 1], "launch_arguments": {}});
        let stats = json!({"files": 2, "reasons": [["a", 1]]});
        let mut doc = JsonDocument::start(Vec::new(), true).expect("start");
        doc.accesses.push(&access).expect("push");
        doc.accesses.push(&access).expect("push");
        doc.files
            .push(&json!({"path": "k.cu", "status": "ok"}))
            .expect("push");
        let out = doc.finish("sm_90", 4, Some(&stats)).expect("finish");
        let whole = json!({
            "version": 1, "arch": "sm_90", "bank_mode": 4,
            "accesses": [access.clone(), access], "diagnostics": [],
            "files": [{"path": "k.cu", "status": "ok"}], "fixes": [], "stats": stats,
        });
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            serde_json::to_string_pretty(&whole).expect("pretty") + "\n"
        );
    }

    #[test]
    fn sarif_document_is_what_the_pretty_printer_writes() {
        let results = vec![json!({"ruleId": "bank-conflict", "level": "warning"}); 2];
        let mut doc = SarifDocument::start(Vec::new()).expect("start");
        for r in &results {
            doc.results.push(r).expect("push");
        }
        let out = doc.finish().expect("finish");
        let whole = crate::app::emit::sarif::document(results);
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            serde_json::to_string_pretty(&whole).expect("pretty") + "\n"
        );
    }
}
