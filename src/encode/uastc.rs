//! UASTC 4x4 encoding through the Basis Universal encoder (`basis-universal`).
//!
//! The encoder only writes `.basis` files, so this module hands it our own mip
//! levels (it never filters anything itself), lets it write a `.basis` file in
//! memory, and lifts the raw UASTC blocks back out of that file's slices. The
//! KTX 2.0 container around them is written by [`crate::format::ktx2`].
//!
//! Two quirks of the crate are worked around here:
//!
//! * its `set_uastc_quality_level` ORs the level into the pack flags, so levels
//!   0 and 1 are unreachable; the flags are set whole through the `sys` layer;
//! * its compressor's own job pool is sized once, up front, and rate-distortion
//!   optimisation (RDO) splits each image into as many chunks as that pool has
//!   threads, so the bytes would depend on the thread count.
//!
//! So the work is split here, in a way that depends on the image sizes only:
//! the levels are cut into strips and batches ([`crate::encode::strips`]),
//! and each batch is one single-threaded encoder run, its strips the run's
//! images. The batches run on the threads the jobserver lends. UASTC encodes
//! every block on its own, so without RDO the blocks are those of one run
//! over the whole image; with RDO each strip is optimised on its own,
//! whatever the thread count, as the encoder would with threads of its own.

use basis_universal::sys;
use basis_universal::{BasisTextureFormat, ColorSpace, Compressor, CompressorParams};

use super::image::Rgba8Image;
use super::strips::{self, Strip};

/// Bytes in one UASTC 4x4 block.
pub const BLOCK_BYTES: usize = 16;

/// How to encode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UastcOptions {
    /// UASTC quality level, 0 (fastest) to [`MAX_QUALITY`](crate::config::MAX_QUALITY).
    pub quality: u8,
    /// The RDO lambda (`basisu -uastc_rdo_l`), or `None` for no RDO. Higher
    /// values trade quality for smaller Zstandard output.
    pub rdo: Option<f32>,
}

/// UASTC blocks for a set of images with equal mip chains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UastcLevels {
    /// One entry per mip level, largest first: the blocks of every image of
    /// that level, image 0 first, each image's blocks in raster order.
    pub levels: Vec<Vec<u8>>,
    /// Whether any source texel has alpha below 255.
    pub alpha: bool,
}

/// Why the encoder failed. The inputs are validated before they get here, so
/// these are faults of the encoder, reported rather than trusted.
#[derive(thiserror::Error, Debug)]
pub enum UastcError {
    /// The encoder refused its parameters.
    #[error("the UASTC encoder rejected its parameters")]
    Init,
    /// The encoder failed while compressing.
    #[error("the UASTC encoder failed: {0}")]
    Process(String),
    /// The `.basis` file the encoder wrote is not what this module expects.
    #[error("the UASTC encoder wrote an unexpected .basis file: {0}")]
    Container(String),
}

/// Encodes `chains` (one mip chain per image, all of the same shape) to UASTC.
/// `srgb` selects perceptual error metrics for colour rather than linear data.
///
/// # Panics
///
/// If `chains` is empty or a chain is empty; those are programming errors.
pub fn encode_uastc(
    chains: &[Vec<Rgba8Image>],
    srgb: bool,
    options: &UastcOptions,
) -> Result<UastcLevels, UastcError> {
    assert!(
        !chains.is_empty() && !chains[0].is_empty(),
        "encode_uastc: no images"
    );
    let levels = strips::encode(chains, (4, 4), |_: &mut (), batch| {
        encode_batch(batch, srgb, options)
    })?;
    let alpha = chains.iter().flatten().any(has_alpha);
    Ok(UastcLevels { levels, alpha })
}

/// Whether any texel of `image` has alpha below 255.
fn has_alpha(image: &Rgba8Image) -> bool {
    image.pixels.chunks_exact(4).any(|texel| texel[3] < 255)
}

/// One single-threaded encoder run over `strips`, each strip its own image:
/// the blocks of each strip, in order.
fn encode_batch(
    strips: &[Strip<u8>],
    srgb: bool,
    options: &UastcOptions,
) -> Result<Vec<Vec<u8>>, UastcError> {
    let mut params = CompressorParams::new();
    params.set_basis_format(BasisTextureFormat::UASTC4x4);
    // SAFETY: `params.0` is the live parameter block owned by `params`.
    unsafe {
        sys::compressor_params_set_pack_uastc_flags(params.0, options.quality.into());
    }
    params.set_color_space(if srgb {
        ColorSpace::Srgb
    } else {
        ColorSpace::Linear
    });
    params.set_generate_mipmaps(false);
    params.set_rdo_uastc(options.rdo);
    for (index, strip) in strips.iter().enumerate() {
        load(&mut params.source_image_mut(index as u32), &strip.image);
    }
    let mut compressor = Compressor::new(1);
    // SAFETY: the parameters are fully initialised above: UASTC format, a
    // quality level in range and images whose pixel buffers match their sizes.
    if !unsafe { compressor.init(&params) } {
        return Err(UastcError::Init);
    }
    // SAFETY: as above; `init` accepted the parameters.
    unsafe { compressor.process() }.map_err(|code| UastcError::Process(format!("{code:?}")))?;
    split_basis_file(compressor.basis_file(), strips.len())
}

/// Copies an RGBA8 image into one of the encoder's source slots.
fn load(slot: &mut basis_universal::CompressorImageRef, image: &Rgba8Image) {
    slot.init(&image.pixels, image.width, image.height, 4);
}

/// The `.basis` layout this module reads: a packed little-endian header with
/// the slice count at 14 (3 bytes), the texture format at 20 (1 byte) and the
/// slice table offset at 65 (4 bytes); then 23-byte slice descriptors.
mod basis_layout {
    /// `"sB"`, the file signature.
    pub const SIGNATURE: [u8; 2] = *b"sB";
    /// Header length.
    pub const HEADER_LEN: usize = 77;
    /// Offset of `m_total_slices` (3 bytes).
    pub const TOTAL_SLICES: usize = 14;
    /// Offset of `m_tex_format` (1 byte).
    pub const TEX_FORMAT: usize = 20;
    /// `basis_tex_format::cUASTC4x4`.
    pub const TEX_FORMAT_UASTC: u8 = 1;
    /// Offset of `m_slice_desc_file_ofs` (4 bytes).
    pub const SLICE_TABLE: usize = 65;
    /// Length of one slice descriptor.
    pub const SLICE_LEN: usize = 23;
    /// Slice descriptor: `m_image_index` (3 bytes).
    pub const SLICE_IMAGE: usize = 0;
    /// Slice descriptor: `m_level_index` (1 byte).
    pub const SLICE_LEVEL: usize = 3;
    /// Slice descriptor: `m_num_blocks_x` (2 bytes).
    pub const SLICE_BLOCKS_X: usize = 9;
    /// Slice descriptor: `m_num_blocks_y` (2 bytes).
    pub const SLICE_BLOCKS_Y: usize = 11;
    /// Slice descriptor: `m_file_ofs` (4 bytes).
    pub const SLICE_OFFSET: usize = 13;
    /// Slice descriptor: `m_file_size` (4 bytes).
    pub const SLICE_SIZE: usize = 17;
}

/// Reads a little-endian unsigned integer of `width` bytes at `offset`.
fn packed(bytes: &[u8], offset: usize, width: usize) -> Result<usize, UastcError> {
    let field = offset
        .checked_add(width)
        .and_then(|end| bytes.get(offset..end))
        .ok_or_else(|| UastcError::Container(format!("field at {offset} runs past the file")))?;
    Ok(field
        .iter()
        .rev()
        .fold(0usize, |value, &byte| (value << 8) | usize::from(byte)))
}

/// Lifts the UASTC blocks of every image out of a `.basis` file of
/// `image_count` images without mips, image 0 first.
fn split_basis_file(file: &[u8], image_count: usize) -> Result<Vec<Vec<u8>>, UastcError> {
    use basis_layout::*;
    let bad = |what: String| Err(UastcError::Container(what));
    if file.len() < HEADER_LEN || file[..2] != SIGNATURE {
        return bad("no .basis header".into());
    }
    if file[TEX_FORMAT] != TEX_FORMAT_UASTC {
        return bad(format!("texture format {} is not UASTC", file[TEX_FORMAT]));
    }
    let slice_count = packed(file, TOTAL_SLICES, 3)?;
    if slice_count != image_count {
        return bad(format!("{slice_count} slices for {image_count} images"));
    }
    let table = packed(file, SLICE_TABLE, 4)?;
    let mut slices: Vec<Option<Vec<u8>>> = vec![None; slice_count];
    for index in 0..slice_count {
        let desc = table + index * SLICE_LEN;
        let image = packed(file, desc + SLICE_IMAGE, 3)?;
        let level = packed(file, desc + SLICE_LEVEL, 1)?;
        let blocks =
            packed(file, desc + SLICE_BLOCKS_X, 2)? * packed(file, desc + SLICE_BLOCKS_Y, 2)?;
        let offset = packed(file, desc + SLICE_OFFSET, 4)?;
        let size = packed(file, desc + SLICE_SIZE, 4)?;
        if image >= image_count || level != 0 || size != blocks * BLOCK_BYTES {
            return bad(format!(
                "slice {index} (image {image}, level {level}, {size} bytes) does not fit"
            ));
        }
        let data = file
            .get(offset..offset + size)
            .ok_or_else(|| UastcError::Container(format!("slice {index} runs past the file")))?;
        if slices[image].replace(data.to_vec()).is_some() {
            return bad(format!("image {image} appears twice"));
        }
    }
    // Every slot is filled: there are exactly as many slices as slots and none
    // repeats.
    Ok(slices.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::config::MAX_QUALITY;
    use crate::encode::image::test_images::Noise;

    /// A noisy image: hard for the encoder, so quality levels differ.
    fn noise(width: u32, height: u32, alpha: u8) -> Rgba8Image {
        let mut noise = Noise::new(width * 31 + height);
        let pixels = (0..width * height)
            .flat_map(|_| {
                let value = noise.next();
                [value as u8, (value >> 8) as u8, (value >> 16) as u8, alpha]
            })
            .collect();
        Rgba8Image {
            width,
            height,
            pixels,
        }
    }

    fn options(quality: u8) -> UastcOptions {
        UastcOptions { quality, rdo: None }
    }

    fn encode(chains: &[Vec<Rgba8Image>], quality: u8) -> UastcLevels {
        encode_uastc(chains, true, &options(quality)).unwrap()
    }

    #[test]
    fn levels_hold_one_block_per_4x4_of_every_image() {
        let chain = vec![noise(9, 6, 255), noise(4, 3, 255), noise(2, 1, 255)];
        let out = encode(&[chain.clone(), chain], 0);
        let lengths: Vec<usize> = out.levels.iter().map(Vec::len).collect();
        // 9x6 is 3x2 blocks, 4x3 is 1x1, 2x1 is 1x1; two images each.
        assert_eq!(lengths, [2 * 6 * 16, 2 * 16, 2 * 16]);
        assert!(!out.alpha);
    }

    #[test]
    fn alpha_is_detected() {
        let out = encode(&[vec![noise(8, 8, 100)]], 1);
        assert!(out.alpha);
        assert_eq!(out.levels.len(), 1);
    }

    #[test]
    fn every_quality_level_is_reachable_and_deterministic() {
        let chains = [vec![noise(16, 16, 255)]];
        let encoded: Vec<_> = (0..=MAX_QUALITY)
            .map(|quality| encode(&chains, quality))
            .collect();
        assert_eq!(encoded[0], encode(&chains, 0));
        // Level 0 and level 2 search differently; if the flags did not reach
        // the encoder they would be identical.
        assert_ne!(encoded[0].levels, encoded[2].levels);
    }

    #[test]
    fn strips_give_the_blocks_of_one_run_over_the_whole_image() {
        // 2048 wide: strips of 128 rows, so 302 rows make three, the last
        // one 46 rows tall (not a whole number of blocks).
        let image = noise(2048, 302, 255);
        let chains = [vec![image.clone()]];
        assert_eq!(strips::cut(&chains, (4, 4)).len(), 3);
        let whole = [Strip { level: 0, image }];
        let one_run = encode_batch(&whole, true, &options(0)).unwrap();
        let split = crate::jobserver::budget::with_threads(2, || encode(&chains, 0));
        assert_eq!(split.levels, one_run);
    }

    #[test]
    fn a_foreign_file_is_refused() {
        assert!(split_basis_file(b"not a basis file", 1).is_err());
        let mut header = vec![0u8; basis_layout::HEADER_LEN];
        header[..2].copy_from_slice(b"sB");
        assert!(split_basis_file(&header, 1).is_err());
        header[basis_layout::TEX_FORMAT] = basis_layout::TEX_FORMAT_UASTC;
        header[basis_layout::TOTAL_SLICES] = 1;
        header[basis_layout::SLICE_TABLE] = 200;
        assert!(split_basis_file(&header, 1).is_err());
    }
}
