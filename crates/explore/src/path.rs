//! Path specifications: the branch decisions a run must take.
//!
//! Grammar (whitespace separates items):
//!
//! ```text
//! spec     := item*
//! item     := decision | "(" item* ")" "x" COUNT
//! decision := site ":" side
//! site     := "br" N                   a branch site id (`fpforge sites`)
//!           | FILE ":" LINE [":" COL]   a source position (the file's name or a suffix)
//! side     := "T" | "F"                then / else of a conditional branch
//!           | "default" | "case" I     a switch's default or its case number I (source order)
//! ```
//!
//! `(br2:T br4:F)x12` repeats the group twelve times. A run **takes** a path when the
//! sequence of its decisions at the sites the spec names begins with the spec's
//! decisions: branches at other sites are free, and the run may go on after the last
//! decision (write the loop's exit decision to ask for an exact iteration count).

use crate::error::ExploreError;
use fpforge_exec::BranchOutcome;
use fpir::{BranchKind, BranchSite, EntityId, Module};
use std::collections::HashSet;
use std::fmt;

/// One branch decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decision {
    /// The branch or switch.
    pub site: BranchSite,
    /// The side it must take.
    pub outcome: BranchOutcome,
}

impl Decision {
    /// Parses one decision (`br7:T`, `file.c:41:F`, `br3:case 2`) against `module`.
    pub fn parse(text: &str, module: &Module) -> Result<Decision, ExploreError> {
        let bad = |reason: String| ExploreError::PathSyntax {
            text: text.to_string(),
            reason,
        };
        let t = text.trim();
        let (site_text, side_text) = match t.rsplit_once(':') {
            Some(x) => x,
            None => return Err(bad("expected SITE:SIDE".into())),
        };
        let site = resolve_site(site_text, module).map_err(bad)?;
        let data = &module.branch_sites[site];
        let side = side_text.trim();
        let outcome = match (data.kind, side) {
            (BranchKind::Cond, "T") => BranchOutcome::Cond(true),
            (BranchKind::Cond, "F") => BranchOutcome::Cond(false),
            (BranchKind::Switch { .. }, "default") => BranchOutcome::Case(None),
            (BranchKind::Switch { cases }, s) if s.starts_with("case") => {
                let i: u32 = s["case".len()..]
                    .trim()
                    .parse()
                    .map_err(|_| bad(format!("`{s}`: expected `case I`")))?;
                if i >= cases {
                    return Err(bad(format!("{site} has {cases} cases (0..{cases})")));
                }
                BranchOutcome::Case(Some(i))
            }
            (BranchKind::Cond, s) => {
                return Err(bad(format!(
                    "{site} is a conditional branch: side `{s}` must be T or F"
                )))
            }
            (BranchKind::Switch { .. }, s) => {
                return Err(bad(format!(
                    "{site} is a switch: side `{s}` must be `default` or `case I`"
                )))
            }
        };
        Ok(Decision { site, outcome })
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            BranchOutcome::Cond(true) => write!(f, "{}:T", self.site),
            BranchOutcome::Cond(false) => write!(f, "{}:F", self.site),
            BranchOutcome::Case(None) => write!(f, "{}:default", self.site),
            BranchOutcome::Case(Some(i)) => write!(f, "{}:case{i}", self.site),
        }
    }
}

/// `brN`, or `FILE:LINE[:COL]` naming exactly one branch site.
fn resolve_site(text: &str, module: &Module) -> Result<BranchSite, String> {
    let text = text.trim();
    if let Some(n) = text
        .strip_prefix("br")
        .and_then(|n| n.parse::<usize>().ok())
    {
        return if n < module.branch_sites.len() {
            Ok(BranchSite::new(n))
        } else {
            Err(format!(
                "no branch site {text} (the module has {})",
                module.branch_sites.len()
            ))
        };
    }
    let parts: Vec<&str> = text.split(':').collect();
    let (file, line, col) = match parts.as_slice() {
        [file, line] => (*file, line.parse::<u32>().ok(), None),
        [file, line, col] => (*file, line.parse::<u32>().ok(), col.parse::<u32>().ok()),
        _ => return Err(format!("`{text}` is neither brN nor FILE:LINE[:COL]")),
    };
    let line = line.ok_or_else(|| format!("`{text}`: bad line number"))?;
    let hits: Vec<BranchSite> = module
        .branch_sites
        .iter()
        .filter(|(_, d)| {
            d.loc.is_some_and(|l| {
                let name = module.files.get(l.file).map_or("", String::as_str);
                (name == file || name.ends_with(&format!("/{file}")))
                    && l.line == line
                    && col.is_none_or(|c| c == l.col)
            })
        })
        .map(|(s, _)| s)
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("no branch site at {text}")),
        many => Err(format!(
            "{text} has several branch sites ({}): add the column or use a site id",
            many.iter()
                .map(|s| format!(
                    "{s} at {}",
                    module.describe_loc(module.branch_sites[*s].loc)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// A parsed, expanded path: the decisions in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathSpec {
    /// Decisions in execution order (loops expanded).
    pub decisions: Vec<Decision>,
}

/// Repetitions allowed in one `(...)xN` group, and decisions in an expanded path.
const MAX_DECISIONS: usize = 1_000_000;

impl PathSpec {
    /// Parses a spec (see the module docs) against `module`.
    pub fn parse(text: &str, module: &Module) -> Result<PathSpec, ExploreError> {
        let tokens = tokenize(text);
        let mut pos = 0;
        let decisions = parse_items(text, &tokens, &mut pos, module, false)?;
        if pos != tokens.len() {
            return Err(ExploreError::PathSyntax {
                text: text.to_string(),
                reason: "unbalanced `)`".into(),
            });
        }
        if decisions.is_empty() {
            return Err(ExploreError::PathSyntax {
                text: text.to_string(),
                reason: "the path names no decision".into(),
            });
        }
        Ok(PathSpec { decisions })
    }

    /// The sites the spec names.
    pub fn sites(&self) -> HashSet<BranchSite> {
        self.decisions.iter().map(|d| d.site).collect()
    }

    /// How far a run's decisions `(site, outcome)` follow the spec: the number of spec
    /// decisions matched, and whether the run diverged (`true`) or ran out (`false`)
    /// when not all matched. Also returns, for each matched decision, its index in `run`.
    pub fn follow(&self, run: &[(BranchSite, BranchOutcome)]) -> Follow {
        let sites = self.sites();
        let mut matched = 0;
        let mut at = Vec::new();
        for (i, &(site, outcome)) in run.iter().enumerate() {
            if matched == self.decisions.len() {
                break;
            }
            if !sites.contains(&site) {
                continue;
            }
            let want = self.decisions[matched];
            if want.site != site || want.outcome != outcome {
                return Follow {
                    matched,
                    positions: at,
                    diverged_at: Some(i),
                };
            }
            at.push(i);
            matched += 1;
        }
        Follow {
            matched,
            positions: at,
            diverged_at: None,
        }
    }
}

impl fmt::Display for PathSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts: Vec<String> = self.decisions.iter().map(Decision::to_string).collect();
        f.write_str(&texts.join(" "))
    }
}

/// How a run follows a [`PathSpec`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Follow {
    /// Spec decisions the run took, in order.
    pub matched: usize,
    /// Index in the run of each matched decision.
    pub positions: Vec<usize>,
    /// Index in the run of the event at a spec site that disagreed with decision
    /// `matched` (`None`: the run ended first, or matched everything).
    pub diverged_at: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Open,
    /// `)` followed by `xN`.
    Close(usize),
    Word(String),
}

fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    let mut word = String::new();
    let flush = |word: &mut String, tokens: &mut Vec<Token>| {
        if !word.is_empty() {
            tokens.push(Token::Word(std::mem::take(word)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '(' => {
                flush(&mut word, &mut tokens);
                tokens.push(Token::Open);
            }
            ')' => {
                flush(&mut word, &mut tokens);
                let mut count = String::new();
                if chars.peek() == Some(&'x') {
                    chars.next();
                    while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                        count.push(d);
                        chars.next();
                    }
                }
                tokens.push(Token::Close(count.parse().unwrap_or(0)));
            }
            c if c.is_whitespace() || c == ',' => flush(&mut word, &mut tokens),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut tokens);
    // `case 2` written with a space: glue the number to the preceding `...:case`.
    let mut glued: Vec<Token> = Vec::new();
    for t in tokens {
        match (&t, glued.last_mut()) {
            (Token::Word(w), Some(Token::Word(prev)))
                if prev.ends_with(":case") && w.chars().all(|c| c.is_ascii_digit()) =>
            {
                prev.push_str(w);
            }
            _ => glued.push(t),
        }
    }
    glued
}

fn parse_items(
    text: &str,
    tokens: &[Token],
    pos: &mut usize,
    module: &Module,
    in_group: bool,
) -> Result<Vec<Decision>, ExploreError> {
    let bad = |reason: &str| ExploreError::PathSyntax {
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let mut out = Vec::new();
    while *pos < tokens.len() {
        match &tokens[*pos] {
            Token::Word(w) => {
                out.push(Decision::parse(w, module)?);
                *pos += 1;
            }
            Token::Open => {
                *pos += 1;
                let body = parse_items(text, tokens, pos, module, true)?;
                let Some(Token::Close(n)) = tokens.get(*pos) else {
                    return Err(bad("missing `)`"));
                };
                if *n == 0 {
                    return Err(bad(
                        "a group needs a repetition count: `(...)xN` with N >= 1",
                    ));
                }
                if body.len().saturating_mul(*n) + out.len() > MAX_DECISIONS {
                    return Err(bad("the expanded path is too long"));
                }
                *pos += 1;
                for _ in 0..*n {
                    out.extend_from_slice(&body);
                }
            }
            Token::Close(_) if in_group => return Ok(out),
            Token::Close(_) => return Err(bad("unbalanced `)`")),
        }
    }
    if in_group {
        return Err(bad("missing `)`"));
    }
    Ok(out)
}
