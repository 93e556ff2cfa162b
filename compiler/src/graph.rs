//! Depth-first search over the dependency graphs of a program (constants, derived values,
//! trees calling trees) without recursion: a chain of dependencies is as long as the file
//! makes it, and must not be able to exhaust the stack.

/// Visits every node (roots in index order, edges in order, as the recursive search would),
/// calls `on_cycle(edge, cycle)` for every edge back to a node on the current path (`cycle`
/// runs from that node to the current one), and returns the nodes in post-order: each after
/// every node it reaches.
pub fn depth_first<E>(
    edges: &[Vec<E>],
    to: impl Fn(&E) -> usize,
    mut on_cycle: impl FnMut(&E, &[usize]),
) -> Vec<usize> {
    let n = edges.len();
    let mut done = vec![false; n];
    // Where each node is on the current path, if it is.
    let mut on_path: Vec<Option<usize>> = vec![None; n];
    let mut order = Vec::with_capacity(n);
    // The current path, and the next edge to follow from each of its nodes.
    let mut path: Vec<usize> = Vec::new();
    let mut next: Vec<usize> = Vec::new();
    for root in 0..n {
        if done[root] {
            continue;
        }
        on_path[root] = Some(0);
        path.push(root);
        next.push(0);
        while let (Some(&i), Some(k)) = (path.last(), next.last_mut()) {
            let Some(edge) = edges[i].get(*k) else {
                path.pop();
                next.pop();
                on_path[i] = None;
                done[i] = true;
                order.push(i);
                continue;
            };
            *k += 1;
            let j = to(edge);
            if let Some(at) = on_path[j] {
                on_cycle(edge, &path[at..]);
            } else if !done[j] {
                on_path[j] = Some(path.len());
                path.push(j);
                next.push(0);
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_order_and_cycles() {
        // 0 -> 1 -> 2 -> 0 (a cycle), 1 -> 3, 3 -> 3 (a self-loop).
        let edges = vec![vec![1], vec![2, 3], vec![0], vec![3]];
        let mut cycles = Vec::new();
        let order = depth_first(&edges, |&j| j, |_, c| cycles.push(c.to_vec()));
        assert_eq!(order, vec![2, 3, 1, 0]);
        assert_eq!(cycles, vec![vec![0, 1, 2], vec![3]]);
    }

    #[test]
    fn a_chain_a_million_long_needs_no_stack() {
        let n = 1_000_000;
        let edges: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let order = depth_first(&edges, |&j| j, |_, _| panic!("no cycle"));
        assert_eq!(order.first(), Some(&(n - 1)));
        assert_eq!(order.len(), n);
    }
}
