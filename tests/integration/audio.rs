//! Sounds through real Ninja: every source container to a 16-bit PCM WAV
//! with its length, channels and loop, the default loudness reached, the
//! same bytes at one and two jobs, a setting that rebuilds only the sounds
//! its rule matches, and damaged files that fail their edge alone, naming
//! the file. FLAC and MP3 sources are made with Debian's `flac` and `lame`,
//! the Ogg Vorbis one is Debian's freedesktop sound theme, and ffmpeg's
//! `ebur128` meter judges the loudness (all installed by
//! `tools/ensure-deps --for-tests`).

use std::path::Path;
use std::process::Command;

use assetc::encode::audio::decode::decode;
use assetc::encode::audio::process::measure;
use assetc::encode::audio::wav::write_pcm16;
use assetc::encode::audio::{Loop, Sound};

use crate::common::Project;

const BELL: &str = "/usr/share/sounds/freedesktop/stereo/bell.oga";

/// `seconds` of a two-tone stereo chord at `rate`, with `looping`.
fn chord(rate: u32, seconds: f32, looping: Option<Loop>) -> Sound {
    let frames = (rate as f32 * seconds) as usize;
    let samples = (0..frames)
        .flat_map(|i| {
            let t = i as f32 / rate as f32;
            let wave = |hz: f32| 0.2 * (2.0 * std::f32::consts::PI * hz * t).sin();
            [wave(220.0), wave(330.0)]
        })
        .collect();
    Sound {
        rate,
        channels: 2,
        samples,
        looping,
    }
}

/// A 16-bit AIFF file of `sound` (8000 Hz only: its rate is written as the
/// 80-bit float AIFF uses, precomputed).
fn aiff_8000(sound: &Sound) -> Vec<u8> {
    assert_eq!(sound.rate, 8000);
    let frames = sound.frames() as u32;
    let mut comm = Vec::new();
    comm.extend_from_slice(&(sound.channels as u16).to_be_bytes());
    comm.extend_from_slice(&frames.to_be_bytes());
    comm.extend_from_slice(&16u16.to_be_bytes());
    comm.extend_from_slice(&[0x40, 0x0B, 0xFA, 0, 0, 0, 0, 0, 0, 0]);
    let mut ssnd = vec![0u8; 8];
    for &s in &sound.samples {
        ssnd.extend_from_slice(&assetc::encode::audio::wav::to_i16(s).to_be_bytes());
    }
    let mut body = b"AIFF".to_vec();
    for (id, chunk) in [(b"COMM", comm), (b"SSND", ssnd)] {
        body.extend_from_slice(id);
        body.extend_from_slice(&(chunk.len() as u32).to_be_bytes());
        body.extend_from_slice(&chunk);
    }
    let mut file = b"FORM".to_vec();
    file.extend_from_slice(&(body.len() as u32).to_be_bytes());
    file.extend_from_slice(&body);
    file
}

/// Runs a Debian encoder that makes a test source, or says how to get it.
fn make_source(program: &str, args: &[&Path]) {
    let status = Command::new(program)
        .args(["--silent"].iter().filter(|_| program == "flac"))
        .args(["--quiet"].iter().filter(|_| program == "lame"))
        .args(args)
        .status()
        .unwrap_or_else(|e| panic!("{program}: {e} (tools/ensure-deps --for-tests installs it)"));
    assert!(status.success(), "{program} failed");
}

/// Integrated loudness (LUFS) and true peak (dBTP) of the sound at `path`
/// by an independent meter: ffmpeg's `ebur128` filter (Debian's `ffmpeg`,
/// installed by `tools/ensure-deps --for-tests`).
fn ffmpeg_loudness(path: &Path) -> (f32, f32) {
    let output = Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats", "-i"])
        .arg(path)
        .args(["-af", "ebur128=peak=true", "-f", "null", "-"])
        .output()
        .unwrap_or_else(|e| panic!("ffmpeg: {e} (tools/ensure-deps --for-tests installs it)"));
    let text = String::from_utf8_lossy(&output.stderr);
    let summary = |key: &str| -> f32 {
        text.lines()
            .rev()
            .find_map(|line| line.trim().strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|number| number.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in ffmpeg's summary:\n{text}"))
    };
    (summary("I:"), summary("Peak:"))
}

/// A project holding one sound of every source container.
fn project(config: &str) -> Project {
    let p = Project::new(config);
    let looped = chord(
        44100,
        1.5,
        Some(Loop {
            start: 4410,
            end: 44100,
        }),
    );
    p.write("assets/sfx/loop.wav", &write_pcm16(&looped));
    p.write("assets/sfx/blip.aiff", &aiff_8000(&chord(8000, 0.25, None)));
    std::fs::create_dir_all(p.path("assets/music")).unwrap();
    let plain = p.path("plain.wav");
    std::fs::write(&plain, write_pcm16(&chord(22050, 2.0, None))).unwrap();
    make_source(
        "flac",
        &[Path::new("-o"), &p.path("assets/music/theme.flac"), &plain],
    );
    make_source("lame", &[&plain, &p.path("assets/music/jingle.mp3")]);
    let bell = std::fs::read(BELL).unwrap_or_else(|e| {
        panic!("{BELL}: {e} (tools/ensure-deps --for-tests installs sound-theme-freedesktop)")
    });
    p.write("assets/sfx/bell.oga", &bell);
    p
}

const CONFIG: &str = "input: assets\noutput: runtime\n";

/// The 16-bit WAV at `rel` in `p`, decoded.
fn output(p: &Project, rel: &str) -> Sound {
    let bytes = std::fs::read(p.path(rel)).unwrap();
    assert_eq!(
        u16::from_le_bytes([bytes[34], bytes[35]]),
        16,
        "{rel}: bits"
    );
    decode(&bytes, "wav").unwrap()
}

#[test]
fn every_container_builds_to_pcm16_wav_at_the_loudness_target() {
    let p = project(CONFIG);
    let run = p.build(&[]);
    let edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("AUDIO"))
        .collect();
    assert_eq!(edges.len(), 5, "{edges:?}");
    let read = |rel: &str| output(&p, rel);
    let looped = read("runtime/sfx/loop.wav");
    assert_eq!(
        (looped.rate, looped.channels, looped.frames()),
        (44100, 2, 66150)
    );
    assert_eq!(
        looped.looping,
        Some(Loop {
            start: 4410,
            end: 44100
        })
    );
    assert_eq!(read("runtime/sfx/blip.wav").frames(), 2000);
    let theme = read("runtime/music/theme.wav");
    assert_eq!((theme.rate, theme.frames()), (22050, 44100));
    // lame keeps the length exactly through its gapless header.
    assert_eq!(read("runtime/music/jingle.wav").frames(), 44100);
    assert_eq!(read("runtime/sfx/bell.wav").channels, 2);
    for rel in [
        "sfx/loop",
        "sfx/blip",
        "music/theme",
        "music/jingle",
        "sfx/bell",
    ] {
        let (loudness, peak) = measure(&read(&format!("runtime/{rel}.wav"))).unwrap();
        assert!(peak <= -0.9, "{rel}: true peak {peak} dBTP");
        assert!(
            (loudness + 16.0).abs() < 0.5 || peak > -1.1,
            "{rel}: {loudness} LUFS at {peak} dBTP"
        );
    }
    // The sounds of a gating block or more, by ffmpeg's meter (it reads
    // shorter ones as -70 LUFS, undefined).
    for rel in ["sfx/loop", "music/theme", "music/jingle"] {
        let (loudness, peak) = ffmpeg_loudness(&p.path(&format!("runtime/{rel}.wav")));
        assert!(
            (loudness + 16.0).abs() <= 0.5,
            "{rel}: ffmpeg reads {loudness} LUFS"
        );
        assert!(
            peak <= -1.0,
            "{rel}: ffmpeg reads a true peak of {peak} dBTP"
        );
    }
    p.assert_no_op();
    let two = project(CONFIG);
    two.assetc(&["configure"]).expect_ok("configure");
    two.ninja(&["-j1"]).expect_ok("ninja -j1");
    let serial = two.tree("runtime");
    assert_eq!(serial, p.tree("runtime"), "-j1 against the default -j");
}

#[test]
fn an_audio_rule_rebuilds_only_the_sounds_it_matches() {
    let config = "input: assets\noutput: runtime\ndefault:\n  rules:\n    - match: \"music/*\"\n      audio: { mono: true }\n";
    let p = project(config);
    p.build(&[]);
    assert_eq!(output(&p, "runtime/music/theme.wav").channels, 1);
    assert_eq!(output(&p, "runtime/sfx/loop.wav").channels, 2);
    p.write(
        "assetc.yml",
        config
            .replace("mono: true", "mono: true, loudness: -20")
            .as_bytes(),
    );
    let run = p.ninja(&[]).expect_ok("ninja after the edit");
    let mut rebuilt: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("AUDIO"))
        .collect();
    rebuilt.sort();
    assert_eq!(
        rebuilt,
        [
            "AUDIO assets/music/jingle.mp3",
            "AUDIO assets/music/theme.flac"
        ]
    );
    let (loudness, _) = measure(&output(&p, "runtime/music/theme.wav")).unwrap();
    assert!((loudness + 20.0).abs() < 0.5, "{loudness} LUFS");
    p.assert_no_op();
}

#[test]
fn damaged_sounds_fail_their_edge_alone_naming_the_file() {
    let p = Project::new(CONFIG);
    let good = write_pcm16(&chord(8000, 0.5, None));
    p.write("assets/good.wav", &good);
    p.write("assets/cut.wav", &good[..good.len() / 2]);
    p.write(
        "assets/noise.mp3",
        &(0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect::<Vec<u8>>(),
    );
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok, "the build must fail");
    for name in ["cut.wav", "noise.mp3"] {
        let line = format!("assetc-encode: error: assets/{name}: cannot read this sound");
        assert!(
            run.stdout.contains(&line),
            "{line} missing from:\n{}",
            run.stdout
        );
    }
    assert!(run.stdout.contains("ends"), "{}", run.stdout);
    assert!(p.path("runtime/good.wav").is_file(), "-k 0 builds the rest");
    assert!(!p.path("runtime/cut.wav").exists() && !p.path("runtime/noise.wav").exists());
}
