//! The texel probe of `assetc view`: one texel's stored value, the value
//! range of an image, and an image's values as floats (for the mesh view's
//! image-based lighting).
//!
//! Values are the format's own, before any tone-mapping: bytes (0–255) for
//! 8-bit and LDR block formats, words (0–65535) for 16-bit UNORM formats,
//! linear floats for the HDR ones. The last decoded image is kept, keyed by
//! its file's BLAKE3 hash, so moving the cursor over a large texture decodes
//! it once, and a rebuilt file is decoded again. The page's PNG of an image
//! (`/api/texture/image`, at any exposure) is drawn from the same decoding.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::encode::texture::readback::{ImageIndex, StoredImage, Texels, decode_stored};
use crate::format::ktx2::{Ktx2View, TexelFormat};

/// The largest image whose values `/api/texture/values` sends (texels).
pub const MAX_VALUE_TEXELS: u64 = 1 << 22;

/// What a probe request asks of one image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredValues {
    /// The texel at (x, y).
    Texel {
        /// Column, from the left.
        x: u32,
        /// Row, from the top.
        y: u32,
    },
    /// The range of each channel.
    Range,
    /// Every value, as floats.
    All,
}

/// Which image of which file a decoded image is.
#[derive(PartialEq, Eq)]
struct Key {
    path: String,
    at: ImageIndex,
    hash: blake3::Hash,
}

/// The last image decoded, for the probe and the image's PNG.
#[derive(Default)]
pub struct ProbeCache {
    last: Option<(Key, StoredImage)>,
}

impl ProbeCache {
    /// Image `at` of the texture at runtime path `path` (bytes `file`, parsed
    /// as `view`), decoded now or taken from the last call.
    pub fn image(
        &mut self,
        path: &str,
        file: &[u8],
        view: &Ktx2View<'_>,
        at: ImageIndex,
    ) -> Result<&StoredImage, String> {
        let key = Key {
            path: path.to_owned(),
            at,
            hash: blake3::hash(file),
        };
        if self.last.as_ref().is_none_or(|(last, _)| *last != key) {
            self.last = None;
            let image = decode_stored(file, view, at)?;
            self.last = Some((key, image));
        }
        self.last
            .as_ref()
            .map(|(_, image)| image)
            .ok_or_else(|| "no image decoded".to_owned())
    }

    /// The answer to a probe request on image `at` of the texture at `path`.
    pub fn answer(
        &mut self,
        path: &str,
        file: &[u8],
        view: &Ktx2View<'_>,
        at: ImageIndex,
        wanted: StoredValues,
    ) -> Result<Value, String> {
        let channels = stored_channels(view.texel_format());
        let image = self.image(path, file, view, at)?;
        match wanted {
            StoredValues::Texel { x, y } => texel_json(image, at, x, y, channels),
            StoredValues::Range => Ok(range_json(image, at, channels)),
            StoredValues::All => values_json(image, at),
        }
    }
}

/// How the stored values read: `unorm8`, `unorm16` or `float`.
fn encoding(texels: &Texels) -> &'static str {
    match texels {
        Texels::Ldr(_) => "unorm8",
        Texels::Wide(_) => "unorm16",
        Texels::Hdr(_) => "float",
    }
}

/// How many channels the format stores (the others are filled in: grey for
/// one channel, 0 blue and opaque alpha otherwise).
pub fn stored_channels(format: Option<TexelFormat>) -> u32 {
    match format {
        Some(TexelFormat::R8Unorm | TexelFormat::R16Unorm | TexelFormat::Bc4) => 1,
        Some(TexelFormat::Rg16Unorm | TexelFormat::Rg16Float | TexelFormat::Bc5) => 2,
        Some(TexelFormat::Rgb9e5 | TexelFormat::Bc6h) => 3,
        _ => 4,
    }
}

/// The four channels of texel `index` as JSON numbers.
fn texel_values(texels: &Texels, index: usize) -> Vec<Value> {
    let channels = index * 4..index * 4 + 4;
    match texels {
        Texels::Ldr(bytes) => bytes[channels].iter().map(|&v| v.into()).collect(),
        Texels::Wide(words) => words[channels].iter().map(|&v| v.into()).collect(),
        Texels::Hdr(floats) => floats[channels].iter().map(|&v| float_json(v)).collect(),
    }
}

/// A float as JSON: NaN and infinities, which JSON cannot hold, as strings.
fn float_json(value: f32) -> Value {
    if value.is_finite() {
        f64::from(value).into()
    } else {
        value.to_string().into()
    }
}

/// The texel at (`x`, `y`) of `image`, with where it is.
pub fn texel_json(
    image: &StoredImage,
    at: ImageIndex,
    x: u32,
    y: u32,
    channels: u32,
) -> Result<Value, String> {
    if x >= image.width || y >= image.height {
        return Err(format!(
            "texel ({x}, {y}) is outside the {}x{} image",
            image.width, image.height
        ));
    }
    let index = y as usize * image.width as usize + x as usize;
    Ok(json!({
        "x": x, "y": y,
        "level": at.level, "layer": at.layer, "face": at.face, "slice": at.slice,
        "width": image.width, "height": image.height,
        "encoding": encoding(&image.texels),
        "channels": channels,
        "value": texel_values(&image.texels, index),
    }))
}

/// The smallest and largest value of each channel over `image` (floats: NaN
/// skipped; a channel of NaN only has null bounds).
pub fn range_json(image: &StoredImage, at: ImageIndex, channels: u32) -> Value {
    let (min, max): (Vec<Value>, Vec<Value>) = match &image.texels {
        Texels::Ldr(bytes) => integer_range(bytes.iter().map(|&v| u32::from(v))),
        Texels::Wide(words) => integer_range(words.iter().map(|&v| u32::from(v))),
        Texels::Hdr(floats) => (0..4)
            .map(|c| {
                let values = floats.iter().skip(c).step_by(4).filter(|v| !v.is_nan());
                let (low, high) = values.fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &v| {
                    (l.min(v), h.max(v))
                });
                if low > high {
                    (Value::Null, Value::Null)
                } else {
                    (float_json(low), float_json(high))
                }
            })
            .unzip(),
    };
    json!({
        "level": at.level, "layer": at.layer, "face": at.face, "slice": at.slice,
        "width": image.width, "height": image.height,
        "encoding": encoding(&image.texels),
        "channels": channels,
        "min": min, "max": max,
    })
}

/// Per channel bounds of interleaved RGBA integers.
fn integer_range(values: impl Iterator<Item = u32>) -> (Vec<Value>, Vec<Value>) {
    let mut low = [u32::MAX; 4];
    let mut high = [0_u32; 4];
    for (i, value) in values.enumerate() {
        low[i % 4] = low[i % 4].min(value);
        high[i % 4] = high[i % 4].max(value);
    }
    (
        low.iter().map(|&v| v.into()).collect(),
        high.iter().map(|&v| v.into()).collect(),
    )
}

/// Every value of `image` as little-endian `f32` RGBA in base64 (integers
/// scaled to [0, 1]), for the page to upload as a float texture.
pub fn values_json(image: &StoredImage, at: ImageIndex) -> Result<Value, String> {
    let texels = u64::from(image.width) * u64::from(image.height);
    if texels > MAX_VALUE_TEXELS {
        return Err(format!(
            "the image has {texels} texels; values are sent for at most {MAX_VALUE_TEXELS}"
        ));
    }
    let floats: Vec<f32> = match &image.texels {
        Texels::Ldr(bytes) => bytes.iter().map(|&v| f32::from(v) / 255.0).collect(),
        Texels::Wide(words) => words.iter().map(|&v| f32::from(v) / 65535.0).collect(),
        Texels::Hdr(floats) => floats.clone(),
    };
    let bytes: Vec<u8> = floats.iter().flat_map(|v| v.to_le_bytes()).collect();
    Ok(json!({
        "level": at.level, "layer": at.layer, "face": at.face, "slice": at.slice,
        "width": image.width, "height": image.height,
        "encoding": encoding(&image.texels),
        "values": base64::engine::general_purpose::STANDARD.encode(bytes),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::ktx2;

    /// Runs `check` on level 0 of a one-level file of `format`.
    fn with_stored(format: TexelFormat, width: u32, data: &[u8], check: impl FnOnce(&StoredImage)) {
        let file = ktx2::write_single_level(format, width, 1, data);
        let view = ktx2::parse(&file).unwrap();
        let mut cache = ProbeCache::default();
        check(
            cache
                .image("t.ktx2", &file, &view, ImageIndex::default())
                .unwrap(),
        );
    }

    #[test]
    fn half_floats_are_probed_as_floats_with_their_range() {
        // 4x1 RGBA16F: red 0, 0.5, 2, 65504; green 1; blue -3; alpha 1.
        let reds = [0.0_f32, 0.5, 2.0, 65504.0];
        let data: Vec<u8> = reds
            .iter()
            .flat_map(|&r| {
                [r, 1.0, -3.0, 1.0]
                    .into_iter()
                    .flat_map(|v| half::f16::from_f32(v).to_le_bytes())
            })
            .collect();
        with_stored(TexelFormat::Rgba16Float, 4, &data, |image| {
            let texel = texel_json(image, ImageIndex::default(), 2, 0, 4).unwrap();
            assert_eq!(texel["encoding"], "float");
            assert_eq!(texel["value"], json!([2.0, 1.0, -3.0, 1.0]));
            let range = range_json(image, ImageIndex::default(), 4);
            assert_eq!(range["min"], json!([0.0, 1.0, -3.0, 1.0]));
            assert_eq!(range["max"], json!([65504.0, 1.0, -3.0, 1.0]));
            assert!(texel_json(image, ImageIndex::default(), 4, 0, 4).is_err());
        });
    }

    #[test]
    fn sixteen_bit_words_keep_their_low_bits() {
        let words: [u16; 2] = [0x1234, 0xFFFE];
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        with_stored(TexelFormat::R16Unorm, 2, &data, |image| {
            let texel = texel_json(image, ImageIndex::default(), 0, 0, 1).unwrap();
            assert_eq!(texel["encoding"], "unorm16");
            assert_eq!(texel["value"][0], 0x1234);
            let range = range_json(image, ImageIndex::default(), 1);
            assert_eq!(range["min"][0], 0x1234);
            assert_eq!(range["max"][0], 0xFFFE);
        });
    }
}
