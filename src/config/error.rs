//! What can go wrong while finding, reading or using `assetc.yml`, and the
//! non-fatal warnings a load collects.
//!
//! Every error that concerns the file's contents names the file, and where the
//! position is known, its line and column, in the `<file>:<line>:<col>:` form
//! editors and terminals make clickable.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// A problem found while loading that does not stop the build (an unknown key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The config file.
    pub file: PathBuf,
    /// 1-based line of the offending key.
    pub line: usize,
    /// 1-based column of the offending key.
    pub column: usize,
    /// What is wrong, e.g. `unknown key 'default.texture.compres'`.
    pub message: String,
}

impl ConfigWarning {
    /// Where the warning points.
    pub fn place(&self) -> Place {
        Place {
            file: self.file.clone(),
            line: self.line,
            column: self.column,
        }
    }
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(formatter, "{}: {}", self.place(), self.message)
    }
}

/// A failure to find, read or use `assetc.yml`.
#[derive(thiserror::Error, Debug)]
pub enum ConfigError {
    /// No `assetc.yml` in the start folder or any of its ancestors.
    #[error(
        "no assetc.yml found in {} or any folder above it (run `assetc init` to create one)",
        start.display()
    )]
    NotFound {
        /// The folder the search started from.
        start: PathBuf,
    },

    /// A configure record (`<build-dir>/configured.json`) cannot be used.
    #[error(
        "{}: not a configure record this assetc can read: {what} (`assetc configure --fresh` forgets it)",
        path.display()
    )]
    BadRecord {
        /// The record.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },

    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder involved.
        path: PathBuf,
        /// The underlying failure.
        source: io::Error,
    },

    /// The file is not valid YAML, or a value has the wrong type.
    #[error("{}:{line}:{column}: {message}", file.display())]
    Parse {
        /// The config file.
        file: PathBuf,
        /// 1-based line (0 if unknown).
        line: usize,
        /// 1-based column (0 if unknown).
        column: usize,
        /// What is wrong.
        message: String,
    },

    /// The requested preset is not defined in the file.
    #[error(
        "{}unknown preset '{name}'{}; {}",
        describe_place(place),
        describe_suggestion(suggestion),
        describe_available(available)
    )]
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// The presets the file defines, in file order.
        available: Vec<String>,
        /// A defined preset whose name is a typo away, if any.
        suggestion: Option<String>,
        /// Where the name is written, when it comes from the file's
        /// `preset:` rather than the command line.
        place: Option<Place>,
    },

    /// A `match:` or `embed:` glob does not compile.
    #[error("{}:{line}:{column}: bad glob '{glob}': {message}", file.display())]
    BadGlob {
        /// The config file.
        file: PathBuf,
        /// 1-based line of the glob (0 if unknown).
        line: usize,
        /// 1-based column of the glob (0 if unknown).
        column: usize,
        /// The glob as written.
        glob: String,
        /// Why it does not compile.
        message: String,
    },

    /// `write_starter` found a file already in place and left it alone.
    #[error("{} already exists; leaving it untouched", path.display())]
    AlreadyExists {
        /// The existing file.
        path: PathBuf,
    },
}

/// A place in a file: the file, a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl fmt::Display for Place {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(
            formatter,
            "{}:{}:{}",
            self.file.display(),
            self.line,
            self.column
        )
    }
}

/// `<place>: ` before a message about something written there, or nothing.
fn describe_place(place: &Option<Place>) -> String {
    place
        .as_ref()
        .map_or_else(String::new, |place| format!("{place}: "))
}

/// ` (did you mean 'x'?)`, or nothing.
fn describe_suggestion(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map_or_else(String::new, |close| format!(" (did you mean '{close}'?)"))
}

/// The "available presets" part of an [`ConfigError::UnknownPreset`] message.
fn describe_available(available: &[String]) -> String {
    if available.is_empty() {
        "assetc.yml defines no presets".to_owned()
    } else {
        format!("available presets: {}", available.join(", "))
    }
}
