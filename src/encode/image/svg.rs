//! SVG sources, rasterised with `resvg` to 8-bit sRGB RGBA.
//!
//! The picture is drawn at the file's own size (its `width` and `height`,
//! or its `viewBox`, rounded up to whole pixels) or, with `texture.svg_size`,
//! scaled so its larger side is that many pixels. Text, embedded or linked
//! raster images and `.svgz` files are not read: assetc builds `resvg`
//! without fonts or image decoders, so an SVG reads nothing but itself and
//! renders the same on every machine. Convert text to paths before export.

use resvg::{tiny_skia, usvg};

use super::{
    ImageError, ImageFormat, MAX_DECODED_BYTES, Rgba8Image, check_backed_size, check_dimensions,
};

/// Rasterises an SVG file; `largest_side` scales it so its larger side is
/// that many pixels, `None` keeps its own size.
pub fn rasterise(bytes: &[u8], largest_side: Option<u32>) -> Result<Rgba8Image, ImageError> {
    let tree = usvg::Tree::from_data(bytes, &usvg::Options::default()).map_err(|error| {
        ImageError::Corrupt {
            format: ImageFormat::Svg,
            message: error.to_string(),
            offset: None,
        }
    })?;
    let own = tree.size();
    let (width, height) = raster_size(own.width(), own.height(), largest_side);
    check_dimensions(ImageFormat::Svg, width, height)?;
    let rgba_bytes = u64::from(width) * u64::from(height) * 4;
    // A vector file may ask for any size its numbers allow; only the total
    // bound applies, not the one against the file's length.
    check_backed_size(ImageFormat::Svg, (width, height), rgba_bytes, usize::MAX)?;
    debug_assert!(rgba_bytes <= MAX_DECODED_BYTES);
    let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or_else(|| ImageError::Corrupt {
        format: ImageFormat::Svg,
        message: format!("cannot make a {width}x{height} canvas"),
        offset: None,
    })?;
    let scale =
        tiny_skia::Transform::from_scale(width as f32 / own.width(), height as f32 / own.height());
    resvg::render(&tree, scale, &mut pixmap.as_mut());
    let mut pixels = pixmap.take();
    for texel in pixels.chunks_exact_mut(4) {
        let [r, g, b, a] = [texel[0], texel[1], texel[2], texel[3]];
        if let Some(colour) = tiny_skia::PremultipliedColorU8::from_rgba(r, g, b, a) {
            let straight = colour.demultiply();
            texel.copy_from_slice(&[
                straight.red(),
                straight.green(),
                straight.blue(),
                straight.alpha(),
            ]);
        }
    }
    Ok(Rgba8Image {
        width,
        height,
        pixels,
    })
}

/// The pixel size of a picture of `width` x `height` user units: its own
/// size rounded up, or scaled so the larger side is `largest_side`.
fn raster_size(width: f32, height: f32, largest_side: Option<u32>) -> (u32, u32) {
    let to_pixels = |value: f32| value.ceil().clamp(0.0, u32::MAX as f32) as u32;
    match largest_side {
        None => (to_pixels(width), to_pixels(height)),
        Some(side) => {
            let scale = side as f32 / width.max(height);
            let scaled = |value: f32| ((value * scale).round() as u32).clamp(1, side);
            (scaled(width), scaled(height))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_keep_the_aspect_ratio() {
        assert_eq!(raster_size(100.0, 50.0, None), (100, 50));
        assert_eq!(raster_size(10.2, 3.0, None), (11, 3));
        assert_eq!(raster_size(100.0, 50.0, Some(256)), (256, 128));
        assert_eq!(raster_size(30.0, 90.0, Some(64)), (21, 64));
        assert_eq!(raster_size(1000.0, 1.0, Some(16)), (16, 1));
    }
}
