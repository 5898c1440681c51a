//! Input specs of parameters with shapes (written in the IR text form, so no compiler is
//! involved): a struct's fields as coordinates, fixed or in ranges by path; vectors and
//! spans of a default or given length; their lines read back; and the memory the
//! interpreter builds from the arguments.

use fpforge_exec::{Concrete, ExecConfig, Interpreter, NoObserver, Outcome};
use fpforge_spec::{Arg, ArgSpec, Cell, FieldValue, InputSpec, ParamInput, SpecError, ValueRange};
use fpir::{Module, Type};
use rand_chacha::rand_core::{RngCore, SeedableRng};

const TEXT: &str = r#"
func f0 "mass"(v0: ptr #p) -> f64 {
bb0:
  v1: ptr = ptroffset v0, 8, []
  v2: f64 = load f64 v1
  ret v2
}
func f1 "bytes"(v0: ptr #v) -> i64 {
bb0:
  v1: ptr = load ptr v0
  v2: ptr = ptroffset v0, 8, []
  v3: ptr = load ptr v2
  v4: i64 = ptrtoint ptr v1 to i64
  v5: i64 = ptrtoint ptr v3 to i64
  v6: i64 = sub i64 v5, v4
  ret v6
}
func f2 "count"(v0: ptr<f64> #s, v1: i64 #len) -> i64 {
bb0:
  ret v1
}
func f3 "all"(v0: ptr #p, v1: ptr #v, v2: ptr<f64> #s, v3: i64 #len, v4: f32 #x) {
bb0:
  ret
}
shape f0 0 struct "struct body" pointer 24 { "n" @0: i32, "mass" @8: f64, "next" @16: ptr }
shape f1 0 vector f64
shape f2 0 span f64
shape f3 0 struct "struct body" pointer 24 { "n" @0: i32, "mass" @8: f64, "next" @16: ptr }
shape f3 1 vector f32
shape f3 2 span f64
"#;

fn module() -> Module {
    let module = fpir::parse_module(TEXT).expect("the module parses");
    fpir::verify_module(&module).expect("the module verifies");
    module
}

fn plan(module: &Module, func: &str, args: &[&str]) -> Result<InputSpec, SpecError> {
    let f = module.func_by_name(func).expect("function exists");
    let args: Vec<ArgSpec> = args
        .iter()
        .map(|t| t.parse().expect("spec parses"))
        .collect();
    InputSpec::for_function(module, f, &args, &[])
}

fn call(module: &Module, func: &str, args: &[Arg]) -> u64 {
    let f = module.func_by_name(func).expect("function exists");
    let mut interp =
        Interpreter::new(module, Concrete, NoObserver, ExecConfig::default()).expect("valid");
    match interp.call(f, args).expect("valid call").outcome {
        Outcome::Returned(Some(bits)) => bits,
        other => panic!("{func}: {other:?}"),
    }
}

#[test]
fn struct_fields_are_coordinates_fixed_or_ranged_by_path() {
    let m = module();
    let spec = plan(&m, "mass", &["p.n = 4", "p.mass in [0, 10]"]).unwrap();
    assert_eq!(spec.dims(), 1, "only the mass is searched");
    assert_eq!(
        spec.coords()[0].range,
        Some(ValueRange { lo: 0.0, hi: 10.0 })
    );
    let ParamInput::Struct { size, fields } = &spec.params()[0] else {
        panic!("a struct input")
    };
    assert_eq!(*size, 24);
    let values: Vec<FieldValue> = fields.iter().map(|f| f.value).collect();
    assert_eq!(
        values,
        [
            FieldValue::Fixed(4),
            FieldValue::Input(Some(ValueRange { lo: 0.0, hi: 10.0 })),
            FieldValue::Null
        ]
    );
    let bits = [2.5f64.to_bits()];
    let line = spec.line(&bits);
    assert_eq!(line, "{n: 4, mass: 0x1.4p+1, next: null}");
    assert_eq!(spec.parse_line(&line).unwrap(), bits);
    assert!(spec.parse_line("{n: 5, mass: 1}").is_err(), "n is fixed");
    assert!(spec.parse_line("{mass: 11}").is_err(), "outside the range");
    let args = spec.to_args(&bits);
    let cells = vec![
        Cell {
            offset: 0,
            ty: Type::I32,
            bits: 4,
        },
        Cell {
            offset: 8,
            ty: Type::F64,
            bits: bits[0],
        },
        Cell {
            offset: 16,
            ty: Type::Ptr,
            bits: 0,
        },
    ];
    assert_eq!(args, vec![Arg::Block { size: 24, cells }]);
    assert_eq!(call(&m, "mass", &args), bits[0]);
}

#[test]
fn bad_field_specs_name_what_is_wrong() {
    let m = module();
    let unknown = plan(&m, "mass", &["p.speed in [0, 1]"])
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("no field `speed`") && unknown.contains("n, mass, next"),
        "{unknown}"
    );
    let pointer = plan(&m, "mass", &["p.next = 1"]).unwrap_err().to_string();
    assert!(pointer.contains("pointer"), "{pointer}");
    assert!(plan(&m, "mass", &["p: f64[3]"]).is_err());
    assert!(plan(&m, "bytes", &["v.x in [0, 1]"]).is_err());
    assert!(
        plan(&m, "bytes", &["v: vector<f32>[3]"]).is_err(),
        "the vector holds f64"
    );
}

#[test]
fn vectors_and_spans_take_a_default_or_given_length() {
    let m = module();
    let default = plan(&m, "bytes", &[]).unwrap();
    assert_eq!(default.dims(), 8);
    let given = plan(&m, "bytes", &["v: vector<f64>[3] in [-1, 1]"]).unwrap();
    assert_eq!(given.dims(), 3);
    let bits = [0.5f64, -1.0, 1.0].map(f64::to_bits);
    assert_eq!(given.line(&bits), "[0x1p-1,-0x1p+0,0x1p+0]");
    assert_eq!(call(&m, "bytes", &given.to_args(&bits)), 24, "end - begin");
    let span = plan(&m, "count", &["s: f64[5]"]).unwrap();
    assert_eq!(span.dims(), 5);
    assert_eq!(
        span.params()[1],
        ParamInput::Fixed {
            ty: Type::I64,
            bits: 5
        }
    );
    assert_eq!(call(&m, "count", &span.to_args(&[0; 5])), 5);
    assert_eq!(plan(&m, "count", &[]).unwrap().dims(), 8);
}

/// Random coordinate bits (NaN payloads, subnormals, every integer) of a function with
/// every shape print as a line that reads back to the same bits.
#[test]
fn lines_of_every_shape_read_back_exactly() {
    let m = module();
    let spec = plan(&m, "all", &["v: vector<f32>[3]", "s: f64[2]"]).unwrap();
    assert_eq!(spec.dims(), 2 + 3 + 2 + 1);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for _ in 0..500 {
        let bits: Vec<u64> = spec
            .coords()
            .iter()
            .map(|c| rng.next_u64() & c.ty.mask())
            .collect();
        let line = spec.line(&bits);
        assert_eq!(spec.parse_line(&line).unwrap(), bits, "{line}");
    }
}
