//! The value types of the `audio:` settings that choose what a sound is
//! written as and whether it loops (`docs/audio.md`):
//!
//! ```yaml
//! default:
//!   audio:
//!     format: auto        # pcm16, qoa, vorbis, opus, or auto (by platform and length)
//!     platform: auto      # desktop, mobile, or auto (the preset's texture.platform)
//!     stream_after: 10    # seconds: longer sounds are streamed under `format: auto`
//!   rules:
//!     - match: "music/*.wav"
//!       audio: { loop: true, loop_start: 2.5s }
//! ```

use serde::Deserialize;
use serde::de::Visitor;

use super::texture::PlatformSetting;
use super::words::{Toggle, words};

/// The file a sound is written as, once `auto` is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AudioCodec {
    /// RIFF WAVE, 16-bit PCM: no decoding cost at all.
    Pcm16,
    /// QOA: a fixed 3.2 bits per sample, decoded by a few hundred lines of C.
    Qoa,
    /// Ogg Vorbis (libvorbis, aoTuV tuning), variable bit rate.
    Vorbis,
    /// Ogg Opus (libopus), always at 48 kHz.
    Opus,
}

impl AudioCodec {
    /// Every codec, in the order messages list them.
    pub const ALL: [Self; 4] = [Self::Pcm16, Self::Qoa, Self::Vorbis, Self::Opus];

    /// The name used in `assetc.yml` and on the encoder's command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pcm16 => "pcm16",
            Self::Qoa => "qoa",
            Self::Vorbis => "vorbis",
            Self::Opus => "opus",
        }
    }

    /// The extension of its output file, with the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Pcm16 => ".wav",
            Self::Qoa => ".qoa",
            Self::Vorbis => ".ogg",
            Self::Opus => ".opus",
        }
    }

    /// The codec `format: auto` picks on `platform` for a sound that stays
    /// in memory (`streamed: false`) or is streamed from disk.
    pub fn automatic(platform: PlatformSetting, streamed: bool) -> Self {
        match (platform, streamed) {
            (PlatformSetting::Desktop, false) => Self::Pcm16,
            (PlatformSetting::Desktop, true) => Self::Vorbis,
            (PlatformSetting::Mobile, false) => Self::Qoa,
            (PlatformSetting::Mobile, true) => Self::Opus,
        }
    }
}

impl std::fmt::Display for AudioCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for AudioCodec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|codec| codec.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "unknown audio format {text:?}; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// `audio.format`: one codec for every sound the layer applies to, or
/// `auto`, which picks by platform and by length ([`AudioCodec::automatic`]).
///
/// `Auto` comes first: the key probe of `keys.rs` offers the first variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AudioFormatSetting {
    /// By platform and length.
    Auto,
    /// Always [`AudioCodec::Pcm16`].
    Pcm16,
    /// Always [`AudioCodec::Qoa`].
    Qoa,
    /// Always [`AudioCodec::Vorbis`].
    Vorbis,
    /// Always [`AudioCodec::Opus`].
    Opus,
}

impl AudioFormatSetting {
    /// The codec this names, or `None` for `auto`.
    pub fn codec(self) -> Option<AudioCodec> {
        match self {
            Self::Auto => None,
            Self::Pcm16 => Some(AudioCodec::Pcm16),
            Self::Qoa => Some(AudioCodec::Qoa),
            Self::Vorbis => Some(AudioCodec::Vorbis),
            Self::Opus => Some(AudioCodec::Opus),
        }
    }
}

/// `audio.platform`: what `format: auto` writes for.
///
/// `Auto` comes first: the key probe of `keys.rs` offers the first variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AudioPlatformSetting {
    /// The same platform as `texture.platform`.
    Auto,
    /// Desktop and console: PCM in memory, Vorbis streamed.
    Desktop,
    /// Phones and tablets: QOA in memory, Opus streamed.
    Mobile,
}

impl AudioPlatformSetting {
    /// The platform, with `auto` settled by `texture`'s.
    pub fn resolve(self, texture: PlatformSetting) -> PlatformSetting {
        match self {
            Self::Auto => texture,
            Self::Desktop => PlatformSetting::Desktop,
            Self::Mobile => PlatformSetting::Mobile,
        }
    }
}

/// `audio.normalize`: what the one gain a sound gets aims at.
///
/// `Loudness` comes first: the key probe of `keys.rs` offers the first
/// variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NormalizeSetting {
    /// The integrated loudness `audio.loudness` names (unless it is `off`),
    /// never past the `true_peak` ceiling.
    Loudness,
    /// The true peak at the `true_peak` ceiling, whatever the loudness.
    Peak,
}

words!(NormalizeSetting, "normalize", [Loudness => "loudness", Peak => "peak"]);

/// `audio.loop`: where a sound's loop comes from: `auto` (the source's own
/// loop, if it has one: a WAV `smpl` chunk, Ogg `LOOPSTART` comments), `true`
/// (a loop from `loop_start` to `loop_end`, whatever the source says) or
/// `false` (no loop, even if the source has one).
pub type LoopSetting = Toggle;

/// `audio.loop_start` and `audio.loop_end`: a place in the source, as a
/// frame number (`44100`), in seconds (`2.5s`), or its end (`end`).
#[derive(Debug, Clone, Copy)]
pub enum LoopPoint {
    /// A frame of the source, counted from 0.
    Frame(u64),
    /// A time in seconds from the start of the source.
    Seconds(f64),
    /// One past the source's last frame.
    End,
}

impl LoopPoint {
    /// The frame this names in a source of `frames` frames at `rate` Hz
    /// (seconds are rounded to the nearest frame).
    pub fn frame(self, rate: u32, frames: u64) -> u64 {
        match self {
            Self::Frame(frame) => frame,
            Self::Seconds(seconds) => (seconds * f64::from(rate)).round() as u64,
            Self::End => frames,
        }
    }
}

impl PartialEq for LoopPoint {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Frame(a), Self::Frame(b)) => a == b,
            (Self::Seconds(a), Self::Seconds(b)) => a.to_bits() == b.to_bits(),
            (Self::End, Self::End) => true,
            _ => false,
        }
    }
}

impl Eq for LoopPoint {}

impl std::fmt::Display for LoopPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Frame(frame) => write!(f, "{frame}"),
            Self::Seconds(seconds) => write!(f, "{seconds}s"),
            Self::End => f.write_str("end"),
        }
    }
}

impl std::str::FromStr for LoopPoint {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        const EXPECTING: &str = "a frame number, a time in seconds such as 2.5s, or end";
        if text == "end" {
            return Ok(Self::End);
        }
        if let Some(seconds) = text.strip_suffix('s') {
            return match seconds.parse::<f64>() {
                Ok(value) if value.is_finite() && value >= 0.0 => Ok(Self::Seconds(value)),
                _ => Err(format!("a loop point must be {EXPECTING}, not {text:?}")),
            };
        }
        text.parse()
            .map(Self::Frame)
            .map_err(|_| format!("a loop point must be {EXPECTING}, not {text:?}"))
    }
}

impl<'de> Deserialize<'de> for LoopPoint {
    /// Reads a whole number of frames, or a string (`2.5s`, `end`); a unit
    /// (the key probe's offer) is frame 0.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(LoopPointVisitor)
    }
}

/// Reads a [`LoopPoint`].
struct LoopPointVisitor;

impl Visitor<'_> for LoopPointVisitor {
    type Value = LoopPoint;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a frame number, a time in seconds such as 2.5s, or end")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<LoopPoint, E> {
        Ok(LoopPoint::Frame(0))
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<LoopPoint, E> {
        Ok(LoopPoint::Frame(value))
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<LoopPoint, E> {
        u64::try_from(value)
            .map(LoopPoint::Frame)
            .map_err(|_| E::custom(format!("a loop point cannot be negative, not {value}")))
    }

    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<LoopPoint, E> {
        Err(E::custom(format!(
            "a loop point in frames is a whole number; write seconds as \"{value}s\""
        )))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<LoopPoint, E> {
        text.parse().map_err(E::custom)
    }
}
