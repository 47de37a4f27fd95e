//! Whole blocks from any image size: the encoders work on images whose sides
//! are multiples of the block footprint, so a level whose sides are not is
//! extended by repeating its last column and row (clamping), never with
//! uninitialised or zero texels.

/// A level extended to whole blocks, with `channels` values per texel.
#[derive(Debug, Clone, PartialEq)]
pub struct Padded<T> {
    /// Width in texels, a multiple of the block width.
    pub width: u32,
    /// Height in texels, a multiple of the block height.
    pub height: u32,
    /// `width * height * channels` values, row by row.
    pub data: Vec<T>,
}

/// `texels` (`width` x `height`, `stride` values per texel) extended to a
/// multiple of `block` and reduced to the channels listed in `pick` (indices
/// into each texel), edge texels repeated.
pub fn pad_to_blocks<T: Copy>(
    texels: &[T],
    (width, height): (u32, u32),
    stride: usize,
    block: (u32, u32),
    pick: &[usize],
) -> Padded<T> {
    let padded_width = width.div_ceil(block.0) * block.0;
    let padded_height = height.div_ceil(block.1) * block.1;
    let mut data = Vec::with_capacity((padded_width * padded_height) as usize * pick.len());
    for y in 0..padded_height {
        let row = y.min(height - 1) as usize * width as usize;
        for x in 0..padded_width {
            let texel = (row + x.min(width - 1) as usize) * stride;
            data.extend(pick.iter().map(|&channel| texels[texel + channel]));
        }
    }
    Padded {
        width: padded_width,
        height: padded_height,
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_clamped_and_channels_picked() {
        // 3x2 texels of two channels: (x, 10 * y) and a second value.
        let texels: Vec<u8> = (0..2u8)
            .flat_map(|y| (0..3u8).flat_map(move |x| [x + 10 * y, 99]))
            .collect();
        let padded = pad_to_blocks(&texels, (3, 2), 2, (4, 4), &[0]);
        assert_eq!((padded.width, padded.height), (4, 4));
        assert_eq!(
            padded.data,
            [0, 1, 2, 2, 10, 11, 12, 12, 10, 11, 12, 12, 10, 11, 12, 12]
        );
    }

    #[test]
    fn whole_blocks_are_unchanged() {
        let texels: Vec<u8> = (0..64).collect();
        let padded = pad_to_blocks(&texels, (4, 4), 4, (4, 4), &[0, 1, 2, 3]);
        assert_eq!(padded.data, texels);
    }
}
