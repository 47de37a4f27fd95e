//! Tests of the glTF importer on broken files: each gives an error naming
//! the JSON path or file at fault, and nothing panics.

use super::tests::{import, import_at, input_folder};
use super::*;
use crate::encode::mesh::fixtures::{
    self, GltfBuilder, Node, Primitive as FixturePrimitive, glb, triangle_mesh,
};

/// A scene with one triangle node.
fn one_triangle() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let mesh = triangle_mesh(&mut b, None);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    b
}

/// A scene whose only primitive is built from `primitive(builder)`.
fn with_primitive(primitive: impl FnOnce(&mut GltfBuilder) -> FixturePrimitive) -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let p = primitive(&mut b);
    let mesh = b.add_mesh(&[p]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    b
}

/// A triangle's positions.
fn positions(b: &mut GltfBuilder) -> usize {
    b.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
}

/// The error importing `bytes` (that must fail) gives.
fn import_error(bytes: &[u8]) -> GltfError {
    import(bytes, true).expect_err("the import should fail")
}

#[test]
fn a_missing_bin_file_names_the_file() {
    let dir = input_folder();
    let path = one_triangle()
        .write_gltf(&dir.path().join("models"), "thing")
        .unwrap();
    std::fs::remove_file(dir.path().join("models/thing.bin")).unwrap();
    let err = import_at(&std::fs::read(path).unwrap(), dir.path(), true).unwrap_err();
    assert_eq!(err.location, "buffers[0].uri");
    assert_eq!(err.file, Some(dir.path().join("models/thing.bin")));
    assert!(err.to_string().contains("thing.bin"), "{err}");
}

#[test]
fn a_short_bin_file_is_refused() {
    let dir = input_folder();
    let path = one_triangle()
        .write_gltf(&dir.path().join("models"), "thing")
        .unwrap();
    std::fs::write(dir.path().join("models/thing.bin"), [0u8; 10]).unwrap();
    let err = import_at(&std::fs::read(path).unwrap(), dir.path(), true).unwrap_err();
    assert_eq!(err.location, "buffers[0].byteLength");
    assert_eq!(err.file, Some(dir.path().join("models/thing.bin")));
}

#[test]
fn an_accessor_index_out_of_range_is_named() {
    let b = with_primitive(|_| FixturePrimitive::new(99));
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "meshes[0].primitives[0].attributes.POSITION");
    assert!(err.what.contains("accessor 99 does not exist"), "{err}");
    let b = with_primitive(|b| FixturePrimitive::new(positions(b)).normal(42));
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "meshes[0].primitives[0].attributes.NORMAL");
}

#[test]
fn an_accessor_past_its_view_is_refused() {
    let b = with_primitive(|b| {
        let bytes = [0u8; 36];
        let view = b.add_view(&bytes, None);
        let p = b.add_accessor_json(&format!(
            "{{\"bufferView\":{view},\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[0,0,0]}}"
        ));
        FixturePrimitive::new(p)
    });
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "meshes[0].primitives[0].attributes.POSITION");
    assert!(err.what.contains("bufferViews[0]"), "{err}");
}

#[test]
fn a_view_past_its_buffer_is_refused() {
    let mut b = one_triangle();
    let view = b.add_view_json("{\"buffer\":0,\"byteOffset\":4,\"byteLength\":100000}");
    let acc = b.add_accessor(Some(view), 0, fixtures::FLOAT, false, 3, "VEC3");
    let mesh = b.add_mesh(&[FixturePrimitive::new(acc)]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    b.set_default_scene(1);
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, format!("bufferViews[{view}]"));
}

#[test]
fn an_index_beyond_the_vertices_names_the_index() {
    let b = with_primitive(|b| {
        let p = positions(b);
        let indices = b.add_indices_u16(&[0, 1, 7]);
        FixturePrimitive::new(p).indices(indices)
    });
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "meshes[0].primitives[0].indices");
    assert!(err.what.contains("index 7"), "{err}");
}

#[test]
fn float_indices_are_refused_without_panicking() {
    let b = with_primitive(|b| {
        let p = positions(b);
        let indices = b.add_floats(&[0.0, 1.0, 2.0], "SCALAR");
        FixturePrimitive::new(p).indices(indices)
    });
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "meshes[0].primitives[0].indices");
    assert!(err.what.contains("FLOAT"), "{err}");
}

#[test]
fn a_nan_position_names_the_vertex() {
    let b = with_primitive(|b| {
        let p = b.add_positions(&[[0.0, 0.0, 0.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        FixturePrimitive::new(p)
    });
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "meshes[0].primitives[0].attributes.POSITION");
    assert!(err.what.contains("vertex 1 is not finite"), "{err}");
}

#[test]
fn attribute_counts_must_match_positions() {
    let b = with_primitive(|b| {
        let p = positions(b);
        let normals = b.add_vec3(&[[0.0, 0.0, 1.0]; 2]);
        FixturePrimitive::new(p).normal(normals)
    });
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "meshes[0].primitives[0].attributes.NORMAL");
    assert!(err.what.contains("2 elements but POSITION has 3"), "{err}");
}

#[test]
fn a_scene_without_triangles_is_refused() {
    let mut b = GltfBuilder::new();
    let p = positions(&mut b);
    let mesh = b.add_mesh(&[FixturePrimitive::new(p).mode(fixtures::POINTS)]);
    let node = b.add_node(Node::mesh(mesh));
    let empty = b.add_node(Node::default());
    b.add_scene(&[empty]);
    b.add_scene(&[node]);
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "scenes[0]");
    assert_eq!(err.what, "the scene has no triangles");
    b.set_default_scene(1);
    assert_eq!(import_error(&b.to_glb()).location, "scenes[1]");
}

#[test]
fn a_scene_of_points_and_lines_names_their_modes() {
    let mut b = GltfBuilder::new();
    let p = positions(&mut b);
    let modes = [
        fixtures::POINTS,
        fixtures::LINE_STRIP,
        fixtures::LINE_STRIP,
        fixtures::POINTS,
    ];
    let primitives = modes.map(|mode| FixturePrimitive::new(p).mode(mode));
    let mesh = b.add_mesh(&primitives);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "scenes[0]");
    assert_eq!(
        err.what,
        "the scene has no triangles: its 4 primitives are POINTS (2) and LINE_STRIP (2), which .hmesh cannot hold"
    );
    let single = with_primitive(|b| FixturePrimitive::new(positions(b)).mode(fixtures::LINE_LOOP));
    assert_eq!(
        import_error(&single.to_glb()).what,
        "the scene has no triangles: its 1 primitive is LINE_LOOP, which .hmesh cannot hold"
    );
}

#[test]
fn a_scene_of_primitives_without_position_says_so() {
    let b = with_primitive(|b| FixturePrimitive {
        attributes: vec![("NORMAL".to_owned(), b.add_vec3(&[[0.0, 0.0, 1.0]; 3]))],
        ..FixturePrimitive::new(0)
    });
    let err = import_error(&b.to_glb());
    assert_eq!(
        err.what,
        "the scene has no triangles: 1 primitive without POSITION ignored"
    );
}

#[test]
fn a_non_utf8_uri_is_refused() {
    let dir = input_folder();
    let (json, _) = one_triangle().to_gltf_with_bin("thing%FF.bin");
    let err = import_at(&json, dir.path(), true).unwrap_err();
    assert_eq!(err.location, "buffers[0].uri");
    assert!(err.what.contains("not UTF-8"), "{err}");
}

#[test]
fn a_traversing_uri_is_refused() {
    let dir = input_folder();
    let (json, _) = one_triangle().to_gltf_with_bin("../../etc/passwd");
    let err = import_at(&json, dir.path(), true).unwrap_err();
    assert_eq!(err.location, "buffers[0].uri");
    assert!(
        err.what
            .contains("\"../../etc/passwd\" points outside the input folder"),
        "{err}"
    );
}

#[test]
fn truncated_glbs_are_refused_at_every_length() {
    let whole = one_triangle().to_glb();
    for len in 0..whole.len() {
        let err = import_error(&whole[..len]);
        assert!(!err.what.contains("library failed"), "{len}: {err}");
    }
    let cut = &whole[..whole.len() - 4];
    assert!(
        import_error(cut).what.starts_with("truncated GLB"),
        "{}",
        import_error(cut)
    );
}

#[test]
fn a_glb_whose_chunk_runs_past_the_end_is_truncated() {
    let mut bytes = glb("{\"asset\":{\"version\":\"2.0\"}}", Some(&[0u8; 8]));
    let total = bytes.len() as u32;
    // Claim a BIN chunk longer than what follows, keeping the header length.
    let bin_len_at = bytes.len() - 16;
    bytes[bin_len_at..bin_len_at + 4].copy_from_slice(&64u32.to_le_bytes());
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), total);
    let err = parse_document(&bytes).unwrap_err();
    assert!(err.what.contains("truncated GLB: chunk 1 (BIN)"), "{err}");
}

#[test]
fn a_glb_with_non_utf8_json_is_refused() {
    let mut bytes = glb("{\"asset\":{\"version\":\"2.0\"},\"extras\":\"~\"}", None);
    let at = bytes.iter().position(|&c| c == b'~').unwrap();
    bytes[at] = 0xFF;
    let err = parse_document(&bytes).unwrap_err();
    assert!(err.what.contains("not valid UTF-8"), "{err}");
}

#[test]
fn extensions_assetc_cannot_decode_are_refused_with_advice() {
    for (extension, advice) in [
        ("EXT_texture_avif", "export PNG, JPEG, WebP or KTX2"),
        (
            "VENDOR_unknown_thing",
            "cannot tell whether dropping it is safe",
        ),
    ] {
        let mut b = one_triangle();
        b.require_extension(extension);
        let err = import_error(&b.to_glb());
        assert_eq!(err.location, "extensionsRequired[0]");
        assert!(
            err.what.contains(extension) && err.what.contains(advice),
            "{err}"
        );
    }
}

#[test]
fn required_extensions_that_change_nothing_we_write_are_skipped_with_a_warning() {
    for extension in [
        "KHR_lights_punctual",
        "KHR_materials_clearcoat",
        "KHR_materials_pbrSpecularGlossiness",
        "KHR_materials_variants",
    ] {
        let mut b = one_triangle();
        b.require_extension(extension);
        let scene = import(&b.to_glb(), true).unwrap();
        let named: Vec<&String> = scene
            .warnings
            .iter()
            .filter(|w| w.contains(extension))
            .collect();
        assert_eq!(named.len(), 1, "{extension}: {:?}", scene.warnings);
        assert!(named[0].contains("is skipped"), "{named:?}");
    }
}

#[test]
fn decoded_extensions_are_accepted_without_a_warning() {
    for extension in [
        "KHR_draco_mesh_compression",
        "EXT_mesh_gpu_instancing",
        "KHR_mesh_quantization",
        "EXT_meshopt_compression",
        "KHR_meshopt_compression",
        "KHR_texture_transform",
        "KHR_texture_basisu",
        "EXT_texture_webp",
    ] {
        let mut b = one_triangle();
        b.require_extension(extension);
        let scene = import(&b.to_glb(), true).unwrap();
        assert!(
            scene.warnings.iter().all(|w| !w.contains(extension)),
            "{extension}: {:?}",
            scene.warnings
        );
    }
}

#[test]
fn a_required_emissive_strength_is_accepted() {
    let mut b = one_triangle();
    b.require_extension("KHR_materials_emissive_strength");
    assert!(import(&b.to_glb(), true).is_ok());
}

#[test]
fn invalid_json_and_versions_are_refused() {
    let err = import_error(b"{\"asset\":");
    assert!(err.what.starts_with("not valid glTF JSON"), "{err}");
    let err = import_error(b"{\"asset\":{\"version\":\"1.0\"}}");
    assert_eq!(err.location, "asset.version");
    let err = import_error(b"\xff\xfe{}");
    assert!(err.what.contains("UTF-8"), "{err}");
}

#[test]
fn validation_findings_are_located() {
    let mut b = one_triangle();
    let mesh = b.add_mesh(&[FixturePrimitive::new(0).material(5)]);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let err = import_error(&b.to_glb());
    assert_eq!(err.location, "meshes[1].primitives[0].material");
    assert!(err.what.contains("does not exist"), "{err}");
}

#[test]
fn a_buffer_without_uri_outside_a_glb_is_refused() {
    let json = one_triangle().json(None);
    let err = import_error(json.as_bytes());
    assert_eq!(err.location, "buffers[0]");
    assert!(err.what.contains("no GLB BIN chunk"), "{err}");
}

/// A xorshift generator, so the corruption tests are reproducible.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn corrupted_binaries_never_panic() {
    let whole = crate::encode::mesh::fixtures::skinned_animated().to_glb();
    let mut random = Xorshift(0x2545_F491_4F6C_DD1D);
    for _ in 0..400 {
        let mut bytes = whole.clone();
        for _ in 0..4 {
            let at = random.below(bytes.len());
            bytes[at] ^= random.below(255) as u8 + 1;
        }
        if let Err(err) = import(&bytes, true) {
            assert!(!err.what.contains("library failed"), "{err}");
        }
    }
}

#[test]
fn corrupted_json_numbers_never_panic() {
    let base = crate::encode::mesh::fixtures::skinned_animated();
    let json = base.json(None);
    let digits: Vec<usize> = json
        .bytes()
        .enumerate()
        .filter(|(_, c)| c.is_ascii_digit())
        .map(|(i, _)| i)
        .collect();
    let mut random = Xorshift(0x1234_5678_9ABC_DEF1);
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..3000 {
        let mut text = json.clone().into_bytes();
        for _ in 0..=random.below(3) {
            text[digits[random.below(digits.len())]] = b'0' + random.below(10) as u8;
        }
        let bytes = glb(std::str::from_utf8(&text).unwrap(), Some(base.bin()));
        match import(&bytes, random.below(2) == 0) {
            Ok(_) => accepted += 1,
            Err(err) => {
                assert!(!err.what.contains("library failed"), "{err}");
                refused += 1;
            }
        }
    }
    assert!(
        accepted > 0 && refused > 0,
        "{accepted} accepted, {refused} refused"
    );
}

#[test]
fn read_json_refuses_a_glb_cut_inside_its_json() {
    let dir = input_folder();
    let whole = one_triangle().to_glb();
    let path = dir.path().join("cut.glb");
    std::fs::write(&path, &whole[..40]).unwrap();
    let err = read_json(&path).unwrap_err();
    assert!(err.what.starts_with("truncated GLB"), "{err}");
    std::fs::write(&path, &whole[..16]).unwrap();
    assert!(
        read_json(&path)
            .unwrap_err()
            .what
            .starts_with("truncated GLB")
    );
}
