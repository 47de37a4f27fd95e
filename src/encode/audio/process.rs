//! What the `audio:` settings do to a decoded [`Sound`], in this order:
//! downmix (`mono`), trim silence (`trim`), resample (`rate`, or 48 kHz for
//! Opus), then gain to the loudness target (`loudness`) capped by the
//! true-peak ceiling (`true_peak`), or with `normalize: peak` to the ceiling
//! itself, measured on what is written. Every step
//! is plain arithmetic in a fixed order, so the same source gives the same
//! samples on every run and every CPU.

use ebur128::{EbuR128, Mode};

use super::{AudioError, AudioOptions, Sound, opus, resample};
use crate::config::{AudioCodec, NormalizeSetting};

/// Frames quieter than this (dBFS) at both ends are cut by `trim`.
pub const SILENCE_DBFS: f32 = -50.0;

/// Applies `options` to `sound`, and returns the integrated loudness
/// (LUFS) and true peak (dBTP) of the result; `None` for silence, which has
/// no loudness.
pub fn apply(sound: &mut Sound, options: &AudioOptions) -> Result<Option<(f32, f32)>, AudioError> {
    if options.mono && sound.channels > 1 {
        downmix(sound);
    }
    if options.trim {
        trim(sound);
    }
    if let Some(rate) = output_rate(options) {
        resample::resample(sound, rate)?;
    }
    let Some((loudness, peak)) = measure(sound) else {
        return Ok(None);
    };
    let ceiling = options.true_peak - peak;
    let gain = match (options.normalize, options.loudness) {
        (NormalizeSetting::Peak, _) => ceiling,
        (NormalizeSetting::Loudness, Some(target)) => (target - loudness).min(ceiling),
        (NormalizeSetting::Loudness, None) => return Ok(Some((loudness, peak))),
    };
    // One gain for the whole sound, so both figures move by exactly it.
    let factor = 10f32.powf(gain / 20.0);
    sound.samples.iter_mut().for_each(|s| *s *= factor);
    Ok(Some((loudness + gain, peak + gain)))
}

/// The rate the output is written at, when it is not the source's: Opus
/// always runs at 48 kHz, the others at `rate` when it is set.
fn output_rate(options: &AudioOptions) -> Option<u32> {
    match options.codec {
        AudioCodec::Opus => Some(opus::OPUS_RATE),
        _ => options.rate,
    }
}

/// Averages the channels of every frame into one.
fn downmix(sound: &mut Sound) {
    let channels = sound.channels;
    sound.samples = sound
        .samples
        .chunks_exact(channels)
        .map(|frame| frame.iter().sum::<f32>() / channels as f32)
        .collect();
    sound.channels = 1;
}

/// Cuts the frames below [`SILENCE_DBFS`] at both ends, never inside the
/// loop; the loop moves with the cut. A sound that is silence throughout
/// stays as it is.
fn trim(sound: &mut Sound) {
    let threshold = 10f32.powf(SILENCE_DBFS / 20.0);
    let channels = sound.channels;
    let loud = |frame: &[f32]| frame.iter().any(|s| s.abs() >= threshold);
    let frames = || sound.samples.chunks_exact(channels);
    let (Some(first), Some(last)) = (frames().position(loud), frames().rposition(loud)) else {
        return;
    };
    let (mut start, mut end) = (first, last + 1);
    if let Some(looping) = sound.looping {
        start = start.min(looping.start as usize);
        end = end.max(looping.end as usize);
    }
    sound.samples = sound.samples[start * channels..end * channels].to_vec();
    if let Some(looping) = &mut sound.looping {
        looping.start -= start as u64;
        looping.end -= start as u64;
    }
}

/// Integrated loudness (LUFS) and true peak (dBTP) of `sound`, per
/// ITU-R BS.1770 as EBU R128 specifies them. A sound shorter than one
/// 400 ms gating block (most one-shot effects) is measured as that block:
/// followed by silence up to 400 ms. `None` for silence.
pub fn measure(sound: &Sound) -> Option<(f32, f32)> {
    let mut meter =
        EbuR128::new(sound.channels as u32, sound.rate, Mode::I | Mode::TRUE_PEAK).ok()?;
    meter.add_frames_f32(&sound.samples).ok()?;
    // One gating block is four 100 ms steps; the meter counts whole steps,
    // so a rate not divisible by 10 needs each step rounded up.
    let block = 4 * sound.rate.div_ceil(10) as usize;
    if sound.frames() < block {
        let padding = vec![0.0f32; (block - sound.frames()) * sound.channels];
        meter.add_frames_f32(&padding).ok()?;
    }
    let loudness = meter.loudness_global().ok()?;
    let peak = (0..sound.channels as u32)
        .filter_map(|channel| meter.true_peak(channel).ok())
        .fold(0.0f64, f64::max);
    (loudness.is_finite() && peak > 0.0).then(|| (loudness as f32, (20.0 * peak.log10()) as f32))
}
