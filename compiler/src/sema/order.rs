//! Dependency order: values computed from other values (constants, `let`s, hormones) are
//! compiled after the values they read, and a value that reads itself, directly or not, is
//! found. One walk serves them all; it keeps its own stack, so a long chain of values is no
//! deep recursion.

use crate::syntax::ast::{Expr, ExprKind};
use crate::syntax::visit::{walk_expr, Visitor};

/// The result of ordering values by their dependencies.
pub(super) struct Order {
    /// Every value, each after the values it reads (as far as cycles allow).
    pub order: Vec<usize>,
    /// The values a cycle leads back to, in the order found.
    pub cyclic: Vec<usize>,
    /// The first cycle found, as the path from its first value around to the last.
    pub first_cycle: Option<Vec<usize>>,
}

/// Orders values `0..deps.len()`; `deps[i]` lists the values `i` reads.
pub(super) fn dependency_order(deps: &[Vec<usize>]) -> Order {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; deps.len()];
    let mut out = Order {
        order: Vec::with_capacity(deps.len()),
        cyclic: Vec::new(),
        first_cycle: None,
    };
    for root in 0..deps.len() {
        if state[root] != NEW {
            continue;
        }
        // The path being walked: a value and how many of its dependencies are visited.
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = OPEN;
        while let Some(top) = path.last_mut() {
            let i = top.0;
            let Some(&d) = deps[i].get(top.1) else {
                state[i] = DONE;
                out.order.push(i);
                path.pop();
                continue;
            };
            top.1 += 1;
            match state[d] {
                NEW => {
                    state[d] = OPEN;
                    path.push((d, 0));
                }
                OPEN => {
                    if !out.cyclic.contains(&d) {
                        out.cyclic.push(d);
                    }
                    if out.first_cycle.is_none() {
                        let from = path.iter().position(|&(p, _)| p == d).unwrap_or(0);
                        out.first_cycle = Some(path[from..].iter().map(|&(p, _)| p).collect());
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The plain names an expression mentions (`a + b.c` mentions `a`).
pub(super) fn names_in(e: &Expr) -> Vec<String> {
    struct Names(Vec<String>);
    impl Visitor for Names {
        fn visit_expr(&mut self, e: &Expr) {
            if let ExprKind::Name(p) = &e.kind {
                if p.segments.len() == 1 {
                    self.0.push(p.segments[0].name.clone());
                }
            }
            walk_expr(self, e);
        }
    }
    let mut v = Names(Vec::new());
    v.visit_expr(e);
    v.0
}

#[cfg(test)]
mod tests {
    use super::dependency_order;

    #[test]
    fn values_come_after_what_they_read_and_cycles_are_found() {
        // 0 reads 1, 1 reads 2.
        let o = dependency_order(&[vec![1], vec![2], vec![]]);
        assert_eq!(o.order, [2, 1, 0]);
        assert!(o.cyclic.is_empty() && o.first_cycle.is_none());
        // 0 -> 1 -> 2 -> 0, and 3 reads itself.
        let o = dependency_order(&[vec![1], vec![2], vec![0], vec![3]]);
        assert_eq!(o.first_cycle, Some(vec![0, 1, 2]));
        assert_eq!(o.cyclic, [0, 3]);
        assert_eq!(o.order.len(), 4);
    }

    #[test]
    fn a_long_chain_is_no_deep_recursion() {
        let n = 200_000;
        let deps: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let o = dependency_order(&deps);
        assert_eq!(o.order.first(), Some(&(n - 1)));
        assert_eq!(o.order.len(), n);
    }
}
