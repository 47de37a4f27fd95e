//! `.hmat` v1: a flat table of PBR material rows, one per `.hmesh` material
//! slot.
//!
//! # Layout (little-endian, no padding)
//!
//! | offset | size         | content                                           |
//! |-------:|-------------:|---------------------------------------------------|
//! | 0      | 16           | [`MatFileHeader`]: `HMAT`, version 1, count, 0     |
//! | 16     | 96 × `count` | [`GpuMaterial`] rows                              |
//!
//! Nothing follows the last row, so a file is exactly `16 + 96 * count` bytes
//! and its rows can be used in place. Row `i` describes the material that
//! `SubMesh::material_slot == i` and `MTRL[i]` of the companion `.hmesh`
//! name.
//!
//! A row's `flags` holds [`FLAG_DOUBLE_SIDED`] in bit 0 and the [`AlphaMode`]
//! in bits 1-2; every other bit, and `pad`, is zero. Its five texture refs are
//! [`asset_hash`](super::hash::asset_hash) ids of `.ktx2` files (0 = no
//! texture), resolved through the `.hman` manifest.
//!
//! [`write_hmat`] produces a file; [`parse_hmat`] checks every rule above and
//! lends the rows in place; [`read_hmat`] does the same for a buffer of any
//! alignment and returns owned rows, and [`validate`] only checks such a
//! buffer. The readers need a little-endian host.

use core::mem::offset_of;

use bytemuck::{Pod, Zeroable};

use super::bytes::{FileId, cast_in_place, read_fixed_header, require_little_endian};
use super::error::{FormatError, FormatResult};

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

/// `GpuMaterial::flags` bits 1-2: where the [`AlphaMode`] sits.
pub const ALPHA_MODE_MASK: u32 = 0b11 << ALPHA_MODE_SHIFT;
/// Every `GpuMaterial::flags` bit that has a meaning; the rest must be 0.
pub const KNOWN_FLAGS: u32 = FLAG_DOUBLE_SIDED | ALPHA_MODE_MASK;
/// Size of [`MatFileHeader`] on disk.
pub const HEADER_BYTES: usize = size_of::<MatFileHeader>();
/// Size of one [`GpuMaterial`] row on disk.
pub const ROW_BYTES: usize = size_of::<GpuMaterial>();
/// The names of the five texture slots, in [`GpuMaterial::texture_refs`] order.
pub const TEXTURE_SLOTS: [&str; 5] = [
    "baseColor",
    "metallicRoughness",
    "normal",
    "occlusion",
    "emissive",
];

impl AlphaMode {
    /// The mode stored as `value` (0, 1 or 2), or `None` for anything else.
    pub const fn from_u32(value: u32) -> Option<Self> {
        match value {
            0 => Some(Self::Opaque),
            1 => Some(Self::Mask),
            2 => Some(Self::Blend),
            _ => None,
        }
    }

    /// The glTF spelling: `"OPAQUE"`, `"MASK"` or `"BLEND"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Opaque => "OPAQUE",
            Self::Mask => "MASK",
            Self::Blend => "BLEND",
        }
    }
}

/// The `GpuMaterial::flags` value for an alpha mode and sidedness.
pub const fn material_flags(alpha_mode: AlphaMode, double_sided: bool) -> u32 {
    let sided = if double_sided { FLAG_DOUBLE_SIDED } else { 0 };
    sided | (alpha_mode as u32) << ALPHA_MODE_SHIFT
}

impl GpuMaterial {
    /// The alpha mode in `flags`, or `None` if bits 1-2 hold the unused value 3.
    pub const fn alpha_mode(&self) -> Option<AlphaMode> {
        AlphaMode::from_u32((self.flags & ALPHA_MODE_MASK) >> ALPHA_MODE_SHIFT)
    }

    /// Whether both faces are rendered.
    pub const fn double_sided(&self) -> bool {
        self.flags & FLAG_DOUBLE_SIDED != 0
    }

    /// The five texture refs in [`TEXTURE_SLOTS`] order (0 = no texture).
    pub const fn texture_refs(&self) -> [u64; 5] {
        [
            self.base_color_texture,
            self.metallic_roughness_texture,
            self.normal_texture,
            self.occlusion_texture,
            self.emissive_texture,
        ]
    }

    /// The scalar factors with their field names, for finiteness checks.
    fn factors(&self) -> [(&'static str, usize, &[f32]); 7] {
        [
            (
                "GpuMaterial.baseColorFactor",
                offset_of!(GpuMaterial, base_color_factor),
                &self.base_color_factor,
            ),
            (
                "GpuMaterial.emissiveFactor",
                offset_of!(GpuMaterial, emissive_factor),
                &self.emissive_factor,
            ),
            (
                "GpuMaterial.metallicFactor",
                offset_of!(GpuMaterial, metallic_factor),
                core::slice::from_ref(&self.metallic_factor),
            ),
            (
                "GpuMaterial.roughnessFactor",
                offset_of!(GpuMaterial, roughness_factor),
                core::slice::from_ref(&self.roughness_factor),
            ),
            (
                "GpuMaterial.normalScale",
                offset_of!(GpuMaterial, normal_scale),
                core::slice::from_ref(&self.normal_scale),
            ),
            (
                "GpuMaterial.occlusionStrength",
                offset_of!(GpuMaterial, occlusion_strength),
                core::slice::from_ref(&self.occlusion_strength),
            ),
            (
                "GpuMaterial.alphaCutoff",
                offset_of!(GpuMaterial, alpha_cutoff),
                core::slice::from_ref(&self.alpha_cutoff),
            ),
        ]
    }

    /// Checks one row that starts at byte `at` of the file; `index` names it.
    fn check(&self, index: usize, at: u64) -> FormatResult<()> {
        let flags_at = at + offset_of!(GpuMaterial, flags) as u64;
        let unknown = self.flags & !KNOWN_FLAGS;
        if unknown != 0 {
            return Err(FormatError::new(
                flags_at,
                "GpuMaterial.flags",
                format!("row {index}: unknown flag bits {unknown:#x}"),
            ));
        }
        if self.alpha_mode().is_none() {
            return Err(FormatError::new(
                flags_at,
                "GpuMaterial.flags",
                format!("row {index}: alpha mode 3 is not defined"),
            ));
        }
        if self.pad != 0 {
            return Err(FormatError::new(
                at + offset_of!(GpuMaterial, pad) as u64,
                "GpuMaterial.pad",
                format!("row {index}: reserved field is {}, not 0", self.pad),
            ));
        }
        for (field, offset, values) in self.factors() {
            if let Some(k) = values.iter().position(|v| !v.is_finite()) {
                return Err(FormatError::new(
                    at + (offset + 4 * k) as u64,
                    field,
                    format!("row {index}: component {k} is {}", values[k]),
                ));
            }
        }
        Ok(())
    }

    /// Appends the row's little-endian bytes.
    fn write(&self, out: &mut Vec<u8>) {
        let floats = self
            .base_color_factor
            .iter()
            .chain(&self.emissive_factor)
            .chain([
                &self.metallic_factor,
                &self.roughness_factor,
                &self.normal_scale,
                &self.occlusion_strength,
                &self.alpha_cutoff,
            ]);
        for value in floats {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&self.flags.to_le_bytes());
        out.extend_from_slice(&self.pad.to_le_bytes());
        for texture in self.texture_refs() {
            out.extend_from_slice(&texture.to_le_bytes());
        }
    }
}

/// Serialises a material table: exactly `16 + 96 * rows.len()` bytes.
///
/// The rows are written as given (on any host); [`parse_hmat`] is the place
/// where their flags and factors are judged. A table of more than `u32::MAX`
/// rows cannot be described and is not a realistic input, so the count
/// saturates.
pub fn write_hmat(rows: &[GpuMaterial]) -> Vec<u8> {
    let count = u32::try_from(rows.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(HEADER_BYTES + ROW_BYTES * rows.len());
    for word in [MAGIC, VERSION, count, 0] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for row in rows {
        row.write(&mut out);
    }
    out
}

/// Checks a whole `.hmat` file and lends its rows in place.
///
/// `bytes` must start on an 8-byte boundary (a `Vec<u8>` from `std::fs::read`
/// does in practice); use [`read_hmat`] for a buffer of any alignment.
/// Fails on a big-endian host.
pub fn parse_hmat(bytes: &[u8]) -> FormatResult<&[GpuMaterial]> {
    check_hmat(bytes)?;
    let rows = bytes.get(HEADER_BYTES..).unwrap_or_default();
    cast_in_place(rows, HEADER_BYTES as u64, "GpuMaterial")
}

/// Checks a whole `.hmat` file held in a buffer of any alignment and returns
/// a copy of its rows. Fails on a big-endian host.
pub fn read_hmat(bytes: &[u8]) -> FormatResult<Vec<GpuMaterial>> {
    check_hmat(bytes)?;
    let rows = bytes.get(HEADER_BYTES..).unwrap_or_default();
    Ok(rows
        .chunks_exact(ROW_BYTES)
        .map(bytemuck::pod_read_unaligned)
        .collect())
}

/// Checks a whole `.hmat` file held in a buffer of any alignment, without
/// allocating. Fails on a big-endian host.
pub fn validate(bytes: &[u8]) -> FormatResult<()> {
    check_hmat(bytes)
}

/// Every rule of the format, on a buffer of any alignment.
fn check_hmat(bytes: &[u8]) -> FormatResult<()> {
    require_little_endian("MatFileHeader")?;
    read_header(bytes)?;
    let rows = bytes.get(HEADER_BYTES..).unwrap_or_default();
    for (index, raw) in rows.chunks_exact(ROW_BYTES).enumerate() {
        let row: GpuMaterial = bytemuck::pod_read_unaligned(raw);
        let at = (HEADER_BYTES + index * ROW_BYTES) as u64;
        row.check(index, at)?;
    }
    Ok(())
}

/// Reads and checks the header, including that the file size matches `count`.
fn read_header(bytes: &[u8]) -> FormatResult<MatFileHeader> {
    let header: MatFileHeader = read_fixed_header(bytes, "MatFileHeader")?;
    FileId {
        magic: MAGIC,
        version: VERSION,
        magic_field: "MatFileHeader.magic",
        version_field: "MatFileHeader.version",
    }
    .check(header.magic, header.version)?;
    let expected = HEADER_BYTES as u64 + u64::from(header.count) * ROW_BYTES as u64;
    if bytes.len() as u64 != expected {
        return Err(FormatError::new(
            8,
            "MatFileHeader.count",
            format!(
                "{} rows need a file of {expected} bytes, but it is {} bytes",
                header.count,
                bytes.len()
            ),
        ));
    }
    if header.flags != 0 {
        return Err(FormatError::new(
            12,
            "MatFileHeader.flags",
            format!("reserved field is {:#x}, not 0", header.flags),
        ));
    }
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_support::{assert_error, put_u32};

    fn sample_rows() -> Vec<GpuMaterial> {
        let textured = GpuMaterial {
            base_color_factor: [0.8, 0.6, 0.4, 0.5],
            emissive_factor: [1.0, 0.5, 0.0],
            metallic_factor: 0.0,
            roughness_factor: 0.25,
            normal_scale: 0.5,
            occlusion_strength: 0.75,
            alpha_cutoff: 0.3,
            flags: material_flags(AlphaMode::Mask, true),
            pad: 0,
            base_color_texture: 0x0102_0304_0506_0708,
            metallic_roughness_texture: 0x1111,
            normal_texture: 0x2222,
            occlusion_texture: 0x1111,
            emissive_texture: 0x3333,
        };
        let blended = GpuMaterial {
            flags: material_flags(AlphaMode::Blend, false),
            ..GpuMaterial::default()
        };
        vec![GpuMaterial::default(), textured, blended]
    }

    /// Row 1 of the sample starts here.
    const ROW1: usize = HEADER_BYTES + ROW_BYTES;

    #[test]
    fn round_trips_rows() {
        let rows = sample_rows();
        let bytes = write_hmat(&rows);
        assert_eq!(bytes.len(), 16 + 96 * 3);
        assert_eq!(parse_hmat(&bytes).unwrap(), rows.as_slice());
        assert_eq!(read_hmat(&bytes).unwrap(), rows);
        assert_eq!(validate(&bytes), Ok(()));
        let empty = write_hmat(&[]);
        assert_eq!(empty, b"HMAT\x01\0\0\0\0\0\0\0\0\0\0\0");
        assert!(parse_hmat(&empty).unwrap().is_empty());
    }

    #[test]
    fn writes_the_documented_byte_layout() {
        let bytes = write_hmat(&sample_rows());
        assert_eq!(&bytes[..16], b"HMAT\x01\0\0\0\x03\0\0\0\0\0\0\0");
        let row = &bytes[ROW1..ROW1 + ROW_BYTES];
        assert_eq!(&row[0..4], 0.8_f32.to_le_bytes());
        assert_eq!(&row[28..32], 0.0_f32.to_le_bytes(), "metallic");
        assert_eq!(&row[44..48], 0.3_f32.to_le_bytes(), "alpha cutoff");
        assert_eq!(&row[48..52], [0b011, 0, 0, 0], "double-sided, mask");
        assert_eq!(&row[52..56], [0; 4], "pad");
        assert_eq!(&row[56..64], 0x0102_0304_0506_0708_u64.to_le_bytes());
        assert_eq!(&row[88..96], 0x3333_u64.to_le_bytes());
    }

    #[test]
    fn helpers_decode_the_flags() {
        let rows = sample_rows();
        assert_eq!(rows[0].alpha_mode(), Some(AlphaMode::Opaque));
        assert!(!rows[0].double_sided());
        assert_eq!(rows[1].alpha_mode(), Some(AlphaMode::Mask));
        assert!(rows[1].double_sided());
        assert_eq!(rows[2].alpha_mode(), Some(AlphaMode::Blend));
        assert_eq!(
            rows[1].texture_refs(),
            [0x0102_0304_0506_0708, 0x1111, 0x2222, 0x1111, 0x3333]
        );
        assert_eq!(rows[0].texture_refs(), [0; 5]);
        let broken = GpuMaterial {
            flags: 0b110,
            ..GpuMaterial::default()
        };
        assert_eq!(broken.alpha_mode(), None);
        assert_eq!(AlphaMode::from_u32(2), Some(AlphaMode::Blend));
        assert_eq!(AlphaMode::from_u32(3), None);
        assert_eq!(AlphaMode::Mask.as_str(), "MASK");
        assert_eq!(material_flags(AlphaMode::Blend, true), 0b101);
    }

    #[test]
    fn rejects_a_short_header() {
        assert_error(parse_hmat(b"HMAT\x01\0\0\0"), "MatFileHeader", 0);
    }

    #[test]
    fn rejects_bad_magic_and_version() {
        let mut bytes = write_hmat(&sample_rows());
        bytes[3] = b'X';
        assert_error(parse_hmat(&bytes), "MatFileHeader.magic", 0);
        let mut bytes = write_hmat(&sample_rows());
        bytes[4] = 2;
        assert_error(parse_hmat(&bytes), "MatFileHeader.version", 4);
    }

    #[test]
    fn rejects_a_size_that_disagrees_with_the_count() {
        let mut longer = write_hmat(&sample_rows());
        longer.push(0);
        assert_error(parse_hmat(&longer), "MatFileHeader.count", 8);
        let shorter = write_hmat(&sample_rows());
        assert_error(
            parse_hmat(&shorter[..shorter.len() - 1]),
            "MatFileHeader.count",
            8,
        );
        let mut huge = write_hmat(&sample_rows());
        put_u32(&mut huge, 8, u32::MAX);
        assert_error(parse_hmat(&huge), "MatFileHeader.count", 8);
    }

    #[test]
    fn rejects_nonzero_header_flags() {
        let mut bytes = write_hmat(&sample_rows());
        bytes[15] = 1;
        assert_error(parse_hmat(&bytes), "MatFileHeader.flags", 12);
    }

    #[test]
    fn rejects_unknown_flag_bits_and_alpha_mode_3() {
        let flags = (ROW1 + 48) as u64;
        let mut bytes = write_hmat(&sample_rows());
        put_u32(&mut bytes, ROW1 + 48, 0b1000);
        assert_error(parse_hmat(&bytes), "GpuMaterial.flags", flags);
        put_u32(&mut bytes, ROW1 + 48, 0b111);
        let err = parse_hmat(&bytes).unwrap_err();
        assert_eq!((err.field, err.offset), ("GpuMaterial.flags", flags));
        assert!(err.what.contains("row 1"), "{err}");
    }

    #[test]
    fn rejects_a_nonzero_pad() {
        let mut bytes = write_hmat(&sample_rows());
        put_u32(&mut bytes, ROW1 + 52, 9);
        assert_error(parse_hmat(&bytes), "GpuMaterial.pad", (ROW1 + 52) as u64);
    }

    #[test]
    fn rejects_non_finite_factors() {
        let fields = [
            (0, "GpuMaterial.baseColorFactor"),
            (12, "GpuMaterial.baseColorFactor"),
            (16, "GpuMaterial.emissiveFactor"),
            (24, "GpuMaterial.emissiveFactor"),
            (28, "GpuMaterial.metallicFactor"),
            (32, "GpuMaterial.roughnessFactor"),
            (36, "GpuMaterial.normalScale"),
            (40, "GpuMaterial.occlusionStrength"),
            (44, "GpuMaterial.alphaCutoff"),
        ];
        for (offset, field) in fields {
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                let mut bytes = write_hmat(&sample_rows());
                put_u32(&mut bytes, ROW1 + offset, bad.to_bits());
                assert_error(parse_hmat(&bytes), field, (ROW1 + offset) as u64);
            }
        }
    }

    #[test]
    fn reports_a_misaligned_buffer_instead_of_panicking() {
        let bytes = write_hmat(&sample_rows());
        let mut shifted = vec![0_u64; bytes.len() / 8 + 2];
        let raw = bytemuck::cast_slice_mut::<u64, u8>(&mut shifted);
        raw[4..4 + bytes.len()].copy_from_slice(&bytes);
        let misaligned = &raw[4..4 + bytes.len()];
        let err = parse_hmat(misaligned).unwrap_err();
        assert_eq!((err.field, err.offset), ("GpuMaterial", 16), "{err}");
        assert!(err.what.contains("aligned"), "{err}");
        assert_eq!(read_hmat(misaligned).unwrap(), sample_rows());
        // An empty table has nothing to misalign.
        raw[4..20].copy_from_slice(&write_hmat(&[]));
        assert!(parse_hmat(&raw[4..20]).unwrap().is_empty());
    }

    #[test]
    fn survives_truncation_and_corruption() {
        let bytes = write_hmat(&sample_rows());
        for len in 0..bytes.len() {
            assert!(read_hmat(&bytes[..len]).is_err(), "length {len}");
            assert!(validate(&bytes[..len]).is_err(), "length {len}");
        }
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x07, 0x7f, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] = value;
                let _ = read_hmat(&corrupt);
                let _ = parse_hmat(&corrupt);
            }
        }
    }
}
