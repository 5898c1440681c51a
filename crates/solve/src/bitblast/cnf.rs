//! Tseitin encoding of an [`Aig`] into CaDiCaL, and the SAT calls.
//!
//! Only the cone of what is asserted or assumed is encoded, each gate once,
//! with the three clauses of `g <-> a & b`; the constant node gets a variable
//! fixed to false by a unit clause. Encoding is incremental: later assertions
//! reuse the variables of gates already encoded, so one session answers many
//! queries over one graph (the property tests fix inputs by assumptions).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::aig::{Aig, Lit, Node};

/// Stops CaDiCaL at a deadline, or when another thread raises the interrupt flag.
struct Stop {
    deadline: Instant,
    interrupt: Option<Arc<AtomicBool>>,
}

impl cadical::Callbacks for Stop {
    fn terminate(&mut self) -> bool {
        Instant::now() >= self.deadline
            || self
                .interrupt
                .as_ref()
                .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

/// Gates encoded between two readings of the clock when a deadline is set.
const DEADLINE_CHECK_STEPS: u32 = 1024;

/// A SAT solver holding the encoded part of one graph.
pub struct SatSession {
    solver: cadical::Solver<Stop>,
    /// The SAT variable of each node, 0 while not encoded.
    vars: Vec<i32>,
    /// The highest SAT variable handed out (inputs may appear in no clause yet).
    last_var: i32,
    /// Raised by another thread to stop the search in progress.
    interrupt: Option<Arc<AtomicBool>>,
}

impl Default for SatSession {
    fn default() -> Self {
        SatSession::new()
    }
}

impl SatSession {
    /// An empty session.
    pub fn new() -> SatSession {
        let mut solver = cadical::Solver::new();
        solver.add_clause([-1]);
        SatSession {
            solver,
            vars: vec![1],
            last_var: 1,
            interrupt: None,
        }
    }

    /// Stops every later solve as soon as `flag` is raised (it answers `None`).
    pub fn interrupt_when(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
    }

    /// The DIMACS literal of `lit`, encoding its cone first.
    pub fn literal(&mut self, aig: &Aig, lit: Lit) -> i32 {
        self.encode(aig, lit.node(), None);
        self.dimacs(lit)
    }

    /// Encodes the cone of `root` until `deadline` (if any); whether it is all encoded.
    /// Every gate encoded has its clauses, so a later call resumes where this one stopped.
    fn encode(&mut self, aig: &Aig, root: usize, deadline: Option<Instant>) -> bool {
        if self.vars.len() < aig.len() {
            self.vars.resize(aig.len(), 0);
        }
        let mut stack = vec![root];
        let mut steps = 0u32;
        while let Some(&n) = stack.last() {
            if self.vars[n] != 0 {
                stack.pop();
                continue;
            }
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(DEADLINE_CHECK_STEPS)
                && deadline.is_some_and(|d| Instant::now() >= d)
            {
                return false;
            }
            match aig.node(n) {
                Node::False => unreachable!("node 0 is encoded at creation"),
                Node::Input => {
                    self.vars[n] = self.fresh_var();
                    stack.pop();
                }
                Node::And(a, b) => {
                    let pending: Vec<usize> = [a.node(), b.node()]
                        .into_iter()
                        .filter(|&c| self.vars[c] == 0)
                        .collect();
                    if !pending.is_empty() {
                        stack.extend(pending);
                        continue;
                    }
                    let g = self.fresh_var();
                    self.vars[n] = g;
                    let (la, lb) = (self.dimacs(a), self.dimacs(b));
                    self.solver.add_clause([-g, la]);
                    self.solver.add_clause([-g, lb]);
                    self.solver.add_clause([g, -la, -lb]);
                    stack.pop();
                }
            }
        }
        true
    }

    fn dimacs(&self, lit: Lit) -> i32 {
        let v = self.vars[lit.node()];
        if lit.is_complemented() {
            -v
        } else {
            v
        }
    }

    fn fresh_var(&mut self) -> i32 {
        self.last_var += 1;
        self.last_var
    }

    /// Asserts `lit` for every later solve.
    pub fn assert(&mut self, aig: &Aig, lit: Lit) {
        let l = self.literal(aig, lit);
        self.solver.add_clause([l]);
    }

    /// Asserts `lit` if its cone can be encoded by `deadline`; whether it was (the
    /// gates encoded so far are kept for the next call).
    pub fn assert_until(&mut self, aig: &Aig, lit: Lit, deadline: Instant) -> bool {
        if !self.encode(aig, lit.node(), Some(deadline)) {
            return false;
        }
        let l = self.dimacs(lit);
        self.solver.add_clause([l]);
        true
    }

    /// Solves under `assumptions` until `deadline`: `Some(true)` for sat,
    /// `Some(false)` for unsat, `None` when stopped.
    pub fn solve(&mut self, aig: &Aig, assumptions: &[Lit], deadline: Instant) -> Option<bool> {
        self.solve_assuming(aig, assumptions, u64::MAX, deadline)
    }

    /// Solves until `deadline` or `conflicts` conflicts, whichever comes first
    /// (`None` when stopped); a later call resumes with what was learnt.
    pub fn solve_limited(&mut self, conflicts: u64, deadline: Instant) -> Option<bool> {
        self.limit(conflicts, deadline);
        self.solver.solve()
    }

    /// [`SatSession::solve_limited`] under `assumptions`.
    pub fn solve_assuming(
        &mut self,
        aig: &Aig,
        assumptions: &[Lit],
        conflicts: u64,
        deadline: Instant,
    ) -> Option<bool> {
        let lits: Vec<i32> = assumptions.iter().map(|&l| self.literal(aig, l)).collect();
        self.limit(conflicts, deadline);
        self.solver.solve_with(lits)
    }

    fn limit(&mut self, conflicts: u64, deadline: Instant) {
        let limit = i32::try_from(conflicts).unwrap_or(i32::MAX);
        self.solver
            .set_limit("conflicts", limit)
            .expect("CaDiCaL knows the conflict limit");
        self.solver.set_callbacks(Some(Stop {
            deadline,
            interrupt: self.interrupt.clone(),
        }));
    }

    /// The value of `lit` in the last satisfying assignment (false for nodes
    /// outside every encoded cone: nothing constrains them).
    pub fn value(&self, lit: Lit) -> bool {
        let v = self.vars.get(lit.node()).copied().unwrap_or(0);
        let val = v != 0 && self.solver.value(v).unwrap_or(false);
        val ^ lit.is_complemented()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn xor_chain_is_solved_and_contradiction_refuted() {
        let mut g = Aig::new();
        let x = g.input();
        let y = g.input();
        let z = g.xor(x, y);
        let mut s = SatSession::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        s.assert(&g, z);
        assert_eq!(s.solve(&g, &[x], deadline), Some(true));
        assert!(s.value(x) && !s.value(y));
        assert_eq!(s.solve(&g, &[x, y], deadline), Some(false));
        assert_eq!(s.solve(&g, &[!x], deadline), Some(true));
        assert!(s.value(y));
    }
}
