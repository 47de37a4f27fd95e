//! QOA ("Quite OK Audio", <https://qoaformat.org>) output: a [`Sound`]
//! becomes a `.qoa` byte stream, lossy at 3.2 bits per sample, which every
//! conforming decoder turns back into exactly the samples this encoder
//! reconstructed while it chose the bits.
//!
//! The layout, every field big-endian:
//!
//! - the file header: `qoaf`, then the frames per channel as a `u32`;
//! - frames of up to 5120 samples per channel, each with an 8-byte header (the
//!   channel count `u8`, the rate `u24`, the samples per channel `u16`, the
//!   frame's size in bytes `u16`), then each channel's predictor state (four
//!   history samples, then four weights, as `i16`), then the slices;
//! - a slice is a `u64` holding 20 samples of one channel: a 4-bit
//!   scalefactor index on top, then twenty 3-bit residual codes, the first
//!   sample highest. Slices go channel after channel for each 20 samples;
//!   the last slice of a sound may be short, its unused codes zero, and the
//!   frame header's sample count tells the decoder where to stop.
//!
//! Every sample is predicted by a four-tap sign-sign LMS filter from the
//! samples reconstructed before it; the residual is quantised against one of
//! 16 scalefactors. For each slice the encoder tries all 16 from the same
//! predictor state and keeps the one ranked best: the squared error, plus a
//! penalty once the weights grow large, which keeps the filter from running
//! away into clicks. The search starts at the previous slice's choice and a
//! tie keeps the earlier try. With the same ranking this makes the output
//! byte-identical to the reference encoder's (`qoaconv`), except where that
//! one overflows 32 bits: a residual of half the 16-bit range or more at the
//! smallest scalefactor, which it quantises with the wrong sign and this
//! encoder does not (only full-scale jumps from sample to sample get there).
//!
//! After the conversion to 16 bits ([`to_i16`]) everything is integer
//! arithmetic, the predictor's in 32-bit two's complement as the decoders
//! compute it, so the same sound always gives the same bytes. QOA has no
//! place for a loop region: [`Sound::looping`] is dropped.

use super::Sound;
use super::wav::to_i16;

/// Samples per channel in one slice.
const SLICE_LEN: usize = 20;

/// Samples per channel in every frame but the last.
const FRAME_LEN: usize = 256 * SLICE_LEN;

/// The most channels a QOA decoder must support (the reference decoder's
/// limit; the header's field would hold 255).
const QOA_MAX_CHANNELS: usize = 8;

/// The highest rate the frame header's 24-bit field holds.
const MAX_RATE: u32 = (1 << 24) - 1;

/// Bytes of one channel's predictor state in a frame header.
const LMS_STATE_BYTES: usize = 16;

/// The 16 scalefactors of the format, `round((index + 1) ^ 2.75)`.
const SCALEFACTORS: [i32; 16] = [
    1, 7, 21, 45, 84, 138, 211, 304, 421, 562, 731, 928, 1157, 1419, 1715, 2048,
];

/// For each scalefactor, the residual each 3-bit code stands for.
const DEQUANTISED: [[i32; 8]; 16] = dequantisation_table();

/// For each scalefactor, `2^16 / scalefactor` rounded up: quantising
/// multiplies by it instead of dividing.
const RECIPROCALS: [i64; 16] = reciprocal_table();

/// The 3-bit code of each scaled residual from -8 to 8 (at `scaled + 8`).
const CODES: [usize; 17] = code_table();

/// For each scalefactor, the dequantised residual each scaled residual from
/// -8 to 8 (at `scaled + 8`) comes back as: [`DEQUANTISED`] through
/// [`CODES`], one lookup instead of two on the encoder's critical path.
const LEVELS: [[i32; 17]; 16] = level_table();

/// The sum of the squared weights, in units of `2^18`, above which a
/// candidate pays a penalty (about a root-mean-square weight of 1.5).
const WEIGHT_ENERGY_ALLOWANCE: i64 = 2303;

/// What QOA cannot hold.
#[derive(Debug, thiserror::Error)]
pub enum QoaError {
    /// Zero channels, or more than decoders must support.
    #[error("{0} channels: QOA players support 1 to 8")]
    Channels(usize),
    /// A rate of 0 Hz, or one past the 24-bit field.
    #[error("a sample rate of {0} Hz: QOA holds 1 to 16,777,215 Hz")]
    Rate(u32),
    /// More frames than the file header's 32-bit count holds.
    #[error("{0} frames: QOA holds at most 4,294,967,295 frames per channel")]
    TooLong(usize),
    /// No frames at all: a QOA file holds at least one.
    #[error("the sound is empty: a QOA file holds at least one frame")]
    Empty,
}

/// Encodes `sound` as a QOA file.
///
/// The loop region, if any, is dropped: QOA has no field for it. Samples
/// past the last whole frame (when `samples.len()` is not a multiple of
/// `channels`) are ignored, as [`Sound::frames`] ignores them.
pub fn write_qoa(sound: &Sound) -> Result<Vec<u8>, QoaError> {
    let frames = checked_frames(sound)?;
    let frame_field = u32::try_from(frames).map_err(|_| QoaError::TooLong(frames))?;
    let channels = sound.channels;
    let size = encoded_size(frames, channels).ok_or(QoaError::TooLong(frames))?;
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(b"qoaf");
    out.extend_from_slice(&frame_field.to_be_bytes());
    let mut states = [ChannelState::START; QOA_MAX_CHANNELS];
    let states = &mut states[..channels];
    for frame in sound.samples[..frames * channels].chunks(FRAME_LEN * channels) {
        write_frame(&mut out, frame, sound.rate, states);
    }
    debug_assert_eq!(out.len(), size);
    Ok(out)
}

/// The number of frames of `sound`, once its channel count and rate are
/// known to fit the format and it is not empty.
fn checked_frames(sound: &Sound) -> Result<usize, QoaError> {
    if sound.channels == 0 || sound.channels > QOA_MAX_CHANNELS {
        return Err(QoaError::Channels(sound.channels));
    }
    if sound.rate == 0 || sound.rate > MAX_RATE {
        return Err(QoaError::Rate(sound.rate));
    }
    let frames = sound.frames();
    if frames == 0 {
        return Err(QoaError::Empty);
    }
    Ok(frames)
}

/// The byte size of the file for `frames` frames of `channels` channels,
/// or `None` if it does not fit in memory's address range.
fn encoded_size(frames: usize, channels: usize) -> Option<usize> {
    let frame_count = frames.div_ceil(FRAME_LEN);
    let slices = frames.div_ceil(SLICE_LEN);
    let frame_headers = frame_count.checked_mul(8 + LMS_STATE_BYTES * channels)?;
    let slice_bytes = slices.checked_mul(8 * channels)?;
    8usize.checked_add(frame_headers)?.checked_add(slice_bytes)
}

/// Writes one frame: `samples` is its interleaved part of the sound, 1 to
/// 5120 frames of `states.len()` channels.
fn write_frame(out: &mut Vec<u8>, samples: &[f32], rate: u32, states: &mut [ChannelState]) {
    let channels = states.len();
    write_frame_header(out, channels, rate, samples.len() / channels);
    for state in states.iter_mut() {
        state.start_frame();
        state.lms.write(out);
    }
    for group in samples.chunks(SLICE_LEN * channels) {
        for (channel, state) in states.iter_mut().enumerate() {
            let mut slice = [0i16; SLICE_LEN];
            let len = gather_channel(group, channels, channel, &mut slice);
            let word = state.encode_slice(&slice[..len]);
            out.extend_from_slice(&word.to_be_bytes());
        }
    }
}

/// Writes a frame header for `frame_len` samples per channel (at most
/// 5120, so the frame size, at most 16,520 bytes for 8 channels, fits too).
fn write_frame_header(out: &mut Vec<u8>, channels: usize, rate: u32, frame_len: usize) {
    let slices = frame_len.div_ceil(SLICE_LEN);
    let frame_size = 8 + LMS_STATE_BYTES * channels + 8 * slices * channels;
    let header = (channels as u64) << 56
        | u64::from(rate) << 32
        | (frame_len as u64) << 16
        | frame_size as u64;
    out.extend_from_slice(&header.to_be_bytes());
}

/// Copies `channel`'s samples out of the interleaved `group` into `slice`
/// as 16-bit PCM, returning how many there are (`group` holds at most
/// [`SLICE_LEN`] frames).
fn gather_channel(
    group: &[f32],
    channels: usize,
    channel: usize,
    slice: &mut [i16; SLICE_LEN],
) -> usize {
    let mut len = 0;
    for (dst, frame) in slice.iter_mut().zip(group.chunks_exact(channels)) {
        *dst = frame.get(channel).copied().map_or(0, to_i16);
        len += 1;
    }
    len
}

/// One channel's encoder state from slice to slice.
#[derive(Clone, Copy)]
struct ChannelState {
    /// The predictor, as the decoder will have it before the next slice.
    lms: Lms,
    /// The scalefactor chosen for the previous slice of this frame, where
    /// the next search starts.
    last_scalefactor: usize,
}

impl ChannelState {
    /// The state of every channel before the first frame.
    const START: Self = Self {
        lms: Lms::START,
        last_scalefactor: 0,
    };

    /// Prepares for a new frame: the predictor becomes what the frame
    /// header stores (16-bit fields) and the search starts over at
    /// scalefactor 0, as in the reference encoder.
    fn start_frame(&mut self) {
        self.lms = self.lms.as_stored();
        self.last_scalefactor = 0;
    }

    /// Encodes 1 to 20 samples as one slice word with the best-ranked
    /// scalefactor, and moves the predictor past them.
    fn encode_slice(&mut self, samples: &[i16]) -> u64 {
        let mut best = Trial {
            rank: u64::MAX,
            word: 0,
            lms: self.lms,
            scalefactor: self.last_scalefactor,
        };
        for step in 0..SCALEFACTORS.len() {
            let scalefactor = (self.last_scalefactor + step) % SCALEFACTORS.len();
            if let Some(trial) = try_scalefactor(samples, self.lms, scalefactor, best.rank) {
                best = trial;
            }
        }
        self.lms = best.lms;
        self.last_scalefactor = best.scalefactor;
        best.word
    }
}

/// One scalefactor's encoding of a slice.
#[derive(Clone, Copy)]
struct Trial {
    /// Squared errors plus weight penalties: lower is better.
    rank: u64,
    /// The slice as written: scalefactor index and residual codes.
    word: u64,
    /// The predictor after the slice.
    lms: Lms,
    /// The scalefactor index.
    scalefactor: usize,
}

/// Encodes `samples` (at most 20) with `scalefactor` from predictor state
/// `lms`, or gives up with `None` as soon as its rank reaches `bound`.
fn try_scalefactor(samples: &[i16], mut lms: Lms, scalefactor: usize, bound: u64) -> Option<Trial> {
    let levels = &LEVELS[scalefactor];
    let mut rank = 0u64;
    let mut word = (scalefactor as u64) << 60;
    for (&sample, position) in samples.iter().zip((0..SLICE_LEN).rev()) {
        let sample = i32::from(sample);
        let predicted = lms.predict();
        let step = scaled_residual(sample - predicted, scalefactor);
        let residual = levels[step];
        let code = CODES[step];
        let reconstructed = (predicted + residual).clamp(i32::from(i16::MIN), i32::from(i16::MAX));
        let error = u64::from((sample - reconstructed).unsigned_abs());
        rank += error * error + lms.weight_penalty();
        if rank >= bound {
            return None;
        }
        lms.update(reconstructed, residual);
        word |= (code as u64) << (3 * position);
    }
    Some(Trial {
        rank,
        word,
        lms,
        scalefactor,
    })
}

/// `residual` divided by the scalefactor, rounded to nearest but never to
/// zero unless it is zero, and clamped to ±8: as an index from 0 to 16
/// (`scaled + 8`) into [`CODES`] and [`LEVELS`]. In 64 bits, so even the
/// largest residual (a prediction may reach ±2^18) cannot overflow.
fn scaled_residual(residual: i32, scalefactor: usize) -> usize {
    let residual = i64::from(residual);
    let rounded = (residual * RECIPROCALS[scalefactor] + (1 << 15)) >> 16;
    let scaled = if rounded == 0 {
        residual.signum()
    } else {
        rounded
    };
    (scaled.clamp(-8, 8) + 8) as usize
}

/// A channel's sign-sign LMS predictor: the last four reconstructed
/// samples, oldest first, and their weights in 1.13 fixed point.
#[derive(Clone, Copy)]
struct Lms {
    /// The reconstructed samples, oldest first.
    history: [i32; 4],
    /// The weight of each history sample, `8192` being 1.
    weights: [i32; 4],
}

impl Lms {
    /// The state before the first sample: silence behind, and weights that
    /// extend the line through the last two samples (`2 × last − previous`).
    const START: Self = Self {
        history: [0; 4],
        weights: [0, 0, -(1 << 13), 1 << 14],
    };

    /// The next sample's prediction: the weighted history summed in 32-bit
    /// two's complement, as decoders compute it, out of fixed point.
    fn predict(&self) -> i32 {
        let mut sum = 0i32;
        for (&weight, &sample) in self.weights.iter().zip(&self.history) {
            sum = sum.wrapping_add(weight.wrapping_mul(sample));
        }
        sum >> 13
    }

    /// Learns from one sample: every weight moves by a sixteenth of the
    /// dequantised residual, in the direction of its history sample's sign,
    /// and the reconstructed sample joins the history.
    fn update(&mut self, reconstructed: i32, residual: i32) {
        let delta = residual >> 4;
        for (weight, &sample) in self.weights.iter_mut().zip(&self.history) {
            let step = if sample < 0 { -delta } else { delta };
            *weight = weight.wrapping_add(step);
        }
        let [_, a, b, c] = self.history;
        self.history = [a, b, c, reconstructed];
    }

    /// The rank a candidate pays for the current weights: nothing while
    /// their squared sum stays within [`WEIGHT_ENERGY_ALLOWANCE`], the
    /// square of the excess past it. A frame starts with 16-bit weights and
    /// each sample moves them by at most 896 (14336 / 16), so they stay
    /// below 2^23: the sum below 2^48, the penalty below 2^60, and a
    /// slice's rank (20 of them plus squared errors) well inside `u64`.
    fn weight_penalty(&self) -> u64 {
        let energy: i64 = self
            .weights
            .iter()
            .map(|&w| i64::from(w) * i64::from(w))
            .sum();
        let excess = ((energy >> 18) - WEIGHT_ENERGY_ALLOWANCE)
            .max(0)
            .unsigned_abs();
        excess * excess
    }

    /// The state as a decoder reads it back from a frame header, whose
    /// fields are 16 bits wide.
    fn as_stored(&self) -> Self {
        Self {
            history: self.history.map(|h| i32::from(h as i16)),
            weights: self.weights.map(|w| i32::from(w as i16)),
        }
    }

    /// Writes the state as a frame header stores it: the history, then the
    /// weights, each as a big-endian `i16`.
    fn write(&self, out: &mut Vec<u8>) {
        for value in self.history.iter().chain(&self.weights) {
            out.extend_from_slice(&(*value as i16).to_be_bytes());
        }
    }
}

/// Builds [`DEQUANTISED`]: codes 0 to 7 stand for +0.75, −0.75, +2.5, −2.5,
/// +4.5, −4.5, +7 and −7 times the scalefactor, rounded half away from zero.
const fn dequantisation_table() -> [[i32; 8]; 16] {
    let mut table = [[0; 8]; 16];
    let mut index = 0;
    while index < SCALEFACTORS.len() {
        let s = SCALEFACTORS[index];
        // Each level as a rounded fraction of s: (3s + 2) / 4 is 0.75 s
        // rounded half up, and so on; s is positive, so that is also half
        // away from zero, and the negative codes mirror the positive ones.
        let levels = [(3 * s + 2) / 4, (5 * s + 1) / 2, (9 * s + 1) / 2, 7 * s];
        let mut level = 0;
        while level < levels.len() {
            table[index][2 * level] = levels[level];
            table[index][2 * level + 1] = -levels[level];
            level += 1;
        }
        index += 1;
    }
    table
}

/// Builds [`LEVELS`].
const fn level_table() -> [[i32; 17]; 16] {
    let mut table = [[0; 17]; 16];
    let mut index = 0;
    while index < SCALEFACTORS.len() {
        let mut step = 0;
        while step < CODES.len() {
            table[index][step] = DEQUANTISED[index][CODES[step]];
            step += 1;
        }
        index += 1;
    }
    table
}

/// Builds [`RECIPROCALS`].
const fn reciprocal_table() -> [i64; 16] {
    let mut table = [0; 16];
    let mut index = 0;
    while index < SCALEFACTORS.len() {
        table[index] = (1u64 << 16).div_ceil(SCALEFACTORS[index] as u64) as i64;
        index += 1;
    }
    table
}

/// Builds [`CODES`]: a scaled residual `v` goes to the level nearest it
/// (|v| of 0 or 1 to 0.75, 2 or 3 to 2.5, 4 or 5 to 4.5, 6 to 8 to 7), the
/// code's low bit being the sign.
const fn code_table() -> [usize; 17] {
    let mut table = [0; 17];
    let mut index = 0;
    while index < table.len() {
        let scaled = index as i32 - 8;
        let level = match scaled.unsigned_abs() {
            0 | 1 => 0,
            2 | 3 => 1,
            4 | 5 => 2,
            _ => 3,
        };
        table[index] = 2 * level + (scaled < 0) as usize;
        index += 1;
    }
    table
}
