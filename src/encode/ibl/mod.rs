//! Image-based lighting: an HDR environment in (an equirectangular
//! panorama, or a cube folder's six faces), the cube maps a PBR renderer
//! binds out (`docs/ibl.md`).
//!
//! From one environment the `ibl` edge writes
//!
//! * `<name>.radiance.ktx2`: the environment as a cube map with a full,
//!   box-filtered mip chain (skyboxes, and the source of everything below);
//! * `<name>.specular.ktx2`: the GGX-prefiltered cube, mip `k` of `n` at
//!   roughness `k/(n−1)`, the smallest mip [`MIN_SPECULAR_SIZE`] wide; its
//!   key/value data carries the diffuse irradiance as nine RGB spherical
//!   harmonic coefficients ([`crate::format::ktx2::IRRADIANCE_SH_KEY`]);
//! * `<name>.irradiance.ktx2` when asked (`ibl.irradiance`): the diffuse
//!   irradiance as a [`IRRADIANCE_SIZE`]² cube.
//!
//! and one project-wide `brdf-lut` edge writes `brdf_lut.ktx2`, the split-sum
//! lookup table ([`brdf`]). The work is split into small pure steps:
//! [`panorama`] (projection), [`cube_folder`] (reading a `*.env/` folder's
//! faces), [`environment`] (either shape), [`cube`] (geometry and mips),
//! [`prefilter`] (the convolutions, one face at a time), [`sh`] and
//! [`brdf`]; [`write_cube`] turns float face levels into a KTX2 file and is
//! the one place another texel format plugs in.

pub mod brdf;
pub mod bright;
pub mod cube;
pub mod cube_folder;
pub mod direct;
pub mod environment;
pub mod panorama;
pub mod prefilter;
pub mod sh;

use std::io::Cursor;

use half::f16;
use image::ImageDecoder;
use image::codecs::hdr::HdrDecoder;

use self::cube::{CubeLevel, Vec3};
use self::environment::Environment;
use self::panorama::Panorama;
use super::blocks::BlockError;
use super::image::RgbaF32Image;
use super::image::codecs::declared_exr_size;
use super::image::{ImageError, ImageFormat, SourceHints, SourceImage, decode_source_raw};
use super::limits::{MAX_IBL_FACE_SIZE, MAX_PANORAMA_WIDTH};
use super::texture::hdr::{HdrFormat, encode_float_levels};
use super::texture::write_supercompressed_with;
use crate::format::ktx2::{IRRADIANCE_SH_KEY, Ktx2Image, TexelFormat};

/// Face size of the irradiance cube.
pub const IRRADIANCE_SIZE: usize = 32;

/// Face size of the smallest specular mip.
pub const MIN_SPECULAR_SIZE: usize = 8;

/// The encoder effort of BC6H and ASTC HDR cubes: the texture default.
pub const CUBE_BLOCK_QUALITY: u8 = 2;

/// Width and height of the BRDF lookup table.
pub const BRDF_LUT_SIZE: usize = 128;

/// How an IBL set is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IblOptions {
    /// Face size of the radiance and specular cubes (a power of two).
    pub size: usize,
    /// Whether to make the irradiance cube as well.
    pub irradiance: bool,
    /// The cubes' texel format.
    pub format: HdrFormat,
    /// Zstandard level of every level, 0 for none.
    pub zstd_level: i32,
}

/// Why an environment (a panorama, or a face of a cube folder) could not
/// become an IBL set. None names the file; the caller adds the path.
#[derive(Debug, thiserror::Error)]
pub enum IblError {
    /// The Radiance HDR decoder refused the bytes.
    #[error("cannot decode the Radiance HDR image")]
    Decode(#[source] image::ImageError),
    /// The OpenEXR source could not be decoded.
    #[error(transparent)]
    Source(#[from] ImageError),
    /// The file is an image of a format without float samples.
    #[error(
        "the file is a {format} image; image-based lighting needs linear HDR radiance, from a Radiance HDR (.hdr) or OpenEXR (.exr) file"
    )]
    NotFloat {
        /// The format its signature (or extension) names.
        format: ImageFormat,
    },
    /// A cube folder's face is larger than the limit.
    #[error(
        "the face is {size}×{size}; a cube folder's faces may be at most {MAX_IBL_FACE_SIZE} (as much detail as the widest panorama accepted)"
    )]
    FaceTooLarge {
        /// Its width and height.
        size: u32,
    },
    /// The panorama is not twice as wide as it is high.
    #[error(
        "the panorama is {width}×{height}; an equirectangular panorama is exactly twice as wide as it is high"
    )]
    NotTwoToOne {
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// The panorama is larger than the limit.
    #[error(
        "the panorama is {width}×{height}; the widest accepted is {MAX_PANORAMA_WIDTH} texels (scale it down: 8192 keeps detail for faces up to 2048)"
    )]
    TooLarge {
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// A texel is not a finite, non-negative radiance.
    #[error("texel ({x}, {y}) holds {value}, not a finite radiance of 0 or more")]
    BadTexel {
        /// Its column.
        x: usize,
        /// Its row.
        y: usize,
        /// The offending channel value.
        value: f32,
    },
    /// The block encoder refused the cube.
    #[error("cannot encode the cube")]
    Encode(#[source] BlockError),
    /// Zstandard refused a level.
    #[error("Zstandard compression of level {level} failed")]
    Compress {
        /// The level.
        level: usize,
        /// Zstandard's error.
        #[source]
        source: std::io::Error,
    },
}

/// The KTX2 files of one environment, in output order.
#[derive(Debug)]
pub struct IblFiles {
    /// `<name>.radiance.ktx2`.
    pub radiance: Vec<u8>,
    /// `<name>.specular.ktx2`, with the SH coefficients.
    pub specular: Vec<u8>,
    /// `<name>.irradiance.ktx2`, when asked for.
    pub irradiance: Option<Vec<u8>>,
}

/// The computed IBL set, as float cube levels.
#[derive(Debug, Clone)]
pub struct IblSet {
    /// The radiance mip chain, level 0 `size` wide.
    pub radiance: Vec<CubeLevel>,
    /// The specular levels.
    pub specular: Vec<CubeLevel>,
    /// The irradiance cube, when asked for.
    pub irradiance: Option<CubeLevel>,
    /// The irradiance's SH coefficients.
    pub sh: sh::Sh9,
}

/// Decodes a `.hdr` or `.exr` panorama into linear RGB, refusing it
/// (before its texels are allocated) unless it is 2:1 and at most
/// [`MAX_PANORAMA_WIDTH`] wide, and refusing a texel that is not a finite
/// radiance of 0 or more.
pub fn decode_panorama(bytes: &[u8]) -> Result<Panorama, IblError> {
    let format = float_format(bytes, None)?;
    let (width, height) = declared_size(format, bytes)?;
    check_shape(width, height)?;
    let image = decode_float(format, bytes)?;
    check_shape(image.width as u32, image.height as u32)?;
    check_texels(&image.texels, image.width)?;
    Ok(Panorama {
        width: image.width,
        height: image.height,
        texels: image.texels,
    })
}

/// A decoded float image without its alpha.
struct FloatImage {
    /// Texels per row.
    width: usize,
    /// Rows.
    height: usize,
    /// The RGB texels, row 0 first.
    texels: Vec<Vec3>,
}

/// The format of an environment file: Radiance HDR or OpenEXR by its
/// signature (else by `extension`, for formats without one); any other
/// image is refused. Bytes nothing recognises are left to the Radiance
/// decoder, which says why it cannot read them.
fn float_format(bytes: &[u8], extension: Option<&str>) -> Result<ImageFormat, IblError> {
    let format =
        ImageFormat::sniff(bytes).or_else(|| extension.and_then(ImageFormat::from_extension));
    match format {
        None | Some(ImageFormat::Hdr) => Ok(ImageFormat::Hdr),
        Some(ImageFormat::Exr) => Ok(ImageFormat::Exr),
        Some(format) => Err(IblError::NotFloat { format }),
    }
}

/// The width and height a file's header declares, read before any texel
/// is allocated.
fn declared_size(format: ImageFormat, bytes: &[u8]) -> Result<(u32, u32), IblError> {
    if format == ImageFormat::Exr {
        return Ok(declared_exr_size(bytes)?);
    }
    let decoder = HdrDecoder::new(Cursor::new(bytes)).map_err(IblError::Decode)?;
    Ok(decoder.dimensions())
}

/// Decodes a file of `format` ([`float_format`]): Radiance HDR straight
/// into RGB, OpenEXR through the texture sources' decoder (the first RGB
/// layer, or a one-channel layer as gray) without its alpha. Samples stay
/// as the file holds them (NaN and infinities included) for
/// [`check_texels`] to judge.
fn decode_float(format: ImageFormat, bytes: &[u8]) -> Result<FloatImage, IblError> {
    if format == ImageFormat::Exr {
        return decode_exr(bytes);
    }
    let decoder = HdrDecoder::new(Cursor::new(bytes)).map_err(IblError::Decode)?;
    let (width, height) = decoder.dimensions();
    let mut texels = vec![[0.0f32; 3]; width as usize * height as usize];
    decoder
        .read_image(bytemuck::cast_slice_mut(&mut texels))
        .map_err(IblError::Decode)?;
    Ok(FloatImage {
        width: width as usize,
        height: height as usize,
        texels,
    })
}

/// Decodes an OpenEXR file through the texture sources' decoder
/// ([`decode_source_raw`]), dropping its alpha.
fn decode_exr(bytes: &[u8]) -> Result<FloatImage, IblError> {
    let hints = SourceHints {
        extension: Some("exr"),
        svg_size: None,
    };
    let SourceImage::Hdr(image) = decode_source_raw(bytes, &hints)? else {
        let layout = "integer".to_owned();
        return Err(ImageError::UnsupportedLayout {
            format: ImageFormat::Exr,
            layout,
        }
        .into());
    };
    Ok(FloatImage {
        width: image.width as usize,
        height: image.height as usize,
        texels: image
            .pixels
            .chunks_exact(4)
            .map(|texel| [texel[0], texel[1], texel[2]])
            .collect(),
    })
}

/// Refuses a panorama that is not 2:1 or is too large.
fn check_shape(width: u32, height: u32) -> Result<(), IblError> {
    if width > MAX_PANORAMA_WIDTH {
        return Err(IblError::TooLarge { width, height });
    }
    if height == 0 || width != 2 * height {
        return Err(IblError::NotTwoToOne { width, height });
    }
    Ok(())
}

/// Refuses NaN, infinite or negative radiance among `texels`, rows of
/// `width`, naming the first such texel.
fn check_texels(texels: &[Vec3], width: usize) -> Result<(), IblError> {
    let bad = texels.iter().enumerate().find_map(|(index, texel)| {
        let value = *texel.iter().find(|v| !(v.is_finite() && **v >= 0.0))?;
        Some((index, value))
    });
    match bad {
        Some((index, value)) => Err(IblError::BadTexel {
            x: index % width,
            y: index / width,
            value,
        }),
        None => Ok(()),
    }
}

/// The number of specular levels for faces `size` wide: down to
/// [`MIN_SPECULAR_SIZE`] (one level for smaller faces).
pub fn specular_levels(size: usize) -> usize {
    let mut levels = 1;
    while size >> levels >= MIN_SPECULAR_SIZE {
        levels += 1;
    }
    levels
}

/// Computes the whole set from an environment.
pub fn compute(environment: &Environment, options: &IblOptions) -> IblSet {
    let radiance = cube::mip_chain(environment.to_cube(options.size));
    let split = prefilter::Split::new(environment, &radiance);
    let specular = prefilter::specular(&radiance[0], &split, specular_levels(options.size));
    let irradiance = options
        .irradiance
        .then(|| prefilter::irradiance(&split, IRRADIANCE_SIZE));
    IblSet {
        specular,
        irradiance,
        sh: sh::irradiance_sh(environment),
        radiance,
    }
}

/// Encodes a panorama's bytes into its KTX2 files.
pub fn encode_ibl(source: &[u8], options: &IblOptions) -> Result<IblFiles, IblError> {
    encode_environment(Environment::from(decode_panorama(source)?), options)
}

/// Encodes an environment into its KTX2 files, letting go of it once the
/// cubes are computed.
pub fn encode_environment(
    environment: Environment,
    options: &IblOptions,
) -> Result<IblFiles, IblError> {
    let set = compute(&environment, options);
    drop(environment);
    let sh_bytes = sh::to_le_bytes(&set.sh);
    let sh_entry: [(&str, &[u8]); 1] = [(IRRADIANCE_SH_KEY, &sh_bytes)];
    let write = |levels: &[CubeLevel], extra: &[(&str, &[u8])]| {
        write_cube(levels, options.format, options.zstd_level, extra)
    };
    Ok(IblFiles {
        radiance: write(&set.radiance, &[])?,
        specular: write(&set.specular, &sh_entry)?,
        irradiance: match &set.irradiance {
            Some(level) => Some(write(std::slice::from_ref(level), &sh_entry)?),
            None => None,
        },
    })
}

/// Writes cube levels (level 0 first, each six faces +X … −Z) as a KTX2 cube
/// map in `format`, with `extra` key/value entries, through the float
/// encoder textures use ([`encode_float_levels`]): half floats and RGB9E5
/// saturate at their largest value, BC6H and ASTC HDR go through the block
/// encoders at [`CUBE_BLOCK_QUALITY`].
pub fn write_cube(
    levels: &[CubeLevel],
    format: HdrFormat,
    zstd_level: i32,
    extra: &[(&str, &[u8])],
) -> Result<Vec<u8>, IblError> {
    let size = levels[0][0].size as u32;
    let chains: Vec<Vec<RgbaF32Image>> = (0..cube::FACES)
        .map(|face| {
            levels
                .iter()
                .map(|level| face_image(&level[face]))
                .collect()
        })
        .collect();
    let (texel_format, data) =
        encode_float_levels(&chains, format, CUBE_BLOCK_QUALITY).map_err(IblError::Encode)?;
    write_levels(
        square_layout(texel_format, size, cube::FACES as u32),
        &data,
        zstd_level,
        extra,
    )
}

/// One cube face as a float image, alpha 1.
fn face_image(face: &cube::Face) -> RgbaF32Image {
    RgbaF32Image {
        width: face.size as u32,
        height: face.size as u32,
        pixels: face
            .texels
            .iter()
            .flat_map(|&[r, g, b]| [r, g, b, 1.0])
            .collect(),
    }
}

/// [`write_supercompressed_with`] with its error as an [`IblError`].
fn write_levels(
    layout: Ktx2Image<'_>,
    levels: &[Vec<u8>],
    zstd_level: i32,
    extra: &[(&str, &[u8])],
) -> Result<Vec<u8>, IblError> {
    write_supercompressed_with(layout, levels, zstd_level, extra)
        .map_err(|(level, source)| IblError::Compress { level, source })
}

/// The bytes of a half float, saturated at the largest finite one.
fn half_bytes(value: f32) -> [u8; 2] {
    f16::from_f32(value.min(f16::MAX.to_f32())).to_le_bytes()
}

/// The split-sum BRDF lookup table as a KTX2 file: [`BRDF_LUT_SIZE`]²
/// RG16F texels (`A`, `B`; see [`brdf`]), one level, stored as is.
pub fn brdf_lut_ktx2() -> Vec<u8> {
    let texels: Vec<u8> = brdf::lut(BRDF_LUT_SIZE)
        .into_iter()
        .flat_map(|(a, b)| [half_bytes(a), half_bytes(b)])
        .flatten()
        .collect();
    let layout = square_layout(TexelFormat::Rg16Float, BRDF_LUT_SIZE as u32, 1);
    // Level 0 without supercompression cannot fail.
    write_levels(layout, &[texels], 0, &[]).unwrap_or_default()
}

/// The layout of a `size`² texture of `faces` faces (1 or 6), levels and
/// supercompression to be filled in by [`write_levels`].
fn square_layout(format: TexelFormat, size: u32, faces: u32) -> Ktx2Image<'static> {
    Ktx2Image {
        format,
        width: size,
        height: size,
        depth: 0,
        layers: 0,
        faces,
        supercompression: 0,
        swizzle: None,
        levels: &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::ktx2;

    /// A Radiance HDR file of `width × height` texels of `texel(x, y)`.
    fn hdr_file(width: usize, height: usize, texel: impl Fn(usize, usize) -> [f32; 3]) -> Vec<u8> {
        Panorama::from_xy(width, height, texel).to_radiance_hdr()
    }

    #[test]
    fn specular_levels_stop_at_eight_texels() {
        assert_eq!(specular_levels(256), 6);
        assert_eq!(specular_levels(16), 2);
        assert_eq!(specular_levels(8), 1);
    }

    #[test]
    fn a_panorama_becomes_three_cubes_with_the_sh_in_the_specular_one() {
        let file = hdr_file(64, 32, |x, y| [(x % 7) as f32 * 0.5, y as f32 * 0.1, 1.0]);
        let options = IblOptions {
            size: 16,
            irradiance: true,
            format: HdrFormat::Rgba16f,
            zstd_level: 3,
        };
        let files = encode_ibl(&file, &options).unwrap();
        let radiance = ktx2::parse(&files.radiance).unwrap();
        let header = radiance.header();
        assert_eq!(
            (
                header.vk_format,
                header.face_count,
                header.level_count,
                header.pixel_width
            ),
            (ktx2::VK_FORMAT_R16G16B16A16_SFLOAT, 6, 5, 16)
        );
        let specular = ktx2::parse(&files.specular).unwrap();
        assert_eq!(specular.header().level_count, 2);
        let sh = specular.irradiance_sh().unwrap();
        assert!(sh[0][2] > 0.0);
        let irradiance = files.irradiance.unwrap();
        let irradiance = ktx2::parse(&irradiance).unwrap();
        assert_eq!(irradiance.header().pixel_width, IRRADIANCE_SIZE as u32);
        // Deterministic: the same bytes again.
        assert_eq!(
            encode_ibl(&file, &options).unwrap().specular,
            files.specular
        );
    }

    #[test]
    fn block_compressed_cubes_decode_close_to_the_float_cube() {
        use crate::encode::texture::readback::{ImageIndex, Texels, decode_stored};
        let file = hdr_file(64, 32, |x, y| {
            let bright = if (30..34).contains(&x) && (8..10).contains(&y) {
                40.0
            } else {
                1.0
            };
            [
                bright * (0.2 + x as f32 / 64.0),
                bright * (0.3 + y as f32 / 32.0),
                bright * 0.5,
            ]
        });
        let float = |format| {
            let options = IblOptions {
                size: 16,
                irradiance: false,
                format,
                zstd_level: 3,
            };
            encode_ibl(&file, &options).unwrap().specular
        };
        let reference = float(HdrFormat::Rgba16f);
        let reference_view = ktx2::parse(&reference).unwrap();
        let astc_hdr_6x6 = TexelFormat::AstcHdr {
            block: crate::format::ktx2::AstcBlock::B6x6,
        };
        for (format, vk_format) in [
            (HdrFormat::Bc6h, TexelFormat::Bc6h.vk_format()),
            (HdrFormat::AstcHdr6x6, astc_hdr_6x6.vk_format()),
        ] {
            let bytes = float(format);
            let view = ktx2::parse(&bytes).unwrap();
            assert_eq!(view.header().vk_format, vk_format, "{format:?}");
            assert_eq!(view.header().face_count, 6);
            assert!(
                bytes.len() < reference.len() / 3,
                "{format:?}: {} B",
                bytes.len()
            );
            let (mut error, mut total) = (0.0f64, 0.0f64);
            for face in 0..6 {
                let at = ImageIndex {
                    level: 0,
                    layer: 0,
                    face,
                    slice: 0,
                };
                let decoded = decode_stored(&bytes, &view, at).unwrap();
                let source = decode_stored(&reference, &reference_view, at).unwrap();
                let (Texels::Hdr(decoded), Texels::Hdr(source)) = (decoded.texels, source.texels)
                else {
                    panic!("{format:?}: not float texels");
                };
                for (texel, wanted) in decoded.chunks_exact(4).zip(source.chunks_exact(4)) {
                    for channel in 0..3 {
                        error += f64::from((texel[channel] - wanted[channel]).abs());
                        total += f64::from(wanted[channel]);
                    }
                }
            }
            assert!(
                error / total < 0.05,
                "{format:?}: mean error {:.3}",
                error / total
            );
        }
    }

    #[test]
    fn bad_panoramas_are_refused_with_the_reason() {
        let square = hdr_file(32, 32, |_, _| [1.0; 3]);
        let error = decode_panorama(&square).unwrap_err();
        assert!(
            matches!(
                error,
                IblError::NotTwoToOne {
                    width: 32,
                    height: 32
                }
            ),
            "{error}"
        );
        let whole = hdr_file(64, 32, |_, _| [1.0; 3]);
        let truncated = &whole[..whole.len() * 2 / 3];
        assert!(matches!(
            decode_panorama(truncated),
            Err(IblError::Decode(_))
        ));
        assert!(matches!(
            decode_panorama(b"not an image"),
            Err(IblError::Decode(_))
        ));
    }

    #[test]
    fn an_exr_panorama_keeps_its_nan_for_the_texel_check_and_a_png_is_not_float() {
        let mut samples = vec![1.0f32; 4 * 2 * 4];
        // Texel (1, 1), green.
        samples[(2 * 2 + 1) * 4 + 1] = f32::NAN;
        let exr = crate::encode::image::test_sources::exr(4, 2, &samples);
        let error = decode_panorama(&exr).unwrap_err();
        assert!(
            matches!(error, IblError::BadTexel { x: 1, y: 1, value } if value.is_nan()),
            "{error}"
        );
        let png = crate::encode::image::test_images::solid_png(4, 2, [1, 2, 3, 255]);
        let error = decode_panorama(&png).unwrap_err();
        assert!(
            matches!(
                error,
                IblError::NotFloat {
                    format: ImageFormat::Png
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn the_brdf_lut_is_rg16f() {
        let bytes = brdf_lut_ktx2();
        let view = ktx2::parse(&bytes).unwrap();
        assert_eq!(
            view.header().vk_format,
            crate::format::texel::VK_FORMAT_R16G16_SFLOAT
        );
        assert_eq!(view.level_data(0).len(), BRDF_LUT_SIZE * BRDF_LUT_SIZE * 4);
    }
}
