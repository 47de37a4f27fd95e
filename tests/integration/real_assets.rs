//! Real public models through the real pipeline: the Khronos glTF samples
//! and OBJ loader tests that Debian's `assimp-testmodels` package ships,
//! plus what Debian's `gltfpack` makes of them (quantized, meshopt
//! compressed with and without fallback, filtered), as a user's folder of
//! exporter output.
//!
//! A Draco-compressed version of one model must match its plain version.
//! Every model must build with the strict default, pass `assetc-link check`,
//! and each `.hmesh` must hold the triangle count and bounds an independent
//! reading of its source gives: the `gltf` crate's own accessor reader with
//! the node transforms for glTF, a plain face counter for OBJ. The gltfpack
//! variants must match the uncompressed float file gltfpack writes from the
//! same model (`-noq`), bounds within the quantization step.
//!
//! `tools/ensure-deps --for-tests` installs both packages.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::Project;
use assetc::format::hmesh;

/// Where `assimp-testmodels` puts the models.
const MODELS: &str = "/usr/share/assimp/models";

/// Model folders copied into `assets/` (source folder, destination).
const FOLDERS: &[(&str, &str)] = &[
    ("glTF2/BoxTextured-glTF", "khronos/box"),
    ("glTF2/BoxTextured-glTF-Binary", "khronos/box_glb"),
    ("glTF2/BoxTextured-glTF-Embedded", "khronos/box_embedded"),
    (
        "glTF2/BoxTextured-glTF-pbrSpecularGlossiness",
        "khronos/box_specgloss",
    ),
    ("glTF2/BoxTexcoords-glTF", "khronos/box_texcoords"),
    ("glTF2/BoxBadNormals-glTF-Binary", "khronos/box_bad_normals"),
    ("glTF2/ClearCoat-glTF", "khronos/clearcoat"),
    ("glTF2/textureTransform", "khronos/texture_transform"),
    ("glTF2/cameras", "khronos/cameras"),
    ("glTF2/simple_skin", "khronos/simple_skin"),
    ("glTF2/2CylinderEngine-glTF-Binary", "khronos/engine"),
    ("glTF2/draco", "khronos/engine_draco"),
    (
        "glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF",
        "khronos/morph_cube",
    ),
];

/// OBJ files (with their `.mtl` and images) copied into `assets/obj/`.
const OBJ_FILES: &[&str] = &[
    "WusonOBJ.obj",
    "box.obj",
    "box_longline.obj",
    "box_mat_with_spaces.obj",
    "box_spaces.mtl",
    "box_without_lineending.obj",
    "concave_polygon.obj",
    "concave_polygon.mtl",
    "cube_usemtl.obj",
    "cube_usemtl.mtl",
    "cube_mtllib_after_g.obj",
    "empty_mat.obj",
    "empty_mat.mtl",
    "cube_with_vertexcolors.obj",
    "cube_with_vertexcolors_uni.obj",
    "multiple_spaces.obj",
    "regr01.obj",
    "regr01.mtl",
    "regr_3429812.obj",
    "regr_3429812.mtl",
    "space_in_material_name.obj",
    "space_in_material_name.mtl",
    "spider.obj",
    "spider.mtl",
    "SpiderTex.jpg",
    "drkwood2.jpg",
    "engineflare1.jpg",
    "wal67ar_small.jpg",
    "wal69ar_small.jpg",
    "testmixed.obj",
];

/// gltfpack runs: (source model, output below `assets/`, arguments).
/// `-noq` writes plain floats: the reference for the others.
const GLTFPACK: &[(&str, &str, &[&str])] = &[
    (
        "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
        "gltfpack/engine_float.glb",
        &["-noq"],
    ),
    (
        "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
        "gltfpack/engine_quantized.glb",
        &[],
    ),
    (
        "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
        "gltfpack/engine_meshopt.glb",
        &["-c"],
    ),
    (
        "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
        "gltfpack/engine_fallback.glb",
        &["-cf"],
    ),
    (
        "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
        "gltfpack/engine_instanced.glb",
        &["-mi"],
    ),
    (
        "glTF2/BoxTextured-glTF/BoxTextured.gltf",
        "gltfpack/box_float.gltf",
        &["-noq"],
    ),
    (
        "glTF2/BoxTextured-glTF/BoxTextured.gltf",
        "gltfpack/box_meshopt.gltf",
        &["-cc"],
    ),
    (
        "glTF2/simple_skin/simple_skin.gltf",
        "gltfpack/skin_float.glb",
        &["-noq"],
    ),
    (
        "glTF2/simple_skin/simple_skin.gltf",
        "gltfpack/skin_quantized.glb",
        &[],
    ),
    (
        "glTF2/simple_skin/simple_skin.gltf",
        "gltfpack/skin_meshopt.glb",
        &["-c"],
    ),
];

/// Each gltfpack output whose geometry is compared with another's, and
/// that other (its `-noq` float twin).
const TWINS: &[(&str, &str)] = &[
    ("gltfpack/engine_quantized.glb", "gltfpack/engine_float.glb"),
    ("gltfpack/engine_meshopt.glb", "gltfpack/engine_float.glb"),
    ("gltfpack/engine_fallback.glb", "gltfpack/engine_float.glb"),
    ("gltfpack/box_meshopt.gltf", "gltfpack/box_float.gltf"),
];

/// Quantized skinned meshes. glTF ignores a skinned node's transform, so
/// gltfpack folds the dequantization into the inverse bind matrices and the
/// vertices stay in quantized units, as assetc keeps them (skinning gives
/// the same result): only their triangle counts are compared with the
/// source, and their geometry with each other (`SAME_GEOMETRY`).
const QUANTIZED_SKINS: &[&str] = &["gltfpack/skin_quantized.glb", "gltfpack/skin_meshopt.glb"];

/// gltfpack's `-mi` output: the engine's repeated meshes as
/// `EXT_mesh_gpu_instancing` instances. The index counts in its JSON are per
/// instance, so it is checked against the plain quantized file alone
/// (`SAME_GEOMETRY`).
const INSTANCED: &str = "gltfpack/engine_instanced.glb";

/// A Draco-compressed file and the plain file of the same model: Draco
/// quantizes positions (to 14 bits here) and may collapse a few slivers.
const DRACO: (&str, &str) = (
    "khronos/engine_draco/2CylinderEngine.gltf",
    "khronos/engine/2CylinderEngine.glb",
);

/// Files that hold the same quantized geometry, plain and meshopt
/// compressed (decoding must give exactly the same mesh) or as
/// `EXT_mesh_gpu_instancing` instances (baked like the nodes they replace,
/// up to rounding), with the bounds tolerance as a fraction of the extent.
const SAME_GEOMETRY: &[(&str, &str, f32)] = &[
    (
        "gltfpack/engine_quantized.glb",
        "gltfpack/engine_meshopt.glb",
        0.0,
    ),
    (
        "gltfpack/engine_quantized.glb",
        "gltfpack/engine_fallback.glb",
        0.0,
    ),
    (
        "gltfpack/engine_quantized.glb",
        "gltfpack/engine_instanced.glb",
        1e-5,
    ),
    (
        "gltfpack/skin_quantized.glb",
        "gltfpack/skin_meshopt.glb",
        0.0,
    ),
];

/// What the corpus has that assetc skips or works around, each of which must
/// be named in a warning of the source that has it: extensions, a missing
/// material library (the file names `cube_mtllib_after_g.mat`, which the
/// package does not ship), an unnamed `newmtl`.
const SKIPPED: &[(&str, &str)] = &[
    (
        "obj/cube_mtllib_after_g.obj",
        "material library \"cube_mtllib_after_g.mat\" not found",
    ),
    ("obj/empty_mat.obj", "newmtl has no name"),
    (
        "khronos/clearcoat/ClearCoatTest.gltf",
        "KHR_materials_clearcoat",
    ),
    (
        "khronos/box_specgloss/BoxTextured.gltf",
        "KHR_materials_pbrSpecularGlossiness",
    ),
];

/// The corpus project's config: the single pack, and lossless textures
/// (their encoding is not what this test is about, and raw is fast).
const CORPUS_CONFIG: &str =
    "input: assets\noutput: runtime\npack: true\ndefault:\n  texture:\n    compress: false\n";

/// Triangles and bounds of one mesh.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    triangles: usize,
    min: [f32; 3],
    max: [f32; 3],
}

impl Geometry {
    fn empty() -> Self {
        Self {
            triangles: 0,
            min: [f32::MAX; 3],
            max: [f32::MIN; 3],
        }
    }

    fn add_point(&mut self, p: [f32; 3]) {
        for ((min, max), value) in self.min.iter_mut().zip(&mut self.max).zip(p) {
            *min = min.min(value);
            *max = max.max(value);
        }
    }

    /// The largest side of the box.
    fn extent(&self) -> f32 {
        (0..3)
            .map(|k| self.max[k] - self.min[k])
            .fold(0.0, f32::max)
    }

    /// Panics unless `other` has the same triangle count and a box within
    /// `tolerance` of the extent on every side.
    fn assert_matches(&self, other: &Geometry, tolerance: f32, what: &str) {
        assert_eq!(self.triangles, other.triangles, "{what}: triangle count");
        let slack = tolerance * self.extent().max(1e-6);
        for k in 0..3 {
            assert!(
                (self.min[k] - other.min[k]).abs() <= slack
                    && (self.max[k] - other.max[k]).abs() <= slack,
                "{what}: bounds {:?}..{:?} against {:?}..{:?}",
                self.min,
                self.max,
                other.min,
                other.max
            );
        }
    }
}

/// Fails with the way out when the Debian packages are missing.
fn require_corpus() {
    assert!(
        Path::new(MODELS).join("glTF2").is_dir(),
        "{MODELS} is missing: install Debian's assimp-testmodels (tools/ensure-deps --for-tests)"
    );
    let gltfpack = Command::new("gltfpack").arg("-v").output();
    assert!(
        gltfpack.is_ok(),
        "gltfpack is missing: install Debian's gltfpack (tools/ensure-deps --for-tests)"
    );
}

/// Configures `project` and runs `ninja` with `args`, which must fail
/// without a panic; returns everything both printed.
fn failing_build(project: &Project, args: &[&str]) -> String {
    project.assetc(&["configure"]).expect_ok("configure");
    let run = project.ninja(args);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(!run.ok, "the build should fail:\n{all}");
    assert!(!all.contains("panicked"), "{all}");
    all
}

/// A project whose `assets/` holds one sample folder, copied to
/// `destination` (below the project).
fn sample_project(model: &str, destination: &str) -> Project {
    require_corpus();
    let project = Project::new("input: assets\noutput: runtime\n");
    copy_folder(&Path::new(MODELS).join(model), &project.path(destination));
    project
}

/// Copies a folder's files (one level, as the model folders are).
fn copy_folder(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A project whose `assets/` holds the whole corpus.
fn corpus_project() -> Project {
    require_corpus();
    let project = Project::new(CORPUS_CONFIG);
    let models = Path::new(MODELS);
    for (source, destination) in FOLDERS {
        copy_folder(
            &models.join(source),
            &project.path(&format!("assets/{destination}")),
        );
    }
    for name in OBJ_FILES {
        let bytes = fs::read(models.join("OBJ").join(name)).unwrap();
        project.write(&format!("assets/obj/{name}"), &bytes);
    }
    // gltfpack keeps external images where they are named: beside its output.
    let image = "CesiumLogoFlat.png";
    let bytes = fs::read(models.join("glTF2/BoxTextured-glTF").join(image)).unwrap();
    project.write(&format!("assets/gltfpack/{image}"), &bytes);
    for (source, output, args) in GLTFPACK {
        let run = Command::new("gltfpack")
            .args(*args)
            .arg("-i")
            .arg(models.join(source))
            .arg("-o")
            .arg(project.path(&format!("assets/{output}")))
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "gltfpack {args:?} {source}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    project
}

/// Every `.hmesh` under `runtime/`, by source path below `assets/`
/// (`khronos/box/BoxTextured.gltf`), with its geometry.
fn built_meshes(project: &Project, sources: &[String]) -> BTreeMap<String, Geometry> {
    sources
        .iter()
        .map(|source| {
            let stem = source.rsplit_once('.').unwrap().0;
            let path = project.path(&format!("runtime/{stem}.hmesh"));
            let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mesh = hmesh::read_hmesh(&bytes).unwrap();
            let triangles = mesh
                .submeshes
                .iter()
                .map(|s| s.index_count as usize / 3)
                .sum();
            let geometry = Geometry {
                triangles,
                min: mesh.bounds.aabb_min,
                max: mesh.bounds.aabb_max,
            };
            (source.clone(), geometry)
        })
        .collect()
}

/// The mesh sources of the corpus, below `assets/`.
fn mesh_sources(project: &Project) -> Vec<String> {
    let mut sources = Vec::new();
    for entry in walk(&project.path("assets")) {
        let rel = entry
            .strip_prefix(project.path("assets"))
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if [".gltf", ".glb", ".obj"].iter().any(|e| rel.ends_with(e)) {
            sources.push(rel);
        }
    }
    sources.sort();
    sources
}

/// Every file below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// The geometry of a glTF, read with the `gltf` crate: every triangle-list
/// primitive of the default scene. The triangle count comes from the index
/// accessors' declared counts, which even compressed files state plainly;
/// the bounds are read only when `read_bounds` (the file must then be plain
/// floats), through the node's world transform (a skinned node's own
/// transform does not apply), over the vertices the triangles use.
fn gltf_reference(path: &Path, read_bounds: bool) -> Geometry {
    let bytes = fs::read(path).unwrap();
    let gltf = gltf::Gltf::from_slice_without_validation(&bytes).unwrap();
    let buffers: Vec<Vec<u8>> = if read_bounds {
        gltf.buffers()
            .map(|buffer| buffer_bytes(&gltf, &buffer, path.parent().unwrap()))
            .collect()
    } else {
        Vec::new()
    };
    let scene = gltf
        .default_scene()
        .or_else(|| gltf.scenes().next())
        .unwrap();
    let mut geometry = Geometry::empty();
    for node in scene.nodes() {
        add_node(&node, IDENTITY, &buffers, &mut geometry);
    }
    geometry
}

/// A column-major 4×4 matrix.
type Matrix = [[f32; 4]; 4];

const IDENTITY: Matrix = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

fn multiply(a: &Matrix, b: &Matrix) -> Matrix {
    let mut out = [[0.0; 4]; 4];
    for (column, out_column) in out.iter_mut().enumerate() {
        for (row, cell) in out_column.iter_mut().enumerate() {
            *cell = (0..4).map(|k| a[k][row] * b[column][k]).sum();
        }
    }
    out
}

fn transform_point(m: &Matrix, p: [f32; 3]) -> [f32; 3] {
    let mut out = [0.0; 3];
    for (row, value) in out.iter_mut().enumerate() {
        *value = m[0][row] * p[0] + m[1][row] * p[1] + m[2][row] * p[2] + m[3][row];
    }
    out
}

/// Adds a node's triangles and those of its children.
fn add_node(node: &gltf::Node, parent: Matrix, buffers: &[Vec<u8>], geometry: &mut Geometry) {
    let world = multiply(&parent, &node.transform().matrix());
    let placement = if node.skin().is_some() {
        IDENTITY
    } else {
        world
    };
    if let Some(mesh) = node.mesh() {
        for primitive in mesh.primitives() {
            if primitive.mode() != gltf::mesh::Mode::Triangles {
                continue;
            }
            let corners = match primitive.indices() {
                Some(indices) => indices.count(),
                None => primitive.get(&gltf::Semantic::Positions).unwrap().count(),
            };
            geometry.triangles += corners / 3;
            if buffers.is_empty() {
                continue;
            }
            let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(Vec::as_slice));
            let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
            let indices: Vec<u32> = match reader.read_indices() {
                Some(indices) => indices.into_u32().collect(),
                None => (0..positions.len() as u32).collect(),
            };
            // A triangle two of whose corners are one vertex (the same
            // position, normal and UV) draws nothing; like gltfpack, assetc
            // drops it.
            let normals: Option<Vec<[f32; 3]>> = reader.read_normals().map(Iterator::collect);
            let uvs: Option<Vec<[f32; 2]>> = reader
                .read_tex_coords(0)
                .map(|uvs| uvs.into_f32().collect());
            let corner = |i: u32| {
                let i = i as usize;
                (
                    positions[i],
                    normals.as_ref().map(|n| n[i]),
                    uvs.as_ref().map(|u| u[i]),
                )
            };
            let degenerate = indices
                .chunks_exact(3)
                .filter(|t| {
                    let [a, b, c] = [t[0], t[1], t[2]].map(corner);
                    a == b || b == c || a == c
                })
                .count();
            geometry.triangles -= degenerate;
            for index in indices {
                geometry.add_point(transform_point(&placement, positions[index as usize]));
            }
        }
    }
    for child in node.children() {
        add_node(&child, world, buffers, geometry);
    }
}

/// The bytes of one buffer: the GLB blob, a data URI or a file beside the
/// glTF.
fn buffer_bytes(gltf: &gltf::Gltf, buffer: &gltf::Buffer, folder: &Path) -> Vec<u8> {
    use base64::Engine as _;
    match buffer.source() {
        gltf::buffer::Source::Bin => gltf.blob.clone().unwrap(),
        gltf::buffer::Source::Uri(uri) => match uri.split_once(";base64,") {
            Some((_, data)) => base64::engine::general_purpose::STANDARD
                .decode(data)
                .unwrap(),
            None => fs::read(folder.join(uri)).unwrap(),
        },
    }
}

/// The geometry of an OBJ read by a plain face counter: a face of `n`
/// corners is a fan of `n - 2` triangles, less those two of whose corners
/// are one vertex (the same position, UV and normal values: they draw
/// nothing, and assetc drops them); bounds over the positions faces use.
fn obj_reference(path: &Path) -> Geometry {
    let text = String::from_utf8_lossy(&fs::read(path).unwrap()).into_owned();
    // Positions, UVs and normals, as the words of their lines.
    let mut lists: BTreeMap<&str, Vec<Vec<&str>>> = BTreeMap::new();
    let mut geometry = Geometry::empty();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some(kind @ ("v" | "vt" | "vn")) => {
                lists.entry(kind).or_default().push(words.take(3).collect());
            }
            Some("f") => {
                let corners: Vec<Vec<Vec<&str>>> = words
                    .map(|corner| {
                        corner
                            .split('/')
                            .zip(["v", "vt", "vn"])
                            .filter(|(index, _)| !index.is_empty())
                            .map(|(index, kind)| {
                                let list = &lists[kind];
                                let index: i64 = index.parse().unwrap();
                                let at = if index < 0 {
                                    list.len() as i64 + index
                                } else {
                                    index - 1
                                };
                                list[at as usize].clone()
                            })
                            .collect()
                    })
                    .collect();
                for pair in corners.windows(2).skip(1) {
                    let (a, b, c) = (&corners[0], &pair[0], &pair[1]);
                    if a != b && b != c && a != c {
                        geometry.triangles += 1;
                    }
                }
                for corner in &corners {
                    let p: Vec<f32> = corner[0].iter().map(|w| w.parse().unwrap()).collect();
                    geometry.add_point([p[0], p[1], p[2]]);
                }
            }
            _ => {}
        }
    }
    geometry
}

#[test]
fn a_folder_of_real_exporter_output_builds_and_matches_its_sources() {
    let project = corpus_project();
    let sources = mesh_sources(&project);
    let run = project.build(&[]);
    let everything = format!("{}{}", run.stdout, run.stderr);
    project
        .link(&["check"])
        .expect_ok("assetc-link check on the corpus");

    let built = built_meshes(&project, &sources);
    let twins: BTreeMap<&str, &str> = TWINS.iter().copied().collect();
    for source in &sources {
        let path = project.path(&format!("assets/{source}"));
        let ours = &built[source];
        if source == INSTANCED {
            continue;
        }
        if source == DRACO.0 {
            let original = &built[DRACO.1];
            assert!(
                ours.triangles <= original.triangles
                    && ours.triangles >= original.triangles - original.triangles / 1000,
                "{source}: {} triangles, the plain file {}",
                ours.triangles,
                original.triangles
            );
            let reference = Geometry {
                triangles: ours.triangles,
                ..*original
            };
            reference.assert_matches(ours, 2e-3, source);
        } else if QUANTIZED_SKINS.contains(&source.as_str()) {
            let declared = gltf_reference(&path, false).triangles;
            assert_eq!(ours.triangles, declared, "{source}: triangle count");
        } else if let Some(twin) = twins.get(source.as_str()) {
            // Positions are quantized to 14 bits of the extent by default,
            // which collapses a few sliver triangles; the builder drops
            // triangles left using one vertex twice, so up to 0.1 % of the
            // declared ones may go.
            let declared = gltf_reference(&path, false).triangles;
            assert!(
                ours.triangles <= declared && ours.triangles >= declared - declared / 1000,
                "{source}: {} triangles built from {declared}",
                ours.triangles
            );
            let float = gltf_reference(&project.path(&format!("assets/{twin}")), true);
            let reference = Geometry {
                triangles: ours.triangles,
                ..float
            };
            reference.assert_matches(ours, 2e-3, source);
        } else if source.ends_with(".obj") {
            obj_reference(&path).assert_matches(ours, 1e-6, source);
        } else {
            gltf_reference(&path, true).assert_matches(ours, 1e-5, source);
        }
    }
    for (plain, other, tolerance) in SAME_GEOMETRY {
        built[*plain].assert_matches(&built[*other], *tolerance, other);
    }
    for (source, extension) in SKIPPED {
        let warning = everything
            .lines()
            .find(|line| line.contains(source) && line.contains(extension))
            .unwrap_or_else(|| panic!("no warning names {extension} for {source}:\n{everything}"));
        assert!(warning.contains("warning"), "{warning}");
    }
    assert!(
        !everything.contains("extension KHR_texture_transform"),
        "KHR_texture_transform is decoded, not skipped:\n{everything}"
    );
}

#[test]
fn texture_transforms_of_the_khronos_test_are_baked() {
    let project = sample_project("glTF2/textureTransform", "assets/tt");
    project.build(&[]);
    let bytes = fs::read(project.path("runtime/tt/TextureTransformTest.hmesh")).unwrap();
    let mesh = hmesh::read_hmesh(&bytes).unwrap();
    // The test's "offset" square shifts its UVs by (0.5, 0) and its
    // "scale" square halves them; untransformed, every UV of a square lies
    // in [0, 1]. So baked UVs must leave that range somewhere.
    let outside = mesh
        .vertices
        .iter()
        .filter(|v| v.uv.iter().any(|&c| !(0.0..=1.0).contains(&c)))
        .count();
    assert!(outside > 0, "no UV was moved by KHR_texture_transform");
}

#[test]
fn a_required_extension_assetc_cannot_decode_fails_naming_it() {
    let project = sample_project("glTF2/BoxTextured-glTF", "assets/box");
    // The sample as an AVIF-only exporter would declare it.
    let path = project.path("assets/box/BoxTextured.gltf");
    let text = fs::read_to_string(&path).unwrap().replacen(
        '{',
        r#"{"extensionsUsed":["EXT_texture_avif"],"extensionsRequired":["EXT_texture_avif"],"#,
        1,
    );
    fs::write(&path, text).unwrap();
    let all = failing_build(&project, &[]);
    assert!(
        all.contains("assetc-encode: error: assets/box/BoxTextured.gltf")
            && all.contains(
                "extensionsRequired[0]: the file requires the extension EXT_texture_avif"
            )
            && all.contains("export PNG, JPEG, WebP or KTX2"),
        "{all}"
    );
    assert!(!project.path("runtime/box/BoxTextured.hmesh").exists());
}

#[test]
fn broken_samples_stay_refused_with_the_json_path() {
    let project = sample_project("glTF2/IndexOutOfRange", "assets/broken");
    let all = failing_build(&project, &["-k", "0"]);
    for file in ["IndexOutOfRange.gltf", "AllIndicesOutOfRange.gltf"] {
        assert!(
            all.contains(&format!("assetc-encode: error: assets/broken/{file}")),
            "{all}"
        );
    }
    assert!(all.contains("indices"), "{all}");
}

#[test]
fn a_corrupt_draco_stream_fails_naming_the_primitive() {
    let project = sample_project("glTF2/draco", "assets/d");
    let bin = project.path("assets/d/2CylinderEngine.bin");
    let mut bytes = fs::read(&bin).unwrap();
    // Every Draco stream starts with the magic "DRACO"; break each one.
    let starts: Vec<usize> = bytes
        .windows(5)
        .enumerate()
        .filter(|(_, w)| w == b"DRACO")
        .map(|(at, _)| at)
        .collect();
    assert!(!starts.is_empty());
    for at in starts {
        bytes[at..at + 5].copy_from_slice(b"XXXXX");
    }
    fs::write(&bin, bytes).unwrap();
    let all = failing_build(&project, &[]);
    assert!(
        all.contains("assetc-encode: error: assets/d/2CylinderEngine.gltf")
            && all.contains("extensions.KHR_draco_mesh_compression: cannot decode the Draco data"),
        "{all}"
    );
    assert!(!project.path("runtime/d/2CylinderEngine.hmesh").exists());
}

/// A KTX2 texture made from the Khronos box's PNG by assetc itself, raw
/// (`compress`: false) or UASTC.
fn box_ktx2(compress: bool) -> Vec<u8> {
    // The flat logo passes for pixel art, which is raw whatever `compress`
    // says: this maker wants the format `compress` names.
    let maker = Project::new(&format!(
        "input: assets\noutput: runtime\ndefault:\n  texture:\n    compress: {compress}\n    quality: 0\n    pixel_art: false\n"
    ));
    let png =
        fs::read(Path::new(MODELS).join("glTF2/BoxTextured-glTF/CesiumLogoFlat.png")).unwrap();
    maker.write("assets/logo.png", &png);
    maker.build(&[]);
    fs::read(maker.path("runtime/logo.ktx2")).unwrap()
}

#[test]
fn ktx2_sources_pass_through_from_the_folder_and_from_khr_texture_basisu() {
    require_corpus();
    let ktx2 = box_ktx2(true);
    let project = Project::new("input: assets\noutput: runtime\npack: true\n");
    copy_folder(
        &Path::new(MODELS).join("glTF2/BoxTextured-glTF"),
        &project.path("assets/box"),
    );
    project.write("assets/box/CesiumLogoFlat.ktx2", &ktx2);
    project.write("assets/ui/logo.ktx2", &ktx2);
    // The sample as a KTX2-aware exporter writes it: the PNG stays as the
    // fallback `source`, the KTX2 is the extension's image.
    let path = project.path("assets/box/BoxTextured.gltf");
    let mut gltf: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    gltf["images"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"uri": "CesiumLogoFlat.ktx2", "mimeType": "image/ktx2"}));
    gltf["textures"][0]["extensions"] = serde_json::json!({"KHR_texture_basisu": {"source": 1}});
    gltf["extensionsUsed"] = serde_json::json!(["KHR_texture_basisu"]);
    fs::write(&path, serde_json::to_vec(&gltf).unwrap()).unwrap();
    let run = project.build(&[]);
    project.link(&["check"]).expect_ok("check");
    assert_eq!(
        fs::read(project.path("runtime/ui/logo.ktx2")).unwrap(),
        ktx2
    );
    assert_eq!(
        fs::read(project.path("runtime/box/BoxTextured/tex_1.ktx2")).unwrap(),
        ktx2,
        "the basisu image passes through"
    );
    assert!(!project.path("runtime/box/BoxTextured/tex_0.ktx2").exists());
    assert!(
        !format!("{}{}", run.stdout, run.stderr).contains("warning"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

#[test]
fn ktx2_sources_that_do_not_match_the_settings_warn_and_broken_ones_fail() {
    require_corpus();
    let project =
        Project::new("input: assets\noutput: runtime\ndefault:\n  texture:\n    compress: false\n");
    let uastc = box_ktx2(true);
    project.write("assets/uastc.ktx2", &uastc);
    project.assetc(&["configure"]).expect_ok("configure");
    let run = project.ninja(&[]).expect_ok("ninja");
    assert!(
        run.stdout.contains(
            "assets/uastc.ktx2: the source is a Basis Universal KTX2 and is passed through as it is"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(fs::read(project.path("runtime/uastc.ktx2")).unwrap(), uastc);

    project.write("assets/cut.ktx2", &uastc[..uastc.len() / 2]);
    project.write("assets/old.dds", b"DDS |\0\0\0");
    let box_gltf =
        fs::read(Path::new(MODELS).join("glTF2/BoxTextured-glTF/BoxTextured.gltf")).unwrap();
    let text = String::from_utf8(box_gltf)
        .unwrap()
        .replace("CesiumLogoFlat.png", "old.dds");
    project.write("assets/box.gltf", text.as_bytes());
    let bin = fs::read(Path::new(MODELS).join("glTF2/BoxTextured-glTF/BoxTextured0.bin")).unwrap();
    project.write("assets/BoxTextured0.bin", &bin);
    let all = failing_build(&project, &["-k", "0"]);
    assert!(
        all.contains("assetc-encode: error: assets/cut.ktx2: cannot use this texture source")
            && all.contains("caused by: invalid KTX2 source: "),
        "{all}"
    );
    assert!(
        all.contains("assetc-encode: error: assets/old.dds: cannot use this texture source")
            && all.contains("DDS sources are not supported"),
        "{all}"
    );
    assert!(!project.path("runtime/cut.ktx2").exists());
}
