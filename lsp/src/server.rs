//! The server: messages in, responses and diagnostics out. [`Server::handle`] is a pure step
//! (one message, the messages to send back); [`serve_bytes`] runs a whole session over bytes
//! in memory (what the fuzz targets call); [`run_stdio`] runs it over standard input and
//! output, with the reading and the checking of documents on threads of their own so that a
//! long analysis never holds up an answer, `shutdown` or `exit`.
//!
//! Every request and notification is handled inside `catch_unwind`, so no input can take the
//! editor's session down: a panic becomes an error response (and a line on standard error).

use crate::analysis::{Analyser, Job, LARGE};
use crate::documents::{normalize, Document};
use crate::log::log;
use crate::message::{self, code, Incoming, Json};
use crate::request::Reply;
use crate::transport::{self, Frame, Framer};
use crate::{completion, definition, diagnostics, formatting, hover, references, rename, symbols};
use lsp_types::{
    CompletionOptions, HoverProviderCapability, InitializeResult, OneOf, PositionEncodingKind,
    RenameOptions, ServerCapabilities, ServerInfo, TextDocumentContentChangeEvent,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, Uri,
};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};

/// How the session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `shutdown` then `exit`, as the protocol asks.
    Clean,
    /// `exit` without `shutdown`, or the client went away.
    Abrupt,
}

pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                ..Default::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into(), ":".into(), "(".into(), ",".into()]),
            ..Default::default()
        }),
        document_formatting_provider: Some(OneOf::Left(true)),
        ..Default::default()
    }
}

/// Where the session is in the protocol's lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before `initialize`.
    Waiting,
    Running,
    /// After `shutdown`: only `exit` is expected.
    ShutDown,
}

/// What one step of the server asks for.
#[derive(Debug)]
pub enum Output {
    /// A message to send, as JSON text.
    Send(Json),
    /// The session is over.
    Exit(Ending),
}

/// The state of a session: the open documents and where it is in the protocol.
pub struct Server {
    docs: HashMap<Uri, Document>,
    /// The newest text of each open document, before it is checked.
    texts: HashMap<Uri, (i32, String)>,
    phase: Phase,
    analyser: Analyser,
    /// Notifications to send after the current message.
    outbox: Vec<Json>,
}

impl Server {
    /// A server that checks documents as they change, on the caller's thread.
    pub fn new(disk: bool) -> Server {
        Server::with(Analyser::inline(disk))
    }

    pub(crate) fn with(analyser: Analyser) -> Server {
        Server {
            docs: HashMap::new(),
            texts: HashMap::new(),
            phase: Phase::Waiting,
            analyser,
            outbox: Vec::new(),
        }
    }

    /// Handles one decoded message.
    pub fn handle(&mut self, msg: Incoming) -> Vec<Output> {
        let mut out = Vec::new();
        match msg {
            Incoming::Request { id, method, params } => {
                let response = self.request(&id, &method, params);
                out.push(Output::Send(response));
            }
            Incoming::Notification { method, params } => {
                if method == "exit" {
                    let ending = match self.phase {
                        Phase::ShutDown => Ending::Clean,
                        _ => Ending::Abrupt,
                    };
                    out.push(Output::Exit(ending));
                    return out;
                }
                let handled = catch_unwind(AssertUnwindSafe(|| self.notification(&method, params)));
                match handled {
                    Ok(()) => {}
                    Err(_) => log(&format!("internal error while handling `{method}`")),
                }
            }
            Incoming::Response => {}
            Incoming::Invalid { id, code, why } => match id {
                Some(id) => out.push(Output::Send(message::error(&id, code, why))),
                None => log(&format!("skipping a message: {why}")),
            },
        }
        for doc in self.analyser.done() {
            self.analysed(doc);
        }
        out.extend(self.outbox.drain(..).map(Output::Send));
        out
    }

    /// A document's background check ended (with the document, unless it was skipped): its
    /// diagnostics.
    fn deliver(&mut self, uri: &Uri, doc: Option<Document>) -> Vec<Output> {
        self.analyser.ended(uri);
        if let Some(doc) = doc {
            self.analysed(doc);
        }
        self.outbox.drain(..).map(Output::Send).collect()
    }

    /// Keeps a finished analysis, unless a newer text (or a close) made it stale, and
    /// publishes its diagnostics; documents that use it are checked again.
    fn analysed(&mut self, doc: Document) {
        if self
            .texts
            .get(&doc.uri)
            .is_none_or(|(v, _)| *v != doc.version)
        {
            return;
        }
        self.outbox.push(diagnostics::publish(&doc));
        let path = doc.path.as_ref().map(|p| normalize(p));
        self.docs.insert(doc.uri.clone(), doc);
        if let Some(p) = path {
            self.refresh_dependents(&p);
        }
    }

    fn request(&mut self, id: &Value, method: &str, params: Value) -> Json {
        match (self.phase, method) {
            (Phase::Waiting, "initialize") => {
                self.phase = Phase::Running;
                return message::ok(id, &initialize_result());
            }
            (Phase::Waiting, _) => {
                return message::error(id, code::SERVER_NOT_INITIALIZED, "initialize first")
            }
            (Phase::ShutDown, _) => {
                return message::error(id, code::INVALID_REQUEST, "the server is shutting down")
            }
            (Phase::Running, "shutdown") => {
                self.phase = Phase::ShutDown;
                return message::ok(id, &Value::Null);
            }
            (Phase::Running, "initialize") => {
                return message::error(id, code::INVALID_REQUEST, "already initialized")
            }
            _ => {}
        }
        match catch_unwind(AssertUnwindSafe(|| self.feature(method, params))) {
            Ok(Ok(value)) => message::ok(id, &value),
            Ok(Err((c, m))) => message::error(id, c, m),
            Err(_) => {
                log(&format!("internal error while handling `{method}`"));
                message::error(
                    id,
                    code::INTERNAL_ERROR,
                    format!("affect lsp: internal error while handling {method}"),
                )
            }
        }
    }

    /// A request about a document: answered from its latest analysis.
    fn feature(&mut self, method: &str, params: Value) -> Reply {
        let uri = params
            .get("textDocument")
            .and_then(|d| d.get("uri"))
            .cloned()
            .and_then(|u| serde_json::from_value::<Uri>(u).ok());
        let doc = uri.as_ref().and_then(|u| self.docs.get(u));
        let value = match method {
            "textDocument/hover" => hover::request(doc, params)?,
            "textDocument/definition" => definition::request(doc, params)?,
            "textDocument/references" => references::request(doc, params)?,
            "textDocument/prepareRename" => rename::prepare(doc, params)?,
            "textDocument/rename" => rename::request(doc, params)?,
            "textDocument/documentSymbol" => symbols::request(doc, params)?,
            "textDocument/completion" => {
                // Completion reads the newest text (the analysis may be a keystroke behind).
                let text = uri.as_ref().and_then(|u| self.texts.get(u));
                completion::request(doc, text.map(|(_, t)| t.as_str()), params)?
            }
            "textDocument/formatting" => {
                // Formatting edits the newest text (the analysis may be behind it).
                let text = uri.as_ref().and_then(|u| self.texts.get(u));
                formatting::request(doc, text.map(|(_, t)| t.as_str()), params)?
            }
            other => {
                return Err((
                    code::METHOD_NOT_FOUND,
                    format!("affect lsp does not handle `{other}`"),
                ))
            }
        };
        Ok(value)
    }

    fn notification(&mut self, method: &str, params: Value) {
        if self.phase != Phase::Running {
            return;
        }
        match method {
            "textDocument/didOpen" => {
                let Some(p) = parse::<lsp_types::DidOpenTextDocumentParams>(method, params) else {
                    return;
                };
                let d = p.text_document;
                self.update(d.uri, d.version, d.text);
            }
            "textDocument/didChange" => {
                let Some(p) = parse::<lsp_types::DidChangeTextDocumentParams>(method, params)
                else {
                    return;
                };
                let uri = p.text_document.uri;
                let Some((_, old)) = self.texts.get(&uri) else {
                    return;
                };
                let mut text = old.clone();
                for change in p.content_changes {
                    apply(&mut text, change);
                }
                self.update(uri, p.text_document.version, text);
            }
            "textDocument/didClose" => {
                let Some(p) = parse::<lsp_types::DidCloseTextDocumentParams>(method, params) else {
                    return;
                };
                self.close(p.text_document.uri);
            }
            _ => {}
        }
    }

    /// The texts of the open documents that are files, for the files others `use`.
    fn open_files(&self) -> HashMap<PathBuf, String> {
        self.texts
            .iter()
            .filter_map(|(uri, (_, text))| {
                let path = crate::documents::uri_to_path(uri)?;
                Some((normalize(&path), text.clone()))
            })
            .collect()
    }

    fn update(&mut self, uri: Uri, version: i32, text: String) {
        if text.len() >= LARGE {
            // A large document's analysis is dropped when its text changes, not kept until
            // the next one is ready: two at once took 360 MB for 50,000 declarations. Until
            // then its requests are answered as for a document not yet checked.
            self.docs.remove(&uri);
        }
        self.texts.insert(uri.clone(), (version, text.clone()));
        let open = self.open_files();
        self.analyser.submit(Job {
            uri,
            version,
            text,
            open,
        });
    }

    fn close(&mut self, uri: Uri) {
        self.texts.remove(&uri);
        self.analyser.forget(&uri);
        if let Some(doc) = self.docs.remove(&uri) {
            self.outbox.push(diagnostics::clear(&uri));
            if let Some(path) = doc.path {
                self.refresh_dependents(&normalize(&path));
            }
        }
    }

    /// Checks again the open documents that `use` the file at `path`, or that could not load
    /// a file (it may be this one).
    fn refresh_dependents(&mut self, path: &Path) {
        let dependents: Vec<Uri> = self
            .docs
            .iter()
            .filter(|(_, d)| {
                d.path.as_ref().is_none_or(|p| normalize(p) != path)
                    && (d.used_paths().iter().any(|p| p == path)
                        || d.diagnostics.iter().any(|x| x.code == "E0206"))
            })
            .map(|(u, _)| u.clone())
            .collect();
        let open = self.open_files();
        for uri in dependents {
            if let Some((version, text)) = self.texts.get(&uri) {
                self.analyser.submit(Job {
                    uri: uri.clone(),
                    version: *version,
                    text: text.clone(),
                    open: open.clone(),
                });
            }
        }
    }
}

fn initialize_result() -> Value {
    let result = InitializeResult {
        capabilities: capabilities(),
        server_info: Some(ServerInfo {
            name: "affect".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    serde_json::to_value(result).unwrap_or(Value::Null)
}

/// A notification's parameters; malformed ones are logged and ignored.
fn parse<P: serde::de::DeserializeOwned>(method: &str, params: Value) -> Option<P> {
    match serde_json::from_value(params) {
        Ok(p) => Some(p),
        Err(e) => {
            log(&format!("ignoring `{method}`: invalid parameters: {e}"));
            None
        }
    }
}

/// Applies one change to a text: the whole text, or a range (for clients that send ranges
/// although the server asks for full documents).
fn apply(text: &mut String, change: TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let lines = crate::documents::Lines::new(text);
            let start = lines.offset(text, range.start);
            let end = lines.offset(text, range.end).max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}

/// Runs a whole session over `input` in memory, checking documents on the caller's thread
/// and reading no files: the bytes the server would write, framed. Deterministic; the fuzz
/// targets call it.
pub fn serve_bytes(input: &[u8]) -> Vec<u8> {
    let mut server = Server::new(false);
    let mut framer = Framer::new();
    let mut frames = Vec::new();
    framer.push(input, &mut frames);
    framer.finish(&mut frames);
    let mut out = Vec::new();
    for f in frames {
        let msg = match f {
            Frame::Body(body) => message::decode(&body),
            Frame::Skipped { why, .. } => {
                log(&format!("skipping input: {why}"));
                continue;
            }
        };
        for o in server.handle(msg) {
            match o {
                Output::Send(v) => {
                    let _ = transport::write_message(&mut out, v.get().as_bytes());
                }
                Output::Exit(_) => return out,
            }
        }
    }
    out
}

/// What the stdio loop waits for.
enum Event {
    Message(Incoming),
    Checked(Uri, Option<Box<Document>>),
    /// Standard input ended.
    Closed,
}

/// Serves one client on standard input and output until it exits.
pub fn run_stdio() -> Result<Ending, String> {
    let (tx, rx) = mpsc::channel::<Event>();
    let reader = tx.clone();
    std::thread::Builder::new()
        .name("affect-lsp-read".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            transport::read_frames(&mut input, |frame| match frame {
                Frame::Body(body) => reader.send(Event::Message(message::decode(&body))).is_ok(),
                Frame::Skipped { bytes, why } => {
                    log(&format!("skipping {bytes} bytes of input: {why}"));
                    true
                }
            });
            let _ = reader.send(Event::Closed);
        })
        .map_err(|e| format!("affect lsp: cannot start the reading thread: {e}"))?;
    let checked = tx.clone();
    let analyser = Analyser::background(Arc::new(move |uri, doc: Option<Document>| {
        checked.send(Event::Checked(uri, doc.map(Box::new))).is_ok()
    }));
    // Requests walk syntax trees too (the outline, formatting): a large stack, as the
    // checking thread has.
    std::thread::Builder::new()
        .name("affect-lsp".into())
        .stack_size(crate::analysis::STACK_SIZE)
        .spawn(move || serve_events(Server::with(analyser), &rx))
        .map_err(|e| format!("affect lsp: cannot start the server thread: {e}"))?
        .join()
        .map_err(|_| "affect lsp: the server stopped on an internal error".to_string())?
}

fn serve_events(mut server: Server, rx: &mpsc::Receiver<Event>) -> Result<Ending, String> {
    let stdout = std::io::stdout();
    loop {
        let outputs = match rx.recv() {
            Ok(Event::Message(m)) => server.handle(m),
            Ok(Event::Checked(uri, doc)) => server.deliver(&uri, doc.map(|d| *d)),
            Ok(Event::Closed) | Err(_) => return Ok(Ending::Abrupt),
        };
        let mut out = stdout.lock();
        for o in outputs {
            match o {
                Output::Send(v) => {
                    if transport::write_message(&mut out, v.get().as_bytes()).is_err() {
                        // The client is gone.
                        return Ok(Ending::Abrupt);
                    }
                }
                Output::Exit(ending) => {
                    let _ = out.flush();
                    return Ok(ending);
                }
            }
        }
    }
}
