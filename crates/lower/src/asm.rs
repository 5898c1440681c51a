//! The inline assembly libm sources use, recognized from its text and constraints and
//! lowered to IR operations with the same results: musl's `a_clz_64`/`a_ctz_64`
//! (`bsr`, `bsf`, then `xor $63`), `sqrtsd`/`sqrtss` (and `fsqrt` on a `float`), and the conversions
//! `cvtsd2si`/`cvtss2si` (rounding to nearest, ties to even: the default MXCSR mode
//! fpforge runs in) and `cvttsd2si`/`cvttss2si` (truncating). Any other assembly stays
//! an unsupported construct named by its text.
//!
//! An `asm` call is read from the instruction as LLVM prints it (see [`crate::beside`]):
//! `call i64 asm "bsr $1,$0 ; xor $$63,$0", "=r,r,~{dirflag},~{fpsr},~{flags}"(i64 %x)`.
//! The template is AT&T syntax, instructions separated by `;` or newlines, operands
//! `$N` numbered as the constraints are (the one output first, then the inputs); a
//! tied input (`"0"`) starts in the output's register. A template is run symbolically
//! over those operands, so each instruction becomes the fpir operation that computes
//! what it leaves in its destination:
//!
//! | instruction | result | fpir |
//! |---|---|---|
//! | `bsr s, d` | index of the highest set bit of `s` | `ctlz(s) xor (width - 1)` |
//! | `bsf s, d` | index of the lowest set bit of `s` | `cttz(s)` |
//! | `xor $K, d` | `d ^ K` | `xor` |
//! | `sqrtsd s, d`, `sqrtss s, d`, `fsqrt` (`st(0)`, `float` only) | correctly rounded square root | math call `sqrt` |
//! | `cvtsd2si s, d`, `cvtss2si s, d` | `s` rounded to an integer, ties to even; the "integer indefinite" `0x80..0` when out of range or NaN | math call `rint`, then `fptosi` (x86-64 results) |
//! | `cvttsd2si s, d`, `cvttss2si s, d` | `s` truncated; indefinite likewise | `fptosi` |
//!
//! `bsr` and `bsf` leave their destination unchanged for a zero source, which no caller
//! relies on (musl tests for zero first); fpir gives `ctlz`/`cttz` of zero, the width.
//! `fsqrt` computes in the x87 unit, whose result the compiler rounds to the operand's
//! format: a square root rounded to 64 bits and then to 24 is the square root rounded
//! once (64 >= 2 * 24 + 2), but rounded to 64 and then to 53 bits it is not (`fsqrt` of
//! `0x1.fffffffffffffp-1` gives 1), and no fpir operation computes that, so `fsqrt` on a
//! `double` is not recognized.

use fpir::{Builtin, FloatTy, MathFn, Type};

/// An inline assembly call: its template and constraint string, unescaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InlineAsm {
    /// The AT&T template (`bsr $1,$0 ; xor $$63,$0`).
    pub template: String,
    /// The constraints (`=r,r,~{dirflag},~{fpsr},~{flags}`).
    pub constraints: String,
}

impl InlineAsm {
    /// Reads template and constraints out of a call as LLVM prints it; `None` when the
    /// text has no `asm "..." , "..."` (or uses Intel syntax).
    pub fn from_call_text(text: &str) -> Option<InlineAsm> {
        let rest = &text[text.find(" asm ")? + 5..];
        let mut rest = rest.trim_start();
        for keyword in ["sideeffect", "alignstack", "unwind"] {
            rest = rest.strip_prefix(keyword).unwrap_or(rest).trim_start();
        }
        if rest.starts_with("inteldialect") {
            return None;
        }
        let (template, rest) = quoted(rest)?;
        let (constraints, _) = quoted(rest.trim_start().strip_prefix(',')?.trim_start())?;
        Some(InlineAsm {
            template,
            constraints,
        })
    }
}

/// The string literal `text` starts with, with LLVM's `\XX` escapes decoded, and what
/// follows it.
fn quoted(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let end = body.find('"')?;
    let raw = &body.as_bytes()[..end];
    let mut bytes = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let escaped = (raw[i] == b'\\')
            .then(|| std::str::from_utf8(raw.get(i + 1..i + 3)?).ok())
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(b) => {
                bytes.push(b);
                i += 3;
            }
            None => {
                bytes.push(raw[i]);
                i += 1;
            }
        }
    }
    Some((String::from_utf8(bytes).ok()?, &body[end + 1..]))
}

/// One fpir instruction of a recognized template: `kind` into a new register of type
/// `ty`, which becomes the value of the output operand.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AsmStep {
    /// The result type.
    pub ty: Type,
    /// The operation; its operands are registers of earlier steps or of the inputs.
    pub kind: AsmKind,
}

/// The operations a template lowers to, over [`Value`]s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum AsmKind {
    /// A builtin on one value (`ctlz`, `cttz`).
    Builtin(Builtin, Value),
    /// `xor value, constant`.
    XorConst(Value, u64),
    /// A one-operand math call (`sqrt`, `rint`).
    Math(MathFn, FloatTy, Value),
    /// `fptosi value to ty`.
    FloatToInt(Value),
}

/// A value inside a template: an input of the call, or the result of an earlier step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    /// The call's `i`-th argument.
    Input(usize),
    /// The result of step `i`.
    Step(usize),
}

/// The steps computing the call's result (the last step's value, or the tied input
/// when there is none), given the types of the call's arguments and its result.
pub(crate) fn recognize(
    asm: &InlineAsm,
    arg_types: &[Type],
    ret: Type,
) -> Result<(Vec<AsmStep>, Value), String> {
    let operands = Operands::new(&asm.constraints, arg_types.len())?;
    let mut run = Run {
        steps: Vec::new(),
        arg_types,
        ret,
        output: operands.tied.map(Value::Input),
    };
    for insn in asm
        .template
        .split([';', '\n'])
        .map(str::trim)
        .filter(|i| !i.is_empty())
    {
        run.insn(insn, &operands)
            .map_err(|why| format!("{why} in `{insn}`"))?;
    }
    let result = run.output.ok_or("the output is never written")?;
    if run.type_of(result) != ret {
        return Err(format!("its result is {}, not {ret}", run.type_of(result)));
    }
    Ok((run.steps, result))
}

/// The operand numbering of a call's constraints: exactly one register output, then
/// register inputs (clobbers ignored).
struct Operands {
    /// For each input operand `$1`, `$2`, ...: the argument it is.
    inputs: usize,
    /// The argument tied to the output (`"0"`), if any.
    tied: Option<usize>,
}

impl Operands {
    fn new(constraints: &str, args: usize) -> Result<Operands, String> {
        let parts: Vec<&str> = constraints
            .split(',')
            .filter(|c| !c.starts_with('~'))
            .collect();
        let (outputs, inputs): (Vec<&str>, Vec<&str>) =
            parts.iter().partition(|c| c.starts_with('='));
        let register = |c: &str| {
            let class = c.trim_start_matches(['=', '&', '+']);
            matches!(class, "r" | "x" | "t" | "q" | "0") || class.starts_with('{')
        };
        if outputs.len() != 1 || !parts.iter().all(|c| register(c)) || inputs.len() != args {
            return Err(format!(
                "constraints `{constraints}` (one register output and register inputs are understood)"
            ));
        }
        Ok(Operands {
            inputs: inputs.len(),
            tied: inputs.iter().position(|c| *c == "0"),
        })
    }

    /// The operand `$N` names: `None` for the output, `Some(i)` for input argument `i`.
    fn operand(&self, text: &str) -> Result<Option<usize>, String> {
        let n: usize = text
            .strip_prefix('$')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("operand `{text}`"))?;
        match n {
            0 => Ok(None),
            i if i <= self.inputs => Ok(Some(i - 1)),
            _ => Err(format!("operand `{text}`")),
        }
    }
}

/// The symbolic run of a template.
struct Run<'a> {
    steps: Vec<AsmStep>,
    arg_types: &'a [Type],
    /// The type of the output operand.
    ret: Type,
    /// The output operand's current value.
    output: Option<Value>,
}

impl Run<'_> {
    fn type_of(&self, v: Value) -> Type {
        match v {
            Value::Input(i) => self.arg_types[i],
            Value::Step(i) => self.steps[i].ty,
        }
    }

    fn push(&mut self, ty: Type, kind: AsmKind) {
        self.steps.push(AsmStep { ty, kind });
        self.output = Some(Value::Step(self.steps.len() - 1));
    }

    /// The value an operand text holds now.
    fn read(&self, text: &str, operands: &Operands) -> Result<Value, String> {
        match operands.operand(text)? {
            Some(i) => Ok(Value::Input(i)),
            None => self
                .output
                .ok_or_else(|| "the output is read before it is written".to_string()),
        }
    }

    /// Runs one instruction, which must write the output operand.
    fn insn(&mut self, insn: &str, operands: &Operands) -> Result<(), String> {
        let (mnemonic, args) = insn.split_once(char::is_whitespace).unwrap_or((insn, ""));
        let args: Vec<&str> = args
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .collect();
        let unknown = || "an instruction not understood".to_string();
        if mnemonic == "fsqrt" && args.is_empty() {
            let x = self.output.ok_or_else(unknown)?;
            if self.type_of(x) != Type::F32 {
                return Err(format!(
                    "an x87 square root of {}, rounded twice",
                    self.type_of(x)
                ));
            }
            return self.sqrt(x);
        }
        let [src, dst] = args[..] else {
            return Err(unknown());
        };
        if operands.operand(dst)?.is_some() {
            return Err("a write to an input".to_string());
        }
        if let Some(k) = src.strip_prefix("$$").and_then(parse_int) {
            return match integer_op(mnemonic) {
                Some("xor") => {
                    let d = self.read(dst, operands)?;
                    self.xor(d, k);
                    Ok(())
                }
                _ => Err(unknown()),
            };
        }
        let s = self.read(src, operands)?;
        let ty = self.type_of(s);
        match (integer_op(mnemonic), mnemonic) {
            (Some("bsr"), _) if ty.is_int() => {
                self.push(ty, AsmKind::Builtin(Builtin::Ctlz, s));
                self.xor(Value::Step(self.steps.len() - 1), u64::from(ty.bits()) - 1);
                Ok(())
            }
            (Some("bsf"), _) if ty.is_int() => {
                self.push(ty, AsmKind::Builtin(Builtin::Cttz, s));
                Ok(())
            }
            (_, "sqrtsd") if ty == Type::F64 => self.sqrt(s),
            (_, "sqrtss") if ty == Type::F32 => self.sqrt(s),
            _ => self.convert(mnemonic, s).ok_or_else(unknown),
        }
    }

    /// `x ^ k`, folded into the step that computed `x` when that is an `xor` too (so
    /// `bsr` then `xor $63` is `ctlz` alone).
    fn xor(&mut self, x: Value, k: u64) {
        let last = self.steps.len().checked_sub(1);
        if let (Value::Step(i), Some(AsmKind::XorConst(inner, j))) =
            (x, self.steps.last().map(|s| s.kind))
        {
            if Some(i) == last {
                self.steps.pop();
                self.output = Some(inner);
                if j ^ k != 0 {
                    self.push(self.type_of(inner), AsmKind::XorConst(inner, j ^ k));
                }
                return;
            }
        }
        self.push(self.type_of(x), AsmKind::XorConst(x, k));
    }

    fn sqrt(&mut self, x: Value) -> Result<(), String> {
        let ty = self.type_of(x);
        let f = ty
            .as_float()
            .ok_or_else(|| format!("square root of {ty}"))?;
        self.push(ty, AsmKind::Math(MathFn::Sqrt, f, x));
        Ok(())
    }

    /// `cvt[t]s{d,s}2si[l|q] s, d`: `s` to an integer of the width the suffix (or, with
    /// none, the output register) has.
    fn convert(&mut self, mnemonic: &str, s: Value) -> Option<()> {
        let (truncate, rest) = match mnemonic.strip_prefix("cvtt") {
            Some(rest) => (true, rest),
            None => (false, mnemonic.strip_prefix("cvt")?),
        };
        let (from, suffix) = match rest.split_once("2si")? {
            ("sd", suffix) => (FloatTy::F64, suffix),
            ("ss", suffix) => (FloatTy::F32, suffix),
            _ => return None,
        };
        if self.type_of(s) != Type::Float(from) {
            return None;
        }
        let to = match suffix {
            "l" => Type::I32,
            "q" => Type::I64,
            "" if matches!(self.ret, Type::I32 | Type::I64) => self.ret,
            _ => return None,
        };
        let rounded = if truncate {
            s
        } else {
            self.push(Type::Float(from), AsmKind::Math(MathFn::Rint, from, s));
            Value::Step(self.steps.len() - 1)
        };
        self.push(to, AsmKind::FloatToInt(rounded));
        Some(())
    }
}

/// The integer mnemonic without its size suffix (`bsrq` -> `bsr`), if it is one of
/// those understood.
fn integer_op(mnemonic: &str) -> Option<&'static str> {
    ["bsr", "bsf", "xor"].into_iter().find(|op| {
        mnemonic
            .strip_prefix(op)
            .is_some_and(|suffix| matches!(suffix, "" | "w" | "l" | "q"))
    })
}

fn parse_int(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asm(template: &str, constraints: &str) -> InlineAsm {
        InlineAsm {
            template: template.into(),
            constraints: constraints.into(),
        }
    }

    #[test]
    fn reads_template_and_constraints_from_the_printed_call() {
        let text = r#"  %0 = call i64 asm "bsr $1,$0 ; xor $$63,$0", "=r,r,~{dirflag},~{fpsr},~{flags}"(i64 %x) #2, !srcloc !7"#;
        assert_eq!(
            InlineAsm::from_call_text(text),
            Some(asm(
                "bsr $1,$0 ; xor $$63,$0",
                "=r,r,~{dirflag},~{fpsr},~{flags}"
            ))
        );
        let escaped = r#"call void asm sideeffect "nop\0A\09nop", "~{memory}"()"#;
        assert_eq!(
            InlineAsm::from_call_text(escaped).unwrap().template,
            "nop\n\tnop"
        );
        assert_eq!(
            InlineAsm::from_call_text(r#"call i32 asm inteldialect "bsr $0, $1", "=r,r"(i32 %x)"#),
            None
        );
    }

    #[test]
    fn musl_idioms_become_operations() {
        let clz = recognize(
            &asm(
                "bsr $1,$0 ; xor $$63,$0",
                "=r,r,~{dirflag},~{fpsr},~{flags}",
            ),
            &[Type::I64],
            Type::I64,
        )
        .unwrap();
        assert_eq!(
            clz,
            (
                vec![AsmStep {
                    ty: Type::I64,
                    kind: AsmKind::Builtin(Builtin::Ctlz, Value::Input(0))
                }],
                Value::Step(0)
            )
        );
        let bsr = recognize(&asm("bsrl $1, $0", "=r,r"), &[Type::I32], Type::I32).unwrap();
        assert_eq!(bsr.0[1].kind, AsmKind::XorConst(Value::Step(0), 31));
        let ctz = recognize(&asm("bsf $1,$0", "=r,r"), &[Type::I64], Type::I64).unwrap();
        assert_eq!(
            ctz.0[0].kind,
            AsmKind::Builtin(Builtin::Cttz, Value::Input(0))
        );
        let sqrt = recognize(&asm("sqrtsd $1, $0", "=x,x"), &[Type::F64], Type::F64).unwrap();
        assert_eq!(
            sqrt.0[0].kind,
            AsmKind::Math(MathFn::Sqrt, FloatTy::F64, Value::Input(0))
        );
        let fsqrt = recognize(&asm("fsqrt", "=t,0"), &[Type::F32], Type::F32).unwrap();
        assert_eq!(
            fsqrt.0[0].kind,
            AsmKind::Math(MathFn::Sqrt, FloatTy::F32, Value::Input(0))
        );
        let lrint = recognize(&asm("cvtsd2si $1, $0", "=r,x"), &[Type::F64], Type::I64).unwrap();
        assert_eq!(
            lrint.0.iter().map(|s| s.kind).collect::<Vec<_>>(),
            [
                AsmKind::Math(MathFn::Rint, FloatTy::F64, Value::Input(0)),
                AsmKind::FloatToInt(Value::Step(0)),
            ]
        );
        let trunc = recognize(&asm("cvttss2sil $1, $0", "=r,x"), &[Type::F32], Type::I32).unwrap();
        assert_eq!(trunc.0[0].kind, AsmKind::FloatToInt(Value::Input(0)));
    }

    #[test]
    fn anything_else_is_named() {
        let fabs = recognize(&asm("pcmpeqd $0, $0", "=x"), &[], Type::F64).unwrap_err();
        assert!(fabs.contains("pcmpeqd"), "{fabs}");
        let twice = recognize(&asm("fsqrt", "=t,0"), &[Type::F64], Type::F64).unwrap_err();
        assert!(twice.contains("rounded twice in `fsqrt`"), "{twice}");
        let memory = recognize(&asm("bsr $1,$0", "=r,m"), &[Type::Ptr], Type::I64).unwrap_err();
        assert!(memory.contains("constraints"), "{memory}");
        let wrong = recognize(&asm("sqrtsd $1, $0", "=x,x"), &[Type::F32], Type::F32).unwrap_err();
        assert!(wrong.contains("sqrtsd"), "{wrong}");
        let cas = recognize(
            &asm("lock ; cmpxchg $3, $1", "=a,=*m,r,r"),
            &[Type::Ptr, Type::I32, Type::I32],
            Type::I32,
        );
        assert!(cas.is_err());
    }
}
