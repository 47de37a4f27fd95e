//! Materials: `.hmat` rows with glTF defaults and hashed texture refs, and
//! the list of images the materials use (with the mode of their first use)
//! for configure's texture edges.

use std::collections::BTreeMap;
use std::path::Path;

use ::gltf::json::{self, material::AlphaMode as JsonAlphaMode, validation::Checked};

use super::uri::{is_data_uri, resolve_file_uri};
use super::{GltfError, guarded};
use crate::encode::mesh::scene::{ImageSource, SourceMaterial, TextureUse, texture_ref};
use crate::encode::texture::TextureMode;
use crate::format::hash::asset_hash;
use crate::format::hmat::{ALPHA_MODE_SHIFT, AlphaMode, FLAG_DOUBLE_SIDED, GpuMaterial};

/// The extension whose `emissiveStrength` multiplies `emissiveFactor`.
const EMISSIVE_STRENGTH: &str = "KHR_materials_emissive_strength";

/// The five texture slots of a glTF PBR material, in the order they are
/// considered for first use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    BaseColor,
    MetallicRoughness,
    Normal,
    Occlusion,
    Emissive,
}

impl Slot {
    /// The slot's JSON path below `materials[i]`.
    pub(super) fn json_name(self) -> &'static str {
        match self {
            Slot::BaseColor => "pbrMetallicRoughness.baseColorTexture",
            Slot::MetallicRoughness => "pbrMetallicRoughness.metallicRoughnessTexture",
            Slot::Normal => "normalTexture",
            Slot::Occlusion => "occlusionTexture",
            Slot::Emissive => "emissiveTexture",
        }
    }

    /// How an image in this slot is encoded.
    fn mode(self) -> TextureMode {
        match self {
            Slot::BaseColor | Slot::Emissive => TextureMode::Color,
            Slot::MetallicRoughness | Slot::Occlusion => TextureMode::Linear,
            Slot::Normal => TextureMode::Normal,
        }
    }
}

/// The extension objects of a texture reference, by extension name.
pub(super) type Extensions = serde_json::Map<String, json::Value>;

/// A texture a material slot refers to.
#[derive(Debug, Clone, Copy)]
pub(super) struct SlotTexture<'a> {
    /// The slot.
    pub(super) slot: Slot,
    /// `textures[texture]`.
    texture: usize,
    /// The `texCoord` set it reads.
    tex_coord: u32,
    /// The texture reference's extension objects (`KHR_texture_transform`).
    pub(super) extensions: Option<&'a Extensions>,
}

/// The textures of a material, in slot order.
pub(super) fn slot_textures(material: &json::Material) -> Vec<SlotTexture<'_>> {
    let pbr = &material.pbr_metallic_roughness;
    fn info(slot: Slot, info: &Option<json::texture::Info>) -> Option<SlotTexture<'_>> {
        info.as_ref().map(|i| SlotTexture {
            slot,
            texture: i.index.value(),
            tex_coord: i.tex_coord,
            extensions: i.extensions.as_ref().map(|e| &e.others),
        })
    }
    [
        info(Slot::BaseColor, &pbr.base_color_texture),
        info(Slot::MetallicRoughness, &pbr.metallic_roughness_texture),
        material.normal_texture.as_ref().map(|n| SlotTexture {
            slot: Slot::Normal,
            texture: n.index.value(),
            tex_coord: n.tex_coord,
            extensions: n.extensions.as_ref().map(|e| &e.others),
        }),
        material.occlusion_texture.as_ref().map(|o| SlotTexture {
            slot: Slot::Occlusion,
            texture: o.index.value(),
            tex_coord: o.tex_coord,
            extensions: o.extensions.as_ref().map(|e| &e.others),
        }),
        info(Slot::Emissive, &material.emissive_texture),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The extensions whose `source` names an image for a texture, in the order
/// they are preferred: the KTX2 image (what the artist shipped for GPUs),
/// then the WebP one. The core `source`, if any, is the fallback for viewers
/// without them.
const IMAGE_EXTENSIONS: [&str; 2] = ["KHR_texture_basisu", "EXT_texture_webp"];

/// The image `textures[texture]` shows: the image of its first
/// [`IMAGE_EXTENSIONS`] entry that names one, else its `source`. `None` when
/// it has none or names an image that does not exist.
fn texture_image(root: &json::Root, texture: usize) -> Option<usize> {
    let texture = root.textures.get(texture)?;
    let extensions = texture.extensions.as_ref();
    let from_extension = IMAGE_EXTENSIONS.iter().find_map(|name| {
        extensions
            .and_then(|e| e.others.get(*name))
            .and_then(|b| b.get("source"))
            .and_then(json::Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
    });
    let image = from_extension.unwrap_or(texture.source.value());
    (image < root.images.len()).then_some(image)
}

/// The warning for a slot whose texture has no usable image.
fn sourceless_warning(material: usize, slot: Slot, texture: usize) -> String {
    format!(
        "materials[{material}].{}: textures[{texture}] has no source image assetc can read (only an extension image such as EXT_texture_avif); the slot is left empty",
        slot.json_name()
    )
}

/// The images a glTF's materials use, as [`texture_uses`] finds them.
#[derive(Debug, Default)]
pub struct ImageUses {
    /// The images whose bytes can be found, sorted by image index, each with
    /// the mode of its first use: configure gives each a texture edge.
    pub uses: Vec<TextureUse>,
    /// The images a slot uses whose bytes cannot be found (a missing file, a
    /// URI leaving the input folder, an image with neither URI nor buffer
    /// view), one error each, naming `images[i]`. The mesh edge refuses the
    /// source while there are any: its `.hmat` would name textures no edge
    /// builds.
    pub unusable: Vec<GltfError>,
    /// An image used later in another mode (the first mode is kept), and
    /// textures without a source image (the slot stays empty).
    pub warnings: Vec<String>,
}

/// The images the materials of `document` (the file at `source`) use, each
/// with the mode of its first use (materials in index order, slots base
/// colour, metallic-roughness, normal, occlusion, emissive) and where its
/// bytes are, or why they cannot be found.
///
/// External image URIs follow the buffer rules (relative, inside
/// `input_root`) and must name an existing file.
pub fn texture_uses(
    document: &::gltf::Document,
    source: &Path,
    input_root: &Path,
) -> Result<ImageUses, GltfError> {
    guarded("", || {
        let root = document.as_json();
        let (first_uses, warnings) = first_uses(root);
        let mut found = ImageUses {
            warnings,
            ..ImageUses::default()
        };
        for (index, (mode, _)) in first_uses {
            match image_source(root, index, source, input_root) {
                Ok(image) => found.uses.push(TextureUse {
                    index,
                    mode,
                    source: image,
                }),
                Err(error) => found.unusable.push(error),
            }
        }
        Ok(found)
    })
}

/// The refusal of the first image a material uses that is not in `planned`
/// (the images configure gave a texture edge), explained: the file is
/// missing or leaves the input folder (looked up now, as configure did), or
/// configure's plan is out of date. `None` when every used image is planned.
pub(super) fn unplanned_image(
    root: &json::Root,
    planned: &[usize],
    source: &Path,
    input_root: &Path,
) -> Option<GltfError> {
    let (first_uses, _) = first_uses(root);
    let (index, (_, material)) = first_uses
        .into_iter()
        .find(|(index, _)| !planned.contains(index))?;
    let why = match image_source(root, index, source, input_root) {
        Err(error) => error,
        Ok(_) => GltfError::at(
            format!("images[{index}]"),
            "has no texture edge in build.ninja (written before the image was there); run `assetc configure` again",
        ),
    };
    Some(GltfError {
        what: format!("{} (materials[{material}] uses it)", why.what),
        ..why
    })
}

/// For each image used, its first mode and the material that set it, plus
/// the warnings about conflicts and sourceless textures.
fn first_uses(root: &json::Root) -> (BTreeMap<usize, (TextureMode, usize)>, Vec<String>) {
    let mut first: BTreeMap<usize, (TextureMode, usize)> = BTreeMap::new();
    let mut warnings = Vec::new();
    for (m, material) in root.materials.iter().enumerate() {
        for used in slot_textures(material) {
            let Some(image) = texture_image(root, used.texture) else {
                warnings.push(sourceless_warning(m, used.slot, used.texture));
                continue;
            };
            let mode = used.slot.mode();
            let (kept, by) = *first.entry(image).or_insert((mode, m));
            if kept != mode {
                warnings.push(format!(
                    "images[{image}] is used as {} by materials[{m}] but was first used as {} by materials[{by}]; keeping {}",
                    mode_phrase(mode),
                    mode_phrase(kept),
                    mode_phrase(kept)
                ));
            }
        }
    }
    (first, warnings)
}

/// A mode in words, for the conflict warning.
fn mode_phrase(mode: TextureMode) -> &'static str {
    match mode {
        TextureMode::Color => "colour",
        TextureMode::Normal => "a normal map",
        TextureMode::Linear => "linear data",
        TextureMode::Gray => "greyscale data",
    }
}

/// Where the bytes of `images[index]` are.
fn image_source(
    root: &json::Root,
    index: usize,
    source: &Path,
    input_root: &Path,
) -> Result<ImageSource, GltfError> {
    let location = format!("images[{index}]");
    let image = root
        .images
        .get(index)
        .ok_or_else(|| GltfError::at(&location, "does not exist"))?;
    match (image.buffer_view, image.uri.as_deref()) {
        (Some(_), _) => Ok(ImageSource::Embedded),
        (None, Some(uri)) if is_data_uri(uri) => Ok(ImageSource::Embedded),
        (None, Some(uri)) => {
            let uri_location = format!("{location}.uri");
            let path = resolve_file_uri(uri, &uri_location, source, input_root)?;
            if !path.is_file() {
                return Err(GltfError::at(
                    uri_location,
                    format!("uri \"{uri}\" names a file that does not exist"),
                )
                .in_file(path));
            }
            Ok(ImageSource::File(path))
        }
        (None, None) => Err(GltfError::at(
            location,
            "has neither a uri nor a bufferView",
        )),
    }
}

/// `KHR_materials_emissive_strength` per material (`None` when absent). An
/// invalid strength is ignored with a warning.
pub(super) fn emissive_strengths(
    root: &json::Root,
    warnings: &mut Vec<String>,
) -> Vec<Option<f32>> {
    let mut strengths = vec![None; root.materials.len()];
    if !root.extensions_used.iter().any(|e| e == EMISSIVE_STRENGTH) {
        return strengths;
    }
    for (m, (material, strength)) in root.materials.iter().zip(strengths.iter_mut()).enumerate() {
        let raw = material
            .extensions
            .as_ref()
            .and_then(|extensions| extensions.others.get(EMISSIVE_STRENGTH))
            .and_then(|extension| extension.get("emissiveStrength"));
        match raw.map(json::Value::as_f64) {
            None => {}
            Some(Some(s)) if s.is_finite() && s >= 0.0 => *strength = Some(s as f32),
            Some(_) => warnings.push(format!(
                "materials[{m}].extensions.{EMISSIVE_STRENGTH}.emissiveStrength is not a non-negative number; ignored"
            )),
        }
    }
    strengths
}

/// Every material of `root` as a `.hmat` row, in source order. Texture refs
/// are `asset_hash("<source_ref>/tex_<image>")`, 0 for no texture.
/// `strengths[i]` multiplies material `i`'s emissive factor.
pub(super) fn source_materials(
    root: &json::Root,
    source_ref: &str,
    strengths: &[Option<f32>],
    warnings: &mut Vec<String>,
) -> Vec<SourceMaterial> {
    root.materials
        .iter()
        .enumerate()
        .map(|(m, material)| {
            let strength = strengths.get(m).copied().flatten().unwrap_or(1.0);
            let mut row = factors(material, strength);
            for used in slot_textures(material) {
                let reference = slot_ref(root, source_ref, m, used, warnings);
                *texture_slot(&mut row, used.slot) = reference;
            }
            SourceMaterial {
                name: material.name.clone().unwrap_or_default(),
                row,
            }
        })
        .collect()
}

/// A material's factors and flags, glTF defaults where absent.
fn factors(material: &json::Material, emissive_strength: f32) -> GpuMaterial {
    let pbr = &material.pbr_metallic_roughness;
    let alpha_mode = match material.alpha_mode {
        Checked::Valid(JsonAlphaMode::Mask) => AlphaMode::Mask,
        Checked::Valid(JsonAlphaMode::Blend) => AlphaMode::Blend,
        Checked::Valid(JsonAlphaMode::Opaque) | Checked::Invalid => AlphaMode::Opaque,
    };
    let double_sided = if material.double_sided {
        FLAG_DOUBLE_SIDED
    } else {
        0
    };
    GpuMaterial {
        base_color_factor: pbr.base_color_factor.0,
        emissive_factor: material.emissive_factor.0.map(|c| c * emissive_strength),
        metallic_factor: pbr.metallic_factor.0,
        roughness_factor: pbr.roughness_factor.0,
        normal_scale: material.normal_texture.as_ref().map_or(1.0, |n| n.scale),
        occlusion_strength: material
            .occlusion_texture
            .as_ref()
            .map_or(1.0, |o| o.strength.0),
        alpha_cutoff: material.alpha_cutoff.map_or(0.5, |c| c.0),
        flags: double_sided | ((alpha_mode as u32) << ALPHA_MODE_SHIFT),
        ..GpuMaterial::default()
    }
}

/// The ref of a slot's texture, 0 (with a warning) when it has no image.
fn slot_ref(
    root: &json::Root,
    source_ref: &str,
    material: usize,
    used: SlotTexture,
    warnings: &mut Vec<String>,
) -> u64 {
    let Some(image) = texture_image(root, used.texture) else {
        warnings.push(sourceless_warning(material, used.slot, used.texture));
        return 0;
    };
    if used.tex_coord != 0 {
        warnings.push(format!(
            "materials[{material}].{} reads TEXCOORD_{}, but only TEXCOORD_0 is kept",
            used.slot.json_name(),
            used.tex_coord
        ));
    }
    asset_hash(&texture_ref(source_ref, image))
}

/// The row field holding a slot's texture ref.
fn texture_slot(row: &mut GpuMaterial, slot: Slot) -> &mut u64 {
    match slot {
        Slot::BaseColor => &mut row.base_color_texture,
        Slot::MetallicRoughness => &mut row.metallic_roughness_texture,
        Slot::Normal => &mut row.normal_texture,
        Slot::Occlusion => &mut row.occlusion_texture,
        Slot::Emissive => &mut row.emissive_texture,
    }
}
