//! Convolving the environment: the GGX-prefiltered specular levels and the
//! diffuse irradiance cube, computed so that a sky holding a sun tens of
//! thousands of times brighter than itself comes out as close to the exact
//! integral as one without.
//!
//! # What is computed
//!
//! Level `k` of `levels` holds perceptual roughness `r = k / (levels − 1)`
//! (GGX `α = r²`). Each texel looks along `R` and, as in the split-sum
//! approximation, takes the normal and the view direction equal to it
//! (`N = V = R`). It holds
//!
//! ```text
//! S(R) = ∫ L(l) w(R·l) dl / ∫ w(R·l) dl,    w = D(h)/4 · (R·l)
//! ```
//!
//! with `h` the half vector of `R` and `l` and `D` the GGX distribution. `w`
//! depends on `t = R·l` alone (`(R·h)² = (1 + t)/2`), which is what lets the
//! sums below be plain dot products. Level 0 (a mirror) is the radiance
//! itself. The irradiance is `E(N) = ∫ L(l) max(N·l, 0) dl`.
//!
//! # How
//!
//! The environment is split ([`bright`]) into a **sky**
//! clamped to a few times its median and the **bright sources** above it,
//! gathered into a few point sources with their exact energy and centroid.
//!
//! * The bright sources are summed exactly for every texel of every level:
//!   `Σ w(R·dⱼ) Eⱼ / W(α)`, `W(α) = ∫ w dl` integrated once per level in
//!   `f64` ([`specular_weight_integral`]). A sun is a handful of sources.
//! * The sky is convolved **directly** wherever that is affordable: the sum
//!   over every texel of the sky's mip level that resolves the lobe
//!   ([`direct_source_size`]), each weighted by its exact solid angle
//!   ([`direct`](super::direct)). That is the integral up to the level's
//!   resolution, with no noise, and it depends on nothing but the
//!   direction, so texels on either side of a face edge agree.
//! * Where the lobe is too narrow for a direct sum to be cheap (the first
//!   rough levels of large cubes) the sky is **importance-sampled**: 512
//!   GGX-distributed Hammersley directions, each read from the sky's mip
//!   chain at the level whose texels cover the solid angle it stands for
//!   (`lod = ½ log₂(Ωₛ/Ωₚ)`, "filtered importance sampling", Křivánek and
//!   Colbert 2008, as Filament's `cmgen` and the Khronos glTF-IBL-Sampler
//!   do). Without the sun, the sky is smooth enough for that to converge.
//! * The irradiance cube is the direct sum over the sky's 32² level plus the
//!   bright sources' exact cosine-weighted sum.

use std::f32::consts::PI;

use super::bright;
use super::cube::{
    CubeLevel, FACES, Face, Vec3, cross, dot, mip_chain, normalize, sample_chain, texel_direction,
};
use super::direct::{NEAR_FAR_RATIO, NearFar, Texels};
use super::environment::Environment;

/// Samples per texel of an importance-sampled specular level.
pub const SPECULAR_SAMPLES: u32 = 512;

/// Face size of the sky level the irradiance is summed over.
pub const IRRADIANCE_SOURCE_SIZE: usize = 32;

/// The sky's mip level a direct sum reads has at least this many texels
/// across the lobe's width (`2α` radians).
pub const TEXELS_PER_LOBE: f32 = 8.0;

/// The smallest sky level a direct sum reads (small, rough levels read a
/// finer sky than their own size: it costs little and removes the error of
/// summing a broad lobe over a few texels per face).
pub const MIN_DIRECT_SOURCE: usize = 32;

/// A [`NearFar`] sum reads the fine level within this many coarse texel
/// widths of the direction.
pub const NEAR_COARSE_TEXELS: f32 = 6.0;

/// The most texel pairs (output × source) a level may cost to be summed
/// directly; beyond it the sky is importance-sampled.
pub const DIRECT_BUDGET: usize = 1 << 30;

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

/// The split-sum weight `w(t) = D(h)/4 · t` of a light direction at cosine
/// `t` from the texel's direction, for GGX `alpha` (0 at and below `t = 0`).
/// Written without branches so the direct sums vectorise.
pub fn specular_weight(t: f32, alpha: f32) -> f32 {
    let a2 = alpha * alpha;
    let t = t.max(0.0);
    let denominator = (1.0 + t) * 0.5 * (a2 - 1.0) + 1.0;
    a2 / (4.0 * PI) * t / (denominator * denominator)
}

/// `W(α) = ∫ w(R·l) dl` over the sphere, by Simpson's rule over
/// `u = (R·h)²` in `f64`: `W = α² ∫ (2u − 1) / ((α² − 1)u + 1)² du` for `u`
/// from ½ to 1.
pub fn specular_weight_integral(alpha: f32) -> f64 {
    const STEPS: usize = 1 << 16;
    let a2 = f64::from(alpha) * f64::from(alpha);
    let integrand = |u: f64| {
        let q = (a2 - 1.0) * u + 1.0;
        (2.0 * u - 1.0) / (q * q)
    };
    let step = 0.5 / STEPS as f64;
    let mut sum = integrand(0.5) + integrand(1.0);
    for i in 1..STEPS {
        let weight = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += weight * integrand(0.5 + i as f64 * step);
    }
    a2 * sum * step / 3.0
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
    let total: f32 = taps.iter().map(|t| t.weight).sum();
    for tap in &mut taps {
        tap.weight /= total;
    }
    taps
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

/// The perceptual roughness of specular level `level` of `levels`.
pub fn level_roughness(level: usize, levels: usize) -> f32 {
    if levels <= 1 {
        0.0
    } else {
        level as f32 / (levels - 1) as f32
    }
}

/// What the convolutions read: the sky as a mip chain and the bright
/// sources as point sources (see the module notes).
#[derive(Debug, Clone)]
pub struct Split {
    /// The sky, `size` wide, and its box-filtered mips.
    pub sky: Vec<CubeLevel>,
    /// The bright sources.
    pub bright: Texels,
}

impl Split {
    /// Splits `environment`, whose projection onto the cube is the mip
    /// chain `radiance`; the sky is projected at the same size. Without
    /// bright sources no texel is scaled, so the sky is the radiance, and
    /// the projection is not done twice.
    pub fn new(environment: &Environment, radiance: &[CubeLevel]) -> Self {
        let bright = bright::extract(environment);
        let sky = if bright.sources.is_empty() {
            radiance.to_vec()
        } else {
            let size = radiance[0][0].size;
            mip_chain(environment.to_cube_mapped(size, |texel| bright.sky(texel)))
        };
        Self {
            sky,
            bright: Texels::of_sources(&bright.sources),
        }
    }
}

/// How one specular level reads the sky.
#[derive(Debug, Clone)]
enum SkyMethod {
    /// A direct sum over every texel of one sky level.
    Direct(Texels),
    /// A direct sum over a fine sky level near the direction and a coarse
    /// one elsewhere.
    NearFar(NearFar),
    /// Filtered importance sampling with these taps.
    Sampled(Vec<Tap>),
}

/// The face size of the sky level a direct sum at GGX `alpha` reads for an
/// output level `size` wide: the smallest level with [`TEXELS_PER_LOBE`]
/// texels across the lobe and at least [`MIN_DIRECT_SOURCE`] wide, but no
/// larger than the output (unless that is smaller than the minimum) nor
/// the sky.
pub fn direct_source_size(alpha: f32, size: usize, sky_size: usize) -> usize {
    // A face spans π/2 radians.
    let wanted = (TEXELS_PER_LOBE * PI / (2.0 * 2.0 * alpha)).ceil() as usize;
    wanted
        .next_power_of_two()
        .max(MIN_DIRECT_SOURCE)
        .min(size.max(MIN_DIRECT_SOURCE))
        .min(sky_size)
}

/// The way level `size` wide at GGX `alpha` reads `sky`: a direct sum over
/// the whole source level when its cost fits [`DIRECT_BUDGET`], else a
/// [`NearFar`] sum when that fits, else sampling.
fn sky_method(sky: &[CubeLevel], alpha: f32, size: usize) -> SkyMethod {
    let sky_size = sky[0][0].size;
    let source = direct_source_size(alpha, size, sky_size);
    let level = (sky_size.trailing_zeros() - source.trailing_zeros()) as usize;
    let outputs = FACES * size * size;
    if outputs.saturating_mul(FACES * source * source) <= DIRECT_BUDGET {
        return SkyMethod::Direct(Texels::of_level(&sky[level]));
    }
    let coarse = source / NEAR_FAR_RATIO;
    if let Some(coarse_level) = sky
        .get(level + NEAR_FAR_RATIO.trailing_zeros() as usize)
        .filter(|_| coarse >= 1)
    {
        let near = NEAR_COARSE_TEXELS * PI / (2.0 * coarse as f32);
        let pairs = outputs.saturating_mul(NearFar::pairs_per_direction(coarse, near));
        if pairs <= DIRECT_BUDGET {
            return SkyMethod::NearFar(NearFar::new(&sky[level], coarse_level, near));
        }
    }
    SkyMethod::Sampled(specular_taps(alpha, SPECULAR_SAMPLES, sky_size))
}

/// One specular level's filter, planned once and applied to every texel:
/// its GGX `α`, the bright sources' normaliser `W(α)`, and how it reads the
/// sky.
#[derive(Debug, Clone)]
pub struct LevelFilter {
    /// GGX `α`.
    alpha: f32,
    /// `W(α)`, the integral of the weight over the sphere.
    bright_weight: f32,
    /// How the sky is read.
    method: SkyMethod,
}

impl LevelFilter {
    /// The filter of a level `size` wide at GGX `alpha` over `split`.
    pub fn new(split: &Split, alpha: f32, size: usize) -> Self {
        Self {
            alpha,
            bright_weight: specular_weight_integral(alpha) as f32,
            method: sky_method(&split.sky, alpha, size),
        }
    }

    /// The texel looking along unit `r`: the sky plus the bright sources
    /// (`tools/ibl_bench.rs` measures it against brute force).
    pub fn texel(&self, split: &Split, r: Vec3) -> Vec3 {
        let kernel = |t: f32| specular_weight(t, self.alpha);
        let sky = match &self.method {
            SkyMethod::Direct(texels) => {
                let (sum, weight) = texels.convolve(r, kernel);
                sum.map(|c| c / weight)
            }
            SkyMethod::NearFar(near_far) => {
                let (sum, weight) = near_far.convolve(r, kernel);
                sum.map(|c| c / weight)
            }
            SkyMethod::Sampled(taps) => gather(&split.sky, r, taps),
        };
        if split.bright.is_empty() {
            return sky;
        }
        let (bright, _) = split.bright.convolve(r, kernel);
        [0, 1, 2].map(|c| sky[c] + bright[c] / self.bright_weight)
    }
}

/// The specular cube: `levels` levels, level 0 `radiance` (the mirror
/// level, copied), level `k` at half the size of level `k − 1` and
/// roughness [`level_roughness`], from `split`.
pub fn specular(radiance: &CubeLevel, split: &Split, levels: usize) -> Vec<CubeLevel> {
    let base_size = radiance[0].size;
    let size_of = |level: usize| (base_size >> level).max(1);
    let filters: Vec<LevelFilter> = (1..levels)
        .map(|level| {
            let roughness = level_roughness(level, levels);
            LevelFilter::new(split, roughness * roughness, size_of(level))
        })
        .collect();
    // Every face of every convolved level is one job, largest level first.
    let jobs: Vec<(usize, usize)> = (1..levels)
        .flat_map(|level| (0..FACES).map(move |face| (level, face)))
        .collect();
    let mut faces = crate::jobserver::map(&jobs, |&(level, face)| {
        let size = size_of(level);
        Face::from_fn(size, |x, y| {
            filters[level - 1].texel(split, texel_direction(face, x, y, size))
        })
    })
    .into_iter();
    let mut cube = vec![radiance.clone()];
    for _ in 1..levels {
        cube.push(faces.by_ref().take(FACES).collect());
    }
    cube
}

/// The irradiance along unit `normal`: the direct sum over the sky's
/// [`IRRADIANCE_SOURCE_SIZE`] level (read from `sky_texels`) plus the bright
/// sources.
fn irradiance_texel(split: &Split, sky_texels: &Texels, normal: Vec3) -> Vec3 {
    let cosine = |t: f32| t.max(0.0);
    let (sky, _) = sky_texels.convolve(normal, cosine);
    let (bright, _) = split.bright.convolve(normal, cosine);
    [0, 1, 2].map(|c| sky[c] + bright[c])
}

/// The sky level the irradiance sums over, as columns.
fn irradiance_source(split: &Split) -> Texels {
    let level = split
        .sky
        .iter()
        .find(|level| level[0].size <= IRRADIANCE_SOURCE_SIZE)
        .unwrap_or(&split.sky[0]);
    Texels::of_level(level)
}

/// One irradiance value at unit `normal`, as [`irradiance`] computes it.
pub fn irradiance_at(split: &Split, normal: Vec3) -> Vec3 {
    irradiance_texel(split, &irradiance_source(split), normal)
}

/// The irradiance cube, `size × size` per face; the faces run on lent
/// threads.
pub fn irradiance(split: &Split, size: usize) -> CubeLevel {
    let sky = irradiance_source(split);
    let faces: Vec<usize> = (0..FACES).collect();
    crate::jobserver::map(&faces, |&face| {
        Face::from_fn(size, |x, y| {
            irradiance_texel(split, &sky, texel_direction(face, x, y, size))
        })
    })
}

/// The reference value of a specular texel looking along `r` at GGX `alpha`:
/// [`specular_weight`] integrated over every texel of the environment, in
/// `f64`. Slow (one pass over the source per call); the tests and
/// `tools/ibl_bench.rs` measure the computed texels against it.
pub fn brute_force_specular(environment: &Environment, r: Vec3, alpha: f32) -> Vec3 {
    brute_force(environment, |l| specular_weight(dot(r, l), alpha), false)
}

/// The reference irradiance at normal `n`: `∫ L(l) max(n·l, 0) dl` over
/// every texel of the environment, in `f64`.
pub fn brute_force_irradiance(environment: &Environment, n: Vec3) -> Vec3 {
    brute_force(environment, |l| dot(n, l).max(0.0), true)
}

/// `Σ L(l) w(l) Δω` over the environment's texels, divided by `Σ w(l) Δω`
/// unless `absolute`.
fn brute_force(environment: &Environment, weight: impl Fn(Vec3) -> f32, absolute: bool) -> Vec3 {
    let (mut sum, mut total) = ([0.0f64; 3], 0.0f64);
    environment.for_each_texel(|l, angle, radiance| {
        let w = f64::from(weight(l)) * f64::from(angle);
        if w == 0.0 {
            return;
        }
        for (channel, value) in sum.iter_mut().zip(radiance) {
            *channel += w * f64::from(value);
        }
        total += w;
    });
    let scale = if absolute { 1.0 } else { 1.0 / total };
    sum.map(|channel| (channel * scale) as f32)
}

#[cfg(test)]
mod tests {
    use super::super::cube::{self, face_of, texel_of, texel_solid_angle};
    use super::super::panorama::Panorama;
    use super::*;

    /// The specular cube of `environment` at `size`, with `levels` levels.
    fn specular_of(environment: &Environment, size: usize, levels: usize) -> Vec<CubeLevel> {
        let radiance = mip_chain(environment.to_cube(size));
        specular(&radiance[0], &Split::new(environment, &radiance), levels)
    }

    /// A uniform environment of radiance `value`.
    fn uniform(value: Vec3) -> Environment {
        Environment::Cube(cube::cube_from_fn(32, |_| value))
    }

    #[test]
    fn a_uniform_environment_keeps_its_radiance_at_every_roughness() {
        let value = [0.5, 1.0, 2.0];
        for level in &specular_of(&uniform(value), 32, 4) {
            for texel in level.iter().flat_map(|f| &f.texels) {
                for c in 0..3 {
                    // Tolerance: 1e-4 relative (f32 sums of thousands of
                    // weights).
                    assert!((texel[c] - value[c]).abs() < 1e-4 * value[c], "{texel:?}");
                }
            }
        }
    }

    #[test]
    fn a_uniform_environment_gives_irradiance_pi_l() {
        let value = [0.5, 1.0, 2.0];
        let environment = uniform(value);
        let radiance = mip_chain(environment.to_cube(32));
        let cube = irradiance(&Split::new(&environment, &radiance), 8);
        for texel in cube.iter().flat_map(|f| &f.texels) {
            for c in 0..3 {
                // Tolerance: the 32² level's solid angles sum to 4π within
                // 1e-4.
                let expected = PI * value[c];
                assert!((texel[c] - expected).abs() < 1e-3 * expected, "{texel:?}");
            }
        }
    }

    #[test]
    fn the_weight_integral_matches_the_closed_form_of_the_roughest_lobe() {
        // α = 1: D = 1/π, W = 2π ∫ μ(2μ² − 1)/π dμ over μ from 1/√2 to 1 = 1/4.
        assert!((specular_weight_integral(1.0) - 0.25).abs() < 1e-9);
        // And it matches a direct sum over a fine cube at every roughness.
        let texels = Texels::of_level(&cube::cube_from_fn(128, |_| [0.0; 3]));
        for alpha in [0.04, 0.16, 0.36, 0.64] {
            let (_, weight) = texels.convolve([0.0, 0.0, 1.0], |t| specular_weight(t, alpha));
            let exact = specular_weight_integral(alpha) as f32;
            assert!(
                (weight - exact).abs() < 0.01 * exact,
                "{alpha}: {weight} {exact}"
            );
        }
    }

    /// A black environment with one bright texel at the centre of +Z.
    fn one_bright_texel(size: usize) -> Environment {
        let mut base = cube::cube_from_fn(size, |_| [0.0; 3]);
        let centre = size / 2;
        base[4].texels[centre * size + centre] = [1000.0; 3];
        Environment::Cube(base)
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
        let levels = specular_of(&one_bright_texel(64), 64, 6);
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

    /// A sky with a horizon, a band of stripes, and a sun of `radius`
    /// radians along `sun` at `brightness` times the sky, `width` wide.
    fn sunny_sky(width: usize, sun: Vec3, radius: f32, brightness: f32) -> Environment {
        let cos_radius = radius.cos();
        Panorama::from_fn(width, width / 2, |d| {
            let sky = if d[1] > 0.0 { 0.5 + d[1] } else { 0.2 };
            let stripe = if d[1].abs() < 0.1 && (d[0] * 8.0).rem_euclid(2.0) < 1.0 {
                1.5
            } else {
                0.0
            };
            let disc = if dot(d, sun) >= cos_radius {
                brightness
            } else {
                0.0
            };
            [sky * 0.6 + stripe + disc, sky * 0.8 + disc, sky + disc]
        })
        .into()
    }

    /// The sun of the tests: 0.7° in radius, 50,000 times the sky.
    fn sun() -> (Vec3, f32, f32) {
        (normalize([0.35, 0.6, -0.72]), 0.7f32.to_radians(), 50_000.0)
    }

    #[test]
    fn prefiltering_conserves_energy_under_a_sun() {
        let (direction, radius, brightness) = sun();
        let environment = sunny_sky(512, direction, radius, brightness);
        let levels = specular_of(&environment, 64, 4);
        let source = integral(&levels[0]);
        for (index, level) in levels.iter().enumerate() {
            let ratio = integral(level) / source;
            // Tolerance: 1%, the bound of the brute-force comparison.
            assert!((ratio - 1.0).abs() < 0.01, "level {index}: {ratio}");
        }
    }

    /// Texels of a level `size` wide to compare with brute force: a grid
    /// over every face and texels at growing angles from `sun`.
    fn judged(size: usize, sun: Vec3) -> Vec<(usize, usize, usize)> {
        let mut texels: Vec<(usize, usize, usize)> = (0..FACES)
            .flat_map(|face| {
                [
                    (face, 0, 0),
                    (face, size / 2, size / 3),
                    (face, size - 1, size - 2),
                ]
            })
            .collect();
        let side = normalize(cross(sun, [0.0, 0.0, 1.0]));
        for degrees in [0.0f32, 1.0, 3.0, 8.0, 20.0, 50.0] {
            let (sin, cos) = degrees.to_radians().sin_cos();
            let (face, s, t) = face_of(normalize([0, 1, 2].map(|c| sun[c] * cos + side[c] * sin)));
            let (x, y) = texel_of(s, t, size);
            texels.push((face, x, y));
        }
        texels
    }

    /// The largest relative error over the channels.
    fn relative_error(found: Vec3, expected: Vec3) -> f32 {
        (0..3)
            .map(|c| (found[c] - expected[c]).abs() / expected[c])
            .fold(0.0, f32::max)
    }

    #[test]
    fn specular_texels_are_within_two_percent_of_brute_force_under_a_sun() {
        let (direction, radius, brightness) = sun();
        for brightness in [brightness, 0.0] {
            let environment = sunny_sky(512, direction, radius, brightness);
            let levels = specular_of(&environment, 64, 4);
            for (level, faces) in levels.iter().enumerate().skip(1) {
                let roughness = level_roughness(level, 4);
                let size = faces[0].size;
                for (face, x, y) in judged(size, direction) {
                    let r = texel_direction(face, x, y, size);
                    let expected = brute_force_specular(&environment, r, roughness * roughness);
                    let error = relative_error(faces[face].at(x, y), expected);
                    assert!(
                        error < 0.02,
                        "sun {brightness}, level {level}, texel {face} {x} {y}: {:?} against {expected:?}",
                        faces[face].at(x, y)
                    );
                }
            }
        }
    }

    #[test]
    fn irradiance_texels_are_within_one_percent_of_brute_force_under_a_sun() {
        let (direction, radius, brightness) = sun();
        let environment = sunny_sky(512, direction, radius, brightness);
        let radiance = mip_chain(environment.to_cube(32));
        let cube = irradiance(&Split::new(&environment, &radiance), 8);
        for (face, x, y) in judged(8, direction) {
            let n = texel_direction(face, x, y, 8);
            let expected = brute_force_irradiance(&environment, n);
            let error = relative_error(cube[face].at(x, y), expected);
            assert!(
                error < 0.01,
                "texel {face} {x} {y}: {:?} against {expected:?}",
                cube[face].at(x, y)
            );
        }
    }

    /// The texel across the edge from border texel (`x`, `y`) of `face`
    /// (`size` wide) in direction (`dx`, `dy`), found by stepping half a
    /// texel past the edge.
    fn across(
        face: usize,
        x: usize,
        y: usize,
        size: usize,
        step: (i32, i32),
    ) -> (usize, usize, usize) {
        let coordinate = |i: usize, d: i32| (2.0 * (i as f32 + 0.5 + d as f32) / size as f32) - 1.0;
        let direction = cube::face_vector(face, coordinate(x, step.0), coordinate(y, step.1));
        let (other, s, t) = face_of(normalize(direction));
        let (ox, oy) = texel_of(s, t, size);
        (other, ox, oy)
    }

    #[test]
    fn rough_levels_have_no_seams_between_faces() {
        // Every texel along every face edge against its neighbour across
        // the edge: the step there must be like the step between the same
        // texel and its neighbour inside the face (a seam is a jump that
        // the surface itself does not have).
        let (direction, radius, brightness) = sun();
        let environment = sunny_sky(256, direction, radius, brightness);
        let levels = specular_of(&environment, 32, 4);
        let mut worst = 0.0f32;
        for faces in levels.iter().skip(1) {
            let size = faces[0].size;
            let value = |(face, x, y): (usize, usize, usize)| faces[face].at(x, y)[2];
            // The largest step from a texel to its neighbours in its face.
            let steepest = |(face, x, y): (usize, usize, usize)| {
                let here = value((face, x, y));
                [(-1, 0), (1, 0), (0, -1), (0, 1)]
                    .into_iter()
                    .filter_map(|(dx, dy)| {
                        let nx = x.checked_add_signed(dx).filter(|&v| v < size)?;
                        let ny = y.checked_add_signed(dy).filter(|&v| v < size)?;
                        Some((value((face, nx, ny)) - here).abs())
                    })
                    .fold(0.0, f32::max)
            };
            for face in 0..FACES {
                // Corner texels touch three faces; the texels between them
                // have one neighbour across the edge.
                for i in 1..size - 1 {
                    let edges = [
                        ((0, i), (-1, 0)),
                        ((size - 1, i), (1, 0)),
                        ((i, 0), (0, -1)),
                        ((i, size - 1), (0, 1)),
                    ];
                    for ((x, y), step) in edges {
                        let there = across(face, x, y, size, step);
                        let here = value((face, x, y));
                        let jump = (value(there) - here).abs();
                        let inside = steepest((face, x, y)).max(steepest(there));
                        let ratio = jump / (inside + 1e-4 * here);
                        worst = worst.max(ratio);
                        // Tolerance: the texels across an edge are about
                        // one texel apart on the sphere, as neighbours in a
                        // face are.
                        assert!(
                            ratio < 1.5,
                            "level {size}, face {face} ({x}, {y}): step {jump} across the edge, {inside} inside"
                        );
                    }
                }
            }
        }
        assert!(
            worst > 0.1,
            "the comparison must see the surface change: {worst}"
        );
    }
}
