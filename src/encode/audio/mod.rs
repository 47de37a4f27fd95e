//! Sounds: a WAV, AIFF, FLAC, Ogg Vorbis or MP3 source becomes a 16-bit PCM
//! WAV that any engine plays (miniaudio, dr_wav, SDL, XAudio2), processed on
//! the way as `assetc.yml`'s `audio:` settings ask (`docs/audio.md`):
//! downmixed to mono, trimmed of silence, brought to a loudness target in
//! LUFS under a true-peak ceiling. A WAV source's `smpl` loop is carried over
//! sample-exact.
//!
//! Decoding goes through symphonia ([`decode`]), which is trusted not to read
//! out of bounds but not to be free of panics on hostile files, so the whole
//! encode runs under `catch_unwind` and a panic becomes
//! [`AudioError::Crashed`].

pub mod decode;
pub mod process;
pub mod wav;

use std::panic::{AssertUnwindSafe, catch_unwind};

/// A decoded sound: interleaved samples in `[-1, 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sound {
    /// Frames per second.
    pub rate: u32,
    /// Samples per frame, 1 to [`MAX_CHANNELS`].
    pub channels: usize,
    /// `frames × channels` samples, frame after frame.
    pub samples: Vec<f32>,
    /// The loop region, if the source has one.
    pub looping: Option<Loop>,
}

impl Sound {
    /// Its length in frames.
    pub fn frames(&self) -> usize {
        self.samples.len() / self.channels
    }
}

/// A loop region in frames: playback jumps from `end` back to `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loop {
    /// The first frame of the loop.
    pub start: u64,
    /// One past the last frame of the loop.
    pub end: u64,
}

/// The most channels a source may have (7.1).
pub const MAX_CHANNELS: usize = 8;

/// What the `audio:` settings ask of one sound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AudioOptions {
    /// Downmix to one channel.
    pub mono: bool,
    /// The integrated loudness to reach, in LUFS; `None` leaves the level.
    pub loudness: Option<f32>,
    /// The true-peak ceiling in dBTP that loudness gain never passes.
    pub true_peak: f32,
    /// Cut leading and trailing silence (below [`process::SILENCE_DBFS`]).
    pub trim: bool,
}

/// Why a sound cannot be encoded.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    /// The container or codec could not be read.
    #[error("cannot decode: {0}")]
    Decode(String),
    /// The file holds no audio track.
    #[error("the file holds no audio track")]
    NoTrack,
    /// The track declares no sample rate, or 0 Hz.
    #[error("the audio track declares no sample rate (or 0 Hz)")]
    NoRate,
    /// Zero channels, or more than [`MAX_CHANNELS`].
    #[error("{0} channels: a sound has 1 to {MAX_CHANNELS}")]
    Channels(usize),
    /// Decoding would pass the memory limit.
    #[error(
        "more than {} MiB of decoded samples (limit: MAX_DECODED_BYTES, docs/limits.md)",
        crate::encode::limits::MAX_DECODED_BYTES >> 20
    )]
    TooLarge,
    /// The data ends before the frames the header declares.
    #[error("the file ends after {frames} of the {declared} frames its header declares")]
    Truncated {
        /// Frames decoded.
        frames: usize,
        /// Frames the header declares.
        declared: u64,
    },
    /// The track decoded to no frames.
    #[error("the file holds no audio frames")]
    Empty,
    /// A decoded sample is not a number.
    #[error("frame {0} holds a sample that is not a number (NaN or infinite)")]
    NotANumber(usize),
    /// The `smpl` loop does not fit the sound.
    #[error("the smpl chunk's loop ({start}..={last}) lies outside the sound's {frames} frames")]
    LoopOutside {
        /// First frame of the loop.
        start: u64,
        /// Last frame played in the loop (inclusive, as the chunk stores it).
        last: u64,
        /// Frames in the sound.
        frames: usize,
    },
    /// The decoder panicked.
    #[error("the decoder failed on this file (it is probably damaged)")]
    Crashed,
}

/// Decodes `source` (whose file extension, without the dot, is `extension`),
/// processes it as `options` say and writes the 16-bit PCM WAV.
pub fn encode_audio(
    source: &[u8],
    extension: &str,
    options: &AudioOptions,
) -> Result<Vec<u8>, AudioError> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut sound = decode::decode(source, extension)?;
        process::apply(&mut sound, options);
        Ok(wav::write_pcm16(&sound))
    }))
    .unwrap_or(Err(AudioError::Crashed))
}

#[cfg(test)]
mod tests;
