//! The knobs of the geometry build and the ranges meshoptimizer accepts.
//!
//! meshoptimizer checks its arguments with C `assert`s, which abort the whole
//! process in debug builds and are undefined behaviour in release builds, so
//! every limit it asserts is checked here first and reported as a
//! [`BuildError::InvalidOption`].

use super::BuildError;

/// Largest meshlet vertex limit meshoptimizer's clusterizer accepts (local
/// indices must also fit the `u8` of a [`MeshletTriangle`](crate::format::hmesh::MeshletTriangle)).
pub const MESHLET_MAX_VERTICES_LIMIT: u32 = 256;
/// Largest meshlet triangle limit meshoptimizer's clusterizer accepts.
pub const MESHLET_MAX_TRIANGLES_LIMIT: u32 = 512;

/// How meshlets and levels of detail are made.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildOptions {
    /// Whether meshlets are built; without them `MLET` and its companions
    /// are empty and every submesh has `meshletCount` 0.
    pub meshlets: bool,
    /// Most vertices in one meshlet, 3 to 256.
    pub meshlet_max_vertices: u32,
    /// Most triangles in one meshlet, 1 to 512.
    pub meshlet_max_triangles: u32,
    /// How much meshlet building favours tight normal cones over full
    /// meshlets, 0 to 1 (0 ignores cones).
    pub cone_weight: f32,
    /// One entry per reduced level: the fraction of the full triangle count to
    /// aim for, above 0 and at most 1. Empty means no levels of detail.
    pub lod_ratios: Vec<f32>,
    /// The largest simplification error allowed, relative to the mesh extent
    /// (0.05 is 5%); at least 0.
    pub lod_error: f32,
}

impl Default for BuildOptions {
    /// Meshlets of at most 64 vertices and 124 triangles with cone weight 0.25,
    /// and two reduced levels at 50% and 25% of the triangles with error 0.05.
    fn default() -> Self {
        Self {
            meshlets: true,
            meshlet_max_vertices: 64,
            meshlet_max_triangles: 124,
            cone_weight: 0.25,
            lod_ratios: vec![0.5, 0.25],
            lod_error: 0.05,
        }
    }
}

impl BuildOptions {
    /// Checks every option against the range meshoptimizer asserts.
    pub fn validate(&self) -> Result<(), BuildError> {
        if !(3..=MESHLET_MAX_VERTICES_LIMIT).contains(&self.meshlet_max_vertices) {
            return Err(invalid(
                "meshlet_max_vertices",
                self.meshlet_max_vertices,
                "it must be 3 to 256",
            ));
        }
        if !(1..=MESHLET_MAX_TRIANGLES_LIMIT).contains(&self.meshlet_max_triangles) {
            return Err(invalid(
                "meshlet_max_triangles",
                self.meshlet_max_triangles,
                "it must be 1 to 512",
            ));
        }
        if !(0.0..=1.0).contains(&self.cone_weight) {
            return Err(invalid(
                "cone_weight",
                self.cone_weight,
                "it must be a number from 0 to 1",
            ));
        }
        if !(self.lod_error.is_finite() && self.lod_error >= 0.0) {
            return Err(invalid(
                "lod_error",
                self.lod_error,
                "it must be a finite number of at least 0",
            ));
        }
        self.lod_count()?;
        if let Some(ratio) = self
            .lod_ratios
            .iter()
            .find(|ratio| !(**ratio > 0.0 && **ratio <= 1.0))
        {
            return Err(invalid(
                "lod_ratios",
                ratio,
                "every ratio must be above 0 and at most 1",
            ));
        }
        Ok(())
    }

    /// The number of reduced levels, as `.hmesh` stores it.
    pub(super) fn lod_count(&self) -> Result<u32, BuildError> {
        u32::try_from(self.lod_ratios.len()).map_err(|_| {
            invalid(
                "lod_ratios",
                self.lod_ratios.len(),
                "there are too many levels",
            )
        })
    }
}

/// Builds the error for one bad option.
fn invalid(
    name: &'static str,
    value: impl std::fmt::Display,
    expected: &'static str,
) -> BuildError {
    BuildError::InvalidOption {
        name,
        value: value.to_string(),
        expected,
    }
}
