//! Any container and codec symphonia reads (the features `Cargo.toml`
//! enables: WAV, AIFF, FLAC, Ogg Vorbis, MP3) to a [`Sound`] of `f32`
//! samples, gapless (the encoder delay and padding MP3 and Vorbis declare
//! are cut), under the decoded-size limit.

use std::io::Cursor;

use symphonia::core::codecs::audio::AudioDecoderOptions;
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, FormatReader, TrackType};
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;

use super::{AudioError, MAX_CHANNELS, Sound, wav};
use crate::encode::limits::MAX_DECODED_BYTES;

/// The most `f32` samples a sound may decode to.
const MAX_SAMPLES: u64 = MAX_DECODED_BYTES / 4;

/// Decodes the first audio track of `source`; `extension` (without the dot)
/// helps the probe. A WAV's `smpl` loop comes along.
pub fn decode(source: &[u8], extension: &str) -> Result<Sound, AudioError> {
    let mut reader = open(source, extension)?;
    let track = reader
        .default_track(TrackType::Audio)
        .ok_or(AudioError::NoTrack)?;
    let track_id = track.id;
    let track_frames = track.num_frames;
    let params = track
        .codec_params
        .as_ref()
        .and_then(|params| params.audio())
        .ok_or(AudioError::NoTrack)?
        .clone();
    let rate = params
        .sample_rate
        .filter(|&rate| rate > 0)
        .ok_or(AudioError::NoRate)?;
    let declared_channels = params.channels.as_ref().map_or(0, |c| c.count());
    check_channels(declared_channels)?;
    if let Some(frames) = track_frames {
        check_size(frames.saturating_mul(declared_channels as u64))?;
    }
    let mut decoder = symphonia::default::get_codecs()
        .make_audio_decoder(&params, &AudioDecoderOptions::default())
        .map_err(describe)?;
    let mut samples: Vec<f32> = Vec::new();
    let mut packet_samples: Vec<f32> = Vec::new();
    let mut channels = declared_channels;
    while let Some(packet) = reader.next_packet().map_err(describe)? {
        if packet.track_id != track_id {
            continue;
        }
        let buffer = decoder.decode(&packet).map_err(describe)?;
        channels = buffer.spec().channels().count();
        check_channels(channels)?;
        buffer.copy_to_vec_interleaved(&mut packet_samples);
        check_size(samples.len() as u64 + packet_samples.len() as u64)?;
        samples.extend_from_slice(&packet_samples);
    }
    if samples.is_empty() {
        return Err(AudioError::Empty);
    }
    let frames = samples.len() / channels;
    if let Some(declared) = track_frames.filter(|_| counts_exactly(extension))
        && (frames as u64) < declared
    {
        return Err(AudioError::Truncated { frames, declared });
    }
    if let Some(at) = samples.iter().position(|s| !s.is_finite()) {
        return Err(AudioError::NotANumber(at / channels));
    }
    let looping = if extension.eq_ignore_ascii_case("wav") {
        wav::read_loop(source, frames)?
    } else {
        None
    };
    Ok(Sound {
        rate,
        channels,
        samples,
        looping,
    })
}

/// The format reader symphonia's probe picks for `source`.
fn open<'s>(source: &'s [u8], extension: &str) -> Result<Box<dyn FormatReader + 's>, AudioError> {
    let stream = MediaSourceStream::new(Box::new(Cursor::new(source)), Default::default());
    let mut hint = Hint::new();
    hint.with_extension(extension);
    symphonia::default::get_probe()
        .probe(
            &hint,
            stream,
            FormatOptions::default(),
            MetadataOptions::default(),
        )
        .map_err(describe)
}

/// Whether the container of `extension` states its exact frame count (PCM
/// and FLAC do; an MP3's is an estimate).
fn counts_exactly(extension: &str) -> bool {
    ["wav", "aif", "aiff", "flac"]
        .iter()
        .any(|known| extension.eq_ignore_ascii_case(known))
}

/// Fails unless `channels` is 1 to [`MAX_CHANNELS`].
fn check_channels(channels: usize) -> Result<(), AudioError> {
    if (1..=MAX_CHANNELS).contains(&channels) {
        Ok(())
    } else {
        Err(AudioError::Channels(channels))
    }
}

/// Fails if `samples` would pass [`MAX_SAMPLES`].
fn check_size(samples: u64) -> Result<(), AudioError> {
    if samples > MAX_SAMPLES {
        Err(AudioError::TooLarge)
    } else {
        Ok(())
    }
}

/// symphonia's error as ours; the end of a truncated stream reads as
/// "unexpected end of file".
fn describe(error: SymphoniaError) -> AudioError {
    AudioError::Decode(match error {
        SymphoniaError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the file ends in the middle of the audio data".into()
        }
        other => other.to_string(),
    })
}
