//! The loaded `assetc.yml` as a value: [`Config`] with its resolved `cache:`
//! and `remote:` sections, the compiled rules and presets, and the questions
//! every build asks it (which presets, which packs, which processor).
//! Loading it is `load.rs`; choosing a preset is `select.rs`.

use std::path::PathBuf;

use globset::Glob;

use super::error::ConfigWarning;
use super::ids::IdsConfig;
use super::packs::NamedPack;
use super::processors::Processor;
use super::remote::RemoteSettings;
use super::settings::SettingsLayer;
use super::size::ByteSize;
use super::yaml::Position;

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
    /// Absolute `pack_base:`, the shipped packs new packs are laid out over.
    pub pack_base: Option<PathBuf>,
    /// `pack_max_waste:`, from 0 to 1.
    pub pack_max_waste: f64,
    /// Whether a failed asset lets the rest build (`keep_going:`); the link
    /// then reports the failures and fails the build.
    pub keep_going: bool,
    /// The `cache:` section.
    pub cache: CacheConfig,
    /// `launcher:`, a command put before every encode command.
    pub launcher: Option<String>,
    /// The `remote:` section.
    pub remote: RemoteSettings,
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
    /// Where the value of `preset:` is written (0:0 when it is not).
    pub(crate) preset_at: Position,
}

/// The `cache:` section, resolved.
#[derive(Debug, Clone, Default)]
pub struct CacheConfig {
    /// The shared cache folder (absolute).
    pub dir: Option<PathBuf>,
    /// Its size limit.
    pub max_size: Option<ByteSize>,
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
    /// Its absolute `pack_base:`, if it names its own shipped packs.
    pub(crate) pack_base: Option<PathBuf>,
    /// Its globals (layer 3).
    pub(crate) globals: SettingsLayer,
    /// Its rules in file order (layer 5).
    pub(crate) rules: Vec<Rule>,
}

impl Config {
    /// The names of the presets, in file order.
    pub fn preset_names(&self) -> Vec<&str> {
        self.presets.iter().map(|p| p.name.as_str()).collect()
    }

    /// The names of the named packs the source at `rel` belongs to, in file
    /// order.
    pub fn packs_of(&self, rel: &str) -> Vec<&str> {
        self.packs
            .iter()
            .filter(|p| p.contains(rel))
            .map(|p| p.name.as_str())
            .collect()
    }

    /// The index in [`Config::processors`] of the first processor whose glob
    /// matches the source at `rel`, if any.
    pub fn processor_for(&self, rel: &str) -> Option<usize> {
        self.processors.iter().position(|p| p.matcher.is_match(rel))
    }
}
