//! The (mu + lambda) evolution strategy of FloPSy (Lakhotia et al., ICTSS
//! 2010, §3.2; Schwefel's self-adaptive ES): mu = 15 parents, lambda = 100
//! offspring per generation, four recombination operators (discrete, global
//! discrete, intermediate, global intermediate) and self-adaptive Gaussian
//! mutation with a single step size or one per variable. Genes are real
//! numbers; each is rounded to its variable's sort before evaluation.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{float_value, sample, Objective, SearchEngine};
use crate::eval::Value;
use crate::sort::round_to;
use crate::sort::{SmtRounding, Sort};
use crate::term::mask;
use fpforge_search::Stepped;

/// Parents kept per generation.
pub const MU: usize = 15;
/// Offspring per generation.
pub const LAMBDA: usize = 100;
/// Generations without improvement before the population is re-seeded.
const STALL: u32 = 60;

/// How two (or all) parents combine into an offspring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recombination {
    /// Each gene from one of two parents.
    Discrete,
    /// Each gene from a parent drawn anew per gene.
    GlobalDiscrete,
    /// The mean of two parents.
    Intermediate,
    /// Per gene, the mean of two parents drawn anew.
    GlobalIntermediate,
}

/// Step-size adaptation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// One sigma for all genes.
    SingleSigma,
    /// One sigma per gene.
    MultiSigma,
}

#[derive(Clone, Debug)]
struct Individual {
    genes: Vec<f64>,
    sigmas: Vec<f64>,
    fit: f64,
}

/// ES state, one generation per step.
pub struct Es {
    rng: ChaCha8Rng,
    recombination: Recombination,
    mutation: Mutation,
    pop: Vec<Individual>,
    best: f64,
    stall: u32,
}

fn gene_of(v: Value) -> f64 {
    match v {
        Value::Bool(b) => f64::from(u8::from(b)),
        Value::F32(x) => f64::from(x),
        Value::F64(x) => x,
        Value::Bv(x, _) => x as f64,
        Value::Rm(r) => r.index() as f64,
        Value::Float(..) => unreachable!("local search runs on binary32/binary64 only"),
    }
}

fn value_of(sort: Sort, g: f64) -> Value {
    match sort {
        Sort::Bool => Value::Bool(g > 0.5),
        Sort::Fp(f) => float_value(f.expect_host(), round_to(f.expect_host(), g)),
        Sort::BitVec(w) => {
            let r = g.round();
            let v = if r.is_finite() {
                (r.rem_euclid(2f64.powi(w as i32))) as u64
            } else {
                0
            };
            Value::Bv(v & mask(w), w)
        }
        Sort::RoundingMode => {
            let i = if g.is_finite() {
                g.round().rem_euclid(5.0)
            } else {
                0.0
            };
            Value::Rm(SmtRounding::ALL[i as usize])
        }
    }
}

/// A standard normal deviate (Box–Muller).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = 1.0 - rng.gen::<f64>();
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

impl Es {
    /// An ES with the given operators, seeded with `seed`.
    pub fn new(seed: u64, recombination: Recombination, mutation: Mutation) -> Es {
        Es {
            rng: ChaCha8Rng::seed_from_u64(seed),
            recombination,
            mutation,
            pop: Vec::new(),
            best: f64::INFINITY,
            stall: 0,
        }
    }

    fn evaluate(&mut self, obj: &mut Objective<'_>, ind: &mut Individual) {
        let cand: Vec<Value> = obj
            .vars
            .iter()
            .zip(&ind.genes)
            .map(|(v, &g)| value_of(v.sort, g))
            .collect();
        ind.fit = obj.fitness(&cand);
    }

    fn seed_population(&mut self, obj: &mut Objective<'_>) {
        let keep = self.pop.first().cloned();
        self.pop.clear();
        let n = obj.vars.len();
        let sigma_len = match self.mutation {
            Mutation::SingleSigma => 1,
            Mutation::MultiSigma => n,
        };
        for k in 0..MU {
            let genes: Vec<f64> = (0..n)
                .map(|i| gene_of(sample(&mut self.rng, obj.vars[i].sort, obj.bounds[i])))
                .collect();
            let scale = genes
                .iter()
                .map(|g| g.abs())
                .filter(|g| g.is_finite())
                .fold(1.0, f64::max);
            let mut ind = Individual {
                genes,
                sigmas: vec![scale; sigma_len],
                fit: f64::INFINITY,
            };
            if k == 0 {
                if let Some(best) = &keep {
                    ind = best.clone();
                }
            }
            self.evaluate(obj, &mut ind);
            self.pop.push(ind);
        }
        self.stall = 0;
    }

    fn offspring(&mut self, n: usize) -> Individual {
        let pick = |rng: &mut ChaCha8Rng| rng.gen_range(0..MU);
        let (a, b) = (pick(&mut self.rng), pick(&mut self.rng));
        let mut child = self.pop[a].clone();
        for i in 0..n {
            let (p, q) = match self.recombination {
                Recombination::Discrete | Recombination::Intermediate => (a, b),
                _ => (pick(&mut self.rng), pick(&mut self.rng)),
            };
            child.genes[i] = match self.recombination {
                Recombination::Discrete | Recombination::GlobalDiscrete => {
                    if self.rng.gen() {
                        self.pop[p].genes[i]
                    } else {
                        self.pop[q].genes[i]
                    }
                }
                _ => {
                    let m = 0.5 * self.pop[p].genes[i] + 0.5 * self.pop[q].genes[i];
                    if m.is_nan() {
                        self.pop[p].genes[i]
                    } else {
                        m
                    }
                }
            };
        }
        for s in 0..child.sigmas.len() {
            child.sigmas[s] = 0.5 * (self.pop[a].sigmas[s] + self.pop[b].sigmas[s]);
        }
        // Self-adaptation: tau' for the global factor, tau per gene.
        let nf = n.max(1) as f64;
        let tau_global = 1.0 / (2.0 * nf).sqrt();
        let tau_local = 1.0 / (2.0 * nf.sqrt()).sqrt();
        let global = tau_global * normal(&mut self.rng);
        for s in child.sigmas.iter_mut() {
            *s = (*s * (global + tau_local * normal(&mut self.rng)).exp()).clamp(1e-300, 1e300);
        }
        for i in 0..n {
            let sigma = child.sigmas[i.min(child.sigmas.len() - 1)];
            let g = child.genes[i] + sigma * normal(&mut self.rng);
            if g.is_finite() || !child.genes[i].is_finite() {
                child.genes[i] = g;
            }
        }
        child
    }
}

impl SearchEngine for Es {
    fn step(&mut self, obj: &mut Objective<'_>) -> Stepped {
        let n = obj.vars.len();
        if n == 0 {
            obj.fitness(&[]);
            return Stepped::Exhausted;
        }
        if self.pop.len() != MU || self.stall >= STALL {
            self.seed_population(obj);
        }
        for _ in 0..LAMBDA {
            let mut child = self.offspring(n);
            self.evaluate(obj, &mut child);
            if obj.solution.is_some() {
                return Stepped::Continue;
            }
            self.pop.push(child);
        }
        self.pop.sort_by(|a, b| a.fit.total_cmp(&b.fit));
        self.pop.truncate(MU);
        if self.pop[0].fit < self.best {
            self.best = self.pop[0].fit;
            self.stall = 0;
        } else {
            self.stall += 1;
        }
        Stepped::Continue
    }
}
