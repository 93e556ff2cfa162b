//! Grid worlds: agents stand on labelled cells and move one cell at a time. A blank cell
//! (`.`) is not a place: the robot finds its way by reading the letter under it, and the
//! built-in map has no node there, so nobody stands on one. A move off the grid, onto a
//! blank cell or onto another agent's cell is not made.
//!
//! Searches try directions in [`Direction::ALL`] order (Up, Down, Left, Right), so every tie
//! breaks the same way in every run.

use super::area::Blocked;
use super::geometry::{step_cell, Cell, Direction};
use super::{AgentId, World};
use affect_compiler::ir::world::{GridSpec, WorldKind};
use std::collections::VecDeque;

/// How many search steps `paths_between` may take before it settles for what it has.
const PATH_SEARCH_BUDGET: usize = 1_000_000;

impl World {
    fn grid_spec(&self) -> Option<&GridSpec> {
        match &self.spec.kind {
            WorldKind::Grid(g) => Some(g),
            WorldKind::Area(_) => None,
        }
    }

    /// Every labelled cell, row by row from the top.
    pub(super) fn grid_cells(&self) -> impl Iterator<Item = Cell> + '_ {
        let g = self.grid_spec();
        let (cols, rows) = g.map_or((0, 0), |g| (g.cols, g.rows));
        (0..rows)
            .flat_map(move |row| (0..cols).map(move |col| Cell { col, row }))
            .filter(move |c| g.and_then(|g| g.label(*c)).is_some())
    }

    pub fn cell_of(&self, id: AgentId) -> Option<Cell> {
        self.agent(id)?.cell
    }

    /// The label under an agent: what its camera reads.
    pub fn label_at(&self, id: AgentId) -> Option<char> {
        self.grid_spec()?.label(self.cell_of(id)?)
    }

    pub fn label_of(&self, cell: Cell) -> Option<char> {
        self.grid_spec()?.label(cell)
    }

    pub fn cell_of_label(&self, label: char) -> Option<Cell> {
        self.grid_spec()?.find(label)
    }

    /// The agent standing on a cell.
    pub fn occupant(&self, cell: Cell) -> Option<AgentId> {
        self.agents
            .iter()
            .find(|a| a.cell == Some(cell))
            .map(|a| a.id)
    }

    /// The places next to a cell, in direction order.
    pub fn neighbours(&self, cell: Cell) -> Vec<(Direction, Cell)> {
        let Some(g) = self.grid_spec() else {
            return Vec::new();
        };
        Direction::ALL
            .into_iter()
            .filter_map(|d| step_cell(cell, d, g.cols, g.rows).map(|c| (d, c)))
            .filter(|(_, c)| g.label(*c).is_some())
            .collect()
    }

    /// The direction from one cell to a neighbouring one (`toward(place, route[0])`).
    pub fn direction_between(&self, from: Cell, to: Cell) -> Option<Direction> {
        let g = self.grid_spec()?;
        Direction::ALL
            .into_iter()
            .find(|d| step_cell(from, *d, g.cols, g.rows) == Some(to))
    }

    /// Moves a grid agent one cell. The agent turns to face the direction even when the move
    /// is not made.
    pub fn try_move(&mut self, id: AgentId, dir: Direction) -> Result<Cell, Blocked> {
        let to = self.can_move(id, dir)?;
        let g = self.grid_spec().ok_or(Blocked::WrongWorld)?;
        let centre = g.centre(to);
        let agent = self.agent_mut(id).ok_or(Blocked::NoAgent)?;
        agent.heading = dir.unit();
        agent.cell = Some(to);
        agent.position = centre;
        Ok(to)
    }

    /// The cell a step would reach, or why it cannot be made now.
    pub fn can_move(&self, id: AgentId, dir: Direction) -> Result<Cell, Blocked> {
        let agent = self.agent(id).ok_or(Blocked::NoAgent)?;
        let from = agent.cell.ok_or(Blocked::WrongWorld)?;
        let g = self.grid_spec().ok_or(Blocked::WrongWorld)?;
        let to = step_cell(from, dir, g.cols, g.rows).ok_or(Blocked::Edge)?;
        if g.label(to).is_none() {
            return Err(Blocked::Blank);
        }
        if let Some(other) = self.occupant(to) {
            return Err(Blocked::Agent(other));
        }
        Ok(to)
    }

    /// Another agent within `range_m` ahead of a grid agent (the adjacent cell always counts).
    pub(super) fn grid_obstacle_ahead(&self, id: AgentId, dir: Direction, range_m: f64) -> bool {
        let (Some(g), Some(mut cell)) = (self.grid_spec(), self.cell_of(id)) else {
            return false;
        };
        let cells =
            ((range_m / g.cell_m + 1e-9).floor() as u64).clamp(1, u64::from(g.cols.max(g.rows)));
        for _ in 0..cells {
            match step_cell(cell, dir, g.cols, g.rows) {
                Some(next) => cell = next,
                None => return false,
            }
            if self.occupant(cell).is_some_and(|o| o != id) {
                return true;
            }
        }
        false
    }

    /// The shortest path between two labels over the built-in map (labelled cells, four
    /// neighbours), by breadth-first search. The path lists the labels after `from`, ending
    /// with `to`; empty when they are the same. Agents do not block the map.
    pub fn shortest_path(&self, from: char, to: char) -> Option<Vec<char>> {
        let g = self.grid_spec()?;
        let (start, goal) = (g.find(from)?, g.find(to)?);
        let index = |c: Cell| c.row as usize * g.cols as usize + c.col as usize;
        let mut parent: Vec<Option<Cell>> = vec![None; g.labels.len()];
        let mut seen = vec![false; g.labels.len()];
        let mut queue = VecDeque::from([start]);
        seen[index(start)] = true;
        while let Some(cell) = queue.pop_front() {
            if cell == goal {
                let mut path = Vec::new();
                let mut c = goal;
                while c != start {
                    path.push(g.label(c)?);
                    c = parent[index(c)]?;
                }
                path.reverse();
                return Some(path);
            }
            for (_, next) in self.neighbours(cell) {
                if !seen[index(next)] {
                    seen[index(next)] = true;
                    parent[index(next)] = Some(cell);
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// Every path without repeated places from `from` to `to` that is at most `max_extra`
    /// steps longer than the shortest, shortest first (ties in direction order), at most
    /// `limit` of them. This is what the seed's modified `findShortestPath` hands the
    /// emotional decision. A search that would take more than a million steps stops early
    /// with what it has found.
    pub fn paths_between(
        &self,
        from: char,
        to: char,
        max_extra: usize,
        limit: usize,
    ) -> Vec<Vec<char>> {
        let Some(shortest) = self.shortest_path(from, to) else {
            return Vec::new();
        };
        let (Some(g), Some(start), Some(goal)) = (
            self.grid_spec(),
            self.cell_of_label(from),
            self.cell_of_label(to),
        ) else {
            return Vec::new();
        };
        if start == goal {
            return vec![Vec::new()];
        }
        let bound = shortest.len() + max_extra;
        let mut found: Vec<Vec<Cell>> = Vec::new();
        let mut path = vec![start];
        let mut budget = PATH_SEARCH_BUDGET;
        self.search(goal, bound, &mut path, &mut found, &mut budget);
        // Stable: paths of equal length stay in the order the search found them.
        found.sort_by_key(Vec::len);
        found
            .into_iter()
            .take(limit)
            .map(|p| p[1..].iter().filter_map(|c| g.label(*c)).collect())
            .collect()
    }

    fn search(
        &self,
        goal: Cell,
        bound: usize,
        path: &mut Vec<Cell>,
        found: &mut Vec<Vec<Cell>>,
        budget: &mut usize,
    ) {
        let Some(&here) = path.last() else { return };
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        if here == goal {
            found.push(path.clone());
            return;
        }
        let steps = path.len() - 1;
        let manhattan = here.col.abs_diff(goal.col) + here.row.abs_diff(goal.row);
        if steps + manhattan as usize > bound {
            return;
        }
        for (_, next) in self.neighbours(here) {
            if !path.contains(&next) {
                path.push(next);
                self.search(goal, bound, path, found, budget);
                path.pop();
            }
        }
    }
}
