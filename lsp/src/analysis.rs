//! Checking documents as they change. In an editor session (`background`) each document is
//! checked on a thread of its own, so the server answers requests, `shutdown` and `exit`
//! while a long document is being checked, and a small document is not held up by a large
//! one. Changes that arrive while a document is being checked wait, and only the newest of
//! them is checked next; a large document waits a moment after each change so that a burst
//! of keystrokes is checked once; an analysis that finishes after a newer text arrived is
//! dropped. Elsewhere (`inline`: tests, fuzzing) the caller's thread checks each change at
//! once, deterministically.
//!
//! An analysis already running is not interrupted (the checker has no cancellation point);
//! it is only not used.

use crate::documents::Document;
use lsp_types::Uri;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A text to check.
pub struct Job {
    pub uri: Uri,
    pub version: i32,
    pub text: String,
    /// The texts of the open documents, by path, for the files it `use`s.
    pub open: HashMap<PathBuf, String>,
}

/// Texts at least this long wait [`SETTLE`] after a change before being checked (and are
/// not checked at all when another change comes meanwhile).
pub(crate) const LARGE: usize = 256 << 10;
const SETTLE: Duration = Duration::from_millis(150);

/// The stack of a thread that checks: deeply nested text recurses deeply in the parser and
/// the walks over its tree (reserved, not used, until needed).
pub const STACK_SIZE: usize = 256 << 20;

/// Hands a finished analysis (or `None`: skipped, a newer text came) to the server; false
/// when the server is gone.
pub type Deliver = Arc<dyn Fn(Uri, Option<Document>) -> bool + Send + Sync>;

pub(crate) enum Analyser {
    Inline {
        disk: bool,
        done: Vec<Document>,
    },
    Background {
        deliver: Deliver,
        /// Documents being checked, and the newest job that waits for each.
        running: HashSet<Uri>,
        waiting: HashMap<Uri, Job>,
        /// The number of jobs submitted, the newest's for each document: a thread whose
        /// job is no longer the newest skips or drops its work.
        newest: Arc<Mutex<HashMap<Uri, u64>>>,
        count: Arc<AtomicU64>,
    },
}

impl Analyser {
    pub fn inline(disk: bool) -> Analyser {
        Analyser::Inline {
            disk,
            done: Vec::new(),
        }
    }

    pub fn background(deliver: Deliver) -> Analyser {
        Analyser::Background {
            deliver,
            running: HashSet::new(),
            waiting: HashMap::new(),
            newest: Arc::default(),
            count: Arc::default(),
        }
    }

    pub fn submit(&mut self, job: Job) {
        match self {
            Analyser::Inline { disk, done } => {
                let doc = Document::new(job.uri, job.version, job.text, &job.open, *disk);
                done.retain(|d| d.uri != doc.uri);
                done.push(doc);
            }
            Analyser::Background {
                running,
                waiting,
                newest,
                count,
                ..
            } => {
                let n = count.fetch_add(1, Ordering::Relaxed) + 1;
                lock(newest).insert(job.uri.clone(), n);
                if running.contains(&job.uri) {
                    waiting.insert(job.uri.clone(), job);
                } else {
                    self.start(job, n);
                }
            }
        }
    }

    /// Starts checking a job on a thread of its own.
    fn start(&mut self, job: Job, n: u64) {
        let Analyser::Background {
            deliver,
            running,
            newest,
            ..
        } = self
        else {
            return;
        };
        running.insert(job.uri.clone());
        let (deliver, newest) = (Arc::clone(deliver), Arc::clone(newest));
        let uri = job.uri.clone();
        let started = std::thread::Builder::new()
            .name("affect-lsp-check".into())
            .stack_size(STACK_SIZE)
            .spawn(move || check(job, n, &newest, &deliver));
        if let Err(e) = started {
            crate::log::log(&format!("cannot start a checking thread: {e}"));
            running.remove(&uri);
        }
    }

    /// A document's thread has finished: its waiting job, if any, starts.
    pub fn ended(&mut self, uri: &Uri) {
        let Analyser::Background {
            running,
            waiting,
            newest,
            ..
        } = self
        else {
            return;
        };
        running.remove(uri);
        if let Some(job) = waiting.remove(uri) {
            let n = lock(newest).get(uri).copied().unwrap_or(0);
            self.start(job, n);
        }
    }

    /// Drops a document's waiting job (it was closed).
    pub fn forget(&mut self, uri: &Uri) {
        match self {
            Analyser::Inline { done, .. } => done.retain(|d| &d.uri != uri),
            Analyser::Background {
                waiting, newest, ..
            } => {
                waiting.remove(uri);
                lock(newest).remove(uri);
            }
        }
    }

    /// Documents checked since the last call (inline only: threads deliver their own).
    pub fn done(&mut self) -> Vec<Document> {
        match self {
            Analyser::Inline { done, .. } => std::mem::take(done),
            Analyser::Background { .. } => Vec::new(),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain data: still usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One document's check, unless a newer text makes it pointless.
fn check(job: Job, n: u64, newest: &Mutex<HashMap<Uri, u64>>, deliver: &Deliver) {
    let current = || lock(newest).get(&job.uri) == Some(&n);
    if job.text.len() >= LARGE {
        std::thread::sleep(SETTLE);
    }
    let uri = job.uri.clone();
    if !current() {
        deliver(uri, None);
        return;
    }
    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Document::new(job.uri, job.version, job.text, &job.open, true)
    }));
    match checked {
        Ok(doc) => {
            deliver(uri, Some(doc));
        }
        Err(_) => {
            crate::log::log("internal error while checking a document");
            deliver(uri, None);
        }
    }
}
