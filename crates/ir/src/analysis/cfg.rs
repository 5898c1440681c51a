//! The control-flow graph of one function: successors and predecessors of each block
//! (a block reached by several edges of one terminator is listed once), reverse
//! postorder from the entry, and reachability.

use crate::entities::{Block, EntityId};
use crate::module::Function;

/// Successor and predecessor lists of a function's blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    succs: Vec<Vec<Block>>,
    preds: Vec<Vec<Block>>,
}

impl Cfg {
    /// The graph of `func`'s blocks. Edges to blocks that do not exist are dropped (the
    /// verifier reports them).
    pub fn new(func: &Function) -> Cfg {
        let n = func.blocks.len();
        let mut succs: Vec<Vec<Block>> = Vec::with_capacity(n);
        for block in func.blocks.values() {
            let mut targets: Vec<Block> = Vec::new();
            for call in block.term.targets() {
                if call.block.index() < n && !targets.contains(&call.block) {
                    targets.push(call.block);
                }
            }
            succs.push(targets);
        }
        let mut preds = vec![Vec::new(); n];
        for (b, targets) in succs.iter().enumerate() {
            for t in targets {
                preds[t.index()].push(Block::new(b));
            }
        }
        Cfg { succs, preds }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.succs.len()
    }

    /// True for a function without blocks.
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }

    /// The blocks `b` jumps to.
    pub fn succs(&self, b: Block) -> &[Block] {
        self.succs.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// The blocks that jump to `b`.
    pub fn preds(&self, b: Block) -> &[Block] {
        self.preds.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// For each block, whether some path from one of `from` reaches it (the starting
    /// blocks included), following the edges `next` gives for each block.
    pub fn reachable_with(
        &self,
        from: &[Block],
        mut next: impl FnMut(Block) -> Vec<Block>,
    ) -> Vec<bool> {
        let mut seen = vec![false; self.len()];
        let mut stack: Vec<Block> = from.to_vec();
        while let Some(b) = stack.pop() {
            match seen.get_mut(b.index()) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            stack.extend(next(b));
        }
        seen
    }

    /// For each block, whether a path from `from` reaches it (`from` itself included).
    pub fn reachable_from(&self, from: Block) -> Vec<bool> {
        self.reachable_with(&[from], |b| self.succs(b).to_vec())
    }

    /// The blocks reachable from the entry in postorder of a depth-first search that
    /// visits successors in terminator order.
    pub fn postorder(&self) -> Vec<Block> {
        let n = self.len();
        let mut order = Vec::with_capacity(n);
        if n == 0 {
            return order;
        }
        let mut visited = vec![false; n];
        let mut stack = vec![(Function::ENTRY, 0usize)];
        visited[0] = true;
        while let Some((block, next)) = stack.last_mut() {
            let b = *block;
            match self.succs(b).get(*next) {
                Some(&s) => {
                    *next += 1;
                    if !std::mem::replace(&mut visited[s.index()], true) {
                        stack.push((s, 0));
                    }
                }
                None => {
                    order.push(b);
                    stack.pop();
                }
            }
        }
        order
    }

    /// The blocks reachable from the entry in reverse postorder (the entry first).
    pub fn reverse_postorder(&self) -> Vec<Block> {
        let mut order = self.postorder();
        order.reverse();
        order
    }
}
