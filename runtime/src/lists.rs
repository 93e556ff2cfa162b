//! Lists and points: values too large for one slot live here, and slots hold their ids.
//! The program's constant lists come first (their ids are their indices in
//! `Program::lists`, so compiled code names them by number) and are never changed; every
//! list slot gets a list of its own when the program starts. Growing a list is the only
//! allocation a running program may do.

#[derive(Clone, Debug, Default)]
pub struct Lists {
    live: Vec<Vec<f64>>,
    /// Ids below this are the program's constants: read-only.
    consts: usize,
}

impl Lists {
    pub fn new(inits: &[Vec<f64>]) -> Lists {
        Lists {
            live: inits.to_vec(),
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
        let values = match init as usize {
            i if i < self.consts => self.live[i].clone(),
            _ => Vec::new(),
        };
        self.live.push(values);
        (self.live.len() - 1) as f64
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
        if let Some(l) = self.owned(id) {
            l.push(v);
        }
    }

    pub fn pop_front(&mut self, id: f64) -> Option<f64> {
        let l = self.owned(id)?;
        if l.is_empty() {
            None
        } else {
            Some(l.remove(0))
        }
    }

    pub fn set(&mut self, id: f64, values: &[f64]) {
        if let Some(l) = self.owned(id) {
            l.clear();
            l.extend_from_slice(values);
        }
    }

    /// Copies list `from`'s elements into list `to` (assignment: `xs = ys`). Allocates only
    /// when `to` must grow past its capacity.
    pub fn copy(&mut self, from: f64, to: f64) {
        if from.to_bits() == to.to_bits() || self.owned(to).is_none() {
            return;
        }
        let to = to as usize;
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

    /// `xs[i] = v`: only inside the list.
    pub fn set_at(&mut self, id: f64, i: f64, v: f64) {
        if i.is_nan() || i < 0.0 {
            return;
        }
        if let Some(x) = self.owned(id).and_then(|l| l.get_mut(i as usize)) {
            *x = v;
        }
    }
}
