//! The declarations of Fortran 77 program units, read from fixed-form source: each
//! SUBROUTINE and FUNCTION with its dummy arguments, their types and whether each is an
//! array (and with which extents), so lowering can name the routine as Fortran does and
//! give its by-reference parameters their shapes.
//!
//! Fixed form: columns 1-5 a label, column 6 a continuation mark, 7-72 the statement;
//! `C`, `c`, `*` or `!` in column 1 (or a blank line) is a comment; a tab in the first
//! six columns starts the statement (a digit after it marks a continuation). Blanks are
//! not significant outside quotes, so statements are compared with blanks removed and
//! in upper case. Only what the header and the specification statements say is read
//! (type statements, DIMENSION, EXTERNAL, PARAMETER with integer values, IMPLICIT NONE);
//! other IMPLICIT rules leave the default types (I-N integer, else real).

use std::collections::HashMap;

/// One program unit: a SUBROUTINE or a FUNCTION.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Routine {
    /// The name in lower case (`dstep`).
    pub name: String,
    /// The result type of a FUNCTION (`double precision`); `None` for a SUBROUTINE.
    pub result: Option<String>,
    /// The dummy arguments in order.
    pub dummies: Vec<Dummy>,
    /// The line of the header in the text read (1-based).
    pub line: usize,
}

/// A dummy argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Dummy {
    /// The name in lower case.
    pub name: String,
    /// Its type as Fortran spells it, in lower case (`double precision`, `integer`,
    /// `character*(*)`).
    pub ty: String,
    /// The extents of an array, as written (upper case, blanks removed); `None` for a
    /// scalar.
    pub dims: Option<Vec<String>>,
    /// An EXTERNAL procedure passed as an argument, or an alternate return (`*`).
    pub procedure: bool,
    /// Integer PARAMETER values known where it is declared (for constant extents).
    pub constants: HashMap<String, i64>,
}

impl Routine {
    /// The symbol f2c and gfortran give it: the name, `_`, and a second `_` when the
    /// name has one (f2c's rule).
    pub fn symbol(&self) -> String {
        fpir::names::fortran_symbol(&self.name)
    }

    /// The signature people read: `double precision function dstep(double precision x,
    /// integer n)`, `subroutine dnorm(integer n, double precision x(n))`.
    pub fn signature(&self) -> String {
        let params: Vec<String> = self
            .dummies
            .iter()
            .map(|d| match (&d.dims, d.procedure) {
                (_, true) if d.name == "*" => "*".to_string(),
                (_, true) => format!("external {}", d.name),
                (Some(dims), _) => {
                    format!("{} {}({})", d.ty, d.name, dims.join(",").to_lowercase())
                }
                (None, _) => format!("{} {}", d.ty, d.name),
            })
            .collect();
        let head = match &self.result {
            Some(ty) => format!("{ty} function"),
            None => "subroutine".to_string(),
        };
        format!("{head} {}({})", self.name, params.join(", "))
    }

    /// Whether the C translation returns the result through hidden leading parameters:
    /// one for COMPLEX functions, two (buffer and length) for CHARACTER ones.
    pub fn hidden_leading(&self) -> usize {
        match self.result.as_deref() {
            Some(ty) if ty.starts_with("complex") || ty == "double complex" => 1,
            Some(ty) if ty.starts_with("character") => 2,
            _ => 0,
        }
    }
}

/// The statements of `text` in fixed form: each with the line it starts on.
fn statements(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        let first = line.chars().next();
        if matches!(first, Some('C' | 'c' | '*' | '!' | 'D' | 'd')) || line.trim().is_empty() {
            continue;
        }
        let (continued, body) = split_fixed(line);
        let body = strip_comment(body);
        match out.last_mut() {
            Some((_, text)) if continued => text.push_str(body),
            _ => out.push((i + 1, body.to_string())),
        }
    }
    out
}

/// Whether a line continues the statement before, and its statement field.
fn split_fixed(line: &str) -> (bool, &str) {
    if let Some(tab) = line[..line.len().min(6)].find('\t') {
        let rest = &line[tab + 1..];
        let continued = rest.starts_with(|c: char| c.is_ascii_digit() && c != '0');
        return (continued, if continued { &rest[1..] } else { rest });
    }
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mark = chars.get(5).map(|&(_, c)| c);
    let continued = mark.is_some_and(|c| c != ' ' && c != '0');
    let start = chars.get(6).map_or(line.len(), |&(i, _)| i);
    let end = chars.get(72).map_or(line.len(), |&(i, _)| i);
    (continued, &line[start..end.max(start)])
}

/// The text before a `!` comment outside quotes.
fn strip_comment(text: &str) -> &str {
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '!') => return &text[..i],
            _ => {}
        }
    }
    text
}

/// A statement without blanks outside quotes, in upper case outside quotes.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote = None;
    for c in text.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (Some(q), c) if c == q => {
                quote = None;
                out.push(c);
            }
            (Some(_), c) => out.push(c),
            (None, c) if c.is_whitespace() => {}
            (None, c) => out.push(c.to_ascii_uppercase()),
        }
    }
    out
}

/// The type keywords, longest first, with how a signature spells them.
const TYPES: [(&str, &str); 8] = [
    ("DOUBLEPRECISION", "double precision"),
    ("DOUBLECOMPLEX", "double complex"),
    ("CHARACTER", "character"),
    ("INTEGER", "integer"),
    ("LOGICAL", "logical"),
    ("COMPLEX", "complex"),
    ("REAL", "real"),
    ("BYTE", "byte"),
];

/// A type at the start of `stmt` (`REAL*8`, `CHARACTER*(*)`): its spelling and the rest.
fn type_prefix(stmt: &str) -> Option<(String, &str)> {
    let (keyword, spelled) = TYPES.iter().find(|(k, _)| stmt.starts_with(k))?;
    let mut rest = &stmt[keyword.len()..];
    let mut ty = spelled.to_string();
    if let Some(after) = rest.strip_prefix('*') {
        let len = if after.starts_with('(') {
            let close = matching_paren(after)?;
            &after[..=close]
        } else {
            let digits = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            &after[..digits]
        };
        rest = &after[len.len()..];
        ty = match (*spelled, len) {
            ("real", "8") => "double precision".to_string(),
            ("complex", "16") => "double complex".to_string(),
            _ => format!("{spelled}*{}", len.to_lowercase()),
        };
    }
    Some((ty, rest))
}

/// The index of the `)` closing the `(` at the start of `text`.
fn matching_paren(text: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` split at the commas outside parentheses.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// Whether `stmt` has an `=` outside parentheses (an assignment, not a declaration).
fn assigns(stmt: &str) -> bool {
    let mut depth = 0i32;
    stmt.chars().any(|c| {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        c == '=' && depth == 0
    })
}

/// A header: the result type (`Some("")` for an untyped FUNCTION), the name and the
/// dummy names.
fn header(stmt: &str) -> Option<(Option<String>, String, Vec<String>)> {
    let stmt = stmt.strip_prefix("RECURSIVE").unwrap_or(stmt);
    let (result, rest) = match stmt.strip_prefix("SUBROUTINE") {
        Some(rest) => (None, rest),
        None => {
            let (ty, rest) = match type_prefix(stmt) {
                Some((ty, rest)) => (ty, rest),
                None => (String::new(), stmt),
            };
            let rest = rest.strip_prefix("RECURSIVE").unwrap_or(rest);
            (Some(ty), rest.strip_prefix("FUNCTION")?)
        }
    };
    let name_end = rest.find('(').unwrap_or(rest.len());
    let name = &rest[..name_end];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let args = if name_end < rest.len() {
        let inner = rest[name_end..].strip_prefix('(')?.strip_suffix(')')?;
        split_top(inner)
            .into_iter()
            .map(str::to_lowercase)
            .collect()
    } else {
        Vec::new()
    };
    Some((result, name.to_lowercase(), args))
}

/// One program unit being read.
struct Unit {
    routine: Routine,
    types: HashMap<String, String>,
    dims: HashMap<String, Vec<String>>,
    external: Vec<String>,
    constants: HashMap<String, i64>,
    implicit_none: bool,
}

impl Unit {
    fn declare(&mut self, ty: Option<&str>, entities: &str) {
        for entity in split_top(entities) {
            // `S*8` (a CHARACTER length), `A(LDA,*)`, `T(3)*8`.
            let (name, dims) = match entity.find('(') {
                Some(open) if open < entity.find('*').unwrap_or(usize::MAX) => {
                    let close = matching_paren(&entity[open..]).map_or(entity.len(), |c| open + c);
                    let inner = entity.get(open + 1..close).unwrap_or("");
                    let dims = split_top(inner).into_iter().map(str::to_string).collect();
                    (&entity[..open], Some(dims))
                }
                _ => (entity.split('*').next().unwrap_or(entity), None),
            };
            let name = name.to_lowercase();
            if let Some(ty) = ty {
                self.types.insert(name.clone(), ty.to_string());
            }
            if let Some(dims) = dims {
                self.dims.insert(name, dims);
            }
        }
    }

    fn read(&mut self, stmt: &str) {
        if stmt == "IMPLICITNONE" {
            self.implicit_none = true;
        } else if let Some(rest) = stmt.strip_prefix("DIMENSION") {
            self.declare(None, rest);
        } else if let Some(rest) = stmt.strip_prefix("EXTERNAL") {
            self.external
                .extend(split_top(rest).into_iter().map(str::to_lowercase));
        } else if let Some(rest) = stmt.strip_prefix("PARAMETER(") {
            for item in split_top(rest.strip_suffix(')').unwrap_or(rest)) {
                if let Some((name, value)) = item.split_once('=') {
                    if let Ok(v) = value.parse::<i64>() {
                        self.constants.insert(name.to_string(), v);
                    }
                }
            }
        } else if !assigns(stmt) && !stmt.starts_with("IMPLICIT") {
            if let Some((ty, rest)) = type_prefix(stmt) {
                if !rest.starts_with("FUNCTION") {
                    self.declare(Some(&ty), rest.trim_start_matches(','));
                }
            }
        }
    }

    fn finish(self) -> Routine {
        let mut routine = self.routine;
        for dummy in &mut routine.dummies {
            let implicit = if dummy.name.starts_with(|c: char| ('i'..='n').contains(&c)) {
                "integer"
            } else {
                "real"
            };
            dummy.ty = self
                .types
                .get(&dummy.name)
                .cloned()
                .unwrap_or_else(|| implicit.to_string());
            dummy.dims = self.dims.get(&dummy.name).cloned();
            dummy.procedure = dummy.name == "*" || self.external.contains(&dummy.name);
            dummy.constants = self.constants.clone();
        }
        if routine.result.as_deref() == Some("") {
            let implicit = if routine.name.starts_with(|c: char| ('i'..='n').contains(&c)) {
                "integer"
            } else {
                "real"
            };
            routine.result = Some(
                self.types
                    .get(&routine.name)
                    .cloned()
                    .unwrap_or_else(|| implicit.to_string()),
            );
        }
        routine
    }
}

/// The SUBROUTINEs and FUNCTIONs of a fixed-form Fortran text, in order.
pub(crate) fn routines(text: &str) -> Vec<Routine> {
    let mut found = Vec::new();
    let mut unit: Option<Unit> = None;
    for (line, stmt) in statements(text) {
        let stmt = normalize(&stmt);
        let stmt = stmt
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .to_string();
        if let Some((result, name, args)) = header(&stmt).filter(|_| unit.is_none()) {
            unit = Some(Unit {
                routine: Routine {
                    name,
                    result,
                    dummies: args
                        .into_iter()
                        .map(|name| Dummy {
                            name,
                            ty: String::new(),
                            dims: None,
                            procedure: false,
                            constants: HashMap::new(),
                        })
                        .collect(),
                    line,
                },
                types: HashMap::new(),
                dims: HashMap::new(),
                external: Vec::new(),
                constants: HashMap::new(),
                implicit_none: false,
            });
            continue;
        }
        let is_end =
            stmt == "END" || stmt.starts_with("ENDSUBROUTINE") || stmt.starts_with("ENDFUNCTION");
        if is_end {
            if let Some(done) = unit.take() {
                found.push(done.finish());
            }
            continue;
        }
        if let Some(unit) = unit.as_mut() {
            unit.read(&stmt);
        }
    }
    found.extend(unit.map(Unit::finish));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
C     A comment
      DOUBLE PRECISION FUNCTION DSTEP(X, H,
     &                                N)
      DOUBLE PRECISION X, H
      INTEGER N
      DSTEP = X * H
      END
      SUBROUTINE DNORM(N, X, A, LDA, F, R)
      INTEGER N, LDA
      PARAMETER (NMAX = 4)
      REAL*8 X(N), R, A(LDA, *), W(NMAX)
      EXTERNAL F
      R = 0
      END
      RECURSIVE SUBROUTINE DQK(F, A)
      DIMENSION A(0:3)
      END
";

    #[test]
    fn headers_types_and_arrays() {
        let found = routines(SOURCE);
        assert_eq!(found.len(), 3);
        assert_eq!(
            found[0].signature(),
            "double precision function dstep(double precision x, double precision h, integer n)"
        );
        assert_eq!(found[0].symbol(), "dstep_");
        assert_eq!(found[0].line, 2);
        assert_eq!(
            found[1].signature(),
            "subroutine dnorm(integer n, double precision x(n), double precision a(lda,*), integer lda, external f, double precision r)"
        );
        assert_eq!(found[1].dummies[1].dims, Some(vec!["N".to_string()]));
        assert_eq!(found[2].name, "dqk");
        assert_eq!(found[2].dummies[1].dims, Some(vec!["0:3".to_string()]));
    }
}
