//! The text of a struct argument: its fields as nested braces and brackets, the way a
//! C initializer reads (`{pos: [1, 2, 3], mass: 2, st: {v: {x: 0, y: 0, z: 0}}}`).
//!
//! A struct's fields come flattened with paths (`pos[2]`, `st.v.x`, `[0]` for a
//! `std::array`'s element); [`write`] nests them back into one text and [`FieldText`]
//! reads such a text and finds each path's value in it. Fields a text leaves out are
//! for the caller to default.

use std::fmt::Write;

/// One step of a field path: a member name or an array index.
#[derive(Clone, PartialEq, Debug)]
enum Step<'a> {
    Name(&'a str),
    Index(usize),
}

/// The steps of `pos[2]`, `st.v.x`, `[0]`.
fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (name, indices) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !name.is_empty() {
            out.push(Step::Name(name));
        }
        for index in indices.split('[').filter(|s| !s.is_empty()) {
            out.push(Step::Index(
                index.trim_end_matches(']').parse().unwrap_or(usize::MAX),
            ));
        }
    }
    out
}

/// A parsed or built field text.
#[derive(Clone, PartialEq, Debug)]
enum Tree {
    Leaf(String),
    Object(Vec<(String, Tree)>),
    List(Vec<Tree>),
}

impl Tree {
    fn insert(&mut self, steps: &[Step<'_>], value: String) {
        let Some((first, rest)) = steps.split_first() else {
            *self = Tree::Leaf(value);
            return;
        };
        let empty = || match rest.first() {
            Some(Step::Index(_)) => Tree::List(Vec::new()),
            _ => Tree::Object(Vec::new()),
        };
        match (self, first) {
            (Tree::Object(members), Step::Name(name)) => {
                let at = match members.iter().position(|(n, _)| n == name) {
                    Some(at) => at,
                    None => {
                        members.push((name.to_string(), empty()));
                        members.len() - 1
                    }
                };
                members[at].1.insert(rest, value);
            }
            (Tree::List(items), Step::Index(i)) => {
                let at = if *i < items.len() {
                    *i
                } else {
                    items.push(empty());
                    items.len() - 1
                };
                items[at].insert(rest, value);
            }
            _ => {}
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Tree::Leaf(text) => out.push_str(text),
            Tree::Object(members) => {
                out.push('{');
                for (i, (name, tree)) in members.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    let _ = write!(out, "{sep}{name}: ");
                    tree.write(out);
                }
                out.push('}');
            }
            Tree::List(items) => {
                out.push('[');
                for (i, tree) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    tree.write(out);
                }
                out.push(']');
            }
        }
    }

    fn find(&self, steps: &[Step<'_>]) -> Option<&str> {
        let Some((first, rest)) = steps.split_first() else {
            return match self {
                Tree::Leaf(text) => Some(text),
                _ => None,
            };
        };
        match (self, first) {
            (Tree::Object(members), Step::Name(name)) => members
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, t)| t.find(rest)),
            (Tree::List(items), Step::Index(i)) => items.get(*i).and_then(|t| t.find(rest)),
            _ => None,
        }
    }
}

/// The text of fields given as `(path, value text)` in layout order.
pub(crate) fn write(fields: &[(&str, String)]) -> String {
    let root_is_list = fields
        .first()
        .is_some_and(|(path, _)| path.starts_with('['));
    let mut tree = if root_is_list {
        Tree::List(Vec::new())
    } else {
        Tree::Object(Vec::new())
    };
    for (path, value) in fields {
        tree.insert(&steps(path), value.clone());
    }
    let mut out = String::new();
    tree.write(&mut out);
    out
}

/// A field text, parsed.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct FieldText(Tree);

impl FieldText {
    /// Parses `{name: value, ...}` / `[value, ...]`, nested, values being any text
    /// without `,`, `{`, `}`, `[` or `]`.
    pub(crate) fn parse(text: &str) -> Result<FieldText, String> {
        let mut parser = Parser { text, at: 0 };
        let tree = parser.value()?;
        parser.blanks();
        if parser.at != text.len() {
            return Err(format!("unexpected `{}`", &text[parser.at..]));
        }
        Ok(FieldText(tree))
    }

    /// The value text at `path`, if the text gives it.
    pub(crate) fn get(&self, path: &str) -> Option<&str> {
        self.0.find(&steps(path))
    }
}

struct Parser<'t> {
    text: &'t str,
    at: usize,
}

impl Parser<'_> {
    fn blanks(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        self.blanks();
        if self.text[self.at..].starts_with(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Tree, String> {
        if self.eat('{') {
            let mut members = Vec::new();
            if self.eat('}') {
                return Ok(Tree::Object(members));
            }
            loop {
                self.blanks();
                let rest = &self.text[self.at..];
                let colon = rest.find(':').ok_or("a field is written `name: value`")?;
                let name = rest[..colon].trim().to_string();
                if name.is_empty() || name.contains([',', '{', '}', '[', ']']) {
                    return Err(format!("`{}` is no field name", rest[..colon].trim()));
                }
                self.at += colon + 1;
                members.push((name, self.value()?));
                if self.eat('}') {
                    return Ok(Tree::Object(members));
                }
                if !self.eat(',') {
                    return Err("expected `,` or `}`".to_string());
                }
            }
        }
        if self.eat('[') {
            let mut items = Vec::new();
            if self.eat(']') {
                return Ok(Tree::List(items));
            }
            loop {
                items.push(self.value()?);
                if self.eat(']') {
                    return Ok(Tree::List(items));
                }
                if !self.eat(',') {
                    return Err("expected `,` or `]`".to_string());
                }
            }
        }
        self.blanks();
        let rest = &self.text[self.at..];
        let end = rest.find([',', '{', '}', '[', ']']).unwrap_or(rest.len());
        let leaf = rest[..end].trim();
        if leaf.is_empty() {
            return Err("a value is missing".to_string());
        }
        self.at += end;
        Ok(Tree::Leaf(leaf.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_fields_write_and_read_back() {
        let fields = [
            ("pos[0]", "1".to_string()),
            ("pos[1]", "2".to_string()),
            ("mass", "0x1p+1".to_string()),
            ("st.v.x", "-3".to_string()),
            ("st.flags", "4".to_string()),
            ("grid[1][0]", "5".to_string()),
        ];
        let grid = write(&[
            ("g[0][0]", "1".into()),
            ("g[0][1]", "2".into()),
            ("g[1][0]", "3".into()),
            ("g[1][1]", "4".into()),
        ]);
        assert_eq!(grid, "{g: [[1, 2], [3, 4]]}");
        assert_eq!(FieldText::parse(&grid).unwrap().get("g[1][0]"), Some("3"));
        let text = write(&fields[..5]);
        assert_eq!(
            text,
            "{pos: [1, 2], mass: 0x1p+1, st: {v: {x: -3}, flags: 4}}"
        );
        let parsed = FieldText::parse(&text).unwrap();
        for (path, value) in &fields[..5] {
            assert_eq!(parsed.get(path), Some(value.as_str()), "{path}");
        }
        assert_eq!(parsed.get("st.v.y"), None);
        assert_eq!(parsed.get(fields[5].0), None);
        assert_eq!(write(&[("[0]", "1".into()), ("[1]", "2".into())]), "[1, 2]");
    }

    #[test]
    fn malformed_texts_are_rejected() {
        for bad in ["{pos: [1, 2}", "{mass 2}", "{: 2}", "{a: 1} x", "[1,,2]"] {
            assert!(FieldText::parse(bad).is_err(), "{bad}");
        }
    }
}
