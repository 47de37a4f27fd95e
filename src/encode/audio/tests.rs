//! The audio encoder on generated WAV sources: every PCM layout in, the
//! loop carried over, each processing step, and hostile files.

use super::*;
use crate::config::{AudioCodec, NormalizeSetting};

/// PCM sample encodings of the generated sources.
#[derive(Clone, Copy)]
enum Layout {
    U8,
    I16,
    I24,
    F32,
}

/// A RIFF WAVE file of `samples` (interleaved, in `[-1, 1]`), with a `smpl`
/// loop when `looping` is set.
fn wav(
    layout: Layout,
    rate: u32,
    channels: u16,
    samples: &[f32],
    looping: Option<(u32, u32)>,
) -> Vec<u8> {
    let (format, bits): (u16, u16) = match layout {
        Layout::U8 => (1, 8),
        Layout::I16 => (1, 16),
        Layout::I24 => (1, 24),
        Layout::F32 => (3, 32),
    };
    let mut data = Vec::new();
    for &s in samples {
        match layout {
            Layout::U8 => data.push((s * 127.0 + 128.0).round() as u8),
            Layout::I16 => data.extend_from_slice(&((s * 32767.0).round() as i16).to_le_bytes()),
            Layout::I24 => {
                data.extend_from_slice(&((s * 8_388_607.0).round() as i32).to_le_bytes()[..3])
            }
            Layout::F32 => data.extend_from_slice(&s.to_le_bytes()),
        }
    }
    let block = channels * bits / 8;
    let mut body = Vec::new();
    body.extend_from_slice(b"WAVEfmt ");
    body.extend_from_slice(&16u32.to_le_bytes());
    body.extend_from_slice(&format.to_le_bytes());
    body.extend_from_slice(&channels.to_le_bytes());
    body.extend_from_slice(&rate.to_le_bytes());
    body.extend_from_slice(&(rate * u32::from(block)).to_le_bytes());
    body.extend_from_slice(&block.to_le_bytes());
    body.extend_from_slice(&bits.to_le_bytes());
    body.extend_from_slice(b"data");
    body.extend_from_slice(&(data.len() as u32).to_le_bytes());
    body.extend_from_slice(&data);
    if data.len() % 2 == 1 {
        body.push(0);
    }
    if let Some((start, last)) = looping {
        body.extend_from_slice(b"smpl");
        body.extend_from_slice(&60u32.to_le_bytes());
        for field in [0, 0, 0, 60, 0, 0, 0, 1, 0, 0, 0, start, last, 0, 0] {
            body.extend_from_slice(&field.to_le_bytes());
        }
    }
    let mut file = b"RIFF".to_vec();
    file.extend_from_slice(&(body.len() as u32).to_le_bytes());
    file.extend_from_slice(&body);
    file
}

/// `frames` frames of a `hz` sine at `amplitude`, the same in each channel.
fn sine(rate: u32, channels: usize, frames: usize, hz: f32, amplitude: f32) -> Vec<f32> {
    (0..frames)
        .flat_map(|i| {
            let v = amplitude * (2.0 * std::f32::consts::PI * hz * i as f32 / rate as f32).sin();
            std::iter::repeat_n(v, channels)
        })
        .collect()
}

const PLAIN: AudioOptions = AudioOptions {
    mono: false,
    loudness: None,
    true_peak: -1.0,
    normalize: NormalizeSetting::Loudness,
    trim: false,
    codec: AudioCodec::Pcm16,
    rate: None,
    vorbis_quality: 5.0,
    opus_bitrate: 64,
    looping: LoopChoice::Source,
};

fn decoded(bytes: &[u8]) -> Sound {
    decode::decode(bytes, "wav").unwrap()
}

/// The WAV `source` encoded with `options`, decoded again.
fn processed(source: &[u8], options: &AudioOptions) -> Sound {
    decoded(&encode_audio(source, "wav", options).unwrap().bytes)
}

#[test]
fn every_pcm_layout_decodes_to_its_samples() {
    let source = sine(8000, 2, 500, 440.0, 0.5);
    for (layout, step) in [
        (Layout::U8, 1.0 / 128.0),
        (Layout::I16, 1.0 / 32768.0),
        (Layout::I24, 1.0 / 8_388_608.0),
        (Layout::F32, 0.0),
    ] {
        let sound = decoded(&wav(layout, 8000, 2, &source, None));
        assert_eq!((sound.rate, sound.channels, sound.frames()), (8000, 2, 500));
        let worst = sound
            .samples
            .iter()
            .zip(&source)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst <= step + 1e-6, "{worst} against a step of {step}");
    }
}

#[test]
fn the_output_is_pcm16_with_the_same_samples() {
    let source = sine(22050, 1, 3000, 300.0, 0.8);
    let encoded = encode_audio(&wav(Layout::F32, 22050, 1, &source, None), "wav", &PLAIN).unwrap();
    assert_eq!(
        (
            encoded.codec,
            encoded.rate,
            encoded.channels,
            encoded.frames
        ),
        (AudioCodec::Pcm16, 22050, 1, 3000)
    );
    let out = encoded.bytes;
    assert_eq!(&out[0..4], b"RIFF");
    assert_eq!(
        u16::from_le_bytes([out[34], out[35]]),
        16,
        "bits per sample"
    );
    let sound = decoded(&out);
    assert_eq!(
        (sound.rate, sound.channels, sound.frames()),
        (22050, 1, 3000)
    );
    for (a, b) in sound.samples.iter().zip(&source) {
        assert!((a - b).abs() <= 0.5 / 32768.0 + 1e-6);
    }
    assert_eq!(out.len(), 44 + 3000 * 2, "no chunk but fmt and data");
}

#[test]
fn a_smpl_loop_is_carried_over_frame_exact() {
    let source = sine(8000, 1, 1000, 100.0, 0.5);
    let out = encode_audio(
        &wav(Layout::I16, 8000, 1, &source, Some((200, 599))),
        "wav",
        &PLAIN,
    )
    .unwrap()
    .bytes;
    assert_eq!(
        decoded(&out).looping,
        Some(Loop {
            start: 200,
            end: 600
        })
    );
}

#[test]
fn trimming_cuts_silence_but_never_the_loop() {
    let mut source = vec![0.0f32; 300];
    source.extend(sine(8000, 1, 400, 200.0, 0.5));
    source.extend(vec![0.0f32; 300]);
    let trim = AudioOptions {
        trim: true,
        ..PLAIN
    };
    let plain = processed(&wav(Layout::I16, 8000, 1, &source, None), &trim);
    // The sine's first sample is 0; the cut keeps everything from its
    // second frame (the first one above -50 dBFS) to its last loud frame.
    assert!(
        plain.frames() < 400 && plain.frames() > 390,
        "{}",
        plain.frames()
    );
    let looped = wav(Layout::I16, 8000, 1, &source, Some((100, 899)));
    let kept = processed(&looped, &trim);
    assert_eq!(kept.frames(), 800, "the loop's frames stay");
    assert_eq!(kept.looping, Some(Loop { start: 0, end: 800 }));
}

#[test]
fn mono_averages_the_channels() {
    let stereo: Vec<f32> = (0..200)
        .flat_map(|i| [0.5, if i % 2 == 0 { 0.1 } else { -0.1 }])
        .collect();
    let mono = AudioOptions {
        mono: true,
        ..PLAIN
    };
    let sound = processed(&wav(Layout::F32, 8000, 2, &stereo, None), &mono);
    assert_eq!(sound.channels, 1);
    assert!((sound.samples[0] - 0.3).abs() < 1e-4 && (sound.samples[1] - 0.2).abs() < 1e-4);
}

#[test]
fn loudness_reaches_its_target_under_the_ceiling() {
    let quiet = sine(48000, 2, 48000 * 3, 1000.0, 0.05);
    let options = AudioOptions {
        loudness: Some(-16.0),
        ..PLAIN
    };
    let source = wav(Layout::F32, 48000, 2, &quiet, None);
    let out = processed(&source, &options);
    let (loudness, peak) = process::measure(&out).unwrap();
    assert!((loudness + 16.0).abs() < 0.1, "{loudness} LUFS");
    assert!(peak <= -1.0 + 0.05, "{peak} dBTP");
    // The record's figures are those of the written samples.
    let (stated, stated_peak) = encode_audio(&source, "wav", &options)
        .unwrap()
        .loudness
        .unwrap();
    assert!((stated - loudness).abs() < 0.01 && (stated_peak - peak).abs() < 0.05);
    // A square wave at full scale is already louder than -16 LUFS at its
    // peak: the ceiling wins and the peak lands on it.
    let square: Vec<f32> = (0..48000 * 2)
        .map(|i| if (i / 24) % 2 == 0 { 0.99 } else { -0.99 })
        .collect();
    let loud = AudioOptions {
        loudness: Some(-6.0),
        ..PLAIN
    };
    let out = processed(&wav(Layout::F32, 48000, 1, &square, None), &loud);
    let (_, peak) = process::measure(&out).unwrap();
    assert!(peak <= -1.0 + 0.05, "{peak} dBTP");
}

#[test]
fn peak_normalisation_puts_the_true_peak_on_the_ceiling() {
    let quiet = sine(44100, 1, 44100, 440.0, 0.05);
    let options = AudioOptions {
        normalize: NormalizeSetting::Peak,
        loudness: Some(-30.0),
        true_peak: -3.0,
        ..PLAIN
    };
    let out = processed(&wav(Layout::F32, 44100, 1, &quiet, None), &options);
    let (loudness, peak) = process::measure(&out).unwrap();
    assert!((peak + 3.0).abs() < 0.05, "{peak} dBTP");
    // The loudness target plays no part: a sine peaking at -3 dBTP is
    // about -6 LUFS, far above the -30 asked.
    assert!(loudness > -8.0, "{loudness} LUFS");
}

#[test]
fn a_sound_shorter_than_one_gating_block_is_measured_as_one() {
    // 100 ms of a 1 kHz tone: as one 400 ms block, a quarter of its energy.
    let blip = sine(48000, 1, 4800, 1000.0, 0.05);
    let options = AudioOptions {
        loudness: Some(-16.0),
        ..PLAIN
    };
    let out = processed(&wav(Layout::F32, 48000, 1, &blip, None), &options);
    assert_eq!(out.frames(), 4800, "no padding is written");
    let (loudness, _) = process::measure(&out).unwrap();
    assert!((loudness + 16.0).abs() < 0.1, "{loudness} LUFS");
    // At 11025 Hz a 100 ms step is not a whole number of frames.
    let low = sine(11025, 2, 3307, 500.0, 0.05);
    let out = processed(&wav(Layout::F32, 11025, 2, &low, None), &options);
    let (loudness, _) = process::measure(&out).unwrap();
    assert!((loudness + 16.0).abs() < 0.1, "{loudness} LUFS at 11025 Hz");
    let silence = wav(Layout::F32, 48000, 1, &[0.0; 4800], None);
    assert!(
        processed(&silence, &options)
            .samples
            .iter()
            .all(|&s| s == 0.0)
    );
}

#[test]
fn the_same_source_gives_the_same_bytes() {
    let source = wav(
        Layout::I24,
        44100,
        2,
        &sine(44100, 2, 44100, 220.0, 0.3),
        Some((10, 4000)),
    );
    let options = AudioOptions {
        mono: true,
        loudness: Some(-18.0),
        trim: true,
        ..PLAIN
    };
    assert_eq!(
        encode_audio(&source, "wav", &options).unwrap(),
        encode_audio(&source, "wav", &options).unwrap()
    );
}

#[test]
fn hostile_files_are_errors_not_panics() {
    let good = wav(Layout::I16, 8000, 1, &sine(8000, 1, 1000, 100.0, 0.5), None);
    let cut = &good[..good.len() - 600];
    let error = decode::decode(cut, "wav").unwrap_err().to_string();
    assert!(error.contains("ends"), "{error}");
    let mut huge = good.clone();
    huge[4..8].copy_from_slice(&0xFFFF_FFF8u32.to_le_bytes());
    huge[40..44].copy_from_slice(&0xFFFF_FFD0u32.to_le_bytes());
    let error = decode::decode(&huge, "wav").map(|s| s.frames());
    assert!(matches!(error, Err(AudioError::TooLarge)), "{error:?}");
    let mut no_channels = good.clone();
    no_channels[22..24].copy_from_slice(&0u16.to_le_bytes());
    assert!(decode::decode(&no_channels, "wav").is_err());
    let mut no_rate = good.clone();
    no_rate[24..28].copy_from_slice(&0u32.to_le_bytes());
    assert!(decode::decode(&no_rate, "wav").is_err());
    let nan = wav(Layout::F32, 8000, 1, &[0.0, f32::NAN, 0.5], None);
    assert!(matches!(
        decode::decode(&nan, "wav"),
        Err(AudioError::NotANumber(1))
    ));
    let loop_past_end = wav(Layout::I16, 8000, 1, &[0.1; 10], Some((2, 10)));
    assert!(matches!(
        decode::decode(&loop_past_end, "wav"),
        Err(AudioError::LoopOutside { .. })
    ));
    let mut state = 0x1234_5678u32;
    let noise: Vec<u8> = (0..20000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect();
    for extension in ["mp3", "ogg", "flac", "wav", "aiff"] {
        assert!(
            encode_audio(&noise, extension, &PLAIN).is_err(),
            "{extension}"
        );
    }
}

/// The signal-to-noise ratio in dB of `actual` against `ideal`.
fn snr(ideal: &[f32], actual: &[f32]) -> f64 {
    let signal: f64 = ideal.iter().map(|&s| f64::from(s).powi(2)).sum();
    let noise: f64 = ideal
        .iter()
        .zip(actual)
        .map(|(&a, &b)| f64::from(a - b).powi(2))
        .sum();
    10.0 * (signal / noise).log10()
}

#[test]
fn resampling_keeps_pitch_level_length_and_loop() {
    let source = sine(44100, 2, 22050, 1000.0, 0.5);
    let options = AudioOptions {
        rate: Some(48000),
        ..PLAIN
    };
    let file = wav(Layout::F32, 44100, 2, &source, Some((4410, 22049)));
    let sound = processed(&file, &options);
    assert_eq!(
        (sound.rate, sound.channels, sound.frames()),
        (48000, 2, 24000)
    );
    assert_eq!(
        sound.looping,
        Some(Loop {
            start: 4800,
            end: 24000
        })
    );
    // Away from the ends (where the source starts and stops abruptly) the
    // output is the same sine at the new rate, not shifted in time.
    let ideal = sine(48000, 2, 24000, 1000.0, 0.5);
    let middle = 2 * 1000..2 * 23000;
    let measured = snr(&ideal[middle.clone()], &sound.samples[middle]);
    assert!(measured > 60.0, "{measured:.1} dB");
    let again = encode_audio(&file, "wav", &options).unwrap();
    assert_eq!(again, encode_audio(&file, "wav", &options).unwrap());
    let down = processed(
        &file,
        &AudioOptions {
            rate: Some(11025),
            ..options
        },
    );
    assert_eq!((down.rate, down.frames()), (11025, 5513));
    assert_eq!(
        down.looping,
        Some(Loop {
            start: 1103,
            end: 5513
        })
    );
}

#[test]
fn a_loop_set_by_the_settings_replaces_the_sources() {
    let source = sine(8000, 1, 8000, 200.0, 0.5);
    let file = wav(Layout::I16, 8000, 1, &source, Some((100, 199)));
    let region = |start, end| AudioOptions {
        looping: LoopChoice::Region { start, end },
        ..PLAIN
    };
    let seconds = processed(&file, &region(LoopPoint::Seconds(0.25), LoopPoint::End));
    assert_eq!(
        seconds.looping,
        Some(Loop {
            start: 2000,
            end: 8000
        })
    );
    let frames = processed(&file, &region(LoopPoint::Frame(10), LoopPoint::Frame(20)));
    assert_eq!(frames.looping, Some(Loop { start: 10, end: 20 }));
    let off = processed(
        &file,
        &AudioOptions {
            looping: LoopChoice::Off,
            ..PLAIN
        },
    );
    assert_eq!(off.looping, None);
    let outside = encode_audio(
        &file,
        "wav",
        &region(LoopPoint::Frame(10), LoopPoint::Frame(9000)),
    );
    assert!(matches!(
        outside,
        Err(AudioError::LoopOutside {
            origin: LoopOrigin::Settings,
            ..
        })
    ));
}

#[test]
fn resampling_is_time_aligned_at_every_ratio() {
    // A sound resampled to another rate is the same sine at that rate: not
    // a fraction of a frame early or late (a shift of 0.1 frame of a 300 Hz
    // tone at 8 kHz would cost about 30 dB here).
    for (from, to) in [
        (44100, 48000),
        (48000, 44100),
        (22050, 48000),
        (44100, 22050),
        (8000, 48000),
        (48000, 11025),
    ] {
        // A quarter of a second of each.
        let mut sound = Sound {
            rate: from,
            channels: 1,
            samples: sine(from, 1, from as usize / 4, 300.0, 0.5),
            looping: None,
        };
        resample::resample(&mut sound, to).unwrap();
        let frames = resample::scale(from as u64 / 4, from, to) as usize;
        assert_eq!(sound.frames(), frames, "{from} -> {to} Hz");
        let ideal = sine(to, 1, frames, 300.0, 0.5);
        let middle = frames / 10..frames * 9 / 10;
        let measured = snr(&ideal[middle.clone()], &sound.samples[middle]);
        assert!(measured > 55.0, "{from} -> {to} Hz: {measured:.1} dB");
    }
}
