//! Finding and loading `assetc.yml` into a [`Config`]: paths made absolute
//! against the file's folder, globs compiled (a bad one is an error pointing at
//! its line), unknown keys turned into warnings.

use std::fs;
use std::path::{Path, PathBuf};

use globset::Glob;

use super::CONFIG_FILE_NAME;
use super::document::Document;
use super::error::{ConfigError, ConfigWarning};
use super::ids::{IdsConfig, IdsSection, LoadContext};
use super::keys::{Shape, unknown_keys};
use super::mistakes;
use super::model::{CacheConfig, Config, Preset, Rule};
use super::packs;
use super::paths::{absolute, join};
use super::processors;
use super::schema::{CacheSection, FileSchema, PresetSection, RuleSection};
use super::settings::TextureLayer;
use super::size::ByteSize;
use super::yaml::{self, Node, Step};
use crate::format::hpack_layout::DEFAULT_MAX_WASTE;

/// Source folder when `input:` is not given.
const DEFAULT_INPUT: &str = "assets";
/// Base output folder when `output:` is not given.
const DEFAULT_OUTPUT: &str = "runtime";

impl Config {
    /// Reads and checks the config file at `file`.
    ///
    /// Syntax and type errors, duplicate keys and bad globs are errors; unknown
    /// keys become [`Config::warnings`]. An empty file gives all defaults.
    pub fn load(file: &Path) -> Result<Config, ConfigError> {
        let file = absolute(file)?;
        let text = fs::read_to_string(&file).map_err(|source| ConfigError::Io {
            path: file.clone(),
            source,
        })?;
        let schema = read_schema(&text, &file)?;
        let tree = Node::read(&text, &file)?;
        let document = Document {
            file: &file,
            tree: tree.as_ref(),
        };
        let warnings = document.unknown_key_warnings();
        let mut config = document.build(schema)?;
        config.warnings = warnings;
        Ok(config)
    }

    /// Loads the nearest `assetc.yml` in `start_dir` or one of its ancestors.
    pub fn discover(start_dir: &Path) -> Result<Config, ConfigError> {
        let start = absolute(start_dir)?;
        let found = start
            .ancestors()
            .map(|dir| dir.join(CONFIG_FILE_NAME))
            .find(|candidate| candidate.is_file());
        match found {
            Some(file) => Config::load(&file),
            None => Err(ConfigError::NotFound { start }),
        }
    }
}

impl Document<'_> {
    /// Warnings for every key the schema does not know.
    fn unknown_key_warnings(&self) -> Vec<ConfigWarning> {
        let Some(tree) = self.tree else {
            return Vec::new();
        };
        unknown_keys(&Shape::of::<FileSchema>(), tree)
            .into_iter()
            .map(|unknown| ConfigWarning {
                file: self.file.to_path_buf(),
                line: unknown.at.line,
                column: unknown.at.column,
                message: unknown.message,
            })
            .collect()
    }

    /// Resolves paths and compiles globs; warnings are left empty.
    fn build(&self, schema: FileSchema) -> Result<Config, ConfigError> {
        let root = self.file.parent().unwrap_or(Path::new("/")).to_path_buf();
        let embed = schema.embed.unwrap_or_default();
        let default = schema.default.unwrap_or_default();
        let default_rules = self.rules(&default.rules, &[Step::Key("default")])?;
        self.check_format(&default.texture, &[Step::Key("default")])?;
        let presets = schema.presets.unwrap_or_default().0;
        let processors = processors::build(self, &root, schema.processors)?;
        let packs = packs::build(self, schema.packs)?;
        let input = resolve(&root, schema.input.as_deref(), DEFAULT_INPUT);
        let ids = self.ids(schema.ids, &root, &input)?;
        Ok(Config {
            file: self.file.to_path_buf(),
            input,
            ids,
            output: resolve(&root, schema.output.as_deref(), DEFAULT_OUTPUT),
            pack: schema.pack.unwrap_or(false),
            pack_base: schema.pack_base.as_deref().map(|p| join(&root, p)),
            pack_max_waste: self.max_waste(schema.pack_max_waste)?,
            keep_going: schema.keep_going.unwrap_or(false),
            cache: self.cache(schema.cache, &root)?,
            launcher: schema.launcher,
            remote: schema.remote.unwrap_or_default().with_files_under(&root),
            preset: schema.preset,
            preset_at: self.position(&[Step::Key("preset")]),
            embed_globs: self.globs("embed", &embed)?,
            exclude_globs: self.globs("exclude", &schema.exclude.unwrap_or_default())?,
            embed,
            warnings: Vec::new(),
            default_globals: default.globals(),
            default_rules,
            presets: self.presets(&root, presets)?,
            processors,
            packs,
            root,
        })
    }

    /// `pack_max_waste:`, a fraction from 0 to 1 (default
    /// [`DEFAULT_MAX_WASTE`]); anything else names its line.
    fn max_waste(&self, given: Option<f64>) -> Result<f64, ConfigError> {
        match given {
            None => Ok(DEFAULT_MAX_WASTE),
            Some(value) if (0.0..=1.0).contains(&value) => Ok(value),
            Some(value) => Err(self.invalid(
                &[Step::Key("pack_max_waste")],
                format!("pack_max_waste: {value} is not a fraction from 0 to 1"),
            )),
        }
    }

    /// Resolves the `cache:` section; a bad size names its line.
    fn cache(
        &self,
        section: Option<CacheSection>,
        root: &Path,
    ) -> Result<CacheConfig, ConfigError> {
        let section = section.unwrap_or_default();
        let max_size = section
            .max_size
            .map(|text| {
                text.parse::<ByteSize>()
                    .map_err(|why| self.invalid(&[Step::Key("cache"), Step::Key("max_size")], why))
            })
            .transpose()?;
        Ok(CacheConfig {
            dir: section.dir.map(|dir| root.join(dir)),
            max_size,
        })
    }

    /// Resolves and checks the `ids:` section.
    fn ids(
        &self,
        section: Option<IdsSection>,
        root: &Path,
        input: &Path,
    ) -> Result<IdsConfig, ConfigError> {
        let position = |key: &str| {
            let at = self.position(&[Step::Key("ids"), Step::Key(key)]);
            (at.line, at.column)
        };
        let context = LoadContext {
            file: self.file,
            root,
            input,
            position: &position,
        };
        IdsConfig::load(section, &context)
    }

    /// Compiles the globs of a top-level list (`embed:`, `exclude:`); a bad
    /// one names its line.
    fn globs(&self, key: &'static str, patterns: &[String]) -> Result<Vec<Glob>, ConfigError> {
        patterns
            .iter()
            .enumerate()
            .map(|(index, pattern)| self.glob(pattern, &[Step::Key(key), Step::Index(index)]))
            .collect()
    }

    /// Compiles every preset, keeping file order.
    fn presets(
        &self,
        root: &Path,
        presets: Vec<(String, Option<PresetSection>)>,
    ) -> Result<Vec<Preset>, ConfigError> {
        presets
            .into_iter()
            .map(|(name, section)| {
                let section = section.unwrap_or_default();
                let parent = [Step::Key("presets"), Step::Key(&name)];
                let rules = self.rules(&section.rules, &parent)?;
                self.check_format(&section.texture, &parent)?;
                Ok(Preset {
                    output: section.output.as_deref().map(|p| join(root, p)),
                    pack_base: section.pack_base.as_deref().map(|p| join(root, p)),
                    globals: section.globals(),
                    rules,
                    name,
                })
            })
            .collect()
    }

    /// Compiles the rules of one section; `parent` locates the section.
    fn rules(
        &self,
        rules: &Option<Vec<RuleSection>>,
        parent: &[Step],
    ) -> Result<Vec<Rule>, ConfigError> {
        let rules = rules.as_deref().unwrap_or_default();
        rules
            .iter()
            .enumerate()
            .map(|(index, rule)| {
                let mut steps = parent.to_vec();
                steps.extend([Step::Key("rules"), Step::Index(index)]);
                self.check_format(&rule.texture, &steps)?;
                steps.push(Step::Key("match"));
                Ok(Rule {
                    glob: self.glob(&rule.pattern, &steps)?,
                    settings: rule.settings(),
                })
            })
            .collect()
    }

    /// Refuses a `texture:` section (under `parent`) whose `compress` and
    /// `format` disagree, pointing at its `format`.
    fn check_format(
        &self,
        texture: &Option<TextureLayer>,
        parent: &[Step],
    ) -> Result<(), ConfigError> {
        let Some(why) = texture.as_ref().and_then(TextureLayer::format_conflict) else {
            return Ok(());
        };
        let mut steps = parent.to_vec();
        steps.extend([Step::Key("texture"), Step::Key("format")]);
        Err(self.invalid(&steps, why))
    }
}

/// The typed read of the file; a failure is explained against the schema
/// (`mistakes.rs`) with the help of the position tree, read only then.
fn read_schema(text: &str, file: &Path) -> Result<FileSchema, ConfigError> {
    match yaml::try_read::<FileSchema>(text) {
        Ok(schema) => Ok(schema.unwrap_or_default()),
        Err(failure) => {
            let tree = Node::read(text, file).ok().flatten();
            let shape = Shape::of::<FileSchema>();
            Err(mistakes::explain(failure, tree.as_ref(), &shape).into_error(file))
        }
    }
}

/// `value` (or `fallback`) made absolute against `root`.
fn resolve(root: &Path, value: Option<&Path>, fallback: &str) -> PathBuf {
    join(root, value.unwrap_or(Path::new(fallback)))
}
