//! The RIFF WAVE side of sounds: the loop of a source's `smpl` chunk, and
//! the 16-bit PCM file the encoder writes (`fmt `, `data`, and a `smpl`
//! chunk when the sound loops).
//!
//! A `smpl` loop stores its last frame *played* (inclusive); [`Loop`] keeps
//! one past it, so the conversion happens here and nowhere else.

use super::{AudioError, Loop, LoopOrigin, Sound};
use crate::format::bytes::le_u32_at;

/// Bytes of the `smpl` chunk before its loop records.
const SMPL_HEADER: usize = 36;
/// Bytes of one `smpl` loop record.
const SMPL_LOOP: usize = 24;
/// The MIDI note a `smpl` chunk names when it says nothing of pitch.
const MIDI_UNITY_NOTE: u32 = 60;

/// The first loop of the `smpl` chunk of the RIFF WAVE file `source`, if it
/// has one; `frames` is the decoded length it must fit in.
pub fn read_loop(source: &[u8], frames: usize) -> Result<Option<Loop>, AudioError> {
    let Some(smpl) = find_chunk(source, b"smpl") else {
        return Ok(None);
    };
    let count = le_u32_at(smpl, 28).unwrap_or(0);
    if count == 0 {
        return Ok(None);
    }
    let (Some(start), Some(last)) = (
        le_u32_at(smpl, SMPL_HEADER + 8),
        le_u32_at(smpl, SMPL_HEADER + 12),
    ) else {
        return Err(AudioError::Decode(
            "the smpl chunk declares a loop but ends before it".into(),
        ));
    };
    // The chunk stores the last frame played; a `last` of u32::MAX has no
    // end within any sound, and is refused as outside it.
    let end = u64::from(last) + 1;
    Loop::inside(LoopOrigin::SamplerChunk, u64::from(start), end, frames).map(Some)
}

/// The body of the first chunk named `id` in a RIFF WAVE file, cut to the
/// bytes the file holds.
fn find_chunk<'a>(source: &'a [u8], id: &[u8; 4]) -> Option<&'a [u8]> {
    if source.get(0..4)? != b"RIFF" || source.get(8..12)? != b"WAVE" {
        return None;
    }
    let mut at = 12usize;
    while let Some(header) = source.get(at..at.checked_add(8)?) {
        let size = le_u32_at(header, 4)? as usize;
        let body_start = at + 8;
        let body_end = body_start.saturating_add(size).min(source.len());
        if &header[0..4] == id {
            return source.get(body_start..body_end);
        }
        // Chunks are padded to an even size.
        at = body_start.checked_add(size)?.checked_add(size & 1)?;
    }
    None
}

/// `sound` as a 16-bit PCM RIFF WAVE file; samples are rounded to the
/// nearest step and clamped (no dither: the same bytes every time).
pub fn write_pcm16(sound: &Sound) -> Vec<u8> {
    let channels = sound.channels as u16;
    let block_align = u32::from(channels) * 2;
    let data_len = sound.samples.len() * 2;
    let smpl = sound.looping.map(|looping| smpl_chunk(sound.rate, looping));
    let smpl_len = smpl.as_ref().map_or(0, |chunk| 8 + chunk.len());
    let riff_len = 4 + (8 + 16) + (8 + data_len) + smpl_len;
    let mut out = Vec::with_capacity(8 + riff_len);
    out.extend_from_slice(b"RIFF");
    push_u32(&mut out, riff_len as u32);
    out.extend_from_slice(b"WAVE");
    out.extend_from_slice(b"fmt ");
    push_u32(&mut out, 16);
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&channels.to_le_bytes());
    push_u32(&mut out, sound.rate);
    push_u32(&mut out, sound.rate * block_align);
    out.extend_from_slice(&(block_align as u16).to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    push_u32(&mut out, data_len as u32);
    for &sample in &sound.samples {
        out.extend_from_slice(&to_i16(sample).to_le_bytes());
    }
    if let Some(chunk) = smpl {
        out.extend_from_slice(b"smpl");
        push_u32(&mut out, chunk.len() as u32);
        out.extend_from_slice(&chunk);
    }
    out
}

/// One sample as a signed 16-bit step, at the scale decoders read 16-bit
/// PCM with (`x / 32768`), so a 16-bit source left unprocessed comes back
/// bit for bit.
pub fn to_i16(sample: f32) -> i16 {
    (sample * 32768.0).round().clamp(-32768.0, 32767.0) as i16
}

/// A `smpl` body with one forward loop that plays forever.
fn smpl_chunk(rate: u32, looping: Loop) -> Vec<u8> {
    let mut chunk = Vec::with_capacity(SMPL_HEADER + SMPL_LOOP);
    let sample_period_ns = (1_000_000_000u64 / u64::from(rate.max(1))) as u32;
    for field in [0, 0, sample_period_ns, MIDI_UNITY_NOTE, 0, 0, 0, 1, 0] {
        push_u32(&mut chunk, field);
    }
    // Cue point 0, forward, start, last frame played, no fraction, forever.
    let last = looping.end - 1;
    for field in [0, 0, looping.start as u32, last as u32, 0, 0] {
        push_u32(&mut chunk, field);
    }
    chunk
}

fn push_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}
