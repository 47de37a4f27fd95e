//! Tests of the glTF importer on well-formed files: storage layouts, the
//! scene walk, topology, attributes, materials, texture uses and image bytes.

use std::path::{Path, PathBuf};

use super::*;
use crate::encode::mesh::fixtures::{
    self, GltfBuilder, Material, Node, Primitive as FixturePrimitive, triangle_mesh,
};
use crate::encode::mesh::scene::{ImageSource, Primitive, Scene, TextureUse};
use crate::encode::texture::TextureMode;
use crate::format::hash::asset_hash;
use crate::format::hmat::GpuMaterial;

/// The source ref used by these tests' imports.
pub(super) const SOURCE_REF: &str = "models/thing";

/// Imports `bytes` as if it were the file `dir/models/thing.gltf`, with
/// `dir` as the input folder.
pub(super) fn import_at(
    bytes: &[u8],
    dir: &Path,
    merge: bool,
) -> Result<(Scene, Vec<PathBuf>), GltfError> {
    let source = dir.join("models/thing.gltf");
    import_gltf(
        bytes,
        &source,
        dir,
        SOURCE_REF,
        &ImportOptions {
            merge,
            ..ImportOptions::default()
        },
    )
}

/// Imports a file that needs no external data.
pub(super) fn import(bytes: &[u8], merge: bool) -> Result<Scene, GltfError> {
    import_at(bytes, Path::new("/nonexistent/input"), merge).map(|(scene, _)| scene)
}

/// A temporary input folder with a `models` subfolder.
pub(super) fn input_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    dir
}

/// A scene with one triangle node.
fn one_triangle(builder: &mut GltfBuilder, material: Option<usize>) {
    let mesh = triangle_mesh(builder, material);
    let node = builder.add_node(Node::mesh(mesh));
    builder.add_scene(&[node]);
}

/// The normal of a triangle from its winding (counter-clockwise is front).
fn winding_normal(p: &Primitive, triangle: usize) -> [f32; 3] {
    let i = &p.indices[triangle * 3..triangle * 3 + 3];
    let [a, b, c] = [i[0], i[1], i[2]].map(|k| p.positions[k as usize]);
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn assert_close(got: [f32; 3], want: [f32; 3]) {
    for k in 0..3 {
        assert!((got[k] - want[k]).abs() < 1e-5, "{got:?} != {want:?}");
    }
}

#[test]
fn glb_gltf_with_bin_and_data_uri_give_the_same_scene() {
    let mut b = GltfBuilder::new();
    let image = b.add_image_uri("wood.png");
    let texture = b.add_texture(Some(image));
    let material = b.add_material(&Material {
        name: Some("Wood".into()),
        base_color_texture: Some(texture),
        ..Material::default()
    });
    one_triangle(&mut b, Some(material));
    let dir = input_folder();
    std::fs::write(dir.path().join("models/wood.png"), b"png").unwrap();
    let gltf_path = b.write_gltf(&dir.path().join("models"), "thing").unwrap();
    let from_files = import_at(&std::fs::read(&gltf_path).unwrap(), dir.path(), true).unwrap();
    let from_glb = import_at(&b.to_glb(), dir.path(), true).unwrap();
    let from_data_uri = import_at(&b.to_embedded_gltf(), dir.path(), true).unwrap();

    assert_eq!(from_files.0, from_glb.0);
    assert_eq!(from_files.0, from_data_uri.0);
    assert_eq!(from_files.1, vec![dir.path().join("models/thing.bin")]);
    assert!(from_glb.1.is_empty() && from_data_uri.1.is_empty());
    let scene = from_glb.0;
    assert_eq!(scene.primitives.len(), 1);
    let p = &scene.primitives[0];
    assert_eq!(p.label, "meshes[0].primitives[0] (node 0)");
    assert_eq!(
        p.positions,
        vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    );
    assert_eq!(p.normals, Some(vec![[0.0, 0.0, 1.0]; 3]));
    assert_eq!(p.uvs, Some(vec![[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]));
    assert_eq!(p.indices, vec![0, 1, 2]);
    assert_eq!(p.material, Some(0));
    assert_eq!(scene.materials[0].name, "Wood");
    assert_eq!(
        scene.materials[0].row.base_color_texture,
        asset_hash("models/thing/tex_0")
    );
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

/// A mesh shown by two nodes: node 0 at (10, 0, 0) and node 1 scaled by 2
/// under a root at (0, 5, 0).
fn instanced() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let mesh = triangle_mesh(&mut b, None);
    let first = b.add_node(Node {
        mesh: Some(mesh),
        translation: Some([10.0, 0.0, 0.0]),
        ..Node::default()
    });
    let second = b.add_node(Node {
        mesh: Some(mesh),
        scale: Some([2.0; 3]),
        ..Node::default()
    });
    let root = b.add_node(Node {
        translation: Some([0.0, 5.0, 0.0]),
        children: vec![second],
        ..Node::default()
    });
    b.add_scene(&[first, root]);
    b
}

#[test]
fn merging_bakes_every_instance_in_traversal_order() {
    let scene = import(&instanced().to_glb(), true).unwrap();
    assert_eq!(scene.primitives.len(), 2);
    let [a, b] = [&scene.primitives[0], &scene.primitives[1]];
    assert_eq!(a.label, "meshes[0].primitives[0] (node 0)");
    assert_eq!(b.label, "meshes[0].primitives[0] (node 1)");
    assert_close(a.positions[1], [11.0, 0.0, 0.0]);
    assert_close(b.positions[1], [2.0, 5.0, 0.0]);
    assert_close(b.positions[2], [0.0, 7.0, 0.0]);
    assert_close(b.normals.as_ref().unwrap()[0], [0.0, 0.0, 1.0]);
}

#[test]
fn without_merging_each_mesh_is_emitted_once_untransformed() {
    let scene = import(&instanced().to_glb(), false).unwrap();
    assert_eq!(scene.primitives.len(), 1);
    let p = &scene.primitives[0];
    assert_eq!(p.label, "meshes[0].primitives[0]");
    assert_eq!(
        p.positions,
        vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    );
}

#[test]
fn mirrored_nodes_flip_the_winding_to_match_the_normals() {
    let mut b = GltfBuilder::new();
    let mesh = triangle_mesh(&mut b, None);
    let plain = b.add_node(Node::mesh(mesh));
    let mirrored = b.add_node(Node {
        mesh: Some(mesh),
        scale: Some([1.0, 1.0, -1.0]),
        ..Node::default()
    });
    b.add_scene(&[plain, mirrored]);
    let scene = import(&b.to_glb(), true).unwrap();
    let [plain, mirrored] = [&scene.primitives[0], &scene.primitives[1]];
    assert_eq!(plain.indices, vec![0, 1, 2]);
    assert_eq!(mirrored.indices, vec![0, 2, 1]);
    let normal = mirrored.normals.as_ref().unwrap()[0];
    assert_close(normal, [0.0, 0.0, -1.0]);
    assert!(dot(winding_normal(mirrored, 0), normal) > 0.0);
    assert!(dot(winding_normal(plain, 0), plain.normals.as_ref().unwrap()[0]) > 0.0);
}

#[test]
fn tangents_follow_the_node_and_flip_handedness_when_mirrored() {
    let mut b = GltfBuilder::new();
    let positions = b.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let tangents = b.add_vec4(&[[1.0, 0.0, 0.0, 1.0]; 3]);
    let mesh = b.add_mesh(&[FixturePrimitive::new(positions).tangent(tangents)]);
    let node = b.add_node(Node {
        mesh: Some(mesh),
        scale: Some([-3.0, 1.0, 1.0]),
        ..Node::default()
    });
    b.add_scene(&[node]);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(
        scene.primitives[0].tangents,
        Some(vec![[-1.0, 0.0, 0.0, -1.0]; 3])
    );
}

#[test]
fn strips_and_fans_become_triangle_lists() {
    let mut b = GltfBuilder::new();
    let positions = b.add_positions(&[
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 2.0, 0.0],
    ]);
    let strip = FixturePrimitive::new(positions).mode(fixtures::TRIANGLE_STRIP);
    let fan_indices = b.add_indices_u16(&[0, 1, 3, 4]);
    let fan = FixturePrimitive::new(positions)
        .indices(fan_indices)
        .mode(fixtures::TRIANGLE_FAN);
    let mesh = b.add_mesh(&[strip, fan]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let scene = import(&b.to_glb(), false).unwrap();
    let strip = &scene.primitives[0];
    assert_eq!(strip.indices, vec![0, 1, 2, 1, 3, 2, 2, 3, 4]);
    for t in 0..3 {
        assert!(
            winding_normal(strip, t)[2] > 0.0,
            "strip triangle {t} faces away"
        );
    }
    let fan = &scene.primitives[1];
    assert_eq!(fan.indices, vec![1, 3, 0, 3, 4, 0]);
    for t in 0..2 {
        assert!(
            winding_normal(fan, t)[2] > 0.0,
            "fan triangle {t} faces away"
        );
    }
}

#[test]
fn points_and_lines_are_skipped_with_one_warning() {
    let mut b = GltfBuilder::new();
    let positions = b.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let mesh = b.add_mesh(&[
        FixturePrimitive::new(positions),
        FixturePrimitive::new(positions).mode(fixtures::LINES),
        FixturePrimitive::new(positions).mode(fixtures::POINTS),
        FixturePrimitive::new(positions).mode(fixtures::LINES),
    ]);
    let first = b.add_node(Node::mesh(mesh));
    let second = b.add_node(Node::mesh(mesh));
    b.add_scene(&[first, second]);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.primitives.len(), 2, "one triangle per node");
    assert_eq!(
        scene.primitives[0].indices,
        vec![0, 1, 2],
        "non-indexed gets 0..n"
    );
    assert_eq!(
        scene.warnings,
        vec![
            "skipped 3 primitives that are not triangles (2 LINES, 1 POINTS): .hmesh holds triangles only"
        ],
        "one warning for the file, each primitive counted once"
    );
}

#[test]
fn primitives_without_position_are_skipped_with_a_warning() {
    let mut b = GltfBuilder::new();
    let mesh = triangle_mesh(&mut b, None);
    let normals = b.add_vec3(&[[0.0, 0.0, 1.0]; 3]);
    let positionless = FixturePrimitive {
        attributes: vec![("NORMAL".to_owned(), normals)],
        ..FixturePrimitive::new(0)
    };
    let other = b.add_mesh(&[positionless]);
    let nodes = [mesh, other].map(|m| b.add_node(Node::mesh(m)));
    b.add_scene(&nodes);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.primitives.len(), 1);
    assert_eq!(
        scene.warnings,
        vec![
            "meshes[1].primitives[0]: has no POSITION attribute; skipped (glTF clients ignore such primitives)"
        ]
    );
}

#[test]
fn scenes_without_nodes_are_empty() {
    let mut b = GltfBuilder::new();
    one_triangle(&mut b, None);
    // An extra scene without `nodes` beside the full one.
    let glb = b.to_glb_edited(|json| {
        json["scenes"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"name": "extra"}));
    });
    let scene = import(&glb, true).unwrap();
    assert_eq!(scene.primitives.len(), 1);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

#[test]
fn an_empty_default_scene_walks_the_first_scene_with_nodes() {
    let mut b = GltfBuilder::new();
    one_triangle(&mut b, None);
    for default in [None, Some(0)] {
        let glb = b.to_glb_edited(|json| {
            json["scenes"]
                .as_array_mut()
                .unwrap()
                .insert(0, serde_json::json!({}));
            if let Some(scene) = default {
                json["scene"] = serde_json::json!(scene);
            }
        });
        let scene = import(&glb, true).unwrap();
        assert_eq!(scene.primitives.len(), 1);
        let which = if default.is_some() {
            "the default scene"
        } else {
            "the first scene"
        };
        assert_eq!(
            scene.warnings,
            vec![format!(
                "scenes[0] ({which}) has no nodes; scenes[1] is built instead"
            )]
        );
    }
    // No scene has nodes: the root nodes are walked.
    let glb = b.to_glb_edited(|json| json["scenes"] = serde_json::json!([{}]));
    let scene = import(&glb, true).unwrap();
    assert_eq!(scene.primitives.len(), 1);
    assert_eq!(
        scene.warnings,
        vec![
            "scenes[0] (the first scene) has no nodes, nor has any other scene; every root node is built instead"
        ]
    );
}

#[test]
fn normalized_integer_uvs_and_weights_are_scaled() {
    let mut b = GltfBuilder::new();
    let positions = b.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let uvs = b.add_u16(&[0, 65535, 65535, 32768, 0, 0], "VEC2", true);
    let mesh = b.add_mesh(&[FixturePrimitive::new(positions).uv(uvs)]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let scene = import(&b.to_glb(), true).unwrap();
    let uvs = scene.primitives[0].uvs.as_ref().unwrap();
    assert_eq!(uvs[0], [0.0, 1.0]);
    assert!((uvs[1][1] - 32768.0 / 65535.0).abs() < 1e-7);
}

#[test]
fn interleaved_strided_views_are_read() {
    let mut b = GltfBuilder::new();
    // Position (12 bytes) then normal (12 bytes) per vertex, stride 24.
    let vertices: [[f32; 6]; 3] = [
        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        [2.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        [0.0, 2.0, 0.0, 0.0, 0.0, 1.0],
    ];
    let bytes: Vec<u8> = vertices
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let view = b.add_view(&bytes, Some(24));
    let positions = b.add_accessor(Some(view), 0, fixtures::FLOAT, false, 3, "VEC3");
    let normals = b.add_accessor(Some(view), 12, fixtures::FLOAT, false, 3, "VEC3");
    let mesh = b.add_mesh(&[FixturePrimitive::new(positions).normal(normals)]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let scene = import(&b.to_glb(), false).unwrap();
    let p = &scene.primitives[0];
    assert_eq!(
        p.positions,
        vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    );
    assert_eq!(p.normals, Some(vec![[0.0, 0.0, 1.0]; 3]));
}

#[test]
fn sparse_accessors_replace_listed_elements() {
    let mut b = GltfBuilder::new();
    let base: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let base_view = b.add_view(&base, None);
    let index_bytes: Vec<u8> = 2u16.to_le_bytes().to_vec();
    let index_view = b.add_view(&index_bytes, None);
    let value_bytes: Vec<u8> = [0.0f32, 5.0, 0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let value_view = b.add_view(&value_bytes, None);
    let positions = b.add_accessor_json(&format!(
        "{{\"bufferView\":{base_view},\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,5,0],\
         \"sparse\":{{\"count\":1,\"indices\":{{\"bufferView\":{index_view},\"componentType\":5123}},\
         \"values\":{{\"bufferView\":{value_view}}}}}}}"
    ));
    let mesh = b.add_mesh(&[FixturePrimitive::new(positions)]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let scene = import(&b.to_glb(), false).unwrap();
    assert_eq!(
        scene.primitives[0].positions,
        vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 5.0, 0.0]]
    );
}

#[test]
fn morph_targets_are_ignored_with_a_warning() {
    let mut b = GltfBuilder::new();
    let positions = b.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let offsets = b.add_vec3(&[[0.0, 0.0, 1.0]; 3]);
    let mesh = b.add_mesh(&[FixturePrimitive::new(positions).morph_target(offsets)]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.primitives[0].positions[0], [0.0, 0.0, 0.0]);
    assert_eq!(
        scene.warnings,
        vec!["meshes[0].primitives[0]: morph targets are ignored"]
    );
}

#[test]
fn non_finite_normals_are_dropped_with_a_warning() {
    let mut b = GltfBuilder::new();
    let positions = b.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let normals = b.add_vec3(&[[0.0, 0.0, 1.0], [f32::NAN, 0.0, 1.0], [0.0, 0.0, 1.0]]);
    let mesh = b.add_mesh(&[FixturePrimitive::new(positions).normal(normals)]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.primitives[0].normals, None);
    assert_eq!(
        scene.warnings,
        vec![
            "meshes[0].primitives[0].attributes.NORMAL: vertex 1 is not finite; the attribute is dropped"
        ]
    );
}

#[test]
fn the_default_scene_is_walked_and_others_ignored() {
    let mut b = GltfBuilder::new();
    let first = triangle_mesh(&mut b, None);
    let second = triangle_mesh(&mut b, None);
    let a = b.add_node(Node::mesh(first));
    let c = b.add_node(Node::mesh(second));
    b.add_scene(&[a]);
    let chosen = b.add_scene(&[c]);
    b.set_default_scene(chosen);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.primitives.len(), 1);
    assert_eq!(
        scene.primitives[0].label,
        "meshes[1].primitives[0] (node 1)"
    );
}

#[test]
fn without_scenes_every_root_node_is_walked() {
    let mut b = GltfBuilder::new();
    let mesh = triangle_mesh(&mut b, None);
    let child = b.add_node(Node {
        mesh: Some(mesh),
        translation: Some([0.0, 0.0, 1.0]),
        ..Node::default()
    });
    b.add_node(Node {
        children: vec![child],
        translation: Some([0.0, 0.0, 1.0]),
        ..Node::default()
    });
    b.add_node(Node::mesh(mesh));
    let scene = import(&b.to_glb(), true).unwrap();
    let labels: Vec<&str> = scene.primitives.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "meshes[0].primitives[0] (node 0)",
            "meshes[0].primitives[0] (node 2)"
        ]
    );
    assert_close(scene.primitives[0].positions[0], [0.0, 0.0, 2.0]);
}

#[test]
fn nodes_reached_twice_are_visited_once_with_a_warning() {
    let mut b = GltfBuilder::new();
    let mesh = triangle_mesh(&mut b, None);
    let shared = b.add_node(Node::mesh(mesh));
    let parent = b.add_node(Node {
        children: vec![shared],
        ..Node::default()
    });
    // The shared node is also its own ancestor's child: a cycle.
    b.node_mut(shared).children = vec![parent];
    b.add_scene(&[parent]);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.primitives.len(), 1);
    assert!(
        scene.warnings[0].contains("nodes[1] is reached more than once"),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn materials_carry_factors_flags_defaults_and_texture_refs() {
    let mut b = GltfBuilder::new();
    let images: Vec<usize> = (0..5)
        .map(|i| b.add_image_uri(&format!("t{i}.png")))
        .collect();
    let textures: Vec<usize> = images.iter().map(|&i| b.add_texture(Some(i))).collect();
    b.add_material(&Material::default());
    b.use_extension("KHR_materials_emissive_strength");
    let full = b.add_material(&Material {
        name: Some("Full".into()),
        base_color_factor: Some([0.5, 0.25, 1.0, 0.75]),
        metallic_factor: Some(0.0),
        roughness_factor: Some(0.5),
        emissive_factor: Some([1.0, 0.5, 0.0]),
        alpha_mode: Some("MASK".into()),
        alpha_cutoff: Some(0.25),
        double_sided: true,
        base_color_texture: Some(textures[0]),
        metallic_roughness_texture: Some(textures[1]),
        normal_texture: Some((textures[2], 0.5)),
        occlusion_texture: Some((textures[3], 0.75)),
        emissive_texture: Some(textures[4]),
        extensions_json: Some(
            "{\"KHR_materials_emissive_strength\":{\"emissiveStrength\":4}}".into(),
        ),
    });
    b.add_material(&Material {
        alpha_mode: Some("BLEND".into()),
        ..Material::default()
    });
    let mesh = triangle_mesh(&mut b, Some(full));
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let dir = input_folder();
    for i in 0..5 {
        std::fs::write(dir.path().join(format!("models/t{i}.png")), b"png").unwrap();
    }
    let (scene, _) = import_at(&b.to_embedded_gltf(), dir.path(), true).unwrap();
    assert_eq!(scene.materials.len(), 3);
    assert_eq!(scene.materials[0].name, "");
    assert_eq!(scene.materials[0].row, GpuMaterial::default());
    let tex = |i: usize| asset_hash(&format!("{SOURCE_REF}/tex_{i}"));
    let expected = GpuMaterial {
        base_color_factor: [0.5, 0.25, 1.0, 0.75],
        emissive_factor: [4.0, 2.0, 0.0],
        metallic_factor: 0.0,
        roughness_factor: 0.5,
        normal_scale: 0.5,
        occlusion_strength: 0.75,
        alpha_cutoff: 0.25,
        flags: 1 | (1 << 1),
        pad: 0,
        base_color_texture: tex(0),
        metallic_roughness_texture: tex(1),
        normal_texture: tex(2),
        occlusion_texture: tex(3),
        emissive_texture: tex(4),
    };
    assert_eq!(scene.materials[1].row, expected);
    assert_eq!(scene.materials[1].name, "Full");
    assert_eq!(scene.materials[2].row.flags, 2 << 1);
    assert_eq!(scene.primitives[0].material, Some(1));
}

#[test]
fn primitives_without_material_have_none() {
    let mut b = GltfBuilder::new();
    one_triangle(&mut b, None);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.primitives[0].material, None);
    assert!(scene.materials.is_empty());
}

/// Materials using images: 0 (file) as base colour then as a normal map, 1
/// (buffer view) as metallic-roughness, 2 (data URI) as emissive, and a
/// texture without a source as occlusion.
fn textured() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let file = b.add_image_uri("textures/wood.png");
    let view = b.add_image_view(b"\x89PNG view", "image/png");
    let data = b.add_image_data_uri(b"\x89PNG data", "image/png");
    let [t_file, t_view, t_data] = [file, view, data].map(|i| b.add_texture(Some(i)));
    let t_none = b.add_texture(None);
    b.add_material(&Material {
        base_color_texture: Some(t_file),
        metallic_roughness_texture: Some(t_view),
        occlusion_texture: Some((t_none, 1.0)),
        ..Material::default()
    });
    b.add_material(&Material {
        emissive_texture: Some(t_data),
        ..Material::default()
    });
    let conflicting = b.add_material(&Material {
        normal_texture: Some((t_file, 1.0)),
        ..Material::default()
    });
    one_triangle(&mut b, Some(conflicting));
    b
}

#[test]
fn an_ext_texture_webp_image_is_used_before_the_core_source() {
    let dir = input_folder();
    let mut b = GltfBuilder::new();
    let png = b.add_image_view(b"\x89PNG fallback", "image/png");
    let webp = b.add_image_view(b"RIFF....WEBP", "image/webp");
    let texture = b.add_extension_texture(Some(png), "EXT_texture_webp", webp);
    let only_webp = b.add_extension_texture(None, "EXT_texture_webp", webp);
    let material = b.add_material(&Material {
        base_color_texture: Some(texture),
        emissive_texture: Some(only_webp),
        ..Material::default()
    });
    one_triangle(&mut b, Some(material));
    let gltf = parse_document(&b.to_glb()).unwrap();
    let found = texture_uses(&gltf.document, &dir.path().join("models/a.glb"), dir.path()).unwrap();
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    let images: Vec<usize> = found.uses.iter().map(|use_| use_.index).collect();
    assert_eq!(images, [webp]);
}

#[test]
fn texture_uses_lists_first_modes_sources_and_warnings() {
    let dir = input_folder();
    std::fs::create_dir(dir.path().join("models/textures")).unwrap();
    std::fs::write(dir.path().join("models/textures/wood.png"), b"png").unwrap();
    let source = dir.path().join("models/thing.gltf");
    let gltf = parse_document(&textured().to_glb()).unwrap();
    let found = texture_uses(&gltf.document, &source, dir.path()).unwrap();
    assert!(found.unusable.is_empty(), "{:?}", found.unusable);
    let (uses, warnings) = (found.uses, found.warnings);
    assert_eq!(
        uses,
        vec![
            TextureUse {
                index: 0,
                mode: TextureMode::Color,
                source: ImageSource::File(dir.path().join("models/textures/wood.png")),
            },
            TextureUse {
                index: 1,
                mode: TextureMode::Linear,
                source: ImageSource::Embedded,
            },
            TextureUse {
                index: 2,
                mode: TextureMode::Color,
                source: ImageSource::Embedded,
            },
        ]
    );
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("materials[0].occlusionTexture: textures[3] has no source image")
    );
    assert_eq!(
        warnings[1],
        "images[0] is used as a normal map by materials[2] but was first used as colour by materials[0]; keeping colour"
    );
}

#[test]
fn texture_uses_sets_missing_and_escaping_image_files_apart() {
    let dir = input_folder();
    let source = dir.path().join("models/thing.gltf");
    let gltf = parse_document(&textured().to_glb()).unwrap();
    let found = texture_uses(&gltf.document, &source, dir.path()).unwrap();
    // images[0] is a missing file; the embedded images 1 and 2 are still used.
    assert_eq!(found.unusable.len(), 1, "{:?}", found.unusable);
    assert_eq!(found.unusable[0].location, "images[0].uri");
    assert_eq!(
        found.unusable[0].file,
        Some(dir.path().join("models/textures/wood.png"))
    );
    let used: Vec<usize> = found.uses.iter().map(|u| u.index).collect();
    assert_eq!(used, [1, 2]);

    let mut b = GltfBuilder::new();
    let image = b.add_image_uri("../../secret.png");
    let texture = b.add_texture(Some(image));
    b.add_material(&Material {
        base_color_texture: Some(texture),
        ..Material::default()
    });
    let gltf = parse_document(&b.to_glb()).unwrap();
    let found = texture_uses(&gltf.document, &source, dir.path()).unwrap();
    assert!(found.uses.is_empty());
    let error = found.unusable[0].to_string();
    assert!(
        error.contains("images[0].uri: uri \"../../secret.png\" points outside"),
        "{error}"
    );
}

#[test]
fn an_import_refuses_a_material_image_that_does_not_exist() {
    let dir = input_folder();
    let err = import_at(&textured().to_glb(), dir.path(), true).unwrap_err();
    assert_eq!(err.location, "images[0].uri");
    assert!(
        err.what.contains("names a file that does not exist"),
        "{err}"
    );
    std::fs::create_dir(dir.path().join("models/textures")).unwrap();
    std::fs::write(dir.path().join("models/textures/wood.png"), b"png").unwrap();
    import_at(&textured().to_glb(), dir.path(), true).expect("every image is there");
}

#[test]
fn with_configure_s_plan_an_unplanned_image_is_refused_and_explained() {
    let dir = input_folder();
    let source = dir.path().join("models/thing.gltf");
    let import = |planned: &[usize]| {
        let options = ImportOptions {
            merge: true,
            planned_textures: Some(planned.to_vec()),
        };
        import_gltf(
            &textured().to_glb(),
            &source,
            dir.path(),
            SOURCE_REF,
            &options,
        )
    };
    // The plan is trusted: the sandbox of a remote run holds no image file.
    import(&[0, 1, 2]).expect("every used image is planned");
    let missing = import(&[1, 2]).unwrap_err();
    assert_eq!(missing.location, "images[0].uri");
    assert!(
        missing
            .what
            .contains("names a file that does not exist (materials[0] uses it)"),
        "{missing}"
    );
    std::fs::create_dir(dir.path().join("models/textures")).unwrap();
    std::fs::write(dir.path().join("models/textures/wood.png"), b"png").unwrap();
    let stale = import(&[1, 2]).unwrap_err();
    assert_eq!(stale.location, "images[0]");
    assert!(
        stale.what.contains("run `assetc configure` again"),
        "{stale}"
    );
}

#[test]
fn image_bytes_come_from_files_views_and_data_uris() {
    let dir = input_folder();
    std::fs::create_dir(dir.path().join("models/textures")).unwrap();
    std::fs::write(dir.path().join("models/textures/wood.png"), b"file bytes").unwrap();
    let source = dir.path().join("models/thing.gltf");
    let b = textured();
    let gltf_path = b.write_gltf(&dir.path().join("models"), "thing").unwrap();
    let from_files = parse_document(&std::fs::read(&gltf_path).unwrap()).unwrap();
    let from_glb = parse_document(&b.to_glb()).unwrap();

    let file = image_bytes(&from_glb, 0, &source, dir.path()).unwrap();
    assert_eq!(
        file,
        (
            b"file bytes".to_vec(),
            vec![dir.path().join("models/textures/wood.png")]
        )
    );
    let view = image_bytes(&from_glb, 1, &source, dir.path()).unwrap();
    assert_eq!(view, (b"\x89PNG view".to_vec(), vec![]));
    let view_in_bin = image_bytes(&from_files, 1, &source, dir.path()).unwrap();
    assert_eq!(
        view_in_bin,
        (
            b"\x89PNG view".to_vec(),
            vec![dir.path().join("models/thing.bin")]
        )
    );
    let data = image_bytes(&from_glb, 2, &source, dir.path()).unwrap();
    assert_eq!(data, (b"\x89PNG data".to_vec(), vec![]));
    let missing = image_bytes(&from_glb, 7, &source, dir.path()).unwrap_err();
    assert_eq!(missing.location, "images[7]");
}

#[test]
fn read_json_reads_only_the_json_of_a_large_glb() {
    let mut b = GltfBuilder::new();
    one_triangle(&mut b, None);
    b.add_view(&vec![7u8; 10 << 20], None);
    let dir = input_folder();
    let glb_path = b.write_glb(dir.path(), "big").unwrap();
    let json = read_json(&glb_path).unwrap();
    assert_eq!(json.trim_ascii_end(), b.json(None).as_bytes());
    let gltf_path = b.write_gltf(dir.path(), "big").unwrap();
    assert_eq!(
        read_json(&gltf_path).unwrap(),
        std::fs::read(&gltf_path).unwrap()
    );
    // The JSON alone is enough to list texture uses.
    assert!(parse_document(&json).is_ok());
    let err = read_json(&dir.path().join("absent.glb")).unwrap_err();
    assert_eq!(err.file, Some(dir.path().join("absent.glb")));
}
