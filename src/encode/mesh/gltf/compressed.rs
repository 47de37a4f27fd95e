//! `EXT_meshopt_compression` and `KHR_meshopt_compression`: buffer views
//! stored with meshoptimizer's vertex and index codecs, decoded with
//! meshoptimizer's own decoder (the `meshopt` crate).
//!
//! A compressed view names, in its extension object, where the compressed
//! bytes lie (`buffer`, `byteOffset`, `byteLength`) and what they decode to
//! (`count` elements of `byteStride` bytes, a `mode` and a `filter`). The
//! view's own `buffer` is then a *fallback*: a buffer that may have no data
//! at all (`extensions.<name>.fallback: true`), which is not loaded. The
//! decoded bytes stand in for the view everywhere accessors read it.
//!
//! The decoder is safe on untrusted input; every count and stride is checked
//! here before the output is allocated, and the output size is capped by
//! [`MAX_DECODED_VIEW_BYTES`].

use std::collections::{BTreeMap, BTreeSet};

use ::gltf::json::{self, Value};

use super::GltfError;
use crate::encode::limits::MAX_DECODED_VIEW_BYTES;

/// The two names of the extension; the KHR one adds the `COLOR` filter.
const NAMES: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// What a compressed view decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Vertex attributes (`meshopt_decodeVertexBuffer`).
    Attributes,
    /// A triangle list (`meshopt_decodeIndexBuffer`).
    Triangles,
    /// Any index sequence (`meshopt_decodeIndexSequence`).
    Indices,
}

/// The filter applied after decoding attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
    Color,
}

/// One compressed buffer view, as its extension object declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CompressedView {
    buffer: usize,
    offset: usize,
    length: usize,
    stride: usize,
    count: usize,
    mode: Mode,
    filter: Filter,
}

/// The compressed views and fallback buffers of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Compression {
    /// Buffers marked `fallback: true`: they need not hold data.
    pub(super) fallback_buffers: BTreeSet<usize>,
    /// `bufferViews[i]` → how to decode it.
    views: BTreeMap<usize, CompressedView>,
}

/// Reads the meshopt extension objects of `root`. Empty when the file uses
/// neither name.
pub(super) fn read(root: &json::Root) -> Result<Compression, GltfError> {
    let mut compression = Compression::default();
    for (index, buffer) in root.buffers.iter().enumerate() {
        if let Some((name, extension)) = extension(buffer.extensions.as_ref().map(|e| &e.others)) {
            let fallback = extension.get("fallback").and_then(Value::as_bool);
            if fallback == Some(true) {
                compression.fallback_buffers.insert(index);
            } else if fallback.is_none() && extension.get("fallback").is_some() {
                return Err(GltfError::at(
                    format!("buffers[{index}].extensions.{name}.fallback"),
                    "is not a boolean",
                ));
            }
        }
    }
    for (index, view) in root.buffer_views.iter().enumerate() {
        if let Some((name, extension)) = extension(view.extensions.as_ref().map(|e| &e.others)) {
            let location = format!("bufferViews[{index}].extensions.{name}");
            let parsed = parse_view(extension, name, &location)?;
            compression.views.insert(index, parsed);
        }
    }
    Ok(compression)
}

/// Decodes every compressed view from `buffers` (indexed like `buffers` in
/// the JSON), returning `bufferViews[i]` → its decoded bytes.
pub(super) fn decode_views(
    compression: &Compression,
    buffers: &[Vec<u8>],
) -> Result<BTreeMap<usize, Vec<u8>>, GltfError> {
    compression
        .views
        .iter()
        .map(|(&index, view)| {
            let location = format!("bufferViews[{index}]");
            let encoded = encoded_bytes(view, buffers, &compression.fallback_buffers, &location)?;
            let decoded = decode(view, encoded).map_err(|why| {
                GltfError::at(&location, format!("cannot be decompressed: {why}"))
            })?;
            Ok((index, decoded))
        })
        .collect()
}

/// The meshopt extension object among a buffer's or view's extensions, with
/// the name it uses.
fn extension(
    extensions: Option<&serde_json::Map<String, Value>>,
) -> Option<(&'static str, &Value)> {
    let extensions = extensions?;
    NAMES
        .iter()
        .find_map(|name| extensions.get(*name).map(|value| (*name, value)))
}

/// Checks and reads one view's extension object.
fn parse_view(extension: &Value, name: &str, location: &str) -> Result<CompressedView, GltfError> {
    let number = |field: &str, default: Option<u64>| -> Result<usize, GltfError> {
        let value = match extension.get(field) {
            None => default,
            Some(v) => v.as_u64(),
        };
        value.and_then(|v| usize::try_from(v).ok()).ok_or_else(|| {
            GltfError::at(
                format!("{location}.{field}"),
                "is missing or not a non-negative integer",
            )
        })
    };
    let text = |field: &str, default: &'static str| -> Result<String, GltfError> {
        match extension.get(field) {
            None => Ok(default.to_owned()),
            Some(v) => v
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| GltfError::at(format!("{location}.{field}"), "is not a string")),
        }
    };
    let mode = match text("mode", "")?.as_str() {
        "ATTRIBUTES" => Mode::Attributes,
        "TRIANGLES" => Mode::Triangles,
        "INDICES" => Mode::Indices,
        other => {
            return Err(GltfError::at(
                format!("{location}.mode"),
                format!("\"{other}\" is not ATTRIBUTES, TRIANGLES or INDICES"),
            ));
        }
    };
    let filter = match (text("filter", "NONE")?.as_str(), name) {
        ("NONE", _) => Filter::None,
        ("OCTAHEDRAL", _) => Filter::Octahedral,
        ("QUATERNION", _) => Filter::Quaternion,
        ("EXPONENTIAL", _) => Filter::Exponential,
        ("COLOR", "KHR_meshopt_compression") => Filter::Color,
        (other, _) => {
            return Err(GltfError::at(
                format!("{location}.filter"),
                format!("\"{other}\" is not a filter {name} defines"),
            ));
        }
    };
    let view = CompressedView {
        buffer: number("buffer", None)?,
        offset: number("byteOffset", Some(0))?,
        length: number("byteLength", None)?,
        stride: number("byteStride", None)?,
        count: number("count", None)?,
        mode,
        filter,
    };
    check_shape(&view).map_err(|why| GltfError::at(location, why))?;
    Ok(view)
}

/// The stride, count and filter rules of the extension, and the size cap.
fn check_shape(view: &CompressedView) -> Result<(), String> {
    let stride = view.stride;
    let stride_ok = match (view.mode, view.filter) {
        (Mode::Attributes, Filter::None | Filter::Exponential) => {
            stride > 0 && stride <= 256 && stride.is_multiple_of(4)
        }
        (Mode::Attributes, Filter::Octahedral | Filter::Color) => stride == 4 || stride == 8,
        (Mode::Attributes, Filter::Quaternion) => stride == 8,
        (Mode::Triangles | Mode::Indices, Filter::None) => stride == 2 || stride == 4,
        (Mode::Triangles | Mode::Indices, _) => {
            return Err("a filter is only allowed in ATTRIBUTES mode".to_owned());
        }
    };
    if !stride_ok {
        return Err(format!(
            "byteStride {stride} is not allowed for mode {:?} with filter {:?}",
            view.mode, view.filter
        ));
    }
    if view.mode == Mode::Triangles && !view.count.is_multiple_of(3) {
        return Err(format!(
            "count {} is not a multiple of 3 in TRIANGLES mode",
            view.count
        ));
    }
    match view.count.checked_mul(stride) {
        Some(size) if size <= MAX_DECODED_VIEW_BYTES => Ok(()),
        _ => Err(format!(
            "{} elements of {stride} bytes decode to more than {MAX_DECODED_VIEW_BYTES} bytes",
            view.count
        )),
    }
}

/// The compressed bytes of a view, checked to lie in a loaded buffer.
fn encoded_bytes<'a>(
    view: &CompressedView,
    buffers: &'a [Vec<u8>],
    fallbacks: &BTreeSet<usize>,
    location: &str,
) -> Result<&'a [u8], GltfError> {
    if fallbacks.contains(&view.buffer) {
        return Err(GltfError::at(
            location,
            format!(
                "its compressed data is in buffers[{}], a fallback buffer without data",
                view.buffer
            ),
        ));
    }
    let data = buffers.get(view.buffer).ok_or_else(|| {
        GltfError::at(location, format!("buffers[{}] does not exist", view.buffer))
    })?;
    view.offset
        .checked_add(view.length)
        .and_then(|end| data.get(view.offset..end))
        .ok_or_else(|| {
            GltfError::at(
                location,
                format!(
                    "compressed bytes {}+{} lie outside buffers[{}] ({} bytes)",
                    view.offset,
                    view.length,
                    view.buffer,
                    data.len()
                ),
            )
        })
}

/// Decodes one view: the codec, then the filter, in place.
fn decode(view: &CompressedView, encoded: &[u8]) -> Result<Vec<u8>, String> {
    let size = view.count * view.stride;
    let mut out = vec![0u8; size];
    let decoder = match view.mode {
        Mode::Attributes => ::meshopt::ffi::meshopt_decodeVertexBuffer,
        Mode::Triangles => ::meshopt::ffi::meshopt_decodeIndexBuffer,
        Mode::Indices => ::meshopt::ffi::meshopt_decodeIndexSequence,
    };
    // SAFETY: `out` holds exactly `count * stride` bytes, the size the
    // decoders write; they read only `encoded`, whose length is passed, and
    // are documented as safe on malformed input.
    let status = unsafe {
        decoder(
            out.as_mut_ptr().cast(),
            view.count,
            view.stride,
            encoded.as_ptr(),
            encoded.len(),
        )
    };
    if status != 0 {
        return Err(format!("the meshopt decoder reports error {status}"));
    }
    apply_filter(view, &mut out);
    Ok(out)
}

/// Runs a view's filter over its decoded elements.
fn apply_filter(view: &CompressedView, out: &mut [u8]) {
    let filter = match view.filter {
        Filter::None => return,
        Filter::Octahedral => ::meshopt::ffi::meshopt_decodeFilterOct,
        Filter::Quaternion => ::meshopt::ffi::meshopt_decodeFilterQuat,
        Filter::Exponential => ::meshopt::ffi::meshopt_decodeFilterExp,
        Filter::Color => ::meshopt::ffi::meshopt_decodeFilterColor,
    };
    // SAFETY: `out` holds `count` elements of `stride` bytes, and
    // `check_shape` allowed only the strides each filter supports.
    unsafe { filter(out.as_mut_ptr().cast(), view.count, view.stride) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view's extension object with these extra fields (later ones win).
    fn parse(extra: &str) -> Result<CompressedView, GltfError> {
        let text = format!(
            r#"{{"buffer":0,"byteLength":4,"byteStride":4,"count":3,"mode":"ATTRIBUTES"{extra}}}"#
        );
        let extension: Value = ::gltf::json::deserialize::from_str(&text).unwrap();
        let name = "EXT_meshopt_compression";
        parse_view(
            &extension,
            name,
            &format!("bufferViews[0].extensions.{name}"),
        )
    }

    #[test]
    fn vertex_and_index_streams_round_trip_through_the_decoder() {
        let vertices: Vec<[u16; 2]> = (0..40).map(|i| [i, 1000 - i]).collect();
        let encoded = meshopt::encoding::encode_vertex_buffer(&vertices).unwrap();
        let view = CompressedView {
            buffer: 0,
            offset: 0,
            length: encoded.len(),
            stride: 4,
            count: 40,
            mode: Mode::Attributes,
            filter: Filter::None,
        };
        let decoded = decode(&view, &encoded).unwrap();
        assert_eq!(decoded, bytemuck::cast_slice::<[u16; 2], u8>(&vertices));

        let indices: Vec<u32> = vec![0, 1, 2, 2, 1, 3, 3, 1, 4];
        let encoded = meshopt::encoding::encode_index_buffer(&indices, 5).unwrap();
        let view = CompressedView {
            stride: 2,
            count: 9,
            mode: Mode::Triangles,
            length: encoded.len(),
            ..view
        };
        let decoded = decode(&view, &encoded).unwrap();
        let as_u16: Vec<u16> = indices.iter().map(|&i| i as u16).collect();
        assert_eq!(decoded, bytemuck::cast_slice::<u16, u8>(&as_u16));
    }

    #[test]
    fn garbage_is_a_decoder_error_not_a_crash() {
        let view = CompressedView {
            buffer: 0,
            offset: 0,
            length: 7,
            stride: 4,
            count: 100,
            mode: Mode::Attributes,
            filter: Filter::None,
        };
        assert!(decode(&view, &[0xA0, 1, 2, 3, 4, 5, 6]).is_err());
    }

    #[test]
    fn strides_counts_and_sizes_are_checked_before_decoding() {
        assert!(parse("").is_ok());
        let err = parse(r#","filter":"QUATERNION""#).unwrap_err();
        assert!(err.what.contains("byteStride 4"), "{err}");
        let err = parse(r#","mode":"TRIANGLES","count":4"#).unwrap_err();
        assert!(err.what.contains("multiple of 3"), "{err}");
        let err = parse(r#","filter":"COLOR""#).unwrap_err();
        assert!(err.what.contains("COLOR"), "{err}");
        let err = parse(r#","count":1000000000000"#).unwrap_err();
        assert!(err.what.contains("decode to more than"), "{err}");
        let err = parse(r#","mode":"STRIPS""#).unwrap_err();
        assert_eq!(
            err.location,
            "bufferViews[0].extensions.EXT_meshopt_compression.mode"
        );
    }
}
