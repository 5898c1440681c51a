//! `long double` parameters: two coordinates (the nearest double and a tail below it)
//! that reach every `long double` in a double's range, exactly, their text in lines,
//! and the arguments a real call receives.

use fpforge_exec::{Concrete, ExecConfig, Interpreter, NoObserver, Outcome};
use fpforge_spec::spec::{long_double_coords, long_double_of};
use fpforge_spec::{ArgSpec, InputSpec, ParamInput, ValueRange};
use fpir::f80::{self, F80};
use fpir::{FloatTy, Module, Type};
use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::OnceLock;

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/longdouble/params.c");
        fpforge_lower::load(&[path], &fpforge_lower::LoadOptions::default())
            .expect("params.c lowers")
    })
}

fn plan(func: &str, args: &[&str]) -> InputSpec {
    let m = module();
    let f = m.func_by_name(func).expect("function exists");
    let args: Vec<ArgSpec> = args.iter().map(|t| t.parse().expect("parses")).collect();
    InputSpec::for_function(m, f, &args, &[]).expect("plans")
}

/// A finite `long double` in a double's normal range, from random bits.
fn in_double_range() -> impl Strategy<Value = F80> {
    (any::<u64>(), 0x3fffu16 - 1000..0x3fff + 1000, any::<bool>()).prop_map(|(sig, exp, neg)| F80 {
        sig: sig | 1 << 63,
        se: exp | if neg { 0x8000 } else { 0 },
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn coordinates_reach_every_long_double_in_a_doubles_range(x in in_double_range()) {
        let (head, tail) = long_double_coords(x).expect("in range");
        prop_assert_eq!(long_double_of(head, tail), x);
        let near = x.to_float(FloatTy::F64, f80::Round::NearestTiesToEven);
        prop_assert_eq!(head, near, "the head is the nearest double");
        prop_assert!((tail as u16 as i16).unsigned_abs() <= 2048);
    }

    #[test]
    fn any_coordinates_give_a_long_double_near_the_head(head in any::<f64>(), tail in -2048i16..=2048) {
        let x = long_double_of(head.to_bits(), tail as u16 as u64);
        let back = x.to_float(FloatTy::F64, f80::Round::NearestTiesToEven);
        if head.is_nan() {
            prop_assert!(f64::from_bits(back).is_nan());
        } else {
            prop_assert!((f64::from_bits(back) - head).abs() <= head.abs() * f64::EPSILON);
        }
    }
}

#[test]
fn a_long_double_parameter_is_two_coordinates_and_one_word_of_a_line() {
    let spec = plan("scale", &["x: f80 in [-4, 4]", "y in [0, 1]"]);
    let range = Some(ValueRange { lo: -4.0, hi: 4.0 });
    assert_eq!(
        spec.params(),
        &[
            ParamInput::LongDoubleResult,
            ParamInput::LongDouble { range },
            ParamInput::LongDoubleExponent,
            ParamInput::Scalar {
                ty: Type::I32,
                range: None
            },
            ParamInput::LongDouble {
                range: Some(ValueRange { lo: 0.0, hi: 1.0 })
            },
            ParamInput::LongDoubleExponent,
        ]
    );
    assert_eq!(spec.dims(), 5);
    let line = "0x1.0000000000000002p+0 3 0x1.8p-1";
    let bits = spec.parse_line(line).expect("parses");
    assert_eq!(spec.line(&bits), line);
    assert!(spec.parse_line("8 3 0.5").is_err(), "outside the range");
    assert!(
        spec.parse_line("1e4000 3 0.5").is_err(),
        "outside a double's range"
    );

    let m = module();
    let f = m.func_by_name("scale").expect("scale");
    let mut interp =
        Interpreter::new(m, Concrete, NoObserver, ExecConfig::default()).expect("valid");
    let run = interp.call(f, &spec.to_args(&bits)).expect("runs");
    assert!(matches!(run.outcome, Outcome::Returned(None)));
    let words = &run.arrays[0];
    let got = F80 {
        sig: words[0],
        se: words[1] as u16,
    };
    // x = 1 + 2^-63 is not above 1.5: x * 2 + 0.75.
    assert_eq!(f80::format_exact(got), "0x1.6000000000000002p+1");
}

#[test]
fn f80_specs_fit_only_long_doubles() {
    let m = module();
    let f = m.func_by_name("narrow").expect("narrow");
    let spec: ArgSpec = "x: long double".parse().expect("parses");
    assert!(InputSpec::for_function(m, f, &[spec], &[]).is_ok());
    let g = m.func_by_name("widen").expect("widen");
    let spec: ArgSpec = "d: f80".parse().expect("parses");
    let err = InputSpec::for_function(m, g, &[spec], &[]).expect_err("d is a double");
    assert!(err.to_string().contains("no long double"), "{err}");
}
