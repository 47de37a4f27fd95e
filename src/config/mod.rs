//! The `assetc.yml` model: finding the file, reading it, and answering "which
//! settings apply to this source?" for one build.
//!
//! * [`Config::discover`] / [`Config::load`] read the file. Syntax errors, type
//!   errors (`compress: maybe`), duplicate keys and bad globs stop with
//!   `<file>:<line>:<col>`; unknown keys (typos) become [`ConfigWarning`]s at the
//!   key's own line and column.
//! * [`Config::select`] picks a preset and the output folder for a build.
//! * [`Selection::settings_for`] resolves one source through the layers
//!   (built-in defaults, `default:` globals, preset globals, `default.rules`,
//!   preset rules) and [`Selection::is_embed`] tells embedded files apart.
//! * [`Config::ids`] says where the generated id files go (`ids.rs`).
//! * [`write_starter`] implements `assetc init`.
//! * [`Record`] is what `assetc configure` remembers in its build folder, and
//!   [`Config::configured`] what the other commands look at
//!   (`configured.rs`).
//!
//! One file per concern: `schema.rs` (serde structs of the file), `settings.rs`
//! (resolved settings and their optional layers), `font.rs` (the
//! charset and font mode values), `yaml.rs` (parser options and
//! position tree), `keys.rs` (unknown keys), `mistakes.rs` (type errors
//! explained against the schema), `model.rs` (the loaded
//! [`Config`] and its queries), `load.rs` (loading), `document.rs` (the file
//! being loaded: globs and error positions), `paths.rs` (absolute paths),
//! `select.rs` (presets and layering), `init.rs` (starter file), `error.rs`,
//! `processors.rs` (user processors), `packs.rs` (named packs), `globs.rs`
//! (one-or-many glob values), `atlas.rs` (the `atlas:` section's
//! two forms, the atlas name and the pivot), `ids.rs` (the `ids:` key), `size.rs` (byte
//! sizes such as `5G`), `texture.rs` (the texture mode and name-suffix
//! values).

mod atlas;
mod audio;
mod configured;
mod document;
mod error;
mod font;
mod globs;
mod ids;
mod init;
mod keys;
mod load;
mod mistakes;
mod model;
mod packs;
mod paths;
mod processors;
mod remote;
mod schema;
mod select;
mod settings;
mod size;
mod texture;
mod words;
mod yaml;

#[cfg(test)]
mod readme_keys;
#[cfg(test)]
mod tests;

pub use atlas::{AtlasName, Pivot};
pub use audio::{
    AudioCodec, AudioFormatSetting, AudioPlatformSetting, LoopPoint, LoopSetting, NormalizeSetting,
};
pub use configured::{Configured, Given, POINTER_FILE, RECORD_FILE, Record, default_build_dir};
pub use error::{ConfigError, ConfigWarning, Place};
pub use font::{Charset, FontMode};
pub use ids::{DEFAULT_C_FILE, DEFAULT_RUST_FILE, IdsConfig, IdsFile, IdsPaths};
pub use init::{STARTER_CONFIG, write_starter};
pub use model::{CacheConfig, Config};
pub use packs::NamedPack;
pub use paths::absolute;
pub use processors::{OutputNaming, Processor, required_extension};
pub use remote::RemoteSettings;
pub use select::Selection;
pub use settings::{AtlasExtrude, AtlasPadding, AtlasSettings, AtlasSide};
pub use settings::{
    AudioSettings, Loudness, OpusBitrate, SampleRate, StreamAfter, TruePeak, VorbisQuality,
};
pub use settings::{
    ConeWeight, FontSettings, LodError, LodRatios, MAX_QUALITY, MeshSettings, MeshletTriangles,
    MeshletVertices, MinPsnr, PxPerEm, Rdo, Settings, Spread, TextureSettings, UastcQuality,
    ZstdLevel,
};
pub use settings::{IblSettings, IblSize};
pub use size::ByteSize;
pub use texture::{FormatSetting, HdrFormatSetting, ModeSetting, PlatformSetting, SuffixTable};
pub use words::Toggle;

/// The name of the config file that [`Config::discover`] looks for.
pub const CONFIG_FILE_NAME: &str = "assetc.yml";
