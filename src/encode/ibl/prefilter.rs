//! Convolving the radiance cube: the GGX-prefiltered specular levels and the
//! diffuse irradiance cube, both by importance sampling with a fixed
//! (Hammersley) point set, so the output is the same on every run.
//!
//! # Specular
//!
//! Level `k` of `levels` holds perceptual roughness `r = k / (levels − 1)`
//! (GGX `α = r²`). Each texel looks along `R` and, as in the split-sum
//! approximation, takes the normal and the view direction equal to it
//! (`N = V = R`). It holds
//!
//! ```text
//! Σ L(lᵢ) (N·lᵢ) / Σ (N·lᵢ)
//! ```
//!
//! over light directions `lᵢ = reflect(−V, hᵢ)` whose half vectors `hᵢ` are
//! drawn from the GGX distribution (pdf of `l`: `D(h)/4` when `N = V`).
//! Each sample reads the radiance cube's mip chain at the level whose texels
//! cover the solid angle the sample stands for (`Ωₛ = 1 / (n·pdf)`, against a
//! base texel's `Ωₚ = 4π / 6w²`): `lod = ½ log₂(Ωₛ/Ωₚ)`. This "filtered
//! importance sampling" (Křivánek and Colbert 2008; GPU Gems 3, ch. 20; used
//! by Filament's `cmgen` and the Khronos glTF-IBL-Sampler) removes the noise
//! that point-sampling a bright, small source would leave with few samples.
//! GPU Gems adds 1 to the level to blur a little more; against brute force
//! that bias tripled our error (6% against 1.7% on the test environment), so,
//! as the glTF-IBL-Sampler does, we leave it out.
//! Level 0 (roughness 0, a mirror) is the radiance itself.
//!
//! # Irradiance
//!
//! `E(N) = ∫ L(l) (N·l) dl` over the hemisphere around `N`, estimated with
//! cosine-weighted samples (pdf `(N·l)/π`), for which the estimate is `π`
//! times the mean radiance of the samples; the same mip lookup applies.

use std::f32::consts::PI;

use super::cube::{
    CubeLevel, FACES, Face, Vec3, cross, dot, normalize, sample_chain, texel_direction,
};
use super::panorama::{Panorama, texel_direction as panorama_direction};

/// Samples per texel of every specular level but the mirror one.
pub const SPECULAR_SAMPLES: u32 = 512;

/// Samples per texel of the irradiance cube.
pub const IRRADIANCE_SAMPLES: u32 = 1024;

/// Point `i` of the `count`-point Hammersley set in the unit square.
pub fn hammersley(i: u32, count: u32) -> (f32, f32) {
    (
        i as f32 / count as f32,
        i.reverse_bits() as f32 / 4_294_967_296.0,
    )
}

/// The GGX normal distribution `D(h)` for `α` at `n·h = cos_h`.
pub fn ggx_distribution(cos_h: f32, alpha: f32) -> f32 {
    let a2 = alpha * alpha;
    let denominator = cos_h * cos_h * (a2 - 1.0) + 1.0;
    a2 / (PI * denominator * denominator)
}

/// A half vector drawn from the GGX distribution for `α` at the point
/// (`u`, `v`) of the unit square, in the frame whose +Z is the normal.
pub fn ggx_half_vector(u: f32, v: f32, alpha: f32) -> Vec3 {
    let phi = 2.0 * PI * u;
    let cos_theta = ((1.0 - v) / (1.0 + (alpha * alpha - 1.0) * v)).sqrt();
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    [sin_theta * phi.cos(), sin_theta * phi.sin(), cos_theta]
}

/// One precomputed sample, in the frame whose +Z is the texel's direction.
#[derive(Debug, Clone, Copy)]
struct Tap {
    /// The light direction.
    direction: Vec3,
    /// Its weight in the sum.
    weight: f32,
    /// The source level of detail to read it at.
    lod: f32,
}

/// A right-handed frame with `normal` as its third axis.
fn frame(normal: Vec3) -> [Vec3; 3] {
    let up = if normal[1].abs() < 0.999 {
        [0.0, 1.0, 0.0]
    } else {
        [1.0, 0.0, 0.0]
    };
    let tangent = normalize(cross(up, normal));
    let bitangent = cross(normal, tangent);
    [tangent, bitangent, normal]
}

/// `local` (in the frame's coordinates) in world coordinates.
fn to_world(frame: &[Vec3; 3], local: Vec3) -> Vec3 {
    let axis = |c: usize| frame[0][c] * local[0] + frame[1][c] * local[1] + frame[2][c] * local[2];
    [axis(0), axis(1), axis(2)]
}

/// The level of detail of a sample of probability density `pdf` among
/// `count`, over a source whose base faces are `base_size` texels wide.
fn source_lod(pdf: f32, count: u32, base_size: usize) -> f32 {
    let sample_angle = 1.0 / (count as f32 * pdf.max(1e-8));
    let texel_angle = 4.0 * PI / (6.0 * (base_size * base_size) as f32);
    (0.5 * (sample_angle / texel_angle).log2()).max(0.0)
}

/// The GGX taps of roughness `alpha`, normalised so their weights sum to 1.
fn specular_taps(alpha: f32, count: u32, base_size: usize) -> Vec<Tap> {
    let mut taps = Vec::with_capacity(count as usize);
    for i in 0..count {
        let (u, v) = hammersley(i, count);
        let h = ggx_half_vector(u, v, alpha);
        // N = V = +Z: l = 2 (v·h) h − v.
        let direction = [
            2.0 * h[2] * h[0],
            2.0 * h[2] * h[1],
            2.0 * h[2] * h[2] - 1.0,
        ];
        if direction[2] <= 0.0 {
            continue;
        }
        let pdf = ggx_distribution(h[2], alpha) / 4.0;
        taps.push(Tap {
            direction,
            weight: direction[2],
            lod: source_lod(pdf, count, base_size),
        });
    }
    normalise_weights(&mut taps);
    taps
}

/// The cosine-weighted taps of the irradiance, weights summing to π.
fn irradiance_taps(count: u32, base_size: usize) -> Vec<Tap> {
    let mut taps: Vec<Tap> = (0..count)
        .map(|i| {
            let (u, v) = hammersley(i, count);
            let phi = 2.0 * PI * u;
            let cos_theta = (1.0 - v).sqrt();
            let sin_theta = v.sqrt();
            let pdf = cos_theta.max(1e-4) / PI;
            Tap {
                direction: [sin_theta * phi.cos(), sin_theta * phi.sin(), cos_theta],
                weight: 1.0,
                lod: source_lod(pdf, count, base_size),
            }
        })
        .collect();
    normalise_weights(&mut taps);
    for tap in &mut taps {
        tap.weight *= PI;
    }
    taps
}

/// Scales the taps' weights to sum to 1.
fn normalise_weights(taps: &mut [Tap]) {
    let total: f32 = taps.iter().map(|t| t.weight).sum();
    for tap in taps {
        tap.weight /= total;
    }
}

/// One cube level of `size × size` faces, each texel the weighted sum of the
/// `taps` around its direction, read from `chain`; the faces run on lent
/// threads.
fn convolve(chain: &[CubeLevel], size: usize, taps: &[Tap]) -> CubeLevel {
    let faces: Vec<usize> = (0..FACES).collect();
    crate::jobserver::map(&faces, |&face| convolve_face(chain, face, size, taps))
}

/// One face of [`convolve`]: the unit of work a lent thread takes.
fn convolve_face(chain: &[CubeLevel], face: usize, size: usize, taps: &[Tap]) -> Face {
    Face::from_fn(size, |x, y| {
        gather(chain, texel_direction(face, x, y, size), taps)
    })
}

/// The weighted sum of the `taps` around unit `direction`, read from `chain`.
fn gather(chain: &[CubeLevel], direction: Vec3, taps: &[Tap]) -> Vec3 {
    let axes = frame(direction);
    let mut sum = [0.0; 3];
    for tap in taps {
        let radiance = sample_chain(chain, to_world(&axes, tap.direction), tap.lod);
        sum[0] += radiance[0] * tap.weight;
        sum[1] += radiance[1] * tap.weight;
        sum[2] += radiance[2] * tap.weight;
    }
    sum
}

/// One specular value along unit `direction` at GGX `alpha` with `samples`
/// samples: what [`specular`] computes per texel, for measuring how the
/// error falls with the sample count (`tools/ibl_bench.rs`).
pub fn specular_at(chain: &[CubeLevel], direction: Vec3, alpha: f32, samples: u32) -> Vec3 {
    gather(
        chain,
        direction,
        &specular_taps(alpha, samples, chain[0][0].size),
    )
}

/// One irradiance value at unit `normal` with `samples` samples, as
/// [`irradiance`] computes per texel.
pub fn irradiance_at(chain: &[CubeLevel], normal: Vec3, samples: u32) -> Vec3 {
    gather(chain, normal, &irradiance_taps(samples, chain[0][0].size))
}

/// The perceptual roughness of specular level `level` of `levels`.
pub fn level_roughness(level: usize, levels: usize) -> f32 {
    if levels <= 1 {
        0.0
    } else {
        level as f32 / (levels - 1) as f32
    }
}

/// The specular cube: `levels` levels from the radiance mip `chain` (whose
/// level 0 is the mirror level, copied), level `k` at half the size of
/// level `k − 1` and roughness [`level_roughness`].
pub fn specular(chain: &[CubeLevel], levels: usize) -> Vec<CubeLevel> {
    let base_size = chain[0][0].size;
    let taps: Vec<Vec<Tap>> = (1..levels)
        .map(|level| {
            let roughness = level_roughness(level, levels);
            specular_taps(roughness * roughness, SPECULAR_SAMPLES, base_size)
        })
        .collect();
    // Every face of every convolved level is one job, largest level first.
    let jobs: Vec<(usize, usize)> = (1..levels)
        .flat_map(|level| (0..FACES).map(move |face| (level, face)))
        .collect();
    let mut faces = crate::jobserver::map(&jobs, |&(level, face)| {
        convolve_face(chain, face, (base_size >> level).max(1), &taps[level - 1])
    })
    .into_iter();
    let mut cube = vec![chain[0].clone()];
    for _ in 1..levels {
        cube.push(faces.by_ref().take(FACES).collect());
    }
    cube
}

/// The irradiance cube, `size × size` per face, from the radiance mip chain.
pub fn irradiance(chain: &[CubeLevel], size: usize) -> CubeLevel {
    let taps = irradiance_taps(IRRADIANCE_SAMPLES, chain[0][0].size);
    convolve(chain, size, &taps)
}

/// The split-sum weight of light direction `l` for the specular texel
/// looking along `r` at roughness `alpha`, up to a constant: the density
/// the sampler draws `l` with times `N·l` (see the module notes). The
/// tests integrate it by brute force.
pub fn specular_kernel(r: Vec3, l: Vec3, alpha: f32) -> f32 {
    let cos_l = dot(r, l);
    if cos_l <= 0.0 {
        return 0.0;
    }
    let h = normalize([r[0] + l[0], r[1] + l[1], r[2] + l[2]]);
    ggx_distribution(dot(r, h), alpha) / 4.0 * cos_l
}

/// The reference value of a specular texel looking along `r` at GGX `alpha`:
/// the weight of [`specular_kernel`] integrated over every texel of the
/// panorama, in `f64`. Slow (one pass over the panorama per call); the
/// tests and `tools/ibl_bench.rs` measure the sampled texels against it.
pub fn brute_force_specular(panorama: &Panorama, r: Vec3, alpha: f32) -> Vec3 {
    brute_force(panorama, |l| specular_kernel(r, l, alpha), false)
}

/// The reference irradiance at normal `n`: `∫ L(l) max(n·l, 0) dl` over
/// every texel of the panorama, in `f64`.
pub fn brute_force_irradiance(panorama: &Panorama, n: Vec3) -> Vec3 {
    brute_force(panorama, |l| dot(n, l).max(0.0), true)
}

/// `Σ L(l) w(l) Δω` over the panorama's texels, divided by `Σ w(l) Δω`
/// unless `absolute`.
fn brute_force(panorama: &Panorama, weight: impl Fn(Vec3) -> f32, absolute: bool) -> Vec3 {
    let (mut sum, mut total) = ([0.0f64; 3], 0.0f64);
    for y in 0..panorama.height {
        let angle = panorama.row_solid_angle(y) as f64;
        for x in 0..panorama.width {
            let l = panorama_direction(x, y, panorama.width, panorama.height);
            let w = weight(l) as f64 * angle;
            if w == 0.0 {
                continue;
            }
            for (channel, value) in sum.iter_mut().zip(panorama.at(x, y)) {
                *channel += w * value as f64;
            }
            total += w;
        }
    }
    let scale = if absolute { 1.0 } else { 1.0 / total };
    sum.map(|channel| (channel * scale) as f32)
}

#[cfg(test)]
mod tests {
    use super::super::cube::{self, mip_chain, texel_solid_angle};
    use super::*;

    /// A uniform environment of radiance `value`, `size` wide.
    fn uniform(size: usize, value: Vec3) -> Vec<CubeLevel> {
        mip_chain(cube::cube_from_fn(size, |_| value))
    }

    #[test]
    fn a_uniform_environment_keeps_its_radiance_at_every_roughness() {
        let value = [0.5, 1.0, 2.0];
        let chain = uniform(32, value);
        let levels = specular(&chain, 4);
        for level in &levels {
            for texel in level.iter().flat_map(|f| &f.texels) {
                for c in 0..3 {
                    // Tolerance: 1e-4 relative (f32 sums of 512 weights).
                    assert!((texel[c] - value[c]).abs() < 1e-4 * value[c], "{texel:?}");
                }
            }
        }
    }

    #[test]
    fn a_uniform_environment_gives_irradiance_pi_l() {
        let value = [0.5, 1.0, 2.0];
        let cube = irradiance(&uniform(32, value), 8);
        for texel in cube.iter().flat_map(|f| &f.texels) {
            for c in 0..3 {
                let expected = PI * value[c];
                assert!((texel[c] - expected).abs() < 1e-4 * expected, "{texel:?}");
            }
        }
    }

    /// A black environment with one bright texel of `chain`'s base level
    /// (the centre of +Z), as a panorama-free source.
    fn one_bright_texel(size: usize) -> Vec<CubeLevel> {
        let mut base = cube::cube_from_fn(size, |_| [0.0; 3]);
        let centre = size / 2;
        base[4].texels[centre * size + centre] = [1000.0; 3];
        mip_chain(base)
    }

    /// The lobe around +Z of one face level: (the direction of its
    /// brightest texel, its mean angular radius weighted by radiance).
    fn lobe(level: &CubeLevel) -> (Vec3, f32) {
        let size = level[0].size;
        let mut peak = (0.0, [0.0; 3]);
        let (mut moment, mut mass) = (0.0f64, 0.0f64);
        for (face, texels) in level.iter().enumerate() {
            for (index, texel) in texels.texels.iter().enumerate() {
                let (x, y) = (index % size, index / size);
                let d = texel_direction(face, x, y, size);
                let weight = texel[0] as f64 * texel_solid_angle(x, y, size) as f64;
                moment += weight * d[2].clamp(-1.0, 1.0).acos() as f64;
                mass += weight;
                if texel[0] > peak.0 {
                    peak = (texel[0], d);
                }
            }
        }
        (peak.1, (moment / mass) as f32)
    }

    #[test]
    fn a_bright_direction_gives_a_lobe_that_widens_with_roughness() {
        let chain = one_bright_texel(64);
        let levels = specular(&chain, 6);
        let mut previous = 0.0;
        for (index, level) in levels.iter().enumerate().skip(1) {
            let (peak, width) = lobe(level);
            // The peak stays on the bright direction: within one texel of
            // this level (its size is 64 >> index).
            let texel_angle = 2.0 / (64 >> index) as f32;
            assert!(
                peak[2].acos() <= texel_angle,
                "level {index}: peak {peak:?}"
            );
            assert!(width > previous, "level {index}: {width} after {previous}");
            previous = width;
        }
    }

    /// Σ radiance × solid angle over a cube level, per channel.
    fn integral(level: &CubeLevel) -> f64 {
        let size = level[0].size;
        level
            .iter()
            .flat_map(|face| face.texels.iter().enumerate())
            .map(|(i, t)| t[0] as f64 * texel_solid_angle(i % size, i / size, size) as f64)
            .sum()
    }

    #[test]
    fn prefiltering_conserves_energy_within_half_a_percent() {
        let field = |d: Vec3| {
            let sun = dot(d, normalize([0.3, 0.8, -0.5])).max(0.0).powi(64) * 50.0;
            [1.0 + 0.5 * d[1] + sun; 3]
        };
        let chain = mip_chain(Panorama::from_fn(256, 128, field).to_cube(32));
        let source = integral(&chain[0]);
        for (index, level) in specular(&chain, 4).iter().enumerate() {
            let ratio = integral(level) / source;
            assert!((ratio - 1.0).abs() < 0.005, "level {index}: {ratio}");
        }
    }

    #[test]
    fn irradiance_texels_match_a_brute_force_integration_within_one_percent() {
        let field = |d: Vec3| {
            let sun = dot(d, normalize([-0.4, 0.7, 0.2])).max(0.0).powi(32) * 40.0;
            [0.1 + d[1].max(0.0) + sun; 3]
        };
        let panorama = Panorama::from_fn(256, 128, field);
        let cube = irradiance(&mip_chain(panorama.to_cube(32)), 8);
        for (face, x, y) in [(2, 3, 3), (0, 1, 6), (3, 4, 4), (5, 7, 0)] {
            let n = texel_direction(face, x, y, 8);
            let expected = brute_force_irradiance(&panorama, n)[0];
            let found = cube[face].at(x, y)[0];
            assert!(
                (found - expected).abs() / expected < 0.01,
                "{found} against {expected}"
            );
        }
    }

    #[test]
    fn prefiltered_texels_match_a_brute_force_integration_within_three_percent() {
        let field = |d: Vec3| {
            let sun = dot(d, normalize([0.5, 0.6, 0.6])).max(0.0).powi(16) * 20.0;
            [0.2 + 0.8 * d[1].max(0.0) + sun; 3]
        };
        let panorama = Panorama::from_fn(256, 128, field);
        let chain = mip_chain(panorama.to_cube(32));
        let levels = specular(&chain, 5);
        for (level, (face, x, y)) in [
            (2, (4, 3, 1)),
            (3, (0, 2, 2)),
            (4, (2, 1, 0)),
            (1, (4, 10, 4)),
        ] {
            let size = levels[level][0].size;
            let r = texel_direction(face, x, y, size);
            let roughness = level_roughness(level, 5);
            let expected = brute_force_specular(&panorama, r, roughness * roughness)[0];
            let found = levels[level][face].at(x, y)[0];
            let error = (found - expected).abs() / expected;
            assert!(error < 0.03, "level {level}: {found} against {expected}");
        }
    }
}
