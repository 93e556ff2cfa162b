//! Checking documents as they change. In an editor session (`background`) a worker thread
//! checks them, so the server answers requests, `shutdown` and `exit` while a long document
//! is being checked: changes that arrive meanwhile replace the text waiting to be checked
//! (only the newest version of a document is checked; an analysis that finishes after a
//! newer text arrived is dropped), and a large document waits a moment after each change so
//! that a burst of keystrokes is checked once. Elsewhere (`inline`: tests, fuzzing) the
//! caller's thread checks each change at once, deterministically.
//!
//! An analysis already running is not interrupted (the checker has no cancellation point);
//! it is only not used.

use crate::documents::Document;
use lsp_types::Uri;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A text to check.
pub struct Job {
    pub uri: Uri,
    pub version: i32,
    pub text: String,
    /// The texts of the open documents, by path, for the files it `use`s.
    pub open: HashMap<PathBuf, String>,
}

/// Texts at least this long wait [`SETTLE`] after their last change before being checked.
const LARGE: usize = 256 << 10;
const SETTLE: Duration = Duration::from_millis(150);

/// The stack of the thread that checks: deeply nested text recurses deeply in the parser and
/// the walks over its tree (reserved, not used, until needed).
pub const STACK_SIZE: usize = 256 << 20;

pub(crate) enum Analyser {
    Inline { disk: bool, done: Vec<Document> },
    Background { queue: Arc<Queue> },
}

/// The jobs waiting for the worker: the newest per document.
pub(crate) struct Queue {
    state: Mutex<Waiting>,
    wake: Condvar,
}

#[derive(Default)]
struct Waiting {
    jobs: Vec<(Instant, Job)>,
    stop: bool,
}

impl Analyser {
    pub fn inline(disk: bool) -> Analyser {
        Analyser::Inline {
            disk,
            done: Vec::new(),
        }
    }

    /// A worker thread that checks jobs and hands each document to `deliver`.
    pub fn background(deliver: impl Fn(Document) -> bool + Send + 'static) -> Analyser {
        let queue = Arc::new(Queue {
            state: Mutex::new(Waiting::default()),
            wake: Condvar::new(),
        });
        let q = Arc::clone(&queue);
        let started = std::thread::Builder::new()
            .name("affect-lsp-check".into())
            .stack_size(STACK_SIZE)
            .spawn(move || work(&q, deliver));
        if let Err(e) = started {
            crate::server::log(&format!(
                "cannot start the checking thread ({e}); checking inline"
            ));
            return Analyser::inline(true);
        }
        Analyser::Background { queue }
    }

    pub fn submit(&mut self, job: Job) {
        match self {
            Analyser::Inline { disk, done } => {
                let doc = Document::new(job.uri, job.version, job.text, &job.open, *disk);
                done.retain(|d| d.uri != doc.uri);
                done.push(doc);
            }
            Analyser::Background { queue } => {
                let mut w = lock(queue);
                w.jobs.retain(|(_, j)| j.uri != job.uri);
                w.jobs.push((Instant::now(), job));
                queue.wake.notify_all();
            }
        }
    }

    /// Drops a document's waiting job (it was closed).
    pub fn forget(&mut self, uri: &Uri) {
        match self {
            Analyser::Inline { done, .. } => done.retain(|d| &d.uri != uri),
            Analyser::Background { queue } => lock(queue).jobs.retain(|(_, j)| &j.uri != uri),
        }
    }

    /// Documents checked since the last call (inline only: the worker delivers its own).
    pub fn done(&mut self) -> Vec<Document> {
        match self {
            Analyser::Inline { done, .. } => std::mem::take(done),
            Analyser::Background { .. } => Vec::new(),
        }
    }
}

impl Drop for Analyser {
    fn drop(&mut self) {
        if let Analyser::Background { queue } = self {
            lock(queue).stop = true;
            queue.wake.notify_all();
        }
    }
}

fn lock(q: &Queue) -> std::sync::MutexGuard<'_, Waiting> {
    // A panic while holding the lock leaves the queue usable: its data is plain.
    q.state.lock().unwrap_or_else(|e| e.into_inner())
}

/// The worker: the oldest waiting job first, large texts once they have settled.
fn work(q: &Queue, deliver: impl Fn(Document) -> bool) {
    loop {
        let job = {
            let mut w = lock(q);
            loop {
                if w.stop {
                    return;
                }
                let now = Instant::now();
                let ready = w
                    .jobs
                    .iter()
                    .position(|(at, j)| j.text.len() < LARGE || now.duration_since(*at) >= SETTLE);
                if let Some(i) = ready {
                    break w.jobs.remove(i).1;
                }
                w = match w.jobs.is_empty() {
                    true => q.wake.wait(w).unwrap_or_else(|e| e.into_inner()),
                    false => {
                        q.wake
                            .wait_timeout(w, SETTLE)
                            .unwrap_or_else(|e| e.into_inner())
                            .0
                    }
                };
            }
        };
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Document::new(job.uri, job.version, job.text, &job.open, true)
        }));
        match checked {
            Ok(doc) => {
                if !deliver(doc) {
                    return;
                }
            }
            Err(_) => crate::server::log("internal error while checking a document"),
        }
    }
}
