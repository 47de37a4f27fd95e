//! Buffers and image bytes: from the GLB `BIN` chunk, base64 data URIs or
//! files next to the glTF.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ::gltf::json;

use super::GltfError;
use super::uri::{decode_data_uri, is_data_uri, read_file, resolve_file_uri};

/// Every buffer of a glTF, loaded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Buffers {
    /// `data[i]` holds `buffers[i]`; it may be longer than the declared
    /// `byteLength` (GLB padding), never shorter.
    pub data: Vec<Vec<u8>>,
    /// The external files read, in buffer order, for the depfile.
    pub files: Vec<PathBuf>,
    /// `bufferViews[i]` → its bytes decoded from meshopt compression; these
    /// stand in for the view's own (fallback) bytes.
    pub decoded_views: BTreeMap<usize, Vec<u8>>,
    /// `accessors[i]` → its values decoded from a Draco bitstream,
    /// flattened; these stand in for the accessor's (absent) data.
    pub decoded_accessors: BTreeMap<usize, Vec<f64>>,
}

/// Loads every buffer of `gltf` (the file at `source`): `buffers[0]` without
/// a URI is the GLB `BIN` chunk; `data:` URIs are decoded; other URIs are
/// files resolved against the glTF's folder, which must stay inside
/// `input_root`. Each buffer must hold at least its `byteLength` bytes,
/// except the meshopt `fallbacks`, which are left empty unread.
pub fn load_buffers(
    gltf: &::gltf::Gltf,
    source: &Path,
    input_root: &Path,
    fallbacks: &BTreeSet<usize>,
) -> Result<Buffers, GltfError> {
    let mut buffers = Buffers::default();
    for index in 0..gltf.document.as_json().buffers.len() {
        if fallbacks.contains(&index) {
            buffers.data.push(Vec::new());
            continue;
        }
        let (data, file) = load_buffer(gltf, index, source, input_root)?;
        buffers.data.push(data);
        buffers.files.extend(file);
    }
    Ok(buffers)
}

/// Loads `buffers[index]`, returning its bytes and the file read, if any.
pub(super) fn load_buffer(
    gltf: &::gltf::Gltf,
    index: usize,
    source: &Path,
    input_root: &Path,
) -> Result<(Vec<u8>, Option<PathBuf>), GltfError> {
    let location = format!("buffers[{index}]");
    let buffer = gltf
        .document
        .as_json()
        .buffers
        .get(index)
        .ok_or_else(|| GltfError::at(&location, "does not exist"))?;
    let (data, file) = match buffer.uri.as_deref() {
        None => (glb_blob(gltf, index, &location)?, None),
        Some(uri) if is_data_uri(uri) => (decode_data_uri(uri, &format!("{location}.uri"))?, None),
        Some(uri) => {
            let uri_location = format!("{location}.uri");
            let path = resolve_file_uri(uri, &uri_location, source, input_root)?;
            (read_file(&path, &uri_location)?, Some(path))
        }
    };
    check_length(buffer, &data, &location, file.as_deref())?;
    Ok((data, file))
}

/// The GLB `BIN` chunk, which only `buffers[0]` may use.
fn glb_blob(gltf: &::gltf::Gltf, index: usize, location: &str) -> Result<Vec<u8>, GltfError> {
    match (&gltf.blob, index) {
        (Some(blob), 0) => Ok(blob.clone()),
        (None, 0) => Err(GltfError::at(
            location,
            "has no uri and the file has no GLB BIN chunk",
        )),
        _ => Err(GltfError::at(
            location,
            "has no uri (only buffers[0] of a GLB may use the BIN chunk)",
        )),
    }
}

/// Refuses a buffer whose data is shorter than its `byteLength`.
fn check_length(
    buffer: &json::Buffer,
    data: &[u8],
    location: &str,
    file: Option<&Path>,
) -> Result<(), GltfError> {
    let declared = buffer.byte_length.0;
    if declared <= data.len() as u64 {
        return Ok(());
    }
    let error = GltfError::at(
        format!("{location}.byteLength"),
        format!(
            "declares {declared} bytes but the data has only {}",
            data.len()
        ),
    );
    Err(match file {
        Some(file) => error.in_file(file),
        None => error,
    })
}

/// The encoded bytes (PNG, JPEG, … as stored) of `images[index]` of `gltf`
/// (the file at `source`), from a buffer view (loading only the buffer it
/// lies in), a data URI or a file inside `input_root`. Returns the bytes and
/// the extra files read (`.bin` or image), for the depfile.
pub fn image_bytes(
    gltf: &::gltf::Gltf,
    index: usize,
    source: &Path,
    input_root: &Path,
) -> Result<(Vec<u8>, Vec<PathBuf>), GltfError> {
    let location = format!("images[{index}]");
    let image = gltf
        .document
        .as_json()
        .images
        .get(index)
        .ok_or_else(|| GltfError::at(&location, "does not exist"))?;
    match (image.buffer_view, image.uri.as_deref()) {
        (Some(view), _) => view_bytes(gltf, view.value(), &location, source, input_root),
        (None, Some(uri)) if is_data_uri(uri) => Ok((
            decode_data_uri(uri, &format!("{location}.uri"))?,
            Vec::new(),
        )),
        (None, Some(uri)) => {
            let uri_location = format!("{location}.uri");
            let path = resolve_file_uri(uri, &uri_location, source, input_root)?;
            Ok((read_file(&path, &uri_location)?, vec![path]))
        }
        (None, None) => Err(GltfError::at(
            location,
            "has neither a uri nor a bufferView",
        )),
    }
}

/// The bytes of `bufferViews[view]`, for the image at `location`.
fn view_bytes(
    gltf: &::gltf::Gltf,
    view: usize,
    location: &str,
    source: &Path,
    input_root: &Path,
) -> Result<(Vec<u8>, Vec<PathBuf>), GltfError> {
    let json_view = gltf
        .document
        .as_json()
        .buffer_views
        .get(view)
        .ok_or_else(|| GltfError::at(location, format!("bufferViews[{view}] does not exist")))?;
    let buffer = json_view.buffer.value();
    let (data, file) = load_buffer(gltf, buffer, source, input_root)?;
    let bytes = view_slice(json_view, &data)
        .ok_or_else(|| {
            GltfError::at(
                format!("bufferViews[{view}]"),
                format!("lies outside buffers[{buffer}] ({} bytes)", data.len()),
            )
        })?
        .to_vec();
    Ok((bytes, file.into_iter().collect()))
}

/// The bytes a buffer view covers in its buffer's `data`, if they are there.
pub(super) fn view_slice<'a>(view: &json::buffer::View, data: &'a [u8]) -> Option<&'a [u8]> {
    let start = usize::try_from(view.byte_offset.map_or(0, |o| o.0)).ok()?;
    let len = usize::try_from(view.byte_length.0).ok()?;
    data.get(start..start.checked_add(len)?)
}
