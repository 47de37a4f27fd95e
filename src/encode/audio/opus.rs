//! Ogg Opus (RFC 7845), both ways: [`write_opus`] encodes a 48 kHz
//! [`Sound`] to a standard `.opus` file (libopusfile, miniaudio, ffmpeg,
//! browsers), and [`read_opus`] decodes one back, so Opus files can be
//! sources too. What it shares with Vorbis (the error, Ogg packets, the
//! comments, the channel order) is in [`super::ogg_stream`].
//!
//! # The stream we write
//!
//! - `OpusHead`: version 1, the channel count, a pre-skip equal to the
//!   encoder's lookahead, 48000 Hz as the input rate, no output gain.
//!   One or two channels use mapping family 0; three to eight use family 1
//!   (Vorbis channel order, one multistream packet of coupled and mono
//!   streams per frame, the stream layout of RFC 7845 section 5.1.1.2).
//! - `OpusTags`: the fixed vendor string `assetc`, plus `LOOPSTART` and
//!   `LOOPLENGTH` when the sound loops (the Vorbis convention, see
//!   [`super::vorbis`]), in 48 kHz frames of the decoded output.
//! - Audio: 20 ms packets, VBR, `Application::Audio`, complexity 10, at
//!   `bitrate_per_channel × channels`; a page ends every second. Granule
//!   positions count 48 kHz samples from the start *including* the
//!   pre-skip, and the last page's is exactly `pre_skip + frames`, so a
//!   decoder drops the encoder's delay at the start and the padding of the
//!   last packet at the end, and plays exactly `sound.frames()` frames,
//!   time-aligned with the input.
//! - A fixed stream serial ([`OPUS_SERIAL`]): the same sound gives the same
//!   bytes.
//!
//! The multistream encoder for 3 to 8 channels is libopus's generic one with
//! the family-1 layout, not its "surround" variant (which the `opus` crate
//! does not wrap): the LFE channel is coded as an ordinary mono stream.
//!
//! # Reading
//!
//! [`read_opus`] takes the first logical stream of the file, applies the
//! header's output gain, pre-skip and end trimming (and a non-zero start
//! granule), clamps samples to `[-1, 1]`, and reads the loop comments. It is
//! written for hostile input: every length is checked, a malformed file is
//! an [`OggError`], and the decoded size is capped at
//! [`MAX_DECODED_BYTES`] of `f32` samples.

use ::opus::{Application, Bitrate, MSDecoder, MSEncoder};
use ogg::writing::{PacketWriteEndInfo, PacketWriter};

use super::Sound;
use super::ogg_stream::{
    OggError, StreamPackets, check_channels, from_vorbis_order, loop_from_comments, loop_tags,
    parse_comments, to_vorbis_order,
};
use crate::encode::limits::MAX_DECODED_BYTES;

/// The one sample rate of Opus streams (and of what we decode them to).
pub const OPUS_RATE: u32 = 48_000;

/// The Ogg stream serial of every Opus file we write ("asOp" in ASCII):
/// fixed, so that the same sound gives the same bytes.
pub const OPUS_SERIAL: u32 = 0x6173_4F70;

/// The lowest bitrate per channel [`write_opus`] accepts, in bits/s.
pub const MIN_OPUS_BITRATE_PER_CHANNEL: u32 = 6_000;

/// The highest bitrate per channel [`write_opus`] accepts, in bits/s
/// (libopus gains nothing above it).
pub const MAX_OPUS_BITRATE_PER_CHANNEL: u32 = 256_000;

/// The vendor string of our `OpusTags`.
const VENDOR: &str = "assetc";

/// Samples per channel in one packet: 20 ms at 48 kHz.
const PACKET_FRAMES: usize = 960;

/// Packets per Ogg page: one second of audio.
const PACKETS_PER_PAGE: usize = 50;

/// Room for one encoded packet, per Opus stream in it (a 20 ms packet
/// never passes 1275 bytes, plus the self-delimiting length).
const PACKET_BYTES_PER_STREAM: usize = 1280;

/// The longest packet Opus allows: 120 ms at 48 kHz.
const MAX_PACKET_FRAMES: usize = 5760;

/// The most `f32` samples [`read_opus`] decodes.
const MAX_SAMPLES: usize = (MAX_DECODED_BYTES / 4) as usize;

/// The magic signature of the identification header.
const HEAD_MAGIC: &[u8; 8] = b"OpusHead";

/// The magic signature of the comment header.
const TAGS_MAGIC: &[u8; 8] = b"OpusTags";

/// The length of an `OpusHead` without its channel mapping table.
const HEAD_BYTES: usize = 19;

// ---------------------------------------------------------------------------
// The channel layout shared by writer and reader.

/// How the channels of a stream map onto Opus streams (RFC 7845 5.1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    /// The channel mapping family: 0 (mono, stereo) or 1 (Vorbis order).
    family: u8,
    /// Opus streams in each packet.
    streams: u8,
    /// How many of them are coupled (stereo) streams.
    coupled: u8,
    /// For each output channel, the decoded channel it takes.
    mapping: Vec<u8>,
}

impl Layout {
    /// The layout we write for `channels` (1 to [`MAX_CHANNELS`]).
    fn for_channels(channels: usize) -> Result<Layout, OggError> {
        check_channels(channels)?;
        let (streams, coupled, mapping): (u8, u8, &[u8]) = match channels {
            1 => (1, 0, &[0]),
            2 => (1, 1, &[0, 1]),
            3 => (2, 1, &[0, 2, 1]),
            4 => (2, 2, &[0, 1, 2, 3]),
            5 => (3, 2, &[0, 4, 1, 2, 3]),
            6 => (4, 2, &[0, 4, 1, 2, 3, 5]),
            7 => (4, 3, &[0, 4, 1, 2, 3, 5, 6]),
            _ => (5, 3, &[0, 6, 1, 2, 3, 4, 5, 7]),
        };
        Ok(Layout {
            family: if channels <= 2 { 0 } else { 1 },
            streams,
            coupled,
            mapping: mapping.to_vec(),
        })
    }

    /// The number of output channels.
    fn channels(&self) -> usize {
        self.mapping.len()
    }
}

// ---------------------------------------------------------------------------
// Writing.

/// Encodes `sound` (which must be at [`OPUS_RATE`]; the caller resamples)
/// as Ogg Opus at `bitrate_per_channel` bits/s per channel, with loop
/// comments when it loops.
pub fn write_opus(sound: &Sound, bitrate_per_channel: u32) -> Result<Vec<u8>, OggError> {
    if sound.rate != OPUS_RATE {
        return Err(OggError::OpusRate(sound.rate));
    }
    check_bitrate(bitrate_per_channel)?;
    let layout = Layout::for_channels(sound.channels)?;
    let tags = loop_tags(sound)?;
    let mut encoder = make_encoder(&layout, bitrate_per_channel)?;
    let pre_skip = u16::try_from(encoder.get_lookahead()?)
        .map_err(|_| OggError::Head("the encoder's lookahead does not fit a pre-skip".into()))?;
    let mut pages = PacketWriter::new(Vec::new());
    write_headers(&mut pages, &layout, pre_skip, &tags)?;
    write_audio(&mut pages, &mut encoder, &layout, sound, pre_skip)?;
    Ok(pages.into_inner())
}

/// Fails unless `bitrate_per_channel` is in the range we accept.
fn check_bitrate(bitrate_per_channel: u32) -> Result<(), OggError> {
    if (MIN_OPUS_BITRATE_PER_CHANNEL..=MAX_OPUS_BITRATE_PER_CHANNEL).contains(&bitrate_per_channel)
    {
        Ok(())
    } else {
        Err(OggError::Bitrate(bitrate_per_channel))
    }
}

/// A multistream encoder for `layout`, set up for music and effects:
/// unconstrained VBR at `bitrate_per_channel × channels`, best quality.
fn make_encoder(layout: &Layout, bitrate_per_channel: u32) -> Result<MSEncoder, OggError> {
    let mut encoder = MSEncoder::new(
        OPUS_RATE,
        layout.streams,
        layout.coupled,
        &layout.mapping,
        Application::Audio,
    )?;
    let total = bitrate_per_channel.saturating_mul(layout.channels() as u32);
    encoder.set_bitrate(Bitrate::Bits(i32::try_from(total).unwrap_or(i32::MAX)))?;
    encoder.set_vbr(true)?;
    encoder.set_vbr_constraint(false)?;
    encoder.set_complexity(10)?;
    encoder.set_lsb_depth(24)?;
    Ok(encoder)
}

/// Writes the `OpusHead` and `OpusTags` packets, each ending its page as
/// RFC 7845 requires.
fn write_headers(
    pages: &mut PacketWriter<'_, Vec<u8>>,
    layout: &Layout,
    pre_skip: u16,
    tags: &[(&str, String)],
) -> Result<(), OggError> {
    pages.write_packet(
        head_packet(layout, pre_skip),
        OPUS_SERIAL,
        PacketWriteEndInfo::EndPage,
        0,
    )?;
    pages.write_packet(
        tags_packet(tags),
        OPUS_SERIAL,
        PacketWriteEndInfo::EndPage,
        0,
    )?;
    Ok(())
}

/// The `OpusHead` identification header.
fn head_packet(layout: &Layout, pre_skip: u16) -> Vec<u8> {
    let mut head = Vec::with_capacity(HEAD_BYTES + 2 + layout.channels());
    head.extend_from_slice(HEAD_MAGIC);
    head.push(1); // version
    head.push(layout.channels() as u8);
    head.extend_from_slice(&pre_skip.to_le_bytes());
    head.extend_from_slice(&OPUS_RATE.to_le_bytes()); // input sample rate
    head.extend_from_slice(&0i16.to_le_bytes()); // output gain
    head.push(layout.family);
    if layout.family != 0 {
        head.push(layout.streams);
        head.push(layout.coupled);
        head.extend_from_slice(&layout.mapping);
    }
    head
}

/// The `OpusTags` comment header: our vendor string and `tags`.
fn tags_packet(tags: &[(&str, String)]) -> Vec<u8> {
    let mut packet = Vec::new();
    packet.extend_from_slice(TAGS_MAGIC);
    push_counted(&mut packet, VENDOR.as_bytes());
    packet.extend_from_slice(&(tags.len() as u32).to_le_bytes());
    for (name, value) in tags {
        push_counted(&mut packet, format!("{name}={value}").as_bytes());
    }
    packet
}

/// Appends `bytes` after their length as a little-endian `u32`.
fn push_counted(packet: &mut Vec<u8>, bytes: &[u8]) {
    packet.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    packet.extend_from_slice(bytes);
}

/// Encodes the sound in 20 ms packets, padded at the end with silence long
/// enough to flush the encoder's lookahead, with the granule positions
/// that trim the padding away.
fn write_audio(
    pages: &mut PacketWriter<'_, Vec<u8>>,
    encoder: &mut MSEncoder,
    layout: &Layout,
    sound: &Sound,
    pre_skip: u16,
) -> Result<(), OggError> {
    let channels = layout.channels();
    let end_granule = sound.frames() as u64 + u64::from(pre_skip);
    let packets = (end_granule as usize).div_ceil(PACKET_FRAMES).max(1);
    let mut frame = vec![0.0f32; PACKET_FRAMES * channels];
    let mut encoded = vec![0u8; PACKET_BYTES_PER_STREAM * usize::from(layout.streams)];
    for index in 0..packets {
        fill_frame(&mut frame, &sound.samples, index * PACKET_FRAMES * channels);
        let length = encoder.encode_float(&to_vorbis_order(&frame, channels), &mut encoded)?;
        let granule = (((index + 1) * PACKET_FRAMES) as u64).min(end_granule);
        let end = page_end(index, packets);
        pages.write_packet(encoded[..length].to_vec(), OPUS_SERIAL, end, granule)?;
    }
    Ok(())
}

/// Copies the samples of `input` from `start` into `frame`, silence past
/// the end of the input.
fn fill_frame(frame: &mut [f32], input: &[f32], start: usize) {
    let available = input.get(start..).unwrap_or_default();
    let copied = available.len().min(frame.len());
    frame[..copied].copy_from_slice(&available[..copied]);
    frame[copied..].fill(0.0);
}

/// Whether packet `index` of `packets` ends its page, or the stream.
fn page_end(index: usize, packets: usize) -> PacketWriteEndInfo {
    if index + 1 == packets {
        PacketWriteEndInfo::EndStream
    } else if (index + 1).is_multiple_of(PACKETS_PER_PAGE) {
        PacketWriteEndInfo::EndPage
    } else {
        PacketWriteEndInfo::NormalPacket
    }
}

// ---------------------------------------------------------------------------
// Reading.

/// Decodes the Ogg Opus file `source` to 48 kHz `f32` samples in the WAV
/// channel order, with the pre-skip and end trimming applied and the loop of
/// its `LOOPSTART`/`LOOPLENGTH` (or `LOOPEND`) comments.
pub fn read_opus(source: &[u8]) -> Result<Sound, OggError> {
    let mut packets = StreamPackets::new(source)?;
    let head = Head::parse(&packets.first)?;
    let tags = packets.next()?;
    let comments = parse_comments(&tags.data, TAGS_MAGIC)?;
    if tags.last_in_stream() {
        return Err(OggError::NoAudio);
    }
    let decoded = decode_audio(&mut packets, &head)?;
    let range = decoded.playable(u64::from(head.pre_skip))?;
    let channels = head.layout.channels();
    let kept = decoded
        .samples
        .get(range.start * channels..range.end * channels)
        .ok_or_else(|| OggError::Granule("the trimmed range lies outside the samples".into()))?;
    let mut samples = from_vorbis_order(kept, channels);
    samples
        .iter_mut()
        .for_each(|sample| *sample = sample.clamp(-1.0, 1.0));
    let frames = samples.len() / channels;
    let looping = loop_from_comments(comments.iter().map(String::as_str), frames)?;
    Ok(Sound {
        rate: OPUS_RATE,
        channels,
        samples,
        looping,
    })
}

/// What the `OpusHead` declares.
#[derive(Debug)]
struct Head {
    /// Samples (per channel, at 48 kHz) to drop from the start.
    pre_skip: u16,
    /// Output gain in Q7.8 dB.
    gain: i16,
    /// The stream layout.
    layout: Layout,
}

impl Head {
    /// Parses and checks an `OpusHead` packet.
    fn parse(packet: &[u8]) -> Result<Head, OggError> {
        if !packet.starts_with(HEAD_MAGIC) {
            return Err(OggError::NotOpus);
        }
        if packet.len() < HEAD_BYTES {
            return Err(OggError::Head(format!(
                "{} bytes, fewer than {HEAD_BYTES}",
                packet.len()
            )));
        }
        let version = packet[8];
        if version >> 4 != 0 {
            return Err(OggError::Head(format!("unsupported version {version}")));
        }
        let channels = usize::from(packet[9]);
        check_channels(channels)?;
        let pre_skip = u16::from_le_bytes([packet[10], packet[11]]);
        let gain = i16::from_le_bytes([packet[16], packet[17]]);
        let layout = parse_layout(packet[18], channels, &packet[HEAD_BYTES..])?;
        Ok(Head {
            pre_skip,
            gain,
            layout,
        })
    }
}

/// The stream layout of mapping `family` for `channels` channels, whose
/// mapping table (family 1) opens `table`.
fn parse_layout(family: u8, channels: usize, table: &[u8]) -> Result<Layout, OggError> {
    match family {
        0 if channels <= 2 => Layout::for_channels(channels),
        0 => Err(OggError::Head(format!(
            "mapping family 0 with {channels} channels"
        ))),
        1 => parse_family_one(channels, table),
        other => Err(OggError::Head(format!(
            "unsupported channel mapping family {other}"
        ))),
    }
}

/// The family-1 layout in `table`: stream count, coupled count, mapping.
fn parse_family_one(channels: usize, table: &[u8]) -> Result<Layout, OggError> {
    let (Some(&streams), Some(&coupled), Some(mapping)) =
        (table.first(), table.get(1), table.get(2..2 + channels))
    else {
        return Err(OggError::Head(
            "the channel mapping table is cut short".into(),
        ));
    };
    let decoded = usize::from(streams) + usize::from(coupled);
    if streams == 0 || coupled > streams || decoded > 255 {
        return Err(OggError::Head(format!(
            "{streams} streams of which {coupled} coupled"
        )));
    }
    if let Some(bad) = mapping
        .iter()
        .find(|&&m| m != 255 && usize::from(m) >= decoded)
    {
        return Err(OggError::Head(format!(
            "the mapping names decoded channel {bad} of {decoded}"
        )));
    }
    Ok(Layout {
        family: 1,
        streams,
        coupled,
        mapping: mapping.to_vec(),
    })
}

/// Every sample of a stream's audio packets, with the granule positions
/// needed to trim them.
struct Decoded {
    /// Interleaved samples, Vorbis channel order, pre-skip included.
    samples: Vec<f32>,
    /// Samples per channel in `samples`.
    frames: u64,
    /// The granule position of the first page that completes a packet.
    first_granule: u64,
    /// Samples per channel in the packets completed on that page.
    first_page_frames: u64,
    /// Whether that page is also the last.
    first_page_is_last: bool,
    /// The granule position of the stream's last page.
    end_granule: u64,
}

impl Decoded {
    /// The frames to keep: from the pre-skip to the end granule, both
    /// measured from the stream's start (which a first page with a granule
    /// above its packets' length shifts later, RFC 7845 section 4.5).
    fn playable(&self, pre_skip: u64) -> Result<std::ops::Range<usize>, OggError> {
        let start = self.stream_start()?;
        let end = self.end_granule.checked_sub(start).ok_or_else(|| {
            OggError::Granule(format!(
                "the last page ({}) ends before the first ({})",
                self.end_granule, self.first_granule
            ))
        })?;
        if end > self.frames {
            return Err(OggError::Granule(format!(
                "the last page claims {end} samples, the packets hold {}",
                self.frames
            )));
        }
        if end < pre_skip {
            return Err(OggError::PreSkipTooLong {
                pre_skip,
                samples: end,
            });
        }
        Ok(pre_skip as usize..end as usize)
    }

    /// The granule position at which the stream's first sample lies.
    fn stream_start(&self) -> Result<u64, OggError> {
        match self.first_granule.checked_sub(self.first_page_frames) {
            Some(start) => Ok(start),
            None if self.first_page_is_last => Ok(0),
            None => Err(OggError::Granule(format!(
                "the first audio page ends at {} but holds {} samples",
                self.first_granule, self.first_page_frames
            ))),
        }
    }
}

/// Where the first audio page stands while packets are read.
#[derive(Default)]
struct FirstPage {
    /// Samples of the packets completed on it so far.
    frames: u64,
    /// Its granule position and whether it is the last page, once known.
    closed: Option<(u64, bool)>,
}

/// Decodes every audio packet of the stream, up to its last page.
fn decode_audio(packets: &mut StreamPackets<'_>, head: &Head) -> Result<Decoded, OggError> {
    let layout = &head.layout;
    let channels = layout.channels();
    let mut decoder = MSDecoder::new(OPUS_RATE, layout.streams, layout.coupled, &layout.mapping)
        .map_err(|error| OggError::Head(format!("libopus refuses the layout: {error}")))?;
    if head.gain != 0 {
        decoder.set_gain(i32::from(head.gain))?;
    }
    let mut buffer = vec![0.0f32; MAX_PACKET_FRAMES * channels];
    let mut samples = Vec::new();
    let mut first_page = FirstPage::default();
    let mut index = 0;
    loop {
        let packet = packets.next()?;
        let frames = decode_packet(&mut decoder, &packet.data, &mut buffer, index)?;
        let new_samples = buffer.get(..frames * channels).unwrap_or_default();
        reserve_within_limit(&mut samples, new_samples.len())?;
        samples.extend_from_slice(new_samples);
        if first_page.closed.is_none() {
            first_page.frames += frames as u64;
            if packet.last_in_page() {
                first_page.closed = Some((packet.absgp_page(), packet.last_in_stream()));
            }
        }
        if packet.last_in_stream() {
            let (first_granule, first_page_is_last) = first_page.closed.unwrap_or_default();
            return Ok(Decoded {
                frames: (samples.len() / channels) as u64,
                samples,
                first_granule,
                first_page_frames: first_page.frames,
                first_page_is_last,
                end_granule: packet.absgp_page(),
            });
        }
        index += 1;
    }
}

/// Decodes audio packet number `index` into `buffer`; returns its frames.
fn decode_packet(
    decoder: &mut MSDecoder,
    packet: &[u8],
    buffer: &mut [f32],
    index: usize,
) -> Result<usize, OggError> {
    if packet.is_empty() {
        return Err(OggError::Packet {
            index,
            reason: "it is empty".into(),
        });
    }
    decoder
        .decode_float(packet, buffer, false)
        .map_err(|error| OggError::Packet {
            index,
            reason: error.to_string(),
        })
}

/// Makes room for `more` samples, failing past [`MAX_SAMPLES`]; grows by
/// doubling but never reserves beyond the limit.
fn reserve_within_limit(samples: &mut Vec<f32>, more: usize) -> Result<(), OggError> {
    let needed = samples.len() + more;
    if needed > MAX_SAMPLES {
        return Err(OggError::TooLarge);
    }
    if needed > samples.capacity() {
        let target = needed.max(samples.capacity() * 2).min(MAX_SAMPLES);
        samples.reserve_exact(target - samples.len());
    }
    Ok(())
}
