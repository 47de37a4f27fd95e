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
//! | `*_normal.png`, `*_ao.png` …     | by the suffix table below | `*_normal.ktx2` … |
//! | `*.png`, `*.jpg`, `*.jpeg`, `*.webp`, `*.tga`, `*.bmp`, `*.tif`, `*.tiff`, `*.svg` | colour | `*.ktx2` |
//! | `*.hdr`, `*.exr`                 | colour, linear float | `*.ktx2`       |
//! | `*.ibl.hdr`, `*.ibl.exr`         | not a texture ([`IBL_SUFFIXES`]) | — |
//! | `*.ibl.env/` folder              | not a cube map texture | — |
//! | `*.ktx2`                         | texture, passed through | `*.ktx2` (the same bytes) |
//! | `*.lut.cube`                     | 3D LUT        | `*.lut.ktx2`          |
//! | `*.ibl.hdr`, `*.ibl.exr`, a `*.ibl.env/` folder, or a `.hdr`, `.exr` or `*.env/` an `ibl.panorama` rule marks | image-based lighting | `*.radiance.ktx2`, `*.specular.ktx2` (+ `*.irradiance.ktx2`) |
//! | (any IBL source in the project)  | BRDF lookup table | `brdf_lut.ktx2`    |
//! | `*.env/` folder (not `*.ibl.env/`) | cubemap     | `*.env.ktx2`          |
//! | `*.array/` folder                | texture array | `*.arr.ktx2`          |
//! | `*.n.array/`, `*.ao.array/` …    | texture array | `*.n.arr.ktx2` …      |
//! | `*.atlas/` folder, or the images a rule sends to `atlas: NAME` | sprite atlas | `*.atlas.ktx2`, `*.hatlas` |
//! | `*.gltf`, `*.glb`, `*.obj`       | mesh          | `*.hmesh`, `*.hmat` (+ `*.hanim`, `*/tex_<i>.ktx2`) |
//! | `*.mat`                          | material      | `*.hmat`              |
//! | `*.ttf`, `*.otf`                 | font          | `*.hfont`, `*.font.ktx2` |
//! | `*.fnt` (BMFont, with its pages) | bitmap font   | `*.hfont`, `*.font.ktx2` |
//! | `*.wav`, `*.aif`, `*.aiff`, `*.flac`, `*.ogg`, `*.oga`, `*.opus`, `*.mp3`, `*.qoa` | audio | `*.wav`, `*.qoa`, `*.ogg` or `*.opus` (by `audio.format`) |
//! | `*.shader/` folder               | shader        | `*/<entry>.spv` (see below) |
//!
//! Suffixes compare case-insensitively; output names keep the source's case.
//!
//! An image's mode comes from the last part of its stem (the name before the
//! extension), after a `_`, `-` or `.`: [`CONVENTION_SUFFIXES`] are the names
//! painting tools and engines write (`rock_Normal.png`, `rock-ao.png`,
//! `rock_NormalDX.png`, whose green channel is flipped), `assetc.yml` adds to
//! them (`texture.suffixes`) or turns them off (`texture.builtin_suffixes`),
//! and a rule's `texture.mode` overrides any name ([`texture_choice`]).
//! assetc's own `.n`, `.ao`, `.h` and `.r` (after a `.` only) always apply.
//! The longest matching suffix wins, and on a tie `assetc.yml`'s own entry.
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

use crate::config::{AudioCodec, ModeSetting, TextureSettings};
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
    /// A sprite atlas: a `*.atlas/` folder's images, or those a rule sends
    /// to `atlas: NAME` (the source is then `NAME.atlas`), in the mode the
    /// name selects.
    Atlas(TextureMode),
    /// A glTF, GLB or OBJ model.
    Mesh,
    /// A standalone material description.
    Material,
    /// A TrueType or OpenType font.
    Font,
    /// A BMFont `.fnt` bitmap font and its page images.
    BitmapFont,
    /// A sound (WAV, AIFF, FLAC, Ogg Vorbis or Opus, MP3, QOA).
    Audio,
    /// A `*.shader/` folder of shader sources.
    Shader,
    /// A file copied verbatim.
    Embed,
    /// An HDR environment for image-based lighting: an equirectangular
    /// panorama, or a cube folder of six float faces.
    Ibl,
    /// The project's split-sum BRDF lookup table (no source file).
    BrdfLut,
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
            SourceKind::Atlas(_) => "atlas",
            SourceKind::Mesh => "mesh",
            SourceKind::Material => "material",
            SourceKind::Font => "font",
            SourceKind::BitmapFont => "bitmap-font",
            SourceKind::Audio => "audio",
            SourceKind::Shader => "shader",
            SourceKind::Embed => "embed",
            SourceKind::Processor(_) => "process",
            SourceKind::Ibl => "ibl",
            SourceKind::BrdfLut => "brdf-lut",
        }
    }
}

/// Folder suffixes that make a whole folder one asset (texture arrays are
/// matched separately, since their stem picks a mode).
const FOLDER_ASSETS: &[(&str, SourceKind)] = &[
    (IBL_FOLDER_SUFFIX, SourceKind::Ibl),
    (CUBE_FOLDER_SUFFIX, SourceKind::Cubemap),
    (".shader", SourceKind::Shader),
];

/// The folder suffix of cube maps: a cube texture, or an IBL source when an
/// `ibl.panorama` rule marks it.
const CUBE_FOLDER_SUFFIX: &str = ".env";

/// The folder suffix of cube folders that are always IBL sources (checked
/// before [`CUBE_FOLDER_SUFFIX`], which it ends with).
const IBL_FOLDER_SUFFIX: &str = ".ibl.env";

/// The folder suffix of texture arrays.
const ARRAY_SUFFIX: &str = ".array";

/// The folder suffix of sprite atlases (and of a rule atlas's source name).
pub const ATLAS_SUFFIX: &str = ".atlas";

/// assetc's own name suffixes: always on, and only after a `.` (`rock.n.png`).
const DOTTED_SUFFIXES: &[(&str, ModeSetting)] = &[
    ("n", ModeSetting::Normal),
    ("ao", ModeSetting::Gray),
    ("h", ModeSetting::Gray),
    ("r", ModeSetting::Gray),
];

/// The suffixes painting tools and engines write (Substance, ambientCG, Poly
/// Haven, Unreal and Unity conventions), lowercase, matched after a `_`, `-`
/// or `.`; on unless `texture.builtin_suffixes` is `false`.
pub const CONVENTION_SUFFIXES: &[(&str, ModeSetting)] = &[
    ("n", ModeSetting::Normal),
    ("nrm", ModeSetting::Normal),
    ("nor", ModeSetting::Normal),
    ("normal", ModeSetting::Normal),
    ("normalgl", ModeSetting::Normal),
    ("normal_gl", ModeSetting::Normal),
    ("nor_gl", ModeSetting::Normal),
    ("normaldx", ModeSetting::NormalDx),
    ("normal_dx", ModeSetting::NormalDx),
    ("nor_dx", ModeSetting::NormalDx),
    ("ao", ModeSetting::Gray),
    ("occlusion", ModeSetting::Gray),
    ("ambientocclusion", ModeSetting::Gray),
    ("rough", ModeSetting::Gray),
    ("roughness", ModeSetting::Gray),
    ("metal", ModeSetting::Gray),
    ("metallic", ModeSetting::Gray),
    ("metalness", ModeSetting::Gray),
    ("height", ModeSetting::Gray),
    ("disp", ModeSetting::Gray),
    ("displacement", ModeSetting::Gray),
    ("h", ModeSetting::Gray),
    ("mask", ModeSetting::Gray),
    ("orm", ModeSetting::Linear),
    ("arm", ModeSetting::Linear),
    ("occlusionroughnessmetallic", ModeSetting::Linear),
];

/// The separators a suffix may follow: any for table entries, `.` for
/// [`DOTTED_SUFFIXES`].
const SEPARATORS: &[char] = &['_', '-', '.'];

/// Image files: decoded and encoded, or (KTX2) checked and passed through.
/// The float kinds (`.hdr`, `.exr`) are linear colour; the name rules pick
/// a data mode for them as for any image.
const IMAGE_EXTENSIONS: &[&str] = &[
    ".png", ".jpg", ".jpeg", ".webp", ".tga", ".bmp", ".tif", ".tiff", ".hdr", ".exr", ".svg",
    ".gif", ".ktx2",
];

/// The name suffixes that make a file an IBL panorama whatever the rules
/// say; they are never textures.
pub const IBL_SUFFIXES: &[&str] = &[".ibl.hdr", ".ibl.exr"];

/// File suffixes of the non-image kinds.
const FILE_KINDS: &[(&str, SourceKind)] = &[
    (".lut.cube", SourceKind::Lut),
    (".gltf", SourceKind::Mesh),
    (".glb", SourceKind::Mesh),
    (".obj", SourceKind::Mesh),
    (".mat", SourceKind::Material),
    (".ttf", SourceKind::Font),
    (".otf", SourceKind::Font),
    (".fnt", SourceKind::BitmapFont),
];

/// Sound files: decoded, processed and written as 16-bit PCM WAV.
const AUDIO_EXTENSIONS: &[&str] = &[
    ".wav", ".aif", ".aiff", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".qoa",
];

/// Classifies a folder by name; `None` means "walk into it".
pub fn classify_folder(rel: &str) -> Option<SourceKind> {
    if let Some(stem) = strip_suffix_any(rel, &[ARRAY_SUFFIX]) {
        return Some(SourceKind::TextureArray(texture_mode(stem)));
    }
    if let Some(stem) = strip_suffix_any(rel, &[ATLAS_SUFFIX]) {
        return Some(SourceKind::Atlas(texture_mode(stem)));
    }
    FOLDER_ASSETS
        .iter()
        .find(|(suffix, _)| ends_with_ignore_case(rel, suffix))
        .map(|(_, kind)| *kind)
}

/// Panorama extensions an `ibl.panorama` rule can mark as IBL sources.
const PANORAMA_EXTENSIONS: &[&str] = &[".hdr", ".exr"];

/// The runtime path of the project's BRDF lookup table.
pub const BRDF_LUT_OUTPUT: &str = "brdf_lut.ktx2";

/// Whether a scanned source of `kind` at `rel` becomes an IBL source when
/// an `ibl.panorama: true` rule matches it: a `.hdr` or `.exr` image, or a
/// `*.env/` cube folder.
pub fn is_ibl_markable(kind: SourceKind, rel: &str) -> bool {
    match kind {
        SourceKind::Cubemap => true,
        SourceKind::Texture(_) => strip_suffix_any(rel, PANORAMA_EXTENSIONS).is_some(),
        _ => false,
    }
}

/// Whether the IBL source `rel` is a cube folder (`*.env/`) rather than a
/// panorama file: its encoder then reads six face files, which its
/// depfile names.
pub fn is_cube_folder(rel: &str) -> bool {
    ends_with_ignore_case(rel, CUBE_FOLDER_SUFFIX)
}

/// Classifies a file by name; `None` means assetc does not compile it.
pub fn classify_file(rel: &str, embedded: bool) -> Option<SourceKind> {
    if embedded {
        return Some(SourceKind::Embed);
    }
    if strip_suffix_any(rel, IBL_SUFFIXES).is_some() {
        return Some(SourceKind::Ibl);
    }
    if let Some(stem) = strip_suffix_any(rel, IMAGE_EXTENSIONS) {
        return Some(SourceKind::Texture(texture_mode(stem)));
    }
    if strip_suffix_any(rel, AUDIO_EXTENSIONS).is_some() {
        return Some(SourceKind::Audio);
    }
    FILE_KINDS
        .iter()
        .find(|(suffix, _)| ends_with_ignore_case(rel, suffix))
        .map(|(_, kind)| *kind)
}

/// The texture mode a stem selects under the built-in tables alone (the scan
/// knows no settings; configure settles each source with [`settle_texture`]).
fn texture_mode(stem: &str) -> TextureMode {
    texture_choice(stem, &TextureSettings::default()).texture_mode()
}

/// What decided a texture's mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChoiceReason {
    /// A rule's (or a preset's, or `default:`'s) `texture.mode`.
    Rule,
    /// The end of the file name, as written there (`_Normal`).
    Suffix(String),
    /// Nothing: a name without a known suffix is colour.
    Unnamed,
}

/// How a texture source is read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureChoice {
    /// The mode; never [`ModeSetting::Auto`].
    pub mode: ModeSetting,
    /// What decided it.
    pub reason: ChoiceReason,
}

impl TextureChoice {
    /// The encoder's mode.
    pub fn texture_mode(&self) -> TextureMode {
        match self.mode {
            ModeSetting::Color | ModeSetting::Auto => TextureMode::Color,
            ModeSetting::Normal | ModeSetting::NormalDx => TextureMode::Normal,
            ModeSetting::Gray => TextureMode::Gray,
            ModeSetting::Linear => TextureMode::Linear,
        }
    }

    /// Whether the encoder flips the green channel (a DirectX normal map).
    pub fn flips_green(&self) -> bool {
        self.mode == ModeSetting::NormalDx
    }

    /// What decided the mode, for messages.
    fn reason_text(&self) -> String {
        match &self.reason {
            ChoiceReason::Rule => format!("`texture.mode: {}` in assetc.yml", self.mode.name()),
            ChoiceReason::Suffix(written) => format!("its name's `{written}`"),
            ChoiceReason::Unnamed => "its name".into(),
        }
    }
}

/// How the image with `stem` (its path without the extension, or a texture
/// array folder's without `.array`) is read under `texture`: a forced
/// `mode`, else the longest suffix of `texture.suffixes`, the convention
/// table (unless turned off) and the dotted suffixes (`.n`, `.ao`, `.h`,
/// `.r`), else colour.
pub fn texture_choice(stem: &str, texture: &TextureSettings) -> TextureChoice {
    if texture.mode != ModeSetting::Auto {
        return TextureChoice {
            mode: texture.mode,
            reason: ChoiceReason::Rule,
        };
    }
    let conventions: &[(&str, ModeSetting)] = if texture.builtin_suffixes {
        CONVENTION_SUFFIXES
    } else {
        &[]
    };
    let user = &texture.suffixes.0;
    let tables = user
        .iter()
        .map(|(suffix, mode)| (suffix.as_str(), *mode, SEPARATORS))
        .chain(conventions.iter().map(|(s, m)| (*s, *m, SEPARATORS)))
        .chain(DOTTED_SUFFIXES.iter().map(|(s, m)| (*s, *m, &['.'][..])));
    let mut best: Option<(usize, ModeSetting)> = None;
    for (suffix, mode, separators) in tables {
        let Some(length) = suffix_match(stem, suffix, separators) else {
            continue;
        };
        if best.is_none_or(|(longest, _)| length > longest) {
            best = Some((length, mode));
        }
    }
    match best {
        Some((length, mode)) => TextureChoice {
            mode,
            reason: ChoiceReason::Suffix(stem[stem.len() - length..].to_string()),
        },
        None => TextureChoice {
            mode: ModeSetting::Color,
            reason: ChoiceReason::Unnamed,
        },
    }
}

/// The length of `separator + suffix` when `stem`'s file name ends with
/// them after at least one other character.
fn suffix_match(stem: &str, suffix: &str, separators: &[char]) -> Option<usize> {
    let name = stem.rsplit('/').next().unwrap_or(stem);
    let rest = strip_suffix_any(name, &[suffix])?;
    let before = rest.strip_suffix(separators)?;
    (!before.is_empty()).then_some(suffix.len() + 1)
}

/// A scanned source's kind once its settings are known: a texture's or
/// texture array's mode by [`texture_choice`], and the extra encoder flags
/// it needs (`--flip-green`). Other kinds are returned unchanged.
pub fn settle_texture(
    kind: SourceKind,
    rel: &str,
    texture: &TextureSettings,
) -> (SourceKind, Vec<String>) {
    let suffixes: &[&str] = match kind {
        SourceKind::Texture(_) => IMAGE_EXTENSIONS,
        SourceKind::TextureArray(_) => &[ARRAY_SUFFIX],
        SourceKind::Atlas(_) => &[ATLAS_SUFFIX],
        _ => return (kind, Vec::new()),
    };
    let Some(stem) = strip_suffix_any(rel, suffixes) else {
        return (kind, Vec::new());
    };
    let choice = texture_choice(stem, texture);
    let mode = choice.texture_mode();
    let flags = if choice.flips_green() {
        vec!["--flip-green".to_string()]
    } else {
        Vec::new()
    };
    let settled = match kind {
        SourceKind::TextureArray(_) => SourceKind::TextureArray(mode),
        SourceKind::Atlas(_) => SourceKind::Atlas(mode),
        _ => SourceKind::Texture(mode),
    };
    (settled, flags)
}

/// The warning for an image file that a mesh source's material slot reads in
/// `slot` mode while its own name or rule says the opposite about colour
/// (data named as colour by a rule or suffix, or colour named as data). The
/// slot wins: the mesh's texture edge encodes the image in the slot's mode.
/// A name without a known suffix says nothing, so it never disagrees.
pub fn slot_disagreement(
    image: &str,
    texture: &TextureSettings,
    mesh: &str,
    slot: TextureMode,
) -> Option<String> {
    let stem = strip_suffix_any(image, IMAGE_EXTENSIONS)?;
    let choice = texture_choice(stem, texture);
    let named_colour = choice.texture_mode().is_srgb();
    if choice.reason == ChoiceReason::Unnamed || named_colour == slot.is_srgb() {
        return None;
    }
    Some(format!(
        "{mesh}: its material reads {image} as {}, but {} makes it {}; the material slot wins: \
         it is encoded as {} for this mesh (rename the file, or set `texture.mode` in a rule, \
         to make them agree)",
        slot_text(slot),
        choice.reason_text(),
        mode_text(choice.mode),
        mode_text_of(slot),
    ))
}

/// A material slot's use of an image, for messages.
fn slot_text(slot: TextureMode) -> &'static str {
    match slot {
        TextureMode::Color => "colour (base colour or emissive)",
        TextureMode::Normal => "its normal map",
        TextureMode::Gray => "grayscale data",
        TextureMode::Linear => "data (metallic-roughness or occlusion)",
    }
}

/// What a mode makes of an image, for messages.
fn mode_text(mode: ModeSetting) -> &'static str {
    match mode {
        ModeSetting::Color | ModeSetting::Auto => "sRGB colour",
        ModeSetting::Normal => "a normal map (linear data)",
        ModeSetting::NormalDx => "a DirectX normal map (linear data)",
        ModeSetting::Gray => "grayscale data (linear)",
        ModeSetting::Linear => "linear data",
    }
}

/// [`mode_text`] of an encoder mode.
fn mode_text_of(mode: TextureMode) -> &'static str {
    mode_text(match mode {
        TextureMode::Color => ModeSetting::Color,
        TextureMode::Normal => ModeSetting::Normal,
        TextureMode::Gray => ModeSetting::Gray,
        TextureMode::Linear => ModeSetting::Linear,
    })
}

/// The runtime output paths (relative to the output folder) of a source.
pub fn outputs(kind: SourceKind, rel: &str) -> Vec<String> {
    match kind {
        SourceKind::Texture(_) => vec![replace_extension(rel, IMAGE_EXTENSIONS, ".ktx2")],
        SourceKind::Lut => vec![replace_extension(rel, &[".cube"], ".ktx2")],
        SourceKind::Cubemap => vec![format!("{rel}.ktx2")],
        SourceKind::TextureArray(_) => vec![replace_extension(rel, &[ARRAY_SUFFIX], ".arr.ktx2")],
        SourceKind::Atlas(_) => vec![
            format!("{rel}.ktx2"),
            replace_extension(rel, &[ATLAS_SUFFIX], ".hatlas"),
        ],
        SourceKind::Mesh => vec![
            replace_extension(rel, MESH_EXTENSIONS, ".hmesh"),
            replace_extension(rel, MESH_EXTENSIONS, ".hmat"),
        ],
        SourceKind::Material => vec![replace_extension(rel, &[".mat"], ".hmat")],
        SourceKind::Font | SourceKind::BitmapFont => vec![
            replace_extension(rel, FONT_EXTENSIONS, ".hfont"),
            replace_extension(rel, FONT_EXTENSIONS, ".font.ktx2"),
        ],
        // The codec may depend on the sound's length: configure replaces the
        // first with [`audio_output`] once it knows it.
        SourceKind::Audio => vec![
            audio_output(rel, AudioCodec::Pcm16),
            replace_extension(rel, AUDIO_EXTENSIONS, ".hsnd"),
        ],
        // Known only to the edge once it has compiled the folder.
        SourceKind::Shader | SourceKind::Processor(_) => Vec::new(),
        SourceKind::Embed => vec![rel.to_string()],
        SourceKind::Ibl => ["radiance", "specular"]
            .map(|part| ibl_output(rel, part))
            .to_vec(),
        SourceKind::BrdfLut => vec![BRDF_LUT_OUTPUT.to_string()],
    }
}

/// The file a sound source writes in `codec`: `sfx/step.flac` becomes
/// `sfx/step.wav`, `sfx/step.qoa`, `sfx/step.ogg` or `sfx/step.opus`.
pub fn audio_output(rel: &str, codec: AudioCodec) -> String {
    replace_extension(rel, AUDIO_EXTENSIONS, codec.extension())
}

/// The irradiance cube an IBL source writes when `ibl.irradiance` is on.
pub fn irradiance_output(rel: &str) -> String {
    ibl_output(rel, "irradiance")
}

/// `<stem>.<part>.ktx2` for an IBL source (`sky.ibl.hdr`, `sky.hdr`,
/// `sky.ibl.env/` and `sky.env/` all have the stem `sky`).
fn ibl_output(rel: &str, part: &str) -> String {
    let stem = strip_suffix_any(rel, IBL_SUFFIXES)
        .or_else(|| strip_suffix_any(rel, PANORAMA_EXTENSIONS))
        .or_else(|| strip_suffix_any(rel, &[IBL_FOLDER_SUFFIX, CUBE_FOLDER_SUFFIX]))
        .unwrap_or(rel);
    format!("{stem}.{part}.ktx2")
}

/// The font extensions, stripped to form a font source's output stem.
const FONT_EXTENSIONS: &[&str] = &[".ttf", ".otf", ".fnt"];

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
        assert_eq!(mode("rock_normal.png"), Some(TextureMode::Normal));
        assert_eq!(mode("rock_orm.png"), Some(TextureMode::Linear));
        assert_eq!(mode("notes.txt"), None);
    }

    #[test]
    fn every_image_kind_follows_the_png_naming_rules() {
        for extension in [
            "webp", "tga", "bmp", "tif", "tiff", "hdr", "exr", "svg", "gif", "TGA", "Exr",
        ] {
            let name = format!("t/rock_normal.{extension}");
            let kind = classify_file(&name, false);
            assert_eq!(
                kind,
                Some(SourceKind::Texture(TextureMode::Normal)),
                "{name}"
            );
            assert_eq!(outputs(kind.unwrap(), &name), ["t/rock_normal.ktx2"]);
            let plain = format!("sky.{extension}");
            assert_eq!(
                classify_file(&plain, false),
                Some(SourceKind::Texture(TextureMode::Color)),
                "{plain}"
            );
        }
    }

    #[test]
    fn image_based_lighting_panoramas_are_not_textures() {
        for name in ["env/studio.ibl.hdr", "env/studio.IBL.EXR"] {
            assert_eq!(classify_file(name, false), Some(SourceKind::Ibl), "{name}");
        }
        assert!(classify_file("env/studio.hdr", false).is_some());
    }

    /// The mode and deciding suffix of `name` under `texture`.
    fn chosen(name: &str, texture: &TextureSettings) -> (ModeSetting, ChoiceReason) {
        let stem = strip_suffix_any(name, IMAGE_EXTENSIONS).unwrap();
        let choice = texture_choice(stem, texture);
        (choice.mode, choice.reason)
    }

    fn by_suffix(mode: ModeSetting, written: &str) -> (ModeSetting, ChoiceReason) {
        (mode, ChoiceReason::Suffix(written.into()))
    }

    #[test]
    fn painting_tool_suffixes_select_data_modes() {
        let defaults = TextureSettings::default();
        let cases = [
            (
                "t/rock_Normal.png",
                by_suffix(ModeSetting::Normal, "_Normal"),
            ),
            ("rock-nrm.jpg", by_suffix(ModeSetting::Normal, "-nrm")),
            ("rock_n.png", by_suffix(ModeSetting::Normal, "_n")),
            (
                "rock_NormalGL.png",
                by_suffix(ModeSetting::Normal, "_NormalGL"),
            ),
            (
                "rock_NormalDX.png",
                by_suffix(ModeSetting::NormalDx, "_NormalDX"),
            ),
            (
                "rock_nor_dx.png",
                by_suffix(ModeSetting::NormalDx, "_nor_dx"),
            ),
            ("rock_AO.png", by_suffix(ModeSetting::Gray, "_AO")),
            (
                "rock_Roughness.png",
                by_suffix(ModeSetting::Gray, "_Roughness"),
            ),
            (
                "rock_metallic.png",
                by_suffix(ModeSetting::Gray, "_metallic"),
            ),
            ("rock_disp.png", by_suffix(ModeSetting::Gray, "_disp")),
            ("rock_h.png", by_suffix(ModeSetting::Gray, "_h")),
            ("rock_mask.png", by_suffix(ModeSetting::Gray, "_mask")),
            ("rock_ORM.png", by_suffix(ModeSetting::Linear, "_ORM")),
            (
                "rock_OcclusionRoughnessMetallic.png",
                by_suffix(ModeSetting::Linear, "_OcclusionRoughnessMetallic"),
            ),
            ("rock.n.png", by_suffix(ModeSetting::Normal, ".n")),
            ("rock.r.png", by_suffix(ModeSetting::Gray, ".r")),
        ];
        for (name, expected) in cases {
            assert_eq!(chosen(name, &defaults), expected, "{name}");
        }
        let colour = (ModeSetting::Color, ChoiceReason::Unnamed);
        for name in [
            "rock.png",
            "normal.png",
            "_n.png",
            "rocknormal.png",
            "rock_r.png",
            "n/x.png",
        ] {
            assert_eq!(chosen(name, &defaults), colour, "{name}");
        }
    }

    #[test]
    fn assetc_yml_adds_replaces_and_forces() {
        let added = TextureSettings {
            suffixes: crate::config::SuffixTable(vec![
                ("mask".into(), ModeSetting::Color),
                ("spec".into(), ModeSetting::Gray),
                ("dx".into(), ModeSetting::NormalDx),
            ]),
            ..TextureSettings::default()
        };
        assert_eq!(
            chosen("ui_mask.png", &added),
            by_suffix(ModeSetting::Color, "_mask")
        );
        assert_eq!(
            chosen("a-spec.png", &added),
            by_suffix(ModeSetting::Gray, "-spec")
        );
        // The longest suffix wins: `_normal_dx` over the user's `_dx`.
        assert_eq!(
            chosen("a_normal_dx.png", &added),
            by_suffix(ModeSetting::NormalDx, "_normal_dx")
        );
        let replaced = TextureSettings {
            builtin_suffixes: false,
            ..added.clone()
        };
        assert_eq!(chosen("rock_normal.png", &replaced).0, ModeSetting::Color);
        assert_eq!(chosen("rock.n.png", &replaced).0, ModeSetting::Normal);
        let forced = TextureSettings {
            mode: ModeSetting::Linear,
            ..added
        };
        assert_eq!(
            chosen("rock_normal.png", &forced),
            (ModeSetting::Linear, ChoiceReason::Rule)
        );
    }

    #[test]
    fn settling_sets_the_mode_and_the_green_flip() {
        let defaults = TextureSettings::default();
        let colour = SourceKind::Texture(TextureMode::Color);
        assert_eq!(
            settle_texture(colour, "a/rock_NormalDX.png", &defaults),
            (
                SourceKind::Texture(TextureMode::Normal),
                vec!["--flip-green".to_string()]
            )
        );
        assert_eq!(
            settle_texture(colour, "a/rock_orm.jpg", &defaults),
            (SourceKind::Texture(TextureMode::Linear), Vec::new())
        );
        let array = SourceKind::TextureArray(TextureMode::Color);
        assert_eq!(
            settle_texture(array, "terrain_normal.array", &defaults),
            (SourceKind::TextureArray(TextureMode::Normal), Vec::new())
        );
        assert_eq!(
            settle_texture(SourceKind::Mesh, "rock_normal.glb", &defaults),
            (SourceKind::Mesh, Vec::new())
        );
    }

    #[test]
    fn a_slot_that_disagrees_with_the_name_is_named_and_wins() {
        let defaults = TextureSettings::default();
        let warning = slot_disagreement(
            "m/rock_normal.png",
            &defaults,
            "m/rock.gltf",
            TextureMode::Color,
        )
        .unwrap();
        assert!(
            warning.starts_with("m/rock.gltf: its material reads m/rock_normal.png as colour"),
            "{warning}"
        );
        assert!(
            warning.contains("its name's `_normal` makes it a normal map"),
            "{warning}"
        );
        assert!(
            warning.contains("the material slot wins: it is encoded as sRGB colour"),
            "{warning}"
        );
        let forced = TextureSettings {
            mode: ModeSetting::Color,
            ..TextureSettings::default()
        };
        let reverse =
            slot_disagreement("m/orm.png", &forced, "m/rock.gltf", TextureMode::Linear).unwrap();
        assert!(
            reverse.contains("`texture.mode: color` in assetc.yml makes it sRGB colour"),
            "{reverse}"
        );
        assert!(reverse.contains("encoded as linear data"), "{reverse}");
        for (image, slot) in [
            ("m/rock_normal.png", TextureMode::Normal),
            ("m/rock_orm.png", TextureMode::Gray),
            ("m/rock.png", TextureMode::Linear),
            ("m/rock_albedo.png", TextureMode::Color),
        ] {
            assert_eq!(
                slot_disagreement(image, &defaults, "m/r.gltf", slot),
                None,
                "{image}"
            );
        }
    }

    #[test]
    fn every_reference_pattern_is_classified() {
        assert_eq!(classify_file("g.lut.cube", false), Some(SourceKind::Lut));
        assert_eq!(classify_file("m/chair.glb", false), Some(SourceKind::Mesh));
        assert_eq!(classify_file("m/chair.gltf", false), Some(SourceKind::Mesh));
        assert_eq!(classify_file("m/chair.OBJ", false), Some(SourceKind::Mesh));
        assert_eq!(classify_file("wood.mat", false), Some(SourceKind::Material));
        assert_eq!(classify_file("f/a.ttf", false), Some(SourceKind::Font));
        for sound in [
            "sfx/a.wav",
            "sfx/b.AIFF",
            "m/c.flac",
            "m/d.ogg",
            "m/e.oga",
            "m/f.mp3",
            "m/g.opus",
            "sfx/h.qoa",
        ] {
            assert_eq!(
                classify_file(sound, false),
                Some(SourceKind::Audio),
                "{sound}"
            );
        }
        assert_eq!(classify_file("m/song.xm", false), None);
        assert_eq!(classify_file("x.png", true), Some(SourceKind::Embed));
        assert_eq!(classify_folder("sky.env"), Some(SourceKind::Cubemap));
        let array = |mode| Some(SourceKind::TextureArray(mode));
        assert_eq!(classify_folder("t.array"), array(TextureMode::Color));
        assert_eq!(classify_folder("t.n.array"), array(TextureMode::Normal));
        assert_eq!(classify_folder("t.AO.Array"), array(TextureMode::Gray));
        assert_eq!(
            classify_folder("ui/icons.atlas"),
            Some(SourceKind::Atlas(TextureMode::Color))
        );
        assert_eq!(classify_folder("s/pbr.shader"), Some(SourceKind::Shader));
        assert_eq!(classify_folder("textures"), None);
    }

    #[test]
    fn outputs_follow_the_reference_names() {
        let t = SourceKind::Texture(TextureMode::Color);
        assert_eq!(outputs(t, "ui/Logo.PNG"), ["ui/Logo.ktx2"]);
        assert_eq!(outputs(t, "rock.n.png"), ["rock.n.ktx2"]);
        assert_eq!(outputs(SourceKind::Lut, "g.lut.cube"), ["g.lut.ktx2"]);
        assert_eq!(
            outputs(SourceKind::Audio, "sfx/Step.OGG"),
            ["sfx/Step.wav", "sfx/Step.hsnd"]
        );
        assert_eq!(
            outputs(SourceKind::Audio, "sfx/step.wav"),
            ["sfx/step.wav", "sfx/step.hsnd"]
        );
        assert_eq!(audio_output("m/a.Flac", AudioCodec::Opus), "m/a.opus");
        assert_eq!(audio_output("m/a.qoa", AudioCodec::Vorbis), "m/a.ogg");
        assert_eq!(outputs(SourceKind::Cubemap, "sky.env"), ["sky.env.ktx2"]);
        let array = SourceKind::TextureArray(TextureMode::Normal);
        assert_eq!(outputs(array, "t.n.array"), ["t.n.arr.ktx2"]);
        let atlas = SourceKind::Atlas(TextureMode::Color);
        assert_eq!(
            outputs(atlas, "ui/Icons.atlas"),
            ["ui/Icons.atlas.ktx2", "ui/Icons.hatlas"]
        );
        assert_eq!(
            outputs(SourceKind::Mesh, "m/chair.glb"),
            ["m/chair.hmesh", "m/chair.hmat"]
        );
        assert_eq!(animation_output("m/Fox.GLTF"), "m/Fox.hanim");
        assert_eq!(mesh_texture_output("m/chair.glb", 3), "m/chair/tex_3.ktx2");
        assert_eq!(outputs(SourceKind::Embed, "d/x.json"), ["d/x.json"]);
    }

    #[test]
    fn ibl_sources_are_named_or_marked_and_write_their_cubes() {
        assert_eq!(
            classify_file("env/sky.ibl.hdr", false),
            Some(SourceKind::Ibl)
        );
        assert_eq!(
            classify_file("env/Sky.IBL.HDR", false),
            Some(SourceKind::Ibl)
        );
        assert_ne!(classify_file("env/sky.hdr", false), Some(SourceKind::Ibl));
        let colour = SourceKind::Texture(TextureMode::Color);
        assert!(is_ibl_markable(colour, "env/sky.hdr") && is_ibl_markable(colour, "a.EXR"));
        assert!(!is_ibl_markable(colour, "sky.png"));
        assert!(is_ibl_markable(SourceKind::Cubemap, "env/hall.env"));
        assert!(!is_ibl_markable(SourceKind::Mesh, "env/hall.glb"));
        assert_eq!(
            outputs(SourceKind::Ibl, "env/sky.ibl.hdr"),
            ["env/sky.radiance.ktx2", "env/sky.specular.ktx2"]
        );
        assert_eq!(
            outputs(SourceKind::Ibl, "env/hall.hdr"),
            ["env/hall.radiance.ktx2", "env/hall.specular.ktx2"]
        );
        assert_eq!(irradiance_output("sky.ibl.hdr"), "sky.irradiance.ktx2");
        // Cube folders: `*.ibl.env/` always, a marked `*.env/` like a
        // marked `.hdr`.
        assert_eq!(classify_folder("env/sky.ibl.env"), Some(SourceKind::Ibl));
        assert_eq!(classify_folder("env/Sky.IBL.ENV"), Some(SourceKind::Ibl));
        assert_eq!(classify_folder("env/hall.env"), Some(SourceKind::Cubemap));
        assert_eq!(
            outputs(SourceKind::Ibl, "env/sky.ibl.env"),
            ["env/sky.radiance.ktx2", "env/sky.specular.ktx2"]
        );
        assert_eq!(
            irradiance_output("env/hall.env"),
            "env/hall.irradiance.ktx2"
        );
        assert!(is_cube_folder("env/sky.ibl.env") && is_cube_folder("hall.ENV"));
        assert!(!is_cube_folder("env/sky.ibl.hdr"));
        assert_eq!(outputs(SourceKind::BrdfLut, "x"), [BRDF_LUT_OUTPUT]);
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
