//! The environment an IBL set is made from, whatever shape it arrived in:
//! an equirectangular panorama ([`Panorama`]) or the six faces of a cube
//! map (a `*.env/` folder of HDR faces). Everything downstream sees it two
//! ways: as a cube of a chosen size ([`Environment::to_cube`]), and as the
//! full-resolution set of texels, each a direction, a solid angle and a
//! radiance ([`Environment::for_each_texel`]), which the spherical
//! harmonics, the bright-source extraction and the brute-force references
//! integrate over.

use super::cube::{CubeLevel, FACES, Face, Vec3, texel_direction, texel_solid_angle};
use super::panorama::Panorama;

/// A linear-light HDR environment.
#[derive(Debug, Clone, PartialEq)]
pub enum Environment {
    /// An equirectangular panorama.
    Panorama(Panorama),
    /// Six square faces of one size, +X … −Z, oriented as
    /// [`super::cube`] describes.
    Cube(CubeLevel),
}

impl From<Panorama> for Environment {
    fn from(panorama: Panorama) -> Self {
        Self::Panorama(panorama)
    }
}

impl Environment {
    /// The environment as a cube of `size × size` faces.
    pub fn to_cube(&self, size: usize) -> CubeLevel {
        match self {
            Self::Panorama(panorama) => panorama.to_cube(size),
            Self::Cube(faces) => resize_cube(faces, size),
        }
    }

    /// The environment as a cube of `size × size` faces, each source texel
    /// passed through `texel` first (the sky without its bright sources).
    pub fn to_cube_mapped(&self, size: usize, texel: impl Fn(Vec3) -> Vec3 + Sync) -> CubeLevel {
        match self {
            Self::Panorama(panorama) => panorama.to_cube_mapped(size, texel),
            Self::Cube(faces) => {
                let mapped = faces
                    .iter()
                    .map(|face| Face {
                        size: face.size,
                        texels: face.texels.iter().map(|&t| texel(t)).collect(),
                    })
                    .collect();
                resize_cube(&mapped, size)
            }
        }
    }

    /// Calls `visit(direction, solid angle, radiance)` for every texel, in
    /// storage order (row by row; face by face for a cube).
    pub fn for_each_texel(&self, visit: impl FnMut(Vec3, f32, Vec3)) {
        self.for_each_texel_where(|_| true, visit);
    }

    /// [`Self::for_each_texel`] for the texels whose radiance `keep`
    /// accepts; the others' directions are never computed.
    pub fn for_each_texel_where(
        &self,
        keep: impl Fn(Vec3) -> bool,
        mut visit: impl FnMut(Vec3, f32, Vec3),
    ) {
        match self {
            Self::Panorama(panorama) => {
                let columns = panorama.column_directions();
                for y in 0..panorama.height {
                    let angle = panorama.row_solid_angle(y);
                    let (ring, height) = panorama.row_ring(y);
                    for (x, &(sin, cos)) in columns.iter().enumerate() {
                        let radiance = panorama.at(x, y);
                        if keep(radiance) {
                            visit([ring * sin, height, -ring * cos], angle, radiance);
                        }
                    }
                }
            }
            Self::Cube(faces) => {
                for (face, level) in faces.iter().enumerate() {
                    let size = level.size;
                    for y in 0..size {
                        for x in 0..size {
                            let radiance = level.at(x, y);
                            if keep(radiance) {
                                let direction = texel_direction(face, x, y, size);
                                visit(direction, texel_solid_angle(x, y, size), radiance);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Calls `visit(solid angle, radiance)` for every texel, without
    /// directions.
    pub fn for_each_radiance(&self, mut visit: impl FnMut(f32, Vec3)) {
        match self {
            Self::Panorama(panorama) => {
                for y in 0..panorama.height {
                    let angle = panorama.row_solid_angle(y);
                    for x in 0..panorama.width {
                        visit(angle, panorama.at(x, y));
                    }
                }
            }
            Self::Cube(faces) => {
                for level in faces {
                    for y in 0..level.size {
                        for x in 0..level.size {
                            visit(texel_solid_angle(x, y, level.size), level.at(x, y));
                        }
                    }
                }
            }
        }
    }

    /// How many texels [`Self::for_each_texel`] visits.
    pub fn texel_count(&self) -> usize {
        match self {
            Self::Panorama(panorama) => panorama.width * panorama.height,
            Self::Cube(faces) => faces.iter().map(|face| face.texels.len()).sum(),
        }
    }
}

/// `faces` resampled to `size × size`: as they are when the sizes match,
/// the mean of each `k × k` block when the source is `k` times larger, and
/// otherwise `k × k` bilinear samples over each texel's footprint (`k` the
/// source texels one output texel spans, 1 to 16).
fn resize_cube(faces: &CubeLevel, size: usize) -> CubeLevel {
    let source = faces[0].size;
    if source == size {
        return faces.clone();
    }
    let face_indices: Vec<usize> = (0..FACES).collect();
    crate::jobserver::map(&face_indices, |&face| {
        let level = &faces[face];
        if source > size && source.is_multiple_of(size) {
            block_mean(level, source / size)
        } else {
            supersampled(level, size)
        }
    })
}

/// The face at `1/k` of its size, each texel the mean of a `k × k` block.
fn block_mean(level: &Face, k: usize) -> Face {
    let weight = 1.0 / (k * k) as f32;
    Face::from_fn(level.size / k, |x, y| {
        let mut sum = [0.0; 3];
        for j in 0..k {
            for i in 0..k {
                let texel = level.at(x * k + i, y * k + j);
                for (total, value) in sum.iter_mut().zip(texel) {
                    *total += value * weight;
                }
            }
        }
        sum
    })
}

/// The face resampled to `size × size` by bilinear samples spread over each
/// texel's footprint.
fn supersampled(level: &Face, size: usize) -> Face {
    let taps = level.size.div_ceil(size).clamp(1, 16);
    Face::supersampled(size, taps, |s, t| level.bilinear(s, t))
}

#[cfg(test)]
mod tests {
    use super::super::cube::cube_from_fn;
    use super::*;

    #[test]
    fn texels_cover_the_sphere_in_either_shape() {
        let panorama = Environment::from(Panorama::from_fn(64, 32, |_| [1.0; 3]));
        let cube = Environment::Cube(cube_from_fn(16, |_| [1.0; 3]));
        for environment in [panorama, cube] {
            let mut total = 0.0f64;
            let mut count = 0;
            environment.for_each_texel(|_, angle, _| {
                total += f64::from(angle);
                count += 1;
            });
            assert!((total - 4.0 * std::f64::consts::PI).abs() < 1e-3, "{total}");
            assert_eq!(count, environment.texel_count());
        }
    }

    #[test]
    fn a_cube_resizes_by_block_means_and_by_samples() {
        let field = |d: Vec3| [1.0 + d[0], 2.0 + d[1], 3.0 + d[2]];
        let cube = Environment::Cube(cube_from_fn(32, field));
        assert_eq!(cube.to_cube(32), cube_from_fn(32, field));
        for size in [8, 24, 64] {
            let resized = cube.to_cube(size);
            let wanted = cube_from_fn(size, field);
            for (face, expected) in resized.iter().zip(&wanted) {
                assert_eq!(face.size, size);
                for (texel, expected) in face.texels.iter().zip(&expected.texels) {
                    for c in 0..3 {
                        // Tolerance: the field bends over a texel by at most
                        // a few hundredths at these sizes.
                        assert!((texel[c] - expected[c]).abs() < 0.03, "{size}: {texel:?}");
                    }
                }
            }
        }
    }
}
