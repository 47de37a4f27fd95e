//! BC7 effort spent where mode 6 alone falls short.
//!
//! The ISPC kernel spends most of its time ranking the 64 two-subset
//! partitions of every block, even for a flat or smooth block that mode 6
//! (one subset, 7-bit endpoints, 4-bit indices) already stores within a
//! level of its source. So the whole level is first encoded in the kernel's
//! mode-6-only profile (about 25 times cheaper than its "fast" one), and each
//! block is decoded and measured against its source. Then come the tiers:
//! each names the squared error above which a block is encoded again with a
//! fuller profile, and a block takes the last tier its mode-6 error passes.
//! The blocks of a tier are gathered into a strip, one block after the next,
//! encoded, and put back in place; a block no tier takes keeps mode 6.
//!
//! The kernel encodes every block on its own, so a block gets the same bytes
//! in a strip as in the level (tested); which tier a block takes depends on
//! its source texels alone, so the result is as deterministic as the kernel.

use intel_tex_2::bc7::EncodeSettings;

use super::ispc_sse2::{self, Surface};
use super::pad::Padded;

/// Bytes in a BC7 block.
const BLOCK_BYTES: usize = 16;

/// The sum of squared errors over a block's 16 texels and 4 channels at a
/// mean squared error of 1 (48.1 dB): mode 6 blocks this close are kept.
pub const MEAN_SQUARED_ERROR_1: u32 = 16 * 4;

/// Encode the blocks whose mode-6 squared error is above `above` (summed
/// over the block's 16 texels and 4 channels) with `settings`.
#[derive(Debug, Clone, Copy)]
pub struct Tier {
    /// The squared error a mode-6 block must exceed to take this tier.
    pub above: u32,
    /// The kernel profile the tier's blocks are encoded with.
    pub settings: EncodeSettings,
}

/// BC7 blocks of `padded` (RGBA8, sides multiples of 4): first every block
/// with `mode6` (an ultra-fast profile), then each block again with the last
/// of `tiers` (sorted by `above`) whose bar its mode-6 error passes.
pub fn encode(padded: &Padded<u8>, mode6: &EncodeSettings, tiers: &[Tier]) -> Vec<u8> {
    let mut blocks = ispc_sse2::bc7(&surface(padded), mode6);
    let blocks_wide = (padded.width / 4) as usize;
    let errors: Vec<u32> = blocks
        .chunks_exact(BLOCK_BYTES)
        .enumerate()
        .map(|(index, block)| squared_error(block, &source_block(padded, blocks_wide, index)))
        .collect();
    for (rank, tier) in tiers.iter().enumerate() {
        let below = tiers.get(rank + 1).map_or(u32::MAX, |next| next.above);
        let members: Vec<usize> = (0..errors.len())
            .filter(|&index| errors[index] > tier.above && errors[index] <= below)
            .collect();
        if members.is_empty() {
            continue;
        }
        let strip = gather(padded, blocks_wide, &members);
        let encoded = ispc_sse2::bc7(&surface(&strip), &tier.settings);
        for (block, &index) in encoded.chunks_exact(BLOCK_BYTES).zip(&members) {
            blocks[index * BLOCK_BYTES..][..BLOCK_BYTES].copy_from_slice(block);
        }
    }
    blocks
}

/// The kernels' surface over an RGBA8 `padded` level.
fn surface(padded: &Padded<u8>) -> Surface<'_> {
    Surface {
        data: &padded.data,
        width: padded.width,
        height: padded.height,
        bytes_per_texel: 4,
    }
}

/// The 16 RGBA texels of block `index` (row order of blocks), row by row.
fn source_block(padded: &Padded<u8>, blocks_wide: usize, index: usize) -> [u8; 64] {
    let (block_x, block_y) = (index % blocks_wide, index / blocks_wide);
    let row_bytes = padded.width as usize * 4;
    let mut texels = [0; 64];
    for (row, out) in texels.chunks_exact_mut(16).enumerate() {
        let start = (block_y * 4 + row) * row_bytes + block_x * 16;
        out.copy_from_slice(&padded.data[start..start + 16]);
    }
    texels
}

/// The sum of squared differences between `block` decoded and `source`.
fn squared_error(block: &[u8], source: &[u8; 64]) -> u32 {
    let mut decoded = [0u8; 64];
    bcdec_rs::bc7(block, &mut decoded, 16);
    decoded
        .iter()
        .zip(source)
        .map(|(&a, &b)| u32::from(a.abs_diff(b)).pow(2))
        .sum()
}

/// The blocks listed in `indices`, side by side in a strip 4 texels high.
fn gather(padded: &Padded<u8>, blocks_wide: usize, indices: &[usize]) -> Padded<u8> {
    let row_bytes = indices.len() * 16;
    let mut data = vec![0; row_bytes * 4];
    for (slot, &index) in indices.iter().enumerate() {
        let texels = source_block(padded, blocks_wide, index);
        for (row, source_row) in texels.chunks_exact(16).enumerate() {
            data[row * row_bytes + slot * 16..][..16].copy_from_slice(source_row);
        }
    }
    Padded {
        width: indices.len() as u32 * 4,
        height: 4,
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use intel_tex_2::bc7;

    /// A 64x64 opaque level: a diagonal ramp in its left quarter, faint
    /// noise in its second quarter, strong noise in its right half.
    fn ramp_and_noise() -> Padded<u8> {
        let mut data = Vec::with_capacity(64 * 64 * 4);
        let mut seed = 0x2545_f491_u32;
        for y in 0..64u32 {
            for x in 0..64u32 {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let noise = seed
                    .to_le_bytes()
                    .map(|byte| byte >> if x < 32 { 4 } else { 0 });
                let ramp = (x + y) as u8;
                data.extend(match x {
                    0..16 => [ramp, ramp / 2 + 40, 90, 255],
                    _ => [
                        noise[0] / 2 + 60,
                        noise[1] / 2 + 30,
                        noise[2] / 4 + x as u8,
                        255,
                    ],
                });
            }
        }
        Padded {
            width: 64,
            height: 64,
            data,
        }
    }

    #[test]
    fn each_block_takes_the_tier_its_mode6_error_reaches() {
        let level = ramp_and_noise();
        let mode6 = bc7::opaque_ultra_fast_settings();
        let tiers = [
            Tier {
                above: MEAN_SQUARED_ERROR_1,
                settings: bc7::opaque_very_fast_settings(),
            },
            Tier {
                above: 4 * MEAN_SQUARED_ERROR_1,
                settings: bc7::opaque_fast_settings(),
            },
        ];
        let tiered = encode(&level, &mode6, &tiers);
        let whole = |settings| ispc_sse2::bc7(&surface(&level), settings);
        let (quick, very_fast, fast) = (
            whole(&mode6),
            whole(&tiers[0].settings),
            whole(&tiers[1].settings),
        );
        let mut taken = [0; 3];
        for (index, block) in tiered.chunks_exact(BLOCK_BYTES).enumerate() {
            let slot = index * BLOCK_BYTES..(index + 1) * BLOCK_BYTES;
            let error = squared_error(&quick[slot.clone()], &source_block(&level, 16, index));
            let (tier, expected) = match error {
                0..=MEAN_SQUARED_ERROR_1 => (0, &quick[slot]),
                _ if error <= tiers[1].above => (1, &very_fast[slot]),
                _ => (2, &fast[slot]),
            };
            assert_eq!(block, expected, "block {index} (mode-6 error {error})");
            taken[tier] += 1;
        }
        assert!(
            taken.iter().all(|&count| count >= 16),
            "blocks per tier: {taken:?}"
        );
    }
}
