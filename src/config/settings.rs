//! Per-asset settings: the resolved values an encoder reads, and the partial
//! layers (`default:`, a preset, a rule) that are overlaid to produce them.
//!
//! Each settings group is declared once with [`settings_group!`]: one line per
//! knob gives its name, type, built-in default and documentation. The macro
//! writes both the resolved struct (every field set) and the layer struct (every
//! field optional, read from YAML), plus the overlay between them, so adding a
//! knob never means touching more than that one line.

use serde::Deserialize;

use super::atlas::{AtlasName, Pivot};
use super::audio::{
    AudioFormatSetting, AudioPlatformSetting, LoopPoint, LoopSetting, NormalizeSetting,
};
use super::font::{Charset, FontMode};
use super::texture::{FormatSetting, HdrFormatSetting, ModeSetting, PlatformSetting, SuffixTable};
use super::words::Toggle;

/// Declares a resolved settings group, its optional layer twin and the overlay.
///
/// `layer.apply_to(&mut resolved)` copies every field the layer sets and leaves
/// the others alone; this is the whole layering rule. A group may name an
/// `after_apply` function that then settles fields which depend on each other.
macro_rules! settings_group {
    (
        $(#[$resolved_doc:meta])*
        resolved $resolved:ident;
        $(#[$layer_doc:meta])*
        layer $layer:ident;
        $(after_apply $after:ident;)?
        {
            $(
                $(#[$field_doc:meta])*
                $field:ident : $ty:ty = $default:expr
            ),* $(,)?
        }
    ) => {
        $(#[$resolved_doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $resolved {
            $( $(#[$field_doc])* pub $field: $ty, )*
        }

        impl Default for $resolved {
            /// The built-in defaults: the bottom layer of every resolution.
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        $(#[$layer_doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
        pub(crate) struct $layer {
            $( $(#[$field_doc])* pub(crate) $field: Option<$ty>, )*
        }

        impl $layer {
            /// Overwrites the fields of `target` that this layer sets.
            pub(crate) fn apply_to(&self, target: &mut $resolved) {
                $(
                    if let Some(value) = &self.$field {
                        target.$field = value.clone();
                    }
                )*
                $( $after(self, target); )?
            }
        }
    };
}

settings_group! {
    /// Resolved texture settings for one source.
    resolved TextureSettings;
    /// Texture settings as one layer of `assetc.yml` states them.
    layer TextureLayer;
    after_apply settle_format;
    {
        /// `true` encodes UASTC; `false` writes raw RGBA8 with lossless Zstd,
        /// pixel-exact. Shorthand for `format: uastc` / `format: rgba8`; the
        /// resolved value says whether `format` is a compressed one.
        compress: bool = true,
        /// The GPU format written: `uastc`, `bc7`, `astc-6x6`, `rgba8`,
        /// `auto` … (see [`FormatSetting`]).
        format: FormatSetting = FormatSetting::Uastc,
        /// Which GPUs `format: auto` chooses native formats for.
        platform: PlatformSetting = PlatformSetting::Desktop,
        /// Encoder effort, 0 (fastest) to 4 (slowest, best): the UASTC level,
        /// or the BCn and ASTC encoders' preset of the same rank.
        quality: UastcQuality = UastcQuality(2),
        /// UASTC rate-distortion optimisation: `off` or a lambda.
        rdo: Rdo = Rdo(None),
        /// Zstandard level of every mip level, 1 to 22; 0 stores levels as is.
        zstd_level: ZstdLevel = ZstdLevel(12),
        /// `true` writes the full mip chain; `false` the base level only.
        mips: bool = true,
        /// Halve the source until neither side exceeds this; 0 means no limit.
        max_size: u32 = 0,
        /// How the texels are read: `auto` lets the file's name decide (the
        /// suffix tables); `color`, `normal`, `normal_dx`, `gray` or `linear`
        /// forces that mode on every source the layer applies to.
        mode: ModeSetting = ModeSetting::Auto,
        /// Name suffixes and their modes, added to the built-in table (an
        /// entry here wins over a built-in one with the same suffix).
        suffixes: SuffixTable = SuffixTable::default(),
        /// Whether the built-in table of painting-tool suffixes (`_normal`,
        /// `_ao`, `_roughness` …) applies; assetc's own `.n`, `.ao`, `.h`
        /// and `.r` always do.
        builtin_suffixes: bool = true,
        /// The larger side, in pixels, SVG sources are rasterised at; 0
        /// keeps each file's own size.
        svg_size: u32 = 0,
        /// The texel format of float sources (`.hdr`, `.exr`, float TIFF):
        /// `rgba16f` or `rgb9e5`.
        hdr_format: HdrFormatSetting = HdrFormatSetting::Rgba16f,
        /// The quality floor of colour and linear textures in dB: a lossy
        /// encode whose level 0 reads back below it steps up to a finer
        /// format (`docs/textures.md`); `off` keeps whatever the format gives.
        min_psnr: MinPsnr = MinPsnr(Some(40.0)),
        /// Whether a colour image is pixel art, kept lossless, without mips
        /// and with a nearest-filter hint: `auto` decides from the image and
        /// its folder names.
        pixel_art: Toggle = Toggle::Auto,
    }
}

/// Keeps `compress` and `format` in step after `layer` is applied: a layer
/// that sets `compress` alone selects `uastc` or `rgba8`; one that sets
/// `format` decides `compress` (whether the format is a compressed one). A
/// layer setting both is checked by [`TextureLayer::format_conflict`] when
/// the file is loaded, and then `format` wins.
fn settle_format(layer: &TextureLayer, target: &mut TextureSettings) {
    match (layer.format, layer.compress) {
        (Some(format), _) => target.compress = !format.is_raw(),
        (None, Some(compress)) => target.format = FormatSetting::from_compress(compress),
        (None, None) => {}
    }
}

impl TextureLayer {
    /// Why this layer's `compress` and `format` disagree, if they do:
    /// `compress: true` with a raw format, or `compress: false` with a
    /// compressed one.
    pub(crate) fn format_conflict(&self) -> Option<String> {
        let (format, compress) = (self.format?, self.compress?);
        (format.is_raw() == compress).then(|| {
            format!(
                "`compress: {compress}` and `format: {format}` disagree; \
                 `compress` is shorthand for `format: uastc` (true) or `format: rgba8` (false), \
                 so keep only `format`"
            )
        })
    }
}

/// The highest UASTC quality level (`basisu -uastc_level 4`, "very slow").
pub const MAX_QUALITY: u8 = 4;

/// A UASTC quality level, 0 to [`MAX_QUALITY`], checked when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "u8")]
pub struct UastcQuality(pub u8);

impl TryFrom<u8> for UastcQuality {
    type Error = String;

    fn try_from(level: u8) -> Result<Self, String> {
        if level <= MAX_QUALITY {
            Ok(Self(level))
        } else {
            Err(format!("quality must be 0 to {MAX_QUALITY}, not {level}"))
        }
    }
}

impl std::str::FromStr for UastcQuality {
    type Err = String;

    /// Reads the `--quality` flag, with the same check as `assetc.yml`.
    fn from_str(text: &str) -> Result<Self, String> {
        let level: u8 = text
            .parse()
            .map_err(|_| format!("quality must be 0 to {MAX_QUALITY}, not {text:?}"))?;
        level.try_into()
    }
}

impl std::fmt::Display for UastcQuality {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A Zstandard level, 0 (no supercompression) to 22, checked when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "i64")]
pub struct ZstdLevel(pub i32);

impl TryFrom<i64> for ZstdLevel {
    type Error = String;

    fn try_from(level: i64) -> Result<Self, String> {
        match i32::try_from(level) {
            Ok(level @ 0..=22) => Ok(Self(level)),
            _ => Err(format!("zstd_level must be 0 to 22, not {level}")),
        }
    }
}

impl std::str::FromStr for ZstdLevel {
    type Err = String;

    /// Reads the `--zstd-level` flag, with the same check as `assetc.yml`.
    fn from_str(text: &str) -> Result<Self, String> {
        let level: i64 = text
            .parse()
            .map_err(|_| format!("zstd_level must be 0 to 22, not {text:?}"))?;
        level.try_into()
    }
}

impl std::fmt::Display for ZstdLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The UASTC RDO setting: off, or the lambda to run it with (finite, above 0).
///
/// In `assetc.yml` it is `off` or a number; on the encoder's command line it is
/// the same text, which [`Rdo`]'s `Display` and `FromStr` round-trip exactly.
#[derive(Debug, Clone, Copy)]
pub struct Rdo(pub Option<f32>);

impl OffOrNumber for Rdo {
    const EXPECTING: &'static str = "`off` or a number above 0";
    const OFF: Self = Self(None);

    /// The lambda as an `Rdo`, if it is finite and above 0.
    fn number(value: f64) -> Result<Self, String> {
        let lambda = value as f32;
        if lambda.is_finite() && lambda > 0.0 {
            Ok(Self(Some(lambda)))
        } else {
            Err(format!("rdo must be {}, not {value}", Self::EXPECTING))
        }
    }
}

/// A setting written as `off` or as a number ([`Rdo`], [`Loudness`]); in
/// `assetc.yml` and on the encoder's command line alike, which the type's
/// `Display` and `FromStr` round-trip exactly.
trait OffOrNumber: Sized {
    /// What the setting takes, for messages.
    const EXPECTING: &'static str;
    /// The setting turned off.
    const OFF: Self;
    /// The setting at `value`, or why that value is refused.
    fn number(value: f64) -> Result<Self, String>;
}

/// Equality by bits, `Display` (`off` or the number), `FromStr` and
/// `Deserialize` for an [`OffOrNumber`] newtype of an `Option` of a number; `$key`
/// names the setting in messages.
macro_rules! off_or_number_impls {
    ($name:ident, $key:literal) => {
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.0.map(ExactBits::exact_bits) == other.0.map(ExactBits::exact_bits)
            }
        }

        impl Eq for $name {}

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.0 {
                    None => f.write_str("off"),
                    Some(value) => write!(f, "{value}"),
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<Self, String> {
                parse_off_or_number(text, $key)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_any(OffOrNumberVisitor(std::marker::PhantomData))
            }
        }
    };
}

/// A number's bits, so that settings compare exactly (a float by its bits,
/// which also makes them `Eq`).
trait ExactBits {
    /// The number's bits.
    fn exact_bits(self) -> u64;
}

impl ExactBits for f32 {
    fn exact_bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl ExactBits for u32 {
    fn exact_bits(self) -> u64 {
        u64::from(self)
    }
}

/// `texture.min_psnr`: off, or the floor in dB (above 0, at most 100).
///
/// In `assetc.yml` it is `off` or a number; on the encoder's command line it
/// is the same text, which `Display` and `FromStr` round-trip exactly.
#[derive(Debug, Clone, Copy)]
pub struct MinPsnr(pub Option<f32>);

impl OffOrNumber for MinPsnr {
    const EXPECTING: &'static str = "`off` or a number of dB above 0 and at most 100";
    const OFF: Self = Self(None);

    /// The floor as a `MinPsnr`, if it is above 0 and at most 100.
    fn number(value: f64) -> Result<Self, String> {
        let floor = value as f32;
        if floor > 0.0 && floor <= 100.0 {
            Ok(Self(Some(floor)))
        } else {
            Err(format!("min_psnr must be {}, not {value}", Self::EXPECTING))
        }
    }
}

off_or_number_impls!(Rdo, "rdo");
off_or_number_impls!(MinPsnr, "min_psnr");
off_or_number_impls!(Loudness, "loudness");

/// Reads `off` or a number as `T`; `key` names the setting in messages.
fn parse_off_or_number<T: OffOrNumber>(text: &str, key: &str) -> Result<T, String> {
    if text == "off" {
        return Ok(T::OFF);
    }
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{key} must be {}, not {text:?}", T::EXPECTING))?;
    T::number(value)
}

/// Reads `off`, a number, or nothing (also off) as an [`OffOrNumber`].
struct OffOrNumberVisitor<T>(std::marker::PhantomData<T>);

impl<T: OffOrNumber + std::str::FromStr<Err = String>> serde::de::Visitor<'_>
    for OffOrNumberVisitor<T>
{
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<T, E> {
        Ok(T::OFF)
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
        text.parse().map_err(E::custom)
    }

    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<T, E> {
        T::number(value).map_err(E::custom)
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<T, E> {
        self.visit_f64(value as f64)
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<T, E> {
        self.visit_f64(value as f64)
    }
}

/// `audio.loudness`: `off`, or the integrated loudness (EBU R128, LUFS) to
/// bring each sound to, -70 to 0.
#[derive(Debug, Clone, Copy)]
pub struct Loudness(pub Option<f32>);

impl OffOrNumber for Loudness {
    const EXPECTING: &'static str = "`off` or a loudness in LUFS, -70 to 0";
    const OFF: Self = Self(None);

    fn number(value: f64) -> Result<Self, String> {
        if (-70.0..=0.0).contains(&value) {
            Ok(Self(Some(value as f32)))
        } else {
            Err(format!("loudness must be {}, not {value}", Self::EXPECTING))
        }
    }
}

settings_group! {
    /// Resolved mesh settings for one source.
    resolved MeshSettings;
    /// Mesh settings as one layer of `assetc.yml` states them.
    layer MeshLayer;
    {
        /// `true` bakes glTF node transforms into one world-space mesh; `false`
        /// keeps geometry in its source-local space.
        merge: bool = true,
        /// Whether meshlets (`MLET`, `MLVR`, `MLTR`, `MLBN`) are built; an
        /// engine without mesh shaders or cluster culling can skip them.
        meshlets: bool = true,
        /// Most vertices in one meshlet, 3 to 256.
        meshlet_vertices: MeshletVertices = MeshletVertices(64),
        /// Most triangles in one meshlet, 1 to 512.
        meshlet_triangles: MeshletTriangles = MeshletTriangles(124),
        /// How much meshlet building favours tight normal cones over compact
        /// clusters, 0 to 1.
        cone_weight: ConeWeight = ConeWeight(0.25),
        /// The reduced levels of detail, as fractions of the full triangle
        /// count, each below 1 and below the one before; empty for none.
        lods: LodRatios = LodRatios(vec![0.5, 0.25]),
        /// The simplifier's error budget, relative to the mesh's size, 0 to 1.
        lod_error: LodError = LodError(0.05),
    }
}

/// Declares a number type that checks its range wherever it is read: in
/// `assetc.yml` (through serde) and on the encoder's command line (through
/// `FromStr`), with one message naming the key. Values pass through `f64`,
/// which holds every `u32` and `f32` exactly; integer types also refuse
/// fractions.
///
/// Deserialisation asks for "any" value and reads a unit as the minimum: a
/// YAML `~` never reaches it (the layer fields are `Option`s, which take the
/// null), but the key probe of `keys.rs` offers a unit, and must not fail.
macro_rules! ranged_number {
    ($(#[$doc:meta])* $name:ident($ty:ty, whole: $whole:literal), $key:literal, $min:literal ..= $max:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $name(pub $ty);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = deserializer.deserialize_any(NumberVisitor { min: $min as f64 })?;
                Self::try_from(value).map_err(serde::de::Error::custom)
            }
        }

        impl TryFrom<f64> for $name {
            type Error = String;

            fn try_from(value: f64) -> Result<Self, String> {
                let fits = value >= $min as f64 && value <= $max as f64;
                let whole = !$whole || value.fract() == 0.0;
                if fits && whole {
                    Ok(Self(value as $ty))
                } else {
                    Err(format!("{} must be {} to {}, not {value}", $key, $min, $max))
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<Self, String> {
                let value: f64 = text
                    .parse()
                    .map_err(|_| format!("{} must be {} to {}, not {text:?}", $key, $min, $max))?;
                value.try_into()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                (self.0 as f64).to_bits() == (other.0 as f64).to_bits()
            }
        }

        impl Eq for $name {}
    };
}

ranged_number!(
    /// The meshlet vertex limit, 3 to 256 (meshlet triangles store 8-bit
    /// local indices).
    MeshletVertices(u32, whole: true), "meshlet_vertices", 3 ..= 256
);
ranged_number!(
    /// The meshlet triangle limit, 1 to 512.
    MeshletTriangles(u32, whole: true), "meshlet_triangles", 1 ..= 512
);
ranged_number!(
    /// The meshlet cone weight, 0 to 1.
    ConeWeight(f32, whole: false), "cone_weight", 0 ..= 1
);
ranged_number!(
    /// The simplifier's relative error budget, 0 to 1.
    LodError(f32, whole: false), "lod_error", 0 ..= 1
);

settings_group! {
    /// Resolved sound settings for one source (`docs/audio.md`).
    resolved AudioSettings;
    /// Sound settings as one layer of `assetc.yml` states them.
    layer AudioLayer;
    {
        /// Downmix to one channel (for positional sounds).
        mono: bool = false,
        /// The integrated loudness to reach, or `off`.
        loudness: Loudness = Loudness(Some(-16.0)),
        /// The true-peak ceiling (dBTP) the loudness gain never passes.
        true_peak: TruePeak = TruePeak(-1.0),
        /// What the gain aims at: `loudness` (the target, under the
        /// ceiling) or `peak` (the true peak at the ceiling).
        normalize: NormalizeSetting = NormalizeSetting::Loudness,
        /// Cut leading and trailing silence below -50 dBFS.
        trim: bool = false,
        /// The file written: `pcm16`, `qoa`, `vorbis`, `opus`, or `auto`
        /// (by `platform` and `stream_after`).
        format: AudioFormatSetting = AudioFormatSetting::Auto,
        /// What `format: auto` writes for: `desktop`, `mobile`, or `auto`
        /// (the same as `texture.platform`).
        platform: AudioPlatformSetting = AudioPlatformSetting::Auto,
        /// Seconds from which `format: auto` streams a sound (Vorbis or
        /// Opus) instead of keeping it in memory (PCM or QOA).
        stream_after: StreamAfter = StreamAfter(10.0),
        /// The sample rate to resample to, or `off` to keep the source's.
        rate: SampleRate = SampleRate(None),
        /// Vorbis quality on the oggenc scale, -2 to 10.
        vorbis_quality: VorbisQuality = VorbisQuality(5.0),
        /// Opus bit rate per channel, in kbit/s.
        opus_bitrate: OpusBitrate = OpusBitrate(64),
        /// The loop: `auto` (the source's), `true` (from `loop_start` to
        /// `loop_end`) or `false` (none).
        r#loop: LoopSetting = LoopSetting::Auto,
        /// Where a `loop: true` loop starts, in the source's frames or
        /// seconds.
        loop_start: LoopPoint = LoopPoint::Frame(0),
        /// Where a `loop: true` loop ends (exclusive), or `end`.
        loop_end: LoopPoint = LoopPoint::End,
    }
}

ranged_number!(
    /// `audio.stream_after`, in seconds, 0 to 86,400.
    StreamAfter(f32, whole: false), "stream_after", 0 ..= 86400
);
ranged_number!(
    /// `audio.vorbis_quality`, on the oggenc scale: -2 to 10.
    VorbisQuality(f32, whole: false), "vorbis_quality", -2 ..= 10
);
ranged_number!(
    /// `audio.opus_bitrate`, kbit/s per channel: 6 to 256.
    OpusBitrate(u32, whole: true), "opus_bitrate", 6 ..= 256
);

/// `audio.rate`: `off`, or the sample rate in Hz (8,000 to 192,000) every
/// sound is resampled to.
#[derive(Debug, Clone, Copy)]
pub struct SampleRate(pub Option<u32>);

impl OffOrNumber for SampleRate {
    const EXPECTING: &'static str = "`off` or a sample rate in Hz, 8000 to 192000";
    const OFF: Self = Self(None);

    fn number(value: f64) -> Result<Self, String> {
        if (8000.0..=192_000.0).contains(&value) && value.fract() == 0.0 {
            Ok(Self(Some(value as u32)))
        } else {
            Err(format!("rate must be {}, not {value}", Self::EXPECTING))
        }
    }
}

off_or_number_impls!(SampleRate, "rate");

ranged_number!(
    /// The true-peak ceiling in dBTP, -20 to 0.
    TruePeak(f32, whole: false), "true_peak", -20 ..= 0
);

settings_group! {
    /// Resolved font settings for one source.
    resolved FontSettings;
    /// Font settings as one layer of `assetc.yml` states them.
    layer FontLayer;
    {
        /// The codepoints to compile (those the font lacks are skipped).
        charset: Charset = Charset::default(),
        /// Atlas texels per em: the size glyphs are rasterised at.
        px_per_em: PxPerEm = PxPerEm(48),
        /// How far, in atlas texels, the distance field reaches on each side
        /// of an outline.
        spread: Spread = Spread(6),
        /// `sdf` (one channel) or `msdf` (multi-channel, sharp corners).
        mode: FontMode = FontMode::Sdf,
    }
}

ranged_number!(
    /// Atlas texels per em, 8 to 512.
    PxPerEm(u32, whole: true), "px_per_em", 8 ..= 512
);
ranged_number!(
    /// The distance-field spread in atlas texels on each side of an outline,
    /// 1 to 64.
    Spread(u32, whole: true), "spread", 1 ..= 64
);

settings_group! {
    /// Resolved image-based-lighting settings for one source
    /// (`docs/ibl.md`).
    resolved IblSettings;
    /// Image-based-lighting settings as one layer of `assetc.yml` states them.
    layer IblLayer;
    {
        /// `true` makes a matching `.hdr` or `.exr` panorama, or `*.env/`
        /// cube folder, an environment compiled to an IBL set (a
        /// `*.ibl.hdr`, `*.ibl.exr` or `*.ibl.env/` name always is one).
        panorama: bool = false,
        /// Face size of the radiance and specular cubes, a power of two from
        /// 16 to 4096.
        size: IblSize = IblSize(256),
        /// `true` also writes the diffuse irradiance as a small cube
        /// (`<name>.irradiance.ktx2`); the spherical harmonics are always
        /// written.
        irradiance: bool = false,
        /// The texel format of the cubes, as `texture.hdr_format` names
        /// them (`auto`: BC6H on desktop, ASTC HDR 6x6 on mobile).
        format: HdrFormatSetting = HdrFormatSetting::Rgba16f,
    }
}

/// The smallest IBL cube face size.
pub const MIN_IBL_SIZE: u32 = 16;

/// The largest IBL cube face size (six 4096² faces of RGBA16F are 768 MiB
/// before their mips).
pub const MAX_IBL_SIZE: u32 = 4096;

/// An IBL cube face size: a power of two from 16 to 4096 (`MIN_IBL_SIZE`,
/// `MAX_IBL_SIZE`), checked when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IblSize(pub u32);

impl TryFrom<f64> for IblSize {
    type Error = String;

    fn try_from(value: f64) -> Result<Self, String> {
        let whole = value.fract() == 0.0 && (0.0..=f64::from(MAX_IBL_SIZE)).contains(&value);
        if whole && (value as u32).is_power_of_two() && value as u32 >= MIN_IBL_SIZE {
            Ok(Self(value as u32))
        } else {
            Err(format!(
                "size must be a power of two from {MIN_IBL_SIZE} to {MAX_IBL_SIZE}, not {value}"
            ))
        }
    }
}

impl<'de> Deserialize<'de> for IblSize {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = deserializer.deserialize_any(NumberVisitor {
            min: f64::from(MIN_IBL_SIZE),
        })?;
        Self::try_from(value).map_err(serde::de::Error::custom)
    }
}

impl std::str::FromStr for IblSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let value: f64 = text.parse().map_err(|_| {
            format!(
                "size must be a power of two from {MIN_IBL_SIZE} to {MAX_IBL_SIZE}, not {text:?}"
            )
        })?;
        value.try_into()
    }
}

impl std::fmt::Display for IblSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Reads a YAML number as `f64`; a unit (only the key probe sends one) reads
/// as `min`.
struct NumberVisitor {
    min: f64,
}

impl serde::de::Visitor<'_> for NumberVisitor {
    type Value = f64;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a number")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<f64, E> {
        Ok(self.min)
    }

    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<f64, E> {
        Ok(value)
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<f64, E> {
        Ok(value as f64)
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<f64, E> {
        Ok(value as f64)
    }
}

/// The reduced LOD ratios: each above 0 and below the one before (the first
/// below 1). On the command line they are comma-separated, or `none`.
#[derive(Debug, Clone)]
pub struct LodRatios(pub Vec<f32>);

impl<'de> Deserialize<'de> for LodRatios {
    /// Reads a YAML list of numbers; a unit (the key probe's offer) is empty.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let values = deserializer.deserialize_any(RatioListVisitor)?;
        Self::try_from(values).map_err(serde::de::Error::custom)
    }
}

/// Reads a YAML list of numbers as `f64`s.
struct RatioListVisitor;

impl<'de> serde::de::Visitor<'de> for RatioListVisitor {
    type Value = Vec<f64>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list of fractions, such as [0.5, 0.25]")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<f64>, E> {
        Ok(Vec::new())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f64>, A::Error> {
        let mut values = Vec::new();
        while let Some(value) = seq.next_element::<f64>()? {
            values.push(value);
        }
        Ok(values)
    }
}

impl TryFrom<Vec<f64>> for LodRatios {
    type Error = String;

    fn try_from(values: Vec<f64>) -> Result<Self, String> {
        let mut previous = 1.0;
        for &ratio in &values {
            if !(ratio > 0.0 && ratio < previous) {
                return Err(format!(
                    "lods must be fractions of the triangle count, each above 0 and below \
                     the one before (the first below 1); {ratio} is not"
                ));
            }
            previous = ratio;
        }
        Ok(Self(values.into_iter().map(|v| v as f32).collect()))
    }
}

impl std::str::FromStr for LodRatios {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text == "none" {
            return Ok(Self(Vec::new()));
        }
        let values = text
            .split(',')
            .map(|part| {
                part.parse::<f64>().map_err(|_| {
                    format!("lods must be `none` or numbers joined by `,`, not {text:?}")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        values.try_into()
    }
}

impl std::fmt::Display for LodRatios {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        let parts: Vec<String> = self.0.iter().map(f32::to_string).collect();
        f.write_str(&parts.join(","))
    }
}

impl PartialEq for LodRatios {
    fn eq(&self, other: &Self) -> bool {
        let bits = |ratios: &Self| ratios.0.iter().map(|r| r.to_bits()).collect::<Vec<_>>();
        bits(self) == bits(other)
    }
}

impl Eq for LodRatios {}

settings_group! {
    /// Resolved sprite-atlas settings for one source (`docs/atlases.md`).
    resolved AtlasSettings;
    /// Sprite-atlas settings as one layer of `assetc.yml` states them (a
    /// rule's `atlas: NAME` sets `name` alone; see [`super::atlas`]).
    layer AtlasLayer;
    {
        /// Put matching images into the atlas of this name instead of
        /// encoding each as a texture; empty: no atlas.
        name: AtlasName = AtlasName::default(),
        /// The largest page side, in texels.
        max_size: AtlasSide = AtlasSide(2048),
        /// Texels left empty between two sprites.
        padding: AtlasPadding = AtlasPadding(2),
        /// Texels of each sprite's edge repeated around it, against bleeding.
        extrude: AtlasExtrude = AtlasExtrude(1),
        /// Crop the fully transparent borders of each sprite.
        trim: bool = true,
        /// Let the packer store a sprite turned 90° clockwise.
        rotate: bool = false,
        /// Where each sprite's pivot sits, in the untrimmed sprite's
        /// normalised coordinates (`[0.5, 0.5]` is its centre).
        pivot: Pivot = Pivot([0.5, 0.5]),
    }
}

ranged_number!(
    /// `atlas.max_size`: the largest page side, 4 to 16384 texels.
    AtlasSide(u32, whole: true), "max_size", 4 ..= 16384
);
ranged_number!(
    /// `atlas.padding`: empty texels between sprites, 0 to 256.
    AtlasPadding(u32, whole: true), "padding", 0 ..= 256
);
ranged_number!(
    /// `atlas.extrude`: edge texels repeated around each sprite, 0 to 64.
    AtlasExtrude(u32, whole: true), "extrude", 0 ..= 64
);

/// Every setting that applies to one source file, fully resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Settings read by the texture encoders.
    pub texture: TextureSettings,
    /// Settings read by the mesh encoder.
    pub mesh: MeshSettings,
    /// Settings read by the font encoder.
    pub font: FontSettings,
    /// Settings read by the image-based-lighting encoder.
    pub ibl: IblSettings,
    /// Settings read by the audio encoder.
    pub audio: AudioSettings,
    /// Sprite-atlas settings.
    pub atlas: AtlasSettings,
}

/// One layer of settings: the groups a `default:`, preset or rule section sets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SettingsLayer {
    /// Texture fields this layer sets, if any.
    pub(crate) texture: Option<TextureLayer>,
    /// Mesh fields this layer sets, if any.
    pub(crate) mesh: Option<MeshLayer>,
    /// Font fields this layer sets, if any.
    pub(crate) font: Option<FontLayer>,
    /// Image-based-lighting fields this layer sets, if any.
    pub(crate) ibl: Option<IblLayer>,
    /// Sound fields this layer sets, if any.
    pub(crate) audio: Option<AudioLayer>,
    /// Sprite-atlas fields this layer sets, if any.
    pub(crate) atlas: Option<AtlasLayer>,
}

impl SettingsLayer {
    /// Overwrites the fields of `target` that this layer sets.
    pub(crate) fn apply_to(&self, target: &mut Settings) {
        if let Some(texture) = &self.texture {
            texture.apply_to(&mut target.texture);
        }
        if let Some(mesh) = &self.mesh {
            mesh.apply_to(&mut target.mesh);
        }
        if let Some(font) = &self.font {
            font.apply_to(&mut target.font);
        }
        if let Some(audio) = &self.audio {
            audio.apply_to(&mut target.audio);
        }
        if let Some(ibl) = &self.ibl {
            ibl.apply_to(&mut target.ibl);
        }
        if let Some(atlas) = &self.atlas {
            atlas.apply_to(&mut target.atlas);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_overrides_only_the_fields_it_sets() {
        let mut settings = Settings::default();
        let layer = SettingsLayer {
            texture: Some(TextureLayer {
                compress: Some(false),
                ..TextureLayer::default()
            }),
            mesh: Some(MeshLayer::default()),
            font: Some(FontLayer {
                spread: Some(Spread(4)),
                ..FontLayer::default()
            }),
            ibl: None,
            audio: Some(AudioLayer {
                loudness: Some(Loudness(None)),
                ..AudioLayer::default()
            }),
            atlas: Some(AtlasLayer {
                padding: Some(AtlasPadding(0)),
                ..AtlasLayer::default()
            }),
        };
        layer.apply_to(&mut settings);
        assert_eq!(settings.audio.loudness, Loudness(None));
        assert_eq!(settings.audio.true_peak, TruePeak(-1.0));
        assert!(!settings.texture.compress);
        assert_eq!(settings.texture.quality, UastcQuality(2));
        assert!(settings.mesh.merge);
        assert_eq!(settings.font.spread, Spread(4));
        assert_eq!(settings.font.px_per_em, PxPerEm(48));
        assert_eq!(settings.atlas.padding, AtlasPadding(0));
        assert_eq!(settings.atlas.extrude, AtlasExtrude(1));
    }

    #[test]
    fn loudness_text_round_trips_and_refuses_what_is_out_of_range() {
        for text in ["off", "-16", "-23.5", "0", "-70"] {
            assert_eq!(text.parse::<Loudness>().unwrap().to_string(), text);
        }
        for bad in ["-71", "3", "loud", ""] {
            let error = bad.parse::<Loudness>().unwrap_err();
            assert!(
                error.contains("`off` or a loudness in LUFS, -70 to 0"),
                "{error}"
            );
        }
    }

    #[test]
    fn rdo_text_round_trips() {
        for text in ["off", "0.5", "1", "2.25", "4"] {
            let rdo: Rdo = text.parse().unwrap();
            assert_eq!(rdo.to_string(), text);
        }
        for bad in ["on", "0", "-1", "nan", "inf", ""] {
            assert!(bad.parse::<Rdo>().is_err(), "{bad}");
        }
    }

    #[test]
    fn lod_ratios_round_trip_and_must_decrease() {
        for text in ["none", "0.5", "0.5,0.25", "0.75,0.5,0.125"] {
            let ratios: LodRatios = text.parse().unwrap();
            assert_eq!(ratios.to_string(), text);
        }
        for bad in [
            "", "1", "0.5,0.5", "0.25,0.5", "0", "-0.5", "0.5;0.25", "nan",
        ] {
            assert!(bad.parse::<LodRatios>().is_err(), "{bad}");
        }
    }

    #[test]
    fn levels_are_range_checked() {
        assert!(UastcQuality::try_from(4).is_ok());
        assert!(UastcQuality::try_from(5).is_err());
        assert!(ZstdLevel::try_from(0).is_ok());
        assert!(ZstdLevel::try_from(22).is_ok());
        assert!(ZstdLevel::try_from(23).is_err());
        assert!(ZstdLevel::try_from(-1).is_err());
        assert_eq!("256".parse(), Ok(MeshletVertices(256)));
        assert!("257".parse::<MeshletVertices>().is_err());
        assert!("64.5".parse::<MeshletVertices>().is_err());
        assert!(MeshletTriangles::try_from(0.0).is_err());
        assert_eq!("0.25".parse(), Ok(ConeWeight(0.25)));
        assert!("1.5".parse::<ConeWeight>().is_err());
        assert!("nan".parse::<LodError>().is_err());
        assert_eq!("4".parse(), Ok(UastcQuality(4)));
        assert!("5".parse::<UastcQuality>().is_err());
        assert_eq!("22".parse(), Ok(ZstdLevel(22)));
        assert!("23".parse::<ZstdLevel>().is_err());
        assert!("x".parse::<ZstdLevel>().is_err());
    }
}
