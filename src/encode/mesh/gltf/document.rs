//! The glTF container and JSON: GLB chunks, UTF-8, the JSON itself, the
//! version, required extensions and the `gltf` crate's validation.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

use ::gltf::json::{self, validation::Validate};

use super::extensions;
use super::geometry::attribute_name;
use super::repair::{self, Repairs};
use super::{GltfError, guarded};
use crate::format::bytes::le_u32_at;

/// The four bytes every GLB starts with.
const GLB_MAGIC: &[u8; 4] = b"glTF";
/// `JSON` chunk type, as a little-endian `u32`.
const CHUNK_JSON: u32 = 0x4E4F_534A;
/// `BIN\0` chunk type, as a little-endian `u32`.
const CHUNK_BIN: u32 = 0x004E_4942;
/// GLB header: magic, version, total length.
const HEADER_LEN: usize = 12;
/// Chunk header: length, type.
const CHUNK_HEADER_LEN: usize = 8;
/// The UTF-8 byte order mark some writers put before the JSON.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The two halves of a glTF source: its JSON text and, for a GLB, the `BIN`
/// chunk.
struct Parts<'a> {
    json: &'a [u8],
    bin: Option<&'a [u8]>,
}

/// Parses a `.gltf` (JSON) or `.glb` (detected by its `glTF` magic) and
/// validates it.
///
/// Refuses, with a message naming the problem: a truncated GLB (a chunk
/// running past the end), JSON that is not UTF-8 or not glTF, a version other
/// than 2.x, files that require an extension assetc refuses (WebP, AVIF,
/// unknown ones: see `extensions`), and anything the
/// `gltf` crate's validation rejects, located by JSON path. Missing
/// `POSITION` `min`/`max`, primitives without `POSITION` (the importer skips
/// them) and textures without a `source` are tolerated; scenes without
/// `nodes` and animation channels without `target.node` are set right first
/// (module `repair`).
pub fn parse_document(bytes: &[u8]) -> Result<::gltf::Gltf, GltfError> {
    parse_repairing(bytes).map(|(gltf, _)| gltf)
}

/// [`parse_document`], also returning what was set right before the crate
/// read the JSON, for the importer's warnings and messages.
pub(super) fn parse_repairing(bytes: &[u8]) -> Result<(::gltf::Gltf, Repairs), GltfError> {
    let parts = split(bytes)?;
    let (mut root, repairs) = deserialize(parts.json)?;
    check_version(&root)?;
    check_required_extensions(&root)?;
    accept_required_extensions(&mut root);
    check_primitive_accessors(&root)?;
    guarded("", || validate(&root, &repairs))?;
    let gltf = ::gltf::Gltf {
        document: ::gltf::Document::from_json_without_validation(root),
        blob: parts.bin.map(<[u8]>::to_vec),
    };
    Ok((gltf, repairs))
}

/// Reads only what configure needs from the source at `path`: for a GLB the
/// 12-byte header and the JSON chunk (the rest of the file is never read),
/// for a `.gltf` the whole file. Returns the JSON bytes.
pub fn read_json(path: &Path) -> Result<Vec<u8>, GltfError> {
    let io_error = |e: std::io::Error| GltfError::at("", format!("cannot read: {e}")).in_file(path);
    let mut file = File::open(path).map_err(io_error)?;
    let mut start = Vec::with_capacity(HEADER_LEN + CHUNK_HEADER_LEN);
    (&mut file)
        .take((HEADER_LEN + CHUNK_HEADER_LEN) as u64)
        .read_to_end(&mut start)
        .map_err(io_error)?;
    if !start.starts_with(GLB_MAGIC) {
        file.read_to_end(&mut start).map_err(io_error)?;
        return Ok(start);
    }
    let json_len = glb_json_len(&start)?;
    let file_len = file.metadata().map_err(io_error)?.len();
    if (HEADER_LEN + CHUNK_HEADER_LEN + json_len) as u64 > file_len {
        return Err(GltfError::at(
            "",
            truncated(format!(
                "the JSON chunk declares {json_len} bytes but the file has only {file_len}"
            )),
        ));
    }
    let mut json = vec![0u8; json_len];
    file.read_exact(&mut json).map_err(|e| {
        if e.kind() == ErrorKind::UnexpectedEof {
            GltfError::at(
                "",
                truncated(format!(
                    "the JSON chunk declares {json_len} bytes but the file ends first"
                )),
            )
        } else {
            io_error(e)
        }
    })?;
    check_utf8(&json)?;
    Ok(json)
}

/// From the first 20 bytes of a GLB, the length of its first (JSON) chunk,
/// checked against the total length the header declares.
fn glb_json_len(start: &[u8]) -> Result<usize, GltfError> {
    let (version, total) = glb_header(start)?;
    check_glb_version(version)?;
    let (Some(len), Some(kind)) = (
        le_u32_at(start, HEADER_LEN),
        le_u32_at(start, HEADER_LEN + 4),
    ) else {
        return Err(GltfError::at(
            "",
            truncated("the first chunk header is incomplete".into()),
        ));
    };
    if kind != CHUNK_JSON {
        return Err(GltfError::at(
            "",
            "the first GLB chunk is not the JSON chunk",
        ));
    }
    let end = (len as usize).checked_add(HEADER_LEN + CHUNK_HEADER_LEN);
    if end.is_none_or(|end| end > total as usize) {
        return Err(GltfError::at(
            "",
            truncated(format!(
                "the JSON chunk declares {len} bytes, past the {total}-byte length in the header"
            )),
        ));
    }
    Ok(len as usize)
}

/// The GLB header's version and total length.
fn glb_header(bytes: &[u8]) -> Result<(u32, u32), GltfError> {
    match (le_u32_at(bytes, 4), le_u32_at(bytes, 8)) {
        (Some(version), Some(total)) => Ok((version, total)),
        _ => Err(GltfError::at(
            "",
            truncated("the 12-byte header is incomplete".into()),
        )),
    }
}

/// Refuses GLB versions other than 2.
fn check_glb_version(version: u32) -> Result<(), GltfError> {
    if version == 2 {
        Ok(())
    } else {
        Err(GltfError::at(
            "",
            format!("GLB version {version} is not supported (only version 2 is)"),
        ))
    }
}

/// The message for a GLB that ends too early.
fn truncated(detail: String) -> String {
    format!("truncated GLB: {detail}")
}

/// Splits a source into JSON and `BIN` chunk (GLB) or takes it whole (JSON).
fn split(bytes: &[u8]) -> Result<Parts<'_>, GltfError> {
    if !bytes.starts_with(GLB_MAGIC) {
        let json = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
        check_utf8(json)?;
        return Ok(Parts { json, bin: None });
    }
    let (version, total) = glb_header(bytes)?;
    check_glb_version(version)?;
    let total = total as usize;
    if total > bytes.len() {
        return Err(GltfError::at(
            "",
            truncated(format!(
                "the header declares {total} bytes but the file has only {}",
                bytes.len()
            )),
        ));
    }
    let glb = bytes.get(..total).unwrap_or(bytes);
    let parts = chunks(glb)?;
    check_utf8(parts.json)?;
    Ok(parts)
}

/// Walks a GLB's chunks: the first must be JSON, the first `BIN` chunk is the
/// binary buffer, unknown chunks are skipped.
fn chunks(glb: &[u8]) -> Result<Parts<'_>, GltfError> {
    let mut offset = HEADER_LEN;
    let mut json = None;
    let mut bin = None;
    let mut number = 0usize;
    while offset < glb.len() {
        let (Some(len), Some(kind)) = (le_u32_at(glb, offset), le_u32_at(glb, offset + 4)) else {
            return Err(GltfError::at(
                "",
                truncated(format!(
                    "the header of chunk {number} at byte {offset} is incomplete"
                )),
            ));
        };
        let start = offset + CHUNK_HEADER_LEN;
        let data = start
            .checked_add(len as usize)
            .and_then(|end| glb.get(start..end))
            .ok_or_else(|| {
                GltfError::at(
                    "",
                    truncated(format!(
                        "chunk {number} ({}) at byte {offset} declares {len} bytes but only {} remain",
                        chunk_name(kind),
                        glb.len() - start.min(glb.len())
                    )),
                )
            })?;
        match (number, kind) {
            (0, CHUNK_JSON) => json = Some(data),
            (0, _) => {
                return Err(GltfError::at(
                    "",
                    "the first GLB chunk is not the JSON chunk",
                ));
            }
            (_, CHUNK_BIN) if bin.is_none() => bin = Some(data),
            _ => {}
        }
        offset = start + data.len();
        number += 1;
    }
    let json = json.ok_or_else(|| GltfError::at("", "the GLB has no JSON chunk"))?;
    Ok(Parts { json, bin })
}

/// A chunk type for messages.
fn chunk_name(kind: u32) -> String {
    match kind {
        CHUNK_JSON => "JSON".to_owned(),
        CHUNK_BIN => "BIN".to_owned(),
        other => format!("type {other:#010x}"),
    }
}

/// Refuses JSON text that is not UTF-8.
fn check_utf8(json: &[u8]) -> Result<(), GltfError> {
    std::str::from_utf8(json).map(|_| ()).map_err(|e| {
        GltfError::at(
            "",
            format!(
                "the glTF JSON is not valid UTF-8 (bad byte at offset {} of the JSON)",
                e.valid_up_to()
            ),
        )
    })
}

/// Deserialises the JSON into the crate's model; when the crate refuses it,
/// tries again with what `repair` sets right.
fn deserialize(json: &[u8]) -> Result<(json::Root, Repairs), GltfError> {
    let invalid = |e: serde_json::Error| GltfError::at("", format!("not valid glTF JSON: {e}"));
    let refused = match json::deserialize::from_slice(json) {
        Ok(root) => return Ok((root, Repairs::default())),
        Err(e) => invalid(e),
    };
    let Some((value, repairs)) = repair::repair(json) else {
        return Err(refused);
    };
    let root = serde_json::from_value(value).map_err(invalid)?;
    Ok((root, repairs))
}

/// Refuses assets whose major version is not 2.
fn check_version(root: &json::Root) -> Result<(), GltfError> {
    let major = |v: &str| v.split('.').next().map(str::to_owned);
    let version = &root.asset.version;
    if major(version).as_deref() != Some("2") {
        return Err(GltfError::at(
            "asset.version",
            format!("glTF version \"{version}\" is not supported (only 2.x is)"),
        ));
    }
    if let Some(min) = &root.asset.min_version
        && (major(min).as_deref() != Some("2") || min.as_str() > "2.0")
    {
        return Err(GltfError::at(
            "asset.minVersion",
            format!("the file needs glTF {min}; assetc reads 2.0"),
        ));
    }
    Ok(())
}

/// Refuses the first required extension assetc cannot honour, naming it and
/// the way out.
fn check_required_extensions(root: &json::Root) -> Result<(), GltfError> {
    for (i, name) in root.extensions_required.iter().enumerate() {
        if let Some(message) = extensions::refusal(name) {
            return Err(GltfError::at(format!("extensionsRequired[{i}]"), message));
        }
    }
    Ok(())
}

/// Moves the required extensions (all decoded or skipped by now) to
/// `extensionsUsed`, where the importer's warnings find them, so that the
/// `gltf` crate's validation, which implements none of them with our
/// features, does not refuse them.
fn accept_required_extensions(root: &mut json::Root) {
    for name in std::mem::take(&mut root.extensions_required) {
        if !root.extensions_used.contains(&name) {
            root.extensions_used.push(name);
        }
    }
}

/// Checks every accessor index a primitive names before the crate's
/// validation runs: its `POSITION` check indexes the accessor list without a
/// bounds check and would panic.
fn check_primitive_accessors(root: &json::Root) -> Result<(), GltfError> {
    let count = root.accessors.len();
    let missing = |location: String, index: usize| {
        Err(GltfError::at(
            location,
            format!("accessor {index} does not exist (the file has {count} accessors)"),
        ))
    };
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let path = format!("meshes[{m}].primitives[{p}]");
            for (semantic, index) in &primitive.attributes {
                if index.value() >= count {
                    return missing(
                        format!("{path}.attributes.{}", semantic_name(semantic)),
                        index.value(),
                    );
                }
            }
            if let Some(index) = primitive.indices
                && index.value() >= count
            {
                return missing(format!("{path}.indices"), index.value());
            }
        }
    }
    Ok(())
}

/// An attribute name as written in the JSON.
fn semantic_name(semantic: &json::validation::Checked<json::mesh::Semantic>) -> String {
    match semantic {
        json::validation::Checked::Valid(s) => attribute_name(s),
        json::validation::Checked::Invalid => "(invalid name)".to_owned(),
    }
}

/// Runs the crate's validation, ignoring what assetc tolerates, and reports
/// the first remaining problem by JSON path (the file's, despite `repairs`).
fn validate(root: &json::Root, repairs: &Repairs) -> Result<(), GltfError> {
    let mut first = None;
    root.validate(root, json::Path::new, &mut |path, error| {
        let path = repairs.file_path(&tidy_path(path().as_str()));
        if first.is_none() && !tolerated(&path, error) {
            first = Some(GltfError::at(path, describe(error)));
        }
    });
    first.map_or(Ok(()), Err)
}

/// Whether a validation finding is one assetc deliberately accepts.
fn tolerated(path: &str, error: json::validation::Error) -> bool {
    use json::validation::Error;
    let position_bound =
        path.ends_with("attributes.POSITION.min") || path.ends_with("attributes.POSITION.max");
    // glTF lets a primitive omit POSITION (clients ignore it); the importer
    // skips it with a warning.
    let positionless_primitive = path.ends_with("attributes.POSITION") && error == Error::Missing;
    let sourceless_texture =
        path.starts_with("textures[") && path.ends_with("].source") && error == Error::Missing;
    // glTF 2.0 lets an accessor omit its view (zeros, or a Draco primitive's
    // decoded data); the crate insists on one.
    let viewless_accessor =
        path.starts_with("accessors[") && path.ends_with("].bufferView") && error == Error::Missing;
    position_bound || positionless_primitive || sourceless_texture || viewless_accessor
}

/// The crate's `a["KEY"]` path steps written as `a.KEY`, like our own paths.
fn tidy_path(path: &str) -> String {
    path.replace("[\"", ".").replace("\"]", "")
}

/// A validation finding in words.
fn describe(error: json::validation::Error) -> &'static str {
    use json::validation::Error;
    match error {
        Error::IndexOutOfBounds => "refers to an index that does not exist",
        Error::Invalid => "has an invalid value",
        Error::Missing => "is required but missing",
        Error::Oversize => "is too large",
        Error::Unsupported => "is an unsupported extension",
    }
}
