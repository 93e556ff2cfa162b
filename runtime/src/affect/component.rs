//! Seed 001's autonomic components (Kramer and Scheutz, "ADE: A Framework for Robust Complex
//! Robotic Architectures"): every component sends a heartbeat; one silent for longer than its
//! timeout is failed; the supervisor then re-binds the component's users to a redundant
//! component that is alive, or restarts the component (on another host when the world
//! places components on hosts), within its restart allowance, and reports the recovery.
//!
//! Relocation is the seed's host search: the world's hosts in its order (preferred first),
//! the component's own host last, skipping hosts that lack the hardware its `device` needs
//! (when the world says what hosts have) and hosts that are down (every component on them
//! found failed); each host with the hardware passed over for being down costs the
//! component's `lookup` time. With no host to go to, it waits and the search is tried again.
//!
//! Heartbeats are simulated, not sent: a running instance beats at `started + k·heartbeat`
//! until the world's script stops it (`fail C`), and the supervisor knows the last beat it
//! heard from that. What follows a failure in simulation is ADE's chain (`renewal.rs`): the
//! registry's reaper takes the silent instance out (and only then restarts it, for its
//! `lookup`s and `startup` time), and the users, who found it silent, get an instance again
//! through their renewal rounds (a redundant one, or the restarted one once it has
//! started). Over a network (`observe`), heartbeats are heard instead, a redundant instance
//! takes over as soon as it is heard, and a restart is done when the new process is heard.
//!
//! What the program sees of a component is whether it is *served*: the component itself, or
//! the one its users were re-bound to, is alive. `failed(c)` is "not served"; every change of
//! that counts, so an agent that ticks rarely still sees a failure repaired between two of
//! its ticks. Nothing here panics: unknown indices answer "not failed".

use super::renewal::{removal_time, Removal, Renewal};
use affect_compiler::ir::program::ComponentSpec;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Health {
    Alive,
    /// Found silent.
    Failed,
    /// A new instance is starting; its first heartbeat comes at `ready_at`.
    Restarting {
        ready_at: f64,
    },
}

/// One component instance and the service of its users.
#[derive(Clone, Debug)]
pub struct Unit {
    pub spec: ComponentSpec,
    /// Whose it is: an agent instance's index, or `None` for a top-level component.
    pub owner: Option<usize>,
    /// The host it runs on (an index into the hosts given to the supervisor).
    pub host: Option<usize>,
    health: Health,
    /// When the running instance started beating.
    started_ms: f64,
    /// The script stopped its heartbeats at this time.
    stopped_ms: Option<f64>,
    /// Heard over a network ([`Supervisor::observe`]): it runs on a host of its own.
    remote: bool,
    /// The last heartbeat heard over the network.
    heard_ms: f64,
    /// When it was last found failed.
    down_ms: f64,
    /// Restart times, for the `restart N within T` allowance.
    restarts: Vec<f64>,
    /// Redundant components, resolved.
    redundant: Vec<usize>,
    /// The unit serving this one's users: itself, or a redundant one.
    serving: usize,
    /// Networked: a re-binding that takes effect at `at` if `to` is still alive then.
    rebind: Option<(usize, f64)>,
    /// Simulated: when the registry takes this instance out after it fell silent.
    removal: Option<Removal>,
    /// Simulated: the users' renewal of their connection, while they are without service.
    renewal: Option<Renewal>,
    served: bool,
    /// How often the service was lost and regained.
    failures: u32,
    recoveries: u32,
    /// The restart allowance ran out and was reported.
    exhausted: bool,
}

/// A change worth a trace line.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// Silent for `silence_ms`, longer than its timeout.
    Failed { silence_ms: f64 },
    /// Its users now use unit `to`.
    Rebound { to: usize },
    /// A new instance was started on `host` (an index into the hosts).
    Restarted { host: Option<usize> },
    /// It beats again (restarted, or brought back by the world).
    Recovered,
    /// Failed again with no restart left in its allowance.
    Abandoned,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub unit: usize,
    pub change: Change,
    /// The host the unit ran on when it changed.
    pub host: Option<usize>,
}

/// Every component of a run.
#[derive(Clone, Debug, Default)]
pub struct Supervisor {
    units: Vec<Unit>,
    /// Host names, in the world's order: relocation tries them in this order.
    hosts: Vec<String>,
    /// What each host runs at the start.
    placement: Vec<(String, Vec<String>)>,
    /// The hardware of each host, in the world's order; empty when the world gives none (then
    /// any host can run any component).
    hardware: Vec<Vec<String>>,
    notes: Vec<Note>,
    /// Heartbeats of components placed on hosts are heard over a network
    /// ([`Supervisor::heard`], [`Supervisor::lost`]) instead of simulated.
    observed: bool,
}

/// How long a restart may take over a network before it counts as failed (world time).
pub const RESTART_WAIT_MS: f64 = 30_000.0;

impl Supervisor {
    /// A supervisor for hosts given as (name, components it runs).
    pub fn new(hosts: Vec<(String, Vec<String>)>) -> Supervisor {
        Supervisor {
            units: Vec::new(),
            hosts: hosts.iter().map(|(h, _)| h.clone()).collect(),
            placement: hosts,
            hardware: Vec::new(),
            notes: Vec::new(),
            observed: false,
        }
    }

    /// The hardware of each host, in the order of [`Supervisor::new`]'s hosts
    /// (`host laptop1 runs [..] has [microphone, speaker];`). When no host has any, hardware
    /// is not checked.
    pub fn with_hardware(mut self, hardware: Vec<Vec<String>>) -> Supervisor {
        self.hardware = if hardware.iter().all(Vec::is_empty) {
            Vec::new()
        } else {
            hardware
        };
        self
    }

    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    pub fn host_name(&self, host: Option<usize>) -> Option<&str> {
        host.and_then(|h| self.hosts.get(h)).map(String::as_str)
    }

    /// Adds a component, alive and beating from time 0, on the host that runs it.
    pub fn add(&mut self, spec: ComponentSpec, owner: Option<usize>) -> usize {
        let i = self.units.len();
        let host = self
            .placement
            .iter()
            .position(|(_, runs)| runs.contains(&spec.name));
        self.units.push(Unit {
            spec,
            owner,
            host,
            health: Health::Alive,
            started_ms: 0.0,
            stopped_ms: None,
            remote: false,
            heard_ms: 0.0,
            down_ms: f64::NEG_INFINITY,
            restarts: Vec::new(),
            redundant: Vec::new(),
            serving: i,
            rebind: None,
            removal: None,
            renewal: None,
            served: true,
            failures: 0,
            recoveries: 0,
            exhausted: false,
        });
        i
    }

    /// The unit a name means to an owner: its own component, else the top-level one.
    pub fn find(&self, owner: Option<usize>, name: &str) -> Option<usize> {
        self.units
            .iter()
            .position(|u| u.owner == owner && owner.is_some() && u.spec.name == name)
            .or_else(|| {
                self.units
                    .iter()
                    .position(|u| u.owner.is_none() && u.spec.name == name)
            })
    }

    /// Resolves every unit's `redundant` names (call once all units are added).
    pub fn link(&mut self) {
        for i in 0..self.units.len() {
            let (owner, names) = (self.units[i].owner, self.units[i].spec.redundant.clone());
            let resolved: Vec<usize> = names
                .iter()
                .filter_map(|n| self.find(owner, n))
                .filter(|&r| r != i)
                .collect();
            self.units[i].redundant = resolved;
        }
    }

    /// The world's script stops a component's heartbeats at `at_ms` (`fail C`).
    pub fn stop(&mut self, unit: usize, at_ms: f64) {
        if let Some(u) = self.units.get_mut(unit).filter(|u| !u.remote) {
            if u.stopped_ms.is_none() {
                u.stopped_ms = Some(at_ms);
            }
        }
    }

    /// The world's script brings a component back at `at_ms` (`recover C`): it beats again
    /// from then on.
    pub fn resume(&mut self, unit: usize, at_ms: f64) {
        let Some(u) = self.units.get_mut(unit).filter(|u| !u.remote) else {
            return;
        };
        match u.health {
            Health::Alive => {
                // Stopped, but not yet found silent: the heartbeat simply goes on.
                if u.stopped_ms.take().is_some() {
                    u.started_ms = at_ms;
                }
            }
            Health::Failed | Health::Restarting { .. } => {
                u.health = Health::Alive;
                u.stopped_ms = None;
                u.started_ms = at_ms;
                self.notes.push(Note {
                    unit,
                    change: Change::Recovered,
                    host: u.host,
                });
            }
        }
    }

    /// From now on the heartbeats of components placed on hosts are heard over a network,
    /// not simulated: such a unit is alive while it is heard within its timeout, and a
    /// restart is done when the new instance is heard. A component placed on no host runs
    /// with its owner and stays simulated.
    pub fn observe(&mut self) {
        self.observed = true;
        for u in &mut self.units {
            u.remote = u.host.is_some();
        }
    }

    /// Whether a unit's heartbeats are heard over a network.
    pub fn is_remote(&self, unit: usize) -> bool {
        self.units.get(unit).is_some_and(|u| u.remote)
    }

    /// The index of a host by name.
    pub fn host_index(&self, name: &str) -> Option<usize> {
        self.hosts.iter().position(|h| h == name)
    }

    /// A heartbeat of `unit` heard at `at_ms`, from `host` when the sender says. A failed or
    /// restarting unit that is heard again is back.
    pub fn heard(&mut self, unit: usize, at_ms: f64, host: Option<usize>) {
        let Some(u) = self.units.get_mut(unit) else {
            return;
        };
        // A heartbeat sent before the failure was found (late, by another link) brings
        // nothing back.
        if u.health != Health::Alive && at_ms < u.down_ms {
            return;
        }
        u.heard_ms = u.heard_ms.max(at_ms);
        if host.is_some() {
            u.host = host;
        }
        if u.health != Health::Alive {
            u.health = Health::Alive;
            u.started_ms = at_ms;
            self.notes.push(Note {
                unit,
                change: Change::Recovered,
                host: u.host,
            });
        }
    }

    /// The network says `unit` is gone (its liveliness token was withdrawn: the process died
    /// or its link broke): failed now, without waiting for the timeout.
    pub fn lost(&mut self, unit: usize, at_ms: f64) {
        let Some(u) = self.units.get_mut(unit) else {
            return;
        };
        if u.health == Health::Alive {
            u.health = Health::Failed;
            u.down_ms = at_ms;
            self.notes.push(Note {
                unit,
                change: Change::Failed {
                    silence_ms: (at_ms - u.heard_ms).max(0.0),
                },
                host: u.host,
            });
        }
    }

    /// Brings the units `mine` accepts up to `now_ms`: failure detection, restarts coming
    /// up, re-bindings, restarts. Changes go to `out`.
    pub fn update(&mut self, now_ms: f64, mine: &dyn Fn(&Unit) -> bool, out: &mut Vec<Note>) {
        out.append(&mut self.notes);
        let reaper = self.reaper_period();
        for i in 0..self.units.len() {
            if !mine(&self.units[i]) {
                continue;
            }
            let u = &mut self.units[i];
            match u.health {
                Health::Alive => {
                    let heard = if u.remote {
                        u.heard_ms
                    } else {
                        last_heard(u, now_ms)
                    };
                    if now_ms - heard > u.spec.timeout_ms {
                        u.health = Health::Failed;
                        u.down_ms = now_ms;
                        if !u.remote {
                            u.removal = Some(removal_time(heard, reaper, u.spec.confirm_ms));
                        }
                        out.push(Note {
                            unit: i,
                            change: Change::Failed {
                                silence_ms: now_ms - heard,
                            },
                            host: u.host,
                        });
                    }
                }
                // Over a network the new instance is only back when it is heard.
                Health::Restarting { ready_at } if now_ms >= ready_at && u.remote => {
                    u.health = Health::Failed;
                    out.push(Note {
                        unit: i,
                        change: Change::Failed {
                            silence_ms: now_ms - u.heard_ms,
                        },
                        host: u.host,
                    });
                }
                Health::Restarting { ready_at } if now_ms >= ready_at => {
                    u.health = Health::Alive;
                    u.started_ms = ready_at;
                    u.stopped_ms = None;
                    out.push(Note {
                        unit: i,
                        change: Change::Recovered,
                        host: u.host,
                    });
                }
                _ => {}
            }
        }
        for i in 0..self.units.len() {
            if mine(&self.units[i]) {
                self.serve(i, now_ms, out);
            }
        }
    }

    /// How often the registry's reaper checks the instances: twice the longest heartbeat
    /// (ADE: `RegistryReaper.setPeriod`).
    fn reaper_period(&self) -> f64 {
        2.0 * self
            .units
            .iter()
            .map(|u| u.spec.heartbeat_ms)
            .fold(1.0, f64::max)
    }

    fn alive(&self, unit: usize) -> bool {
        self.units
            .get(unit)
            .is_some_and(|u| u.health == Health::Alive)
    }

    /// Whether `unit` is alive and registered with the registry by `at_ms` (a restarted
    /// instance registers when it has started).
    fn registered(&self, unit: usize, at_ms: f64) -> bool {
        self.units
            .get(unit)
            .is_some_and(|u| u.health == Health::Alive && u.started_ms <= at_ms)
    }

    /// Keeps unit `i`'s users served: by itself when alive, else by a redundant unit, else
    /// by a restart. Simulated users get a new instance only through their renewal (see
    /// `renewal.rs`); networked ones as soon as one is heard.
    fn serve(&mut self, i: usize, now_ms: f64, out: &mut Vec<Note>) {
        let serving = self.units[i].serving;
        if self.units[i].renewal.is_none() && self.alive(serving) {
            self.set_served(i, true);
            return;
        }
        self.set_served(i, false);
        if self.units[i].remote || self.units[serving].remote {
            self.serve_heard(i, now_ms, out);
            return;
        }
        let removed = self.units[i].removal.is_some_and(|d| now_ms >= d.at);
        let backup = self.units[i].redundant.iter().any(|&r| self.alive(r));
        if removed && !backup && self.units[i].health == Health::Failed {
            // The registry takes the silent instance out and starts a new one.
            self.restart(i, now_ms, out);
        }
        self.renew(i, now_ms, out);
    }

    /// Simulated users without service: their renewal's rounds due by `now_ms`.
    fn renew(&mut self, i: usize, now_ms: f64, out: &mut Vec<Note>) {
        let lost = self.units[i].serving;
        let mut renewal = match self.units[i].renewal.take() {
            Some(r) if r.lost == lost => r,
            _ => {
                let u = &self.units[lost];
                Renewal::start(lost, u.down_ms, u.spec.heartbeat_ms)
            }
        };
        let got = renewal.advance(
            now_ms,
            self.units[lost].spec.heartbeat_ms,
            self.units[lost].removal,
            &|t| self.registered(lost, t),
            &|t| {
                if self.registered(i, t) {
                    return Some(i);
                }
                self.units[i]
                    .redundant
                    .iter()
                    .copied()
                    .find(|&r| r != lost && self.registered(r, t))
            },
        );
        let Some((to, _)) = got else {
            self.units[i].renewal = Some(renewal);
            return;
        };
        self.units[i].serving = to;
        self.set_served(i, true);
        if to != i && to != lost {
            out.push(Note {
                unit: i,
                change: Change::Rebound { to },
                host: self.units[i].host,
            });
        }
    }

    /// Networked users: re-bound to a redundant unit as soon as it is heard, else the
    /// component is restarted.
    fn serve_heard(&mut self, i: usize, now_ms: f64, out: &mut Vec<Note>) {
        let serving = self.units[i].serving;
        if self.alive(i) {
            // Its own instance is back (restarted, or recovered by the world).
            self.units[i].serving = i;
            self.units[i].rebind = None;
            self.set_served(i, true);
            return;
        }
        if let Some((to, at)) = self.units[i].rebind {
            if now_ms < at {
                return;
            }
            self.units[i].rebind = None;
            if self.alive(to) {
                self.units[i].serving = to;
                self.set_served(i, true);
                out.push(Note {
                    unit: i,
                    change: Change::Rebound { to },
                    host: self.units[i].host,
                });
                return;
            }
        }
        let backup = self.units[i]
            .redundant
            .iter()
            .copied()
            .find(|&r| r != serving && self.alive(r));
        if let Some(r) = backup {
            // Heard within its timeout: re-bound at once.
            self.units[i].rebind = Some((r, now_ms));
            return;
        }
        if matches!(self.units[i].health, Health::Failed) {
            self.restart(i, now_ms, out);
        }
    }

    /// Starts a new instance of failed unit `i` on a host that can take it, within its
    /// restart allowance; reports an exhausted allowance once.
    fn restart(&mut self, i: usize, now_ms: f64, out: &mut Vec<Note>) {
        let window = self.units[i].spec.restart_window_ms;
        self.units[i].restarts.retain(|t| now_ms - t < window);
        let u = &self.units[i];
        if (u.restarts.len() as u64) < u64::from(u.spec.restarts) {
            let Some((host, passed)) = self.relocate(i) else {
                // No host can take it now: it stays failed and the search runs again.
                return;
            };
            let u = &mut self.units[i];
            u.restarts.push(now_ms);
            u.exhausted = false;
            u.health = Health::Restarting {
                ready_at: now_ms
                    + if u.remote {
                        // Networked restarts are heard, not timed: the launcher starts the
                        // process after `startup`, then it has the usual wait to be heard.
                        u.spec.startup_ms + RESTART_WAIT_MS.max(u.spec.timeout_ms)
                    } else {
                        // Each host passed over for not answering costs a `lookup`; the new
                        // instance registers once it has started.
                        passed as f64 * u.spec.lookup_ms + u.spec.startup_ms
                    },
            };
            u.stopped_ms = None;
            u.host = host;
            out.push(Note {
                unit: i,
                change: Change::Restarted { host },
                host,
            });
        } else if u.spec.restarts > 0 && !u.exhausted {
            let u = &mut self.units[i];
            u.exhausted = true;
            out.push(Note {
                unit: i,
                change: Change::Abandoned,
                host: u.host,
            });
        }
    }

    /// The host a failed unit is restarted on (see the module's note), and how many hosts
    /// with its hardware the search passed over because they did not answer: `Some((None,
    /// 0))` when it runs on no host (it restarts in place), `None` when no host can take it
    /// now.
    fn relocate(&self, i: usize) -> Option<(Option<usize>, usize)> {
        let u = &self.units[i];
        let Some(own) = u.host else {
            return Some((None, 0));
        };
        let mut passed = 0;
        let others = (0..self.hosts.len()).filter(|&h| h != own);
        for h in others.chain(std::iter::once(own)) {
            if !self.can_run(h, &u.spec) {
                continue;
            }
            if self.host_up(h, i) {
                return Some((Some(h), passed));
            }
            passed += 1;
        }
        None
    }

    /// Whether host `h` has the hardware a component needs.
    fn can_run(&self, h: usize, spec: &ComponentSpec) -> bool {
        match (&spec.device, self.hardware.get(h)) {
            (Some(device), Some(has)) => has.contains(device),
            (Some(_), None) => self.hardware.is_empty(),
            (None, _) => true,
        }
    }

    /// Whether host `h` answers: some component on it other than `except` is alive, or it
    /// runs none (nothing says it is down).
    fn host_up(&self, h: usize, except: usize) -> bool {
        let mut on = self
            .units
            .iter()
            .enumerate()
            .filter(|(j, u)| *j != except && u.host == Some(h))
            .peekable();
        on.peek().is_none() || on.any(|(_, u)| u.health == Health::Alive)
    }

    fn set_served(&mut self, i: usize, served: bool) {
        let u = &mut self.units[i];
        if u.served != served {
            u.served = served;
            if served {
                u.recoveries += 1;
            } else {
                u.failures += 1;
            }
        }
    }

    /// The unit serving a unit's users now (itself or a redundant one); `None` while they
    /// are without service.
    pub fn serving(&self, unit: usize) -> Option<usize> {
        self.units.get(unit).filter(|u| u.served).map(|u| u.serving)
    }

    /// Whether a unit's users are without service (`failed(c)`).
    pub fn failed(&self, unit: usize) -> bool {
        self.units.get(unit).is_some_and(|u| !u.served)
    }

    /// How often a unit's service was lost and regained, for edge detection.
    pub fn counts(&self, unit: usize) -> (u32, u32) {
        self.units
            .get(unit)
            .map_or((0, 0), |u| (u.failures, u.recoveries))
    }
}

/// The last heartbeat heard from a unit by `now_ms`: beats at `started + k·heartbeat`, none
/// from the moment the script stopped it.
fn last_heard(u: &Unit, now_ms: f64) -> f64 {
    let hb = u.spec.heartbeat_ms.max(1.0);
    let (until, strict) = match u.stopped_ms {
        Some(s) if s <= now_ms => (s, true),
        _ => (now_ms, false),
    };
    let span = until - u.started_ms;
    if span <= 0.0 {
        return u.started_ms;
    }
    let mut k = (span / hb).floor();
    // Stopped at the very moment of a beat: that beat never went out.
    if strict && k >= 1.0 && u.started_ms + k * hb >= until {
        k -= 1.0;
    }
    u.started_ms + k * hb
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, hb: f64, timeout: f64) -> ComponentSpec {
        ComponentSpec {
            heartbeat_ms: hb,
            timeout_ms: timeout,
            ..ComponentSpec::named(name)
        }
    }

    /// Updates every unit each `step` ms from `from` to `to` (inclusive); returns the changes
    /// with their times.
    fn run(s: &mut Supervisor, from: f64, to: f64, step: f64) -> Vec<(f64, Note)> {
        let mut out = Vec::new();
        let mut t = from;
        while t <= to {
            let mut notes = Vec::new();
            s.update(t, &|_| true, &mut notes);
            out.extend(notes.into_iter().map(|n| (t, n)));
            t += step;
        }
        out
    }

    #[test]
    fn a_silent_component_is_found_failed_once_its_timeout_has_passed() {
        let mut s = Supervisor::default();
        let lidar = s.add(spec("lidar", 100.0, 300.0), Some(0));
        s.link();
        // Stopped at 1000 ms, on a beat that therefore never went out: last heard at 900.
        s.stop(lidar, 1000.0);
        assert!(
            run(&mut s, 0.0, 1200.0, 10.0).is_empty(),
            "300 ms of silence is not more than 300 ms"
        );
        let changes = run(&mut s, 1201.0, 1201.0, 10.0);
        assert_eq!(
            changes,
            [(
                1201.0,
                Note {
                    unit: lidar,
                    change: Change::Failed { silence_ms: 301.0 },
                    host: None
                }
            )]
        );
        assert!(s.failed(lidar));
        assert_eq!(s.counts(lidar), (1, 0));
        // No restart, no backup: it stays failed until the world brings it back.
        assert!(run(&mut s, 1300.0, 5000.0, 100.0).is_empty());
        s.resume(lidar, 5050.0);
        let changes = run(&mut s, 5100.0, 5100.0, 1.0);
        assert_eq!(changes[0].1.change, Change::Recovered);
        // Its users' renewal asks every heartbeat (from 1301): at 5101 they have it again.
        assert!(s.failed(lidar));
        assert!(run(&mut s, 5101.0, 5101.0, 1.0).is_empty());
        assert!(!s.failed(lidar));
        assert_eq!(s.counts(lidar), (1, 1));
        // Beating again from 5050: fine for as long as it goes on.
        assert!(run(&mut s, 5200.0, 9000.0, 100.0).is_empty());
    }

    #[test]
    fn restarts_go_to_another_host_within_the_allowance() {
        let mut s = Supervisor::new(vec![
            ("laptop1".into(), vec![]),
            ("laptop2".into(), vec!["speech".into()]),
        ]);
        let speech = s.add(
            ComponentSpec {
                restarts: 2,
                restart_window_ms: 10_000.0,
                ..spec("speech", 500.0, 1500.0)
            },
            Some(0),
        );
        s.link();
        assert_eq!(s.host_name(s.units()[speech].host), Some("laptop2"));
        s.stop(speech, 40_000.0);
        let changes = run(&mut s, 39_900.0, 42_000.0, 100.0);
        let kinds: Vec<(f64, &Change)> = changes.iter().map(|(t, n)| (*t, &n.change)).collect();
        // Last beat at 39 500; the registry's reaper (every 1 s, twice the heartbeat) took
        // it out at 41 000, so once its users find it silent (41 100) it is restarted on the
        // other laptop; no start-up time: up at the next update; the users' renewal, a
        // heartbeat after they found it silent, gets it (41 600).
        assert_eq!(
            kinds,
            [
                (41_100.0, &Change::Failed { silence_ms: 1600.0 }),
                (41_100.0, &Change::Restarted { host: Some(0) }),
                (41_200.0, &Change::Recovered),
            ]
        );
        assert_eq!(s.host_name(s.units()[speech].host), Some("laptop1"));
        assert!(!s.failed(speech));
        // Fails again: the second restart of the window.
        s.stop(speech, 43_000.0);
        let changes = run(&mut s, 42_100.0, 46_000.0, 100.0);
        // Now on laptop1, it moves back to laptop2 (the first host but its own).
        assert!(changes
            .iter()
            .any(|(_, n)| n.change == Change::Restarted { host: Some(1) }));
        // A third failure within 10 s of the first restart: the allowance is spent.
        s.stop(speech, 47_000.0);
        let changes = run(&mut s, 46_100.0, 50_000.0, 100.0);
        let kinds: Vec<&Change> = changes.iter().map(|(_, n)| &n.change).collect();
        assert!(
            matches!(kinds[..], [Change::Failed { .. }, Change::Abandoned]),
            "{kinds:?}"
        );
        assert!(s.failed(speech));
        assert!(
            run(&mut s, 50_100.0, 51_000.0, 100.0).is_empty(),
            "reported once"
        );
        // Once the window has moved past the old restarts, it may restart again.
        let changes = run(&mut s, 51_100.0, 52_000.0, 100.0);
        assert!(changes
            .iter()
            .any(|(_, n)| matches!(n.change, Change::Restarted { .. })));
    }

    #[test]
    fn users_renew_to_a_live_redundant_component_once_the_registry_has_dropped_the_silent_one() {
        let mut s = Supervisor::default();
        let lidar = s.add(
            ComponentSpec {
                redundant: vec!["lidar_backup".into()],
                restarts: 3,
                restart_window_ms: 10_000.0,
                ..spec("lidar", 100.0, 300.0)
            },
            Some(0),
        );
        let backup = s.add(spec("lidar_backup", 250.0, 750.0), Some(0));
        s.link();
        s.stop(lidar, 1000.0);
        let changes = run(&mut s, 0.0, 2200.0, 10.0);
        let kinds: Vec<(f64, &Change)> = changes.iter().map(|(t, n)| (*t, &n.change)).collect();
        // Found failed at 1210 (the first update after 1200). The reaper (every 500 ms, twice
        // the backup's heartbeat) takes it out at 1500 and tells the users at 2000. Their
        // renewal: 1310 still listed; 1410 and 1710 ask for it by name, each round waiting out
        // the calls to it; 1910's calls end at 2010, after the registry told them; 2110 gets
        // the backup. No restart is needed.
        assert_eq!(
            kinds,
            [
                (1210.0, &Change::Failed { silence_ms: 310.0 }),
                (2110.0, &Change::Rebound { to: backup }),
            ]
        );
        assert!(!s.failed(lidar));
        assert_eq!(s.counts(lidar), (1, 1));
        // The backup fails too: nothing to re-bind to, so the lidar itself is restarted.
        s.stop(backup, 3000.0);
        let changes = run(&mut s, 2010.0, 4500.0, 10.0);
        let kinds: Vec<&Change> = changes.iter().map(|(_, n)| &n.change).collect();
        assert!(
            kinds.contains(&&Change::Restarted { host: None }),
            "{kinds:?}"
        );
        assert!(!s.failed(lidar), "restarted and heard again");
        assert_eq!(s.counts(lidar), (2, 2));
        assert!(s.failed(backup));
    }

    /// Seed 001's hosts: Laptop-1 first (preferred), the on-board PC without a microphone.
    fn three_hosts() -> Supervisor {
        Supervisor::new(vec![
            ("laptop1".into(), vec!["interpreter".into()]),
            ("onboard".into(), vec!["laser".into()]),
            ("laptop2".into(), vec!["speech".into(), "tts".into()]),
        ])
        .with_hardware(vec![
            vec!["microphone".into()],
            vec!["sick_laser".into()],
            vec!["microphone".into()],
        ])
    }

    fn speech(name: &str, startup_ms: f64) -> ComponentSpec {
        ComponentSpec {
            restarts: 3,
            restart_window_ms: 60_000.0,
            startup_ms,
            device: Some("microphone".into()),
            ..spec(name, 500.0, 1500.0)
        }
    }

    #[test]
    fn a_restart_takes_its_startup_time_on_a_host_with_the_hardware_that_is_up() {
        let mut s = three_hosts();
        let interpreter = s.add(spec("interpreter", 1000.0, 3000.0), Some(0));
        s.add(spec("laser", 100.0, 300.0), Some(0));
        let sr = s.add(speech("speech", 20_000.0), Some(0));
        s.add(speech("tts", 20_000.0), Some(0));
        s.link();
        s.stop(sr, 40_000.0);
        let changes = run(&mut s, 39_900.0, 70_000.0, 100.0);
        let kinds: Vec<(f64, &Change)> = changes.iter().map(|(t, n)| (*t, &n.change)).collect();
        // The reaper (every 2 s, twice the interpreter's heartbeat) takes it out at 42 s;
        // Laptop-1 has a microphone and is up: there, after 20 s of start-up.
        assert_eq!(
            kinds,
            [
                (41_100.0, &Change::Failed { silence_ms: 1600.0 }),
                (42_000.0, &Change::Restarted { host: Some(0) }),
                (62_000.0, &Change::Recovered),
            ]
        );
        // Its users' renewal asked every 500 ms from 41 600 and got it at 62 100.
        assert!(!s.failed(sr));
        assert_eq!(s.counts(sr), (1, 1));
        // Laptop-1 goes down (the interpreter is found silent first); the on-board PC has no
        // microphone, so it goes back to Laptop-2, up all along (speech production beats).
        s.stop(interpreter, 77_000.0);
        s.stop(sr, 80_000.0);
        let changes = run(&mut s, 70_100.0, 90_000.0, 100.0);
        assert!(
            changes
                .iter()
                .any(|(_, n)| n.change == Change::Restarted { host: Some(2) }),
            "{changes:?}"
        );
    }

    #[test]
    fn each_host_passed_over_for_not_answering_costs_a_lookup() {
        let mut s = three_hosts();
        let interpreter = s.add(spec("interpreter", 1000.0, 3000.0), Some(0));
        let sr = s.add(
            ComponentSpec {
                lookup_ms: 1000.0,
                ..speech("speech", 0.0)
            },
            Some(0),
        );
        s.add(speech("tts", 0.0), Some(0));
        s.link();
        // Laptop-1 is down (its interpreter found silent at 11.1 s); speech recognition falls
        // silent on Laptop-2, taken out by the reaper at 14 s.
        s.stop(interpreter, 8_000.0);
        s.stop(sr, 12_000.0);
        let changes = run(&mut s, 11_000.0, 16_000.0, 100.0);
        let kinds: Vec<(f64, &Change)> = changes
            .iter()
            .filter(|(_, n)| n.unit == sr)
            .map(|(t, n)| (*t, &n.change))
            .collect();
        // Laptop-1 has a microphone but does not answer: 1 s to find out; the on-board PC has
        // none; Laptop-2 answers (speech production beats there).
        assert_eq!(
            kinds,
            [
                (13_100.0, &Change::Failed { silence_ms: 1600.0 }),
                (14_000.0, &Change::Restarted { host: Some(2) }),
                (15_000.0, &Change::Recovered),
            ]
        );
    }

    #[test]
    fn with_no_host_up_a_restart_waits_for_one() {
        let mut s = three_hosts();
        let sr = s.add(speech("speech", 0.0), Some(0));
        let tts = s.add(speech("tts", 0.0), Some(0));
        let interpreter = s.add(spec("interpreter", 1000.0, 3000.0), Some(0));
        s.link();
        // Both laptops fall silent (Laptop-1's interpreter is found silent first): the only
        // hosts with a microphone are down.
        s.stop(interpreter, 7_000.0);
        s.stop(sr, 10_000.0);
        s.stop(tts, 10_000.0);
        let changes = run(&mut s, 6_000.0, 20_000.0, 100.0);
        assert!(
            changes
                .iter()
                .all(|(_, n)| !matches!(n.change, Change::Restarted { .. })),
            "{changes:?}"
        );
        assert!(s.failed(sr) && s.failed(tts));
        // Laptop-1 comes back: the search finds it, and both restart there.
        s.resume(interpreter, 20_050.0);
        let changes = run(&mut s, 20_100.0, 21_000.0, 100.0);
        let restarted: Vec<usize> = changes
            .iter()
            .filter(|(_, n)| n.change == Change::Restarted { host: Some(0) })
            .map(|(_, n)| n.unit)
            .collect();
        assert_eq!(restarted, [sr, tts]);
        assert!(!s.failed(sr) && !s.failed(tts));
    }

    #[test]
    fn names_resolve_to_the_owners_component_before_the_shared_one() {
        let mut s = Supervisor::default();
        let shared = s.add(ComponentSpec::named("registry"), None);
        let own = s.add(ComponentSpec::named("registry"), Some(1));
        assert_eq!(s.find(Some(1), "registry"), Some(own));
        assert_eq!(s.find(Some(0), "registry"), Some(shared));
        assert_eq!(s.find(None, "registry"), Some(shared));
        assert_eq!(s.find(Some(0), "nothing"), None);
        // Unknown units are never failed, and nothing panics.
        assert!(!s.failed(99));
        s.stop(99, 0.0);
        s.resume(99, 0.0);
    }
}
