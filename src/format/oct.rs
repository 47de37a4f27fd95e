//! Octahedral packing of unit vectors into two 16-bit integers.
//!
//! A direction is projected onto the octahedron `|x| + |y| + |z| = 1`; the
//! upper half (`z >= 0`) is viewed from above as the diamond `|x| + |y| <= 1`,
//! and each triangle of the lower half is folded outwards over the diamond's
//! edge into the corner of the square `[-1, 1]²` it faces. The two square
//! coordinates are then stored as SNORM16 (`round(v * 32767)`, rounding half
//! away from zero). This matches the reference tool bit for bit, so vertex
//! streams built by either tool are identical.
//!
//! Tangents use the same packing, except that bit 0 of `x` is stolen for the
//! handedness of the bitangent: clear for `+1`, set for `-1`.
//!
//! Degenerate input (a zero vector, or one with a NaN or infinite component)
//! has no direction; it is packed as `[0, 0]`, which decodes to `+Z`, so no
//! NaN ever reaches a vertex stream.
//!
//! # Precision
//!
//! Rounding moves each coordinate by at most half a step `q = 1 / 32767`, a
//! displacement of at most `q / √2` in the square. Away from the fold, the
//! decoded direction is `v / |v|` with `v = (x, y, 1 - |x| - |y|)`, whose
//! Jacobian has norm at most `√3 / |v| <= 3` (since `|v| >= 1/√3`); the fold is
//! a mirror image of the same map. A normal is therefore off by at most
//! `3q / √2 ≈ 6.47e-5` rad `≈ 0.0037°`. The handedness bit moves `x` by up to
//! one more step, so a tangent is off by at most `3q·√(1.5² + 0.5²) ≈ 1.45e-4`
//! rad `≈ 0.0083°`. The tests measure both bounds over 100 000 directions.

/// The SNORM16 scale: `1.0` is stored as `32767`.
const SNORM_SCALE: f32 = 32767.0;

/// The sign convention of the fold: zero (including `-0.0`) counts as positive.
fn fold_sign(v: f32) -> f32 {
    if v >= 0.0 { 1.0 } else { -1.0 }
}

/// Divides `n` by its L1 norm; `None` when `n` has no direction.
///
/// Uses a reciprocal multiply like the reference when that is exact enough,
/// and falls back to `f64` for tiny or huge vectors whose L1 norm or its
/// reciprocal would leave the `f32` range.
fn l1_normalise(n: [f32; 3]) -> Option<[f32; 3]> {
    if !n.iter().all(|c| c.is_finite()) {
        return None;
    }
    let l1 = n[0].abs() + n[1].abs() + n[2].abs();
    if l1 == 0.0 {
        return None;
    }
    let inverse = 1.0 / l1;
    if l1.is_finite() && inverse.is_finite() {
        return Some(n.map(|c| c * inverse));
    }
    let wide = n.map(f64::from);
    let wide_l1 = wide[0].abs() + wide[1].abs() + wide[2].abs();
    Some(wide.map(|c| (c / wide_l1) as f32))
}

/// Projects a direction onto the square `[-1, 1]²`, or `None` if degenerate.
fn project(n: [f32; 3]) -> Option<[f32; 2]> {
    let [x, y, z] = l1_normalise(n)?;
    if z >= 0.0 {
        return Some([x, y]);
    }
    Some([
        (1.0 - y.abs()) * fold_sign(x),
        (1.0 - x.abs()) * fold_sign(y),
    ])
}

/// Quantises a square coordinate to SNORM16.
fn quantise(v: f32) -> i16 {
    // The clamp bounds the product to [-32767, 32767], so the casts are exact.
    round_half_away(v.clamp(-1.0, 1.0) * SNORM_SCALE) as i16
}

/// `v.round()` for `|v| < 2^23`, without the C library call `f32::round`
/// becomes on a baseline x86-64 target (a tenth of a mesh edge's time went
/// there). The truncating cast is one instruction, and `v - whole` is exact
/// in that range, so halves are rounded away from zero just as `round` does.
fn round_half_away(v: f32) -> i32 {
    let whole = v as i32;
    let rest = v - whole as f32;
    whole + i32::from(rest >= 0.5) - i32::from(rest <= -0.5)
}

/// Packs a direction (it need not be normalised) into two SNORM16 values.
///
/// A zero or non-finite vector packs as `[0, 0]` (`+Z`).
pub fn oct_encode(n: [f32; 3]) -> [i16; 2] {
    match project(n) {
        Some([x, y]) => [quantise(x), quantise(y)],
        None => [0, 0],
    }
}

/// Packs a tangent direction plus the bitangent sign: bit 0 of `x` is set when
/// `handedness < 0` and clear otherwise (also for a NaN handedness).
///
/// A zero or non-finite tangent packs as `+Z` with the handedness bit.
pub fn oct_encode_tangent(t: [f32; 3], handedness: f32) -> [i16; 2] {
    let [x, y] = oct_encode(t);
    let flipped = if handedness < 0.0 { 1 } else { 0 };
    [(x & !1) | flipped, y]
}

/// Unpacks two SNORM16 values into a unit vector.
///
/// `-32768` is read as `-1`, as a GPU's SNORM fetch does. For a tangent, pass
/// the packed value unchanged: the handedness bit only nudges the direction by
/// one step, which the bounds in the module docs include.
pub fn oct_decode(e: [i16; 2]) -> [f32; 3] {
    let [x, y] = e.map(|c| (f32::from(c) / SNORM_SCALE).max(-1.0));
    let z = 1.0 - x.abs() - y.abs();
    let (x, y) = if z < 0.0 {
        (
            (1.0 - y.abs()) * fold_sign(x),
            (1.0 - x.abs()) * fold_sign(y),
        )
    } else {
        (x, y)
    };
    // |x| + |y| + |z| == 1 up to rounding, so the length is at least 1/√3.
    let length = (x * x + y * y + z * z).sqrt();
    [x / length, y / length, z / length]
}

/// The bitangent sign stored in a packed tangent: `-1.0` when bit 0 of `x` is
/// set, else `1.0`.
pub fn tangent_handedness(e: [i16; 2]) -> f32 {
    if e[0] & 1 == 0 { 1.0 } else { -1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_matches_the_standard_library_everywhere_it_is_used() {
        // Every f32 from -32767 to 32767 would take minutes; every value of
        // the form k/8 covers the halves exactly, and a walk over the bits
        // of [-1, 1] scaled covers the fractions between them.
        for k in -32767 * 8..=32767 * 8 {
            let v = k as f32 / 8.0;
            assert_eq!(round_half_away(v), v.round() as i32, "{v}");
        }
        let mut bits = 0_u32;
        while bits < 0x3f80_0000 {
            for v in [f32::from_bits(bits), -f32::from_bits(bits)] {
                let scaled = v * SNORM_SCALE;
                assert_eq!(round_half_away(scaled), scaled.round() as i32, "{scaled}");
            }
            bits += 97;
        }
        assert_eq!(round_half_away(0.49999997), 0);
        assert_eq!(round_half_away(-0.5), -1);
    }

    /// Step of the SNORM16 grid in the square.
    const STEP: f64 = 1.0 / 32767.0;
    /// Slack for `f32` rounding in encode and decode (a few ulps of 1).
    const FLOAT_SLACK: f64 = 1e-6;
    /// Worst normal error in radians: Jacobian norm 3 times a displacement of
    /// half a step on both axes (see the module docs).
    const NORMAL_BOUND: f64 = 3.0 * STEP * core::f64::consts::FRAC_1_SQRT_2 + FLOAT_SLACK;
    /// Worst tangent error in radians: as above, with `x` off by 1.5 steps
    /// (`√(1.5² + 0.5²) = √2.5`).
    const TANGENT_BOUND: f64 = 3.0 * STEP * 1.581_138_830_084_19 + FLOAT_SLACK;

    /// `count` directions spread evenly over the sphere.
    fn fibonacci_sphere(count: usize) -> impl Iterator<Item = [f64; 3]> {
        let golden_angle = core::f64::consts::PI * (3.0 - 5.0_f64.sqrt());
        (0..count).map(move |i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / count as f64;
            let radius = (1.0 - z * z).sqrt();
            let phi = golden_angle * i as f64;
            [radius * phi.cos(), radius * phi.sin(), z]
        })
    }

    /// Angle in radians between a unit `f64` vector and a decoded `f32` one.
    fn angle(expected: [f64; 3], decoded: [f32; 3]) -> f64 {
        let d = decoded.map(f64::from);
        let cross = [
            expected[1] * d[2] - expected[2] * d[1],
            expected[2] * d[0] - expected[0] * d[2],
            expected[0] * d[1] - expected[1] * d[0],
        ];
        let sin = (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]).sqrt();
        let cos = expected[0] * d[0] + expected[1] * d[1] + expected[2] * d[2];
        sin.atan2(cos)
    }

    fn to_f32(v: [f64; 3]) -> [f32; 3] {
        v.map(|c| c as f32)
    }

    #[test]
    fn normal_error_stays_under_the_derived_bound() {
        let mut worst = 0.0_f64;
        for dir in fibonacci_sphere(100_000) {
            let decoded = oct_decode(oct_encode(to_f32(dir)));
            worst = worst.max(angle(dir, decoded));
        }
        assert!(worst < NORMAL_BOUND, "worst {worst} rad >= {NORMAL_BOUND}");
        // The bound is tight enough to mean something: 100k directions get
        // within a factor of two of it.
        assert!(
            worst > NORMAL_BOUND / 2.0,
            "worst {worst} rad suspiciously small"
        );
        assert!(NORMAL_BOUND.to_degrees() < 0.0038);
    }

    #[test]
    fn tangent_error_stays_under_the_derived_bound() {
        let mut worst = 0.0_f64;
        for (i, dir) in fibonacci_sphere(100_000).enumerate() {
            let handedness = if i % 2 == 0 { 1.0 } else { -1.0 };
            let packed = oct_encode_tangent(to_f32(dir), handedness);
            assert_eq!(tangent_handedness(packed), handedness, "direction {i}");
            worst = worst.max(angle(dir, oct_decode(packed)));
        }
        assert!(
            worst < TANGENT_BOUND,
            "worst {worst} rad >= {TANGENT_BOUND}"
        );
        assert!(
            worst > TANGENT_BOUND / 2.0,
            "worst {worst} rad suspiciously small"
        );
        assert!(TANGENT_BOUND.to_degrees() < 0.0084);
    }

    #[test]
    fn axis_directions_are_exact() {
        let cases: [([f32; 3], [i16; 2]); 6] = [
            ([0.0, 0.0, 1.0], [0, 0]),
            ([1.0, 0.0, 0.0], [32767, 0]),
            ([-1.0, 0.0, 0.0], [-32767, 0]),
            ([0.0, 1.0, 0.0], [0, 32767]),
            ([0.0, -1.0, 0.0], [0, -32767]),
            ([0.0, 0.0, -1.0], [32767, 32767]),
        ];
        for (axis, packed) in cases {
            assert_eq!(oct_encode(axis), packed, "{axis:?}");
            assert_eq!(oct_decode(packed), axis, "{axis:?}");
        }
    }

    #[test]
    fn matches_the_reference_rounding() {
        // (0.6, 0.8, 0): L1 1.4, so x = 0.428571.. -> 14043, y = 0.571428.. -> 18724.
        assert_eq!(oct_encode([0.6, 0.8, 0.0]), [14043, 18724]);
        // Lower hemisphere: (0.6, -0.8, -0.0001) folds to x = 1 - |y|, y = -(1 - |x|).
        let [x, y] = oct_encode([0.6, -0.8, -1e-4]);
        assert_eq!((x, y), (14044, -18725));
        // -0.0 counts as the upper hemisphere and a positive sign.
        assert_eq!(oct_encode([0.0, 0.0, -0.0]), [0, 0]);
    }

    #[test]
    fn handedness_round_trips_and_keeps_the_direction() {
        for dir in [[1.0, 0.0, 0.0], [-0.3, 0.2, -0.9], [0.0, -1.0, 0.0]] {
            let right = oct_encode_tangent(dir, 1.0);
            let left = oct_encode_tangent(dir, -1.0);
            assert_eq!(tangent_handedness(right), 1.0);
            assert_eq!(tangent_handedness(left), -1.0);
            assert_eq!(right[0] | 1, left[0]);
            assert_eq!(right[1], left[1]);
        }
        // A NaN handedness is not negative.
        assert_eq!(
            tangent_handedness(oct_encode_tangent([1.0, 0.0, 0.0], f32::NAN)),
            1.0
        );
    }

    #[test]
    fn degenerate_input_packs_as_plus_z() {
        for bad in [
            [0.0, 0.0, 0.0],
            [-0.0, 0.0, -0.0],
            [f32::NAN, 0.0, 1.0],
            [1.0, f32::INFINITY, 0.0],
            [f32::NEG_INFINITY, 0.0, 0.0],
        ] {
            assert_eq!(oct_encode(bad), [0, 0], "{bad:?}");
            assert_eq!(oct_encode_tangent(bad, -1.0), [1, 0], "{bad:?}");
        }
        assert_eq!(oct_decode([0, 0]), [0.0, 0.0, 1.0]);
    }

    #[test]
    fn tiny_and_huge_vectors_keep_their_direction() {
        let subnormal = 1e-40_f32;
        assert_eq!(oct_encode([subnormal, 0.0, 0.0]), [32767, 0]);
        assert_eq!(oct_encode([0.0, 0.0, -subnormal]), [32767, 32767]);
        let huge = f32::MAX;
        assert_eq!(oct_encode([huge, huge, 0.0]), [16384, 16384]);
        assert_eq!(oct_encode([-huge, 0.0, huge]), [-16384, 0]);
    }

    #[test]
    fn every_packed_value_decodes_to_a_unit_vector() {
        for x in (i16::MIN..=i16::MAX)
            .step_by(97)
            .chain([i16::MIN, i16::MAX])
        {
            for y in (i16::MIN..=i16::MAX)
                .step_by(89)
                .chain([i16::MIN, i16::MAX])
            {
                let [a, b, c] = oct_decode([x, y]);
                let length = (a * a + b * b + c * c).sqrt();
                assert!((length - 1.0).abs() < 1e-6, "{x},{y} -> {length}");
            }
        }
    }
}
