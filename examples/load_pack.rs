//! Loads a `.hpack` the way an engine would and prints what it would upload.
//!
//! ```text
//! cargo run --example load_pack --no-default-features -- runtime.hpack
//! ```
//!
//! The pack is read into a 16-byte aligned buffer, so every entry is lent in
//! place. `assets.hman` is opened from inside the pack; each material row's
//! base-colour texture id is resolved through it to a path, that path to a
//! pack entry, and the entry is checked as a KTX 2.0 file. Every `.hmesh` is
//! opened too. Only `assetc::format` is used, as an engine that depends on
//! the crate with `default-features = false` would.
//!
//! Any problem is reported on stderr with the path at fault and a non-zero
//! exit status.

use std::collections::BTreeSet;
use std::process::ExitCode;

use assetc::format::bytes::AlignedBytes;
use assetc::format::hman::Manifest;
use assetc::format::hmat::GpuMaterial;
use assetc::format::hmesh::HMesh;
use assetc::format::hpack::Pack;
use assetc::format::kind::AssetKind;
use assetc::format::ktx2::Ktx2View;
use assetc::format::{AssetFile, FileType};

/// Where the manifest sits in every pack assetc writes.
const MANIFEST: &str = "assets.hman";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = args.as_slice() else {
        eprintln!("usage: load_pack <pack.hpack>");
        return ExitCode::from(2);
    };
    match run(path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("load_pack: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Loads the pack at `path` and prints every upload.
fn run(path: &str) -> Result<(), String> {
    let bytes = AlignedBytes::read(path).map_err(|err| format!("cannot read {path}: {err}"))?;
    let pack = match assetc::format::open(&bytes).map_err(|err| format!("{path}: {err}"))? {
        AssetFile::Pack(pack) => pack,
        other => return Err(wrong_type(path, FileType::Pack, &other)),
    };
    println!(
        "pack {path}: {} entries, {} bytes",
        pack.len(),
        pack.file_bytes()
    );
    let manifest = match open_entry(&pack, MANIFEST)? {
        AssetFile::Manifest(manifest) => manifest,
        other => return Err(wrong_type(MANIFEST, FileType::Manifest, &other)),
    };
    upload_materials(&pack, &manifest)?;
    upload_meshes(&pack)
}

/// Opens the pack entry stored under `path`.
fn open_entry<'a>(pack: &Pack<'a>, path: &str) -> Result<AssetFile<'a>, String> {
    match pack.open(path) {
        Some(Ok(file)) => Ok(file),
        Some(Err(err)) => Err(format!("{path} (in the pack): {err}")),
        None => Err(format!("the pack has no {path}")),
    }
}

/// The message for a file that holds something other than `expected`.
fn wrong_type(path: &str, expected: FileType, found: &AssetFile<'_>) -> String {
    format!(
        "{path}: expected a {expected} file, found a {}",
        found.file_type()
    )
}

/// The paths of the pack entries named like files of `file_type`.
fn entries_of<'a>(pack: &Pack<'a>, file_type: FileType) -> Vec<&'a str> {
    pack.iter()
        .map(|entry| entry.path)
        .filter(|path| FileType::from_path(path) == Some(file_type))
        .collect()
}

/// Prints every material table and, once each, the base-colour textures its
/// rows use.
fn upload_materials(pack: &Pack<'_>, manifest: &Manifest<'_>) -> Result<(), String> {
    let mut uploaded = BTreeSet::new();
    for path in entries_of(pack, FileType::Material) {
        let rows = match open_entry(pack, path)? {
            AssetFile::Material(rows) => rows,
            other => return Err(wrong_type(path, FileType::Material, &other)),
        };
        println!("material {path}: {} rows", rows.len());
        for (index, row) in rows.iter().enumerate() {
            let Some(texture) = base_color_path(manifest, row)
                .map_err(|err| format!("{path}: row {index}: {err}"))?
            else {
                continue;
            };
            if uploaded.insert(texture) {
                upload_texture(pack, texture)?;
            }
        }
    }
    Ok(())
}

/// The path of a row's base-colour texture, `None` if it has none.
fn base_color_path<'a>(
    manifest: &Manifest<'a>,
    row: &GpuMaterial,
) -> Result<Option<&'a str>, String> {
    let id = row.base_color_texture;
    if id == 0 {
        return Ok(None);
    }
    let entry = manifest
        .find(id)
        .ok_or_else(|| format!("base-colour texture {id:#018x} is not in {MANIFEST}"))?;
    if entry.kind != AssetKind::Texture {
        return Err(format!(
            "base-colour texture {id:#018x} is {}, a {} in {MANIFEST}",
            entry.path, entry.kind
        ));
    }
    Ok(Some(entry.path))
}

/// Prints what uploading the texture at `path` involves.
fn upload_texture(pack: &Pack<'_>, path: &str) -> Result<(), String> {
    let texture: Ktx2View<'_> = match open_entry(pack, path)? {
        AssetFile::Texture(texture) => texture,
        other => return Err(wrong_type(path, FileType::Ktx2, &other)),
    };
    let header = texture.header();
    println!(
        "texture {path}: {}x{} vkFormat {}, {} mips, supercompression {}, {} bytes",
        header.pixel_width,
        header.pixel_height,
        header.vk_format,
        texture.levels().len(),
        header.supercompression_scheme,
        texture.level_bytes()
    );
    Ok(())
}

/// Prints what uploading every mesh of the pack involves.
fn upload_meshes(pack: &Pack<'_>) -> Result<(), String> {
    for path in entries_of(pack, FileType::Mesh) {
        match open_entry(pack, path)? {
            AssetFile::Mesh(mesh) => print_mesh(path, &mesh),
            other => return Err(wrong_type(path, FileType::Mesh, &other)),
        }
    }
    Ok(())
}

/// Prints the buffers of one mesh.
fn print_mesh(path: &str, mesh: &HMesh<'_>) {
    let index_bytes = mesh.indices.len() * usize::from(mesh.indices.width());
    let meshlet_bytes = size_of_val(mesh.meshlets)
        + size_of_val(mesh.meshlet_vertices)
        + size_of_val(mesh.meshlet_triangles)
        + size_of_val(mesh.meshlet_bounds);
    println!(
        "mesh {path}: {} vertices ({} bytes), {} indices ({} bytes), {} meshlets ({} bytes), {} submeshes",
        mesh.vertices.len(),
        size_of_val(mesh.vertices),
        mesh.indices.len(),
        index_bytes,
        mesh.meshlets.len(),
        meshlet_bytes,
        mesh.submeshes.len()
    );
}
