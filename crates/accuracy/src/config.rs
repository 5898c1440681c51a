//! The configuration of an accuracy run: budget, seed, oracle and its precisions,
//! strategy, which op sites carry FPGen's checks and which loop iterations are checked.

use crate::oracle::OracleChoice;
use fpforge_engine::ErrorMetric;
use fpforge_spec::{ArgSpec, OutArgSpec};

/// How candidates are generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CandidateStrategy {
    /// FPGen-style: a random phase for a base input, then rounds that search a subset of
    /// the coordinates (the rest stay at the base) toward the checks and the error.
    Search,
    /// Pure random sampling of the input space (the baseline).
    Random,
}

/// Which floating-point additions and subtractions carry the two checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SiteSelection {
    /// Every `fadd`/`fsub` of the entry function and the functions it may call.
    All,
    /// Those inside loops.
    Loops,
    /// Those on the given source lines (`file` matches the end of the recorded path).
    Lines(Vec<(String, u32)>),
}

impl std::str::FromStr for SiteSelection {
    type Err = String;

    /// `all`, `loops`, or `FILE:LINE[,FILE:LINE...]`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "all" => Ok(SiteSelection::All),
            "loops" => Ok(SiteSelection::Loops),
            _ => text
                .split(',')
                .map(|item| {
                    let (file, line) = item
                        .rsplit_once(':')
                        .ok_or_else(|| format!("`{item}` is not all, loops or FILE:LINE"))?;
                    let line: u32 = line
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad line number in `{item}`"))?;
                    Ok((file.trim().to_string(), line))
                })
                .collect::<Result<Vec<_>, String>>()
                .map(SiteSelection::Lines),
        }
    }
}

impl std::fmt::Display for SiteSelection {
    /// The `--sites` text that [`SiteSelection::from_str`](std::str::FromStr) reads back
    /// equal: `all`, `loops` or `FILE:LINE[,FILE:LINE...]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SiteSelection::All => f.write_str("all"),
            SiteSelection::Loops => f.write_str("loops"),
            SiteSelection::Lines(lines) => {
                let items: Vec<String> = lines
                    .iter()
                    .map(|(file, line)| format!("{file}:{line}"))
                    .collect();
                f.write_str(&items.join(","))
            }
        }
    }
}

/// Which executions of a site are checked (loop iterations, counted per site from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Executions `start, start + step, start + 2 step, ...`.
    Uniform {
        /// First checked execution.
        start: u64,
        /// Distance between checked executions (0 counts as 1).
        step: u64,
    },
    /// Executions `start, start + 1, start + 3, start + 7, ...` (`start + 2^k - 1`).
    Logarithmic {
        /// First checked execution.
        start: u64,
    },
}

impl Sampling {
    /// Whether execution number `n` (from 0) of a site is checked.
    pub fn checks(self, n: u64) -> bool {
        match self {
            Sampling::Uniform { start, step } => {
                n >= start && (n - start).is_multiple_of(step.max(1))
            }
            Sampling::Logarithmic { start } => n >= start && (n - start + 1).is_power_of_two(),
        }
    }
}

/// Parameters of [`crate::accuracy`]. Build with [`AccuracyConfig::default`] and the
/// `with_*` methods.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AccuracyConfig {
    /// Seed of every random choice (default 0). With an evaluation budget instead of a
    /// time limit the same seed gives the same report. (The run's evaluations, time and
    /// interrupt are its [`fpforge_search::Budget`]; the search stops at 95 % of the
    /// time, leaving the rest to re-measure the reported inputs.)
    pub seed: u64,
    /// MPFR precision of the reference in bits (default 128).
    pub precision: u32,
    /// Precision in bits at which every input that enters the kept worst inputs is
    /// measured again, its reference replacing the working one (default 2200: sums and
    /// differences of any binary64 values are exact at 2200 bits, so a reference that
    /// lost a tiny addend next to a huge one is corrected); `None` keeps the working
    /// reference.
    pub verify_precision: Option<u32>,
    /// What every candidate is measured against (default [`OracleChoice::Auto`]).
    pub oracle: OracleChoice,
    /// What errors are counted in, for the search, the ranking and the reports (default
    /// `None`: ulps when the oracle is a true function of the result's format, else the
    /// relative error, [`crate::metric::default_metric`]).
    pub metric: Option<ErrorMetric>,
    /// Largest precision in bits at which a reported error is recomputed (Ziv's
    /// strategy: the precision doubles from the one that found it until two successive
    /// errors agree to 2 digits; default 8192).
    pub ziv_max_precision: u32,
    /// Candidate generation (default [`CandidateStrategy::Search`]).
    pub strategy: CandidateStrategy,
    /// Sites with checks (default [`SiteSelection::All`]).
    pub sites: SiteSelection,
    /// Checked executions of each site (default: every one).
    pub sampling: Sampling,
    /// Inputs evaluated in the random phase before the first search round (default 200).
    pub random_phase: u64,
    /// Number of worst inputs kept (default 10): one per region, and under the ulps
    /// metric one per zero, pole or hill of the error ([`crate::regions`]).
    pub top_k: usize,
    /// Instruction budget of one run (default 20 000 000).
    pub fuel: u64,
    /// Parameter specs (`--arg`) (default: none, every parameter takes
    /// [`fpforge_spec::InputSpec`]'s default).
    pub args: Vec<ArgSpec>,
    /// Output arrays (`--out-arg`): when given, the error is measured on them (maximum
    /// over elements) instead of on the return value (default: none).
    pub out_args: Vec<OutArgSpec>,
}

impl std::str::FromStr for Sampling {
    type Err = String;

    /// `uniform:START:STEP` (STEP at least 1) or `log:START`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let num = |s: &str| -> Result<u64, String> {
            s.trim()
                .parse()
                .map_err(|_| format!("`{s}` is not a count"))
        };
        match text.split(':').collect::<Vec<_>>().as_slice() {
            ["uniform", start, step] => match num(step)? {
                0 => Err("STEP must be at least 1, not 0".to_string()),
                step => Ok(Sampling::Uniform {
                    start: num(start)?,
                    step,
                }),
            },
            ["log", start] => Ok(Sampling::Logarithmic { start: num(start)? }),
            _ => Err(format!(
                "expected uniform:START:STEP or log:START, got `{text}`"
            )),
        }
    }
}

impl std::fmt::Display for Sampling {
    /// The `--sampling` text that [`Sampling::from_str`](std::str::FromStr) reads back
    /// equal: `uniform:START:STEP` or `log:START`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sampling::Uniform { start, step } => write!(f, "uniform:{start}:{step}"),
            Sampling::Logarithmic { start } => write!(f, "log:{start}"),
        }
    }
}

impl Default for AccuracyConfig {
    fn default() -> Self {
        AccuracyConfig {
            seed: 0,
            precision: 128,
            verify_precision: Some(2200),
            oracle: OracleChoice::Auto,
            metric: None,
            ziv_max_precision: 8192,
            strategy: CandidateStrategy::Search,
            sites: SiteSelection::All,
            sampling: Sampling::Uniform { start: 0, step: 1 },
            random_phase: 200,
            top_k: 10,
            fuel: 20_000_000,
            args: Vec::new(),
            out_args: Vec::new(),
        }
    }
}

impl AccuracyConfig {
    /// Sets [`AccuracyConfig::seed`].
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// Sets [`AccuracyConfig::precision`].
    pub fn with_precision(mut self, bits: u32) -> Self {
        self.precision = bits;
        self
    }
    /// Sets [`AccuracyConfig::verify_precision`].
    pub fn with_verify_precision(mut self, bits: Option<u32>) -> Self {
        self.verify_precision = bits;
        self
    }
    /// Sets [`AccuracyConfig::oracle`].
    pub fn with_oracle(mut self, oracle: OracleChoice) -> Self {
        self.oracle = oracle;
        self
    }
    /// Sets [`AccuracyConfig::metric`].
    pub fn with_metric(mut self, metric: Option<ErrorMetric>) -> Self {
        self.metric = metric;
        self
    }
    /// Sets [`AccuracyConfig::ziv_max_precision`].
    pub fn with_ziv_max_precision(mut self, bits: u32) -> Self {
        self.ziv_max_precision = bits;
        self
    }
    /// Sets [`AccuracyConfig::strategy`].
    pub fn with_strategy(mut self, strategy: CandidateStrategy) -> Self {
        self.strategy = strategy;
        self
    }
    /// Sets [`AccuracyConfig::sites`].
    pub fn with_sites(mut self, sites: SiteSelection) -> Self {
        self.sites = sites;
        self
    }
    /// Sets [`AccuracyConfig::sampling`].
    pub fn with_sampling(mut self, sampling: Sampling) -> Self {
        self.sampling = sampling;
        self
    }
    /// Sets [`AccuracyConfig::top_k`].
    pub fn with_top_k(mut self, k: usize) -> Self {
        self.top_k = k;
        self
    }
    /// Sets [`AccuracyConfig::fuel`].
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = fuel;
        self
    }
    /// Sets [`AccuracyConfig::args`].
    pub fn with_args(mut self, args: Vec<ArgSpec>) -> Self {
        self.args = args;
        self
    }
    /// Sets [`AccuracyConfig::out_args`].
    pub fn with_out_args(mut self, outs: Vec<OutArgSpec>) -> Self {
        self.out_args = outs;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_schedules() {
        let u = Sampling::Uniform { start: 2, step: 3 };
        let picked: Vec<u64> = (0..12).filter(|&n| u.checks(n)).collect();
        assert_eq!(picked, [2, 5, 8, 11]);
        let l = Sampling::Logarithmic { start: 1 };
        let picked: Vec<u64> = (0..20).filter(|&n| l.checks(n)).collect();
        assert_eq!(picked, [1, 2, 4, 8, 16]);
    }

    #[test]
    fn sampling_and_sites_are_read_or_refused() {
        assert_eq!(
            "uniform:0:2".parse(),
            Ok(Sampling::Uniform { start: 0, step: 2 })
        );
        assert_eq!("log:3".parse(), Ok(Sampling::Logarithmic { start: 3 }));
        for bad in ["uniform:0:0", "every:3", "log:x"] {
            assert!(bad.parse::<Sampling>().is_err(), "{bad}");
        }
        assert_eq!("loops".parse(), Ok(SiteSelection::Loops));
        assert_eq!(
            "a.c:10, b.c:3".parse(),
            Ok(SiteSelection::Lines(vec![
                ("a.c".into(), 10),
                ("b.c".into(), 3)
            ]))
        );
        assert!("f.c:x".parse::<SiteSelection>().is_err());
    }

    #[test]
    fn sampling_and_sites_are_written_as_they_are_read() {
        for text in ["uniform:0:1", "uniform:5:3", "log:2"] {
            let sampling: Sampling = text.parse().unwrap();
            assert_eq!(sampling.to_string(), text);
        }
        for text in ["all", "loops", "src/a.c:10,b.c:3"] {
            let sites: SiteSelection = text.parse().unwrap();
            assert_eq!(sites.to_string(), text);
            assert_eq!(sites.to_string().parse(), Ok(sites));
        }
    }
}
