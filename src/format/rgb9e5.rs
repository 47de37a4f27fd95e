//! `VK_FORMAT_E5B9G9R9_UFLOAT_PACK32`, shared-exponent RGB: the packing
//! rules of the Vulkan specification ("Shared Exponent Format Conversion")
//! and the exact unpacking, for the texture and lighting writers and the
//! readers alike.

/// Mantissa bits of RGB9E5.
const MANTISSA_BITS: i32 = 9;
/// Exponent bias of RGB9E5.
const EXPONENT_BIAS: i32 = 15;
/// The largest exponent field of RGB9E5.
const EXPONENT_MAX: i32 = 31;

/// The largest value RGB9E5 holds: `(2⁹ - 1) / 2⁹ × 2^(31 - 15)` = 65408.
pub const RGB9E5_MAX: f32 = 65408.0;

/// Packs linear RGB into `E5B9G9R9_UFLOAT_PACK32` by the shared-exponent
/// rules of the Vulkan specification ("Shared Exponent Format
/// Conversion"): each channel is clamped to `[0, 65408]` (NaN to 0), the
/// shared exponent comes from the largest, and each mantissa is rounded to
/// nearest at that exponent. R sits in bits 0-8, G in 9-17, B in 18-26 and
/// the exponent in 27-31.
pub fn pack(rgb: [f32; 3]) -> u32 {
    let clamped = rgb.map(|c| {
        if c.is_nan() {
            0.0
        } else {
            f64::from(c.clamp(0.0, RGB9E5_MAX))
        }
    });
    let largest = clamped[0].max(clamped[1]).max(clamped[2]);
    let floor_log2 = if largest > 0.0 {
        largest.log2().floor() as i32
    } else {
        i32::MIN / 2
    };
    let mut exponent = floor_log2.max(-EXPONENT_BIAS - 1) + 1 + EXPONENT_BIAS;
    let scale = |exponent: i32| 2f64.powi(exponent - EXPONENT_BIAS - MANTISSA_BITS);
    let largest_mantissa = (largest / scale(exponent) + 0.5).floor();
    if largest_mantissa >= f64::from(1 << MANTISSA_BITS) {
        exponent += 1;
    }
    debug_assert!((0..=EXPONENT_MAX).contains(&exponent));
    let [r, g, b] = clamped.map(|c| (c / scale(exponent) + 0.5).floor() as u32);
    r | (g << 9) | (b << 18) | ((exponent as u32) << 27)
}

/// Unpacks `E5B9G9R9_UFLOAT_PACK32`: each mantissa times
/// `2^(exponent - 15 - 9)`.
pub fn unpack(packed: u32) -> [f32; 3] {
    let exponent = (packed >> 27) as i32;
    let scale = 2f64.powi(exponent - EXPONENT_BIAS - MANTISSA_BITS);
    [0, 9, 18].map(|shift| (f64::from((packed >> shift) & 0x1FF) * scale) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_representable_values_round_trip() {
        for exponent in 0..=EXPONENT_MAX {
            for mantissa in [0u32, 1, 2, 255, 256, 257, 300, 511] {
                for (r, g) in [(mantissa, 511), (511, mantissa)] {
                    let packed = r | (g << 9) | (7 << 18) | ((exponent as u32) << 27);
                    let values = unpack(packed);
                    let again = pack(values);
                    assert_eq!(unpack(again), values, "{packed:#x}");
                    assert_eq!(again, packed, "{packed:#x} {values:?}");
                }
            }
        }
    }

    #[test]
    fn known_values_pack_as_the_specification_says() {
        // 1.0: exponent 16 (2^(16-24) = 1/256), mantissa 256.
        assert_eq!(pack([1.0, 0.0, 0.0]), 256 | (16 << 27));
        assert_eq!(pack([0.0; 3]), 0);
        // The largest value, and anything above it, is 511 at exponent 31.
        let max = 511 | (511 << 9) | (511 << 18) | (31 << 27);
        assert_eq!(pack([RGB9E5_MAX; 3]), max);
        assert_eq!(pack([1e9, f32::INFINITY, 70000.0]), max);
        assert_eq!(unpack(max), [RGB9E5_MAX; 3]);
        // Negatives and NaN become 0.
        assert_eq!(pack([-1.0, f32::NAN, -0.0]), 0);
        // Rounding the largest channel up to 512 moves to the next exponent.
        let packed = pack([511.75 / 256.0, 0.0, 0.0]);
        assert_eq!(packed >> 27, 17);
        assert_eq!(unpack(packed)[0], 2.0);
    }

    #[test]
    fn small_channels_share_the_largest_exponent() {
        let [r, g, b] = unpack(pack([100.0, 0.5, 0.001]));
        assert_eq!(r, 100.0);
        // The step at exponent 22 is 2^(22-24) = 0.25.
        assert_eq!(g, 0.5);
        assert_eq!(b, 0.0);
    }

    #[test]
    fn any_value_round_trips_within_half_a_step_of_the_shared_exponent() {
        for rgb in [[1.0, 0.5, 0.25], [2.5, 100.0, 0.01], [65000.0, 1.0, 7.5]] {
            let back = unpack(pack(rgb));
            let largest = rgb.iter().copied().fold(0.0f32, f32::max);
            for c in 0..3 {
                assert!(
                    (back[c] - rgb[c]).abs() <= largest / 512.0,
                    "{rgb:?} {back:?}"
                );
            }
        }
    }
}
