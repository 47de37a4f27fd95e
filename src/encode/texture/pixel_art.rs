//! Pixel art, `texture.pixel_art`: images drawn texel by texel, which block
//! formats smear and mip filters blur. They are written as raw RGBA8 (with
//! Zstandard), without mips, and with a nearest-filter hint for the engine.
//!
//! Under `auto` an image is pixel art when a folder on its path says so
//! (`pixel`, `pixelart`, `pixel_art`, `pixel-art`, `8bit`, `16bit`, any
//! case), or when the image itself looks drawn rather than painted or
//! photographed:
//!
//! - both sides at most [`MAX_SIDE`];
//! - at most [`MAX_COLOURS`] distinct colours (every fully transparent texel
//!   counts as one): flat vector art has hundreds, from its anti-aliasing;
//! - alpha all but binary: at most [`MAX_SOFT_ALPHA`] of the visible texels
//!   are partly transparent (soft particles and anti-aliased edges have more);
//! - hard edges: at least [`MIN_HARD_SHARE`] of the neighbouring texel pairs
//!   that differ at all differ by [`HARD_STEP`] levels or more in some
//!   channel (gradients and photographs have mostly small steps).
//!
//! On the 2D demos of godot-demo-projects this picks the sprites, tiles and
//! backgrounds of the three projects that sample with nearest filtering, and
//! none of the anti-aliased art of the others (`docs/textures.md`).

use std::collections::HashSet;
use std::path::Path;

use super::{SourceImages, TextureMode};
use crate::config::Toggle;
use crate::encode::image::Rgba8Image;

/// The longest side a pixel-art image has under `auto`.
pub const MAX_SIDE: u32 = 1024;

/// The most distinct colours a pixel-art image has under `auto`.
pub const MAX_COLOURS: usize = 64;

/// The largest share of visible texels a pixel-art image has partly
/// transparent under `auto`.
pub const MAX_SOFT_ALPHA: f64 = 0.25;

/// The smallest step, in levels of one channel, that counts as a hard edge.
pub const HARD_STEP: u8 = 24;

/// The least share of differing neighbour pairs that must be hard edges.
pub const MIN_HARD_SHARE: f64 = 0.5;

/// Why a texture is treated as pixel art; recorded in the texture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PixelArt {
    /// `pixel_art: true` says so.
    Set,
    /// A folder on the source's path is named for pixel art.
    Folder,
    /// The image looks drawn texel by texel.
    Looks {
        /// Its distinct colours.
        colours: usize,
        /// The share of differing neighbour pairs that are hard edges.
        hard_share: f64,
    },
}

impl std::fmt::Display for PixelArt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PixelArt::Set => f.write_str("texture.pixel_art is true"),
            PixelArt::Folder => f.write_str("its folder is named for pixel art"),
            PixelArt::Looks {
                colours,
                hard_share,
            } => write!(
                f,
                "{colours} colours, {:.0}% of its edges hard",
                hard_share * 100.0
            ),
        }
    }
}

/// Why the texture of `images` from `source` (its path below the input
/// folder) is pixel art under `setting`, or `None` when it is not: only
/// 8-bit colour textures can be.
pub fn settle(
    setting: Toggle,
    mode: TextureMode,
    images: &SourceImages,
    source: &str,
) -> Option<PixelArt> {
    let SourceImages::Ldr(images) = images else {
        return None;
    };
    if mode != TextureMode::Color {
        return None;
    }
    match setting {
        Toggle::Off => None,
        Toggle::On => Some(PixelArt::Set),
        Toggle::Auto if in_pixel_art_folder(Path::new(source)) => Some(PixelArt::Folder),
        Toggle::Auto => looks_like_pixel_art(images),
    }
}

/// Whether a folder of `path` (the source below the input folder) is named
/// for pixel art.
pub fn in_pixel_art_folder(path: &Path) -> bool {
    let folders = path.parent().into_iter().flat_map(Path::components);
    folders.into_iter().any(|folder| {
        let name = folder.as_os_str().to_string_lossy().to_ascii_lowercase();
        matches!(
            name.as_str(),
            "pixel" | "pixels" | "pixelart" | "pixel_art" | "pixel-art" | "8bit" | "16bit"
        )
    })
}

/// The evidence that `images` (the layers of one texture) are pixel art,
/// or `None` when any of them looks painted.
pub fn looks_like_pixel_art(images: &[Rgba8Image]) -> Option<PixelArt> {
    let mut colours = HashSet::new();
    let (mut hard, mut differing, mut visible, mut soft) = (0_u64, 0_u64, 0_u64, 0_u64);
    for image in images {
        if image.width.max(image.height) > MAX_SIDE {
            return None;
        }
        for texel in image.pixels.chunks_exact(4) {
            colours.insert(canonical(texel));
            if colours.len() > MAX_COLOURS {
                return None;
            }
            visible += u64::from(texel[3] != 0);
            soft += u64::from(texel[3] != 0 && texel[3] != 255);
        }
        let (h, d) = edge_counts(image);
        hard += h;
        differing += d;
    }
    let share = |part: u64, whole: u64| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    if share(soft, visible) > MAX_SOFT_ALPHA {
        return None;
    }
    let hard_share = if differing == 0 {
        1.0
    } else {
        share(hard, differing)
    };
    (hard_share >= MIN_HARD_SHARE).then_some(PixelArt::Looks {
        colours: colours.len(),
        hard_share,
    })
}

/// A texel as one colour, every fully transparent texel the same.
fn canonical(texel: &[u8]) -> [u8; 4] {
    if texel[3] == 0 {
        [0; 4]
    } else {
        [texel[0], texel[1], texel[2], texel[3]]
    }
}

/// The neighbour pairs (right and down) of `image` that differ by a hard
/// step, and those that differ at all.
fn edge_counts(image: &Rgba8Image) -> (u64, u64) {
    let (width, height) = (image.width as usize, image.height as usize);
    let texel = |x: usize, y: usize| canonical(&image.pixels[(y * width + x) * 4..][..4]);
    let (mut hard, mut differing) = (0, 0);
    for y in 0..height {
        for x in 0..width {
            let here = texel(x, y);
            let right = (x + 1 < width).then(|| texel(x + 1, y));
            let below = (y + 1 < height).then(|| texel(x, y + 1));
            for there in [right, below].into_iter().flatten() {
                let step = here
                    .iter()
                    .zip(&there)
                    .map(|(a, b)| a.abs_diff(*b))
                    .max()
                    .unwrap_or(0);
                differing += u64::from(step > 0);
                hard += u64::from(step >= HARD_STEP);
            }
        }
    }
    (hard, differing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(width: u32, height: u32, texel: impl Fn(u32, u32) -> [u8; 4]) -> Rgba8Image {
        let pixels = (0..width * height)
            .flat_map(|i| texel(i % width, i / width))
            .collect();
        Rgba8Image {
            width,
            height,
            pixels,
        }
    }

    /// A 16x16 sprite: a four-colour checker of 2x2 cells on transparency.
    fn sprite() -> Rgba8Image {
        const PALETTE: [[u8; 4]; 4] = [
            [0, 0, 0, 0],
            [200, 40, 40, 255],
            [40, 200, 60, 255],
            [250, 230, 90, 255],
        ];
        image(16, 16, |x, y| PALETTE[((x / 2 + y / 2 * 3) % 4) as usize])
    }

    #[test]
    fn a_small_palette_sprite_is_pixel_art() {
        match looks_like_pixel_art(&[sprite()]) {
            Some(PixelArt::Looks {
                colours,
                hard_share,
            }) => {
                assert_eq!(colours, 4);
                assert!(hard_share > 0.99, "{hard_share}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn gradients_and_noise_are_not() {
        let gradient = image(64, 64, |x, y| [(x * 4) as u8, (y * 4) as u8, 128, 255]);
        assert_eq!(looks_like_pixel_art(&[gradient]), None);
        // Few colours but soft steps: a 16-level ramp, one level apart.
        let ramp = image(16, 4, |x, _| [x as u8, x as u8, x as u8, 255]);
        assert_eq!(looks_like_pixel_art(&[ramp]), None);
        let large = image(MAX_SIDE + 1, 1, |_, _| [9, 9, 9, 255]);
        assert_eq!(looks_like_pixel_art(&[large]), None);
        // More than 64 colours, however hard the edges.
        let many = image(9, 9, |x, y| [(x * 30) as u8, (y * 30) as u8, 0, 255]);
        assert_eq!(looks_like_pixel_art(&[many]), None);
        // Hard edges and few colours, but soft alpha: a glow.
        let glow = image(8, 8, |x, _| [255, 255, 255, [40, 255][x as usize % 2]]);
        assert_eq!(looks_like_pixel_art(&[glow]), None);
    }

    #[test]
    fn transparent_texels_count_as_one_colour() {
        let hidden = image(16, 16, |x, y| [(x * 16) as u8, (y * 16) as u8, 7, 0]);
        assert!(looks_like_pixel_art(&[hidden]).is_some());
    }

    #[test]
    fn folders_named_for_pixel_art() {
        for path in ["pixel/hero.png", "art/Pixel-Art/hero.png", "ui/8bit/a.png"] {
            assert!(in_pixel_art_folder(Path::new(path)), "{path}");
        }
        for path in ["pixelated.png", "sprites/hero.png", "pixel.png"] {
            assert!(!in_pixel_art_folder(Path::new(path)), "{path}");
        }
    }
}
