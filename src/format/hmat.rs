//! `.hmat` v1: a flat table of PBR material rows.
//!
//! PINNED TYPES (issue 4): the definitions are shared by writer and reader;
//! the functions are filled in by the format work.
//!
//! A 16-byte [`MatFileHeader`] followed by `count` 96-byte [`GpuMaterial`]
//! rows; the file is exactly `16 + 96 * count` bytes. Row `i` describes the
//! material of `.hmesh` slot `i`.

use bytemuck::{Pod, Zeroable};

/// `"HMAT"` read as a little-endian `u32`.
pub const MAGIC: u32 = u32::from_le_bytes(*b"HMAT");
/// The version this module reads and writes.
pub const VERSION: u32 = 1;
/// `GpuMaterial::flags` bit 0: render both faces.
pub const FLAG_DOUBLE_SIDED: u32 = 1;
/// `GpuMaterial::flags` bits 1-2 hold the [`AlphaMode`].
pub const ALPHA_MODE_SHIFT: u32 = 1;

/// How a material's alpha is used.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque = 0,
    /// Alpha tested against `alpha_cutoff`.
    Mask = 1,
    /// Alpha blended.
    Blend = 2,
}

/// The file header.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatFileHeader {
    /// [`MAGIC`].
    pub magic: u32,
    /// [`VERSION`].
    pub version: u32,
    /// Rows that follow.
    pub count: u32,
    /// Reserved, 0.
    pub flags: u32,
}
const _: () = assert!(size_of::<MatFileHeader>() == 16);

/// One material row.
#[repr(C)]
#[derive(Pod, Zeroable, Clone, Copy, Debug, PartialEq)]
pub struct GpuMaterial {
    /// Linear RGBA multiplier.
    pub base_color_factor: [f32; 4],
    /// Linear RGB emission.
    pub emissive_factor: [f32; 3],
    /// Metalness multiplier.
    pub metallic_factor: f32,
    /// Roughness multiplier.
    pub roughness_factor: f32,
    /// glTF `normalTexture.scale`.
    pub normal_scale: f32,
    /// glTF `occlusionTexture.strength`.
    pub occlusion_strength: f32,
    /// Alpha test threshold (mask mode).
    pub alpha_cutoff: f32,
    /// [`FLAG_DOUBLE_SIDED`] | alpha mode << [`ALPHA_MODE_SHIFT`].
    pub flags: u32,
    /// Reserved, 0.
    pub pad: u32,
    /// Texture ref of the base colour image, 0 for none.
    pub base_color_texture: u64,
    /// Texture ref of the metallic-roughness image (ORM: O=R, R=G, M=B).
    pub metallic_roughness_texture: u64,
    /// Texture ref of the normal map.
    pub normal_texture: u64,
    /// Texture ref of the occlusion image.
    pub occlusion_texture: u64,
    /// Texture ref of the emissive image.
    pub emissive_texture: u64,
}
const _: () = assert!(size_of::<GpuMaterial>() == 96);

impl Default for GpuMaterial {
    /// The glTF defaults: white, fully metallic and rough, no emission,
    /// scale and strength 1, cutoff 0.5, opaque, single-sided, no textures.
    fn default() -> Self {
        Self {
            base_color_factor: [1.0; 4],
            emissive_factor: [0.0; 3],
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            alpha_cutoff: 0.5,
            flags: 0,
            pad: 0,
            base_color_texture: 0,
            metallic_roughness_texture: 0,
            normal_texture: 0,
            occlusion_texture: 0,
            emissive_texture: 0,
        }
    }
}
