//! `.hanim` v1: skeletal animation clips.
//!
//! PINNED TYPES (issue 4): shared by writer and reader; the functions are
//! filled in by the format work.
//!
//! ```text
//! magic "HANM" | version u32 = 1 | clipCount u32 | reserved u32 = 0
//! per clip:    nameLen u16 | name (UTF-8) | duration f32 | channelCount u32
//! per channel: joint u32 | path u8 | interpolation u8 | components u8 | pad u8 = 0
//!              | keyCount u32 | keyCount * (time f32, components * f32)
//! ```

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
