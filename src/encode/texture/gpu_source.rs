//! Sources that are already GPU textures: KTX2 files (a `*.ktx2` in the
//! input folder, a glTF image with `mimeType: image/ktx2`, or the image of a
//! `KHR_texture_basisu` texture), and the `.dds` and `.basis` files some
//! exporters write. They are recognised by their first bytes, whatever their
//! name, and never reach the PNG or JPEG decoder.
//!
//! A KTX2 source is validated (every offset and length, as for our own
//! output) and **passed through byte for byte**. It is not transcoded and
//! re-encoded when the settings ask for another encoding: its texels are
//! already block-compressed or final, so re-encoding could only lose quality,
//! and whoever made it chose its format on purpose. When the settings differ
//! (raw asked, Basis Universal given, or the other way round) a warning says
//! that they were not applied. The manifest records the colour space the
//! file's data format descriptor declares. DDS and `.basis` files are refused
//! with a message saying what to export instead.

use crate::format::error::FormatError;
use crate::format::kind::ColorSpace;
use crate::format::ktx2::{self, DFD_TRANSFER_SRGB, VK_FORMAT_UNDEFINED};

use super::TextureOptions;

/// The first twelve bytes of every KTX 2.0 file.
const KTX2_IDENTIFIER: [u8; 12] = [
    0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// The first four bytes of a DirectDraw Surface.
const DDS_MAGIC: &[u8; 4] = b"DDS ";

/// The signature a `.basis` file starts with (`sB`, little-endian 0x4273).
const BASIS_SIGNATURE: &[u8; 2] = b"sB";

/// A GPU texture format recognised by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuFormat {
    /// KTX 2.0: passed through.
    Ktx2,
    /// DirectDraw Surface: refused.
    Dds,
    /// Basis Universal `.basis`: refused.
    Basis,
}

/// The GPU format `bytes` start with, if any.
pub fn sniff(bytes: &[u8]) -> Option<GpuFormat> {
    if bytes.starts_with(&KTX2_IDENTIFIER) {
        Some(GpuFormat::Ktx2)
    } else if bytes.starts_with(DDS_MAGIC) {
        Some(GpuFormat::Dds)
    } else if bytes.starts_with(BASIS_SIGNATURE) {
        Some(GpuFormat::Basis)
    } else {
        None
    }
}

/// Why a GPU texture source cannot be used.
#[derive(thiserror::Error, Debug)]
pub enum GpuSourceError {
    /// The KTX2 file is malformed.
    #[error("invalid KTX2 source: {0}")]
    Ktx2(#[from] FormatError),
    /// A format assetc does not take as a source.
    #[error(
        "{0} sources are not supported: export the image as PNG or JPEG, or as a KTX2 file (which is passed through)"
    )]
    Unsupported(&'static str),
}

/// A source passed through as the output.
#[derive(Debug)]
pub struct PassedThrough {
    /// The source's colour space, from its data format descriptor.
    pub colorspace: ColorSpace,
    /// Settings that were not applied, one line each.
    pub warnings: Vec<String>,
}

/// Checks a GPU texture source of `format` and says how it passes through
/// under `options`: the output is `bytes` unchanged.
pub fn pass_through(
    bytes: &[u8],
    format: GpuFormat,
    options: &TextureOptions,
) -> Result<PassedThrough, GpuSourceError> {
    match format {
        GpuFormat::Dds => return Err(GpuSourceError::Unsupported("DDS")),
        GpuFormat::Basis => return Err(GpuSourceError::Unsupported("Basis Universal (.basis)")),
        GpuFormat::Ktx2 => {}
    }
    let view = ktx2::parse(bytes)?;
    let colorspace = if view.transfer_function() == Some(DFD_TRANSFER_SRGB) {
        ColorSpace::Srgb
    } else {
        ColorSpace::Linear
    };
    let basis = view.header().vk_format == VK_FORMAT_UNDEFINED;
    let mut warnings = Vec::new();
    let vk_format = view.header().vk_format;
    match (basis, options.uastc.is_some(), options.blocks) {
        (_, _, Some(blocks)) if blocks.format.vk_format() != vk_format => warnings.push(format!(
            "the source is a KTX2 (VkFormat {vk_format}) and is passed through as it is: `texture.format: {}` is not applied",
            blocks.format.name()
        )),
        (_, _, Some(_)) => {}
        (true, false, None) => warnings.push(
            "the source is a Basis Universal KTX2 and is passed through as it is: `texture.compress: false` (raw RGBA8) is not applied".to_owned(),
        ),
        (false, true, None) => warnings.push(format!(
            "the source is an uncompressed KTX2 (VkFormat {vk_format}) and is passed through as it is: `texture.compress: true` (UASTC) is not applied"
        )),
        _ => {}
    }
    if options.flip_green {
        warnings.push(
            "the source is a KTX2 and is passed through as it is: the green flip of a DirectX normal map (its name, or `texture.mode: normal_dx`) is not applied".to_owned(),
        );
    }
    Ok(PassedThrough {
        colorspace,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::image::test_images::solid_png;
    use crate::encode::texture::{TextureMode, encode_texture};
    use crate::encode::uastc::UastcOptions;

    /// Colour options, raw or (`compress`) UASTC level 0.
    fn options(compress: bool) -> TextureOptions {
        TextureOptions {
            mode: TextureMode::Color,
            uastc: compress.then_some(UastcOptions {
                quality: 0,
                rdo: None,
            }),
            blocks: None,
            zstd_level: 3,
            mips: true,
            max_size: 0,
            flip_green: false,
            hdr_format: Default::default(),
            min_psnr: None,
            pixel_art: None,
        }
    }

    #[test]
    fn our_own_ktx2_passes_through_with_its_colour_space() {
        let ktx2 = encode_texture(&solid_png(8, 8, [1, 2, 3, 255]), &options(false)).unwrap();
        assert_eq!(sniff(&ktx2), Some(GpuFormat::Ktx2));
        let passed = pass_through(&ktx2, GpuFormat::Ktx2, &options(false)).unwrap();
        assert_eq!(passed.colorspace, ColorSpace::Srgb);
        assert!(passed.warnings.is_empty());
        let mismatched = pass_through(&ktx2, GpuFormat::Ktx2, &options(true)).unwrap();
        assert_eq!(mismatched.warnings.len(), 1);
        assert!(mismatched.warnings[0].contains("compress: true"));
    }

    #[test]
    fn a_green_flip_is_not_applied_to_a_ktx2_and_says_so() {
        let ktx2 = encode_texture(&solid_png(8, 8, [1, 2, 3, 255]), &options(false)).unwrap();
        let flip = TextureOptions {
            flip_green: true,
            ..options(false)
        };
        let passed = pass_through(&ktx2, GpuFormat::Ktx2, &flip).unwrap();
        assert_eq!(passed.warnings.len(), 1);
        assert!(
            passed.warnings[0].contains("green flip"),
            "{:?}",
            passed.warnings
        );
    }

    #[test]
    fn a_truncated_ktx2_names_the_field() {
        let ktx2 = encode_texture(&solid_png(8, 8, [1, 2, 3, 255]), &options(false)).unwrap();
        let error = pass_through(&ktx2[..100], GpuFormat::Ktx2, &options(false)).unwrap_err();
        assert!(
            error.to_string().starts_with("invalid KTX2 source: "),
            "{error}"
        );
    }

    #[test]
    fn dds_and_basis_are_refused_with_advice() {
        assert_eq!(sniff(b"DDS \x7c\0\0\0"), Some(GpuFormat::Dds));
        assert_eq!(sniff(b"sB\x13\0"), Some(GpuFormat::Basis));
        assert_eq!(sniff(b"\x89PNG"), None);
        let error = pass_through(b"DDS ", GpuFormat::Dds, &options(false)).unwrap_err();
        assert!(
            error.to_string().contains("export the image as PNG"),
            "{error}"
        );
    }
}
