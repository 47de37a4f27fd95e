//! What configure learns from inside a sound before writing its edge.
//!
//! Under `audio.format: auto` the codec depends on the sound's length: from
//! `stream_after` seconds on it is streamed (Vorbis or Opus), below it stays
//! in memory (PCM or QOA). The output's name depends on the codec, and Ninja
//! must know every output's name, so configure reads the length from the
//! file's header (decoding only a container that does not state it). The
//! files read become inputs of the regeneration edge: an edit that moves a
//! sound across `stream_after` re-runs configure, which renames its output.
//!
//! A sound whose length cannot be read is not fatal: configure warns, gives
//! it the in-memory codec, and its edge reports the problem when it runs.

use std::path::{Path, PathBuf};

use crate::config::{AudioCodec, AudioSettings, PlatformSetting};
use crate::encode::audio::decode;

/// The codec of one sound, and what configure read to choose it.
#[derive(Debug)]
pub struct SoundChoice {
    /// The file the edge writes.
    pub codec: AudioCodec,
    /// The file read to learn the sound's length, for regeneration.
    pub read: Option<PathBuf>,
    /// Why the length could not be read, naming the source.
    pub warning: Option<String>,
}

/// The codec of the sound at `rel` below `input_root`, under its resolved
/// `audio` settings and the texture `platform` that `audio.platform: auto`
/// follows.
pub fn choose(
    input_root: &Path,
    rel: &str,
    audio: &AudioSettings,
    texture_platform: PlatformSetting,
) -> SoundChoice {
    if let Some(codec) = audio.format.codec() {
        return SoundChoice {
            codec,
            read: None,
            warning: None,
        };
    }
    let platform = audio.platform.resolve(texture_platform);
    let path = input_root.join(rel);
    let (streamed, warning) = match decode::duration(&path) {
        Ok(seconds) => (seconds >= f64::from(audio.stream_after.0), None),
        Err(error) => (
            false,
            Some(format!(
                "{rel}: cannot read its length ({error}); writing it as a sound kept in memory, and its edge reports the problem"
            )),
        ),
    };
    SoundChoice {
        codec: AudioCodec::automatic(platform, streamed),
        read: Some(path),
        warning,
    }
}
