//! The blocks of a file (the delimiter pass's pairs) ordered by where they open, each with
//! its parent, so that the questions parse errors ask of them (the innermost block around an
//! offset, the blocks a recovery swallowed the opener of, the outermost block around one)
//! cost a binary search and a short walk instead of a pass over every block: a file with an
//! error in each of its thousands of blocks asked each question of every block (n²).
//!
//! The delimiter pass closes every block it opens (a synthetic closer where one went
//! missing), so the pairs nest properly: two blocks are disjoint or one holds the other.

use super::delimiters::Pair;
use crate::span::Span;

pub struct Blocks<'p> {
    pairs: &'p [Pair],
    /// Indices into `pairs`, by opening offset (the outer first where two open together).
    order: Vec<u32>,
    /// Per position in `order`: the position of the block holding it, if any.
    parent: Vec<Option<u32>>,
    /// Per position in `order`: the position of the outermost block holding it (or itself).
    root: Vec<u32>,
}

impl<'p> Blocks<'p> {
    pub fn new(pairs: &'p [Pair]) -> Blocks<'p> {
        let mut order: Vec<u32> = (0..pairs.len() as u32).collect();
        order.sort_by_key(|&i| {
            let p = &pairs[i as usize];
            (p.open.start, std::cmp::Reverse(p.close.end))
        });
        let mut parent = Vec::with_capacity(order.len());
        let mut root = Vec::with_capacity(order.len());
        let mut stack: Vec<u32> = Vec::new();
        for (k, &i) in order.iter().enumerate() {
            let p = &pairs[i as usize];
            while let Some(&top) = stack.last() {
                if holds(&pairs[order[top as usize] as usize], p) {
                    break;
                }
                stack.pop();
            }
            let up = stack.last().copied();
            parent.push(up);
            root.push(up.map_or(k as u32, |u| root[u as usize]));
            stack.push(k as u32);
        }
        Blocks {
            pairs,
            order,
            parent,
            root,
        }
    }

    fn pair(&self, k: u32) -> &'p Pair {
        &self.pairs[self.order[k as usize] as usize]
    }

    /// The innermost block whose inside (between its opener and its closer) holds `offset`.
    pub fn innermost(&self, offset: usize) -> Option<&'p Pair> {
        // The last block opened before `offset`; the one around `offset`, if any, is it or
        // one of the blocks holding it.
        let n = self
            .order
            .partition_point(|&i| self.pairs[i as usize].open.end as usize <= offset);
        let mut k = n.checked_sub(1).map(|k| k as u32);
        while let Some(at) = k {
            let p = self.pair(at);
            if p.open.end as usize <= offset && offset <= p.close.start as usize {
                return Some(p);
            }
            k = self.parent[at as usize];
        }
        None
    }

    /// The `{` blocks whose opener lies in `span` and whose closer does not come before its
    /// end (a recovery over `span` swallowed the `{` but not the `}`), each with the end of
    /// the outermost block holding it.
    pub fn swallowed(&self, span: Span) -> impl Iterator<Item = (&'p Pair, u32)> + '_ {
        let from = self
            .order
            .partition_point(|&i| self.pairs[i as usize].open.start < span.start);
        self.order[from..]
            .iter()
            .enumerate()
            .take_while(move |(_, &i)| self.pairs[i as usize].open.start <= span.end)
            .filter_map(move |(j, &i)| {
                let p = &self.pairs[i as usize];
                let inside = p.kind == '{' && p.open.end <= span.end && p.close.start >= span.end;
                let root = self.pair(self.root[from + j]);
                inside.then_some((p, root.close.end.max(p.close.end)))
            })
    }
}

/// True when block `outer` holds block `inner` (or is it).
fn holds(outer: &Pair, inner: &Pair) -> bool {
    outer.open.start <= inner.open.start && inner.close.end <= outer.close.end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(open: u32, close: u32, kind: char) -> Pair {
        Pair {
            open: Span::raw(open, open + 1),
            close: Span::raw(close, close + 1),
            kind,
            describe: String::new(),
        }
    }

    #[test]
    fn innermost_and_swallowed_match_a_scan_of_every_block() {
        // { ( ) { { } } }  { }   as the delimiter pass lists them: in closing order.
        let pairs = vec![
            pair(2, 4, '('),
            pair(8, 10, '{'),
            pair(6, 12, '{'),
            pair(0, 14, '{'),
            pair(20, 30, '{'),
        ];
        let blocks = Blocks::new(&pairs);
        for offset in 0..32usize {
            let scan = pairs
                .iter()
                .filter(|p| p.open.end as usize <= offset && offset <= p.close.start as usize)
                .min_by_key(|p| p.close.start - p.open.start);
            assert_eq!(
                blocks.innermost(offset).map(|p| p.open),
                scan.map(|p| p.open),
                "{offset}"
            );
        }
        for (s, e) in [(5u32, 9u32), (0, 3), (7, 11), (19, 21), (1, 32)] {
            let span = Span::raw(s, e);
            let mut got: Vec<(Span, u32)> =
                blocks.swallowed(span).map(|(p, u)| (p.open, u)).collect();
            let mut want: Vec<(Span, u32)> = pairs
                .iter()
                .filter(|p| {
                    p.kind == '{'
                        && span.start <= p.open.start
                        && p.open.end <= span.end
                        && p.close.start >= span.end
                })
                .map(|p| {
                    let until = pairs
                        .iter()
                        .filter(|q| q.open.start <= p.open.start && q.close.end >= p.close.end)
                        .map(|q| q.close.end)
                        .max()
                        .unwrap_or(p.close.end);
                    (p.open, until)
                })
                .collect();
            got.sort_by_key(|(s, _)| s.start);
            want.sort_by_key(|(s, _)| s.start);
            assert_eq!(got, want, "{span:?}");
        }
    }
}
