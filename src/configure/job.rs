//! One encode edge of the build plan, [`Job`], and how its depfile reaches
//! Ninja ([`Deps`]).

use super::classify::{self, SourceKind};

/// One encode edge.
#[derive(Debug, Clone)]
pub struct Job {
    /// The source asset, relative to the input folder (for messages).
    pub source: String,
    /// The edge's input file or folder, relative to the input folder: the
    /// source itself, or an image file a mesh source's material uses.
    pub input: String,
    /// Unique among jobs; names the edge's fragment and depfile.
    pub name: String,
    /// The encoder it runs.
    pub kind: SourceKind,
    /// Runtime paths it produces, relative to the output folder.
    pub outputs: Vec<String>,
    /// Resolved settings as `assetc-encode` flags.
    pub flags: Vec<String>,
    /// Set when another mesh source's texture edge encodes the same image
    /// file with the same flags: that edge's output (root-relative), which
    /// this edge takes as its input and passes through instead of encoding
    /// the image again (see `share_image_encodes`).
    pub shares: Option<String>,
    /// For the texture edge of an image a mesh source's materials use: the
    /// image's index in the source (its progress line names it).
    pub image: Option<usize>,
    /// For an atlas: its sprite files and the folder their names start in.
    pub sprites: Option<AtlasSprites>,
}

/// The sprites of an atlas edge, paths relative to the input folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtlasSprites {
    /// The folder sprite names are paths below: the atlas folder, or `""`
    /// (the input folder) for a rule atlas.
    pub root: String,
    /// The sprite files, sorted.
    pub files: Vec<String>,
}

/// How an encode edge's depfile reaches Ninja.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deps {
    /// No depfile: the encoder reads its input alone.
    None,
    /// The kind's rule says `deps = gcc`; the edge names its depfile.
    Rule,
    /// The kind's rule takes `deps` from the edge, which sets
    /// `depmode = gcc` and names its depfile.
    Edge,
}

impl Job {
    /// Whether this edge needs a depfile, and where `deps = gcc` comes from.
    /// Single-file kinds (a plain image, a LUT, a font, a material, an
    /// embedded file, an IBL panorama) read only their input; a texture
    /// that a glTF embeds also reads the glTF's buffers, and an IBL cube
    /// folder its faces; every other kind may read more files (a bitmap font
    /// reads its pages).
    pub fn deps(&self) -> Deps {
        match self.kind {
            SourceKind::Texture(_) if self.flags.iter().any(|f| f == "--gltf-image") => Deps::Edge,
            SourceKind::Ibl if classify::is_cube_folder(&self.input) => Deps::Edge,
            SourceKind::Texture(_)
            | SourceKind::Lut
            | SourceKind::Font
            | SourceKind::Audio
            | SourceKind::Material
            | SourceKind::Embed
            | SourceKind::Ibl
            | SourceKind::BrdfLut => Deps::None,
            SourceKind::Cubemap
            | SourceKind::TextureArray(_)
            | SourceKind::BitmapFont
            | SourceKind::Atlas(_)
            | SourceKind::Mesh
            | SourceKind::Shader
            | SourceKind::Processor(_) => Deps::Rule,
        }
    }
}
