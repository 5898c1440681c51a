//! The and-inverter graph every circuit of the bit-precise backend is built in.
//!
//! A node is the constant `false`, a free input, or the conjunction of two
//! literals; a [`Lit`] is a node with an optional complement. [`Aig::and`]
//! folds constants (`x & 0 = 0`, `x & 1 = x`, `x & x = x`, `x & !x = 0`) and
//! hashes structurally, so a gate built twice from the same literals is one
//! node, and a circuit whose inputs are constants folds away entirely. Nodes are
//! numbered in creation order, children first, which [`crate::bitblast::cnf`]
//! relies on.

use std::collections::HashMap;
use std::ops::Not;

/// A node of the graph, possibly complemented: `2 * node + complemented`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit(u32);

impl Lit {
    /// The constant `false` (node 0).
    pub const FALSE: Lit = Lit(0);
    /// The constant `true`.
    pub const TRUE: Lit = Lit(1);

    /// The literal of `b`.
    pub fn constant(b: bool) -> Lit {
        if b {
            Lit::TRUE
        } else {
            Lit::FALSE
        }
    }

    /// The node this literal reads.
    pub fn node(self) -> usize {
        (self.0 >> 1) as usize
    }

    /// Whether the node's value is inverted.
    pub fn is_complemented(self) -> bool {
        self.0 & 1 == 1
    }

    /// The constant value, if this is a constant.
    pub fn as_constant(self) -> Option<bool> {
        (self.node() == 0).then_some(self.is_complemented())
    }
}

impl Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// Node 0, `false`.
    False,
    /// A free input.
    Input,
    /// The conjunction of two earlier literals.
    And(Lit, Lit),
}

/// The graph: nodes in creation order and the structural hash of the gates.
#[derive(Clone, Debug)]
pub struct Aig {
    nodes: Vec<Node>,
    gates: HashMap<(Lit, Lit), Lit>,
}

impl Default for Aig {
    fn default() -> Self {
        Aig::new()
    }
}

impl Aig {
    /// A graph holding only the constant.
    pub fn new() -> Aig {
        Aig {
            nodes: vec![Node::False],
            gates: HashMap::new(),
        }
    }

    /// The node `n`.
    pub fn node(&self, n: usize) -> Node {
        self.nodes[n]
    }

    /// Number of nodes, the constant included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the graph holds only the constant.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1
    }

    /// A fresh free input.
    pub fn input(&mut self) -> Lit {
        self.nodes.push(Node::Input);
        Lit(((self.nodes.len() - 1) as u32) << 1)
    }

    /// `a & b`, folded and shared.
    pub fn and(&mut self, a: Lit, b: Lit) -> Lit {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        if a == Lit::FALSE || a == !b {
            return Lit::FALSE;
        }
        if a == Lit::TRUE || a == b {
            return b;
        }
        if let Some(&g) = self.gates.get(&(a, b)) {
            return g;
        }
        self.nodes.push(Node::And(a, b));
        let g = Lit(((self.nodes.len() - 1) as u32) << 1);
        self.gates.insert((a, b), g);
        g
    }

    /// `a | b`.
    pub fn or(&mut self, a: Lit, b: Lit) -> Lit {
        !self.and(!a, !b)
    }

    /// `a ^ b`.
    pub fn xor(&mut self, a: Lit, b: Lit) -> Lit {
        let both = self.and(a, b);
        let neither = self.and(!a, !b);
        self.and(!both, !neither)
    }

    /// `a == b`.
    pub fn iff(&mut self, a: Lit, b: Lit) -> Lit {
        !self.xor(a, b)
    }

    /// `!a | b`.
    pub fn implies(&mut self, a: Lit, b: Lit) -> Lit {
        self.or(!a, b)
    }

    /// `if c then t else e`.
    pub fn ite(&mut self, c: Lit, t: Lit, e: Lit) -> Lit {
        if t == e {
            return t;
        }
        let on = self.and(c, t);
        let off = self.and(!c, e);
        self.or(on, off)
    }

    /// The conjunction of all `lits` (true when empty).
    pub fn and_all(&mut self, lits: impl IntoIterator<Item = Lit>) -> Lit {
        lits.into_iter().fold(Lit::TRUE, |acc, l| self.and(acc, l))
    }

    /// The disjunction of all `lits` (false when empty).
    pub fn or_all(&mut self, lits: impl IntoIterator<Item = Lit>) -> Lit {
        lits.into_iter().fold(Lit::FALSE, |acc, l| self.or(acc, l))
    }

    /// Simulates 64 assignments at once: bit `k` of `inputs(n)` is input node
    /// `n`'s value in assignment `k`; the result holds every node's 64 values.
    pub fn simulate(&self, inputs: &dyn Fn(usize) -> u64) -> Vec<u64> {
        let mut values = vec![0u64; self.nodes.len()];
        for (n, node) in self.nodes.iter().enumerate() {
            values[n] = match *node {
                Node::False => 0,
                Node::Input => inputs(n),
                Node::And(a, b) => Aig::read(&values, a) & Aig::read(&values, b),
            };
        }
        values
    }

    /// The 64 values of `lit` in a simulation's node values.
    pub fn read(values: &[u64], lit: Lit) -> u64 {
        let v = values[lit.node()];
        if lit.is_complemented() {
            !v
        } else {
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_fold_and_gates_are_shared() {
        let mut g = Aig::new();
        let x = g.input();
        let y = g.input();
        assert_eq!(g.and(x, Lit::FALSE), Lit::FALSE);
        assert_eq!(g.and(Lit::TRUE, x), x);
        assert_eq!(g.and(x, !x), Lit::FALSE);
        assert_eq!(g.and(x, x), x);
        let a = g.and(x, y);
        let b = g.and(y, x);
        assert_eq!(a, b);
        assert_eq!(g.len(), 4);
        assert_eq!(g.xor(x, Lit::FALSE), x);
        assert_eq!(g.ite(Lit::TRUE, x, y), x);
    }

    #[test]
    fn gates_compute_their_truth_tables() {
        let mut g = Aig::new();
        let x = g.input();
        let y = g.input();
        let xor = g.xor(x, y);
        let or = g.or(x, y);
        let ite = g.ite(x, y, !y);
        // Assignment k sets x to bit 0 of k and y to bit 1.
        let values = g.simulate(&|n| if n == 1 { 0b1010 } else { 0b1100 });
        let (a, b) = (0b1010u64, 0b1100u64);
        let low4 = |v: u64| v & 0xf;
        assert_eq!(low4(Aig::read(&values, xor)), low4(a ^ b));
        assert_eq!(low4(Aig::read(&values, or)), low4(a | b));
        assert_eq!(low4(Aig::read(&values, ite)), low4((a & b) | (!a & !b)));
    }
}
