//! Accessor data read by hand, every offset, stride and count checked
//! against the buffer view and the buffer, so malformed files give errors
//! instead of panics (the `gltf` crate's reader panics on some of them).
//!
//! Dense and sparse accessors are supported; an accessor without a buffer
//! view starts as zeros. Integer components are converted to floats per the
//! glTF rules for normalised data when the accessor says `normalized`.

use ::gltf::json::{
    self,
    accessor::{ComponentType, Type},
    validation::Checked,
};

use super::GltfError;
use super::buffers::{Buffers, view_slice};

use crate::encode::limits::MAX_ZERO_FILLED_ELEMENTS;

/// Which component encodings a float-valued attribute accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FloatEncoding {
    /// `FLOAT` only.
    Float,
    /// `FLOAT`, or normalised `UNSIGNED_BYTE`/`UNSIGNED_SHORT`.
    FloatOrUnsignedNormalized,
    /// `FLOAT`, or any normalised 8- or 16-bit integer.
    FloatOrNormalized,
    /// `FLOAT`, or any 8- or 16-bit integer, normalised or not: positions
    /// and UVs under `KHR_mesh_quantization`.
    FloatOrQuantized,
}

/// The shape of one accessor's elements.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// Elements.
    count: usize,
    /// Components per element.
    components: usize,
    /// How each component is stored.
    component: ComponentType,
}

impl Layout {
    /// Bytes per element, tightly packed.
    fn element_size(self) -> usize {
        self.components * self.component.size()
    }
}

/// Reads accessors of one document from its loaded buffers.
pub(super) struct AccessorReader<'a> {
    root: &'a json::Root,
    buffers: &'a Buffers,
}

impl<'a> AccessorReader<'a> {
    /// A reader over `root`'s accessors, from `buffers` (decoded meshopt
    /// views taking the place of the views' own bytes).
    pub(super) fn new(root: &'a json::Root, buffers: &'a Buffers) -> Self {
        Self { root, buffers }
    }

    /// `accessors[index]` (used at `path`) as floats, `ty.multiplicity()` per
    /// element, flattened. The accessor must have type `ty` and a component
    /// encoding `encoding` allows.
    pub(super) fn floats(
        &self,
        index: usize,
        path: &str,
        ty: Type,
        encoding: FloatEncoding,
    ) -> Result<Vec<f32>, GltfError> {
        let accessor = self.accessor(index, path)?;
        let layout = self.layout(accessor, index, path, ty)?;
        if !float_allowed(layout.component, accessor.normalized, encoding) {
            return Err(GltfError::at(
                path,
                format!(
                    "accessors[{index}] holds {}{}, which is not allowed here ({})",
                    if accessor.normalized {
                        "normalized "
                    } else {
                        ""
                    },
                    component_name(layout.component),
                    encoding_name(encoding)
                ),
            ));
        }
        if let Some(values) = self.decoded(index, path, layout)? {
            return Ok(values.iter().map(|&v| v as f32).collect());
        }
        let normalized = accessor.normalized;
        let component = layout.component;
        self.read(accessor, index, path, layout, |bytes| {
            decode_float(component, normalized, bytes)
        })
    }

    /// `accessors[index]` (used at `path`) as unsigned integers, flattened.
    /// The accessor must have type `ty`, a component type in `allowed`, and
    /// must not be normalised.
    pub(super) fn unsigned(
        &self,
        index: usize,
        path: &str,
        ty: Type,
        allowed: &[ComponentType],
    ) -> Result<Vec<u32>, GltfError> {
        let accessor = self.accessor(index, path)?;
        let layout = self.layout(accessor, index, path, ty)?;
        if !allowed.contains(&layout.component) || accessor.normalized {
            let names: Vec<&str> = allowed.iter().map(|c| component_name(*c)).collect();
            return Err(GltfError::at(
                path,
                format!(
                    "accessors[{index}] holds {}{}; expected {}",
                    if accessor.normalized {
                        "normalized "
                    } else {
                        ""
                    },
                    component_name(layout.component),
                    names.join(" or ")
                ),
            ));
        }
        if let Some(values) = self.decoded(index, path, layout)? {
            return Ok(values.iter().map(|&v| v as u32).collect());
        }
        let component = layout.component;
        self.read(accessor, index, path, layout, |bytes| {
            decode_unsigned(component, bytes)
        })
    }

    /// The values a Draco bitstream gave `accessors[index]`, if any, checked
    /// to be as many as the accessor declares.
    fn decoded(
        &self,
        index: usize,
        path: &str,
        layout: Layout,
    ) -> Result<Option<&'a [f64]>, GltfError> {
        let Some(values) = self.buffers.decoded_accessors.get(&index) else {
            return Ok(None);
        };
        let expected = layout.count.checked_mul(layout.components);
        if expected != Some(values.len()) {
            return Err(GltfError::at(
                path,
                format!(
                    "the Draco data decodes {} values for accessors[{index}], which declares {} elements of {}",
                    values.len(),
                    layout.count,
                    layout.components
                ),
            ));
        }
        Ok(Some(values))
    }

    /// The accessor itself.
    fn accessor(&self, index: usize, path: &str) -> Result<&'a json::Accessor, GltfError> {
        self.root.accessors.get(index).ok_or_else(|| {
            GltfError::at(
                path,
                format!(
                    "accessor {index} does not exist (the file has {} accessors)",
                    self.root.accessors.len()
                ),
            )
        })
    }

    /// The accessor's layout, checked to have element type `ty`.
    fn layout(
        &self,
        accessor: &json::Accessor,
        index: usize,
        path: &str,
        ty: Type,
    ) -> Result<Layout, GltfError> {
        let (Checked::Valid(found), Checked::Valid(component)) =
            (accessor.type_, accessor.component_type)
        else {
            return Err(GltfError::at(
                path,
                format!("accessors[{index}] has an invalid type or componentType"),
            ));
        };
        if found != ty {
            return Err(GltfError::at(
                path,
                format!(
                    "accessors[{index}] is {}; expected {}",
                    type_name(found),
                    type_name(ty)
                ),
            ));
        }
        Ok(Layout {
            count: to_usize(accessor.count.0, path, "count")?,
            components: ty.multiplicity(),
            component: component.0,
        })
    }

    /// Reads all elements (dense part, then sparse substitutions), each
    /// component decoded by `decode`.
    fn read<T: Copy + Default>(
        &self,
        accessor: &json::Accessor,
        index: usize,
        path: &str,
        layout: Layout,
        decode: impl Fn(&[u8]) -> T,
    ) -> Result<Vec<T>, GltfError> {
        let mut values = match accessor.buffer_view {
            Some(view) => {
                let offset = to_usize(accessor.byte_offset.map_or(0, |o| o.0), path, "byteOffset")?;
                let (bytes, stride) = self.view(view.value(), index, path)?;
                let stride = stride.unwrap_or(layout.element_size());
                strided(bytes, offset, stride, layout, &decode)
                    .map_err(|why| self.bounds_error(index, view.value(), path, why))?
            }
            None => zeros(layout, index, path)?,
        };
        if let Some(sparse) = &accessor.sparse {
            self.apply_sparse(sparse, index, path, layout, &decode, &mut values)?;
        }
        Ok(values)
    }

    /// The bytes of `bufferViews[view]` and its stride, checked to lie in
    /// its buffer.
    fn view(
        &self,
        view: usize,
        index: usize,
        path: &str,
    ) -> Result<(&'a [u8], Option<usize>), GltfError> {
        let json_view = self.root.buffer_views.get(view).ok_or_else(|| {
            GltfError::at(
                path,
                format!("accessors[{index}] uses bufferViews[{view}], which does not exist"),
            )
        })?;
        let stride = json_view.byte_stride.map(|s| s.0);
        if let Some(decoded) = self.buffers.decoded_views.get(&view) {
            return Ok((decoded, stride));
        }
        let buffer = json_view.buffer.value();
        let data = self.buffers.data.get(buffer).ok_or_else(|| {
            GltfError::at(
                format!("bufferViews[{view}].buffer"),
                format!("buffers[{buffer}] does not exist"),
            )
        })?;
        let bytes = view_slice(json_view, data).ok_or_else(|| {
            GltfError::at(
                format!("bufferViews[{view}]"),
                format!(
                    "bytes {}+{} lie outside buffers[{buffer}] ({} bytes)",
                    json_view.byte_offset.map_or(0, |o| o.0),
                    json_view.byte_length.0,
                    data.len()
                ),
            )
        })?;
        Ok((bytes, stride))
    }

    /// Overwrites the elements a sparse accessor lists.
    fn apply_sparse<T: Copy>(
        &self,
        sparse: &json::accessor::sparse::Sparse,
        index: usize,
        path: &str,
        layout: Layout,
        decode: &impl Fn(&[u8]) -> T,
        values: &mut [T],
    ) -> Result<(), GltfError> {
        let count = to_usize(sparse.count.0, path, "sparse.count")?;
        if count > layout.count {
            return Err(GltfError::at(
                path,
                format!(
                    "accessors[{index}].sparse.count {count} exceeds the accessor's count {}",
                    layout.count
                ),
            ));
        }
        let indices = self.sparse_indices(&sparse.indices, count, index, path)?;
        let value_layout = Layout { count, ..layout };
        let view = sparse.values.buffer_view.value();
        let offset = to_usize(
            sparse.values.byte_offset.0,
            path,
            "sparse.values.byteOffset",
        )?;
        let (bytes, _) = self.view(view, index, path)?;
        let replacements = strided(bytes, offset, layout.element_size(), value_layout, decode)
            .map_err(|why| self.bounds_error(index, view, path, why))?;
        let n = layout.components;
        for (k, &target) in indices.iter().enumerate() {
            let target = target as usize;
            let slot = target
                .checked_mul(n)
                .and_then(|start| values.get_mut(start..start + n))
                .ok_or_else(|| {
                    GltfError::at(
                        path,
                        format!(
                            "accessors[{index}].sparse.indices[{k}] is {target}, not below the count {}",
                            layout.count
                        ),
                    )
                })?;
            let source = replacements.get(k * n..(k + 1) * n).ok_or_else(|| {
                GltfError::at(
                    path,
                    format!("accessors[{index}].sparse.values is too short"),
                )
            })?;
            slot.copy_from_slice(source);
        }
        Ok(())
    }

    /// The element indices of a sparse accessor.
    fn sparse_indices(
        &self,
        indices: &json::accessor::sparse::Indices,
        count: usize,
        index: usize,
        path: &str,
    ) -> Result<Vec<u32>, GltfError> {
        let Checked::Valid(component) = indices.component_type else {
            return Err(GltfError::at(
                path,
                format!("accessors[{index}].sparse.indices has an invalid componentType"),
            ));
        };
        let component = component.0;
        let layout = Layout {
            count,
            components: 1,
            component,
        };
        let view = indices.buffer_view.value();
        let offset = to_usize(indices.byte_offset.0, path, "sparse.indices.byteOffset")?;
        let (bytes, _) = self.view(view, index, path)?;
        strided(bytes, offset, component.size(), layout, &|b| {
            decode_unsigned(component, b)
        })
        .map_err(|why| self.bounds_error(index, view, path, why))
    }

    /// An error for an accessor whose elements do not fit its view.
    fn bounds_error(&self, index: usize, view: usize, path: &str, why: String) -> GltfError {
        GltfError::at(
            path,
            format!("accessors[{index}] in bufferViews[{view}]: {why}"),
        )
    }
}

/// `count` elements from `bytes`, the first at `offset`, one every `stride`
/// bytes, every component decoded by `decode`. Fails (with the reason) when
/// the stride is shorter than an element or the last element would end past
/// the view.
fn strided<T>(
    bytes: &[u8],
    offset: usize,
    stride: usize,
    layout: Layout,
    decode: &impl Fn(&[u8]) -> T,
) -> Result<Vec<T>, String> {
    let size = layout.element_size();
    if stride < size {
        return Err(format!(
            "byteStride {stride} is shorter than one {size}-byte element"
        ));
    }
    if layout.count == 0 {
        return Ok(Vec::new());
    }
    let end = (layout.count - 1)
        .checked_mul(stride)
        .and_then(|last| last.checked_add(offset))
        .and_then(|start| start.checked_add(size));
    match end {
        Some(end) if end <= bytes.len() => {}
        _ => {
            return Err(format!(
                "{} elements of {size} bytes every {stride} bytes from byte {offset} do not fit in the view's {} bytes",
                layout.count,
                bytes.len()
            ));
        }
    }
    let component_size = layout.component.size();
    let mut values = Vec::with_capacity(layout.count * layout.components);
    if stride == size {
        // Tightly packed (the usual case): one run of components.
        if let Some(run) = bytes.get(offset..offset + layout.count * size) {
            values.extend(run.chunks_exact(component_size).map(decode));
            return Ok(values);
        }
    }
    for i in 0..layout.count {
        let start = offset + i * stride;
        let element = bytes
            .get(start..start + size)
            .ok_or_else(|| format!("element {i} lies outside the view"))?;
        values.extend(element.chunks_exact(component_size).map(decode));
    }
    Ok(values)
}

/// The all-zero start of an accessor without a buffer view.
fn zeros<T: Copy + Default>(layout: Layout, index: usize, path: &str) -> Result<Vec<T>, GltfError> {
    if layout.count > MAX_ZERO_FILLED_ELEMENTS {
        return Err(GltfError::at(
            path,
            format!(
                "accessors[{index}] has no bufferView and {} elements (at most {MAX_ZERO_FILLED_ELEMENTS} are accepted)",
                layout.count
            ),
        ));
    }
    Ok(vec![T::default(); layout.count * layout.components])
}

/// A size from the file as `usize`.
fn to_usize(value: u64, path: &str, field: &str) -> Result<usize, GltfError> {
    usize::try_from(value)
        .map_err(|_| GltfError::at(path, format!("accessor {field} {value} is too large")))
}

/// Whether a float attribute may be stored this way.
fn float_allowed(component: ComponentType, normalized: bool, encoding: FloatEncoding) -> bool {
    use ComponentType::*;
    match (component, encoding) {
        (F32, _) => true,
        (I8 | U8 | I16 | U16, FloatEncoding::FloatOrQuantized) => true,
        (U8 | U16, FloatEncoding::FloatOrUnsignedNormalized | FloatEncoding::FloatOrNormalized) => {
            normalized
        }
        (I8 | I16, FloatEncoding::FloatOrNormalized) => normalized,
        _ => false,
    }
}

/// Decodes one component to a float, normalising integers when asked.
fn decode_float(component: ComponentType, normalized: bool, bytes: &[u8]) -> f32 {
    use ComponentType::*;
    let raw = |n: usize| -> [u8; 4] {
        let mut word = [0u8; 4];
        for (dst, src) in word.iter_mut().zip(bytes.iter().take(n)) {
            *dst = *src;
        }
        word
    };
    let [a, b, c, d] = raw(4);
    match (component, normalized) {
        (F32, _) => f32::from_le_bytes([a, b, c, d]),
        (U8, true) => f32::from(a) / 255.0,
        (U8, false) => f32::from(a),
        (I8, true) => (f32::from(a as i8) / 127.0).max(-1.0),
        (I8, false) => f32::from(a as i8),
        (U16, true) => f32::from(u16::from_le_bytes([a, b])) / 65535.0,
        (U16, false) => f32::from(u16::from_le_bytes([a, b])),
        (I16, true) => (f32::from(i16::from_le_bytes([a, b])) / 32767.0).max(-1.0),
        (I16, false) => f32::from(i16::from_le_bytes([a, b])),
        (U32, true) => u32::from_le_bytes([a, b, c, d]) as f32 / u32::MAX as f32,
        (U32, false) => u32::from_le_bytes([a, b, c, d]) as f32,
    }
}

/// Decodes one unsigned integer component (`u8`, `u16` or `u32`).
fn decode_unsigned(component: ComponentType, bytes: &[u8]) -> u32 {
    let mut word = [0u8; 4];
    let n = component.size().min(4);
    for (dst, src) in word.iter_mut().zip(bytes.iter().take(n)) {
        *dst = *src;
    }
    u32::from_le_bytes(word)
}

/// The glTF name of an element type.
pub(super) fn type_name(ty: Type) -> &'static str {
    match ty {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

/// The glTF name of a component type.
fn component_name(component: ComponentType) -> &'static str {
    match component {
        ComponentType::I8 => "BYTE",
        ComponentType::U8 => "UNSIGNED_BYTE",
        ComponentType::I16 => "SHORT",
        ComponentType::U16 => "UNSIGNED_SHORT",
        ComponentType::U32 => "UNSIGNED_INT",
        ComponentType::F32 => "FLOAT",
    }
}

/// What an encoding accepts, for messages.
fn encoding_name(encoding: FloatEncoding) -> &'static str {
    match encoding {
        FloatEncoding::Float => "FLOAT only",
        FloatEncoding::FloatOrUnsignedNormalized => {
            "FLOAT, or normalized UNSIGNED_BYTE or UNSIGNED_SHORT"
        }
        FloatEncoding::FloatOrNormalized => "FLOAT, or a normalized 8- or 16-bit integer",
        FloatEncoding::FloatOrQuantized => "FLOAT, or an 8- or 16-bit integer",
    }
}

/// Groups a flat float list into fixed-size elements.
pub(super) fn grouped<const N: usize>(flat: &[f32]) -> Vec<[f32; N]> {
    flat.chunks_exact(N)
        .map(|chunk| {
            let mut element = [0.0; N];
            element.copy_from_slice(chunk);
            element
        })
        .collect()
}
