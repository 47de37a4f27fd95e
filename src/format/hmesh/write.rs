//! Writing a `.hmesh`: [`write_hmesh`] describes the mesh, lays every chunk
//! out on its 16-byte boundary, assembles the bytes and checks them with the
//! reader's rules before handing them back.

use std::borrow::Cow;

use super::layout::{
    CHUNK_ALIGN, ChunkEntry, ENTRY_BYTES, FileHeader, GpuVertex, HEADER_BYTES, LodTableHeader,
    MAGIC, MeshData, MeshDesc, VERSION, chunk,
};
use super::read::validate;
use crate::format::error::{FormatError, FormatResult};

/// Serialises a mesh into `.hmesh` v2 bytes.
///
/// The result is run through the same checks as
/// [`parse_hmesh`](super::parse_hmesh) before it is returned, so inconsistent
/// input (a count that disagrees with its array, an index past the vertices,
/// a submesh gap, ...) is refused with the error a reader would report for
/// the file. Input that cannot be laid out at all (a count above `u32::MAX`,
/// `LOD` data with `lod_count == 0`, an index too large for the 16-bit width)
/// is refused with offset 0 or the offset the element would have had.
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
pub(super) fn lay_out(payloads: &[(u32, Cow<'_, [u8]>)]) -> Vec<ChunkEntry> {
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
pub(super) fn assemble(table: &[ChunkEntry], payloads: &[(u32, Cow<'_, [u8]>)]) -> Vec<u8> {
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
