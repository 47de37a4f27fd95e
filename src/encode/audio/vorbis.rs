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
//! The loop comments and the channel order it shares with Opus are
//! described in [`super::ogg_stream`].

use std::num::{NonZeroU8, NonZeroU32};

use vorbis_rs::{VorbisBitrateManagementStrategy, VorbisEncoderBuilder};

use super::ogg_stream::{
    OggError, StreamPackets, check_channels, loop_from_comments, loop_tags, parse_comments,
    wav_channels_in_vorbis_order,
};
use super::{Loop, Sound};

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
