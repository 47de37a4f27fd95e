//! The uncompressed float formats, RGBA16F and RGB9E5, and the conversion of
//! 8-bit levels to linear floats that they (and BC6H, ASTC HDR) start from.

use crate::encode::image::Rgba8Image;
use crate::format::rgb9e5;

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
/// `texels` as `E5B9G9R9_UFLOAT_PACK32` words; alpha is dropped.
pub fn rgb9e5_bytes(texels: &[[f32; 4]]) -> Vec<u8> {
    texels
        .iter()
        .flat_map(|&[r, g, b, _]| rgb9e5::pack([r, g, b]).to_le_bytes())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
