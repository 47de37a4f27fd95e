//! Direct convolution: a kernel of the cosine between two directions,
//! summed over every texel of a cube level (or over point sources). Each
//! texel contributes its radiance times its exact solid angle, so the sum is
//! the integral up to the level's resolution, with no sampling noise.
//!
//! The texels are stored as columns (one array per coordinate and channel)
//! and summed [`LANES`] at a time into separate accumulators, a fixed order
//! that the compiler turns into vector instructions; the lanes are added up
//! in `f64` at the end. The order depends on nothing but the data, so the
//! result is the same on every run and thread count.

use super::bright::PointSource;
use super::cube::{CubeLevel, Vec3, texel_direction, texel_solid_angle};

/// How many texels one step of the sum handles.
pub const LANES: usize = 8;

/// Directions and weighted radiance as columns, padded with zero texels
/// to a multiple of [`LANES`].
#[derive(Debug, Clone, Default)]
pub struct Texels {
    /// The directions' components.
    x: Vec<f32>,
    /// See `x`.
    y: Vec<f32>,
    /// See `x`.
    z: Vec<f32>,
    /// Radiance times solid angle, per channel.
    red: Vec<f32>,
    /// See `red`.
    green: Vec<f32>,
    /// See `red`.
    blue: Vec<f32>,
    /// Each texel's solid angle (0 for point sources).
    angle: Vec<f32>,
}

impl Texels {
    /// Every texel of a cube level.
    pub fn of_level(level: &CubeLevel) -> Self {
        Self::of_level_in_blocks(level, 1)
    }

    /// Every texel of a cube level, in `block × block` squares: the texels
    /// of square `j` (in face, row, column order) are `block²` consecutive
    /// entries from `j·block²`.
    fn of_level_in_blocks(level: &CubeLevel, block: usize) -> Self {
        let mut texels = Self::default();
        for (face, texels_of_face) in level.iter().enumerate() {
            let size = texels_of_face.size;
            let blocks = size / block;
            for (by, bx) in (0..blocks).flat_map(|by| (0..blocks).map(move |bx| (by, bx))) {
                for (y, x) in (0..block).flat_map(|y| (0..block).map(move |x| (y, x))) {
                    let (x, y) = (bx * block + x, by * block + y);
                    let angle = texel_solid_angle(x, y, size);
                    let radiance = texels_of_face.at(x, y);
                    texels.push(
                        texel_direction(face, x, y, size),
                        radiance.map(|c| c * angle),
                        angle,
                    );
                }
            }
        }
        texels.pad();
        texels
    }

    /// Point sources, each its energy at its direction.
    pub fn of_sources(sources: &[PointSource]) -> Self {
        let mut texels = Self::default();
        for source in sources {
            texels.push(source.direction, source.energy, 0.0);
        }
        texels.pad();
        texels
    }

    /// Whether there is nothing to sum.
    pub fn is_empty(&self) -> bool {
        self.angle.is_empty()
    }

    /// Appends one texel.
    fn push(&mut self, direction: Vec3, energy: Vec3, angle: f32) {
        self.x.push(direction[0]);
        self.y.push(direction[1]);
        self.z.push(direction[2]);
        self.red.push(energy[0]);
        self.green.push(energy[1]);
        self.blue.push(energy[2]);
        self.angle.push(angle);
    }

    /// Pads with zero texels (direction 0: every kernel of the cosine sees
    /// cosine 0, and their energy and angle are 0 anyway).
    fn pad(&mut self) {
        while !self.angle.len().is_multiple_of(LANES) {
            self.push([0.0; 3], [0.0; 3], 0.0);
        }
    }

    /// `Σ k(n·dᵢ) Eᵢ` (per channel) and `Σ k(n·dᵢ) Ωᵢ` over the texels, for
    /// a kernel `k` of the cosine that is 0 at and below cosine 0.
    pub fn convolve(&self, n: Vec3, kernel: impl Fn(f32) -> f32) -> (Vec3, f32) {
        self.convolve_range(n, kernel, 0..self.angle.len())
    }

    /// [`Self::convolve`] over the texels of `range` (its ends multiples of
    /// [`LANES`]).
    fn convolve_range(
        &self,
        n: Vec3,
        kernel: impl Fn(f32) -> f32,
        range: std::ops::Range<usize>,
    ) -> (Vec3, f32) {
        let mut sums = [[0.0f32; LANES]; 4];
        let columns = self.x[range.clone()]
            .chunks_exact(LANES)
            .zip(self.y[range.clone()].chunks_exact(LANES))
            .zip(self.z[range.clone()].chunks_exact(LANES));
        let energies = self.red[range.clone()]
            .chunks_exact(LANES)
            .zip(self.green[range.clone()].chunks_exact(LANES))
            .zip(self.blue[range.clone()].chunks_exact(LANES))
            .zip(self.angle[range].chunks_exact(LANES));
        for (((x, y), z), (((red, green), blue), angle)) in columns.zip(energies) {
            for lane in 0..LANES {
                let weight = kernel(n[0] * x[lane] + n[1] * y[lane] + n[2] * z[lane]);
                sums[0][lane] += weight * red[lane];
                sums[1][lane] += weight * green[lane];
                sums[2][lane] += weight * blue[lane];
                sums[3][lane] += weight * angle[lane];
            }
        }
        let total = |lanes: &[f32; LANES]| lanes.iter().map(|&v| f64::from(v)).sum::<f64>() as f32;
        (
            [total(&sums[0]), total(&sums[1]), total(&sums[2])],
            total(&sums[3]),
        )
    }
}

/// How many times finer than the coarse level the fine level of a
/// [`NearFar`] sum is.
pub const NEAR_FAR_RATIO: usize = 4;

/// A direct sum over a fine level that reads a coarse level for the texels
/// far from the direction: each coarse texel within `near` radians of it
/// (centre to centre) is replaced by its [`NEAR_FAR_RATIO`]² fine texels.
/// That partitions the sphere exactly, and a coarse texel subtends a small
/// angle from where it is read, so the kernel's tail barely changes across
/// it; the cost per direction is the coarse level plus the fine texels of a
/// small cap instead of the whole fine level.
#[derive(Debug, Clone)]
pub struct NearFar {
    /// The coarse level, every texel.
    coarse: Texels,
    /// The fine level, in blocks under each coarse texel.
    fine: Texels,
    /// The cosine of the near radius.
    cos_near: f32,
}

impl NearFar {
    /// The sum over `fine` (a cube level [`NEAR_FAR_RATIO`] times the size
    /// of `coarse`) with `near` radians read finely.
    pub fn new(fine: &CubeLevel, coarse: &CubeLevel, near: f32) -> Self {
        Self {
            coarse: Texels::of_level(coarse),
            fine: Texels::of_level_in_blocks(fine, NEAR_FAR_RATIO),
            cos_near: near.cos(),
        }
    }

    /// The coarse texels a near cap of `near` radians holds, on average
    /// over the sphere, and their fine texels: the cost of one direction in
    /// texel pairs.
    pub fn pairs_per_direction(coarse_size: usize, near: f32) -> usize {
        let coarse = 6 * coarse_size * coarse_size;
        let cap = (1.0 - near.cos()) / 2.0;
        coarse + (coarse as f32 * cap) as usize * NEAR_FAR_RATIO * NEAR_FAR_RATIO
    }

    /// [`Texels::convolve`] over the fine level, read as described above.
    pub fn convolve(&self, n: Vec3, kernel: impl Fn(f32) -> f32 + Copy) -> (Vec3, f32) {
        let (mut sum, mut weight) = self.coarse.convolve(n, kernel);
        let block = NEAR_FAR_RATIO * NEAR_FAR_RATIO;
        let coarse = &self.coarse;
        for j in 0..coarse.angle.len() {
            let t = n[0] * coarse.x[j] + n[1] * coarse.y[j] + n[2] * coarse.z[j];
            if t <= self.cos_near {
                continue;
            }
            let w = kernel(t);
            let (near_sum, near_weight) =
                self.fine
                    .convolve_range(n, kernel, j * block..(j + 1) * block);
            sum[0] += near_sum[0] - w * coarse.red[j];
            sum[1] += near_sum[1] - w * coarse.green[j];
            sum[2] += near_sum[2] - w * coarse.blue[j];
            weight += near_weight - w * coarse.angle[j];
        }
        (sum, weight)
    }
}

#[cfg(test)]
mod tests {
    use super::super::cube::cube_from_fn;
    use super::*;

    #[test]
    fn a_uniform_level_sums_to_its_radiance_times_the_kernels_integral() {
        let texels = Texels::of_level(&cube_from_fn(16, |_| [2.0, 1.0, 0.5]));
        let (sum, weight) = texels.convolve([0.0, 0.0, 1.0], |t| t.max(0.0));
        // ∫ max(cos, 0) dω = π over the sphere; the kink at the horizon
        // costs the 16² sum about 0.1%.
        let pi = std::f32::consts::PI;
        assert!((weight - pi).abs() < 2e-3 * pi, "{weight}");
        for (c, value) in sum.iter().zip([2.0, 1.0, 0.5]) {
            assert!((c - value * weight).abs() < 1e-4, "{sum:?}");
        }
    }

    #[test]
    fn a_near_far_sum_is_the_fine_sum_where_it_matters() {
        use super::super::cube::{dot, mip_chain, normalize};
        let sun = normalize([0.2, 0.5, 0.8]);
        let field = |d: Vec3| [1.0 + d[1].max(0.0) + 20.0 * dot(d, sun).max(0.0).powi(200); 3];
        let chain = mip_chain(cube_from_fn(64, field));
        let fine = Texels::of_level(&chain[0]);
        let near_far = NearFar::new(&chain[0], &chain[2], 0.5);
        let kernel = |t: f32| crate::encode::ibl::prefilter::specular_weight(t, 0.1);
        for n in [
            sun,
            normalize([-0.3, 0.2, 0.9]),
            normalize([0.0, -1.0, 0.1]),
        ] {
            let (exact, exact_weight) = fine.convolve(n, kernel);
            let (found, weight) = near_far.convolve(n, kernel);
            // Tolerance: the far part, read coarsely, is a few percent of
            // the weight and off by a few percent itself.
            let ratio = (found[0] / weight) / (exact[0] / exact_weight);
            assert!((ratio - 1.0).abs() < 2e-3, "{n:?}: {ratio}");
        }
    }

    #[test]
    fn point_sources_add_their_energy_where_the_kernel_sees_them() {
        let sources = [
            PointSource {
                direction: [0.0, 0.0, 1.0],
                energy: [1.0, 2.0, 3.0],
            },
            PointSource {
                direction: [0.0, 0.0, -1.0],
                energy: [100.0; 3],
            },
        ];
        let (sum, weight) = Texels::of_sources(&sources).convolve([0.0, 0.0, 1.0], |t| t.max(0.0));
        assert_eq!((sum, weight), ([1.0, 2.0, 3.0], 0.0));
    }
}
