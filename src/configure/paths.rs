//! Paths as `build.ninja` writes them: relative to the project root with `/`
//! separators ([`root_relative`], `join`), or absolute outside it, and
//! refused when Ninja cannot express them.

use std::path::Path;

use super::ConfigureError;
use super::ninja;
use crate::fsutil;

/// `path` relative to `root` with `/` separators, or absolute when outside it.
pub fn root_relative(root: &Path, path: &Path) -> Result<String, ConfigureError> {
    match fsutil::slash_relative(root, path) {
        Some(rel) if rel.is_empty() => Ok(".".into()),
        Some(rel) => expressible(path, rel),
        // Outside the root, or not UTF-8 (which path_string reports).
        None => path_string(path),
    }
}

/// `path` as written, when it is UTF-8 and Ninja can express it.
pub(super) fn path_string(path: &Path) -> Result<String, ConfigureError> {
    let text = path.to_str().ok_or_else(|| not_utf8(path))?;
    expressible(path, text.to_string())
}

/// Passes `text` through when Ninja can express it, else names the problem.
fn expressible(path: &Path, text: String) -> Result<String, ConfigureError> {
    match ninja::check_expressible(&text) {
        Some(what) => Err(inexpressible(path, what)),
        None => Ok(text),
    }
}

/// The error for a `path` holding `what`, which Ninja cannot express.
pub(super) fn inexpressible(path: &Path, what: &str) -> ConfigureError {
    ConfigureError::BadName {
        path: path.to_owned(),
        what: format!("contains {what}, which Ninja cannot express in a path"),
    }
}

/// The error for a `path` that is not UTF-8.
fn not_utf8(path: &Path) -> ConfigureError {
    ConfigureError::BadName {
        path: path.to_owned(),
        what: "is not valid UTF-8".into(),
    }
}

/// Joins a root-relative folder and a relative path.
pub(super) fn join(base: &str, rel: &str) -> String {
    if base == "." {
        rel.to_string()
    } else {
        format!("{base}/{rel}")
    }
}
