//! The `.hsnd` record written beside each sound (`docs/formats/hsnd.md`):
//! its codec, rate, channels, length, loop, loudness and true peak, and the
//! asset id of the sound file, for an engine to read with a cast.

use super::EncodedSound;
use crate::config::AudioCodec;
use crate::format::error::FormatResult;
use crate::format::hsnd::{self, SoundCodec, SoundRecord};

/// The record of `sound`, whose file has the asset id `sound_id`.
pub fn record(sound: &EncodedSound, sound_id: u64) -> FormatResult<Vec<u8>> {
    let codec = record_codec(sound.codec);
    let channels = sound.channels as u32;
    let mut record = SoundRecord::new(codec, sound.rate, channels, sound.frames, sound_id);
    if let Some(looping) = sound.looping {
        record = record.with_loop(looping.start, looping.end);
    }
    if let Some((loudness, true_peak)) = sound.loudness {
        record = record.with_loudness(loudness, true_peak);
    }
    hsnd::write_hsnd(&record)
}

/// The record's number for `codec`.
fn record_codec(codec: AudioCodec) -> SoundCodec {
    match codec {
        AudioCodec::Pcm16 => SoundCodec::Pcm16,
        AudioCodec::Qoa => SoundCodec::Qoa,
        AudioCodec::Vorbis => SoundCodec::Vorbis,
        AudioCodec::Opus => SoundCodec::Opus,
    }
}
