//! End-to-end tests: OBJ, MTL and texture files written to a temporary input
//! folder, read through the public entry points.

use std::path::{Path, PathBuf};

use super::*;
use crate::encode::mesh::scene::ImageSource;
use crate::encode::texture::TextureMode;
use crate::format::hash::asset_hash;
use crate::format::hmat::{ALPHA_MODE_SHIFT, AlphaMode};

/// A temporary input folder.
struct Input {
    dir: tempfile::TempDir,
}

impl Input {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `contents` at `relative`, creating folders.
    fn write(&self, relative: &str, contents: &str) -> PathBuf {
        let path = self.root().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        path
    }

    fn import(&self, obj: &str) -> Result<(Scene, Vec<PathBuf>), ObjError> {
        import_obj(&self.root().join(obj), self.root(), "models/crate")
    }
}

/// A unit cube: 8 corners, 4 UVs, 6 normals, then `faces_a` with material
/// `first` and the rest with `second`.
fn cube_obj(mtllib: &str, first: &str, second: &str) -> String {
    let mut text = format!("# cube\nmtllib {mtllib}\no Crate\n");
    for corner in 0..8 {
        let (x, y, z) = (corner & 1, (corner >> 1) & 1, (corner >> 2) & 1);
        text.push_str(&format!("v {x} {y} {z}\n"));
    }
    text.push_str("vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n");
    text.push_str("vn -1 0 0\nvn 1 0 0\nvn 0 -1 0\nvn 0 1 0\nvn 0 0 -1\nvn 0 0 1\n");
    let faces = [
        [1, 5, 7, 3],
        [2, 4, 8, 6],
        [1, 2, 6, 5],
        [3, 7, 8, 4],
        [1, 3, 4, 2],
        [5, 6, 8, 7],
    ];
    for (index, face) in faces.iter().enumerate() {
        if index == 0 {
            text.push_str(&format!("usemtl {first}\n"));
        }
        if index == 3 {
            text.push_str(&format!("usemtl {second}\n"));
        }
        let corners: Vec<String> = face
            .iter()
            .enumerate()
            .map(|(k, v)| format!("{v}/{}/{}", k + 1, index + 1))
            .collect();
        text.push_str(&format!("f {}\n", corners.join(" ")));
    }
    text
}

const CRATE_MTL: &str = "\
# two materials
newmtl Paint
Kd 0.8 0.1 0.1
d 0.5
Ns 30

newmtl Wood
Kd 1 1 1
Ns 0
map_Kd tex/wood.png
norm -bm 0.5 tex\\wood_n.png
";

fn crate_input() -> Input {
    let input = Input::new();
    input.write("models/crate.obj", &cube_obj("crate.mtl", "Paint", "Wood"));
    input.write("models/crate.mtl", CRATE_MTL);
    input.write("models/tex/wood.png", "png");
    input.write("models/tex/wood_n.png", "png");
    input
}

#[test]
fn multi_material_cube() {
    let input = crate_input();
    let (scene, extra) = input.import("models/crate.obj").unwrap();
    assert_eq!(extra, [input.root().join("models/crate.mtl")]);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    assert!(scene.skeleton.is_empty() && scene.animations.is_empty());

    let [paint_part, wood_part] = scene.primitives.as_slice() else {
        panic!("two primitives expected, got {:?}", scene.primitives.len());
    };
    assert_eq!(paint_part.label, r#"object "Crate", material "Paint""#);
    assert_eq!(
        (paint_part.material, wood_part.material),
        (Some(0), Some(1))
    );
    for part in [paint_part, wood_part] {
        assert_eq!(
            part.indices.len(),
            3 * 2 * 3,
            "three quads, two triangles each"
        );
        assert_eq!(
            part.positions.len(),
            12,
            "four corners per face, each unique"
        );
        assert!(
            part.indices
                .iter()
                .all(|&i| (i as usize) < part.positions.len())
        );
        assert_eq!(part.normals.as_ref().map(Vec::len), Some(12));
        assert_eq!(part.uvs.as_ref().map(Vec::len), Some(12));
    }
    // The first corner of the first face has vt 0 0: flipped to (0, 1).
    assert_eq!(paint_part.uvs.as_ref().unwrap()[0], [0.0, 1.0]);
    assert_eq!(paint_part.normals.as_ref().unwrap()[0], [-1.0, 0.0, 0.0]);

    let [paint, wood] = scene.materials.as_slice() else {
        panic!("two materials expected");
    };
    assert_eq!((paint.name.as_str(), wood.name.as_str()), ("Paint", "Wood"));
    assert_eq!(paint.row.base_color_factor, [0.8, 0.1, 0.1, 0.5]);
    assert_eq!(
        paint.row.flags,
        (AlphaMode::Blend as u32) << ALPHA_MODE_SHIFT
    );
    assert!(
        (paint.row.roughness_factor - 0.5).abs() < 1e-6,
        "Ns 30 -> 0.5"
    );
    assert_eq!(paint.row.metallic_factor, 0.0);
    assert_eq!(paint.row.base_color_texture, 0);
    assert_eq!(wood.row.base_color_factor, [1.0; 4]);
    assert_eq!(wood.row.flags, 0);
    assert_eq!(wood.row.roughness_factor, 1.0);
    assert_eq!(
        wood.row.base_color_texture,
        asset_hash("models/crate/tex_0")
    );
    assert_eq!(wood.row.normal_texture, asset_hash("models/crate/tex_1"));
    assert_eq!(wood.row.normal_scale, 0.5);
    assert_eq!(wood.row.emissive_texture, 0);
}

#[test]
fn texture_list_order_dedupe_and_modes() {
    let input = Input::new();
    let obj = input.write(
        "models/crate.obj",
        "mtllib a.mtl lib/b.mtl\nmtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    input.write(
        "models/a.mtl",
        "newmtl First\nmap_Ke glow.png\nmap_Kd -s 2 2 1 tex\\c.png\nmap_Bump -bm 2 n.png\n\
         newmtl Second\nmap_Ks spec.png\nnorm ./tex/c.png\nmap_Kd glow.png\n",
    );
    input.write(
        "models/lib/b.mtl",
        "newmtl Third\nmap_Kd ..\\n.png\nmap_Ke ../shared/e.png\n",
    );
    for texture in ["glow.png", "tex/c.png", "n.png", "shared/e.png"] {
        input.write(&format!("models/{texture}"), "png");
    }
    let listed = obj_textures(&obj, input.root()).unwrap();
    let models = input.root().join("models");
    let expected = [
        (TextureMode::Color, models.join("tex/c.png")),
        (TextureMode::Normal, models.join("n.png")),
        (TextureMode::Color, models.join("glow.png")),
        (TextureMode::Color, models.join("shared/e.png")),
    ];
    let found: Vec<(usize, TextureMode, PathBuf)> = listed
        .textures
        .iter()
        .map(|t| match &t.source {
            ImageSource::File(path) => (t.index, t.mode, path.clone()),
            ImageSource::Embedded => panic!("OBJ textures are files"),
        })
        .collect();
    let expected: Vec<(usize, TextureMode, PathBuf)> = expected
        .into_iter()
        .enumerate()
        .map(|(index, (mode, path))| (index, mode, path))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(
        listed.inputs,
        [models.join("a.mtl"), models.join("lib/b.mtl")]
    );

    let conflict: Vec<&String> = listed
        .warnings
        .iter()
        .filter(|w| w.contains("first as a colour texture"))
        .collect();
    assert_eq!(conflict.len(), 1, "{:?}", listed.warnings);
    assert!(
        conflict[0].starts_with("models/a.mtl:7:"),
        "{}",
        conflict[0]
    );
    assert!(
        listed
            .warnings
            .iter()
            .any(|w| w.starts_with("models/a.mtl:3: map_Kd -s"))
    );
    assert!(
        listed
            .warnings
            .iter()
            .any(|w| w.starts_with("models/a.mtl:6: map_Ks"))
    );

    // The import uses the same indices, and `-bm` becomes the normal scale.
    let (scene, _) = import_obj(&obj, input.root(), "models/crate").unwrap();
    let rows: Vec<_> = scene.materials.iter().map(|m| m.row).collect();
    assert_eq!(rows[0].base_color_texture, asset_hash("models/crate/tex_0"));
    assert_eq!(rows[0].normal_texture, asset_hash("models/crate/tex_1"));
    assert_eq!(rows[0].normal_scale, 2.0);
    assert_eq!(rows[0].emissive_texture, asset_hash("models/crate/tex_2"));
    assert_eq!(rows[0].emissive_factor, [1.0; 3], "map_Ke without Ke shows");
    assert_eq!(rows[1].normal_texture, asset_hash("models/crate/tex_0"));
    assert_eq!(rows[1].base_color_texture, asset_hash("models/crate/tex_2"));
    assert_eq!(rows[2].base_color_texture, asset_hash("models/crate/tex_1"));
    assert_eq!(rows[2].emissive_texture, asset_hash("models/crate/tex_3"));
}

#[test]
fn library_names_may_contain_spaces() {
    let input = Input::new();
    let obj = input.write("crate.obj", "mtllib my materials.mtl\nv 0 0 0\n");
    input.write("my materials.mtl", "newmtl A\nmap_Kd my texture.png\n");
    input.write("my texture.png", "png");
    let listed = obj_textures(&obj, input.root()).unwrap();
    assert_eq!(listed.inputs, [input.root().join("my materials.mtl")]);
    assert_eq!(
        listed.textures[0].source,
        ImageSource::File(input.root().join("my texture.png"))
    );
}

#[test]
fn library_lines_are_split_at_the_longest_existing_names() {
    let input = Input::new();
    let obj = input.write(
        "crate.obj",
        &triangle_obj("mtllib my file.mtl  other.mtl my gone.mtl a b.mtl"),
    );
    for (name, material) in [("my file.mtl", "A"), ("other.mtl", "B"), ("a b.mtl", "C")] {
        input.write(name, &format!("newmtl {material}\nmap_Kd {material}.png\n"));
        input.write(&format!("{material}.png"), "png");
    }
    let listed = obj_textures(&obj, input.root()).unwrap();
    let read: Vec<_> = ["my file.mtl", "other.mtl", "a b.mtl"]
        .map(|name| input.root().join(name))
        .into();
    assert_eq!(listed.inputs, read);
    assert_eq!(listed.textures.len(), 3, "every library's material is kept");
    assert_eq!(
        listed.warnings,
        [format!(
            "line 1: material library \"my gone.mtl\" not found (looked for {}, and for \"my gone.mtl\" beside the file); its materials fall back to the default",
            input.root().join("my gone.mtl").display()
        )]
    );
    let (scene, extra) = input.import("crate.obj").unwrap();
    assert_eq!(extra, read, "the mesh edge splits the line the same way");
    assert_eq!(scene.materials.len(), 3);
}

#[test]
fn absolute_names_found_nowhere_are_warnings() {
    let input = Input::new();
    input.write(
        "models/m.obj",
        &triangle_obj("mtllib m.mtl /home/bob/gone.mtl"),
    );
    input.write("models/m.mtl", "newmtl A\nmap_Kd /home/bob/cesium.png\n");
    let textures = obj_textures(&input.root().join("models/m.obj"), input.root()).unwrap();
    assert!(textures.textures.is_empty());
    assert_eq!(
        textures.warnings,
        [
            "line 1: material library \"/home/bob/gone.mtl\" not found (an absolute path is never opened; looked for \"gone.mtl\" beside the file); its materials fall back to the default",
            "models/m.mtl:2: texture \"/home/bob/cesium.png\" not found (an absolute path is never opened; looked for \"cesium.png\" beside the file); the slot is left empty",
        ]
    );
    let (scene, _) = input.import("models/m.obj").unwrap();
    assert_eq!(scene.primitives.len(), 1);
    assert_eq!(scene.materials[0].row.base_color_texture, 0);
}

#[test]
fn unknown_material_and_skipped_lines_are_warnings() {
    let input = Input::new();
    input.write(
        "m.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl Missing\nl 1 2 3\nf 1 2 3\n",
    );
    let (scene, extra) = input.import("m.obj").unwrap();
    assert!(extra.is_empty());
    assert_eq!(scene.primitives.len(), 1);
    assert_eq!(scene.primitives[0].material, None);
    assert_eq!(
        scene.primitives[0].label,
        r#"object "unnamed_object", no material"#
    );
    assert_eq!(
        scene.primitives[0].indices.len(),
        3,
        "the line is no triangle"
    );
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.starts_with("line 4: usemtl \"Missing\""))
    );
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.starts_with("line 5: 1 point and line"))
    );
}

/// A triangle using material `A`, after `head` (an `mtllib` line).
fn triangle_obj(head: &str) -> String {
    format!("{head}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl A\nf 1/1 2/1 3/1\n")
}

#[test]
fn a_missing_library_falls_back_to_the_default_material_with_a_warning() {
    let input = Input::new();
    input.write("m.obj", &triangle_obj("# x\nmtllib gone.mtl"));
    let (scene, files) = input.import("m.obj").unwrap();
    assert!(files.is_empty());
    assert!(scene.materials.is_empty());
    assert!(
        scene.warnings.iter().any(|w| w
            .starts_with("line 2: material library \"gone.mtl\" not found")
            && w.ends_with("fall back to the default")),
        "{:?}",
        scene.warnings
    );
    let textures = obj_textures(&input.root().join("m.obj"), input.root()).unwrap();
    assert_eq!(textures.warnings.len(), 1, "{:?}", textures.warnings);
}

#[test]
fn a_missing_texture_leaves_its_slot_empty_with_a_warning() {
    let input = Input::new();
    input.write("m.obj", &triangle_obj("mtllib m.mtl"));
    input.write("m.mtl", "newmtl A\nKd 1 1 1\nmap_Kd gone.png\n");
    let textures = obj_textures(&input.root().join("m.obj"), input.root()).unwrap();
    assert!(textures.textures.is_empty());
    assert!(
        textures.warnings[0].starts_with("m.mtl:3: texture \"gone.png\" not found")
            && textures.warnings[0].ends_with("the slot is left empty"),
        "{:?}",
        textures.warnings
    );
    let (scene, _) = input.import("m.obj").unwrap();
    assert_eq!(scene.materials[0].row.base_color_texture, 0);
}

#[test]
fn exports_from_another_machine_find_their_files_beside_the_obj() {
    let input = Input::new();
    input.write(
        "models/m.obj",
        &triangle_obj(r"mtllib C:\Users\bob\export\m.mtl"),
    );
    input.write(
        "models/m.mtl",
        "newmtl A\nmap_Kd /home/bob/textures/wood.png\nmap_Bump textures\\normal.png\n",
    );
    input.write("models/wood.png", "png");
    input.write("models/normal.png", "png");
    let textures = obj_textures(&input.root().join("models/m.obj"), input.root()).unwrap();
    let found: Vec<_> = textures.textures.iter().map(|t| t.source.clone()).collect();
    assert_eq!(
        found,
        [
            ImageSource::File(input.root().join("models/wood.png")),
            ImageSource::File(input.root().join("models/normal.png")),
        ]
    );
    // The library and both textures were found beside the OBJ.
    assert_eq!(textures.warnings.len(), 3, "{:?}", textures.warnings);
    assert!(
        textures
            .warnings
            .iter()
            .all(|w| w.contains("beside the file is used")),
        "{:?}",
        textures.warnings
    );
    let (scene, files) = input.import("models/m.obj").unwrap();
    assert_eq!(files, [input.root().join("models/m.mtl")]);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.starts_with("line 1: mtllib")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn an_unnamed_material_is_read_with_a_warning() {
    let input = Input::new();
    input.write(
        "m.obj",
        &format!("{}usemtl\nf 1 2 3\n", triangle_obj("mtllib m.mtl")),
    );
    input.write("m.mtl", "newmtl\nKd 1 0 0\nnewmtl A\nKd 0 1 0\n");
    let (scene, _) = input.import("m.obj").unwrap();
    assert_eq!(scene.materials.len(), 2);
    // `usemtl` without a name selects the unnamed material.
    let used: Vec<_> = scene.primitives.iter().map(|p| p.material).collect();
    assert_eq!(used, [Some(1), Some(0)]);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.starts_with("m.mtl:1: newmtl has no name")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn texture_escaping_the_input_folder_is_refused() {
    let input = Input::new();
    input.write("models/m.obj", "mtllib m.mtl\n");
    let mtl = input.write("models/m.mtl", "newmtl A\n\nmap_Kd ../../x.png\n");
    let error = obj_textures(&input.root().join("models/m.obj"), input.root()).unwrap_err();
    assert_eq!((error.file.as_path(), error.line), (mtl.as_path(), Some(3)));
    assert!(error.what.contains("outside the input folder"), "{error}");
    input.write("models/m.obj", "mtllib ../../other.mtl\n");
    let error = obj_textures(&input.root().join("models/m.obj"), input.root()).unwrap_err();
    assert_eq!(error.line, Some(1));
}

#[test]
fn malformed_mtl_number_names_file_and_line() {
    let input = Input::new();
    input.write(
        "m.obj",
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    let mtl = input.write("m.mtl", "newmtl A\nKd 1 1 1\nNs 1,5\n");
    let error = input.import("m.obj").unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{}:3: Ns: \"1,5\" is not a finite number", mtl.display())
    );
}

#[test]
fn non_finite_vertex_names_the_obj_line() {
    let input = Input::new();
    let obj = input.write("m.obj", "v 0 0 0\nv 1 0 0\nv 0 NaN 0\nf 1 2 3\n");
    let error = input.import("m.obj").unwrap_err();
    assert_eq!((error.file.as_path(), error.line), (obj.as_path(), Some(3)));
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}:3: v:", obj.display()))
    );
}

#[test]
fn file_without_faces_has_no_triangles() {
    let input = Input::new();
    for text in [
        "",
        "# nothing\nv 0 0 0\nv 1 0 0\n",
        "v 0 0 0\nv 1 0 0\nf 1 2\n",
    ] {
        let obj = input.write("m.obj", text);
        let error = input.import("m.obj").unwrap_err();
        assert_eq!((error.file.as_path(), error.line), (obj.as_path(), None));
        assert!(error.what.starts_with("no triangles"), "{error}");
    }
}

#[test]
fn obj_outside_the_input_folder_is_refused() {
    let input = Input::new();
    let other = Input::new();
    let obj = other.write("m.obj", "v 0 0 0\n");
    let error = obj_textures(&obj, input.root()).unwrap_err();
    assert!(
        error.what.contains("not inside the input folder"),
        "{error}"
    );
}

#[test]
fn unreadable_obj_names_the_file() {
    let input = Input::new();
    let error = input.import("absent.obj").unwrap_err();
    assert_eq!(error.line, None);
    assert!(
        error.to_string().contains("absent.obj: cannot be read"),
        "{error}"
    );
}

#[test]
fn import_is_deterministic() {
    let first = crate_input();
    let second = crate_input();
    let (a, _) = first.import("models/crate.obj").unwrap();
    let (b, _) = second.import("models/crate.obj").unwrap();
    let (c, _) = first.import("models/crate.obj").unwrap();
    assert_eq!(a, b);
    assert_eq!(a, c);
}
