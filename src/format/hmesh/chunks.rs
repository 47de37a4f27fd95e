//! The chunks of a `.hmesh` as the reader finds them: each known chunk with
//! its table row and payload, and the meshlet arrays read together. Shared
//! by the reader (`read.rs`), which finds them, and the checks (`check.rs`),
//! which name them in their errors.

use super::layout::{
    ENTRY_BYTES, HEADER_BYTES, KNOWN_CHUNKS, Meshlet, MeshletBounds, MeshletTriangle, chunk_name,
};
use crate::format::error::{FormatError, FormatResult};

/// A known chunk found in the table.
#[derive(Debug, Clone, Copy)]
pub(super) struct Chunk<'a> {
    /// The chunk's id as text, e.g. `"VTXS"`.
    pub(super) name: &'static str,
    /// Row in the chunk table.
    pub(super) entry_index: usize,
    /// File offset of the payload.
    pub(super) offset: u64,
    /// The payload.
    pub(super) data: &'a [u8],
}

impl Chunk<'_> {
    /// File offset of this chunk's table row.
    pub(super) fn entry_at(&self) -> u64 {
        entry_offset(self.entry_index)
    }

    /// File offset of field `field_offset` of element `index` of `T`s.
    pub(super) fn element_at<T>(&self, index: usize, field_offset: usize) -> u64 {
        self.offset + (index * size_of::<T>() + field_offset) as u64
    }
}

/// The known chunks of a file, by id.
pub(super) struct ChunkSet<'a> {
    /// Indexed like [`KNOWN_CHUNKS`].
    pub(super) found: [Option<Chunk<'a>>; KNOWN_CHUNKS.len()],
}

impl<'a> ChunkSet<'a> {
    /// The chunk with id `id`, if present.
    pub(super) fn get(&self, id: u32) -> Option<Chunk<'a>> {
        let slot = KNOWN_CHUNKS.iter().position(|&known| known == id)?;
        self.found.get(slot).copied().flatten()
    }

    /// The chunk with id `id`, or an error saying the file lacks it.
    pub(super) fn required(&self, id: u32) -> FormatResult<Chunk<'a>> {
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
pub(super) fn entry_offset(index: usize) -> u64 {
    (HEADER_BYTES + index * ENTRY_BYTES) as u64
}

/// A chunk's id and table row for messages, e.g. `"MLET (chunk 4)"`.
pub(super) fn chunk_tag(chunk: Chunk<'_>) -> String {
    format!("{} (chunk {})", chunk.name, chunk.entry_index)
}

/// The four meshlet chunks.
pub(super) struct MeshletArrays<'a> {
    /// `MLET`.
    pub(super) meshlets: &'a [Meshlet],
    /// `MLVR`.
    pub(super) vertices: &'a [u32],
    /// `MLTR`.
    pub(super) triangles: &'a [MeshletTriangle],
    /// `MLBN`.
    pub(super) bounds: &'a [MeshletBounds],
}
