//! `assetc-link check` for sounds: does every `.hsnd` record agree with the
//! sound file it names?
//!
//! An embedded file whose path ends in `.hsnd` must be a valid record
//! (`format::hsnd`), and the sound its `sound` id names must be in the
//! manifest, with the extension of the record's codec, and must decode (with
//! the same decoders the encoder reads sources with) to exactly the rate,
//! channels and frames the record states, and to its loop where the file
//! can hold one (a WAV `smpl` chunk, Ogg comments; a QOA file has no room
//! for a loop, so its loop lives in the record alone). A tampered or
//! truncated sound, or a stale record, is reported against the record.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::problem::Problem;
use crate::config::AudioCodec;
use crate::encode::audio::decode::decode;
use crate::format::hsnd::{SoundCodec, SoundRecord};

/// The records found in the manifest, by runtime path.
pub type Records = BTreeMap<String, SoundRecord>;

/// Checks each record in `records` against its sound below `root`;
/// `paths` gives the runtime path of every manifest id.
pub fn check_sounds(
    root: &Path,
    records: &Records,
    paths: &HashMap<u64, String>,
    problems: &mut Vec<Problem>,
) {
    for (path, record) in records {
        if let Err(what) = check_sound(root, record, paths) {
            problems.push(Problem {
                path: path.clone(),
                what,
            });
        }
    }
}

/// Why `record` disagrees with its sound, if it does.
fn check_sound(
    root: &Path,
    record: &SoundRecord,
    paths: &HashMap<u64, String>,
) -> Result<(), String> {
    let sound_path = paths
        .get(&record.sound)
        .ok_or_else(|| format!("its sound {:#018x} is not in the manifest", record.sound))?;
    let codec = codec_of(record);
    if !sound_path.ends_with(codec.extension()) {
        return Err(format!(
            "states the codec {} but its sound is {sound_path}",
            codec.name()
        ));
    }
    let bytes = std::fs::read(root.join(sound_path))
        .map_err(|e| format!("cannot read its sound {sound_path}: {e}"))?;
    let extension = codec.extension().trim_start_matches('.');
    let sound = decode(&bytes, extension)
        .map_err(|e| format!("its sound {sound_path} does not decode: {e}"))?;
    let stated = (record.rate, record.channels as usize, record.frames);
    let actual = (sound.rate, sound.channels, sound.frames() as u64);
    if stated != actual {
        return Err(format!(
            "states {} Hz, {} channels and {} frames, but {sound_path} decodes to {} Hz, {} channels and {} frames",
            stated.0, stated.1, stated.2, actual.0, actual.1, actual.2
        ));
    }
    let looping = sound.looping.map(|l| (l.start, l.end));
    if codec != AudioCodec::Qoa && looping != record.looping() {
        return Err(format!(
            "states the loop {:?} but {sound_path} holds {looping:?}",
            record.looping()
        ));
    }
    Ok(())
}

/// The codec a valid record names (the reader has checked the number).
fn codec_of(record: &SoundRecord) -> AudioCodec {
    match record.codec() {
        Some(SoundCodec::Qoa) => AudioCodec::Qoa,
        Some(SoundCodec::Vorbis) => AudioCodec::Vorbis,
        Some(SoundCodec::Opus) => AudioCodec::Opus,
        Some(SoundCodec::Pcm16) | None => AudioCodec::Pcm16,
    }
}
