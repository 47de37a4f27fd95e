//! The shape of `assetc.yml` as serde structs, exactly as written in the file.
//!
//! These types are the single description of which keys exist: the loader
//! deserializes into them, and the unknown-key check (`keys.rs`) derives its set
//! of known keys from them. Nothing here resolves paths or compiles globs; that
//! happens in `load.rs`. Every section is optional, and an empty section
//! (`default:` with nothing under it) means the same as a missing one.

use std::fmt;
use std::marker::PhantomData;
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, MapAccess, Visitor};

use super::atlas::AtlasName;
use super::globs::GlobList;
use super::ids::IdsSection;
use super::keys::SCALAR_OR_STRUCT;
use super::processors::ProcessorSection;
use super::remote::RemoteSettings;
use super::settings::{
    AtlasLayer, AudioLayer, FontLayer, IblLayer, MeshLayer, SettingsLayer, TextureLayer,
};

/// The whole file.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct FileSchema {
    /// Source folder, relative to the config file's folder.
    pub(crate) input: Option<PathBuf>,
    /// Base output folder, relative to the config file's folder.
    pub(crate) output: Option<PathBuf>,
    /// Also bundle the output into `<output>.hpack`.
    pub(crate) pack: Option<bool>,
    /// The packs already shipped, which new packs are laid out over: a
    /// `.hpack` (the single pack's) or a folder of them.
    pub(crate) pack_base: Option<PathBuf>,
    /// The waste (a fraction of the file) past which a pack laid out over a
    /// base is laid out fresh.
    pub(crate) pack_max_waste: Option<f64>,
    /// Build every asset that can be built, and report the failed ones.
    pub(crate) keep_going: Option<bool>,
    /// Preset used when the command line names none.
    pub(crate) preset: Option<String>,
    /// Globs of sources copied verbatim.
    pub(crate) embed: Option<Vec<String>>,
    /// Globs of files and folders of the input folder that are not sources.
    pub(crate) exclude: Option<Vec<String>>,
    /// Where the generated id files go (`ids.rs`).
    pub(crate) ids: Option<IdsSection>,
    /// The base layer, applied to every build.
    pub(crate) default: Option<DefaultSection>,
    /// Named presets, in file order.
    pub(crate) presets: Option<OrderedMap<Option<PresetSection>>>,
    /// User processors, in file order (`processors.rs`).
    pub(crate) processors: Option<Vec<ProcessorSection>>,
    /// Named packs and their globs, in file order (`packs.rs`).
    pub(crate) packs: Option<OrderedMap<GlobList>>,
    /// Where encode results are shared.
    pub(crate) cache: Option<CacheSection>,
    /// A command put before every encode command (a compiler launcher).
    pub(crate) launcher: Option<String>,
    /// A Remote Execution API server.
    pub(crate) remote: Option<RemoteSettings>,
}

/// The `cache:` section.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CacheSection {
    /// The shared cache folder, relative to the config file's folder.
    pub(crate) dir: Option<PathBuf>,
    /// The folder's size limit, as written (`5G`, `500M`, a byte count).
    pub(crate) max_size: Option<String>,
}

/// The `default:` section: globals plus rules.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct DefaultSection {
    /// Mesh globals.
    pub(crate) mesh: Option<MeshLayer>,
    /// Texture globals.
    pub(crate) texture: Option<TextureLayer>,
    /// Font globals.
    pub(crate) font: Option<FontLayer>,
    /// Sprite-atlas settings (`docs/atlases.md`); in a rule, `atlas: NAME`
    /// packs the matching images into atlas NAME.
    pub(crate) atlas: Option<AtlasSection>,
    /// Sound globals (`docs/audio.md`).
    pub(crate) audio: Option<AudioLayer>,
    /// Image-based-lighting settings (`docs/ibl.md`).
    pub(crate) ibl: Option<IblLayer>,
    /// Per-path rules, applied in file order.
    pub(crate) rules: Option<Vec<RuleSection>>,
}

/// One entry of `presets:`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PresetSection {
    /// Output folder for this preset, replacing the top-level `output`.
    pub(crate) output: Option<PathBuf>,
    /// The shipped packs of this preset, replacing the top-level
    /// `pack_base`.
    pub(crate) pack_base: Option<PathBuf>,
    /// Mesh globals of the preset.
    pub(crate) mesh: Option<MeshLayer>,
    /// Texture globals of the preset.
    pub(crate) texture: Option<TextureLayer>,
    /// Font globals of the preset.
    pub(crate) font: Option<FontLayer>,
    /// Sprite-atlas settings (`docs/atlases.md`); in a rule, `atlas: NAME`
    /// packs the matching images into atlas NAME.
    pub(crate) atlas: Option<AtlasSection>,
    /// Sound globals of the preset (`docs/audio.md`).
    pub(crate) audio: Option<AudioLayer>,
    /// Image-based-lighting settings (`docs/ibl.md`).
    pub(crate) ibl: Option<IblLayer>,
    /// Preset rules; they win over `default.rules`.
    pub(crate) rules: Option<Vec<RuleSection>>,
}

/// One rule: a glob and the settings it applies to matching sources.
#[derive(Debug, Deserialize)]
pub(crate) struct RuleSection {
    /// Glob over the source-relative path.
    #[serde(rename = "match")]
    pub(crate) pattern: String,
    /// Mesh settings for matching sources.
    pub(crate) mesh: Option<MeshLayer>,
    /// Texture settings for matching sources.
    pub(crate) texture: Option<TextureLayer>,
    /// Font settings for matching sources.
    pub(crate) font: Option<FontLayer>,
    /// Sprite-atlas settings (`docs/atlases.md`); in a rule, `atlas: NAME`
    /// packs the matching images into atlas NAME.
    pub(crate) atlas: Option<AtlasSection>,
    /// Sound settings for matching sources (`docs/audio.md`).
    pub(crate) audio: Option<AudioLayer>,
    /// Image-based-lighting settings (`docs/ibl.md`).
    pub(crate) ibl: Option<IblLayer>,
}

impl DefaultSection {
    /// The globals of this section as one settings layer.
    pub(crate) fn globals(&self) -> SettingsLayer {
        SettingsLayer {
            texture: self.texture.clone(),
            mesh: self.mesh.clone(),
            font: self.font.clone(),
            audio: self.audio.clone(),
            ibl: self.ibl.clone(),
            atlas: self.atlas.clone().map(AtlasSection::into_layer),
        }
    }
}

impl PresetSection {
    /// The globals of this preset as one settings layer.
    pub(crate) fn globals(&self) -> SettingsLayer {
        SettingsLayer {
            texture: self.texture.clone(),
            mesh: self.mesh.clone(),
            font: self.font.clone(),
            audio: self.audio.clone(),
            ibl: self.ibl.clone(),
            atlas: self.atlas.clone().map(AtlasSection::into_layer),
        }
    }
}

impl RuleSection {
    /// The settings of this rule as one settings layer.
    pub(crate) fn settings(&self) -> SettingsLayer {
        SettingsLayer {
            texture: self.texture.clone(),
            mesh: self.mesh.clone(),
            font: self.font.clone(),
            audio: self.audio.clone(),
            ibl: self.ibl.clone(),
            atlas: self.atlas.clone().map(AtlasSection::into_layer),
        }
    }
}

/// `atlas:` as written: a mapping of atlas settings, or (shorthand for
/// `{ name: NAME }`) the name alone, which sends the images a rule matches
/// to atlas NAME (`docs/atlases.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AtlasSection(AtlasLayer);

impl AtlasSection {
    /// The settings the section sets.
    pub(crate) fn into_layer(self) -> AtlasLayer {
        self.0
    }
}

impl<'de> Deserialize<'de> for AtlasSection {
    /// A name (a string) or a mapping of settings. The key probe of
    /// `keys.rs` answers the [`SCALAR_OR_STRUCT`] request with `visit_some`,
    /// and so learns the mapping's keys.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(SCALAR_OR_STRUCT, SectionVisitor)
    }
}

/// Reads either form of the section.
struct SectionVisitor;

impl<'de> Visitor<'de> for SectionVisitor {
    type Value = AtlasSection;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an atlas name, or a mapping of atlas settings")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        inner: D,
    ) -> Result<AtlasSection, D::Error> {
        inner.deserialize_any(self)
    }

    fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<AtlasSection, D::Error> {
        AtlasLayer::deserialize(inner).map(AtlasSection)
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<AtlasSection, E> {
        let name = AtlasName::new(name).map_err(E::custom)?;
        Ok(AtlasSection(AtlasLayer {
            name: Some(name),
            ..AtlasLayer::default()
        }))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<AtlasSection, A::Error> {
        AtlasLayer::deserialize(MapAccessDeserializer::new(map)).map(AtlasSection)
    }
}

/// A string-keyed mapping that keeps the order of the file.
///
/// Duplicate keys never reach it: the YAML reader rejects them first.
#[derive(Debug)]
pub(crate) struct OrderedMap<V>(pub(crate) Vec<(String, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OrderedMapVisitor(PhantomData))
    }
}

/// Collects mapping entries in the order they arrive.
struct OrderedMapVisitor<V>(PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for OrderedMapVisitor<V> {
    type Value = OrderedMap<V>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a mapping of names to sections")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = access.next_entry::<String, V>()? {
            entries.push(entry);
        }
        Ok(OrderedMap(entries))
    }
}
