//! Observers: what a run records. The interpreter calls [`Observer::on_cond`] at every
//! conditional branch (by default passed on to [`Observer::on_branch`]),
//! [`Observer::on_branch`] at every switch, and [`Observer::on_op`] after every
//! floating-point operation and math call when [`Observer::OBSERVES_OPS`] is set.
//! Observers are monomorphized with the interpreter, so [`NoObserver`] and the disabled
//! hooks cost nothing.

use fpir::{Arm, BranchSite, OpSite, Side};

/// One executed branch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BranchEvent {
    /// Which branch, and where it went.
    pub side: Side,
    /// Concrete bits of the deciding comparison's `lhs` and `rhs` for a conditional branch
    /// whose site records one (`module.branch_sites[site].cmp`); `[scrutinee, 0]` for a
    /// switch; `None` otherwise.
    pub operands: Option<[u64; 2]>,
}

/// One executed floating-point operation or math call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OpEvent {
    /// Which operation (`module.op_sites[site]` says what it computes).
    pub site: OpSite,
    /// Concrete bits of the operands; only the first [`OpEvent::arity`] are meaningful.
    pub operands: [u64; 3],
    /// Number of operands.
    pub arity: u8,
    /// Concrete bits of the result.
    pub result: u64,
}

impl OpEvent {
    /// The meaningful operands.
    pub fn args(&self) -> &[u64] {
        &self.operands[..usize::from(self.arity).min(3)]
    }
}

/// Receives run events. Every hook defaults to doing nothing.
pub trait Observer {
    /// Whether [`Observer::on_branch`] is called (set to false to skip computing events).
    const OBSERVES_BRANCHES: bool = true;
    /// Whether [`Observer::on_op`] is called.
    const OBSERVES_OPS: bool = false;

    /// A conditional branch or switch was decided.
    fn on_branch(&mut self, ev: &BranchEvent) {
        let _ = ev;
    }

    /// A conditional branch at `site` took its `then` edge (`taken`) or its `else` edge;
    /// `operands` is [`BranchEvent::operands`]. The default reports it to
    /// [`Observer::on_branch`]; an observer that needs no operands can take the outcome
    /// straight from the arguments (cheaper than copying it out of a [`BranchEvent`]).
    #[inline]
    fn on_cond(&mut self, site: BranchSite, taken: bool, operands: Option<[u64; 2]>) {
        self.on_branch(&BranchEvent {
            side: Side {
                site,
                arm: Arm::cond(taken),
            },
            operands,
        });
    }

    /// Several branches in execution order, all at once: a run compiled to native code
    /// reports its branches when it returns. The default reports each as the
    /// interpreter does, conditional branches through [`Observer::on_cond`].
    #[inline]
    fn on_branches<I: ExactSizeIterator<Item = BranchEvent>>(&mut self, events: I) {
        for ev in events {
            match ev.side.arm {
                Arm::True => self.on_cond(ev.side.site, true, ev.operands),
                Arm::False => self.on_cond(ev.side.site, false, ev.operands),
                Arm::Case(_) | Arm::Default => self.on_branch(&ev),
            }
        }
    }

    /// A floating-point operation or math call produced its result.
    fn on_op(&mut self, ev: &OpEvent) {
        let _ = ev;
    }
}

impl<O: Observer> Observer for &mut O {
    const OBSERVES_BRANCHES: bool = O::OBSERVES_BRANCHES;
    const OBSERVES_OPS: bool = O::OBSERVES_OPS;

    #[inline]
    fn on_branch(&mut self, ev: &BranchEvent) {
        (**self).on_branch(ev);
    }

    #[inline]
    fn on_cond(&mut self, site: BranchSite, taken: bool, operands: Option<[u64; 2]>) {
        (**self).on_cond(site, taken, operands);
    }

    #[inline]
    fn on_branches<I: ExactSizeIterator<Item = BranchEvent>>(&mut self, events: I) {
        (**self).on_branches(events);
    }

    #[inline]
    fn on_op(&mut self, ev: &OpEvent) {
        (**self).on_op(ev);
    }
}

/// Records nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    const OBSERVES_BRANCHES: bool = false;
}

/// Records every branch outcome in order.
#[derive(Clone, Debug, Default)]
pub struct BranchTrace {
    /// The sides taken, in execution order.
    pub events: Vec<Side>,
}

impl BranchTrace {
    /// Forgets the recorded events (keeps the allocation).
    pub fn clear(&mut self) {
        self.events.clear();
    }
}

impl Observer for BranchTrace {
    #[inline]
    fn on_branch(&mut self, ev: &BranchEvent) {
        self.events.push(ev.side);
    }

    #[inline]
    fn on_cond(&mut self, site: BranchSite, taken: bool, _operands: Option<[u64; 2]>) {
        self.events.push(Side {
            site,
            arm: Arm::cond(taken),
        });
    }

    #[inline]
    fn on_branches<I: ExactSizeIterator<Item = BranchEvent>>(&mut self, events: I) {
        self.events.extend(events.map(|ev| ev.side));
    }
}

/// Records every branch event (with operands) and every op event in order.
#[derive(Clone, Debug, Default)]
pub struct FullTrace {
    /// Branch events in execution order.
    pub branches: Vec<BranchEvent>,
    /// Op events in execution order.
    pub ops: Vec<OpEvent>,
}

impl FullTrace {
    /// Forgets the recorded events (keeps the allocations).
    pub fn clear(&mut self) {
        self.branches.clear();
        self.ops.clear();
    }
}

impl Observer for FullTrace {
    const OBSERVES_OPS: bool = true;

    fn on_branch(&mut self, ev: &BranchEvent) {
        self.branches.push(*ev);
    }

    fn on_op(&mut self, ev: &OpEvent) {
        self.ops.push(*ev);
    }
}

/// Records every op event in order (and no branches).
#[derive(Clone, Debug, Default)]
pub struct OpTrace {
    /// Op events in execution order.
    pub events: Vec<OpEvent>,
}

impl OpTrace {
    /// Forgets the recorded events (keeps the allocation).
    pub fn clear(&mut self) {
        self.events.clear();
    }
}

impl Observer for OpTrace {
    const OBSERVES_BRANCHES: bool = false;
    const OBSERVES_OPS: bool = true;

    fn on_op(&mut self, ev: &OpEvent) {
        self.events.push(*ev);
    }
}
