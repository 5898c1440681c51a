//! Checks of setting values, each error one line naming the setting (as the caller
//! names it: a front end passes its flag, `--time-limit`), the values allowed and the
//! value given.

use crate::error::{DriverError, Result};
use std::fmt::Display;
use std::time::Duration;

/// The longest time limit a setting takes: a year.
const MAX_SECONDS: f64 = 365.0 * 86_400.0;

/// A duration given in seconds: finite, positive, at most a year.
pub fn seconds(name: &str, secs: f64) -> Result<Duration> {
    if !(secs.is_finite() && secs > 0.0 && secs <= MAX_SECONDS) {
        return Err(DriverError::Invalid(format!("{name} must be a number of seconds above 0 and at most {MAX_SECONDS} (a year), not {secs}")));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A whole number in `min..=max`.
pub fn in_range<T: PartialOrd + Display>(name: &str, value: T, min: T, max: T) -> Result<T> {
    if value < min || value > max {
        return Err(DriverError::Invalid(format!(
            "{name} must be between {min} and {max}, not {value}"
        )));
    }
    Ok(value)
}

/// A percentage: a number from 0 to 100.
pub fn percent(name: &str, value: f64) -> Result<f64> {
    if !(0.0..=100.0).contains(&value) {
        return Err(DriverError::Invalid(format!(
            "{name} must be a percentage between 0 and 100, not {value}"
        )));
    }
    Ok(value)
}

/// A whole number of at least `min`.
pub fn at_least<T: PartialOrd + Display>(name: &str, value: T, min: T) -> Result<T> {
    if value < min {
        return Err(DriverError::Invalid(format!(
            "{name} must be at least {min}, not {value}"
        )));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_positive_finite_and_at_most_a_year() {
        assert_eq!(seconds("--t", 1.5).unwrap(), Duration::from_millis(1500));
        for bad in [0.0, -1.0, 1e30, f64::NAN, f64::INFINITY] {
            let err = seconds("--time-limit", bad).unwrap_err().to_string();
            assert!(err.starts_with("--time-limit must be"), "{err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn counts_name_their_bounds() {
        assert_eq!(in_range("--jobs", 2, 1, 4).unwrap(), 2);
        assert_eq!(
            in_range("--jobs", 0, 1, 4).unwrap_err().to_string(),
            "--jobs must be between 1 and 4, not 0"
        );
        assert_eq!(
            at_least("--top-k", 0, 1).unwrap_err().to_string(),
            "--top-k must be at least 1, not 0"
        );
    }

    #[test]
    fn percentages_are_between_0_and_100() {
        assert_eq!(percent("--fail-under", 0.0).unwrap(), 0.0);
        assert_eq!(percent("--fail-under", 87.5).unwrap(), 87.5);
        assert_eq!(percent("--fail-under", 100.0).unwrap(), 100.0);
        for bad in [-0.5, 100.5, f64::NAN, f64::INFINITY] {
            let err = percent("--fail-under", bad).unwrap_err().to_string();
            assert!(
                err.starts_with("--fail-under must be a percentage between 0 and 100, not "),
                "{err}"
            );
        }
    }
}
