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
//!           | "default" | "case" V     a switch's default or its case of value V
//! ```
//!
//! A decision is a side name as every command prints it ([`Module::parse_side`]).
//!
//! `(br2:T br4:F)x12` repeats the group twelve times. A run **takes** a path when the
//! sequence of its decisions at the sites the spec names begins with the spec's
//! decisions: branches at other sites are free, and the run may go on after the last
//! decision (write the loop's exit decision to ask for an exact iteration count).

use crate::error::ExploreError;
use fpir::{BranchSite, Module, Side};
use std::collections::HashSet;

/// A parsed, expanded path: the decisions in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathSpec {
    /// Decisions in execution order (loops expanded).
    pub decisions: Vec<Side>,
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

    /// How far a run's decisions follow the spec: the number of spec decisions matched,
    /// and whether the run diverged (`true`) or ran out (`false`) when not all matched.
    /// Also returns, for each matched decision, its index in `run`.
    pub fn follow(&self, run: &[Side]) -> Follow {
        let sites = self.sites();
        let mut matched = 0;
        let mut at = Vec::new();
        for (i, &side) in run.iter().enumerate() {
            if matched == self.decisions.len() {
                break;
            }
            if !sites.contains(&side.site) {
                continue;
            }
            if self.decisions[matched] != side {
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

    /// The expanded path in the spec grammar, side names as [`Module::side_name`] gives.
    pub fn text(&self, module: &Module) -> String {
        let texts: Vec<String> = self
            .decisions
            .iter()
            .map(|&d| module.side_name(d))
            .collect();
        texts.join(" ")
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
    // `case 2` written with a space: glue the value to the preceding `...:case`.
    let mut glued: Vec<Token> = Vec::new();
    for t in tokens {
        match (&t, glued.last_mut()) {
            (Token::Word(w), Some(Token::Word(prev)))
                if prev.ends_with(":case") && w.parse::<i64>().is_ok() =>
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
) -> Result<Vec<Side>, ExploreError> {
    let bad = |reason: &str| ExploreError::PathSyntax {
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let mut out = Vec::new();
    while *pos < tokens.len() {
        match &tokens[*pos] {
            Token::Word(w) => {
                out.push(module.parse_side(w).map_err(|e| ExploreError::PathSyntax {
                    text: text.to_string(),
                    reason: e.to_string(),
                })?);
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
