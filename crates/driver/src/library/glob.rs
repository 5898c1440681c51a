//! `-f` and `--skip` globs on plain names, and fpforge.toml's globs on file names: `*`
//! matches any run of characters and `?` any one.

/// Whether `name` matches `pattern`, where `*` matches any run of characters and `?`
/// any one.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let (pattern, name): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), name.chars().collect());
    // matched[j]: the pattern so far matches name[..j].
    let mut matched = vec![false; name.len() + 1];
    matched[0] = true;
    for &p in &pattern {
        let mut next = vec![false; name.len() + 1];
        for j in 0..=name.len() {
            next[j] = match p {
                '*' => matched[j] || (j > 0 && next[j - 1]),
                '?' => j > 0 && matched[j - 1],
                c => j > 0 && matched[j - 1] && name[j - 1] == c,
            };
        }
        matched = next;
    }
    matched[name.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_plain_names() {
        assert!(glob_matches("exp*", "expm1"));
        assert!(glob_matches("exp*", "exp"));
        assert!(!glob_matches("exp*", "frexp"));
        assert!(glob_matches("*exp", "frexp"));
        assert!(glob_matches("?in", "sin"));
        assert!(!glob_matches("?in", "asin"));
        assert!(glob_matches("a*b*c", "aXbYbc"));
        assert!(!glob_matches("a*b*c", "aXbYb"));
        assert!(glob_matches("sin", "sin") && !glob_matches("sin", "sinf"));
    }
}
