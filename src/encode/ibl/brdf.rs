//! The split-sum BRDF lookup table: the second factor of the split-sum
//! approximation of image-based specular lighting (Karis, "Real Shading in
//! Unreal Engine 4", 2013), which one table serves for every environment.
//!
//! For a view at `N·V` and perceptual roughness `r` (`α = r²`), the
//! specular reflectance of a surface with Fresnel reflectance `F₀` is
//! `F₀·A + B`, where
//!
//! ```text
//! A = ∫ f(l) (1 − Fc) (N·l) dl,   B = ∫ f(l) Fc (N·l) dl,   Fc = (1 − V·h)⁵
//! ```
//!
//! and `f = D·Vis` is the GGX microfacet BRDF without its Fresnel term,
//! with the height-correlated Smith visibility (the glTF 2.0 BRDF). The
//! integrals are estimated with [`LUT_SAMPLES`] GGX-distributed half vectors
//! (Hammersley points), for which each sample contributes
//! `Vis · 4 (N·l)(V·h) / (N·h)` times `1 − Fc` or `Fc`.
//!
//! Texel (`x`, `y`) of the `size × size` table holds (`A`, `B`) for
//! `N·V = (x + ½)/size` and `r = (y + ½)/size`: `N·V` grows to the right,
//! roughness downwards (row 0 is the smoothest).

use super::cube::{Vec3, dot, normalize};
use super::prefilter::{ggx_half_vector, hammersley};

/// Samples per table texel.
pub const LUT_SAMPLES: u32 = 1024;

/// The height-correlated Smith visibility term for GGX `α`.
pub fn smith_visibility(n_dot_v: f32, n_dot_l: f32, alpha: f32) -> f32 {
    let a2 = alpha * alpha;
    let view = n_dot_l * (n_dot_v * n_dot_v * (1.0 - a2) + a2).sqrt();
    let light = n_dot_v * (n_dot_l * n_dot_l * (1.0 - a2) + a2).sqrt();
    let sum = view + light;
    if sum > 0.0 { 0.5 / sum } else { 0.0 }
}

/// The view vector at `N·V = n_dot_v` in the frame whose +Z is the normal.
fn view_vector(n_dot_v: f32) -> Vec3 {
    [(1.0 - n_dot_v * n_dot_v).max(0.0).sqrt(), 0.0, n_dot_v]
}

/// (`A`, `B`) for one view angle and perceptual roughness, by importance
/// sampling.
pub fn integrate(n_dot_v: f32, roughness: f32, samples: u32) -> (f32, f32) {
    let alpha = roughness * roughness;
    let v = view_vector(n_dot_v);
    let (mut a, mut b) = (0.0f64, 0.0f64);
    for i in 0..samples {
        let (s, t) = hammersley(i, samples);
        let h = ggx_half_vector(s, t, alpha);
        let v_dot_h = dot(v, h);
        let l = [
            2.0 * v_dot_h * h[0] - v[0],
            2.0 * v_dot_h * h[1] - v[1],
            2.0 * v_dot_h * h[2] - v[2],
        ];
        let (n_dot_l, n_dot_h) = (l[2], h[2]);
        if n_dot_l <= 0.0 || v_dot_h <= 0.0 {
            continue;
        }
        let visibility = smith_visibility(n_dot_v, n_dot_l, alpha);
        let weight = (visibility * 4.0 * n_dot_l * v_dot_h / n_dot_h) as f64;
        let fresnel = ((1.0 - v_dot_h).powi(5)) as f64;
        a += (1.0 - fresnel) * weight;
        b += fresnel * weight;
    }
    ((a / samples as f64) as f32, (b / samples as f64) as f32)
}

/// The whole table, row by row: `size × size` (`A`, `B`) pairs.
pub fn lut(size: usize) -> Vec<(f32, f32)> {
    let centre = |i: usize| (i as f32 + 0.5) / size as f32;
    (0..size)
        .flat_map(|y| (0..size).map(move |x| integrate(centre(x), centre(y), LUT_SAMPLES)))
        .collect()
}

/// (`A`, `B`) by brute force: the BRDF integrated over a regular grid of
/// `steps × 4·steps` cells of the hemisphere, for checking [`integrate`].
pub fn brute_force(n_dot_v: f32, roughness: f32, steps: usize) -> (f32, f32) {
    use std::f64::consts::PI;
    let alpha = (roughness * roughness) as f64;
    let v = view_vector(n_dot_v);
    let (mut a, mut b) = (0.0f64, 0.0f64);
    let (d_theta, d_phi) = (PI / 2.0 / steps as f64, 2.0 * PI / (4 * steps) as f64);
    for i in 0..steps {
        let theta = (i as f64 + 0.5) * d_theta;
        for j in 0..4 * steps {
            let phi = (j as f64 + 0.5) * d_phi;
            let l = [
                (theta.sin() * phi.cos()) as f32,
                (theta.sin() * phi.sin()) as f32,
                theta.cos() as f32,
            ];
            let h = normalize([v[0] + l[0], v[1] + l[1], v[2] + l[2]]);
            let (n_dot_l, v_dot_h) = (l[2] as f64, dot(v, h) as f64);
            let a2 = alpha * alpha;
            let denominator = (h[2] as f64).powi(2) * (a2 - 1.0) + 1.0;
            let distribution = a2 / (PI * denominator * denominator);
            let visibility = smith_visibility(n_dot_v, l[2], alpha as f32) as f64;
            let solid_angle = theta.sin() * d_theta * d_phi;
            let value = distribution * visibility * n_dot_l * solid_angle;
            let fresnel = (1.0 - v_dot_h).max(0.0).powi(5);
            a += (1.0 - fresnel) * value;
            b += fresnel * value;
        }
    }
    (a as f32, b as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_smooth_surface_seen_head_on_reflects_everything() {
        let (a, b) = integrate(1.0, 0.0, LUT_SAMPLES);
        // Tolerance: 1e-3 (one GGX lobe of zero width; exact up to f32).
        assert!((a + b - 1.0).abs() < 1e-3, "{a} + {b}");
        assert!(b < 1e-3, "{b}");
    }

    #[test]
    fn table_entries_match_a_brute_force_integration() {
        // Tolerance: 0.01 absolute on A and on B, stated in docs/ibl.md.
        for (n_dot_v, roughness) in [(0.5, 0.5), (0.9, 0.3), (0.2, 0.8), (0.7, 1.0), (0.1, 0.4)] {
            let (a, b) = integrate(n_dot_v, roughness, LUT_SAMPLES);
            let (ra, rb) = brute_force(n_dot_v, roughness, 512);
            assert!(
                (a - ra).abs() < 0.01 && (b - rb).abs() < 0.01,
                "N·V {n_dot_v}, roughness {roughness}: ({a}, {b}) against ({ra}, {rb})"
            );
        }
    }

    #[test]
    fn rougher_surfaces_reflect_less_at_grazing_angles() {
        let table = lut(16);
        let at = |x: usize, y: usize| {
            let (a, b) = table[y * 16 + x];
            a + b
        };
        assert!(at(2, 15) < at(2, 0), "{} {}", at(2, 15), at(2, 0));
        for (a, b) in &table {
            assert!(*a >= 0.0 && *b >= 0.0 && a + b <= 1.0 + 1e-3, "{a} {b}");
        }
    }
}
