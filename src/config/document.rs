//! The `assetc.yml` being loaded, as [`Document`]: its path and the position
//! tree of its text, so every part of the loader (`load.rs`, `ids.rs`,
//! `packs.rs`, `processors.rs`) can compile a glob or build an error that
//! points at the line and column of the value it checks.

use std::path::Path;

use globset::{Glob, GlobBuilder};

use super::error::ConfigError;
use super::yaml::{Node, NodeKind, Position, Step};

/// The file being loaded and the position tree of its text.
pub(super) struct Document<'a> {
    /// Absolute path of the file.
    pub(super) file: &'a Path,
    /// Positions of its keys and values; `None` for an empty document.
    pub(super) tree: Option<&'a Node>,
}

impl Document<'_> {
    /// Compiles one glob; on failure the error points at the node `steps` names.
    pub(super) fn glob(&self, pattern: &str, steps: &[Step]) -> Result<Glob, ConfigError> {
        compile_glob(pattern).map_err(|error| {
            let at = self.position(steps);
            ConfigError::BadGlob {
                file: self.file.to_path_buf(),
                line: at.line,
                column: at.column,
                glob: pattern.to_owned(),
                message: error.kind().to_string(),
            }
        })
    }

    /// Where the node at `steps` is, or 0:0 if it cannot be found.
    pub(super) fn position(&self, steps: &[Step]) -> Position {
        self.tree
            .and_then(|tree| tree.find(steps))
            .map(|node| node.at)
            .unwrap_or_default()
    }

    /// Whether the document has a node at `steps`.
    pub(super) fn has(&self, steps: &[Step]) -> bool {
        self.tree.and_then(|tree| tree.find(steps)).is_some()
    }

    /// Where the key of the mapping entry at `steps` is (the last step must be
    /// a key), or where its value is when the key cannot be found.
    pub(super) fn key_position(&self, steps: &[Step]) -> Position {
        let key_at = steps.split_last().and_then(|(last, parent)| {
            let Step::Key(key) = last else { return None };
            let parent = self.tree?.find(parent)?;
            let NodeKind::Map(entries) = &parent.kind else {
                return None;
            };
            entries.iter().find(|e| e.key == *key).map(|e| e.key_at)
        });
        key_at.unwrap_or_else(|| self.position(steps))
    }

    /// A [`ConfigError::Parse`] pointing at the value at `steps`.
    pub(super) fn invalid(&self, steps: &[Step], message: String) -> ConfigError {
        self.parse_error(self.position(steps), message)
    }

    /// A [`ConfigError::Parse`] pointing at the key of the entry at `steps`.
    pub(super) fn invalid_key(&self, steps: &[Step], message: String) -> ConfigError {
        self.parse_error(self.key_position(steps), message)
    }

    fn parse_error(&self, at: Position, message: String) -> ConfigError {
        ConfigError::Parse {
            file: self.file.to_path_buf(),
            line: at.line,
            column: at.column,
            message,
        }
    }
}

/// Compiles a glob the way `assetc.yml` defines them: over '/'-separated paths,
/// `*` spans '/', `?` is exactly one character.
fn compile_glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern).literal_separator(false).build()
}
