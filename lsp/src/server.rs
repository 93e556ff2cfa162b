//! The server loop: JSON-RPC messages in, responses and diagnostics out. Every request and
//! notification is handled inside `catch_unwind`, so no input can take the editor's session
//! down: a panic becomes an error response (and a message on standard error).

use crate::documents::{normalize, Document};
use crate::{completion, definition, diagnostics, formatting, hover, symbols};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, Request as _,
};
use lsp_types::{
    CompletionOptions, CompletionResponse, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentFormattingParams, DocumentSymbolParams,
    DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse, HoverParams,
    HoverProviderCapability, InitializeResult, OneOf, PositionEncodingKind,
    PublishDiagnosticsParams, ServerCapabilities, ServerInfo, TextDocumentContentChangeEvent,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, Uri,
};
use serde_json::Value;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// How the session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `shutdown` then `exit`, as the protocol asks.
    Clean,
    /// `exit` without `shutdown`, or the client went away.
    Abrupt,
}

const STACK_SIZE: usize = 256 << 20;

/// Serves one client on standard input and output until it exits.
pub fn run_stdio() -> Result<Ending, String> {
    let (connection, io_threads) = Connection::stdio();
    // Deeply nested text recurses deeply in the parser and the walks over its tree: a large
    // stack (reserved, not used, until needed) keeps such input from overflowing it.
    let ending = std::thread::Builder::new()
        .name("affect-lsp".into())
        .stack_size(STACK_SIZE)
        .spawn(move || serve(&connection))
        .map_err(|e| format!("affect lsp: cannot start the server thread: {e}"))?
        .join()
        .map_err(|_| "affect lsp: the server stopped on an internal error".to_string())?;
    // After `exit` the reader thread has stopped and the writer stops once the connection
    // is gone: wait for it to write the last messages. Otherwise the reader may be blocked
    // on an input nobody closes, and the process just ends.
    if let Ok(Ending::Clean) = ending {
        io_threads.join().map_err(|e| format!("affect lsp: {e}"))?;
    }
    ending
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
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into(), ":".into(), "(".into(), ",".into()]),
            ..Default::default()
        }),
        document_formatting_provider: Some(OneOf::Left(true)),
        ..Default::default()
    }
}

/// Runs the protocol on a connection: the initialize handshake, then the main loop.
pub fn serve(conn: &Connection) -> Result<Ending, String> {
    let result = InitializeResult {
        capabilities: capabilities(),
        server_info: Some(ServerInfo {
            name: "affect".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    let result = serde_json::to_value(result).map_err(|e| e.to_string())?;
    let (id, _params) = match conn.initialize_start() {
        Ok(x) => x,
        // The client left (or sent `exit`) before initializing.
        Err(e) => return Err(format!("affect lsp: {e}")),
    };
    conn.sender
        .send(Response::new_ok(id, result).into())
        .map_err(|e| e.to_string())?;
    let mut server = Server {
        conn,
        docs: HashMap::new(),
        shutdown: false,
    };
    server.run()
}

struct Server<'a> {
    conn: &'a Connection,
    docs: HashMap<Uri, Document>,
    shutdown: bool,
}

enum Failure {
    InvalidParams(String),
    NotFound(String),
}

impl Server<'_> {
    fn run(&mut self) -> Result<Ending, String> {
        while let Ok(msg) = self.conn.receiver.recv() {
            match msg {
                Message::Request(req) => {
                    let id = req.id.clone();
                    let response = if self.shutdown {
                        Response::new_err(
                            id,
                            ErrorCode::InvalidRequest as i32,
                            "the server is shutting down".into(),
                        )
                    } else if req.method == "shutdown" {
                        self.shutdown = true;
                        Response::new_ok(id, Value::Null)
                    } else {
                        match catch_unwind(AssertUnwindSafe(|| self.request(&req))) {
                            Ok(Ok(value)) => Response::new_ok(id, value),
                            Ok(Err(Failure::InvalidParams(m))) => {
                                Response::new_err(id, ErrorCode::InvalidParams as i32, m)
                            }
                            Ok(Err(Failure::NotFound(m))) => {
                                Response::new_err(id, ErrorCode::MethodNotFound as i32, m)
                            }
                            Err(_) => Response::new_err(
                                id,
                                ErrorCode::InternalError as i32,
                                format!("affect lsp: internal error while handling {}", req.method),
                            ),
                        }
                    };
                    self.send(response.into());
                }
                Message::Notification(n) => {
                    if n.method == "exit" {
                        return Ok(if self.shutdown {
                            Ending::Clean
                        } else {
                            Ending::Abrupt
                        });
                    }
                    if catch_unwind(AssertUnwindSafe(|| self.notification(n))).is_err() {
                        eprintln!("affect lsp: internal error while handling a notification");
                    }
                }
                Message::Response(_) => {}
            }
        }
        Ok(Ending::Abrupt)
    }

    fn send(&self, msg: Message) {
        // A closed channel means the client is gone; the loop ends on the next receive.
        let _ = self.conn.sender.send(msg);
    }

    fn params<P: serde::de::DeserializeOwned>(req: &Request) -> Result<P, Failure> {
        serde_json::from_value(req.params.clone())
            .map_err(|e| Failure::InvalidParams(format!("invalid parameters: {e}")))
    }

    fn request(&mut self, req: &Request) -> Result<Value, Failure> {
        let value = match req.method.as_str() {
            HoverRequest::METHOD => {
                let p: HoverParams = Self::params(req)?;
                let pos = p.text_document_position_params;
                self.docs.get(&pos.text_document.uri).and_then(|doc| {
                    let offset = doc.offset(pos.position);
                    to_value(hover::hover(doc, offset))
                })
            }
            GotoDefinition::METHOD => {
                let p: GotoDefinitionParams = Self::params(req)?;
                let pos = p.text_document_position_params;
                self.docs.get(&pos.text_document.uri).and_then(|doc| {
                    let offset = doc.offset(pos.position);
                    definition::definition(doc, offset)
                        .and_then(|l| to_value(Some(GotoDefinitionResponse::Scalar(l))))
                })
            }
            DocumentSymbolRequest::METHOD => {
                let p: DocumentSymbolParams = Self::params(req)?;
                self.docs.get(&p.text_document.uri).and_then(|doc| {
                    to_value(Some(DocumentSymbolResponse::Nested(
                        symbols::document_symbols(doc),
                    )))
                })
            }
            Completion::METHOD => {
                let p: lsp_types::CompletionParams = Self::params(req)?;
                let pos = p.text_document_position;
                self.docs.get(&pos.text_document.uri).and_then(|doc| {
                    let offset = doc.offset(pos.position);
                    to_value(Some(CompletionResponse::Array(completion::completion(
                        doc, offset,
                    ))))
                })
            }
            Formatting::METHOD => {
                let p: DocumentFormattingParams = Self::params(req)?;
                self.docs
                    .get(&p.text_document.uri)
                    .and_then(|doc| to_value(formatting::format(doc)))
            }
            other => {
                return Err(Failure::NotFound(format!(
                    "affect lsp does not handle `{other}`"
                )))
            }
        };
        Ok(value.unwrap_or(Value::Null))
    }

    fn notification(&mut self, n: Notification) {
        let method = n.method.clone();
        match method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Some(p) = parse::<DidOpenTextDocumentParams>(n) else {
                    return;
                };
                let d = p.text_document;
                self.update(d.uri, d.version, d.text);
            }
            DidChangeTextDocument::METHOD => {
                let Some(p) = parse::<DidChangeTextDocumentParams>(n) else {
                    return;
                };
                let uri = p.text_document.uri;
                let Some(doc) = self.docs.get(&uri) else {
                    return;
                };
                let mut text = doc.text.clone();
                for change in p.content_changes {
                    apply(&mut text, change);
                }
                self.update(uri, p.text_document.version, text);
            }
            DidCloseTextDocument::METHOD => {
                let Some(p) = parse::<DidCloseTextDocumentParams>(n) else {
                    return;
                };
                let uri = p.text_document.uri;
                if let Some(doc) = self.docs.remove(&uri) {
                    self.publish_empty(uri);
                    if let Some(path) = doc.path {
                        self.refresh_dependents(&normalize(&path));
                    }
                }
            }
            _ => {}
        }
    }

    /// The texts of the open documents that are files, for the files others `use`.
    fn open_files(&self) -> HashMap<PathBuf, String> {
        self.docs
            .values()
            .filter_map(|d| Some((normalize(d.path.as_ref()?), d.text.clone())))
            .collect()
    }

    fn update(&mut self, uri: Uri, version: i32, text: String) {
        let open = self.open_files();
        let doc = Document::new(uri.clone(), version, text, &open);
        let path = doc.path.as_ref().map(|p| normalize(p));
        self.publish(&doc);
        self.docs.insert(uri, doc);
        if let Some(p) = path {
            self.refresh_dependents(&p);
        }
    }

    /// Checks again the open documents that `use` the file at `path`.
    fn refresh_dependents(&mut self, path: &Path) {
        let dependents: Vec<Uri> = self
            .docs
            .iter()
            .filter(|(_, d)| {
                d.index
                    .files
                    .iter()
                    .any(|f| f.path.as_ref().is_some_and(|p| normalize(p) == path))
                    || d.diagnostics.iter().any(|x| x.code == "E0206")
            })
            .map(|(u, _)| u.clone())
            .collect();
        let open = self.open_files();
        for uri in dependents {
            let Some(old) = self.docs.get(&uri) else {
                continue;
            };
            if old.path.as_ref().is_some_and(|p| normalize(p) == path) {
                continue;
            }
            let doc = Document::new(uri.clone(), old.version, old.text.clone(), &open);
            self.publish(&doc);
            self.docs.insert(uri, doc);
        }
    }

    fn publish(&self, doc: &Document) {
        let params = PublishDiagnosticsParams {
            uri: doc.uri.clone(),
            diagnostics: diagnostics::for_document(doc),
            version: Some(doc.version),
        };
        self.notify::<PublishDiagnostics>(params);
    }

    fn publish_empty(&self, uri: Uri) {
        self.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
            uri,
            diagnostics: Vec::new(),
            version: None,
        });
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Message::Notification(Notification::new(
            N::METHOD.to_string(),
            params,
        )));
    }
}

/// A notification's parameters; a malformed one is reported on standard error and ignored.
fn parse<P: serde::de::DeserializeOwned>(n: Notification) -> Option<P> {
    match serde_json::from_value(n.params) {
        Ok(p) => Some(p),
        Err(e) => {
            eprintln!(
                "affect lsp: ignoring `{}`: invalid parameters: {e}",
                n.method
            );
            None
        }
    }
}

fn to_value<T: serde::Serialize>(v: Option<T>) -> Option<Value> {
    v.and_then(|v| serde_json::to_value(v).ok())
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
