//! A minimal JSON-RPC client for driving `banklint server` over its standard input and
//! output, as an editor does: framed messages out, a reader thread collecting messages in.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: mpsc::Receiver<Value>,
    /// Messages received while waiting for something else.
    backlog: Vec<Value>,
    next_id: i64,
}

impl Client {
    /// Starts the server with its rule documentation written under `cache`.
    pub fn start(cache: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_banklint"))
            .arg("server")
            .env("XDG_CACHE_HOME", cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("banklint server starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            incoming,
            backlog: Vec::new(),
            next_id: 1,
        }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        stdin.flush().expect("flush");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response; returns `result` (or panics on `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// Sends a request and returns the whole response.
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(&format!("the response to {method}"), |m| {
            m["id"] == json!(id) && m.get("method").is_none()
        })
    }

    /// The first message (kept back ones first) that satisfies `want`.
    pub fn wait_for(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(k) = self.backlog.iter().position(&want) {
            return self.backlog.remove(k);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) if want(&m) => return m,
                Ok(m) => self.backlog.push(m),
                Err(_) => panic!("no {what} within {TIMEOUT:?}; received {:#?}", self.backlog),
            }
        }
    }

    /// The next `publishDiagnostics` for `uri` (older ones kept back are dropped first).
    pub fn diagnostics(&mut self, uri: &str) -> Value {
        self.wait_for(&format!("diagnostics for {uri}"), |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        })["params"]
            .clone()
    }

    /// `shutdown`, `exit`, and the server's exit status.
    pub fn shut_down(mut self) -> Option<i32> {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Value::Null);
        self.exit_only()
    }

    /// `exit` (without `shutdown` unless sent before), and the server's exit status.
    pub fn exit_only(mut self) -> Option<i32> {
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The `file://` URI of an absolute path (ASCII paths: the tests' own).
pub fn uri(path: &Path) -> String {
    let path = path.display().to_string();
    assert!(path.is_ascii() && !path.contains(' '), "{path}");
    format!("file://{path}")
}

/// The (0-based) position of the first `needle` on 1-based `line` of `text`, in UTF-16 units
/// (the tests' fixtures are ASCII, so bytes).
pub fn position(text: &str, line: usize, needle: &str) -> Value {
    let l = text.lines().nth(line - 1).expect("line");
    let character = l
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not on line {line}"));
    json!({"line": line - 1, "character": character})
}

/// `text` with an LSP edit applied (ASCII text: characters are bytes).
pub fn apply(text: &str, edit: &Value) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().expect("line") as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + p["character"].as_u64().expect("character") as usize
    };
    let (start, end) = (
        offset(&edit["range"]["start"]),
        offset(&edit["range"]["end"]),
    );
    format!(
        "{}{}{}",
        &text[..start],
        edit["newText"].as_str().expect("newText"),
        &text[end..]
    )
}
