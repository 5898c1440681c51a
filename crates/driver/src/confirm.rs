//! Running again what is reported: a test's results for `regression.c`, and whether the
//! input `reach` answers with crashes or hangs when run concretely. Engines confirm what
//! they find; this is what the front ends show beside it.

use crate::error::Result;
use fpforge_exec::{Concrete, ExecConfig, Finding, Interpreter, NoObserver, Outcome};
use fpforge_report::findings::fault_line;
use fpforge_report::regression::RegressionTest;
use fpforge_spec::InputSpec;
use fpir::{Func, Module};

/// The test of input `coords` of `func` for `regression.c`, with the results or the
/// exception the concrete interpreter computes; `None` when the run traps (such an input
/// is a finding, never a test).
pub fn regression_test(
    interp: &mut Interpreter<'_, Concrete, NoObserver>,
    func: Func,
    spec: &InputSpec,
    coords: &[u64],
) -> Option<RegressionTest> {
    let run = interp.call(func, &spec.to_args(coords)).ok()?;
    let (value, thrown) = match run.outcome {
        Outcome::Returned(value) => (value.unwrap_or(0), None),
        Outcome::Threw(thrown) => (0, Some(thrown)),
        Outcome::Trapped(_) => return None,
    };
    let mut expected = vec![value];
    expected.extend(run.arrays.into_iter().flatten());
    Some(RegressionTest {
        coords: coords.to_vec(),
        expected,
        thrown,
        checked: true,
    })
}

/// Runs input `bits` of `func` again under `exec`: how it crashes or hangs, when it
/// does, as a line naming the fault, its place and its call stack.
pub fn crash_of(
    module: &Module,
    func: Func,
    spec: &InputSpec,
    bits: &[u64],
    exec: ExecConfig,
) -> Result<Option<String>> {
    let mut interp = Interpreter::new(module, Concrete, NoObserver, exec)?;
    let run = interp.call(func, &spec.to_args(bits))?;
    let Outcome::Trapped(trap) = run.outcome else {
        return Ok(None);
    };
    let Some(finding) = Finding::of(&trap, bits.to_vec()) else {
        return Ok(None);
    };
    Ok(Some(fault_line(module, &finding)))
}
