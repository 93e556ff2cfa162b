//! Lists and points: values too large for one slot live here, and slots hold their ids.
//! The program's constant lists come first (their ids are their indices in
//! `Program::lists`, so compiled code names them by number) and are never changed; every
//! list slot gets a list of its own when the program starts. Growing a list is the only
//! allocation a running program may do.
//!
//! A list of lists (`[[int]]`) is a list of ids. Copies are deep: a variable's list of lists
//! owns its inner lists (and theirs, at every depth), never names another's, and a copy
//! into it copies elements into inner lists it owns. The inner lists it stops naming (a
//! shorter copy, a popped front) are kept as spares and reused, so a steady tick allocates
//! nothing.
//!
//! A list variable can hold no value, as a BehaviorTree.CPP entry `UnsetBlackboard` removed:
//! its list is then marked unset (and emptied) rather than taken away, so the variable keeps
//! its storage and a later write reuses it without allocating. Copying an unset list (a
//! subtree's input given one) passes "no value" on; changing one in place does nothing (the
//! engines report the read first).

use affect_compiler::ir::program::is_unset;

/// What a list owned by a variable knows beyond its elements.
#[derive(Clone, Debug, Default, PartialEq)]
struct Meta {
    /// The variable holds no value (`unset_blackboard`, or an `any` entry nothing wrote).
    unset: bool,
    /// How many levels of lists its elements are: 0 for numbers (and points), 1 for the
    /// inner lists of a `[[int]]`.
    depth: u8,
    /// For a nested list: the inner lists it owns, those its elements name first (in
    /// order), then spares.
    pool: Vec<usize>,
    /// The nested list that owns it, if any.
    parent: Option<usize>,
    /// For a nested list: the list a copy goes through when its source names one of this
    /// list's own inner lists (`g = [g[1], g[0]]`), made on first need.
    scratch: Option<usize>,
}

/// Where a nested copy's elements come from: values on hand, or a list's.
#[derive(Clone, Copy)]
enum Elems<'a> {
    Slice(&'a [f64]),
    List(usize),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lists {
    live: Vec<Vec<f64>>,
    /// Parallel to `live`.
    meta: Vec<Meta>,
    /// Ids below this are the program's constants: read-only.
    consts: usize,
}

impl Lists {
    pub fn new(inits: &[Vec<f64>]) -> Lists {
        Lists {
            live: inits.to_vec(),
            meta: vec![Meta::default(); inits.len()],
            consts: inits.len(),
        }
    }

    /// The list `id` names, if it may be changed (not a constant, not out of range).
    fn owned(&mut self, id: f64) -> Option<&mut Vec<f64>> {
        if id.is_nan() || id < self.consts as f64 {
            return None;
        }
        self.live.get_mut(id as usize)
    }

    /// A fresh list holding a copy of initial list `init`; returns its id.
    pub fn instantiate(&mut self, init: f64) -> f64 {
        self.instantiate_nested(init, 0)
    }

    /// A fresh list of `depth` levels of lists (0: of numbers) holding a deep copy of
    /// initial list `init`; returns its id.
    pub fn instantiate_nested(&mut self, init: f64, depth: u8) -> f64 {
        let id = self.new_list(depth, None);
        // An `any` variable that the program gives lists starts with none (its init NaN):
        // unset, as an entry nothing wrote.
        if init >= 0.0 && (init as usize) < self.consts {
            self.copy_owned(init, id);
        } else {
            self.meta[id].unset = is_unset(init);
        }
        id as f64
    }

    /// Whether list `id` holds no value (its variable was unset).
    #[inline]
    pub fn is_unset(&self, id: f64) -> bool {
        id >= 0.0 && self.meta.get(id as usize).is_some_and(|m| m.unset)
    }

    /// Takes the value of the variable owning list `id` away: the list is emptied (its
    /// storage and inner lists kept as spares) and marked unset until the next write.
    fn unset(&mut self, id: usize) {
        self.live[id].clear();
        self.meta[id].unset = true;
    }

    fn new_list(&mut self, depth: u8, parent: Option<usize>) -> usize {
        self.live.push(Vec::new());
        self.meta.push(Meta {
            depth,
            parent,
            ..Meta::default()
        });
        self.live.len() - 1
    }

    /// What traces compare to see a list variable change: its elements, or a single
    /// `UNSET` while it holds no value (compare with [`same_shown`]).
    pub fn shown(&self, id: f64) -> &[f64] {
        const NONE: &[f64] = &[affect_compiler::ir::program::UNSET];
        if self.is_unset(id) {
            NONE
        } else {
            self.values(id)
        }
    }

    pub fn values(&self, id: f64) -> &[f64] {
        if id.is_nan() || id < 0.0 {
            return &[];
        }
        self.live.get(id as usize).map(Vec::as_slice).unwrap_or(&[])
    }

    /// A new list (leaves that produce lists allocate once and then reuse theirs).
    pub fn alloc(&mut self, values: &[f64]) -> f64 {
        self.live.push(values.to_vec());
        self.meta.push(Meta::default());
        (self.live.len() - 1) as f64
    }

    pub fn len_of(&self, id: f64) -> usize {
        self.values(id).len()
    }

    /// Element `i`, or `NaN` outside the list.
    pub fn get(&self, id: f64, i: f64) -> f64 {
        if i < 0.0 {
            return f64::NAN;
        }
        self.values(id).get(i as usize).copied().unwrap_or(f64::NAN)
    }

    pub fn push(&mut self, id: f64, v: f64) {
        if self.is_unset(id) {
            return;
        }
        let Some(l) = self.owned(id) else {
            return;
        };
        let len = l.len();
        let id = id as usize;
        let depth = self.meta[id].depth;
        if depth == 0 {
            self.live[id].push(v);
            return;
        }
        // A copy of `v` in the next inner list this one owns (a spare, or a new one).
        let inner = match self.meta[id].pool.get(len) {
            Some(&spare) => spare,
            None => {
                let fresh = self.new_list(depth - 1, Some(id));
                self.meta[id].pool.push(fresh);
                fresh
            }
        };
        self.copy(v, inner as f64);
        self.live[id].push(inner as f64);
    }

    pub fn pop_front(&mut self, id: f64) -> Option<f64> {
        if self.is_unset(id) {
            return None;
        }
        let l = self.owned(id)?;
        if l.is_empty() {
            return None;
        }
        let v = l.remove(0);
        // The popped inner list becomes a spare: its elements stay readable until the next
        // copy into this list reuses it.
        let pool = &mut self.meta[id as usize].pool;
        if !pool.is_empty() {
            pool.rotate_left(1);
        }
        Some(v)
    }

    pub fn set(&mut self, id: f64, values: &[f64]) {
        if self.owned(id).is_none() {
            return;
        }
        let to = id as usize;
        self.meta[to].unset = false;
        if self.meta[to].depth == 0 {
            let l = &mut self.live[to];
            l.clear();
            l.extend_from_slice(values);
            return;
        }
        let depth = self.meta[to].depth;
        if values.iter().any(|&e| self.names_own(e, to, depth)) {
            let s = self.scratch(to);
            self.nest(s, Elems::Slice(values));
            self.copy_owned(s as f64, to);
        } else {
            self.nest(to, Elems::Slice(values));
        }
    }

    /// Copies list `from`'s elements into list `to` (assignment: `xs = ys`), at every depth
    /// of a list of lists. Allocates only when `to` must grow past what it ever held.
    /// Copying `UNSET` (`unset_blackboard` of a list variable) or an unset list makes `to`
    /// unset.
    pub fn copy(&mut self, from: f64, to: f64) {
        if from.to_bits() == to.to_bits() || self.owned(to).is_none() {
            return;
        }
        let to = to as usize;
        if is_unset(from) {
            self.unset(to);
            return;
        }
        self.meta[to].unset = self.is_unset(from);
        let depth = self.meta[to].depth;
        if depth > 0 && self.names_own(from, to, depth + 1) {
            // The source names one of `to`'s own lists (or `to`): copy it aside first.
            let s = self.scratch(to);
            self.copy_owned(from, s);
            self.copy_owned(s as f64, to);
        } else {
            self.copy_owned(from, to);
        }
    }

    /// `to`'s scratch list, made on first need.
    fn scratch(&mut self, to: usize) -> usize {
        match self.meta[to].scratch {
            Some(s) => s,
            None => {
                let s = self.new_list(self.meta[to].depth, None);
                self.meta[to].scratch = Some(s);
                s
            }
        }
    }

    /// Whether list `id`, or a list it names within `levels` levels, is `to` or is owned by
    /// it (at any depth).
    fn names_own(&self, id: f64, to: usize, levels: u8) -> bool {
        if levels == 0 || id.is_nan() || id < 0.0 || id as usize >= self.live.len() {
            return false;
        }
        let mut at = Some(id as usize);
        while let Some(i) = at {
            if i == to {
                return true;
            }
            at = self.meta[i].parent;
        }
        self.values(id)
            .iter()
            .any(|&e| self.names_own(e, to, levels - 1))
    }

    /// Nested list `to` gets copies of the lists `elems` names, in inner lists it owns.
    /// None of them may be `to` or owned by it.
    fn nest(&mut self, to: usize, elems: Elems) {
        let depth = self.meta[to].depth;
        let n = match elems {
            Elems::Slice(xs) => xs.len(),
            Elems::List(f) => self.live[f].len(),
        };
        let mut pool = std::mem::take(&mut self.meta[to].pool);
        while pool.len() < n {
            pool.push(self.new_list(depth - 1, Some(to)));
        }
        for (k, &inner) in pool.iter().enumerate().take(n) {
            // Read one at a time: the source is not changed by copies into `to`'s lists
            // (constants may even name themselves: `[3]` and `[[3]]` can be one constant).
            let e = match elems {
                Elems::Slice(xs) => xs[k],
                Elems::List(f) => self.live[f].get(k).copied().unwrap_or(f64::NAN),
            };
            self.copy_owned(e, inner);
        }
        let out = &mut self.live[to];
        out.clear();
        out.extend(pool[..n].iter().map(|&i| i as f64));
        self.meta[to].pool = pool;
    }

    /// Copies list `from` into list `to`, which owns its own inner lists; `from` names none
    /// of them, nor `to`.
    fn copy_owned(&mut self, from: f64, to: usize) {
        if self.meta[to].depth > 0 {
            let f = from as usize;
            if from.is_nan() || from < 0.0 || f >= self.live.len() || f == to {
                self.nest(to, Elems::Slice(&[]));
            } else {
                self.nest(to, Elems::List(f));
            }
            return;
        }
        if from.to_bits() == (to as f64).to_bits() {
            return;
        }
        let src = match self.values(from) {
            [] => None,
            _ => Some(from as usize),
        };
        match src {
            None => self.live[to].clear(),
            Some(f) => {
                // Two elements of one vector: split it so both can be borrowed.
                let (dst, src) = if f < to {
                    let (a, b) = self.live.split_at_mut(to);
                    (&mut b[0], &a[f])
                } else {
                    let (a, b) = self.live.split_at_mut(f);
                    (&mut a[to], &b[0])
                };
                dst.clear();
                dst.extend_from_slice(src);
            }
        }
    }

    /// `xs[i] = v`: only inside the list. In a list of lists, `v` is copied into the inner
    /// list at `i`.
    pub fn set_at(&mut self, id: f64, i: f64, v: f64) {
        if i.is_nan() || i < 0.0 || self.is_unset(id) {
            return;
        }
        let Some(x) = self.owned(id).and_then(|l| l.get_mut(i as usize)) else {
            return;
        };
        let inner = *x;
        if self.meta[id as usize].depth == 0 {
            self.live[id as usize][i as usize] = v;
        } else {
            self.copy(v, inner);
        }
    }
}

/// Whether two lists as [`Lists::shown`] gives them are the same: equal elements, the
/// `UNSET` marker equal to itself.
pub fn same_shown(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x == y || (is_unset(*x) && is_unset(*y)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use affect_compiler::ir::program::UNSET;

    /// Unsetting keeps the list's storage: it reads as no value, refuses changes in place,
    /// passes "no value" on to a copy, and the next write reuses its storage.
    #[test]
    fn an_unset_list_keeps_its_storage_until_written_again() {
        let mut l = Lists::new(&[vec![1.0, 2.0, 3.0]]);
        let a = l.instantiate(0.0);
        let b = l.instantiate(0.0);
        let room = l.live[a as usize].capacity();
        l.copy(UNSET, a);
        assert!(l.is_unset(a) && l.values(a).is_empty());
        l.push(a, 4.0);
        l.set_at(a, 0.0, 4.0);
        assert_eq!(l.pop_front(a), None);
        assert!(l.is_unset(a) && l.values(a).is_empty());
        // A copy of it holds no value either.
        l.copy(a, b);
        assert!(l.is_unset(b));
        l.copy(0.0, a);
        assert!(!l.is_unset(a));
        assert_eq!(l.values(a), [1.0, 2.0, 3.0]);
        assert_eq!(l.live[a as usize].capacity(), room);
        l.set(b, &[5.0]);
        assert!(!l.is_unset(b));
        // A list of lists keeps its inner lists as spares.
        let mut n = Lists::new(&[vec![7.0], vec![0.0, 0.0]]);
        let g = n.instantiate_nested(1.0, 1);
        let lists = n.live.len();
        n.copy(UNSET, g);
        n.copy(1.0, g);
        assert_eq!(n.live.len(), lists, "the inner lists are reused");
        assert!(!n.is_unset(g));
        // An `any` variable nothing wrote starts unset.
        let (fresh, nan) = (
            n.instantiate_nested(UNSET, 0),
            n.instantiate_nested(f64::NAN, 0),
        );
        assert!(n.is_unset(fresh) && !n.is_unset(nan));
    }
}
