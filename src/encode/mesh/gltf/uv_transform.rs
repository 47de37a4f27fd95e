//! `KHR_texture_transform`: texture offsets, rotations and scales baked into
//! the UVs.
//!
//! The reference `.hmat` row (96 bytes, fixed by the runtime SDK) has no
//! field for a UV transform, so assetc applies it to `TEXCOORD_0` at build
//! time, per primitive, from the primitive's material. That is exact when
//! every textured slot of the material carries the same transform, which is
//! what exporters write (gltfpack, for one, stores its UV dequantization this
//! way). When the slots disagree, the base colour slot's transform (or the
//! first textured slot's) is baked and a warning names the material, since
//! the other slots will then be sampled with it too.
//!
//! The transform follows the extension's definition: scale, then rotate
//! counter-clockwise by `rotation` radians, then offset:
//! `u' = sx·u·cos r − sy·v·sin r + ox`, `v' = sx·u·sin r + sy·v·cos r + oy`.

use ::gltf::json::{self, Value};

use super::materials::slot_textures;
use crate::encode::mesh::scene::Primitive;

/// The extension's name.
const NAME: &str = "KHR_texture_transform";

/// One texture transform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct UvTransform {
    offset: [f32; 2],
    rotation: f32,
    scale: [f32; 2],
}

impl UvTransform {
    /// No change.
    const IDENTITY: Self = Self {
        offset: [0.0, 0.0],
        rotation: 0.0,
        scale: [1.0, 1.0],
    };

    /// The transformed UV.
    fn apply(&self, [u, v]: [f32; 2]) -> [f32; 2] {
        let (sin, cos) = self.rotation.sin_cos();
        let (su, sv) = (self.scale[0] * u, self.scale[1] * v);
        [
            su * cos - sv * sin + self.offset[0],
            su * sin + sv * cos + self.offset[1],
        ]
    }
}

/// The transform to bake for each material of `root`, `None` where there is
/// nothing to do. Adds a warning for a material whose slots disagree, for a
/// transform that names another UV set, and for values that are not finite
/// numbers (that transform is ignored).
pub(super) fn material_transforms(
    root: &json::Root,
    warnings: &mut Vec<String>,
) -> Vec<Option<UvTransform>> {
    root.materials
        .iter()
        .enumerate()
        .map(|(m, material)| material_transform(material, m, warnings))
        .collect()
}

/// Applies each primitive's material transform to its UVs.
pub(super) fn bake(primitives: &mut [Primitive], transforms: &[Option<UvTransform>]) {
    for primitive in primitives {
        let transform = primitive
            .material
            .and_then(|m| transforms.get(m).copied().flatten());
        if let (Some(transform), Some(uvs)) = (transform, primitive.uvs.as_mut()) {
            for uv in uvs.iter_mut() {
                *uv = transform.apply(*uv);
            }
        }
    }
}

/// The transform of material `m`: the common one, or the first textured
/// slot's (base colour first) with a warning when they differ.
fn material_transform(
    material: &json::Material,
    m: usize,
    warnings: &mut Vec<String>,
) -> Option<UvTransform> {
    let mut found: Vec<(String, UvTransform)> = Vec::new();
    for used in slot_textures(material) {
        let location = format!("materials[{m}].{}", used.slot.json_name());
        let extension = used.extensions.and_then(|e| e.get(NAME));
        let transform = slot_transform(extension, &location, warnings);
        found.push((location, transform));
    }
    let (first_location, first) = found.first()?.clone();
    let differing: Vec<&str> = found
        .iter()
        .filter(|(_, t)| *t != first)
        .map(|(location, _)| location.as_str())
        .collect();
    if !differing.is_empty() {
        warnings.push(format!(
            "materials[{m}]: its textures use different {NAME} values; the one of {first_location} is baked into the UVs and also applies to {}",
            differing.join(", ")
        ));
    }
    (first != UvTransform::IDENTITY).then_some(first)
}

/// The transform of one texture reference's extension object (identity
/// when it has none).
fn slot_transform(
    extension: Option<&Value>,
    location: &str,
    warnings: &mut Vec<String>,
) -> UvTransform {
    let Some(extension) = extension else {
        return UvTransform::IDENTITY;
    };
    if let Some(set) = extension
        .get("texCoord")
        .and_then(Value::as_u64)
        .filter(|&s| s != 0)
    {
        warnings.push(format!(
            "{location}.extensions.{NAME}.texCoord selects TEXCOORD_{set}, but only TEXCOORD_0 is kept"
        ));
    }
    match parse(extension) {
        Some(transform) => transform,
        None => {
            warnings.push(format!(
                "{location}.extensions.{NAME} has a value that is not a finite number; it is ignored"
            ));
            UvTransform::IDENTITY
        }
    }
}

/// Reads `offset`, `rotation` and `scale`, with the extension's defaults.
fn parse(extension: &Value) -> Option<UvTransform> {
    let pair = |key: &str, default: [f32; 2]| -> Option<[f32; 2]> {
        match extension.get(key) {
            None => Some(default),
            Some(value) => {
                let items = value.as_array()?;
                let [a, b] = items.as_slice() else {
                    return None;
                };
                Some([finite(a)?, finite(b)?])
            }
        }
    };
    let rotation = match extension.get("rotation") {
        None => 0.0,
        Some(value) => finite(value)?,
    };
    Some(UvTransform {
        offset: pair("offset", [0.0, 0.0])?,
        rotation,
        scale: pair("scale", [1.0, 1.0])?,
    })
}

/// A JSON number as a finite `f32`.
fn finite(value: &Value) -> Option<f32> {
    let number = value.as_f64()? as f32;
    number.is_finite().then_some(number)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Value {
        ::gltf::json::deserialize::from_str(text).unwrap()
    }

    /// A glTF root with the given top-level fields (`{"materials":…}`).
    fn root(fields: &str) -> json::Root {
        let text = fields.replacen('{', r#"{"asset":{"version":"2.0"},"#, 1);
        ::gltf::json::deserialize::from_str(&text).unwrap()
    }

    fn close(a: [f32; 2], b: [f32; 2]) -> bool {
        (a[0] - b[0]).abs() < 1e-6 && (a[1] - b[1]).abs() < 1e-6
    }

    #[test]
    fn scale_then_rotate_then_offset() {
        let t = parse(&json(
            r#"{"offset":[0.5,0.25],"rotation":1.5707963,"scale":[2,3]}"#,
        ))
        .unwrap();
        // (1, 0) scales to (2, 0), turns a quarter to (0, 2), moves by the offset.
        assert!(
            close(t.apply([1.0, 0.0]), [0.5, 2.25]),
            "{:?}",
            t.apply([1.0, 0.0])
        );
        // (0, 1) scales to (0, 3), turns to (-3, 0).
        assert!(
            close(t.apply([0.0, 1.0]), [-2.5, 0.25]),
            "{:?}",
            t.apply([0.0, 1.0])
        );
        assert_eq!(parse(&json("{}")), Some(UvTransform::IDENTITY));
        assert_eq!(parse(&json(r#"{"scale":[1]}"#)), None);
    }

    #[test]
    fn one_transform_for_all_slots_is_baked_without_a_warning() {
        let material = root(
            r#"{"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0,"extensions":{"KHR_texture_transform":{"scale":[0.5,0.5]}}}},
                "normalTexture":{"index":1,"extensions":{"KHR_texture_transform":{"scale":[0.5,0.5]}}}},{}]}"#,
        );
        let mut warnings = Vec::new();
        let transforms = material_transforms(&material, &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(transforms.len(), 2);
        assert!(transforms[1].is_none());
        let mut primitives = vec![Primitive {
            uvs: Some(vec![[1.0, 1.0]]),
            material: Some(0),
            ..Primitive::default()
        }];
        bake(&mut primitives, &transforms);
        assert_eq!(primitives[0].uvs, Some(vec![[0.5, 0.5]]));
    }

    #[test]
    fn differing_slots_bake_the_base_colour_and_warn() {
        let material = root(
            r#"{"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0,"extensions":{"KHR_texture_transform":{"offset":[1,0]}}}},
                "emissiveTexture":{"index":1}}]}"#,
        );
        let mut warnings = Vec::new();
        let transforms = material_transforms(&material, &mut warnings);
        assert_eq!(transforms[0].unwrap().offset, [1.0, 0.0]);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("materials[0].emissiveTexture"),
            "{warnings:?}"
        );
    }
}
