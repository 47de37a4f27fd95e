//! Choosing a preset and output folder, and resolving the settings of one
//! source path through the five layers:
//!
//! 1. built-in defaults, 2. `default:` globals, 3. the preset's globals,
//! 4. `default.rules` in file order, 5. the preset's rules in file order.
//!
//! Each layer overrides only the fields it sets, and every matching rule
//! applies, so among rules the last match wins and preset rules beat default
//! rules. Layers 1–3 do not depend on the path and are merged once, up front.

use std::path::{Path, PathBuf};

use globset::{GlobSet, GlobSetBuilder};

use super::error::{ConfigError, Place};
use super::keys::closest_name;
use super::model::{Config, Preset, Rule};
use super::paths::absolute;
use super::settings::{Settings, SettingsLayer};

/// A preset and output chosen for one build, ready to answer per-path queries.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The active preset, if any.
    pub preset: Option<String>,
    /// Absolute output folder for this build.
    pub output: PathBuf,
    /// The shipped packs to lay this build's packs over: the preset's
    /// `pack_base`, else the top-level one.
    pub pack_base: Option<PathBuf>,
    /// Layers 1–3 already merged.
    base: Settings,
    /// Rule settings, default rules first then preset rules, in file order.
    rules: Vec<SettingsLayer>,
    /// The rules' globs; glob `i` belongs to `rules[i]`.
    rule_globs: GlobSet,
    /// The `embed:` globs.
    embed_globs: GlobSet,
    /// The `exclude:` globs.
    exclude_globs: GlobSet,
}

impl Config {
    /// Picks the preset (`cli_preset`, else the file's `preset:`, else none)
    /// and the output folder (`cli_output`, relative to the working directory,
    /// else the preset's `output`, else the top-level `output`).
    pub fn select(
        &self,
        cli_preset: Option<&str>,
        cli_output: Option<&Path>,
    ) -> Result<Selection, ConfigError> {
        let name = cli_preset.or(self.preset.as_deref());
        let preset = name
            .map(|name| self.find_preset(name, cli_preset.is_none()))
            .transpose()?;
        let output = match cli_output {
            Some(path) => absolute(path)?,
            None => preset
                .and_then(|p| p.output.clone())
                .unwrap_or_else(|| self.output.clone()),
        };
        let rules: Vec<&Rule> = self
            .default_rules
            .iter()
            .chain(preset.iter().flat_map(|p| &p.rules))
            .collect();
        Ok(Selection {
            preset: name.map(str::to_owned),
            output,
            pack_base: preset
                .and_then(|p| p.pack_base.clone())
                .or_else(|| self.pack_base.clone()),
            base: self.base_settings(preset),
            rules: rules.iter().map(|r| r.settings.clone()).collect(),
            rule_globs: self.glob_set(rules.iter().map(|r| &r.glob))?,
            embed_globs: self.glob_set(self.embed_globs.iter())?,
            exclude_globs: self.glob_set(self.exclude_globs.iter())?,
        })
    }

    /// The preset called `name`, or an error listing the defined ones and
    /// suggesting a close one; `from_file` when the name is the file's
    /// `preset:`, so the error points at it.
    fn find_preset(&self, name: &str, from_file: bool) -> Result<&Preset, ConfigError> {
        let names = self.preset_names();
        self.presets
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| ConfigError::UnknownPreset {
                name: name.to_owned(),
                suggestion: closest_name(name, names.iter().copied()).map(str::to_owned),
                available: names.iter().copied().map(str::to_owned).collect(),
                place: from_file.then(|| Place {
                    file: self.file.clone(),
                    line: self.preset_at.line,
                    column: self.preset_at.column,
                }),
            })
    }

    /// Built-in defaults, then `default:` globals, then the preset's globals.
    fn base_settings(&self, preset: Option<&Preset>) -> Settings {
        let mut settings = Settings::default();
        self.default_globals.apply_to(&mut settings);
        if let Some(preset) = preset {
            preset.globals.apply_to(&mut settings);
        }
        settings
    }

    /// Builds one matcher for several already-compiled globs.
    fn glob_set<'a>(
        &self,
        globs: impl Iterator<Item = &'a globset::Glob>,
    ) -> Result<GlobSet, ConfigError> {
        let mut builder = GlobSetBuilder::new();
        for glob in globs {
            builder.add(glob.clone());
        }
        builder.build().map_err(|error| ConfigError::BadGlob {
            file: self.file.clone(),
            line: 0,
            column: 0,
            glob: error.glob().unwrap_or("(combined globs)").to_owned(),
            message: error.kind().to_string(),
        })
    }
}

impl Selection {
    /// The resolved settings of the source at `rel_path` ('/'-separated,
    /// relative to the input folder).
    pub fn settings_for(&self, rel_path: &str) -> Settings {
        let mut settings = self.base.clone();
        let mut matching = self.rule_globs.matches(rel_path);
        matching.sort_unstable();
        for index in matching {
            self.rules[index].apply_to(&mut settings);
        }
        settings
    }

    /// Whether the source at `rel_path` is copied verbatim (an `embed:` glob
    /// matches it).
    pub fn is_embed(&self, rel_path: &str) -> bool {
        self.embed_globs.is_match(rel_path)
    }

    /// Whether the file or folder at `rel_path` is left out of the walk (an
    /// `exclude:` glob matches it): not a source, and not counted as ignored.
    pub fn is_excluded(&self, rel_path: &str) -> bool {
        self.exclude_globs.is_match(rel_path)
    }
}
