//! The source files a page shows, each read once per run (a coverage page is rewritten
//! with every new test), and which of their lines a function spans.

use fpforge_lower::SourcePaths;
use fpir::{FileId, Function, Module};
use std::collections::HashMap;

/// Source files read so far, or why one cannot be read.
#[derive(Debug, Default)]
pub struct Sources {
    paths: SourcePaths,
    read: HashMap<FileId, Result<Vec<String>, String>>,
}

impl Sources {
    /// Sources found where `paths` says the module's file names are.
    pub fn new(paths: SourcePaths) -> Self {
        Sources {
            paths,
            read: HashMap::new(),
        }
    }

    /// The lines of `file` (a file of `module`'s debug information, as outputs write
    /// it), or why it cannot be read.
    pub fn lines(&mut self, module: &Module, file: FileId) -> Result<&[String], &str> {
        let paths = &self.paths;
        self.read
            .entry(file)
            .or_insert_with(|| read_lines(paths, module, file))
            .as_deref()
            .map_err(String::as_str)
    }
}

fn read_lines(paths: &SourcePaths, module: &Module, file: FileId) -> Result<Vec<String>, String> {
    let path = module
        .files
        .get(file)
        .ok_or_else(|| format!("the debug information names no file {file}"))?;
    let bytes =
        std::fs::read(paths.located(path)).map_err(|e| format!("cannot read {path}: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .map(str::to_string)
        .collect())
}

/// The file and the first and last line of `function`'s code (from its definition's
/// line to its last instruction's in the same file), when debug information gives them.
pub fn function_lines(function: &Function) -> Option<(FileId, u32, u32)> {
    let start = function.loc.filter(|l| l.line > 0)?;
    let end = function
        .blocks
        .iter()
        .flat_map(|(_, b)| b.locs.iter().flatten().chain(b.term_loc.iter()))
        .filter(|l| l.file == start.file)
        .map(|l| l.line)
        .fold(start.line, u32::max);
    Some((start.file, start.line, end))
}

/// `start` moved up over the comment lines right above it (a function's doc comment).
pub(super) fn with_leading_comment(lines: &[String], start: u32) -> u32 {
    let mut first = start;
    while first > 1 {
        let above = lines.get(first as usize - 2).map_or("", |l| l.trim());
        let comment = above.starts_with("//")
            || above.starts_with("/*")
            || above.starts_with('*')
            || above.ends_with("*/");
        if !comment {
            break;
        }
        first -= 1;
    }
    first
}

/// Sorted, merged line ranges: ranges that overlap or touch become one.
pub(super) fn merge_ranges(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (a, b) in ranges {
        match merged.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_when_they_touch() {
        assert_eq!(
            merge_ranges(vec![(10, 12), (1, 3), (4, 4), (11, 20), (30, 30)]),
            [(1, 4), (10, 20), (30, 30)]
        );
    }

    #[test]
    fn a_doc_comment_joins_its_function() {
        let lines: Vec<String> = ["int x;", "", "/* Adds.", " * Twice. */", "int f(void) {"]
            .map(str::to_string)
            .to_vec();
        assert_eq!(with_leading_comment(&lines, 5), 3);
        assert_eq!(with_leading_comment(&lines, 1), 1);
        assert_eq!(with_leading_comment(&lines, 2), 2);
    }
}
