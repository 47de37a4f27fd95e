//! `.hmesh` v2: GPU-ready geometry in a tagged-chunk container.
//!
//! # Layout (little-endian)
//!
//! ```text
//! offset 0    FileHeader   32 bytes: "HMSH", version 2, chunkCount, flags 0,
//!                          two reserved u64 (0)
//! offset 32   chunk table  chunkCount × 24-byte ChunkEntry
//!                          (fourcc, flags 0, payload offset, payload size)
//! then        payloads     each starting on a multiple of 16 from the file
//!                          start; the gaps hold zero bytes
//! ```
//!
//! Every payload is a plain array of one of the `#[repr(C)]` types below, so
//! a reader can use it in place. Element counts, the vertex stride (28) and the
//! index width (2 or 4) live only in `DESC` ([`MeshDesc`]); the other chunks
//! carry no prelude of their own:
//!
//! | id     | payload                                                      |
//! |--------|--------------------------------------------------------------|
//! | `DESC` | one [`MeshDesc`] (required)                                  |
//! | `BNDS` | one [`MeshBounds`] (required)                                |
//! | `VTXS` | `vertexCount` [`GpuVertex`] (required)                       |
//! | `IDXS` | `indexCount` `u16` or `u32` (required)                       |
//! | `MLET` | `meshletCount` [`Meshlet`]                                   |
//! | `MLVR` | `u32` global vertex indices, the meshlets' slices laid end to end |
//! | `MLTR` | [`MeshletTriangle`] (3 bytes, no padding), likewise          |
//! | `MLBN` | `meshletCount` [`MeshletBounds`]                             |
//! | `MTRL` | `materialCount` `u64` material ids                           |
//! | `SUBM` | `submeshCount` [`SubMesh`] (required, at least one)          |
//! | `SKIN` | `vertexCount` [`GpuSkinVertex`] (skinned meshes only)        |
//! | `SKEL` | one or more [`GpuJoint`] (skinned meshes only)               |
//! | `LODI` | `u32` indices of the reduced levels                          |
//! | `LODT` | a [`LodTableHeader`], then `submeshCount × lodCount` [`MeshLod`] rows |
//!
//! Readers find chunks by id and skip ids they do not know. [`write_hmesh`]
//! emits the chunks in the order of the table above (`SKIN`, `SKEL`, `LODI` and
//! `LODT` only when there is something to put in them) with no padding after
//! the last payload, exactly as the reference tool does.
//!
//! # What a valid file satisfies
//!
//! [`parse_hmesh`] checks every rule of the reference validator and more:
//!
//! - the header: magic, version, zero flags and reserved fields;
//! - the chunk table: inside the file, every payload inside the file, after the
//!   table, 16-byte aligned and overlapping no known chunk; no known id twice;
//!   zero flags on known chunks;
//! - `DESC`, `BNDS`, `VTXS`, `IDXS` and `SUBM` present; stride 28; index width 2
//!   or 4; no unknown `DESC` flag bits; at least one vertex and one submesh;
//! - every chunk size matching the counts in `DESC`; `MLET`, `MLBN` and `MTRL`
//!   absent only when their count is 0;
//! - finite bounds with `aabbMin <= aabbMax` and a non-negative radius; every
//!   vertex finite and inside the mesh box, within `1e-5 × max(extent, 1)`;
//! - every index, `MLVR` entry and `LODI` entry below `vertexCount`;
//! - meshlets laying out `MLVR` and `MLTR` end to end, in order, within the
//!   `DESC` meshlet limits, with local indices below the meshlet's vertex
//!   count, and finite culling bounds;
//! - submeshes covering the indices and meshlets contiguously and in order,
//!   with index counts divisible by 3, a valid material slot (or
//!   [`NO_MATERIAL`]), `baseVertex` 0 and finite bounds inside the mesh box;
//! - `SKIN` one entry per vertex, with joints below the `SKEL` length (when
//!   `SKEL` is present) and finite, non-negative weights summing to 1 ± 1e-3;
//! - `SKEL` a non-empty whole number of joints with finite transforms, a zero
//!   pad, and parents that are -1 or another joint, without cycles;
//! - `LODT` agreeing with `DESC` on the submesh count and sized for its rows,
//!   every non-empty row a multiple of 3 inside `LODI`; `LODI` only with `LODT`.
//!
//! A [`FormatError`] names the byte offset of the offending element, the field
//! (`"SubMesh.materialSlot"`, `"ChunkEntry.size"`, ...) and, in its message,
//! the element's index.
//!
//! # Reading in place
//!
//! [`parse_hmesh_at`] with [`Depth::Layout`] checks only the structure (the
//! header, the chunk table, `DESC` and the size of every array), in time that
//! does not grow with the geometry: the load path for trusted files, such as
//! a memory-mapped file the build wrote or a pack entry. [`parse_hmesh`]
//! checks every rule above.
//!
//! [`parse_hmesh`] lends the arrays straight out of the buffer, which must
//! start on an 8-byte boundary (`std::fs::read` returns such a buffer in
//! practice); [`validate`] and [`read_hmesh`] accept any alignment. The
//! readers need a little-endian host and fail cleanly on a big-endian one.
//! Besides the typed arrays of the known chunks, [`HMesh::chunk`] hands out
//! the raw payload of any chunk by id, so an engine can carry chunks of its
//! own in the same file.

use std::borrow::Cow;

use core::mem::offset_of;

use bytemuck::{Pod, PodCastError, Zeroable};

use super::bytes::{FileId, read_fixed_header};
use super::error::{FormatError, FormatResult};

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
/// Every chunk id of v2, in the order [`write_hmesh`] emits them.
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
const KNOWN_CHUNK_NAMES: [&str; KNOWN_CHUNKS.len()] = [
    "DESC", "BNDS", "VTXS", "IDXS", "MLET", "MLVR", "MLTR", "MLBN", "MTRL", "SUBM", "SKIN", "SKEL",
    "LODI", "LODT",
];

/// The four letters of a chunk id, escaped if they are not printable ASCII.
pub fn chunk_name(id: u32) -> String {
    id.to_le_bytes().escape_ascii().to_string()
}

// ---------------------------------------------------------------------------
// Shared in-place reading helpers (also used by `.hmat`).
// ---------------------------------------------------------------------------

/// Fails on a big-endian host: the in-place readers reinterpret little-endian
/// bytes as native structs.
pub(crate) fn require_little_endian(field: &'static str) -> FormatResult<()> {
    if cfg!(target_endian = "big") {
        return Err(FormatError::new(
            0,
            field,
            "reading in place needs a little-endian host",
        ));
    }
    Ok(())
}

/// Reinterprets `bytes`, which start at file offset `at`, as a slice of `T`.
///
/// The caller has checked that the length is a whole number of elements, so
/// the only failure left is a misaligned buffer (which an empty slice cannot
/// be).
pub(crate) fn cast_in_place<'a, T: Pod>(
    bytes: &'a [u8],
    at: u64,
    field: &'static str,
) -> FormatResult<&'a [T]> {
    if bytes.is_empty() {
        return Ok(&[]);
    }
    bytemuck::try_cast_slice(bytes).map_err(|err| {
        let what = match err {
            PodCastError::TargetAlignmentGreaterAndInputNotAligned => format!(
                "the data sits at a memory address that is not {align}-byte aligned; reading \
                 in place needs the file buffer to start on a {align}-byte boundary",
                align = align_of::<T>()
            ),
            _ => format!(
                "{} bytes are not a whole number of {}-byte elements",
                bytes.len(),
                size_of::<T>()
            ),
        };
        FormatError::new(at, field, what)
    })
}

/// Runs `check` on `bytes`, or on an 8-byte aligned copy of them if they are
/// not aligned.
fn with_aligned<R>(bytes: &[u8], check: impl FnOnce(&[u8]) -> FormatResult<R>) -> FormatResult<R> {
    if bytes.as_ptr().align_offset(align_of::<u64>()) == 0 {
        return check(bytes);
    }
    let mut words = vec![0_u64; bytes.len().div_ceil(size_of::<u64>())];
    let copy = bytemuck::cast_slice_mut::<u64, u8>(&mut words);
    let copy = copy.get_mut(..bytes.len()).unwrap_or_default();
    copy.copy_from_slice(bytes);
    check(copy)
}

// ---------------------------------------------------------------------------
// The in-place view.
// ---------------------------------------------------------------------------

/// The `IDXS` array at its stored width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indices<'a> {
    /// `MeshDesc::index_width == 2`.
    U16(&'a [u16]),
    /// `MeshDesc::index_width == 4`.
    U32(&'a [u32]),
}

impl<'a> Indices<'a> {
    /// The number of indices.
    pub fn len(&self) -> usize {
        match self {
            Indices::U16(values) => values.len(),
            Indices::U32(values) => values.len(),
        }
    }

    /// Whether there are no indices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per index: 2 or 4.
    pub fn width(&self) -> u8 {
        match self {
            Indices::U16(_) => 2,
            Indices::U32(_) => 4,
        }
    }

    /// Index `i`, widened to `u32`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<u32> {
        match self {
            Indices::U16(values) => values.get(i).map(|&v| u32::from(v)),
            Indices::U32(values) => values.get(i).copied(),
        }
    }

    /// All indices, widened to `u32`.
    pub fn iter(&self) -> impl Iterator<Item = u32> + 'a {
        let (narrow, wide): (&'a [u16], &'a [u32]) = match *self {
            Indices::U16(values) => (values, &[]),
            Indices::U32(values) => (&[], values),
        };
        narrow
            .iter()
            .map(|&v| u32::from(v))
            .chain(wide.iter().copied())
    }
}

/// A validated `.hmesh`, its arrays borrowed from the file buffer.
///
/// Optional chunks that are absent read as empty slices (and `lod_count` 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HMesh<'a> {
    /// The file header.
    pub header: FileHeader,
    /// The whole chunk table, unknown chunks included.
    pub chunks: &'a [ChunkEntry],
    /// `DESC`.
    pub desc: MeshDesc,
    /// `BNDS`.
    pub bounds: MeshBounds,
    /// `VTXS`.
    pub vertices: &'a [GpuVertex],
    /// `IDXS`.
    pub indices: Indices<'a>,
    /// `MLET`.
    pub meshlets: &'a [Meshlet],
    /// `MLVR`.
    pub meshlet_vertices: &'a [u32],
    /// `MLTR`.
    pub meshlet_triangles: &'a [MeshletTriangle],
    /// `MLBN`.
    pub meshlet_bounds: &'a [MeshletBounds],
    /// `MTRL`.
    pub materials: &'a [u64],
    /// `SUBM`.
    pub submeshes: &'a [SubMesh],
    /// `SKIN`, parallel to `vertices` when present.
    pub skin: &'a [GpuSkinVertex],
    /// `SKEL`.
    pub skeleton: &'a [GpuJoint],
    /// Reduced levels per submesh (`LodTableHeader::lod_count`).
    pub lod_count: u32,
    /// `LODI`.
    pub lod_indices: &'a [u32],
    /// `LODT` rows, `[submesh][level]`.
    pub lod_table: &'a [MeshLod],
    /// The whole file, for [`HMesh::chunk`].
    bytes: &'a [u8],
}

impl<'a> HMesh<'a> {
    /// The whole file this mesh was parsed from.
    pub fn file_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The payload of the first chunk with id `id` (see [`fourcc`] and
    /// [`chunk`]), known or not, or `None` if the table has no such chunk.
    ///
    /// Every payload was checked to lie inside the file, so this is only a
    /// table scan; unknown chunks may repeat, and only the first is returned.
    pub fn chunk(&self, id: u32) -> Option<&'a [u8]> {
        let entry = self.chunks.iter().find(|entry| entry.fourcc == id)?;
        let start = usize::try_from(entry.offset).ok()?;
        let end = start.checked_add(usize::try_from(entry.size).ok()?)?;
        self.bytes.get(start..end)
    }

    /// The id of every chunk in table order, unknown ones included
    /// ([`chunk_name`] spells them).
    pub fn chunk_ids(&self) -> impl ExactSizeIterator<Item = u32> + 'a {
        self.chunks.iter().map(|entry| entry.fourcc)
    }

    /// Reduced level `level` (0 = the first reduced one) of submesh `submesh`.
    pub fn lod(&self, submesh: usize, level: usize) -> Option<MeshLod> {
        let levels = self.lod_count as usize;
        if level >= levels {
            return None;
        }
        let row = submesh.checked_mul(levels)?.checked_add(level)?;
        self.lod_table.get(row).copied()
    }

    /// An owned copy of everything, in the writer's input form.
    pub fn to_mesh_data(&self) -> MeshData {
        MeshData {
            vertices: self.vertices.to_vec(),
            indices: self.indices.iter().collect(),
            meshlets: self.meshlets.to_vec(),
            meshlet_vertices: self.meshlet_vertices.to_vec(),
            meshlet_triangles: self.meshlet_triangles.to_vec(),
            meshlet_bounds: self.meshlet_bounds.to_vec(),
            materials: self.materials.to_vec(),
            submeshes: self.submeshes.to_vec(),
            bounds: self.bounds,
            skin: self.skin.to_vec(),
            skeleton: self.skeleton.to_vec(),
            lod_count: self.lod_count,
            lod_indices: self.lod_indices.to_vec(),
            lod_table: self.lod_table.to_vec(),
            flags: self.desc.flags,
            meshlet_max_vertices: self.desc.meshlet_max_vertices,
            meshlet_max_triangles: self.desc.meshlet_max_triangles,
        }
    }
}

// ---------------------------------------------------------------------------
// Writing.
// ---------------------------------------------------------------------------

/// Serialises a mesh into `.hmesh` v2 bytes.
///
/// The result is run through the same checks as [`parse_hmesh`] before it is
/// returned, so inconsistent input (a count that disagrees with its array, an
/// index past the vertices, a submesh gap, ...) is refused with the error a
/// reader would report for the file. Input that cannot be laid out at all (a
/// count above `u32::MAX`, `LOD` data with `lod_count == 0`, an index too
/// large for the 16-bit width) is refused with offset 0 or the offset the
/// element would have had.
pub fn write_hmesh(mesh: &MeshData) -> FormatResult<Vec<u8>> {
    let desc = describe(mesh)?;
    refuse_orphan_lod_data(mesh)?;
    let payloads = payloads(mesh, &desc);
    let table = lay_out(&payloads);
    refuse_unnarrowable_indices(mesh, &desc, &table)?;
    let bytes = assemble(&table, &payloads);
    validate(&bytes)?;
    Ok(bytes)
}

/// Converts a length to a `u32` count, or names the field that overflows.
fn count_of(len: usize, field: &'static str) -> FormatResult<u32> {
    u32::try_from(len)
        .map_err(|_| FormatError::new(0, field, format!("{len} elements do not fit a u32 count")))
}

/// The `DESC` chunk for `mesh`.
fn describe(mesh: &MeshData) -> FormatResult<MeshDesc> {
    let vertex_count = count_of(mesh.vertices.len(), "MeshDesc.vertexCount")?;
    Ok(MeshDesc {
        vertex_count,
        index_count: count_of(mesh.indices.len(), "MeshDesc.indexCount")?,
        meshlet_count: count_of(mesh.meshlets.len(), "MeshDesc.meshletCount")?,
        submesh_count: count_of(mesh.submeshes.len(), "MeshDesc.submeshCount")?,
        material_count: count_of(mesh.materials.len(), "MeshDesc.materialCount")?,
        vertex_stride: size_of::<GpuVertex>() as u16,
        index_width: if vertex_count <= u32::from(u16::MAX) {
            2
        } else {
            4
        },
        flags: mesh.flags,
        meshlet_max_vertices: mesh.meshlet_max_vertices,
        meshlet_max_triangles: mesh.meshlet_max_triangles,
    })
}

/// LOD rows or indices with `lod_count == 0` would be silently dropped.
fn refuse_orphan_lod_data(mesh: &MeshData) -> FormatResult<()> {
    if mesh.lod_count == 0 && !(mesh.lod_table.is_empty() && mesh.lod_indices.is_empty()) {
        return Err(FormatError::new(
            0,
            "LodTableHeader.lodCount",
            format!(
                "lod_count is 0 but there are {} LOD rows and {} LOD indices to write",
                mesh.lod_table.len(),
                mesh.lod_indices.len()
            ),
        ));
    }
    Ok(())
}

/// Every chunk's id and payload, in file order.
fn payloads<'m>(mesh: &'m MeshData, desc: &MeshDesc) -> Vec<(u32, Cow<'m, [u8]>)> {
    let indices: Cow<'m, [u8]> = if desc.index_width == 2 {
        // Values above u16::MAX are refused before the bytes are assembled.
        Cow::Owned(
            mesh.indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect(),
        )
    } else {
        Cow::Borrowed(bytemuck::cast_slice(&mesh.indices))
    };
    let mut chunks: Vec<(u32, Cow<'m, [u8]>)> = vec![
        (chunk::DESC, Cow::Owned(bytemuck::bytes_of(desc).to_vec())),
        (chunk::BNDS, Cow::Borrowed(bytemuck::bytes_of(&mesh.bounds))),
        (
            chunk::VTXS,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.vertices)),
        ),
        (chunk::IDXS, indices),
        (
            chunk::MLET,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlets)),
        ),
        (
            chunk::MLVR,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlet_vertices)),
        ),
        (
            chunk::MLTR,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlet_triangles)),
        ),
        (
            chunk::MLBN,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlet_bounds)),
        ),
        (
            chunk::MTRL,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.materials)),
        ),
        (
            chunk::SUBM,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.submeshes)),
        ),
    ];
    if !mesh.skin.is_empty() {
        chunks.push((chunk::SKIN, Cow::Borrowed(bytemuck::cast_slice(&mesh.skin))));
    }
    if !mesh.skeleton.is_empty() {
        chunks.push((
            chunk::SKEL,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.skeleton)),
        ));
    }
    if mesh.lod_count > 0 {
        let header = LodTableHeader {
            lod_count: mesh.lod_count,
            submesh_count: desc.submesh_count,
        };
        let mut table = bytemuck::bytes_of(&header).to_vec();
        table.extend_from_slice(bytemuck::cast_slice(&mesh.lod_table));
        chunks.push((
            chunk::LODI,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.lod_indices)),
        ));
        chunks.push((chunk::LODT, Cow::Owned(table)));
    }
    chunks
}

/// Rounds `offset` up to the next multiple of [`CHUNK_ALIGN`].
fn align_up(offset: usize) -> usize {
    offset.next_multiple_of(CHUNK_ALIGN)
}

/// The chunk table: each payload at the next aligned offset after the last.
fn lay_out(payloads: &[(u32, Cow<'_, [u8]>)]) -> Vec<ChunkEntry> {
    let mut cursor = HEADER_BYTES + payloads.len() * ENTRY_BYTES;
    payloads
        .iter()
        .map(|(id, data)| {
            cursor = align_up(cursor);
            let entry = ChunkEntry {
                fourcc: *id,
                flags: 0,
                offset: cursor as u64,
                size: data.len() as u64,
            };
            cursor += data.len();
            entry
        })
        .collect()
}

/// Refuses an index that the 16-bit width would truncate, naming the offset it
/// would have been written at.
fn refuse_unnarrowable_indices(
    mesh: &MeshData,
    desc: &MeshDesc,
    table: &[ChunkEntry],
) -> FormatResult<()> {
    if desc.index_width != 2 {
        return Ok(());
    }
    let Some(wide) = mesh.indices.iter().position(|&i| i > u32::from(u16::MAX)) else {
        return Ok(());
    };
    let idxs = table
        .iter()
        .find(|entry| entry.fourcc == chunk::IDXS)
        .map_or(0, |entry| entry.offset);
    Err(FormatError::new(
        idxs + 2 * wide as u64,
        "IDXS",
        format!(
            "index {wide} is {}, but there are only {} vertices",
            mesh.indices.get(wide).copied().unwrap_or_default(),
            desc.vertex_count
        ),
    ))
}

/// The file bytes: header, table, then each payload after zero padding.
fn assemble(table: &[ChunkEntry], payloads: &[(u32, Cow<'_, [u8]>)]) -> Vec<u8> {
    let header = FileHeader {
        magic: MAGIC,
        version: VERSION,
        chunk_count: table.len() as u32,
        flags: 0,
        reserved1: 0,
        reserved2: 0,
    };
    let total = table
        .last()
        .map_or(HEADER_BYTES, |last| (last.offset + last.size) as usize);
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(bytemuck::bytes_of(&header));
    out.extend_from_slice(bytemuck::cast_slice(table));
    for (entry, (_, data)) in table.iter().zip(payloads) {
        out.resize(entry.offset as usize, 0);
        out.extend_from_slice(data);
    }
    out
}

// ---------------------------------------------------------------------------
// Reading: entry points.
// ---------------------------------------------------------------------------

/// How much of a `.hmesh` a parse checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// The structure only: the header, the chunk table, `DESC`, `BNDS`, the
    /// size and alignment of every array against its `DESC` count, and the
    /// small tables (`SUBM`, `SKEL`, the `LODT` rows). The work grows with the
    /// number of chunks, submeshes and joints, not with the geometry, so a
    /// 40 MB mesh is checked in microseconds. Every slice of the returned
    /// [`HMesh`] lies inside the file, but element values are not read: an
    /// index past the vertices, a non-finite position, a meshlet range past
    /// `MLVR` or an unnormalised skin weight go through. For files the engine
    /// trusts, such as those its own build wrote or a pack whose hash it
    /// checked; the GPU's robust buffer access, not this parse, then guards
    /// against a damaged file.
    Layout,
    /// Everything [`Depth::Layout`] checks, plus every element of every array
    /// (the module docs list the rules): for files from anywhere.
    Full,
}

/// Checks a whole `.hmesh` (see the module docs for the rules) and lends its
/// arrays in place; the same as [`parse_hmesh_at`] with [`Depth::Full`].
///
/// `bytes` must start on an 8-byte boundary; otherwise this fails with a
/// clear error and [`validate`] or [`read_hmesh`] can be used instead.
/// Fails on a big-endian host.
pub fn parse_hmesh(bytes: &[u8]) -> FormatResult<HMesh<'_>> {
    parse_hmesh_at(bytes, Depth::Full)
}

/// Checks a `.hmesh` to `depth` and lends its arrays in place. With
/// [`Depth::Layout`] this is the engine's fast path over a memory-mapped file
/// or a pack entry. Alignment and byte order as for [`parse_hmesh`].
pub fn parse_hmesh_at(bytes: &[u8], depth: Depth) -> FormatResult<HMesh<'_>> {
    require_little_endian("FileHeader")?;
    let header = read_file_header(bytes)?;
    let chunks = read_chunk_table(bytes, &header)?;
    let found = locate_chunks(bytes, chunks)?;
    let desc = read_desc(&found)?;
    let bounds = read_bounds(&found)?;
    let space = BoundsCheck::new(&bounds);
    let vertices = read_vertices(&found, &desc, &space, depth)?;
    let indices = read_indices(&found, &desc, depth)?;
    let meshlets = read_meshlets(&found, &desc, depth)?;
    let materials = optional_array(&found, chunk::MTRL, desc.material_count, "materialCount")?;
    let submeshes = read_submeshes(&found, &desc, &space)?;
    let skeleton = read_skeleton(&found)?;
    let skin = read_skin(&found, &desc, skeleton.len(), depth)?;
    let lods = read_lods(&found, &desc, depth)?;
    Ok(HMesh {
        header,
        chunks,
        desc,
        bounds,
        vertices,
        indices,
        meshlets: meshlets.meshlets,
        meshlet_vertices: meshlets.vertices,
        meshlet_triangles: meshlets.triangles,
        meshlet_bounds: meshlets.bounds,
        materials,
        submeshes,
        skin,
        skeleton,
        lod_count: lods.lod_count,
        lod_indices: lods.indices,
        lod_table: lods.table,
        bytes,
    })
}

/// Checks a whole `.hmesh` held in a buffer of any alignment.
pub fn validate(bytes: &[u8]) -> FormatResult<()> {
    with_aligned(bytes, |aligned| parse_hmesh(aligned).map(drop))
}

/// Checks a whole `.hmesh` held in a buffer of any alignment and returns an
/// owned copy of its contents.
pub fn read_hmesh(bytes: &[u8]) -> FormatResult<MeshData> {
    with_aligned(bytes, |aligned| {
        parse_hmesh(aligned).map(|mesh| mesh.to_mesh_data())
    })
}

// ---------------------------------------------------------------------------
// Reading: header and chunk table.
// ---------------------------------------------------------------------------

/// Reads and checks the header.
fn read_file_header(bytes: &[u8]) -> FormatResult<FileHeader> {
    let header: FileHeader = read_fixed_header(bytes, "FileHeader")?;
    FileId {
        magic: MAGIC,
        version: VERSION,
        magic_field: "FileHeader.magic",
        version_field: "FileHeader.version",
    }
    .check(header.magic, header.version)?;
    let reserved = [
        (12, "FileHeader.flags", u64::from(header.flags)),
        (16, "FileHeader.reserved1", header.reserved1),
        (24, "FileHeader.reserved2", header.reserved2),
    ];
    for (at, field, value) in reserved {
        if value != 0 {
            return Err(FormatError::new(
                at,
                field,
                format!("reserved field is {value:#x}, not 0"),
            ));
        }
    }
    Ok(header)
}

/// Lends the chunk table in place after checking that it fits the file.
fn read_chunk_table<'a>(bytes: &'a [u8], header: &FileHeader) -> FormatResult<&'a [ChunkEntry]> {
    let table_bytes = u64::from(header.chunk_count) * ENTRY_BYTES as u64;
    let available = bytes.len().saturating_sub(HEADER_BYTES) as u64;
    if table_bytes > available {
        return Err(FormatError::new(
            8,
            "FileHeader.chunkCount",
            format!(
                "{} chunk entries need {table_bytes} bytes, only {available} follow the header",
                header.chunk_count
            ),
        ));
    }
    let end = HEADER_BYTES + table_bytes as usize;
    let raw = bytes.get(HEADER_BYTES..end).unwrap_or_default();
    cast_in_place(raw, HEADER_BYTES as u64, "ChunkEntry")
}

/// A known chunk found in the table.
#[derive(Debug, Clone, Copy)]
struct Chunk<'a> {
    /// The chunk's id as text, e.g. `"VTXS"`.
    name: &'static str,
    /// Row in the chunk table.
    entry_index: usize,
    /// File offset of the payload.
    offset: u64,
    /// The payload.
    data: &'a [u8],
}

impl Chunk<'_> {
    /// File offset of this chunk's table row.
    fn entry_at(&self) -> u64 {
        entry_offset(self.entry_index)
    }

    /// File offset of field `field_offset` of element `index` of `T`s.
    fn element_at<T>(&self, index: usize, field_offset: usize) -> u64 {
        self.offset + (index * size_of::<T>() + field_offset) as u64
    }
}

/// The known chunks of a file, by id.
struct ChunkSet<'a> {
    /// Indexed like [`KNOWN_CHUNKS`].
    found: [Option<Chunk<'a>>; KNOWN_CHUNKS.len()],
}

impl<'a> ChunkSet<'a> {
    /// The chunk with id `id`, if present.
    fn get(&self, id: u32) -> Option<Chunk<'a>> {
        let slot = KNOWN_CHUNKS.iter().position(|&known| known == id)?;
        self.found.get(slot).copied().flatten()
    }

    /// The chunk with id `id`, or an error saying the file lacks it.
    fn required(&self, id: u32) -> FormatResult<Chunk<'a>> {
        self.get(id).ok_or_else(|| {
            FormatError::new(
                HEADER_BYTES as u64,
                "ChunkEntry.fourcc",
                format!(
                    "the file has no {} chunk, which is required",
                    chunk_name(id)
                ),
            )
        })
    }
}

/// File offset of chunk table row `index`.
fn entry_offset(index: usize) -> u64 {
    (HEADER_BYTES + index * ENTRY_BYTES) as u64
}

/// Checks every table row and collects the known chunks.
fn locate_chunks<'a>(bytes: &'a [u8], table: &[ChunkEntry]) -> FormatResult<ChunkSet<'a>> {
    let table_end = entry_offset(table.len());
    let mut set = ChunkSet {
        found: [None; KNOWN_CHUNKS.len()],
    };
    for (index, entry) in table.iter().enumerate() {
        let data = payload_of(bytes, entry, index, table_end)?;
        let Some(slot) = KNOWN_CHUNKS.iter().position(|&id| id == entry.fourcc) else {
            continue;
        };
        if entry.flags != 0 {
            return Err(FormatError::new(
                entry_offset(index) + offset_of!(ChunkEntry, flags) as u64,
                "ChunkEntry.flags",
                format!(
                    "chunk {index} ({}): flags {:#x}, but v2 defines none",
                    chunk_name(entry.fourcc),
                    entry.flags
                ),
            ));
        }
        let found = Chunk {
            name: KNOWN_CHUNK_NAMES.get(slot).copied().unwrap_or_default(),
            entry_index: index,
            offset: entry.offset,
            data,
        };
        match set.found.get_mut(slot) {
            Some(Some(first)) => {
                return Err(FormatError::new(
                    entry_offset(index),
                    "ChunkEntry.fourcc",
                    format!(
                        "chunk {index} is a second {} chunk (the first is chunk {})",
                        chunk_name(entry.fourcc),
                        first.entry_index
                    ),
                ));
            }
            Some(empty) => *empty = Some(found),
            None => {}
        }
    }
    refuse_overlaps(table, &set)?;
    Ok(set)
}

/// The payload of table row `index`, after checking where it lies.
fn payload_of<'a>(
    bytes: &'a [u8],
    entry: &ChunkEntry,
    index: usize,
    table_end: u64,
) -> FormatResult<&'a [u8]> {
    let at = entry_offset(index);
    let name = chunk_name(entry.fourcc);
    let offset_at = at + offset_of!(ChunkEntry, offset) as u64;
    if entry.offset < table_end {
        return Err(FormatError::new(
            offset_at,
            "ChunkEntry.offset",
            format!(
                "chunk {index} ({name}) starts at {}, inside the header and chunk table \
                 (which end at {table_end})",
                entry.offset
            ),
        ));
    }
    if !entry.offset.is_multiple_of(CHUNK_ALIGN as u64) {
        return Err(FormatError::new(
            offset_at,
            "ChunkEntry.offset",
            format!(
                "chunk {index} ({name}) starts at {}, not a multiple of {CHUNK_ALIGN}",
                entry.offset
            ),
        ));
    }
    let file_len = bytes.len() as u64;
    let end = entry
        .offset
        .checked_add(entry.size)
        .filter(|&end| end <= file_len);
    let Some(end) = end else {
        return Err(FormatError::new(
            at + offset_of!(ChunkEntry, size) as u64,
            "ChunkEntry.size",
            format!(
                "chunk {index} ({name}) of {} bytes at {} runs past the end of the \
                 {file_len}-byte file",
                entry.size, entry.offset
            ),
        ));
    };
    // Both bounds are at most the file length, which is a usize.
    Ok(bytes
        .get(entry.offset as usize..end as usize)
        .unwrap_or_default())
}

/// Refuses any payload that shares bytes with a known chunk's payload.
fn refuse_overlaps(table: &[ChunkEntry], set: &ChunkSet<'_>) -> FormatResult<()> {
    for (index, entry) in table.iter().enumerate() {
        let start = entry.offset;
        let end = entry.offset + entry.size;
        for known in set.found.iter().flatten() {
            let known_end = known.offset + known.data.len() as u64;
            let disjoint = end <= known.offset || known_end <= start;
            if known.entry_index == index || entry.size == 0 || known.data.is_empty() || disjoint {
                continue;
            }
            return Err(FormatError::new(
                entry_offset(index) + offset_of!(ChunkEntry, offset) as u64,
                "ChunkEntry.offset",
                format!(
                    "chunk {index} ({}) at [{start}, {end}) overlaps chunk {} ({}) at \
                     [{}, {known_end})",
                    chunk_name(entry.fourcc),
                    known.entry_index,
                    known.name,
                    known.offset,
                ),
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Reading: arrays.
// ---------------------------------------------------------------------------

/// Lends `chunk` as exactly `count` elements of `T`; `count_field` names the
/// `DESC` field the count comes from.
fn counted_array<'a, T: Pod>(
    chunk: Chunk<'a>,
    count: u32,
    count_field: &str,
) -> FormatResult<&'a [T]> {
    let needed = u64::from(count) * size_of::<T>() as u64;
    let held = chunk.data.len() as u64;
    if held != needed {
        return Err(FormatError::new(
            chunk.entry_at() + offset_of!(ChunkEntry, size) as u64,
            "ChunkEntry.size",
            format!(
                "{} holds {held} bytes, but {count_field} {count} × {} bytes is {needed}",
                chunk_tag(chunk),
                size_of::<T>()
            ),
        ));
    }
    cast_in_place(chunk.data, chunk.offset, chunk.name)
}

/// Lends `chunk` as a whole number of `T`s.
fn whole_array<T: Pod>(chunk: Chunk<'_>) -> FormatResult<&[T]> {
    let held = chunk.data.len();
    if !held.is_multiple_of(size_of::<T>()) {
        return Err(FormatError::new(
            chunk.entry_at() + offset_of!(ChunkEntry, size) as u64,
            "ChunkEntry.size",
            format!(
                "{} holds {held} bytes, not a whole number of {}-byte elements",
                chunk_tag(chunk),
                size_of::<T>()
            ),
        ));
    }
    cast_in_place(chunk.data, chunk.offset, chunk.name)
}

/// A chunk that may be absent only when `DESC.<count_field>` is 0.
fn optional_array<'a, T: Pod>(
    set: &ChunkSet<'a>,
    id: u32,
    count: u32,
    count_field: &str,
) -> FormatResult<&'a [T]> {
    let count_field = format!("DESC.{count_field}");
    match set.get(id) {
        Some(chunk) => counted_array(chunk, count, &count_field),
        None if count == 0 => Ok(&[]),
        None => Err(FormatError::new(
            HEADER_BYTES as u64,
            "ChunkEntry.fourcc",
            format!(
                "the file has no {} chunk, but {count_field} is {count}",
                chunk_name(id)
            ),
        )),
    }
}

/// A chunk's id and table row for messages, e.g. `"MLET (chunk 4)"`.
fn chunk_tag(chunk: Chunk<'_>) -> String {
    format!("{} (chunk {})", chunk.name, chunk.entry_index)
}

/// Reads a chunk that holds exactly one `T`.
fn single<T: Pod>(chunk: Chunk<'_>) -> FormatResult<T> {
    if chunk.data.len() != size_of::<T>() {
        return Err(FormatError::new(
            chunk.entry_at() + offset_of!(ChunkEntry, size) as u64,
            "ChunkEntry.size",
            format!(
                "{} holds {} bytes, but its payload is one {}-byte record",
                chunk_tag(chunk),
                chunk.data.len(),
                size_of::<T>()
            ),
        ));
    }
    Ok(bytemuck::pod_read_unaligned(chunk.data))
}

/// Fails on the first non-finite value of `values`, which start at file
/// offset `at`; `element` describes the owner for the message.
fn require_finite(
    values: &[f32],
    at: u64,
    field: &'static str,
    element: impl FnOnce() -> String,
) -> FormatResult<()> {
    match values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        None => Ok(()),
        Some((k, value)) => Err(FormatError::new(
            at + 4 * k as u64,
            field,
            format!("{}: component {k} is {value}", element()),
        )),
    }
}

/// Checks that all parts of a bounds record are finite and its radius is not
/// negative; `fields` name the box minimum, box maximum, centre and radius.
fn require_sane_bounds(
    bounds: &MeshBounds,
    at: u64,
    fields: [&'static str; 4],
    element: &dyn Fn() -> String,
) -> FormatResult<()> {
    let [min_field, max_field, center_field, radius_field] = fields;
    let parts: [(&[f32], usize, &'static str); 4] = [
        (
            &bounds.aabb_min,
            offset_of!(MeshBounds, aabb_min),
            min_field,
        ),
        (
            &bounds.aabb_max,
            offset_of!(MeshBounds, aabb_max),
            max_field,
        ),
        (
            &bounds.sphere_center,
            offset_of!(MeshBounds, sphere_center),
            center_field,
        ),
        (
            core::slice::from_ref(&bounds.sphere_radius),
            offset_of!(MeshBounds, sphere_radius),
            radius_field,
        ),
    ];
    for (values, offset, field) in parts {
        require_finite(values, at + offset as u64, field, element)?;
    }
    if bounds.sphere_radius < 0.0 {
        return Err(FormatError::new(
            at + offset_of!(MeshBounds, sphere_radius) as u64,
            radius_field,
            format!("{}: radius {} is negative", element(), bounds.sphere_radius),
        ));
    }
    Ok(())
}

/// The mesh box widened by the containment tolerance.
struct BoundsCheck {
    min: [f32; 3],
    max: [f32; 3],
    tolerance: f32,
}

impl BoundsCheck {
    /// The tolerance is [`AABB_TOLERANCE`] times the largest extent, or
    /// times 1 for a smaller box, computed in `f32` like the reference.
    fn new(bounds: &MeshBounds) -> Self {
        let largest = (0..3)
            .map(|axis| bounds.aabb_max[axis] - bounds.aabb_min[axis])
            .fold(1.0_f32, f32::max);
        Self {
            min: bounds.aabb_min,
            max: bounds.aabb_max,
            tolerance: AABB_TOLERANCE * largest,
        }
    }

    /// The first axis on which `point` lies below the box.
    fn below(&self, point: [f32; 3]) -> Option<usize> {
        (0..3).find(|&axis| point[axis] < self.min[axis] - self.tolerance)
    }

    /// The first axis on which `point` lies above the box.
    fn above(&self, point: [f32; 3]) -> Option<usize> {
        (0..3).find(|&axis| point[axis] > self.max[axis] + self.tolerance)
    }

    /// The box for messages.
    fn describe(&self) -> String {
        format!(
            "the mesh box {:?}..{:?} (tolerance {})",
            self.min, self.max, self.tolerance
        )
    }
}

/// `DESC`: present, one record, with a usable stride, width and counts.
fn read_desc(set: &ChunkSet<'_>) -> FormatResult<MeshDesc> {
    let chunk = set.required(chunk::DESC)?;
    let desc: MeshDesc = single(chunk)?;
    let at = |offset: usize| chunk.offset + offset as u64;
    if usize::from(desc.vertex_stride) != size_of::<GpuVertex>() {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, vertex_stride)),
            "MeshDesc.vertexStride",
            format!(
                "stride {} is not the {}-byte GpuVertex",
                desc.vertex_stride,
                size_of::<GpuVertex>()
            ),
        ));
    }
    if !matches!(desc.index_width, 2 | 4) {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, index_width)),
            "MeshDesc.indexWidth",
            format!("index width {} is neither 2 nor 4", desc.index_width),
        ));
    }
    let unknown = desc.flags & !KNOWN_MESH_FLAGS;
    if unknown != 0 {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, flags)),
            "MeshDesc.flags",
            format!("unknown flag bits {unknown:#x}"),
        ));
    }
    if desc.vertex_count == 0 {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, vertex_count)),
            "MeshDesc.vertexCount",
            "a mesh needs at least one vertex",
        ));
    }
    if desc.submesh_count == 0 {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, submesh_count)),
            "MeshDesc.submeshCount",
            "a mesh needs at least one submesh",
        ));
    }
    Ok(desc)
}

/// `BNDS`: present, finite, with an ordered box and a non-negative radius.
fn read_bounds(set: &ChunkSet<'_>) -> FormatResult<MeshBounds> {
    let chunk = set.required(chunk::BNDS)?;
    let bounds: MeshBounds = single(chunk)?;
    let fields = [
        "MeshBounds.aabbMin",
        "MeshBounds.aabbMax",
        "MeshBounds.sphereCenter",
        "MeshBounds.sphereRadius",
    ];
    require_sane_bounds(&bounds, chunk.offset, fields, &|| "mesh bounds".to_owned())?;
    if let Some(axis) = (0..3).find(|&axis| bounds.aabb_max[axis] < bounds.aabb_min[axis]) {
        return Err(FormatError::new(
            chunk.offset + (offset_of!(MeshBounds, aabb_max) + 4 * axis) as u64,
            "MeshBounds.aabbMax",
            format!(
                "axis {axis}: the box maximum {} is below its minimum {}",
                bounds.aabb_max[axis], bounds.aabb_min[axis]
            ),
        ));
    }
    Ok(bounds)
}

/// `VTXS`: one finite vertex per `vertexCount`, each inside the mesh box.
fn read_vertices<'a>(
    set: &ChunkSet<'a>,
    desc: &MeshDesc,
    space: &BoundsCheck,
    depth: Depth,
) -> FormatResult<&'a [GpuVertex]> {
    let chunk = set.required(chunk::VTXS)?;
    let vertices: &[GpuVertex] = counted_array(chunk, desc.vertex_count, "DESC.vertexCount")?;
    if depth == Depth::Layout {
        return Ok(vertices);
    }
    for (i, vertex) in vertices.iter().enumerate() {
        let position_at = chunk.element_at::<GpuVertex>(i, offset_of!(GpuVertex, position));
        let uv_at = chunk.element_at::<GpuVertex>(i, offset_of!(GpuVertex, uv));
        let label = || format!("vertex {i}");
        require_finite(&vertex.position, position_at, "GpuVertex.position", label)?;
        require_finite(&vertex.uv, uv_at, "GpuVertex.uv", label)?;
        let outside = space
            .below(vertex.position)
            .or(space.above(vertex.position));
        if let Some(axis) = outside {
            return Err(FormatError::new(
                position_at + 4 * axis as u64,
                "GpuVertex.position",
                format!(
                    "vertex {i} at {:?} lies outside {}",
                    vertex.position,
                    space.describe()
                ),
            ));
        }
    }
    Ok(vertices)
}

/// `IDXS`: `indexCount` indices of the `DESC` width, each below `vertexCount`.
fn read_indices<'a>(
    set: &ChunkSet<'a>,
    desc: &MeshDesc,
    depth: Depth,
) -> FormatResult<Indices<'a>> {
    let chunk = set.required(chunk::IDXS)?;
    let count_field = "DESC.indexCount";
    let indices = if desc.index_width == 2 {
        Indices::U16(counted_array(chunk, desc.index_count, count_field)?)
    } else {
        Indices::U32(counted_array(chunk, desc.index_count, count_field)?)
    };
    if depth == Depth::Layout {
        return Ok(indices);
    }
    let stray = indices
        .iter()
        .enumerate()
        .find(|&(_, index)| index >= desc.vertex_count);
    if let Some((i, index)) = stray {
        return Err(FormatError::new(
            chunk.offset + (i * usize::from(desc.index_width)) as u64,
            "IDXS",
            format!(
                "index {i} is {index}, but vertexCount is {}",
                desc.vertex_count
            ),
        ));
    }
    Ok(indices)
}

/// The four meshlet chunks.
struct MeshletArrays<'a> {
    meshlets: &'a [Meshlet],
    vertices: &'a [u32],
    triangles: &'a [MeshletTriangle],
    bounds: &'a [MeshletBounds],
}

/// `MLET`, `MLVR`, `MLTR` and `MLBN`, checked against each other.
fn read_meshlets<'a>(
    set: &ChunkSet<'a>,
    desc: &MeshDesc,
    depth: Depth,
) -> FormatResult<MeshletArrays<'a>> {
    let arrays = MeshletArrays {
        meshlets: optional_array(set, chunk::MLET, desc.meshlet_count, "meshletCount")?,
        bounds: optional_array(set, chunk::MLBN, desc.meshlet_count, "meshletCount")?,
        vertices: set.get(chunk::MLVR).map_or(Ok(&[][..]), whole_array)?,
        triangles: set.get(chunk::MLTR).map_or(Ok(&[][..]), whole_array)?,
    };
    if depth == Depth::Layout {
        return Ok(arrays);
    }
    if let Some(mlvr) = set.get(chunk::MLVR) {
        let stray = arrays
            .vertices
            .iter()
            .enumerate()
            .find(|&(_, &vertex)| vertex >= desc.vertex_count);
        if let Some((i, vertex)) = stray {
            return Err(FormatError::new(
                mlvr.element_at::<u32>(i, 0),
                "MLVR",
                format!(
                    "entry {i} is vertex {vertex}, but vertexCount is {}",
                    desc.vertex_count
                ),
            ));
        }
    }
    check_meshlet_layout(&arrays, set, desc)?;
    check_meshlet_bounds(arrays.bounds, set)?;
    Ok(arrays)
}

/// Meshlets lay out `MLVR` and `MLTR` end to end, within the `DESC` limits,
/// and their triangles use only their own vertices.
fn check_meshlet_layout(
    arrays: &MeshletArrays<'_>,
    set: &ChunkSet<'_>,
    desc: &MeshDesc,
) -> FormatResult<()> {
    let mlet = set.get(chunk::MLET);
    let mut next_vertex = 0_u64;
    let mut next_triangle = 0_u64;
    for (m, meshlet) in arrays.meshlets.iter().enumerate() {
        let at = |offset: usize| mlet.map_or(0, |chunk| chunk.element_at::<Meshlet>(m, offset));
        let vertex_span = Span {
            offset: meshlet.vertex_offset,
            count: meshlet.vertex_count,
            limit: desc.meshlet_max_vertices,
            available: arrays.vertices.len(),
            expected: next_vertex,
        };
        let fields = ["Meshlet.vertexOffset", "Meshlet.vertexCount"];
        let offsets = [
            at(offset_of!(Meshlet, vertex_offset)),
            at(offset_of!(Meshlet, vertex_count)),
        ];
        next_vertex = vertex_span.check(m, "MLVR", fields, offsets, "meshletMaxVertices")?;
        let triangle_span = Span {
            offset: meshlet.triangle_offset,
            count: meshlet.triangle_count,
            limit: desc.meshlet_max_triangles,
            available: arrays.triangles.len(),
            expected: next_triangle,
        };
        let fields = ["Meshlet.triangleOffset", "Meshlet.triangleCount"];
        let offsets = [
            at(offset_of!(Meshlet, triangle_offset)),
            at(offset_of!(Meshlet, triangle_count)),
        ];
        next_triangle = triangle_span.check(m, "MLTR", fields, offsets, "meshletMaxTriangles")?;
        check_local_indices(m, meshlet, arrays.triangles, set)?;
    }
    require_fully_used(set.get(chunk::MLVR), arrays.vertices.len(), next_vertex)?;
    require_fully_used(set.get(chunk::MLTR), arrays.triangles.len(), next_triangle)?;
    Ok(())
}

/// One meshlet's slice of `MLVR` or `MLTR`.
struct Span {
    offset: u32,
    count: u32,
    /// The `DESC` limit on `count`.
    limit: u32,
    /// Elements in the array.
    available: usize,
    /// Where the previous meshlet's slice ended.
    expected: u64,
}

impl Span {
    /// Checks the slice of meshlet `m` and returns where it ends.
    fn check(
        &self,
        m: usize,
        array: &str,
        [offset_field, count_field]: [&'static str; 2],
        [offset_at, count_at]: [u64; 2],
        limit_name: &str,
    ) -> FormatResult<u64> {
        if u64::from(self.offset) != self.expected {
            return Err(FormatError::new(
                offset_at,
                offset_field,
                format!(
                    "meshlet {m} starts at {array} element {}, but the meshlets before it end \
                     at {} (meshlets lay out {array} end to end, in order)",
                    self.offset, self.expected
                ),
            ));
        }
        if self.count > self.limit {
            return Err(FormatError::new(
                count_at,
                count_field,
                format!(
                    "meshlet {m} has {} elements, more than DESC.{limit_name} {}",
                    self.count, self.limit
                ),
            ));
        }
        let end = self.expected + u64::from(self.count);
        if end > self.available as u64 {
            return Err(FormatError::new(
                count_at,
                count_field,
                format!(
                    "meshlet {m} runs to {array} element {end}, past its {} elements",
                    self.available
                ),
            ));
        }
        Ok(end)
    }
}

/// Every local index of meshlet `m`'s triangles is below its vertex count.
fn check_local_indices(
    m: usize,
    meshlet: &Meshlet,
    triangles: &[MeshletTriangle],
    set: &ChunkSet<'_>,
) -> FormatResult<()> {
    let first = meshlet.triangle_offset as usize;
    let own = triangles
        .get(first..)
        .and_then(|rest| rest.get(..meshlet.triangle_count as usize))
        .unwrap_or_default();
    for (t, triangle) in own.iter().enumerate() {
        let stray = triangle
            .0
            .iter()
            .enumerate()
            .find(|&(_, &local)| u32::from(local) >= meshlet.vertex_count);
        if let Some((corner, local)) = stray {
            let mltr = set.get(chunk::MLTR).map_or(0, |chunk| chunk.offset);
            return Err(FormatError::new(
                mltr + (3 * (first + t) + corner) as u64,
                "MeshletTriangle",
                format!(
                    "meshlet {m}, triangle {}: local vertex {local} is not below the \
                     meshlet's vertexCount {}",
                    first + t,
                    meshlet.vertex_count
                ),
            ));
        }
    }
    Ok(())
}

/// The meshlets must use every element of `MLVR` / `MLTR`.
fn require_fully_used(chunk: Option<Chunk<'_>>, held: usize, used: u64) -> FormatResult<()> {
    match chunk {
        Some(chunk) if held as u64 != used => Err(FormatError::new(
            chunk.entry_at() + offset_of!(ChunkEntry, size) as u64,
            "ChunkEntry.size",
            format!(
                "{} holds {held} elements, but the meshlets use {used}",
                chunk_tag(chunk)
            ),
        )),
        _ => Ok(()),
    }
}

/// `MLBN`: finite spheres with non-negative radii and finite cones.
fn check_meshlet_bounds(bounds: &[MeshletBounds], set: &ChunkSet<'_>) -> FormatResult<()> {
    let Some(chunk) = set.get(chunk::MLBN) else {
        return Ok(());
    };
    for (m, meshlet) in bounds.iter().enumerate() {
        let at = |offset: usize| chunk.element_at::<MeshletBounds>(m, offset);
        let label = || format!("meshlet {m}");
        let parts: [(&[f32], usize, &'static str); 4] = [
            (
                &meshlet.center,
                offset_of!(MeshletBounds, center),
                "MeshletBounds.center",
            ),
            (
                core::slice::from_ref(&meshlet.radius),
                offset_of!(MeshletBounds, radius),
                "MeshletBounds.radius",
            ),
            (
                &meshlet.cone_axis,
                offset_of!(MeshletBounds, cone_axis),
                "MeshletBounds.coneAxis",
            ),
            (
                core::slice::from_ref(&meshlet.cone_cutoff),
                offset_of!(MeshletBounds, cone_cutoff),
                "MeshletBounds.coneCutoff",
            ),
        ];
        for (values, offset, field) in parts {
            require_finite(values, at(offset), field, label)?;
        }
        if meshlet.radius < 0.0 {
            return Err(FormatError::new(
                at(offset_of!(MeshletBounds, radius)),
                "MeshletBounds.radius",
                format!("meshlet {m}: radius {} is negative", meshlet.radius),
            ));
        }
    }
    Ok(())
}

/// `SUBM`: submeshes that tile the indices and meshlets, with valid slots and
/// bounds inside the mesh box.
fn read_submeshes<'a>(
    set: &ChunkSet<'a>,
    desc: &MeshDesc,
    space: &BoundsCheck,
) -> FormatResult<&'a [SubMesh]> {
    let chunk = set.required(chunk::SUBM)?;
    let submeshes: &[SubMesh] = counted_array(chunk, desc.submesh_count, "DESC.submeshCount")?;
    let mut next_index = 0_u64;
    let mut next_meshlet = 0_u64;
    for (s, submesh) in submeshes.iter().enumerate() {
        let at = |offset: usize| chunk.element_at::<SubMesh>(s, offset);
        check_submesh_ranges(s, submesh, desc, &at, &mut next_index, &mut next_meshlet)?;
        check_submesh_slot(s, submesh, desc, &at)?;
        check_submesh_bounds(s, submesh, space, &at)?;
    }
    let last =
        |offset: usize| chunk.element_at::<SubMesh>(submeshes.len().saturating_sub(1), offset);
    if next_index != u64::from(desc.index_count) {
        return Err(FormatError::new(
            last(offset_of!(SubMesh, index_count)),
            "SubMesh.indexCount",
            format!(
                "the submeshes cover {next_index} of the {} indices",
                desc.index_count
            ),
        ));
    }
    if next_meshlet != u64::from(desc.meshlet_count) {
        return Err(FormatError::new(
            last(offset_of!(SubMesh, meshlet_count)),
            "SubMesh.meshletCount",
            format!(
                "the submeshes cover {next_meshlet} of the {} meshlets",
                desc.meshlet_count
            ),
        ));
    }
    Ok(submeshes)
}

/// Submesh `s` starts where the previous one ended and stays within the
/// `DESC` counts; advances the cursors past it.
fn check_submesh_ranges(
    s: usize,
    submesh: &SubMesh,
    desc: &MeshDesc,
    at: &dyn Fn(usize) -> u64,
    next_index: &mut u64,
    next_meshlet: &mut u64,
) -> FormatResult<()> {
    if u64::from(submesh.first_index) != *next_index {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, first_index)),
            "SubMesh.firstIndex",
            format!(
                "submesh {s} starts at index {}, but the submeshes before it end at {next_index}",
                submesh.first_index
            ),
        ));
    }
    if u64::from(submesh.first_meshlet) != *next_meshlet {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, first_meshlet)),
            "SubMesh.firstMeshlet",
            format!(
                "submesh {s} starts at meshlet {}, but the submeshes before it end at \
                 {next_meshlet}",
                submesh.first_meshlet
            ),
        ));
    }
    if !submesh.index_count.is_multiple_of(3) {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, index_count)),
            "SubMesh.indexCount",
            format!(
                "submesh {s}: {} indices are not whole triangles",
                submesh.index_count
            ),
        ));
    }
    *next_index += u64::from(submesh.index_count);
    if *next_index > u64::from(desc.index_count) {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, index_count)),
            "SubMesh.indexCount",
            format!(
                "submesh {s} runs to index {next_index}, past indexCount {}",
                desc.index_count
            ),
        ));
    }
    *next_meshlet += u64::from(submesh.meshlet_count);
    if *next_meshlet > u64::from(desc.meshlet_count) {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, meshlet_count)),
            "SubMesh.meshletCount",
            format!(
                "submesh {s} runs to meshlet {next_meshlet}, past meshletCount {}",
                desc.meshlet_count
            ),
        ));
    }
    Ok(())
}

/// Submesh `s` names a material row (or none) and has no vertex offset.
fn check_submesh_slot(
    s: usize,
    submesh: &SubMesh,
    desc: &MeshDesc,
    at: &dyn Fn(usize) -> u64,
) -> FormatResult<()> {
    let slot = submesh.material_slot;
    if slot != NO_MATERIAL && slot >= desc.material_count {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, material_slot)),
            "SubMesh.materialSlot",
            format!(
                "submesh {s}: slot {slot} is neither below materialCount {} nor NO_MATERIAL",
                desc.material_count
            ),
        ));
    }
    if submesh.base_vertex != 0 {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, base_vertex)),
            "SubMesh.baseVertex",
            format!(
                "submesh {s}: base vertex {} is not 0 (indices are global)",
                submesh.base_vertex
            ),
        ));
    }
    Ok(())
}

/// Submesh `s` has finite bounds whose box lies inside the mesh box.
fn check_submesh_bounds(
    s: usize,
    submesh: &SubMesh,
    space: &BoundsCheck,
    at: &dyn Fn(usize) -> u64,
) -> FormatResult<()> {
    let bounds_at = at(offset_of!(SubMesh, bounds));
    let field = "SubMesh.bounds";
    let label = || format!("submesh {s}");
    require_sane_bounds(&submesh.bounds, bounds_at, [field; 4], &label)?;
    let low = space
        .below(submesh.bounds.aabb_min)
        .map(|axis| (offset_of!(MeshBounds, aabb_min), axis, "minimum"));
    let high = space
        .above(submesh.bounds.aabb_max)
        .map(|axis| (offset_of!(MeshBounds, aabb_max), axis, "maximum"));
    if let Some((offset, axis, which)) = low.or(high) {
        return Err(FormatError::new(
            bounds_at + (offset + 4 * axis) as u64,
            field,
            format!(
                "submesh {s}: the box {which} {:?}..{:?} reaches outside {} on axis {axis}",
                submesh.bounds.aabb_min,
                submesh.bounds.aabb_max,
                space.describe()
            ),
        ));
    }
    Ok(())
}

/// `SKEL`: a non-empty joint array with finite transforms and a parent forest.
fn read_skeleton<'a>(set: &ChunkSet<'a>) -> FormatResult<&'a [GpuJoint]> {
    let Some(chunk) = set.get(chunk::SKEL) else {
        return Ok(&[]);
    };
    let joints: &[GpuJoint] = whole_array(chunk)?;
    if joints.is_empty() {
        return Err(FormatError::new(
            chunk.entry_at() + offset_of!(ChunkEntry, size) as u64,
            "ChunkEntry.size",
            format!(
                "{} is empty; a skeleton has at least one joint",
                chunk_tag(chunk)
            ),
        ));
    }
    for (j, joint) in joints.iter().enumerate() {
        check_joint(j, joint, joints.len(), chunk)?;
    }
    refuse_cycles(joints, chunk)?;
    Ok(joints)
}

/// Joint `j` of `count`: finite transforms, zero pad, a parent in range.
fn check_joint(j: usize, joint: &GpuJoint, count: usize, chunk: Chunk<'_>) -> FormatResult<()> {
    let at = |offset: usize| chunk.element_at::<GpuJoint>(j, offset);
    let label = || format!("joint {j}");
    let parts: [(&[f32], usize, &'static str); 4] = [
        (
            &joint.inverse_bind,
            offset_of!(GpuJoint, inverse_bind),
            "GpuJoint.inverseBind",
        ),
        (
            &joint.bind_translation,
            offset_of!(GpuJoint, bind_translation),
            "GpuJoint.bindTranslation",
        ),
        (
            &joint.bind_rotation,
            offset_of!(GpuJoint, bind_rotation),
            "GpuJoint.bindRotation",
        ),
        (
            &joint.bind_scale,
            offset_of!(GpuJoint, bind_scale),
            "GpuJoint.bindScale",
        ),
    ];
    for (values, offset, field) in parts {
        require_finite(values, at(offset), field, label)?;
    }
    if joint.pad != 0 {
        return Err(FormatError::new(
            at(offset_of!(GpuJoint, pad)),
            "GpuJoint.pad",
            format!("joint {j}: reserved field is {}, not 0", joint.pad),
        ));
    }
    let parent = joint.parent;
    let problem = match usize::try_from(parent) {
        Err(_) if parent == -1 => None,
        Err(_) => Some(format!("parent {parent} is neither -1 nor a joint index")),
        Ok(p) if p >= count => Some(format!("parent {p} is past the {count} joints")),
        Ok(p) if p == j => Some("the joint is its own parent".to_owned()),
        Ok(_) => None,
    };
    match problem {
        Some(problem) => Err(FormatError::new(
            at(offset_of!(GpuJoint, parent)),
            "GpuJoint.parent",
            format!("joint {j}: {problem}"),
        )),
        None => Ok(()),
    }
}

/// The parent of a joint whose parent index has been checked.
fn parent_of(joint: &GpuJoint) -> Option<usize> {
    usize::try_from(joint.parent).ok()
}

/// Refuses a parent chain that loops, in time linear in the joint count.
///
/// Each walk climbs from a joint towards its root, marking the joints it
/// passes; meeting a joint marked by the same walk means a loop, meeting one
/// from an earlier walk means the rest of the chain is already known to end.
fn refuse_cycles(joints: &[GpuJoint], chunk: Chunk<'_>) -> FormatResult<()> {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Mark {
        Unseen,
        OnWalk,
        EndsAtRoot,
    }
    let mut marks = vec![Mark::Unseen; joints.len()];
    for start in 0..joints.len() {
        let mut current = Some(start);
        while let Some(j) = current {
            match marks.get_mut(j) {
                Some(mark @ Mark::Unseen) => *mark = Mark::OnWalk,
                Some(Mark::OnWalk) => {
                    return Err(FormatError::new(
                        chunk.element_at::<GpuJoint>(j, offset_of!(GpuJoint, parent)),
                        "GpuJoint.parent",
                        format!("joint {j} is its own ancestor: its parent chain loops"),
                    ));
                }
                Some(Mark::EndsAtRoot) | None => break,
            }
            current = joints.get(j).and_then(parent_of);
        }
        let mut current = Some(start);
        while let Some(j) = current {
            match marks.get_mut(j) {
                Some(mark @ Mark::OnWalk) => *mark = Mark::EndsAtRoot,
                _ => break,
            }
            current = joints.get(j).and_then(parent_of);
        }
    }
    Ok(())
}

/// `SKIN`: one entry per vertex, joints inside `SKEL` (when present), weights
/// finite, non-negative and summing to 1.
fn read_skin<'a>(
    set: &ChunkSet<'a>,
    desc: &MeshDesc,
    joint_count: usize,
    depth: Depth,
) -> FormatResult<&'a [GpuSkinVertex]> {
    let Some(chunk) = set.get(chunk::SKIN) else {
        return Ok(&[]);
    };
    let skin: &[GpuSkinVertex] = counted_array(chunk, desc.vertex_count, "DESC.vertexCount")?;
    if depth == Depth::Layout {
        return Ok(skin);
    }
    for (v, influence) in skin.iter().enumerate() {
        let at = |offset: usize| chunk.element_at::<GpuSkinVertex>(v, offset);
        let stray = influence
            .joints
            .iter()
            .enumerate()
            .find(|&(_, &joint)| joint_count > 0 && usize::from(joint) >= joint_count);
        if let Some((k, joint)) = stray {
            return Err(FormatError::new(
                at(offset_of!(GpuSkinVertex, joints) + 2 * k),
                "GpuSkinVertex.joints",
                format!("vertex {v}: joint {joint} is past the {joint_count} SKEL joints"),
            ));
        }
        check_weights(
            v,
            &influence.weights,
            at(offset_of!(GpuSkinVertex, weights)),
        )?;
    }
    Ok(skin)
}

/// The weights of vertex `v`, stored at `at`.
fn check_weights(v: usize, weights: &[f32; 4], at: u64) -> FormatResult<()> {
    let field = "GpuSkinVertex.weights";
    let bad = weights
        .iter()
        .enumerate()
        .find(|(_, w)| !w.is_finite() || **w < 0.0);
    if let Some((k, weight)) = bad {
        return Err(FormatError::new(
            at + 4 * k as u64,
            field,
            format!("vertex {v}: weight {k} is {weight}"),
        ));
    }
    let sum: f32 = weights.iter().sum();
    if (sum - 1.0).abs() > SKIN_WEIGHT_TOLERANCE {
        return Err(FormatError::new(
            at,
            field,
            format!("vertex {v}: the weights sum to {sum}, not 1 (± {SKIN_WEIGHT_TOLERANCE})"),
        ));
    }
    Ok(())
}

/// The reduced levels.
struct LodArrays<'a> {
    lod_count: u32,
    indices: &'a [u32],
    table: &'a [MeshLod],
}

/// `LODI` and `LODT`: a table that agrees with `DESC`, rows inside `LODI`,
/// indices below `vertexCount`.
fn read_lods<'a>(set: &ChunkSet<'a>, desc: &MeshDesc, depth: Depth) -> FormatResult<LodArrays<'a>> {
    let lodi = set.get(chunk::LODI);
    let Some(lodt) = set.get(chunk::LODT) else {
        if let Some(lodi) = lodi {
            return Err(FormatError::new(
                lodi.entry_at(),
                "ChunkEntry.fourcc",
                format!("{} has no LODT chunk to describe it", chunk_tag(lodi)),
            ));
        }
        return Ok(LodArrays {
            lod_count: 0,
            indices: &[],
            table: &[],
        });
    };
    let indices: &[u32] = lodi.map_or(Ok(&[][..]), whole_array)?;
    if let Some(lodi) = lodi.filter(|_| depth == Depth::Full) {
        let stray = indices
            .iter()
            .enumerate()
            .find(|&(_, &index)| index >= desc.vertex_count);
        if let Some((i, index)) = stray {
            return Err(FormatError::new(
                lodi.element_at::<u32>(i, 0),
                "LODI",
                format!(
                    "index {i} is {index}, but vertexCount is {}",
                    desc.vertex_count
                ),
            ));
        }
    }
    let (lod_count, table) = read_lod_table(lodt, desc)?;
    check_lod_rows(table, lod_count, indices.len(), lodt)?;
    Ok(LodArrays {
        lod_count,
        indices,
        table,
    })
}

/// The `LODT` header and rows, sized by the header.
fn read_lod_table<'a>(lodt: Chunk<'a>, desc: &MeshDesc) -> FormatResult<(u32, &'a [MeshLod])> {
    let header_bytes = size_of::<LodTableHeader>();
    let size_at = lodt.entry_at() + offset_of!(ChunkEntry, size) as u64;
    let Some((head, rows)) = lodt.data.split_at_checked(header_bytes) else {
        return Err(FormatError::new(
            size_at,
            "ChunkEntry.size",
            format!(
                "{} holds {} bytes, less than its {header_bytes}-byte header",
                chunk_tag(lodt),
                lodt.data.len()
            ),
        ));
    };
    let header: LodTableHeader = bytemuck::pod_read_unaligned(head);
    if header.submesh_count != desc.submesh_count {
        return Err(FormatError::new(
            lodt.offset + offset_of!(LodTableHeader, submesh_count) as u64,
            "LodTableHeader.submeshCount",
            format!(
                "{} submeshes, but DESC.submeshCount is {}",
                header.submesh_count, desc.submesh_count
            ),
        ));
    }
    let row_count = u64::from(header.lod_count) * u64::from(header.submesh_count);
    let needed = row_count * size_of::<MeshLod>() as u64;
    if rows.len() as u64 != needed {
        return Err(FormatError::new(
            size_at,
            "ChunkEntry.size",
            format!(
                "{} holds {} bytes of rows, but {} levels × {} submeshes need {needed}",
                chunk_tag(lodt),
                rows.len(),
                header.lod_count,
                header.submesh_count
            ),
        ));
    }
    let table = cast_in_place(rows, lodt.offset + header_bytes as u64, "MeshLod")?;
    Ok((header.lod_count, table))
}

/// Every non-empty level is whole triangles inside `LODI`.
fn check_lod_rows(
    table: &[MeshLod],
    lod_count: u32,
    lodi_len: usize,
    lodt: Chunk<'_>,
) -> FormatResult<()> {
    let rows_at = lodt.offset + size_of::<LodTableHeader>() as u64;
    for (r, lod) in table.iter().enumerate() {
        if lod.index_count == 0 {
            continue;
        }
        let row_at = rows_at + (r * size_of::<MeshLod>()) as u64;
        let levels = lod_count.max(1) as usize;
        let which = format!("row {r} (submesh {}, level {})", r / levels, r % levels);
        if lod.index_count % 3 != 0 {
            return Err(FormatError::new(
                row_at + offset_of!(MeshLod, index_count) as u64,
                "MeshLod.indexCount",
                format!(
                    "{which}: {} indices are not whole triangles",
                    lod.index_count
                ),
            ));
        }
        let end = u64::from(lod.first_index) + u64::from(lod.index_count);
        if end > lodi_len as u64 {
            return Err(FormatError::new(
                row_at + offset_of!(MeshLod, first_index) as u64,
                "MeshLod.firstIndex",
                format!(
                    "{which}: indices [{}, {end}) run past the {lodi_len} LODI indices",
                    lod.first_index
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::oct::{oct_encode, oct_encode_tangent};

    // -- fixtures ------------------------------------------------------------

    fn vertex(position: [f32; 3], uv: [f32; 2]) -> GpuVertex {
        GpuVertex {
            position,
            normal: oct_encode([0.0, 0.0, 1.0]),
            tangent: oct_encode_tangent([1.0, 0.0, 0.0], -1.0),
            uv,
        }
    }

    fn bounds(min: [f32; 3], max: [f32; 3]) -> MeshBounds {
        let center = [0, 1, 2].map(|k| 0.5 * (min[k] + max[k]));
        let half = [0, 1, 2].map(|k| 0.5 * (max[k] - min[k]));
        MeshBounds {
            aabb_min: min,
            aabb_max: max,
            sphere_center: center,
            sphere_radius: (half[0] * half[0] + half[1] * half[1] + half[2] * half[2]).sqrt(),
        }
    }

    fn quad_vertices(z: f32) -> [GpuVertex; 4] {
        [
            vertex([0.0, 0.0, z], [0.0, 1.0]),
            vertex([1.0, 0.0, z], [1.0, 1.0]),
            vertex([1.0, 1.0, z], [1.0, 0.0]),
            vertex([0.0, 1.0, z], [0.0, 0.0]),
        ]
    }

    fn meshlet_bounds(z: f32) -> MeshletBounds {
        MeshletBounds {
            center: [0.5, 0.5, z],
            radius: 0.75,
            cone_axis: [0.0, 0.0, 1.0],
            cone_cutoff: 0.5,
        }
    }

    /// Two unit quads (z = 0 and z = 1), one submesh and one meshlet each, no
    /// skin and no LODs.
    fn static_mesh() -> MeshData {
        let mut vertices = quad_vertices(0.0).to_vec();
        vertices.extend(quad_vertices(1.0));
        MeshData {
            vertices,
            indices: vec![0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7],
            meshlets: vec![
                Meshlet {
                    vertex_offset: 0,
                    vertex_count: 4,
                    triangle_offset: 0,
                    triangle_count: 2,
                },
                Meshlet {
                    vertex_offset: 4,
                    vertex_count: 4,
                    triangle_offset: 2,
                    triangle_count: 2,
                },
            ],
            meshlet_vertices: (0..8).collect(),
            meshlet_triangles: vec![
                MeshletTriangle([0, 1, 2]),
                MeshletTriangle([0, 2, 3]),
                MeshletTriangle([0, 1, 2]),
                MeshletTriangle([0, 2, 3]),
            ],
            meshlet_bounds: vec![meshlet_bounds(0.0), meshlet_bounds(1.0)],
            materials: vec![0x1111_2222_3333_4444, 0x5555_6666_7777_8888],
            submeshes: vec![
                SubMesh {
                    first_index: 0,
                    index_count: 6,
                    first_meshlet: 0,
                    meshlet_count: 1,
                    material_slot: 1,
                    base_vertex: 0,
                    bounds: bounds([0.0, 0.0, 0.0], [1.0, 1.0, 0.0]),
                },
                SubMesh {
                    first_index: 6,
                    index_count: 6,
                    first_meshlet: 1,
                    meshlet_count: 1,
                    material_slot: NO_MATERIAL,
                    base_vertex: 0,
                    bounds: bounds([0.0, 0.0, 1.0], [1.0, 1.0, 1.0]),
                },
            ],
            bounds: bounds([0.0; 3], [1.0; 3]),
            flags: MESH_FLAG_HAS_TANGENTS,
            meshlet_max_vertices: 64,
            meshlet_max_triangles: 124,
            ..MeshData::default()
        }
    }

    fn joint(parent: i32) -> GpuJoint {
        let mut inverse_bind = [0.0; 16];
        for k in 0..4 {
            inverse_bind[5 * k] = 1.0;
        }
        GpuJoint {
            inverse_bind,
            bind_translation: [0.0, 1.0, 0.0],
            bind_rotation: [0.0, 0.0, 0.0, 1.0],
            bind_scale: [1.0; 3],
            parent,
            pad: 0,
        }
    }

    /// [`static_mesh`] plus a three-joint chain, skin weights and two LODs
    /// per submesh (the second level of submesh 0 stalled).
    fn full_mesh() -> MeshData {
        let mut mesh = static_mesh();
        mesh.skeleton = vec![joint(-1), joint(0), joint(1)];
        mesh.skin = (0..8)
            .map(|v| GpuSkinVertex {
                joints: [v % 3, (v + 1) % 3, 2, 0],
                weights: [0.5, 0.25, 0.25, 0.0],
            })
            .collect();
        mesh.lod_count = 2;
        mesh.lod_indices = vec![0, 1, 2, 4, 5, 6, 4, 6, 7];
        mesh.lod_table = vec![
            MeshLod {
                first_index: 0,
                index_count: 3,
            },
            MeshLod {
                first_index: 0,
                index_count: 0,
            },
            MeshLod {
                first_index: 3,
                index_count: 3,
            },
            MeshLod {
                first_index: 6,
                index_count: 3,
            },
        ];
        mesh
    }

    fn write(mesh: &MeshData) -> Vec<u8> {
        match write_hmesh(mesh) {
            Ok(bytes) => bytes,
            Err(err) => panic!("the fixture is invalid: {err}"),
        }
    }

    /// A file with exactly these chunks, laid out like the writer does but
    /// without any validation.
    fn craft(chunks: Vec<(u32, Vec<u8>)>) -> Vec<u8> {
        let payloads: Vec<(u32, Cow<'_, [u8]>)> = chunks
            .into_iter()
            .map(|(id, data)| (id, Cow::Owned(data)))
            .collect();
        assemble(&lay_out(&payloads), &payloads)
    }

    /// The chunks of a valid file, as owned payloads.
    fn chunks_of(bytes: &[u8]) -> Vec<(u32, Vec<u8>)> {
        table_of(bytes)
            .iter()
            .map(|entry| {
                let start = entry.offset as usize;
                (
                    entry.fourcc,
                    bytes[start..start + entry.size as usize].to_vec(),
                )
            })
            .collect()
    }

    fn table_of(bytes: &[u8]) -> Vec<ChunkEntry> {
        let count = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
        (0..count)
            .map(|i| {
                let at = HEADER_BYTES + i * ENTRY_BYTES;
                bytemuck::pod_read_unaligned(&bytes[at..at + ENTRY_BYTES])
            })
            .collect()
    }

    /// Row index of chunk `id` in the table.
    fn row_of(bytes: &[u8], id: u32) -> usize {
        table_of(bytes)
            .iter()
            .position(|entry| entry.fourcc == id)
            .unwrap()
    }

    /// File offset of the payload of chunk `id`.
    fn payload_at(bytes: &[u8], id: u32) -> u64 {
        table_of(bytes)[row_of(bytes, id)].offset
    }

    /// File offset of field `field` of the table row of chunk `id`.
    fn entry_field_at(bytes: &[u8], id: u32, field: usize) -> usize {
        HEADER_BYTES + row_of(bytes, id) * ENTRY_BYTES + field
    }

    fn put<T: Pod>(bytes: &mut [u8], at: usize, value: T) {
        bytes[at..at + size_of::<T>()].copy_from_slice(bytemuck::bytes_of(&value));
    }

    #[track_caller]
    fn assert_error<T: core::fmt::Debug>(result: FormatResult<T>, field: &str, offset: u64) {
        match result {
            Ok(value) => panic!("expected {field} at {offset}, got Ok({value:?})"),
            Err(err) => assert_eq!(
                (err.field, err.offset),
                (field, offset),
                "unexpected error: {err}"
            ),
        }
    }

    /// The error for `full_mesh` after `change`, which must keep every array
    /// length (so the offsets of the unchanged file apply).
    #[track_caller]
    fn assert_refused(change: impl FnOnce(&mut MeshData), field: &str, offset: u64) {
        let mut mesh = full_mesh();
        change(&mut mesh);
        assert_error(write_hmesh(&mesh), field, offset);
    }

    /// File offset of element `index` of chunk `id`, plus `field`.
    fn element_at<T>(id: u32, index: usize, field: usize) -> u64 {
        payload_at(&write(&full_mesh()), id) + (index * size_of::<T>() + field) as u64
    }

    /// The error for the bytes of `full_mesh` after `change`.
    #[track_caller]
    fn assert_bytes_refused(change: impl FnOnce(&mut Vec<u8>), field: &str, offset: u64) {
        let mut bytes = write(&full_mesh());
        change(&mut bytes);
        assert_error(validate(&bytes), field, offset);
    }

    // -- round trips -----------------------------------------------------------

    #[test]
    fn round_trips_a_static_mesh_with_u16_indices() {
        let mesh = static_mesh();
        let bytes = write(&mesh);
        let parsed = parse_hmesh(&bytes).unwrap();
        assert_eq!(parsed.desc.index_width, 2);
        assert!(matches!(parsed.indices, Indices::U16(_)));
        assert_eq!(parsed.chunks.len(), 10);
        assert!(parsed.skin.is_empty() && parsed.skeleton.is_empty());
        assert_eq!(parsed.lod_count, 0);
        assert_eq!(parsed.to_mesh_data(), mesh);
        assert_eq!(read_hmesh(&bytes).unwrap(), mesh);
    }

    #[test]
    fn round_trips_skin_skeleton_and_lods() {
        let mesh = full_mesh();
        let bytes = write(&mesh);
        let parsed = parse_hmesh(&bytes).unwrap();
        let ids: Vec<u32> = parsed.chunks.iter().map(|entry| entry.fourcc).collect();
        assert_eq!(ids, KNOWN_CHUNKS);
        assert_eq!(parsed.to_mesh_data(), mesh);
        assert_eq!(parsed.lod(1, 1), Some(mesh.lod_table[3]));
        assert_eq!(parsed.lod(0, 2), None);
        assert_eq!(parsed.lod(2, 0), None);
    }

    #[test]
    fn round_trips_only_a_skeleton_or_only_lods() {
        let mut mesh = full_mesh();
        mesh.skin.clear();
        assert_eq!(read_hmesh(&write(&mesh)).unwrap(), mesh);
        let mut mesh = full_mesh();
        mesh.skeleton.clear();
        mesh.lod_count = 0;
        mesh.lod_indices.clear();
        mesh.lod_table.clear();
        let bytes = write(&mesh);
        assert_eq!(table_of(&bytes).len(), 11);
        assert_eq!(read_hmesh(&bytes).unwrap(), mesh);
    }

    #[test]
    fn round_trips_a_mesh_without_meshlets() {
        let mut mesh = static_mesh();
        mesh.meshlets.clear();
        mesh.meshlet_vertices.clear();
        mesh.meshlet_triangles.clear();
        mesh.meshlet_bounds.clear();
        for submesh in &mut mesh.submeshes {
            submesh.first_meshlet = 0;
            submesh.meshlet_count = 0;
        }
        let bytes = write(&mesh);
        let table = table_of(&bytes);
        assert!(table[4..8].iter().all(|entry| entry.size == 0));
        assert_eq!(read_hmesh(&bytes).unwrap(), mesh);
        // A reader also accepts the empty meshlet chunks being left out.
        let chunks: Vec<_> = chunks_of(&bytes)
            .into_iter()
            .filter(|(_, data)| !data.is_empty())
            .collect();
        assert_eq!(chunks.len(), 6);
        assert_eq!(read_hmesh(&craft(chunks)).unwrap(), mesh);
    }

    /// One triangle over `count` vertices spread along the x axis.
    fn line_mesh(count: u32) -> MeshData {
        let vertices = (0..count)
            .map(|i| vertex([i as f32, 0.0, 0.0], [0.0, 0.0]))
            .collect();
        let max = [(count - 1) as f32, 0.0, 0.0];
        MeshData {
            vertices,
            indices: vec![0, 1, count - 1],
            submeshes: vec![SubMesh {
                index_count: 3,
                material_slot: NO_MATERIAL,
                bounds: bounds([0.0; 3], max),
                ..SubMesh::default()
            }],
            bounds: bounds([0.0; 3], max),
            ..MeshData::default()
        }
    }

    #[test]
    fn switches_to_u32_indices_above_65535_vertices() {
        let narrow = line_mesh(65_535);
        let bytes = write(&narrow);
        let parsed = parse_hmesh(&bytes).unwrap();
        assert_eq!(parsed.indices, Indices::U16(&[0, 1, 65_534]));
        assert_eq!(parsed.to_mesh_data(), narrow);

        let wide = line_mesh(65_536);
        let bytes = write(&wide);
        let parsed = parse_hmesh(&bytes).unwrap();
        assert_eq!(parsed.desc.index_width, 4);
        assert_eq!(parsed.indices, Indices::U32(&[0, 1, 65_535]));
        assert_eq!(table_of(&bytes)[3].size, 12);
        assert_eq!(parsed.to_mesh_data(), wide);
    }

    #[test]
    fn indices_widen_and_iterate() {
        let narrow = Indices::U16(&[1, 65_535]);
        let wide = Indices::U32(&[7, 70_000, 3]);
        assert_eq!(
            (narrow.len(), narrow.width(), narrow.get(1)),
            (2, 2, Some(65_535))
        );
        assert_eq!(
            (wide.len(), wide.width(), wide.get(1)),
            (3, 4, Some(70_000))
        );
        assert_eq!(narrow.get(2), None);
        assert_eq!(wide.iter().collect::<Vec<_>>(), [7, 70_000, 3]);
        assert_eq!(narrow.iter().collect::<Vec<_>>(), [1, 65_535]);
        assert!(Indices::U16(&[]).is_empty());
    }

    // -- golden layout -----------------------------------------------------------

    #[test]
    fn lays_out_a_tiny_mesh_byte_for_byte() {
        let mesh = MeshData {
            vertices: quad_vertices(0.0)[..3].to_vec(),
            indices: vec![0, 1, 2],
            meshlets: vec![Meshlet {
                vertex_offset: 0,
                vertex_count: 3,
                triangle_offset: 0,
                triangle_count: 1,
            }],
            meshlet_vertices: vec![0, 1, 2],
            meshlet_triangles: vec![MeshletTriangle([0, 1, 2])],
            meshlet_bounds: vec![meshlet_bounds(0.0)],
            materials: vec![0xAABB_CCDD_EEFF_0011],
            submeshes: vec![SubMesh {
                index_count: 3,
                meshlet_count: 1,
                material_slot: 0,
                bounds: bounds([0.0; 3], [1.0, 1.0, 0.0]),
                ..SubMesh::default()
            }],
            bounds: bounds([0.0; 3], [1.0, 1.0, 0.0]),
            flags: MESH_FLAG_HAS_TANGENTS,
            meshlet_max_vertices: 64,
            meshlet_max_triangles: 124,
            ..MeshData::default()
        };
        let bytes = write(&mesh);
        // 32-byte header + 10 rows of 24 = 272, already a multiple of 16.
        let expected: [(&[u8; 4], u64, u64); 10] = [
            (b"DESC", 272, 32),
            (b"BNDS", 304, 40),
            (b"VTXS", 352, 84),
            (b"IDXS", 448, 6),
            (b"MLET", 464, 16),
            (b"MLVR", 480, 12),
            (b"MLTR", 496, 3),
            (b"MLBN", 512, 32),
            (b"MTRL", 544, 8),
            (b"SUBM", 560, 64),
        ];
        assert_eq!(bytes.len(), 624, "no padding after the last payload");
        assert_eq!(&bytes[..16], b"HMSH\x02\0\0\0\x0a\0\0\0\0\0\0\0");
        assert!(bytes[16..32].iter().all(|&b| b == 0));
        for (row, (id, offset, size)) in expected.iter().enumerate() {
            let at = HEADER_BYTES + row * ENTRY_BYTES;
            assert_eq!(&bytes[at..at + 4], *id, "row {row}");
            assert_eq!(&bytes[at + 4..at + 8], [0; 4], "row {row} flags");
            assert_eq!(&bytes[at + 8..at + 16], offset.to_le_bytes(), "row {row}");
            assert_eq!(&bytes[at + 16..at + 24], size.to_le_bytes(), "row {row}");
        }
        for gap in [344..352, 436..448, 454..464, 492..496, 499..512, 552..560] {
            assert!(
                bytes[gap.clone()].iter().all(|&b| b == 0),
                "padding {gap:?}"
            );
        }
        // DESC: counts 3, 3, 1, 1, 1; stride 28; width 2; flags 1; limits 64, 124.
        let desc: Vec<u8> = [3_u32, 3, 1, 1, 1]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .chain([28, 0, 2, 1])
            .chain(64_u32.to_le_bytes())
            .chain(124_u32.to_le_bytes())
            .collect();
        assert_eq!(&bytes[272..304], desc.as_slice());
        assert_eq!(&bytes[448..454], [0, 0, 1, 0, 2, 0]);
        assert_eq!(&bytes[496..499], [0, 1, 2]);
        assert_eq!(&bytes[544..552], 0xAABB_CCDD_EEFF_0011_u64.to_le_bytes());
        // SUBM: slot 0 at +16, base vertex 0 at +20.
        assert_eq!(&bytes[576..584], [0; 8]);
    }

    // -- header and chunk table --------------------------------------------------

    #[test]
    fn rejects_a_truncated_header() {
        let bytes = write(&static_mesh());
        assert_error(validate(&bytes[..31]), "FileHeader", 0);
        assert_error(validate(&[]), "FileHeader", 0);
    }

    #[test]
    fn rejects_bad_magic_and_version() {
        assert_bytes_refused(|b| b[0] = b'X', "FileHeader.magic", 0);
        assert_bytes_refused(|b| b[4] = 1, "FileHeader.version", 4);
    }

    #[test]
    fn rejects_nonzero_reserved_header_fields() {
        assert_bytes_refused(|b| b[12] = 1, "FileHeader.flags", 12);
        assert_bytes_refused(|b| b[16] = 1, "FileHeader.reserved1", 16);
        assert_bytes_refused(|b| b[31] = 1, "FileHeader.reserved2", 24);
    }

    #[test]
    fn rejects_a_chunk_table_past_the_end() {
        assert_bytes_refused(|b| put(b, 8, 1000_u32), "FileHeader.chunkCount", 8);
        assert_bytes_refused(|b| put(b, 8, u32::MAX), "FileHeader.chunkCount", 8);
    }

    #[test]
    fn rejects_a_payload_past_the_end() {
        let bytes = write(&full_mesh());
        let size_at = entry_field_at(&bytes, chunk::VTXS, 16);
        let offset_at = entry_field_at(&bytes, chunk::VTXS, 8);
        let len = bytes.len() as u64;
        assert_bytes_refused(|b| put(b, size_at, len), "ChunkEntry.size", size_at as u64);
        assert_bytes_refused(
            |b| put(b, size_at, u64::MAX),
            "ChunkEntry.size",
            size_at as u64,
        );
        let beyond = len.next_multiple_of(16) + 16;
        assert_bytes_refused(
            |b| put(b, offset_at, beyond),
            "ChunkEntry.size",
            size_at as u64,
        );
        let huge = u64::MAX - 15;
        assert_bytes_refused(
            |b| put(b, offset_at, huge),
            "ChunkEntry.size",
            size_at as u64,
        );
    }

    #[test]
    fn rejects_payloads_inside_the_table_or_misaligned() {
        let bytes = write(&full_mesh());
        let at = entry_field_at(&bytes, chunk::MTRL, 8);
        assert_bytes_refused(|b| put(b, at, 32_u64), "ChunkEntry.offset", at as u64);
        let misaligned = payload_at(&bytes, chunk::MTRL) + 4;
        assert_bytes_refused(|b| put(b, at, misaligned), "ChunkEntry.offset", at as u64);
    }

    #[test]
    fn rejects_a_duplicate_chunk() {
        let bytes = write(&full_mesh());
        let at = entry_field_at(&bytes, chunk::MLBN, 0);
        assert_bytes_refused(|b| put(b, at, chunk::MLET), "ChunkEntry.fourcc", at as u64);
    }

    #[test]
    fn rejects_overlapping_chunks() {
        let bytes = write(&full_mesh());
        let idxs_offset_at = entry_field_at(&bytes, chunk::IDXS, 8);
        let vtxs = payload_at(&bytes, chunk::VTXS);
        // IDXS now lies inside VTXS: reported at the first row that overlaps.
        let vtxs_offset_at = entry_field_at(&bytes, chunk::VTXS, 8) as u64;
        assert_bytes_refused(
            |b| put(b, idxs_offset_at, vtxs + 16),
            "ChunkEntry.offset",
            vtxs_offset_at,
        );
        // An unknown chunk may not overlap a known one either.
        let mut chunks = chunks_of(&write(&static_mesh()));
        chunks.push((fourcc(b"XTRA"), vec![1; 16]));
        let mut crafted = craft(chunks);
        let xtra_offset_at = HEADER_BYTES + 10 * ENTRY_BYTES + 8;
        let desc = payload_at(&crafted, chunk::DESC);
        put(&mut crafted, xtra_offset_at, desc);
        assert_error(
            validate(&crafted),
            "ChunkEntry.offset",
            xtra_offset_at as u64,
        );
    }

    #[test]
    fn rejects_flags_on_known_chunks() {
        let bytes = write(&full_mesh());
        let at = entry_field_at(&bytes, chunk::SUBM, 4);
        assert_bytes_refused(|b| b[at] = 1, "ChunkEntry.flags", at as u64);
    }

    #[test]
    fn skips_unknown_chunks() {
        let mut chunks = chunks_of(&write(&full_mesh()));
        chunks.insert(2, (fourcc(b"XTRA"), vec![0xEE; 5]));
        let mut crafted = craft(chunks);
        // Unknown chunks may carry flags and repeat.
        crafted[HEADER_BYTES + 2 * ENTRY_BYTES + 4] = 7;
        assert_eq!(read_hmesh(&crafted).unwrap(), full_mesh());
    }

    #[test]
    fn looks_up_any_chunk_by_id() {
        let mut chunks = chunks_of(&write(&static_mesh()));
        chunks.push((fourcc(b"XTRA"), vec![0xAB; 5]));
        let crafted = craft(chunks);
        let mesh = parse_hmesh(&crafted).unwrap();
        assert_eq!(mesh.chunk(fourcc(b"XTRA")), Some(&[0xAB; 5][..]));
        let vertices: &[u8] = bytemuck::cast_slice(mesh.vertices);
        assert_eq!(mesh.chunk(chunk::VTXS), Some(vertices));
        let desc = mesh.chunk(chunk::DESC).unwrap();
        assert_eq!(bytemuck::pod_read_unaligned::<MeshDesc>(desc), mesh.desc);
        assert_eq!(mesh.chunk(fourcc(b"NONE")), None);
        assert_eq!(mesh.chunk(chunk::SKEL), None);
        let ids: Vec<u32> = mesh.chunk_ids().collect();
        assert_eq!(ids.len(), 11);
        assert_eq!(ids.first(), Some(&chunk::DESC));
        assert_eq!(ids.last(), Some(&fourcc(b"XTRA")));
        assert_eq!(mesh.file_bytes(), crafted.as_slice());
    }

    #[test]
    fn rejects_missing_required_chunks() {
        let bytes = write(&full_mesh());
        for id in [
            chunk::DESC,
            chunk::BNDS,
            chunk::VTXS,
            chunk::IDXS,
            chunk::SUBM,
        ] {
            let at = entry_field_at(&bytes, id, 0);
            let mut broken = bytes.clone();
            put(&mut broken, at, fourcc(b"GONE"));
            let err = validate(&broken).unwrap_err();
            assert_eq!((err.field, err.offset), ("ChunkEntry.fourcc", 32), "{err}");
            assert!(err.what.contains(&chunk_name(id)), "{err}");
        }
    }

    #[test]
    fn rejects_optional_chunks_missing_while_counted() {
        let bytes = write(&full_mesh());
        for id in [chunk::MLET, chunk::MLBN, chunk::MTRL] {
            let at = entry_field_at(&bytes, id, 0);
            let mut broken = bytes.clone();
            put(&mut broken, at, fourcc(b"GONE"));
            assert_error(validate(&broken), "ChunkEntry.fourcc", 32);
        }
    }

    // -- DESC and BNDS -------------------------------------------------------

    #[test]
    fn rejects_a_desc_of_the_wrong_size() {
        let bytes = write(&full_mesh());
        let at = entry_field_at(&bytes, chunk::DESC, 16);
        assert_bytes_refused(|b| put(b, at, 28_u64), "ChunkEntry.size", at as u64);
    }

    #[test]
    fn rejects_bad_stride_width_and_flags() {
        let desc = payload_at(&write(&full_mesh()), chunk::DESC) as usize;
        assert_bytes_refused(
            |b| put(b, desc + 20, 36_u16),
            "MeshDesc.vertexStride",
            desc as u64 + 20,
        );
        assert_bytes_refused(
            |b| b[desc + 22] = 3,
            "MeshDesc.indexWidth",
            desc as u64 + 22,
        );
        assert_bytes_refused(|b| b[desc + 23] = 0x81, "MeshDesc.flags", desc as u64 + 23);
    }

    #[test]
    fn rejects_a_mesh_without_vertices_or_submeshes() {
        let mut empty = MeshData {
            submeshes: vec![SubMesh::default()],
            ..MeshData::default()
        };
        assert_error(write_hmesh(&empty), "MeshDesc.vertexCount", 272);
        empty = line_mesh(3);
        empty.indices.clear();
        empty.submeshes.clear();
        assert_error(write_hmesh(&empty), "MeshDesc.submeshCount", 272 + 12);
    }

    #[test]
    fn rejects_chunk_sizes_that_disagree_with_desc() {
        let bytes = write(&full_mesh());
        let desc = payload_at(&bytes, chunk::DESC) as usize;
        let cases = [
            (0, chunk::VTXS),
            (4, chunk::IDXS),
            (8, chunk::MLET),
            (16, chunk::MTRL),
        ];
        for (field, id) in cases {
            let at = entry_field_at(&bytes, id, 16) as u64;
            assert_bytes_refused(|b| put(b, desc + field, 5_u32), "ChunkEntry.size", at);
        }
        let at = entry_field_at(&bytes, chunk::SUBM, 16) as u64;
        assert_bytes_refused(|b| put(b, desc + 12, 5_u32), "ChunkEntry.size", at);
        let at = entry_field_at(&bytes, chunk::MLBN, 16) as u64;
        assert_refused(|m| m.meshlet_bounds.truncate(1), "ChunkEntry.size", at);
    }

    #[test]
    fn rejects_broken_mesh_bounds() {
        let bnds = element_at::<MeshBounds>(chunk::BNDS, 0, 0);
        assert_refused(
            |m| m.bounds.aabb_min[1] = f32::NAN,
            "MeshBounds.aabbMin",
            bnds + 4,
        );
        assert_refused(
            |m| m.bounds.aabb_max[0] = f32::INFINITY,
            "MeshBounds.aabbMax",
            bnds + 12,
        );
        assert_refused(
            |m| m.bounds.sphere_radius = -1.0,
            "MeshBounds.sphereRadius",
            bnds + 36,
        );
        assert_refused(
            |m| m.bounds.sphere_center[2] = f32::NAN,
            "MeshBounds.sphereCenter",
            bnds + 32,
        );
        let inverted = |m: &mut MeshData| {
            m.bounds.aabb_min[2] = 2.0;
        };
        assert_refused(inverted, "MeshBounds.aabbMax", bnds + 20);
    }

    // -- vertices and indices ------------------------------------------------

    #[test]
    fn rejects_vertices_outside_the_box_beyond_the_tolerance() {
        let position = element_at::<GpuVertex>(chunk::VTXS, 5, 0);
        assert_refused(
            |m| m.vertices[5].position[1] = 1.0001,
            "GpuVertex.position",
            position + 4,
        );
        assert_refused(
            |m| m.vertices[5].position[2] = -0.0001,
            "GpuVertex.position",
            position + 8,
        );
        // Within 1e-5 of the unit box: accepted, as by the reference.
        let mut mesh = full_mesh();
        mesh.vertices[5].position[1] = 1.000_005;
        assert!(write_hmesh(&mesh).is_ok());
    }

    #[test]
    fn scales_the_tolerance_with_the_box() {
        let mut mesh = line_mesh(1001);
        mesh.vertices[3].position[1] = 0.009;
        assert!(write_hmesh(&mesh).is_ok(), "tolerance 1e-5 × 1000");
        mesh.vertices[3].position[1] = 0.011;
        assert_error(write_hmesh(&mesh), "GpuVertex.position", 352 + 3 * 28 + 4);
    }

    #[test]
    fn rejects_non_finite_vertices() {
        let vertex = element_at::<GpuVertex>(chunk::VTXS, 2, 0);
        assert_refused(
            |m| m.vertices[2].position[0] = f32::NAN,
            "GpuVertex.position",
            vertex,
        );
        assert_refused(
            |m| m.vertices[2].uv[1] = f32::INFINITY,
            "GpuVertex.uv",
            vertex + 24,
        );
    }

    #[test]
    fn layout_depth_lends_elements_unchecked_but_checks_every_size() {
        // Element values: refused by the full parse, lent by the layout one.
        let mut bytes = write(&full_mesh());
        let idxs = payload_at(&bytes, chunk::IDXS) as usize;
        bytes[idxs + 14..idxs + 16].copy_from_slice(&9_u16.to_le_bytes());
        let vtxs = payload_at(&bytes, chunk::VTXS) as usize;
        bytes[vtxs..vtxs + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert_error(validate(&bytes), "GpuVertex.position", vtxs as u64);
        with_aligned(&bytes, |aligned| {
            let view = parse_hmesh_at(aligned, Depth::Layout)?;
            assert_eq!(view.indices.get(7), Some(9));
            assert!(view.vertices[0].position[0].is_nan());
            assert_eq!(view.submeshes, &full_mesh().submeshes[..]);
            Ok(())
        })
        .unwrap();
        // Structure: a count that disagrees with its chunk is refused by both.
        let mut bytes = write(&full_mesh());
        let desc = payload_at(&bytes, chunk::DESC) as usize;
        let count_at = desc + offset_of!(MeshDesc, index_count);
        bytes[count_at..count_at + 4].copy_from_slice(&99_u32.to_le_bytes());
        let layout = with_aligned(&bytes, |aligned| {
            parse_hmesh_at(aligned, Depth::Layout).map(drop)
        });
        assert_eq!(layout.unwrap_err().field, "ChunkEntry.size");
        assert_eq!(validate(&bytes).unwrap_err().field, "ChunkEntry.size");
    }

    #[test]
    fn rejects_indices_past_the_vertices() {
        let idxs = element_at::<u16>(chunk::IDXS, 0, 0);
        assert_refused(|m| m.indices[7] = 8, "IDXS", idxs + 14);
        // Too large for the 16-bit width: refused before it is truncated.
        let err = {
            let mut mesh = full_mesh();
            mesh.indices[4] = 70_000;
            write_hmesh(&mesh).unwrap_err()
        };
        assert_eq!((err.field, err.offset), ("IDXS", idxs + 8));
        assert!(err.what.contains("70000"), "{err}");
        let mut wide = line_mesh(65_536);
        wide.indices[1] = 65_536;
        let bytes = write(&line_mesh(65_536));
        let at = payload_at(&bytes, chunk::IDXS) + 4;
        assert_error(write_hmesh(&wide), "IDXS", at);
    }

    // -- meshlets ----------------------------------------------------------------

    #[test]
    fn rejects_meshlet_vertices_past_the_vertices() {
        let mlvr = element_at::<u32>(chunk::MLVR, 6, 0);
        assert_refused(|m| m.meshlet_vertices[6] = 8, "MLVR", mlvr);
    }

    #[test]
    fn rejects_meshlets_that_do_not_tile_their_arrays() {
        let meshlet = element_at::<Meshlet>(chunk::MLET, 1, 0);
        assert_refused(
            |m| m.meshlets[1].vertex_offset = 3,
            "Meshlet.vertexOffset",
            meshlet,
        );
        assert_refused(
            |m| m.meshlets[1].triangle_offset = 1,
            "Meshlet.triangleOffset",
            meshlet + 8,
        );
        assert_refused(
            |m| m.meshlets[1].vertex_count = 5,
            "Meshlet.vertexCount",
            meshlet + 4,
        );
        assert_refused(
            |m| m.meshlets[1].triangle_count = 3,
            "Meshlet.triangleCount",
            meshlet + 12,
        );
        // Elements no meshlet uses.
        let bytes = write(&full_mesh());
        let at = entry_field_at(&bytes, chunk::MLVR, 16) as u64;
        let shorter = |m: &mut MeshData| {
            m.meshlets[1].vertex_count = 3;
            m.meshlet_triangles[3] = MeshletTriangle([0, 1, 2]);
        };
        assert_refused(shorter, "ChunkEntry.size", at);
        let at = entry_field_at(&bytes, chunk::MLTR, 16) as u64;
        assert_refused(|m| m.meshlets[1].triangle_count = 1, "ChunkEntry.size", at);
    }

    #[test]
    fn rejects_meshlets_over_the_desc_limits() {
        let meshlet = element_at::<Meshlet>(chunk::MLET, 0, 0);
        assert_refused(
            |m| m.meshlet_max_vertices = 3,
            "Meshlet.vertexCount",
            meshlet + 4,
        );
        assert_refused(
            |m| m.meshlet_max_triangles = 1,
            "Meshlet.triangleCount",
            meshlet + 12,
        );
    }

    #[test]
    fn rejects_local_indices_past_the_meshlet() {
        let corner = element_at::<MeshletTriangle>(chunk::MLTR, 3, 2);
        assert_refused(
            |m| m.meshlet_triangles[3].0[2] = 4,
            "MeshletTriangle",
            corner,
        );
    }

    #[test]
    fn rejects_a_partial_meshlet_triangle_chunk() {
        let bytes = write(&full_mesh());
        let at = entry_field_at(&bytes, chunk::MLTR, 16);
        assert_bytes_refused(|b| put(b, at, 11_u64), "ChunkEntry.size", at as u64);
        let at = entry_field_at(&bytes, chunk::MLVR, 16);
        assert_bytes_refused(|b| put(b, at, 30_u64), "ChunkEntry.size", at as u64);
    }

    #[test]
    fn rejects_broken_meshlet_bounds() {
        let bounds = element_at::<MeshletBounds>(chunk::MLBN, 1, 0);
        assert_refused(
            |m| m.meshlet_bounds[1].center[1] = f32::NAN,
            "MeshletBounds.center",
            bounds + 4,
        );
        assert_refused(
            |m| m.meshlet_bounds[1].radius = -0.5,
            "MeshletBounds.radius",
            bounds + 12,
        );
        assert_refused(
            |m| m.meshlet_bounds[1].cone_axis[0] = f32::NAN,
            "MeshletBounds.coneAxis",
            bounds + 16,
        );
        assert_refused(
            |m| m.meshlet_bounds[1].cone_cutoff = f32::INFINITY,
            "MeshletBounds.coneCutoff",
            bounds + 28,
        );
    }

    // -- submeshes -------------------------------------------------------------

    #[test]
    fn rejects_submeshes_that_do_not_tile_the_indices() {
        let second = element_at::<SubMesh>(chunk::SUBM, 1, 0);
        let first = element_at::<SubMesh>(chunk::SUBM, 0, 0);
        assert_refused(
            |m| m.submeshes[1].first_index = 3,
            "SubMesh.firstIndex",
            second,
        );
        assert_refused(
            |m| m.submeshes[0].index_count = 3,
            "SubMesh.firstIndex",
            second,
        );
        assert_refused(
            |m| m.submeshes[1].index_count = 3,
            "SubMesh.indexCount",
            second + 4,
        );
        assert_refused(
            |m| m.submeshes[1].index_count = 9,
            "SubMesh.indexCount",
            second + 4,
        );
        assert_refused(
            |m| m.submeshes[0].index_count = u32::MAX - 2,
            "SubMesh.indexCount",
            first + 4,
        );
    }

    #[test]
    fn rejects_submeshes_that_do_not_tile_the_meshlets() {
        let second = element_at::<SubMesh>(chunk::SUBM, 1, 0);
        assert_refused(
            |m| m.submeshes[1].first_meshlet = 0,
            "SubMesh.firstMeshlet",
            second + 8,
        );
        assert_refused(
            |m| m.submeshes[1].meshlet_count = 0,
            "SubMesh.meshletCount",
            second + 12,
        );
        assert_refused(
            |m| m.submeshes[1].meshlet_count = 2,
            "SubMesh.meshletCount",
            second + 12,
        );
    }

    #[test]
    fn rejects_partial_triangles_in_a_submesh() {
        let change = |m: &mut MeshData| {
            m.submeshes[0].index_count = 5;
            m.submeshes[1].first_index = 5;
            m.submeshes[1].index_count = 7;
        };
        let first = element_at::<SubMesh>(chunk::SUBM, 0, 0);
        assert_refused(change, "SubMesh.indexCount", first + 4);
    }

    #[test]
    fn rejects_an_unknown_material_slot() {
        let first = element_at::<SubMesh>(chunk::SUBM, 0, 0);
        assert_refused(
            |m| m.submeshes[0].material_slot = 2,
            "SubMesh.materialSlot",
            first + 16,
        );
        assert_refused(
            |m| m.submeshes[0].material_slot = u32::MAX - 1,
            "SubMesh.materialSlot",
            first + 16,
        );
    }

    #[test]
    fn rejects_a_base_vertex() {
        let first = element_at::<SubMesh>(chunk::SUBM, 0, 0);
        assert_refused(
            |m| m.submeshes[0].base_vertex = 4,
            "SubMesh.baseVertex",
            first + 20,
        );
    }

    #[test]
    fn rejects_submesh_bounds_outside_the_mesh_or_not_finite() {
        let bounds = element_at::<SubMesh>(chunk::SUBM, 1, 24);
        assert_refused(
            |m| m.submeshes[1].bounds.aabb_max[2] = 1.5,
            "SubMesh.bounds",
            bounds + 20,
        );
        assert_refused(
            |m| m.submeshes[1].bounds.aabb_min[0] = -0.5,
            "SubMesh.bounds",
            bounds,
        );
        assert_refused(
            |m| m.submeshes[1].bounds.sphere_radius = f32::NAN,
            "SubMesh.bounds",
            bounds + 36,
        );
        assert_refused(
            |m| m.submeshes[1].bounds.sphere_radius = -2.0,
            "SubMesh.bounds",
            bounds + 36,
        );
    }

    // -- skinning ----------------------------------------------------------------

    #[test]
    fn rejects_skin_of_the_wrong_length() {
        let mut mesh = full_mesh();
        mesh.skin.pop();
        let bytes = write(&full_mesh());
        let at = entry_field_at(&bytes, chunk::SKIN, 16) as u64;
        assert_error(write_hmesh(&mesh), "ChunkEntry.size", at);
    }

    #[test]
    fn rejects_skin_joints_past_the_skeleton() {
        let influence = element_at::<GpuSkinVertex>(chunk::SKIN, 4, 0);
        assert_refused(
            |m| m.skin[4].joints[3] = 3,
            "GpuSkinVertex.joints",
            influence + 6,
        );
        // Without a skeleton there is nothing to compare with.
        let mut mesh = full_mesh();
        mesh.skeleton.clear();
        mesh.skin[4].joints[3] = 300;
        assert!(write_hmesh(&mesh).is_ok());
    }

    #[test]
    fn rejects_bad_skin_weights() {
        let weights = element_at::<GpuSkinVertex>(chunk::SKIN, 6, 8);
        assert_refused(
            |m| m.skin[6].weights[1] = f32::NAN,
            "GpuSkinVertex.weights",
            weights + 4,
        );
        let negative = |m: &mut MeshData| m.skin[6].weights = [1.25, -0.25, 0.0, 0.0];
        assert_refused(negative, "GpuSkinVertex.weights", weights + 4);
        assert_refused(
            |m| m.skin[6].weights[3] = 0.002,
            "GpuSkinVertex.weights",
            weights,
        );
        let mut mesh = full_mesh();
        mesh.skin[6].weights[3] = 0.0009;
        assert!(write_hmesh(&mesh).is_ok(), "within 1e-3 of 1");
    }

    #[test]
    fn rejects_an_empty_or_ragged_skeleton_chunk() {
        let bytes = write(&full_mesh());
        let at = entry_field_at(&bytes, chunk::SKEL, 16);
        assert_bytes_refused(|b| put(b, at, 0_u64), "ChunkEntry.size", at as u64);
        assert_bytes_refused(|b| put(b, at, 200_u64), "ChunkEntry.size", at as u64);
    }

    #[test]
    fn rejects_bad_parents() {
        let parent = element_at::<GpuJoint>(chunk::SKEL, 1, 104);
        assert_refused(|m| m.skeleton[1].parent = 3, "GpuJoint.parent", parent);
        assert_refused(|m| m.skeleton[1].parent = -2, "GpuJoint.parent", parent);
        assert_refused(|m| m.skeleton[1].parent = 1, "GpuJoint.parent", parent);
    }

    #[test]
    fn rejects_parent_cycles_but_not_unordered_parents() {
        // 0 -> 1 -> 2 -> 1: the walk from 0 meets joint 1 again.
        let parent_1 = element_at::<GpuJoint>(chunk::SKEL, 1, 104);
        let looped = |m: &mut MeshData| {
            m.skeleton[0].parent = 1;
            m.skeleton[1].parent = 2;
            m.skeleton[2].parent = 1;
        };
        assert_refused(looped, "GpuJoint.parent", parent_1);
        let parent_0 = element_at::<GpuJoint>(chunk::SKEL, 0, 104);
        let everyone_has_a_parent = |m: &mut MeshData| {
            m.skeleton[0].parent = 2;
        };
        assert_refused(everyone_has_a_parent, "GpuJoint.parent", parent_0);
        // A child listed before its parent is fine (glTF does not order joints).
        let mut mesh = full_mesh();
        mesh.skeleton[0].parent = 2;
        mesh.skeleton[1].parent = 2;
        mesh.skeleton[2].parent = -1;
        assert!(write_hmesh(&mesh).is_ok());
    }

    #[test]
    fn rejects_broken_joints() {
        let joint = element_at::<GpuJoint>(chunk::SKEL, 2, 0);
        assert_refused(
            |m| m.skeleton[2].inverse_bind[9] = f32::NAN,
            "GpuJoint.inverseBind",
            joint + 36,
        );
        assert_refused(
            |m| m.skeleton[2].bind_translation[0] = f32::INFINITY,
            "GpuJoint.bindTranslation",
            joint + 64,
        );
        assert_refused(
            |m| m.skeleton[2].bind_rotation[3] = f32::NAN,
            "GpuJoint.bindRotation",
            joint + 88,
        );
        assert_refused(
            |m| m.skeleton[2].bind_scale[1] = f32::NAN,
            "GpuJoint.bindScale",
            joint + 96,
        );
        assert_refused(|m| m.skeleton[2].pad = 1, "GpuJoint.pad", joint + 108);
    }

    // -- LODs --------------------------------------------------------------------

    #[test]
    fn rejects_a_lod_table_that_disagrees_with_desc() {
        let bytes = write(&full_mesh());
        let lodt = payload_at(&bytes, chunk::LODT) as usize;
        assert_bytes_refused(
            |b| put(b, lodt + 4, 3_u32),
            "LodTableHeader.submeshCount",
            lodt as u64 + 4,
        );
        let size_at = entry_field_at(&bytes, chunk::LODT, 16) as u64;
        assert_bytes_refused(|b| put(b, lodt, 3_u32), "ChunkEntry.size", size_at);
        assert_refused(|m| m.lod_count = 1, "ChunkEntry.size", size_at);
        let at = entry_field_at(&bytes, chunk::LODT, 16);
        assert_bytes_refused(|b| put(b, at, 4_u64), "ChunkEntry.size", at as u64);
    }

    #[test]
    fn rejects_lod_rows_outside_lodi() {
        let row = |r: usize, field: u64| {
            payload_at(&write(&full_mesh()), chunk::LODT) + 8 + 8 * r as u64 + field
        };
        assert_refused(
            |m| m.lod_table[3].index_count = 4,
            "MeshLod.indexCount",
            row(3, 4),
        );
        assert_refused(
            |m| m.lod_table[3].first_index = 7,
            "MeshLod.firstIndex",
            row(3, 0),
        );
        assert_refused(
            |m| m.lod_table[2].first_index = u32::MAX,
            "MeshLod.firstIndex",
            row(2, 0),
        );
        // A stalled level's start is not looked at.
        let mut mesh = full_mesh();
        mesh.lod_table[1].first_index = 1000;
        assert!(write_hmesh(&mesh).is_ok());
    }

    #[test]
    fn rejects_lod_indices_past_the_vertices() {
        let lodi = element_at::<u32>(chunk::LODI, 5, 0);
        assert_refused(|m| m.lod_indices[5] = 8, "LODI", lodi);
        let bytes = write(&full_mesh());
        let at = entry_field_at(&bytes, chunk::LODI, 16);
        assert_bytes_refused(|b| put(b, at, 35_u64), "ChunkEntry.size", at as u64);
    }

    #[test]
    fn rejects_lod_indices_without_a_table() {
        let chunks: Vec<_> = chunks_of(&write(&full_mesh()))
            .into_iter()
            .filter(|(id, _)| *id != chunk::LODT)
            .collect();
        let crafted = craft(chunks);
        let at = HEADER_BYTES + 12 * ENTRY_BYTES;
        assert_error(validate(&crafted), "ChunkEntry.fourcc", at as u64);
    }

    #[test]
    fn refuses_lod_data_without_a_level_count() {
        let mut mesh = full_mesh();
        mesh.lod_count = 0;
        assert_error(write_hmesh(&mesh), "LodTableHeader.lodCount", 0);
    }

    // -- alignment and robustness -------------------------------------------------

    #[test]
    fn reports_a_misaligned_buffer_instead_of_panicking() {
        let bytes = write(&full_mesh());
        let mut shifted = vec![0_u64; bytes.len() / 8 + 2];
        let raw = bytemuck::cast_slice_mut::<u64, u8>(&mut shifted);
        raw[4..4 + bytes.len()].copy_from_slice(&bytes);
        let misaligned = &raw[4..4 + bytes.len()];
        let err = parse_hmesh(misaligned).unwrap_err();
        assert_eq!((err.field, err.offset), ("ChunkEntry", 32), "{err}");
        assert!(err.what.contains("aligned"), "{err}");
        assert_eq!(read_hmesh(misaligned).unwrap(), full_mesh());
    }

    #[test]
    fn every_truncation_is_rejected_without_panicking() {
        let bytes = write(&full_mesh());
        for len in 0..bytes.len() {
            assert!(validate(&bytes[..len]).is_err(), "length {len}");
        }
    }

    /// A small deterministic xorshift generator.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn survives_random_corruption() {
        let bytes = write(&full_mesh());
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut rejected = 0;
        for _ in 0..20_000 {
            let mut corrupt = bytes.clone();
            for _ in 0..=rng.next() % 3 {
                let at = rng.next() as usize % corrupt.len();
                corrupt[at] = match rng.next() % 4 {
                    0 => 0,
                    1 => 0xFF,
                    2 => corrupt[at] ^ (1 << (rng.next() % 8)),
                    _ => rng.next() as u8,
                };
            }
            if validate(&corrupt).is_err() {
                rejected += 1;
            }
        }
        // Most bytes matter; a check that accepted everything would fail here.
        assert!(rejected > 10_000, "only {rejected} corruptions rejected");
    }
}
