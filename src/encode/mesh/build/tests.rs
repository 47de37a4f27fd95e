//! Tests of the geometry build, on shapes generated here: a grid, a UV
//! sphere and cubes.

use std::collections::BTreeMap;

use bytemuck::Zeroable;

use super::*;
use crate::encode::mesh::scene::{SkinInfluence, SourceMaterial};
use crate::format::hash::asset_hash;
use crate::format::hmesh::SubMesh;
use crate::format::hmesh::{
    GpuJoint, GpuVertex, MESH_FLAG_HAS_TANGENTS, MeshBounds, MeshLod, NO_MATERIAL,
};

// ---------------------------------------------------------------------------
// Shapes

/// A primitive with positions and indices only.
fn bare(label: &str, positions: Vec<[f32; 3]>, indices: Vec<u32>) -> Primitive {
    Primitive {
        label: label.to_owned(),
        positions,
        indices,
        ..Primitive::default()
    }
}

/// A unit square in the XY plane split into `n x n` quads, facing +Z, with
/// normals and UVs (u along +X, v along -Y).
fn grid(n: u32) -> Primitive {
    let mut positions = Vec::new();
    let mut uvs = Vec::new();
    for y in 0..=n {
        for x in 0..=n {
            let (u, v) = (x as f32 / n as f32, y as f32 / n as f32);
            positions.push([u, 1.0 - v, 0.0]);
            uvs.push([u, v]);
        }
    }
    let at = |x: u32, y: u32| y * (n + 1) + x;
    let mut indices = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let (a, b, c, d) = (at(x, y), at(x + 1, y), at(x + 1, y + 1), at(x, y + 1));
            // Counter-clockwise seen from +Z (y grows downwards in rows).
            indices.extend([a, d, b, b, d, c]);
        }
    }
    Primitive {
        label: "grid".to_owned(),
        normals: Some(vec![[0.0, 0.0, 1.0]; positions.len()]),
        uvs: Some(uvs),
        positions,
        indices,
        ..Primitive::default()
    }
}

/// A unit UV sphere with `segments` columns and `rings` rows, outward
/// counter-clockwise triangles, smooth normals and UVs (u around, v down).
fn uv_sphere(segments: u32, rings: u32) -> Primitive {
    let mut positions = Vec::new();
    let mut uvs = Vec::new();
    for ring in 0..=rings {
        let theta = std::f32::consts::PI * ring as f32 / rings as f32;
        for segment in 0..=segments {
            let phi = std::f32::consts::TAU * segment as f32 / segments as f32;
            positions.push([
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            ]);
            uvs.push([segment as f32 / segments as f32, ring as f32 / rings as f32]);
        }
    }
    let at = |segment: u32, ring: u32| ring * (segments + 1) + segment;
    let mut indices = Vec::new();
    for ring in 0..rings {
        for segment in 0..segments {
            let (a, b) = (at(segment, ring), at(segment + 1, ring));
            let (c, d) = (at(segment + 1, ring + 1), at(segment, ring + 1));
            if ring > 0 {
                indices.extend(outward([a, b, c], &positions));
            }
            if ring + 1 < rings {
                indices.extend(outward([a, c, d], &positions));
            }
        }
    }
    Primitive {
        label: "sphere".to_owned(),
        normals: Some(positions.clone()),
        uvs: Some(uvs),
        positions,
        indices,
        ..Primitive::default()
    }
}

/// The triangle wound so that its normal points away from the origin.
fn outward(triangle: [u32; 3], positions: &[[f32; 3]]) -> [u32; 3] {
    let [a, b, c] = triangle.map(|i| positions[i as usize]);
    let normal = cross(sub(b, a), sub(c, a));
    if dot3(normal, a) >= 0.0 {
        triangle
    } else {
        [triangle[0], triangle[2], triangle[1]]
    }
}

/// The 8 corners of the cube `[-1, 1]^3` and its 12 outward triangles; no
/// normals, no UVs.
fn bare_cube() -> Primitive {
    let positions: Vec<[f32; 3]> = (0..8)
        .map(|i| [i & 1, (i >> 1) & 1, (i >> 2) & 1].map(|bit| if bit == 1 { 1.0 } else { -1.0 }))
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let mut indices = Vec::new();
    for [a, b, c, d] in quads {
        indices.extend(outward([a, b, c], &positions));
        indices.extend(outward([a, c, d], &positions));
    }
    bare("cube", positions, indices)
}

/// The cube `[-1, 1]^3` with 4 vertices per face and a UV square on each
/// face; no normals.
fn uv_cube() -> Primitive {
    let mut positions = Vec::new();
    let mut uvs = Vec::new();
    let mut indices = Vec::new();
    for (axis, sign) in [
        (0, 1.0),
        (0, -1.0),
        (1, 1.0),
        (1, -1.0),
        (2, 1.0),
        (2, -1.0),
    ] {
        let (u_axis, v_axis) = ((axis + 1) % 3, (axis + 2) % 3);
        let base = positions.len() as u32;
        for (u, v) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            let mut p = [0.0; 3];
            p[axis] = sign;
            p[u_axis] = u * 2.0 - 1.0;
            p[v_axis] = v * 2.0 - 1.0;
            positions.push(p);
            uvs.push([u, v]);
        }
        indices.extend(outward([base, base + 1, base + 2], &positions));
        indices.extend(outward([base, base + 2, base + 3], &positions));
    }
    Primitive {
        uvs: Some(uvs),
        ..bare("uv cube", positions, indices)
    }
}

/// A scene of the given primitives and nothing else.
fn scene_of(primitives: Vec<Primitive>) -> Scene {
    Scene {
        primitives,
        ..Scene::default()
    }
}

/// Builds with the default options, panicking on error.
fn build(scene: &Scene) -> MeshData {
    build_with(scene, &BuildOptions::default())
}

/// Builds with the given options, panicking on error.
fn build_with(scene: &Scene, options: &BuildOptions) -> MeshData {
    match build_mesh(scene, "models/test", options) {
        Ok(built) => {
            assert_hmesh_rules(&built.mesh);
            built.mesh
        }
        Err(error) => panic!("build failed: {error}"),
    }
}

/// The build error, panicking on success.
fn build_error(scene: &Scene, options: &BuildOptions) -> BuildError {
    match build_mesh(scene, "models/test", options) {
        Ok(_) => panic!("the build should have failed"),
        Err(error) => error,
    }
}

/// Options without levels of detail, for tests that do not look at them.
fn no_lods() -> BuildOptions {
    BuildOptions {
        lod_ratios: Vec::new(),
        ..BuildOptions::default()
    }
}

// ---------------------------------------------------------------------------
// Vector helpers and an independent octahedral decoder

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn length(v: [f32; 3]) -> f32 {
    dot3(v, v).sqrt()
}

/// Unpacks an octahedral SNORM16 pair to a unit vector.
fn oct_decode(packed: [i16; 2]) -> [f32; 3] {
    let [x, y] = packed.map(|c| f32::from(c) / 32767.0);
    let z = 1.0 - x.abs() - y.abs();
    let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
    let (x, y) = if z < 0.0 {
        ((1.0 - y.abs()) * sign(x), (1.0 - x.abs()) * sign(y))
    } else {
        (x, y)
    };
    let l = length([x, y, z]);
    [x / l, y / l, z / l]
}

/// The unit normal of a stored vertex.
fn normal_of(vertex: &GpuVertex) -> [f32; 3] {
    oct_decode(vertex.normal)
}

/// The unit tangent and handedness of a stored vertex.
fn tangent_of(vertex: &GpuVertex) -> ([f32; 3], f32) {
    let [x, y] = vertex.tangent;
    let handedness = if x & 1 == 1 { -1.0 } else { 1.0 };
    (oct_decode([x & !1, y]), handedness)
}

fn close(a: [f32; 3], b: [f32; 3], tolerance: f32) -> bool {
    length(sub(a, b)) <= tolerance
}

// ---------------------------------------------------------------------------
// The format's validation rules, checked independently of `format::hmesh`

/// The vertex range `[first, end)` a submesh's indices use.
fn vertex_range(mesh: &MeshData, submesh: &SubMesh) -> (u32, u32) {
    let start = submesh.first_index as usize;
    let indices = &mesh.indices[start..start + submesh.index_count as usize];
    let first = *indices.iter().min().unwrap();
    let end = *indices.iter().max().unwrap() + 1;
    (first, end)
}

fn inside(bounds: &MeshBounds, p: [f32; 3]) -> bool {
    (0..3).all(|a| bounds.aabb_min[a] <= p[a] && p[a] <= bounds.aabb_max[a])
}

/// Every rule design.md §2 lists for the reference validator, and more.
fn assert_hmesh_rules(mesh: &MeshData) {
    let vertex_count = mesh.vertices.len() as u32;
    assert!(!mesh.submeshes.is_empty());
    let (mut next_index, mut next_meshlet, mut next_vertex) = (0, 0, 0);
    for submesh in &mesh.submeshes {
        assert_eq!(
            submesh.first_index, next_index,
            "index ranges are contiguous"
        );
        assert_eq!(
            submesh.first_meshlet, next_meshlet,
            "meshlet ranges are contiguous"
        );
        assert_eq!(submesh.index_count % 3, 0);
        assert!(submesh.index_count > 0);
        // Every submesh has meshlets, unless the build made none at all.
        assert!(submesh.meshlet_count > 0 || mesh.meshlets.is_empty());
        assert_eq!(submesh.base_vertex, 0);
        assert!(
            submesh.material_slot == NO_MATERIAL
                || (submesh.material_slot as usize) < mesh.materials.len()
        );
        next_index += submesh.index_count;
        next_meshlet += submesh.meshlet_count;

        // Vertex ranges are disjoint, in order, and every vertex is used.
        let (first, end) = vertex_range(mesh, submesh);
        assert_eq!(
            first, next_vertex,
            "submesh vertex ranges follow each other"
        );
        next_vertex = end;
        for vertex in &mesh.vertices[first as usize..end as usize] {
            let p = vertex.position;
            assert!(
                inside(&submesh.bounds, p),
                "vertex {p:?} outside its submesh box"
            );
            let d = length(sub(p, submesh.bounds.sphere_center));
            assert!(
                d <= submesh.bounds.sphere_radius,
                "vertex outside its submesh sphere"
            );
        }
        let b = &submesh.bounds;
        assert!(inside(&mesh.bounds, b.aabb_min) && inside(&mesh.bounds, b.aabb_max));

        // Meshlets reference this submesh's vertices only.
        let meshlets = submesh.first_meshlet as usize..(next_meshlet as usize);
        for meshlet in &mesh.meshlets[meshlets] {
            let vertices = meshlet.vertex_offset as usize
                ..(meshlet.vertex_offset + meshlet.vertex_count) as usize;
            assert!(vertices.end <= mesh.meshlet_vertices.len());
            for &v in &mesh.meshlet_vertices[vertices] {
                assert!(first <= v && v < end, "meshlet vertex outside its submesh");
            }
            let triangles = meshlet.triangle_offset as usize
                ..(meshlet.triangle_offset + meshlet.triangle_count) as usize;
            assert!(triangles.end <= mesh.meshlet_triangles.len());
            for triangle in &mesh.meshlet_triangles[triangles] {
                assert!(
                    triangle
                        .0
                        .iter()
                        .all(|&l| u32::from(l) < meshlet.vertex_count)
                );
            }
        }
    }
    assert_eq!(next_index as usize, mesh.indices.len());
    assert_eq!(next_meshlet as usize, mesh.meshlets.len());
    assert_eq!(
        next_vertex, vertex_count,
        "every vertex belongs to a submesh"
    );
    assert_eq!(mesh.meshlet_bounds.len(), mesh.meshlets.len());
    assert!(mesh.indices.iter().all(|&i| i < vertex_count));

    for vertex in &mesh.vertices {
        assert!(
            inside(&mesh.bounds, vertex.position),
            "vertex outside the mesh box"
        );
        let d = length(sub(vertex.position, mesh.bounds.sphere_center));
        assert!(
            d <= mesh.bounds.sphere_radius,
            "vertex outside the mesh sphere"
        );
    }

    // Levels of detail.
    let lod_count = mesh.lod_count as usize;
    assert_eq!(mesh.lod_table.len(), mesh.submeshes.len() * lod_count);
    for (row, lod) in mesh.lod_table.iter().enumerate() {
        assert_eq!(lod.index_count % 3, 0);
        let range = lod.first_index as usize..(lod.first_index + lod.index_count) as usize;
        assert!(range.end <= mesh.lod_indices.len(), "LOD range inside LODI");
        let (first, end) = vertex_range(mesh, &mesh.submeshes[row / lod_count]);
        assert!(
            mesh.lod_indices[range]
                .iter()
                .all(|&i| first <= i && i < end)
        );
    }

    // Skinning.
    if mesh.skeleton.is_empty() {
        assert!(mesh.skin.is_empty());
    } else {
        assert_eq!(mesh.skin.len(), mesh.vertices.len());
        for skin in &mesh.skin {
            let sum: f32 = skin.weights.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "weights sum to {sum}");
            assert!(
                skin.joints
                    .iter()
                    .all(|&j| (j as usize) < mesh.skeleton.len())
            );
        }
    }
}

/// The triangles of the index list, each rotated to start at its smallest
/// index (winding kept), counted.
fn triangle_multiset(triangles: impl Iterator<Item = [u32; 3]>) -> BTreeMap<[u32; 3], usize> {
    let mut counts = BTreeMap::new();
    for t in triangles {
        let start = (0..3).min_by_key(|&k| t[k]).unwrap();
        let rotated = [t[start], t[(start + 1) % 3], t[(start + 2) % 3]];
        *counts.entry(rotated).or_insert(0) += 1;
    }
    counts
}

/// The triangles of one submesh's `IDXS` range.
fn submesh_triangles(mesh: &MeshData, submesh: &SubMesh) -> Vec<[u32; 3]> {
    let start = submesh.first_index as usize;
    mesh.indices[start..start + submesh.index_count as usize]
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect()
}

/// The triangles of one submesh's meshlets, as global vertex indices.
fn meshlet_triangles(mesh: &MeshData, submesh: &SubMesh) -> Vec<[u32; 3]> {
    let first = submesh.first_meshlet as usize;
    let mut triangles = Vec::new();
    for meshlet in &mesh.meshlets[first..first + submesh.meshlet_count as usize] {
        let vertices = &mesh.meshlet_vertices[meshlet.vertex_offset as usize..];
        let local = &mesh.meshlet_triangles[meshlet.triangle_offset as usize
            ..(meshlet.triangle_offset + meshlet.triangle_count) as usize];
        triangles.extend(local.iter().map(|t| t.0.map(|l| vertices[l as usize])));
    }
    triangles
}

// ---------------------------------------------------------------------------
// Normals and tangents

#[test]
fn flat_normals_give_each_cube_corner_three_normals() {
    let mesh = build(&scene_of(vec![bare_cube()]));
    assert_eq!(mesh.vertices.len(), 24, "8 corners x 3 faces");
    let mut normals_at: BTreeMap<[u32; 3], Vec<[f32; 3]>> = BTreeMap::new();
    for vertex in &mesh.vertices {
        let n = normal_of(vertex);
        // Each flat normal is the axis the position is extreme on.
        let axis = (0..3)
            .max_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()))
            .unwrap();
        assert!((n[axis].abs() - 1.0).abs() < 1e-4);
        assert_eq!(n[axis].signum(), vertex.position[axis].signum());
        normals_at
            .entry(vertex.position.map(f32::to_bits))
            .or_default()
            .push(n);
    }
    assert_eq!(normals_at.len(), 8);
    for normals in normals_at.values() {
        assert_eq!(normals.len(), 3);
        assert!(!close(normals[0], normals[1], 0.5) && !close(normals[1], normals[2], 0.5));
    }
    assert_eq!(
        mesh.flags & MESH_FLAG_HAS_TANGENTS,
        0,
        "no UVs, no real tangents"
    );
}

#[test]
fn zero_area_faces_and_zero_normals_get_finite_fallbacks() {
    // A sliver with collinear corners and no normals, and a triangle whose
    // source normals are all zero.
    let sliver = bare(
        "sliver",
        vec![[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
        vec![0, 1, 2],
    );
    let zero_normals = Primitive {
        normals: Some(vec![[0.0; 3]; 3]),
        ..bare(
            "zero normals",
            vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            vec![0, 1, 2],
        )
    };
    // UVs without area leave MikkTSpace nothing to follow.
    let flat_uvs = Primitive {
        uvs: Some(vec![[0.5, 0.5]; 3]),
        ..bare(
            "flat uvs",
            vec![[0.0; 3], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]],
            vec![0, 1, 2],
        )
    };
    let mesh = build(&scene_of(vec![sliver, zero_normals, flat_uvs]));
    for vertex in &mesh.vertices {
        let n = normal_of(vertex);
        let (t, _) = tangent_of(vertex);
        assert!(n.iter().chain(&t).all(|c| c.is_finite()));
        assert!(
            close(n, [0.0, 0.0, 1.0], 1e-4),
            "fallback and face normal are +Z: {n:?}"
        );
        assert!(dot3(n, t).abs() < 1e-3);
    }
}

#[test]
fn mikktspace_tangents_are_orthogonal_to_normals_and_follow_u() {
    let mesh = build_with(&scene_of(vec![uv_sphere(48, 24)]), &no_lods());
    assert_eq!(mesh.flags & MESH_FLAG_HAS_TANGENTS, MESH_FLAG_HAS_TANGENTS);
    // Per-corner tangents agree at shared vertices, so welding gets back the
    // 49 x 25 source vertices but the unused last one of each pole row.
    assert_eq!(mesh.vertices.len(), 49 * 25 - 2);
    let mut checked = 0;
    for vertex in &mesh.vertices {
        let n = normal_of(vertex);
        let (t, handedness) = tangent_of(vertex);
        assert!(
            dot3(n, t).abs() < 2e-3,
            "tangent not orthogonal: n {n:?} t {t:?}"
        );
        assert!(handedness == 1.0 || handedness == -1.0);
        let [x, y, z] = vertex.position;
        // Away from the poles, the tangent points along increasing u, which
        // runs around the Y axis: direction (-sin φ, 0, cos φ).
        if y.abs() < 0.9 {
            let radius = (x * x + z * z).sqrt();
            let along_u = [-z / radius, 0.0, x / radius];
            assert!(
                dot3(t, along_u) > 0.99,
                "tangent {t:?} at {:?}",
                vertex.position
            );
            checked += 1;
        }
    }
    assert!(checked > 500);
}

#[test]
fn cube_with_uvs_gets_flat_normals_and_tangents_along_u() {
    let mesh = build(&scene_of(vec![uv_cube()]));
    assert_eq!(mesh.vertices.len(), 24);
    assert_eq!(mesh.flags & MESH_FLAG_HAS_TANGENTS, MESH_FLAG_HAS_TANGENTS);
    for vertex in &mesh.vertices {
        let n = normal_of(vertex);
        let (t, _) = tangent_of(vertex);
        // u runs along the axis after the face's axis (see uv_cube).
        let face_axis = (0..3)
            .max_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()))
            .unwrap();
        let mut along_u = [0.0; 3];
        along_u[(face_axis + 1) % 3] = 1.0;
        assert!(close(t, along_u, 1e-3), "tangent {t:?} on face {face_axis}");
    }
}

#[test]
fn source_tangents_are_normalised_and_keep_their_handedness() {
    let triangle = Primitive {
        normals: Some(vec![[0.0, 0.0, 2.0]; 3]),
        tangents: Some(vec![
            [3.0, 0.0, 0.0, -1.0],
            [0.0, 5.0, 0.0, 1.0],
            [0.0, 0.0, 0.0, -1.0],
        ]),
        ..bare(
            "tangents",
            vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            vec![0, 1, 2],
        )
    };
    let mesh = build(&scene_of(vec![triangle]));
    assert_eq!(mesh.flags & MESH_FLAG_HAS_TANGENTS, MESH_FLAG_HAS_TANGENTS);
    let by_position = |p: [f32; 3]| mesh.vertices.iter().find(|v| v.position == p).unwrap();
    let (t0, h0) = tangent_of(by_position([0.0; 3]));
    let (t1, h1) = tangent_of(by_position([1.0, 0.0, 0.0]));
    let (t2, h2) = tangent_of(by_position([0.0, 1.0, 0.0]));
    assert!(close(t0, [1.0, 0.0, 0.0], 1e-3) && h0 == -1.0);
    assert!(close(t1, [0.0, 1.0, 0.0], 1e-3) && h1 == 1.0);
    // A zero tangent gets a direction perpendicular to the normal.
    assert!(dot3(t2, [0.0, 0.0, 1.0]).abs() < 1e-3 && h2 == -1.0);
    assert!(close(
        normal_of(by_position([0.0; 3])),
        [0.0, 0.0, 1.0],
        1e-4
    ));
}

#[test]
fn a_submesh_without_uvs_clears_the_tangent_flag() {
    let no_uvs = Primitive {
        uvs: None,
        ..grid(2)
    };
    let mesh = build(&scene_of(vec![grid(2), no_uvs]));
    assert_eq!(mesh.flags & MESH_FLAG_HAS_TANGENTS, 0);
    // The fallback is still a unit tangent perpendicular to the normal, with
    // handedness +1.
    let (first, end) = vertex_range(&mesh, &mesh.submeshes[1]);
    for vertex in &mesh.vertices[first as usize..end as usize] {
        let (t, handedness) = tangent_of(vertex);
        assert!(dot3(t, normal_of(vertex)).abs() < 1e-3);
        assert_eq!(handedness, 1.0);
    }
}

// ---------------------------------------------------------------------------
// Welding

#[test]
fn identical_vertices_are_merged() {
    // Two triangles of a quad, each with its own copy of the shared corners.
    let positions = vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ];
    let quad = Primitive {
        normals: Some(vec![[0.0, 0.0, 1.0]; 6]),
        uvs: Some(positions.iter().map(|p| [p[0], p[1]]).collect()),
        ..bare("quad", positions.clone(), vec![0, 1, 2, 3, 4, 5])
    };
    let mesh = build(&scene_of(vec![quad.clone()]));
    assert_eq!(mesh.vertices.len(), 4);
    assert_eq!(mesh.indices.len(), 6);

    // A different UV on one copy keeps the two copies apart.
    let mut seam = quad;
    if let Some(uvs) = seam.uvs.as_mut() {
        uvs[3] = [0.5, 0.5];
    }
    assert_eq!(build(&scene_of(vec![seam])).vertices.len(), 5);
}

#[test]
fn tangents_made_in_runs_are_the_whole_primitive_s_bit_for_bit() {
    // A sphere has a UV seam and poles; mirroring u on the far half adds
    // corners of both handedness, so tangent groups split in every way.
    let mut sphere = uv_sphere(40, 20);
    for uv in sphere.uvs.as_mut().unwrap() {
        uv[0] = uv[0].min(1.0 - uv[0]);
    }
    let (positions, normals) = (&sphere.positions, sphere.normals.as_ref().unwrap());
    let uvs = sphere.uvs.as_ref().unwrap();
    let input = tangents::TangentInput {
        positions,
        normals,
        uvs,
        indices: &sphere.indices,
    };
    let bits =
        |t: &[[f32; 4]]| -> Vec<[u32; 4]> { t.iter().map(|v| v.map(f32::to_bits)).collect() };
    let whole = meshopt::generate_tangents(
        Some(&sphere.indices),
        positions,
        normals,
        uvs,
        meshopt::TangentOptions::Compatible,
    );
    for threads in [1, 3] {
        for run in [50, 333] {
            let got = crate::jobserver::budget::with_threads(threads, || {
                tangents::corner_tangents(input, run, || (), |(), _, tangent| tangent)
            });
            assert!(
                bits(&got) == bits(&whole),
                "runs of {run} on {threads} threads"
            );
        }
    }
}

/// The primitive's corners merged by both implementations, which must agree,
/// also when the indexed merge makes its tangents in runs of a few triangles
/// on several threads.
#[track_caller]
fn assert_both_merges_agree(primitive: &Primitive) {
    let corners = corners::expand_corners(primitive, None);
    let expanded = weld::merge_corners(&corners.vertices);
    for (run, threads) in [(tangents::RUN_TRIANGLES, 1), (37, 1), (37, 3)] {
        let (indexed, indexed_real) = crate::jobserver::budget::with_threads(threads, || {
            indexed::merge_indexed(primitive, None, run).expect("every vertex has a normal")
        });
        assert_eq!(indexed.corner_vertex, expanded.corner_vertex);
        assert_eq!(indexed.vertices, expanded.vertices);
        assert_eq!(indexed_real, corners.real_tangents);
    }
}

#[test]
fn the_indexed_merge_gives_the_expanded_merge_byte_for_byte() {
    // A sphere has a UV seam (one column twice, same positions and normals,
    // different u) and poles; copies of some vertices with a normal that
    // packs the same but is not bit-equal test which unpacked normal is kept.
    let mut sphere = uv_sphere(24, 12);
    let copies: Vec<u32> = (0..40).map(|i| i * 7).collect();
    let first_copy = sphere.positions.len() as u32;
    for &v in &copies {
        let v = v as usize;
        sphere.positions.push(sphere.positions[v]);
        let normal = sphere.normals.as_ref().unwrap()[v];
        let [x, y, z] = normal;
        sphere.normals.as_mut().unwrap().push([x + 1e-6, y, z]);
        let uv = sphere.uvs.as_ref().unwrap()[v];
        sphere.uvs.as_mut().unwrap().push(uv);
    }
    for (k, &v) in copies.iter().enumerate() {
        for index in sphere.indices.iter_mut().skip(k * 5).step_by(97) {
            if *index == v {
                *index = first_copy + k as u32;
            }
        }
    }
    assert_both_merges_agree(&sphere);
    let mut with_tangents = sphere.clone();
    with_tangents.tangents = Some(
        (0..sphere.positions.len())
            .map(|v| {
                [
                    1.0,
                    0.0,
                    v as f32 % 3.0 - 1.0,
                    if v % 2 == 0 { 1.0 } else { -1.0 },
                ]
            })
            .collect(),
    );
    assert_both_merges_agree(&with_tangents);
    let without_uvs = Primitive {
        uvs: None,
        ..sphere
    };
    assert_both_merges_agree(&without_uvs);
    // A zero normal takes the face normal, per corner: the indexed merge
    // declines and the expanded one runs.
    let mut zero = grid(2);
    zero.normals.as_mut().unwrap()[4] = [0.0; 3];
    assert!(indexed::merge_indexed(&zero, None, tangents::RUN_TRIANGLES).is_none());
    assert!(indexed::merge_indexed(&bare_cube(), None, tangents::RUN_TRIANGLES).is_none());
}

#[test]
fn negative_zero_merges_with_positive_zero() {
    let positions = vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [-0.0, -0.0, 0.0],
    ];
    let quad = bare("zeros", positions, vec![0, 1, 2, 3, 1, 2]);
    let mesh = build(&scene_of(vec![quad]));
    assert_eq!(mesh.vertices.len(), 3);
    assert_eq!(mesh.indices.len(), 6);
}

#[test]
fn degenerate_triangles_are_dropped() {
    let mut sphere = uv_sphere(8, 4);
    let triangles = sphere.indices.len() / 3;
    sphere.indices.extend([0, 0, 1, 5, 6, 6]);
    let mesh = build(&scene_of(vec![sphere]));
    assert_eq!(mesh.indices.len() / 3, triangles);
    assert!(
        mesh.indices
            .chunks_exact(3)
            .all(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
    );
}

#[test]
fn only_degenerate_triangles_is_an_error() {
    let primitive = bare(
        "meshes[0].primitives[1]",
        vec![[0.0; 3], [1.0; 3]],
        vec![0, 0, 1],
    );
    let error = build_error(&scene_of(vec![primitive]), &BuildOptions::default());
    assert!(matches!(
        error,
        BuildError::OnlyDegenerateTriangles { triangles: 1, .. }
    ));
    assert!(error.to_string().contains("meshes[0].primitives[1]"));
}

// ---------------------------------------------------------------------------
// Meshlets

#[test]
fn meshlets_honour_the_limits_and_cover_every_triangle_once() {
    let scene = scene_of(vec![uv_sphere(40, 20), grid(6)]);
    for (max_vertices, max_triangles) in
        [(64, 124), (3, 1), (16, 8), (255, 512), (256, 100), (32, 64)]
    {
        let options = BuildOptions {
            meshlet_max_vertices: max_vertices,
            meshlet_max_triangles: max_triangles,
            ..no_lods()
        };
        let mesh = build_with(&scene, &options);
        assert_eq!(mesh.meshlet_max_vertices, max_vertices);
        assert_eq!(mesh.meshlet_max_triangles, max_triangles);
        for meshlet in &mesh.meshlets {
            assert!(meshlet.vertex_count >= 3 && meshlet.vertex_count <= max_vertices);
            assert!(meshlet.triangle_count >= 1 && meshlet.triangle_count <= max_triangles);
        }
        // Offsets count elements, densely packed.
        let vertices: u32 = mesh.meshlets.iter().map(|m| m.vertex_count).sum();
        let triangles: u32 = mesh.meshlets.iter().map(|m| m.triangle_count).sum();
        assert_eq!(vertices as usize, mesh.meshlet_vertices.len());
        assert_eq!(triangles as usize, mesh.meshlet_triangles.len());
        for submesh in &mesh.submeshes {
            let expected = triangle_multiset(submesh_triangles(&mesh, submesh).into_iter());
            let actual = triangle_multiset(meshlet_triangles(&mesh, submesh).into_iter());
            assert_eq!(actual, expected, "limits {max_vertices}/{max_triangles}");
        }
    }
}

#[test]
fn without_meshlets_the_geometry_and_levels_are_unchanged() {
    let scene = scene_of(vec![uv_sphere(16, 8), grid(6)]);
    let with = build(&scene);
    let options = BuildOptions {
        meshlets: false,
        ..BuildOptions::default()
    };
    let without = build_with(&scene, &options);
    assert!(!with.meshlets.is_empty());
    assert!(without.meshlets.is_empty() && without.meshlet_bounds.is_empty());
    assert!(without.meshlet_vertices.is_empty() && without.meshlet_triangles.is_empty());
    assert!(
        without
            .submeshes
            .iter()
            .all(|s| s.meshlet_count == 0 && s.first_meshlet == 0)
    );
    assert_eq!(without.vertices, with.vertices);
    assert_eq!(without.indices, with.indices);
    assert_eq!(without.lod_indices, with.lod_indices);
    assert_eq!(without.lod_table, with.lod_table);
    let bytes = crate::format::hmesh::write_hmesh(&without).unwrap();
    assert_eq!(crate::format::hmesh::read_hmesh(&bytes).unwrap(), without);
}

#[test]
fn meshlet_bounds_enclose_their_vertices() {
    let mesh = build_with(&scene_of(vec![uv_sphere(32, 16)]), &no_lods());
    for (meshlet, bounds) in mesh.meshlets.iter().zip(&mesh.meshlet_bounds) {
        let start = meshlet.vertex_offset as usize;
        for &v in &mesh.meshlet_vertices[start..start + meshlet.vertex_count as usize] {
            let d = length(sub(mesh.vertices[v as usize].position, bounds.center));
            assert!(d <= bounds.radius * 1.0001 + 1e-6);
        }
        assert!(bounds.cone_cutoff <= 1.0);
    }
}

// ---------------------------------------------------------------------------
// Levels of detail

#[test]
fn lods_shrink_towards_the_ratio_targets() {
    let sphere = uv_sphere(64, 32);
    let mesh = build(&scene_of(vec![sphere]));
    assert_eq!(mesh.lod_count, 2);
    let full = mesh.submeshes[0].index_count as usize;
    assert!(full / 3 > 3000, "a sphere of a few thousand triangles");
    let [half, quarter] = [mesh.lod_table[0], mesh.lod_table[1]].map(|l| l.index_count as usize);
    let target = |ratio: f64| ((full as f64 * ratio) as usize) / 3 * 3;
    assert!(
        half <= target(0.5) && half * 10 >= target(0.5) * 8,
        "half {half} of {full}"
    );
    assert!(
        quarter <= target(0.25) && quarter * 10 >= target(0.25) * 8,
        "quarter {quarter}"
    );
    assert!(quarter < half && half < full);
    assert_eq!(mesh.lod_table[0].first_index, 0);
    assert_eq!(mesh.lod_table[1].first_index as usize, half);
    assert_eq!(mesh.lod_indices.len(), half + quarter);
}

#[test]
fn flat_shaded_submeshes_still_reach_their_levels_without_tearing_uv_seams() {
    // Without normals every face is flat, so no two faces share a vertex.
    let sphere = Primitive {
        normals: None,
        ..uv_sphere(48, 24)
    };
    let mesh = build(&scene_of(vec![sphere.clone()]));
    let full = mesh.submeshes[0].index_count as usize;
    assert!(
        mesh.vertices.len() > 2 * sphere.positions.len(),
        "faces do not share vertices"
    );
    let [half, quarter] = [mesh.lod_table[0], mesh.lod_table[1]].map(|l| l.index_count as usize);
    assert!(half > 0 && half * 10 <= full * 6, "half {half} of {full}");
    assert!(
        quarter > 0 && quarter * 10 <= full * 4,
        "quarter {quarter} of {full}"
    );
    // The sphere's UV seam (u = 0 and u = 1 at the same positions) is
    // protected: every level still uses a vertex on each side of it.
    let uses_u = |level: &MeshLod, u: f32| {
        let start = level.first_index as usize;
        let end = start + level.index_count as usize;
        mesh.lod_indices[start..end]
            .iter()
            .any(|&v| mesh.vertices[v as usize].uv[0] == u)
    };
    for level in &mesh.lod_table {
        assert!(uses_u(level, 0.0) && uses_u(level, 1.0), "{level:?}");
    }
}

#[test]
fn lods_of_a_single_triangle_are_stalled() {
    let triangle = bare(
        "tri",
        vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        vec![0, 1, 2],
    );
    let mesh = build(&scene_of(vec![triangle]));
    assert_eq!(mesh.lod_count, 2);
    assert_eq!(mesh.lod_table, vec![MeshLod::default(); 2]);
    assert!(mesh.lod_indices.is_empty());
}

#[test]
fn a_level_that_does_not_shrink_is_stalled() {
    // The second level aims higher than the first, so it cannot be smaller.
    let options = BuildOptions {
        lod_ratios: vec![0.25, 0.5, 1.0],
        ..BuildOptions::default()
    };
    let mesh = build_with(&scene_of(vec![uv_sphere(32, 16)]), &options);
    assert!(mesh.lod_table[0].index_count > 0);
    assert_eq!(mesh.lod_table[1], MeshLod::default());
    assert_eq!(mesh.lod_table[2], MeshLod::default());
}

#[test]
fn lod_rows_are_per_submesh_with_global_indices() {
    let mesh = build(&scene_of(vec![uv_sphere(24, 12), grid(8)]));
    assert_eq!(mesh.lod_table.len(), 4);
    // assert_hmesh_rules already checks that each level uses only its own
    // submesh's vertices; the grid's levels must point past the sphere's.
    let grid_level = mesh.lod_table[2];
    assert!(grid_level.index_count > 0);
    assert!(
        grid_level.first_index >= mesh.lod_table[0].index_count + mesh.lod_table[1].index_count
    );
}

#[test]
fn no_lod_ratios_means_no_lod_data() {
    let mesh = build_with(&scene_of(vec![uv_sphere(16, 8)]), &no_lods());
    assert_eq!(mesh.lod_count, 0);
    assert!(mesh.lod_table.is_empty() && mesh.lod_indices.is_empty());
}

// ---------------------------------------------------------------------------
// Materials

fn material(name: &str, roughness: f32) -> SourceMaterial {
    SourceMaterial {
        name: name.to_owned(),
        row: crate::format::hmat::GpuMaterial {
            roughness_factor: roughness,
            ..Default::default()
        },
    }
}

fn with_material(material: Option<usize>) -> Primitive {
    Primitive {
        material,
        ..grid(1)
    }
}

#[test]
fn material_slots_follow_first_use_with_seed_leaves() {
    let scene = Scene {
        primitives: vec![
            with_material(Some(2)),
            with_material(Some(0)),
            with_material(None),
            with_material(Some(2)),
        ],
        materials: vec![
            material("Wood", 0.1),
            material("", 0.2),
            material("Leather", 0.3),
            material("Wood", 0.4),
        ],
        ..Scene::default()
    };
    let built = build_mesh(&scene, "models/chair", &no_lods()).unwrap();
    assert_eq!(
        built.mesh.materials,
        vec![
            asset_hash("models/chair/leather"),
            asset_hash("models/chair/material_0")
        ]
    );
    let slots: Vec<u32> = built
        .mesh
        .submeshes
        .iter()
        .map(|s| s.material_slot)
        .collect();
    assert_eq!(slots, vec![0, 1, NO_MATERIAL, 0]);
    let rows: Vec<f32> = built.materials.iter().map(|m| m.roughness_factor).collect();
    assert_eq!(rows, vec![0.3, 0.1]);
}

#[test]
fn material_leaves_clash_ignoring_case_and_fall_back_to_the_index() {
    let leaves = materials::material_leaves(&[
        material("Wood", 0.0),
        material("WOOD", 0.0),
        material("", 0.0),
        material("Metal_Rough", 0.0),
        material("", 0.0),
    ]);
    assert_eq!(
        leaves,
        [
            "material_0",
            "material_1",
            "material_2",
            "metal_rough",
            "material_4"
        ]
    );
}

#[test]
fn a_material_out_of_range_names_the_primitive() {
    let mut primitive = with_material(Some(3));
    primitive.label = "meshes[1].primitives[0]".to_owned();
    let scene = Scene {
        primitives: vec![primitive],
        materials: vec![material("a", 1.0)],
        ..Scene::default()
    };
    let error = build_error(&scene, &no_lods());
    assert_eq!(
        error,
        BuildError::MaterialOutOfRange {
            label: "meshes[1].primitives[0]".to_owned(),
            material: 3,
            count: 1,
        }
    );
    assert!(
        error
            .to_string()
            .starts_with("meshes[1].primitives[0]: material 3")
    );
}

// ---------------------------------------------------------------------------
// Skinning

fn skeleton(joints: usize) -> Vec<GpuJoint> {
    vec![GpuJoint::zeroed(); joints]
}

/// One triangle whose three vertices carry the given influences.
fn skinned_triangle(influences: [SkinInfluence; 3]) -> Primitive {
    Primitive {
        skin: Some(influences.to_vec()),
        ..bare(
            "skinned",
            vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            vec![0, 1, 2],
        )
    }
}

fn influence(joints: [u16; 4], weights: [f32; 4]) -> SkinInfluence {
    SkinInfluence { joints, weights }
}

#[test]
fn skin_weights_are_renormalised_with_a_rigid_fallback() {
    let skinned = skinned_triangle([
        influence([1, 2, 0, 0], [2.0, 2.0, 0.0, 0.0]),
        influence([2, 1, 1, 1], [0.0; 4]),
        // A zero weight on an out-of-range joint is harmless.
        influence([2, 9, 0, 0], [0.5, 0.0, 0.0, 0.0]),
    ]);
    let unskinned = Primitive {
        label: "static part".to_owned(),
        ..grid(1)
    };
    let scene = Scene {
        primitives: vec![skinned, unskinned],
        skeleton: skeleton(3),
        ..Scene::default()
    };
    let mesh = build(&scene);
    assert_eq!(mesh.skeleton.len(), 3);
    let skin_at = |p: [f32; 3]| {
        let i = mesh.vertices.iter().position(|v| v.position == p).unwrap();
        mesh.skin[i]
    };
    let first = skin_at([0.0; 3]);
    assert_eq!(first.joints, [1, 2, 0, 0]);
    assert_eq!(first.weights, [0.5, 0.5, 0.0, 0.0]);
    let weightless = skin_at([1.0, 0.0, 0.0]);
    assert_eq!(weightless.joints, [0; 4]);
    assert_eq!(weightless.weights, [1.0, 0.0, 0.0, 0.0]);
    let single = skin_at([0.0, 1.0, 0.0]);
    assert_eq!(single.joints, [2, 0, 0, 0]);
    assert_eq!(single.weights, [1.0, 0.0, 0.0, 0.0]);
    // The grid's vertices follow the triangle's, rigidly bound to joint 0.
    for skin in &mesh.skin[3..] {
        assert_eq!(skin.joints, [0; 4]);
        assert_eq!(skin.weights, [1.0, 0.0, 0.0, 0.0]);
    }
}

#[test]
fn equal_vertices_with_different_skin_stay_apart() {
    let positions = vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0; 3]];
    let primitive = Primitive {
        normals: Some(vec![[0.0, 0.0, 1.0]; 4]),
        skin: Some(vec![
            influence([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            influence([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            influence([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            influence([1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        ]),
        ..bare("two binds", positions, vec![0, 1, 2, 3, 2, 1])
    };
    let scene = Scene {
        primitives: vec![primitive],
        skeleton: skeleton(2),
        ..Scene::default()
    };
    assert_eq!(build(&scene).vertices.len(), 4);
}

#[test]
fn a_weighted_joint_outside_the_skeleton_is_an_error() {
    let scene = Scene {
        primitives: vec![skinned_triangle([
            influence([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            influence([0, 3, 0, 0], [0.5, 0.5, 0.0, 0.0]),
            influence([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        ])],
        skeleton: skeleton(3),
        ..Scene::default()
    };
    let error = build_error(&scene, &no_lods());
    assert!(matches!(
        error,
        BuildError::JointOutOfRange {
            vertex: 1,
            joint: 3,
            joint_count: 3,
            ..
        }
    ));
    assert!(error.to_string().starts_with("skinned: vertex 1: joint 3"));
}

#[test]
fn negative_and_non_finite_weights_are_errors() {
    let with_weights = |weights: [f32; 4]| Scene {
        primitives: vec![skinned_triangle([influence([0; 4], weights); 3])],
        skeleton: skeleton(1),
        ..Scene::default()
    };
    let negative = build_error(&with_weights([1.0, -0.5, 0.0, 0.0]), &no_lods());
    assert!(matches!(
        negative,
        BuildError::NegativeWeight { vertex: 0, .. }
    ));
    let nan = build_error(&with_weights([f32::NAN, 0.0, 0.0, 0.0]), &no_lods());
    assert!(matches!(
        nan,
        BuildError::NonFinite {
            attribute: "joint weight",
            ..
        }
    ));
}

#[test]
fn a_static_scene_has_no_skin_even_with_skin_data() {
    let primitive = skinned_triangle([influence([5, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]); 3]);
    let mesh = build(&scene_of(vec![primitive]));
    assert!(mesh.skin.is_empty() && mesh.skeleton.is_empty());
}

// ---------------------------------------------------------------------------
// Errors

#[test]
fn a_nan_position_names_the_primitive_and_the_vertex() {
    let mut sphere = uv_sphere(8, 4);
    sphere.label = "meshes[3].primitives[1]".to_owned();
    sphere.positions[7][1] = f32::NAN;
    let error = build_error(&scene_of(vec![grid(1), sphere]), &no_lods());
    assert!(matches!(
        error,
        BuildError::NonFinite {
            attribute: "position",
            vertex: 7,
            ..
        }
    ));
    let message = error.to_string();
    assert!(
        message.starts_with("meshes[3].primitives[1]: vertex 7: position"),
        "{message}"
    );
    assert!(message.contains("NaN"));
}

#[test]
fn malformed_primitives_are_rejected() {
    let triangle = || {
        bare(
            "p",
            vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            vec![0, 1, 2],
        )
    };
    type IsExpected = fn(&BuildError) -> bool;
    let cases: Vec<(Primitive, IsExpected)> = vec![
        (
            Primitive {
                indices: vec![],
                ..triangle()
            },
            |e| matches!(e, BuildError::NoTriangles { .. }),
        ),
        (
            Primitive {
                indices: vec![0, 1, 2, 0],
                ..triangle()
            },
            |e| matches!(e, BuildError::IndexCountNotTriangles { count: 4, .. }),
        ),
        (
            Primitive {
                indices: vec![0, 1, 3],
                ..triangle()
            },
            |e| {
                matches!(
                    e,
                    BuildError::IndexOutOfRange {
                        position: 2,
                        index: 3,
                        vertex_count: 3,
                        ..
                    }
                )
            },
        ),
        (
            Primitive {
                uvs: Some(vec![[0.0; 2]; 2]),
                ..triangle()
            },
            |e| {
                matches!(
                    e,
                    BuildError::AttributeLength {
                        attribute: "uvs",
                        len: 2,
                        ..
                    }
                )
            },
        ),
        (
            Primitive {
                normals: Some(vec![[0.0; 3]; 4]),
                ..triangle()
            },
            |e| {
                matches!(
                    e,
                    BuildError::AttributeLength {
                        attribute: "normals",
                        len: 4,
                        ..
                    }
                )
            },
        ),
        (
            Primitive {
                skin: Some(vec![SkinInfluence::default(); 1]),
                ..triangle()
            },
            |e| {
                matches!(
                    e,
                    BuildError::AttributeLength {
                        attribute: "skin",
                        ..
                    }
                )
            },
        ),
        (
            Primitive {
                uvs: Some(vec![[0.0, f32::INFINITY], [0.0; 2], [0.0; 2]]),
                ..triangle()
            },
            |e| {
                matches!(
                    e,
                    BuildError::NonFinite {
                        attribute: "uv",
                        vertex: 0,
                        ..
                    }
                )
            },
        ),
        (
            Primitive {
                tangents: Some(vec![[0.0; 4], [0.0; 4], [f32::NAN; 4]]),
                ..triangle()
            },
            |e| {
                matches!(
                    e,
                    BuildError::NonFinite {
                        attribute: "tangent",
                        vertex: 2,
                        ..
                    }
                )
            },
        ),
    ];
    for (primitive, expected) in cases {
        let error = build_error(&scene_of(vec![primitive]), &no_lods());
        assert!(expected(&error), "unexpected error: {error}");
        assert!(error.to_string().starts_with("p: "), "{error}");
    }
    let empty = build_error(&Scene::default(), &no_lods());
    assert_eq!(empty, BuildError::NoPrimitives);
}

#[test]
fn options_meshoptimizer_would_assert_on_are_rejected() {
    let scene = scene_of(vec![grid(1)]);
    let bad: Vec<(BuildOptions, &str)> = vec![
        (
            BuildOptions {
                meshlet_max_vertices: 2,
                ..BuildOptions::default()
            },
            "meshlet_max_vertices",
        ),
        (
            BuildOptions {
                meshlet_max_vertices: 257,
                ..BuildOptions::default()
            },
            "meshlet_max_vertices",
        ),
        (
            BuildOptions {
                meshlet_max_triangles: 0,
                ..BuildOptions::default()
            },
            "meshlet_max_triangles",
        ),
        (
            BuildOptions {
                meshlet_max_triangles: 513,
                ..BuildOptions::default()
            },
            "meshlet_max_triangles",
        ),
        (
            BuildOptions {
                cone_weight: -0.1,
                ..BuildOptions::default()
            },
            "cone_weight",
        ),
        (
            BuildOptions {
                cone_weight: f32::NAN,
                ..BuildOptions::default()
            },
            "cone_weight",
        ),
        (
            BuildOptions {
                lod_error: -1.0,
                ..BuildOptions::default()
            },
            "lod_error",
        ),
        (
            BuildOptions {
                lod_error: f32::INFINITY,
                ..BuildOptions::default()
            },
            "lod_error",
        ),
        (
            BuildOptions {
                lod_ratios: vec![0.5, 0.0],
                ..BuildOptions::default()
            },
            "lod_ratios",
        ),
        (
            BuildOptions {
                lod_ratios: vec![1.5],
                ..BuildOptions::default()
            },
            "lod_ratios",
        ),
        (
            BuildOptions {
                lod_ratios: vec![f32::NAN],
                ..BuildOptions::default()
            },
            "lod_ratios",
        ),
    ];
    for (options, field) in bad {
        match build_error(&scene, &options) {
            BuildError::InvalidOption { name, .. } => assert_eq!(name, field),
            other => panic!("unexpected error for {field}: {other}"),
        }
    }
}

// ---------------------------------------------------------------------------
// The whole mesh

#[test]
fn builds_are_deterministic() {
    let scene = Scene {
        primitives: vec![uv_sphere(48, 24), uv_cube(), bare_cube(), grid(10)],
        ..Scene::default()
    };
    let first = build(&scene);
    let second = build(&scene);
    assert_eq!(first, second);
}

#[test]
fn a_multi_submesh_mesh_has_a_shared_index_space_and_union_bounds() {
    let mut moved = uv_sphere(16, 8);
    for p in &mut moved.positions {
        *p = [p[0] + 10.0, p[1], p[2] - 3.0];
    }
    let scene = scene_of(vec![uv_cube(), moved, grid(4)]);
    let mesh = build(&scene);
    assert_eq!(mesh.submeshes.len(), 3);
    assert_eq!(mesh.bounds.aabb_min, [-1.0, -1.0, -4.0]);
    assert_eq!(mesh.bounds.aabb_max, [11.0, 1.0, 1.0]);
    assert_eq!(mesh.bounds.sphere_center, [5.0, 0.0, -1.5]);
    // The sphere's submesh box is its own, not the mesh's.
    let sphere = &mesh.submeshes[1].bounds;
    assert!(close(sphere.aabb_min, [9.0, -1.0, -4.0], 1e-5));
    assert!(close(sphere.aabb_max, [11.0, 1.0, -2.0], 1e-5));
    assert!((sphere.sphere_radius - 1.0).abs() < 1e-5);
    // Submesh index ranges hold global indices into disjoint vertex ranges
    // (assert_hmesh_rules checks the rest).
    let (first, _) = vertex_range(&mesh, &mesh.submeshes[1]);
    assert_eq!(first, 24);
}

// ---------------------------------------------------------------------------
// Parts and threads

/// Builds `scene` with the default options, cutting submeshes into parts of
/// at most `part_triangles` triangles, on `threads` threads; panics on error.
fn build_in_parts_on(scene: &Scene, part_triangles: usize, threads: u32) -> MeshData {
    let cuts = parts::Cuts {
        part_triangles,
        tangent_run_triangles: part_triangles / 2 + 1,
    };
    let built = crate::jobserver::budget::with_threads(threads, || {
        build_with_cuts(scene, "models/test", &BuildOptions::default(), cuts)
    });
    match built {
        Ok(built) => {
            assert_hmesh_rules(&built.mesh);
            built.mesh
        }
        Err(error) => panic!("build failed: {error}"),
    }
}

/// A grid over the unit square like [`grid`], with hills of height 0.05 and
/// their normals, so that the simplifier has choices to make.
fn hilly_grid(n: u32) -> Primitive {
    let mut primitive = grid(n);
    let height = |x: f32, y: f32| 0.05 * (7.0 * x).sin() * (5.0 * y).cos();
    let mut normals = Vec::new();
    for p in &mut primitive.positions {
        let [x, y, _] = *p;
        p[2] = height(x, y);
        let dx = 0.35 * (7.0 * x).cos() * (5.0 * y).cos();
        let dy = -0.25 * (7.0 * x).sin() * (5.0 * y).sin();
        let length = (dx * dx + dy * dy + 1.0).sqrt();
        normals.push([-dx / length, -dy / length, 1.0 / length]);
    }
    primitive.normals = Some(normals);
    primitive.label = "hills".to_owned();
    primitive
}

/// `primitive` bound to a skeleton of `joints` joints, each vertex to two
/// joints picked by its x coordinate.
fn skinned(primitive: Primitive, joints: u16) -> Primitive {
    let skin = primitive
        .positions
        .iter()
        .map(|p| {
            let along = (p[0].abs() * f32::from(joints - 1)).min(f32::from(joints - 2));
            let joint = along as u16;
            let weight = along - f32::from(joint);
            influence([joint, joint + 1, 0, 0], [1.0 - weight, weight, 0.0, 0.0])
        })
        .collect();
    Primitive {
        skin: Some(skin),
        ..primitive
    }
}

#[test]
fn the_bytes_do_not_depend_on_the_thread_count() {
    let flat_sphere = Primitive {
        normals: None,
        ..uv_sphere(32, 16)
    };
    let static_scene = scene_of(vec![
        hilly_grid(48),
        uv_sphere(48, 24),
        flat_sphere,
        uv_cube(),
    ]);
    // A chain of four joints in the bind pose, which the writer accepts.
    let chain = (0..4)
        .map(|joint| GpuJoint {
            inverse_bind: std::array::from_fn(|i| if i % 5 == 0 { 1.0 } else { 0.0 }),
            bind_rotation: [0.0, 0.0, 0.0, 1.0],
            bind_scale: [1.0; 3],
            parent: joint - 1,
            ..GpuJoint::zeroed()
        })
        .collect();
    let skinned_scene = Scene {
        primitives: vec![skinned(hilly_grid(40), 4), skinned(uv_sphere(40, 20), 4)],
        skeleton: chain,
        ..Scene::default()
    };
    // Parts of 512 triangles: every submesh but the cube is cut in several.
    for scene in [&static_scene, &skinned_scene] {
        assert!(scene.primitives[0].indices.len() / 3 > 4 * 512);
        let bytes = |threads| {
            crate::format::hmesh::write_hmesh(&build_in_parts_on(scene, 512, threads))
                .expect("the mesh writes")
        };
        let one = bytes(1);
        for threads in [2, 4] {
            assert!(one == bytes(threads), "{threads} threads changed the bytes");
        }
        // The default parts are larger than these meshes, which are built
        // whole, again the same at any thread count.
        let whole = |threads| crate::jobserver::budget::with_threads(threads, || build(scene));
        assert_eq!(whole(1), whole(4));
    }
}

#[test]
fn a_mesh_cut_into_parts_keeps_every_triangle_and_meshlet_rule() {
    let scene = scene_of(vec![hilly_grid(40), uv_sphere(40, 20)]);
    let whole = build(&scene);
    let cut = build_in_parts_on(&scene, 400, 2);
    // The same vertices (in another order) and the same triangles.
    assert_eq!(whole.vertices.len(), cut.vertices.len());
    let positions = |mesh: &MeshData, submesh: &SubMesh| {
        let triangles = submesh_triangles(mesh, submesh)
            .into_iter()
            .map(|t| t.map(|v| mesh.vertices[v as usize].position.map(f32::to_bits)));
        let mut sorted: Vec<_> = triangles.collect();
        sorted.sort_unstable();
        sorted
    };
    for (a, b) in whole.submeshes.iter().zip(&cut.submeshes) {
        assert_eq!(positions(&whole, a), positions(&cut, b));
        // The meshlets hold every triangle of the submesh exactly once.
        assert_eq!(
            triangle_multiset(meshlet_triangles(&cut, b).into_iter()),
            triangle_multiset(submesh_triangles(&cut, b).into_iter())
        );
    }
}

#[test]
fn parts_reach_their_levels_without_cracks_between_them() {
    let scene = scene_of(vec![hilly_grid(80)]);
    let mesh = build_in_parts_on(&scene, 1024, 2);
    let full = mesh.submeshes[0].index_count as usize;
    assert!(full / 3 > 8 * 1024, "the grid is cut in several parts");
    let [half, quarter] = [mesh.lod_table[0], mesh.lod_table[1]].map(|l| l.index_count as usize);
    // The seams keep their detail, so a level may end a little above its
    // target, never below it by much.
    assert!(
        half * 10 <= full * 6 && half * 10 >= full * 4,
        "half {half} of {full}"
    );
    assert!(
        quarter * 10 <= full * 35 / 10 && quarter * 10 >= full * 2,
        "quarter {quarter}"
    );
    for level in &mesh.lod_table {
        let start = level.first_index as usize;
        let indices = &mesh.lod_indices[start..start + level.index_count as usize];
        // An edge only one triangle uses is an open edge: on a grid, only
        // the outer border has them. A crack between parts would add some
        // inside.
        let mut uses: BTreeMap<[[u32; 3]; 2], usize> = BTreeMap::new();
        for t in indices.chunks_exact(3) {
            for k in 0..3 {
                let [a, b] = [t[k], t[(k + 1) % 3]]
                    .map(|v| mesh.vertices[v as usize].position.map(f32::to_bits));
                *uses.entry(if a < b { [a, b] } else { [b, a] }).or_default() += 1;
            }
        }
        let on_border = |p: [u32; 3]| {
            let [x, y] = [f32::from_bits(p[0]), f32::from_bits(p[1])];
            x == 0.0 || x == 1.0 || y == 0.0 || y == 1.0
        };
        for (edge, count) in uses {
            assert!(
                count == 2 || (count == 1 && edge.iter().all(|&p| on_border(p))),
                "{level:?}: edge {edge:?} is used {count} times"
            );
        }
    }
}
