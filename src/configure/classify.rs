//! Which sources assetc compiles, as what, and where their outputs go.
//!
//! Classification looks only at names: a file's suffixes, or a folder's suffix
//! for folder assets. The table below is the single place that maps a source to
//! its asset kind and runtime output paths; configure uses it to write the Ninja
//! edges and the encoders receive the outputs on their command line.
//!
//! | source                           | kind          | outputs               |
//! |----------------------------------|---------------|-----------------------|
//! | matches a `processors:` glob     | as declared   | the processor's naming |
//! | matches an `embed:` glob         | embed         | same path             |
//! | `*.n.png`, `*.n.jpg`             | normal map    | `*.n.ktx2`            |
//! | `*.ao.png`, `*.h.png`, `*.r.png` | grayscale     | `*.ao.ktx2` …         |
//! | `*.png`, `*.jpg`, `*.jpeg`       | colour        | `*.ktx2`              |
//! | `*.ktx2`                         | texture, passed through | `*.ktx2` (the same bytes) |
//! | `*.lut.cube`                     | 3D LUT        | `*.lut.ktx2`          |
//! | `*.env/` folder                  | cubemap       | `*.env.ktx2`          |
//! | `*.array/` folder                | texture array | `*.arr.ktx2`          |
//! | `*.n.array/`, `*.ao.array/` …    | texture array | `*.n.arr.ktx2` …      |
//! | `*.gltf`, `*.glb`, `*.obj`       | mesh          | `*.hmesh`, `*.hmat` (+ `*.hanim`, `*/tex_<i>.ktx2`) |
//! | `*.mat`                          | material      | `*.hmat`              |
//! | `*.ttf`, `*.otf`                 | font          | `*.hfont`, `*.font.ktx2` |
//! | `*.shader/` folder               | shader        | `*/<entry>.spv` (see below) |
//!
//! Suffixes compare case-insensitively; output names keep the source's case.
//!
//!
//! A font's atlas is `<stem>.font.ktx2`, not `<stem>.ktx2` as in the
//! reference tool: `ui/inter.ttf` and `ui/inter.png` would otherwise both
//! write `ui/inter.ktx2`, and the atlas's texture id (`ui/inter.font`) would
//! collide with the image's (`ui/inter`).
//!
//!
//! A shader folder's `.spv` files (one per entry point, in the folder named
//! without `.shader`) depend on what its sources contain, so configure cannot
//! list them: the edge declares only its fragment and manages the `.spv` files
//! itself (see `encode::shader::output`).

use crate::encode::texture::TextureMode;

/// What a source compiles as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// A single image in the given mode.
    Texture(TextureMode),
    /// A `.cube` 3D colour lookup table.
    Lut,
    /// A `*.env/` folder of six faces.
    Cubemap,
    /// A `*.array/` folder of equally sized layers, in the mode the folder's
    /// stem selects (`terrain.n.array/` holds normal maps).
    TextureArray(TextureMode),
    /// A glTF, GLB or OBJ model.
    Mesh,
    /// A standalone material description.
    Material,
    /// A TrueType or OpenType font.
    Font,
    /// A `*.shader/` folder of shader sources.
    Shader,
    /// A file copied verbatim.
    Embed,
    /// A file a user processor claims: the index in `Config::processors`.
    /// Its outputs come from the processor's naming, not from this table.
    Processor(usize),
}

impl SourceKind {
    /// The `assetc-encode` subcommand (and Ninja rule) for this kind.
    pub fn encoder(self) -> &'static str {
        match self {
            SourceKind::Texture(_) => "texture",
            SourceKind::Lut => "lut",
            SourceKind::Cubemap => "cubemap",
            SourceKind::TextureArray(_) => "array",
            SourceKind::Mesh => "mesh",
            SourceKind::Material => "material",
            SourceKind::Font => "font",
            SourceKind::Shader => "shader",
            SourceKind::Embed => "embed",
            SourceKind::Processor(_) => "process",
        }
    }
}

/// Folder suffixes that make a whole folder one asset (texture arrays are
/// matched separately, since their stem picks a mode).
const FOLDER_ASSETS: &[(&str, SourceKind)] = &[
    (".env", SourceKind::Cubemap),
    (".shader", SourceKind::Shader),
];

/// The folder suffix of texture arrays.
const ARRAY_SUFFIX: &str = ".array";

/// Image suffixes that select a texture mode, checked before plain images.
const TEXTURE_MODE_SUFFIXES: &[(&str, TextureMode)] = &[
    (".n", TextureMode::Normal),
    (".ao", TextureMode::Gray),
    (".h", TextureMode::Gray),
    (".r", TextureMode::Gray),
];

/// Image files: decoded and encoded, or (KTX2) checked and passed through.
const IMAGE_EXTENSIONS: &[&str] = &[".png", ".jpg", ".jpeg", ".ktx2"];

/// File suffixes of the non-image kinds.
const FILE_KINDS: &[(&str, SourceKind)] = &[
    (".lut.cube", SourceKind::Lut),
    (".gltf", SourceKind::Mesh),
    (".glb", SourceKind::Mesh),
    (".obj", SourceKind::Mesh),
    (".mat", SourceKind::Material),
    (".ttf", SourceKind::Font),
    (".otf", SourceKind::Font),
];

/// Classifies a folder by name; `None` means "walk into it".
pub fn classify_folder(rel: &str) -> Option<SourceKind> {
    if let Some(stem) = strip_suffix_any(rel, &[ARRAY_SUFFIX]) {
        return Some(SourceKind::TextureArray(texture_mode(stem)));
    }
    FOLDER_ASSETS
        .iter()
        .find(|(suffix, _)| ends_with_ignore_case(rel, suffix))
        .map(|(_, kind)| *kind)
}

/// Classifies a file by name; `None` means assetc does not compile it.
pub fn classify_file(rel: &str, embedded: bool) -> Option<SourceKind> {
    if embedded {
        return Some(SourceKind::Embed);
    }
    if let Some(stem) = strip_suffix_any(rel, IMAGE_EXTENSIONS) {
        return Some(SourceKind::Texture(texture_mode(stem)));
    }
    FILE_KINDS
        .iter()
        .find(|(suffix, _)| ends_with_ignore_case(rel, suffix))
        .map(|(_, kind)| *kind)
}

/// The texture mode a stem's last suffix selects (`rock.n` is a normal map).
fn texture_mode(stem: &str) -> TextureMode {
    TEXTURE_MODE_SUFFIXES
        .iter()
        .find(|(suffix, _)| ends_with_ignore_case(stem, suffix))
        .map_or(TextureMode::Color, |(_, mode)| *mode)
}

/// The runtime output paths (relative to the output folder) of a source.
pub fn outputs(kind: SourceKind, rel: &str) -> Vec<String> {
    match kind {
        SourceKind::Texture(_) => vec![replace_extension(rel, IMAGE_EXTENSIONS, ".ktx2")],
        SourceKind::Lut => vec![replace_extension(rel, &[".cube"], ".ktx2")],
        SourceKind::Cubemap => vec![format!("{rel}.ktx2")],
        SourceKind::TextureArray(_) => vec![replace_extension(rel, &[ARRAY_SUFFIX], ".arr.ktx2")],
        SourceKind::Mesh => vec![
            replace_extension(rel, MESH_EXTENSIONS, ".hmesh"),
            replace_extension(rel, MESH_EXTENSIONS, ".hmat"),
        ],
        SourceKind::Material => vec![replace_extension(rel, &[".mat"], ".hmat")],
        SourceKind::Font => vec![
            replace_extension(rel, FONT_EXTENSIONS, ".hfont"),
            replace_extension(rel, FONT_EXTENSIONS, ".font.ktx2"),
        ],
        // Known only to the edge once it has compiled the folder.
        SourceKind::Shader | SourceKind::Processor(_) => Vec::new(),
        SourceKind::Embed => vec![rel.to_string()],
    }
}

/// The font extensions, stripped to form a font source's output stem.
const FONT_EXTENSIONS: &[&str] = &[".ttf", ".otf"];

/// The mesh extensions, stripped to form a mesh source's output stem.
const MESH_EXTENSIONS: &[&str] = &[".gltf", ".glb", ".obj"];

/// The `.hanim` a skinned, animated mesh source also writes.
pub fn animation_output(rel: &str) -> String {
    replace_extension(rel, MESH_EXTENSIONS, ".hanim")
}

/// The KTX2 of image `index` of a mesh source: `models/chair.glb` writes its
/// images to `models/chair/tex_<index>.ktx2`.
pub fn mesh_texture_output(rel: &str, index: usize) -> String {
    replace_extension(rel, MESH_EXTENSIONS, &format!("/tex_{index}.ktx2"))
}

fn replace_extension(rel: &str, extensions: &[&str], new: &str) -> String {
    let stem = strip_suffix_any(rel, extensions).unwrap_or(rel);
    format!("{stem}{new}")
}

fn strip_suffix_any<'a>(name: &'a str, suffixes: &[&str]) -> Option<&'a str> {
    suffixes
        .iter()
        .find(|s| ends_with_ignore_case(name, s))
        .map(|s| &name[..name.len() - s.len()])
}

fn ends_with_ignore_case(name: &str, suffix: &str) -> bool {
    name.len() >= suffix.len()
        && name.is_char_boundary(name.len() - suffix.len())
        && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_suffixes_pick_the_mode() {
        let mode = |name| match classify_file(name, false) {
            Some(SourceKind::Texture(m)) => Some(m),
            _ => None,
        };
        assert_eq!(mode("a/rock.png"), Some(TextureMode::Color));
        assert_eq!(mode("a/rock.n.png"), Some(TextureMode::Normal));
        assert_eq!(mode("a/rock.N.PNG"), Some(TextureMode::Normal));
        assert_eq!(mode("rock.ao.jpg"), Some(TextureMode::Gray));
        assert_eq!(mode("rock.h.png"), Some(TextureMode::Gray));
        assert_eq!(mode("rock.r.jpeg"), Some(TextureMode::Gray));
        assert_eq!(mode("rockn.png"), Some(TextureMode::Color));
        assert_eq!(mode("notes.txt"), None);
    }

    #[test]
    fn every_reference_pattern_is_classified() {
        assert_eq!(classify_file("g.lut.cube", false), Some(SourceKind::Lut));
        assert_eq!(classify_file("m/chair.glb", false), Some(SourceKind::Mesh));
        assert_eq!(classify_file("m/chair.gltf", false), Some(SourceKind::Mesh));
        assert_eq!(classify_file("m/chair.OBJ", false), Some(SourceKind::Mesh));
        assert_eq!(classify_file("wood.mat", false), Some(SourceKind::Material));
        assert_eq!(classify_file("f/a.ttf", false), Some(SourceKind::Font));
        assert_eq!(classify_file("x.png", true), Some(SourceKind::Embed));
        assert_eq!(classify_folder("sky.env"), Some(SourceKind::Cubemap));
        let array = |mode| Some(SourceKind::TextureArray(mode));
        assert_eq!(classify_folder("t.array"), array(TextureMode::Color));
        assert_eq!(classify_folder("t.n.array"), array(TextureMode::Normal));
        assert_eq!(classify_folder("t.AO.Array"), array(TextureMode::Gray));
        assert_eq!(classify_folder("s/pbr.shader"), Some(SourceKind::Shader));
        assert_eq!(classify_folder("textures"), None);
    }

    #[test]
    fn outputs_follow_the_reference_names() {
        let t = SourceKind::Texture(TextureMode::Color);
        assert_eq!(outputs(t, "ui/Logo.PNG"), ["ui/Logo.ktx2"]);
        assert_eq!(outputs(t, "rock.n.png"), ["rock.n.ktx2"]);
        assert_eq!(outputs(SourceKind::Lut, "g.lut.cube"), ["g.lut.ktx2"]);
        assert_eq!(outputs(SourceKind::Cubemap, "sky.env"), ["sky.env.ktx2"]);
        let array = SourceKind::TextureArray(TextureMode::Normal);
        assert_eq!(outputs(array, "t.n.array"), ["t.n.arr.ktx2"]);
        assert_eq!(
            outputs(SourceKind::Mesh, "m/chair.glb"),
            ["m/chair.hmesh", "m/chair.hmat"]
        );
        assert_eq!(animation_output("m/Fox.GLTF"), "m/Fox.hanim");
        assert_eq!(mesh_texture_output("m/chair.glb", 3), "m/chair/tex_3.ktx2");
        assert_eq!(outputs(SourceKind::Embed, "d/x.json"), ["d/x.json"]);
    }

    #[test]
    fn a_font_writes_its_glyph_table_and_an_atlas_beside_any_image() {
        assert_eq!(
            outputs(SourceKind::Font, "ui/Inter.TTF"),
            ["ui/Inter.hfont", "ui/Inter.font.ktx2"]
        );
        assert_eq!(classify_file("ui/x.OTF", false), Some(SourceKind::Font));
        let image = outputs(SourceKind::Texture(TextureMode::Color), "ui/inter.png");
        let font = outputs(SourceKind::Font, "ui/inter.ttf");
        assert!(font.iter().all(|out| !image.contains(out)));
    }
}
