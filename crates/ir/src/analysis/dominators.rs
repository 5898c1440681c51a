//! Immediate dominators of the blocks reachable from the entry, computed with the
//! iterative algorithm of Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
//! Algorithm" (2001), over reverse postorder.

use crate::analysis::cfg::Cfg;
use crate::entities::{Block, EntityId};

/// The dominator tree of a function's reachable blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dominators {
    /// Immediate dominator of each reachable block (the entry's is itself).
    idom: Vec<Option<Block>>,
}

impl Dominators {
    /// The dominators of the graph's blocks.
    pub fn new(cfg: &Cfg) -> Self {
        let mut idom: Vec<Option<Block>> = vec![None; cfg.len()];
        let rpo = cfg.reverse_postorder();
        let Some(&entry) = rpo.first() else {
            return Dominators { idom };
        };
        let mut rpo_number = vec![usize::MAX; cfg.len()];
        for (i, b) in rpo.iter().enumerate() {
            rpo_number[b.index()] = i;
        }
        idom[entry.index()] = Some(entry);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new_idom = None;
                for &p in cfg.preds(b) {
                    if idom[p.index()].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(other) => intersect(&idom, &rpo_number, p, other),
                    });
                }
                if new_idom.is_some() && idom[b.index()] != new_idom {
                    idom[b.index()] = new_idom;
                    changed = true;
                }
            }
        }
        Dominators { idom }
    }

    /// True when the entry reaches `b`.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.idom.get(b.index()).is_some_and(Option::is_some)
    }

    /// The immediate dominator of a reachable block other than the entry.
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom
            .get(b.index())
            .copied()
            .flatten()
            .filter(|&up| up != b)
    }

    /// True when `a` dominates `b` (every reachable block dominates itself).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        if !self.is_reachable(b) {
            return false;
        }
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom(x) {
                Some(up) => x = up,
                None => return false,
            }
        }
    }
}

fn intersect(idom: &[Option<Block>], rpo: &[usize], mut a: Block, mut b: Block) -> Block {
    while a != b {
        while rpo[a.index()] > rpo[b.index()] {
            match idom[a.index()] {
                Some(up) => a = up,
                None => return b,
            }
        }
        while rpo[b.index()] > rpo[a.index()] {
            match idom[b.index()] {
                Some(up) => b = up,
                None => return a,
            }
        }
    }
    a
}
