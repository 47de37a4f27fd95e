//! KTX2 textures for the page: every image (level, layer, face, slice) as
//! an RGBA8 PNG URL, decoded by [`crate::encode::texture::readback`], the
//! code the encoder's quality floor reads its own output back with.

use serde_json::{Value, json};

use crate::encode::image::Rgba8Image;
use crate::encode::texture::readback::{ImageIndex, is_hdr, level_size, shown_format};
use crate::format::ktx2::Ktx2View;

/// The page's view of a texture: its shape, encoding and every image's URL.
/// `source`, `psnr`, `psnr_reference` and `psnr_note` are the caller's (it
/// knows where sources live).
/// Fails for a format the viewer cannot show. (The KTX2 reader has checked
/// that every level holds exactly the bytes the header's size needs, so the
/// image list is as long as the file is large.)
pub fn texture_json(path: &str, view: &Ktx2View<'_>) -> Result<Value, String> {
    shown_format(view)?;
    let header = view.header();
    let levels = header.stored_level_count();
    let (layers, faces) = (header.layer_count.max(1), header.face_count.max(1));
    let mut images = Vec::new();
    for level in 0..levels {
        let (width, height, depth) = level_size(view, level);
        for layer in 0..layers {
            for face in 0..faces {
                for slice in 0..depth {
                    let at = ImageIndex {
                        level,
                        layer,
                        face,
                        slice,
                    };
                    images.push(json!({
                        "level": level, "layer": layer, "face": face, "slice": slice,
                        "width": width, "height": height, "url": image_url(path, at),
                    }));
                }
            }
        }
    }
    let kind = match (header.face_count, header.layer_count, header.pixel_depth) {
        (6, _, _) => "cube",
        (_, layers, _) if layers > 0 => "array",
        (_, _, depth) if depth > 0 => "3d",
        _ => "2d",
    };
    Ok(json!({
        "path": path,
        "kind": kind,
        "swizzle": swizzle_of(view).unwrap_or_else(|| "rgba".into()),
        "hdr": is_hdr(view),
        "images": images,
        "source": Value::Null,
        "psnr": Value::Null,
        "psnr_reference": Value::Null,
        "psnr_note": Value::Null,
    }))
}

/// The texture's `KTXswizzle`, if it has one.
pub fn swizzle_of(view: &Ktx2View<'_>) -> Option<String> {
    view.key_value("KTXswizzle").map(|value| {
        String::from_utf8_lossy(value)
            .trim_end_matches('\0')
            .to_owned()
    })
}

/// Where the page fetches one image as PNG.
pub fn image_url(path: &str, at: ImageIndex) -> String {
    let encoded: String =
        percent_encoding::utf8_percent_encode(path, percent_encoding::NON_ALPHANUMERIC).to_string();
    format!(
        "/api/texture/image?path={encoded}&level={}&layer={}&face={}&slice={}",
        at.level, at.layer, at.face, at.slice
    )
}

/// The image as PNG bytes.
pub fn png_bytes(image: &Rgba8Image) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer
        .write_image_data(&image.pixels)
        .map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}
