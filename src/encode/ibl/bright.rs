//! Bright sources: the part of an environment far above its sky (a sun, a
//! lamp), taken out so the convolutions can treat it exactly.
//!
//! A sun of 0.7° at 50,000 times the sky covers a few hundred millionths of
//! the sphere yet can hold most of its energy. Any scheme that reads the
//! environment through a filtered, lower-resolution copy smears such a
//! source over the copy's texel, and the error lands wherever the GGX lobe
//! is steep. So the environment is split in two:
//!
//! * the **sky**, every texel scaled down to at most a threshold `T` (its
//!   largest channel), which the convolutions read at reduced resolution,
//!   where it is smooth enough to be exact;
//! * the **bright sources**, what was above `T`, binned into the texels of a
//!   [`CELL_SIZE`]-wide cube: each occupied cell becomes one point source with
//!   the cell's total energy (radiance × solid angle) at its energy-weighted
//!   centroid. The centroid keeps the first moment exact, so a kernel
//!   evaluated there is off only by the second moment (a cell spans 0.35°;
//!   a rough-0.2 lobe about 4.6°).
//!
//! `T` is [`SKY_FACTOR`] times the median radiance (by solid angle), raised
//! if need be so that at most [`MAX_SOURCES`] cells stay bright, which keeps
//! the cost of the exact sums bounded on skies with large bright areas.

use std::collections::BTreeMap;

use super::cube::{FACES, Vec3, face_of, normalize, texel_of};
use super::environment::Environment;

/// Face size of the cube whose texels gather the bright texels.
pub const CELL_SIZE: usize = 256;

/// How far above the median radiance a texel starts to be bright.
pub const SKY_FACTOR: f32 = 16.0;

/// The most point sources an environment gives.
pub const MAX_SOURCES: usize = 4096;

/// One point source: the energy above the threshold of one cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointSource {
    /// The unit direction of its energy-weighted centroid.
    pub direction: Vec3,
    /// Its radiance above the threshold times solid angle, per channel.
    pub energy: Vec3,
}

/// An environment's bright part.
#[derive(Debug, Clone, PartialEq)]
pub struct BrightSources {
    /// The largest channel value the sky keeps.
    pub threshold: f32,
    /// The point sources, in cell order (face, row, column).
    pub sources: Vec<PointSource>,
}

impl BrightSources {
    /// What of `radiance` stays in the sky: the texel scaled down so its
    /// largest channel is at most the threshold.
    pub fn sky(&self, radiance: Vec3) -> Vec3 {
        scaled_to(radiance, self.threshold)
    }
}

/// `radiance` scaled so its largest channel is at most `threshold`.
fn scaled_to(radiance: Vec3, threshold: f32) -> Vec3 {
    let peak = largest(radiance);
    if peak <= threshold {
        radiance
    } else {
        let scale = threshold / peak;
        radiance.map(|channel| channel * scale)
    }
}

/// The largest channel.
fn largest(radiance: Vec3) -> f32 {
    radiance[0].max(radiance[1]).max(radiance[2])
}

/// The bright sources of `environment` (see the module notes).
pub fn extract(environment: &Environment) -> BrightSources {
    let threshold = threshold(environment);
    BrightSources {
        threshold,
        sources: gather(environment, threshold),
    }
}

/// Bins of the radiance histogram: quarter-octaves from 2⁻⁶⁴ to 2⁶⁴.
const HISTOGRAM_BINS: usize = 512;

/// The histogram bin of a largest-channel value.
fn histogram_bin(value: f32) -> usize {
    if value <= 0.0 {
        return 0;
    }
    let octaves = (value.log2() + 64.0) * 4.0;
    (octaves.max(0.0) as usize).min(HISTOGRAM_BINS - 1)
}

/// The upper edge of histogram bin `bin`.
fn bin_top(bin: usize) -> f32 {
    ((bin + 1) as f32 / 4.0 - 64.0).exp2()
}

/// The threshold: [`SKY_FACTOR`] times the median (to a quarter octave),
/// raised until at most [`MAX_SOURCES`] cells hold a texel above it.
fn threshold(environment: &Environment) -> f32 {
    let mut histogram = vec![0.0f64; HISTOGRAM_BINS];
    environment.for_each_radiance(|angle, radiance| {
        histogram[histogram_bin(largest(radiance))] += f64::from(angle);
    });
    let half = histogram.iter().sum::<f64>() / 2.0;
    let mut below = 0.0;
    let median_bin = histogram
        .iter()
        .position(|&angle| {
            below += angle;
            below >= half
        })
        .unwrap_or(0);
    let floor = SKY_FACTOR * bin_top(median_bin);
    let mut cell_peaks = vec![0.0f32; FACES * CELL_SIZE * CELL_SIZE];
    environment.for_each_texel_where(
        |radiance| largest(radiance) > floor,
        |direction, _, radiance| {
            let cell = &mut cell_peaks[cell_of(direction)];
            *cell = cell.max(largest(radiance));
        },
    );
    let mut peaks: Vec<f32> = cell_peaks.into_iter().filter(|&p| p > floor).collect();
    if peaks.len() <= MAX_SOURCES {
        return floor;
    }
    peaks.sort_by(|a, b| b.total_cmp(a));
    peaks[MAX_SOURCES]
}

/// The index of the cell (face, row, column) a unit direction falls in.
fn cell_of(direction: Vec3) -> usize {
    let (face, s, t) = face_of(direction);
    let (x, y) = texel_of(s, t, CELL_SIZE);
    (face * CELL_SIZE + y) * CELL_SIZE + x
}

/// The energy of one cell, summed in `f64`.
#[derive(Debug, Clone, Copy, Default)]
struct CellSum {
    /// Energy above the threshold, per channel.
    energy: [f64; 3],
    /// Σ direction × largest-channel energy: the centroid, unnormalised.
    moment: [f64; 3],
}

/// The point sources above `threshold`, one per occupied cell, in cell
/// order (at most about [`MAX_SOURCES`] cells are occupied, so they are kept
/// in a map rather than one slot per cell).
fn gather(environment: &Environment, threshold: f32) -> Vec<PointSource> {
    let mut cells: BTreeMap<usize, CellSum> = BTreeMap::new();
    environment.for_each_texel_where(
        |radiance| largest(radiance) > threshold,
        |direction, angle, radiance| {
            let sky = scaled_to(radiance, threshold);
            let cell = cells.entry(cell_of(direction)).or_default();
            let weight = f64::from(largest(radiance) - threshold) * f64::from(angle);
            for c in 0..3 {
                cell.energy[c] += f64::from(radiance[c] - sky[c]) * f64::from(angle);
                cell.moment[c] += f64::from(direction[c]) * weight;
            }
        },
    );
    cells
        .into_values()
        .map(|cell| PointSource {
            direction: normalize(cell.moment.map(|c| c as f32)),
            energy: cell.energy.map(|c| c as f32),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::cube::dot;
    use super::super::panorama::Panorama;
    use super::*;

    /// A sky of radiance 1 with a disc of `radius` radians around `sun` at
    /// `brightness`.
    fn sunny(width: usize, sun: Vec3, radius: f32, brightness: f32) -> Environment {
        let cos_radius = radius.cos();
        Panorama::from_fn(width, width / 2, |d| {
            if dot(d, sun) >= cos_radius {
                [brightness; 3]
            } else {
                [1.0; 3]
            }
        })
        .into()
    }

    #[test]
    fn a_sun_becomes_a_few_sources_holding_its_energy_above_the_sky() {
        let sun = normalize([0.3, 0.6, -0.7]);
        let environment = sunny(1024, sun, 0.7f32.to_radians(), 50_000.0);
        let bright = extract(&environment);
        assert_eq!(bright.threshold, SKY_FACTOR * bin_top(histogram_bin(1.0)));
        assert!(!bright.sources.is_empty() && bright.sources.len() < 64);
        // The sources hold the disc's energy above the threshold, at its
        // centre.
        let mut expected = 0.0f64;
        environment.for_each_texel(|_, angle, radiance| {
            expected += f64::from((radiance[0] - bright.threshold).max(0.0) * angle);
        });
        let energy: f64 = bright.sources.iter().map(|s| f64::from(s.energy[0])).sum();
        assert!(
            (energy - expected).abs() < 1e-4 * expected,
            "{energy} {expected}"
        );
        let mut centre = [0.0; 3];
        for source in &bright.sources {
            for (sum, component) in centre.iter_mut().zip(source.direction) {
                *sum += component * source.energy[0];
            }
        }
        assert!(dot(normalize(centre), sun) > 0.99999, "{centre:?}");
    }

    #[test]
    fn a_sky_without_a_bright_spot_has_no_sources() {
        let environment: Environment =
            Panorama::from_fn(256, 128, |d| [1.0 + d[1].max(0.0) * 4.0; 3]).into();
        assert!(extract(&environment).sources.is_empty());
    }

    #[test]
    fn a_large_bright_area_is_capped_at_the_source_limit() {
        // A third of the sphere near 1000, the rest at 1: the median is 1,
        // and the bright part covers far more cells than the limit.
        let environment: Environment = Panorama::from_fn(2048, 1024, |d| {
            if d[1] > 0.3 {
                [1000.0 + d[0] * 100.0; 3]
            } else {
                [1.0; 3]
            }
        })
        .into();
        let bright = extract(&environment);
        assert!(
            bright.sources.len() <= MAX_SOURCES,
            "{}",
            bright.sources.len()
        );
        assert!(bright.threshold > 1000.0, "{}", bright.threshold);
    }
}
