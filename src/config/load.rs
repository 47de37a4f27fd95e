//! Finding and loading `assetc.yml` into a [`Config`]: paths made absolute
//! against the file's folder, globs compiled (a bad one is an error pointing at
//! its line), unknown keys turned into warnings.

use std::fs;
use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobBuilder};

use super::CONFIG_FILE_NAME;
use super::error::{ConfigError, ConfigWarning};
use super::ids::{IdsConfig, IdsSection, LoadContext};
use super::keys::{Shape, unknown_keys};
use super::packs::{self, NamedPack};
use super::processors::{self, Processor};
use super::schema::{CacheSection, FileSchema, PresetSection, RemoteSection, RuleSection};
use super::settings::SettingsLayer;
use super::size::ByteSize;
use super::yaml::{self, Node, NodeKind, Position, Step};

/// Source folder when `input:` is not given.
const DEFAULT_INPUT: &str = "assets";
/// Base output folder when `output:` is not given.
const DEFAULT_OUTPUT: &str = "runtime";

/// A loaded `assetc.yml`: top-level values resolved, layers ready to select.
#[derive(Debug, Clone)]
pub struct Config {
    /// Absolute path of the `assetc.yml` that was read.
    pub file: PathBuf,
    /// The folder holding it; relative paths in the file start here.
    pub root: PathBuf,
    /// Absolute source folder.
    pub input: PathBuf,
    /// Absolute base output folder (a preset or `-o` may replace it).
    pub output: PathBuf,
    /// Whether to also write `<output>.hpack`.
    pub pack: bool,
    /// Whether a failed asset lets the rest build (`keep_going:`); the link
    /// then reports the failures and fails the build.
    pub keep_going: bool,
    /// The `cache:` section.
    pub cache: CacheConfig,
    /// `launcher:`, a command put before every encode command.
    pub launcher: Option<String>,
    /// The `remote:` section.
    pub remote: RemoteConfig,
    /// The preset named by `preset:`, used when the command line names none.
    pub preset: Option<String>,
    /// Globs (as written) of sources copied verbatim.
    pub embed: Vec<String>,
    /// Where the generated id files go.
    pub ids: IdsConfig,
    /// Non-fatal problems found while loading, in file order.
    pub warnings: Vec<ConfigWarning>,
    /// User processors in file order; the first match claims a source.
    pub processors: Vec<Processor>,
    /// Named packs in file order.
    pub packs: Vec<NamedPack>,
    /// Compiled globs of `embed`, in the same order.
    pub(crate) embed_globs: Vec<Glob>,
    /// Compiled `exclude:` globs: files and folders configure does not walk.
    pub(crate) exclude_globs: Vec<Glob>,
    /// Globals of `default:` (layer 2).
    pub(crate) default_globals: SettingsLayer,
    /// `default.rules` in file order (layer 4).
    pub(crate) default_rules: Vec<Rule>,
    /// Presets in file order.
    pub(crate) presets: Vec<Preset>,
}

/// The `cache:` section, resolved.
#[derive(Debug, Clone, Default)]
pub struct CacheConfig {
    /// The shared cache folder (absolute).
    pub dir: Option<PathBuf>,
    /// Its size limit.
    pub max_size: Option<ByteSize>,
}

/// The `remote:` section, with file paths resolved against the config's
/// folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoteConfig {
    /// The server address.
    pub url: Option<String>,
    /// The instance name.
    pub instance: Option<String>,
    /// Whether encodes run on the server's workers.
    pub exec: bool,
    /// Certificate authorities for `grpcs://`.
    pub ca: Option<PathBuf>,
    /// Client certificate.
    pub cert: Option<PathBuf>,
    /// Client key.
    pub key: Option<PathBuf>,
}

impl RemoteConfig {
    fn resolve(section: RemoteSection, root: &Path) -> Self {
        Self {
            url: section.url,
            instance: section.instance,
            exec: section.exec.unwrap_or(false),
            ca: section.ca.map(|p| root.join(p)),
            cert: section.cert.map(|p| root.join(p)),
            key: section.key.map(|p| root.join(p)),
        }
    }
}

/// One compiled rule: its glob and the settings it applies.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    /// The compiled `match:` glob.
    pub(crate) glob: Glob,
    /// What the rule sets.
    pub(crate) settings: SettingsLayer,
}

/// One preset, ready to be selected.
#[derive(Debug, Clone)]
pub(crate) struct Preset {
    /// Its name under `presets:`.
    pub(crate) name: String,
    /// Its absolute output folder, if it redirects the output.
    pub(crate) output: Option<PathBuf>,
    /// Its globals (layer 3).
    pub(crate) globals: SettingsLayer,
    /// Its rules in file order (layer 5).
    pub(crate) rules: Vec<Rule>,
}

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
        let schema = yaml::read::<FileSchema>(&text, &file)?.unwrap_or_default();
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

    /// The names of the presets, in file order.
    pub fn preset_names(&self) -> Vec<&str> {
        self.presets.iter().map(|p| p.name.as_str()).collect()
    }
}

/// The file being loaded and the position tree of its text.
pub(super) struct Document<'a> {
    /// Absolute path of the file.
    file: &'a Path,
    /// Positions of its keys and values; `None` for an empty document.
    tree: Option<&'a Node>,
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
            keep_going: schema.keep_going.unwrap_or(false),
            cache: self.cache(schema.cache, &root)?,
            launcher: schema.launcher,
            remote: RemoteConfig::resolve(schema.remote.unwrap_or_default(), &root),
            preset: schema.preset,
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
                Ok(Preset {
                    output: section.output.as_deref().map(|p| join(root, p)),
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
                steps.extend([Step::Key("rules"), Step::Index(index), Step::Key("match")]);
                Ok(Rule {
                    glob: self.glob(&rule.pattern, &steps)?,
                    settings: rule.settings(),
                })
            })
            .collect()
    }

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
pub(crate) fn compile_glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern).literal_separator(false).build()
}

/// `value` (or `fallback`) made absolute against `root`.
fn resolve(root: &Path, value: Option<&Path>, fallback: &str) -> PathBuf {
    join(root, value.unwrap_or(Path::new(fallback)))
}

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
/// lexically, as every path in a [`Config`] is.
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
