//! Shader errors that point at a file, and at a line and column when there is
//! one: `assets/fx/Blur.shader/blur.frag:12:5: expected ';'`.
//!
//! Lines and columns are 1-based; columns count bytes, as naga's do. A
//! position found in include-expanded text is mapped back to the file that
//! holds the line before it gets here (see [`super::include`]).

use std::fmt;
use std::path::{Path, PathBuf};

/// A place in a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, as the build names it (relative to where Ninja runs).
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
}

/// One problem, at a position or about a whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diagnostic {
    /// A problem at a line and column of a file.
    At {
        /// Where.
        location: Location,
        /// What is wrong.
        message: String,
    },
    /// A problem with a file (or folder) as a whole.
    File {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl Diagnostic {
    /// A problem about the whole of `file`.
    pub fn file(file: &Path, message: impl Into<String>) -> Self {
        Diagnostic::File {
            file: file.to_owned(),
            message: message.into(),
        }
    }

    /// A problem at `location`.
    pub fn at(location: Location, message: impl Into<String>) -> Self {
        Diagnostic::At {
            location,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Diagnostic::At { location, message } => write!(
                f,
                "{}:{}:{}: {message}",
                location.file.display(),
                location.line,
                location.column
            ),
            Diagnostic::File { file, message } => write!(f, "{}: {message}", file.display()),
        }
    }
}

/// Why a shader folder did not compile: one or more diagnostics, shown one
/// per line (the later ones indented under the first) in the order they
/// were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaderError {
    /// The problems, at least one.
    pub diagnostics: Vec<Diagnostic>,
}

impl ShaderError {
    /// The error of several diagnostics, each kept once: a mistake in a
    /// file that two stages include is reported once, not per stage.
    pub fn of(diagnostics: Vec<Diagnostic>) -> Self {
        let mut unique: Vec<Diagnostic> = Vec::with_capacity(diagnostics.len());
        for diagnostic in diagnostics {
            if !unique.contains(&diagnostic) {
                unique.push(diagnostic);
            }
        }
        ShaderError {
            diagnostics: unique,
        }
    }
}

impl From<Diagnostic> for ShaderError {
    fn from(diagnostic: Diagnostic) -> Self {
        ShaderError {
            diagnostics: vec![diagnostic],
        }
    }
}

impl fmt::Display for ShaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, diagnostic) in self.diagnostics.iter().enumerate() {
            if index > 0 {
                f.write_str("\n  ")?;
            }
            write!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ShaderError {}

/// An error's message followed by its causes, joined by `: `.
pub fn message_with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let next = inner.to_string();
        if !text.ends_with(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        cause = inner.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_print_as_file_line_column() {
        let at = Diagnostic::at(
            Location {
                file: PathBuf::from("assets/a.shader/lit.frag"),
                line: 12,
                column: 5,
            },
            "expected ';'",
        );
        assert_eq!(
            at.to_string(),
            "assets/a.shader/lit.frag:12:5: expected ';'"
        );
        let whole = Diagnostic::file(Path::new("assets/a.shader/x.spv"), "bad magic");
        let error = ShaderError::of(vec![at.clone(), whole, at]);
        assert_eq!(
            error.to_string(),
            "assets/a.shader/lit.frag:12:5: expected ';'\n  assets/a.shader/x.spv: bad magic"
        );
    }
}
