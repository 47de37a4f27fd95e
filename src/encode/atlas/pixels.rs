//! The texel work of an atlas: trimming a sprite to its visible texels,
//! and copying it onto a page, turned if the packer turned it, with its
//! edge repeated around it.

use crate::encode::image::Rgba8Image;

/// The part of a sprite that is kept: `x`, `y`, `w`, `h` in the sprite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crop {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width (0 for a sprite with no visible texel).
    pub w: u32,
    /// Height (0 for a sprite with no visible texel).
    pub h: u32,
}

/// The smallest rect holding every texel whose alpha is not 0; all zeros
/// when there is none.
pub fn visible_rect(image: &Rgba8Image) -> Crop {
    let width = image.width as usize;
    let visible = |x: usize, y: usize| image.pixels[(y * width + x) * 4 + 3] != 0;
    let (mut left, mut top, mut right, mut bottom) = (usize::MAX, usize::MAX, 0, 0);
    for y in 0..image.height as usize {
        for x in 0..width {
            if visible(x, y) {
                left = left.min(x);
                right = right.max(x + 1);
                top = top.min(y);
                bottom = bottom.max(y + 1);
            }
        }
    }
    if right == 0 {
        return Crop {
            x: 0,
            y: 0,
            w: 0,
            h: 0,
        };
    }
    Crop {
        x: left as u32,
        y: top as u32,
        w: (right - left) as u32,
        h: (bottom - top) as u32,
    }
}

/// The whole of `image`.
pub fn whole(image: &Rgba8Image) -> Crop {
    Crop {
        x: 0,
        y: 0,
        w: image.width,
        h: image.height,
    }
}

/// Where and how a sprite goes on a page.
#[derive(Debug, Clone, Copy)]
pub struct Blit {
    /// The part of the sprite to copy.
    pub crop: Crop,
    /// Left edge of the stored content on the page.
    pub x: u32,
    /// Top edge of the stored content on the page.
    pub y: u32,
    /// Store it turned 90° clockwise.
    pub rotated: bool,
    /// Texels of edge to repeat on every side.
    pub extrude: u32,
}

/// Copies `blit.crop` of `sprite` onto `page`, turned if asked, and fills
/// `extrude` texels around it with the nearest edge texel. The caller has
/// placed the extruded rect inside the page.
pub fn blit(page: &mut Rgba8Image, sprite: &Rgba8Image, blit: &Blit) {
    let Crop { x: cx, y: cy, w, h } = blit.crop;
    if w == 0 || h == 0 {
        return;
    }
    let (stored_w, stored_h) = if blit.rotated { (h, w) } else { (w, h) };
    let e = i64::from(blit.extrude);
    for dy in -e..i64::from(stored_h) + e {
        for dx in -e..i64::from(stored_w) + e {
            let sx = dx.clamp(0, i64::from(stored_w) - 1) as u32;
            let sy = dy.clamp(0, i64::from(stored_h) - 1) as u32;
            // A texel at (sx, sy) of the turned content is texel
            // (sy, h - 1 - sx) of the content as drawn.
            let (ux, uy) = if blit.rotated {
                (sy, h - 1 - sx)
            } else {
                (sx, sy)
            };
            let from = (((cy + uy) * sprite.width + cx + ux) * 4) as usize;
            let px = (i64::from(blit.x) + dx) as u32;
            let py = (i64::from(blit.y) + dy) as u32;
            let to = ((py * page.width + px) * 4) as usize;
            page.pixels[to..to + 4].copy_from_slice(&sprite.pixels[from..from + 4]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `width` x `height` image whose texel (x, y) is `[x, y, 7, alpha]`
    /// with alpha 255 inside `visible` and 0 outside.
    fn image(width: u32, height: u32, visible: Crop) -> Rgba8Image {
        let mut pixels = Vec::new();
        for y in 0..height {
            for x in 0..width {
                let inside = (visible.x..visible.x + visible.w).contains(&x)
                    && (visible.y..visible.y + visible.h).contains(&y);
                pixels.extend([x as u8, y as u8, 7, if inside { 255 } else { 0 }]);
            }
        }
        Rgba8Image {
            width,
            height,
            pixels,
        }
    }

    fn texel(image: &Rgba8Image, x: u32, y: u32) -> [u8; 4] {
        let at = ((y * image.width + x) * 4) as usize;
        image.pixels[at..at + 4].try_into().unwrap()
    }

    #[test]
    fn trimming_finds_the_visible_texels() {
        let rect = Crop {
            x: 2,
            y: 1,
            w: 3,
            h: 4,
        };
        assert_eq!(visible_rect(&image(8, 6, rect)), rect);
        let none = Crop {
            x: 0,
            y: 0,
            w: 0,
            h: 0,
        };
        assert_eq!(visible_rect(&image(4, 4, none)), none);
        assert_eq!(
            whole(&image(4, 3, none)),
            Crop {
                x: 0,
                y: 0,
                w: 4,
                h: 3
            }
        );
    }

    #[test]
    fn a_blit_copies_the_crop_and_repeats_its_edge() {
        let crop = Crop {
            x: 2,
            y: 1,
            w: 3,
            h: 2,
        };
        let sprite = image(6, 4, crop);
        let mut page = Rgba8Image {
            width: 10,
            height: 8,
            pixels: vec![0; 320],
        };
        blit(
            &mut page,
            &sprite,
            &Blit {
                crop,
                x: 4,
                y: 3,
                rotated: false,
                extrude: 1,
            },
        );
        assert_eq!(texel(&page, 4, 3), [2, 1, 7, 255]);
        assert_eq!(texel(&page, 6, 4), [4, 2, 7, 255]);
        // The extrusion repeats the nearest edge texel, corners included.
        assert_eq!(texel(&page, 3, 2), [2, 1, 7, 255]);
        assert_eq!(texel(&page, 7, 5), [4, 2, 7, 255]);
        assert_eq!(texel(&page, 5, 5), [3, 2, 7, 255]);
        assert_eq!(texel(&page, 2, 3), [0; 4], "outside the extrusion");
        assert_eq!(texel(&page, 8, 4), [0; 4]);
    }

    #[test]
    fn a_turned_blit_is_a_clockwise_quarter_turn() {
        let crop = Crop {
            x: 0,
            y: 0,
            w: 3,
            h: 2,
        };
        let sprite = image(3, 2, crop);
        let mut page = Rgba8Image {
            width: 4,
            height: 4,
            pixels: vec![0; 64],
        };
        blit(
            &mut page,
            &sprite,
            &Blit {
                crop,
                x: 0,
                y: 0,
                rotated: true,
                extrude: 0,
            },
        );
        // Clockwise: the bottom-left texel (0, 1) becomes the top-left one,
        // and the top-left texel (0, 0) the top-right one.
        assert_eq!(texel(&page, 0, 0), [0, 1, 7, 255]);
        assert_eq!(texel(&page, 1, 0), [0, 0, 7, 255]);
        assert_eq!(texel(&page, 1, 2), [2, 0, 7, 255]);
        assert_eq!(texel(&page, 2, 0), [0; 4]);
    }
}
