//! Equirectangular (latitude-longitude) panoramas: the linear HDR image an
//! environment arrives as, and its projection onto a cube.
//!
//! A panorama is twice as wide as it is high. Row 0 looks straight up (+Y)
//! and the last row straight down; the middle column looks along −Z, and
//! longitude grows towards +X, so the column a quarter of the width right of
//! the middle looks along +X. For a unit direction `(x, y, z)`:
//!
//! ```text
//! u = ½ + atan2(x, −z) / 2π      (0..1 across the width)
//! v = acos(y) / π                (0..1 down the height)
//! ```
//!
//! This is how panorama viewers show the image from inside the sphere
//! (nothing is mirrored), and the same convention as the Khronos
//! glTF-IBL-Sampler with its −Z forward.

use std::f32::consts::PI;

use super::cube::{CubeLevel, FACES, Face, Vec3, bilinear_blend, face_vector, normalize};

/// A linear-light RGB panorama.
#[derive(Debug, Clone, PartialEq)]
pub struct Panorama {
    /// Texels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// The texels, `width * height` of them, row 0 (the zenith) first.
    pub texels: Vec<Vec3>,
}

impl Panorama {
    /// A panorama of `width × height` texels, each computed by `texel(direction)`
    /// from the direction through its centre.
    pub fn from_fn(width: usize, height: usize, mut texel: impl FnMut(Vec3) -> Vec3) -> Self {
        Self::from_xy(width, height, |x, y| {
            texel(texel_direction(x, y, width, height))
        })
    }

    /// A panorama of `width × height` texels, each computed by
    /// `texel(x, y)` from its column and row.
    pub fn from_xy(
        width: usize,
        height: usize,
        mut texel: impl FnMut(usize, usize) -> Vec3,
    ) -> Self {
        let texels = (0..width * height)
            .map(|i| texel(i % width, i / width))
            .collect();
        Self {
            width,
            height,
            texels,
        }
    }

    /// The texel at column `x`, row `y`.
    pub fn at(&self, x: usize, y: usize) -> Vec3 {
        self.texels[y * self.width + x]
    }

    /// The radiance along a unit `direction`, bilinearly interpolated
    /// (wrapping around in longitude, clamped at the poles).
    pub fn sample(&self, direction: Vec3) -> Vec3 {
        self.sample_mapped(direction, &|texel| texel)
    }

    /// [`Self::sample`] with each texel passed through `texel` before the
    /// blend.
    fn sample_mapped(&self, direction: Vec3, texel: &impl Fn(Vec3) -> Vec3) -> Vec3 {
        let (u, v) = direction_to_uv(direction);
        let fx = u * self.width as f32 - 0.5;
        let fy = (v * self.height as f32 - 0.5).clamp(0.0, (self.height - 1) as f32);
        let x0 = fx.floor();
        let wx = fx - x0;
        let wrap = |x: f32| (x as i64).rem_euclid(self.width as i64) as usize;
        let (x0, x1) = (wrap(x0), wrap(x0 + 1.0));
        let y0 = fy as usize;
        let y1 = (y0 + 1).min(self.height - 1);
        let wy = fy - y0 as f32;
        bilinear_blend([x0, x1], [y0, y1], wx, wy, |x, y| texel(self.at(x, y)))
    }

    /// The solid angle (steradians) of a texel of row `y`.
    pub fn row_solid_angle(&self, y: usize) -> f32 {
        let step = PI / self.height as f32;
        let (top, bottom) = (y as f32 * step, (y + 1) as f32 * step);
        2.0 * PI / self.width as f32 * (top.cos() - bottom.cos())
    }

    /// The (sine, cosine) of the longitude of every column's centre: with
    /// [`Self::row_ring`], the texel directions without a sine per texel.
    pub fn column_directions(&self) -> Vec<(f32, f32)> {
        (0..self.width)
            .map(|x| {
                let u = (x as f32 + 0.5) / self.width as f32;
                ((u - 0.5) * 2.0 * PI).sin_cos()
            })
            .collect()
    }

    /// The radius of row `y`'s ring and its height (the `y` of its
    /// directions): the direction of column `x` is
    /// `(ring·sin, height, −ring·cos)` of that column's longitude.
    pub fn row_ring(&self, y: usize) -> (f32, f32) {
        let polar = (y as f32 + 0.5) / self.height as f32 * PI;
        (polar.sin(), polar.cos())
    }

    /// The base level of the cube of this panorama, `size × size` per face.
    /// Each cube texel averages `k × k` bilinear samples spread over its
    /// footprint, `k` being the panorama texels one cube texel spans
    /// (1 to 16), so a large panorama is filtered rather than aliased.
    pub fn to_cube(&self, size: usize) -> CubeLevel {
        self.to_cube_mapped(size, |texel| texel)
    }

    /// [`Self::to_cube`] with every panorama texel passed through `texel`
    /// before it is interpolated.
    pub fn to_cube_mapped(&self, size: usize, texel: impl Fn(Vec3) -> Vec3 + Sync) -> CubeLevel {
        let span = (self.width as f32 / (4.0 * size as f32)).ceil();
        let taps = (span as usize).clamp(1, 16);
        let faces: Vec<usize> = (0..FACES).collect();
        crate::jobserver::map(&faces, |&face| {
            Face::supersampled(size, taps, |s, t| {
                self.sample_mapped(normalize(face_vector(face, s, t)), &texel)
            })
        })
    }
}

impl Panorama {
    /// The panorama as a Radiance HDR file (the `image` crate's encoder);
    /// the tests and `tools/ibl_bench.rs` make their sources with it.
    pub fn to_radiance_hdr(&self) -> Vec<u8> {
        let pixels: Vec<image::Rgb<f32>> = self.texels.iter().map(|t| image::Rgb(*t)).collect();
        let mut out = Vec::new();
        // Writing to memory fails only for sizes the encoder cannot
        // express; the result is then empty, which no decoder accepts.
        let written =
            image::codecs::hdr::HdrEncoder::new(&mut out).encode(&pixels, self.width, self.height);
        if written.is_err() {
            out.clear();
        }
        out
    }
}

/// The panorama coordinates (`u`, `v`, each 0..1) of a unit direction.
pub fn direction_to_uv(direction: Vec3) -> (f32, f32) {
    let [x, y, z] = direction;
    let u = 0.5 + x.atan2(-z) / (2.0 * PI);
    let v = y.clamp(-1.0, 1.0).acos() / PI;
    (u, v)
}

/// The unit direction through the centre of texel (`x`, `y`) of a
/// `width × height` panorama.
pub fn texel_direction(x: usize, y: usize, width: usize, height: usize) -> Vec3 {
    let u = (x as f32 + 0.5) / width as f32;
    let v = (y as f32 + 0.5) / height as f32;
    let longitude = (u - 0.5) * 2.0 * PI;
    let polar = v * PI;
    let ring = polar.sin();
    [ring * longitude.sin(), polar.cos(), -ring * longitude.cos()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_and_coordinates_round_trip() {
        let (width, height) = (64, 32);
        for (x, y) in [(0, 0), (16, 8), (32, 16), (48, 20), (63, 31)] {
            let (u, v) = direction_to_uv(texel_direction(x, y, width, height));
            let back = ((u * width as f32) as usize, (v * height as f32) as usize);
            assert_eq!(back, (x, y));
        }
        // The middle column looks along −Z, a quarter further along +X.
        let forward = texel_direction(32, 16, 64, 33);
        assert!(forward[2] < -0.99, "{forward:?}");
        let right = texel_direction(48, 16, 64, 33);
        assert!(right[0] > 0.99, "{right:?}");
        assert!(texel_direction(5, 0, 64, 32)[1] > 0.99);
    }

    #[test]
    fn row_solid_angles_cover_the_sphere() {
        let panorama = Panorama::from_fn(64, 32, |_| [0.0; 3]);
        let total: f32 = (0..32).map(|y| panorama.row_solid_angle(y) * 64.0).sum();
        assert!((total - 4.0 * PI).abs() < 1e-4, "{total}");
    }

    #[test]
    fn a_smooth_panorama_projects_onto_the_cube_closely() {
        let field = |d: Vec3| [1.0 + d[0], 2.0 + d[1] * d[2], 1.5 - 0.5 * d[2]];
        let panorama = Panorama::from_fn(256, 128, field);
        let cube = panorama.to_cube(16);
        for (face, level) in cube.iter().enumerate() {
            for (index, texel) in level.texels.iter().enumerate() {
                let d = super::super::cube::texel_direction(face, index % 16, index / 16, 16);
                let expected = field(d);
                for c in 0..3 {
                    assert!(
                        (texel[c] - expected[c]).abs() < 0.02,
                        "{texel:?} {expected:?}"
                    );
                }
            }
        }
    }
}
