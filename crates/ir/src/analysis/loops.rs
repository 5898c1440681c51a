//! Loop headers: the blocks that are the target of a back edge (an edge whose target
//! dominates its source). Every natural loop has exactly one; a loop that does not
//! terminate keeps returning to its header.

use crate::analysis::cfg::Cfg;
use crate::analysis::dominators::Dominators;
use crate::entities::Block;

/// The loop headers of the graph's reachable blocks, in reverse postorder.
pub fn loop_headers(cfg: &Cfg, doms: &Dominators) -> Vec<Block> {
    cfg.reverse_postorder()
        .into_iter()
        .filter(|&h| cfg.preds(h).iter().any(|&p| doms.dominates(h, p)))
        .collect()
}
