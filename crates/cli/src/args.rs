//! The low layer of the command line: every command's flags exactly as clap parses them
//! (numbers as given, texts not yet read). [`crate::options`] turns them into validated
//! options, checking every number, range and duration once; commands never see these.

use clap::{Args, Parser, Subcommand, ValueEnum};
use fpforge_driver::plan::Specs;
use fpforge_solve::Strategy;
use fpforge_spec::{ArgSpec, OutArgSpec};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Test-input generation for floating-point C/C++ code.
#[derive(Parser, Debug)]
#[command(
    name = "fpforge",
    version,
    about = "Test inputs for floating-point C and C++ code: inputs that take every branch, \
             a path reached or proved infeasible, floating-point constraints solved, and the \
             inputs that make a result least accurate.",
    after_help = "Start with `fpforge cover FILE.c -f FUNC --out DIR` (or `--all` for a \
                  whole library) and open DIR/report.html. `fpforge COMMAND --help` \
                  describes each command; docs/CLI.md lists every option."
)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a function on given arguments and show its result, branches taken and traps.
    Run(RunArgs),
    /// List every function the inputs define: its name (C++ demangled), symbol and place.
    List(ListArgs),
    /// List the branch and floating-point op sites of a function with source locations.
    Sites(SitesArgs),
    /// Print the lowered IR (fpir text form) of the inputs.
    Ir(IrArgs),
    /// Generate inputs that take every branch of a function (CoverMe-style search).
    Cover(CoverArgs),
    /// Decide an SMT-LIB floating-point script: sat (with a checked model), unsat, unknown.
    Solve(SolveArgs),
    /// Find an input taking a path or branch side, or prove none exists (concolic + solver).
    Reach(ReachArgs),
    /// Explore a function's paths generationally: tests, covered and infeasible branch sides.
    Explore(ExploreArgs),
    /// Find the inputs on which a function is least accurate (MPFR reference) and blame ops.
    Accuracy(AccuracyArgs),
    /// Write a first fpforge.toml for the C sources of a directory: every function
    /// `--all` would test, and the parameters that need a spec.
    Init(InitArgs),
    /// Join the output directories of a run's shards (`--shard K/N`) into the one a
    /// single run writes.
    Merge(MergeArgs),
    /// Print a baseline accepting every finding of an output directory: pass it to a
    /// later run's `--baseline` so that only new findings fail it.
    Baseline(BaselineArgs),
    /// Confirm the crashes and hangs of an earlier run natively: each replayed by a gcc
    /// build with sanitizers, with `findings/<kind>-<n>/repro.c` and `report.md`.
    Confirm(BaselineArgs),
}

/// Program inputs shared by every command.
#[derive(Args, Debug, Clone)]
pub struct ProgramArgs {
    /// Function to run or analyse. `cover`, `explore` and `accuracy` take it repeated and
    /// as a glob (`-f 'exp*'`, `*` and `?` on plain names) to test several functions in
    /// one run.
    #[arg(short = 'f', long = "function", value_name = "FUNC")]
    pub function: Vec<String>,
    /// Add a directory to the C include path (passed to clang).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<String>,
    /// Define a preprocessor macro, `NAME` or `NAME=VALUE` (passed to clang).
    #[arg(short = 'D', value_name = "MACRO")]
    pub define: Vec<String>,
    /// Language standard, e.g. `c99`, `c11`, `c++17` (passed to clang as -std=).
    #[arg(long = "std", value_name = "STD")]
    pub std: Option<String>,
    /// Any other compiler flag, passed to clang as is (repeatable).
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// Load the inputs even if functions FUNC reaches use unsupported constructs (long
    /// double, inline asm other than the libm idioms, ...); such a function traps when
    /// called and counts as undefined (see --allow-undefined). What FUNC cannot reach
    /// never needs this flag.
    #[arg(long)]
    pub skip_unsupported: bool,
    /// Load the program even if FUNC may call functions or use globals that no input
    /// defines and that are not known math functions (e.g. `fprintf` and `stderr` on a
    /// library's error path): they are listed in a warning, and a run that reaches one
    /// traps. Without this flag they are one error listing every one.
    #[arg(long)]
    pub allow_undefined: bool,
    /// A library directory, as a linker's search path (repeatable): its C/C++ files
    /// (compiled with the flags above) are indexed, and the files defining what FUNC
    /// reaches and the inputs lack are linked in, transitively. The index is cached
    /// under ~/.cache/fpforge/libindex ($FPFORGE_CACHE_DIR/libindex when set).
    #[arg(long = "lib-dir", value_name = "DIR")]
    pub lib_dirs: Vec<PathBuf>,
    /// A compile_commands.json whose files are a library like --lib-dir's, each
    /// compiled with its own include paths and macros.
    #[arg(long = "compile-commands", value_name = "FILE")]
    pub compile_commands: Option<PathBuf>,
    /// Write source paths under OLD as NEW in every output (lcov, report.html, crash
    /// files, replay commands), e.g. for a CI host whose checkout is elsewhere than the
    /// developers' (repeatable; the first that matches applies). An empty NEW writes
    /// them relative to OLD.
    #[arg(long = "path-prefix-map", value_name = "OLD=NEW")]
    pub path_prefix_map: Vec<String>,
    /// Write source paths under DIR relative to DIR in every output (the same as
    /// `--path-prefix-map DIR=`). Without it, paths are relative to the directory the
    /// run starts in when the file lies under it, else absolute.
    #[arg(long = "source-root", value_name = "DIR")]
    pub source_root: Option<PathBuf>,
}

/// Flags of `fpforge baseline` and `fpforge confirm`.
#[derive(Args, Debug)]
pub struct BaselineArgs {
    /// The output directory of a `cover`, `explore` or `accuracy` run (of one function
    /// or several).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
}

/// Flags of `fpforge run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories, then the function's arguments:
    /// floats (`1.5`, `0x1.8p+1`, `-inf`, `nan`, `raw:7ff8000000000001`), integers,
    /// arrays for pointer parameters and std::vector/std::span (`[1.5, 0x1p-3]`), structs
    /// as their fields (`{pos: [1, 2, 3], mass: 2}`, fields left out are zero). Negative
    /// decimal numbers work as they are; put `--` before other arguments that start with
    /// `-` (`-inf`, `-0x1p-3`).
    #[arg(required = true, allow_negative_numbers = true)]
    pub items: Vec<String>,
    #[command(flatten)]
    pub program: ProgramArgs,
    /// Instruction budget; running out is reported as a trap.
    #[arg(long, value_name = "N")]
    pub fuel: Option<u64>,
    /// The rounding mode the run starts in (as after `fesetround`): nearest, downward,
    /// upward or zero. The cheap way to see whether a result is sensitive to rounding.
    #[arg(long, value_name = "MODE", default_value = "nearest",
          value_parser = ["nearest", "downward", "upward", "zero"])]
    pub rounding: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `fpforge list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    pub items: Vec<String>,
    #[command(flatten)]
    pub program: ProgramArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `fpforge sites`.
#[derive(Args, Debug)]
pub struct SitesArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    pub items: Vec<String>,
    #[command(flatten)]
    pub program: ProgramArgs,
    /// Include the sites of every function the entry function may call.
    #[arg(long)]
    pub deep: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `fpforge ir`.
#[derive(Args, Debug)]
pub struct IrArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    pub items: Vec<String>,
    #[command(flatten)]
    pub program: ProgramArgs,
}

/// `--compile`: when evaluations run as native code.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CompileArg {
    /// Once the function is hot.
    Hot,
    /// From the first evaluation.
    Eager,
    /// Never: the interpreter alone.
    Off,
}

/// Flags of `fpforge cover`.
#[derive(Args, Debug)]
pub struct CoverArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories (default: the sources of the
    /// current directory's fpforge.toml).
    pub items: Vec<String>,
    #[command(flatten)]
    pub program: ProgramArgs,
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Wall-clock budget in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    pub time_limit: f64,
    /// Seed of the search; the same seed and `--evals` give the same inputs.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Number of starting points of the search.
    #[arg(long, value_name = "N", default_value_t = 500)]
    pub starts: u32,
    /// Evaluation budget; a run that ends by it rather than by the time limit is
    /// reproducible.
    #[arg(long, value_name = "N")]
    pub evals: Option<u64>,
    /// Also cover the branches of the functions FUNC calls.
    #[arg(long)]
    pub deep: bool,
    /// Instruction budget of one run of FUNC; a run that exhausts it keeps the coverage
    /// it made before.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub fuel: u64,
    /// A parameter's shape, range or value: `x: f64`, `a: f64[8]`, `a: f64[8] in [-1, 1]`,
    /// `x in [0, 10]`, `n = 4` (NAME is the parameter's name or 1-based position); a struct
    /// field's or a whole subtree's (`p.mass in [0, 10]`, `p.pos in [-1, 1]`, `p.n = 4`);
    /// a std::vector's or std::span's length (`v: vector<f64>[16] in [-1, 1]`).
    #[arg(long = "arg", value_name = "SPEC")]
    pub arg_specs: Vec<ArgSpec>,
    /// An output array (zero-filled, not an input): `out` or `out: f64[8]`.
    #[arg(long = "out-arg", value_name = "SPEC")]
    pub out_args: Vec<OutArgSpec>,
    /// Worker threads; the same --seed, --jobs and --evals give the same inputs. With
    /// several functions, the threads run different functions (each searched by one
    /// thread), and every N gives the same files.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Search in real coordinates only (CoverMe), not also in ordered-bits (ulp) space.
    #[arg(long)]
    pub no_ulp_space: bool,
    /// Measure branch distances in reals (CoverMe), not in ulps.
    #[arg(long)]
    pub no_ulp_distance: bool,
    /// No special-value points first and no starts from the program's constants.
    #[arg(long)]
    pub no_seeding: bool,
    /// No exact ulp-step search after a start converges.
    #[arg(long)]
    pub no_refine: bool,
    /// No starts aimed at one uncovered side from the closest test.
    #[arg(long)]
    pub no_targeted: bool,
    /// Rank runs by `r` alone (CoverMe), not first by how deep they get.
    #[arg(long)]
    pub no_levels: bool,
    /// No extra tests for the `<`, `==`, `>` operand relations of comparisons that the
    /// tests covering the sides do not show.
    #[arg(long)]
    pub no_boundaries: bool,
    /// No extra tests for new pairs of consecutive branch sides (which other builds'
    /// branches and AFL-style edge coverage tell apart).
    #[arg(long)]
    pub no_pairs: bool,
    /// Evaluations spent looking for new pairs of consecutive sides once every side is
    /// covered or settled (0: none).
    #[arg(long, value_name = "N", default_value_t = fpforge_cover::config::DEFAULT_PAIR_EVALS)]
    pub pair_evals: u64,
    /// When evaluations run as native code rather than in the interpreter (same
    /// results): `hot` once the search has evaluated the function long enough for
    /// compiling to pay off, `eager` from the first evaluation, `off` never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = CompileArg::Hot)]
    pub compile: CompileArg,
    /// Do not hand the sides the search left open to concolic execution (`reach`),
    /// which finds witnesses the search missed or proves sides infeasible.
    #[arg(long)]
    pub no_reach: bool,
    /// Seconds `reach` gets for the open sides, on top of the time limit (default: the
    /// search stops early to leave `reach` a fifth of the limit, at most 3 s, so the run
    /// ends within the limit).
    #[arg(long, value_name = "S")]
    pub reach_time: Option<f64>,
    #[command(flatten)]
    pub run: CoverageRunArgs,
}

/// Runs over several functions (`cover`, `explore` and `accuracy`): which functions,
/// the time of the whole run, its shard and resumption.
#[derive(Args, Debug, Clone)]
pub struct LibraryArgs {
    /// Test every defined function with external linkage and at least one
    /// floating-point parameter or result; each gets `OUT/<function>/`, and the run writes
    /// OUT/index.json, OUT/report.html and OUT/coverage.lcov.
    #[arg(long)]
    pub all: bool,
    /// Test the functions named in FILE, one per line (globs allowed; blank lines and
    /// `#` comments skipped), as with `--all`'s layout.
    #[arg(long = "functions", value_name = "FILE")]
    pub functions_file: Option<PathBuf>,
    /// Seconds for the whole run over several functions; the functions not started when
    /// it runs out get a row "not run: total time" (each still has --time-limit).
    #[arg(long, value_name = "S")]
    pub total_time: Option<f64>,
    /// Run only part K of N of the selected functions (K from 1; dealt by size, the
    /// same on every machine), for a CI matrix or a job array; `fpforge merge` joins
    /// the parts' output directories.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Keep the functions OUT already holds finished with the same settings, search
    /// again those stopped before the end, and continue those run with other settings
    /// (a longer budget, another seed, an edited source) from their saved tests.
    #[arg(long)]
    pub resume: bool,
    /// Leave out the functions this name or glob matches (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub skip: Vec<String>,
    /// Keep only the selected functions whose definition, or that of a function they
    /// may call, changed since the git revision REV (`git diff REV`, uncommitted
    /// changes included): a pull request's job tests what it touches.
    #[arg(long, value_name = "REV")]
    pub changed_since: Option<String>,
    /// Input specs of single functions, from fpforge.toml's `[function.NAME]`.
    #[arg(skip)]
    pub function_specs: BTreeMap<String, Specs>,
}

/// What `cover` and `explore` share: trap targets, seeds, gcov, the test set, and where
/// and how the results go.
#[derive(Args, Debug, Clone)]
pub struct CoverageRunArgs {
    /// Do not aim at trap targets: the inputs that make a division, a load or a store
    /// trap (their guards' `trap` sides); crashes are then found only when a search for
    /// branch sides happens upon them.
    #[arg(long)]
    pub no_trap_targets: bool,
    /// Start from your own inputs: a file of argument lines as `inputs.txt` holds them
    /// (a previous run's `inputs.txt`, say; blank lines and `#` comments skipped). They
    /// run first and the search goes on from them.
    #[arg(long, value_name = "FILE")]
    pub seeds: Option<PathBuf>,
    /// Also measure the tests as users' tools do: build regression.c with
    /// `gcc --coverage` and the C sources, run it, and print gcov's branch figure beside
    /// fpforge's (gcc counts `&&`, `||`, `?:` differently). Files go to OUT/gcov/.
    #[arg(long)]
    pub gcov: bool,
    /// Keep every test the search kept. By default the run ends by keeping the fewest
    /// tests that take every covered side (greedy set cover over their re-executed runs).
    #[arg(long)]
    pub no_minimize: bool,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "fpforge-out")]
    pub out: PathBuf,
    #[command(flatten)]
    pub ci: CiArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// What a CI job reads from `cover` and `explore`: a JUnit file and an exit code.
#[derive(Args, Debug, Clone)]
pub struct CiArgs {
    /// Also write the results as JUnit XML to FILE: one test case per branch side
    /// (covered passes, infeasible is skipped, not reached fails) and one per crash or
    /// hang (an error).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Exit with code 4 when the feasible coverage, 100 * covered / (sides - infeasible),
    /// is below PCT (0 to 100), after writing every file; crashes or hangs exit 3 first.
    #[arg(long, value_name = "PCT")]
    pub fail_under: Option<f64>,
    /// Also write the findings as a SARIF 2.1.0 log to FILE (what code-scanning tools
    /// and CI systems show): one result per distinct finding, with its fingerprint.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Findings whose fingerprints FILE lists (`fpforge baseline OUT > FILE` writes
    /// one) are known: they are reported as such and do not make the run exit 3; only
    /// new ones do.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Replay every crash and hang natively (gcc with AddressSanitizer and
    /// UndefinedBehaviorSanitizer, the run's flags and the library's sources) and write
    /// `OUT/findings/<kind>-<n>/repro.c`, a standalone reproducer, and report.md, a bug
    /// report ready to file.
    #[arg(long)]
    pub confirm: bool,
    /// Fingerprints fpforge.toml's `[[accept]]` entries accept.
    #[arg(skip)]
    pub accepted: Vec<String>,
}

/// How a searching command reports, the same on `cover`, `explore`, `reach` and
/// `accuracy`.
#[derive(Args, Debug, Clone, Copy)]
pub struct OutputArgs {
    /// Print the results as JSON on stdout instead of the summary: the `coverage.json`
    /// or `report.json` the run writes, or `reach`'s answer.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr and no summary on stdout: the output files and `--json`
    /// only. Errors are still printed.
    #[arg(long)]
    pub quiet: bool,
}

/// Search and solver flags shared by `reach` and `explore`.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Wall-clock budget in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    pub time_limit: f64,
    /// Limit of each solver query in seconds.
    #[arg(long, value_name = "S", default_value_t = 1.0)]
    pub query_timeout: f64,
    /// Solver for path conditions: portfolio, interval, avm, es or random.
    #[arg(long, value_name = "NAME", default_value = "portfolio")]
    pub solver: Strategy,
    /// Seed of the solver and of random restarts.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Concretize every math call instead of using the solver's operators for them.
    #[arg(long)]
    pub concretize_calls: bool,
    /// A parameter's shape, range or value: `x: f64`, `a: f64[8]`, `a: f64[8] in [-1, 1]`,
    /// `x in [0, 10]`, `n = 4` (NAME is the parameter's name or 1-based position); a struct
    /// field's or a whole subtree's (`p.mass in [0, 10]`, `p.pos in [-1, 1]`, `p.n = 4`);
    /// a std::vector's or std::span's length (`v: vector<f64>[16] in [-1, 1]`).
    #[arg(long = "arg", value_name = "SPEC")]
    pub arg_specs: Vec<ArgSpec>,
    /// An output array (zero-filled, not an input): `out` or `out: f64[8]`.
    #[arg(long = "out-arg", value_name = "SPEC")]
    pub out_args: Vec<OutArgSpec>,
}

/// Flags of `fpforge reach`.
#[derive(Args, Debug)]
pub struct ReachArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories.
    #[arg(required = true)]
    pub items: Vec<String>,
    #[command(flatten)]
    pub program: ProgramArgs,
    /// The branch decisions to take, in order: `br3:T br5:F`, `file.c:41:T`,
    /// `(br2:T br4:F)x12`, `br6:case5` (the case of value 5), `br6:default`. Other sites are free.
    #[arg(
        long,
        value_name = "SPEC",
        conflicts_with = "branch",
        required_unless_present = "branch"
    )]
    pub path: Option<String>,
    /// One branch side to reach by any path: `br7:T`, `file.c:41:F`.
    #[arg(long, value_name = "SIDE")]
    pub branch: Option<String>,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Write the deciding path condition to FILE as SMT-LIB (needs --path: a branch
    /// side is decided by many path queries).
    #[arg(long, value_name = "FILE")]
    pub emit_smt2: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Flags of `fpforge explore`.
#[derive(Args, Debug)]
pub struct ExploreArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories (default: the sources of the
    /// current directory's fpforge.toml).
    pub items: Vec<String>,
    #[command(flatten)]
    pub program: ProgramArgs,
    #[command(flatten)]
    pub library: LibraryArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Threads that run functions side by side when several are selected (every N gives
    /// the same files).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    #[command(flatten)]
    pub run: CoverageRunArgs,
}

/// How candidates are generated.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StrategyArg {
    /// FPGen-style search: random phase, then subset rounds (AVM, ES) toward the checks.
    Search,
    /// Pure random sampling (the baseline).
    Random,
}

/// What `accuracy` counts errors in.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum MetricArg {
    /// Ulps of the true value in the result's format.
    Ulps,
    /// Relative error.
    Relative,
}

/// Flags of `fpforge accuracy`.
#[derive(Args, Debug)]
pub struct AccuracyArgs {
    /// Input files (.c, .cpp, .ll, .bc) or directories (default: the sources of the
    /// current directory's fpforge.toml).
    pub items: Vec<String>,
    #[command(flatten)]
    pub program: ProgramArgs,
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Threads that run functions side by side when several are selected (every N gives
    /// the same files).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// A parameter's shape, range or value: `x: f64`, `a: f64[8] in [-100, 100]`,
    /// `x in [0, 10]`, `n = 8` (NAME is the parameter's name or 1-based position); a struct
    /// field's (`p.mass in [0, 10]`, `p.n = 4`); a vector's length (`v: vector<f64>[16]`).
    #[arg(long = "arg", value_name = "SPEC")]
    pub arg_specs: Vec<ArgSpec>,
    /// An output array (zero-filled, not an input) whose elements are measured instead
    /// of the return value: `out` or `out: f64[8]`.
    #[arg(long = "out-arg", value_name = "SPEC")]
    pub out_args: Vec<OutArgSpec>,
    /// Wall-clock budget in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    pub time_limit: f64,
    /// Evaluation budget; a run that ends by it is reproducible.
    #[arg(long, value_name = "N")]
    pub evals: Option<u64>,
    /// Seed of the search.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// MPFR precision of the reference, in bits.
    #[arg(long, value_name = "P", default_value_t = 128)]
    pub precision: u32,
    /// Precision at which every kept input is measured again (0: no second measurement).
    #[arg(long, value_name = "P", default_value_t = 2200)]
    pub verify_precision: u32,
    /// What errors are measured against: `auto` (the true function when the entry is a
    /// C library, GSL or Cephes function MPFR has, else the re-execution), `mpfr:NAME`
    /// (`mpfr:j0`, `mpfr:log1p`), `FILE.c:FN` (a C reference with the entry's signature,
    /// compiled with clang-14), or `reexec` (the same code in high precision: the
    /// rounding error of the algorithm only).
    #[arg(long, value_name = "ORACLE", default_value = "auto")]
    pub oracle: String,
    /// What errors are counted in, for the search, the ranking and the reports: `ulps`
    /// of the true value (with whether each result is correctly rounded, and one
    /// reported input per zero or pole) or `relative` error (default: ulps when the
    /// oracle is a true function of the result's format, relative otherwise).
    #[arg(long, value_enum, value_name = "METRIC")]
    pub metric: Option<MetricArg>,
    /// How candidates are generated.
    #[arg(long, value_enum, default_value_t = StrategyArg::Search)]
    pub strategy: StrategyArg,
    /// Additions/subtractions carrying FPGen's checks: `all`, `loops`, or `FILE:LINE`
    /// (comma-separated for several lines).
    #[arg(long, value_name = "SITES", default_value = "all")]
    pub sites: String,
    /// Checked executions of each site: `uniform:START:STEP` or `log:START`.
    #[arg(long, value_name = "SCHEDULE", default_value = "uniform:0:1")]
    pub sampling: String,
    /// Number of worst inputs kept.
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub top_k: usize,
    /// Measure the worst input of this earlier report.json at --precision instead of
    /// searching.
    #[arg(long, value_name = "REPORT")]
    pub check_input: Option<PathBuf>,
    /// Output directory (inputs.txt, report.json, report.html). A run over several
    /// functions writes one directory per function and index.json there (default
    /// fpforge-out).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Check every `float` input of a function of one float returning float (or those of
    /// --range) against the true function: the exact largest error in ulps, its inputs,
    /// the incorrectly rounded results and the wrong special values, in
    /// OUT/exhaustive.json. Runs on --jobs threads, keeps each finished chunk in
    /// OUT/exhaustive/ (--resume continues after Ctrl-C), --shard K/N checks part K of
    /// the inputs and `fpforge merge` joins the parts.
    #[arg(long)]
    pub exhaustive: bool,
    /// The inputs of --exhaustive: `LO..HI` as bit patterns (`0x3f800000..0x3fffffff`, 0x
    /// and 8 hex digits) or as float values (`-1..0x1p-3`, `1e-3..inf`: every float in
    /// between).
    #[arg(long, value_name = "LO..HI")]
    pub range: Option<String>,
    /// Replay each wrong special value natively (gcc, the run's flags, the library's
    /// sources) and write `OUT/findings/<class>-<n>/repro.c`, a standalone reproducer that
    /// prints the observed and the true value and exits 1 while they differ by more than
    /// 4 ulps, and report.md, a bug report ready to file; crashes and hangs too.
    #[arg(long)]
    pub confirm: bool,
    /// Write the run's findings (crashes, hangs, and the wrong values report.json lists
    /// in `defects`) as a SARIF 2.1.0 log to FILE.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Findings whose fingerprints FILE lists are known; the run exits 3 only for new
    /// ones, wrong values included (`fpforge baseline OUT > FILE` writes one).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Flags of `fpforge init`.
#[derive(Args, Debug)]
pub struct InitArgs {
    /// The library's directory; its C/C++ files (found recursively, hidden directories
    /// skipped) become the sources.
    pub dir: PathBuf,
    #[command(flatten)]
    pub program: ProgramArgs,
    /// Replace an existing fpforge.toml.
    #[arg(long)]
    pub force: bool,
}

/// Flags of `fpforge merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' output directories, every shard of the run once.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output directory of the joined run (not one of the shards').
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Flags of `fpforge solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// SMT-LIB 2.6 script (`-` reads standard input).
    pub file: PathBuf,
    /// Time limit per `check-sat`, in seconds (`--timeout` is the same flag).
    #[arg(long, alias = "timeout", value_name = "S", default_value_t = 10.0)]
    pub time_limit: f64,
    /// Which engine answers: `interval` propagation (can prove unsat), the search
    /// engines `avm`, `es` and `random` (sat only), `bit-precise` (bit-blasting to SAT
    /// with CaDiCaL: complete), or all of them interleaved (`portfolio`).
    #[arg(long, value_name = "NAME", default_value = "portfolio")]
    pub solver: Strategy,
    /// Fitness of the search engines.
    #[arg(long, value_enum, default_value_t = FitnessChoice::Branch)]
    pub fitness: FitnessChoice,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print propagations, nodes and time per phase after each check-sat.
    #[arg(long)]
    pub stats: bool,
    /// After each sat/unsat line, print the method that decided it as a comment:
    /// `; unsat (bit-precise)`, `; unsat (intervals)`, `; sat (search)`, `; sat (bit-precise)`.
    #[arg(long)]
    pub method: bool,
    /// Threads of the portfolio: from 2 on, the bit-precise backend runs on a thread of
    /// its own, ahead of the other engines. The answer, model and method are the same
    /// for every value; only the time changes.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FitnessChoice {
    /// Sum of branch distances in value space (FloPSy).
    Branch,
    /// Distances counted in ulps.
    Ulp,
}
