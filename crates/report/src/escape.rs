//! Text from the user's files made safe inside HTML and XML: source lines, function and
//! file names, trap messages and inputs go into `report.html` and the JUnit file through
//! [`escape`], so no text can open a tag, end an attribute or make the XML invalid.

use std::borrow::Cow;

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by entities, and every control
/// character XML 1.0 forbids (all below U+0020 but tab, line feed and carriage return)
/// replaced by U+FFFD, so the result is valid as element text and as an attribute value
/// in both HTML and XML.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if forbidden_in_xml(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    matches!(c, '&' | '<' | '>' | '"' | '\'') || forbidden_in_xml(c)
}

fn forbidden_in_xml(c: char) -> bool {
    c < ' ' && !matches!(c, '\t' | '\n' | '\r')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn markup_characters_become_entities() {
        assert_eq!(
            escape(r#"if (a < b && c > "d") return 'e';"#),
            "if (a &lt; b &amp;&amp; c &gt; &quot;d&quot;) return &#39;e&#39;;"
        );
        assert_eq!(
            escape("</td><script>alert(1)</script>"),
            "&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(escape("&amp;"), "&amp;amp;");
    }

    #[test]
    fn plain_text_is_borrowed_and_controls_are_replaced() {
        assert!(matches!(escape("x = 0x1p-3;\tok"), Cow::Borrowed(_)));
        assert_eq!(escape("a\u{1}b\u{1b}[0m"), "a\u{fffd}b\u{fffd}[0m");
        assert_eq!(escape("tab\tnl\ncr\r"), "tab\tnl\ncr\r");
    }

    proptest! {
        /// Whatever the text, the escaped form holds no markup character but in an
        /// entity, and reading the entities back gives the text (controls aside).
        #[test]
        fn escaping_round_trips(text in any::<String>()) {
            let escaped = escape(&text);
            prop_assert!(!escaped.contains(['<', '>', '"', '\'']));
            let back = escaped
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&");
            let plain: String = text
                .chars()
                .map(|c| if forbidden_in_xml(c) { '\u{fffd}' } else { c })
                .collect();
            prop_assert_eq!(back, plain);
        }
    }
}
