//! Any container and codec symphonia reads (the features `Cargo.toml`
//! enables: WAV, AIFF, FLAC, Ogg Vorbis, MP3) to a [`Sound`] of `f32`
//! samples, gapless (the encoder delay and padding MP3 and Vorbis declare
//! are cut), under the decoded-size limit. Ogg Opus goes to libopus
//! ([`super::opus::read_opus`]) and QOA to the `qoaudio` crate.
//!
//! The loop comes along: a WAV's `smpl` chunk, or the `LOOPSTART` comments
//! of an Ogg stream (with `LOOPLENGTH` or `LOOPEND`).

use std::fs::File;
use std::io::Cursor;
use std::path::Path;

use symphonia::core::codecs::audio::AudioDecoderOptions;
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, FormatReader, TrackType};
use symphonia::core::io::{MediaSource, MediaSourceStream};
use symphonia::core::meta::MetadataOptions;

use super::{AudioError, Loop, MAX_CHANNELS, Sound, opus, vorbis, wav};
use crate::encode::limits::MAX_DECODED_BYTES;

/// The most `f32` samples a sound may decode to.
const MAX_SAMPLES: u64 = MAX_DECODED_BYTES / 4;

/// Bytes of a QOA file header (magic and frame count).
const QOA_FILE_HEADER: usize = 8;
/// Bytes one 20-sample QOA slice of one channel takes.
const QOA_SLICE_BYTES: u64 = 8;
/// Samples of one channel in one QOA slice.
const QOA_SLICE_SAMPLES: u64 = 20;

/// Decodes the first audio track of `source`; `extension` (without the dot)
/// helps the probe. Its loop comes along.
pub fn decode(source: &[u8], extension: &str) -> Result<Sound, AudioError> {
    if extension.eq_ignore_ascii_case("qoa") {
        return decode_qoa(source);
    }
    if is_ogg_opus(source) {
        return Ok(opus::read_opus(source)?);
    }
    decode_symphonia(source, extension)
}

/// The length in seconds of the sound in the file at `path`: from its
/// header when the container states the frame count (WAV, AIFF, FLAC, Ogg
/// Vorbis, an MP3 with a Xing or Info header, QOA), else by decoding it.
/// Configure asks this of each sound whose format depends on its length.
pub fn duration(path: &Path) -> Result<f64, AudioError> {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !extension.eq_ignore_ascii_case("qoa")
        && let Some(seconds) = header_duration(path, extension)?
    {
        return Ok(seconds);
    }
    let source = std::fs::read(path).map_err(|e| AudioError::Decode(e.to_string()))?;
    let sound = decode(&source, extension)?;
    Ok(sound.frames() as f64 / f64::from(sound.rate))
}

/// The length symphonia reads from the header of the file at `path`, if
/// the container states it.
fn header_duration(path: &Path, extension: &str) -> Result<Option<f64>, AudioError> {
    let file = File::open(path).map_err(|e| AudioError::Decode(e.to_string()))?;
    let Ok(reader) = probe(Box::new(file), extension) else {
        // Not a container symphonia knows (Ogg Opus): decode it instead.
        return Ok(None);
    };
    let Some(track) = reader.default_track(TrackType::Audio) else {
        return Ok(None);
    };
    let rate = track
        .codec_params
        .as_ref()
        .and_then(|params| params.audio())
        .and_then(|audio| audio.sample_rate)
        .filter(|&rate| rate > 0);
    Ok(track
        .num_frames
        .zip(rate)
        .map(|(frames, rate)| frames as f64 / f64::from(rate)))
}

/// Whether `source` is an Ogg stream whose first packet is an Opus header
/// (`OpusHead`), whatever its file is named.
fn is_ogg_opus(source: &[u8]) -> bool {
    // The first page: 27 bytes of header, a segment table of as many bytes
    // as byte 26 says, then the first packet.
    let Some(&segments) = source.get(26) else {
        return false;
    };
    let packet = source.get(27 + usize::from(segments)..).unwrap_or_default();
    source.starts_with(b"OggS") && packet.starts_with(b"OpusHead")
}

/// A file symphonia reads.
fn decode_symphonia(source: &[u8], extension: &str) -> Result<Sound, AudioError> {
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
        ogg_loop(source, frames)?
    };
    Ok(Sound {
        rate,
        channels,
        samples,
        looping,
    })
}

/// The loop of an Ogg Vorbis file's `LOOPSTART` comments, if `source` is
/// one (symphonia has read it whole already, so its headers are sound).
fn ogg_loop(source: &[u8], frames: usize) -> Result<Option<Loop>, AudioError> {
    if !source.starts_with(b"OggS") {
        return Ok(None);
    }
    Ok(vorbis::read_vorbis_loop(source, frames)?)
}

/// A QOA file, through the `qoaudio` crate, once its header is checked:
/// the frame count it declares must fit the decoded-size limit and the
/// bytes the file holds (`qoaudio` reserves room for it up front).
fn decode_qoa(source: &[u8]) -> Result<Sound, AudioError> {
    let declared = source
        .get(4..QOA_FILE_HEADER)
        .map(|b| u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
        .ok_or_else(|| AudioError::Decode("a QOA file of fewer than 8 bytes".into()))?;
    let channels = usize::from(source.get(QOA_FILE_HEADER).copied().unwrap_or(0));
    check_channels(channels)?;
    check_size(declared.saturating_mul(channels as u64))?;
    let slices = declared.div_ceil(QOA_SLICE_SAMPLES) * channels as u64;
    if slices * QOA_SLICE_BYTES > source.len() as u64 {
        return Err(AudioError::Truncated {
            frames: 0,
            declared,
        });
    }
    let decoded = qoaudio::decode_all(Cursor::new(source))
        .map_err(|e| AudioError::Decode(format!("QOA: {e}")))?;
    let channels = usize::from(decoded.num_channels);
    check_channels(channels)?;
    let frames = decoded.samples.len() / channels;
    if (frames as u64) < declared {
        return Err(AudioError::Truncated { frames, declared });
    }
    if frames == 0 {
        return Err(AudioError::Empty);
    }
    Ok(Sound {
        rate: decoded.sample_rate,
        channels,
        samples: decoded
            .samples
            .iter()
            .map(|&s| f32::from(s) / 32768.0)
            .collect(),
        looping: None,
    })
}

/// The format reader symphonia's probe picks for `source`.
fn open<'s>(source: &'s [u8], extension: &str) -> Result<Box<dyn FormatReader + 's>, AudioError> {
    probe(Box::new(Cursor::new(source)), extension)
}

/// The format reader symphonia's probe picks for the bytes of `media`.
fn probe<'s>(
    media: Box<dyn MediaSource + 's>,
    extension: &str,
) -> Result<Box<dyn FormatReader + 's>, AudioError> {
    let stream = MediaSourceStream::new(media, Default::default());
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
