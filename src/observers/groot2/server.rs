//! The sockets: for each agent, ZeroMQ REP on its port (requests) and PUB on the next one
//! (BREAKPOINT_REACHED), served by one thread running a single-threaded tokio runtime. The run
//! thread only touches each agent's [`Shared`] state under its mutex.

use super::board::Boards;
use super::hooks::Hooks;
use super::served_tree::ServedTree;
use super::wire::{self, Request};
use std::collections::VecDeque;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;
use zeromq::{PubSocket, RepSocket, Socket, SocketRecv, SocketSend, ZmqMessage};

/// GET_TRANSITIONS keeps the last 1000 transitions.
const KEPT_TRANSITIONS: usize = 1000;

/// One agent instance as its clients see it.
pub struct Shared {
    /// The tree served and its id. A reload (`--watch`) replaces both: the sockets stay
    /// bound, and a client sees the new id in its next reply header and asks for the new tree
    /// (Groot 2 does so when the id changes).
    pub served: Mutex<(Arc<ServedTree>, [u8; 16])>,
    pub hooks: Arc<Hooks>,
    pub state: Mutex<State>,
}

/// What changes while the agent runs.
pub struct State {
    /// The STATUS reply: `u16 uid, u8 status` per node, in the served tree's order.
    pub status: Vec<u8>,
    /// Where each uid's status byte is in `status` (by uid).
    at: Vec<Option<usize>>,
    pub boards: Boards,
    /// When recording started (TOGGLE_RECORDING "start"), and what was recorded since.
    recording: Option<Instant>,
    transitions: VecDeque<[u8; 9]>,
}

impl State {
    pub fn new(tree: &ServedTree) -> State {
        let mut status = Vec::with_capacity(tree.uids.len() * 3);
        let top = tree.uids.iter().copied().max().unwrap_or(0) as usize;
        let mut at = vec![None; top + 1];
        for &u in &tree.uids {
            status.extend_from_slice(&u.to_le_bytes());
            at[u as usize] = Some(status.len());
            status.push(0);
        }
        State {
            status,
            at,
            boards: Boards::new(&tree.boards),
            recording: None,
            transitions: VecDeque::new(),
        }
    }

    /// A node changed status (numbers as in the protocol: 0 IDLE .. 4 SKIPPED).
    pub fn transition(&mut self, uid: u16, from: u8, to: u8) {
        if let Some(Some(i)) = self.at.get(uid as usize) {
            self.status[*i] = wire::snapshot_code(from, to);
        }
        if let Some(start) = self.recording {
            let mut rec = Vec::with_capacity(9);
            wire::transition(&mut rec, start.elapsed().as_micros() as u64, uid, to);
            self.transitions
                .push_back(rec.try_into().expect("nine bytes"));
            while self.transitions.len() > KEPT_TRANSITIONS {
                self.transitions.pop_front();
            }
        }
    }
}

impl Shared {
    pub fn new(tree: ServedTree, uuid: [u8; 16], hooks: Arc<Hooks>) -> Shared {
        Shared {
            state: Mutex::new(State::new(&tree)),
            served: Mutex::new((Arc::new(tree), uuid)),
            hooks,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn served(&self) -> (Arc<ServedTree>, [u8; 16]) {
        let s = self.served.lock().unwrap_or_else(|p| p.into_inner());
        (Arc::clone(&s.0), s.1)
    }

    /// Serves `tree` under a new id from now on, its nodes' statuses and blackboards fresh
    /// (the reloaded program's slots and uids are its own).
    pub fn replace(&self, tree: ServedTree, uuid: [u8; 16]) {
        *self.state() = State::new(&tree);
        *self.served.lock().unwrap_or_else(|p| p.into_inner()) = (Arc::new(tree), uuid);
    }

    /// The reply's parts after the header, or the error message.
    fn answer(&self, kind: Request, payload: Option<&[u8]>) -> Result<Vec<Vec<u8>>, String> {
        let text = || -> Result<String, String> {
            match payload {
                Some(p) => Ok(String::from_utf8_lossy(p).into_owned()),
                None => Err("must be 2 parts message".into()),
            }
        };
        Ok(match kind {
            Request::FullTree => vec![self.served().0.xml.as_bytes().to_vec()],
            Request::Status => vec![self.state().status.clone()],
            Request::Blackboard => {
                let names = text()?;
                let dump = self.state().boards.dump(&names);
                vec![rmp_serde::to_vec(&dump).map_err(|e| e.to_string())?]
            }
            Request::HookInsert => {
                self.hooks.insert(&text()?)?;
                vec![]
            }
            Request::HookRemove => {
                self.hooks.remove(&text()?)?;
                vec![]
            }
            Request::BreakpointUnlock => {
                self.hooks.unlock(&text()?)?;
                vec![]
            }
            Request::HooksDump => vec![self.hooks.dump().into_bytes()],
            Request::RemoveAllHooks => {
                self.hooks.clear();
                vec![]
            }
            Request::DisableAllHooks => {
                self.hooks.disable_all();
                vec![]
            }
            Request::ToggleRecording => match text()?.as_str() {
                "start" => {
                    let mut st = self.state();
                    st.recording = Some(Instant::now());
                    st.transitions.clear();
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_micros());
                    vec![now.to_string().into_bytes()]
                }
                "stop" => {
                    self.state().recording = None;
                    vec![]
                }
                _ => vec![],
            },
            Request::GetTransitions => {
                let taken = std::mem::take(&mut self.state().transitions);
                vec![taken.iter().flatten().copied().collect()]
            }
            Request::BreakpointReached | Request::Other(_) => {
                return Err("Request not recognized".into())
            }
        })
    }

    /// The reply to one request message.
    pub fn reply(&self, parts: &[&[u8]]) -> Vec<Vec<u8>> {
        self.hooks.heartbeat();
        let error = |m: &str| vec![b"error".to_vec(), m.as_bytes().to_vec()];
        let Some(header) = parts.first().and_then(|p| wire::parse_request(p)) else {
            return error("wrong request header");
        };
        match self.answer(header.kind, parts.get(1).copied()) {
            Ok(rest) => {
                let mut out = vec![wire::reply_header(header, &self.served().1).to_vec()];
                out.extend(rest);
                out
            }
            Err(m) => error(&m),
        }
    }
}

/// A message to the server thread.
enum Command {
    Serve {
        agent: Arc<Shared>,
        endpoints: (String, String),
        done: mpsc::Sender<Result<(), String>>,
    },
    Reached {
        agent: usize,
        uid: u16,
    },
    Stop,
}

/// The server thread; dropping it closes every socket and joins the thread.
pub struct Server {
    commands: tokio::sync::mpsc::UnboundedSender<Command>,
    thread: Option<std::thread::JoinHandle<()>>,
    bind: String,
    served: usize,
}

/// `tcp://ADDR:PORT`, with brackets around an IPv6 address.
pub fn endpoint(bind: &str, port: u16) -> String {
    if bind.contains(':') && !bind.starts_with('[') {
        format!("tcp://[{bind}]:{port}")
    } else {
        format!("tcp://{bind}:{port}")
    }
}

/// Binds one agent's sockets and starts answering; returns where BREAKPOINT_REACHED
/// notices go.
async fn serve(
    agent: Arc<Shared>,
    (rep_at, pub_at): (String, String),
) -> Result<tokio::sync::mpsc::UnboundedSender<u16>, String> {
    let mut rep = RepSocket::new();
    rep.bind(&rep_at)
        .await
        .map_err(|e| format!("cannot serve Groot 2 on {rep_at}: {e}"))?;
    let mut publisher = PubSocket::new();
    publisher
        .bind(&pub_at)
        .await
        .map_err(|e| format!("cannot serve Groot 2 on {pub_at}: {e}"))?;
    tokio::spawn(async move {
        while let Ok(request) = rep.recv().await {
            let parts: Vec<&[u8]> = request.iter().map(|b| b.as_ref()).collect();
            let reply: Vec<bytes::Bytes> = agent
                .reply(&parts)
                .into_iter()
                .map(bytes::Bytes::from)
                .collect();
            let Ok(message) = ZmqMessage::try_from(reply) else {
                continue;
            };
            if rep.send(message).await.is_err() {
                break;
            }
        }
    });
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<u16>();
    tokio::spawn(async move {
        while let Some(uid) = rx.recv().await {
            let id: u32 = rand_id();
            let parts = vec![
                bytes::Bytes::copy_from_slice(&wire::request_header(
                    Request::BreakpointReached,
                    id,
                )),
                bytes::Bytes::from(uid.to_string()),
            ];
            if let Ok(m) = ZmqMessage::try_from(parts) {
                let _ = publisher.send(m).await;
            }
        }
    });
    Ok(tx)
}

/// A request id for our own notices: any value will do, as BehaviorTree.CPP's are random.
fn rand_id() -> u32 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    t ^ std::process::id().rotate_left(16)
}

impl Server {
    pub fn start(bind: &str) -> Result<Server, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the Groot 2 server: {e}"))?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Command>();
        let thread = std::thread::Builder::new()
            .name("groot2".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let mut publishers = Vec::new();
                    while let Some(cmd) = rx.recv().await {
                        match cmd {
                            Command::Serve {
                                agent,
                                endpoints,
                                done,
                            } => {
                                let served = serve(agent, endpoints).await;
                                let _ = done.send(served.map(|p| publishers.push(p)));
                            }
                            Command::Reached { agent, uid } => {
                                if let Some(p) = publishers.get(agent) {
                                    let _ = p.send(uid);
                                }
                            }
                            Command::Stop => break,
                        }
                    }
                });
                // Dropping the runtime here cancels the socket tasks and closes the sockets.
            })
            .map_err(|e| format!("cannot start the Groot 2 server: {e}"))?;
        Ok(Server {
            commands: tx,
            thread: Some(thread),
            bind: bind.to_string(),
            served: 0,
        })
    }

    /// Serves `agent` on `port` (REP) and `port + 1` (PUB); returns once both are bound,
    /// with the agent's number for [`Server::notifier`].
    pub fn serve(&mut self, agent: Arc<Shared>, port: u16) -> Result<usize, String> {
        let next = port
            .checked_add(1)
            .ok_or_else(|| format!("port {port} has no next port for PUB"))?;
        let (done, wait) = mpsc::channel();
        let stopped = || "the Groot 2 server has stopped".to_string();
        self.commands
            .send(Command::Serve {
                agent,
                endpoints: (endpoint(&self.bind, port), endpoint(&self.bind, next)),
                done,
            })
            .map_err(|_| stopped())?;
        wait.recv().map_err(|_| stopped())??;
        self.served += 1;
        Ok(self.served - 1)
    }

    /// What tells an agent's clients that a breakpoint was reached (on its PUB socket).
    pub fn notifier(&self, agent: usize) -> impl Fn(u16) + Send + Sync + 'static {
        let tx = self.commands.clone();
        move |uid| {
            let _ = tx.send(Command::Reached { agent, uid });
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
