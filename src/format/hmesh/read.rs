//! Reading a `.hmesh`: the entry points, the in-place view [`HMesh`], the
//! header and chunk table, and one reader per known chunk that lends its
//! array once the size is right and hands the values to the rules in
//! `check` (all of them at [`Depth::Full`], the structural ones at
//! [`Depth::Layout`]).

use core::mem::offset_of;

use bytemuck::Pod;

use super::check::{
    BoundsCheck, check_desc, check_lod_rows, check_mesh_bounds, check_meshlets, check_skeleton,
    check_skin, check_submeshes, check_vertex_refs, check_vertices,
};
use super::chunks::{Chunk, ChunkSet, MeshletArrays, chunk_tag, entry_offset};
use super::layout::{
    CHUNK_ALIGN, ChunkEntry, ENTRY_BYTES, FileHeader, GpuJoint, GpuSkinVertex, GpuVertex,
    HEADER_BYTES, KNOWN_CHUNK_NAMES, KNOWN_CHUNKS, LodTableHeader, MAGIC, MeshBounds, MeshData,
    MeshDesc, MeshLod, Meshlet, MeshletBounds, MeshletTriangle, SubMesh, VERSION, chunk,
    chunk_name,
};
use crate::format::bytes::{FileId, cast_in_place, read_fixed_header, require_little_endian};
use crate::format::error::{FormatError, FormatResult};

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

    /// The payload of the first chunk with id `id` (see
    /// [`fourcc`](super::fourcc) and [`chunk`]), known or not, or `None` if
    /// the table has no such chunk.
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

/// Runs `check` on `bytes`, or on an 8-byte aligned copy of them if they are
/// not aligned.
pub(super) fn with_aligned<R>(
    bytes: &[u8],
    check: impl FnOnce(&[u8]) -> FormatResult<R>,
) -> FormatResult<R> {
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

// ---------------------------------------------------------------------------
// Reading: one known chunk at a time.
// ---------------------------------------------------------------------------

/// `DESC`: present, one record, with a usable stride, width and counts.
fn read_desc(set: &ChunkSet<'_>) -> FormatResult<MeshDesc> {
    let chunk = set.required(chunk::DESC)?;
    let desc: MeshDesc = single(chunk)?;
    check_desc(&desc, chunk.offset)?;
    Ok(desc)
}

/// `BNDS`: present, finite, with an ordered box and a non-negative radius.
fn read_bounds(set: &ChunkSet<'_>) -> FormatResult<MeshBounds> {
    let chunk = set.required(chunk::BNDS)?;
    let bounds: MeshBounds = single(chunk)?;
    check_mesh_bounds(&bounds, chunk.offset)?;
    Ok(bounds)
}

/// `VTXS`: one vertex per `vertexCount`; at [`Depth::Full`] each finite and
/// inside the mesh box.
fn read_vertices<'a>(
    set: &ChunkSet<'a>,
    desc: &MeshDesc,
    space: &BoundsCheck,
    depth: Depth,
) -> FormatResult<&'a [GpuVertex]> {
    let chunk = set.required(chunk::VTXS)?;
    let vertices: &[GpuVertex] = counted_array(chunk, desc.vertex_count, "DESC.vertexCount")?;
    if depth == Depth::Full {
        check_vertices(vertices, chunk, space)?;
    }
    Ok(vertices)
}

/// `IDXS`: `indexCount` indices of the `DESC` width; at [`Depth::Full`] each
/// below `vertexCount`.
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
    if depth == Depth::Full {
        let stored = (chunk.offset, usize::from(desc.index_width));
        check_vertex_refs(
            indices.iter(),
            stored,
            "IDXS",
            desc.vertex_count,
            |i, index| format!("index {i} is {index}"),
        )?;
    }
    Ok(indices)
}

/// `MLET`, `MLVR`, `MLTR` and `MLBN`; at [`Depth::Full`] checked against
/// each other.
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
    if depth == Depth::Full {
        check_meshlets(&arrays, set, desc)?;
    }
    Ok(arrays)
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
    check_submeshes(submeshes, chunk, desc, space)?;
    Ok(submeshes)
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
    check_skeleton(joints, chunk)?;
    Ok(joints)
}

/// `SKIN`: one entry per vertex; at [`Depth::Full`] joints inside `SKEL`
/// (when present), weights finite, non-negative and summing to 1.
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
    if depth == Depth::Full {
        check_skin(skin, chunk, joint_count)?;
    }
    Ok(skin)
}

/// The reduced levels.
struct LodArrays<'a> {
    lod_count: u32,
    indices: &'a [u32],
    table: &'a [MeshLod],
}

/// `LODI` and `LODT`: a table that agrees with `DESC`, rows inside `LODI`,
/// indices below `vertexCount` (at [`Depth::Full`]).
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
        let stored = (lodi.offset, size_of::<u32>());
        check_vertex_refs(
            indices.iter().copied(),
            stored,
            "LODI",
            desc.vertex_count,
            |i, index| format!("index {i} is {index}"),
        )?;
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
