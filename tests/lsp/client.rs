//! A client of the built `affect lsp`, over its standard input and output.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    pub stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Notifications received while waiting for something else.
    pub pending: Vec<Value>,
    next_id: i64,
}

impl Client {
    pub fn start() -> Client {
        let mut c = Client::spawn();
        let init = c.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        let caps = &init["result"]["capabilities"];
        assert_eq!(caps["hoverProvider"], json!(true), "{init}");
        assert_eq!(caps["definitionProvider"], json!(true));
        assert_eq!(caps["referencesProvider"], json!(true));
        assert!(caps["renameProvider"].is_object());
        assert_eq!(caps["documentSymbolProvider"], json!(true));
        assert_eq!(caps["documentFormattingProvider"], json!(true));
        assert!(caps["completionProvider"].is_object());
        c.notify("initialized", json!({}));
        c
    }

    /// The server started, not initialized.
    pub fn spawn() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_affect"))
            .args(["lsp", "--stdio"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("affect lsp starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(msg) = read_message(&mut r) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            messages: rx,
            pending: Vec::new(),
            next_id: 0,
        }
    }

    pub fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        stdin.flush().expect("flush");
    }

    /// Writes bytes as they are, framed or not.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// The response to the request with this id, notifications kept for later.
    pub fn response(&mut self, id: Value) -> Value {
        if let Some(i) = self
            .pending
            .iter()
            .position(|m| m["id"] == id && m.get("method").is_none())
        {
            return self.pending.remove(i);
        }
        loop {
            let msg = self.recv();
            if msg["id"] == id && msg.get("method").is_none() {
                return msg;
            }
            self.pending.push(msg);
        }
    }

    pub fn recv(&mut self) -> Value {
        self.messages
            .recv_timeout(TIMEOUT)
            .expect("the server answers in time")
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.response(json!(id))
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// The next diagnostics published for a document.
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let is_for = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        };
        if let Some(i) = self.pending.iter().position(is_for) {
            let m = self.pending.remove(i);
            return m["params"]["diagnostics"].as_array().cloned().unwrap();
        }
        loop {
            let m = self.recv();
            if is_for(&m) {
                return m["params"]["diagnostics"].as_array().cloned().unwrap();
            }
            self.pending.push(m);
        }
    }

    pub fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "affect", "version": 1, "text": text } }),
        );
        self.diagnostics(uri)
    }

    pub fn at(&mut self, method: &str, uri: &str, text: &str, offset: usize) -> Value {
        let (line, character) = position(text, offset);
        self.request(
            method,
            json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
        )
    }

    pub fn shutdown(mut self) -> i32 {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        self.stdin.take();
        self.wait()
    }

    pub fn wait(&mut self) -> i32 {
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code().unwrap_or(-1);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("affect lsp did not exit");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse::<usize>().ok();
            }
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// LSP position (0-based line, UTF-16 column) of a byte offset.
pub fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, text[start..offset].encode_utf16().count())
}
