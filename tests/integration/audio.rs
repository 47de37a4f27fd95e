//! Sounds through real Ninja: every source container to every codec (PCM
//! WAV, QOA, Ogg Vorbis, Ogg Opus) with its length, channels, loop and
//! record, loops that hold through resampling and every codec, the default
//! loudness reached, `format: auto` by length, the same bytes at one and two
//! jobs, a setting that rebuilds only the sounds it reaches, `check`
//! catching a tampered sound, and damaged files that fail their edge alone,
//! naming the file. FLAC and MP3 sources are made with Debian's `flac` and
//! `lame`, the Ogg Vorbis and Opus ones with ffmpeg (and Debian's
//! freedesktop sound theme), and ffmpeg's `ebur128` meter judges the
//! loudness (all installed by `tools/ensure-deps --for-tests`).

use std::path::Path;
use std::process::Command;

use assetc::encode::audio::decode::decode;
use assetc::encode::audio::process::measure;
use assetc::encode::audio::qoa::write_qoa;
use assetc::encode::audio::resample::scale;
use assetc::encode::audio::wav::write_pcm16;
use assetc::encode::audio::{Loop, Sound};
use assetc::format::hsnd::{self, SoundRecord};
use assetc::format::kind::AssetKind;

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

/// 1.5 s of the chord at 44.1 kHz, looping over frames 4410 to 44099.
fn looped_chord() -> Sound {
    let looping = Loop {
        start: 4410,
        end: 44100,
    };
    chord(44100, 1.5, Some(looping))
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
    let looped = looped_chord();
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
    assert!(p.path("runtime/sfx/loop.hsnd").is_file(), "the record");
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
    // A codec's own knob reaches only the sounds written in that codec:
    // these are all PCM, so a Vorbis quality rebuilds nothing.
    let edited = config.replace("mono: true", "mono: true, loudness: -20");
    p.write(
        "assetc.yml",
        format!("{edited}  audio: {{ vorbis_quality: 3, opus_bitrate: 32 }}\n").as_bytes(),
    );
    let run = p.ninja(&[]).expect_ok("ninja after a Vorbis setting");
    let audio = run.edges().into_iter().filter(|e| e.starts_with("AUDIO"));
    assert_eq!(audio.count(), 0, "{}", run.stdout);
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

/// Runs ffmpeg to make a test source from `input`, with `args` before the
/// output file.
fn ffmpeg_source(input: &Path, args: &[&str], output: &Path) {
    let status = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-i"])
        .arg(input)
        .args(args)
        .arg(output)
        .status()
        .unwrap_or_else(|e| panic!("ffmpeg: {e} (tools/ensure-deps --for-tests installs it)"));
    assert!(
        status.success(),
        "ffmpeg failed to make {}",
        output.display()
    );
}

/// A source of the codec test and what its output must hold, at the
/// source's rate: (name, rate, frames or 0 when not checked, loop).
type Expected = (&'static str, u32, u64, Option<(u64, u64)>);

/// The sources of the codec test: one of every container.
const SOURCES: [Expected; 8] = [
    ("loop.wav", 44100, 66150, Some((4410, 44100))),
    ("blip.aiff", 8000, 2000, None),
    ("theme.flac", 22050, 44100, None),
    ("jingle.mp3", 22050, 44100, None),
    ("bell.oga", 44100, 0, None),
    ("comments.ogg", 22050, 44100, Some((2205, 33075))),
    ("voice.opus", 48000, 96000, Some((4800, 48000))),
    ("tone.qoa", 16000, 16000, None),
];

/// Writes every source of [`SOURCES`] into `folder` of `p`.
fn write_sources(p: &Project, folder: &str) {
    let at = |name: &str| p.path(&format!("assets/{folder}/{name}"));
    let looped = looped_chord();
    p.write(&format!("assets/{folder}/loop.wav"), &write_pcm16(&looped));
    let blip = aiff_8000(&chord(8000, 0.25, None));
    p.write(&format!("assets/{folder}/blip.aiff"), &blip);
    let plain = p.path(&format!("{folder}-plain.wav"));
    std::fs::write(&plain, write_pcm16(&chord(22050, 2.0, None))).unwrap();
    make_source("flac", &[Path::new("-o"), &at("theme.flac"), &plain]);
    make_source("lame", &[&plain, &at("jingle.mp3")]);
    let bell = std::fs::read(BELL).unwrap_or_else(|e| {
        panic!("{BELL}: {e} (tools/ensure-deps --for-tests installs sound-theme-freedesktop)")
    });
    p.write(&format!("assets/{folder}/bell.oga"), &bell);
    let comments = [
        "-c:a",
        "libvorbis",
        "-q:a",
        "4",
        "-metadata",
        "LOOPSTART=2205",
        "-metadata",
        "LOOPLENGTH=30870",
    ];
    ffmpeg_source(&plain, &comments, &at("comments.ogg"));
    let voice = p.path(&format!("{folder}-voice.wav"));
    std::fs::write(&voice, write_pcm16(&chord(48000, 2.0, None))).unwrap();
    let opus = [
        "-c:a",
        "libopus",
        "-b:a",
        "96k",
        "-metadata",
        "LOOPSTART=4800",
        "-metadata",
        "LOOPEND=48000",
    ];
    ffmpeg_source(&voice, &opus, &at("voice.opus"));
    let tone = write_qoa(&chord(16000, 1.0, None)).unwrap();
    p.write(&format!("assets/{folder}/tone.qoa"), &tone);
}

/// The codecs, the folder each is built in, and its file extension.
const CODECS: [(&str, &str); 4] = [
    ("pcm16", "wav"),
    ("qoa", "qoa"),
    ("vorbis", "ogg"),
    ("opus", "opus"),
];

/// A config that writes the sounds of each folder of [`CODECS`] in that
/// codec, plus `pcm48/` as PCM at 48 kHz (the reference for Opus' seams).
fn codec_config() -> String {
    let mut config = String::from("input: assets\noutput: runtime\ndefault:\n  rules:\n");
    for (codec, _) in CODECS {
        config.push_str(&format!(
            "    - match: \"{codec}/**\"\n      audio: {{ format: {codec} }}\n"
        ));
    }
    config.push_str("    - match: \"pcm48/**\"\n      audio: { format: pcm16, rate: 48000 }\n");
    config
}

/// A project with every source in every codec's folder, and the looping
/// one in `pcm48/`.
fn codec_project() -> Project {
    let p = Project::new(&codec_config());
    for (codec, _) in CODECS {
        write_sources(&p, codec);
    }
    p.write("assets/pcm48/loop.wav", &write_pcm16(&looped_chord()));
    p
}

/// The record `.hsnd` of the sound `stem` in `folder`, read and checked.
fn record(p: &Project, folder: &str, stem: &str) -> SoundRecord {
    let bytes = std::fs::read(p.path(&format!("runtime/{folder}/{stem}.hsnd"))).unwrap();
    hsnd::read_hsnd(&bytes).unwrap_or_else(|e| panic!("{folder}/{stem}.hsnd: {e}"))
}

/// The signal-to-noise ratio (dB) of `actual` against `reference` over
/// frames `frames` of two `channels`-wide sounds.
fn seam_snr(reference: &Sound, actual: &Sound, frames: std::ops::Range<usize>) -> f64 {
    let c = reference.channels;
    let range = frames.start * c..frames.end * c;
    let (a, b) = (&reference.samples[range.clone()], &actual.samples[range]);
    let signal: f64 = a.iter().map(|&s| f64::from(s).powi(2)).sum();
    let noise: f64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| f64::from(x - y).powi(2))
        .sum();
    10.0 * (signal / noise).log10()
}

#[test]
fn every_source_reaches_every_codec_with_its_loop_and_record() {
    let p = codec_project();
    p.build(&[]);
    p.link(&["check"]).expect_ok("check");
    let decoded = |folder: &str, stem: &str, extension: &str| -> Sound {
        let path = p.path(&format!("runtime/{folder}/{stem}.{extension}"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        decode(&bytes, extension).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    for (codec, extension) in CODECS {
        for (name, rate, frames, looping) in SOURCES {
            let stem = name.split('.').next().unwrap();
            let what = format!("{codec}/{name}");
            let sound = decoded(codec, stem, extension);
            let record = record(&p, codec, stem);
            let out_rate = if codec == "opus" { 48000 } else { rate };
            let at = |frame: u64| scale(frame, rate, out_rate);
            assert_eq!(sound.rate, out_rate, "{what}: rate");
            if frames > 0 {
                assert_eq!(sound.frames() as u64, at(frames), "{what}: frames");
            }
            let looping = looping.map(|(start, end)| (at(start), at(end)));
            assert_eq!(record.looping(), looping, "{what}: the record's loop");
            if codec != "qoa" {
                let held = sound.looping.map(|l| (l.start, l.end));
                assert_eq!(held, looping, "{what}: the file's loop");
            }
            assert_eq!(
                (record.rate, record.channels as usize, record.frames),
                (sound.rate, sound.channels, sound.frames() as u64),
                "{what}: the record's figures"
            );
            let sound_path = format!("{codec}/{stem}.{extension}");
            assert_eq!(record.sound, AssetKind::Embed.id_for_path(&sound_path));
            assert!(record.loudness().is_some(), "{what}: measured");
        }
    }
    // The lossy files still reach the target by ffmpeg's meter (Debian's
    // ffmpeg predates QOA, whose figures the record check covers).
    for (folder, extension) in [("vorbis", "ogg"), ("opus", "opus")] {
        for stem in ["loop", "theme", "jingle", "comments", "voice"] {
            let path = p.path(&format!("runtime/{folder}/{stem}.{extension}"));
            let (loudness, peak) = ffmpeg_loudness(&path);
            assert!(
                (loudness + 16.0).abs() <= 0.5,
                "{folder}/{stem}: ffmpeg reads {loudness} LUFS"
            );
            assert!(peak <= -1.0, "{folder}/{stem}: ffmpeg reads {peak} dBTP");
        }
    }
    // Around the loop's jump each codec plays what the PCM output plays at
    // its rate: the loop points hold through resampling and every codec.
    let loop_wav = |folder: &str, extension: &str| decoded(folder, "loop", extension);
    let pcm = loop_wav("pcm16", "wav");
    let pcm48 = loop_wav("pcm48", "wav");
    for (folder, extension, reference, floor) in [
        ("qoa", "qoa", &pcm, 25.0),
        ("vorbis", "ogg", &pcm, 15.0),
        ("opus", "opus", &pcm48, 10.0),
    ] {
        let sound = loop_wav(folder, extension);
        let Loop { start, end } = reference.looping.unwrap();
        let (start, end) = (start as usize, end as usize);
        for seam in [start..start + 512, end - 512..end] {
            let measured = seam_snr(reference, &sound, seam.clone());
            assert!(
                measured > floor,
                "{folder}: {measured:.1} dB against PCM at frames {seam:?}"
            );
        }
    }
    p.assert_no_op();
    let serial = codec_project();
    serial.assetc(&["configure"]).expect_ok("configure");
    serial.ninja(&["-j1"]).expect_ok("ninja -j1");
    assert_eq!(serial.tree("runtime"), p.tree("runtime"), "-j1 against -j2");
}

#[test]
fn format_auto_streams_long_sounds_and_follows_the_platform() {
    let config = "input: assets\noutput: runtime\ndefault:\n  audio: { stream_after: 1.5 }\npresets:\n  phone:\n    output: phone\n    texture: { platform: mobile }\n";
    let p = Project::new(config);
    p.write("assets/short.wav", &write_pcm16(&chord(22050, 1.0, None)));
    p.write("assets/long.wav", &write_pcm16(&chord(22050, 2.0, None)));
    p.build(&[]);
    for (file, codec) in [("short.wav", "pcm16"), ("long.ogg", "vorbis")] {
        assert!(p.path(&format!("runtime/{file}")).is_file(), "{file}");
        let stem = file.split('.').next().unwrap();
        let record = record(&p, "", stem);
        assert_eq!(record.codec().map(|c| c.name()), Some(codec), "{file}");
    }
    p.build(&["--preset", "phone"]);
    assert!(p.path("phone/short.qoa").is_file());
    assert!(p.path("phone/long.opus").is_file());
    // Lengthening the short sound past stream_after re-runs configure,
    // which streams it now and removes the file it wrote before.
    p.write("assets/short.wav", &write_pcm16(&chord(22050, 3.0, None)));
    let run = p.ninja(&[]).expect_ok("ninja after the edit");
    assert!(
        run.stdout.contains("AUDIO assets/short.wav"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("AUDIO assets/long.wav"),
        "{}",
        run.stdout
    );
    assert!(p.path("phone/short.opus").is_file());
    assert!(!p.path("phone/short.qoa").exists());
    p.link(&["check", "--root", "phone"]).expect_ok("check");
    p.assert_no_op();
    let info = p
        .assetc(&["info", "--preset", "phone", "--json"])
        .expect_ok("info");
    let report: serde_json::Value = serde_json::from_str(&info.stdout).unwrap();
    let short = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "short.hsnd")
        .unwrap_or_else(|| panic!("no short.hsnd in {}", info.stdout));
    assert_eq!(short["type"], "sound", "{short}");
    assert_eq!(short["codec"], "opus", "{short}");
    assert_eq!(short["frames"], 144000, "3 s at 48 kHz: {short}");
}

#[test]
fn check_catches_a_sound_that_disagrees_with_its_record() {
    let config = "input: assets\noutput: runtime\ndefault:\n  audio: { format: qoa }\n";
    let p = Project::new(config);
    p.write("assets/a.wav", &write_pcm16(&chord(8000, 0.5, None)));
    p.build(&[]);
    p.link(&["check"]).expect_ok("check");
    let shorter = write_qoa(&chord(8000, 0.25, None)).unwrap();
    p.write("runtime/a.qoa", &shorter);
    let run = p.link(&["check"]);
    assert!(!run.ok, "check must fail");
    assert!(
        run.stdout.contains("a.hsnd: states 8000 Hz, 2 channels and 4000 frames, but a.qoa decodes to 8000 Hz, 2 channels and 2000 frames")
            || run.stderr.contains("a.hsnd: states 8000 Hz, 2 channels and 4000 frames, but a.qoa decodes to 8000 Hz, 2 channels and 2000 frames"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}
