//! Octahedral packing of unit vectors into two SNORM16 values.
//!
// TEMP: replaced by format::oct on merge. This file is a private stand-in for
// `crate::format::oct::{oct_encode, oct_encode_tangent}` with the same
// signatures and results; on merge, delete it, drop `mod oct;` from `build.rs`
// and import the two functions from `format::oct` in `corners.rs`.

/// Packs a direction: scale to unit L1 length, fold the lower hemisphere over
/// the diagonals, and store each coordinate as `round(v * 32767)`.
pub(super) fn oct_encode(n: [f32; 3]) -> [i16; 2] {
    let l1 = n[0].abs() + n[1].abs() + n[2].abs();
    let [x, y, z] = if l1 > 0.0 {
        n.map(|c| c / l1)
    } else {
        [0.0, 0.0, 1.0]
    };
    let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
    let folded = if z >= 0.0 {
        [x, y]
    } else {
        [(1.0 - y.abs()) * sign(x), (1.0 - x.abs()) * sign(y)]
    };
    folded.map(|v| (v.clamp(-1.0, 1.0) * 32767.0).round() as i16)
}

/// Packs a tangent like [`oct_encode`], then stores the handedness in bit 0 of
/// `x`: set when `handedness < 0`, clear otherwise.
pub(super) fn oct_encode_tangent(t: [f32; 3], handedness: f32) -> [i16; 2] {
    let [x, y] = oct_encode(t);
    let x = if handedness < 0.0 { x | 1 } else { x & !1 };
    [x, y]
}
