//! The SMT-LIB 2.6 lexical layer: tokens and s-expressions with source positions.
//!
//! [`Reader`] yields one top-level s-expression at a time, so a script's
//! earlier commands run even when a later one is malformed. Every node keeps
//! the line and column (1-based) where it starts, for error messages.

use std::fmt;

/// A 1-based source position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// An atom of SMT-LIB syntax.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Atom {
    /// A symbol (simple or `|quoted|`, quotes removed).
    Symbol(String),
    /// A keyword such as `:status` (with the colon).
    Keyword(String),
    /// A numeral, kept as text (it may exceed `u64`).
    Numeral(String),
    /// A decimal such as `1.5`.
    Decimal(String),
    /// `#b...`: value bits as text.
    Binary(String),
    /// `#x...`: hex digits as text.
    Hex(String),
    /// A string literal, unescaped.
    Str(String),
}

/// An s-expression with its start position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SExpr {
    /// An atom.
    Atom(Atom, Pos),
    /// A parenthesized list.
    List(Vec<SExpr>, Pos),
}

impl SExpr {
    /// Where this expression starts.
    pub fn pos(&self) -> Pos {
        match self {
            SExpr::Atom(_, p) | SExpr::List(_, p) => *p,
        }
    }

    /// The symbol's name if this is a symbol.
    pub fn symbol(&self) -> Option<&str> {
        match self {
            SExpr::Atom(Atom::Symbol(s), _) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for SExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SExpr::Atom(a, _) => match a {
                Atom::Symbol(s) | Atom::Keyword(s) | Atom::Numeral(s) | Atom::Decimal(s) => {
                    write!(f, "{s}")
                }
                Atom::Binary(s) => write!(f, "#b{s}"),
                Atom::Hex(s) => write!(f, "#x{s}"),
                Atom::Str(s) => write!(f, "\"{}\"", s.replace('"', "\"\"")),
            },
            SExpr::List(items, _) => {
                write!(f, "(")?;
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, " ")?;
                    }
                    write!(f, "{it}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// A lexical or structural error at a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where.
    pub pos: Pos,
    /// What.
    pub msg: String,
}

/// Reads top-level s-expressions from a script.
pub struct Reader<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    pos: Pos,
}

/// Deepest list nesting accepted; deeper input is rejected with an error
/// rather than risking the stack in later recursive passes.
pub const MAX_DEPTH: usize = 1000;

fn is_symbol_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c)
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`.
    pub fn new(text: &'a str) -> Reader<'a> {
        Reader {
            chars: text.chars().peekable(),
            pos: Pos { line: 1, col: 1 },
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.pos.line += 1;
            self.pos.col = 1;
        } else {
            self.pos.col += 1;
        }
        Some(c)
    }

    fn skip_blank(&mut self) {
        while let Some(&c) = self.chars.peek() {
            if c == ';' {
                while let Some(c) = self.bump() {
                    if c == '\n' {
                        break;
                    }
                }
            } else if c.is_whitespace() {
                self.bump();
            } else {
                break;
            }
        }
    }

    fn err(&self, pos: Pos, msg: impl Into<String>) -> SyntaxError {
        SyntaxError {
            pos,
            msg: msg.into(),
        }
    }

    /// The next top-level s-expression, `Ok(None)` at end of input.
    pub fn next_sexpr(&mut self) -> Result<Option<SExpr>, SyntaxError> {
        self.skip_blank();
        if self.chars.peek().is_none() {
            return Ok(None);
        }
        self.sexpr().map(Some)
    }

    fn sexpr(&mut self) -> Result<SExpr, SyntaxError> {
        // Iterative over nesting depth so deep inputs cannot overflow the stack.
        let mut stack: Vec<(Vec<SExpr>, Pos)> = Vec::new();
        loop {
            self.skip_blank();
            let start = self.pos;
            let Some(&c) = self.chars.peek() else {
                let open = stack.last().map(|s| s.1).unwrap_or(start);
                return Err(self.err(open, "unbalanced '(': input ends inside this list"));
            };
            let done = match c {
                '(' => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(
                            self.err(start, format!("lists nested deeper than {MAX_DEPTH}"))
                        );
                    }
                    self.bump();
                    stack.push((Vec::new(), start));
                    continue;
                }
                ')' => {
                    self.bump();
                    let Some((items, p)) = stack.pop() else {
                        return Err(self.err(start, "unexpected ')'"));
                    };
                    SExpr::List(items, p)
                }
                _ => SExpr::Atom(self.atom()?, start),
            };
            match stack.last_mut() {
                Some((items, _)) => items.push(done),
                None => return Ok(done),
            }
        }
    }

    fn atom(&mut self) -> Result<Atom, SyntaxError> {
        let start = self.pos;
        let c = *self.chars.peek().expect("caller peeked");
        let take_while = |r: &mut Self, f: &dyn Fn(char) -> bool| {
            let mut s = String::new();
            while let Some(&c) = r.chars.peek() {
                if !f(c) {
                    break;
                }
                s.push(c);
                r.bump();
            }
            s
        };
        match c {
            '|' => {
                self.bump();
                let mut s = String::new();
                loop {
                    match self.bump() {
                        Some('|') => return Ok(Atom::Symbol(s)),
                        Some(c) => s.push(c),
                        None => return Err(self.err(start, "unterminated |quoted symbol|")),
                    }
                }
            }
            '"' => {
                self.bump();
                let mut s = String::new();
                loop {
                    match self.bump() {
                        Some('"') if self.chars.peek() == Some(&'"') => {
                            self.bump();
                            s.push('"');
                        }
                        Some('"') => return Ok(Atom::Str(s)),
                        Some(c) => s.push(c),
                        None => return Err(self.err(start, "unterminated string literal")),
                    }
                }
            }
            '#' => {
                self.bump();
                match self.bump() {
                    Some('b') => {
                        let s = take_while(self, &|c| c == '0' || c == '1');
                        if s.is_empty() {
                            return Err(self.err(start, "empty #b literal"));
                        }
                        Ok(Atom::Binary(s))
                    }
                    Some('x') => {
                        let s = take_while(self, &|c| c.is_ascii_hexdigit());
                        if s.is_empty() {
                            return Err(self.err(start, "empty #x literal"));
                        }
                        Ok(Atom::Hex(s))
                    }
                    _ => Err(self.err(start, "expected #b or #x literal")),
                }
            }
            ':' => {
                self.bump();
                let s = take_while(self, &is_symbol_char);
                Ok(Atom::Keyword(format!(":{s}")))
            }
            c if c.is_ascii_digit() => {
                let s = take_while(self, &|c| c.is_ascii_digit() || c == '.');
                if s.contains('.') {
                    if s.matches('.').count() > 1 || s.ends_with('.') {
                        return Err(self.err(start, format!("malformed decimal '{s}'")));
                    }
                    Ok(Atom::Decimal(s))
                } else {
                    Ok(Atom::Numeral(s))
                }
            }
            c if is_symbol_char(c) => Ok(Atom::Symbol(take_while(self, &is_symbol_char))),
            c => Err(self.err(start, format!("unexpected character '{c}'"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(s: &str) -> Result<Vec<SExpr>, SyntaxError> {
        let mut r = Reader::new(s);
        let mut v = Vec::new();
        while let Some(e) = r.next_sexpr()? {
            v.push(e);
        }
        Ok(v)
    }

    #[test]
    fn reads_nested_lists_with_positions() {
        let v = read_all("; c\n(assert (fp.lt x #b01))\n  (check-sat)").unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].pos(), Pos { line: 2, col: 1 });
        assert_eq!(v[1].pos(), Pos { line: 3, col: 3 });
        assert_eq!(v[0].to_string(), "(assert (fp.lt x #b01))");
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = read_all("(assert\n  (and a b)").unwrap_err();
        assert_eq!(e.pos, Pos { line: 1, col: 1 });
        let e = read_all("(a))").unwrap_err();
        assert_eq!(e.pos, Pos { line: 1, col: 4 });
        let e = read_all("(a \"x)").unwrap_err();
        assert_eq!(e.pos, Pos { line: 1, col: 4 });
        let e = read_all("(a #q)").unwrap_err();
        assert_eq!(e.pos, Pos { line: 1, col: 4 });
        let deep = "(".repeat(MAX_DEPTH + 1);
        let e = read_all(&deep).unwrap_err();
        assert_eq!(
            e.pos,
            Pos {
                line: 1,
                col: MAX_DEPTH as u32 + 1
            }
        );
    }

    #[test]
    fn quoted_symbols_strings_and_numbers() {
        let v = read_all("(|a b| \"x\"\"y\" 12 1.5 #xfF :k)").unwrap();
        let SExpr::List(items, _) = &v[0] else {
            panic!("expected list")
        };
        assert_eq!(items[0].symbol(), Some("a b"));
        assert!(matches!(&items[1], SExpr::Atom(Atom::Str(s), _) if s == "x\"y"));
        assert!(matches!(&items[2], SExpr::Atom(Atom::Numeral(s), _) if s == "12"));
        assert!(matches!(&items[3], SExpr::Atom(Atom::Decimal(s), _) if s == "1.5"));
        assert!(matches!(&items[4], SExpr::Atom(Atom::Hex(s), _) if s == "fF"));
        assert!(matches!(&items[5], SExpr::Atom(Atom::Keyword(s), _) if s == ":k"));
    }
}
