//! The high layer of the command line: each command's options, validated once from the
//! flags of [`crate::args`]. Every number, range and duration is checked here with a
//! one-line error naming the flag, the allowed values and the value given; engine
//! configurations are built here; commands receive only these options.

use crate::args::{
    AccuracyArgs, CiArgs, CompileArg, CoverArgs, CoverageRunArgs, EngineArgs, ExploreArgs,
    FitnessChoice, InitArgs, IrArgs, LibraryArgs, ListArgs, MergeArgs, MetricArg, OutputArgs,
    ProgramArgs, ReachArgs, RunArgs, SitesArgs, SolveArgs, StrategyArg,
};
use crate::progress::Verbosity;
use anyhow::{anyhow, bail, Context, Result};
use fpforge_accuracy::exhaustive::InputRange;
use fpforge_accuracy::{AccuracyConfig, CandidateStrategy, ErrorMetric, OracleChoice};
use fpforge_cover::{CoverConfig, Metric, Space};
use fpforge_driver::check::{at_least, in_range, percent, seconds};
use fpforge_driver::exhaustive::{is_exhaustive, ExhaustiveOptions};
use fpforge_driver::findings::Baseline;
use fpforge_driver::library::{LibraryOptions, Resume, Shard};
use fpforge_driver::native::Confirm;
use fpforge_driver::out::TestSet;
use fpforge_driver::plan::Specs;
use fpforge_driver::run::{AccuracyJob, CoverJob, ExploreJob, JobBase};
use fpforge_driver::{Functions, Program, TrapTargets};
use fpforge_engine::Budget;
use fpforge_exec::Compilation;
use fpforge_explore::{CallPolicy, EngineConfig, ReachAim, ReachConfig};
use fpforge_lower::{LoadOptions, PrefixMapping, SourcePaths};
use fpforge_solve::{Fitness, SolveConfig};
use fpforge_spec::{ArgSpec, OutArgSpec};
use fpir::eval::RoundingMode;
use std::path::{Path, PathBuf};

/// The widest MPFR precision a flag takes, in bits.
const MAX_PRECISION: u32 = 1 << 20;

/// Most worker threads `--jobs` takes.
const MAX_JOBS: usize = 1024;

/// Trap guards unless the user said `--no-trap-targets`.
fn trap_targets_unless(disabled: bool) -> TrapTargets {
    if disabled {
        TrapTargets::Off
    } else {
        TrapTargets::On
    }
}

/// The one function of a command that takes one.
fn one_function(names: &[String]) -> Result<Functions> {
    match names {
        [one] => Ok(Functions::One(one.clone())),
        [] => bail!("no function: name it with -f FUNC"),
        _ => bail!(
            "-f is given {} times: this command takes one function (`cover` and `explore` take several)",
            names.len()
        ),
    }
}

/// The functions of `cover`, `explore` or `accuracy`: one plain `-f` name alone keeps
/// the one-function layout; anything else selects several.
fn select_functions(names: &[String], library: &LibraryArgs) -> Result<Functions> {
    let file = library.functions_file.as_deref();
    let functions = Functions::select(names, file, library.all, &library.skip)?
        .context("no function: name it with -f FUNC, or give --all or --functions FILE")?;
    if library.changed_since.is_some() && matches!(functions, Functions::One(_)) {
        bail!("--changed-since selects among several functions (--all, -f GLOB, --functions)");
    }
    Ok(functions.changed_since(library.changed_since.clone()))
}

/// What `cover` and `explore` share (see [`CoverageRunArgs`]).
#[derive(Debug)]
pub struct CoverageRunOptions {
    /// Guards before instructions that may trap, or not.
    pub trap_targets: TrapTargets,
    /// `--seeds`: a file of the user's inputs.
    pub seeds: Option<PathBuf>,
    /// `--gcov`: print gcov's branch figure of the tests.
    pub gcov: bool,
    /// All tests, or the fewest that keep the coverage.
    pub tests: TestSet,
    /// Output directory.
    pub out: PathBuf,
    /// The JUnit file and the coverage threshold.
    pub ci: CiOptions,
    /// JSON or summary, progress or not.
    pub output: OutputOptions,
}

impl TryFrom<CoverageRunArgs> for CoverageRunOptions {
    type Error = anyhow::Error;

    fn try_from(args: CoverageRunArgs) -> Result<Self> {
        Ok(CoverageRunOptions {
            trap_targets: trap_targets_unless(args.no_trap_targets),
            seeds: args.seeds,
            gcov: args.gcov,
            tests: if args.no_minimize {
                TestSet::All
            } else {
                TestSet::Minimized
            },
            out: args.out,
            ci: args.ci.try_into()?,
            output: args.output.into(),
        })
    }
}

impl CoverageRunOptions {
    /// Which of the flags that take one function were given.
    fn one_function_flags(&self) -> [(&'static str, bool); 3] {
        [
            ("--seeds", self.seeds.is_some()),
            ("--gcov", self.gcov),
            ("--junit", self.ci.junit.is_some()),
        ]
    }
}

/// The options of `functions` from `--jobs`, `--total-time`, `--shard` and `--resume`,
/// which only runs over several functions take, with `--seeds`, `--gcov` and `--junit`,
/// which they refuse, and `--confirm`, which every run takes.
fn library_options(
    functions: &Functions,
    (jobs, confirm): (usize, Confirm),
    library: &LibraryArgs,
    one_function_only: &[(&'static str, bool)],
) -> Result<LibraryOptions> {
    let total_time = library
        .total_time
        .map(|s| seconds("--total-time", s))
        .transpose()?;
    match functions {
        Functions::One(_) => {
            let given = [
                ("--total-time", total_time.is_some()),
                ("--shard", library.shard.is_some()),
                ("--resume", library.resume),
                ("--skip", !library.skip.is_empty()),
            ];
            if let Some((flag, _)) = given.iter().find(|(_, given)| *given) {
                bail!("{flag} is for runs over several functions (--all, -f GLOB, --functions)");
            }
        }
        Functions::Selected(_) => {
            if let Some((flag, _)) = one_function_only.iter().find(|(_, given)| *given) {
                bail!("{flag} takes one function: run it on one of OUT/<function>/ instead");
            }
        }
    }
    Ok(LibraryOptions {
        jobs: in_range("--jobs", jobs, 1, MAX_JOBS)?,
        total_time,
        shard: (library.shard.as_deref().map(Shard::parse).transpose())
            .map_err(crate::render::error)?,
        resume: if library.resume {
            Resume::Continue
        } else {
            Resume::Restart
        },
        specs: library.function_specs.clone(),
        confirm,
    })
}

/// `--confirm` as the driver's setting.
fn confirm_of(flag: bool) -> Confirm {
    if flag {
        Confirm::Native
    } else {
        Confirm::Off
    }
}

/// The `--arg` and `--out-arg` specs of a command on `functions`: those of the command
/// line, or for one function those fpforge.toml gives it (filled in only when the command
/// line gives none).
fn specs_of(
    functions: &Functions,
    library: &LibraryArgs,
    args: Vec<ArgSpec>,
    out_args: Vec<OutArgSpec>,
) -> Specs {
    let own = match functions {
        Functions::One(name) => library.function_specs.get(name),
        Functions::Selected(_) => None,
    };
    own.cloned().unwrap_or(Specs { args, out_args })
}

const SOURCE_EXTENSIONS: &[&str] = &[
    "c", "cc", "cpp", "cxx", "C", "c++", "f", "F", "for", "FOR", "f77", "F77", "fpp", "ll", "bc",
];

/// True when `item` names an input file or directory rather than an argument value.
fn is_input_path(item: &str) -> bool {
    let path = Path::new(item);
    let has_source_ext = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e));
    has_source_ext || path.is_dir()
}

/// The program of `items` (input files up to the first item that is not one, which
/// starts the function's arguments) and `args`; returns the arguments too.
fn program_of(
    items: &[String],
    args: &ProgramArgs,
    functions: Functions,
) -> Result<(Program, Vec<String>)> {
    let count = items.iter().take_while(|i| is_input_path(i)).count();
    if count == 0 {
        bail!("no input file: give a .c, .cpp, .f, .F, .ll or .bc file or a directory before the arguments (or, for cover, explore and accuracy, run in a directory with an fpforge.toml: fpforge init DIR writes one)");
    }
    let paths: Vec<PathBuf> = items[..count].iter().map(PathBuf::from).collect();
    if let Some(missing) = paths.iter().find(|p| !p.exists()) {
        bail!("{}: no such file or directory", missing.display());
    }
    if let Some(dir) = args.lib_dirs.iter().find(|d| !d.is_dir()) {
        bail!("--lib-dir {}: not a directory", dir.display());
    }
    if let Some(db) = args.compile_commands.as_ref().filter(|f| !f.is_file()) {
        bail!("--compile-commands {}: no such file", db.display());
    }
    let mut flags: Vec<String> = Vec::new();
    flags.extend(args.include.iter().map(|d| format!("-I{d}")));
    flags.extend(args.define.iter().map(|d| format!("-D{d}")));
    flags.extend(args.std.iter().map(|s| format!("-std={s}")));
    flags.extend(args.cflags.iter().cloned());
    let mut load = LoadOptions::default()
        .with_source_paths(source_paths(args)?)
        .with_compiler_flags(flags)
        .with_skip_unsupported(args.skip_unsupported)
        .with_allow_undefined(args.allow_undefined)
        .with_lib_dirs(&args.lib_dirs);
    if let Some(db) = &args.compile_commands {
        load = load.with_compile_commands(db);
    }
    Ok((
        Program::new(paths, functions, load),
        items[count..].to_vec(),
    ))
}

/// How outputs write source paths: `--path-prefix-map`s, then `--source-root`.
fn source_paths(args: &ProgramArgs) -> Result<SourcePaths> {
    let mut paths = SourcePaths::default();
    for text in &args.path_prefix_map {
        let Some(mapping) = PrefixMapping::parse(text, paths.run_dir()) else {
            bail!("--path-prefix-map {text}: expected OLD=NEW");
        };
        paths = paths.with_mapping(mapping);
    }
    if let Some(root) = &args.source_root {
        if !root.is_dir() {
            bail!("--source-root {}: not a directory", root.display());
        }
        let mapping = PrefixMapping::root(root, paths.run_dir());
        paths = paths.with_mapping(mapping);
    }
    Ok(paths)
}

/// The program of `items`, which must all be input files.
fn files_only(
    items: &[String],
    args: &ProgramArgs,
    functions: Functions,
    command: &str,
) -> Result<Program> {
    let (program, rest) = program_of(items, args, functions)?;
    if let Some(extra) = rest.first() {
        bail!("unexpected argument `{extra}`: `{command}` takes input files only");
    }
    Ok(program)
}

/// `fpforge run`.
#[derive(Debug)]
pub struct RunOptions {
    /// The program.
    pub program: Program,
    /// The arguments' texts.
    pub arguments: Vec<String>,
    /// Instruction budget, when given.
    pub fuel: Option<u64>,
    /// The rounding mode the run starts in.
    pub rounding: RoundingMode,
    /// JSON instead of text.
    pub json: bool,
}

impl TryFrom<RunArgs> for RunOptions {
    type Error = anyhow::Error;

    fn try_from(args: RunArgs) -> Result<Self> {
        let functions = one_function(&args.program.function)?;
        let (program, arguments) = program_of(&args.items, &args.program, functions)?;
        Ok(RunOptions {
            program,
            arguments,
            fuel: args.fuel.map(|f| at_least("--fuel", f, 1)).transpose()?,
            rounding: RoundingMode::from_name(&args.rounding).with_context(|| {
                format!(
                    "--rounding {}: expected nearest, downward, upward or zero",
                    args.rounding
                )
            })?,
            json: args.json,
        })
    }
}

/// `fpforge list`.
#[derive(Debug)]
pub struct ListOptions {
    /// The program (no entry function: every function is listed).
    pub program: Program,
    /// JSON instead of a table.
    pub json: bool,
}

impl TryFrom<ListArgs> for ListOptions {
    type Error = anyhow::Error;

    fn try_from(args: ListArgs) -> Result<Self> {
        if !args.program.function.is_empty() {
            bail!("`list` lists every function: it takes no -f");
        }
        Ok(ListOptions {
            program: files_only(&args.items, &args.program, Functions::every(), "list")?,
            json: args.json,
        })
    }
}

/// `fpforge sites`.
#[derive(Debug)]
pub struct SitesOptions {
    /// The program.
    pub program: Program,
    /// Also the sites of the functions the entry may call.
    pub deep: bool,
    /// JSON instead of a table.
    pub json: bool,
}

impl TryFrom<SitesArgs> for SitesOptions {
    type Error = anyhow::Error;

    fn try_from(args: SitesArgs) -> Result<Self> {
        Ok(SitesOptions {
            program: program_of(
                &args.items,
                &args.program,
                one_function(&args.program.function)?,
            )?
            .0
            .with_trap_targets(TrapTargets::On),
            deep: args.deep,
            json: args.json,
        })
    }
}

/// `fpforge ir`.
#[derive(Debug)]
pub struct IrOptions {
    /// The program.
    pub program: Program,
}

impl TryFrom<IrArgs> for IrOptions {
    type Error = anyhow::Error;

    fn try_from(args: IrArgs) -> Result<Self> {
        Ok(IrOptions {
            program: program_of(
                &args.items,
                &args.program,
                one_function(&args.program.function)?,
            )?
            .0,
        })
    }
}

/// What a CI job reads from `cover` and `explore`.
#[derive(Debug, Clone, Default)]
pub struct CiOptions {
    /// Where to write the JUnit XML file.
    pub junit: Option<PathBuf>,
    /// The feasible coverage in percent below which the run exits with code 4.
    pub fail_under: Option<f64>,
    /// `--sarif` and `--baseline`.
    pub findings: FindingsOptions,
    /// Whether findings are replayed natively.
    pub confirm: Confirm,
}

/// Where a run's findings go for code scanning, and which are known.
#[derive(Debug, Clone, Default)]
pub struct FindingsOptions {
    /// Where to write the SARIF log.
    pub sarif: Option<PathBuf>,
    /// The known findings.
    pub baseline: Option<Baseline>,
}

impl TryFrom<CiArgs> for CiOptions {
    type Error = anyhow::Error;

    fn try_from(args: CiArgs) -> Result<Self> {
        Ok(CiOptions {
            junit: args.junit,
            fail_under: args
                .fail_under
                .map(|p| percent("--fail-under", p))
                .transpose()?,
            findings: FindingsOptions {
                sarif: args.sarif,
                baseline: baseline(args.baseline.as_deref(), &args.accepted)?,
            },
            confirm: confirm_of(args.confirm),
        })
    }
}

/// The known findings: `--baseline`'s file and fpforge.toml's `[[accept]]` entries.
fn baseline(file: Option<&Path>, accepted: &[String]) -> Result<Option<Baseline>> {
    if file.is_none() && accepted.is_empty() {
        return Ok(None);
    }
    let read = file
        .map(Baseline::read)
        .transpose()
        .map_err(crate::render::error)?;
    let known = read
        .unwrap_or_default()
        .with_accepted(accepted.iter().map(String::as_str))
        .map_err(crate::render::error)?;
    Ok(Some(known))
}

/// How a searching command reports (`--json`, `--quiet`).
#[derive(Debug, Clone, Copy)]
pub struct OutputOptions {
    /// The results as JSON on stdout instead of the summary.
    pub json: bool,
    /// Progress and summary, or neither.
    pub verbosity: Verbosity,
}

impl From<OutputArgs> for OutputOptions {
    fn from(args: OutputArgs) -> Self {
        OutputOptions {
            json: args.json,
            verbosity: Verbosity::of(args.quiet),
        }
    }
}

/// `fpforge cover`.
#[derive(Debug)]
pub struct CoverOptions {
    /// The program.
    pub program: Program,
    /// Threads and total time of a run over several functions.
    pub library: LibraryOptions,
    /// The engine with its settings and budget (its prover and interrupt are plugged in
    /// by the command).
    pub job: CoverJob,
    /// Hand the sides the search leaves open to concolic execution.
    pub reach: bool,
    /// Seeds, gcov, the test set, and where and how the results go.
    pub run: CoverageRunOptions,
}

impl From<CompileArg> for Compilation {
    fn from(arg: CompileArg) -> Self {
        match arg {
            CompileArg::Hot => Compilation::WhenHot,
            CompileArg::Eager => Compilation::Eager,
            CompileArg::Off => Compilation::Off,
        }
    }
}

impl TryFrom<CoverArgs> for CoverOptions {
    type Error = anyhow::Error;

    fn try_from(args: CoverArgs) -> Result<Self> {
        let functions = select_functions(&args.program.function, &args.library)?;
        let run = CoverageRunOptions::try_from(args.run)?;
        let library = library_options(
            &functions,
            (args.jobs, run.ci.confirm),
            &args.library,
            &run.one_function_flags(),
        )?;
        let search_jobs = match functions {
            Functions::One(_) => library.jobs,
            Functions::Selected(_) => 1,
        };
        let specs = specs_of(&functions, &args.library, args.arg_specs, args.out_args);
        let program = files_only(&args.items, &args.program, functions, "cover")?
            .with_trap_targets(run.trap_targets);
        let spaces = if args.no_ulp_space {
            vec![Space::Real]
        } else {
            vec![Space::Real, Space::OrderedBits]
        };
        let metric = if args.no_ulp_distance {
            Metric::Real
        } else {
            Metric::Ulp
        };
        let budget = Budget::default()
            .with_time_limit(Some(seconds("--time-limit", args.time_limit)?))
            .with_evals(args.evals.map(|e| at_least("--evals", e, 1)).transpose()?);
        let config = CoverConfig::default()
            .with_seed(args.seed)
            .with_n_start(at_least("--starts", args.starts, 1)?)
            .with_deep(args.deep)
            .with_fuel(at_least("--fuel", args.fuel, 1)?)
            .with_compile(args.compile.into())
            .with_jobs(search_jobs)
            .with_spaces(spaces)
            .with_metric(metric)
            .with_seeding(!args.no_seeding)
            .with_ulp_refine(!args.no_refine)
            .with_targeted(!args.no_targeted)
            .with_levels(!args.no_levels)
            .with_boundaries(!args.no_boundaries)
            .with_pairs(!args.no_pairs)
            .with_pair_evals(args.pair_evals)
            .with_prover_time(
                args.reach_time
                    .map(|s| seconds("--reach-time", s))
                    .transpose()?,
            );
        Ok(CoverOptions {
            program,
            library,
            job: CoverJob {
                config,
                base: JobBase { budget, specs },
                tests: run.tests,
            },
            reach: !args.no_reach,
            run,
        })
    }
}

/// The concolic engine's settings and the input specs, shared by `reach` and `explore`.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Solver, call policy and interpreter limits.
    pub config: EngineConfig,
    /// Time of each function's run.
    pub budget: Budget,
    /// `--arg` and `--out-arg` specs.
    pub specs: Specs,
}

impl TryFrom<EngineArgs> for EngineOptions {
    type Error = anyhow::Error;

    fn try_from(args: EngineArgs) -> Result<Self> {
        let calls = if args.concretize_calls {
            CallPolicy::Concretize
        } else {
            CallPolicy::Symbolic
        };
        Ok(EngineOptions {
            budget: Budget::default()
                .with_time_limit(Some(seconds("--time-limit", args.time_limit)?)),
            config: EngineConfig::default()
                .with_query_timeout(seconds("--query-timeout", args.query_timeout)?)
                .with_strategy(args.solver)
                .with_seed(args.seed)
                .with_calls(calls),
            specs: Specs {
                args: args.arg_specs,
                out_args: args.out_args,
            },
        })
    }
}

/// `fpforge reach`.
#[derive(Debug)]
pub struct ReachOptions {
    /// The program.
    pub program: Program,
    /// The engine, aimed (its interrupt is plugged in by the command).
    pub job: ReachConfig,
    /// Its time.
    pub budget: Budget,
    /// Where to write the deciding path condition as SMT-LIB.
    pub emit_smt2: Option<PathBuf>,
    /// JSON or text, progress or not.
    pub output: OutputOptions,
}

impl TryFrom<ReachArgs> for ReachOptions {
    type Error = anyhow::Error;

    fn try_from(args: ReachArgs) -> Result<Self> {
        let aim = match (args.path, args.branch) {
            (Some(path), None) => ReachAim::Path(path),
            (None, Some(_)) if args.emit_smt2.is_some() => {
                bail!("--emit-smt2 needs --path: a branch side is decided by many path queries")
            }
            (None, Some(side)) => ReachAim::Side(side),
            _ => bail!("give exactly one of --path and --branch"),
        };
        let engine = EngineOptions::try_from(args.engine)?;
        Ok(ReachOptions {
            program: files_only(
                &args.items,
                &args.program,
                one_function(&args.program.function)?,
                "reach",
            )?
            .with_trap_targets(TrapTargets::On),
            job: ReachConfig {
                engine: engine.config,
                aim,
                args: engine.specs.args,
                out_args: engine.specs.out_args,
                emit_smt2: args.emit_smt2.is_some(),
            },
            budget: engine.budget,
            emit_smt2: args.emit_smt2,
            output: args.output.into(),
        })
    }
}

/// `fpforge explore`.
#[derive(Debug)]
pub struct ExploreOptions {
    /// The program.
    pub program: Program,
    /// Threads and total time of a run over several functions.
    pub library: LibraryOptions,
    /// The engine with its settings, budget and specs (its interrupt is plugged in by
    /// the command).
    pub job: ExploreJob,
    /// Seeds, gcov, the test set, and where and how the results go.
    pub run: CoverageRunOptions,
}

impl TryFrom<ExploreArgs> for ExploreOptions {
    type Error = anyhow::Error;

    fn try_from(args: ExploreArgs) -> Result<Self> {
        let functions = select_functions(&args.program.function, &args.library)?;
        let run = CoverageRunOptions::try_from(args.run)?;
        let library = library_options(
            &functions,
            (args.jobs, run.ci.confirm),
            &args.library,
            &run.one_function_flags(),
        )?;
        let mut engine = args.engine;
        let specs = specs_of(&functions, &args.library, engine.arg_specs, engine.out_args);
        (engine.arg_specs, engine.out_args) = (specs.args, specs.out_args);
        let engine = EngineOptions::try_from(engine)?;
        Ok(ExploreOptions {
            program: files_only(&args.items, &args.program, functions, "explore")?
                .with_trap_targets(run.trap_targets),
            library,
            job: ExploreJob {
                config: engine.config,
                base: JobBase {
                    budget: engine.budget,
                    specs: engine.specs,
                },
                tests: run.tests,
            },
            run,
        })
    }
}

/// `fpforge accuracy`.
#[derive(Debug)]
pub struct AccuracyOptions {
    /// The program.
    pub program: Program,
    /// Threads, total time, shard and resumption of a run over several functions.
    pub library: LibraryOptions,
    /// The engine with its settings, budget and specs (its interrupt is plugged in by
    /// the command).
    pub job: AccuracyJob,
    /// A report whose worst input is measured again instead of searching.
    pub check_input: Option<PathBuf>,
    /// Output directory (always one for a run over several functions).
    pub out: Option<PathBuf>,
    /// JSON or text, progress or not.
    pub output: OutputOptions,
    /// Whether wrong special values, crashes and hangs are replayed natively.
    pub confirm: Confirm,
    /// `--sarif` and `--baseline`.
    pub findings: FindingsOptions,
    /// `--exhaustive`: every input of a range checked instead of a search.
    pub exhaustive: Option<ExhaustiveOptions>,
}

/// The output directory of a run over several functions when `--out` is not given, as
/// `cover`'s.
const DEFAULT_OUT: &str = "fpforge-out";

impl TryFrom<AccuracyArgs> for AccuracyOptions {
    type Error = anyhow::Error;

    fn try_from(mut args: AccuracyArgs) -> Result<Self> {
        let functions = select_functions(&args.program.function, &args.library)?;
        let exhaustive = exhaustive_options(&mut args, &functions)?;
        let confirm = confirm_of(args.confirm);
        let library = library_options(&functions, (args.jobs, confirm), &args.library, &[])?;
        let several = matches!(functions, Functions::Selected(_));
        if several && args.check_input.is_some() {
            bail!("--check-input takes one function: name it with -f FUNC");
        }
        let out = match args.out {
            None if several => Some(PathBuf::from(DEFAULT_OUT)),
            out => out,
        };
        if out.is_none() && (args.sarif.is_some() || args.baseline.is_some()) {
            bail!("--sarif and --baseline read the run's findings from its output directory: give --out DIR");
        }
        let specs = specs_of(&functions, &args.library, args.arg_specs, args.out_args);
        let (program, extra) = program_of(&args.items, &args.program, functions)?;
        if !extra.is_empty() {
            bail!(
                "unexpected arguments {extra:?}: describe inputs with --arg (e.g. --arg 'a: f64[4] in [-100, 100]')"
            );
        }
        let precision = in_range("--precision", args.precision, 2, MAX_PRECISION)?;
        let verify = match args.verify_precision {
            0 => None,
            p => Some(in_range("--verify-precision", p, 2, MAX_PRECISION)?),
        };
        let oracle = parse_oracle(&args.oracle)?;
        let budget = Budget::default()
            .with_time_limit(Some(seconds("--time-limit", args.time_limit)?))
            .with_evals(args.evals.map(|e| at_least("--evals", e, 1)).transpose()?);
        let config = AccuracyConfig::default()
            .with_oracle(oracle)
            .with_metric(args.metric.map(|m| match m {
                MetricArg::Ulps => ErrorMetric::Ulps,
                MetricArg::Relative => ErrorMetric::Relative,
            }))
            .with_seed(args.seed)
            .with_precision(precision)
            .with_verify_precision(verify)
            .with_strategy(match args.strategy {
                StrategyArg::Search => CandidateStrategy::Search,
                StrategyArg::Random => CandidateStrategy::Random,
            })
            .with_sites(args.sites.parse().map_err(|e| anyhow!("--sites: {e}"))?)
            .with_sampling(
                args.sampling
                    .parse()
                    .map_err(|e| anyhow!("--sampling: {e}"))?,
            )
            .with_top_k(at_least("--top-k", args.top_k, 1)?);
        Ok(AccuracyOptions {
            program,
            library,
            job: AccuracyJob {
                config,
                base: JobBase { budget, specs },
            },
            check_input: args.check_input,
            out,
            output: args.output.into(),
            confirm,
            findings: FindingsOptions {
                sarif: args.sarif,
                baseline: baseline(args.baseline.as_deref(), &[])?,
            },
            exhaustive,
        })
    }
}

/// `--exhaustive` and what goes with it (`--range`, `--jobs`, `--shard`, `--resume`,
/// `--oracle`), taken out of `args` so the search's checks do not see them; an error
/// for a flag it cannot honour.
fn exhaustive_options(
    args: &mut AccuracyArgs,
    functions: &Functions,
) -> Result<Option<ExhaustiveOptions>> {
    if !args.exhaustive {
        if args.range.is_some() {
            bail!("--range is for --exhaustive");
        }
        return Ok(None);
    }
    if !matches!(functions, Functions::One(_)) {
        bail!("--exhaustive takes one function: name it with -f FUNC");
    }
    let refused = [
        ("--check-input", args.check_input.is_some()),
        ("--confirm", args.confirm),
        ("--evals", args.evals.is_some()),
        ("--time-limit", args.time_limit != 10.0),
        ("--arg", !args.arg_specs.is_empty()),
        ("--out-arg", !args.out_args.is_empty()),
        (
            "--metric relative",
            matches!(args.metric, Some(MetricArg::Relative)),
        ),
        ("--strategy", !matches!(args.strategy, StrategyArg::Search)),
        ("--total-time", args.library.total_time.is_some()),
        ("--sarif", args.sarif.is_some()),
        ("--baseline", args.baseline.is_some()),
    ];
    if let Some((flag, _)) = refused.iter().find(|(_, given)| *given) {
        bail!("--exhaustive checks every input of the range in ulps: {flag} does not apply to it");
    }
    let oracle = parse_oracle(&args.oracle)?;
    if !matches!(oracle, OracleChoice::Auto | OracleChoice::Mpfr(_)) {
        bail!("--exhaustive checks against a true function: --oracle auto or mpfr:NAME");
    }
    let range = match &args.range {
        Some(text) => InputRange::parse(text).map_err(|e| anyhow!("--range: {e}"))?,
        None => InputRange::all(),
    };
    let shard = (args
        .library
        .shard
        .take()
        .as_deref()
        .map(Shard::parse)
        .transpose())
    .map_err(crate::render::error)?;
    let resume = if std::mem::take(&mut args.library.resume) {
        Resume::Continue
    } else {
        Resume::Restart
    };
    if args.out.is_none() {
        args.out = Some(PathBuf::from(DEFAULT_OUT));
    }
    Ok(Some(ExhaustiveOptions {
        oracle,
        range,
        jobs: in_range("--jobs", args.jobs, 1, MAX_JOBS)?,
        shard,
        resume,
    }))
}

/// `--oracle`: `auto`, `reexec`, `mpfr:NAME` or `FILE.c:FN` (the file must exist).
fn parse_oracle(text: &str) -> Result<OracleChoice> {
    let choice: OracleChoice = text.parse().map_err(|e: String| anyhow!("--oracle: {e}"))?;
    if let OracleChoice::CReference { source, .. } = &choice {
        if !source.is_file() {
            bail!("--oracle: no C file {}", source.display());
        }
    }
    Ok(choice)
}

/// `fpforge init`.
#[derive(Debug)]
pub struct InitOptions {
    /// The library's directory.
    pub dir: PathBuf,
    /// Its sources, with the compiler flags given, every function `--all` selects.
    pub program: Program,
    /// Replace an existing fpforge.toml.
    pub force: bool,
}

impl TryFrom<InitArgs> for InitOptions {
    type Error = anyhow::Error;

    fn try_from(args: InitArgs) -> Result<Self> {
        if !args.dir.is_dir() {
            bail!("{}: not a directory", args.dir.display());
        }
        let items: Vec<String> = fpforge_driver::project::find_sources(&args.dir)?
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        Ok(InitOptions {
            program: files_only(&items, &args.program, Functions::every(), "init")?,
            dir: args.dir,
            force: args.force,
        })
    }
}

/// `fpforge merge`.
#[derive(Debug)]
pub struct MergeOptions {
    /// The shards' output directories.
    pub shards: Vec<PathBuf>,
    /// Where the joined run goes.
    pub out: PathBuf,
    /// JSON or summary.
    pub output: OutputOptions,
}

impl TryFrom<MergeArgs> for MergeOptions {
    type Error = anyhow::Error;

    fn try_from(args: MergeArgs) -> Result<Self> {
        let exhaustive = args.dirs.first().is_some_and(|d| is_exhaustive(d));
        let file = if exhaustive {
            "exhaustive.json"
        } else {
            "index.json"
        };
        if let Some(dir) = args.dirs.iter().find(|d| !d.join(file).is_file()) {
            bail!(
                "{}: no {file}: give the output directories of a run's shards",
                dir.display()
            );
        }
        Ok(MergeOptions {
            shards: args.dirs,
            out: args.out,
            output: args.output.into(),
        })
    }
}

/// `fpforge solve`.
#[derive(Debug)]
pub struct SolveOptions {
    /// The script (`-` for standard input).
    pub file: PathBuf,
    /// The solver's settings.
    pub config: SolveConfig,
}

impl TryFrom<SolveArgs> for SolveOptions {
    type Error = anyhow::Error;

    fn try_from(args: SolveArgs) -> Result<Self> {
        let fitness = match args.fitness {
            FitnessChoice::Branch => Fitness::BranchDistance,
            FitnessChoice::Ulp => Fitness::Ulp,
        };
        Ok(SolveOptions {
            file: args.file,
            config: SolveConfig::default()
                .with_timeout(seconds("--time-limit", args.time_limit)?)
                .with_strategy(args.solver)
                .with_fitness(fitness)
                .with_seed(args.seed)
                .with_stats(args.stats)
                .with_method(args.method)
                .with_jobs(in_range("--jobs", args.jobs, 1, MAX_JOBS)?),
        })
    }
}
