//! The unit of work lent threads share inside one texture: strips of whole
//! block rows.
//!
//! Every block of every block-compressed format assetc writes (UASTC, BCn,
//! ASTC) and every texel of the float formats is encoded on its own, so a
//! level cut into strips of whole block rows, each encoded apart and put
//! back together top to bottom, gives exactly the bytes of the whole level.
//! Where strips are cut depends on the level's size and the block footprint
//! alone, never on the thread count, and small strips (small levels) are
//! gathered into batches, so a texture of any size makes a few runs of about
//! [`BATCH_BLOCKS`] blocks each. [`encode`] runs the batches through
//! [`crate::jobserver::map_with`].

use super::image::RgbaImage;

/// Blocks in one batch, about: a strip of a large level, or several small
/// levels together. A 2048x2048 texture of 4x4 blocks with its mips makes
/// 22 batches.
pub const BATCH_BLOCKS: usize = 16384;

/// Whole block rows of one level of one image.
#[derive(Debug)]
pub struct Strip<T> {
    /// The mip level the rows belong to.
    pub level: usize,
    /// The rows' texels.
    pub image: RgbaImage<T>,
}

/// Encodes every level of `chains` (`chains[image][level]`, all images the
/// same shape) in strips of `block` (width, height) blocks and returns each
/// level's bytes: every image's, image 0 first, as KTX2 stores a level of
/// several faces or layers. `encode` turns one batch of strips into one
/// byte string per strip; each thread keeps its own `S` between batches.
pub fn encode<T, S, E>(
    chains: &[Vec<RgbaImage<T>>],
    block: (u32, u32),
    encode: impl Fn(&mut S, &[Strip<T>]) -> Result<Vec<Vec<u8>>, E> + Sync,
) -> Result<Vec<Vec<u8>>, E>
where
    T: Copy + Sync,
    S: Default,
    E: Send,
{
    let strips = cut(chains, block);
    let batches = batches(&strips, block);
    let mut levels = vec![Vec::new(); chains[0].len()];
    let encoded = crate::jobserver::map_with(&batches, |state, batch| encode(state, batch));
    for (batch, bytes) in batches.iter().zip(encoded) {
        for (strip, bytes) in batch.iter().zip(bytes?) {
            levels[strip.level].extend(bytes);
        }
    }
    Ok(levels)
}

/// Every level of every image cut into strips of about [`BATCH_BLOCKS`]
/// blocks, in the order their bytes are stored: level by level, image 0
/// first, each image top to bottom.
pub fn cut<T: Copy>(chains: &[Vec<RgbaImage<T>>], block: (u32, u32)) -> Vec<Strip<T>> {
    let mut strips = Vec::new();
    for level in 0..chains[0].len() {
        for chain in chains {
            let image = &chain[level];
            let blocks_x = image.width.div_ceil(block.0) as usize;
            let rows = block.1 * BATCH_BLOCKS.div_ceil(blocks_x) as u32;
            let row_len = image.width as usize * 4;
            for top in (0..image.height).step_by(rows as usize) {
                let height = rows.min(image.height - top);
                let span = top as usize * row_len..(top + height) as usize * row_len;
                strips.push(Strip {
                    level,
                    image: RgbaImage {
                        width: image.width,
                        height,
                        pixels: image.pixels[span].to_vec(),
                    },
                });
            }
        }
    }
    strips
}

/// Consecutive strips gathered into runs of at least [`BATCH_BLOCKS`]
/// blocks of `block` texels (the last run may hold fewer).
pub fn batches<T>(strips: &[Strip<T>], block: (u32, u32)) -> Vec<&[Strip<T>]> {
    let mut batches = Vec::new();
    let (mut start, mut blocks) = (0, 0);
    for (index, strip) in strips.iter().enumerate() {
        let image = &strip.image;
        blocks += (image.width.div_ceil(block.0) * image.height.div_ceil(block.1)) as usize;
        if blocks >= BATCH_BLOCKS || index + 1 == strips.len() {
            batches.push(&strips[start..=index]);
            (start, blocks) = (index + 1, 0);
        }
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(width: u32, height: u32) -> RgbaImage<u16> {
        RgbaImage {
            width,
            height,
            pixels: (0..width * height * 4).map(|i| i as u16).collect(),
        }
    }

    #[test]
    fn strips_are_whole_block_rows_and_cover_the_level() {
        // 6x6 blocks, 1200 wide: 200 blocks a row, so 82 rows of blocks
        // (492 texel rows) a strip; 1000 rows make three strips.
        let chains = [vec![image(1200, 1000)]];
        let strips = cut(&chains, (6, 6));
        let heights: Vec<u32> = strips.iter().map(|s| s.image.height).collect();
        assert_eq!(heights, [492, 492, 16]);
        let joined: Vec<u16> = strips.iter().flat_map(|s| s.image.pixels.clone()).collect();
        assert_eq!(joined, chains[0][0].pixels);
    }

    #[test]
    fn small_levels_share_a_batch_and_large_ones_do_not() {
        let chain = vec![image(64, 64), image(32, 32), image(16, 16)];
        let strips = cut(&[chain.clone(), chain], (4, 4));
        assert_eq!(strips.len(), 6);
        assert_eq!(batches(&strips, (4, 4)).len(), 1);
        let big = cut(&[vec![image(2048, 1024)]], (4, 4));
        assert_eq!(batches(&big, (4, 4)).len(), big.len());
    }

    #[test]
    fn levels_come_back_in_storage_order() {
        // Encode each strip as its own texels, so joining must give back
        // every level of every image in order.
        let chains = [
            vec![image(600, 700), image(300, 350)],
            vec![image(600, 700), image(300, 350)],
        ];
        let levels = crate::jobserver::budget::with_threads(3, || {
            encode(&chains, (4, 4), |_: &mut (), batch: &[Strip<u16>]| {
                Ok::<_, ()>(
                    batch
                        .iter()
                        .map(|s| bytemuck::cast_slice(&s.image.pixels).to_vec())
                        .collect(),
                )
            })
        })
        .unwrap();
        for (level, bytes) in levels.iter().enumerate() {
            let expected: Vec<u8> = chains
                .iter()
                .flat_map(|chain| bytemuck::cast_slice::<u16, u8>(&chain[level].pixels).to_vec())
                .collect();
            assert_eq!(bytes, &expected, "level {level}");
        }
    }
}
