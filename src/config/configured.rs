//! What `assetc configure` remembers, the way CMake keeps `CMakeCache.txt`.
//!
//! Each configure writes a [`Record`] into its build folder
//! (`<build-dir>/configured.json`): the settings it was given on its command
//! line, merged with what it remembered, and what they resolved to (preset,
//! output folder, build folder, whether there is a pack). A one-line pointer,
//! `.assetc/configured` beside `assetc.yml`, names the build folder of the
//! last configure, so later commands find that record without being told
//! the preset:
//!
//! * `assetc configure` (and plain `assetc`) starts from the record, and a
//!   flag given again replaces the remembered one;
//! * `assetc-link check`, `assetc info`, `assetc pack info`, `assetc view`
//!   and `assetc watch` look at the output folder the record names
//!   ([`Config::configured`]).
//!
//! Paths inside the project are stored relative to it, so a moved project
//! keeps its record.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::ConfigError;
use super::model::Config;
use super::remote::RemoteSettings;
use super::size::ByteSize;
use crate::fsutil::{self, FileError};

/// The record's file name inside a build folder.
pub const RECORD_FILE: &str = "configured.json";

/// The pointer to the last configured build folder, relative to the project
/// root.
pub const POINTER_FILE: &str = ".assetc/configured";

/// The `schema` value of the records this version writes and reads.
const SCHEMA: &str = "assetc-configured/1";

/// The settings configure was given: its flags as typed, or remembered from
/// an earlier run. Paths are absolute in memory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Given {
    /// `--preset`.
    pub preset: Option<String>,
    /// `-o/--output`.
    pub output: Option<PathBuf>,
    /// `--build-dir`.
    pub build_dir: Option<PathBuf>,
    /// `--pack`.
    pub pack: bool,
    /// `--pack-base`.
    pub pack_base: Option<PathBuf>,
    /// `--keep-going`.
    pub keep_going: bool,
    /// `--cache`.
    pub cache: Option<PathBuf>,
    /// `--cache-max-size`.
    #[serde(with = "size_text")]
    pub cache_max_size: Option<ByteSize>,
    /// `--launcher`.
    pub launcher: Option<String>,
    /// The `--remote*` flags.
    pub remote: RemoteSettings,
}

/// What a configure resolved its settings to: what the other commands look
/// at. Paths are absolute in memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Configured {
    /// The preset in effect (given, or the config's `preset:`).
    pub preset: Option<String>,
    /// The output folder.
    pub output: PathBuf,
    /// The build folder (fragments, depfiles, Ninja's log).
    pub build_dir: PathBuf,
    /// Whether the build writes `<output>.hpack`.
    pub pack: bool,
}

/// One build folder's record: what configure was given and what that
/// resolved to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Always [`SCHEMA`].
    schema: String,
    /// The settings given or remembered.
    pub given: Given,
    /// What they resolved to.
    pub configured: Configured,
}

impl Record {
    /// A record of `given` resolved to `configured`.
    pub fn new(given: Given, configured: Configured) -> Self {
        Self {
            schema: SCHEMA.to_owned(),
            given,
            configured,
        }
    }

    /// Writes the record into its build folder and points `root`'s pointer
    /// at it; each file only when its bytes change.
    pub fn write(&self, root: &Path) -> Result<(), FileError> {
        let stored = self.clone().map_paths(|path| stored_path(root, path));
        let build_dir = &self.configured.build_dir;
        let path = build_dir.join(RECORD_FILE);
        let mut text = serde_json::to_string_pretty(&stored).map_err(|e| FileError::Write {
            path: path.clone(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })?;
        text.push('\n');
        fsutil::write_output(&path, text.as_bytes())?;
        let pointer = format!("{}\n", stored_path(root, build_dir).display());
        fsutil::write_output(&root.join(POINTER_FILE), pointer.as_bytes())?;
        Ok(())
    }

    /// The record in `build_dir` of the project at `root`; `None` when there
    /// is none.
    pub fn read(root: &Path, build_dir: &Path) -> Result<Option<Self>, ConfigError> {
        let path = build_dir.join(RECORD_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ConfigError::Io { path, source }),
        };
        let record: Self =
            serde_json::from_str(&text).map_err(|source| unreadable(&path, source))?;
        if record.schema != SCHEMA {
            return Err(ConfigError::BadRecord {
                path,
                what: format!("schema '{}' is not {SCHEMA}", record.schema),
            });
        }
        Ok(Some(record.map_paths(|path| root.join(path))))
    }

    /// The record of the last configure of the project at `root`, which the
    /// pointer names; `None` when there is no pointer or no record.
    pub fn last(root: &Path) -> Result<Option<Self>, ConfigError> {
        let pointer = root.join(POINTER_FILE);
        let Ok(text) = std::fs::read_to_string(&pointer) else {
            return Ok(None);
        };
        match text.trim_end_matches('\n') {
            "" => Ok(None),
            build_dir => Self::read(root, &root.join(build_dir)),
        }
    }

    /// The record for `preset`: the last one when it is of that preset (or
    /// when no preset is asked for), else the one in the preset's default
    /// build folder.
    pub fn find(root: &Path, preset: Option<&str>) -> Result<Option<Self>, ConfigError> {
        let last = Self::last(root)?;
        let Some(preset) = preset else {
            return Ok(last);
        };
        if let Some(record) = last.filter(|r| r.configured.preset.as_deref() == Some(preset)) {
            return Ok(Some(record));
        }
        Self::read(root, &default_build_dir(root, Some(preset)))
    }

    /// The record with `map` applied to every path in it.
    fn map_paths(mut self, map: impl Fn(&Path) -> PathBuf) -> Self {
        let given = &mut self.given;
        for path in [&mut given.output, &mut given.build_dir, &mut given.cache] {
            *path = path.as_deref().map(&map);
        }
        given.remote = std::mem::take(&mut given.remote).with_files_mapped(&map);
        let configured = &mut self.configured;
        configured.output = map(&configured.output);
        configured.build_dir = map(&configured.build_dir);
        self
    }
}

/// The build folder configure uses for `preset` when `--build-dir` is not
/// given: `.assetc/<preset>`, or `.assetc/default` without a preset.
pub fn default_build_dir(root: &Path, preset: Option<&str>) -> PathBuf {
    root.join(".assetc").join(preset.unwrap_or("default"))
}

impl Config {
    /// What the other commands look at for `preset` (or, without one, for
    /// the last configure): the record's folders when configure left one,
    /// else the config's preset, output folder and `pack:`.
    pub fn configured(&self, preset: Option<&str>) -> Result<Configured, ConfigError> {
        if let Some(record) = Record::find(&self.root, preset)? {
            return Ok(record.configured);
        }
        let selection = self.select(preset, None)?;
        Ok(Configured {
            build_dir: default_build_dir(&self.root, selection.preset.as_deref()),
            preset: selection.preset,
            output: selection.output,
            pack: self.pack,
        })
    }
}

/// `path` as the record stores it: relative to `root` when below it.
fn stored_path(root: &Path, path: &Path) -> PathBuf {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rel) => rel.to_owned(),
        Err(_) => path.to_owned(),
    }
}

/// The error for a record that does not parse.
fn unreadable(path: &Path, source: serde_json::Error) -> ConfigError {
    ConfigError::BadRecord {
        path: path.to_owned(),
        what: source.to_string(),
    }
}

/// `Option<ByteSize>` as the text `--cache-max-size` takes (`5G`).
mod size_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::ByteSize;

    /// Writes the size as its text, or `null`.
    pub fn serialize<S: Serializer>(size: &Option<ByteSize>, s: S) -> Result<S::Ok, S::Error> {
        match size {
            Some(size) => s.serialize_str(&size.to_string()),
            None => s.serialize_none(),
        }
    }

    /// Reads a size's text, or `null`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ByteSize>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|text| text.parse().map_err(serde::de::Error::custom))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(root: &Path) -> Record {
        Record::new(
            Given {
                preset: Some("mobile".into()),
                output: Some(root.join("out")),
                pack: true,
                cache: Some(PathBuf::from("/shared/cache")),
                cache_max_size: Some(ByteSize(5 << 30)),
                remote: RemoteSettings {
                    url: Some("grpc://r:1".into()),
                    ca: Some(root.join("certs/ca.pem")),
                    ..RemoteSettings::default()
                },
                ..Given::default()
            },
            Configured {
                preset: Some("mobile".into()),
                output: root.join("out"),
                build_dir: default_build_dir(root, Some("mobile")),
                pack: true,
            },
        )
    }

    #[test]
    fn a_record_reads_back_as_written_with_project_paths_relative() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let written = record(root);
        written.write(root).unwrap();
        let text = std::fs::read_to_string(root.join(".assetc/mobile").join(RECORD_FILE)).unwrap();
        assert!(text.contains("\"output\": \"out\""), "{text}");
        assert!(text.contains("\"cache\": \"/shared/cache\""), "{text}");
        assert!(text.contains("\"cache_max_size\": \"5G\""), "{text}");
        assert!(text.contains("\"ca\": \"certs/ca.pem\""), "{text}");
        let pointer = std::fs::read_to_string(root.join(POINTER_FILE)).unwrap();
        assert_eq!(pointer, ".assetc/mobile\n");
        assert_eq!(Record::last(root).unwrap(), Some(written.clone()));
        assert_eq!(Record::find(root, Some("mobile")).unwrap(), Some(written));
        assert_eq!(Record::find(root, Some("desktop")).unwrap(), None);
    }

    #[test]
    fn no_pointer_means_no_record_and_a_broken_record_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(Record::last(root).unwrap(), None);
        record(root).write(root).unwrap();
        let path = root.join(".assetc/mobile").join(RECORD_FILE);
        std::fs::write(&path, "{ \"schema\": ").unwrap();
        let error = Record::last(root).unwrap_err().to_string();
        assert!(error.starts_with(&path.display().to_string()), "{error}");
        assert!(error.contains("--fresh"), "{error}");
        std::fs::write(&path, "{\"schema\": \"assetc-configured/9\", \"given\": {}, \"configured\": {\"preset\": null, \"output\": \"o\", \"build_dir\": \"b\", \"pack\": false}}").unwrap();
        let error = Record::last(root).unwrap_err().to_string();
        assert!(error.contains("assetc-configured/9"), "{error}");
    }
}
