//! What error messages quote of LLVM's own words (clang's diagnostics, llvm-link's and
//! opt's errors, the LLVM reader's messages), made fit to print to a terminal.
//!
//! Those messages quote the input: llvm-link given a file of random bytes named `.bc`
//! reads it as IR text and quotes the line it stopped at, bytes and all, which a
//! terminal would take for control sequences (and which a lossy UTF-8 conversion would
//! blur). So control characters other than tab and line feed, and bytes that are not
//! UTF-8, are shown escaped (`\x1b`, `\xff`, `\u{9b}`), and a long quote is cut: the
//! first lines are kept (a compiler's first errors are the ones to read), a long line
//! after its first characters, each cut saying how much it left out. Clean output of
//! ordinary length passes unchanged.

/// The most lines quoted.
const MAX_LINES: usize = 20;

/// The most characters quoted of one line, escapes included.
const MAX_LINE_CHARS: usize = 240;

/// `raw`, a tool's output or an LLVM message, as an error message quotes it.
pub(crate) fn quote(raw: &[u8]) -> String {
    let (body, ends_with_newline) = match raw.strip_suffix(b"\n") {
        Some(body) => (body, true),
        None => (raw, false),
    };
    let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let mut shown: Vec<String> = lines.iter().take(MAX_LINES).map(|l| line(l)).collect();
    if let Some(rest) = lines.get(MAX_LINES..) {
        let bytes: usize = rest.iter().map(|l| l.len() + 1).sum::<usize>() - 1;
        shown.push(format!("[{} more lines ({bytes} bytes) cut]", rest.len()));
    }
    let mut text = shown.join("\n");
    if ends_with_newline {
        text.push('\n');
    }
    text
}

/// One line, escaped, and cut after [`MAX_LINE_CHARS`] characters.
fn line(raw: &[u8]) -> String {
    let mut text = String::new();
    let (mut chars, mut used) = (0, 0);
    for chunk in raw.utf8_chunks() {
        let valid = chunk.valid().chars().map(|c| (shown_char(c), c.len_utf8()));
        let invalid = chunk.invalid().iter().map(|b| (format!("\\x{b:02x}"), 1));
        for (piece, bytes) in valid.chain(invalid) {
            let width = piece.chars().count();
            if chars + width > MAX_LINE_CHARS {
                text.push_str(&format!(" [{} more bytes cut]", raw.len() - used));
                return text;
            }
            text.push_str(&piece);
            chars += width;
            used += bytes;
        }
    }
    text
}

/// `c` as it can be printed: itself, or escaped if it is a control character.
fn shown_char(c: char) -> String {
    match c {
        '\t' => c.to_string(),
        c if c.is_ascii_control() => format!("\\x{:02x}", c as u32),
        c if c.is_control() => format!("\\u{{{:x}}}", c as u32),
        c => c.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_diagnostics_pass_unchanged() {
        let clang =
            "f.c:2:14: error: expected expression\n  return x +* ;\n\t     ^\n1 error generated.\n";
        assert_eq!(quote(clang.as_bytes()), clang);
        assert_eq!(quote(b"no newline at the end"), "no newline at the end");
        assert_eq!(quote(b""), "");
        assert_eq!(quote("déjà vu ✓\n".as_bytes()), "déjà vu ✓\n");
    }

    #[test]
    fn control_characters_and_invalid_utf8_are_escaped() {
        let raw = b"error: expected top-level entity\n\x1b[2J_<\x0e\xff\xfe z\r\x7f\xc2\x9b ok\n";
        assert_eq!(
            quote(raw),
            "error: expected top-level entity\n\\x1b[2J_<\\x0e\\xff\\xfe z\\x0d\\x7f\\u{9b} ok\n"
        );
    }

    /// A file of random bytes, as llvm-link quotes it: the escaped quote holds only
    /// printable characters, is cut to its first lines and characters, and says how
    /// much was cut.
    #[test]
    fn binary_garbage_is_escaped_and_cut() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let garbage: Vec<u8> = (0..3000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 56) as u8
            })
            .collect();
        let mut raw =
            b"llvm-link-14: /tmp/garbage.bc:1:1: error: expected top-level entity\n".to_vec();
        raw.extend_from_slice(&garbage);
        raw.extend_from_slice(b"\nllvm-link-14: error:  loading file '/tmp/garbage.bc'\n");
        let text = quote(&raw);
        assert!(text
            .starts_with("llvm-link-14: /tmp/garbage.bc:1:1: error: expected top-level entity\n"));
        assert!(
            text.chars()
                .all(|c| c == '\n' || c == '\t' || !c.is_control()),
            "{text:?}"
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() <= MAX_LINES + 1, "{} lines", lines.len());
        let longest = lines.iter().map(|l| l.chars().count()).max().unwrap();
        assert!(
            longest <= MAX_LINE_CHARS + 32,
            "a line of {longest} characters"
        );
        assert!(
            text.contains(" more bytes cut]") || text.contains(" more lines ("),
            "{text}"
        );
    }

    #[test]
    fn long_lines_and_long_output_say_how_much_was_cut() {
        let long = "x".repeat(MAX_LINE_CHARS + 60);
        assert_eq!(
            quote(long.as_bytes()),
            format!("{} [60 more bytes cut]", &long[..MAX_LINE_CHARS])
        );
        let escaped = [0x01u8; MAX_LINE_CHARS];
        let shown = quote(&escaped);
        assert_eq!(
            shown,
            format!(
                "{} [180 more bytes cut]",
                "\\x01".repeat(MAX_LINE_CHARS / 4)
            )
        );
        let many: String = (0..MAX_LINES + 5).map(|i| format!("line {i}\n")).collect();
        let text = quote(many.as_bytes());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), MAX_LINES + 1);
        assert_eq!(lines[MAX_LINES - 1], format!("line {}", MAX_LINES - 1));
        assert_eq!(lines[MAX_LINES], "[5 more lines (39 bytes) cut]");
        assert!(text.ends_with('\n'));
    }
}
