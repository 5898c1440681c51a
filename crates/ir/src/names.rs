//! How functions are named to people: the symbol, the demangled C++ signature kept
//! beside it ([`Function::demangled`]), the plain name (the signature without its
//! parameter list), and finding a function by any of them ([`Module::lookup_func`]).
//!
//! A C function's three names are its symbol. A C++ function `_ZN2ns5ModelIfE4stepEf`
//! shows as `ns::Model<float>::step(float)` and is found by that signature, by its
//! symbol, or by any `::`-separated tail of its plain name that no other function shares
//! (`step`, `Model<float>::step`, `ns::Model<float>::step`).
//!
//! A routine translated from Fortran keeps its symbol (`dstep_`, f2c's and gfortran's)
//! and shows its Fortran signature (`double precision function dstep(...)`, set by
//! lowering as its `demangled` name); it is found by its name as Fortran spells it, in
//! any case (`dstep`, `DSTEP`): a query that names nothing else is tried as the symbol
//! of a Fortran routine, in lower case with `_` appended (`__` when it has a `_`).

use crate::entities::Func;
use crate::module::{Function, Module};

impl Function {
    /// The name people read: the demangled signature of a C++ function, the symbol
    /// otherwise.
    pub fn display_name(&self) -> &str {
        self.demangled.as_deref().unwrap_or(&self.name)
    }

    /// The display name without its parameter list and qualifiers
    /// (`ns::Model<float>::step` for `ns::Model<float>::step(float) const`).
    pub fn plain_name(&self) -> &str {
        plain_name(self.display_name())
    }

    /// The plain name without its scopes (`step` for `ns::Model<float>::step`).
    pub fn unqualified_name(&self) -> &str {
        let plain = self.plain_name();
        let mut depth = 0i32;
        let mut start = 0;
        let bytes = plain.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'<' => depth += 1,
                b'>' => depth -= 1,
                b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => start = i + 2,
                _ => {}
            }
        }
        &plain[start..]
    }

    /// Whether `query` names this function: its symbol, its demangled signature, or a
    /// `::`-separated tail of its plain name (which other functions may share).
    pub fn answers_to(&self, query: &str) -> bool {
        self.name == query
            || self.demangled.as_deref() == Some(query)
            || names_tail(self.plain_name(), query)
    }
}

/// The demangled signature of a mangled C++ symbol (`_Z6clamp3dPd` ->
/// `clamp3(double, double*)`); `None` for C symbols and names the demangler rejects.
pub fn demangle(symbol: &str) -> Option<String> {
    if !symbol.starts_with("_Z") {
        return None;
    }
    cpp_demangle::Symbol::new(symbol).ok()?.demangle().ok()
}

/// The C++ type a typeinfo name (`St16invalid_argument`, the string `typeid(T).name()`
/// returns) spells (`std::invalid_argument`); the name itself when it does not demangle.
pub fn demangle_type(typeinfo_name: &str) -> String {
    demangle(&format!("_ZTS{typeinfo_name}"))
        .and_then(|text| text.strip_prefix("typeinfo name for ").map(str::to_string))
        .unwrap_or_else(|| typeinfo_name.to_string())
}

/// `signature` without its parameter list and what follows it (the text before the
/// `(` that opens the last top-level parenthesized group; `operator()` keeps its own
/// parentheses), and without the result type a function template's signature starts
/// with (`double k::sq<double>(double)` -> `k::sq<double>`).
pub fn plain_name(signature: &str) -> &str {
    let mut depth = 0i32;
    let mut open = None;
    let mut space = None;
    for (i, b) in signature.bytes().enumerate() {
        match b {
            b'(' => {
                if depth == 0 && !signature[..i].ends_with("operator") {
                    open = Some(i);
                }
                depth += 1;
            }
            b')' | b'>' => depth -= 1,
            b'<' => depth += 1,
            b' ' if depth == 0 && open.is_none() => space = Some(i),
            _ => {}
        }
    }
    let name = open.map_or(signature, |i| &signature[..i]);
    match space {
        Some(i) if !name.contains("operator") => &name[i + 1..],
        _ => name,
    }
}

/// What [`Module::lookup_func`] found.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FuncLookup {
    /// Exactly one function.
    Found(Func),
    /// Several functions answer to the name: their display names, sorted.
    Ambiguous(Vec<String>),
    /// None does.
    Missing,
}

impl Module {
    /// Finds the function `query` names: its symbol, its full demangled signature, or a
    /// `::`-separated tail of its plain name (see the module docs). The symbol and the
    /// signature win over plain names; a plain name two functions share is ambiguous.
    pub fn lookup_func(&self, query: &str) -> FuncLookup {
        let query = query.trim();
        if let Some(func) = self.func_by_name(query) {
            return FuncLookup::Found(func);
        }
        let by_signature = self.funcs_where(|f| f.demangled.as_deref() == Some(query));
        if let [one] = by_signature[..] {
            return FuncLookup::Found(one);
        }
        let by_plain = self.funcs_where(|f| f.answers_to(query));
        match by_plain[..] {
            [] => self
                .func_by_name(&fortran_symbol(query))
                .map_or(FuncLookup::Missing, FuncLookup::Found),
            [one] => FuncLookup::Found(one),
            _ => {
                let mut names: Vec<String> = by_plain
                    .iter()
                    .map(|&f| self.funcs[f].display_name().to_string())
                    .collect();
                names.sort_unstable();
                FuncLookup::Ambiguous(names)
            }
        }
    }

    fn funcs_where(&self, keep: impl Fn(&Function) -> bool) -> Vec<Func> {
        self.funcs
            .iter()
            .filter(|(_, f)| keep(f))
            .map(|(id, _)| id)
            .collect()
    }
}

/// The symbol f2c and gfortran give the Fortran routine `name` (any case): `dstep_`,
/// `d1_mach__`.
pub fn fortran_symbol(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower.contains('_') {
        format!("{lower}__")
    } else {
        format!("{lower}_")
    }
}

/// Whether `query` is `plain` or a tail of it that starts after a `::` outside template
/// arguments (`step` and `Model<float>::step` name `ns::Model<float>::step`).
/// A function template's name without its arguments matches too (`sq` names
/// `k::sq<double>`).
fn names_tail(plain: &str, query: &str) -> bool {
    let tail = |name: &str| {
        name == query
            || name
                .strip_suffix(query)
                .is_some_and(|head| head.ends_with("::") && template_depth(head) == 0)
    };
    tail(plain) || without_template_args(plain).is_some_and(tail)
}

/// `name` without the template argument list it ends with, if it ends with one.
fn without_template_args(name: &str) -> Option<&str> {
    let mut depth = 0i32;
    for (i, b) in name.bytes().enumerate().rev() {
        match b {
            b'>' => depth += 1,
            b'<' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&name[..i]);
                }
            }
            _ if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// How many template argument lists are open at the end of `text`.
fn template_depth(text: &str) -> i32 {
    text.bytes().fold(0, |depth, b| match b {
        b'<' => depth + 1,
        b'>' => depth - 1,
        _ => depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_drop_the_parameter_list() {
        assert_eq!(plain_name("clamp3(double, double*)"), "clamp3");
        assert_eq!(
            plain_name("ns::Model<float>::step(float) const"),
            "ns::Model<float>::step"
        );
        assert_eq!(plain_name("Fn::operator()(double)"), "Fn::operator()");
        assert_eq!(plain_name("apply(double (*)(double), double)"), "apply");
        assert_eq!(plain_name("sin"), "sin");
        assert_eq!(plain_name("double k::sq<double>(double)"), "k::sq<double>");
        assert_eq!(plain_name("operator new(unsigned long)"), "operator new");
    }

    const MODULE: &str = r#"func f0 "_ZN2ns5ModelIfE4stepEf" "ns::Model<float>::step(float)"(v0: f32) -> f32 {
bb0:
  ret v0
}
func f1 "_ZN2ns5ModelIdE4stepEd" "ns::Model<double>::step(double)"(v0: f64) -> f64 {
bb0:
  ret v0
}
func f2 "_Z6clamp3d" "clamp3(double)"(v0: f64) -> f64 {
bb0:
  ret v0
}
func f3 "sin"(v0: f64) -> f64 {
bb0:
  ret v0
}
"#;

    #[test]
    fn functions_answer_to_symbol_signature_and_unique_plain_names() {
        let module = crate::parse_module(MODULE).expect("parses");
        assert_eq!(crate::write_module(&module), MODULE);
        let found = |query: &str| module.lookup_func(query);
        assert_eq!(found("clamp3"), FuncLookup::Found(Func(2)));
        assert_eq!(found("_Z6clamp3d"), FuncLookup::Found(Func(2)));
        assert_eq!(found("clamp3(double)"), FuncLookup::Found(Func(2)));
        assert_eq!(found("sin"), FuncLookup::Found(Func(3)));
        assert_eq!(found("Model<double>::step"), FuncLookup::Found(Func(1)));
        assert_eq!(
            found("ns::Model<float>::step(float)"),
            FuncLookup::Found(Func(0))
        );
        assert_eq!(
            found("step"),
            FuncLookup::Ambiguous(vec![
                "ns::Model<double>::step(double)".to_string(),
                "ns::Model<float>::step(float)".to_string(),
            ])
        );
        assert_eq!(found("Model"), FuncLookup::Missing);
        assert_eq!(module.funcs[Func(3)].display_name(), "sin");
        assert_eq!(module.funcs[Func(0)].unqualified_name(), "step");
        assert_eq!(module.funcs[Func(3)].unqualified_name(), "sin");
    }

    #[test]
    fn symbols_and_types_demangle() {
        assert_eq!(
            demangle("_ZN2ns5ModelIfE4stepEf").as_deref(),
            Some("ns::Model<float>::step(float)")
        );
        assert_eq!(demangle("sin"), None);
        assert_eq!(
            demangle_type("St16invalid_argument"),
            "std::invalid_argument"
        );
        assert_eq!(demangle_type("N2ns8BadInputE"), "ns::BadInput");
    }

    #[test]
    fn tails_start_after_a_scope() {
        assert!(names_tail("ns::Model<float>::step", "step"));
        assert!(names_tail("ns::Model<float>::step", "Model<float>::step"));
        assert!(!names_tail("ns::Model<float>::step", "tep"));
        assert!(!names_tail("ns::Model<a::b>::step", "b>::step"));
        assert!(names_tail("clamp3", "clamp3"));
        assert!(names_tail("k::sq<double>", "sq"));
        assert!(names_tail("k::sq<double>", "k::sq"));
        assert!(names_tail("k::sq<double>", "sq<double>"));
        assert!(!names_tail("ns::Model<float>::step", "Model"));
    }
}
