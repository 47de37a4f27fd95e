//! `KHR_draco_mesh_compression`: primitives whose attributes and indices
//! are one Draco bitstream in a buffer view, decoded with `draco-core`, a
//! pure-Rust Draco decoder that reads what Google's C++ library writes.
//!
//! In such a file a primitive's accessors keep their type, component type
//! and count but have no buffer view; the extension object names the view
//! holding the bitstream and, for each attribute, the Draco attribute's
//! unique id. Each decoded attribute (and the face list, for `indices`)
//! stands in for its accessor's data wherever the accessor is read, so the
//! rest of the importer is unchanged. A decode is bounded by
//! [`MAX_DECODED_VIEW_BYTES`] of attribute data.

use std::collections::BTreeMap;

use ::gltf::json::{self, Value, mesh::Mode, validation::Checked};
use draco_core::{DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder};

use super::GltfError;
use super::buffers::{Buffers, view_slice};
use super::geometry::attribute_name;
use crate::encode::limits::MAX_DECODED_VIEW_BYTES;

/// The extension's name.
const NAME: &str = "KHR_draco_mesh_compression";

/// The most points or faces one Draco primitive may decode to.
const MAX_DECODED_ELEMENTS: u64 = 1 << 26;

/// Decodes every Draco-compressed primitive of `root`, returning
/// `accessors[i]` → its values, flattened, as `f64` (exact for both the
/// floats and the 32-bit indices). Empty when the file does not use the
/// extension.
pub(super) fn decode_accessors(
    root: &json::Root,
    buffers: &Buffers,
) -> Result<BTreeMap<usize, Vec<f64>>, GltfError> {
    let mut decoded = BTreeMap::new();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let Some(extension) = primitive
                .extensions
                .as_ref()
                .and_then(|e| e.others.get(NAME))
            else {
                continue;
            };
            let location = format!("meshes[{m}].primitives[{p}].extensions.{NAME}");
            let source = DracoPrimitive {
                root,
                primitive,
                extension,
                location,
            };
            source.decode_into(buffers, &mut decoded)?;
        }
    }
    Ok(decoded)
}

/// One compressed primitive being decoded.
struct DracoPrimitive<'a> {
    root: &'a json::Root,
    /// The primitive.
    primitive: &'a json::mesh::Primitive,
    /// Its extension object.
    extension: &'a Value,
    /// `meshes[m].primitives[p].extensions.KHR_draco_mesh_compression`.
    location: String,
}

impl DracoPrimitive<'_> {
    /// Decodes the bitstream and files each attribute and the indices under
    /// their accessors.
    fn decode_into(
        &self,
        buffers: &Buffers,
        decoded: &mut BTreeMap<usize, Vec<f64>>,
    ) -> Result<(), GltfError> {
        self.check_mode()?;
        let mesh = self.decode_mesh(self.bitstream(buffers)?)?;
        let attributes = self
            .extension
            .get("attributes")
            .and_then(Value::as_object)
            .ok_or_else(|| GltfError::at(format!("{}.attributes", self.location), "is missing"))?;
        for (name, id) in attributes {
            let values = self.attribute_values(&mesh, name, id)?;
            if let Some((accessor, values)) = values {
                decoded.insert(accessor, values);
            }
        }
        if let Some(accessor) = self.primitive.indices {
            let indices = mesh
                .faces()
                .iter()
                .flat_map(|face| face.iter().map(|point| f64::from(point.0)))
                .collect();
            decoded.insert(accessor.value(), indices);
        }
        Ok(())
    }

    /// Draco in glTF carries triangle lists only.
    fn check_mode(&self) -> Result<(), GltfError> {
        if self.primitive.mode == Checked::Valid(Mode::Triangles) {
            return Ok(());
        }
        Err(GltfError::at(
            &self.location,
            "the primitive's mode is not TRIANGLES, the only mode assetc decodes Draco data for",
        ))
    }

    /// The bytes of the buffer view the extension names.
    fn bitstream<'b>(&self, buffers: &'b Buffers) -> Result<&'b [u8], GltfError> {
        let field = format!("{}.bufferView", self.location);
        let view = self
            .extension
            .get("bufferView")
            .and_then(Value::as_u64)
            .ok_or_else(|| GltfError::at(&field, "is missing or not an index"))?;
        let json_view =
            self.root.buffer_views.get(view as usize).ok_or_else(|| {
                GltfError::at(&field, format!("bufferViews[{view}] does not exist"))
            })?;
        let buffer = json_view.buffer.value();
        buffers
            .data
            .get(buffer)
            .and_then(|data| view_slice(json_view, data))
            .ok_or_else(|| {
                GltfError::at(
                    &field,
                    format!("bufferViews[{view}] lies outside buffers[{buffer}]"),
                )
            })
    }

    /// Runs the Draco decoder under assetc's limits.
    fn decode_mesh(&self, bitstream: &[u8]) -> Result<Mesh, GltfError> {
        let mut limits = DecodeLimits::default();
        limits.max_points = MAX_DECODED_ELEMENTS;
        limits.max_faces = MAX_DECODED_ELEMENTS;
        limits.max_decoded_bytes = MAX_DECODED_VIEW_BYTES as u64;
        let mut buffer = DecoderBuffer::new(bitstream).with_limits(limits);
        let mut mesh = Mesh::new();
        MeshDecoder::new()
            .decode(&mut buffer, &mut mesh)
            .map_err(|e| {
                GltfError::at(&self.location, format!("cannot decode the Draco data: {e}"))
            })?;
        Ok(mesh)
    }

    /// The values of the attribute `name` (Draco unique id `id`), for the
    /// accessor the primitive's `attributes` give it; `None` when the
    /// primitive does not list that attribute.
    fn attribute_values(
        &self,
        mesh: &Mesh,
        name: &str,
        id: &Value,
    ) -> Result<Option<(usize, Vec<f64>)>, GltfError> {
        let field = format!("{}.attributes.{name}", self.location);
        let Some(accessor) = self
            .primitive
            .attributes
            .iter()
            .find(
                |(semantic, _)| matches!(semantic, Checked::Valid(s) if attribute_name(s) == name),
            )
            .map(|(_, index)| index.value())
        else {
            return Ok(None);
        };
        let id = id
            .as_u64()
            .and_then(|id| u32::try_from(id).ok())
            .ok_or_else(|| GltfError::at(&field, "is not a Draco attribute id"))?;
        let attribute = mesh.attribute_by_unique_id(id).ok_or_else(|| {
            GltfError::at(
                &field,
                format!("the Draco data has no attribute with id {id}"),
            )
        })?;
        let json_accessor = self.root.accessors.get(accessor).ok_or_else(|| {
            GltfError::at(&field, format!("accessors[{accessor}] does not exist"))
        })?;
        let components = match json_accessor.type_ {
            Checked::Valid(ty) => ty.multiplicity(),
            Checked::Invalid => {
                return Err(GltfError::at(
                    &field,
                    format!("accessors[{accessor}] has an invalid type"),
                ));
            }
        };
        let scale = normalization(json_accessor, attribute.data_type());
        let lowest = if json_accessor.normalized {
            -1.0
        } else {
            f64::MIN
        };
        let values = attribute
            .read_f32s(mesh.num_points(), components)
            .into_iter()
            .map(|v| (f64::from(v) * scale).max(lowest))
            .collect();
        Ok(Some((accessor, values)))
    }
}

/// The factor that turns a decoded integer into the normalised value its
/// accessor declares (`normalized: true`); 1 for floats and plain integers.
fn normalization(accessor: &json::Accessor, stored: DataType) -> f64 {
    if !accessor.normalized {
        return 1.0;
    }
    match stored {
        DataType::Uint8 => 1.0 / 255.0,
        DataType::Int8 => 1.0 / 127.0,
        DataType::Uint16 => 1.0 / 65535.0,
        DataType::Int16 => 1.0 / 32767.0,
        _ => 1.0,
    }
}
