//! The `ids:` key: where `assetc-link ids` writes the generated id files.
//!
//! ```yaml
//! ids: true                 # the default: <output>/assets.h and <output>/assets.rs
//! ids: false                # no id files, no Ninja edge
//! ids:                      # only the languages listed are written
//!   c: include/game_assets.h  # a path (relative to assetc.yml), or true for
//!   rust: true                # the default place, or false
//! ```
//!
//! A missing or empty `ids:` means `true`. Paths are checked when the file is
//! loaded (not empty, not inside the input folder, not `assetc.yml` or
//! `build.ninja`, not both languages at one path) and, once the output folder
//! is known, by [`IdsConfig::resolve`] (a chosen path must lie outside the
//! output folder, which holds only what the game loads). Every error points
//! at the value's line and column.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::error::ConfigError;
use super::paths::join;

/// File name of the C header in the output folder, when `ids.c` is `true`.
pub const DEFAULT_C_FILE: &str = "assets.h";
/// File name of the Rust module in the output folder, when `ids.rust` is `true`.
pub const DEFAULT_RUST_FILE: &str = "assets.rs";

/// `ids:` as written in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IdsSection {
    /// `ids: true` or `ids: false` (or an empty value, meaning `true`).
    Switch(bool),
    /// `ids: { c: …, rust: … }`.
    Files {
        /// The `c:` value, if given.
        c: Option<TargetValue>,
        /// The `rust:` value, if given.
        rust: Option<TargetValue>,
    },
}

/// The value of `ids.c` or `ids.rust` as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TargetValue {
    /// `true` (the default place) or `false` (not written).
    Switch(bool),
    /// A path relative to the config file's folder.
    Path(String),
}

/// Where one id file goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdsFile {
    /// Not written.
    Off,
    /// In the output folder, under its default name.
    InOutput,
    /// At a chosen path.
    At {
        /// Absolute path.
        path: PathBuf,
        /// Line of the value in `assetc.yml`.
        line: usize,
        /// Column of the value in `assetc.yml`.
        column: usize,
    },
}

/// Where both id files go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdsConfig {
    /// The C header.
    pub c: IdsFile,
    /// The Rust module.
    pub rust: IdsFile,
}

impl Default for IdsConfig {
    fn default() -> Self {
        Self {
            c: IdsFile::InOutput,
            rust: IdsFile::InOutput,
        }
    }
}

/// The id files of one build, as absolute paths; `None` is not written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdsPaths {
    /// The C header.
    pub c: Option<PathBuf>,
    /// The Rust module.
    pub rust: Option<PathBuf>,
}

/// What the checks made at load time need to know.
pub(crate) struct LoadContext<'a> {
    /// The config file.
    pub(crate) file: &'a Path,
    /// Its folder.
    pub(crate) root: &'a Path,
    /// The input folder.
    pub(crate) input: &'a Path,
    /// Finds the line and column of the value of `ids.<key>`.
    pub(crate) position: &'a dyn Fn(&str) -> (usize, usize),
}

impl IdsConfig {
    /// Resolves the section against the config's folders, checking each path.
    pub(crate) fn load(
        section: Option<IdsSection>,
        context: &LoadContext<'_>,
    ) -> Result<Self, ConfigError> {
        let (c, rust) = match section {
            None | Some(IdsSection::Switch(true)) => return Ok(Self::default()),
            Some(IdsSection::Switch(false)) => (IdsFile::Off, IdsFile::Off),
            Some(IdsSection::Files {
                c: None,
                rust: None,
            }) => return Ok(Self::default()),
            Some(IdsSection::Files { c, rust }) => {
                (target(c, "c", context)?, target(rust, "rust", context)?)
            }
        };
        if let (
            IdsFile::At { path: a, .. },
            IdsFile::At {
                path: b,
                line,
                column,
            },
        ) = (&c, &rust)
            && a == b
        {
            return Err(invalid(
                context.file,
                (*line, *column),
                format!("ids.rust: '{}' is also the C header's path", a.display()),
            ));
        }
        Ok(Self { c, rust })
    }

    /// The files of a build whose output folder is `output`. A chosen path
    /// inside the output folder is refused (only the default names may live
    /// there, so `assetc-link check` can tell them from stray files).
    pub fn resolve(&self, file: &Path, output: &Path) -> Result<IdsPaths, ConfigError> {
        Ok(IdsPaths {
            c: self.c.resolve(file, output, "c", DEFAULT_C_FILE)?,
            rust: self.rust.resolve(file, output, "rust", DEFAULT_RUST_FILE)?,
        })
    }
}

impl IdsFile {
    fn resolve(
        &self,
        file: &Path,
        output: &Path,
        key: &str,
        default_name: &str,
    ) -> Result<Option<PathBuf>, ConfigError> {
        let default = output.join(default_name);
        match self {
            IdsFile::Off => Ok(None),
            IdsFile::InOutput => Ok(Some(default)),
            IdsFile::At { path, .. } if *path == default => Ok(Some(default)),
            IdsFile::At { path, line, column } if path.starts_with(output) => Err(invalid(
                file,
                (*line, *column),
                format!(
                    "ids.{key}: '{}' lies inside the output folder {}, which holds only what \
                     the game loads; choose a path outside it, or `true` for {}",
                    path.display(),
                    output.display(),
                    default.display()
                ),
            )),
            IdsFile::At { path, .. } => Ok(Some(path.clone())),
        }
    }
}

/// Resolves and checks one language's value.
fn target(
    value: Option<TargetValue>,
    key: &str,
    context: &LoadContext<'_>,
) -> Result<IdsFile, ConfigError> {
    let text = match value {
        None | Some(TargetValue::Switch(false)) => return Ok(IdsFile::Off),
        Some(TargetValue::Switch(true)) => return Ok(IdsFile::InOutput),
        Some(TargetValue::Path(text)) => text,
    };
    let at = (context.position)(key);
    let fail = |what: String| Err(invalid(context.file, at, format!("ids.{key}: {what}")));
    if text.trim().is_empty() {
        return fail("the path is empty; give a file, or `false` to skip it".into());
    }
    if text.ends_with('/') {
        return fail(format!("'{text}' names a folder; give a file name"));
    }
    let path = join(context.root, Path::new(&text));
    if path.starts_with(context.input) {
        return fail(format!(
            "'{text}' lies inside the input folder {}, where it would be scanned as a source",
            context.input.display()
        ));
    }
    let reserved = [context.file.to_path_buf(), context.root.join("build.ninja")];
    if reserved.contains(&path) {
        return fail(format!("'{text}' would overwrite {}", path.display()));
    }
    Ok(IdsFile::At {
        path,
        line: at.0,
        column: at.1,
    })
}

/// A config error at a known position.
fn invalid(file: &Path, (line, column): (usize, usize), message: String) -> ConfigError {
    ConfigError::Parse {
        file: file.to_path_buf(),
        line,
        column,
        message,
    }
}

impl<'de> Deserialize<'de> for IdsSection {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SectionVisitor)
    }
}

/// Reads `ids:`: a boolean, nothing, or a mapping of `c` and `rust`.
struct SectionVisitor;

impl<'de> Visitor<'de> for SectionVisitor {
    type Value = IdsSection;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("true, false, or a mapping with `c` and `rust`")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<IdsSection, E> {
        Ok(IdsSection::Switch(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<IdsSection, E> {
        Ok(IdsSection::Switch(true))
    }

    fn visit_none<E: de::Error>(self) -> Result<IdsSection, E> {
        Ok(IdsSection::Switch(true))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<IdsSection, A::Error> {
        let (mut c, mut rust) = (None, None);
        while let Some(key) = access.next_key::<String>()? {
            let slot = match key.as_str() {
                "c" => &mut c,
                "rust" => &mut rust,
                _ => return Err(de::Error::unknown_field(&key, &["c", "rust"])),
            };
            *slot = Some(access.next_value::<TargetValue>()?);
        }
        Ok(IdsSection::Files { c, rust })
    }
}

impl<'de> Deserialize<'de> for TargetValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TargetVisitor)
    }
}

/// Reads `ids.c` or `ids.rust`: a boolean or a path.
struct TargetVisitor;

impl<'de> Visitor<'de> for TargetVisitor {
    type Value = TargetValue;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a file path, true or false")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<TargetValue, E> {
        Ok(TargetValue::Switch(value))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<TargetValue, E> {
        Ok(TargetValue::Path(value.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CONFIG_FILE_NAME, Config};

    /// Loads `text` as the `assetc.yml` of a fresh folder.
    fn load(text: &str) -> (tempfile::TempDir, Result<Config, ConfigError>) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(CONFIG_FILE_NAME);
        std::fs::write(&file, text).unwrap();
        let config = Config::load(&file);
        (dir, config)
    }

    /// The message of the error `text` must give, with its line and column.
    fn error(text: &str) -> (usize, usize, String) {
        match load(text).1 {
            Err(ConfigError::Parse {
                line,
                column,
                message,
                ..
            }) => (line, column, message),
            other => panic!("expected a positioned error for:\n{text}\ngot {other:?}"),
        }
    }

    fn paths(text: &str) -> (Option<String>, Option<String>) {
        let (dir, config) = load(text);
        let config = config.unwrap();
        let resolved = config
            .ids
            .resolve(&config.file, &dir.path().join("runtime"))
            .unwrap();
        let rel = |p: Option<PathBuf>| {
            p.map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
        };
        (rel(resolved.c), rel(resolved.rust))
    }

    fn some(a: &str, b: &str) -> (Option<String>, Option<String>) {
        (Some(a.into()), Some(b.into()))
    }

    #[test]
    fn both_files_go_to_the_output_folder_by_default() {
        let default = some("runtime/assets.h", "runtime/assets.rs");
        assert_eq!(paths(""), default);
        assert_eq!(paths("ids:\n"), default);
        assert_eq!(paths("ids: true\n"), default);
        assert_eq!(paths("ids: {}\n"), default);
        assert_eq!(paths("ids: false\n"), (None, None));
    }

    #[test]
    fn a_mapping_writes_only_the_languages_it_lists() {
        assert_eq!(
            paths("ids:\n  c: include/game_assets.h\n  rust: src/game_assets.rs\n"),
            some("include/game_assets.h", "src/game_assets.rs")
        );
        assert_eq!(
            paths("ids: { c: include/a.h }\n"),
            (Some("include/a.h".into()), None)
        );
        assert_eq!(
            paths("ids: { rust: true, c: false }\n"),
            (None, Some("runtime/assets.rs".into()))
        );
        assert_eq!(
            paths("ids: { c: runtime/assets.h }\n"),
            (Some("runtime/assets.h".into()), None)
        );
    }

    #[test]
    fn bad_values_name_their_line() {
        let (line, column, message) = error("pack: false\nids:\n  c: \"\"\n");
        assert_eq!((line, column), (3, 6));
        assert!(message.contains("ids.c: the path is empty"), "{message}");

        let (line, _, message) = error("ids:\n  rust: assets/gen.rs\n");
        assert_eq!(line, 2);
        assert!(message.contains("inside the input folder"), "{message}");

        let (line, _, message) = error("ids:\n  c: out/x\n  rust: out/x\n");
        assert_eq!(line, 3);
        assert!(message.contains("also the C header's path"), "{message}");

        let (_, _, message) = error("ids: { c: build.ninja }\n");
        assert!(message.contains("would overwrite"), "{message}");

        let (_, _, message) = error("ids: { c: include/ }\n");
        assert!(message.contains("names a folder"), "{message}");
    }

    #[test]
    fn bad_shapes_are_parse_errors_with_positions() {
        let (line, _, message) = error("ids:\n  h: a.h\n");
        assert_eq!(line, 2);
        assert!(
            message.contains('h') && message.contains("rust"),
            "{message}"
        );
        let (line, _, message) = error("input: assets\nids: 3\n");
        assert_eq!(line, 2);
        assert!(message.contains("true, false, or a mapping"), "{message}");
        let (line, _, _) = error("ids:\n  c: [a]\n");
        assert_eq!(line, 2);
    }

    #[test]
    fn a_chosen_path_inside_the_output_folder_is_refused() {
        let (dir, config) = load("ids:\n  c: runtime/include/a.h\n");
        let config = config.unwrap();
        let err = config
            .ids
            .resolve(&config.file, &dir.path().join("runtime"))
            .unwrap_err();
        let ConfigError::Parse { line, message, .. } = err else {
            panic!("{err:?}");
        };
        assert_eq!(line, 2);
        assert!(message.contains("inside the output folder"), "{message}");
    }
}
