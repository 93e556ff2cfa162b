//! Lists and points: values too large for one slot live here, and slots hold their ids.
//! Lists are created when a program starts; growing one is the only allocation a running
//! program may do.

#[derive(Clone, Debug, Default)]
pub struct Lists {
    inits: Vec<Vec<f64>>,
    live: Vec<Vec<f64>>,
}

impl Lists {
    pub fn new(inits: &[Vec<f64>]) -> Lists {
        Lists {
            inits: inits.to_vec(),
            live: Vec::new(),
        }
    }

    /// A fresh list holding a copy of initial list `init`; returns its id.
    pub fn instantiate(&mut self, init: f64) -> f64 {
        let values = self.inits.get(init as usize).cloned().unwrap_or_default();
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
        if id.is_nan() || id < 0.0 {
            return;
        }
        if let Some(l) = self.live.get_mut(id as usize) {
            l.push(v);
        }
    }

    pub fn pop_front(&mut self, id: f64) -> Option<f64> {
        if id.is_nan() || id < 0.0 {
            return None;
        }
        let l = self.live.get_mut(id as usize)?;
        if l.is_empty() {
            None
        } else {
            Some(l.remove(0))
        }
    }

    pub fn set(&mut self, id: f64, values: &[f64]) {
        if id.is_nan() || id < 0.0 {
            return;
        }
        if let Some(l) = self.live.get_mut(id as usize) {
            l.clear();
            l.extend_from_slice(values);
        }
    }
}
