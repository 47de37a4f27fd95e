//! Meshes through the real pipeline: glTF, GLB and OBJ sources become
//! `.hmesh`, `.hmat`, `.hanim` and one texture edge per image; edits rebuild
//! exactly their dependents; bad sources fail only their own edge; two
//! small meshes match golden files byte for byte; and a large mesh, which
//! the edge cuts into parts for threads, has the same bytes at 1 and 4
//! threads.

use crate::fixtures;

use crate::common::{Project, Run, assert_golden, ninja_program, rgba_png};
use assetc::format::hash::asset_hash;
use assetc::format::{hanim, hman, hmat, hmesh, ktx2};
use fixtures::{GltfBuilder, Material, Node, Primitive};

/// Raw textures keep these tests fast; the texture tests cover UASTC.
const CONFIG: &str = "input: assets\noutput: runtime\ndefault:\n  texture: { compress: false }\n";

/// Adds a unit cube (24 vertices, normals, UVs) whose faces are split into
/// two primitives: the first four faces with `materials.0`, the last two with
/// `materials.1`. Returns the mesh index.
fn add_cube(b: &mut GltfBuilder, materials: (usize, usize)) -> usize {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    let axes: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    for (n, u, v) in axes {
        for (s, t) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            positions.push([0, 1, 2].map(|i| 0.5 * (n[i] + s * u[i] + t * v[i])));
            normals.push(n);
            uvs.push([(s + 1.0) / 2.0, (1.0 - t) / 2.0]);
        }
    }
    let quads = |faces: std::ops::Range<u16>| -> Vec<u16> {
        faces
            .flat_map(|f| [0, 1, 2, 0, 2, 3].map(|i| f * 4 + i))
            .collect()
    };
    let position = b.add_positions(&positions);
    let normal = b.add_vec3(&normals);
    let uv = b.add_vec2(&uvs);
    let first = b.add_indices_u16(&quads(0..4));
    let second = b.add_indices_u16(&quads(4..6));
    let primitive = |indices, material| {
        Primitive::new(position)
            .normal(normal)
            .uv(uv)
            .indices(indices)
            .material(material)
    };
    b.add_mesh(&[
        primitive(first, materials.0),
        primitive(second, materials.1),
    ])
}

/// `assets/models/crate.gltf` + `.bin`: a cube with two materials using
/// three images — an external PNG (base colour), one in a buffer view
/// (normal map) and one in a data URI (occlusion-roughness-metallic).
fn write_crate(p: &Project) {
    let mut b = GltfBuilder::new();
    let colour = b.add_image_uri("crate_color.png");
    let normal = b.add_image_view(&rgba_png(8, 8, 2), "image/png");
    let orm = b.add_image_data_uri(&rgba_png(4, 4, 3), "image/png");
    let textures = [colour, normal, orm].map(|image| b.add_texture(Some(image)));
    let wood = b.add_material(&Material {
        name: Some("Wood".into()),
        base_color_texture: Some(textures[0]),
        normal_texture: Some((textures[1], 0.5)),
        ..Material::default()
    });
    let metal = b.add_material(&Material {
        name: Some("Metal".into()),
        metallic_roughness_texture: Some(textures[2]),
        occlusion_texture: Some((textures[2], 1.0)),
        alpha_mode: Some("MASK".into()),
        double_sided: true,
        ..Material::default()
    });
    let mesh = add_cube(&mut b, (wood, metal));
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    p.png("assets/models/crate_color.png", 16, 16, 1);
    std::fs::create_dir_all(p.path("assets/models")).unwrap();
    b.write_gltf(&p.path("assets/models"), "crate").unwrap();
}

/// `assets/props/box.obj` + `box.mtl`: a cube with two materials, the first
/// textured.
fn write_obj_box(p: &Project) {
    let mut obj = String::from("mtllib box.mtl\n");
    for z in [0.0, 1.0] {
        for y in [0.0, 1.0] {
            for x in [0.0, 1.0] {
                obj += &format!("v {x} {y} {z}\n");
            }
        }
    }
    obj += "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n";
    obj += "usemtl Painted\n";
    for face in [[1, 2, 4, 3], [5, 7, 8, 6], [1, 5, 6, 2]] {
        let corners: Vec<String> = face
            .iter()
            .zip(1..)
            .map(|(v, t)| format!("{v}/{t}"))
            .collect();
        obj += &format!("f {}\n", corners.join(" "));
    }
    obj += "usemtl Bare\n";
    for face in [[3, 4, 8, 7], [1, 3, 7, 5], [2, 6, 8, 4]] {
        let corners: Vec<String> = face.iter().map(|v| v.to_string()).collect();
        obj += &format!("f {}\n", corners.join(" "));
    }
    p.write("assets/props/box.obj", obj.as_bytes());
    p.write(
        "assets/props/box.mtl",
        b"newmtl Painted\nKd 0.8 0.2 0.1\nNs 30\nmap_Kd paint.png\n\nnewmtl Bare\nKd 0.5 0.5 0.5\nd 0.5\n",
    );
    p.png("assets/props/paint.png", 8, 8, 4);
}

/// The mesh-related edges Ninja ran, sorted.
fn mesh_edges(run: &Run) -> Vec<String> {
    let mut edges: Vec<String> = run
        .edges()
        .into_iter()
        .filter(|e| e.starts_with("MESH ") || e.starts_with("TEXTURE "))
        .collect();
    edges.sort();
    edges
}

fn read(p: &Project, rel: &str) -> Vec<u8> {
    std::fs::read(p.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn a_gltf_becomes_mesh_materials_and_one_texture_per_image() {
    let p = Project::new(CONFIG);
    write_crate(&p);
    p.build(&[]);

    let bytes = read(&p, "runtime/models/crate.hmesh");
    let mesh = hmesh::parse_hmesh(&bytes).unwrap();
    assert_eq!(mesh.submeshes.len(), 2);
    assert_eq!(mesh.desc.vertex_count, 24);
    assert_eq!(mesh.desc.index_count, 36);
    assert_eq!(mesh.indices.width(), 2);
    let refs = ["models/crate/wood", "models/crate/metal"].map(asset_hash);
    assert_eq!(mesh.materials, refs);
    assert_eq!(mesh.lod_count, 2);

    let hmat_bytes = read(&p, "runtime/models/crate.hmat");
    let rows = hmat::parse_hmat(&hmat_bytes).unwrap();
    assert_eq!(rows.len(), 2);
    let tex = |i: usize| asset_hash(&format!("models/crate/tex_{i}"));
    assert_eq!(rows[0].base_color_texture, tex(0));
    assert_eq!(rows[0].normal_texture, tex(1));
    assert_eq!(rows[0].normal_scale, 0.5);
    assert_eq!(rows[1].metallic_roughness_texture, tex(2));
    assert_eq!(rows[1].occlusion_texture, tex(2));
    assert_eq!(rows[1].alpha_mode(), Some(hmat::AlphaMode::Mask));
    assert!(rows[1].double_sided());

    let formats = [
        (0, ktx2::VK_FORMAT_R8G8B8A8_SRGB, None),
        (1, ktx2::VK_FORMAT_R8G8B8A8_UNORM, Some(&b"rg01\0"[..])),
        (2, ktx2::VK_FORMAT_R8G8B8A8_UNORM, None),
    ];
    for (i, format, swizzle) in formats {
        let bytes = read(&p, &format!("runtime/models/crate/tex_{i}.ktx2"));
        let view = ktx2::parse(&bytes).unwrap();
        assert_eq!(view.header().vk_format, format, "tex_{i}");
        assert_eq!(view.key_value("KTXswizzle"), swizzle, "tex_{i}");
    }

    let manifest_bytes = read(&p, "runtime/assets.hman");
    let manifest = hman::parse(&manifest_bytes).unwrap();
    for path in [
        "models/crate.hmesh",
        "models/crate.hmat",
        "models/crate/tex_0.ktx2",
        "models/crate/tex_2.ktx2",
    ] {
        assert!(manifest.iter().any(|e| e.path == path), "{path} not listed");
    }
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    p.assert_no_op();
}

#[test]
fn edits_rebuild_exactly_what_depends_on_them() {
    let p = Project::new(CONFIG);
    write_crate(&p);
    p.build(&[]);

    p.touch("assets/models/crate_color.png");
    let run = p.ninja(&[]).expect_ok("ninja after an image edit");
    assert_eq!(
        mesh_edges(&run),
        ["TEXTURE assets/models/crate.gltf image 0 (crate_color.png)"]
    );

    p.touch("assets/models/crate.bin");
    let run = p.ninja(&[]).expect_ok("ninja after a buffer edit");
    assert_eq!(
        mesh_edges(&run),
        [
            "MESH assets/models/crate.gltf",
            "TEXTURE assets/models/crate.gltf image 1 (embedded)"
        ],
        "the mesh and the buffer-view image (1), not the data-URI one (2)"
    );

    p.touch("assets/models/crate.gltf");
    let run = p.ninja(&[]).expect_ok("ninja after a glTF edit");
    assert!(
        run.edges().iter().any(|e| e.starts_with("CONFIGURE")),
        "{:?}",
        run.edges()
    );
    assert_eq!(mesh_edges(&run).len(), 3, "{:?}", run.edges());
    p.assert_no_op();
}

#[test]
fn a_mesh_setting_rebuilds_only_the_meshes() {
    let p = Project::new(CONFIG);
    write_crate(&p);
    p.png("assets/ui/icon.png", 8, 8, 5);
    p.build(&[]);
    let before = hmesh::read_hmesh(&read(&p, "runtime/models/crate.hmesh")).unwrap();

    p.write(
        "assetc.yml",
        format!("{CONFIG}  mesh: {{ lods: [0.5], meshlet_triangles: 2 }}\n").as_bytes(),
    );
    let run = p.ninja(&[]).expect_ok("ninja after a mesh setting");
    assert_eq!(mesh_edges(&run), ["MESH assets/models/crate.gltf"]);
    let after = hmesh::read_hmesh(&read(&p, "runtime/models/crate.hmesh")).unwrap();
    assert_eq!((before.lod_count, after.lod_count), (2, 1));
    assert!(after.meshlets.iter().all(|m| m.triangle_count <= 2));
    assert!(after.meshlets.len() > before.meshlets.len());
}

#[test]
fn merge_bakes_instances_and_off_keeps_one_local_copy() {
    let build = |merge: bool| {
        let p = Project::new(&format!("{CONFIG}  mesh: {{ merge: {merge} }}\n"));
        let mut b = GltfBuilder::new();
        let mesh = fixtures::triangle_mesh(&mut b, None);
        let left = b.add_node(Node {
            translation: Some([-5.0, 0.0, 0.0]),
            ..Node::mesh(mesh)
        });
        let right = b.add_node(Node {
            translation: Some([5.0, 0.0, 0.0]),
            ..Node::mesh(mesh)
        });
        b.add_scene(&[left, right]);
        p.write("assets/pair.glb", &b.to_glb());
        p.build(&[]);
        hmesh::read_hmesh(&read(&p, "runtime/pair.hmesh")).unwrap()
    };
    let merged = build(true);
    assert_eq!(merged.submeshes.len(), 2);
    assert_eq!(merged.bounds.aabb_min[0], -5.0);
    assert_eq!(merged.bounds.aabb_max[0], 6.0);
    let local = build(false);
    assert_eq!(local.submeshes.len(), 1);
    assert_eq!(
        (local.bounds.aabb_min[0], local.bounds.aabb_max[0]),
        (0.0, 1.0)
    );
}

#[test]
fn a_skinned_animated_glb_also_writes_clips_that_check_accepts() {
    let p = Project::new(CONFIG);
    p.write("assets/fox.glb", &fixtures::skinned_animated().to_glb());
    p.build(&[]);
    let mesh_bytes = read(&p, "runtime/fox.hmesh");
    let mesh = hmesh::parse_hmesh(&mesh_bytes).unwrap();
    assert_eq!(mesh.skeleton.len(), 2);
    assert_eq!(mesh.skin.len(), mesh.vertices.len());
    let clips = hanim::read_hanim(&read(&p, "runtime/fox.hanim")).unwrap();
    assert_eq!(clips.len(), 1);
    assert_eq!(clips[0].name, "walk");
    assert!(clips[0].channels.iter().all(|c| c.joint < 2));
    assert!(
        clips[0]
            .channels
            .iter()
            .all(|c| c.interpolation != hanim::Interpolation::Step || c.joint == 0)
    );
    p.link(&["check", "--root", "runtime"]).expect_ok("check");

    // A clip that animates a joint the skeleton lacks is caught by check.
    let mut broken = clips.clone();
    broken[0].channels[0].joint = 7;
    p.write("runtime/fox.hanim", &hanim::write_hanim(&broken).unwrap());
    let run = p.link(&["check", "--root", "runtime"]);
    assert!(!run.ok);
    assert!(
        run.stderr
            .contains("fox.hanim: animates joint 7 but fox.hmesh has 2 joints"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_obj_gets_materials_and_its_mtl_textures() {
    let p = Project::new(CONFIG);
    write_obj_box(&p);
    p.build(&[]);
    let mesh = hmesh::read_hmesh(&read(&p, "runtime/props/box.hmesh")).unwrap();
    assert_eq!(mesh.submeshes.len(), 2);
    let rows = hmat::read_hmat(&read(&p, "runtime/props/box.hmat")).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].base_color_texture, asset_hash("props/box/tex_0"));
    assert_eq!(rows[0].base_color_factor, [0.8, 0.2, 0.1, 1.0]);
    assert_eq!(rows[1].alpha_mode(), Some(hmat::AlphaMode::Blend));
    assert!(p.path("runtime/props/box/tex_0.ktx2").exists());
    p.link(&["check", "--root", "runtime"]).expect_ok("check");

    p.touch("assets/props/box.mtl");
    let run = p.ninja(&[]).expect_ok("ninja after an .mtl edit");
    assert!(mesh_edges(&run).contains(&"MESH assets/props/box.obj".to_string()));

    // A table whose row count disagrees with the mesh is caught by check.
    p.write("runtime/props/box.hmat", &hmat::write_hmat(&rows[..1]));
    let run = p.link(&["check", "--root", "runtime"]);
    assert!(
        run.stderr
            .contains("box.hmat: has 1 rows but props/box.hmesh has 2 material slots"),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_mesh_sources_fail_their_own_edge_and_leave_nothing() {
    let p = Project::new(CONFIG);
    p.png("assets/fine.png", 4, 4, 1);

    let mut b = GltfBuilder::new();
    fixtures::triangle_mesh(&mut b, None);
    let node = b.add_node(Node::mesh(0));
    b.add_scene(&[node]);
    let (json, _) = b.to_gltf_with_bin("gone.bin");
    p.write("assets/nobin.gltf", &json);
    let glb = b.to_glb();
    p.write("assets/cut.glb", &glb[..glb.len() - 7]);
    let mut nan = GltfBuilder::new();
    let positions = nan.add_positions(&[[0.0, 0.0, 0.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let mesh = nan.add_mesh(&[Primitive::new(positions)]);
    let node = nan.add_node(Node::mesh(mesh));
    nan.add_scene(&[node]);
    p.write("assets/nan.glb", &nan.to_glb());
    p.write(
        "assets/escape.obj",
        b"mtllib ../../outside.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );

    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok, "the build must fail");
    for needle in ["gone.bin", "cut.glb", "nan.glb", "escape.obj"] {
        assert!(
            run.stdout.contains(needle),
            "{needle} not named:\n{}",
            run.stdout
        );
    }
    assert!(
        run.stdout.contains("POSITION"),
        "the NaN is located:\n{}",
        run.stdout
    );
    assert!(!run.stdout.contains("panicked"), "{}", run.stdout);
    assert!(p.path("runtime/fine.ktx2").exists());
    for stem in ["nobin", "cut", "nan", "escape"] {
        for ext in ["hmesh", "hmat"] {
            assert!(
                !p.path(&format!("runtime/{stem}.{ext}")).exists(),
                "{stem}.{ext}"
            );
        }
    }
    assert!(!p.path("runtime/assets.hman").exists());
}

#[test]
fn two_small_meshes_match_their_golden_files() {
    let p = Project::new(CONFIG);
    write_crate(&p);
    write_obj_box(&p);
    p.build(&[]);
    for (rel, name) in [
        ("models/crate.hmesh", "crate.hmesh"),
        ("models/crate.hmat", "crate.hmat"),
        ("props/box.hmesh", "box.hmesh"),
        ("props/box.hmat", "box.hmat"),
    ] {
        assert_golden(&read(&p, &format!("runtime/{rel}")), name);
    }
}

/// `assets/models/<name>.gltf`: one triangle whose material's base colour
/// is the image file `<uri>`.
fn write_textured_triangle(p: &Project, name: &str, uri: &str) {
    let mut b = GltfBuilder::new();
    let image = b.add_image_uri(uri);
    let texture = b.add_texture(Some(image));
    let material = b.add_material(&Material {
        base_color_texture: Some(texture),
        ..Material::default()
    });
    let mesh = fixtures::triangle_mesh(&mut b, Some(material));
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    std::fs::create_dir_all(p.path("assets/models")).unwrap();
    b.write_gltf(&p.path("assets/models"), name).unwrap();
}

#[test]
fn an_image_file_several_models_use_is_encoded_once() {
    let p = Project::new(CONFIG);
    p.png("assets/models/shared.png", 16, 16, 7);
    for name in ["a", "b", "c"] {
        write_textured_triangle(&p, name, "shared.png");
    }
    let run = p.build(&[]);
    let encodes: Vec<String> = mesh_edges(&run)
        .into_iter()
        .filter(|e| e.starts_with("TEXTURE"))
        .collect();
    // The first model's edge encodes the image; the others pass its KTX2
    // through.
    assert_eq!(
        encodes,
        [
            "TEXTURE assets/models/a.gltf image 0 (shared.png)",
            "TEXTURE assets/models/b.gltf image 0 (shared.png, copied from runtime/models/a/tex_0.ktx2)",
            "TEXTURE assets/models/c.gltf image 0 (shared.png, copied from runtime/models/a/tex_0.ktx2)",
        ]
    );
    let first = read(&p, "runtime/models/a/tex_0.ktx2");
    for other in ["b", "c"] {
        assert_eq!(
            read(&p, &format!("runtime/models/{other}/tex_0.ktx2")),
            first
        );
    }
    // Each model keeps its own texture id, so its rows resolve as before.
    let manifest_bytes = read(&p, "runtime/assets.hman");
    let manifest = hman::parse(&manifest_bytes).unwrap();
    for name in ["a", "b", "c"] {
        let path = format!("models/{name}/tex_0.ktx2");
        assert!(manifest.iter().any(|e| e.path == path), "{path} not listed");
    }
    p.assert_no_op();
    // An edit of the image reaches every model, encoding it once.
    p.png("assets/models/shared.png", 16, 16, 8);
    let run = p.ninja(&[]).expect_ok("the edit");
    let encodes = mesh_edges(&run);
    assert_eq!(encodes.len(), 3, "{encodes:?}");
    assert_eq!(
        read(&p, "runtime/models/c/tex_0.ktx2"),
        read(&p, "runtime/models/a/tex_0.ktx2")
    );
    assert_ne!(read(&p, "runtime/models/a/tex_0.ktx2"), first);
}

// Valid input that used to be refused (issue 27, items 5 to 9): each builds
// green through Ninja, prints its warning, and passes `assetc-link check`.

/// `assetc configure` then `ninja`, which must succeed; returns Ninja's
/// output (where the encoders' warnings appear) after checking the outputs.
fn build_and_check(p: &Project) -> String {
    let run = p.build(&[]);
    p.link(&["check", "--root", "runtime"]).expect_ok("check");
    run.stdout
}

/// Builds and checks `p`, which must print `warning`, and reads the mesh
/// `runtime/<stem>.hmesh`.
fn build_saying(p: &Project, warning: &str, stem: &str) -> hmesh::MeshData {
    assert_mentions(&build_and_check(p), warning);
    hmesh::read_hmesh(&read(p, &format!("runtime/{stem}.hmesh"))).unwrap()
}

/// Panics with `output` unless it contains `needle`.
fn assert_mentions(output: &str, needle: &str) {
    assert!(output.contains(needle), "{needle:?} not in:\n{output}");
}

/// A triangle's positions.
fn triangle_positions(b: &mut GltfBuilder) -> usize {
    b.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
}

/// A GLB whose one node's mesh has these primitives.
fn one_mesh_glb(primitives: impl FnOnce(&mut GltfBuilder) -> Vec<Primitive>) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let list = primitives(&mut b);
    let mesh = b.add_mesh(&list);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    b.to_glb()
}

#[test]
fn points_and_lines_are_skipped_with_one_warning_and_named_when_alone() {
    let p = Project::new(CONFIG);
    p.write(
        "assets/wire.glb",
        &one_mesh_glb(|b| {
            let at = triangle_positions(b);
            [None, Some(fixtures::LINES), Some(fixtures::POINTS)]
                .map(|mode| Primitive {
                    mode,
                    ..Primitive::new(at)
                })
                .into()
        }),
    );
    let mesh = build_saying(
        &p,
        "wire.glb: skipped 2 primitives that are not triangles (1 POINTS, 1 LINES): .hmesh holds triangles only",
        "wire",
    );
    assert_eq!(mesh.submeshes.len(), 1);

    p.write(
        "assets/lines.glb",
        &one_mesh_glb(|b| {
            let at = triangle_positions(b);
            vec![
                Primitive::new(at).mode(fixtures::LINE_STRIP),
                Primitive::new(at).mode(fixtures::LINE_STRIP),
            ]
        }),
    );
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&[]);
    assert!(!run.ok, "a file of lines alone fails its edge");
    assert_mentions(
        &run.stdout,
        "scenes[0]: the scene has no triangles: its 2 primitives are LINE_STRIP (2), which .hmesh cannot hold",
    );
    assert!(!p.path("runtime/lines.hmesh").exists());
}

#[test]
fn a_primitive_without_position_is_skipped_with_a_warning() {
    let p = Project::new(CONFIG);
    p.write(
        "assets/partial.glb",
        &one_mesh_glb(|b| {
            let at = triangle_positions(b);
            let normals = b.add_vec3(&[[0.0, 0.0, 1.0]; 3]);
            let positionless = Primitive {
                attributes: vec![("NORMAL".to_owned(), normals)],
                ..Primitive::new(at)
            };
            vec![Primitive::new(at), positionless]
        }),
    );
    let mesh = build_saying(
        &p,
        "partial.glb: meshes[0].primitives[1]: has no POSITION attribute; skipped",
        "partial",
    );
    assert_eq!(mesh.submeshes.len(), 1);
}

#[test]
fn an_animation_pointer_channel_is_skipped_with_one_warning() {
    let p = Project::new(CONFIG);
    let glb = fixtures::skinned_animated().to_glb_edited(|json| {
        json["extensionsUsed"] = serde_json::json!(["KHR_animation_pointer"]);
        let pointer = serde_json::json!({"sampler": 0, "target": {"path": "pointer",
            "extensions": {"KHR_animation_pointer": {"pointer": "/materials/0/alphaCutoff"}}}});
        json["animations"][0]["channels"]
            .as_array_mut()
            .unwrap()
            .insert(0, pointer);
    });
    p.write("assets/fox.glb", &glb);
    let output = build_and_check(&p);
    assert_mentions(
        &output,
        "fox.glb: animations[0]: channels[0] has no target.node (it uses KHR_animation_pointer); skipped",
    );
    let clips = hanim::read_hanim(&read(&p, "runtime/fox.hanim")).unwrap();
    assert_eq!(clips[0].name, "walk");
    assert!(!clips[0].channels.is_empty());
}

#[test]
fn a_scene_without_nodes_is_empty_and_the_full_scene_is_built() {
    let p = Project::new(CONFIG);
    let mut b = GltfBuilder::new();
    let mesh = fixtures::triangle_mesh(&mut b, None);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let glb = b.to_glb_edited(|json| {
        let scenes = json["scenes"].as_array_mut().unwrap();
        scenes.insert(0, serde_json::json!({"name": "empty extra"}));
    });
    p.write("assets/scenes.glb", &glb);
    let mesh = build_saying(
        &p,
        "scenes.glb: scenes[0] (the first scene) has no nodes; scenes[1] is built instead",
        "scenes",
    );
    assert_eq!(mesh.submeshes.len(), 1);
}

#[test]
fn obj_absolute_names_are_looked_for_beside_and_library_names_may_hold_spaces() {
    let p = Project::new(CONFIG);
    // A library that exists where an absolute name points, outside the input
    // folder: it must never be read.
    p.write("outside.mtl", b"newmtl Outside\nKd 1 0 0\n");
    let outside = p.path("outside.mtl");
    let mut obj = format!("mtllib /box.mtl my paint.mtl {}\n", outside.display());
    obj += "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n";
    obj += "usemtl Box\nf 1/1 2/2 3/3\nusemtl Paint\nf 2/2 4/1 3/3\n";
    p.write("assets/props/crate.obj", obj.as_bytes());
    p.write("assets/props/box.mtl", b"newmtl Box\nmap_Kd /cesium.png\n");
    p.write(
        "assets/props/my paint.mtl",
        b"newmtl Paint\nmap_Kd paint.png\n",
    );
    p.png("assets/props/cesium.png", 8, 8, 1);
    p.png("assets/props/paint.png", 8, 8, 2);

    let output = build_and_check(&p);
    for needle in [
        "crate.obj: line 1: mtllib \"/box.mtl\" is not there, so props/box.mtl found beside the file is used",
        "crate.obj: props/box.mtl:2: texture \"/cesium.png\" is not there, so props/cesium.png found beside the file is used",
        "(an absolute path is never opened; looked for \"outside.mtl\" beside the file); its materials fall back to the default",
    ] {
        assert_mentions(&output, needle);
    }
    let rows = hmat::read_hmat(&read(&p, "runtime/props/crate.hmat")).unwrap();
    assert_eq!(rows.len(), 2, "both libraries' materials are used");
    assert_eq!(rows[0].base_color_texture, asset_hash("props/crate/tex_0"));
    assert_eq!(rows[1].base_color_texture, asset_hash("props/crate/tex_1"));
    assert!(p.path("runtime/props/crate/tex_1.ktx2").exists());
}

/// `assets/terrain.gltf`: a hilly `n × n`-quad grid with normals and UVs
/// (tangents are made by the edge), and a cube of two primitives.
fn write_terrain(p: &Project, n: u32) {
    let height = |x: f32, y: f32| 0.05 * (17.0 * x).sin() * (13.0 * y).cos();
    let (mut positions, mut normals, mut uvs) = (Vec::new(), Vec::new(), Vec::new());
    for row in 0..=n {
        for column in 0..=n {
            let (x, y) = (column as f32 / n as f32, row as f32 / n as f32);
            positions.push([x, y, height(x, y)]);
            let dx = 0.85 * (17.0 * x).cos() * (13.0 * y).cos();
            let dy = -0.65 * (17.0 * x).sin() * (13.0 * y).sin();
            let length = (dx * dx + dy * dy + 1.0).sqrt();
            normals.push([-dx / length, -dy / length, 1.0 / length]);
            uvs.push([x * 4.0, y * 4.0]);
        }
    }
    let at = |column: u32, row: u32| row * (n + 1) + column;
    let mut indices = Vec::new();
    for row in 0..n {
        for column in 0..n {
            let (a, b) = (at(column, row), at(column + 1, row));
            let (c, d) = (at(column + 1, row + 1), at(column, row + 1));
            indices.extend([a, b, c, a, c, d]);
        }
    }
    let mut b = GltfBuilder::new();
    let ground = Primitive::new(b.add_positions(&positions))
        .normal(b.add_vec3(&normals))
        .uv(b.add_vec2(&uvs))
        .indices(b.add_indices_u32(&indices));
    let ground = b.add_mesh(&[ground]);
    let material = b.add_material(&Material::default());
    let cube = add_cube(&mut b, (material, material));
    let nodes = [ground, cube].map(|mesh| b.add_node(Node::mesh(mesh)));
    b.add_scene(&nodes);
    std::fs::create_dir_all(p.path("assets")).unwrap();
    b.write_gltf(&p.path("assets"), "terrain").unwrap();
}

#[test]
fn a_large_mesh_has_the_same_bytes_at_one_and_four_threads() {
    let p = Project::new(CONFIG);
    // 264 × 264 quads: 139,392 triangles, four parts and three tangent runs.
    write_terrain(&p, 264);
    p.assetc(&["configure"]).expect_ok("assetc configure");
    let build = |threads: &str| {
        // Ninja runs the edge again when its output is missing; the
        // thread budget is not part of the command line.
        let _ = std::fs::remove_file(p.path("runtime/terrain.hmesh"));
        let output = std::process::Command::new(ninja_program())
            .current_dir(p.root())
            .env("ASSETC_THREADS", threads)
            .env_remove("MAKEFLAGS")
            .env_remove("ASSETC_CACHE")
            .output()
            .expect("ninja runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "ninja at {threads} threads: {stdout}"
        );
        assert!(stdout.contains("MESH assets/terrain.gltf"), "{stdout}");
        (
            read(&p, "runtime/terrain.hmesh"),
            read(&p, "runtime/terrain.hmat"),
        )
    };
    let one = build("1");
    let four = build("4");
    assert!(one == four, "the mesh files differ between 1 and 4 threads");
    let mesh = hmesh::read_hmesh(&one.0).unwrap();
    assert_eq!(
        mesh.submeshes.len(),
        3,
        "the grid and the cube's two primitives"
    );
    assert_eq!(mesh.submeshes[0].index_count, 6 * 264 * 264);
    // Both levels of the cut grid were kept and reach near their targets.
    let full = f64::from(mesh.submeshes[0].index_count);
    for (level, ratio) in mesh.lod_table.iter().take(2).zip([0.5, 0.25]) {
        let share = f64::from(level.index_count) / full;
        assert!(share > ratio * 0.8 && share < ratio * 1.2, "{level:?}");
    }
}
