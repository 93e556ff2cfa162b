//! Seed 001's autonomic components (Kramer and Scheutz, "ADE: A Framework for Robust Complex
//! Robotic Architectures"): every component sends a heartbeat; one silent for longer than its
//! timeout is failed; the supervisor then re-binds the component's users to a redundant
//! component that is alive, or restarts the component (on another host when the world
//! places components on hosts), within its restart allowance, and reports the recovery.
//!
//! Heartbeats are simulated, not sent: a running instance beats at `started + k·heartbeat`
//! until the world's script stops it (`fail C`), and the supervisor knows the last beat it
//! heard from that. A restarted instance is heard first one heartbeat after the restart; a
//! re-binding takes effect at the redundant component's next heartbeat (when the supervisor
//! hears it is alive), so a failure is always visible for a moment before it is repaired.
//!
//! What the program sees of a component is whether it is *served*: the component itself, or
//! the one its users were re-bound to, is alive. `failed(c)` is "not served"; every change of
//! that counts, so an agent that ticks rarely still sees a failure repaired between two of
//! its ticks. Nothing here panics: unknown indices answer "not failed".

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
    /// Restart times, for the `restart N within T` allowance.
    restarts: Vec<f64>,
    /// Redundant components, resolved.
    redundant: Vec<usize>,
    /// The unit serving this one's users: itself, or a redundant one.
    serving: usize,
    /// A re-binding that takes effect at `at` if `to` is still alive then.
    rebind: Option<(usize, f64)>,
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
}

/// Every component of a run.
#[derive(Clone, Debug, Default)]
pub struct Supervisor {
    units: Vec<Unit>,
    /// Host names, in the world's order: relocation tries them in this order.
    hosts: Vec<String>,
    /// What each host runs at the start.
    placement: Vec<(String, Vec<String>)>,
    notes: Vec<Note>,
}

impl Supervisor {
    /// A supervisor for hosts given as (name, components it runs).
    pub fn new(hosts: Vec<(String, Vec<String>)>) -> Supervisor {
        Supervisor {
            units: Vec::new(),
            hosts: hosts.iter().map(|(h, _)| h.clone()).collect(),
            placement: hosts,
            notes: Vec::new(),
        }
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
            .position(|(_, runs)| runs.iter().any(|c| *c == spec.name));
        self.units.push(Unit {
            spec,
            owner,
            host,
            health: Health::Alive,
            started_ms: 0.0,
            stopped_ms: None,
            restarts: Vec::new(),
            redundant: Vec::new(),
            serving: i,
            rebind: None,
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
        if let Some(u) = self.units.get_mut(unit) {
            if u.stopped_ms.is_none() {
                u.stopped_ms = Some(at_ms);
            }
        }
    }

    /// The world's script brings a component back at `at_ms` (`recover C`): it beats again
    /// from then on.
    pub fn resume(&mut self, unit: usize, at_ms: f64) {
        let Some(u) = self.units.get_mut(unit) else {
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
                });
            }
        }
    }

    /// Brings the units `mine` accepts up to `now_ms`: failure detection, restarts coming
    /// up, re-bindings, restarts. Changes go to `out`.
    pub fn update(&mut self, now_ms: f64, mine: &dyn Fn(&Unit) -> bool, out: &mut Vec<Note>) {
        out.append(&mut self.notes);
        for i in 0..self.units.len() {
            if !mine(&self.units[i]) {
                continue;
            }
            let u = &mut self.units[i];
            match u.health {
                Health::Alive => {
                    let heard = last_heard(u, now_ms);
                    if now_ms - heard > u.spec.timeout_ms {
                        u.health = Health::Failed;
                        out.push(Note {
                            unit: i,
                            change: Change::Failed {
                                silence_ms: now_ms - heard,
                            },
                        });
                    }
                }
                Health::Restarting { ready_at } if now_ms >= ready_at => {
                    u.health = Health::Alive;
                    u.started_ms = ready_at;
                    u.stopped_ms = None;
                    out.push(Note {
                        unit: i,
                        change: Change::Recovered,
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

    fn alive(&self, unit: usize) -> bool {
        self.units
            .get(unit)
            .is_some_and(|u| u.health == Health::Alive)
    }

    /// Keeps unit `i`'s users served: by itself when alive, else by a redundant unit, else
    /// by a restart.
    fn serve(&mut self, i: usize, now_ms: f64, out: &mut Vec<Note>) {
        let serving = self.units[i].serving;
        if self.alive(serving) {
            self.set_served(i, true);
            return;
        }
        self.set_served(i, false);
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
            // Users are re-bound once the backup's next heartbeat confirms it is alive.
            let at = next_beat(&self.units[r], now_ms);
            self.units[i].rebind = Some((r, at));
            return;
        }
        let u = &mut self.units[i];
        if !matches!(u.health, Health::Failed) {
            return;
        }
        let window = u.spec.restart_window_ms;
        u.restarts.retain(|t| now_ms - t < window);
        if (u.restarts.len() as u64) < u64::from(u.spec.restarts) {
            u.restarts.push(now_ms);
            u.exhausted = false;
            u.health = Health::Restarting {
                ready_at: now_ms + u.spec.heartbeat_ms,
            };
            u.stopped_ms = None;
            let host = relocate(u.host, self.hosts.len());
            u.host = host;
            out.push(Note {
                unit: i,
                change: Change::Restarted { host },
            });
        } else if u.spec.restarts > 0 && !u.exhausted {
            u.exhausted = true;
            out.push(Note {
                unit: i,
                change: Change::Abandoned,
            });
        }
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

/// A unit's first heartbeat after `now_ms`.
fn next_beat(u: &Unit, now_ms: f64) -> f64 {
    let hb = u.spec.heartbeat_ms.max(1.0);
    let k = ((now_ms - u.started_ms) / hb).floor() + 1.0;
    u.started_ms + k.max(0.0) * hb
}

/// The host a restarted component moves to: the next one in the world's order (ADE moves a
/// failed component off its host); in place when the world names no other.
fn relocate(host: Option<usize>, hosts: usize) -> Option<usize> {
    match host {
        Some(h) if hosts > 1 => Some((h + 1) % hosts),
        other => other,
    }
}
