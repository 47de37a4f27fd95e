//! `.hsnd` v1: the 64-byte record that describes one compiled sound.
//!
//! Every sound source (`sfx/step.flac`) becomes a sound file an audio
//! library decodes (`sfx/step.wav`, `.qoa`, `.ogg` or `.opus`, chosen per
//! platform) and this record beside it (`sfx/step.hsnd`). The record tells an
//! engine the codec, length, loop and loudness of the sound without opening
//! the sound file, and names that file by its asset id. The manifest lists
//! the record as an embedded file.
//!
//! # Layout (little-endian, no padding, exactly 64 bytes)
//!
//! | offset | size | field        | content                                         |
//! |-------:|-----:|--------------|-------------------------------------------------|
//! | 0      | 4    | `magic`      | `HSND`                                          |
//! | 4      | 4    | `version`    | 1                                               |
//! | 8      | 4    | `codec`      | a [`SoundCodec`]                                |
//! | 12     | 4    | `flags`      | [`FLAG_LOOPS`], [`FLAG_LOUDNESS`]               |
//! | 16     | 4    | `rate`       | frames per second of the decoded sound          |
//! | 20     | 4    | `channels`   | 1 to [`MAX_CHANNELS`]                           |
//! | 24     | 8    | `frames`     | frames per channel the sound file decodes to    |
//! | 32     | 8    | `loopStart`  | first frame of the loop                         |
//! | 40     | 8    | `loopEnd`    | one past the last frame of the loop             |
//! | 48     | 4    | `loudness`   | integrated loudness, LUFS (EBU R128), `f32`     |
//! | 52     | 4    | `truePeak`   | true peak, dBTP, `f32`                          |
//! | 56     | 8    | `sound`      | [`asset_hash`](super::hash::asset_hash) id of the sound file |
//!
//! The 64-bit fields sit on multiples of 8, so [`SoundRecord`] has its
//! natural layout and a file read into an 8-byte aligned buffer can be cast
//! in place; the readers here copy it and accept any alignment.
//!
//! # What a valid file satisfies
//!
//! - exactly 64 bytes, the magic `HSND` and version 1;
//! - a known codec and no flag bits other than [`KNOWN_FLAGS`];
//! - `rate` in `1..=`[`MAX_RATE`], `channels` in `1..=`[`MAX_CHANNELS`],
//!   `frames` at least 1;
//! - with [`FLAG_LOOPS`], `loopStart < loopEnd <= frames`; without it both
//!   are 0;
//! - with [`FLAG_LOUDNESS`], `loudness` and `truePeak` are finite; without it
//!   both are `+0.0` (every bit zero).
//!
//! [`write_hsnd`] serialises a record and checks it with the reader;
//! [`read_hsnd`] and [`validate`] accept a buffer of any alignment. The
//! readers need a little-endian host.

use core::fmt;
use core::mem::offset_of;

use bytemuck::{Pod, Zeroable};

use super::bytes::{FileId, read_fixed_header, require_little_endian};
use super::error::{FormatError, FormatResult};

/// `"HSND"` read as a little-endian `u32`.
pub const MAGIC: u32 = u32::from_le_bytes(*b"HSND");
/// The version this module reads and writes.
pub const VERSION: u32 = 1;
/// `flags` bit 0: `loop_start..loop_end` is a loop.
pub const FLAG_LOOPS: u32 = 1;
/// `flags` bit 1: `loudness` and `true_peak` were measured (a silent sound
/// has no loudness, so it leaves this bit clear).
pub const FLAG_LOUDNESS: u32 = 2;
/// Every flag bit that has a meaning; the rest must be 0.
pub const KNOWN_FLAGS: u32 = FLAG_LOOPS | FLAG_LOUDNESS;
/// The most channels a sound may have.
pub const MAX_CHANNELS: u32 = 8;
/// The highest frame rate a record may state, `2^24 - 1`.
pub const MAX_RATE: u32 = 16_777_215;

/// How the sound file the record points at is encoded. Stored as a `u32`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SoundCodec {
    /// 16-bit PCM in a RIFF WAVE file.
    Pcm16 = 0,
    /// The Quite OK Audio format.
    Qoa = 1,
    /// Vorbis in an Ogg container.
    Vorbis = 2,
    /// Opus in an Ogg container; always decoded at 48 kHz.
    Opus = 3,
}

impl SoundCodec {
    /// Every codec, in value order.
    pub const ALL: [SoundCodec; 4] = [
        SoundCodec::Pcm16,
        SoundCodec::Qoa,
        SoundCodec::Vorbis,
        SoundCodec::Opus,
    ];

    /// The codec stored as `value`, or `None` if the value is unknown.
    pub const fn from_u32(value: u32) -> Option<Self> {
        match value {
            0 => Some(SoundCodec::Pcm16),
            1 => Some(SoundCodec::Qoa),
            2 => Some(SoundCodec::Vorbis),
            3 => Some(SoundCodec::Opus),
            _ => None,
        }
    }

    /// The lowercase name: `"pcm16"`, `"qoa"`, `"vorbis"` or `"opus"`.
    pub const fn name(self) -> &'static str {
        match self {
            SoundCodec::Pcm16 => "pcm16",
            SoundCodec::Qoa => "qoa",
            SoundCodec::Vorbis => "vorbis",
            SoundCodec::Opus => "opus",
        }
    }
}

impl fmt::Display for SoundCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The whole `.hsnd` file.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq)]
pub struct SoundRecord {
    /// [`MAGIC`].
    pub magic: u32,
    /// [`VERSION`].
    pub version: u32,
    /// A [`SoundCodec`] value; read it with [`SoundRecord::codec`].
    pub codec: u32,
    /// [`FLAG_LOOPS`] and [`FLAG_LOUDNESS`].
    pub flags: u32,
    /// Frames per second of the sound as decoded (48000 for Opus).
    pub rate: u32,
    /// Interleaved channels, 1 to [`MAX_CHANNELS`], in the order the sound
    /// file gives them.
    pub channels: u32,
    /// Frames per channel the sound file decodes to (for Opus, after the
    /// pre-skip and the end trimming).
    pub frames: u64,
    /// First frame of the loop; 0 without [`FLAG_LOOPS`].
    pub loop_start: u64,
    /// One past the last frame of the loop; 0 without [`FLAG_LOOPS`].
    pub loop_end: u64,
    /// Integrated loudness in LUFS; `+0.0` without [`FLAG_LOUDNESS`].
    pub loudness: f32,
    /// True peak in dBTP; `+0.0` without [`FLAG_LOUDNESS`].
    pub true_peak: f32,
    /// Asset id of the sound file: the hash of its output-relative path, as
    /// the manifest keys it.
    pub sound: u64,
}
const _: () = assert!(size_of::<SoundRecord>() == 64);
const _: () = assert!(offset_of!(SoundRecord, rate) == 16);
const _: () = assert!(offset_of!(SoundRecord, frames) == 24);
const _: () = assert!(offset_of!(SoundRecord, loop_start) == 32);
const _: () = assert!(offset_of!(SoundRecord, loop_end) == 40);
const _: () = assert!(offset_of!(SoundRecord, loudness) == 48);
const _: () = assert!(offset_of!(SoundRecord, true_peak) == 52);
const _: () = assert!(offset_of!(SoundRecord, sound) == 56);

/// Size of a `.hsnd` file.
pub const RECORD_BYTES: usize = size_of::<SoundRecord>();

impl SoundRecord {
    /// A record of a sound without a loop or a loudness measurement.
    pub const fn new(codec: SoundCodec, rate: u32, channels: u32, frames: u64, sound: u64) -> Self {
        Self {
            magic: MAGIC,
            version: VERSION,
            codec: codec as u32,
            flags: 0,
            rate,
            channels,
            frames,
            loop_start: 0,
            loop_end: 0,
            loudness: 0.0,
            true_peak: 0.0,
            sound,
        }
    }

    /// The record with the loop `start..end` (in frames) and [`FLAG_LOOPS`].
    pub const fn with_loop(mut self, start: u64, end: u64) -> Self {
        self.flags |= FLAG_LOOPS;
        self.loop_start = start;
        self.loop_end = end;
        self
    }

    /// The record with a measured loudness (LUFS) and true peak (dBTP), and
    /// [`FLAG_LOUDNESS`].
    pub const fn with_loudness(mut self, loudness: f32, true_peak: f32) -> Self {
        self.flags |= FLAG_LOUDNESS;
        self.loudness = loudness;
        self.true_peak = true_peak;
        self
    }

    /// The codec, or `None` for a value this version does not know.
    pub const fn codec(&self) -> Option<SoundCodec> {
        SoundCodec::from_u32(self.codec)
    }

    /// The loop as `(start, end)` frames, end exclusive, when the sound has one.
    pub const fn looping(&self) -> Option<(u64, u64)> {
        if self.flags & FLAG_LOOPS != 0 {
            Some((self.loop_start, self.loop_end))
        } else {
            None
        }
    }

    /// `(loudness LUFS, true peak dBTP)`, when they were measured.
    pub const fn loudness(&self) -> Option<(f32, f32)> {
        if self.flags & FLAG_LOUDNESS != 0 {
            Some((self.loudness, self.true_peak))
        } else {
            None
        }
    }

    /// The length in seconds, `frames / rate`; 0 when `rate` is 0 (which no
    /// valid record has).
    pub fn duration_seconds(&self) -> f64 {
        if self.rate == 0 {
            return 0.0;
        }
        self.frames as f64 / f64::from(self.rate)
    }
}

// ---------------------------------------------------------------------------
// Writing.
// ---------------------------------------------------------------------------

/// Serialises a record: exactly [`RECORD_BYTES`] bytes.
///
/// The bytes are checked by [`validate`] before they are returned, so a
/// record that breaks a rule of the format (an unknown codec, a loop past
/// the end, a NaN loudness, ...) is refused with the reader's error for it.
/// Fails on a big-endian host.
pub fn write_hsnd(record: &SoundRecord) -> FormatResult<Vec<u8>> {
    let bytes = bytemuck::bytes_of(record).to_vec();
    validate(&bytes)?;
    Ok(bytes)
}

// ---------------------------------------------------------------------------
// Reading.
// ---------------------------------------------------------------------------

/// Checks a whole `.hsnd` (see the module docs for the rules) held in a
/// buffer of any alignment and returns the record. Fails on a big-endian
/// host.
pub fn read_hsnd(bytes: &[u8]) -> FormatResult<SoundRecord> {
    require_little_endian("SoundRecord")?;
    let record: SoundRecord = read_fixed_header(bytes, "SoundRecord")?;
    FileId {
        magic: MAGIC,
        version: VERSION,
        magic_field: "SoundRecord.magic",
        version_field: "SoundRecord.version",
    }
    .check(record.magic, record.version)?;
    check_size(bytes.len())?;
    check_codec_and_flags(&record)?;
    check_shape(&record)?;
    check_loop(&record)?;
    check_loudness(&record)?;
    Ok(record)
}

/// Checks a whole `.hsnd` held in a buffer of any alignment. Fails on a
/// big-endian host.
pub fn validate(bytes: &[u8]) -> FormatResult<()> {
    read_hsnd(bytes).map(drop)
}

/// An error in `field`, which starts at byte `at` of the record.
fn fault(at: usize, field: &'static str, what: impl Into<String>) -> FormatError {
    FormatError::new(at as u64, field, what)
}

/// Refuses bytes after the record (a short file failed earlier).
fn check_size(len: usize) -> FormatResult<()> {
    if len == RECORD_BYTES {
        return Ok(());
    }
    Err(fault(
        RECORD_BYTES,
        "SoundRecord",
        format!("the file is {len} bytes; a sound record is exactly {RECORD_BYTES}"),
    ))
}

/// Requires a known codec and no unknown flag bits.
fn check_codec_and_flags(record: &SoundRecord) -> FormatResult<()> {
    if record.codec().is_none() {
        return Err(fault(
            offset_of!(SoundRecord, codec),
            "SoundRecord.codec",
            format!(
                "unknown codec {} (0 pcm16, 1 qoa, 2 vorbis, 3 opus)",
                record.codec
            ),
        ));
    }
    let unknown = record.flags & !KNOWN_FLAGS;
    if unknown != 0 {
        return Err(fault(
            offset_of!(SoundRecord, flags),
            "SoundRecord.flags",
            format!("unknown flag bits {unknown:#x}"),
        ));
    }
    Ok(())
}

/// Requires a rate, a channel count and a frame count in range.
fn check_shape(record: &SoundRecord) -> FormatResult<()> {
    if !(1..=MAX_RATE).contains(&record.rate) {
        return Err(fault(
            offset_of!(SoundRecord, rate),
            "SoundRecord.rate",
            format!(
                "{} frames per second is outside 1 to {MAX_RATE}",
                record.rate
            ),
        ));
    }
    if !(1..=MAX_CHANNELS).contains(&record.channels) {
        return Err(fault(
            offset_of!(SoundRecord, channels),
            "SoundRecord.channels",
            format!(
                "{} channels is outside 1 to {MAX_CHANNELS}",
                record.channels
            ),
        ));
    }
    if record.frames == 0 {
        return Err(fault(
            offset_of!(SoundRecord, frames),
            "SoundRecord.frames",
            "a sound needs at least one frame",
        ));
    }
    Ok(())
}

/// With [`FLAG_LOOPS`], requires `loopStart < loopEnd <= frames`; without
/// it, requires both to be 0.
fn check_loop(record: &SoundRecord) -> FormatResult<()> {
    let start_at = offset_of!(SoundRecord, loop_start);
    let end_at = offset_of!(SoundRecord, loop_end);
    let Some((start, end)) = record.looping() else {
        return zero_without_flag([
            (start_at, "SoundRecord.loopStart", record.loop_start),
            (end_at, "SoundRecord.loopEnd", record.loop_end),
        ]);
    };
    if end > record.frames {
        return Err(fault(
            end_at,
            "SoundRecord.loopEnd",
            format!(
                "{end} is past the end of the sound, {} frames",
                record.frames
            ),
        ));
    }
    if start >= end {
        return Err(fault(
            start_at,
            "SoundRecord.loopStart",
            format!("{start} is not before loopEnd {end}; a loop holds at least one frame"),
        ));
    }
    Ok(())
}

/// Requires the loop fields (offset, name, value) of a record without
/// [`FLAG_LOOPS`] to be 0.
fn zero_without_flag(fields: [(usize, &'static str, u64); 2]) -> FormatResult<()> {
    for (at, field, value) in fields {
        if value != 0 {
            return Err(fault(
                at,
                field,
                format!("is {value}; must be 0 without FLAG_LOOPS"),
            ));
        }
    }
    Ok(())
}

/// With [`FLAG_LOUDNESS`], requires finite figures; without it, requires
/// both to be `+0.0`.
fn check_loudness(record: &SoundRecord) -> FormatResult<()> {
    let measured = record.flags & FLAG_LOUDNESS != 0;
    let figures = [
        (
            offset_of!(SoundRecord, loudness),
            "SoundRecord.loudness",
            record.loudness,
        ),
        (
            offset_of!(SoundRecord, true_peak),
            "SoundRecord.truePeak",
            record.true_peak,
        ),
    ];
    for (at, field, value) in figures {
        if measured && !value.is_finite() {
            return Err(fault(at, field, format!("{value} is not finite")));
        }
        if !measured && value.to_bits() != 0 {
            let what = format!("is {value:?}; must be +0.0 without FLAG_LOUDNESS");
            return Err(fault(at, field, what));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hash::asset_hash;
    use crate::format::test_support::{assert_error, put_u32};

    /// A looping stereo Vorbis sound with its loudness.
    fn sample() -> SoundRecord {
        SoundRecord::new(
            SoundCodec::Vorbis,
            44_100,
            2,
            88_200,
            asset_hash("sfx/step.ogg"),
        )
        .with_loop(1_000, 80_000)
        .with_loudness(-16.5, -1.25)
    }

    fn write(record: &SoundRecord) -> Vec<u8> {
        match write_hsnd(record) {
            Ok(bytes) => bytes,
            Err(err) => panic!("the fixture is invalid: {err}"),
        }
    }

    fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }

    /// The sample's bytes with `change` applied, validated.
    fn check_changed(change: impl FnOnce(&mut Vec<u8>)) -> FormatResult<()> {
        let mut bytes = write(&sample());
        change(&mut bytes);
        validate(&bytes)
    }

    /// The sample with `change` applied, written.
    fn write_changed(change: impl FnOnce(&mut SoundRecord)) -> FormatResult<Vec<u8>> {
        let mut record = sample();
        change(&mut record);
        write_hsnd(&record)
    }

    #[test]
    fn round_trips_a_record() {
        let record = sample();
        let bytes = write(&record);
        assert_eq!(bytes.len(), 64);
        assert_eq!(read_hsnd(&bytes), Ok(record));
        assert_eq!(validate(&bytes), Ok(()));
        let plain = SoundRecord::new(SoundCodec::Opus, 48_000, 1, 1, 7);
        assert_eq!(read_hsnd(&write(&plain)), Ok(plain));
    }

    #[test]
    fn writes_the_documented_byte_layout() {
        let bytes = write(&sample());
        assert_eq!(&bytes[0..16], b"HSND\x01\0\0\0\x02\0\0\0\x03\0\0\0");
        assert_eq!(&bytes[16..24], [0x44, 0xac, 0, 0, 2, 0, 0, 0]);
        assert_eq!(&bytes[24..32], 88_200_u64.to_le_bytes());
        assert_eq!(&bytes[32..40], 1_000_u64.to_le_bytes());
        assert_eq!(&bytes[40..48], 80_000_u64.to_le_bytes());
        assert_eq!(&bytes[48..52], (-16.5_f32).to_le_bytes());
        assert_eq!(&bytes[52..56], (-1.25_f32).to_le_bytes());
        assert_eq!(&bytes[56..64], asset_hash("sfx/step.ogg").to_le_bytes());
    }

    #[test]
    fn answers_the_helper_questions() {
        let record = sample();
        assert_eq!(record.codec(), Some(SoundCodec::Vorbis));
        assert_eq!(record.looping(), Some((1_000, 80_000)));
        assert_eq!(record.loudness(), Some((-16.5, -1.25)));
        assert_eq!(record.duration_seconds(), 2.0);
        let plain = SoundRecord::new(SoundCodec::Pcm16, 22_050, 1, 11_025, 1);
        assert_eq!((plain.looping(), plain.loudness()), (None, None));
        assert_eq!(plain.duration_seconds(), 0.5);
        assert_eq!(SoundRecord::zeroed().duration_seconds(), 0.0);
        assert_eq!(SoundRecord::zeroed().codec(), Some(SoundCodec::Pcm16));
    }

    #[test]
    fn names_every_codec_and_no_other_value() {
        let names: Vec<&str> = SoundCodec::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, ["pcm16", "qoa", "vorbis", "opus"]);
        for codec in SoundCodec::ALL {
            assert_eq!(SoundCodec::from_u32(codec as u32), Some(codec));
        }
        assert_eq!(SoundCodec::from_u32(4), None);
        assert_eq!(SoundCodec::from_u32(u32::MAX), None);
        assert_eq!(SoundCodec::Opus.to_string(), "opus");
    }

    #[test]
    fn rejects_a_wrong_magic_or_version() {
        assert_error(check_changed(|b| b[3] = b'X'), "SoundRecord.magic", 0);
        assert_error(check_changed(|b| b[4] = 2), "SoundRecord.version", 4);
        assert_error(write_changed(|r| r.version = 0), "SoundRecord.version", 4);
    }

    #[test]
    fn rejects_any_size_but_64() {
        assert_error(check_changed(|b| b.truncate(63)), "SoundRecord", 0);
        assert_error(check_changed(|b| b.push(0)), "SoundRecord", 64);
        assert_error(validate(b""), "SoundRecord", 0);
        let doubled = [write(&sample()), write(&sample())].concat();
        assert_error(validate(&doubled), "SoundRecord", 64);
    }

    #[test]
    fn rejects_an_unknown_codec_or_flag() {
        assert_error(write_changed(|r| r.codec = 4), "SoundRecord.codec", 8);
        assert_error(write_changed(|r| r.flags |= 4), "SoundRecord.flags", 12);
        assert_error(check_changed(|b| b[15] = 0x80), "SoundRecord.flags", 12);
    }

    #[test]
    fn rejects_rates_and_channel_counts_out_of_range() {
        assert_error(write_changed(|r| r.rate = 0), "SoundRecord.rate", 16);
        assert_error(
            write_changed(|r| r.rate = MAX_RATE + 1),
            "SoundRecord.rate",
            16,
        );
        assert!(write_changed(|r| r.rate = MAX_RATE).is_ok());
        assert_error(
            write_changed(|r| r.channels = 0),
            "SoundRecord.channels",
            20,
        );
        assert_error(
            write_changed(|r| r.channels = 9),
            "SoundRecord.channels",
            20,
        );
        assert!(write_changed(|r| r.channels = MAX_CHANNELS).is_ok());
    }

    #[test]
    fn rejects_a_sound_without_frames() {
        assert_error(write_changed(|r| r.frames = 0), "SoundRecord.frames", 24);
    }

    #[test]
    fn rejects_loop_fields_without_the_flag() {
        let start = write_changed(|r| r.flags &= !FLAG_LOOPS);
        assert_error(start, "SoundRecord.loopStart", 32);
        let end = write_changed(|r| {
            r.flags &= !FLAG_LOOPS;
            r.loop_start = 0;
        });
        assert_error(end, "SoundRecord.loopEnd", 40);
    }

    #[test]
    fn rejects_empty_inverted_or_overlong_loops() {
        let empty = write_changed(|r| r.loop_start = r.loop_end);
        assert_error(empty, "SoundRecord.loopStart", 32);
        let inverted = check_changed(|b| put_u64(b, 32, 80_001));
        assert_error(inverted, "SoundRecord.loopStart", 32);
        let overlong = write_changed(|r| r.loop_end = r.frames + 1);
        assert_error(overlong, "SoundRecord.loopEnd", 40);
        let whole = write_changed(|r| (r.loop_start, r.loop_end) = (0, r.frames));
        assert!(whole.is_ok());
        let unset = write_changed(|r| (r.loop_start, r.loop_end) = (0, 0));
        assert_error(unset, "SoundRecord.loopStart", 32);
    }

    #[test]
    fn rejects_unmeasured_figures_that_are_not_positive_zero() {
        let loud = write_changed(|r| r.flags &= !FLAG_LOUDNESS);
        assert_error(loud, "SoundRecord.loudness", 48);
        let peak = write_changed(|r| {
            r.flags &= !FLAG_LOUDNESS;
            r.loudness = 0.0;
        });
        assert_error(peak, "SoundRecord.truePeak", 52);
        let negative_zero = write_changed(|r| {
            r.flags &= !FLAG_LOUDNESS;
            (r.loudness, r.true_peak) = (-0.0, 0.0);
        });
        assert_error(negative_zero, "SoundRecord.loudness", 48);
    }

    #[test]
    fn rejects_non_finite_measured_figures() {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let at_48 = check_changed(|b| put_u32(b, 48, bad.to_bits()));
            assert_error(at_48, "SoundRecord.loudness", 48);
            let at_52 = check_changed(|b| put_u32(b, 52, bad.to_bits()));
            assert_error(at_52, "SoundRecord.truePeak", 52);
        }
    }

    #[test]
    fn reads_a_misaligned_buffer() {
        let bytes = write(&sample());
        let mut shifted = vec![0_u8; bytes.len() + 3];
        shifted[3..].copy_from_slice(&bytes);
        assert_eq!(read_hsnd(&shifted[3..]), Ok(sample()));
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = write(&sample());
        for len in 0..bytes.len() {
            assert_error(validate(&bytes[..len]), "SoundRecord", 0);
        }
    }

    #[test]
    fn survives_arbitrary_corruption() {
        let bytes = write(&sample());
        let mut rejected = 0;
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x20, 0x41, 0x7f, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] = value;
                // Whatever is accepted must be writable again, byte for byte.
                match read_hsnd(&corrupt) {
                    Ok(record) => assert_eq!(write(&record), corrupt, "byte {at} = {value}"),
                    Err(_) => rejected += 1,
                }
            }
        }
        assert!(
            rejected > bytes.len(),
            "only {rejected} corruptions rejected"
        );
    }
}
