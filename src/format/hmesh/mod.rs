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
//! A [`FormatError`](crate::format::error::FormatError) names the byte
//! offset of the offending element, the field (`"SubMesh.materialSlot"`,
//! `"ChunkEntry.size"`, ...) and, in its message, the element's index.
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
//!
//! # Where the code lives
//!
//! - `layout`: the on-disk structs, the constants and chunk ids, and
//!   [`MeshData`], the writer's input;
//! - `write`: [`write_hmesh`], which lays the chunks out and checks the result;
//! - `read`: the entry points ([`parse_hmesh`], [`parse_hmesh_at`],
//!   [`validate`], [`read_hmesh`]), the chunk table and the per-chunk readers
//!   that lend the arrays;
//! - `check`: the rules on element values that the readers apply (bounds,
//!   meshlet and submesh tiling, the skeleton, skin weights, LOD ranges).
//!
//! Every public item is re-exported here, so `format::hmesh::X` is the one
//! path to it.

mod check;
mod chunks;
mod layout;
mod read;
mod write;

#[cfg(test)]
mod tests;

pub use layout::{
    AABB_TOLERANCE, CHUNK_ALIGN, ChunkEntry, ENTRY_BYTES, FileHeader, GpuJoint, GpuSkinVertex,
    GpuVertex, HEADER_BYTES, KNOWN_CHUNKS, KNOWN_MESH_FLAGS, LodTableHeader, MAGIC,
    MESH_FLAG_HAS_TANGENTS, MeshBounds, MeshData, MeshDesc, MeshLod, Meshlet, MeshletBounds,
    MeshletTriangle, NO_MATERIAL, SKIN_WEIGHT_TOLERANCE, SubMesh, VERSION, chunk, chunk_name,
    fourcc,
};
pub use read::{Depth, HMesh, Indices, parse_hmesh, parse_hmesh_at, read_hmesh, validate};
pub use write::write_hmesh;
