//! Cube map geometry: which direction each face texel looks along, which
//! face texel a direction lands on, and how much solid angle a texel covers.
//!
//! Faces are numbered and oriented as Vulkan (and so KTX2) samples them:
//! +X, −X, +Y, −Y, +Z, −Z. For face `f` and a texel at column `x`, row `y`
//! of an `n × n` face (row 0 is the first row in memory), take the texel
//! centre's coordinates `s = 2(x + ½)/n − 1` and `t = 2(y + ½)/n − 1`, both in
//! (−1, 1); the texel looks along the normalised vector
//!
//! | face | direction        |
//! |------|------------------|
//! | +X   | ( 1, −t, −s)     |
//! | −X   | (−1, −t,  s)     |
//! | +Y   | ( s,  1,  t)     |
//! | −Y   | ( s, −1, −t)     |
//! | +Z   | ( s, −t,  1)     |
//! | −Z   | (−s, −t, −1)     |
//!
//! which is the inverse of the face-selection table of the Vulkan
//! specification ("Cube Map Face Selection"), so an engine sampling the cube
//! with a world direction reads the texel computed for that direction.

/// Number of faces of a cube map.
pub const FACES: usize = 6;

/// A direction or colour triple.
pub type Vec3 = [f32; 3];

/// The dot product.
pub fn dot(a: Vec3, b: Vec3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `v` scaled to unit length (the zero vector stays zero).
pub fn normalize(v: Vec3) -> Vec3 {
    let length = dot(v, v).sqrt();
    if length > 0.0 {
        [v[0] / length, v[1] / length, v[2] / length]
    } else {
        v
    }
}

/// The cross product.
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The unnormalised direction of face `face` at face coordinates `s`, `t`
/// (each in −1..1; see the module table).
pub fn face_vector(face: usize, s: f32, t: f32) -> Vec3 {
    match face {
        0 => [1.0, -t, -s],
        1 => [-1.0, -t, s],
        2 => [s, 1.0, t],
        3 => [s, -1.0, -t],
        4 => [s, -t, 1.0],
        _ => [-s, -t, -1.0],
    }
}

/// The unit direction through the centre of texel (`x`, `y`) of face `face`
/// of an `size × size` face.
pub fn texel_direction(face: usize, x: usize, y: usize, size: usize) -> Vec3 {
    let coordinate = |i: usize| 2.0 * (i as f32 + 0.5) / size as f32 - 1.0;
    normalize(face_vector(face, coordinate(x), coordinate(y)))
}

/// The face a direction lands on and its face coordinates `s`, `t` (each in
/// −1..1): the inverse of [`face_vector`].
pub fn face_of(direction: Vec3) -> (usize, f32, f32) {
    let [x, y, z] = direction;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if ax >= ay && ax >= az {
        if x > 0.0 {
            (0, -z / ax, -y / ax)
        } else {
            (1, z / ax, -y / ax)
        }
    } else if ay >= az {
        if y > 0.0 {
            (2, x / ay, z / ay)
        } else {
            (3, x / ay, -z / ay)
        }
    } else if z > 0.0 {
        (4, x / az, -y / az)
    } else {
        (5, -x / az, -y / az)
    }
}

/// The texel (`x`, `y`) of an `size × size` face that face coordinates `s`,
/// `t` fall in.
pub fn texel_of(s: f32, t: f32, size: usize) -> (usize, usize) {
    let index = |c: f32| (((c + 1.0) * 0.5 * size as f32) as usize).min(size - 1);
    (index(s), index(t))
}

/// The solid angle (steradians) of texel (`x`, `y`) of an `size × size`
/// face: the exact area of its projection onto the unit sphere.
pub fn texel_solid_angle(x: usize, y: usize, size: usize) -> f32 {
    let step = 2.0 / size as f64;
    let (x0, y0) = (x as f64 * step - 1.0, y as f64 * step - 1.0);
    let (x1, y1) = (x0 + step, y0 + step);
    let corner = |a: f64, b: f64| (a * b).atan2((a * a + b * b + 1.0).sqrt());
    (corner(x0, y0) - corner(x0, y1) - corner(x1, y0) + corner(x1, y1)) as f32
}

/// One square face level: `size × size` RGB texels, row by row.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    /// Texels per side.
    pub size: usize,
    /// The texels, `size * size` of them, row 0 first.
    pub texels: Vec<Vec3>,
}

impl Face {
    /// A face of `size × size` texels, each computed by `texel(x, y)`.
    pub fn from_fn(size: usize, mut texel: impl FnMut(usize, usize) -> Vec3) -> Self {
        let mut texels = Vec::with_capacity(size * size);
        for y in 0..size {
            for x in 0..size {
                texels.push(texel(x, y));
            }
        }
        Self { size, texels }
    }

    /// A face of `size × size` texels, each the mean of `taps × taps`
    /// samples spread evenly over its footprint, read by `sample(s, t)` at
    /// face coordinates (−1..1): how a source finer than the face is
    /// filtered rather than aliased.
    pub fn supersampled(size: usize, taps: usize, sample: impl Fn(f32, f32) -> Vec3) -> Self {
        let step = 2.0 / size as f32;
        Self::from_fn(size, |x, y| {
            let mut sum = [0.0; 3];
            for j in 0..taps {
                for i in 0..taps {
                    let s = -1.0 + step * (x as f32 + (i as f32 + 0.5) / taps as f32);
                    let t = -1.0 + step * (y as f32 + (j as f32 + 0.5) / taps as f32);
                    for (total, value) in sum.iter_mut().zip(sample(s, t)) {
                        *total += value;
                    }
                }
            }
            sum.map(|total| total / (taps * taps) as f32)
        })
    }

    /// The texel at (`x`, `y`).
    pub fn at(&self, x: usize, y: usize) -> Vec3 {
        self.texels[y * self.size + x]
    }

    /// The face at half the size, each texel the mean of the 2×2 it covers
    /// (a 1×1 face is returned as is).
    pub fn halved(&self) -> Self {
        if self.size == 1 {
            return self.clone();
        }
        let half = self.size / 2;
        Self::from_fn(half, |x, y| {
            let quad = [
                self.at(2 * x, 2 * y),
                self.at(2 * x + 1, 2 * y),
                self.at(2 * x, 2 * y + 1),
                self.at(2 * x + 1, 2 * y + 1),
            ];
            let mut sum = [0.0; 3];
            for texel in quad {
                for (total, value) in sum.iter_mut().zip(texel) {
                    *total += value * 0.25;
                }
            }
            sum
        })
    }

    /// The face coordinates (`s`, `t` in −1..1) bilinearly interpolated,
    /// clamped at the face's edges.
    pub fn bilinear(&self, s: f32, t: f32) -> Vec3 {
        let size = self.size as f32;
        let fx = ((s + 1.0) * 0.5 * size - 0.5).clamp(0.0, size - 1.0);
        let fy = ((t + 1.0) * 0.5 * size - 0.5).clamp(0.0, size - 1.0);
        let (x0, y0) = (fx as usize, fy as usize);
        let (x1, y1) = ((x0 + 1).min(self.size - 1), (y0 + 1).min(self.size - 1));
        let (wx, wy) = (fx - x0 as f32, fy - y0 as f32);
        bilinear_blend([x0, x1], [y0, y1], wx, wy, |x, y| self.at(x, y))
    }
}

/// The bilinear blend of the four texels at columns `xs`, rows `ys`, read
/// by `texel`, with weights `wx` towards `xs[1]` and `wy` towards `ys[1]`.
pub fn bilinear_blend(
    xs: [usize; 2],
    ys: [usize; 2],
    wx: f32,
    wy: f32,
    texel: impl Fn(usize, usize) -> Vec3,
) -> Vec3 {
    // Indices rather than iterator adapters, here and in the other per-sample
    // helpers of the convolutions: the same operations in the same order, so
    // the same bytes, but the unoptimised build the tests run spent most of an
    // IBL edge inside the adapters.
    let (row_weights, column_weights) = ([1.0 - wy, wy], [1.0 - wx, wx]);
    let mut out = [0.0; 3];
    for row in 0..2 {
        for column in 0..2 {
            let weight = row_weights[row] * column_weights[column];
            let value = texel(xs[column], ys[row]);
            out[0] += value[0] * weight;
            out[1] += value[1] * weight;
            out[2] += value[2] * weight;
        }
    }
    out
}

/// Six faces of one size, in the order +X, −X, +Y, −Y, +Z, −Z.
pub type CubeLevel = Vec<Face>;

/// A cube level of `size × size` faces, each texel computed by
/// `texel(direction)` from its centre's direction.
pub fn cube_from_fn(size: usize, mut texel: impl FnMut(Vec3) -> Vec3) -> CubeLevel {
    (0..FACES)
        .map(|face| Face::from_fn(size, |x, y| texel(texel_direction(face, x, y, size))))
        .collect()
}

/// A cube level and its box-filtered mips, down to 1×1: the chain that
/// [`sample_chain`] reads with a level of detail.
pub fn mip_chain(base: CubeLevel) -> Vec<CubeLevel> {
    let mut chain = vec![base];
    while let Some(last) = chain.last().filter(|level| level[0].size > 1) {
        let next = last.iter().map(Face::halved).collect();
        chain.push(next);
    }
    chain
}

/// The radiance along `direction` from a mip chain at level of detail
/// `lod` (0 is the base level; fractions blend two levels linearly, and each
/// level is read bilinearly).
pub fn sample_chain(chain: &[CubeLevel], direction: Vec3, lod: f32) -> Vec3 {
    let (face, s, t) = face_of(direction);
    let top = (chain.len() - 1) as f32;
    let lod = lod.clamp(0.0, top);
    let lower = lod.floor() as usize;
    let blend = lod - lower as f32;
    let near = chain[lower][face].bilinear(s, t);
    if blend == 0.0 {
        return near;
    }
    let far = chain[lower + 1][face].bilinear(s, t);
    [
        near[0] + (far[0] - near[0]) * blend,
        near[1] + (far[1] - near[1]) * blend,
        near[2] + (far[2] - near[2]) * blend,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_texel_direction_finds_its_own_texel_again() {
        let size = 8;
        for face in 0..FACES {
            for y in 0..size {
                for x in 0..size {
                    let (found, s, t) = face_of(texel_direction(face, x, y, size));
                    assert_eq!((found, texel_of(s, t, size)), (face, (x, y)));
                }
            }
        }
    }

    #[test]
    fn known_directions_land_on_the_vulkan_face_texels() {
        let size = 4;
        // The axes hit the centres of their faces.
        let axes = [
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
        ];
        for (face, axis) in axes.into_iter().enumerate() {
            assert_eq!(face_of(axis), (face, 0.0, 0.0));
        }
        // Vulkan's table: on +X, sc = −z and tc = −y; a direction up (+y)
        // and towards −z is in the top-right texel of the face.
        let (face, s, t) = face_of(normalize([1.0, 0.9, -0.9]));
        assert_eq!((face, texel_of(s, t, size)), (0, (3, 0)));
        // On +Y, sc = x and tc = z: +x and +z is the bottom-right texel.
        let (face, s, t) = face_of(normalize([0.9, 1.0, 0.9]));
        assert_eq!((face, texel_of(s, t, size)), (2, (3, 3)));
        // On −Z, sc = −x and tc = −y: +x and up is the top-left texel.
        let (face, s, t) = face_of(normalize([0.9, 0.9, -1.0]));
        assert_eq!((face, texel_of(s, t, size)), (5, (0, 0)));
    }

    #[test]
    fn texel_solid_angles_cover_the_sphere() {
        let size = 16;
        let total: f64 = (0..size)
            .flat_map(|y| (0..size).map(move |x| texel_solid_angle(x, y, size) as f64))
            .sum::<f64>()
            * FACES as f64;
        assert!((total - 4.0 * std::f64::consts::PI).abs() < 1e-4, "{total}");
    }
}
