//! A texture's source image, found through the build's fragments, and the
//! PSNR of the texture against it; the same fragments name a sound's source
//! ([`Sources::file_source`]).
//!
//! The fragment of the edge that wrote `a/b.ktx2` is `frag/a/b.<ext>.frag`
//! for an image source and `frag/a/b.<gltf|glb|obj>.tex_<n>.frag` for image
//! `n` of a mesh source; it is found by listing `frag/a/` and confirmed by
//! its `file` record, and its `source` record names the source. A glTF
//! image is read with the mesh encoder's own loader (buffer view, data URI
//! or file), an OBJ texture through its material libraries.
//!
//! The texture's level 0 is compared with the source as the encoder saw it:
//! when `max_size` dropped the top levels, the source is first reduced with
//! the encoder's own mip filter ([`crate::encode::mips::mip_levels`]) to the
//! texture's size. How to filter follows the mode, read back from the
//! texture (sRGB is colour, a `rg01` or `ra01` swizzle a normal map, `r001`
//! gray, anything else linear), and only the channels the swizzle keeps are
//! compared. A 16-bit source is compared at 8 bits (rounded as the encoder
//! rounds it for an 8-bit format, or by its top byte, as the viewer shows a
//! 16-bit texture); float sources are not compared. A DirectX normal map, whose green the encoder flipped, is not
//! told apart from an OpenGL one (the output does not record it), so its
//! PSNR is that of the unflipped source.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::texture::swizzle_of;
use crate::encode::image::{
    Rgba8Image, RgbaImage, SourceHints, SourceImage, decode_source, round_to_8_bits,
};
use crate::encode::mesh::gltf as gltf_source;
use crate::encode::mesh::obj as obj_source;
use crate::encode::mesh::scene::ImageSource;
use crate::encode::mips::{Sample, level_size, mip_level_count, mip_levels};
use crate::encode::texture::readback::{ALL_CHANNELS, ImageIndex, decode, psnr_of_channels};
use crate::encode::texture_mode::TextureMode;
use crate::format::ktx2::{DFD_TRANSFER_SRGB, Ktx2View, TexelFormat};
use crate::fragment::Fragment;

/// Where the sources of an output folder are, for comparing textures with
/// them: the project's input folder and its build folder's fragments.
#[derive(Debug, Clone)]
pub struct Sources {
    /// The input folder (`assets/`).
    pub input: PathBuf,
    /// The preset's build folder (`.assetc/<preset>`).
    pub build: PathBuf,
}

/// The source of one output texture: its path below the input folder and,
/// for a mesh source, which of its images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureSource {
    /// The source file, relative to the input folder.
    pub source: String,
    /// The image of a mesh source (`tex_<n>`), `None` for an image source.
    pub image: Option<usize>,
}

impl TextureSource {
    /// The source as the page names it: `models/crate.gltf image 1`.
    pub fn label(&self) -> String {
        match self.image {
            Some(index) => format!("{} image {index}", self.source),
            None => self.source.clone(),
        }
    }
}

impl Sources {
    /// The source the build's fragments say wrote the texture `path`.
    pub fn texture_source(&self, path: &str) -> Option<TextureSource> {
        let stem = path.strip_suffix(".ktx2")?;
        let (folder, name) = match stem.rsplit_once('/') {
            Some((folder, name)) => (folder, name),
            None => ("", stem),
        };
        self.image_source(path, folder, name)
            .or_else(|| self.mesh_image_source(path, folder, name))
    }

    /// `frag/<folder>/<name>.<ext>.frag` that wrote `path`.
    fn image_source(&self, path: &str, folder: &str, name: &str) -> Option<TextureSource> {
        self.named_source(path, folder, name)
            .map(|source| TextureSource {
                source,
                image: None,
            })
    }

    /// The source of the output `path` (`a/b.<suffix>`) that a fragment
    /// named after it, `frag/a/b.<ext>.frag`, records writing: how a
    /// sound's record and sound file find the sound they were made from.
    pub fn file_source(&self, path: &str) -> Option<String> {
        let (folder, file) = match path.rsplit_once('/') {
            Some((folder, file)) => (folder, file),
            None => ("", path),
        };
        let name = file.rsplit_once('.').map_or(file, |(name, _)| name);
        self.named_source(path, folder, name)
    }

    /// The source of the fragment `frag/<folder>/<name>.<ext>.frag` that
    /// wrote `path`.
    fn named_source(&self, path: &str, folder: &str, name: &str) -> Option<String> {
        let prefix = format!("{name}.");
        self.fragments_in(folder)
            .filter(|file| {
                file.strip_prefix(&prefix)
                    .and_then(|rest| rest.strip_suffix(".frag"))
                    .is_some_and(|extension| !extension.contains('.'))
            })
            .find_map(|file| self.wrote(folder, &file, path))
    }

    /// `frag/<parent>/<mesh>.<ext>.tex_<n>.frag` that wrote `path`, for
    /// `path` = `<parent>/<mesh>/tex_<n>.ktx2`.
    fn mesh_image_source(&self, path: &str, folder: &str, name: &str) -> Option<TextureSource> {
        let index: usize = name.strip_prefix("tex_")?.parse().ok()?;
        let (parent, mesh) = match folder.rsplit_once('/') {
            Some((parent, mesh)) => (parent, mesh),
            None => ("", folder),
        };
        let (prefix, suffix) = (format!("{mesh}."), format!(".{name}.frag"));
        self.fragments_in(parent)
            .filter(|file| {
                file.strip_prefix(&prefix)
                    .and_then(|rest| rest.strip_suffix(&suffix))
                    .is_some_and(|extension| !extension.contains('.'))
            })
            .find_map(|file| self.wrote(parent, &file, path))
            .map(|source| TextureSource {
                source,
                image: Some(index),
            })
    }

    /// The file names of `frag/<folder>/`.
    fn fragments_in(&self, folder: &str) -> impl Iterator<Item = String> {
        std::fs::read_dir(self.build.join("frag").join(folder))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|entry| entry.file_name().into_string().ok())
    }

    /// The source of fragment `frag/<folder>/<file>` when it records writing
    /// `path`.
    fn wrote(&self, folder: &str, file: &str, path: &str) -> Option<String> {
        let fragment = Fragment::read(&self.build.join("frag").join(folder).join(file)).ok()?;
        fragment
            .files
            .iter()
            .any(|written| written == path)
            .then_some(fragment.source)
    }

    /// The source image of `found`, decoded.
    fn load(&self, found: &TextureSource) -> Result<SourceImage, String> {
        let file = self.input.join(&found.source);
        let bytes = match found.image {
            None => read(&file)?,
            Some(index) if obj_source::is_obj(&found.source) => {
                let textures =
                    obj_source::obj_textures(&file, &self.input).map_err(|e| e.to_string())?;
                let used = textures
                    .textures
                    .iter()
                    .find(|used| used.index == index)
                    .ok_or_else(|| format!("its materials use no texture {index}"))?;
                match &used.source {
                    ImageSource::File(image) => read(image)?,
                    ImageSource::Embedded => return Err("the texture is not a file".into()),
                }
            }
            Some(index) => {
                let gltf = gltf_source::parse_document(&read(&file)?).map_err(|e| e.to_string())?;
                gltf_source::image_bytes(&gltf, index, &file, &self.input)
                    .map_err(|e| e.to_string())?
                    .0
            }
        };
        let hints = SourceHints {
            extension: Path::new(&found.source)
                .extension()
                .and_then(|e| e.to_str())
                .filter(|_| found.image.is_none()),
            svg_size: None,
        };
        decode_source(&bytes, &hints).map_err(|e| e.to_string())
    }

    /// The comparison of the texture `path` (`file`, parsed as `view`) with
    /// its source: `source`, `psnr` and `psnr_reference` (what level 0 was
    /// compared with), or `psnr_note` saying why there is no PSNR. `None`
    /// when no fragment names a source for it.
    pub fn compare(&self, path: &str, file: &[u8], view: &Ktx2View<'_>) -> Option<Value> {
        let found = self.texture_source(path)?;
        let mut answer = json!({
            "source": found.label(),
            "psnr": Value::Null,
            "psnr_reference": Value::Null,
            "psnr_note": Value::Null,
        });
        match self.measure(&found, file, view) {
            Ok((psnr, reference)) => {
                answer["psnr"] = psnr.into();
                answer["psnr_reference"] = reference;
            }
            Err(note) => answer["psnr_note"] = note.into(),
        }
        Some(answer)
    }

    /// The PSNR of level 0 against the source reduced as the encoder did,
    /// and a description of that reference; or why it cannot be measured.
    fn measure(
        &self,
        found: &TextureSource,
        file: &[u8],
        view: &Ktx2View<'_>,
    ) -> Result<(f64, Value), String> {
        if view.header().face_count > 1 || view.header().layer_count > 0 {
            return Err("cube maps and arrays are not compared".into());
        }
        let image = self
            .load(found)
            .map_err(|why| format!("{}: {why}", found.label()))?;
        let decoded = decode(file, view, ImageIndex::default(), 0.0)?;
        let mode = mode_of(view);
        let reference = reference_of(&image, view, mode, decoded.width, decoded.height)?;
        let (source_width, source_height) = image.size();
        let pairs = compared_channels(view);
        let psnr = psnr_of_channels(&decoded, &reference, pairs)
            .ok_or("the decoded texture and its reference differ in size")?;
        Ok((
            psnr,
            json!({
                "width": reference.width,
                "height": reference.height,
                "source_width": source_width,
                "source_height": source_height,
                "resized": (source_width, source_height) != (reference.width, reference.height),
                "filter": filter_name(mode),
                "channels": channel_names(pairs),
            }),
        ))
    }
}

/// Reads a source file, the error naming it.
fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The mode the encoder used, read back from the texture: sRGB is colour,
/// the normal-map swizzles (`rg01`, and `ra01` for ASTC) a normal map,
/// `r001` gray, anything else linear.
pub fn mode_of(view: &Ktx2View<'_>) -> TextureMode {
    if view.transfer_function() == Some(DFD_TRANSFER_SRGB) {
        return TextureMode::Color;
    }
    match swizzle_of(view).as_deref() {
        Some("rg01" | "ra01") => TextureMode::Normal,
        Some("r001") => TextureMode::Gray,
        _ => TextureMode::Linear,
    }
}

/// The `(texture channel, source channel)` pairs worth comparing: those the
/// swizzle keeps (R and G of a normal map, which ASTC stores in R and A; R
/// of a gray texture), or all four.
pub fn compared_channels(view: &Ktx2View<'_>) -> &'static [(usize, usize)] {
    match swizzle_of(view).as_deref() {
        Some("rg01") => &[(0, 0), (1, 1)],
        Some("ra01") => &[(0, 0), (3, 1)],
        Some("r001") => &[(0, 0)],
        _ => &ALL_CHANNELS,
    }
}

/// The channel pairs as the page names them: `RGBA`, `RG`, `R`.
fn channel_names(pairs: &[(usize, usize)]) -> String {
    pairs
        .iter()
        .map(|&(_, source)| ['R', 'G', 'B', 'A'][source])
        .collect()
}

/// How the encoder's mip filter treats `mode`, for the page.
fn filter_name(mode: TextureMode) -> &'static str {
    match mode {
        TextureMode::Color => "the area filter in linear light, weighted by alpha",
        TextureMode::Normal => "the area filter on unit normals, renormalised",
        TextureMode::Gray | TextureMode::Linear => "the area filter, channels averaged linearly",
    }
}

/// The source as level 0 of the texture `view` should show it, at 8 bits:
/// reduced to `width` x `height` for `mode` (see [`reduced`]). A 16-bit
/// source is rounded to 8 bits first, as the encoder does, unless the
/// texture keeps 16 bits; then it is reduced at 16 bits and shown by its
/// top byte, as the viewer shows the texture. Float sources are not
/// compared.
fn reference_of(
    image: &SourceImage,
    view: &Ktx2View<'_>,
    mode: TextureMode,
    width: u32,
    height: u32,
) -> Result<Rgba8Image, String> {
    let keeps_16_bits = matches!(
        view.texel_format(),
        Some(TexelFormat::R16Unorm | TexelFormat::Rg16Unorm | TexelFormat::Rgba16Unorm)
    );
    match image {
        SourceImage::Ldr(image) => reduced(image, mode, width, height),
        SourceImage::Deep(image) if keeps_16_bits => {
            let deep = reduced(image, mode, width, height)?;
            Ok(Rgba8Image {
                width: deep.width,
                height: deep.height,
                pixels: deep.pixels.iter().map(|&v| (v >> 8) as u8).collect(),
            })
        }
        SourceImage::Deep(image) => reduced(&round_to_8_bits(image), mode, width, height),
        SourceImage::Hdr(_) => Err("the source holds floats (HDR), which are not compared".into()),
    }
}

/// `image` as the encoder made the base of a `width` x `height` texture:
/// itself when the sizes match, else the mip level of that size, filtered
/// for `mode` by the encoder's own filter; an error when no level of its
/// chain has that size.
pub fn reduced<T: Sample>(
    image: &RgbaImage<T>,
    mode: TextureMode,
    width: u32,
    height: u32,
) -> Result<RgbaImage<T>, String> {
    let levels = mip_level_count(image.width, image.height);
    let level = (0..levels)
        .find(|&level| level_size(image.width, image.height, level) == (width, height))
        .ok_or_else(|| {
            format!(
                "the source is {}x{} and the texture {width}x{height}, which is none of its mip levels",
                image.width, image.height
            )
        })?;
    mip_levels(image, mode, level..level + 1)
        .pop()
        .ok_or_else(|| "the filter gave no level".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `width` x `height` opaque picture with a gradient in every channel.
    fn picture(width: u32, height: u32) -> Rgba8Image {
        let pixels = (0..width * height)
            .flat_map(|i| {
                let (x, y) = (i % width, i / width);
                [(x * 7) as u8, (y * 5) as u8, ((x + y) * 3) as u8, 255]
            })
            .collect();
        Rgba8Image {
            width,
            height,
            pixels,
        }
    }

    #[test]
    fn a_reduced_source_is_the_encoders_mip_level_of_that_size() {
        let source = picture(32, 16);
        let half = reduced(&source, TextureMode::Color, 8, 4).unwrap();
        assert_eq!((half.width, half.height), (8, 4));
        let by_encoder = mip_levels(&source, TextureMode::Color, 2..3);
        assert_eq!(half, by_encoder[0]);
        assert_eq!(
            reduced(&source, TextureMode::Linear, 32, 16).unwrap(),
            source
        );
        let error = reduced(&source, TextureMode::Color, 10, 5).unwrap_err();
        assert!(error.contains("32x16") && error.contains("10x5"), "{error}");
    }

    #[test]
    fn only_the_kept_channels_count() {
        let source = picture(4, 4);
        let mut decoded = source.clone();
        for texel in decoded.pixels.chunks_exact_mut(4) {
            texel[2] = 0; // a BC5 normal map decodes with B = 0
        }
        let rg = psnr_of_channels(&decoded, &source, &[(0, 0), (1, 1)]);
        assert_eq!(rg, Some(crate::encode::texture::readback::IDENTICAL_PSNR));
        let all = psnr_of_channels(&decoded, &source, &ALL_CHANNELS).unwrap();
        assert!(all < 40.0, "{all}");
        assert_eq!(channel_names(&[(0, 0), (3, 1)]), "RG");
    }

    #[test]
    fn a_16_bit_source_is_compared_at_8_bits() {
        let samples: Vec<u16> = (0..16 * 4).map(|i| (i * 1000 + 130) as u16).collect();
        let deep = SourceImage::Deep(RgbaImage {
            width: 4,
            height: 4,
            pixels: samples.clone(),
        });
        let sixteen: Vec<u8> = samples.iter().flat_map(|v| v.to_le_bytes()).collect();
        let file =
            crate::format::ktx2::write_single_level(TexelFormat::Rgba16Unorm, 4, 4, &sixteen);
        let view = crate::format::ktx2::parse(&file).unwrap();
        let kept = reference_of(&deep, &view, TextureMode::Linear, 4, 4).unwrap();
        let top: Vec<u8> = samples.iter().map(|&v| (v >> 8) as u8).collect();
        assert_eq!(kept.pixels, top);
        let eight = vec![0_u8; 4 * 4 * 4];
        let file = crate::format::ktx2::write_single_level(
            TexelFormat::Rgba8 { srgb: false },
            4,
            4,
            &eight,
        );
        let view = crate::format::ktx2::parse(&file).unwrap();
        let rounded = reference_of(&deep, &view, TextureMode::Linear, 4, 4).unwrap();
        let SourceImage::Deep(image) = &deep else {
            unreachable!()
        };
        assert_eq!(rounded, round_to_8_bits(image));
        assert_ne!(
            rounded.pixels, top,
            "rounding differs from the top byte here"
        );
    }

    /// A build folder with one fragment, and a source beside it.
    fn sources_with(fragment: &str, text: &str) -> (tempfile::TempDir, Sources) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("build/frag").join(fragment);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        let sources = Sources {
            input: dir.path().join("assets"),
            build: dir.path().join("build"),
        };
        (dir, sources)
    }

    #[test]
    fn the_fragment_names_the_source_of_an_image_and_of_a_mesh_texture() {
        let (_dir, sources) = sources_with(
            "textures/rock.tga.frag",
            "assetc-fragment 1\nsource textures/rock.tga\nfile textures/rock.ktx2\n",
        );
        assert_eq!(
            sources.texture_source("textures/rock.ktx2"),
            Some(TextureSource {
                source: "textures/rock.tga".into(),
                image: None
            })
        );
        assert_eq!(sources.texture_source("textures/other.ktx2"), None);
        let (_dir, sources) = sources_with(
            "models/crate.glb.tex_2.frag",
            "assetc-fragment 1\nsource models/crate.glb\nfile models/crate/tex_2.ktx2\n",
        );
        let found = sources.texture_source("models/crate/tex_2.ktx2").unwrap();
        assert_eq!(found.label(), "models/crate.glb image 2");
        // A fragment that does not record the file is not its source.
        assert_eq!(sources.texture_source("models/crate/tex_1.ktx2"), None);
    }

    #[test]
    fn a_sounds_record_and_file_name_their_source() {
        let (_dir, sources) = sources_with(
            "sfx/step.v2.flac.frag",
            "assetc-fragment 1\nsource sfx/step.v2.flac\nfile sfx/step.v2.qoa\nfile sfx/step.v2.hsnd\n",
        );
        for written in ["sfx/step.v2.hsnd", "sfx/step.v2.qoa"] {
            assert_eq!(
                sources.file_source(written).as_deref(),
                Some("sfx/step.v2.flac")
            );
        }
        assert_eq!(sources.file_source("sfx/step.v2.wav"), None);
        assert_eq!(sources.file_source("step.v2.hsnd"), None);
    }
}
