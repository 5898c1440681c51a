//! `findings/<finding>/report.md`: a finding written as a bug report ready to file with
//! the library's maintainers — a title, what was called on which input (hex and
//! decimal), for a wrong value the observed and the true value with the oracle that
//! gave it, what happened natively, where (source line and call stack), the platform,
//! and the one command that reproduces it from the reproducer's directory.

use std::fmt::Write as _;

/// Everything a report says about one finding.
#[derive(Clone, Debug)]
pub struct BugReport<'a> {
    /// `crash`, `hang`, ...
    pub class: &'a str,
    /// What went wrong, as fpforge's execution saw it.
    pub what: &'a str,
    /// The function called.
    pub entry: &'a str,
    /// The function executing the faulting instruction.
    pub function: &'a str,
    /// Its source location.
    pub location: &'a str,
    /// The source line there, when it could be read.
    pub source_line: Option<&'a str>,
    /// The calls that led there, innermost first.
    pub stack: &'a [String],
    /// The input as `fpforge run` reads it (exact hex floats).
    pub input: &'a str,
    /// The same input in decimal, for a reader.
    pub input_decimal: &'a str,
    /// Whether and how the native build reproduced it.
    pub native: &'a str,
    /// What the native run printed (a sanitizer's report, the signal), trimmed.
    pub native_output: &'a str,
    /// Compiler and system.
    pub platform: &'a str,
    /// The command that builds and runs the reproducer, from its directory.
    pub command: &'a str,
    /// The same with clang, when it was replayed with clang too.
    pub clang_command: Option<&'a str>,
    /// The finding's fingerprint.
    pub fingerprint: &'a str,
    /// For a wrong value: what was returned and what should have been.
    pub values: Option<&'a ValueFacts>,
}

/// A wrong value: the result, what fpforge observed, the true value and whose it is.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueFacts {
    /// Which result: `return`, `result[0]`.
    pub result: String,
    /// The observed value (hex float and decimal).
    pub observed: String,
    /// The true value, rounded to the result's format (hex float and decimal).
    pub truth: String,
    /// Where the true value comes from and at what precision.
    pub oracle: String,
    /// The error in ulps and relative.
    pub error: String,
    /// The function's status return, when the value is an output (GSL's `_e` forms).
    pub status: Option<i64>,
}

impl BugReport<'_> {
    /// The report's markdown.
    pub fn markdown(&self) -> String {
        let arguments = self.input_decimal.split(' ').collect::<Vec<_>>().join(", ");
        let mut md = format!(
            "# {}: {} in `{}` called as `{}({arguments})`\n\n",
            self.class, self.what, self.function, self.entry
        );
        let _ = writeln!(
            md,
            "Calling `{}` on the input below ends in: {} ({}).\n",
            self.entry, self.what, self.native
        );
        md.push_str("## Input\n\n");
        let _ = writeln!(md, "- exact (C99 hex floats): `{}`", self.input);
        let _ = writeln!(md, "- decimal: `{}`\n", self.input_decimal);
        if let Some(values) = self.values {
            md.push_str(&values.markdown());
        }
        md.push_str("## Where\n\n");
        let _ = writeln!(md, "`{}` at `{}`", self.function, self.location);
        if let Some(line) = self.source_line {
            let _ = writeln!(md, "\n```c\n{}\n```", line.trim_end());
        }
        if !self.stack.is_empty() {
            md.push_str("\nCalled from:\n\n");
            for call in self.stack {
                let _ = writeln!(md, "- `{call}`");
            }
        }
        md.push_str("\n## Native run\n\n");
        let _ = writeln!(md, "{}.\n", capitalized(self.native));
        if !self.native_output.is_empty() {
            let _ = writeln!(md, "```text\n{}\n```\n", self.native_output.trim_end());
        }
        md.push_str("## Reproduce\n\n");
        let _ = writeln!(
            md,
            "From this directory (`repro.c` calls the function once on the input and needs \
             only the library's sources):\n\n```sh\n{}\n```\n",
            self.command
        );
        if let Some(clang) = self.clang_command.filter(|c| !c.is_empty()) {
            let _ = writeln!(md, "Or with clang:\n\n```sh\n{clang}\n```\n");
        }
        let _ = writeln!(md, "Platform: {}.\n", self.platform);
        let _ = writeln!(
            md,
            "Found by fpforge; finding fingerprint `{}`.",
            self.fingerprint
        );
        md
    }
}

impl ValueFacts {
    /// The `## Observed and true value` section.
    fn markdown(&self) -> String {
        let mut md = String::from("## Observed and true value\n\n");
        let _ = writeln!(md, "- {} observed: `{}`", self.result, self.observed);
        let _ = writeln!(md, "- true value: `{}`", self.truth);
        let _ = writeln!(md, "- error: {}", self.error);
        if let Some(status) = self.status {
            let _ = writeln!(md, "- status returned: `{status}`");
        }
        let _ = writeln!(md, "- true value from: {}\n", self.oracle);
        md
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_says_what_where_how_and_the_command() {
        let stack = ["g at g.c:9:5".to_string()];
        let report = BugReport {
            class: "crash",
            what: "integer division by zero",
            entry: "g",
            function: "f",
            location: "f.c:3:14",
            source_line: Some("    return total / n;"),
            stack: &stack,
            input: "0x1p+0 0",
            input_decimal: "1 0",
            native: "confirmed natively: gcc build killed by SIGFPE",
            native_output: "",
            platform: "gcc 12.2.0, Linux x86_64",
            command: "gcc -g repro.c f.c -lm -o repro && ./repro",
            clang_command: Some("clang-14 -g repro.c f.c -lm -o repro-clang && ./repro-clang"),
            fingerprint: "00000000000000aa",
            values: None,
        };
        let md = report.markdown();
        assert!(md.starts_with("# crash: integer division by zero in `f` called as `g(1, 0)`"));
        assert!(md.contains("return total / n;"), "{md}");
        assert!(md.contains("- `g at g.c:9:5`"), "{md}");
        assert!(
            md.contains("Confirmed natively: gcc build killed by SIGFPE."),
            "{md}"
        );
        assert!(md.contains("./repro\n```"), "{md}");
        assert!(md.contains("Or with clang:\n\n```sh\nclang-14 -g"), "{md}");
        assert!(!md.contains("## Observed"), "{md}");
    }

    #[test]
    fn a_wrong_value_report_gives_both_values_the_status_and_the_oracle() {
        let values = ValueFacts {
            result: "result[0]".to_string(),
            observed: "nan".to_string(),
            truth: "0x1.1f091d26f3ba7p-3 (0.14015410208818688)".to_string(),
            oracle: "true function (sin), stable at 128 bits".to_string(),
            error: "inf ulps".to_string(),
            status: Some(0),
        };
        let report = BugReport {
            class: "wrong special value",
            what: "result[0] is nan where the true value is 0.14015410208818688",
            entry: "gsl_sf_sin_e",
            function: "gsl_sf_sin_e",
            location: "trig.c:163:0",
            source_line: None,
            stack: &[],
            input: "-0x1.22058489ff253p+671",
            input_decimal: "-1.1099857412776294e202",
            native: "confirmed natively: gcc build",
            native_output: "",
            platform: "gcc",
            command: "gcc repro.c",
            clang_command: None,
            fingerprint: "00000000000000bb",
            values: Some(&values),
        };
        let md = report.markdown();
        let section = md
            .split("## Observed and true value\n\n")
            .nth(1)
            .and_then(|rest| rest.split("## Where").next())
            .unwrap_or_else(|| panic!("no value section in {md}"));
        assert_eq!(
            section,
            "- result[0] observed: `nan`\n\
             - true value: `0x1.1f091d26f3ba7p-3 (0.14015410208818688)`\n\
             - error: inf ulps\n\
             - status returned: `0`\n\
             - true value from: true function (sin), stable at 128 bits\n\n"
        );
    }
}
