//! The `assetc-encode` command line: one subcommand per asset kind.
//!
//! Every subcommand takes the shared [`JobArgs`] plus the settings flags that
//! configure resolved for that source. Kinds whose encoders have not landed yet
//! still parse their full command line, so the graph configure writes today is
//! the graph they will run, and fail with a clear "not supported yet".

use clap::{Args, Parser, Subcommand};

use super::embed;
use super::job::{self, EncodeError, Encoded, JobArgs, OutputFile};
use super::texture::{TextureMode, TextureOptions, encode_texture};
use crate::format::kind::{AssetKind, ColorSpace};
use crate::fsutil;

/// Zstd level for raw (uncompressed) textures: a good ratio at tens of
/// milliseconds per megapixel.
const RAW_ZSTD_LEVEL: i32 = 12;

/// `assetc-encode`: compile one source asset (run by Ninja, one edge per asset).
#[derive(Debug, Parser)]
#[command(name = "assetc-encode", version, about)]
pub struct Cli {
    /// What to encode.
    #[command(subcommand)]
    pub command: Command,
}

/// The asset kinds.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// A PNG or JPEG image to KTX2.
    Texture(TextureArgs),
    /// A `.cube` 3D LUT to KTX2.
    Lut(SurfaceArgs),
    /// A `*.env/` folder of six faces to a cubemap KTX2.
    Cubemap(SurfaceArgs),
    /// A `*.array/` folder of layers to an array KTX2.
    Array(SurfaceArgs),
    /// A glTF, GLB or OBJ model to `.hmesh`.
    Mesh(MeshArgs),
    /// A standalone material to `.hmat`.
    Material(JobArgs),
    /// A TrueType or OpenType font to `.hfont`.
    Font(JobArgs),
    /// A `*.shader/` folder to SPIR-V.
    Shader(JobArgs),
    /// Any file, copied verbatim.
    Embed(JobArgs),
}

/// Texture settings plus the image's mode.
#[derive(Debug, Args)]
pub struct TextureArgs {
    /// Colour (sRGB), normal map or grayscale.
    #[arg(long, value_enum)]
    pub mode: TextureMode,
    /// The texture settings.
    #[command(flatten)]
    pub surface: SurfaceArgs,
}

/// Settings shared by every texture-like kind.
#[derive(Debug, Args)]
pub struct SurfaceArgs {
    /// UASTC-encode (true) or keep raw RGBA8 + Zstd (false).
    #[arg(long, action = clap::ArgAction::Set)]
    pub compress: bool,
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
}

/// Mesh settings.
#[derive(Debug, Args)]
pub struct MeshArgs {
    /// Bake node transforms into one world-space mesh.
    #[arg(long, action = clap::ArgAction::Set)]
    pub merge: bool,
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
}

impl Command {
    /// Runs the subcommand.
    pub fn run(&self) -> Result<(), EncodeError> {
        match self {
            Command::Texture(t) => job::run(&t.surface.job, |j| texture(j, t)),
            Command::Embed(j) => job::run(j, embed::encode),
            Command::Lut(s) => job::run(&s.job, |j| unsupported(j, "3D LUT")),
            Command::Cubemap(s) => job::run(&s.job, |j| unsupported(j, "cubemap")),
            Command::Array(s) => job::run(&s.job, |j| unsupported(j, "texture array")),
            Command::Mesh(m) => job::run(&m.job, |j| unsupported(j, "mesh")),
            Command::Material(j) => job::run(j, |j| unsupported(j, "material")),
            Command::Font(j) => job::run(j, |j| unsupported(j, "font")),
            Command::Shader(j) => job::run(j, |j| unsupported(j, "shader")),
        }
    }
}

fn texture(job: &JobArgs, args: &TextureArgs) -> Result<Encoded, EncodeError> {
    let source = fsutil::read(&job.input)?;
    let options = TextureOptions {
        mode: args.mode,
        compress: args.surface.compress,
        zstd_level: RAW_ZSTD_LEVEL,
    };
    let bytes = encode_texture(&source, &options).map_err(|e| EncodeError::Invalid {
        path: job.input.clone(),
        what: "cannot encode texture".into(),
        source: Some(Box::new(e)),
    })?;
    let colorspace = if args.mode.is_srgb() {
        ColorSpace::Srgb
    } else {
        ColorSpace::Linear
    };
    Ok(Encoded {
        files: vec![OutputFile {
            bytes,
            kind: AssetKind::Texture,
            colorspace,
        }],
        extra_inputs: Vec::new(),
    })
}

fn unsupported(job: &JobArgs, kind: &'static str) -> Result<Encoded, EncodeError> {
    Err(EncodeError::NotSupported {
        path: job.input.clone(),
        kind,
    })
}
