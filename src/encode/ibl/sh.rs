//! The diffuse irradiance as nine spherical-harmonic coefficients per colour
//! channel (bands 0 to 2), the form most engines evaluate per pixel.
//!
//! The radiance is projected on the real SH basis `Yᵢ` (below, in the usual
//! order `Y₀₀, Y₁₋₁, Y₁₀, Y₁₁, Y₂₋₂, Y₂₋₁, Y₂₀, Y₂₁, Y₂₂`):
//! `Lᵢ = Σ L(ω) Yᵢ(ω) Δω` over every panorama texel. Convolving with the
//! clamped cosine multiplies band `l` by `Âₗ` (`π`, `2π/3`, `π/4`; Ramamoorthi
//! and Hanrahan, "An Efficient Representation for Irradiance Environment
//! Maps", 2001), so the stored coefficients `Eᵢ = Âₗ Lᵢ` give the irradiance
//! at a unit normal `n` directly:
//!
//! ```text
//! E(n) = Σᵢ Eᵢ Yᵢ(n)
//! ```
//!
//! with `Y₀₀ = 0.282095`, `Y₁₋₁ = 0.488603 y`, `Y₁₀ = 0.488603 z`,
//! `Y₁₁ = 0.488603 x`, `Y₂₋₂ = 1.092548 xy`, `Y₂₋₁ = 1.092548 yz`,
//! `Y₂₀ = 0.315392 (3z² − 1)`, `Y₂₁ = 1.092548 xz`, `Y₂₂ = 0.546274 (x² − y²)`.
//! A Lambertian surface of albedo `ρ` then reflects `ρ E(n) / π`.

use std::f32::consts::PI;

use super::cube::Vec3;
use super::environment::Environment;

/// Nine RGB coefficients.
pub type Sh9 = [Vec3; 9];

/// The nine real SH basis functions at unit direction `d`.
pub fn basis(d: Vec3) -> [f32; 9] {
    let [x, y, z] = d;
    [
        0.282_095,
        0.488_603 * y,
        0.488_603 * z,
        0.488_603 * x,
        1.092_548 * x * y,
        1.092_548 * y * z,
        0.315_392 * (3.0 * z * z - 1.0),
        1.092_548 * x * z,
        0.546_274 * (x * x - y * y),
    ]
}

/// The clamped-cosine convolution factor of coefficient `i`'s band.
fn cosine_factor(i: usize) -> f32 {
    match i {
        0 => PI,
        1..=3 => 2.0 * PI / 3.0,
        _ => PI / 4.0,
    }
}

/// The irradiance coefficients `Eᵢ` of an environment (see the module
/// notes), summed over every texel in `f64` so they do not drift on 32
/// million texels.
pub fn irradiance_sh(environment: &Environment) -> Sh9 {
    let mut sums = [[0.0f64; 3]; 9];
    environment.for_each_texel(|direction, angle, radiance| {
        let weights = basis(direction);
        for (coefficient, weight) in sums.iter_mut().zip(weights) {
            for (channel, value) in coefficient.iter_mut().zip(radiance) {
                *channel += f64::from(weight * value) * f64::from(angle);
            }
        }
    });
    let mut out = [[0.0; 3]; 9];
    for (i, (coefficient, sum)) in out.iter_mut().zip(sums).enumerate() {
        *coefficient = sum.map(|value| (value * cosine_factor(i) as f64) as f32);
    }
    out
}

/// The irradiance the coefficients give at unit normal `n`.
pub fn evaluate(sh: &Sh9, n: Vec3) -> Vec3 {
    let weights = basis(n);
    let mut out = [0.0; 3];
    for (coefficient, weight) in sh.iter().zip(weights) {
        for (channel, value) in out.iter_mut().zip(coefficient) {
            *channel += value * weight;
        }
    }
    out
}

/// The coefficients as 27 little-endian `f32`s: coefficient by coefficient,
/// red, green, blue within each.
pub fn to_le_bytes(sh: &Sh9) -> Vec<u8> {
    sh.iter()
        .flatten()
        .flat_map(|value| value.to_le_bytes())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::cube::{dot, normalize};
    use super::super::panorama::Panorama;
    use super::*;

    /// A panorama environment of `width × height` texels of `field(direction)`.
    fn environment_from_fn(
        width: usize,
        height: usize,
        field: impl FnMut(Vec3) -> Vec3,
    ) -> Environment {
        Panorama::from_fn(width, height, field).into()
    }

    #[test]
    fn a_uniform_environment_gives_pi_l_everywhere() {
        let value = [0.25, 1.0, 3.0];
        let sh = irradiance_sh(&environment_from_fn(128, 64, |_| value));
        for n in [
            [1.0, 0.0, 0.0],
            [0.0, -1.0, 0.0],
            normalize([1.0, 2.0, -3.0]),
        ] {
            let e = evaluate(&sh, n);
            for c in 0..3 {
                // Tolerance: 1e-3 relative (the basis constants' 6 digits).
                assert!((e[c] - PI * value[c]).abs() < 1e-3 * PI * value[c], "{e:?}");
            }
        }
    }

    #[test]
    fn a_linear_gradient_is_reproduced_exactly() {
        // L = 1 + d·a lies in bands 0 and 1, so E = π + (2π/3) n·a exactly.
        let a = [0.3, -0.5, 0.2];
        let sh = irradiance_sh(&environment_from_fn(256, 128, |d| [1.0 + dot(d, a); 3]));
        for n in [[0.0, 1.0, 0.0], normalize([-1.0, 0.5, 2.0])] {
            let expected = PI + 2.0 * PI / 3.0 * dot(n, a);
            let e = evaluate(&sh, n)[0];
            assert!((e - expected).abs() < 2e-3, "{e} against {expected}");
        }
    }
}
