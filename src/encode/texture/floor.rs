//! The quality floor, `texture.min_psnr`: a lossy encode reads its own level 0
//! back and, when any image of it falls below the floor, the texture is
//! encoded again one step finer.
//!
//! The steps are fixed, so the same source always ends at the same format:
//!
//! | written | next step |
//! |---------|-----------|
//! | ASTC with more than 36 texels a block (8x8 … 6x6 excluded) | ASTC 6x6 |
//! | ASTC 6x6, 6x5 | ASTC 5x5 |
//! | ASTC 5x5, 5x4 | ASTC 4x4 |
//! | BC1 | BC7 |
//! | ASTC 4x4, BC7, UASTC, BC4, BC5 | raw RGBA8 (lossless, Zstandard) |
//!
//! The PSNR is taken over R, G, B and A of every texel against the level the
//! encoder was given (after `max_size` and the green flip), with the decoders
//! the inspector uses ([`super::readback`]); the worst image of an array or
//! cube decides.

use super::readback::{ALL_CHANNELS, ImageIndex, decode_stored, psnr_of_channels};
use super::{BlockOptions, TextureMode, TextureOptions};
use crate::encode::image::Rgba8Image;
use crate::format::ktx2::{self, AstcBlock, TexelFormat};

/// Whether the floor applies to textures of `mode`: colour and linear RGBA
/// data, whose four channels the PSNR compares one to one (normal maps and
/// grayscale textures keep fewer channels than their sources).
pub fn applies_to(mode: TextureMode) -> bool {
    matches!(mode, TextureMode::Color | TextureMode::Linear)
}

/// The options one step finer than `options` (see the module table), or
/// `None` when `options` already write raw RGBA8 or a float format.
pub fn finer(options: &TextureOptions) -> Option<TextureOptions> {
    let raw = TextureOptions {
        uastc: None,
        blocks: None,
        ..*options
    };
    match (options.blocks, options.uastc) {
        (Some(blocks), _) => match finer_block(blocks.format) {
            Some(format) => Some(TextureOptions {
                blocks: Some(BlockOptions { format, ..blocks }),
                ..*options
            }),
            None if blocks.format.is_float() => None,
            None => Some(raw),
        },
        (None, Some(_)) => Some(raw),
        (None, None) => None,
    }
}

/// The block format one step finer than `format`, if it has one before raw.
fn finer_block(format: TexelFormat) -> Option<TexelFormat> {
    match format {
        TexelFormat::Bc1 { srgb } => Some(TexelFormat::Bc7 { srgb }),
        TexelFormat::Astc { block, srgb } => {
            let (width, height) = block.dimensions();
            let next = match width * height {
                37.. => AstcBlock::B6x6,
                26..=36 => AstcBlock::B5x5,
                17..=25 => AstcBlock::B4x4,
                _ => return None,
            };
            Some(TexelFormat::Astc { block: next, srgb })
        }
        _ => None,
    }
}

/// The worst PSNR, in dB, of level 0 of `file` (an uncompressed KTX2 of
/// `format` holding `sources.len()` images as layers or faces) against the
/// images it was encoded from; `Err` names what could not be read back.
pub fn worst_psnr(file: &[u8], sources: &[&Rgba8Image]) -> Result<f64, String> {
    let view = ktx2::parse(file).map_err(|e| e.to_string())?;
    let header = view.header();
    let faces = header.face_count.max(1);
    let mut worst = f64::INFINITY;
    for (index, source) in sources.iter().enumerate() {
        let index = index as u32;
        let at = ImageIndex {
            layer: index / faces,
            face: index % faces,
            ..ImageIndex::default()
        };
        let decoded = decode_stored(file, &view, at)?.to_display(0.0);
        let psnr = psnr_of_channels(&decoded, source, &ALL_CHANNELS)
            .ok_or("the read-back image does not match its source's size")?;
        worst = worst.min(psnr);
    }
    Ok(worst)
}

/// The format's name as a note names it: `rgba8` for raw texels.
pub fn written_name(options: &TextureOptions) -> &'static str {
    match (options.blocks, options.uastc) {
        (Some(blocks), _) => blocks.format.name(),
        (None, Some(_)) => "uastc",
        (None, None) => "rgba8",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::texture::Shape;
    use crate::encode::texture::hdr::HdrFormat;
    use crate::encode::uastc::UastcOptions;

    fn with_blocks(format: TexelFormat) -> TextureOptions {
        TextureOptions {
            mode: TextureMode::Color,
            uastc: None,
            blocks: Some(BlockOptions { format, quality: 2 }),
            zstd_level: 0,
            mips: true,
            max_size: 0,
            flip_green: false,
            hdr_format: HdrFormat::Rgba16f,
            min_psnr: Some(40.0),
            pixel_art: None,
        }
    }

    fn chain(start: TextureOptions) -> Vec<&'static str> {
        let mut names = vec![written_name(&start)];
        let mut at = start;
        while let Some(next) = finer(&at) {
            names.push(written_name(&next));
            at = next;
        }
        names
    }

    #[test]
    fn the_steps_end_at_raw_rgba8() {
        let astc = |block| TexelFormat::Astc { block, srgb: true };
        assert_eq!(
            chain(with_blocks(astc(AstcBlock::B8x8))),
            ["astc-8x8", "astc-6x6", "astc-5x5", "astc-4x4", "rgba8"]
        );
        assert_eq!(
            chain(with_blocks(astc(AstcBlock::B6x6))),
            ["astc-6x6", "astc-5x5", "astc-4x4", "rgba8"]
        );
        assert_eq!(
            chain(with_blocks(TexelFormat::Bc1 { srgb: true })),
            ["bc1", "bc7", "rgba8"]
        );
        let uastc = TextureOptions {
            blocks: None,
            uastc: Some(UastcOptions {
                quality: 2,
                rdo: None,
            }),
            ..with_blocks(TexelFormat::Bc7 { srgb: true })
        };
        assert_eq!(chain(uastc), ["uastc", "rgba8"]);
    }

    /// A 16x16 sprite of 32 saturated colours scattered texel by texel: no
    /// block format keeps it.
    fn pixel_art_sprite() -> Rgba8Image {
        let palette: Vec<[u8; 4]> = (0..32_u32)
            .map(|i| {
                let h = i.wrapping_mul(2_654_435_761);
                [(h >> 24) as u8, (h >> 16) as u8, (h >> 8) as u8, 255]
            })
            .collect();
        let pixels = (0..256_u32)
            .flat_map(|i| palette[(i.wrapping_mul(40_503) >> 7) as usize % 32])
            .collect();
        Rgba8Image {
            width: 16,
            height: 16,
            pixels,
        }
    }

    /// A smooth 32x32 picture, as a photograph is at this scale.
    fn smooth_picture() -> Rgba8Image {
        let pixels = (0..32 * 32_u32)
            .flat_map(|i| {
                let (x, y) = (i % 32, i / 32);
                [
                    (60 + x * 4) as u8,
                    (40 + y * 5) as u8,
                    (100 + x + y) as u8,
                    255,
                ]
            })
            .collect();
        Rgba8Image {
            width: 32,
            height: 32,
            pixels,
        }
    }

    fn encoded(image: &Rgba8Image, options: &TextureOptions) -> Vec<u8> {
        crate::encode::texture::encode_images(std::slice::from_ref(image), Shape::Plain, options)
            .unwrap()
    }

    fn choice(file: &[u8]) -> Option<String> {
        let view = ktx2::parse(file).unwrap();
        view.key_text(ktx2::CHOICE_KEY).map(str::to_owned)
    }

    fn format_of(file: &[u8]) -> Option<TexelFormat> {
        ktx2::parse(file).unwrap().texel_format()
    }

    #[test]
    fn the_floor_steps_up_on_pixel_art_and_not_on_a_smooth_picture() {
        let astc = TexelFormat::Astc {
            block: AstcBlock::B6x6,
            srgb: true,
        };
        for (start, written) in [(astc, "rgba8"), (TexelFormat::Bc1 { srgb: true }, "rgba8")] {
            let file = encoded(&pixel_art_sprite(), &with_blocks(start));
            assert_eq!(format_of(&file).map(TexelFormat::name), Some(written));
            let why = choice(&file).unwrap();
            assert!(why.contains(start.name()), "{why}");
            assert!(why.contains("below the 40 dB floor"), "{why}");
            // The same source gives the same bytes.
            assert!(file == encoded(&pixel_art_sprite(), &with_blocks(start)));
        }
        for start in [astc, TexelFormat::Bc7 { srgb: true }] {
            let file = encoded(&smooth_picture(), &with_blocks(start));
            assert_eq!(format_of(&file), Some(start));
            assert_eq!(choice(&file), None);
        }
        let off = TextureOptions {
            min_psnr: None,
            ..with_blocks(astc)
        };
        assert_eq!(format_of(&encoded(&pixel_art_sprite(), &off)), Some(astc));
    }

    #[test]
    fn a_lower_floor_stops_at_an_intermediate_step() {
        // ASTC 6x6 reads back lower than 4x4; a floor between them stops at
        // a finer ASTC rather than raw.
        let astc = |block| TexelFormat::Astc { block, srgb: true };
        let image = pixel_art_sprite();
        let psnr = |block| {
            let options = TextureOptions {
                min_psnr: None,
                zstd_level: 0,
                ..with_blocks(astc(block))
            };
            worst_psnr(&encoded(&image, &options), &[&image]).unwrap()
        };
        let (coarse, fine) = (psnr(AstcBlock::B6x6), psnr(AstcBlock::B4x4));
        assert!(coarse < fine, "{coarse} {fine}");
        let floor = ((coarse + fine) / 2.0) as f32;
        let options = TextureOptions {
            min_psnr: Some(floor),
            ..with_blocks(astc(AstcBlock::B6x6))
        };
        let file = encoded(&image, &options);
        let written = format_of(&file).unwrap();
        assert!(
            matches!(written, TexelFormat::Astc { block, .. } if block != AstcBlock::B6x6),
            "{}",
            written.name()
        );
        let why = choice(&file).unwrap();
        assert!(
            why.ends_with(" dB") && why.contains(&format!("{} at ", written.name())),
            "{why}"
        );
    }

    #[test]
    fn pixel_art_is_raw_without_mips_and_asks_for_nearest() {
        let options = TextureOptions {
            pixel_art: Some(crate::encode::texture::pixel_art::PixelArt::Set),
            ..with_blocks(TexelFormat::Bc7 { srgb: true })
        };
        let file = encoded(&pixel_art_sprite(), &options);
        let view = ktx2::parse(&file).unwrap();
        assert_eq!(format_of(&file).map(TexelFormat::name), Some("rgba8"));
        assert_eq!(view.levels().len(), 1);
        assert_eq!(view.key_value(ktx2::SAMPLER_KEY), Some(&b"nearest\0"[..]));
        assert!(choice(&file).unwrap().starts_with("pixel art"));
    }

    #[test]
    fn float_formats_have_no_step() {
        assert!(finer(&with_blocks(TexelFormat::Bc6h)).is_none());
        assert!(finer(&with_blocks(TexelFormat::Rgba16Float)).is_none());
    }
}
