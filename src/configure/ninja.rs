//! A small writer for Ninja build files, with the escaping rules Ninja needs.
//!
//! Three contexts need three escapes:
//! * **paths in `build` lines**: `$`, space and `:` are escaped with `$`;
//! * **variable values**: only `$` is special;
//! * **shell words** inside a `command`: Ninja passes the command to `/bin/sh`
//!   unchanged, so paths we place there ourselves are single-quoted first.
//!
//! Some names cannot be expressed at all: Ninja has no escape for `|` in a path
//! and none for a line break, and NUL cannot reach a file system. Depfiles cannot
//! say a backslash before a space unambiguously either, so we refuse backslashes
//! too. Ninja's depfile reader (1.11, our minimum) also takes none of
//! `" & ' * ; < > ? ^` and the backquote as part of a name, nor any escape of
//! them: it splits the name there, so the edge never becomes clean (1.13 still
//! splits at `* ; < > ^` and the backquote). [`check_expressible`] reports all
//! of those before anything is written.

use std::fmt::Write as _;

/// Characters that no build.ninja or depfile we write can carry in a file name.
const INEXPRESSIBLE: &[(char, &str)] = &[
    ('|', "'|'"),
    ('\n', "a line break"),
    ('\r', "a carriage return"),
    ('\0', "a NUL byte"),
    ('\\', "a backslash"),
    ('"', "a double quote"),
    ('&', "'&'"),
    ('\'', "a single quote"),
    ('*', "'*'"),
    (';', "';'"),
    ('<', "'<'"),
    ('>', "'>'"),
    ('?', "'?'"),
    ('^', "'^'"),
    ('`', "a backquote"),
];

/// Returns a description of the first character in `name` that Ninja cannot
/// express, or `None` when the name is safe.
pub fn check_expressible(name: &str) -> Option<&'static str> {
    INEXPRESSIBLE
        .iter()
        .find(|(c, _)| name.contains(*c))
        .map(|(_, what)| *what)
}

/// Escapes a path for a `build` line (outputs, inputs).
pub fn escape_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '$' | ' ' | ':' => {
                out.push('$');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Escapes text for the right-hand side of a variable binding.
pub fn escape_value(value: &str) -> String {
    value.replace('$', "$$")
}

/// One `build` statement.
#[derive(Debug, Default)]
pub struct Build<'a> {
    /// Explicit outputs.
    pub outputs: Vec<&'a str>,
    /// The rule name.
    pub rule: &'a str,
    /// Explicit inputs (`$in`).
    pub inputs: Vec<&'a str>,
    /// Implicit inputs (after `|`).
    pub implicit: Vec<&'a str>,
    /// Edge-scoped variable bindings, raw values (escaped on output).
    pub vars: Vec<(&'a str, String)>,
}

/// Accumulates the text of a build file.
#[derive(Debug, Default)]
pub struct Writer {
    text: String,
}

impl Writer {
    /// Starts from existing text, typically the rendered rule template.
    pub fn new(prelude: String) -> Self {
        Self { text: prelude }
    }

    /// Writes a top-level variable binding.
    pub fn variable(&mut self, name: &str, value: &str) {
        let _ = writeln!(self.text, "{name} = {}", escape_value(value));
    }

    /// Writes a comment line.
    pub fn comment(&mut self, text: &str) {
        let _ = writeln!(self.text, "# {text}");
    }

    /// Writes one build statement.
    pub fn build(&mut self, b: &Build<'_>) {
        let t = &mut self.text;
        t.push_str("build");
        push_paths(t, &b.outputs);
        let _ = write!(t, ": {}", b.rule);
        push_paths(t, &b.inputs);
        if !b.implicit.is_empty() {
            t.push_str(" |");
            push_paths(t, &b.implicit);
        }
        t.push('\n');
        for (name, value) in &b.vars {
            let _ = writeln!(t, "  {name} = {}", escape_value(value));
        }
    }

    /// Writes a `rule` with its bindings. Values are written as given, so
    /// `$in` and other variables expand; escape literal text with
    /// [`escape_value`] first.
    pub fn rule(&mut self, name: &str, bindings: &[(&str, &str)]) {
        let _ = writeln!(self.text, "rule {name}");
        for (key, value) in bindings {
            let _ = writeln!(self.text, "  {key} = {value}");
        }
        self.text.push('\n');
    }

    /// Writes a `default` statement.
    pub fn default_targets(&mut self, targets: &[&str]) {
        self.text.push_str("default");
        push_paths(&mut self.text, targets);
        self.text.push('\n');
    }

    /// Writes an empty line.
    pub fn blank(&mut self) {
        self.text.push('\n');
    }

    /// Returns the finished text.
    pub fn finish(self) -> String {
        self.text
    }
}

fn push_paths(text: &mut String, paths: &[&str]) {
    for p in paths {
        text.push(' ');
        text.push_str(&escape_path(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_escape_dollar_space_and_colon() {
        assert_eq!(escape_path("a b/c:d$e.png"), "a$ b/c$:d$$e.png");
        assert_eq!(escape_path("plain/x.png"), "plain/x.png");
    }

    #[test]
    fn values_escape_only_dollar() {
        assert_eq!(escape_value("a b:c$d"), "a b:c$$d");
    }

    #[test]
    fn inexpressible_names_are_named() {
        assert_eq!(check_expressible("a|b"), Some("'|'"));
        assert_eq!(check_expressible("a\nb"), Some("a line break"));
        assert_eq!(check_expressible("dir\\x"), Some("a backslash"));
        assert_eq!(check_expressible("what?.png"), Some("'?'"));
        assert_eq!(check_expressible("it's.png"), Some("a single quote"));
        assert_eq!(check_expressible("fine name: $#.png"), None);
    }

    #[test]
    fn build_statement_layout() {
        let mut w = Writer::default();
        w.build(&Build {
            outputs: vec!["out/a b.ktx2"],
            rule: "texture",
            inputs: vec!["in/a b.png"],
            implicit: vec!["/bin/enc"],
            vars: vec![("args", "--x $y".into())],
        });
        assert_eq!(
            w.finish(),
            "build out/a$ b.ktx2: texture in/a$ b.png | /bin/enc\n  args = --x $$y\n"
        );
    }
}
