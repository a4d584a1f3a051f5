//! `banklint server`: a Language Server over standard input and output (JSON-RPC, through
//! the `lsp-server` and `lsp-types` crates). It owns the protocol: the handshake, the open
//! buffers and their versions, when each is analyzed, and the answers to requests.
//!
//! - Buffers are analyzed on open and on save at once, and on change after a pause in typing
//!   ([`DEBOUNCE`]), always on the buffer's text as the editor holds it, never the file on
//!   disk. A save, or a change on disk to `banklint.toml` or a source file
//!   (`workspace/didChangeWatchedFiles`, registered when the client can), re-analyzes every
//!   open buffer: headers and includers are read from disk. The configuration itself is
//!   re-read on every analysis (`analysis`).
//! - The analyses run on one worker thread, so the protocol stays responsive; the worker
//!   keeps each buffer's latest analysis for hover (`hover`) and code actions
//!   (`actions`), and re-analyzes first when a request names a text it has not analyzed.
//! - Diagnostics are converted in `diagnostics`; positions and URIs in `text`.

mod actions;
mod analysis;
mod diagnostics;
mod hover;
mod text;

use analysis::Analysis;
use diagnostics::RuleDocs;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Notification as _, PublishDiagnostics, ShowMessage,
};
use lsp_types::request::{CodeActionRequest, HoverRequest, RegisterCapability, Request as _};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, Hover, HoverContents,
    HoverProviderCapability, MarkupContent, MarkupKind, MessageType, PositionEncodingKind,
    PublishDiagnosticsParams, SaveOptions, ServerCapabilities, ServerInfo, ShowMessageParams,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Uri,
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use text::{Encoding, LineIndex};

/// How long typing must pause before a changed buffer is analyzed.
pub const DEBOUNCE: Duration = Duration::from_millis(250);

use crate::limits::THREAD_STACK as WORKER_STACK;

/// Runs the server on standard input and output until the client says `exit`. Returns the
/// exit status: 0 after `shutdown`, 1 otherwise, as the protocol asks.
pub fn run() -> i32 {
    let (connection, io_threads) = Connection::stdio();
    let status = match serve(&connection) {
        Ok(status) => status,
        Err(e) => {
            eprintln!("banklint server: {e}");
            1
        }
    };
    drop(connection);
    let _ = io_threads.join();
    status
}

/// An open buffer, as the editor holds it.
struct Document {
    version: i32,
    text: String,
    /// When it is due for analysis; `None` when its analysis is up to date or queued.
    due: Option<Instant>,
}

/// What the worker is asked to do.
enum Job {
    Analyze {
        uri: Uri,
        version: i32,
        text: String,
    },
    Hover {
        id: RequestId,
        uri: Uri,
        text: String,
        position: lsp_types::Position,
    },
    CodeActions {
        id: RequestId,
        uri: Uri,
        text: String,
        range: lsp_types::Range,
    },
    Close {
        uri: Uri,
    },
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

fn serve(connection: &Connection) -> Result<i32, String> {
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    // UTF-8 positions when the client offers them (they are the pipeline's byte offsets).
    let offers_utf8 = params
        .pointer("/capabilities/general/positionEncodings")
        .and_then(|v| v.as_array())
        .is_some_and(|a| a.iter().any(|e| e == "utf-8"));
    let encoding = if offers_utf8 {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    };
    let watch = params
        .pointer("/capabilities/workspace/didChangeWatchedFiles/dynamicRegistration")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let result = lsp_types::InitializeResult {
        capabilities: capabilities(encoding),
        server_info: Some(ServerInfo {
            name: "banklint".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    connection
        .initialize_finish(id, serde_json::to_value(result).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    if watch {
        register_watchers(connection);
    }
    let docs = RuleDocs::write_under(&RuleDocs::default_root());
    let (jobs, queue) = mpsc::channel::<Job>();
    let sender = connection.sender.clone();
    let send: Box<dyn Fn(Message) + Send> = Box::new(move |m| {
        let _ = sender.send(m);
    });
    let worker = std::thread::Builder::new()
        .name("banklint-analysis".to_string())
        .stack_size(WORKER_STACK)
        .spawn(move || Worker::new(send, encoding, docs).run(queue))
        .map_err(|e| format!("cannot start the analysis thread: {e}"))?;
    let mut state = State {
        documents: HashMap::new(),
        jobs,
        encoding,
    };
    let status = state.main_loop(connection);
    drop(state);
    let _ = worker.join();
    Ok(status)
}

/// Asks the client to report changes on disk to configuration files and sources.
fn register_watchers(connection: &Connection) {
    let watchers = ["**/banklint.toml", "**/*.{cu,cuh,h,hh,hpp,hxx,inl}"]
        .into_iter()
        .map(|glob| lsp_types::FileSystemWatcher {
            glob_pattern: lsp_types::GlobPattern::String(glob.to_string()),
            kind: None,
        })
        .collect();
    let options = lsp_types::DidChangeWatchedFilesRegistrationOptions { watchers };
    let params = lsp_types::RegistrationParams {
        registrations: vec![lsp_types::Registration {
            id: "banklint-watched-files".to_string(),
            method: DidChangeWatchedFiles::METHOD.to_string(),
            register_options: serde_json::to_value(options).ok(),
        }],
    };
    let request = Request::new(
        RequestId::from("banklint-register-watchers".to_string()),
        RegisterCapability::METHOD.to_string(),
        params,
    );
    let _ = connection.sender.send(request.into());
}

struct State {
    documents: HashMap<Uri, Document>,
    jobs: mpsc::Sender<Job>,
    encoding: Encoding,
}

impl State {
    fn main_loop(&mut self, connection: &Connection) -> i32 {
        loop {
            let wait = self
                .documents
                .values()
                .filter_map(|d| d.due)
                .min()
                .map_or(Duration::from_secs(3600), |due| {
                    due.saturating_duration_since(Instant::now())
                });
            match connection.receiver.recv_timeout(wait) {
                Ok(Message::Request(request)) => {
                    match connection.handle_shutdown(&request) {
                        // Answered, and `exit` came after it.
                        Ok(true) => return 0,
                        Ok(false) => {}
                        Err(e) => {
                            eprintln!("banklint server: {e}");
                            return 1;
                        }
                    }
                    self.request(connection, request);
                }
                Ok(Message::Notification(n)) => {
                    if n.method == "exit" {
                        // `exit` without `shutdown` first.
                        return 1;
                    }
                    self.notification(n);
                }
                // Answers to our own requests (the watcher registration): nothing to do.
                Ok(Message::Response(_)) => {}
                Err(e) if e.is_timeout() => {}
                Err(_) => return 1,
            }
            self.analyze_due();
        }
    }

    /// Sends every buffer whose pause is over to the worker.
    fn analyze_due(&mut self) {
        let now = Instant::now();
        let due: Vec<Uri> = self
            .documents
            .iter()
            .filter(|(_, d)| d.due.is_some_and(|t| t <= now))
            .map(|(u, _)| u.clone())
            .collect();
        for uri in due {
            if let Some(doc) = self.documents.get_mut(&uri) {
                doc.due = None;
                let _ = self.jobs.send(Job::Analyze {
                    uri,
                    version: doc.version,
                    text: doc.text.clone(),
                });
            }
        }
    }

    /// Marks every open buffer for analysis after `delay`.
    fn all_due(&mut self, delay: Duration) {
        let at = Instant::now() + delay;
        for doc in self.documents.values_mut() {
            doc.due = Some(doc.due.map_or(at, |d| d.min(at)));
        }
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    n.extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
                {
                    let doc = p.text_document;
                    self.documents.insert(
                        doc.uri,
                        Document {
                            version: doc.version,
                            text: doc.text,
                            due: Some(Instant::now()),
                        },
                    );
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = n.extract::<lsp_types::DidChangeTextDocumentParams>(
                    DidChangeTextDocument::METHOD,
                ) && let Some(doc) = self.documents.get_mut(&p.text_document.uri)
                {
                    for change in p.content_changes {
                        text::apply_change(
                            &mut doc.text,
                            change.range,
                            &change.text,
                            self.encoding,
                        );
                    }
                    doc.version = p.text_document.version;
                    doc.due = Some(Instant::now() + DEBOUNCE);
                }
            }
            DidSaveTextDocument::METHOD => {
                // The saved file may be a header or includer of the others.
                self.all_due(Duration::ZERO);
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    n.extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                {
                    self.documents.remove(&p.text_document.uri);
                    let _ = self.jobs.send(Job::Close {
                        uri: p.text_document.uri,
                    });
                }
            }
            DidChangeWatchedFiles::METHOD => self.all_due(DEBOUNCE),
            _ => {}
        }
    }

    fn request(&mut self, connection: &Connection, request: Request) {
        let job = match request.method.as_str() {
            HoverRequest::METHOD => request
                .extract::<lsp_types::HoverParams>(HoverRequest::METHOD)
                .ok()
                .map(|(id, p)| {
                    let at = p.text_document_position_params;
                    let text = self.text_for(&at.text_document.uri);
                    (
                        id.clone(),
                        text.map(|text| Job::Hover {
                            id,
                            uri: at.text_document.uri,
                            text,
                            position: at.position,
                        }),
                    )
                }),
            CodeActionRequest::METHOD => request
                .extract::<lsp_types::CodeActionParams>(CodeActionRequest::METHOD)
                .ok()
                .map(|(id, p)| {
                    let text = self.text_for(&p.text_document.uri);
                    (
                        id.clone(),
                        text.map(|text| Job::CodeActions {
                            id,
                            uri: p.text_document.uri,
                            text,
                            range: p.range,
                        }),
                    )
                }),
            _ => {
                let response = Response::new_err(
                    request.id,
                    ErrorCode::MethodNotFound as i32,
                    format!("banklint does not handle `{}`", request.method),
                );
                let _ = connection.sender.send(response.into());
                return;
            }
        };
        match job {
            Some((_, Some(job))) => {
                let _ = self.jobs.send(job);
            }
            // A buffer that is not open: nothing to say about it.
            Some((id, None)) => {
                let _ = connection
                    .sender
                    .send(Response::new_ok(id, serde_json::Value::Null).into());
            }
            None => {}
        }
    }

    /// The buffer's text for a request: the worker analyzes it first if it has not (and
    /// publishes). A pending analysis stays pending: it may be due to a change on disk that
    /// an analysis of the same text before it did not see.
    fn text_for(&self, uri: &Uri) -> Option<String> {
        Some(self.documents.get(uri)?.text.clone())
    }
}

/// The analysis thread: runs jobs in order, keeping each buffer's latest analysis.
struct Worker {
    /// Sends a message to the client (the connection's channel).
    send: Box<dyn Fn(Message) + Send>,
    encoding: Encoding,
    docs: RuleDocs,
    analyses: HashMap<Uri, Analysis>,
    /// The open buffers' files: where an includer may be.
    open: std::collections::BTreeSet<PathBuf>,
    /// Configuration problems already shown, so each is shown once.
    shown: Vec<String>,
}

impl Worker {
    fn new(send: Box<dyn Fn(Message) + Send>, encoding: Encoding, docs: RuleDocs) -> Worker {
        Worker {
            send,
            encoding,
            docs,
            analyses: HashMap::new(),
            open: std::collections::BTreeSet::new(),
            shown: Vec::new(),
        }
    }

    fn run(mut self, queue: mpsc::Receiver<Job>) {
        while let Ok(first) = queue.recv() {
            // Take everything queued: only the last analysis of each buffer matters.
            let mut batch = vec![first];
            batch.extend(queue.try_iter());
            for job in &batch {
                match job {
                    Job::Analyze { uri, .. } => {
                        self.open.extend(text::uri_to_path(uri));
                    }
                    Job::Close { uri } => {
                        if let Some(p) = text::uri_to_path(uri) {
                            self.open.remove(&p);
                        }
                    }
                    _ => {}
                }
            }
            let last: HashMap<&str, usize> = batch
                .iter()
                .enumerate()
                .filter_map(|(k, j)| match j {
                    Job::Analyze { uri, .. } | Job::Close { uri } => Some((uri.as_str(), k)),
                    _ => None,
                })
                .collect();
            let keep: Vec<bool> = batch
                .iter()
                .enumerate()
                .map(|(k, j)| match j {
                    Job::Analyze { uri, .. } => last.get(uri.as_str()) == Some(&k),
                    _ => true,
                })
                .collect();
            for (job, keep) in batch.into_iter().zip(keep) {
                if keep {
                    self.job(job);
                }
            }
        }
    }

    fn job(&mut self, job: Job) {
        match job {
            Job::Analyze { uri, version, text } => self.analyze(&uri, Some(version), text),
            Job::Close { uri } => {
                self.analyses.remove(&uri);
                self.publish(&uri, None, Vec::new());
            }
            Job::Hover {
                id,
                uri,
                text,
                position,
            } => {
                self.ensure(&uri, text);
                let result = self.analyses.get(&uri).and_then(|a| {
                    let index = LineIndex::new(&a.text, self.encoding);
                    let (value, span) = hover::hover(a, index.offset(position))?;
                    Some(Hover {
                        contents: HoverContents::Markup(MarkupContent {
                            kind: MarkupKind::Markdown,
                            value,
                        }),
                        range: Some(index.range(&span)),
                    })
                });
                self.respond(id, result);
            }
            Job::CodeActions {
                id,
                uri,
                text,
                range,
            } => {
                self.ensure(&uri, text);
                let result = self.analyses.get(&uri).map(|a| {
                    let index = LineIndex::new(&a.text, self.encoding);
                    let span = index.offset(range.start)..index.offset(range.end);
                    actions::actions(a, &index, &uri, span, &self.docs)
                });
                self.respond(id, result.unwrap_or_default());
            }
        }
    }

    /// Makes the kept analysis of `uri` one of exactly `text`, analyzing (and publishing)
    /// now if the last one was of another text.
    fn ensure(&mut self, uri: &Uri, text: String) {
        if self.analyses.get(uri).is_none_or(|a| a.text != text) {
            self.analyze(uri, None, text);
        }
    }

    fn analyze(&mut self, uri: &Uri, version: Option<i32>, text: String) {
        // A buffer without a file (`untitled:`) is analyzed as a file in the current
        // directory: no headers, no includer.
        let path = text::uri_to_path(uri).unwrap_or_else(|| PathBuf::from("untitled.cu"));
        let others: Vec<PathBuf> = self.open.iter().cloned().collect();
        let outcome = analysis::analyze(&path, &text, &others);
        if let Some(problem) = outcome.config_problem
            && !self.shown.contains(&problem)
        {
            self.notify::<ShowMessage>(ShowMessageParams {
                typ: MessageType::ERROR,
                message: format!("banklint: {problem}; using the defaults"),
            });
            self.shown.push(problem);
        }
        let diagnostics = match (&outcome.analysis, &outcome.crashed) {
            (Some(a), _) => {
                let index = LineIndex::new(&a.text, self.encoding);
                a.findings
                    .iter()
                    .map(|f| diagnostics::to_lsp(f, &index, uri, &self.docs))
                    .collect()
            }
            (None, Some(message)) => vec![diagnostics::crash(message)],
            (None, None) => Vec::new(),
        };
        self.publish(uri, version, diagnostics);
        match outcome.analysis {
            Some(a) => {
                self.analyses.insert(uri.clone(), a);
            }
            None => {
                self.analyses.remove(uri);
            }
        }
    }

    fn publish(&self, uri: &Uri, version: Option<i32>, diagnostics: Vec<lsp_types::Diagnostic>) {
        self.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics,
            version,
        });
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        (self.send)(Notification::new(N::METHOD.to_string(), params).into());
    }

    fn respond<T: serde::Serialize>(&self, id: RequestId, result: T) {
        (self.send)(Response::new_ok(id, result).into());
    }
}
