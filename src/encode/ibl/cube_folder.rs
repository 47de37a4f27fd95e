//! Cube folders as IBL sources: the six float faces of a `*.ibl.env/`
//! folder (or of a `*.env/` folder an `ibl.panorama` rule marks), read as
//! an [`Environment::Cube`].
//!
//! The faces are found as a cube map texture's are ([`cube_face_paths`]:
//! `px`, `nx`, `py`, `ny`, `pz`, `nz`, one file each, nothing else) and are
//! oriented as [`super::cube`] says, the KTX2 convention a cube texture's
//! faces follow too. Unlike a texture's, they must be Radiance HDR or
//! OpenEXR files: lighting is computed from linear radiance, which 8- and
//! 16-bit images do not hold. Each face's size is read from its header and
//! checked (square, the first face's size, at most [`MAX_IBL_FACE_SIZE`])
//! before its texels are allocated; its texels are then checked as a
//! panorama's are, and its alpha dropped. Every error names the face file.

use std::path::{Path, PathBuf};

use super::cube::{FACES, Face};
use super::environment::Environment;
use super::{IblError, check_texels, declared_size, decode_float, float_format};
use crate::encode::folder::{check_size_matches, check_square, cube_face_paths};
use crate::encode::job::{self, EncodeError};
use crate::encode::limits::MAX_IBL_FACE_SIZE;

/// The faces' directions in file order, for messages.
const FACE_LABELS: [&str; FACES] = ["+X", "−X", "+Y", "−Y", "+Z", "−Z"];

/// A cube folder read as an environment.
#[derive(Debug)]
pub struct CubeFolder {
    /// The six faces.
    pub environment: Environment,
    /// The face files, for the depfile.
    pub inputs: Vec<PathBuf>,
}

/// Reads the six faces of the cube folder `folder`.
pub fn read_cube_folder(folder: &Path) -> Result<CubeFolder, EncodeError> {
    let paths = cube_face_paths(folder)?;
    let mut faces: Vec<Face> = Vec::with_capacity(FACES);
    for (index, path) in paths.iter().enumerate() {
        let first = faces.first().map(|face| (paths[0].as_path(), face.size));
        faces.push(read_face(path, index, first)?);
    }
    Ok(CubeFolder {
        environment: Environment::Cube(faces),
        inputs: paths,
    })
}

/// Reads face `index` from `path`; `first` is the first face's file and
/// size, which every later face must match.
fn read_face(
    path: &Path,
    index: usize,
    first: Option<(&Path, usize)>,
) -> Result<Face, EncodeError> {
    let bytes = job::read_source(path)?;
    let fail = |error| face_error(path, index, error);
    let extension = path.extension().and_then(|extension| extension.to_str());
    let format = float_format(&bytes, extension).map_err(fail)?;
    let declared = declared_size(format, &bytes).map_err(fail)?;
    check_face_size(path, index, declared, first)?;
    let image = decode_float(format, &bytes).map_err(fail)?;
    let size = u32::try_from(image.width).unwrap_or(u32::MAX);
    let height = u32::try_from(image.height).unwrap_or(u32::MAX);
    check_face_size(path, index, (size, height), first)?;
    check_texels(&image.texels, image.width).map_err(fail)?;
    Ok(Face {
        size: image.width,
        texels: image.texels,
    })
}

/// Refuses a face that is not square, not the first face's size, or
/// larger than [`MAX_IBL_FACE_SIZE`].
fn check_face_size(
    path: &Path,
    index: usize,
    size: (u32, u32),
    first: Option<(&Path, usize)>,
) -> Result<(), EncodeError> {
    check_square(path, size)?;
    if let Some((first_path, first_size)) = first {
        let side = u32::try_from(first_size).unwrap_or(u32::MAX);
        check_size_matches(path, size, first_path, (side, side))?;
    }
    if size.0 > MAX_IBL_FACE_SIZE {
        return Err(face_error(
            path,
            index,
            IblError::FaceTooLarge { size: size.0 },
        ));
    }
    Ok(())
}

/// `error` of face `index`, naming its file and direction.
fn face_error(path: &Path, index: usize, error: IblError) -> EncodeError {
    EncodeError::Invalid {
        path: path.to_owned(),
        what: format!(
            "cannot make image-based lighting from this cube face ({})",
            FACE_LABELS[index]
        ),
        source: Some(Box::new(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::folder::FACE_NAMES;
    use crate::encode::image::test_images::solid_png;
    use crate::encode::image::test_sources::{exr, radiance};
    use crate::encode::job::chained_message;

    /// A Radiance HDR face of `size²` texels of `value`.
    fn hdr_face(size: u32, value: f32) -> Vec<u8> {
        radiance(size, size, &vec![value; (size * size * 3) as usize])
    }

    /// A folder of six `size²` HDR faces, face `i` holding `i + 1`, with
    /// the faces `replace` names written instead (by file name).
    fn folder(size: u32, replace: Faces) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (index, face) in FACE_NAMES.iter().enumerate() {
            if !replace.iter().any(|(name, _)| name.starts_with(face)) {
                let path = dir.path().join(format!("{face}.hdr"));
                std::fs::write(path, hdr_face(size, index as f32 + 1.0)).unwrap();
            }
        }
        for (name, bytes) in replace {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        dir
    }

    /// Face files by name, written in place of the plain ones.
    type Faces<'a> = &'a [(&'a str, Vec<u8>)];

    /// The error reading `dir` gives, with its causes.
    fn refusal(dir: &tempfile::TempDir) -> String {
        chained_message(&read_cube_folder(dir.path()).unwrap_err())
    }

    /// An OpenEXR face of 2² texels of 1.0, texel (1, 0)'s red `value`.
    fn exr_face_with(value: f32) -> Vec<u8> {
        let mut samples = vec![1.0f32; 2 * 2 * 4];
        samples[4] = value;
        exr(2, 2, &samples)
    }

    #[test]
    fn six_float_faces_become_a_cube_in_face_order() {
        let dir = folder(4, &[]);
        let cube = read_cube_folder(dir.path()).unwrap();
        let Environment::Cube(faces) = &cube.environment else {
            panic!("not a cube: {:?}", cube.environment);
        };
        assert_eq!(faces.len(), FACES);
        for (index, face) in faces.iter().enumerate() {
            assert_eq!(face.size, 4);
            // 1 to 6 are exact in RGBE.
            assert_eq!(face.at(3, 2), [index as f32 + 1.0; 3], "face {index}");
        }
        let names: Vec<String> = cube
            .inputs
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["px.hdr", "nx.hdr", "py.hdr", "ny.hdr", "pz.hdr", "nz.hdr"]
        );
    }

    #[test]
    fn an_exr_face_is_read_as_the_same_radiance_without_its_alpha() {
        let mut samples = vec![0.0f32; 4 * 4 * 4];
        for texel in samples.chunks_exact_mut(4) {
            texel.copy_from_slice(&[3.0, 3.0, 3.0, 0.25]);
        }
        let dir = folder(4, &[("px.exr", exr(4, 4, &samples))]);
        let Environment::Cube(faces) = read_cube_folder(dir.path()).unwrap().environment else {
            panic!("not a cube");
        };
        assert_eq!(faces[0].at(1, 1), [3.0; 3]);
        assert_eq!(faces[1].at(1, 1), [2.0; 3]);
    }

    #[test]
    fn an_eight_or_sixteen_bit_face_is_refused_naming_it() {
        let dir = folder(4, &[("py.png", solid_png(4, 4, [9, 9, 9, 255]))]);
        let message = refusal(&dir);
        assert!(message.contains("py.png"), "{message}");
        assert!(message.contains("(+Y)"), "{message}");
        assert!(
            message.contains(
                "the file is a PNG image; image-based lighting needs linear HDR radiance"
            ),
            "{message}"
        );
    }

    #[test]
    fn a_negative_nan_or_infinite_texel_is_refused_naming_face_and_texel() {
        for (value, shown) in [(-1.0, "-1"), (f32::NAN, "NaN"), (f32::INFINITY, "inf")] {
            let dir = folder(2, &[("nz.exr", exr_face_with(value))]);
            let message = refusal(&dir);
            assert!(message.contains("nz.exr"), "{message}");
            assert!(message.contains("(−Z)"), "{message}");
            assert!(
                message.contains(&format!(
                    "texel (1, 0) holds {shown}, not a finite radiance"
                )),
                "{message}"
            );
        }
    }

    #[test]
    fn a_face_past_the_limit_is_refused_from_its_header() {
        // A header declaring 4096² texels and no pixel data: refused before
        // anything is decoded (decoding would fail on the missing data).
        let header = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4096 +X 4096\n".to_vec();
        let dir = folder(4, &[("px.hdr", header)]);
        let message = refusal(&dir);
        assert!(message.contains("px.hdr"), "{message}");
        assert!(
            message.contains("the face is 4096×4096; a cube folder's faces may be at most 2048"),
            "{message}"
        );
    }

    #[test]
    fn faces_of_the_wrong_shape_or_number_are_refused_naming_the_file() {
        let wide = radiance(4, 2, &[1.0; 4 * 2 * 3]);
        let cases: [(Faces, &str, &str); 4] = [
            (
                &[("px.hdr", wide)],
                "px.hdr",
                "is 4x2; cube map faces must be square",
            ),
            (
                &[("ny.hdr", hdr_face(8, 1.0))],
                "ny.hdr",
                "is 8x8 but px.hdr is 4x4",
            ),
            (&[("pz.hdr", Vec::new())], "pz.hdr", "the file is empty"),
            (
                &[("nx.hdr", b"not an image".to_vec())],
                "nx.hdr",
                "cannot decode the Radiance HDR image",
            ),
        ];
        for (replace, file, reason) in cases {
            let message = refusal(&folder(4, replace));
            assert!(
                message.contains(file) && message.contains(reason),
                "{file}: {message}"
            );
        }
        let dir = folder(4, &[]);
        std::fs::remove_file(dir.path().join("nz.hdr")).unwrap();
        let message = refusal(&dir);
        assert!(message.contains("face nz is missing"), "{message}");
    }
}
