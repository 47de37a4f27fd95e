//! BC1, BC4, BC5, BC6H and BC7 through Intel's ISPC texture compressor
//! (`intel_tex_2`, whose prebuilt kernels need no ISPC compiler).
//!
//! The kernels read whole 4x4 blocks, so every level is first padded by
//! clamping ([`super::pad`]). They run on the calling thread only, and always
//! in their SSE2 build ([`super::ispc_sse2`]), so the blocks are the same on
//! every x86-64 CPU.

use intel_tex_2::{bc6h, bc7};

use super::bc7_tiered;
use super::ispc_sse2::{self, Surface};
use super::pad::pad_to_blocks;
use crate::encode::image::Rgba8Image;

/// The BCn block footprint.
const BLOCK: (u32, u32) = (4, 4);

/// BC1 blocks of `level`'s RGB; alpha is ignored.
pub fn encode_bc1(level: &Rgba8Image) -> Vec<u8> {
    let padded = pad_rgba(level, &[0, 1, 2, 3]);
    ispc_sse2::bc1(&surface(&padded, 4))
}

/// BC4 blocks of `level`'s red channel.
pub fn encode_bc4(level: &Rgba8Image) -> Vec<u8> {
    let padded = pad_rgba(level, &[0]);
    ispc_sse2::bc4(&surface(&padded, 1))
}

/// BC5 blocks of `level`'s red and green channels.
pub fn encode_bc5(level: &Rgba8Image) -> Vec<u8> {
    let padded = pad_rgba(level, &[0, 1]);
    ispc_sse2::bc5(&surface(&padded, 2))
}

/// BC7 blocks of `level` at `quality` 0 (fastest) to 4 (slowest): the ISPC
/// profiles ultra-fast, very fast, fast, basic and slow, in their opaque form
/// when every texel is opaque and their alpha form otherwise. At 1 and 2 the
/// blocks that mode 6 alone holds within a mean squared error of 1 keep it,
/// and at 2 only blocks it leaves above 4 take the "fast" search, the rest
/// the "very fast" one ([`bc7_tiered`]); 0, 3 and 4 run their profile alone.
pub fn encode_bc7(level: &Rgba8Image, quality: u8) -> Vec<u8> {
    let opaque = level.pixels.chunks_exact(4).all(|texel| texel[3] == 255);
    let profile = |quality| bc7_profile(quality, opaque);
    let padded = pad_rgba(level, &[0, 1, 2, 3]);
    let tier = |above, quality| bc7_tiered::Tier {
        above,
        settings: profile(quality),
    };
    let mean_error_1 = bc7_tiered::MEAN_SQUARED_ERROR_1;
    match quality {
        1 => bc7_tiered::encode(&padded, &profile(0), &[tier(mean_error_1, 1)]),
        2 => bc7_tiered::encode(
            &padded,
            &profile(0),
            &[tier(mean_error_1, 1), tier(4 * mean_error_1, 2)],
        ),
        _ => ispc_sse2::bc7(&surface(&padded, 4), &profile(quality)),
    }
}

/// The ISPC BC7 profile of rank `quality` (0 ultra-fast to 4 slow), in its
/// opaque or its alpha form.
fn bc7_profile(quality: u8, opaque: bool) -> bc7::EncodeSettings {
    match (quality, opaque) {
        (0, true) => bc7::opaque_ultra_fast_settings(),
        (1, true) => bc7::opaque_very_fast_settings(),
        (2, true) => bc7::opaque_fast_settings(),
        (3, true) => bc7::opaque_basic_settings(),
        (_, true) => bc7::opaque_slow_settings(),
        (0, false) => bc7::alpha_ultra_fast_settings(),
        (1, false) => bc7::alpha_very_fast_settings(),
        (2, false) => bc7::alpha_fast_settings(),
        (3, false) => bc7::alpha_basic_settings(),
        (_, false) => bc7::alpha_slow_settings(),
    }
}

/// BC6H (unsigned) blocks of `width` x `height` linear RGB texels, at
/// `quality` 0 (fastest) to 4 (slowest): the ISPC profiles very fast, fast,
/// basic, slow and very slow. Negative values become 0 and values above the
/// half-float range its largest value; alpha is ignored.
pub fn encode_bc6h(width: u32, height: u32, texels: &[[f32; 4]], quality: u8) -> Vec<u8> {
    let settings = match quality {
        0 => bc6h::very_fast_settings(),
        1 => bc6h::fast_settings(),
        2 => bc6h::basic_settings(),
        3 => bc6h::slow_settings(),
        _ => bc6h::very_slow_settings(),
    };
    let halves: Vec<u16> = texels
        .iter()
        .flat_map(|texel| texel.map(unsigned_half))
        .collect();
    let padded = pad_to_blocks(&halves, (width, height), 4, BLOCK, &[0, 1, 2, 3]);
    let bytes: Vec<u8> = padded.data.iter().flat_map(|h| h.to_le_bytes()).collect();
    let surface = Surface {
        data: &bytes,
        width: padded.width,
        height: padded.height,
        bytes_per_texel: 8,
    };
    ispc_sse2::bc6h(&surface, &settings)
}

/// The bits of `value` as a half float clamped to BC6H's unsigned range: NaN
/// and negatives become 0, anything above the largest half the largest half.
fn unsigned_half(value: f32) -> u16 {
    let clamped = if value.is_nan() {
        0.0
    } else {
        value.clamp(0.0, half::f16::MAX.to_f32())
    };
    half::f16::from_f32(clamped).to_bits()
}

/// `level` padded to whole 4x4 blocks with the channels in `pick`.
fn pad_rgba(level: &Rgba8Image, pick: &[usize]) -> super::pad::Padded<u8> {
    pad_to_blocks(&level.pixels, (level.width, level.height), 4, BLOCK, pick)
}

/// The kernels' surface over `padded`, `bytes_per_texel` bytes a texel.
fn surface(padded: &super::pad::Padded<u8>, bytes_per_texel: u32) -> Surface<'_> {
    Surface {
        data: &padded.data,
        width: padded.width,
        height: padded.height,
        bytes_per_texel,
    }
}
