//! Paths in `assetc.yml` made absolute: [`join`] against the config's folder
//! and [`absolute`] against the working directory, both folding `.` and `..`
//! lexically.

use std::path::{Component, Path, PathBuf};

use super::error::ConfigError;

/// `path` made absolute against `base`, normalised lexically.
pub(crate) fn join(base: &Path, path: &Path) -> PathBuf {
    normalize(&base.join(path))
}

/// Removes `.` components and folds each `..` into its parent, without
/// touching the file system (the folders may not exist yet). Folding is
/// lexical: `link/..` means the folder holding `link`, as a user reading the
/// config would expect, even when `link` is a symbolic link.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match (part, out.components().next_back()) {
            (Component::CurDir, _) => {}
            (Component::ParentDir, Some(Component::Normal(_))) => {
                out.pop();
            }
            (Component::ParentDir, Some(Component::RootDir)) => {}
            (other, _) => out.push(other),
        }
    }
    out
}

/// `path` made absolute against the current working directory and normalised
/// lexically, as every path in a [`Config`](super::Config) is.
pub fn absolute(path: &Path) -> Result<PathBuf, ConfigError> {
    if path.is_absolute() {
        return Ok(normalize(path));
    }
    let cwd = std::env::current_dir().map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(join(&cwd, path))
}

#[cfg(test)]
mod normalize_tests {
    use super::*;

    #[test]
    fn dots_fold_lexically() {
        let n = |p: &str| normalize(Path::new(p));
        assert_eq!(n("/p/assets/.."), Path::new("/p"));
        assert_eq!(n("/p/./a/./b/../c"), Path::new("/p/a/c"));
        assert_eq!(n("/p/../../x"), Path::new("/x"));
        assert_eq!(n("/.."), Path::new("/"));
        assert_eq!(
            join(Path::new("/proj"), Path::new("../shared/out")),
            Path::new("/shared/out")
        );
    }
}
