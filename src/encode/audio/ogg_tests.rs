//! The Ogg writers and the Opus reader on generated sounds: the same bytes
//! twice, exact lengths, alignment and quality, loop comments both ways,
//! surround channel order, the RFC 7845 headers, and hostile files.

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use ogg::reading::PacketReader;
use ogg::writing::{PacketWriteEndInfo, PacketWriter};
use symphonia::core::codecs::audio::AudioDecoderOptions;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, TrackType};
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;

use super::ogg_stream::OggError;
use super::opus::{OPUS_RATE, read_opus, write_opus};
use super::vorbis::{read_vorbis_loop, write_vorbis};
use super::{Loop, Sound};

/// The Opus bitrate per channel of most tests, in bits/s.
const OPUS_BITRATE: u32 = 64_000;

/// The encoder delay libopus reports for `Application::Audio` at 48 kHz.
const OPUS_LOOKAHEAD: u64 = 312;

/// A sound of `channels` channels and `frames` frames in which channel `c`
/// is a sine of `hz × (c + 1)` at half scale.
fn sines(rate: u32, channels: usize, frames: usize, hz: f32) -> Sound {
    let samples = (0..frames)
        .flat_map(|frame| {
            (0..channels).map(move |channel| {
                let phase = frame as f32 * hz * (channel + 1) as f32 / rate as f32;
                0.5 * (std::f32::consts::TAU * phase).sin()
            })
        })
        .collect();
    Sound {
        rate,
        channels,
        samples,
        looping: None,
    }
}

/// The signal-to-noise ratio of `decoded` against `reference`, in dB, at
/// zero lag.
fn snr_db(reference: &[f32], decoded: &[f32]) -> f64 {
    let (signal, noise) =
        reference
            .iter()
            .zip(decoded)
            .fold((0.0f64, 0.0f64), |(signal, noise), (&x, &y)| {
                let (x, y) = (f64::from(x), f64::from(y));
                (signal + x * x, noise + (x - y) * (x - y))
            });
    10.0 * (signal / noise.max(1e-30)).log10()
}

/// A mono sound of three inharmonic sines, whose autocorrelation peaks
/// sharply at zero lag.
fn chord(rate: u32, frames: usize) -> Sound {
    let samples = (0..frames)
        .map(|frame| {
            let t = frame as f32 / rate as f32;
            [440.0f32, 1234.5, 3210.0]
                .iter()
                .map(|hz| 0.25 * (std::f32::consts::TAU * hz * t).sin())
                .sum()
        })
        .collect();
    Sound {
        rate,
        channels: 1,
        samples,
        looping: None,
    }
}

/// The lag (decoded later: positive) within `±range` samples at which
/// `decoded` correlates best with `reference`.
fn best_lag(reference: &[f32], decoded: &[f32], range: isize) -> isize {
    let correlation = |lag: isize| -> f64 {
        reference
            .iter()
            .enumerate()
            .filter_map(|(at, &x)| {
                let other = decoded.get(usize::try_from(at as isize + lag).ok()?)?;
                Some(f64::from(x) * f64::from(*other))
            })
            .sum()
    };
    (-range..=range)
        .map(|lag| (lag, correlation(lag)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(0, |(lag, _)| lag)
}

/// One channel of interleaved `samples`.
fn channel(samples: &[f32], channels: usize, index: usize) -> Vec<f32> {
    samples
        .iter()
        .skip(index)
        .step_by(channels)
        .copied()
        .collect()
}

/// An Ogg Vorbis file decoded by symphonia (gapless): channels and samples.
fn decode_vorbis(bytes: &[u8]) -> (usize, Vec<f32>) {
    let stream = MediaSourceStream::new(Box::new(Cursor::new(bytes.to_vec())), Default::default());
    let mut hint = Hint::new();
    hint.with_extension("ogg");
    let mut reader = symphonia::default::get_probe()
        .probe(
            &hint,
            stream,
            FormatOptions::default(),
            MetadataOptions::default(),
        )
        .unwrap();
    let track = reader.default_track(TrackType::Audio).unwrap();
    let track_id = track.id;
    let params = track
        .codec_params
        .as_ref()
        .unwrap()
        .audio()
        .unwrap()
        .clone();
    let mut decoder = symphonia::default::get_codecs()
        .make_audio_decoder(&params, &AudioDecoderOptions::default())
        .unwrap();
    let (mut samples, mut packet_samples, mut channels) = (Vec::new(), Vec::new(), 0);
    while let Some(packet) = reader.next_packet().unwrap() {
        if packet.track_id != track_id {
            continue;
        }
        let buffer = decoder.decode(&packet).unwrap();
        channels = buffer.spec().channels().count();
        buffer.copy_to_vec_interleaved(&mut packet_samples);
        samples.extend_from_slice(&packet_samples);
    }
    (channels, samples)
}

/// Every packet of an Ogg file with its page granule position and whether
/// it ends its page and the stream.
fn packets(bytes: &[u8]) -> Vec<(Vec<u8>, u64, bool, bool)> {
    let mut reader = PacketReader::new(Cursor::new(bytes));
    let mut all = Vec::new();
    while let Some(packet) = reader.read_packet().unwrap() {
        let (granule, page_end) = (packet.absgp_page(), packet.last_in_page());
        let stream_end = packet.last_in_stream();
        all.push((packet.data, granule, page_end, stream_end));
    }
    all
}

/// The Ogg file `bytes` rewritten (with valid checksums) after `edit` has
/// changed its packets: a way to build well-formed but hostile files.
fn rewritten(bytes: &[u8], edit: impl Fn(&mut Vec<(Vec<u8>, u64, bool, bool)>)) -> Vec<u8> {
    let mut all = packets(bytes);
    edit(&mut all);
    let mut writer = PacketWriter::new(Vec::new());
    for (data, granule, page_end, stream_end) in all {
        let end = match (page_end, stream_end) {
            (_, true) => PacketWriteEndInfo::EndStream,
            (true, false) => PacketWriteEndInfo::EndPage,
            _ => PacketWriteEndInfo::NormalPacket,
        };
        writer.write_packet(data, 1, end, granule).unwrap();
    }
    writer.into_inner()
}

/// The comments (`NAME=value`) of an Ogg file's second packet.
fn comments(bytes: &[u8], magic: &[u8]) -> Vec<String> {
    super::ogg_stream::parse_comments(&packets(bytes)[1].0, magic).unwrap()
}

/// A little xorshift generator for noise and mutations.
fn xorshift(state: &mut u32) -> u32 {
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    *state
}

#[test]
fn vorbis_output_is_deterministic_and_exact_in_length() {
    let sound = sines(44_100, 2, 44_100 + 123, 440.0);
    let first = write_vorbis(&sound, 0.5).unwrap();
    assert_eq!(first, write_vorbis(&sound, 0.5).unwrap());
    let last = packets(&first).pop().unwrap();
    assert_eq!(last.1, sound.frames() as u64, "last granule position");
    assert!(last.3, "the last page ends the stream");
    let (channels, decoded) = decode_vorbis(&first);
    assert_eq!(channels, 2);
    assert_eq!(decoded.len() / 2, sound.frames());
    for length in [1, 100, 2048, 4097] {
        let short = sines(22_050, 1, length, 300.0);
        let (_, decoded) = decode_vorbis(&write_vorbis(&short, 0.2).unwrap());
        assert_eq!(decoded.len(), length, "{length} frames");
    }
}

#[test]
fn vorbis_round_trip_is_time_aligned_and_clean() {
    let sound = sines(44_100, 1, 44_100, 440.0);
    let (_, decoded) = decode_vorbis(&write_vorbis(&sound, 0.5).unwrap());
    let snr = snr_db(&sound.samples, &decoded);
    // Measured: 41.0 dB.
    assert!(snr > 38.0, "{snr:.1} dB");
}

#[test]
fn vorbis_loop_comments_are_written_and_read_back() {
    let mut sound = sines(44_100, 2, 10_000, 440.0);
    sound.looping = Some(Loop {
        start: 1_234,
        end: 9_000,
    });
    let bytes = write_vorbis(&sound, 0.3).unwrap();
    let found = comments(&bytes, b"\x03vorbis");
    assert_eq!(found, ["LOOPSTART=1234", "LOOPLENGTH=7766"]);
    assert_eq!(
        read_vorbis_loop(&bytes, sound.frames()).unwrap(),
        sound.looping
    );
    sound.looping = None;
    let plain = write_vorbis(&sound, 0.3).unwrap();
    assert!(comments(&plain, b"\x03vorbis").is_empty());
    assert_eq!(read_vorbis_loop(&plain, sound.frames()).unwrap(), None);
}

#[test]
fn writers_refuse_bad_settings() {
    let mut sound = sines(OPUS_RATE, 1, 1000, 440.0);
    for quality in [f32::NAN, -0.5, 1.5] {
        assert!(matches!(
            write_vorbis(&sound, quality),
            Err(OggError::Quality(_))
        ));
    }
    for bitrate in [0, 5_999, 300_000] {
        assert!(matches!(
            write_opus(&sound, bitrate),
            Err(OggError::Bitrate(_))
        ));
    }
    sound.looping = Some(Loop {
        start: 10,
        end: 1001,
    });
    assert!(matches!(
        write_vorbis(&sound, 0.5),
        Err(OggError::LoopOutside { .. })
    ));
    assert!(matches!(
        write_opus(&sound, OPUS_BITRATE),
        Err(OggError::LoopOutside { .. })
    ));
    let at_44k = sines(44_100, 2, 1000, 440.0);
    assert!(matches!(
        write_opus(&at_44k, OPUS_BITRATE),
        Err(OggError::OpusRate(44_100))
    ));
    let nine = Sound {
        channels: 9,
        samples: vec![0.0; 9 * 10],
        ..at_44k
    };
    assert!(matches!(
        write_vorbis(&nine, 0.5),
        Err(OggError::Channels(9))
    ));
}

#[test]
fn opus_output_is_deterministic() {
    let sound = sines(OPUS_RATE, 2, 30_000, 440.0);
    let bytes = write_opus(&sound, OPUS_BITRATE).unwrap();
    assert_eq!(bytes, write_opus(&sound, OPUS_BITRATE).unwrap());
}

#[test]
fn opus_headers_and_granules_follow_rfc_7845() {
    let sound = sines(OPUS_RATE, 2, 100_000, 440.0);
    let all = packets(&write_opus(&sound, OPUS_BITRATE).unwrap());
    let head = &all[0].0;
    assert_eq!(&head[..8], b"OpusHead");
    assert_eq!(head[8], 1, "version");
    assert_eq!(head[9], 2, "channels");
    assert_eq!(u16::from_le_bytes([head[10], head[11]]), 312, "pre-skip");
    assert_eq!(&head[12..16], &48_000u32.to_le_bytes(), "input rate");
    assert_eq!(&head[16..19], &[0, 0, 0], "gain and mapping family");
    assert!(all[0].2 && all[1].2, "each header ends its page");
    let tags = &all[1].0;
    assert_eq!(&tags[..], b"OpusTags\x06\0\0\0assetc\0\0\0\0");
    let audio = &all[2..];
    assert!(audio.iter().all(|packet| packet.0.len() > 1));
    let (_, last_granule, _, ends) = audio[audio.len() - 1];
    assert!(ends);
    assert_eq!(last_granule, OPUS_LOOKAHEAD + sound.frames() as u64);
    let full_pages: Vec<u64> = audio.iter().filter(|p| p.2 && !p.3).map(|p| p.1).collect();
    assert_eq!(
        full_pages[0],
        50 * 960,
        "a page per second, granules in samples"
    );
}

#[test]
fn opus_round_trip_is_sample_exact_and_time_aligned() {
    for channels in [1, 2] {
        for frames in [1, 959, 960, 961, 48_000 - 312, 48_017] {
            let sound = sines(OPUS_RATE, channels, frames, 440.0);
            let decoded = read_opus(&write_opus(&sound, OPUS_BITRATE).unwrap()).unwrap();
            assert_eq!(decoded.channels, channels);
            assert_eq!(
                decoded.frames(),
                frames,
                "{channels} channels, {frames} frames"
            );
        }
    }
    let tone = sines(OPUS_RATE, 1, OPUS_RATE as usize, 440.0);
    let decoded = read_opus(&write_opus(&tone, OPUS_BITRATE).unwrap()).unwrap();
    let snr = snr_db(&tone.samples, &decoded.samples);
    // Measured: 42.4 dB at zero lag; 25.8 and 23.8 dB one sample off.
    assert!(snr > 39.0, "{snr:.1} dB at zero lag");
    // A quarter second is enough to find the lag, within more than the
    // 312-sample look-ahead a pre-skip mistake would shift it by.
    let chord = chord(OPUS_RATE, OPUS_RATE as usize / 4);
    let decoded = read_opus(&write_opus(&chord, OPUS_BITRATE).unwrap()).unwrap();
    assert_eq!(best_lag(&chord.samples, &decoded.samples, 480), 0);
}

#[test]
fn opus_surround_keeps_the_wav_channel_order() {
    for channels in 3..=8 {
        let sound = sines(OPUS_RATE, channels, 24_000, 220.0);
        let bytes = write_opus(&sound, OPUS_BITRATE).unwrap();
        let head = &packets(&bytes)[0].0;
        assert_eq!(head[18], 1, "mapping family 1 for {channels} channels");
        let decoded = read_opus(&bytes).unwrap();
        assert_eq!(decoded.frames(), sound.frames());
        for index in 0..channels {
            let reference = channel(&sound.samples, channels, index);
            let snr = snr_db(&reference, &channel(&decoded.samples, channels, index));
            // Measured: 35.3 to 45.0 dB; a swapped channel is below 0.
            assert!(
                snr > 32.0,
                "{channels} channels, channel {index}: {snr:.1} dB"
            );
        }
    }
}

#[test]
fn opus_loop_comments_round_trip() {
    let mut sound = sines(OPUS_RATE, 2, 20_000, 440.0);
    sound.looping = Some(Loop {
        start: 480,
        end: 19_999,
    });
    let bytes = write_opus(&sound, OPUS_BITRATE).unwrap();
    assert_eq!(
        comments(&bytes, b"OpusTags"),
        ["LOOPSTART=480", "LOOPLENGTH=19519"]
    );
    assert_eq!(read_opus(&bytes).unwrap().looping, sound.looping);
    let with_end = rewritten(&bytes, |all| {
        all[1].0 =
            b"OpusTags\0\0\0\0\x02\0\0\0\x0c\0\0\0loop_start=7\x0b\0\0\0LoopEnd=100".to_vec();
    });
    let looping = read_opus(&with_end).unwrap().looping;
    assert_eq!(looping, Some(Loop { start: 7, end: 100 }));
    let not_a_number = rewritten(&bytes, |all| {
        all[1].0 = b"OpusTags\0\0\0\0\x01\0\0\0\x0c\0\0\0LOOPSTART=x1".to_vec();
    });
    assert!(matches!(
        read_opus(&not_a_number),
        Err(OggError::LoopComment(_))
    ));
}

#[test]
fn read_opus_turns_hostile_files_into_errors() {
    // Three pages of audio, so that the last is not the first.
    let sound = sines(OPUS_RATE, 2, 120_000, 440.0);
    let good = write_opus(&sound, OPUS_BITRATE).unwrap();
    let error = |bytes: &[u8]| read_opus(bytes).map(|sound| sound.frames()).unwrap_err();

    assert!(matches!(error(&[]), OggError::Ogg(_)), "{}", error(&[]));
    let mut state = 0x9E37_79B9u32;
    let noise: Vec<u8> = (0..50_000).map(|_| xorshift(&mut state) as u8).collect();
    assert!(
        matches!(error(&noise), OggError::Ogg(_)),
        "{}",
        error(&noise)
    );
    assert!(matches!(
        error(&good[..good.len() - 100]),
        OggError::Truncated
    ));
    let headers_only = rewritten(&good, |all| all.truncate(2));
    assert!(matches!(
        error(&headers_only),
        OggError::NoAudio | OggError::Truncated
    ));
    let vorbis = write_vorbis(&sines(44_100, 1, 1000, 440.0), 0.1).unwrap();
    assert!(matches!(error(&vorbis), OggError::NotOpus));
    let no_channels = rewritten(&good, |all| all[0].0[9] = 0);
    assert!(matches!(error(&no_channels), OggError::Channels(0)));
    let three_in_family_zero = rewritten(&good, |all| all[0].0[9] = 3);
    assert!(matches!(error(&three_in_family_zero), OggError::Head(_)));
    let short = write_opus(&sines(OPUS_RATE, 1, 4_800, 440.0), OPUS_BITRATE).unwrap();
    let long_pre_skip = rewritten(&short, |all| {
        all[0].0[10..12].copy_from_slice(&[0xFF, 0xFF])
    });
    assert!(matches!(
        error(&long_pre_skip),
        OggError::PreSkipTooLong {
            pre_skip: 65_535,
            samples: 5_112
        }
    ));
    let granule_past_packets = rewritten(&good, |all| {
        if let Some(last) = all.last_mut() {
            last.1 += 10_000;
        }
    });
    assert!(matches!(error(&granule_past_packets), OggError::Granule(_)));
    let first_page_overfull = rewritten(&good, |all| all[2..52].iter_mut().for_each(|p| p.1 = 960));
    assert!(matches!(error(&first_page_overfull), OggError::Granule(_)));
    let empty_packet = rewritten(&good, |all| all[3].0.clear());
    assert!(matches!(
        error(&empty_packet),
        OggError::Packet { index: 1, .. }
    ));
    let cut_tags = rewritten(&good, |all| all[1].0.truncate(12));
    assert!(matches!(error(&cut_tags), OggError::Tags(_)));
}

#[test]
fn read_opus_never_panics_on_mutated_files() {
    let mut sound = sines(OPUS_RATE, 6, 4_800, 440.0);
    sound.looping = Some(Loop { start: 1, end: 2 });
    let good = write_opus(&sound, 24_000).unwrap();
    let mut state = 0x1234_5678u32;
    for round in 0..400 {
        let edits = 1 + xorshift(&mut state) as usize % 4;
        let picks: Vec<(usize, usize, u8)> = (0..edits)
            .map(|_| {
                let packet = xorshift(&mut state) as usize;
                (
                    packet,
                    xorshift(&mut state) as usize,
                    xorshift(&mut state) as u8,
                )
            })
            .collect();
        let mutated = rewritten(&good, |all| {
            for &(packet, at, value) in &picks {
                let count = all.len();
                let data = &mut all[packet % count].0;
                if !data.is_empty() {
                    let at = at % data.len();
                    data[at] = value;
                }
            }
        });
        let raw = {
            let mut raw = good.clone();
            let at = xorshift(&mut state) as usize % raw.len();
            raw[at] ^= 1 << (round % 8);
            raw
        };
        for bytes in [&mutated, &raw] {
            let outcome = catch_unwind(AssertUnwindSafe(|| read_opus(bytes).map(|s| s.frames())));
            assert!(outcome.is_ok(), "round {round}: read_opus panicked");
        }
    }
}
