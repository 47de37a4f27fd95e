//! QOA output (`qoa.rs`) read back by an independent decoder, `qoaudio`.

use super::qoa::{QoaError, write_qoa};
use super::wav::to_i16;
use super::*;

/// The next value in `[-1, 1)` of a deterministic pseudo-random sequence.
fn qoa_noise(state: &mut u32) -> f32 {
    *state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    (*state >> 8) as f32 / (1 << 23) as f32 - 1.0
}

/// A sound of `frames` frames: on each channel a sine (its own pitch, at
/// half scale) plus noise at a fiftieth of full scale.
fn qoa_test_sound(rate: u32, channels: usize, frames: usize) -> Sound {
    let mut state = 1;
    let mut samples = Vec::with_capacity(frames * channels);
    for frame in 0..frames {
        for channel in 0..channels {
            let hz = 220.0 * (channel + 1) as f32;
            let phase = std::f32::consts::TAU * hz * frame as f32 / rate as f32;
            samples.push(0.5 * phase.sin() + 0.02 * qoa_noise(&mut state));
        }
    }
    Sound {
        rate,
        channels,
        samples,
        looping: None,
    }
}

/// A sound built from integers alone (no `sin`, whose last bit may differ
/// between math libraries): on each channel a triangle wave with noise and
/// a jump every 1000 frames, every sample a multiple of `1 / 32768`.
fn qoa_integer_sound(rate: u32, channels: usize, frames: usize) -> Sound {
    let mut state = 7;
    let mut samples = Vec::with_capacity(frames * channels);
    for frame in 0..frames {
        for channel in 0..channels {
            let period = 100 + 37 * channel as i32;
            let phase = frame as i32 % period;
            let triangle = 24_000 * (phase.min(period - phase)) / period - 6_000;
            let jump = if frame / 1000 % 2 == 1 { 15_000 } else { 0 };
            let noise = (qoa_noise(&mut state) * 600.0) as i32;
            let value = (triangle + jump + noise).clamp(-32_768, 32_767);
            samples.push(value as f32 / 32_768.0);
        }
    }
    Sound {
        rate,
        channels,
        samples,
        looping: None,
    }
}

/// The 64-bit FNV-1a hash of `bytes`.
fn qoa_fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `bytes` decoded by `qoaudio`.
fn qoa_decoded(bytes: &[u8]) -> qoaudio::DecodedQoa {
    qoaudio::decode_all(bytes).expect("qoaudio decodes our QOA output")
}

/// The signal-to-noise ratio in dB of `decoded` against the 16-bit input.
fn qoa_snr_db(sound: &Sound, decoded: &[i16]) -> f64 {
    let (mut signal, mut noise) = (0.0f64, 0.0f64);
    for (&original, &decoded) in sound.samples.iter().zip(decoded) {
        let original = f64::from(to_i16(original));
        signal += original * original;
        noise += (original - f64::from(decoded)).powi(2);
    }
    10.0 * (signal / noise).log10()
}

/// One to eight channels, one frame to just past a full QOA frame: the
/// decoder finds the channel count, the rate and every frame.
#[test]
fn qoa_headers_carry_channels_rate_and_length() {
    for (channels, frames) in [(1, 1), (2, 5120), (3, 5121), (8, 20 * 3 + 1)] {
        let sound = qoa_test_sound(22_050, channels, frames);
        let bytes = write_qoa(&sound).unwrap();
        let decoded = qoa_decoded(&bytes);
        assert_eq!(usize::from(decoded.num_channels), channels);
        assert_eq!(decoded.sample_rate, 22_050);
        assert_eq!(
            decoded.samples.len(),
            frames * channels,
            "{channels} × {frames}"
        );
    }
}

/// Two seconds of stereo sine and noise come back above 38 dB SNR.
#[test]
fn qoa_sine_and_noise_keeps_its_snr() {
    let sound = qoa_test_sound(44_100, 2, 44_100 * 2);
    let decoded = qoa_decoded(&write_qoa(&sound).unwrap());
    let snr = qoa_snr_db(&sound, &decoded.samples);
    // Measured: 39.3 dB.
    assert!(snr > 38.0, "SNR {snr:.2} dB");
}

/// A length that ends mid-slice in a short last frame: the file has the
/// size the format gives it and decodes to exactly the frames put in.
#[test]
fn qoa_odd_length_stereo_decodes_to_every_frame() {
    let frames = 5120 * 2 + 37;
    let sound = qoa_test_sound(48_000, 2, frames);
    let bytes = write_qoa(&sound).unwrap();
    // Header, 3 frame headers with 2 predictor states, 514 slices per channel.
    assert_eq!(bytes.len(), 8 + 3 * (8 + 2 * 16) + 514 * 2 * 8);
    let decoded = qoa_decoded(&bytes);
    assert_eq!(decoded.samples.len(), frames * 2);
    // Measured: 37.0 dB (higher pitches than the SNR test's, at 48 kHz).
    let snr = qoa_snr_db(&sound, &decoded.samples);
    assert!(snr > 36.0, "SNR {snr:.2} dB");
}

/// Encoding is deterministic.
#[test]
fn qoa_the_same_sound_gives_the_same_bytes() {
    let sound = qoa_test_sound(44_100, 2, 10_000);
    assert_eq!(write_qoa(&sound).unwrap(), write_qoa(&sound).unwrap());
}

/// A rate past the 24-bit field, an empty sound and zero channels are
/// errors, not panics; the highest rate QOA holds is accepted.
#[test]
fn qoa_refuses_what_the_format_cannot_hold() {
    let mut sound = qoa_test_sound(16_777_216, 1, 100);
    let error = write_qoa(&sound).unwrap_err();
    assert!(matches!(error, QoaError::Rate(16_777_216)), "{error:?}");
    assert!(error.to_string().contains("16,777,215 Hz"), "{error}");
    sound.rate = 16_777_215;
    assert!(write_qoa(&sound).is_ok());
    sound.samples.clear();
    assert!(matches!(write_qoa(&sound), Err(QoaError::Empty)));
    sound.channels = 0;
    assert!(matches!(write_qoa(&sound), Err(QoaError::Channels(0))));
}

/// Our bytes are the reference encoder's for the same 16-bit input.
#[test]
fn qoa_bytes_match_the_reference_encoder() {
    // The length and FNV-1a hash of what the reference encoder (`qoaconv`
    // from github.com/phoboslab/qoa, commit 769a116) writes for this sound
    // as a 16-bit WAV: same LMS rules, same ranking, same tie-breaking.
    let bytes = write_qoa(&qoa_integer_sound(44_100, 2, 5120 * 3 + 11)).unwrap();
    assert_eq!(bytes.len(), 12_472);
    assert_eq!(qoa_fnv1a(&bytes), 0x05d1_7ff7_0b34_4f11);
}
