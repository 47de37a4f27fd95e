//! Sounds: a WAV, AIFF, FLAC, Ogg Vorbis, Ogg Opus, MP3 or QOA source
//! becomes a file any engine plays (`docs/audio.md`): 16-bit PCM WAV
//! (miniaudio, dr_wav, SDL, XAudio2), QOA (qoa.h), Ogg Vorbis (stb_vorbis,
//! libvorbisfile) or Ogg Opus (libopusfile), processed on the way as
//! `assetc.yml`'s `audio:` settings ask: downmixed to mono, trimmed of
//! silence, resampled, brought to a loudness target in LUFS under a
//! true-peak ceiling. A loop (a WAV `smpl` chunk, Ogg `LOOPSTART`
//! comments, or the settings) is carried over sample-exact.
//!
//! Decoding goes through symphonia ([`decode`]), which is trusted not to read
//! out of bounds but not to be free of panics on hostile files, so the whole
//! encode runs under `catch_unwind` and a panic becomes
//! [`AudioError::Crashed`].

pub mod decode;
pub mod ogg_stream;
pub mod opus;
pub mod process;
pub mod qoa;
pub mod record;
pub mod resample;
pub mod vorbis;
pub mod wav;

use std::panic::{AssertUnwindSafe, catch_unwind};

pub use record::record;

use crate::config::{AudioCodec, LoopPoint, NormalizeSetting};

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
    /// What the gain aims at: the loudness target, or the ceiling.
    pub normalize: NormalizeSetting,
    /// Cut leading and trailing silence (below [`process::SILENCE_DBFS`]).
    pub trim: bool,
    /// The file written.
    pub codec: AudioCodec,
    /// The sample rate to convert to; `None` keeps the source's (Opus
    /// always converts to 48 kHz).
    pub rate: Option<u32>,
    /// Vorbis quality on the oggenc scale, -2 to 10.
    pub vorbis_quality: f32,
    /// Opus bit rate per channel, kbit/s.
    pub opus_bitrate: u32,
    /// Where the loop comes from.
    pub looping: LoopChoice,
}

/// Where a sound's loop comes from (`audio.loop`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoopChoice {
    /// The source's own loop, if any.
    Source,
    /// No loop.
    Off,
    /// This region of the source, whatever the source says.
    Region {
        /// The first frame of the loop.
        start: LoopPoint,
        /// One past its last frame.
        end: LoopPoint,
    },
}

/// Where a loop was read from, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopOrigin {
    /// A WAV `smpl` chunk.
    SamplerChunk,
    /// `loop_start` and `loop_end` in `assetc.yml`.
    Settings,
}

impl std::fmt::Display for LoopOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::SamplerChunk => "the smpl chunk's loop",
            Self::Settings => "the loop of loop_start and loop_end",
        })
    }
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
    /// A loop does not fit the sound, or ends before it starts.
    #[error(
        "{origin} (frames {start} to {end}, end excluded) does not lie inside the sound's {frames} frames"
    )]
    LoopOutside {
        /// Where the loop was read.
        origin: LoopOrigin,
        /// First frame of the loop.
        start: u64,
        /// One past the last frame of the loop.
        end: u64,
        /// Frames in the sound.
        frames: usize,
    },
    /// The resampler refused the sound.
    #[error("cannot resample: {0}")]
    Resample(String),
    /// The QOA writer refused the sound.
    #[error(transparent)]
    Qoa(#[from] qoa::QoaError),
    /// The Vorbis or Opus side refused the sound.
    #[error(transparent)]
    Ogg(#[from] ogg_stream::OggError),
    /// The decoder panicked.
    #[error("the decoder failed on this file (it is probably damaged)")]
    Crashed,
}

impl Loop {
    /// The loop, checked to be a non-empty region inside `frames` frames.
    pub fn inside(
        origin: LoopOrigin,
        start: u64,
        end: u64,
        frames: usize,
    ) -> Result<Self, AudioError> {
        if start < end && end <= frames as u64 {
            Ok(Self { start, end })
        } else {
            Err(AudioError::LoopOutside {
                origin,
                start,
                end,
                frames,
            })
        }
    }
}

/// A sound as the encoder wrote it: the file, and the figures its record
/// (`.hsnd`) states.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedSound {
    /// The sound file's bytes.
    pub bytes: Vec<u8>,
    /// The codec of `bytes`.
    pub codec: AudioCodec,
    /// Frames per second of the file as decoded.
    pub rate: u32,
    /// Channels of the file.
    pub channels: usize,
    /// Frames per channel the file decodes to.
    pub frames: u64,
    /// The loop, in those frames.
    pub looping: Option<Loop>,
    /// Integrated loudness (LUFS) and true peak (dBTP) of the samples
    /// handed to the codec; `None` for silence.
    pub loudness: Option<(f32, f32)>,
}

/// Decodes `source` (whose file extension, without the dot, is `extension`),
/// processes it as `options` say and writes it in `options.codec`.
pub fn encode_audio(
    source: &[u8],
    extension: &str,
    options: &AudioOptions,
) -> Result<EncodedSound, AudioError> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut sound = decode::decode(source, extension)?;
        choose_loop(&mut sound, options.looping)?;
        let loudness = process::apply(&mut sound, options)?;
        Ok(EncodedSound {
            bytes: write(&sound, options)?,
            codec: options.codec,
            rate: sound.rate,
            channels: sound.channels,
            frames: sound.frames() as u64,
            looping: sound.looping,
            loudness,
        })
    }))
    .unwrap_or(Err(AudioError::Crashed))
}

/// Replaces the source's loop as `choice` says.
fn choose_loop(sound: &mut Sound, choice: LoopChoice) -> Result<(), AudioError> {
    match choice {
        LoopChoice::Source => {}
        LoopChoice::Off => sound.looping = None,
        LoopChoice::Region { start, end } => {
            let frames = sound.frames();
            let at = |point: LoopPoint| point.frame(sound.rate, frames as u64);
            let region = Loop::inside(LoopOrigin::Settings, at(start), at(end), frames)?;
            sound.looping = Some(region);
        }
    }
    Ok(())
}

/// `sound` as a file in `options.codec`.
fn write(sound: &Sound, options: &AudioOptions) -> Result<Vec<u8>, AudioError> {
    Ok(match options.codec {
        AudioCodec::Pcm16 => wav::write_pcm16(sound),
        AudioCodec::Qoa => qoa::write_qoa(sound)?,
        AudioCodec::Vorbis => vorbis::write_vorbis(sound, options.vorbis_quality / 10.0)?,
        AudioCodec::Opus => opus::write_opus(sound, options.opus_bitrate * 1000)?,
    })
}

#[cfg(test)]
mod ogg_tests;
#[cfg(test)]
mod qoa_tests;
#[cfg(test)]
mod tests;
