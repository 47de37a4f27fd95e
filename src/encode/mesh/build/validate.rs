//! Checks a primitive before any of it is used, so later stages can index its
//! arrays freely and never hand meshoptimizer an index it would assert on.

use super::BuildError;
use crate::encode::mesh::scene::Primitive;

/// Checks the index list, the attribute array lengths and that every float
/// attribute is finite.
pub(super) fn validate_primitive(primitive: &Primitive) -> Result<(), BuildError> {
    check_indices(primitive)?;
    check_lengths(primitive)?;
    check_finite(primitive)
}

/// At least one triangle, a whole number of them, and every index in range.
fn check_indices(primitive: &Primitive) -> Result<(), BuildError> {
    let label = || primitive.label.clone();
    let count = primitive.indices.len();
    if count == 0 {
        return Err(BuildError::NoTriangles { label: label() });
    }
    if !count.is_multiple_of(3) {
        return Err(BuildError::IndexCountNotTriangles {
            label: label(),
            count,
        });
    }
    let vertex_count = primitive.positions.len();
    let out_of_range = primitive
        .indices
        .iter()
        .enumerate()
        .find(|(_, index)| usize::try_from(**index).map_or(true, |i| i >= vertex_count));
    if let Some((position, index)) = out_of_range {
        return Err(BuildError::IndexOutOfRange {
            label: label(),
            position,
            index: *index,
            vertex_count,
        });
    }
    Ok(())
}

/// Every optional attribute has one entry per position.
fn check_lengths(primitive: &Primitive) -> Result<(), BuildError> {
    let vertex_count = primitive.positions.len();
    let lengths = [
        ("normals", primitive.normals.as_ref().map(Vec::len)),
        ("tangents", primitive.tangents.as_ref().map(Vec::len)),
        ("uvs", primitive.uvs.as_ref().map(Vec::len)),
        ("skin", primitive.skin.as_ref().map(Vec::len)),
    ];
    for (attribute, len) in lengths {
        if let Some(len) = len.filter(|len| *len != vertex_count) {
            return Err(BuildError::AttributeLength {
                label: primitive.label.clone(),
                attribute,
                len,
                vertex_count,
            });
        }
    }
    Ok(())
}

/// No NaN or infinity in positions, normals, tangents or UVs (joint weights
/// are checked where they are normalised).
fn check_finite(primitive: &Primitive) -> Result<(), BuildError> {
    first_non_finite(primitive, "position", &primitive.positions)?;
    if let Some(normals) = &primitive.normals {
        first_non_finite(primitive, "normal", normals)?;
    }
    if let Some(tangents) = &primitive.tangents {
        first_non_finite(primitive, "tangent", tangents)?;
    }
    if let Some(uvs) = &primitive.uvs {
        first_non_finite(primitive, "uv", uvs)?;
    }
    Ok(())
}

/// Fails on the first vertex of `values` with a component that is not finite.
fn first_non_finite<const N: usize>(
    primitive: &Primitive,
    attribute: &'static str,
    values: &[[f32; N]],
) -> Result<(), BuildError> {
    let non_finite = values
        .iter()
        .enumerate()
        .find(|(_, value)| value.iter().any(|c| !c.is_finite()));
    match non_finite {
        Some((vertex, value)) => Err(BuildError::NonFinite {
            label: primitive.label.clone(),
            attribute,
            vertex,
            value: format!("{value:?}"),
        }),
        None => Ok(()),
    }
}
