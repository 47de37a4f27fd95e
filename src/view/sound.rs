//! Sounds for the page: a `.hsnd` record with the sound file it names,
//! decoded on each request.
//!
//! The figures are the record's. The waveform is drawn from the sound file
//! as an engine would decode it (any codec, with the decoders the encoder
//! reads sources with): per channel, the lowest and highest sample of each of
//! up to [`WAVEFORM_BUCKETS`] equal runs of frames. The loudness after
//! processing is the record's; the loudness before is measured here, with the
//! encoder's own meter ([`measure`]), on the source the build's fragment
//! names ([`Sources::file_source`]). A sound of more than [`MAX_SAMPLES`]
//! samples is not decoded, so one request stays cheap.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::Serialize;

use super::ViewError;
use super::source::Sources;
use crate::encode::audio::Sound;
use crate::encode::audio::decode::decode;
use crate::encode::audio::process::measure;
use crate::format::hsnd::{SoundCodec, SoundRecord};

/// Buckets of the waveform, about one per pixel of the page's canvas.
pub const WAVEFORM_BUCKETS: usize = 800;

/// The most samples (frames × channels) the viewer decodes for one request:
/// 64 Mi, over eleven minutes of 48 kHz stereo, 256 MiB as floats.
pub const MAX_SAMPLES: u64 = 64 << 20;

/// The suffix of a sound record.
const RECORD_SUFFIX: &str = ".hsnd";

/// A record and its sound file, decoded.
pub struct OpenedSound {
    /// The record's runtime path.
    pub record_path: String,
    /// The record.
    pub record: SoundRecord,
    /// The sound file's runtime path.
    pub sound_path: String,
    /// The sound file, decoded.
    pub decoded: Sound,
}

/// What `/api/sound` answers.
#[derive(Debug, Serialize)]
pub struct SoundView {
    /// The record's runtime path.
    pub path: String,
    /// The sound file's runtime path.
    pub sound_path: String,
    /// `pcm16`, `qoa`, `vorbis` or `opus`.
    pub codec: &'static str,
    /// Frames per second.
    pub rate: u32,
    /// Channels.
    pub channels: u32,
    /// Frames per channel.
    pub frames: u64,
    /// `frames / rate`.
    pub seconds: f64,
    /// The loop, or `None`.
    #[serde(rename = "loop")]
    pub looping: Option<LoopView>,
    /// Loudness before and after processing.
    pub loudness: LoudnessView,
    /// The decoded sound file's outline.
    pub waveform: Waveform,
}

/// A loop in frames and in seconds.
#[derive(Debug, Serialize)]
pub struct LoopView {
    /// The first frame of the loop.
    pub start: u64,
    /// One past its last frame.
    pub end: u64,
    /// `start / rate`.
    pub start_seconds: f64,
    /// `end / rate`.
    pub end_seconds: f64,
}

/// Integrated loudness and true peak.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Loudness {
    /// Integrated loudness, LUFS.
    pub lufs: f32,
    /// True peak, dBTP.
    pub true_peak: f32,
}

/// The loudness of the source and of the output.
#[derive(Debug, Serialize)]
pub struct LoudnessView {
    /// The source file, below the input folder, when the build names it.
    pub source: Option<String>,
    /// The source's loudness, when it could be measured.
    pub before: Option<Loudness>,
    /// Why `before` is `None`.
    pub before_note: Option<String>,
    /// The record's figures; `None` for silence.
    pub after: Option<Loudness>,
}

/// Per channel, `[min, max]` of each bucket of frames.
#[derive(Debug, Serialize)]
pub struct Waveform {
    /// Buckets per channel: [`WAVEFORM_BUCKETS`], or fewer for a shorter sound.
    pub buckets: usize,
    /// One list of `[min, max]` per channel.
    pub channels: Vec<Vec<[f32; 2]>>,
}

/// The runtime path of the record of `path`: `path` itself when it is a
/// record, else the `.hsnd` of the same stem (`sfx/step.qoa` gives
/// `sfx/step.hsnd`).
pub fn record_path(path: &str) -> String {
    if path.ends_with(RECORD_SUFFIX) {
        return path.to_owned();
    }
    let name_at = path.rfind('/').map_or(0, |slash| slash + 1);
    let stem = match path[name_at..].rfind('.') {
        Some(dot) => &path[..name_at + dot],
        None => path,
    };
    format!("{stem}{RECORD_SUFFIX}")
}

/// Refuses a record whose sound holds more than [`MAX_SAMPLES`] samples.
pub fn check_size(record_path: &str, record: &SoundRecord) -> Result<(), ViewError> {
    let samples = record.frames.saturating_mul(u64::from(record.channels));
    if samples <= MAX_SAMPLES {
        return Ok(());
    }
    Err(ViewError::invalid(
        record_path,
        format!("its sound holds {samples} samples; the viewer decodes at most {MAX_SAMPLES}"),
    ))
}

/// The sound file `path` (`bytes`) decoded by its extension; a decoder that
/// panics on a damaged file is reported as an error about the file.
pub fn decode_file(path: &str, bytes: &[u8]) -> Result<Sound, ViewError> {
    let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
    catch_unwind(AssertUnwindSafe(|| decode(bytes, extension)))
        .map_err(|_| ViewError::invalid(path, "the decoder crashed on this file"))?
        .map_err(|e| ViewError::invalid(path, e))
}

/// The page's view of `opened`, with the loudness of its source `before`.
pub fn sound_view(opened: &OpenedSound, before: Before) -> SoundView {
    let record = &opened.record;
    let seconds = |frame: u64| frame as f64 / f64::from(record.rate);
    let after = record
        .loudness()
        .map(|(lufs, true_peak)| Loudness { lufs, true_peak });
    SoundView {
        path: opened.record_path.clone(),
        sound_path: opened.sound_path.clone(),
        codec: record.codec().map_or("unknown", SoundCodec::name),
        rate: record.rate,
        channels: record.channels,
        frames: record.frames,
        seconds: record.duration_seconds(),
        looping: record.looping().map(|(start, end)| LoopView {
            start,
            end,
            start_seconds: seconds(start),
            end_seconds: seconds(end),
        }),
        loudness: LoudnessView {
            source: before.source,
            before: before.measured.as_ref().ok().copied(),
            before_note: before.measured.err(),
            after,
        },
        waveform: waveform(&opened.decoded, WAVEFORM_BUCKETS),
    }
}

/// The loudness of a sound's source, or why it is not known.
pub struct Before {
    /// The source, when the build names one.
    pub source: Option<String>,
    /// Its loudness, or why there is none.
    pub measured: Result<Loudness, String>,
}

/// The loudness of the source of the record `record_path`, found through
/// the build's fragments, decoded and measured as the encoder measures.
pub fn loudness_before(sources: Option<&Sources>, record_path: &str) -> Before {
    let Some(sources) = sources else {
        return Before {
            source: None,
            measured: Err("the sources are not known here: the viewer serves a pack, or a folder that is not the configured output".into()),
        };
    };
    let Some(source) = sources.file_source(record_path) else {
        return Before {
            source: None,
            measured: Err("no fragment of the build names this sound's source".into()),
        };
    };
    let measured = measure_source(sources, &source);
    Before {
        source: Some(source),
        measured,
    }
}

/// The loudness of the source file `source`, below the input folder.
fn measure_source(sources: &Sources, source: &str) -> Result<Loudness, String> {
    let file = sources.input.join(source);
    let bytes = std::fs::read(&file).map_err(|e| format!("cannot read {source}: {e}"))?;
    let sound = decode_file(source, &bytes).map_err(|e| e.to_string())?;
    let (lufs, true_peak) = measure(&sound).ok_or_else(|| format!("{source} is silent"))?;
    Ok(Loudness { lufs, true_peak })
}

/// The outline of `sound`: per channel, `[min, max]` of each of
/// `buckets` equal runs of frames (one run a frame when there are fewer).
pub fn waveform(sound: &Sound, buckets: usize) -> Waveform {
    let (frames, width) = (sound.frames(), sound.channels);
    let count = buckets.min(frames);
    let mut channels = vec![Vec::with_capacity(count); width];
    for bucket in 0..count {
        let (first, end) = (bucket * frames / count, (bucket + 1) * frames / count);
        let run = &sound.samples[first * width..end * width];
        for (channel, outline) in channels.iter_mut().enumerate() {
            outline.push(extremes(run.iter().skip(channel).step_by(width)));
        }
    }
    Waveform {
        buckets: count,
        channels,
    }
}

/// `[min, max]` of `samples`.
fn extremes<'a>(samples: impl Iterator<Item = &'a f32>) -> [f32; 2] {
    samples.fold([f32::INFINITY, f32::NEG_INFINITY], |[low, high], &s| {
        [low.min(s), high.max(s)]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_found_beside_its_sound() {
        assert_eq!(record_path("sfx/step.qoa"), "sfx/step.hsnd");
        assert_eq!(record_path("sfx/step.hsnd"), "sfx/step.hsnd");
        assert_eq!(record_path("a.b/voice.en.ogg"), "a.b/voice.en.hsnd");
        assert_eq!(record_path("a.b/noise"), "a.b/noise.hsnd");
    }

    #[test]
    fn the_waveform_holds_each_buckets_extremes_per_channel() {
        // Ten stereo frames: left counts up from 0, right is its negative.
        let samples = (0..10)
            .flat_map(|i| [i as f32 / 10.0, -(i as f32) / 10.0])
            .collect();
        let sound = Sound {
            rate: 8000,
            channels: 2,
            samples,
            looping: None,
        };
        let outline = waveform(&sound, 4);
        assert_eq!(outline.buckets, 4);
        // Runs of frames 0..2, 2..5, 5..7 and 7..10.
        assert_eq!(
            outline.channels[0],
            [[0.0, 0.1], [0.2, 0.4], [0.5, 0.6], [0.7, 0.9]]
        );
        assert_eq!(outline.channels[1][3], [-0.9, -0.7]);
        let short = waveform(&sound, 800);
        assert_eq!(short.buckets, 10);
        assert!(short.channels[0].iter().all(|[low, high]| low == high));
    }

    #[test]
    fn a_sound_too_long_to_decode_is_refused() {
        let frames = MAX_SAMPLES / 2;
        let stereo = SoundRecord::new(SoundCodec::Opus, 48_000, 2, frames, 1);
        assert!(check_size("music/theme.hsnd", &stereo).is_ok());
        let longer = SoundRecord::new(SoundCodec::Opus, 48_000, 2, frames + 1, 1);
        let error = check_size("music/theme.hsnd", &longer).unwrap_err();
        assert_eq!(error.status(), 422);
        assert!(
            error.to_string().starts_with("music/theme.hsnd: "),
            "{error}"
        );
    }
}
