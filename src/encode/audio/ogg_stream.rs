//! What Ogg Vorbis and Ogg Opus files share, written and read: the error
//! type, the packets of an Ogg stream, the comment header, the loop
//! comments and the channel order.
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
//! the loop point by one frame in some engine. When reading (Ogg Vorbis and
//! Opus sources), `LOOPEND` and `LOOP_END` are accepted as the exclusive end
//! when no length is given.
//!
//! # Channel order
//!
//! A [`Sound`] keeps the WAV order of its channels (front left, front right,
//! centre, LFE, back left, back right, side left, side right); Vorbis and
//! Opus (mapping family 1) store the Vorbis order (front left, centre, front
//! right, ..., LFE last). The helpers here convert both ways.

use std::io::Cursor;

use ogg::Packet;
use ogg::reading::{OggReadError, PacketReader};

use super::{Loop, MAX_CHANNELS, Sound};
use crate::encode::limits::MAX_DECODED_BYTES;

/// The comment naming the first frame of the loop.
const LOOP_START_TAG: &str = "LOOPSTART";

/// The comment naming the loop's length in frames.
const LOOP_LENGTH_TAG: &str = "LOOPLENGTH";

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

/// Why an Ogg file cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum OggError {
    /// Zero channels, or more than [`MAX_CHANNELS`].
    #[error("{0} channels: an Ogg Vorbis or Opus sound here has 1 to {MAX_CHANNELS}")]
    Channels(usize),
    /// The sample rate is 0 Hz.
    #[error("a sound of {0} Hz cannot be encoded")]
    Rate(u32),
    /// An Opus sound is not at 48 kHz.
    #[error("Opus encodes 48000 Hz sound only; this one is {0} Hz (resample it first)")]
    OpusRate(u32),
    /// The Opus bitrate per channel is out of range.
    #[error("{0} b/s per channel is outside the Opus range 6000..=256000")]
    Bitrate(u32),
    /// The Vorbis quality is out of range (or NaN).
    #[error("Vorbis quality {0} is outside -0.2..=1.0")]
    Quality(f32),
    /// The loop region does not fit the sound, or is empty.
    #[error(
        "the loop {start}..{end} (frames, end exclusive) does not fit the sound's {frames} frames"
    )]
    LoopOutside {
        /// First frame of the loop.
        start: u64,
        /// One past the last frame of the loop.
        end: u64,
        /// Frames in the sound.
        frames: usize,
    },
    /// A loop comment holds something other than a whole number.
    #[error("the loop comment {0:?} is not a whole number of frames")]
    LoopComment(String),
    /// libvorbis refused the sound or failed.
    #[error("the Vorbis encoder failed: {0}")]
    Vorbis(#[from] vorbis_rs::VorbisError),
    /// libopus refused a setting or a packet.
    #[error("libopus failed: {0}")]
    Opus(#[from] ::opus::Error),
    /// Writing Ogg pages to memory failed (it cannot, in practice).
    #[error("cannot write the Ogg pages: {0}")]
    Write(#[from] std::io::Error),
    /// The bytes are not a well-formed Ogg stream (no capture pattern, a
    /// bad checksum, or a page cut short).
    #[error("not a readable Ogg stream: {0}")]
    Ogg(String),
    /// The file holds no Ogg packet at all.
    #[error("the file holds no Ogg packets")]
    NoPackets,
    /// The first packet is not an `OpusHead`.
    #[error("not an Ogg Opus file: the first packet is not an OpusHead header")]
    NotOpus,
    /// The first packet is not a Vorbis identification header.
    #[error("not an Ogg Vorbis file: the first packet is not a Vorbis header")]
    NotVorbis,
    /// The `OpusHead` is malformed or declares something unsupported.
    #[error("bad OpusHead header: {0}")]
    Head(String),
    /// The comment header (`OpusTags`, Vorbis comments) is malformed.
    #[error("bad comment header: {0}")]
    Tags(&'static str),
    /// An audio packet is empty or not valid Opus.
    #[error("audio packet {index} cannot be decoded: {reason}")]
    Packet {
        /// The packet's index among the audio packets.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The stream holds no audio packets.
    #[error("the Opus stream holds no audio packets")]
    NoAudio,
    /// The file ends before the page that closes the stream.
    #[error("the file ends before the end of its Opus stream (truncated?)")]
    Truncated,
    /// The granule positions contradict the packets.
    #[error("inconsistent granule positions: {0}")]
    Granule(String),
    /// The pre-skip is longer than the whole stream.
    #[error("the header's pre-skip of {pre_skip} samples is longer than the stream's {samples}")]
    PreSkipTooLong {
        /// The pre-skip the header declares.
        pre_skip: u64,
        /// The samples the stream holds, pre-skip included.
        samples: u64,
    },
    /// Decoding would pass the memory limit.
    #[error("more than {} MiB of decoded samples", MAX_DECODED_BYTES >> 20)]
    TooLarge,
}

/// The packets of the first logical stream of an Ogg file, in order.
pub(super) struct StreamPackets<'s> {
    /// The page reader.
    reader: PacketReader<Cursor<&'s [u8]>>,
    /// The serial of the stream we follow.
    serial: u32,
    /// Its first packet (the identification header).
    pub(super) first: Vec<u8>,
}

impl<'s> StreamPackets<'s> {
    /// Opens `source` and reads the first packet.
    pub(super) fn new(source: &'s [u8]) -> Result<Self, OggError> {
        let mut reader = PacketReader::new(Cursor::new(source));
        let first = reader
            .read_packet()
            .map_err(describe_ogg)?
            .ok_or(OggError::NoPackets)?;
        Ok(StreamPackets {
            reader,
            serial: first.stream_serial(),
            first: first.data,
        })
    }

    /// The next packet of our stream; the end of the file before the
    /// stream's last page is [`OggError::Truncated`].
    pub(super) fn next(&mut self) -> Result<Packet, OggError> {
        loop {
            let packet = self
                .reader
                .read_packet()
                .map_err(describe_ogg)?
                .ok_or(OggError::Truncated)?;
            if packet.stream_serial() == self.serial {
                return Ok(packet);
            }
        }
    }
}

/// The Ogg reader's error as ours; a page cut short reads as truncation.
fn describe_ogg(error: OggReadError) -> OggError {
    match error {
        OggReadError::ReadError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            OggError::Truncated
        }
        other => OggError::Ogg(other.to_string()),
    }
}

/// The user comments (`NAME=value`) of a comment header that opens with
/// `magic` (`OpusTags`, or `\x03vorbis`); those that are not UTF-8 are
/// skipped.
pub(super) fn parse_comments(packet: &[u8], magic: &[u8]) -> Result<Vec<String>, OggError> {
    let body = packet
        .strip_prefix(magic)
        .ok_or(OggError::Tags("the second packet is not a comment header"))?;
    let mut reader = ByteReader(body);
    reader.counted()?; // vendor string
    let count = reader.u32()?;
    let mut comments = Vec::new();
    for _ in 0..count {
        if let Ok(comment) = std::str::from_utf8(reader.counted()?) {
            comments.push(comment.to_owned());
        }
    }
    Ok(comments)
}

/// A cursor over the bytes of a comment header.
struct ByteReader<'b>(&'b [u8]);

impl<'b> ByteReader<'b> {
    /// The next little-endian `u32`.
    fn u32(&mut self) -> Result<u32, OggError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// The next length-prefixed byte string.
    fn counted(&mut self) -> Result<&'b [u8], OggError> {
        let length = self.u32()? as usize;
        self.take(length)
    }

    /// The next `count` bytes.
    fn take(&mut self, count: usize) -> Result<&'b [u8], OggError> {
        if count > self.0.len() {
            return Err(OggError::Tags("a length runs past the end of the packet"));
        }
        let (taken, rest) = self.0.split_at(count);
        self.0 = rest;
        Ok(taken)
    }
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
pub(super) fn wav_channels_in_vorbis_order(channels: usize) -> &'static [usize] {
    channels
        .checked_sub(1)
        .and_then(|index| VORBIS_FROM_WAV.get(index))
        .copied()
        .unwrap_or(&[0])
}
