//! What can go wrong while building a mesh, each case naming where.

/// A problem with the scene or the options that stops the mesh from being built.
///
/// Every variant about geometry carries the primitive's `label` (for example
/// `meshes[2].primitives[0]`), so the message points into the source.
#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum BuildError {
    /// The scene holds no primitive at all.
    #[error("the source has no triangle geometry to build a mesh from")]
    NoPrimitives,

    /// A primitive has an empty index list.
    #[error("{label}: the primitive has no triangles")]
    NoTriangles {
        /// The primitive.
        label: String,
    },

    /// Every triangle of a primitive repeats a vertex, so nothing is left to draw.
    #[error(
        "{label}: all {triangles} triangles are degenerate (each uses one vertex twice), \
         so nothing is left to draw"
    )]
    OnlyDegenerateTriangles {
        /// The primitive.
        label: String,
        /// How many triangles it had.
        triangles: usize,
    },

    /// The index count is not a whole number of triangles.
    #[error(
        "{label}: {count} indices is not a multiple of 3 (a triangle list needs 3 per triangle)"
    )]
    IndexCountNotTriangles {
        /// The primitive.
        label: String,
        /// The number of indices.
        count: usize,
    },

    /// An index points past the end of the vertex arrays.
    #[error(
        "{label}: indices[{position}] is {index}, but the primitive has {vertex_count} vertices"
    )]
    IndexOutOfRange {
        /// The primitive.
        label: String,
        /// Where in the index list.
        position: usize,
        /// The offending index.
        index: u32,
        /// The number of vertices.
        vertex_count: usize,
    },

    /// A per-vertex attribute array does not match the position count.
    #[error("{label}: {attribute} has {len} entries but there are {vertex_count} positions")]
    AttributeLength {
        /// The primitive.
        label: String,
        /// `normals`, `tangents`, `uvs` or `skin`.
        attribute: &'static str,
        /// Its length.
        len: usize,
        /// The number of positions.
        vertex_count: usize,
    },

    /// A vertex attribute holds NaN or infinity.
    #[error("{label}: vertex {vertex}: {attribute} is not finite ({value})")]
    NonFinite {
        /// The primitive.
        label: String,
        /// `position`, `normal`, `tangent`, `uv` or `joint weight`.
        attribute: &'static str,
        /// The vertex index.
        vertex: usize,
        /// The value as the source has it, formatted.
        value: String,
    },

    /// A joint weight is negative.
    #[error("{label}: vertex {vertex}: joint weight {weight} is negative")]
    NegativeWeight {
        /// The primitive.
        label: String,
        /// The vertex index.
        vertex: usize,
        /// The weight.
        weight: f32,
    },

    /// A joint with a non-zero weight is not in the skeleton.
    #[error(
        "{label}: vertex {vertex}: joint {joint} has weight {weight}, but the skeleton has \
         {joint_count} joints"
    )]
    JointOutOfRange {
        /// The primitive.
        label: String,
        /// The vertex index.
        vertex: usize,
        /// The joint index.
        joint: u16,
        /// Its weight.
        weight: f32,
        /// The skeleton size.
        joint_count: usize,
    },

    /// A primitive names a material the source does not have.
    #[error("{label}: material {material} does not exist (the source has {count} materials)")]
    MaterialOutOfRange {
        /// The primitive.
        label: String,
        /// The source material index.
        material: usize,
        /// The number of source materials.
        count: usize,
    },

    /// A build option is outside what the mesh tools accept.
    #[error("mesh option {name} = {value} is invalid: {expected}")]
    InvalidOption {
        /// The option's field name.
        name: &'static str,
        /// The given value, formatted.
        value: String,
        /// What would be accepted.
        expected: &'static str,
    },

    /// A count does not fit the 32-bit fields of `.hmesh`.
    #[error("{label}: the mesh is too large: {what} does not fit in 32 bits")]
    TooLarge {
        /// The primitive being added when the limit was passed.
        label: String,
        /// Which count overflowed.
        what: &'static str,
    },

    /// meshoptimizer refused the vertex layout handed to it.
    #[error("{label}: meshoptimizer rejected the vertex data: {what}")]
    Meshopt {
        /// The primitive.
        label: String,
        /// meshoptimizer's message.
        what: String,
    },
}
