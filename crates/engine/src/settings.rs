//! The canonical text of a run's settings: named values in a fixed order, each written by
//! the engine that owns it, so that a saved run can be recognized by a hash of it.
//!
//! A run over several functions keys each function's directory by what changes its
//! results (`fpforge-driver`'s `library::resume`). That key must not move when nothing
//! that matters moved, and must move when something did, on every machine and
//! toolchain. A `Debug` text does neither reliably: a reordered derive, a new field with
//! a default or a changed `Debug` of a nested type changes it, and nothing says two
//! equal texts mean equal settings. So every configuration writes its [`Settings`]
//! itself ([`crate::Engine::settings`]), destructuring its struct without `..`: a new
//! field does not compile until its author says how it enters the key.
//!
//! The text ([`Settings::text`]) is one line per value, `NAME = VALUE`, after a line
//! naming the format ([`Settings::FORMAT`]); values are escaped so that no value can
//! end its line early, hence two lists of values have the same text only when they are
//! the same list. Values are written by name: enum variants as their command-line names,
//! durations in seconds ([`seconds`]), specs in their `--arg` text, absent options as
//! `none` ([`optional`]).

use std::fmt;
use std::time::Duration;

/// Named values in the order they were added: the settings of a run that change what
/// it finds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// `(name, value)`, names of `[a-z0-9_.-]`.
    entries: Vec<(String, String)>,
}

impl Settings {
    /// The version of [`Settings::text`]'s form; a change of the form (not of an
    /// engine's values) raises it.
    pub const FORMAT: u32 = 1;

    /// No settings.
    pub fn new() -> Settings {
        Settings::default()
    }

    /// Adds the value `name`.
    ///
    /// # Panics
    /// When `name` is empty or has a character other than `a-z`, `0-9`, `_`, `.`, `-`:
    /// names are written by the programs, never taken from input.
    pub fn with(mut self, name: &str, value: impl fmt::Display) -> Settings {
        assert!(
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-')),
            "setting name `{name}`"
        );
        self.entries.push((name.to_string(), value.to_string()));
        self
    }

    /// Adds one value `name` per item of `values`, in order (none for an empty list).
    pub fn with_each<T: fmt::Display>(
        self,
        name: &str,
        values: impl IntoIterator<Item = T>,
    ) -> Settings {
        values
            .into_iter()
            .fold(self, |settings, value| settings.with(name, value))
    }

    /// Adds every value of `group`, its name after `prefix` and a dot (`exec.fuel`).
    pub fn with_group(self, prefix: &str, group: Settings) -> Settings {
        group
            .entries
            .into_iter()
            .fold(self, |settings, (name, value)| {
                settings.with(&format!("{prefix}.{name}"), value)
            })
    }

    /// The values, in order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// The canonical text: `fpforge-settings FORMAT`, then `NAME = VALUE` per value, each
    /// line ended by a newline, with `\` written `\\` and a line break `\n` in values.
    pub fn text(&self) -> String {
        let mut text = format!("fpforge-settings {}\n", Settings::FORMAT);
        for (name, value) in &self.entries {
            text.push_str(name);
            text.push_str(" = ");
            for c in value.chars() {
                match c {
                    '\\' => text.push_str("\\\\"),
                    '\n' => text.push_str("\\n"),
                    '\r' => text.push_str("\\r"),
                    c => text.push(c),
                }
            }
            text.push('\n');
        }
        text
    }
}

/// `d` in seconds, exactly: the whole seconds, then the nanoseconds without trailing
/// zeros (`30`, `1.5`, `0.000000001`).
pub fn seconds(d: Duration) -> String {
    match d.subsec_nanos() {
        0 => d.as_secs().to_string(),
        nanos => {
            let fraction = format!("{nanos:09}");
            format!("{}.{}", d.as_secs(), fraction.trim_end_matches('0'))
        }
    }
}

impl<N: AsRef<str>, V: fmt::Display> FromIterator<(N, V)> for Settings {
    /// The values in order ([`Settings::with`] each).
    fn from_iter<I: IntoIterator<Item = (N, V)>>(values: I) -> Settings {
        values
            .into_iter()
            .fold(Settings::new(), |settings, (name, value)| {
                settings.with(name.as_ref(), value)
            })
    }
}

/// Coordinate bits of one input (a `--seeds` line as the search sees it): 16 hex digits
/// per coordinate, separated by spaces.
pub fn coordinates(bits: &[u64]) -> String {
    bits.iter()
        .map(|b| format!("{b:016x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `value`'s text, or `none`.
pub fn optional<T: fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "none".to_string(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_its_format_and_every_value_in_order() {
        let settings = Settings::new()
            .with("seed", 7)
            .with_each("arg", ["x: f64", "n = 3"])
            .with_group("exec", Settings::new().with("fuel", 100))
            .with(
                "time_limit",
                optional(Some(seconds(Duration::from_millis(1500)))),
            )
            .with("evals", optional(None::<u64>));
        assert_eq!(
            settings.text(),
            "fpforge-settings 1\nseed = 7\narg = x: f64\narg = n = 3\nexec.fuel = 100\n\
             time_limit = 1.5\nevals = none\n"
        );
        assert_eq!(
            settings.entries().nth(3),
            Some(("exec.fuel", "100")),
            "groups are flattened with a dotted prefix"
        );
    }

    #[test]
    fn values_cannot_forge_lines() {
        let one = Settings::new().with("a", "1\nb = 2");
        let two = Settings::new().with("a", "1").with("b", "2");
        assert_ne!(one.text(), two.text());
        assert_eq!(one.text(), "fpforge-settings 1\na = 1\\nb = 2\n");
        let slash = Settings::new().with("a", "\\n");
        assert_ne!(slash.text(), Settings::new().with("a", "\n").text());
    }

    #[test]
    fn durations_are_exact_seconds() {
        assert_eq!(seconds(Duration::from_secs(30)), "30");
        assert_eq!(seconds(Duration::from_millis(2500)), "2.5");
        assert_eq!(seconds(Duration::from_nanos(1)), "0.000000001");
        assert_eq!(seconds(Duration::ZERO), "0");
    }

    #[test]
    fn coordinates_are_fixed_width_hex() {
        assert_eq!(
            coordinates(&[1.0f64.to_bits(), 2]),
            "3ff0000000000000 0000000000000002"
        );
        assert_eq!(coordinates(&[]), "");
    }

    #[test]
    #[should_panic(expected = "setting name `Seed`")]
    fn names_are_lower_case_words() {
        let _ = Settings::new().with("Seed", 0);
    }
}
