//! The uncompressed float formats, RGBA16F and RGB9E5, and the conversion of
//! 8-bit levels to linear floats that they (and BC6H, ASTC HDR) start from.

use crate::encode::image::Rgba8Image;

/// The texels of `level` as linear floats in 0..1: RGB decoded from sRGB
/// when `srgb`, alpha always linear.
pub fn linear_texels(level: &Rgba8Image, srgb: bool) -> Vec<[f32; 4]> {
    let decode = |value: u8| {
        let unit = f32::from(value) / 255.0;
        if srgb { srgb_to_linear(unit) } else { unit }
    };
    level
        .pixels
        .chunks_exact(4)
        .map(|t| {
            [
                decode(t[0]),
                decode(t[1]),
                decode(t[2]),
                f32::from(t[3]) / 255.0,
            ]
        })
        .collect()
}

/// The sRGB transfer function inverted (IEC 61966-2-1).
fn srgb_to_linear(value: f32) -> f32 {
    if value <= 0.04045 {
        value / 12.92
    } else {
        ((value + 0.055) / 1.055).powf(2.4)
    }
}

/// `texels` as little-endian half floats, four per texel
/// (`VK_FORMAT_R16G16B16A16_SFLOAT`); values beyond the half range saturate.
pub fn rgba16f_bytes(texels: &[[f32; 4]]) -> Vec<u8> {
    texels
        .iter()
        .flatten()
        .flat_map(|&value| {
            let bounded = value.clamp(-half::f16::MAX.to_f32(), half::f16::MAX.to_f32());
            half::f16::from_f32(bounded).to_le_bytes()
        })
        .collect()
}

/// Mantissa bits of RGB9E5.
const MANTISSA_BITS: i32 = 9;
/// Exponent bias of RGB9E5.
const EXPONENT_BIAS: i32 = 15;
/// The largest exponent field value.
const MAX_EXPONENT: i32 = 31;
/// The largest value RGB9E5 holds: (511 / 512) * 2^16.
const MAX_RGB9E5: f32 = 65408.0;

/// `texels` as little-endian `E5B9G9R9` words (`VK_FORMAT_E5B9G9R9_UFLOAT_PACK32`):
/// negative and NaN values become 0, values above the format's range its
/// largest value, alpha is dropped. The shared exponent is the one of the
/// largest channel, as the Vulkan specification's encoding describes.
pub fn rgb9e5_bytes(texels: &[[f32; 4]]) -> Vec<u8> {
    texels
        .iter()
        .flat_map(|&[r, g, b, _]| pack_rgb9e5([r, g, b]).to_le_bytes())
        .collect()
}

/// One texel packed as RGB9E5.
fn pack_rgb9e5(rgb: [f32; 3]) -> u32 {
    let [r, g, b] = rgb.map(|v| {
        if v.is_nan() {
            0.0
        } else {
            v.clamp(0.0, MAX_RGB9E5)
        }
    });
    let largest = r.max(g).max(b);
    let mut exponent = (largest.max(f32::MIN_POSITIVE).log2().floor() as i32)
        .max(-EXPONENT_BIAS - 1)
        + 1
        + EXPONENT_BIAS;
    let scale = |exponent: i32| 2f32.powi(exponent - EXPONENT_BIAS - MANTISSA_BITS);
    if (largest / scale(exponent) + 0.5).floor() as i32 == 1 << MANTISSA_BITS {
        exponent += 1;
    }
    let exponent = exponent.clamp(0, MAX_EXPONENT);
    let mantissa = |v: f32| ((v / scale(exponent) + 0.5).floor() as u32).min(511);
    mantissa(r) | mantissa(g) << 9 | mantissa(b) << 18 | (exponent as u32) << 27
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An RGB9E5 word decoded as the Vulkan specification does.
    fn unpack_rgb9e5(word: u32) -> [f32; 3] {
        let scale = 2f32.powi((word >> 27) as i32 - EXPONENT_BIAS - MANTISSA_BITS);
        [0, 9, 18].map(|shift| ((word >> shift) & 511) as f32 * scale)
    }

    #[test]
    fn rgb9e5_round_trips_within_its_precision() {
        for rgb in [
            [0.0, 0.0, 0.0],
            [1.0, 0.5, 0.25],
            [1000.0, 1.0, 0.001],
            [65000.0, 3.0, 0.0],
            [0.2, 0.7, 0.9],
        ] {
            let decoded = unpack_rgb9e5(pack_rgb9e5(rgb));
            let largest = rgb.iter().cloned().fold(0.0f32, f32::max);
            for (got, want) in decoded.iter().zip(rgb) {
                // A channel is exact to half a step of the shared exponent.
                assert!(
                    (got - want).abs() <= largest / 511.0 + 1e-6,
                    "{rgb:?} -> {decoded:?}"
                );
            }
        }
        assert_eq!(
            unpack_rgb9e5(pack_rgb9e5([1e9, -1.0, f32::NAN])),
            [65408.0, 0.0, 0.0]
        );
    }

    #[test]
    fn rgba16f_is_four_halves_per_texel() {
        let bytes = rgba16f_bytes(&[[1.0, 0.5, -2.0, 1e6]]);
        let halves: Vec<f32> = bytes
            .chunks_exact(2)
            .map(|pair| half::f16::from_le_bytes([pair[0], pair[1]]).to_f32())
            .collect();
        assert_eq!(halves, [1.0, 0.5, -2.0, 65504.0]);
    }

    #[test]
    fn srgb_levels_are_linearised() {
        let level = Rgba8Image {
            width: 1,
            height: 1,
            pixels: vec![255, 188, 0, 128],
        };
        let [r, g, b, a] = linear_texels(&level, true)[0];
        assert_eq!((r, b), (1.0, 0.0));
        assert!((g - 0.5029).abs() < 1e-3, "{g}");
        assert!((a - 128.0 / 255.0).abs() < 1e-6);
        assert!((linear_texels(&level, false)[0][1] - 188.0 / 255.0).abs() < 1e-6);
    }
}
