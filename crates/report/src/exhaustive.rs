//! `exhaustive.json` (`"format": "fpforge-exhaustive"`, version [`EXHAUSTIVE_VERSION`]):
//! the result of `fpforge accuracy --exhaustive`, its chunk files
//! (`exhaustive/chunk-NNNNN.json`, the same tally for one chunk, read back by a resumed
//! run and by `fpforge merge`), and the one-line summary. Bits are hex text
//! (`0x3f800000`), values beside them decimal; ulp figures are JSON numbers that read
//! back to the same `f64`. See `docs/REPORTS.md`.

use crate::error::ReportError;
use fpforge_accuracy::exhaustive::{Case, Cases, MaxError, Recheck, Tally};
use serde::{Deserialize, Serialize};

/// The version of `exhaustive.json` and its chunk files.
pub const EXHAUSTIVE_VERSION: u32 = 1;

/// The `format` of `exhaustive.json`.
pub const FORMAT: &str = "fpforge-exhaustive";

/// The `format` of a chunk file.
pub const CHUNK_FORMAT: &str = "fpforge-exhaustive-chunk";

/// One input and its computed result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseJson {
    /// The input's bits.
    pub input: String,
    /// The input, shortest decimal.
    pub x: String,
    /// The computed result's bits.
    pub computed: String,
    /// The computed result, shortest decimal.
    pub y: String,
}

/// Inputs of one kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CasesJson {
    /// How many.
    pub count: u64,
    /// The first few by input bits.
    pub inputs: Vec<CaseJson>,
}

/// The largest error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaxJson {
    /// In ulps of the true value.
    pub ulps: f64,
    /// How many inputs reach it.
    pub count: u64,
    /// The first few of them by bits.
    pub inputs: Vec<CaseJson>,
}

/// What checking found over a set of inputs ([`Tally`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TallyJson {
    /// Inputs checked.
    pub inputs: u64,
    /// Of them, decided by the fast path.
    pub fast_path: u64,
    /// Of them, decided by MPFR.
    pub mpfr: u64,
    /// Results that are not correctly rounded (special findings included).
    pub incorrectly_rounded: u64,
    /// The largest error of a finite result, when at least `below`.
    pub max: Option<MaxJson>,
    /// Errors below this were not resolved (a lower bound of the run's largest error);
    /// left out of `exhaustive.json` when `max` is exact (its value depends on the order
    /// chunks ran in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<f64>,
    /// Whether `max` is exact for these inputs.
    pub exact: bool,
    /// NaN or infinite results where the true value is finite.
    pub wrong_special_values: CasesJson,
    /// Results other than the true infinite or undefined value.
    pub poles: CasesJson,
    /// Inputs on which the function trapped.
    pub traps: CasesJson,
    /// Inputs MPFR judged again to find the largest error (chunk files only: it depends
    /// on the order chunks ran in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved: Option<u64>,
}

fn hex(bits: u32) -> String {
    format!("0x{bits:08x}")
}

fn case_json(case: &Case) -> CaseJson {
    CaseJson {
        input: hex(case.input),
        x: format!("{:e}", f32::from_bits(case.input)),
        computed: hex(case.computed),
        y: format!("{:e}", f32::from_bits(case.computed)),
    }
}

fn read_hex(text: &str) -> Result<u32, ReportError> {
    text.strip_prefix("0x")
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .ok_or_else(|| bad(format!("`{text}` is not 0x and 8 hex digits")))
}

fn bad(message: String) -> ReportError {
    ReportError::Json(serde::de::Error::custom(message))
}

fn cases_json(cases: &Cases) -> CasesJson {
    CasesJson {
        count: cases.count,
        inputs: cases.listed.iter().map(case_json).collect(),
    }
}

fn cases_of(json: &CasesJson) -> Result<Cases, ReportError> {
    let listed = json
        .inputs
        .iter()
        .map(|c| {
            Ok(Case {
                input: read_hex(&c.input)?,
                computed: read_hex(&c.computed)?,
            })
        })
        .collect::<Result<Vec<_>, ReportError>>()?;
    Ok(Cases {
        count: json.count,
        listed,
    })
}

impl From<&Tally> for TallyJson {
    fn from(t: &Tally) -> TallyJson {
        TallyJson {
            inputs: t.inputs,
            fast_path: t.fast,
            mpfr: t.inputs - t.fast - t.traps.count,
            incorrectly_rounded: t.incorrectly_rounded,
            max: t.max.as_ref().map(|m| MaxJson {
                ulps: m.ulps,
                count: m.cases.count,
                inputs: m.cases.listed.iter().map(case_json).collect(),
            }),
            below: Some(t.below),
            exact: t.exact(),
            wrong_special_values: cases_json(&t.wrong_special),
            poles: cases_json(&t.poles),
            traps: cases_json(&t.traps),
            resolved: Some(t.resolved),
        }
    }
}

impl TallyJson {
    /// The tally as `exhaustive.json` gives it: what does not depend on the order the
    /// chunks ran in (`below` only when `max` is not exact, no `resolved`).
    pub fn result(t: &Tally) -> TallyJson {
        let mut json = TallyJson::from(t);
        if json.exact {
            json.below = None;
        }
        json.resolved = None;
        json
    }

    /// The tally it holds.
    pub fn tally(&self) -> Result<Tally, ReportError> {
        let max = match &self.max {
            Some(m) => Some(MaxError {
                ulps: m.ulps,
                cases: cases_of(&CasesJson {
                    count: m.count,
                    inputs: m.inputs.clone(),
                })?,
            }),
            None => None,
        };
        Ok(Tally {
            inputs: self.inputs,
            fast: self.fast_path,
            incorrectly_rounded: self.incorrectly_rounded,
            max,
            below: self.below.unwrap_or(0.0),
            wrong_special: cases_of(&self.wrong_special_values)?,
            poles: cases_of(&self.poles)?,
            traps: cases_of(&self.traps)?,
            resolved: self.resolved.unwrap_or(0),
        })
    }
}

/// One chunk's file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkJson {
    /// [`CHUNK_FORMAT`].
    pub format: String,
    /// [`EXHAUSTIVE_VERSION`].
    pub version: u32,
    /// The key of the run that wrote it (function, true function, range, chunking).
    pub key: String,
    /// The chunk's number.
    pub chunk: u64,
    /// What it found.
    pub tally: TallyJson,
}

impl ChunkJson {
    /// The file's text.
    pub fn to_json(&self) -> Result<String, ReportError> {
        Ok(serde_json::to_string(self)? + "\n")
    }

    /// Reads a chunk file; an error for another format or version.
    pub fn from_json(text: &str) -> Result<ChunkJson, ReportError> {
        let chunk: ChunkJson = serde_json::from_str(text)?;
        if chunk.format != CHUNK_FORMAT || chunk.version != EXHAUSTIVE_VERSION {
            return Err(bad(format!(
                "not a chunk of version {EXHAUSTIVE_VERSION} ({} {})",
                chunk.format, chunk.version
            )));
        }
        Ok(chunk)
    }
}

/// Which part of the input space a shard checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardJson {
    /// `K`, from 1.
    pub index: usize,
    /// `N`.
    pub count: usize,
}

/// The re-check of the largest error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecheckJson {
    /// MPFR precision in bits.
    pub precision: u32,
    /// The error of the first listed input at that precision.
    pub ulps: f64,
    /// Whether every listed input agrees with the reported figure to 1e-9.
    pub agreed: bool,
}

impl From<&Recheck> for RecheckJson {
    fn from(r: &Recheck) -> RecheckJson {
        RecheckJson {
            precision: r.precision,
            ulps: r.ulps,
            agreed: r.agreed,
        }
    }
}

/// `exhaustive.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExhaustiveJson {
    /// [`FORMAT`].
    pub format: String,
    /// [`EXHAUSTIVE_VERSION`].
    pub version: u32,
    /// The function checked.
    pub function: String,
    /// The true function, MPFR's name.
    pub oracle: String,
    /// How results were judged: `fast path (host double, bound B ulps) + MPFR` or `MPFR`.
    pub judged_by: String,
    /// The inputs of the run (canonical text of the range).
    pub range: String,
    /// How many inputs the range (all shards) holds.
    pub range_inputs: u64,
    /// The run's key: every shard of one run has the same.
    pub key: String,
    /// Chunks of the whole range.
    pub chunks: u64,
    /// Chunks this file's tally covers.
    pub chunks_done: u64,
    /// The shard, when this is one part of a run.
    pub shard: Option<ShardJson>,
    /// Whether every chunk of the run (or shard) is done.
    pub finished: bool,
    /// What checking found.
    pub tally: TallyJson,
    /// The largest error judged again at a higher precision.
    pub recheck: Option<RecheckJson>,
    /// Wall-clock seconds (of the longest shard, after a merge).
    pub seconds: f64,
}

impl ExhaustiveJson {
    /// The file's text.
    pub fn to_json(&self) -> Result<String, ReportError> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// Reads `exhaustive.json`; an error for another format or version.
    pub fn from_json(text: &str) -> Result<ExhaustiveJson, ReportError> {
        let file: ExhaustiveJson = serde_json::from_str(text)?;
        if file.format != FORMAT || file.version != EXHAUSTIVE_VERSION {
            return Err(bad(format!(
                "not exhaustive.json version {EXHAUSTIVE_VERSION} ({} {})",
                file.format, file.version
            )));
        }
        Ok(file)
    }

    /// The one-line summary: `expf: 1 inputs ... largest error 0.5 ulps at 0x... (x), N
    /// incorrectly rounded, ...`.
    pub fn summary(&self) -> String {
        let t = &self.tally;
        let max = match &t.max {
            Some(m) => {
                let at = m.inputs.first().map_or(String::new(), |c| {
                    let more = if m.count > 1 {
                        format!(" and {} more", m.count - 1)
                    } else {
                        String::new()
                    };
                    format!(" at {} ({}){more}", c.input, c.x)
                });
                let exact = if t.exact { "" } else { " (not exact)" };
                format!("largest error {:.6} ulps{at}{exact}", m.ulps)
            }
            None => "no finite error".to_string(),
        };
        let done = if self.finished { "" } else { " (interrupted)" };
        format!(
            "{}: {} inputs{done}, {max}, {} incorrectly rounded, {} wrong special values, {} poles, {} traps ({:.1} s)\n",
            self.function,
            t.inputs,
            t.incorrectly_rounded,
            t.wrong_special_values.count,
            t.poles.count,
            t.traps.count,
            self.seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_reads_back_equal() {
        let mut t = Tally {
            inputs: 10,
            fast: 7,
            incorrectly_rounded: 3,
            below: 0.25,
            resolved: 2,
            ..Tally::default()
        };
        let case = Case {
            input: 0x3f80_0001,
            computed: 0x402d_f854,
        };
        let mut cases = Cases::default();
        cases.add(case);
        t.max = Some(MaxError {
            ulps: 0.500_000_123_456_789_1,
            cases,
        });
        t.poles.add(case);
        let json = TallyJson::from(&t);
        let text = serde_json::to_string(&json).unwrap();
        let back: TallyJson = serde_json::from_str(&text).unwrap();
        assert_eq!(back.tally().unwrap(), t);
    }
}
