//! The `.hmesh` v2 layout: the `#[repr(C)]` structs every chunk is an array
//! of, with their sizes asserted at compile time, the constants and chunk
//! ids, and [`MeshData`], everything a file holds in owned form.

use bytemuck::{Pod, Zeroable};

/// `"HMSH"` read as a little-endian `u32`.
pub const MAGIC: u32 = u32::from_le_bytes(*b"HMSH");
/// The version this module reads and writes.
pub const VERSION: u32 = 2;
/// `SubMesh::material_slot` of a submesh without a material.
pub const NO_MATERIAL: u32 = u32::MAX;
/// Chunk payloads start on multiples of this.
pub const CHUNK_ALIGN: usize = 16;
/// `MeshDesc::flags` bit: the tangents in `VTXS` are meaningful.
pub const MESH_FLAG_HAS_TANGENTS: u8 = 1;

/// Builds a chunk id from its four ASCII letters.
pub const fn fourcc(tag: &[u8; 4]) -> u32 {
    u32::from_le_bytes(*tag)
}

/// The chunk ids of `.hmesh` v2.
pub mod chunk {
    use super::fourcc;
    /// [`MeshDesc`](super::MeshDesc), required.
    pub const DESC: u32 = fourcc(b"DESC");
    /// [`MeshBounds`](super::MeshBounds), required.
    pub const BNDS: u32 = fourcc(b"BNDS");
    /// [`GpuVertex`](super::GpuVertex) array, required.
    pub const VTXS: u32 = fourcc(b"VTXS");
    /// `u16` or `u32` index array, required.
    pub const IDXS: u32 = fourcc(b"IDXS");
    /// [`Meshlet`](super::Meshlet) array.
    pub const MLET: u32 = fourcc(b"MLET");
    /// `u32` meshlet-local to global vertex index array.
    pub const MLVR: u32 = fourcc(b"MLVR");
    /// [`MeshletTriangle`](super::MeshletTriangle) array.
    pub const MLTR: u32 = fourcc(b"MLTR");
    /// [`MeshletBounds`](super::MeshletBounds) array.
    pub const MLBN: u32 = fourcc(b"MLBN");
    /// `u64` material ref array.
    pub const MTRL: u32 = fourcc(b"MTRL");
    /// [`SubMesh`](super::SubMesh) array, required.
    pub const SUBM: u32 = fourcc(b"SUBM");
    /// [`GpuSkinVertex`](super::GpuSkinVertex) array, optional.
    pub const SKIN: u32 = fourcc(b"SKIN");
    /// [`GpuJoint`](super::GpuJoint) array, optional.
    pub const SKEL: u32 = fourcc(b"SKEL");
    /// `u32` index array of the reduced levels, optional.
    pub const LODI: u32 = fourcc(b"LODI");
    /// [`LodTableHeader`](super::LodTableHeader) + [`MeshLod`](super::MeshLod) rows, optional.
    pub const LODT: u32 = fourcc(b"LODT");
}

/// The file header.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileHeader {
    /// [`MAGIC`].
    pub magic: u32,
    /// [`VERSION`].
    pub version: u32,
    /// Rows in the chunk table.
    pub chunk_count: u32,
    /// Reserved, 0.
    pub flags: u32,
    /// Reserved, 0.
    pub reserved1: u64,
    /// Reserved, 0.
    pub reserved2: u64,
}
const _: () = assert!(size_of::<FileHeader>() == 32);

/// One chunk table row.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkEntry {
    /// The chunk id ([`chunk`]).
    pub fourcc: u32,
    /// Reserved, 0.
    pub flags: u32,
    /// Byte offset of the payload from the start of the file.
    pub offset: u64,
    /// Payload size in bytes.
    pub size: u64,
}
const _: () = assert!(size_of::<ChunkEntry>() == 24);

/// The `DESC` chunk: the mesh's shape.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshDesc {
    /// Elements in `VTXS` (and `SKIN`).
    pub vertex_count: u32,
    /// Elements in `IDXS`.
    pub index_count: u32,
    /// Elements in `MLET` and `MLBN`.
    pub meshlet_count: u32,
    /// Elements in `SUBM` (at least 1).
    pub submesh_count: u32,
    /// Elements in `MTRL`.
    pub material_count: u32,
    /// `size_of::<GpuVertex>()`, 28.
    pub vertex_stride: u16,
    /// 2 or 4 bytes per `IDXS` element.
    pub index_width: u8,
    /// [`MESH_FLAG_HAS_TANGENTS`].
    pub flags: u8,
    /// The meshlet vertex limit the meshlets were built with.
    pub meshlet_max_vertices: u32,
    /// The meshlet triangle limit the meshlets were built with.
    pub meshlet_max_triangles: u32,
}
const _: () = assert!(size_of::<MeshDesc>() == 32);

/// An axis-aligned box and a bounding sphere (`BNDS`, and inside [`SubMesh`]).
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Default)]
pub struct MeshBounds {
    /// Box minimum.
    pub aabb_min: [f32; 3],
    /// Box maximum.
    pub aabb_max: [f32; 3],
    /// Sphere centre (the box centre).
    pub sphere_center: [f32; 3],
    /// Sphere radius.
    pub sphere_radius: f32,
}
const _: () = assert!(size_of::<MeshBounds>() == 40);

/// One vertex of `VTXS`.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Default)]
pub struct GpuVertex {
    /// Object-space position.
    pub position: [f32; 3],
    /// Octahedral unit normal, SNORM16.
    pub normal: [i16; 2],
    /// Octahedral unit tangent, SNORM16 scale; bit 0 of `x` set means the
    /// bitangent is negated (handedness < 0).
    pub tangent: [i16; 2],
    /// First UV set, top-left origin.
    pub uv: [f32; 2],
}
const _: () = assert!(size_of::<GpuVertex>() == 28);

/// One vertex of `SKIN`, parallel to `VTXS`.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Default)]
pub struct GpuSkinVertex {
    /// Indices into `SKEL`.
    pub joints: [u16; 4],
    /// Weights summing to 1.
    pub weights: [f32; 4],
}
const _: () = assert!(size_of::<GpuSkinVertex>() == 24);

/// One joint of `SKEL`.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq)]
pub struct GpuJoint {
    /// Mesh space to joint bind space, column-major.
    pub inverse_bind: [f32; 16],
    /// Local bind-pose translation.
    pub bind_translation: [f32; 3],
    /// Local bind-pose rotation, unit quaternion `x, y, z, w`.
    pub bind_rotation: [f32; 4],
    /// Local bind-pose scale.
    pub bind_scale: [f32; 3],
    /// Index of the parent joint, -1 for a root.
    pub parent: i32,
    /// Reserved, 0.
    pub pad: u32,
}
const _: () = assert!(size_of::<GpuJoint>() == 112);

/// One meshlet of `MLET`; offsets count elements of `MLVR` and `MLTR`.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Meshlet {
    /// First entry in `MLVR`.
    pub vertex_offset: u32,
    /// Entries in `MLVR`.
    pub vertex_count: u32,
    /// First triangle in `MLTR`.
    pub triangle_offset: u32,
    /// Triangles in `MLTR`.
    pub triangle_count: u32,
}
const _: () = assert!(size_of::<Meshlet>() == 16);

/// One triangle of `MLTR`: three meshlet-local vertex indices.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MeshletTriangle(pub [u8; 3]);
const _: () = assert!(size_of::<MeshletTriangle>() == 3);

/// Culling data of one meshlet (`MLBN`).
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Default)]
pub struct MeshletBounds {
    /// Bounding sphere centre.
    pub center: [f32; 3],
    /// Bounding sphere radius.
    pub radius: f32,
    /// Normal cone axis.
    pub cone_axis: [f32; 3],
    /// Normal cone cutoff (cosine); 1 means the cone is useless.
    pub cone_cutoff: f32,
}
const _: () = assert!(size_of::<MeshletBounds>() == 32);

/// One drawable section (`SUBM`).
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Default)]
pub struct SubMesh {
    /// First index in `IDXS`.
    pub first_index: u32,
    /// Indices, a multiple of 3.
    pub index_count: u32,
    /// First meshlet in `MLET`.
    pub first_meshlet: u32,
    /// Meshlets.
    pub meshlet_count: u32,
    /// Index into `MTRL` and the `.hmat` rows, or [`NO_MATERIAL`].
    pub material_slot: u32,
    /// Always 0 (indices are global).
    pub base_vertex: u32,
    /// This submesh's bounds.
    pub bounds: MeshBounds,
}
const _: () = assert!(size_of::<SubMesh>() == 64);

/// One reduced level of one submesh (`LODT` rows, `[submesh][lod]`).
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MeshLod {
    /// First index in `LODI`.
    pub first_index: u32,
    /// Indices; 0 means simplification stalled (reuse the previous level).
    pub index_count: u32,
}
const _: () = assert!(size_of::<MeshLod>() == 8);

/// The head of `LODT`.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LodTableHeader {
    /// Reduced levels per submesh (LOD0 excluded).
    pub lod_count: u32,
    /// Equals `MeshDesc::submesh_count`.
    pub submesh_count: u32,
}
const _: () = assert!(size_of::<LodTableHeader>() == 8);

/// Everything a `.hmesh` holds, owned: the writer's input.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshData {
    /// `VTXS`.
    pub vertices: Vec<GpuVertex>,
    /// `IDXS`, written as `u16` when there are at most 65535 vertices.
    pub indices: Vec<u32>,
    /// `MLET`.
    pub meshlets: Vec<Meshlet>,
    /// `MLVR` (global vertex indices).
    pub meshlet_vertices: Vec<u32>,
    /// `MLTR`.
    pub meshlet_triangles: Vec<MeshletTriangle>,
    /// `MLBN`, parallel to `meshlets`.
    pub meshlet_bounds: Vec<MeshletBounds>,
    /// `MTRL`.
    pub materials: Vec<u64>,
    /// `SUBM`.
    pub submeshes: Vec<SubMesh>,
    /// `BNDS`.
    pub bounds: MeshBounds,
    /// `SKIN`: empty, or one entry per vertex.
    pub skin: Vec<GpuSkinVertex>,
    /// `SKEL`: empty for static meshes.
    pub skeleton: Vec<GpuJoint>,
    /// Reduced levels per submesh; 0 writes no `LODI`/`LODT`.
    pub lod_count: u32,
    /// `LODI`.
    pub lod_indices: Vec<u32>,
    /// `LODT` rows, `submeshes.len() * lod_count` of them.
    pub lod_table: Vec<MeshLod>,
    /// `MeshDesc::flags`.
    pub flags: u8,
    /// `MeshDesc::meshlet_max_vertices`.
    pub meshlet_max_vertices: u32,
    /// `MeshDesc::meshlet_max_triangles`.
    pub meshlet_max_triangles: u32,
}

/// Size of [`FileHeader`] on disk.
pub const HEADER_BYTES: usize = size_of::<FileHeader>();
/// Size of one [`ChunkEntry`] on disk.
pub const ENTRY_BYTES: usize = size_of::<ChunkEntry>();
/// Every `MeshDesc::flags` bit that has a meaning; the rest must be 0.
pub const KNOWN_MESH_FLAGS: u8 = MESH_FLAG_HAS_TANGENTS;
/// How far the weights of a [`GpuSkinVertex`] may sum away from 1.
pub const SKIN_WEIGHT_TOLERANCE: f32 = 1e-3;
/// Containment slack relative to the largest box extent (at least 1).
pub const AABB_TOLERANCE: f32 = 1e-5;
/// Every chunk id of v2, in the order [`write_hmesh`](super::write_hmesh) emits them.
pub const KNOWN_CHUNKS: [u32; 14] = [
    chunk::DESC,
    chunk::BNDS,
    chunk::VTXS,
    chunk::IDXS,
    chunk::MLET,
    chunk::MLVR,
    chunk::MLTR,
    chunk::MLBN,
    chunk::MTRL,
    chunk::SUBM,
    chunk::SKIN,
    chunk::SKEL,
    chunk::LODI,
    chunk::LODT,
];

/// [`KNOWN_CHUNKS`] as text.
pub(super) const KNOWN_CHUNK_NAMES: [&str; KNOWN_CHUNKS.len()] = [
    "DESC", "BNDS", "VTXS", "IDXS", "MLET", "MLVR", "MLTR", "MLBN", "MTRL", "SUBM", "SKIN", "SKEL",
    "LODI", "LODT",
];

/// The four letters of a chunk id, escaped if they are not printable ASCII.
pub fn chunk_name(id: u32) -> String {
    id.to_le_bytes().escape_ascii().to_string()
}
