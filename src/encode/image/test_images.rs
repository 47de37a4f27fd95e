use png::{BitDepth, ColorType};

/// A generated PNG and the RGBA8 pixels it must decode to.
pub struct PngCase {
    /// Colour type, depth and variant, for failure messages.
    pub name: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The PNG file.
    pub file: Vec<u8>,
    /// The RGBA8 pixels it must decode to.
    pub expected: Vec<u8>,
}

/// Deterministic pseudo-random numbers (xorshift32).
pub struct Noise(u32);

impl Noise {
    /// A generator seeded with `seed` (0 is replaced by 1).
    pub fn new(seed: u32) -> Self {
        Self(seed.max(1))
    }

    /// The next number.
    pub fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
}

/// The layout of one PNG to generate.
#[derive(Clone, Copy)]
struct Layout {
    color: ColorType,
    depth: u8,
    interlaced: bool,
}

impl Layout {
    fn channels(self) -> usize {
        match self.color {
            ColorType::Grayscale | ColorType::Indexed => 1,
            ColorType::GrayscaleAlpha => 2,
            ColorType::Rgb => 3,
            ColorType::Rgba => 4,
        }
    }

    fn bit_depth(self) -> BitDepth {
        BitDepth::from_u8(self.depth).unwrap()
    }
}

/// Packs one row of samples at `depth` bits (MSB first below 8 bits,
/// big-endian at 16).
fn pack_row(samples: &[u16], depth: u8) -> Vec<u8> {
    match depth {
        16 => samples.iter().flat_map(|s| s.to_be_bytes()).collect(),
        8 => samples.iter().map(|&s| s as u8).collect(),
        _ => {
            let per_byte = 8 / depth as usize;
            samples
                .chunks(per_byte)
                .map(|group| {
                    group.iter().enumerate().fold(0u8, |byte, (i, &s)| {
                        byte | ((s as u8) << (8 - depth as usize * (i + 1)))
                    })
                })
                .collect()
        }
    }
}

/// A zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = data.chunks(65535).collect();
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        out.extend(len.to_le_bytes());
        out.extend((!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    out.extend(((b << 16) | a).to_be_bytes());
    out
}

/// Adam7 scanlines (filter type 0) of `samples` (`channels` per pixel).
fn adam7_scanlines(width: u32, height: u32, layout: Layout, samples: &[u16]) -> Vec<u8> {
    const PASSES: [(u32, u32, u32, u32); 7] = [
        (0, 0, 8, 8),
        (4, 0, 8, 8),
        (0, 4, 4, 8),
        (2, 0, 4, 4),
        (0, 2, 2, 4),
        (1, 0, 2, 2),
        (0, 1, 1, 2),
    ];
    let channels = layout.channels();
    let mut out = Vec::new();
    for (x0, y0, dx, dy) in PASSES {
        for y in (y0..height).step_by(dy as usize) {
            let row: Vec<u16> = (x0..width)
                .step_by(dx as usize)
                .flat_map(|x| {
                    let start = (y * width + x) as usize * channels;
                    samples[start..start + channels].to_vec()
                })
                .collect();
            if !row.is_empty() {
                out.push(0);
                out.extend(pack_row(&row, layout.depth));
            }
        }
    }
    out
}

/// Writes a PNG: through the `png` encoder, or with hand-made Adam7 data
/// when interlaced (the encoder cannot interlace).
fn write_png(
    width: u32,
    height: u32,
    layout: Layout,
    samples: &[u16],
    palette: Option<&[u8]>,
    trns: Option<&[u8]>,
) -> Vec<u8> {
    let mut info = png::Info::with_size(width, height);
    info.color_type = layout.color;
    info.bit_depth = layout.bit_depth();
    info.interlaced = layout.interlaced;
    info.palette = palette.map(|p| p.to_vec().into());
    info.trns = trns.map(|t| t.to_vec().into());
    let mut file = Vec::new();
    let mut writer = png::Encoder::with_info(&mut file, info)
        .unwrap()
        .write_header()
        .unwrap();
    if layout.interlaced {
        let scanlines = adam7_scanlines(width, height, layout, samples);
        writer
            .write_chunk(png::chunk::IDAT, &zlib_stored(&scanlines))
            .unwrap();
    } else {
        let row_len = width as usize * layout.channels();
        let data: Vec<u8> = samples
            .chunks(row_len)
            .flat_map(|row| pack_row(row, layout.depth))
            .collect();
        writer.write_image_data(&data).unwrap();
    }
    writer.finish().unwrap();
    file
}

/// The samples of a gray or RGB tRNS colour key.
fn colour_key(trns: &[u8]) -> Vec<u16> {
    trns.chunks(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
        .collect()
}

/// The RGBA8 pixels a PNG's samples must decode to, computed the slow way.
fn expected_rgba(
    layout: Layout,
    samples: &[u16],
    palette: Option<&[u8]>,
    trns: Option<&[u8]>,
) -> Vec<u8> {
    let to8 = |s: u16| -> u8 {
        match layout.depth {
            16 => ((u32::from(s) * 255 + 32767) / 65535) as u8,
            8 => s as u8,
            d => (u32::from(s) * 255 / ((1 << d) - 1)) as u8,
        }
    };
    let key = trns
        .filter(|_| layout.color != ColorType::Indexed)
        .map(colour_key);
    let mut out = Vec::new();
    for pixel in samples.chunks(layout.channels()) {
        let keyed_alpha = |key: &Option<Vec<u16>>| match key {
            Some(key) if key.as_slice() == pixel => 0,
            _ => 255,
        };
        let rgba = match layout.color {
            ColorType::Grayscale => {
                let g = to8(pixel[0]);
                [g, g, g, keyed_alpha(&key)]
            }
            ColorType::GrayscaleAlpha => {
                let g = to8(pixel[0]);
                [g, g, g, to8(pixel[1])]
            }
            ColorType::Rgb => [
                to8(pixel[0]),
                to8(pixel[1]),
                to8(pixel[2]),
                keyed_alpha(&key),
            ],
            ColorType::Rgba => [pixel[0], pixel[1], pixel[2], pixel[3]].map(to8),
            ColorType::Indexed => {
                let index = usize::from(pixel[0]);
                let entry = &palette.unwrap()[index * 3..index * 3 + 3];
                let alpha = trns.and_then(|t| t.get(index).copied()).unwrap_or(255);
                [entry[0], entry[1], entry[2], alpha]
            }
        };
        out.extend(rgba);
    }
    out
}

/// Random samples for `pixels` pixels; the first few pixels take the
/// extreme and rounding-boundary values.
fn samples(layout: Layout, pixels: usize, limit: u32, noise: &mut Noise) -> Vec<u16> {
    let specials: &[u16] = match layout.depth {
        16 => &[0, 65535, 128, 129, 32767, 32768, 257 * 100, 257 * 100 + 128],
        _ => &[0],
    };
    let count = pixels * layout.channels();
    (0..count)
        .map(|i| match specials.get(i) {
            Some(&s) if u32::from(s) < limit => s,
            _ => (noise.next() % limit) as u16,
        })
        .collect()
}

/// One generated PNG case.
fn case(
    name: &str,
    layout: Layout,
    palette: Option<&[u8]>,
    trns: Option<&[u8]>,
    noise: &mut Noise,
) -> PngCase {
    let (width, height) = if layout.interlaced { (11, 9) } else { (7, 5) };
    let pixels = (width * height) as usize;
    let limit = match (layout.color, palette) {
        (ColorType::Indexed, Some(palette)) => (palette.len() / 3) as u32,
        _ => 1 << layout.depth,
    };
    let mut samples = samples(layout, pixels, limit, noise);
    // Make one pixel match a colour key so tRNS keying is exercised.
    if let (Some(trns), ColorType::Grayscale | ColorType::Rgb) = (trns, layout.color) {
        let key = colour_key(trns);
        samples[..key.len()].copy_from_slice(&key);
    }
    PngCase {
        name: name.to_owned(),
        width,
        height,
        file: write_png(width, height, layout, &samples, palette, trns),
        expected: expected_rgba(layout, &samples, palette, trns),
    }
}

/// Every PNG colour type at every bit depth, palettes with and without
/// tRNS, colour keys, and interlaced files.
pub fn png_cases() -> Vec<PngCase> {
    let mut noise = Noise::new(0x1234_5678);
    let plain = |color, depth| Layout {
        color,
        depth,
        interlaced: false,
    };
    let interlaced = |color, depth| Layout {
        color,
        depth,
        interlaced: true,
    };
    let palette: Vec<u8> = (0..13u8)
        .flat_map(|i| [i * 19, 255 - i * 7, i * 3])
        .collect();
    let palette_alpha = [0u8, 40, 128, 255, 7];
    let mut cases = Vec::new();
    for depth in [1, 2, 4, 8, 16] {
        let name = format!("gray{depth}");
        cases.push(case(
            &name,
            plain(ColorType::Grayscale, depth),
            None,
            None,
            &mut noise,
        ));
    }
    for depth in [8, 16] {
        for (color, label) in [
            (ColorType::GrayscaleAlpha, "gray_alpha"),
            (ColorType::Rgb, "rgb"),
            (ColorType::Rgba, "rgba"),
        ] {
            let name = format!("{label}{depth}");
            cases.push(case(&name, plain(color, depth), None, None, &mut noise));
        }
    }
    for depth in [4, 8] {
        let layout = plain(ColorType::Indexed, depth);
        let name = format!("palette{depth}");
        cases.push(case(&name, layout, Some(&palette), None, &mut noise));
        let name = format!("palette{depth}_trns");
        cases.push(case(
            &name,
            layout,
            Some(&palette),
            Some(&palette_alpha),
            &mut noise,
        ));
    }
    let small_palette = &palette[..6];
    let layout = plain(ColorType::Indexed, 1);
    cases.push(case(
        "palette1_trns",
        layout,
        Some(small_palette),
        Some(&[9]),
        &mut noise,
    ));
    let gray_key = [0u8, 77];
    let layout = plain(ColorType::Grayscale, 8);
    cases.push(case(
        "gray8_trns",
        layout,
        None,
        Some(&gray_key),
        &mut noise,
    ));
    let rgb_key = [0u8, 1, 0, 2, 0, 3];
    let layout = plain(ColorType::Rgb, 8);
    cases.push(case("rgb8_trns", layout, None, Some(&rgb_key), &mut noise));
    let rgb16_key = [1u8, 2, 3, 4, 5, 6];
    let layout = plain(ColorType::Rgb, 16);
    cases.push(case(
        "rgb16_trns",
        layout,
        None,
        Some(&rgb16_key),
        &mut noise,
    ));
    for (color, depth, label) in [
        (ColorType::Rgba, 8, "interlaced_rgba8"),
        (ColorType::Grayscale, 2, "interlaced_gray2"),
        (ColorType::Rgb, 16, "interlaced_rgb16"),
    ] {
        cases.push(case(
            label,
            interlaced(color, depth),
            None,
            None,
            &mut noise,
        ));
    }
    let layout = interlaced(ColorType::Indexed, 4);
    let name = "interlaced_palette4_trns";
    cases.push(case(
        name,
        layout,
        Some(&palette),
        Some(&palette_alpha),
        &mut noise,
    ));
    cases
}

/// An 8-bit grayscale PNG whose pixel `i` (in raster order) is `i % 256`.
pub fn gray_ramp_png(width: u32, height: u32) -> Vec<u8> {
    let layout = Layout {
        color: ColorType::Grayscale,
        depth: 8,
        interlaced: false,
    };
    let samples: Vec<u16> = (0..width * height).map(|i| (i % 256) as u16).collect();
    write_png(width, height, layout, &samples, None, None)
}

/// An RGBA8 PNG of one colour.
pub fn solid_png(width: u32, height: u32, rgba: [u8; 4]) -> Vec<u8> {
    rgba8_png(width, height, &rgba.repeat((width * height) as usize))
}

/// An RGBA8 PNG of the given pixels (4 bytes each, raster order).
pub fn rgba8_png(width: u32, height: u32, pixels: &[u8]) -> Vec<u8> {
    let layout = Layout {
        color: ColorType::Rgba,
        depth: 8,
        interlaced: false,
    };
    let samples: Vec<u16> = pixels.iter().map(|&byte| byte.into()).collect();
    write_png(width, height, layout, &samples, None, None)
}

/// A small RGBA8 PNG with varied pixels.
pub fn small_png() -> Vec<u8> {
    png_cases()
        .into_iter()
        .find(|case| case.name == "rgba8")
        .unwrap()
        .file
}

/// Appends a JPEG marker segment (marker, big-endian length, payload).
fn segment(out: &mut Vec<u8>, marker: u8, payload: &[u8]) {
    out.extend([0xFF, marker]);
    out.extend(((payload.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(payload);
}

/// Entropy-coded bits with JPEG byte stuffing.
struct BitWriter {
    out: Vec<u8>,
    accumulator: u32,
    count: u32,
}

impl BitWriter {
    fn put(&mut self, value: u32, bits: u32) {
        for bit in (0..bits).rev() {
            self.accumulator = (self.accumulator << 1) | ((value >> bit) & 1);
            self.count += 1;
            if self.count == 8 {
                self.flush_byte();
            }
        }
    }

    fn flush_byte(&mut self) {
        let byte = self.accumulator as u8;
        self.out.push(byte);
        if byte == 0xFF {
            self.out.push(0);
        }
        self.accumulator = 0;
        self.count = 0;
    }

    fn finish(mut self) -> Vec<u8> {
        while self.count != 0 {
            self.put(1, 1);
        }
        self.out
    }
}

/// A baseline JPEG whose 8x8 blocks are flat: `blocks[c][i]` is the value of
/// component `c` in block `i` (raster order, 4:4:4). Uses a unit
/// quantisation table, a DC table of 12 four-bit codes and an AC table
/// holding only end-of-block, so each block decodes to exactly its value.
pub fn flat_block_jpeg(width: u16, height: u16, blocks: &[Vec<u8>]) -> Vec<u8> {
    let components = blocks.len() as u8;
    let mut out = vec![0xFF, 0xD8];
    let mut dqt = vec![0u8];
    dqt.extend([1u8; 64]);
    segment(&mut out, 0xDB, &dqt);
    let mut sof = vec![8];
    sof.extend(height.to_be_bytes());
    sof.extend(width.to_be_bytes());
    sof.push(components);
    for id in 1..=components {
        sof.extend([id, 0x11, 0]);
    }
    segment(&mut out, 0xC0, &sof);
    let mut dht = vec![0x00];
    let mut dc_counts = [0u8; 16];
    dc_counts[3] = 12;
    dht.extend(dc_counts);
    dht.extend(0..12u8);
    dht.push(0x10);
    let mut ac_counts = [0u8; 16];
    ac_counts[0] = 1;
    dht.extend(ac_counts);
    dht.push(0x00);
    segment(&mut out, 0xC4, &dht);
    let mut sos = vec![components];
    for id in 1..=components {
        sos.extend([id, 0x00]);
    }
    sos.extend([0, 63, 0]);
    segment(&mut out, 0xDA, &sos);

    let mut bits = BitWriter {
        out: Vec::new(),
        accumulator: 0,
        count: 0,
    };
    let mut previous = vec![0i32; blocks.len()];
    for block in 0..blocks[0].len() {
        for (component, values) in blocks.iter().enumerate() {
            let dc = 8 * (i32::from(values[block]) - 128);
            let diff = dc - previous[component];
            previous[component] = dc;
            let category = 32 - diff.unsigned_abs().leading_zeros();
            bits.put(category, 4);
            let extra = if diff >= 0 {
                diff
            } else {
                diff + (1 << category) - 1
            };
            bits.put(extra as u32, category);
            bits.put(0, 1); // end of block
        }
    }
    out.extend(bits.finish());
    out.extend([0xFF, 0xD9]);
    out
}
