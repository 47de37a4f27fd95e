//! The `.hmesh` tests: round trips, the byte layout, and one test or more
//! for every rule the reader checks.

use std::borrow::Cow;

use core::mem::offset_of;

use bytemuck::Pod;

use super::read::with_aligned;
use super::write::{assemble, lay_out};
use super::*;
use crate::format::oct::{oct_encode, oct_encode_tangent};
use crate::format::test_support::assert_error;

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
