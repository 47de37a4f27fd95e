//! Folder assets made of images: cube maps (`*.env/`) and texture arrays
//! (`*.array/`).
//!
//! A cube map folder holds exactly six faces named `px`, `nx`, `py`, `ny`,
//! `pz` and `nz` (+X, -X, +Y, -Y, +Z, -Z, the KTX 2.0 face order), each an
//! image of a kind a texture may be ([`IMAGE_EXTENSIONS`]); the faces are
//! square and of one size. A texture array folder holds one image per
//! layer, ordered naturally by file name (`layer2` before `layer10`), all of
//! one size.
//!
//! The images of one folder must agree on float versus not: all HDR/EXR
//! (the texture is float) or none. 8-bit and 16-bit images may mix; the
//! 8-bit ones are widened exactly (`v * 257`) and the folder takes the
//! 16-bit path.
//!
//! Hidden files (a leading `.`) and editor backups (a trailing `~`) are
//! skipped, as the scan does. Anything else that is not an image is an error
//! rather than silently dropped: a missing layer would shift every index after
//! it. The images become depfile inputs next to the folder (the edge's input),
//! so editing, adding or removing a file rebuilds the texture.

use std::cmp::Ordering;
use std::fs;
use std::path::{Path, PathBuf};

use super::image::{SourceHints, SourceImage, decode_source, widen_to_16_bits};
use super::job::EncodeError;
use super::texture::SourceImages;
use crate::fsutil::{self, FileError};

/// The cube map face names, in KTX 2.0 face order.
pub const FACE_NAMES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];

pub use super::limits::{MAX_LAYERS, MAX_TOTAL_PIXELS};

/// Image file extensions a folder asset may contain.
pub const IMAGE_EXTENSIONS: [&str; 11] = [
    "png", "jpg", "jpeg", "webp", "tga", "bmp", "tif", "tiff", "hdr", "exr", "svg",
];

/// The decoded images of a folder asset and every path it read.
#[derive(Debug)]
pub struct FolderImages {
    /// The images, in face or layer order, at one precision.
    pub images: SourceImages,
    /// The image files, for the depfile (which lists the folder itself as
    /// the edge's input, so adding or removing a file is seen too).
    pub inputs: Vec<PathBuf>,
}

/// Reads the six faces of a `*.env/` cube map folder; SVG faces are
/// rasterised with their larger side `svg_size` pixels (`None`: their own
/// size).
pub fn cube_faces(folder: &Path, svg_size: Option<u32>) -> Result<FolderImages, EncodeError> {
    let paths = cube_face_paths(folder)?;
    let images = decode_all(&paths, MAX_TOTAL_PIXELS, svg_size)?;
    check_square(&paths[0], images[0].size())?;
    check_same_size(&paths, &images)?;
    Ok(FolderImages {
        images: one_precision(&paths, images)?,
        inputs: paths,
    })
}

/// The six face files of a cube map folder, in [`FACE_NAMES`] order,
/// refusing a folder that misses or repeats a face or holds anything else.
pub fn cube_face_paths(folder: &Path) -> Result<Vec<PathBuf>, EncodeError> {
    let files = image_files(folder)?;
    let mut faces: [Option<PathBuf>; 6] = Default::default();
    for file in files {
        let stem = file_stem(&file).to_ascii_lowercase();
        let Some(slot) = FACE_NAMES.iter().position(|name| *name == stem) else {
            return Err(invalid(
                &file,
                format!("is not a cube map face: faces are named {}", face_list()),
            ));
        };
        if let Some(first) = faces[slot].replace(file.clone()) {
            return Err(invalid(
                &file,
                format!(
                    "repeats face {} (already {})",
                    FACE_NAMES[slot],
                    display_name(&first)
                ),
            ));
        }
    }
    FACE_NAMES
        .iter()
        .zip(faces)
        .map(|(face, path)| {
            path.ok_or_else(|| {
                invalid(
                    folder,
                    format!("face {face} is missing: a cube map needs {}", face_list()),
                )
            })
        })
        .collect()
}

/// Reads the layers of a `*.array/` texture array folder, in natural order
/// (SVG layers as in [`cube_faces`]).
pub fn array_layers(folder: &Path, svg_size: Option<u32>) -> Result<FolderImages, EncodeError> {
    let mut paths = image_files(folder)?;
    if paths.is_empty() {
        return Err(invalid(
            folder,
            format!(
                "holds no images: a texture array needs at least one layer ({})",
                extension_list()
            ),
        ));
    }
    if paths.len() > MAX_LAYERS {
        return Err(invalid(
            folder,
            format!(
                "holds {} images; a texture array may have at most {MAX_LAYERS} layers",
                paths.len()
            ),
        ));
    }
    paths.sort_by(|a, b| natural_order(&display_name(a), &display_name(b)));
    let images = decode_all(&paths, MAX_TOTAL_PIXELS, svg_size)?;
    check_same_size(&paths, &images)?;
    Ok(FolderImages {
        images: one_precision(&paths, images)?,
        inputs: paths,
    })
}

/// The images at one precision: all float, else 16-bit if any is (8-bit
/// ones widened exactly), else 8-bit. A folder mixing float and other
/// images is refused, naming the first image that differs from the first.
fn one_precision(paths: &[PathBuf], images: Vec<SourceImage>) -> Result<SourceImages, EncodeError> {
    let float = images[0].is_hdr();
    if let Some((path, _)) = paths
        .iter()
        .zip(&images)
        .find(|(_, image)| image.is_hdr() != float)
    {
        let (hdr, other) = if float {
            (&paths[0], path)
        } else {
            (path, &paths[0])
        };
        return Err(invalid(
            path,
            format!(
                "{} is a float (HDR) image and {} is not; the images of one folder asset \
                 must all be float or all not",
                display_name(hdr),
                display_name(other)
            ),
        ));
    }
    if float {
        let hdr = images.into_iter().filter_map(|image| match image {
            SourceImage::Hdr(image) => Some(image),
            _ => None,
        });
        return Ok(SourceImages::Hdr(hdr.collect()));
    }
    if images
        .iter()
        .all(|image| matches!(image, SourceImage::Ldr(_)))
    {
        let ldr = images.into_iter().filter_map(|image| match image {
            SourceImage::Ldr(image) => Some(image),
            _ => None,
        });
        return Ok(SourceImages::Ldr(ldr.collect()));
    }
    // Some image is 16-bit: widen the 8-bit ones in place, keeping the order.
    let deep = images.into_iter().filter_map(|image| match image {
        SourceImage::Ldr(image) => Some(widen_to_16_bits(&image)),
        SourceImage::Deep(image) => Some(image),
        SourceImage::Hdr(_) => None,
    });
    Ok(SourceImages::Deep(deep.collect()))
}

/// The folder's image files (unsorted), refusing anything else it holds.
fn image_files(folder: &Path) -> Result<Vec<PathBuf>, EncodeError> {
    let read_error = |source| FileError::Read {
        path: folder.to_owned(),
        source,
    };
    let mut files = Vec::new();
    for entry in fs::read_dir(folder).map_err(read_error)? {
        let path = entry.map_err(read_error)?.path();
        let name = display_name(&path);
        if name.starts_with('.') || name.ends_with('~') {
            continue;
        }
        if !path.is_file() || !is_image_name(&name) {
            return Err(invalid(
                &path,
                format!(
                    "is not an image: a folder asset may hold only {} files",
                    extension_list()
                ),
            ));
        }
        files.push(path);
    }
    Ok(files)
}

/// Whether a file name has an image extension (any case).
pub fn is_image_name(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(_, extension)| {
        IMAGE_EXTENSIONS
            .iter()
            .any(|known| extension.eq_ignore_ascii_case(known))
    })
}

/// Decodes every file, naming the one that fails or that takes the total
/// past `max_pixels` ([`MAX_TOTAL_PIXELS`] outside the tests).
fn decode_all(
    paths: &[PathBuf],
    max_pixels: u64,
    svg_size: Option<u32>,
) -> Result<Vec<SourceImage>, EncodeError> {
    let mut images = Vec::with_capacity(paths.len());
    let mut total = 0u64;
    for path in paths {
        let image = decode_image_file(path, svg_size)?;
        let (width, height) = image.size();
        total += u64::from(width) * u64::from(height);
        if total > max_pixels {
            return Err(invalid(
                path,
                format!(
                    "takes the folder's images past {max_pixels} pixels; \
                     use fewer or smaller images"
                ),
            ));
        }
        images.push(image);
    }
    Ok(images)
}

/// Reads and decodes the image file at `path` (SVG drawn with its larger
/// side `svg_size` pixels, `None`: its own size), naming the file when it
/// does not decode.
pub fn decode_image_file(path: &Path, svg_size: Option<u32>) -> Result<SourceImage, EncodeError> {
    let bytes = fsutil::read(path)?;
    let hints = SourceHints {
        extension: path.extension().and_then(|extension| extension.to_str()),
        svg_size,
    };
    decode_source(&bytes, &hints).map_err(|error| EncodeError::Invalid {
        path: path.to_owned(),
        what: "cannot decode image".into(),
        source: Some(Box::new(error)),
    })
}

/// Refuses a cube face of `(width, height)` that is not square.
pub fn check_square(path: &Path, (width, height): (u32, u32)) -> Result<(), EncodeError> {
    if width == height {
        return Ok(());
    }
    Err(invalid(
        path,
        format!("is {width}x{height}; cube map faces must be square"),
    ))
}

/// Refuses images whose size differs from the first one's.
fn check_same_size(paths: &[PathBuf], images: &[SourceImage]) -> Result<(), EncodeError> {
    for (path, image) in paths.iter().zip(images).skip(1) {
        check_size_matches(path, image.size(), &paths[0], images[0].size())?;
    }
    Ok(())
}

/// Refuses the image at `path` of `size` unless it is the size of the
/// folder's first image, `first` at `first_path`.
pub fn check_size_matches(
    path: &Path,
    (width, height): (u32, u32),
    first_path: &Path,
    first: (u32, u32),
) -> Result<(), EncodeError> {
    if (width, height) == first {
        return Ok(());
    }
    let (first_width, first_height) = first;
    Err(invalid(
        path,
        format!(
            "is {width}x{height} but {} is {first_width}x{first_height}; \
             every image of a folder asset must be the same size",
            display_name(first_path),
        ),
    ))
}

/// Compares file names the way people count: runs of digits by value, the
/// rest case-insensitively, with the exact bytes as the final tie-break so the
/// order is total and deterministic.
pub fn natural_order(a: &str, b: &str) -> Ordering {
    let (mut left, mut right) = (a.as_bytes(), b.as_bytes());
    loop {
        match (left.first(), right.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let (x_digits, x_rest) = split_digits(left);
                let (y_digits, y_rest) = split_digits(right);
                let order = compare_numbers(x_digits, y_digits);
                if order != Ordering::Equal {
                    return order;
                }
                (left, right) = (x_rest, y_rest);
            }
            (Some(x), Some(y)) => {
                let order = x.to_ascii_lowercase().cmp(&y.to_ascii_lowercase());
                if order != Ordering::Equal {
                    return order;
                }
                (left, right) = (&left[1..], &right[1..]);
            }
        }
    }
}

/// Splits a leading run of ASCII digits off `bytes`.
fn split_digits(bytes: &[u8]) -> (&[u8], &[u8]) {
    let end = bytes
        .iter()
        .position(|byte| !byte.is_ascii_digit())
        .unwrap_or(bytes.len());
    bytes.split_at(end)
}

/// Compares two digit runs by value, whatever their length (leading zeros
/// ignored), without parsing them into a fixed-size integer.
fn compare_numbers(x: &[u8], y: &[u8]) -> Ordering {
    let trim = |digits: &[u8]| -> usize { digits.iter().take_while(|&&d| d == b'0').count() };
    let (x, y) = (&x[trim(x)..], &y[trim(y)..]);
    x.len().cmp(&y.len()).then_with(|| x.cmp(y))
}

/// The file name of a path, lossily as text.
fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The file name without its last extension.
fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// "px, nx, py, ny, pz and nz" plus the accepted extensions.
fn face_list() -> String {
    format!("{} ({})", FACE_NAMES.join(", "), extension_list())
}

/// The image extensions a folder asset takes, as text: `.png, .jpg, …`.
pub fn extension_list() -> String {
    let dotted: Vec<String> = IMAGE_EXTENSIONS.iter().map(|e| format!(".{e}")).collect();
    dotted.join(", ")
}

/// An error about `path`.
pub fn invalid(path: &Path, what: String) -> EncodeError {
    EncodeError::Invalid {
        path: path.to_owned(),
        what,
        source: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::image::test_images::solid_png;

    fn folder(files: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            fs::write(dir.path().join(name), bytes).unwrap();
        }
        dir
    }

    /// The 8-bit images of a folder that must have decoded to 8 bits.
    fn ldr(images: &SourceImages) -> &[crate::encode::image::Rgba8Image] {
        match images {
            SourceImages::Ldr(images) => images,
            other => panic!("not 8-bit: {other:?}"),
        }
    }

    fn message(error: EncodeError) -> String {
        crate::encode::job::chained_message(&error)
    }

    fn six_faces(size: u32) -> Vec<(&'static str, Vec<u8>)> {
        FACE_NAMES
            .iter()
            .enumerate()
            .map(|(index, face)| {
                let name: &'static str = Box::leak(format!("{face}.png").into_boxed_str());
                (name, solid_png(size, size, [index as u8 * 40, 0, 0, 255]))
            })
            .collect()
    }

    #[test]
    fn faces_come_in_ktx_order_whatever_the_case() {
        let mut files = six_faces(4);
        files[3].0 = "NY.PNG";
        let dir = folder(&files);
        let faces = cube_faces(dir.path(), None).unwrap();
        let reds: Vec<u8> = ldr(&faces.images)
            .iter()
            .map(|image| image.pixels[0])
            .collect();
        assert_eq!(reds, [0, 40, 80, 120, 160, 200]);
        assert_eq!(faces.inputs.len(), 6);
        assert_eq!(faces.inputs[3], dir.path().join("NY.PNG"));
    }

    #[test]
    fn a_missing_face_is_named() {
        let mut files = six_faces(4);
        files.remove(4);
        let dir = folder(&files);
        let text = message(cube_faces(dir.path(), None).unwrap_err());
        assert!(text.contains("face pz is missing"), "{text}");
    }

    #[test]
    fn faces_must_be_square_and_equal() {
        let mut files = six_faces(4);
        files[0].1 = solid_png(4, 2, [0; 4]);
        let dir = folder(&files);
        let text = message(cube_faces(dir.path(), None).unwrap_err());
        assert!(
            text.contains("px.png: is 4x2; cube map faces must be square"),
            "{text}"
        );

        let mut files = six_faces(4);
        files[5].1 = solid_png(8, 8, [0; 4]);
        let dir = folder(&files);
        let text = message(cube_faces(dir.path(), None).unwrap_err());
        assert!(text.contains("nz.png: is 8x8 but px.png is 4x4"), "{text}");
    }

    #[test]
    fn stray_and_repeated_faces_are_refused() {
        let mut files = six_faces(2);
        files.push(("posx.png", solid_png(2, 2, [0; 4])));
        let text = message(cube_faces(folder(&files).path(), None).unwrap_err());
        assert!(text.contains("posx.png: is not a cube map face"), "{text}");

        let mut files = six_faces(2);
        files.push(("px.jpg", solid_png(2, 2, [0; 4])));
        let text = message(cube_faces(folder(&files).path(), None).unwrap_err());
        assert!(text.contains("repeats face px"), "{text}");

        let mut files = six_faces(2);
        files.push(("notes.txt", b"hello".to_vec()));
        let text = message(cube_faces(folder(&files).path(), None).unwrap_err());
        assert!(text.contains("notes.txt: is not an image"), "{text}");
    }

    #[test]
    fn hidden_files_and_backups_are_skipped() {
        let mut files = six_faces(2);
        files.push((".DS_Store", b"junk".to_vec()));
        files.push(("px.png~", b"junk".to_vec()));
        assert!(cube_faces(folder(&files).path(), None).is_ok());
    }

    #[test]
    fn a_corrupt_face_names_its_file() {
        let mut files = six_faces(2);
        files[2].1.truncate(20);
        let text = message(cube_faces(folder(&files).path(), None).unwrap_err());
        assert!(text.contains("py.png: cannot decode image"), "{text}");
    }

    #[test]
    fn layers_are_in_natural_order() {
        let files: Vec<(&str, Vec<u8>)> =
            [("layer10.png", 10), ("layer2.png", 2), ("Layer1.jpg", 1)]
                .into_iter()
                .map(|(name, red)| (name, solid_png(2, 2, [red, 0, 0, 255])))
                .collect();
        let dir = folder(&files);
        let layers = array_layers(dir.path(), None).unwrap();
        let reds: Vec<u8> = ldr(&layers.images)
            .iter()
            .map(|image| image.pixels[0])
            .collect();
        assert_eq!(reds, [1, 2, 10]);
    }

    #[test]
    fn array_faults_are_named() {
        let dir = folder(&[]);
        let text = message(array_layers(dir.path(), None).unwrap_err());
        assert!(text.contains("holds no images"), "{text}");

        let dir = folder(&[
            ("a.png", solid_png(2, 2, [0; 4])),
            ("b.png", solid_png(4, 2, [0; 4])),
        ]);
        let text = message(array_layers(dir.path(), None).unwrap_err());
        assert!(text.contains("b.png: is 4x2 but a.png is 2x2"), "{text}");
    }

    #[test]
    fn the_total_pixel_budget_names_the_file_that_breaks_it() {
        let dir = folder(&[
            ("a.png", solid_png(4, 4, [0; 4])),
            ("b.png", solid_png(4, 4, [0; 4])),
        ]);
        let paths = [dir.path().join("a.png"), dir.path().join("b.png")];
        assert_eq!(decode_all(&paths, 32, None).unwrap().len(), 2);
        let text = message(decode_all(&paths, 31, None).unwrap_err());
        assert!(
            text.contains("b.png: takes the folder's images past 31 pixels"),
            "{text}"
        );
    }

    #[test]
    fn natural_order_counts_digits_by_value() {
        let mut names = vec!["a10", "a2", "a02", "A1", "a1", "b", "a", "a0100", "a99"];
        names.sort_by(|x, y| natural_order(x, y));
        assert_eq!(
            names,
            ["a", "A1", "a1", "a02", "a2", "a10", "a99", "a0100", "b"]
        );
        let long = "9".repeat(40);
        assert_eq!(natural_order(&long, "1"), Ordering::Greater);
    }
}
