//! Hooks and breakpoints (HOOK_INSERT, BREAKPOINT_UNLOCK, ...), as BehaviorTree.CPP's
//! `Groot2Publisher` keeps them: one hook per node uid and position (before or after the
//! tick). A BREAKPOINT hook stops the agent at that node until a client unlocks it; a REPLACE
//! hook answers at once. Either way the hook's `desired_status`, when SUCCESS or FAILURE,
//! replaces the node's result (a hook before the tick skips the tick). A client that sends no
//! request for 5 s is gone: its hooks stop acting (and breakpoints let go) until it is back.
//!
//! Hooks act on every node, as in BehaviorTree.CPP: on actions and conditions where the
//! runtime calls them out ([`Hooked`], in both engines), on controls, decorators, SubTrees
//! and scripts in the interpreter ([`AroundNodes`]; a run with `--groot2-hooks` therefore
//! runs the interpreter). A uid that is no node of the agent is refused with an error reply.

use affect_compiler::ir::program::Status;
use serde_json::{json, Value as Json};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// `max_heartbeat_delay`.
pub const HEARTBEAT: Duration = Duration::from_millis(5000);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    Pre = 0,
    Post = 1,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Breakpoint = 0,
    Replace = 1,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Hook {
    pub enabled: bool,
    pub uid: u16,
    pub mode: Mode,
    /// `once` on the wire (`remove_when_done`).
    pub once: bool,
    /// IDLE, RUNNING, SUCCESS, FAILURE or SKIPPED.
    pub desired: &'static str,
    pub position: Position,
    /// A client unlocked the breakpoint.
    ready: bool,
}

impl Hook {
    fn json(&self) -> Json {
        json!({
            "enabled": self.enabled,
            "uid": self.uid,
            "mode": self.mode as u8,
            "once": self.once,
            "desired_status": self.desired,
            "position": self.position as u8,
        })
    }
}

fn status_word(s: &str) -> Result<&'static str, String> {
    Ok(match s {
        "IDLE" => "IDLE",
        "RUNNING" => "RUNNING",
        "SUCCESS" => "SUCCESS",
        "FAILURE" => "FAILURE",
        "SKIPPED" => "SKIPPED",
        other => return Err(format!("`{other}` is not a node status")),
    })
}

fn field<'j>(j: &'j Json, name: &str) -> Result<&'j Json, String> {
    j.get(name)
        .ok_or_else(|| format!("[json.exception.out_of_range.403] key '{name}' not found"))
}

fn uint(j: &Json, name: &str) -> Result<u64, String> {
    field(j, name)?
        .as_u64()
        .ok_or_else(|| format!("`{name}` must be a number"))
}

fn boolean(j: &Json, name: &str) -> Result<bool, String> {
    field(j, name)?
        .as_bool()
        .ok_or_else(|| format!("`{name}` must be true or false"))
}

fn position(j: &Json) -> Result<Position, String> {
    Ok(if uint(j, "position")? == 0 {
        Position::Pre
    } else {
        Position::Post
    })
}

fn uid(j: &Json) -> Result<u16, String> {
    u16::try_from(uint(j, "uid")?).map_err(|_| "`uid` is not a node uid".to_string())
}

/// What a hook does to one tick of its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Tick normally (no hook, a disabled one, or a desired status that is not final).
    Pass,
    /// Return this status (SUCCESS = true, FAILURE = false) instead.
    Force(bool),
}

/// The hooks of one agent. The run thread asks [`Hooks::at`]; the server changes them.
pub struct Hooks {
    /// Whether `--groot2-hooks` allows them at all.
    pub allowed: bool,
    /// The uids hooks may be set on.
    hookable: Vec<u16>,
    state: Mutex<HookState>,
    wake: Condvar,
    /// Tells clients a hook was reached (BREAKPOINT_REACHED on PUB), once served.
    notify: Mutex<Option<Notify>>,
}

type Notify = Box<dyn Fn(u16) + Send + Sync>;

struct HookState {
    hooks: Vec<Hook>,
    last_request: Instant,
}

impl Hooks {
    pub fn new(allowed: bool, hookable: Vec<u16>) -> Hooks {
        Hooks {
            allowed,
            hookable,
            state: Mutex::new(HookState {
                hooks: Vec::new(),
                last_request: Instant::now(),
            }),
            wake: Condvar::new(),
            notify: Mutex::new(None),
        }
    }

    /// Whether hooks may be set on this node.
    pub fn takes(&self, uid: u16) -> bool {
        self.hookable.contains(&uid)
    }

    /// Where BREAKPOINT_REACHED goes.
    pub fn set_notifier(&self, notify: Notify) {
        *self.notify.lock().unwrap_or_else(|p| p.into_inner()) = Some(notify);
    }

    fn reached(&self, uid: u16) {
        if let Some(n) = &*self.notify.lock().unwrap_or_else(|p| p.into_inner()) {
            n(uid);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HookState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every request is a heartbeat.
    pub fn heartbeat(&self) {
        self.lock().last_request = Instant::now();
        self.wake.notify_all();
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.lock().hooks.is_empty()
    }

    /// HOOK_INSERT: one hook object or an array of them.
    pub fn insert(&self, payload: &str) -> Result<(), String> {
        if !self.allowed {
            return Err("hooks are off: they change node results, so `affect run` accepts them only with --groot2-hooks".into());
        }
        let j: Json = serde_json::from_str(payload).map_err(|e| e.to_string())?;
        let list = match &j {
            Json::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        for h in list {
            let hook = Hook {
                enabled: boolean(h, "enabled")?,
                uid: uid(h)?,
                once: boolean(h, "once")?,
                mode: if uint(h, "mode")? == 0 {
                    Mode::Breakpoint
                } else {
                    Mode::Replace
                },
                desired: status_word(
                    field(h, "desired_status")?
                        .as_str()
                        .ok_or("`desired_status` must be a string")?,
                )?,
                position: position(h)?,
                ready: false,
            };
            if !self.takes(hook.uid) {
                return Err(format!(
                    "node {} takes no hooks: it is not a node of this tree",
                    hook.uid
                ));
            }
            let mut st = self.lock();
            match st
                .hooks
                .iter_mut()
                .find(|x| x.uid == hook.uid && x.position == hook.position)
            {
                // An existing hook is updated; a breakpoint turned into a replacement lets go.
                Some(old) => {
                    let ready =
                        old.ready || (old.mode == Mode::Breakpoint && hook.mode == Mode::Replace);
                    *old = Hook { ready, ..hook };
                }
                None => st.hooks.push(hook),
            }
            drop(st);
            self.wake.notify_all();
        }
        Ok(())
    }

    /// HOOK_REMOVE.
    pub fn remove(&self, payload: &str) -> Result<(), String> {
        let j: Json = serde_json::from_str(payload).map_err(|e| e.to_string())?;
        let (u, p) = (uid(&j)?, position(&j)?);
        let mut st = self.lock();
        let before = st.hooks.len();
        st.hooks.retain(|h| !(h.uid == u && h.position == p));
        let removed = st.hooks.len() != before;
        drop(st);
        self.wake.notify_all();
        if removed {
            Ok(())
        } else {
            Err("Node ID not found".into())
        }
    }

    /// BREAKPOINT_UNLOCK: `desired_status` SUCCESS or FAILURE, anything else SKIPPED.
    pub fn unlock(&self, payload: &str) -> Result<(), String> {
        let j: Json = serde_json::from_str(payload).map_err(|e| e.to_string())?;
        let (u, p) = (uid(&j)?, position(&j)?);
        let desired = match field(&j, "desired_status")?.as_str() {
            Some("SUCCESS") => "SUCCESS",
            Some("FAILURE") => "FAILURE",
            _ => "SKIPPED",
        };
        let remove = boolean(&j, "remove_when_done")?;
        let mut st = self.lock();
        let Some(h) = st.hooks.iter_mut().find(|h| h.uid == u && h.position == p) else {
            return Err("Node ID not found".into());
        };
        h.desired = desired;
        h.once |= remove;
        if h.mode == Mode::Breakpoint {
            h.ready = true;
        }
        drop(st);
        self.wake.notify_all();
        Ok(())
    }

    /// HOOKS_DUMP.
    pub fn dump(&self) -> String {
        let st = self.lock();
        Json::Array(st.hooks.iter().map(Hook::json).collect()).to_string()
    }

    /// REMOVE_ALL_HOOKS.
    pub fn clear(&self) {
        self.lock().hooks.clear();
        self.wake.notify_all();
    }

    /// DISABLE_ALL_HOOKS.
    pub fn disable_all(&self) {
        for h in &mut self.lock().hooks {
            h.enabled = false;
        }
        self.wake.notify_all();
    }

    /// Runs the hook at `uid` and `position`, if any: tells the client (`reached`), waits at a
    /// breakpoint until it is unlocked, and says what the node returns.
    pub fn at(&self, uid: u16, position: Position) -> Verdict {
        let mut st = self.lock();
        let find = |st: &HookState| {
            st.hooks
                .iter()
                .position(|h| h.uid == uid && h.position == position)
        };
        let alive = |st: &HookState| st.last_request.elapsed() < HEARTBEAT;
        let Some(i) = find(&st) else {
            return Verdict::Pass;
        };
        if !st.hooks[i].enabled || !alive(&st) {
            return Verdict::Pass;
        }
        self.reached(uid);
        if st.hooks[i].mode == Mode::Breakpoint {
            loop {
                let Some(i) = find(&st) else {
                    return Verdict::Pass;
                };
                let h = &st.hooks[i];
                if h.ready || !h.enabled || !alive(&st) {
                    break;
                }
                st = self
                    .wake
                    .wait_timeout(st, Duration::from_millis(100))
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        }
        let Some(i) = find(&st) else {
            return Verdict::Pass;
        };
        if !st.hooks[i].enabled || !alive(&st) {
            return Verdict::Pass;
        }
        st.hooks[i].ready = false;
        let desired = st.hooks[i].desired;
        if st.hooks[i].once {
            st.hooks.remove(i);
        }
        match desired {
            "SUCCESS" => Verdict::Force(true),
            "FAILURE" => Verdict::Force(false),
            _ => Verdict::Pass,
        }
    }
}

/// The hooks of an agent instance on its built-in nodes, for the interpreter
/// ([`affect_runtime::node_hooks`]). Node `n` is uid `n + 1`.
pub struct AroundNodes {
    pub hooks: std::sync::Arc<Hooks>,
    /// Per node: hooked here (every node but actions and conditions, which [`Hooked`] wraps).
    pub covered: Vec<bool>,
}

impl AroundNodes {
    fn verdict(&self, node: u32, position: Position) -> Option<Status> {
        match self.hooks.at(u16::try_from(node + 1).ok()?, position) {
            Verdict::Force(true) => Some(Status::Success),
            Verdict::Force(false) => Some(Status::Failure),
            Verdict::Pass => None,
        }
    }
}

impl affect_runtime::node_hooks::NodeHooks for AroundNodes {
    fn covers(&self, node: u32) -> bool {
        self.covered.get(node as usize).copied().unwrap_or(false)
    }

    fn pre(&self, node: u32) -> Option<Status> {
        self.verdict(node, Position::Pre)
    }

    fn post(&self, node: u32, _status: Status) -> Option<Status> {
        self.verdict(node, Position::Post)
    }
}

/// An action or condition with the agent's hooks around it.
pub struct Hooked {
    pub inner: Box<dyn affect_runtime::leaf::Leaf>,
    pub uid: u16,
    pub hooks: std::sync::Arc<Hooks>,
    /// Whether the inner leaf returned RUNNING last: a forced result ends the node, so the
    /// action underneath is halted (as the tree halts it), or it would go on from where it
    /// stood when the node starts again.
    pub running: bool,
}

impl Hooked {
    pub fn new(
        inner: Box<dyn affect_runtime::leaf::Leaf>,
        uid: u16,
        hooks: std::sync::Arc<Hooks>,
    ) -> Hooked {
        Hooked {
            inner,
            uid,
            hooks,
            running: false,
        }
    }

    fn forced(&mut self, ok: bool, now_ms: f64) -> Status {
        if std::mem::take(&mut self.running) {
            self.inner.halt(now_ms);
        }
        if ok {
            Status::Success
        } else {
            Status::Failure
        }
    }
}

impl affect_runtime::leaf::Leaf for Hooked {
    fn tick(&mut self, call: &mut affect_runtime::leaf::LeafCall) -> Status {
        if let Verdict::Force(ok) = self.hooks.at(self.uid, Position::Pre) {
            return self.forced(ok, call.now_ms);
        }
        let status = self.inner.tick(call);
        self.running = status == Status::Running;
        match self.hooks.at(self.uid, Position::Post) {
            Verdict::Force(ok) => self.forced(ok, call.now_ms),
            Verdict::Pass => status,
        }
    }

    fn halt(&mut self, now_ms: f64) {
        self.running = false;
        self.inner.halt(now_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const REPLACE: &str =
        r#"{"enabled":true,"uid":3,"mode":1,"once":true,"desired_status":"FAILURE","position":0}"#;

    #[test]
    fn hooks_are_refused_unless_allowed_and_only_on_nodes_of_the_tree() {
        let off = Hooks::new(false, vec![3]);
        assert!(off.insert(REPLACE).unwrap_err().contains("--groot2-hooks"));
        let on = Hooks::new(true, vec![5]);
        assert!(on
            .insert(REPLACE)
            .unwrap_err()
            .contains("not a node of this tree"));
        assert!(on.insert("{}").unwrap_err().contains("not found"));
    }

    #[test]
    fn a_replacing_hook_once_forces_one_result() {
        let h = Hooks::new(true, vec![3]);
        h.insert(REPLACE).unwrap();
        assert!(h.dump().contains(r#""desired_status":"FAILURE""#));
        let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = Arc::clone(&seen);
        h.set_notifier(Box::new(move |_| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }));
        assert_eq!(h.at(3, Position::Post), Verdict::Pass);
        assert_eq!(h.at(3, Position::Pre), Verdict::Force(false));
        assert_eq!(h.at(3, Position::Pre), Verdict::Pass);
        assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(h.dump(), "[]");
    }

    /// Always RUNNING; counts its halts.
    struct Busy(std::rc::Rc<std::cell::Cell<u32>>);

    impl affect_runtime::leaf::Leaf for Busy {
        fn tick(&mut self, _: &mut affect_runtime::leaf::LeafCall) -> Status {
            Status::Running
        }
        fn halt(&mut self, _: f64) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn a_forced_result_halts_the_running_action_underneath() {
        use affect_runtime::leaf::{Leaf, LeafCall};
        let halts = std::rc::Rc::new(std::cell::Cell::new(0));
        let h = Arc::new(Hooks::new(true, vec![3]));
        let mut node = Hooked::new(Box::new(Busy(halts.clone())), 3, h.clone());
        let mut lists = affect_runtime::lists::Lists::default();
        let mut tick = |node: &mut Hooked| {
            node.tick(&mut LeafCall {
                now_ms: 0.0,
                starting: false,
                inputs: &[],
                outputs: &mut [],
                lists: &mut lists,
            })
        };
        assert_eq!(tick(&mut node), Status::Running);
        h.insert(REPLACE).unwrap();
        assert_eq!(tick(&mut node), Status::Failure);
        assert_eq!(halts.get(), 1, "the action was running: it is halted");
        // Not running any more: a second forced result halts nothing.
        h.insert(REPLACE).unwrap();
        assert_eq!(tick(&mut node), Status::Failure);
        assert_eq!(halts.get(), 1);
    }

    #[test]
    fn a_breakpoint_waits_for_its_unlock() {
        let h = Arc::new(Hooks::new(true, vec![3]));
        h.insert(r#"{"enabled":true,"uid":3,"mode":0,"once":false,"desired_status":"SKIPPED","position":1}"#)
            .unwrap();
        let other = Arc::clone(&h);
        let unlocker = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            other
                .unlock(
                    r#"{"uid":3,"desired_status":"SUCCESS","position":1,"remove_when_done":true}"#,
                )
                .unwrap();
        });
        assert_eq!(h.at(3, Position::Post), Verdict::Force(true));
        unlocker.join().unwrap();
        assert!(h.is_empty());
        assert!(h
            .unlock(r#"{"uid":3,"desired_status":"SUCCESS","position":1,"remove_when_done":true}"#)
            .is_err());
    }
}
