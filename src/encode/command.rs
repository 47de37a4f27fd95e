//! The `assetc-encode` command line: one subcommand per asset kind.
//!
//! Every subcommand takes the shared [`JobArgs`] plus the settings flags that
//! configure resolved for that source. Kinds whose encoders have not landed yet
//! still parse their full command line, so the graph configure writes today is
//! the graph they will run, and fail with a clear "not supported yet".

use clap::{Args, Parser, Subcommand};

use super::embed;
use super::job::{self, EncodeError, Encoded, JobArgs, OutputFile};
use super::lut::encode_lut;
use super::texture::{TextureMode, TextureOptions, encode_texture};
use super::uastc::{MAX_QUALITY, UastcOptions};
use crate::format::kind::{AssetKind, ColorSpace};
use crate::fsutil;

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
    Lut(LutArgs),
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
    /// UASTC quality level, 0 (fastest) to 4 (slowest, best).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(..=MAX_QUALITY as i64))]
    pub quality: u8,
    /// UASTC rate-distortion optimisation: `off`, or a lambda above 0 (higher
    /// is smaller after Zstandard and lower in quality).
    #[arg(long, default_value = "off", value_parser = parse_rdo)]
    pub rdo: Rdo,
    /// Zstandard level for every mip level, 1 to 22; 0 stores levels as is.
    #[arg(long, default_value_t = 18, value_parser = clap::value_parser!(i32).range(0..=22))]
    pub zstd_level: i32,
    /// Keep the full mip chain (true) or the base level only (false).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub mips: bool,
    /// Halve sources until neither side exceeds this; 0 means no limit.
    #[arg(long, default_value_t = 0)]
    pub max_size: u32,
    /// Encoder threads, the calling thread included. Ninja's `-j` is the usual
    /// knob; raise this only when running a single job.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
}

/// The `--rdo` setting: off, or the lambda to run RDO with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rdo(pub Option<f32>);

/// Parses `off` or a finite lambda above 0.
fn parse_rdo(text: &str) -> Result<Rdo, String> {
    if text == "off" {
        return Ok(Rdo(None));
    }
    match text.parse::<f32>() {
        Ok(lambda) if lambda.is_finite() && lambda > 0.0 => Ok(Rdo(Some(lambda))),
        _ => Err(format!("expected `off` or a number above 0, got {text:?}")),
    }
}

impl SurfaceArgs {
    /// The encoder options these flags select for `mode`.
    pub fn options(&self, mode: TextureMode) -> TextureOptions {
        TextureOptions {
            mode,
            uastc: self.compress.then_some(UastcOptions {
                quality: self.quality,
                rdo: self.rdo.0,
                threads: self.threads,
            }),
            zstd_level: self.zstd_level,
            mips: self.mips,
            max_size: self.max_size,
        }
    }
}

/// 3D LUT settings.
#[derive(Debug, Args)]
pub struct LutArgs {
    /// Zstandard level for the texels, 1 to 22; 0 stores them as is.
    #[arg(long, default_value_t = 18, value_parser = clap::value_parser!(i32).range(0..=22))]
    pub zstd_level: i32,
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
            Command::Lut(l) => job::run(&l.job, |j| lut(j, l)),
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
    let options = args.surface.options(args.mode);
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

fn lut(job: &JobArgs, args: &LutArgs) -> Result<Encoded, EncodeError> {
    let source = fsutil::read(&job.input)?;
    let bytes = encode_lut(&source, args.zstd_level).map_err(|e| EncodeError::Invalid {
        path: job.input.clone(),
        what: "cannot read 3D LUT".into(),
        source: Some(Box::new(e)),
    })?;
    Ok(Encoded {
        files: vec![OutputFile {
            bytes,
            kind: AssetKind::Lut,
            colorspace: ColorSpace::Linear,
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
