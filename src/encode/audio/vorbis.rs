//! Ogg Vorbis output: a [`Sound`] becomes a standard `.ogg` file that
//! stb_vorbis, libvorbisfile, miniaudio and every engine built on them play.
//! The encoder is aoTuV's libvorbis (through `vorbis_rs`), in quality VBR mode.
//!
//! The same sound always gives the same bytes: the Ogg stream serial is the
//! fixed [`VORBIS_SERIAL`] instead of a random one, and the comment header
//! holds nothing that varies (no date, no `ENCODER` tag; only libvorbis's own
//! vendor string, fixed per library version).
//!
//! The length is exact: libvorbis sets the granule position of the last page
//! to the number of frames submitted, so a decoder cuts the padding of the
//! final block and plays `sound.frames()` frames.
//!
//! # Loop comments
//!
//! A looping sound carries `LOOPSTART=<first frame>` and
//! `LOOPLENGTH=<end - start>`, in frames: the convention of RPG Maker, also
//! read by vgmstream, ZDoom/GZDoom (ZMusic), EDuke32 and many hobby engines.
//! `LOOPEND` is deliberately *not* written: readers disagree on whether it
//! names the last frame played (inclusive) or the one after it (exclusive),
//! the readers we know of that take `LOOPEND` also take `LOOPLENGTH`, and
//! some prefer `LOOPEND` when both are present, so adding it could only move
//! the loop point by one frame in some engine. When
//! *reading* (Ogg Opus sources), `LOOPEND` and `LOOP_END` are accepted as the
//! exclusive end when no length is given.
//!
//! # Channel order
//!
//! A [`Sound`] keeps the WAV order of its channels (front left, front right,
//! centre, LFE, back left, back right, side left, side right); Vorbis and
//! Opus (mapping family 1) store the Vorbis order (front left, centre, front
//! right, ..., LFE last). The helpers here convert both ways; Opus shares
//! them.

use std::num::{NonZeroU8, NonZeroU32};

use vorbis_rs::{VorbisBitrateManagementStrategy, VorbisEncoderBuilder};

use super::opus::{OggError, StreamPackets, parse_comments};
use super::{Loop, MAX_CHANNELS, Sound};

/// The Ogg stream serial of every Vorbis file we write ("asVb" in ASCII):
/// fixed, so that the same sound gives the same bytes.
pub const VORBIS_SERIAL: i32 = 0x6173_5662;

/// The lowest quality aoTuV accepts.
pub const MIN_VORBIS_QUALITY: f32 = -0.2;

/// The highest quality libvorbis accepts.
pub const MAX_VORBIS_QUALITY: f32 = 1.0;

/// Frames handed to the encoder at a time: a few Vorbis windows, small
/// enough to keep libvorbis fast (it slows down on huge blocks).
const BLOCK_FRAMES: usize = 4096;

/// The start of a Vorbis identification header.
const VORBIS_HEAD_MAGIC: &[u8] = b"\x01vorbis";

/// The start of a Vorbis comment header.
const VORBIS_COMMENT_MAGIC: &[u8] = b"\x03vorbis";

/// The comment naming the first frame of the loop.
pub(super) const LOOP_START_TAG: &str = "LOOPSTART";

/// The comment naming the loop's length in frames.
pub(super) const LOOP_LENGTH_TAG: &str = "LOOPLENGTH";

/// For each channel count (index `channels - 1`), the WAV channel that lands
/// at each Vorbis position: Vorbis channel `i` is WAV channel `order[i]`.
const VORBIS_FROM_WAV: [&[usize]; MAX_CHANNELS] = [
    &[0],
    &[0, 1],
    &[0, 2, 1],
    &[0, 1, 2, 3],
    &[0, 2, 1, 3, 4],
    &[0, 2, 1, 4, 5, 3],
    &[0, 2, 1, 5, 6, 4, 3],
    &[0, 2, 1, 6, 7, 4, 5, 3],
];

/// Encodes `sound` as Ogg Vorbis at `quality` (`vorbis_rs`'s quality VBR
/// target, [`MIN_VORBIS_QUALITY`] to [`MAX_VORBIS_QUALITY`]; 0.5 is about
/// 160 kb/s for stereo music), with loop comments when the sound loops.
pub fn write_vorbis(sound: &Sound, quality: f32) -> Result<Vec<u8>, OggError> {
    check_channels(sound.channels)?;
    check_quality(quality)?;
    let rate = NonZeroU32::new(sound.rate).ok_or(OggError::Rate(sound.rate))?;
    let channels = NonZeroU8::new(sound.channels as u8).ok_or(OggError::Channels(0))?;
    let mut builder =
        VorbisEncoderBuilder::new_with_serial(rate, channels, Vec::new(), VORBIS_SERIAL);
    builder.bitrate_management_strategy(VorbisBitrateManagementStrategy::QualityVbr {
        target_quality: quality,
    });
    builder.comment_tags(loop_tags(sound)?)?;
    let mut encoder = builder.build()?;
    for block in sound.samples.chunks(BLOCK_FRAMES * sound.channels) {
        encoder.encode_audio_block(planar_in_vorbis_order(block, sound.channels))?;
    }
    Ok(encoder.finish()?)
}

/// The loop that the comment header of the Ogg Vorbis file `source`
/// declares (see the module documentation), checked against the sound's
/// decoded length of `frames` frames; `None` when it has no `LOOPSTART`.
pub fn read_vorbis_loop(source: &[u8], frames: usize) -> Result<Option<Loop>, OggError> {
    let mut packets = StreamPackets::new(source)?;
    if !packets.first.starts_with(VORBIS_HEAD_MAGIC) {
        return Err(OggError::NotVorbis);
    }
    let comments = parse_comments(&packets.next()?.data, VORBIS_COMMENT_MAGIC)?;
    loop_from_comments(comments.iter().map(String::as_str), frames)
}

/// Fails unless `quality` lies in Vorbis's range (NaN does not).
fn check_quality(quality: f32) -> Result<(), OggError> {
    if (MIN_VORBIS_QUALITY..=MAX_VORBIS_QUALITY).contains(&quality) {
        Ok(())
    } else {
        Err(OggError::Quality(quality))
    }
}

/// Splits interleaved `samples` (WAV channel order) into one vector per
/// channel, in the Vorbis channel order.
fn planar_in_vorbis_order(samples: &[f32], channels: usize) -> Vec<Vec<f32>> {
    wav_channels_in_vorbis_order(channels)
        .iter()
        .map(|&channel| {
            samples
                .iter()
                .skip(channel)
                .step_by(channels)
                .copied()
                .collect()
        })
        .collect()
}

/// Fails unless `channels` is 1 to [`MAX_CHANNELS`].
pub(super) fn check_channels(channels: usize) -> Result<(), OggError> {
    if (1..=MAX_CHANNELS).contains(&channels) {
        Ok(())
    } else {
        Err(OggError::Channels(channels))
    }
}

/// The loop comments of `sound` (none when it does not loop), after
/// checking that the loop fits the sound.
pub(super) fn loop_tags(sound: &Sound) -> Result<Vec<(&'static str, String)>, OggError> {
    let Some(looping) = sound.looping else {
        return Ok(Vec::new());
    };
    check_loop(looping, sound.frames())?;
    Ok(vec![
        (LOOP_START_TAG, looping.start.to_string()),
        (LOOP_LENGTH_TAG, (looping.end - looping.start).to_string()),
    ])
}

/// Fails unless `looping` is a non-empty region inside `frames` frames.
pub(super) fn check_loop(looping: Loop, frames: usize) -> Result<(), OggError> {
    if looping.start < looping.end && looping.end <= frames as u64 {
        Ok(())
    } else {
        Err(OggError::LoopOutside {
            start: looping.start,
            end: looping.end,
            frames,
        })
    }
}

/// The loop that the comments `comments` (`NAME=value` strings) declare
/// for a sound of `frames` frames, if any: `LOOPSTART` (or `LOOP_START`),
/// ending at `LOOPSTART + LOOPLENGTH`, else at `LOOPEND` (or `LOOP_END`,
/// exclusive), else at the end of the sound. Names are case-insensitive.
pub(super) fn loop_from_comments<'c>(
    comments: impl IntoIterator<Item = &'c str>,
    frames: usize,
) -> Result<Option<Loop>, OggError> {
    let (mut start, mut length, mut end) = (None, None, None);
    for comment in comments {
        let Some((name, value)) = comment.split_once('=') else {
            continue;
        };
        let name = name.to_ascii_uppercase().replace('_', "");
        match name.as_str() {
            "LOOPSTART" => start = Some(comment_number(&name, value)?),
            "LOOPLENGTH" => length = Some(comment_number(&name, value)?),
            "LOOPEND" => end = Some(comment_number(&name, value)?),
            _ => {}
        }
    }
    let Some(start) = start else {
        return Ok(None);
    };
    let end = match (length, end) {
        (Some(length), _) => start.saturating_add(length),
        (None, Some(end)) => end,
        (None, None) => frames as u64,
    };
    let looping = Loop { start, end };
    check_loop(looping, frames)?;
    Ok(Some(looping))
}

/// The whole number `value` of the loop comment `name`.
fn comment_number(name: &str, value: &str) -> Result<u64, OggError> {
    value
        .trim()
        .parse()
        .map_err(|_| OggError::LoopComment(format!("{name}={value}")))
}

/// `samples` (interleaved, WAV channel order) in the Vorbis channel order.
pub(super) fn to_vorbis_order(samples: &[f32], channels: usize) -> Vec<f32> {
    let order = wav_channels_in_vorbis_order(channels);
    samples
        .chunks_exact(channels)
        .flat_map(|frame| order.iter().map(|&wav| frame[wav]))
        .collect()
}

/// `samples` (interleaved, Vorbis channel order) in the WAV channel order.
pub(super) fn from_vorbis_order(samples: &[f32], channels: usize) -> Vec<f32> {
    let order = wav_channels_in_vorbis_order(channels);
    let mut reordered = vec![0.0; samples.len() - samples.len() % channels];
    for (source, target) in samples
        .chunks_exact(channels)
        .zip(reordered.chunks_exact_mut(channels))
    {
        for (&sample, &wav) in source.iter().zip(order) {
            target[wav] = sample;
        }
    }
    reordered
}

/// The permutation of [`VORBIS_FROM_WAV`] for `channels` (identity for a
/// count it does not cover, which callers have already refused).
fn wav_channels_in_vorbis_order(channels: usize) -> &'static [usize] {
    channels
        .checked_sub(1)
        .and_then(|index| VORBIS_FROM_WAV.get(index))
        .copied()
        .unwrap_or(&[0])
}
