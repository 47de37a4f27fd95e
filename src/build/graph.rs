//! What `assetc build` needs to know of a `build.ninja` before running
//! Ninja, read from its header only (the file of a large project runs to
//! megabytes): where Ninja keeps its log, and which preset configured it.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The name of the graph file, next to `assetc.yml`.
pub const NINJA_FILE: &str = "build.ninja";

/// The facts of a `build.ninja` header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphHeader {
    /// The `builddir` variable, relative to the project root.
    pub builddir: Option<String>,
    /// The preset it was configured with: the word after `CONFIGURE` in the
    /// `configure` rule's description.
    pub preset: Option<String>,
}

impl GraphHeader {
    /// Reads the header of `root/build.ninja`; `None` when there is none.
    pub fn read(root: &Path) -> Option<Self> {
        let file = File::open(root.join(NINJA_FILE)).ok()?;
        let mut header = Self::default();
        for line in BufReader::new(file).lines().map_while(Result::ok) {
            if line.starts_with("build ") {
                break;
            }
            if let Some(dir) = line.strip_prefix("builddir = ") {
                header.builddir = Some(unescape(dir.trim()));
            } else if let Some(preset) = line.trim_start().strip_prefix("description = CONFIGURE ")
            {
                header.preset = Some(unescape(preset.trim()));
            }
        }
        Some(header)
    }

    /// Where Ninja keeps its log for the project at `root`.
    pub fn log_path(&self, root: &Path) -> PathBuf {
        self.builddir
            .as_deref()
            .map_or_else(|| root.to_owned(), |dir| root.join(dir))
            .join(".ninja_log")
    }
}

/// A Ninja value with its `$` escapes undone.
fn unescape(value: &str) -> String {
    let mut text = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '$' => text.extend(chars.next()),
            c => text.push(c),
        }
    }
    text
}

/// Runs `assetc configure [--preset P]` in `root` when `build.ninja` is
/// missing or was configured with another preset than `preset`; otherwise
/// Ninja's own regeneration edge re-runs configure when `assetc.yml` or the
/// input folders change. `program` is the `assetc` binary. Returns whether
/// the graph is ready: `false` after a configure that failed (it has
/// printed why).
pub fn configure_if_needed(program: &Path, root: &Path, preset: Option<&str>) -> bool {
    let needed = match GraphHeader::read(root) {
        None => true,
        Some(header) => preset.is_some_and(|p| header.preset.as_deref() != Some(p)),
    };
    if !needed {
        return true;
    }
    let mut command = Command::new(program);
    command.current_dir(root).arg("configure");
    if let Some(preset) = preset {
        command.args(["--preset", preset]);
    }
    match command.status() {
        Ok(status) => status.success(),
        Err(e) => {
            crate::cli::to_stderr(&format!(
                "assetc: error: cannot run {} configure: {e}",
                program.display()
            ));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_gives_the_log_folder_and_the_preset() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(GraphHeader::read(dir.path()), None);
        std::fs::write(
            dir.path().join(NINJA_FILE),
            "# comment\nbuilddir = .assetc/my$ preset\nrule configure\n  command = x\n  \
             description = CONFIGURE my$ preset\nbuild out: configure\n  description = CONFIGURE late\n",
        )
        .unwrap();
        let header = GraphHeader::read(dir.path()).unwrap();
        assert_eq!(header.builddir.as_deref(), Some(".assetc/my preset"));
        assert_eq!(header.preset.as_deref(), Some("my preset"));
        assert_eq!(
            header.log_path(dir.path()),
            dir.path().join(".assetc/my preset/.ninja_log")
        );
        assert_eq!(
            GraphHeader::default().log_path(dir.path()),
            dir.path().join(".ninja_log")
        );
    }
}
