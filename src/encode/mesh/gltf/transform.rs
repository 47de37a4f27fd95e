//! Node transforms in double precision, and baking a world transform into a
//! primitive's vertices.

use ::gltf::json;

use super::GltfError;
use crate::encode::mesh::scene::Primitive;

/// A 4x4 matrix, column-major like glTF's `node.matrix`: `m[column * 4 + row]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Mat4(pub [f64; 16]);

/// A 3x3 matrix as three columns.
type Mat3 = [[f64; 3]; 3];

impl Mat4 {
    /// The identity.
    pub(super) const IDENTITY: Mat4 = Mat4([
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 1.0, 0.0, //
        0.0, 0.0, 0.0, 1.0,
    ]);

    /// A node's local transform: its `matrix`, else `T * R * S`.
    pub(super) fn of_node(node: &json::scene::Node) -> Mat4 {
        if let Some(m) = node.matrix {
            return Mat4(m.map(f64::from));
        }
        let t = node.translation.unwrap_or([0.0; 3]);
        let r = node.rotation.as_ref().map_or([0.0, 0.0, 0.0, 1.0], |q| q.0);
        let s = node.scale.unwrap_or([1.0; 3]);
        Mat4::from_trs(t, r, s)
    }

    /// `T * R * S` from a translation, a quaternion `x, y, z, w` (normalised
    /// here; a zero quaternion counts as identity) and a scale.
    pub(super) fn from_trs(t: [f32; 3], r: [f32; 4], s: [f32; 3]) -> Mat4 {
        let [x, y, z, w] = unit_quaternion(r.map(f64::from));
        let [sx, sy, sz] = s.map(f64::from);
        let [tx, ty, tz] = t.map(f64::from);
        Mat4([
            (1.0 - 2.0 * (y * y + z * z)) * sx,
            2.0 * (x * y + w * z) * sx,
            2.0 * (x * z - w * y) * sx,
            0.0,
            2.0 * (x * y - w * z) * sy,
            (1.0 - 2.0 * (x * x + z * z)) * sy,
            2.0 * (y * z + w * x) * sy,
            0.0,
            2.0 * (x * z + w * y) * sz,
            2.0 * (y * z - w * x) * sz,
            (1.0 - 2.0 * (x * x + y * y)) * sz,
            0.0,
            tx,
            ty,
            tz,
            1.0,
        ])
    }

    /// `self * rhs`: each output column is `self` applied to that column of
    /// `rhs`; row `r` of `self` is every fourth element from `r`.
    pub(super) fn mul(&self, rhs: &Mat4) -> Mat4 {
        let mut out = [0.0; 16];
        for (out_column, rhs_column) in out.chunks_exact_mut(4).zip(rhs.0.chunks_exact(4)) {
            for (row, cell) in out_column.iter_mut().enumerate() {
                let self_row = self.0.iter().skip(row).step_by(4);
                *cell = self_row.zip(rhs_column).map(|(a, b)| a * b).sum();
            }
        }
        Mat4(out)
    }

    /// Whether every element is finite.
    pub(super) fn is_finite(&self) -> bool {
        self.0.iter().all(|v| v.is_finite())
    }

    /// The upper-left 3x3 block, as columns.
    fn linear(&self) -> Mat3 {
        let m = &self.0;
        [[m[0], m[1], m[2]], [m[4], m[5], m[6]], [m[8], m[9], m[10]]]
    }

    /// The determinant of the upper-left 3x3 block; negative when the
    /// transform mirrors.
    pub(super) fn determinant(&self) -> f64 {
        let [a, b, c] = self.linear();
        dot(a, cross(b, c))
    }

    /// Transforms a point.
    fn point(&self, p: [f32; 3]) -> [f64; 3] {
        let m = &self.0;
        let [x, y, z] = p.map(f64::from);
        [
            m[0] * x + m[4] * y + m[8] * z + m[12],
            m[1] * x + m[5] * y + m[9] * z + m[13],
            m[2] * x + m[6] * y + m[10] * z + m[14],
        ]
    }
}

/// `q` scaled to unit length; identity when it has none.
pub(super) fn unit_quaternion(q: [f64; 4]) -> [f64; 4] {
    let len = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    if len > 0.0 && len.is_finite() {
        q.map(|v| v / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// `m * v` for a 3x3 matrix given by columns.
fn apply(m: &Mat3, v: [f64; 3]) -> [f64; 3] {
    [
        m[0][0] * v[0] + m[1][0] * v[1] + m[2][0] * v[2],
        m[0][1] * v[0] + m[1][1] * v[1] + m[2][1] * v[2],
        m[0][2] * v[0] + m[1][2] * v[1] + m[2][2] * v[2],
    ]
}

/// The cross product.
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The dot product.
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `v` scaled to unit length, or unchanged when it has none.
fn unit(v: [f64; 3]) -> [f64; 3] {
    let len = dot(v, v).sqrt();
    if len > 0.0 { v.map(|c| c / len) } else { v }
}

/// The inverse transpose of a 3x3 matrix with determinant `det` (non-zero):
/// its cofactor matrix divided by `det`. Column `i` of the cofactor matrix is
/// the cross product of the other two columns.
fn inverse_transpose(m: &Mat3, det: f64) -> Mat3 {
    let [a, b, c] = *m;
    [cross(b, c), cross(c, a), cross(a, b)].map(|column| column.map(|v| v / det))
}

/// Bakes `world` (finite, with a non-zero determinant) into `primitive`:
/// positions by the matrix, normals by its inverse transpose, tangents by
/// its linear part (both renormalised; tangent handedness flipped when the
/// matrix mirrors), and every triangle's winding reversed when it mirrors.
/// Fails when a baked position is not finite.
pub(super) fn bake(primitive: &mut Primitive, world: &Mat4) -> Result<(), GltfError> {
    let det = world.determinant();
    for (i, p) in primitive.positions.iter_mut().enumerate() {
        let moved = world.point(*p).map(|v| v as f32);
        if !moved.iter().all(|v| v.is_finite()) {
            return Err(GltfError::at(
                &primitive.label,
                format!("vertex {i} is not finite once the node transform is applied"),
            ));
        }
        *p = moved;
    }
    let linear = world.linear();
    if let Some(normals) = &mut primitive.normals {
        let normal_matrix = inverse_transpose(&linear, det);
        for n in normals.iter_mut() {
            *n = unit(apply(&normal_matrix, n.map(f64::from))).map(|v| v as f32);
        }
    }
    let handedness = if det < 0.0 { -1.0 } else { 1.0 };
    if let Some(tangents) = &mut primitive.tangents {
        for t in tangents.iter_mut() {
            let [x, y, z] =
                unit(apply(&linear, [t[0], t[1], t[2]].map(f64::from))).map(|v| v as f32);
            *t = [x, y, z, t[3] * handedness];
        }
    }
    if det < 0.0 {
        for triangle in primitive.indices.chunks_exact_mut(3) {
            triangle.swap(1, 2);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trs_composes_translation_rotation_scale() {
        // 90 degrees about +Z, scale 2, then move by (1, 2, 3).
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let m = Mat4::from_trs([1.0, 2.0, 3.0], [0.0, 0.0, half, half], [2.0; 3]);
        let p = m.point([1.0, 0.0, 0.0]);
        let expected = [1.0, 4.0, 3.0];
        for (got, want) in p.iter().zip(expected) {
            assert!((got - want).abs() < 1e-6, "{p:?}");
        }
        assert!((m.determinant() - 8.0).abs() < 1e-6);
    }

    #[test]
    fn products_apply_the_right_factor_first() {
        let scale = Mat4::from_trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [2.0; 3]);
        let shift = Mat4::from_trs([1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        // Scale after shifting: (1, 0, 0) -> (2, 0, 0) -> (4, 0, 0).
        assert_eq!(scale.mul(&shift).point([1.0, 0.0, 0.0]), [4.0, 0.0, 0.0]);
        assert_eq!(shift.mul(&scale).point([1.0, 0.0, 0.0]), [3.0, 0.0, 0.0]);
        assert_eq!(Mat4::IDENTITY.mul(&scale), scale);
    }

    #[test]
    fn mirroring_flips_winding_normals_stay_outward() {
        let mut primitive = Primitive {
            label: "p".into(),
            positions: vec![[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0]],
            normals: Some(vec![[1.0, 0.0, 0.0]; 3]),
            tangents: Some(vec![[0.0, 1.0, 0.0, 1.0]; 3]),
            indices: vec![0, 1, 2],
            ..Primitive::default()
        };
        let mirror = Mat4::from_trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [-1.0, 1.0, 1.0]);
        bake(&mut primitive, &mirror).unwrap();
        assert_eq!(primitive.indices, vec![0, 2, 1]);
        assert_eq!(primitive.normals.as_ref().unwrap()[0], [-1.0, 0.0, 0.0]);
        assert_eq!(
            primitive.tangents.as_ref().unwrap()[0],
            [0.0, 1.0, 0.0, -1.0]
        );
        assert_eq!(primitive.positions[0], [-1.0, 0.0, 0.0]);
    }
}
