//! `.hanim` v1: skeletal animation clips of one source.
//!
//! # Layout (little-endian, no padding)
//!
//! ```text
//! header   magic "HANM" | version u32 = 1 | clipCount u32 | reserved u32 = 0
//! clip     nameLen u16 | name: nameLen bytes of UTF-8 | duration f32
//!          | channelCount u32 | the channels
//! channel  joint u32 | path u8 | interpolation u8 | components u8 | pad u8 = 0
//!          | keyCount u32 | keyCount keys
//! key      time f32 | components × f32 value
//! ```
//!
//! `components` is 4 for rotations (a quaternion `x, y, z, w`) and 3 for
//! translation and scale; it is redundant with `path` and must agree with it.
//! Clips follow one another directly and the file ends right after the last
//! one. A channel's `joint` indexes the `SKEL` array of the companion `.hmesh`
//! ([`max_joint`] gives the number to compare with its length).
//!
//! A reader accepts a file only if every byte is accounted for: known path
//! and interpolation codes, the matching component count, a zero pad and
//! reserved field, UTF-8 names, a finite non-negative duration, finite key
//! times that never decrease and finite values. Each count is checked against
//! the bytes left before anything is reserved for it, so memory use stays
//! proportional to the file size. [`write_hanim`] refuses clips that would
//! break any of these rules.
//!
//! Three readers share those checks, and none cares how the buffer is
//! aligned: [`parse_hanim`] returns an [`HAnim`] view that walks clips,
//! channels and keys in place without allocating ([`ClipView`],
//! [`ChannelView`]); [`read_hanim`] returns owned [`AnimClip`]s; [`validate`]
//! only checks. Keys start on arbitrary byte boundaries in the file, so the
//! view decodes them one at a time ([`ChannelView::key`]).

use super::bytes::{ByteReader, FileId};
use super::error::{FormatError, FormatResult};

/// `"HANM"` read as a little-endian `u32`.
pub const MAGIC: u32 = u32::from_le_bytes(*b"HANM");
/// The version this module reads and writes.
pub const VERSION: u32 = 1;

/// What a channel animates.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnimPath {
    /// Translation, 3 components.
    Translation = 0,
    /// Rotation quaternion `x, y, z, w`, 4 components.
    Rotation = 1,
    /// Scale, 3 components.
    Scale = 2,
}

impl AnimPath {
    /// Floats per key value: 4 for rotation, else 3.
    pub const fn components(self) -> usize {
        match self {
            AnimPath::Rotation => 4,
            AnimPath::Translation | AnimPath::Scale => 3,
        }
    }
}

/// How values between keys are found.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold the previous key.
    Step = 0,
    /// Lerp (slerp for rotations).
    Linear = 1,
}

/// One animated property of one joint.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimChannel {
    /// Index into the companion `.hmesh` `SKEL` array.
    pub joint: u32,
    /// The property.
    pub path: AnimPath,
    /// The interpolation.
    pub interpolation: Interpolation,
    /// Key times in seconds, ascending.
    pub times: Vec<f32>,
    /// `times.len() * path.components()` floats.
    pub values: Vec<f32>,
}

/// One named clip.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimClip {
    /// The clip's name.
    pub name: String,
    /// Seconds: the largest key time of any channel.
    pub duration: f32,
    /// The channels.
    pub channels: Vec<AnimChannel>,
}

/// Size of the file header.
pub const HEADER_BYTES: usize = 16;
/// Smallest encoded clip: name length, duration and channel count.
const MIN_CLIP_BYTES: u64 = 2 + 4 + 4;
/// Smallest encoded channel: joint, four code bytes and key count.
const MIN_CHANNEL_BYTES: u64 = 4 + 4 + 4;

impl AnimPath {
    /// The path stored as `code`, or `None` for an unknown code.
    pub const fn from_u8(code: u8) -> Option<Self> {
        match code {
            0 => Some(Self::Translation),
            1 => Some(Self::Rotation),
            2 => Some(Self::Scale),
            _ => None,
        }
    }

    /// The glTF spelling: `"translation"`, `"rotation"` or `"scale"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Translation => "translation",
            Self::Rotation => "rotation",
            Self::Scale => "scale",
        }
    }
}

impl Interpolation {
    /// The interpolation stored as `code`, or `None` for an unknown code.
    pub const fn from_u8(code: u8) -> Option<Self> {
        match code {
            0 => Some(Self::Step),
            1 => Some(Self::Linear),
            _ => None,
        }
    }

    /// The glTF spelling: `"STEP"` or `"LINEAR"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Step => "STEP",
            Self::Linear => "LINEAR",
        }
    }
}

/// The largest joint index any channel animates, or `None` without channels.
///
/// Every joint must be below the companion `.hmesh` skeleton length, so a
/// skeleton of `n` joints fits the clips when this is `None` or `< n`.
pub fn max_joint(clips: &[AnimClip]) -> Option<u32> {
    clips
        .iter()
        .flat_map(|clip| &clip.channels)
        .map(|channel| channel.joint)
        .max()
}

// ---------------------------------------------------------------------------
// Writing.
// ---------------------------------------------------------------------------

/// Serialises clips into `.hanim` bytes.
///
/// Refuses a name longer than 65535 bytes, more than `u32::MAX` clips,
/// channels or keys, and a channel whose `values` are not `components` floats
/// per key, with the offset the element would have had. The bytes are then
/// checked by [`validate`], so a clip with a non-finite value, decreasing
/// key times or a negative duration is refused with the reader's error.
pub fn write_hanim(clips: &[AnimClip]) -> FormatResult<Vec<u8>> {
    let mut out = Vec::new();
    let clip_count = count_u32(clips.len(), 8, "AnimHeader.clipCount", "clips")?;
    for word in [MAGIC, VERSION, clip_count, 0] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for (c, clip) in clips.iter().enumerate() {
        write_clip(&mut out, c, clip)?;
    }
    validate(&out)?;
    Ok(out)
}

/// Converts a length to a stored `u32` count, or fails at `at`.
fn count_u32(len: usize, at: usize, field: &'static str, what: &str) -> FormatResult<u32> {
    u32::try_from(len).map_err(|_| {
        FormatError::new(
            at as u64,
            field,
            format!("{len} {what} do not fit a u32 count"),
        )
    })
}

/// Appends clip `c`.
fn write_clip(out: &mut Vec<u8>, c: usize, clip: &AnimClip) -> FormatResult<()> {
    let name_len = u16::try_from(clip.name.len()).map_err(|_| {
        FormatError::new(
            out.len() as u64,
            "AnimClip.nameLen",
            format!(
                "clip {c}: the name is {} bytes, more than the 65535 a u16 length holds",
                clip.name.len()
            ),
        )
    })?;
    out.extend_from_slice(&name_len.to_le_bytes());
    out.extend_from_slice(clip.name.as_bytes());
    out.extend_from_slice(&clip.duration.to_le_bytes());
    let what = format!("channels in clip {c}");
    let channel_count = count_u32(
        clip.channels.len(),
        out.len(),
        "AnimClip.channelCount",
        &what,
    )?;
    out.extend_from_slice(&channel_count.to_le_bytes());
    for (j, channel) in clip.channels.iter().enumerate() {
        write_channel(out, c, j, channel)?;
    }
    Ok(())
}

/// Appends channel `j` of clip `c`.
fn write_channel(out: &mut Vec<u8>, c: usize, j: usize, channel: &AnimChannel) -> FormatResult<()> {
    let components = channel.path.components();
    out.extend_from_slice(&channel.joint.to_le_bytes());
    out.extend_from_slice(&[
        channel.path as u8,
        channel.interpolation as u8,
        components as u8,
        0,
    ]);
    let what = format!("keys in channel {j} of clip {c}");
    let key_count = count_u32(
        channel.times.len(),
        out.len(),
        "AnimChannel.keyCount",
        &what,
    )?;
    out.extend_from_slice(&key_count.to_le_bytes());
    let expected = channel.times.len().checked_mul(components);
    if expected != Some(channel.values.len()) {
        return Err(FormatError::new(
            out.len() as u64,
            "AnimKey.value",
            format!(
                "clip {c}, channel {j}: {} values for {} keys of {components} components",
                channel.values.len(),
                channel.times.len()
            ),
        ));
    }
    for (time, value) in channel
        .times
        .iter()
        .zip(channel.values.chunks_exact(components))
    {
        out.extend_from_slice(&time.to_le_bytes());
        for component in value {
            out.extend_from_slice(&component.to_le_bytes());
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Reading.
// ---------------------------------------------------------------------------

/// A validated `.hanim` file. Its clips, channels and keys are decoded on
/// demand straight from the file bytes: nothing is allocated, and any
/// alignment will do.
#[derive(Debug, Clone, Copy)]
pub struct HAnim<'a> {
    bytes: &'a [u8],
    clip_count: u32,
}

impl<'a> HAnim<'a> {
    /// The whole file.
    pub fn file_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The number of clips.
    pub fn clip_count(&self) -> usize {
        self.clip_count as usize
    }

    /// The clips, in file order.
    pub fn clips(&self) -> Clips<'a> {
        let mut reader = ByteReader::new(self.bytes);
        // The header was checked by `parse_hanim`; this only moves past it.
        let left = match reader.take(HEADER_BYTES, "AnimHeader") {
            Ok(_) => self.clip_count,
            Err(_) => 0,
        };
        Clips {
            bytes: self.bytes,
            reader,
            next: 0,
            left,
        }
    }

    /// The first clip called `name`, if any (a linear scan).
    pub fn clip(&self, name: &str) -> Option<ClipView<'a>> {
        self.clips().find(|clip| clip.name == name)
    }

    /// The largest joint index any channel animates, or `None` without
    /// channels (see [`max_joint`]).
    pub fn max_joint(&self) -> Option<u32> {
        self.clips()
            .flat_map(|clip| clip.channels())
            .map(|channel| channel.joint)
            .max()
    }

    /// Owned copies of every clip, in the writer's input form.
    pub fn to_clips(&self) -> Vec<AnimClip> {
        let mut clips = Vec::with_capacity(self.clip_count());
        clips.extend(self.clips().map(|clip| clip.to_clip()));
        clips
    }
}

/// Iterator over the clips of an [`HAnim`].
#[derive(Debug, Clone)]
pub struct Clips<'a> {
    bytes: &'a [u8],
    reader: ByteReader<'a>,
    next: usize,
    left: u32,
}

impl<'a> Iterator for Clips<'a> {
    type Item = ClipView<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.left = self.left.checked_sub(1)?;
        let clip = read_clip(&mut self.reader, self.bytes, self.next, KeyCheck::Skip);
        self.next += 1;
        // The file was validated, so decoding cannot fail; stop if it did.
        if clip.is_err() {
            self.left = 0;
        }
        clip.ok()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left as usize))
    }
}

/// One clip of a validated file, borrowing its name and channels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipView<'a> {
    /// The clip's name.
    pub name: &'a str,
    /// Seconds.
    pub duration: f32,
    channel_count: u32,
    channels: &'a [u8],
}

impl<'a> ClipView<'a> {
    /// The number of channels.
    pub fn channel_count(&self) -> usize {
        self.channel_count as usize
    }

    /// The channels, in file order.
    pub fn channels(&self) -> Channels<'a> {
        Channels {
            reader: ByteReader::new(self.channels),
            next: 0,
            left: self.channel_count,
        }
    }

    /// An owned copy, in the writer's input form.
    pub fn to_clip(&self) -> AnimClip {
        let mut channels = Vec::with_capacity(self.channel_count());
        channels.extend(self.channels().map(|channel| channel.to_channel()));
        AnimClip {
            name: self.name.to_owned(),
            duration: self.duration,
            channels,
        }
    }
}

/// Iterator over the channels of a [`ClipView`].
#[derive(Debug, Clone)]
pub struct Channels<'a> {
    reader: ByteReader<'a>,
    next: usize,
    left: u32,
}

impl<'a> Iterator for Channels<'a> {
    type Item = ChannelView<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.left = self.left.checked_sub(1)?;
        let channel = read_channel(&mut self.reader, (0, self.next));
        self.next += 1;
        // The file was validated, so decoding cannot fail; stop if it did.
        if channel.is_err() {
            self.left = 0;
        }
        channel.ok().map(|(channel, _)| channel)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left as usize))
    }
}

/// One channel of a validated file, its keys still packed in the file.
///
/// Keys are `time, value...` runs of little-endian `f32`s that start on any
/// byte boundary, so they are decoded one at a time by [`ChannelView::key`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChannelView<'a> {
    /// Index into the companion `.hmesh` `SKEL` array.
    pub joint: u32,
    /// The property.
    pub path: AnimPath,
    /// The interpolation.
    pub interpolation: Interpolation,
    keys: &'a [u8],
}

impl<'a> ChannelView<'a> {
    /// Floats per key value: 4 for rotation, else 3.
    pub fn components(&self) -> usize {
        self.path.components()
    }

    /// Bytes per stored key: the time and the value.
    fn key_bytes(&self) -> usize {
        4 * (1 + self.components())
    }

    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.keys.len() / self.key_bytes()
    }

    /// Key `index` as `(time, value)`, or `None` past the last key. A
    /// translation or scale value fills the first three components and
    /// leaves the fourth 0; a rotation is the quaternion `x, y, z, w`.
    pub fn key(&self, index: usize) -> Option<(f32, [f32; 4])> {
        let stride = self.key_bytes();
        let start = index.checked_mul(stride)?;
        let raw = self.keys.get(start..start.checked_add(stride)?)?;
        let mut floats = raw.chunks_exact(4).map(|word| {
            <[u8; 4]>::try_from(word)
                .map(f32::from_le_bytes)
                .unwrap_or_default()
        });
        let time = floats.next()?;
        let mut value = [0.0; 4];
        for (slot, component) in value.iter_mut().zip(floats) {
            *slot = component;
        }
        Some((time, value))
    }

    /// Every key as `(time, value)`, in order (see [`ChannelView::key`]).
    pub fn keys(&self) -> impl ExactSizeIterator<Item = (f32, [f32; 4])> + 'a {
        let channel = *self;
        (0..self.key_count()).map(move |index| channel.key(index).unwrap_or_default())
    }

    /// An owned copy, in the writer's input form.
    pub fn to_channel(&self) -> AnimChannel {
        let components = self.components();
        let mut times = Vec::with_capacity(self.key_count());
        let mut values = Vec::with_capacity(self.key_count() * components);
        for (time, value) in self.keys() {
            times.push(time);
            values.extend(value.iter().take(components));
        }
        AnimChannel {
            joint: self.joint,
            path: self.path,
            interpolation: self.interpolation,
            times,
            values,
        }
    }
}

/// Checks a whole `.hanim` file (see the module docs for the rules) and
/// returns a view that decodes its clips on demand, without allocating.
/// Accepts a buffer of any alignment.
pub fn parse_hanim(bytes: &[u8]) -> FormatResult<HAnim<'_>> {
    let clip_count = check_hanim(bytes)?;
    Ok(HAnim { bytes, clip_count })
}

/// Checks a whole `.hanim` file and returns owned copies of its clips.
pub fn read_hanim(bytes: &[u8]) -> FormatResult<Vec<AnimClip>> {
    parse_hanim(bytes).map(|anim| anim.to_clips())
}

/// Checks a whole `.hanim` file held in a buffer of any alignment, without
/// allocating.
pub fn validate(bytes: &[u8]) -> FormatResult<()> {
    check_hanim(bytes).map(drop)
}

/// Whether [`read_clip`] checks every key or only finds where they end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyCheck {
    /// Check times and values.
    Check,
    /// Only skip over them (the file was validated before).
    Skip,
}

/// Every rule of the format; returns the clip count.
fn check_hanim(bytes: &[u8]) -> FormatResult<u32> {
    let mut reader = ByteReader::new(bytes);
    let clip_count = read_header(&mut reader)?;
    for c in 0..clip_count as usize {
        read_clip(&mut reader, bytes, c, KeyCheck::Check)?;
    }
    if reader.remaining() != 0 {
        return Err(FormatError::new(
            reader.offset(),
            "AnimClip",
            format!(
                "{} unexpected bytes after the last of {clip_count} clips",
                reader.remaining()
            ),
        ));
    }
    Ok(clip_count)
}

/// Reads a little-endian `u32`.
fn read_u32(reader: &mut ByteReader<'_>, field: &'static str) -> FormatResult<u32> {
    reader.array(field).map(u32::from_le_bytes)
}

/// Reads a little-endian `f32`.
fn read_f32(reader: &mut ByteReader<'_>, field: &'static str) -> FormatResult<f32> {
    reader.array(field).map(f32::from_le_bytes)
}

/// Reads a count of elements at least `min_bytes` long each, and refuses it
/// if they cannot fit in the rest of the file.
fn read_count(
    reader: &mut ByteReader<'_>,
    field: &'static str,
    min_bytes: u64,
    label: &dyn Fn(u32) -> String,
) -> FormatResult<u32> {
    let at = reader.offset();
    let count = read_u32(reader, field)?;
    let needed = u64::from(count) * min_bytes;
    let left = reader.remaining() as u64;
    if needed > left {
        return Err(FormatError::new(
            at,
            field,
            format!(
                "{} need at least {needed} bytes, only {left} are left",
                label(count)
            ),
        ));
    }
    Ok(count)
}

/// Reads the header and returns the clip count.
fn read_header(reader: &mut ByteReader<'_>) -> FormatResult<u32> {
    let magic = read_u32(reader, "AnimHeader.magic")?;
    let version = read_u32(reader, "AnimHeader.version")?;
    FileId {
        magic: MAGIC,
        version: VERSION,
        magic_field: "AnimHeader.magic",
        version_field: "AnimHeader.version",
    }
    .check(magic, version)?;
    let clip_count = read_u32(reader, "AnimHeader.clipCount")?;
    let reserved = read_u32(reader, "AnimHeader.reserved")?;
    if reserved != 0 {
        return Err(FormatError::new(
            12,
            "AnimHeader.reserved",
            format!("reserved field is {reserved:#x}, not 0"),
        ));
    }
    let needed = u64::from(clip_count) * MIN_CLIP_BYTES;
    let left = reader.remaining() as u64;
    if needed > left {
        return Err(FormatError::new(
            8,
            "AnimHeader.clipCount",
            format!(
                "{clip_count} clips need at least {needed} bytes, only {left} follow the header"
            ),
        ));
    }
    Ok(clip_count)
}

/// Reads clip `c` of the file `bytes`, with or without checking its keys.
fn read_clip<'a>(
    reader: &mut ByteReader<'a>,
    bytes: &'a [u8],
    c: usize,
    keys: KeyCheck,
) -> FormatResult<ClipView<'a>> {
    let name_len = reader.u16("AnimClip.nameLen")?;
    let name_at = reader.offset();
    let raw = reader.take(usize::from(name_len), "AnimClip.name")?;
    let name = core::str::from_utf8(raw).map_err(|err| {
        FormatError::new(
            name_at + err.valid_up_to() as u64,
            "AnimClip.name",
            format!("clip {c}: the name is not valid UTF-8"),
        )
    })?;
    let duration_at = reader.offset();
    let duration = read_f32(reader, "AnimClip.duration")?;
    if !duration.is_finite() || duration < 0.0 {
        return Err(FormatError::new(
            duration_at,
            "AnimClip.duration",
            format!("clip {c}: duration {duration} is not a finite, non-negative time"),
        ));
    }
    let label = |count| format!("clip {c}: {count} channels");
    let channel_count = read_count(reader, "AnimClip.channelCount", MIN_CHANNEL_BYTES, &label)?;
    let start = reader.offset();
    for j in 0..channel_count as usize {
        let (channel, keys_at) = read_channel(reader, (c, j))?;
        if keys == KeyCheck::Check {
            check_keys(&channel, keys_at, (c, j))?;
        }
    }
    let channels = usize::try_from(start)
        .ok()
        .zip(usize::try_from(reader.offset()).ok())
        .and_then(|(start, end)| bytes.get(start..end))
        .unwrap_or_default();
    Ok(ClipView {
        name,
        duration,
        channel_count,
        channels,
    })
}

/// Reads channel `j` of clip `c` up to and including its keys, which are
/// returned unchecked with the file offset where they start.
fn read_channel<'a>(
    reader: &mut ByteReader<'a>,
    (c, j): (usize, usize),
) -> FormatResult<(ChannelView<'a>, u64)> {
    let joint = read_u32(reader, "AnimChannel.joint")?;
    let path = read_code(reader, "AnimChannel.path", AnimPath::from_u8, (c, j))?;
    let interpolation = read_code(
        reader,
        "AnimChannel.interpolation",
        Interpolation::from_u8,
        (c, j),
    )?;
    let components_at = reader.offset();
    let components = reader.u8("AnimChannel.components")?;
    if usize::from(components) != path.components() {
        return Err(FormatError::new(
            components_at,
            "AnimChannel.components",
            format!(
                "clip {c}, channel {j}: {components} components, but a {} key has {}",
                path.as_str(),
                path.components()
            ),
        ));
    }
    let pad_at = reader.offset();
    let pad = reader.u8("AnimChannel.pad")?;
    if pad != 0 {
        return Err(FormatError::new(
            pad_at,
            "AnimChannel.pad",
            format!("clip {c}, channel {j}: reserved byte is {pad}, not 0"),
        ));
    }
    let key_bytes = 4 * (1 + path.components());
    let label = |count| format!("clip {c}, channel {j}: {count} keys");
    let key_count = read_count(reader, "AnimChannel.keyCount", key_bytes as u64, &label)?;
    let keys_at = reader.offset();
    // `read_count` checked that the keys fit in the file, so this cannot overflow.
    let keys = reader.take(key_count as usize * key_bytes, "AnimKey")?;
    let channel = ChannelView {
        joint,
        path,
        interpolation,
        keys,
    };
    Ok((channel, keys_at))
}

/// Reads one enum code byte of channel `(clip, channel)`.
fn read_code<T>(
    reader: &mut ByteReader<'_>,
    field: &'static str,
    decode: fn(u8) -> Option<T>,
    (c, j): (usize, usize),
) -> FormatResult<T> {
    let at = reader.offset();
    let code = reader.u8(field)?;
    decode(code).ok_or_else(|| {
        FormatError::new(
            at,
            field,
            format!("clip {c}, channel {j}: unknown code {code}"),
        )
    })
}

/// Checks the keys (at file offset `at`) of channel `(clip, channel)`:
/// finite times that never decrease and finite values.
fn check_keys(channel: &ChannelView<'_>, at: u64, (c, j): (usize, usize)) -> FormatResult<()> {
    let key_bytes = channel.key_bytes() as u64;
    let mut previous = f32::NEG_INFINITY;
    for (k, (time, value)) in channel.keys().enumerate() {
        let key_at = at + k as u64 * key_bytes;
        let problem = if !time.is_finite() {
            Some(format!("time {time} is not finite"))
        } else if time < previous {
            Some(format!(
                "time {time} comes before the previous key's {previous}"
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(FormatError::new(
                key_at,
                "AnimKey.time",
                format!("clip {c}, channel {j}, key {k}: {problem}"),
            ));
        }
        previous = time;
        let components = value.iter().take(channel.components());
        if let Some((i, bad)) = components.enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(FormatError::new(
                key_at + 4 * (1 + i) as u64,
                "AnimKey.value",
                format!("clip {c}, channel {j}, key {k}: component {i} is {bad}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_support::{assert_error, put_u32};

    fn sample_clips() -> Vec<AnimClip> {
        vec![
            AnimClip {
                name: "Walk".to_owned(),
                duration: 1.0,
                channels: vec![
                    AnimChannel {
                        joint: 2,
                        path: AnimPath::Rotation,
                        interpolation: Interpolation::Linear,
                        times: vec![0.0, 0.5, 1.0],
                        values: vec![
                            0.0, 0.0, 0.0, 1.0, //
                            0.0, 0.707, 0.0, 0.707, //
                            0.0, 1.0, 0.0, 0.0,
                        ],
                    },
                    AnimChannel {
                        joint: 0,
                        path: AnimPath::Translation,
                        interpolation: Interpolation::Step,
                        times: vec![0.0, 0.0, 1.0],
                        values: vec![0.0, 0.0, 0.0, 1.0, 2.0, 3.0, -1.0, -2.0, -3.0],
                    },
                ],
            },
            AnimClip {
                name: String::new(),
                duration: 0.0,
                channels: Vec::new(),
            },
            AnimClip {
                name: "Idle ✓".to_owned(),
                duration: 2.5,
                channels: vec![AnimChannel {
                    joint: 7,
                    path: AnimPath::Scale,
                    interpolation: Interpolation::Linear,
                    times: vec![2.5],
                    values: vec![1.0, 1.0, 1.0],
                }],
            },
        ]
    }

    fn write(clips: &[AnimClip]) -> Vec<u8> {
        match write_hanim(clips) {
            Ok(bytes) => bytes,
            Err(err) => panic!("the fixture is invalid: {err}"),
        }
    }

    /// The sample with `change` applied to its bytes, parsed.
    fn parse_changed(change: impl FnOnce(&mut Vec<u8>)) -> FormatResult<Vec<AnimClip>> {
        let mut bytes = write(&sample_clips());
        change(&mut bytes);
        read_hanim(&bytes)
    }

    // Offsets in the sample: clip 0 "Walk" at 16, its channel 0 at 30.
    const CHANNEL0: usize = 30;
    const KEYS0: usize = CHANNEL0 + 12;

    #[test]
    fn round_trips_clips() {
        let clips = sample_clips();
        assert_eq!(read_hanim(&write(&clips)).unwrap(), clips);
        let empty = write(&[]);
        assert_eq!(empty, b"HANM\x01\0\0\0\0\0\0\0\0\0\0\0");
        assert!(read_hanim(&empty).unwrap().is_empty());
    }

    #[test]
    fn the_view_walks_clips_channels_and_keys_in_place() {
        let clips = sample_clips();
        let bytes = write(&clips);
        let anim = parse_hanim(&bytes).unwrap();
        assert_eq!(anim.clip_count(), 3);
        assert_eq!(anim.file_bytes(), bytes.as_slice());
        let views: Vec<ClipView<'_>> = anim.clips().collect();
        assert_eq!(views.len(), 3);
        let walk = views[0];
        assert_eq!(
            (walk.name, walk.duration, walk.channel_count()),
            ("Walk", 1.0, 2)
        );
        let rotation = walk.channels().next().unwrap();
        assert_eq!(
            (rotation.joint, rotation.path, rotation.interpolation),
            (2, AnimPath::Rotation, Interpolation::Linear)
        );
        assert_eq!((rotation.key_count(), rotation.components()), (3, 4));
        assert_eq!(rotation.key(1), Some((0.5, [0.0, 0.707, 0.0, 0.707])));
        assert_eq!(rotation.key(3), None);
        assert_eq!(rotation.key(usize::MAX), None);
        let translation = walk.channels().nth(1).unwrap();
        assert_eq!(translation.path, AnimPath::Translation);
        assert_eq!(translation.key(2), Some((1.0, [-1.0, -2.0, -3.0, 0.0])));
        assert_eq!(translation.keys().len(), 3);
        assert!(walk.channels().nth(2).is_none());
        assert_eq!(views[1].channels().count(), 0);
        assert_eq!(anim.clip("Idle ✓").map(|clip| clip.duration), Some(2.5));
        assert!(anim.clip("Run").is_none());
        assert_eq!(walk.to_clip(), clips[0]);
        assert_eq!(rotation.to_channel(), clips[0].channels[0]);
        assert_eq!(anim.to_clips(), clips);
    }

    #[test]
    fn the_view_needs_no_alignment_and_handles_an_empty_file() {
        let bytes = write(&sample_clips());
        for shift in 1..4 {
            let mut shifted = vec![0_u8; shift];
            shifted.extend_from_slice(&bytes);
            let anim = parse_hanim(&shifted[shift..]).unwrap();
            assert_eq!(anim.to_clips(), sample_clips());
            assert_eq!(validate(&shifted[shift..]), Ok(()));
        }
        let empty = write(&[]);
        let anim = parse_hanim(&empty).unwrap();
        assert_eq!((anim.clip_count(), anim.clips().count()), (0, 0));
        assert_eq!(anim.max_joint(), None);
    }

    #[test]
    fn writes_the_documented_byte_layout() {
        let bytes = write(&sample_clips());
        assert_eq!(&bytes[..16], b"HANM\x01\0\0\0\x03\0\0\0\0\0\0\0");
        assert_eq!(&bytes[16..18], [4, 0]);
        assert_eq!(&bytes[18..22], b"Walk");
        assert_eq!(&bytes[22..26], 1.0_f32.to_le_bytes());
        assert_eq!(&bytes[26..30], [2, 0, 0, 0]);
        assert_eq!(
            &bytes[CHANNEL0..KEYS0],
            [2, 0, 0, 0, 1, 1, 4, 0, 3, 0, 0, 0]
        );
        // Three rotation keys of 20 bytes, then the translation channel.
        let second = KEYS0 + 3 * 20;
        assert_eq!(
            &bytes[second..second + 12],
            [0, 0, 0, 0, 0, 0, 3, 0, 3, 0, 0, 0]
        );
        let expected_len = 16 + (10 + 4 + 2 * 12 + 3 * 20 + 3 * 16) + 10 + (10 + 8 + 12 + 16);
        assert_eq!(bytes.len(), expected_len);
    }

    #[test]
    fn reports_the_largest_joint() {
        assert_eq!(max_joint(&sample_clips()), Some(7));
        let bytes = write(&sample_clips());
        assert_eq!(parse_hanim(&bytes).unwrap().max_joint(), Some(7));
        assert_eq!(max_joint(&sample_clips()[1..2]), None);
        assert_eq!(max_joint(&[]), None);
    }

    #[test]
    fn refuses_to_write_unrepresentable_clips() {
        let mut clips = sample_clips();
        clips[0].name = "x".repeat(65_536);
        assert_error(write_hanim(&clips), "AnimClip.nameLen", 16);
        let mut clips = sample_clips();
        clips[0].name = "x".repeat(65_535);
        assert_eq!(read_hanim(&write(&clips)).unwrap(), clips);

        let mut clips = sample_clips();
        clips[0].channels[0].values.pop();
        assert_error(write_hanim(&clips), "AnimKey.value", KEYS0 as u64);
    }

    #[test]
    fn refuses_to_write_what_the_reader_rejects() {
        let mut clips = sample_clips();
        clips[0].channels[0].values[5] = f32::NAN;
        assert_error(
            write_hanim(&clips),
            "AnimKey.value",
            (KEYS0 + 20 + 4 + 4) as u64,
        );
        let mut clips = sample_clips();
        clips[0].channels[0].times[2] = 0.25;
        assert_error(write_hanim(&clips), "AnimKey.time", (KEYS0 + 40) as u64);
        let mut clips = sample_clips();
        clips[0].duration = -1.0;
        assert_error(write_hanim(&clips), "AnimClip.duration", 22);
    }

    #[test]
    fn rejects_bad_magic_version_and_reserved() {
        assert_error(parse_changed(|b| b[0] = b'X'), "AnimHeader.magic", 0);
        assert_error(parse_changed(|b| b[4] = 2), "AnimHeader.version", 4);
        assert_error(parse_changed(|b| b[12] = 1), "AnimHeader.reserved", 12);
    }

    #[test]
    fn rejects_counts_larger_than_the_file_before_allocating() {
        let huge = |at: usize| move |b: &mut Vec<u8>| put_u32(b, at, u32::MAX);
        assert_error(parse_changed(huge(8)), "AnimHeader.clipCount", 8);
        assert_error(parse_changed(huge(26)), "AnimClip.channelCount", 26);
        assert_error(
            parse_changed(huge(CHANNEL0 + 8)),
            "AnimChannel.keyCount",
            (CHANNEL0 + 8) as u64,
        );
        // One key more than the bytes hold.
        let one_more = |b: &mut Vec<u8>| put_u32(b, CHANNEL0 + 8, 4);
        assert!(parse_changed(one_more).is_err());
    }

    #[test]
    fn rejects_a_component_count_that_disagrees_with_the_path() {
        // The reference reader trusts this byte and overflows its 4-float keys.
        for components in [0, 3, 5, 200, 255] {
            let result = parse_changed(|b| b[CHANNEL0 + 6] = components);
            assert_error(result, "AnimChannel.components", (CHANNEL0 + 6) as u64);
        }
    }

    #[test]
    fn rejects_unknown_path_and_interpolation_codes() {
        assert_error(
            parse_changed(|b| b[CHANNEL0 + 4] = 3),
            "AnimChannel.path",
            (CHANNEL0 + 4) as u64,
        );
        let err = parse_changed(|b| b[CHANNEL0 + 5] = 2).unwrap_err();
        assert_eq!(
            (err.field, err.offset),
            ("AnimChannel.interpolation", (CHANNEL0 + 5) as u64)
        );
        assert!(err.what.contains("clip 0, channel 0"), "{err}");
    }

    #[test]
    fn rejects_a_nonzero_pad() {
        assert_error(
            parse_changed(|b| b[CHANNEL0 + 7] = 1),
            "AnimChannel.pad",
            (CHANNEL0 + 7) as u64,
        );
    }

    #[test]
    fn rejects_a_name_that_is_not_utf8() {
        assert_error(parse_changed(|b| b[19] = 0xC3), "AnimClip.name", 19);
    }

    #[test]
    fn rejects_a_bad_duration() {
        for bad in [f32::NAN, f32::INFINITY, -0.5] {
            let result = parse_changed(|b| put_u32(b, 22, bad.to_bits()));
            assert_error(result, "AnimClip.duration", 22);
        }
    }

    #[test]
    fn rejects_non_finite_or_decreasing_times() {
        let second_key = KEYS0 + 20;
        let nan = |b: &mut Vec<u8>| put_u32(b, second_key, f32::NAN.to_bits());
        assert_error(parse_changed(nan), "AnimKey.time", second_key as u64);
        let back = |b: &mut Vec<u8>| put_u32(b, second_key, (-0.1_f32).to_bits());
        assert_error(parse_changed(back), "AnimKey.time", second_key as u64);
        let infinite = |b: &mut Vec<u8>| put_u32(b, KEYS0, f32::NEG_INFINITY.to_bits());
        assert_error(parse_changed(infinite), "AnimKey.time", KEYS0 as u64);
    }

    #[test]
    fn rejects_non_finite_values() {
        let value = KEYS0 + 20 + 4 + 12;
        let result = parse_changed(|b| put_u32(b, value, f32::INFINITY.to_bits()));
        assert_error(result, "AnimKey.value", value as u64);
    }

    #[test]
    fn rejects_trailing_bytes() {
        let bytes = write(&sample_clips());
        let len = bytes.len() as u64;
        assert_error(parse_changed(|b| b.push(0)), "AnimClip", len);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = write(&sample_clips());
        for len in 0..bytes.len() {
            assert!(read_hanim(&bytes[..len]).is_err(), "length {len}");
            assert!(validate(&bytes[..len]).is_err(), "length {len}");
        }
    }

    #[test]
    fn survives_arbitrary_corruption() {
        let bytes = write(&sample_clips());
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x03, 0x04, 0x7f, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] = value;
                // Whatever is accepted must be writable again, byte for byte.
                if let Ok(clips) = read_hanim(&corrupt) {
                    assert_eq!(write_hanim(&clips).unwrap(), corrupt, "byte {at} = {value}");
                }
                assert_eq!(validate(&corrupt).is_ok(), parse_hanim(&corrupt).is_ok());
            }
        }
    }
}
