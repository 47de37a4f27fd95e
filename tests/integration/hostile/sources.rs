//! Generators of the malformed sources `tests/integration/hostile.rs` feeds the pipeline:
//! PNG files chunk by chunk (with a zlib stream that inflates to any number
//! of zero bytes), flat baseline JPEGs, a one-triangle glTF and its GLB
//! form, and byte-level surgery on the demo's TrueType font.

use serde_json::{Value, json};

use crate::common::crc32;

/// PNG colour type 0: one gray sample per pixel.
pub const GRAY: u8 = 0;
/// PNG colour type 6: red, green, blue and alpha samples.
pub const RGBA: u8 = 6;

/// The signature every PNG starts with.
const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// One PNG chunk: length, type, data and CRC.
pub fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = (data.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut covered = kind.to_vec();
    covered.extend_from_slice(data);
    out.extend(crc32(&covered).to_be_bytes());
    out
}

/// A PNG with the given header fields and one `IDAT` chunk holding `zlib`.
pub fn png(width: u32, height: u32, depth: u8, colour: u8, zlib: &[u8]) -> Vec<u8> {
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([depth, colour, 0, 0, 0]);
    let mut out = PNG_SIGNATURE.to_vec();
    out.extend(chunk(b"IHDR", &ihdr));
    out.extend(chunk(b"IDAT", zlib));
    out.extend(chunk(b"IEND", &[]));
    out
}

/// The number of raw (filtered) bytes an 8-bit gray image of this size holds:
/// one filter byte and `width` samples per row.
pub fn gray_raw_len(width: u32, height: u32) -> u64 {
    (u64::from(width) + 1) * u64::from(height)
}

/// Writes a deflate bit stream: fields least significant bit first, Huffman
/// codes most significant bit first, as RFC 1951 orders them.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    used: u32,
}

impl Bits {
    fn field(&mut self, value: u32, count: u32) {
        for bit in 0..count {
            self.bit((value >> bit) & 1);
        }
    }

    fn code(&mut self, code: u32, length: u32) {
        for bit in (0..length).rev() {
            self.bit((code >> bit) & 1);
        }
    }

    fn bit(&mut self, bit: u32) {
        if self.used.is_multiple_of(8) {
            self.out.push(0);
        }
        if bit != 0 {
            let last = self.out.len() - 1;
            self.out[last] |= 1 << (self.used % 8);
        }
        self.used += 1;
    }

    /// Appends `count` zero bits quickly once the writer is byte-aligned.
    fn zeros(&mut self, count: u64) {
        let mut left = count;
        while left > 0 && !self.used.is_multiple_of(8) {
            self.bit(0);
            left -= 1;
        }
        self.out.resize(self.out.len() + (left / 8) as usize, 0);
        for _ in 0..left % 8 {
            self.bit(0);
        }
    }
}

/// A zlib stream that inflates to `zeros` zero bytes (at least one) in about
/// `zeros / 1032` bytes: one dynamic-Huffman block whose literal/length code
/// gives the 258-byte copy one bit and whose distance code gives distance 1
/// one bit, so every 258 bytes of output cost two bits of input.
pub fn zlib_zeros(zeros: u64) -> Vec<u8> {
    assert!(zeros >= 1);
    let copies = (zeros - 1) / 258;
    let literals = (zeros - 1) % 258;
    let mut bits = Bits::default();
    bits.field(1, 1); // final block
    bits.field(2, 2); // dynamic Huffman codes
    bits.field(286 - 257, 5); // literal/length codes 0..=285
    bits.field(2 - 1, 5); // distance codes 0 and 1
    bits.field(18 - 4, 4); // code-length codes, up to the one for length 1
    // Code-length code lengths, in the order RFC 1951 sends them
    // (16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1): symbol 18 (a run of
    // zeros) gets one bit, symbols 1 and 2 two bits each.
    for length in [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2] {
        bits.field(length, 3);
    }
    let zero_run = |bits: &mut Bits, run: u32| {
        bits.code(0b0, 1);
        bits.field(run - 11, 7);
    };
    let (length_one, length_two) = (
        |b: &mut Bits| b.code(0b10, 2),
        |b: &mut Bits| b.code(0b11, 2),
    );
    length_two(&mut bits); // literal 0
    zero_run(&mut bits, 138); // literals 1..=138
    zero_run(&mut bits, 117); // literals 139..=255
    length_two(&mut bits); // end of block
    zero_run(&mut bits, 28); // lengths 257..=284
    length_one(&mut bits); // length 258 (symbol 285)
    length_one(&mut bits); // distance 1
    length_one(&mut bits); // distance 2 (unused; completes the code)
    // Data: literal 0 is `10`, the copy symbol and distance 1 are `0` each,
    // end of block is `11`.
    for _ in 0..=literals {
        bits.code(0b10, 2);
    }
    bits.zeros(copies * 2);
    bits.code(0b11, 2);
    let mut out = vec![0x78, 0x01];
    out.extend(bits.out);
    let adler = ((zeros % 65521) << 16) | 1;
    out.extend((adler as u32).to_be_bytes());
    out
}

/// A baseline 8-bit grayscale JPEG of the given size whose every block is
/// flat mid-gray: a unit quantisation table, a DC table of twelve 4-bit
/// codes and an AC table holding only end-of-block, so each block is five
/// zero bits. `blocks` overrides how many blocks the scan holds.
pub fn gray_jpeg(width: u16, height: u16, blocks: Option<usize>) -> Vec<u8> {
    let segment = |out: &mut Vec<u8>, marker: u8, body: &[u8]| {
        out.extend([0xFF, marker]);
        out.extend(((body.len() + 2) as u16).to_be_bytes());
        out.extend_from_slice(body);
    };
    let mut out = vec![0xFF, 0xD8];
    let mut quantisation = vec![0u8];
    quantisation.extend([1u8; 64]);
    segment(&mut out, 0xDB, &quantisation);
    let mut frame = vec![8];
    frame.extend(height.to_be_bytes());
    frame.extend(width.to_be_bytes());
    frame.extend([1, 1, 0x11, 0]);
    segment(&mut out, 0xC0, &frame);
    let mut tables = vec![0x00];
    let mut dc_counts = [0u8; 16];
    dc_counts[3] = 12;
    tables.extend(dc_counts);
    tables.extend(0..12u8);
    tables.push(0x10);
    let mut ac_counts = [0u8; 16];
    ac_counts[0] = 1;
    tables.extend(ac_counts);
    tables.push(0x00);
    segment(&mut out, 0xC4, &tables);
    segment(&mut out, 0xDA, &[1, 1, 0x00, 0, 63, 0]);
    let all_blocks = usize::from(width).div_ceil(8) * usize::from(height).div_ceil(8);
    let bits = blocks.unwrap_or(all_blocks) * 5;
    out.resize(out.len() + bits / 8, 0);
    if !bits.is_multiple_of(8) {
        out.push(0xFF >> (bits % 8)); // the last bits, padded with ones
    }
    out.extend([0xFF, 0xD9]);
    out
}

/// The bytes of a one-triangle mesh: three `f32` positions, then three
/// `u16` indices.
pub fn triangle_buffer() -> Vec<u8> {
    let mut bytes = Vec::new();
    for value in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        bytes.extend(value.to_le_bytes());
    }
    for index in [0u16, 1, 2] {
        bytes.extend(index.to_le_bytes());
    }
    bytes
}

/// The JSON of a one-triangle glTF whose buffer has the given `uri` (none:
/// the GLB `BIN` chunk).
pub fn triangle_gltf(uri: Option<&str>) -> Value {
    let mut buffer = json!({ "byteLength": 42 });
    if let Some(uri) = uri {
        buffer["uri"] = json!(uri);
    }
    json!({
        "asset": { "version": "2.0" },
        "buffers": [buffer],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 36, "byteLength": 6 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
              "min": [0, 0, 0], "max": [1, 1, 0] },
            { "bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR" }
        ],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1 }] }],
        "nodes": [{ "mesh": 0 }],
        "scenes": [{ "nodes": [0] }],
        "scene": 0
    })
}

/// The triangle glTF with its buffer inline as a base64 `data:` URI.
pub fn triangle_gltf_embedded() -> Value {
    let payload = base64_encode(&triangle_buffer());
    triangle_gltf(Some(&format!(
        "data:application/octet-stream;base64,{payload}"
    )))
}

/// Standard base64 with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let word = group
            .iter()
            .enumerate()
            .fold(0u32, |word, (i, &b)| word | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= group.len() {
                out.push(char::from(ALPHABET[(word >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A GLB holding `json` and `bin` as its two chunks (each padded to four
/// bytes, JSON with spaces, BIN with zeros).
pub fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).unwrap_or_default();
    text.resize(text.len().next_multiple_of(4), b' ');
    let mut data = bin.to_vec();
    data.resize(data.len().next_multiple_of(4), 0);
    let total = 12 + 8 + text.len() + 8 + data.len();
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((text.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(text);
    out.extend((data.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(data);
    out
}

/// The byte offset of the length field of a GLB's `BIN` chunk.
pub fn glb_bin_length_offset(glb: &[u8]) -> usize {
    let json_len = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) as usize;
    20 + json_len
}

/// The offset and length of the table `tag` in a TrueType font's table
/// directory, and where its directory record starts.
pub fn font_table(font: &[u8], tag: &[u8; 4]) -> (usize, usize, usize) {
    let count = usize::from(u16::from_be_bytes([font[4], font[5]]));
    (0..count)
        .map(|i| 12 + 16 * i)
        .find(|&record| &font[record..record + 4] == tag)
        .map(|record| {
            let word = |at: usize| {
                u32::from_be_bytes([font[at], font[at + 1], font[at + 2], font[at + 3]]) as usize
            };
            (word(record + 8), word(record + 12), record)
        })
        .unwrap_or_else(|| panic!("the font has no {} table", String::from_utf8_lossy(tag)))
}

#[cfg(test)]
mod checks {
    use super::*;

    #[test]
    fn the_crc_matches_the_png_specification_example() {
        // The CRC of an empty IEND chunk, as every PNG ends with it.
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }

    #[test]
    fn base64_pads_like_the_standard() {
        assert_eq!(base64_encode(b"ab"), "YWI=");
        assert_eq!(base64_encode(b"abc"), "YWJj");
        assert_eq!(base64_encode(b"a"), "YQ==");
    }

    #[test]
    fn the_zero_stream_inflates_to_exactly_its_length() {
        // A PNG built on it decodes to an all-zero image of the declared size,
        // so the same stream at gigabyte lengths really is a bomb.
        for (width, height) in [(1, 1), (16, 16), (300, 7)] {
            let zlib = zlib_zeros(gray_raw_len(width, height));
            let file = png(width, height, 8, GRAY, &zlib);
            let mut reader = png::Decoder::new(std::io::Cursor::new(file))
                .read_info()
                .unwrap();
            let mut pixels = vec![1; reader.output_buffer_size().unwrap()];
            reader.next_frame(&mut pixels).unwrap();
            reader.finish().unwrap();
            assert!(pixels.iter().all(|&p| p == 0), "{width}x{height}");
        }
    }
}
