//! Sample-rate conversion (`audio.rate`, and the 48 kHz Opus needs) with
//! rubato's band-limited sinc resampler.
//!
//! rubato picks an AVX, SSE or NEON dot product at run time, and those sum in
//! a different order from its scalar one, so the samples would depend on the
//! CPU. The resampler here is built on the scalar interpolator by name: the
//! same source gives the same samples on every machine.
//!
//! The length after conversion is defined exactly: `frames × to / from`,
//! rounded to the nearest frame, with the resampler's delay removed, so a
//! sound starts where it started. A loop's ends scale the same way.

use rubato::audioadapter_buffers::direct::InterleavedSlice;
use rubato::sinc_interpolator::{AnyInterpolator, ScalarInterpolator};
use rubato::{Async, FixedAsync, Indexing, Resampler, SincInterpolationType, WindowFunction};

use super::{AudioError, Loop, Sound};

/// Taps of the sinc filter: long enough for a flat pass band to about
/// 0.95 of Nyquist.
const SINC_LEN: usize = 256;
/// Sinc tables between two input samples (interpolated cubically).
const OVERSAMPLING: usize = 256;
/// The window of the sinc filter.
const WINDOW: WindowFunction = WindowFunction::BlackmanHarris2;
/// Input frames handed to the resampler per call.
const CHUNK: usize = 1024;
/// How far, in input frames, rubato's interpolation window reaches behind
/// the position it computes (see [`convert`]); checked by the audio tests,
/// which fail if a rubato update moves it.
const FILTER_DELAY: u64 = 128;

/// Converts `sound` to `rate` Hz; nothing happens if it is at that rate.
pub fn resample(sound: &mut Sound, rate: u32) -> Result<(), AudioError> {
    if sound.rate == rate {
        return Ok(());
    }
    let from = sound.rate;
    let frames = sound.frames();
    let wanted = scale(frames as u64, from, rate) as usize;
    let samples = convert(&sound.samples, sound.channels, from, rate, wanted)?;
    sound.looping = sound.looping.map(|looping| Loop {
        start: scale(looping.start, from, rate),
        end: scale(looping.end, from, rate),
    });
    sound.samples = samples;
    sound.rate = rate;
    Ok(())
}

/// `frame` at `from` Hz as the nearest frame at `to` Hz.
pub fn scale(frame: u64, from: u32, to: u32) -> u64 {
    let (from, to) = (u128::from(from), u128::from(to));
    ((u128::from(frame) * to + from / 2) / from) as u64
}

/// `samples` (interleaved, `channels` wide) resampled from `from` to `to`
/// Hz, exactly `wanted` frames long, not shifted in time.
///
/// rubato's asynchronous resampler places its `k`-th output frame (from 0,
/// counting every frame it writes) at input position
/// `(k + 1) / ratio - FILTER_DELAY`. The input is led by silence that makes
/// that delay a whole number of output frames, and those frames are dropped,
/// so output frame `j` sits exactly at input position `j / ratio`.
fn convert(
    samples: &[f32],
    channels: usize,
    from: u32,
    to: u32,
    wanted: usize,
) -> Result<Vec<f32>, AudioError> {
    let period = u64::from(from / gcd(from, to));
    let lead = FILTER_DELAY.next_multiple_of(period) - FILTER_DELAY;
    let skip = ((FILTER_DELAY + lead) * u64::from(to) / u64::from(from) - 1) as usize;
    let mut padded = vec![0.0f32; lead as usize * channels];
    padded.extend_from_slice(samples);
    let raw = run(
        &padded,
        channels,
        f64::from(to) / f64::from(from),
        skip + wanted,
    )?;
    Ok(raw[skip * channels..].to_vec())
}

/// Every frame rubato writes for `input` (then silence), until there are
/// `frames` of them, cut to exactly that many.
fn run(input: &[f32], channels: usize, ratio: f64, frames: usize) -> Result<Vec<f32>, AudioError> {
    let mut resampler = scalar_resampler(ratio, channels)?;
    let input_frames = input.len() / channels;
    let input = InterleavedSlice::new(input, channels, input_frames).map_err(failed)?;
    let room = frames + resampler.output_frames_max();
    let mut out = vec![0.0f32; room * channels];
    let mut output = InterleavedSlice::new_mut(&mut out, channels, room).map_err(failed)?;
    let mut indexing = Indexing::new();
    let mut written = 0;
    while written < frames {
        let left = input_frames.saturating_sub(indexing.input_offset);
        let next = resampler.input_frames_next();
        indexing.partial_len = (left < next).then_some(left);
        let (read, wrote) = resampler
            .process_into_buffer(&input, &mut output, Some(&indexing))
            .map_err(failed)?;
        indexing.input_offset += read.min(left);
        indexing.output_offset += wrote;
        written += wrote;
    }
    out.truncate(frames * channels);
    Ok(out)
}

/// The greatest common divisor of two rates.
fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// rubato's asynchronous sinc resampler on its scalar interpolator, with
/// the cutoff lowered below the output's Nyquist frequency when going down.
fn scalar_resampler(ratio: f64, channels: usize) -> Result<Async<f32>, AudioError> {
    let mut cutoff = rubato::calculate_cutoff(SINC_LEN, WINDOW);
    if ratio < 1.0 {
        cutoff *= ratio as f32;
    }
    let interpolator = AnyInterpolator::Scalar(ScalarInterpolator::new(
        SINC_LEN,
        OVERSAMPLING,
        cutoff,
        WINDOW,
    ));
    Async::new_with_sinc_interpolator(
        ratio,
        1.0,
        SincInterpolationType::Cubic,
        interpolator,
        cutoff,
        CHUNK,
        channels,
        FixedAsync::Input,
    )
    .map_err(failed)
}

/// A resampler failure (sizes it refuses) as ours.
fn failed(error: impl std::fmt::Display) -> AudioError {
    AudioError::Resample(error.to_string())
}
