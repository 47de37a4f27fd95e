//! Tests of the extensions the importer decodes, through whole imports:
//! `KHR_mesh_quantization`, `EXT_meshopt_compression` and
//! `KHR_texture_transform`.

use super::tests::import;
use crate::encode::mesh::fixtures::{
    self, GltfBuilder, Material, Node, Primitive as FixturePrimitive, triangle_mesh,
};

/// The corners of the test triangle, as integers a quantizer would store.
const QUANTIZED_CORNERS: [u16; 9] = [0, 0, 0, 1000, 0, 0, 0, 2000, 0];

/// A quantized triangle (`UNSIGNED_SHORT` positions, `BYTE` normals) under
/// a node scaling it by 1/1000, as gltfpack writes it.
fn quantized_triangle(declare: bool) -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let positions = b.add_u16(&QUANTIZED_CORNERS, "VEC3", false);
    let normal_bytes: Vec<u8> = [0i8, 0, 127, 0]
        .repeat(3)
        .iter()
        .map(|&v| v as u8)
        .collect();
    let normal_view = b.add_view(&normal_bytes, Some(4));
    let normals = b.add_accessor(Some(normal_view), 0, fixtures::BYTE, true, 3, "VEC3");
    let mesh = b.add_mesh(&[FixturePrimitive::new(positions).normal(normals)]);
    let node = b.add_node(Node {
        scale: Some([0.001; 3]),
        ..Node::mesh(mesh)
    });
    b.add_scene(&[node]);
    if declare {
        b.require_extension("KHR_mesh_quantization");
    }
    b
}

#[test]
fn quantized_positions_and_normals_are_dequantized_through_the_node() {
    let scene = import(&quantized_triangle(true).to_glb(), true).unwrap();
    let p = &scene.primitives[0];
    assert_eq!(p.positions[1], [1.0, 0.0, 0.0]);
    assert_eq!(p.positions[2], [0.0, 2.0, 0.0]);
    assert_eq!(p.normals.as_ref().unwrap()[0], [0.0, 0.0, 1.0]);
}

#[test]
fn integer_positions_need_the_quantization_extension() {
    let err = super::tests::import(&quantized_triangle(false).to_glb(), true).unwrap_err();
    assert!(err.location.ends_with("attributes.POSITION"), "{err}");
    assert!(err.what.contains("UNSIGNED_SHORT"), "{err}");
}

/// A triangle whose positions and indices are meshopt-compressed in
/// `buffers[0]`, decoding into views of a data-less fallback buffer.
fn meshopt_triangle(name: &str) -> GltfBuilder {
    let corners: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 3.0, 0.0]];
    let vertices = meshopt::encoding::encode_vertex_buffer(&corners).unwrap();
    let indices = meshopt::encoding::encode_index_buffer(&[0, 1, 2], 3).unwrap();
    let mut b = GltfBuilder::new();
    // add_view appends to buffers[0], 4-byte aligned, in order.
    b.add_view(&vertices, None);
    b.add_view(&indices, None);
    let (vertex_offset, index_offset) = (0, vertices.len().next_multiple_of(4));
    let fallback = b.add_buffer_json(&format!(
        r#"{{"byteLength":48,"extensions":{{"{name}":{{"fallback":true}}}}}}"#
    ));
    let positions_view = b.add_view_json(&format!(
        r#"{{"buffer":{fallback},"byteLength":36,"byteStride":12,"extensions":{{"{name}":{{"buffer":0,"byteOffset":{},"byteLength":{},"byteStride":12,"count":3,"mode":"ATTRIBUTES"}}}}}}"#,
        vertex_offset,
        vertices.len()
    ));
    let indices_view = b.add_view_json(&format!(
        r#"{{"buffer":{fallback},"byteOffset":36,"byteLength":6,"extensions":{{"{name}":{{"buffer":0,"byteOffset":{},"byteLength":{},"byteStride":2,"count":3,"mode":"TRIANGLES"}}}}}}"#,
        index_offset,
        indices.len()
    ));
    let positions = b.add_accessor_json(&format!(
        r#"{{"bufferView":{positions_view},"componentType":{},"count":3,"type":"VEC3","min":[0,0,0],"max":[4,3,0]}}"#,
        fixtures::FLOAT
    ));
    let index_accessor = b.add_accessor(
        Some(indices_view),
        0,
        fixtures::UNSIGNED_SHORT,
        false,
        3,
        "SCALAR",
    );
    let mesh = b.add_mesh(&[FixturePrimitive::new(positions).indices(index_accessor)]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    b.require_extension(name);
    b
}

#[test]
fn meshopt_compressed_views_are_decoded_under_both_names() {
    for name in ["EXT_meshopt_compression", "KHR_meshopt_compression"] {
        let scene = import(&meshopt_triangle(name).to_glb(), true).unwrap();
        let p = &scene.primitives[0];
        assert_eq!(
            p.positions,
            vec![[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 3.0, 0.0]]
        );
        assert_eq!(p.indices, vec![0, 1, 2]);
    }
}

#[test]
fn a_corrupt_meshopt_stream_names_the_view() {
    let mut glb = meshopt_triangle("EXT_meshopt_compression").to_glb();
    // The vertex stream starts the BIN chunk, after the JSON chunk; its
    // header byte (0xA0 | version) becomes an unknown version.
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let bin_start = 20 + json_len + 8;
    glb[bin_start] = 0xFF;
    let err = import(&glb, true).unwrap_err();
    assert!(err.location.starts_with("bufferViews["), "{err}");
    assert!(err.what.contains("cannot be decompressed"), "{err}");
}

#[test]
fn texture_transforms_are_baked_into_the_uvs() {
    let mut b = GltfBuilder::new();
    let image = b.add_image_uri("wood.png");
    let texture = b.add_texture(Some(image));
    let material = b.add_material(&Material {
        base_color_texture: Some(texture),
        ..Material::default()
    });
    let mesh = triangle_mesh(&mut b, Some(material));
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    b.require_extension("KHR_texture_transform");
    let json = b.json(Some("thing.bin")).replace(
        r#""baseColorTexture":{"index":0}"#,
        r#""baseColorTexture":{"index":0,"extensions":{"KHR_texture_transform":{"offset":[0.5,0],"scale":[2,0.5]}}}"#,
    );
    let dir = super::tests::input_folder();
    let models = dir.path().join("models");
    std::fs::write(models.join("thing.bin"), b.bin()).unwrap();
    std::fs::write(models.join("wood.png"), b"not needed by the mesh edge").unwrap();
    let (scene, _) = super::tests::import_at(json.as_bytes(), dir.path(), true).unwrap();
    // triangle_mesh's UVs are (0, 1), (1, 1), (0, 0).
    let uvs = scene.primitives[0].uvs.as_ref().unwrap();
    assert_eq!(uvs, &vec![[0.5, 0.5], [2.5, 0.5], [0.5, 0.0]]);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

/// A triangle drawn by one node as two GPU instances, moved by (10, 0, 0)
/// and (0, 20, 0) and the second one scaled by 2, as a GLB.
fn instanced_triangle() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let mesh = triangle_mesh(&mut b, None);
    let translations = b.add_vec3(&[[10.0, 0.0, 0.0], [0.0, 20.0, 0.0]]);
    let scales = b.add_vec3(&[[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    b.require_extension("EXT_mesh_gpu_instancing");
    let instancing = format!(
        r#""mesh":{mesh},"extensions":{{"EXT_mesh_gpu_instancing":{{"attributes":{{"TRANSLATION":{translations},"SCALE":{scales}}}}}}}"#
    );
    let json = b
        .json(None)
        .replace(&format!(r#""mesh":{mesh}"#), &instancing);
    fixtures::glb(&json, Some(b.bin()))
}

#[test]
fn gpu_instances_are_baked_like_nodes_when_merging() {
    let scene = import(&instanced_triangle(), true).unwrap();
    assert_eq!(scene.primitives.len(), 2);
    // triangle_mesh's corners are (0,0,0), (1,0,0), (0,1,0).
    assert_eq!(scene.primitives[0].positions[1], [11.0, 0.0, 0.0]);
    assert_eq!(scene.primitives[1].positions[2], [0.0, 22.0, 0.0]);
    let scene = import(&instanced_triangle(), false).unwrap();
    assert_eq!(scene.primitives.len(), 1);
    assert!(
        scene.warnings.iter().any(|w| w.contains("2 GPU instances")),
        "{:?}",
        scene.warnings
    );
}
