//! Input specs against lowered C functions: parameter resolution, defaults, coordinates,
//! and the arguments the interpreter receives.

use fpforge_exec::{Concrete, ExecConfig, Interpreter, NoObserver, Outcome};
use fpforge_spec::{Arg, ArgSpec, InputSpec, OutArgSpec, ParamInput, SpecError, ValueRange};
use fpir::{Module, Type};
use std::path::PathBuf;
use std::sync::OnceLock;

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/exec/spec.c");
        fpforge_lower::load(&[path], &fpforge_lower::LoadOptions::default()).expect("spec.c lowers")
    })
}

fn plan(func: &str, args: &[&str], outs: &[&str]) -> Result<InputSpec, SpecError> {
    let m = module();
    let f = m.func_by_name(func).expect("function exists");
    let args: Vec<ArgSpec> = args
        .iter()
        .map(|t| t.parse().expect("spec parses"))
        .collect();
    let outs: Vec<OutArgSpec> = outs
        .iter()
        .map(|t| t.parse().expect("spec parses"))
        .collect();
    InputSpec::for_function(m, f, &args, &outs)
}

fn run(func: &str, args: &[Arg]) -> fpforge_exec::Run<u64> {
    let m = module();
    let f = m.func_by_name(func).expect("function exists");
    let mut interp =
        Interpreter::new(m, Concrete, NoObserver, ExecConfig::default()).expect("valid module");
    interp.call(f, args).expect("valid call")
}

#[test]
fn arrays_and_fixed_lengths_drive_a_real_call() {
    let spec = plan(
        "dot",
        &["a: f64[3] in [-100, 100]", "b: f64[3]", "n = 3"],
        &[],
    )
    .unwrap();
    assert_eq!(spec.dims(), 6);
    assert_eq!(
        spec.coords()[0].range,
        Some(ValueRange {
            lo: -100.0,
            hi: 100.0
        })
    );
    assert_eq!(spec.coords()[4].param, 1);
    assert_eq!(spec.coords()[4].elem, Some(1));
    let values = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0].map(f64::to_bits);
    let result = run("dot", &spec.to_args(&values));
    assert_eq!(
        result.outcome,
        Outcome::Returned(Some((4.0f64 + 10.0 + 18.0).to_bits()))
    );
}

#[test]
fn output_arrays_take_the_first_input_length() {
    let spec = plan("scale", &["x: f32[4]", "n = 4", "k = 0.5"], &["out"]).unwrap();
    assert_eq!(
        spec.params()[1],
        ParamInput::Output {
            elem: Type::F32,
            len: 4
        }
    );
    assert_eq!(spec.dims(), 4);
    let values = [2.0f32, -4.0, 8.0, 1.0].map(|v| u64::from(v.to_bits()));
    let result = run("scale", &spec.to_args(&values));
    let halves: Vec<u64> = [1.0f32, -2.0, 4.0, 0.5]
        .iter()
        .map(|v| u64::from(v.to_bits()))
        .collect();
    assert_eq!(result.arrays[1], halves);
}

#[test]
fn defaults_give_one_coordinate_per_parameter() {
    let spec = plan("bump", &[], &[]).unwrap();
    assert_eq!(
        spec.params(),
        &[
            ParamInput::Pointee {
                ty: Type::F64,
                range: None
            },
            ParamInput::Scalar {
                ty: Type::I32,
                range: None
            }
        ]
    );
    let spec = plan("bump", &["2 = -3"], &[]).unwrap();
    assert_eq!(spec.dims(), 1);
    let result = run("bump", &spec.to_args(&[1.5f64.to_bits()]));
    assert_eq!(result.arrays[0], vec![(-1.5f64).to_bits()]);
}

/// An output without a length takes the first input array's, else one element.
#[test]
fn an_output_without_a_length_is_one_element_when_no_array_gives_one() {
    let spec = plan("scale", &[], &["out"]).unwrap();
    let outputs: Vec<&ParamInput> = spec
        .params()
        .iter()
        .filter(|p| matches!(p, ParamInput::Output { .. }))
        .collect();
    assert_eq!(
        outputs,
        [&ParamInput::Output {
            elem: Type::F32,
            len: 1
        }]
    );
}

#[test]
fn mistakes_are_named() {
    let unknown = plan("dot", &["c: f64[2]"], &[]).unwrap_err();
    assert!(unknown.to_string().contains("a, b, n"), "{unknown}");
    assert!(matches!(
        plan("dot", &["a: f64[2]", "1: f64[2]"], &[]),
        Err(SpecError::Duplicate(_))
    ));
    assert!(matches!(
        plan("dot", &["n: i32[2]"], &[]),
        Err(SpecError::Mismatch { .. })
    ));
    assert!(matches!(
        plan("dot", &["a: f32[2]"], &[]),
        Err(SpecError::Mismatch { .. })
    ));
    assert!(matches!(
        plan("dot", &["n = 1.5"], &[]),
        Err(SpecError::BadValue { .. })
    ));
    assert!(matches!(
        plan("first", &[], &[]),
        Err(SpecError::Mismatch { .. })
    ));
}

/// `parse_line` reads back every line `line` writes (NaN payloads, infinities and
/// negative zeros included), for arrays, fixed values, pointees and output arrays.
#[test]
fn lines_read_back_as_the_bits_they_were_written_from() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let specials = [
        0.0f64,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        5e-324,
        f64::MAX,
    ];
    let cases = [
        ("dot", vec!["a: f64[3]", "b: f64[3]", "n = 3"], vec![]),
        ("scale", vec!["x: f32[2]", "n = 2"], vec!["out: f32[2]"]),
        ("bump", vec![], vec![]),
    ];
    for (func, args, outs) in cases {
        let spec = plan(func, &args, &outs).unwrap();
        for _ in 0..200 {
            let bits: Vec<u64> = spec
                .coords()
                .iter()
                .map(|c| match c.ty {
                    Type::Float(fpir::FloatTy::F32) => u64::from(rng.gen::<u32>()),
                    Type::Float(_) if rng.gen_bool(0.3) => {
                        specials[rng.gen_range(0..specials.len())].to_bits()
                    }
                    ty => rng.gen::<u64>() & ty.mask(),
                })
                .collect();
            let line = spec.line(&bits);
            assert_eq!(spec.parse_line(&line), Ok(bits), "{func}: {line}");
        }
    }
    let dot = plan("dot", &["a: f64[3] in [-1, 1]", "b: f64[3]", "n = 3"], &[]).unwrap();
    let bad = |line: &str| match dot.parse_line(line) {
        Err(SpecError::BadLine { reason }) => reason,
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(bad("[0,0,0] [1,2,3]"), "2 values for 3 parameters");
    assert_eq!(bad("[0,0] [1,2,3] 3"), "`a` takes 3 values, the line has 2");
    assert_eq!(bad("[0,0,0] [1,2,3] 4"), "`n` is fixed to 3");
    assert_eq!(
        bad("[0,2,0] [1,2,3] 3"),
        "0x1p+1 is outside `a`'s range [-1, 1]"
    );
    assert!(matches!(
        dot.parse_line("[0,x,0] [1,2,3] 3"),
        Err(SpecError::BadValue { .. })
    ));
}

#[test]
fn special_points_put_each_coordinate_alone_far_from_one() {
    let m = module();
    let f = m.func_by_name("dot").expect("function exists");
    let spec = plan("dot", &["a: f64[2]", "b: f64[2]", "n = 2"], &[]).unwrap();
    let plan = fpforge_spec::plan::InputPlan::new(m, f, &[f], spec).unwrap();
    let points = plan.special_points();
    let huge = 2f64.powi(64);
    for axis in 0..4 {
        let mut alone = vec![1.0; 4];
        alone[axis] = huge;
        assert!(
            points.contains(&alone),
            "no point with coordinate {axis} alone at 2^64"
        );
    }
    // The diagonal is still there, and no point is evaluated twice.
    assert!(points.contains(&vec![f64::MAX; 4]));
    let mut bits: Vec<Vec<u64>> = points.iter().map(|p| plan.bits(p)).collect();
    let total = bits.len();
    bits.sort();
    bits.dedup();
    assert_eq!(bits.len(), total);
}

#[test]
fn integer_coordinates_take_only_small_axis_values() {
    let m = module();
    let f = m.func_by_name("bump").expect("function exists");
    let spec = plan("bump", &[], &[]).unwrap();
    let plan = fpforge_spec::plan::InputPlan::new(m, f, &[f], spec).unwrap();
    let ints = plan.integer_coordinates();
    assert!(ints.contains(&true) && ints.contains(&false));
    for point in plan.special_points() {
        for (&value, &int) in point.iter().zip(&ints) {
            // The type's minimum stands as -inf until the point is decoded.
            assert!(!int || value.abs() <= 1000.0 || value == f64::NEG_INFINITY);
        }
    }
}
