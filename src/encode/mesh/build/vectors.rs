//! The little 3D vector arithmetic the builder needs, on `[f32; 3]`.
//!
//! Products that could overflow `f32` for large but finite coordinates are
//! taken in `f64`.

/// The normal used when a surface has no direction (zero-area faces, zero
/// normals): +Z.
pub(super) const FALLBACK_NORMAL: [f32; 3] = [0.0, 0.0, 1.0];

/// `a · b`.
pub(super) fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `v` scaled to unit length, or `None` when it has no usable direction
/// (zero, subnormal-tiny or not finite).
pub(super) fn normalized(v: [f32; 3]) -> Option<[f32; 3]> {
    let [x, y, z] = v.map(f64::from);
    let length = (x * x + y * y + z * z).sqrt();
    if !(length.is_finite() && length > f64::from(f32::MIN_POSITIVE)) {
        return None;
    }
    let unit = [x / length, y / length, z / length].map(|c| c as f32);
    unit.iter().all(|c| c.is_finite()).then_some(unit)
}

/// The unit normal of the counter-clockwise triangle `a b c`, or
/// [`FALLBACK_NORMAL`] when the triangle has no area.
pub(super) fn face_normal(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> [f32; 3] {
    let [ax, ay, az] = a.map(f64::from);
    let u = [
        f64::from(b[0]) - ax,
        f64::from(b[1]) - ay,
        f64::from(b[2]) - az,
    ];
    let v = [
        f64::from(c[0]) - ax,
        f64::from(c[1]) - ay,
        f64::from(c[2]) - az,
    ];
    let cross = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let length = (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]).sqrt();
    if !(length.is_finite() && length > 0.0) {
        return FALLBACK_NORMAL;
    }
    let unit = cross.map(|c| (c / length) as f32);
    normalized(unit).unwrap_or(FALLBACK_NORMAL)
}

/// A unit vector perpendicular to the unit vector `normal`, chosen the same
/// way every time: the X axis (or the Y axis when `normal` is close to X) with
/// its component along `normal` removed.
pub(super) fn perpendicular(normal: [f32; 3]) -> [f32; 3] {
    let axis = if normal[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let along = dot(axis, normal);
    let projected = [
        axis[0] - along * normal[0],
        axis[1] - along * normal[1],
        axis[2] - along * normal[2],
    ];
    // Cannot fail for a unit normal: the axis is at least ~25° away from it.
    normalized(projected).unwrap_or([1.0, 0.0, 0.0])
}

/// The same value with negative zero made positive, so that vertices that
/// differ only in the sign of a zero compare equal byte for byte.
pub(super) fn positive_zero(value: f32) -> f32 {
    value + 0.0
}
