//! Which agents of an area stand near a point: a uniform grid of buckets one body wide over
//! the area, each listing the agents whose centre lies in it. A body can only touch bodies
//! whose centres are within one side of its own, so a collision check looks at the 3 × 3
//! buckets around it instead of the whole team (1,000 robots used to cost 1,000² checks a
//! tick). Hand-written: the query is a box over fixed-size buckets, which a general R-tree
//! crate would answer no better, and a bucket's order must not depend on hashing.
//!
//! Deterministic: a query hands out candidates, and every caller decides by agent id (the
//! lowest one wins), never by bucket order, so the results are those of a scan in id order.

use super::{AgentId, Point};

/// At most this many buckets, however small the bodies are against the area.
const MAX_BUCKETS: f64 = (1u64 << 20) as f64;

#[derive(Debug, Default)]
pub(super) struct Buckets {
    /// Side of a bucket in metres (at least a body's side).
    side: f64,
    cols: usize,
    rows: usize,
    buckets: Vec<Vec<AgentId>>,
    /// The bucket each agent is in, by agent index.
    of: Vec<usize>,
}

impl Buckets {
    /// Buckets over a `width` × `height` area for bodies of side `body` (all positive).
    pub(super) fn new(width: f64, height: f64, body: f64) -> Buckets {
        let side = body.max((width * height / MAX_BUCKETS).sqrt());
        let count = |len: f64| ((len / side).ceil() as usize).max(1);
        let (cols, rows) = (count(width), count(height));
        Buckets {
            side,
            cols,
            rows,
            buckets: vec![Vec::new(); cols * rows],
            of: Vec::new(),
        }
    }

    /// The column or row of a coordinate, clamped to the grid (bodies placed off the area by
    /// another process still land in an edge bucket, which every query that could reach them
    /// also covers).
    fn index(&self, v: f64, n: usize) -> usize {
        let i = (v / self.side).floor();
        if i >= n as f64 {
            n - 1
        } else if i > 0.0 {
            i as usize
        } else {
            0
        }
    }

    fn bucket(&self, p: Point) -> usize {
        self.index(p.y, self.rows) * self.cols + self.index(p.x, self.cols)
    }

    /// Adds an agent (agents are added in id order, once each).
    pub(super) fn insert(&mut self, id: AgentId, p: Point) {
        let b = self.bucket(p);
        self.buckets[b].push(id);
        let i = id.index();
        if self.of.len() <= i {
            self.of.resize(i + 1, usize::MAX);
        }
        self.of[i] = b;
    }

    /// An agent moved to `p`.
    pub(super) fn moved(&mut self, id: AgentId, p: Point) {
        let to = self.bucket(p);
        let Some(&from) = self.of.get(id.index()) else {
            return;
        };
        if from == to {
            return;
        }
        if let Some(list) = self.buckets.get_mut(from) {
            if let Some(k) = list.iter().position(|a| *a == id) {
                list.swap_remove(k);
            }
        }
        self.buckets[to].push(id);
        self.of[id.index()] = to;
    }

    /// Every agent whose centre may lie within the box `lo`..`hi` (and perhaps a few more),
    /// in no particular order.
    pub(super) fn within(&self, lo: Point, hi: Point) -> impl Iterator<Item = AgentId> + '_ {
        let (c0, c1) = (self.index(lo.x, self.cols), self.index(hi.x, self.cols));
        let (r0, r1) = (self.index(lo.y, self.rows), self.index(hi.y, self.rows));
        (r0..=r1).flat_map(move |r| {
            (c0..=c1).flat_map(move |c| self.buckets[r * self.cols + c].iter().copied())
        })
    }

    /// Every agent whose centre may lie within `reach` of `p` along both axes.
    pub(super) fn around(&self, p: Point, reach: f64) -> impl Iterator<Item = AgentId> + '_ {
        self.within(
            Point::new(p.x - reach, p.y - reach),
            Point::new(p.x + reach, p.y + reach),
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::rng::Rng;
    use crate::test_support::world;
    use crate::world::{AgentId, Point};

    /// 300 bodies in a 30 × 30 m area: crowded enough that most moves meet someone.
    const CROWD: &str = r#"world Crowd {
        area 30m x 30m cell 1m;
        obstacle crate at (15m, 15m) size 4m x 2m;
        spawn R count 300 at random;
        seed 9;
    }"#;

    #[test]
    fn the_index_answers_as_a_scan_of_every_agent() {
        let mut indexed = world(CROWD);
        let mut scanned = world(CROWD);
        scanned.near = None;
        assert!(indexed.near.is_some(), "an area keeps an index");
        let mut rng = Rng::named(4, "moves");
        let (mut blocked_by_agents, mut seen_ahead) = (0, 0);
        for step in 0..4_000 {
            let id = AgentId(rng.below(300) as u32);
            let goal = Point::new(rng.uniform(-1.0, 31.0), rng.uniform(-1.0, 31.0));
            // Short steps, long steer moves and the occasional jump (a remote robot's
            // position) keep bodies both crowding and changing buckets.
            let (a, b) = if step % 50 == 0 {
                (
                    indexed.place(id, goal, false).to_string(),
                    scanned.place(id, goal, false).to_string(),
                )
            } else if step % 2 == 0 {
                let to = indexed.position(id).unwrap();
                let to = Point::new(to.x + (goal.x - to.x) / 20.0, to.y + (goal.y - to.y) / 20.0);
                (
                    format!("{:?}", indexed.try_move_to(id, to)),
                    format!("{:?}", scanned.try_move_to(id, to)),
                )
            } else {
                (
                    format!("{:?}", indexed.steer_toward(id, goal, 0.3, false)),
                    format!("{:?}", scanned.steer_toward(id, goal, 0.3, false)),
                )
            };
            assert_eq!(a, b, "step {step}");
            blocked_by_agents += usize::from(a.contains("Agent"));
            assert_eq!(indexed.position(id), scanned.position(id), "step {step}");
            let dir = (goal.x - 15.0, goal.y - 15.0);
            let ahead = indexed.obstacle_ahead_toward(id, dir, 2.0);
            assert_eq!(ahead, scanned.obstacle_ahead_toward(id, dir, 2.0));
            seen_ahead += usize::from(ahead);
            assert_eq!(
                indexed.reached(id, goal, 0.5),
                scanned.reached(id, goal, 0.5)
            );
        }
        assert!(
            blocked_by_agents > 100 && seen_ahead > 100,
            "the crowd meets: {blocked_by_agents} blocked, {seen_ahead} ahead"
        );
    }
}
