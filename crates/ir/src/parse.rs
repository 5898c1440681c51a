//! Reads the IR text form printed by [`crate::write`] back into an equal [`Module`].
//!
//! A hand-written lexer turns the text into tokens carrying their line and column; a
//! recursive-descent parser then follows the printer's grammar line by line:
//!
//! ```text
//! module  := (file | extern | global | func | shape | NL)*
//! file    := "file" fileN STRING NL
//! extern  := "extern" STRING NL
//! global  := "global" gN STRING "align" INT ["const"] "=" x"HEX" reloc* NL
//! reloc   := "reloc" "(" INT "," (gN | fN) "," INT ")"
//! func    := "func" fN STRING [STRING] "(" [param ("," param)*] ")" ["->" type] [loc] "{" NL
//!            ("const" vN ":" type "=" value NL)* block+ "}" NL
//! shape   := "shape" fN INT ("vector" type | "span" type | "struct" STRING PASSING INT "{" [field ("," field)*] "}") NL
//! field   := STRING "@" INT ":" type
//! param   := vN ":" type ["<" type ">"] ["#" NAME]
//! block   := bbN ["(" [vN ":" type ("," vN ":" type)*] ")"] ":" NL (inst [loc] NL)* term [loc] NL
//! invoke  := "invoke" bbcall "," "unwind" bbcall "[" vN ":" "ptr" "," vN ":" "i32" "]"
//!            ["cleanup"] ("catch" "(" (vN | "null") "," INT ")")*
//! inst    := [vN ":" type "="] opcode operands [site]
//! site    := "@" (opN | brN)
//! loc     := "!" FILE ":" LINE ":" COL
//! ```
//!
//! A `;` starts a comment that runs to the end of its line (the printer writes none;
//! runtests keep their `; run:` expectations in them).
//!
//! Entities of each kind (files, globals, functions, blocks) are numbered in order of
//! appearance. Registers may be numbered freely but the ids used must be dense; each
//! register's type is the one written where it is defined (function parameter, block
//! parameter, constant or instruction result). Operand types and control flow are not
//! checked here: that is [`crate::verify`]'s job, so broken modules can be written as
//! text. Once parsed, the site tables are rebuilt with [`Module::index_sites`].
//!
//! The parser never panics: any input gives a module or a [`ParseError`] naming the line,
//! the column and what was expected there.

use crate::entities::{Block, BranchSite, EntityId, EntityVec, FileId, Func, Global, OpSite, Reg};
use crate::float_text::parse_float;
use crate::inst::{
    BlockCall, Builtin, Callee, CastOp, Clause, FloatBinOp, FloatPred, IndexTerm, Inst, InstKind,
    IntBinOp, IntPred, Landing, SwitchCase, Terminator, TrapCheck,
};
use crate::math::{MathCall, MathFn};
use crate::module::{AddrBase, BlockData, Const, Function, GlobalData, Module, Reloc, SrcLoc};
use crate::shape::{Extent, FieldShape, ParamShape, Passing, StructShape};
use crate::types::{FloatTy, Type};
use crate::write::{cast_name, float_bin_name, float_pred_name, int_bin_name, int_pred_name};
use std::collections::HashMap;
use std::fmt;

/// Malformed IR text, with its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses a module from IR text.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let tokens = Lexer::new(text).tokens()?;
    Parser::new(tokens).module()
}

/// A 1-based line and column.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Pos {
    line: usize,
    col: usize,
}

impl Pos {
    fn error(self, message: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line,
            col: self.col,
            message: message.into(),
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

#[derive(Clone, PartialEq, Debug)]
enum Tok {
    /// Keywords, entity ids, type and opcode names, `inf`, `nan`.
    Word(String),
    /// Numbers, `raw:` bit patterns and `g3+8` addresses.
    Lit(String),
    /// A quoted string with its escapes resolved.
    Str(String),
    /// The digits of an `x"..."` byte string.
    Hex(String),
    /// A `#name` parameter name, without the `#`.
    Name(String),
    Punct(char),
    Arrow,
    Newline,
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Word(w) | Tok::Lit(w) => write!(f, "`{w}`"),
            Tok::Str(s) => write!(f, "string {}", crate::write::quote(s)),
            Tok::Hex(_) => f.write_str("byte string"),
            Tok::Name(n) => write!(f, "`#{n}`"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Arrow => f.write_str("`->`"),
            Tok::Newline => f.write_str("end of line"),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    pos: Pos,
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    pos: Pos,
}

impl Lexer {
    fn new(text: &str) -> Self {
        Lexer {
            chars: text.chars().collect(),
            at: 0,
            pos: Pos { line: 1, col: 1 },
        }
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek_at(0)?;
        self.at += 1;
        if c == '\n' {
            self.pos.line += 1;
            self.pos.col = 1;
        } else {
            self.pos.col += 1;
        }
        Some(c)
    }

    fn take_while(&mut self, mut keep: impl FnMut(char) -> bool, out: &mut String) {
        while let Some(c) = self.peek_at(0).filter(|&c| keep(c)) {
            out.push(c);
            self.bump();
        }
    }

    fn tokens(mut self) -> Result<Vec<Token>, ParseError> {
        let mut tokens = Vec::new();
        loop {
            self.skip_blanks_and_comments();
            let pos = self.pos;
            let tok = self.token(pos)?;
            let done = tok == Tok::Eof;
            tokens.push(Token { tok, pos });
            if done {
                return Ok(tokens);
            }
        }
    }

    /// Skips spaces and a `;` comment up to (not including) the end of its line.
    fn skip_blanks_and_comments(&mut self) {
        while matches!(self.peek_at(0), Some(' ' | '\t' | '\r')) {
            self.bump();
        }
        if self.peek_at(0) == Some(';') {
            while self.peek_at(0).is_some_and(|c| c != '\n') {
                self.bump();
            }
        }
    }

    fn token(&mut self, pos: Pos) -> Result<Tok, ParseError> {
        let Some(c) = self.peek_at(0) else {
            return Ok(Tok::Eof);
        };
        let next_is_alnum = self.peek_at(1).is_some_and(|n| n.is_ascii_alphanumeric());
        Ok(match c {
            '\n' => {
                self.bump();
                Tok::Newline
            }
            '"' => Tok::Str(self.string(pos)?),
            '#' => {
                self.bump();
                let mut name = String::new();
                self.take_while(|c| !c.is_whitespace() && c != ',' && c != ')', &mut name);
                Tok::Name(name)
            }
            '-' if self.peek_at(1) == Some('>') => {
                self.bump();
                self.bump();
                Tok::Arrow
            }
            '-' | '+' if next_is_alnum => Tok::Lit(self.number()),
            c if c.is_ascii_digit() => Tok::Lit(self.number()),
            c if c.is_ascii_alphabetic() || c == '_' => self.word(pos)?,
            '(' | ')' | ',' | ':' | '=' | '[' | ']' | '{' | '}' | '<' | '>' | '*' | '!' | '@' => {
                self.bump();
                Tok::Punct(c)
            }
            other => return Err(pos.error(format!("unexpected character {other:?}"))),
        })
    }

    /// A number: optional sign, then letters, digits, `_` and `.`, with a sign allowed
    /// right after a decimal `e` or a hex-float `p` exponent marker.
    fn number(&mut self) -> String {
        let mut text = String::new();
        if let Some(sign @ ('-' | '+')) = self.peek_at(0) {
            text.push(sign);
            self.bump();
        }
        loop {
            match self.peek_at(0) {
                Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '.' => {
                    text.push(c);
                    self.bump();
                }
                Some(sign @ ('+' | '-')) => {
                    let hex = text.trim_start_matches(['-', '+']).starts_with("0x");
                    let marker = if hex { ['p', 'P'] } else { ['e', 'E'] };
                    if !text.ends_with(marker) {
                        return text;
                    }
                    text.push(sign);
                    self.bump();
                }
                _ => return text,
            }
        }
    }

    /// A word, or one of the literals that start like one: `x"..."`, `raw:...` and
    /// `g3+8`/`f2-4` addresses.
    fn word(&mut self, pos: Pos) -> Result<Tok, ParseError> {
        let mut word = String::new();
        self.take_while(
            |c| c.is_ascii_alphanumeric() || c == '_' || c == '.',
            &mut word,
        );
        let next = self.peek_at(0);
        if word == "x" && next == Some('"') {
            self.bump();
            let mut digits = String::new();
            self.take_while(|c| c != '"' && c != '\n', &mut digits);
            if self.bump() != Some('"') {
                return Err(pos.error("unterminated byte string"));
            }
            return Ok(Tok::Hex(digits));
        }
        if word == "raw" && next == Some(':') {
            self.bump();
            word.push(':');
            self.take_while(|c| c.is_ascii_alphanumeric(), &mut word);
            return Ok(Tok::Lit(word));
        }
        let is_entity = (word.starts_with('g') || word.starts_with('f'))
            && word.len() > 1
            && word[1..].bytes().all(|b| b.is_ascii_digit());
        if let Some(sign @ ('+' | '-')) = next {
            if is_entity && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
                word.push(sign);
                self.bump();
                self.take_while(|c| c.is_ascii_digit(), &mut word);
                return Ok(Tok::Lit(word));
            }
        }
        Ok(Tok::Word(word))
    }

    fn string(&mut self, pos: Pos) -> Result<String, ParseError> {
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                None => return Err(pos.error("unterminated string")),
                Some('"') => return Ok(s),
                Some('\\') => match self.bump() {
                    Some(c @ ('"' | '\\')) => s.push(c),
                    _ => return Err(pos.error("unknown escape in string (only \\\" and \\\\)")),
                },
                Some(c) => s.push(c),
            }
        }
    }
}

/// Finds the item of `all` whose text name is `name`.
fn lookup<T: Copy>(all: &[T], name_of: fn(T) -> &'static str, name: &str) -> Option<T> {
    all.iter().copied().find(|&x| name_of(x) == name)
}

fn type_from_name(name: &str) -> Option<Type> {
    match name {
        "ptr" => Some(Type::Ptr),
        "f32" => Some(Type::F32),
        "f64" => Some(Type::F64),
        _ => {
            let digits = name.strip_prefix('i')?;
            if !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let bits: u8 = digits.parse().ok()?;
            (1..=64).contains(&bits).then_some(Type::Int(bits))
        }
    }
}

/// Reads `gN+off` / `fN-off`.
fn parse_addr(text: &str) -> Option<(AddrBase, i64)> {
    let kind = text.get(..1)?;
    let sign = text.find(['+', '-'])?;
    let id: u32 = text.get(1..sign)?.parse().ok()?;
    let offset: i64 = text.get(sign..)?.parse().ok()?;
    let base = match kind {
        "g" => AddrBase::Global(Global(id)),
        "f" => AddrBase::Func(Func(id)),
        _ => return None,
    };
    Some((base, offset))
}

/// Reads a constant of type `ty`: an address, a float literal, a signed or unsigned
/// decimal integer that fits the width (stored masked to it), or `0x` pointer bits.
fn parse_const(ty: Type, text: &str) -> Result<Const, String> {
    if let Some((base, offset)) = parse_addr(text) {
        return Ok(Const::Addr(base, offset));
    }
    match ty {
        Type::Float(ft) => parse_float(ft, text)
            .map(Const::Bits)
            .map_err(|e| e.to_string()),
        Type::Int(width) => {
            let value: i128 = text
                .parse()
                .map_err(|_| format!("expected an {ty} constant, found `{text}`"))?;
            let bits = u32::from(width).clamp(1, 64);
            let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
            if value < lo || value > hi {
                return Err(format!("{value} does not fit in {ty}"));
            }
            Ok(Const::Bits(value as u64 & ty.mask()))
        }
        Type::Ptr => text
            .strip_prefix("0x")
            .and_then(|hex| u64::from_str_radix(hex, 16).ok())
            .map(Const::Bits)
            .ok_or_else(|| {
                format!(
                    "expected a pointer constant (`0x..`, `gN+off` or `fN+off`), found `{text}`"
                )
            }),
    }
}

fn decode_hex(digits: &str) -> Option<Vec<u8>> {
    let chars: Vec<char> = digits.chars().collect();
    chars
        .chunks(2)
        .map(|pair| {
            let hi = pair.first()?.to_digit(16)?;
            let lo = pair.get(1)?.to_digit(16)?;
            u8::try_from(hi << 4 | lo).ok()
        })
        .collect()
}

fn reg_number(tok: &Tok) -> Option<u32> {
    match tok {
        Tok::Word(w) => {
            let digits = w.strip_prefix('v')?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            digits.parse().ok()
        }
        _ => None,
    }
}

/// The registers of the function being parsed: where each is defined and first used.
#[derive(Default)]
struct FuncRegs {
    defs: HashMap<u32, (Type, Pos)>,
    uses: HashMap<u32, Pos>,
}

impl FuncRegs {
    /// The dense register table, or an error naming a register that is used or skipped
    /// but never defined.
    fn table(self, header: Pos) -> Result<EntityVec<Reg, Type>, ParseError> {
        let undefined = self
            .uses
            .iter()
            .filter(|(r, _)| !self.defs.contains_key(r))
            .min_by_key(|(_, pos)| **pos);
        if let Some((r, pos)) = undefined {
            return Err(pos.error(format!("v{r} is used but never defined")));
        }
        let n = self.defs.len();
        (0..n)
            .map(|i| {
                u32::try_from(i)
                    .ok()
                    .and_then(|r| self.defs.get(&r))
                    .map(|(ty, _)| *ty)
                    .ok_or_else(|| {
                        header.error(format!(
                            "v{i} is never defined: register ids must be dense (v0..v{})",
                            n - 1
                        ))
                    })
            })
            .collect()
    }
}

const EOF: Token = Token {
    tok: Tok::Eof,
    pos: Pos { line: 1, col: 1 },
};

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    op_sites: HashMap<u32, Pos>,
    branch_sites: HashMap<u32, Pos>,
}

impl Parser {
    fn new(tokens: Vec<Token>) -> Self {
        Parser {
            tokens,
            at: 0,
            op_sites: HashMap::new(),
            branch_sites: HashMap::new(),
        }
    }

    fn peek(&self) -> &Token {
        self.tokens.get(self.at).unwrap_or(&EOF)
    }

    fn peek_second(&self) -> &Tok {
        self.tokens.get(self.at + 1).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn pos(&self) -> Pos {
        self.peek().pos
    }

    fn next(&mut self) -> Token {
        let token = self.peek().clone();
        if token.tok != Tok::Eof {
            self.at += 1;
        }
        token
    }

    fn expected<T>(&self, what: &str) -> Result<T, ParseError> {
        Err(self
            .pos()
            .error(format!("expected {what}, found {}", self.peek().tok)))
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek().tok == Tok::Punct(c);
        if found {
            self.next();
        }
        found
    }

    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            self.expected(&format!("`{c}`"))
        }
    }

    /// Expects `,` before another list item or `close` after the last; true at the end.
    fn list_end(&mut self, close: char) -> Result<bool, ParseError> {
        if self.eat(close) {
            Ok(true)
        } else if self.eat(',') {
            Ok(false)
        } else {
            self.expected(&format!("`,` or `{close}`"))
        }
    }

    fn is_word(&self, keyword: &str) -> bool {
        matches!(&self.peek().tok, Tok::Word(w) if w == keyword)
    }

    fn eat_word(&mut self, keyword: &str) -> bool {
        let found = self.is_word(keyword);
        if found {
            self.next();
        }
        found
    }

    fn expect_word(&mut self, keyword: &str) -> Result<(), ParseError> {
        if self.eat_word(keyword) {
            Ok(())
        } else {
            self.expected(&format!("`{keyword}`"))
        }
    }

    fn word(&mut self, what: &str) -> Result<(String, Pos), ParseError> {
        match &self.peek().tok {
            Tok::Word(w) => {
                let word = w.clone();
                Ok((word, self.next().pos))
            }
            _ => self.expected(what),
        }
    }

    fn string(&mut self, what: &str) -> Result<String, ParseError> {
        match &self.peek().tok {
            Tok::Str(s) => {
                let s = s.clone();
                self.next();
                Ok(s)
            }
            _ => self.expected(what),
        }
    }

    fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        if let Tok::Lit(text) = &self.peek().tok {
            if let Ok(value) = text.parse() {
                self.next();
                return Ok(value);
            }
        }
        self.expected(what)
    }

    fn skip_newlines(&mut self) {
        while self.peek().tok == Tok::Newline {
            self.next();
        }
    }

    fn end_line(&mut self) -> Result<(), ParseError> {
        match self.peek().tok {
            Tok::Newline => {
                self.next();
                Ok(())
            }
            Tok::Eof => Ok(()),
            _ => self.expected("end of line"),
        }
    }

    /// An entity id `{prefix}N`.
    fn entity<E: EntityId>(&mut self, prefix: &str, what: &str) -> Result<(E, Pos), ParseError> {
        if let Tok::Word(w) = &self.peek().tok {
            let number = w
                .strip_prefix(prefix)
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|d| d.parse::<u32>().ok());
            if let Some(n) = number {
                let pos = self.next().pos;
                return Ok((E::new(n as usize), pos));
            }
        }
        self.expected(what)
    }

    /// The id of a newly defined entity, which must be the next one in order.
    fn next_id<E: EntityId + fmt::Display>(
        &mut self,
        prefix: &str,
        expected: usize,
        what: &str,
    ) -> Result<E, ParseError> {
        let (id, pos) = self.entity::<E>(prefix, &format!("{what} `{prefix}{expected}`"))?;
        if id.index() != expected {
            return Err(pos.error(format!(
                "expected {what} `{prefix}{expected}`, found `{id}`: {what}s are numbered in order"
            )));
        }
        Ok(id)
    }

    fn ty(&mut self) -> Result<Type, ParseError> {
        if let Tok::Word(w) = &self.peek().tok {
            if let Some(ty) = type_from_name(w) {
                self.next();
                return Ok(ty);
            }
        }
        self.expected("a type (`i1`..`i64`, `f32`, `f64` or `ptr`)")
    }

    fn float_ty(&mut self) -> Result<FloatTy, ParseError> {
        if let Tok::Word(w) = &self.peek().tok {
            if let Some(Type::Float(ft)) = type_from_name(w) {
                self.next();
                return Ok(ft);
            }
        }
        self.expected("a float type (`f32` or `f64`)")
    }

    fn loc(&mut self) -> Result<Option<SrcLoc>, ParseError> {
        if !self.eat('!') {
            return Ok(None);
        }
        let file = self.number::<u32>("a file index")?;
        self.expect(':')?;
        let line = self.number("a line number")?;
        self.expect(':')?;
        let col = self.number("a column number")?;
        Ok(Some(SrcLoc {
            file: FileId(file),
            line,
            col,
        }))
    }

    fn module(mut self) -> Result<Module, ParseError> {
        let mut module = Module::default();
        loop {
            self.skip_newlines();
            let keyword = match &self.peek().tok {
                Tok::Eof => break,
                Tok::Word(w) => w.clone(),
                _ => return self.expected("`file`, `extern`, `global` or `func`"),
            };
            match keyword.as_str() {
                "file" => {
                    self.next();
                    self.next_id::<FileId>("file", module.files.len(), "file")?;
                    let name = self.string("a file name")?;
                    self.end_line()?;
                    module.files.push(name);
                }
                "extern" => {
                    self.next();
                    let name = self.string("an external function name")?;
                    self.end_line()?;
                    module.externals.push(name);
                }
                "global" => {
                    let global = self.global(module.globals.len())?;
                    module.globals.push(global);
                }
                "func" => {
                    let func = self.function(module.funcs.len())?;
                    module.funcs.push(func);
                }
                "shape" => {
                    let (key, shape) = self.shape()?;
                    module.param_shapes.insert(key, shape);
                }
                _ => return self.expected("`file`, `extern`, `global`, `func` or `shape`"),
            }
        }
        let end = self.pos();
        check_dense(&self.op_sites, OpSite::PREFIX)?;
        check_dense(&self.branch_sites, BranchSite::PREFIX)?;
        module.index_sites().map_err(|e| end.error(e.0))?;
        Ok(module)
    }

    fn global(&mut self, index: usize) -> Result<GlobalData, ParseError> {
        self.expect_word("global")?;
        self.next_id::<Global>(Global::PREFIX, index, "global")?;
        let name = self.string("a global name")?;
        self.expect_word("align")?;
        let align = self.number("an alignment")?;
        let constant = self.eat_word("const");
        self.expect('=')?;
        let init = match &self.peek().tok {
            Tok::Hex(digits) => match decode_hex(digits) {
                Some(bytes) => bytes,
                None => {
                    return Err(self
                        .pos()
                        .error("expected pairs of hex digits in the byte string"))
                }
            },
            _ => return self.expected("initial bytes `x\"..\"`"),
        };
        self.next();
        let mut relocs = Vec::new();
        while self.eat_word("reloc") {
            self.expect('(')?;
            let at = self.number("a byte offset")?;
            self.expect(',')?;
            let target = self.addr_base()?;
            self.expect(',')?;
            let addend = self.number("an addend")?;
            self.expect(')')?;
            relocs.push(Reloc { at, target, addend });
        }
        self.end_line()?;
        Ok(GlobalData {
            name,
            init,
            align,
            constant,
            relocs,
        })
    }

    fn shape(&mut self) -> Result<((Func, usize), ParamShape), ParseError> {
        self.expect_word("shape")?;
        let (func, _) = self.entity::<Func>(Func::PREFIX, "a function `fN`")?;
        let param = self.number("a parameter index")?;
        let shape = if self.eat_word("vector") {
            ParamShape::Vector(self.ty()?)
        } else if self.eat_word("span") {
            ParamShape::Span(self.ty()?)
        } else if self.eat_word("long_double") {
            ParamShape::LongDouble
        } else if self.eat_word("by_reference") {
            ParamShape::ByReference
        } else if self.eat_word("array") {
            self.expect('[')?;
            let mut extents = Vec::new();
            if !self.eat(']') {
                loop {
                    extents.push(if self.eat('*') {
                        Extent::Unknown
                    } else if self.eat_word("param") {
                        Extent::Param(self.number("a parameter index")?)
                    } else {
                        Extent::Const(self.number("an extent")?)
                    });
                    if self.list_end(']')? {
                        break;
                    }
                }
            }
            ParamShape::Array(extents)
        } else {
            self.expect_word("struct")?;
            let name = self.string("a struct name")?;
            let (word, pos) = self.word("`pointer`, `reference` or `value`")?;
            let passing = Passing::from_name(&word)
                .ok_or_else(|| pos.error("expected `pointer`, `reference` or `value`"))?;
            let size = self.number("a struct size")?;
            self.expect('{')?;
            let mut fields = Vec::new();
            if !self.eat('}') {
                loop {
                    let path = self.string("a field path")?;
                    self.expect('@')?;
                    let offset = self.number("a field offset")?;
                    self.expect(':')?;
                    let ty = self.ty()?;
                    fields.push(FieldShape { path, offset, ty });
                    if self.list_end('}')? {
                        break;
                    }
                }
            }
            ParamShape::Struct(StructShape {
                name,
                passing,
                size,
                fields,
            })
        };
        self.end_line()?;
        Ok(((func, param), shape))
    }

    fn addr_base(&mut self) -> Result<AddrBase, ParseError> {
        let what = "a global `gN` or a function `fN`";
        if matches!(&self.peek().tok, Tok::Word(w) if w.starts_with(Global::PREFIX)) {
            Ok(AddrBase::Global(self.entity(Global::PREFIX, what)?.0))
        } else {
            Ok(AddrBase::Func(self.entity(Func::PREFIX, what)?.0))
        }
    }

    fn reg(&mut self, regs: &mut FuncRegs) -> Result<Reg, ParseError> {
        match reg_number(&self.peek().tok) {
            Some(n) => {
                let pos = self.next().pos;
                regs.uses.entry(n).or_insert(pos);
                Ok(Reg(n))
            }
            None => self.expected("a register `vN`"),
        }
    }

    /// `vN: type`, defining the register.
    fn def_reg(&mut self, regs: &mut FuncRegs) -> Result<(Reg, Type), ParseError> {
        let pos = self.pos();
        let Some(n) = reg_number(&self.peek().tok) else {
            return self.expected("a register `vN`");
        };
        self.next();
        self.expect(':')?;
        let ty = self.ty()?;
        if let Some((_, first)) = regs.defs.insert(n, (ty, pos)) {
            return Err(pos.error(format!("v{n} is already defined at {first}")));
        }
        Ok((Reg(n), ty))
    }

    fn reg_list(&mut self, regs: &mut FuncRegs, close: char) -> Result<Vec<Reg>, ParseError> {
        let mut list = Vec::new();
        if self.eat(close) {
            return Ok(list);
        }
        loop {
            list.push(self.reg(regs)?);
            if self.list_end(close)? {
                return Ok(list);
            }
        }
    }

    fn function(&mut self, index: usize) -> Result<Function, ParseError> {
        let header = self.pos();
        self.expect_word("func")?;
        self.next_id::<Func>(Func::PREFIX, index, "function")?;
        let name = self.string("a function name")?;
        let demangled = match self.peek().tok {
            Tok::Str(_) => Some(self.string("a demangled name")?),
            _ => None,
        };
        let mut regs = FuncRegs::default();
        let mut params = Vec::new();
        let mut param_pointees = Vec::new();
        let mut param_names = Vec::new();
        self.expect('(')?;
        if !self.eat(')') {
            loop {
                params.push(self.def_reg(&mut regs)?.0);
                param_pointees.push(if self.eat('<') {
                    let pointee = self.ty()?;
                    self.expect('>')?;
                    Some(pointee)
                } else {
                    None
                });
                param_names.push(match &self.peek().tok {
                    Tok::Name(n) => {
                        let n = n.clone();
                        self.next();
                        Some(n)
                    }
                    _ => None,
                });
                if self.list_end(')')? {
                    break;
                }
            }
        }
        let ret = if self.peek().tok == Tok::Arrow {
            self.next();
            Some(self.ty()?)
        } else {
            None
        };
        let loc = self.loc()?;
        self.expect('{')?;
        self.end_line()?;
        let mut consts = Vec::new();
        loop {
            self.skip_newlines();
            if !self.eat_word("const") {
                break;
            }
            let (reg, ty) = self.def_reg(&mut regs)?;
            self.expect('=')?;
            consts.push((reg, self.const_value(ty)?));
            self.end_line()?;
        }
        let mut blocks = EntityVec::new();
        loop {
            self.skip_newlines();
            if !blocks.is_empty() {
                if self.eat('}') {
                    break;
                }
                if !matches!(self.peek().tok, Tok::Word(_)) {
                    return self.expected(&format!("`}}` or block `bb{}`", blocks.len()));
                }
            }
            let entry = blocks.is_empty();
            let block = self.block(&mut regs, blocks.len(), entry.then_some(&params))?;
            blocks.push(block);
        }
        self.end_line()?;
        Ok(Function {
            name,
            demangled,
            ret,
            param_pointees,
            param_names,
            regs: regs.table(header)?,
            consts,
            blocks,
            loc,
        })
    }

    /// A block; `entry_params` are the function's parameters when this is the entry.
    fn block(
        &mut self,
        regs: &mut FuncRegs,
        index: usize,
        entry_params: Option<&Vec<Reg>>,
    ) -> Result<BlockData, ParseError> {
        self.next_id::<Block>(Block::PREFIX, index, "block")?;
        let params = match entry_params {
            Some(params) => {
                if self.peek().tok == Tok::Punct('(') {
                    return Err(self.pos().error(
                        "the entry block takes the function's parameters: write them after the function name",
                    ));
                }
                params.clone()
            }
            None => {
                let mut params = Vec::new();
                if self.eat('(') && !self.eat(')') {
                    loop {
                        params.push(self.def_reg(regs)?.0);
                        if self.list_end(')')? {
                            break;
                        }
                    }
                }
                params
            }
        };
        self.expect(':')?;
        self.end_line()?;
        let mut insts = Vec::new();
        let mut locs = Vec::new();
        loop {
            self.skip_newlines();
            if let Some(term) = self.terminator(regs)? {
                let term_loc = self.loc()?;
                self.end_line()?;
                return Ok(BlockData {
                    params,
                    insts,
                    locs,
                    term,
                    term_loc,
                });
            }
            insts.push(self.inst(regs)?);
            locs.push(self.loc()?);
            self.end_line()?;
        }
    }

    fn block_call(&mut self, regs: &mut FuncRegs) -> Result<BlockCall, ParseError> {
        let (block, _) = self.entity::<Block>(Block::PREFIX, "a block `bbN`")?;
        self.expect('(')?;
        let args = self.reg_list(regs, ')')?;
        Ok(BlockCall { block, args })
    }

    fn site<E: EntityId>(&mut self, prefix: &str, branch: bool) -> Result<E, ParseError> {
        self.expect('@')?;
        let (site, pos) = self.entity::<E>(prefix, &format!("a site `{prefix}N`"))?;
        let seen = if branch {
            &mut self.branch_sites
        } else {
            &mut self.op_sites
        };
        let number = site.index() as u32;
        if let Some(first) = seen.insert(number, pos) {
            return Err(pos.error(format!(
                "{prefix}{number} is already used at {first}: each site is used once"
            )));
        }
        Ok(site)
    }

    fn op_site(&mut self) -> Result<OpSite, ParseError> {
        self.site(OpSite::PREFIX, false)
    }

    fn branch_site(&mut self) -> Result<BranchSite, ParseError> {
        self.site(BranchSite::PREFIX, true)
    }

    /// A trap guard's `trap CHECK` after its site, if present.
    fn trap_check(&mut self) -> Result<Option<TrapCheck>, ParseError> {
        if !self.eat_word("trap") {
            return Ok(None);
        }
        let token = self.peek().clone();
        match &token.tok {
            Tok::Word(name) => {
                let check = TrapCheck::from_name(name).ok_or_else(|| {
                    token.pos.error(format!(
                        "unknown trap check `{name}` (expected div0, divoverflow or bounds)"
                    ))
                })?;
                self.next();
                Ok(Some(check))
            }
            _ => self.expected("a trap check"),
        }
    }

    fn const_value(&mut self, ty: Type) -> Result<Const, ParseError> {
        let token = self.peek().clone();
        match &token.tok {
            Tok::Word(text) | Tok::Lit(text) => {
                let value = parse_const(ty, text).map_err(|m| token.pos.error(m))?;
                self.next();
                Ok(value)
            }
            _ => self.expected(&format!("an {ty} constant")),
        }
    }

    /// A terminator, or `None` (consuming nothing) when the line is an instruction.
    fn terminator(&mut self, regs: &mut FuncRegs) -> Result<Option<Terminator>, ParseError> {
        let Tok::Word(keyword) = &self.peek().tok else {
            return Ok(None);
        };
        let term = match keyword.as_str() {
            "jump" => {
                self.next();
                Terminator::Jump(self.block_call(regs)?)
            }
            "br" => {
                self.next();
                let cond = self.reg(regs)?;
                self.expect(',')?;
                let then_to = self.block_call(regs)?;
                self.expect(',')?;
                let else_to = self.block_call(regs)?;
                let site = self.branch_site()?;
                let check = self.trap_check()?;
                Terminator::Br {
                    cond,
                    then_to,
                    else_to,
                    site,
                    check,
                }
            }
            "switch" => {
                self.next();
                let ty = self.ty()?;
                let value = self.reg(regs)?;
                self.expect(',')?;
                self.expect('[')?;
                let mut cases = Vec::new();
                if !self.eat(']') {
                    loop {
                        let pos = self.pos();
                        let Const::Bits(value) = self.const_value(ty)? else {
                            return Err(pos.error("a case value must be a number"));
                        };
                        self.expect(':')?;
                        let target = self.block_call(regs)?;
                        cases.push(SwitchCase { value, target });
                        if self.list_end(']')? {
                            break;
                        }
                    }
                }
                self.expect(',')?;
                self.expect_word("default")?;
                let default = self.block_call(regs)?;
                let site = self.branch_site()?;
                Terminator::Switch {
                    ty,
                    value,
                    cases,
                    default,
                    site,
                }
            }
            "ret" => {
                self.next();
                if reg_number(&self.peek().tok).is_some() {
                    Terminator::Ret(Some(self.reg(regs)?))
                } else {
                    Terminator::Ret(None)
                }
            }
            "unreachable" => {
                self.next();
                Terminator::Unreachable
            }
            "invoke" => {
                self.next();
                let normal = self.block_call(regs)?;
                self.expect(',')?;
                self.expect_word("unwind")?;
                let landing = self.landing(regs)?;
                Terminator::Invoke { normal, landing }
            }
            _ => return Ok(None),
        };
        Ok(Some(term))
    }

    /// `bbN(args) [vE: ptr, vS: i32] [cleanup] (catch(vT | null, ID))*`.
    fn landing(&mut self, regs: &mut FuncRegs) -> Result<Landing, ParseError> {
        let to = self.block_call(regs)?;
        self.expect('[')?;
        let (exception, _) = self.def_reg(regs)?;
        self.expect(',')?;
        let (selector, _) = self.def_reg(regs)?;
        self.expect(']')?;
        let cleanup = self.eat_word("cleanup");
        let mut clauses = Vec::new();
        while self.eat_word("catch") {
            self.expect('(')?;
            let typeinfo = if self.eat_word("null") {
                None
            } else {
                Some(self.reg(regs)?)
            };
            self.expect(',')?;
            let id = self.number("a selector id")?;
            self.expect(')')?;
            clauses.push(Clause::Catch { typeinfo, id });
        }
        Ok(Landing {
            to,
            exception,
            selector,
            clauses,
            cleanup,
        })
    }

    fn two_regs(&mut self, regs: &mut FuncRegs) -> Result<(Reg, Reg), ParseError> {
        let lhs = self.reg(regs)?;
        self.expect(',')?;
        let rhs = self.reg(regs)?;
        Ok((lhs, rhs))
    }

    fn inst(&mut self, regs: &mut FuncRegs) -> Result<Inst, ParseError> {
        let dest =
            if reg_number(&self.peek().tok).is_some() && *self.peek_second() == Tok::Punct(':') {
                let (dest, _) = self.def_reg(regs)?;
                self.expect('=')?;
                Some(dest)
            } else {
                None
            };
        let (opcode, pos) = self.word(if dest.is_some() {
            "an instruction"
        } else {
            "an instruction or terminator"
        })?;
        let kind = if let Some(op) = lookup(&IntBinOp::ALL, int_bin_name, &opcode) {
            let ty = self.ty()?;
            let (lhs, rhs) = self.two_regs(regs)?;
            InstKind::IntBin { op, ty, lhs, rhs }
        } else if let Some(op) = lookup(&FloatBinOp::ALL, float_bin_name, &opcode) {
            let ty = self.float_ty()?;
            let (lhs, rhs) = self.two_regs(regs)?;
            let site = self.op_site()?;
            InstKind::FloatBin {
                op,
                ty,
                lhs,
                rhs,
                site,
            }
        } else if let Some(op) = lookup(&CastOp::ALL, cast_name, &opcode) {
            let from = self.ty()?;
            let arg = self.reg(regs)?;
            self.expect_word("to")?;
            let to = self.ty()?;
            InstKind::Cast { op, from, to, arg }
        } else {
            match opcode.as_str() {
                "fneg" => {
                    let ty = self.float_ty()?;
                    let arg = self.reg(regs)?;
                    InstKind::Fneg { ty, arg }
                }
                "icmp" => {
                    let pred = match &self.peek().tok {
                        Tok::Word(w) => lookup(&IntPred::ALL, int_pred_name, w),
                        _ => None,
                    };
                    let Some(pred) = pred else {
                        return self.expected("an integer predicate (`eq`, `slt`, ..)");
                    };
                    self.next();
                    let ty = self.ty()?;
                    let (lhs, rhs) = self.two_regs(regs)?;
                    InstKind::Icmp { pred, ty, lhs, rhs }
                }
                "fcmp" => {
                    let pred = match &self.peek().tok {
                        Tok::Word(w) => lookup(&FloatPred::ALL, float_pred_name, w),
                        _ => None,
                    };
                    let Some(pred) = pred else {
                        return self.expected("a float predicate (`oeq`, `ult`, ..)");
                    };
                    self.next();
                    let ty = self.float_ty()?;
                    let (lhs, rhs) = self.two_regs(regs)?;
                    InstKind::Fcmp { pred, ty, lhs, rhs }
                }
                "select" => {
                    let ty = self.ty()?;
                    let cond = self.reg(regs)?;
                    self.expect(',')?;
                    let (if_true, if_false) = self.two_regs(regs)?;
                    InstKind::Select {
                        ty,
                        cond,
                        if_true,
                        if_false,
                    }
                }
                "load" => {
                    let ty = self.ty()?;
                    let addr = self.reg(regs)?;
                    InstKind::Load { ty, addr }
                }
                "store" => {
                    let ty = self.ty()?;
                    let (value, addr) = self.two_regs(regs)?;
                    InstKind::Store { ty, addr, value }
                }
                "alloca" => {
                    let size = self.number("an allocation size")?;
                    let count = if self.eat_word("x") {
                        Some(self.reg(regs)?)
                    } else {
                        None
                    };
                    self.expect_word("align")?;
                    let align = self.number("an alignment")?;
                    InstKind::Alloca { size, count, align }
                }
                "ptroffset" => {
                    let base = self.reg(regs)?;
                    self.expect(',')?;
                    let offset = self.number("a byte offset")?;
                    self.expect(',')?;
                    self.expect('[')?;
                    let mut terms = Vec::new();
                    if !self.eat(']') {
                        loop {
                            let index = self.reg(regs)?;
                            self.expect('*')?;
                            let scale = self.number("a scale")?;
                            terms.push(IndexTerm { index, scale });
                            if self.list_end(']')? {
                                break;
                            }
                        }
                    }
                    InstKind::PtrOffset {
                        base,
                        offset,
                        terms,
                    }
                }
                "call" => self.call(regs)?,
                _ => return Err(pos.error(format!("unknown instruction `{opcode}`"))),
            }
        };
        Ok(Inst { dest, kind })
    }

    fn call(&mut self, regs: &mut FuncRegs) -> Result<InstKind, ParseError> {
        let callee = if self.eat_word("math") {
            let (name, pos) = self.word("a math function `name.f32` or `name.f64`")?;
            let call = name.rsplit_once('.').and_then(|(func, ty)| {
                Some(MathCall {
                    func: MathFn::from_name(func)?,
                    ty: type_from_name(ty)?.as_float()?,
                })
            });
            let Some(call) = call else {
                return Err(pos.error(format!(
                    "unknown math function `{name}` (expected `name.f32` or `name.f64`)"
                )));
            };
            self.expect('(')?;
            let args = self.reg_list(regs, ')')?;
            let site = self.op_site()?;
            return Ok(InstKind::Call {
                callee: Callee::Math(call, site),
                args,
            });
        } else if self.eat_word("indirect") {
            Callee::Indirect(self.reg(regs)?)
        } else if self.eat_word("builtin") {
            let (name, pos) = self.word("a builtin name")?;
            match Builtin::from_name(&name) {
                Some(b) => Callee::Builtin(b),
                None => return Err(pos.error(format!("unknown builtin `{name}`"))),
            }
        } else if self.eat_word("extern") {
            Callee::External(self.number("an external function index")?)
        } else {
            let (f, _) = self.entity::<Func>(
                Func::PREFIX,
                "a callee (`fN`, `indirect`, `math`, `builtin` or `extern`)",
            )?;
            Callee::Direct(f)
        };
        self.expect('(')?;
        let args = self.reg_list(regs, ')')?;
        Ok(InstKind::Call { callee, args })
    }
}

/// Checks that the site ids used are `0..n`, naming the highest one past a gap.
fn check_dense(sites: &HashMap<u32, Pos>, prefix: &str) -> Result<(), ParseError> {
    let Some(missing) = (0u32..=u32::MAX).find(|i| !sites.contains_key(i)) else {
        return Ok(());
    };
    match sites.iter().max_by_key(|(id, _)| **id) {
        Some((&max, pos)) if max > missing => Err(pos.error(format!(
            "{prefix}{max} is used but {prefix}{missing} is not: site ids must be dense"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok> {
        let tokens = Lexer::new(text).tokens().unwrap();
        tokens.into_iter().map(|t| t.tok).collect()
    }

    fn lit(s: &str) -> Tok {
        Tok::Lit(s.into())
    }

    #[test]
    fn lexes_literals_that_contain_signs_and_colons() {
        assert_eq!(
            toks("0x1.8p+1 1e-3 -inf raw:ffc00000 g3+8 f2-4 -0x0p+0"),
            [
                lit("0x1.8p+1"),
                lit("1e-3"),
                lit("-inf"),
                lit("raw:ffc00000"),
                lit("g3+8"),
                lit("f2-4"),
                lit("-0x0p+0"),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn comments_run_to_the_end_of_their_line() {
        assert_eq!(
            toks("; run: f(1) == 2\nret v0 ; the result\n"),
            [
                Tok::Newline,
                Tok::Word("ret".into()),
                Tok::Word("v0".into()),
                Tok::Newline,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn lexes_locations_sites_and_names() {
        assert_eq!(
            toks("!0:4:9 @op3 v0: ptr<f64> #x.y, x\"0aff\" -> \"a\\\"b\"\n"),
            [
                Tok::Punct('!'),
                lit("0"),
                Tok::Punct(':'),
                lit("4"),
                Tok::Punct(':'),
                lit("9"),
                Tok::Punct('@'),
                Tok::Word("op3".into()),
                Tok::Word("v0".into()),
                Tok::Punct(':'),
                Tok::Word("ptr".into()),
                Tok::Punct('<'),
                Tok::Word("f64".into()),
                Tok::Punct('>'),
                Tok::Name("x.y".into()),
                Tok::Punct(','),
                Tok::Hex("0aff".into()),
                Tok::Arrow,
                Tok::Str("a\"b".into()),
                Tok::Newline,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn reads_constants_of_every_kind() {
        assert_eq!(
            parse_const(Type::Ptr, "g3+8"),
            Ok(Const::Addr(AddrBase::Global(Global(3)), 8))
        );
        assert_eq!(
            parse_const(Type::Ptr, "f2-4"),
            Ok(Const::Addr(AddrBase::Func(Func(2)), -4))
        );
        assert_eq!(parse_const(Type::Ptr, "0x10"), Ok(Const::Bits(16)));
        assert_eq!(parse_const(Type::I8, "-1"), Ok(Const::Bits(0xff)));
        assert_eq!(parse_const(Type::BOOL, "-1"), Ok(Const::Bits(1)));
        assert!(parse_const(Type::BOOL, "2").is_err());
        assert!(parse_const(Type::I8, "-129").is_err());
        assert_eq!(
            parse_const(Type::F32, "raw:7fc00001"),
            Ok(Const::Bits(0x7fc0_0001))
        );
        assert_eq!(
            parse_const(Type::F64, "0x1p+0"),
            Ok(Const::Bits(1f64.to_bits()))
        );
    }
}
