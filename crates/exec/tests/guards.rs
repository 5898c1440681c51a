//! Trap guards ([`fpir::guard`]) against the unguarded program: every C function of the
//! shared corpus and of the fault fixture, guarded and not, is called with the same random
//! arguments on the interpreter and on the compiled tier. A guarded run that returns
//! returns what the unguarded one returns, with the same arrays and the same sides of the
//! program's own branches; a guarded run takes a guard's `trap` side exactly when it then
//! traps; every unguarded fault a guard watches for is announced by a guard.

use fpforge_exec::{BranchTrace, Compilation, Concrete, ExecConfig, Interpreter, Outcome, Run};
use fpforge_exec::{Trap, TrapKind};
use fpforge_spec::Arg;
use fpir::{FloatTy, Func, Module, Side, Type};
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn c_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures().join("corpus"))
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    files.push(fixtures().join("findings/faults.c"));
    files
}

fn load(path: &Path) -> Option<Module> {
    fpforge_lower::load(
        std::slice::from_ref(&path.to_path_buf()),
        &fpforge_lower::LoadOptions::default(),
    )
    .ok()
}

/// The module with every function guarded; checked by the verifier and by a round trip
/// through the text form.
fn guarded(module: &Module, path: &Path) -> (Module, usize) {
    let mut guarded = module.clone();
    let funcs: Vec<Func> = module.funcs.keys().collect();
    let count = fpir::guard::add_trap_guards(&mut guarded, &funcs).expect("sites re-index");
    if let Err(errors) = fpir::verify_module(&guarded) {
        panic!(
            "{}: guarded module does not verify: {errors:?}",
            path.display()
        );
    }
    let text = fpir::write_module(&guarded);
    let reparsed = fpir::parse_module(&text)
        .unwrap_or_else(|e| panic!("{}: guarded text does not parse: {e}", path.display()));
    assert_eq!(fpir::write_module(&reparsed), text, "{}", path.display());
    (guarded, count)
}

fn random_bits(rng: &mut impl Rng, ty: Type) -> u64 {
    const INTS: [i64; 8] = [0, 1, -1, 7, 20, 3, i32::MIN as i64, i64::MIN];
    match ty {
        Type::Float(FloatTy::F64) => rng.gen_range(-100.0f64..100.0).to_bits(),
        Type::Float(FloatTy::F32) => u64::from(rng.gen_range(-100.0f32..100.0).to_bits()),
        Type::Int(_) if rng.gen_bool(0.5) => INTS[rng.gen_range(0..INTS.len())] as u64,
        Type::Int(_) => rng.gen_range(0..40),
        Type::Ptr => 0,
    }
}

fn random_args(module: &Module, func: Func, rng: &mut impl Rng) -> Vec<Arg> {
    let f = &module.funcs[func];
    f.params()
        .iter()
        .zip(&f.param_pointees)
        .map(|(&r, pointee)| match f.regs[r] {
            Type::Ptr => {
                let elem = pointee.unwrap_or(Type::F64);
                let len = rng.gen_range(1..20);
                let values = (0..len).map(|_| random_bits(rng, elem)).collect();
                Arg::Array { elem, values }
            }
            ty => Arg::Scalar(random_bits(rng, ty)),
        })
        .collect()
}

/// The faults a guard announces.
fn guarded_fault(kind: &TrapKind) -> bool {
    matches!(
        kind,
        TrapKind::IntDivByZero
            | TrapKind::IntDivOverflow
            | TrapKind::OutOfBounds { .. }
            | TrapKind::NullDeref { .. }
            | TrapKind::ObjectOverrun { .. }
    )
}

/// Tallies of what the calls did.
#[derive(Default, Debug)]
struct Tally {
    returned: usize,
    announced_faults: usize,
    overruns_only_guards_see: usize,
}

struct Pair<'m> {
    plain: Interpreter<'m, Concrete, BranchTrace>,
    guarded: Interpreter<'m, Concrete, BranchTrace>,
    guarded_module: &'m Module,
}

impl Pair<'_> {
    fn compare(&mut self, func: Func, args: &[Arg], what: &str, tally: &mut Tally) {
        let plain = call(&mut self.plain, func, args, what);
        let guarded = call(&mut self.guarded, func, args, what);
        let plain_sides = self.plain.observer().events.clone();
        let guarded_sides = self.guarded.observer().events.clone();
        let took_trap_side = guarded_sides
            .iter()
            .any(|s| self.guarded_module.is_trap_target(*s));
        let own_sides: Vec<Side> = guarded_sides
            .iter()
            .copied()
            .filter(|s| self.guarded_module.trap_check(s.site).is_none())
            .collect();
        match (&plain.outcome, &guarded.outcome) {
            (_, Outcome::Returned(value)) => {
                assert_eq!(plain.outcome, Outcome::Returned(*value), "{what}");
                assert_eq!(plain.arrays, guarded.arrays, "{what}");
                assert_eq!(plain_sides, own_sides, "{what}");
                assert!(!took_trap_side, "{what}: a trap side without a trap");
                tally.returned += 1;
            }
            (Outcome::Returned(_), Outcome::Trapped(trap)) => {
                assert!(
                    matches!(trap.kind, TrapKind::ObjectOverrun { .. }),
                    "{what}: only an overrun into another object may trap guarded alone: {trap}"
                );
                assert!(took_trap_side, "{what}");
                tally.overruns_only_guards_see += 1;
            }
            (Outcome::Trapped(p), Outcome::Trapped(g)) => {
                compare_traps(p, g, took_trap_side, what);
                tally.announced_faults += usize::from(took_trap_side);
            }
            (plain, guarded) => panic!("{what}: C code threw: {plain:?} / {guarded:?}"),
        }
    }
}

fn compare_traps(plain: &Trap, guarded: &Trap, took_trap_side: bool, what: &str) {
    if guarded_fault(&plain.kind) {
        assert!(
            took_trap_side,
            "{what}: {plain} without a guard's trap side"
        );
        if !matches!(guarded.kind, TrapKind::ObjectOverrun { .. }) {
            assert_eq!(plain.kind, guarded.kind, "{what}");
        }
    } else {
        assert_eq!(plain.kind, guarded.kind, "{what}");
        assert!(!took_trap_side, "{what}: a trap side before {plain}");
    }
}

fn call(
    interp: &mut Interpreter<'_, Concrete, BranchTrace>,
    func: Func,
    args: &[Arg],
    what: &str,
) -> Run<u64> {
    interp.observer_mut().clear();
    interp
        .call(func, args)
        .unwrap_or_else(|e| panic!("{what}: {e}"))
}

fn interpreter(module: &Module, compile: Compilation) -> Interpreter<'_, Concrete, BranchTrace> {
    let config = ExecConfig::default()
        .with_fuel(1_000_000)
        .with_compile(compile);
    Interpreter::new(module, Concrete, BranchTrace::default(), config).expect("prepares")
}

#[test]
fn guards_change_no_result_and_announce_every_fault() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut tally = Tally::default();
    let mut guards = 0;
    for path in c_files() {
        let Some(module) = load(&path) else {
            continue;
        };
        let (guarded_module, count) = guarded(&module, &path);
        guards += count;
        for compile in [Compilation::Off, Compilation::Eager] {
            let mut pair = Pair {
                plain: interpreter(&module, compile),
                guarded: interpreter(&guarded_module, compile),
                guarded_module: &guarded_module,
            };
            for (func, f) in module.funcs.iter() {
                for _ in 0..30 {
                    let args = random_args(&module, func, &mut rng);
                    let what = format!("{}: {}{args:?} ({compile:?})", path.display(), f.name);
                    pair.compare(func, &args, &what, &mut tally);
                }
            }
        }
    }
    eprintln!("{guards} guards; {tally:?}");
    assert!(guards > 20, "only {guards} guards in the corpus");
    assert!(tally.returned > 1000, "{tally:?}");
    assert!(tally.announced_faults > 10, "{tally:?}");
}
