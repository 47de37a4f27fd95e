//! The `assetc-encode` command line: one subcommand per asset kind.
//!
//! Every subcommand takes the shared [`JobArgs`] plus the settings flags that
//! configure resolved for that source. Kinds whose encoders have not landed yet
//! still parse their full command line, so the graph configure writes today is
//! the graph they will run, and fail with a clear "not supported yet".

use clap::{Args, Subcommand};

use std::path::{Path, PathBuf};

use super::animation::frames::{Container, read_frames};
use super::atlas::{self as sprite_atlas, AtlasOptions, pack::PackOptions};
use super::audio::{self, AudioOptions, LoopChoice, encode_audio};
use super::blocks::target::{self, Unsuitable};
use super::font::bmfont::compile_bitmap_font;
use super::font::{FontOptions, compile_font};
use super::ibl::cube_folder::read_cube_folder;
use super::ibl::{IblError, IblOptions, brdf_lut_ktx2, encode_environment, encode_ibl};
use super::image::{SourceHints, decode_source};
use super::job::{self, EncodeError, Encoded, JobArgs, OutputFile};
use super::lut::encode_lut;
use super::mesh::args::MeshArgs;
use super::mesh::compile::compile_mesh;
use super::mesh::gltf as gltf_source;
use super::process::{self, ProcessArgs};
use super::texture::{
    BlockOptions, Shape, SourceImages, TextureError, TextureMode, TextureOptions, encode_animation,
    encode_sources,
    gpu_source::{self, GpuFormat},
    hdr::HdrFormat,
    pixel_art,
};
use super::uastc::UastcOptions;
use super::{embed, folder, shader};
use crate::config::{
    AtlasExtrude, AtlasPadding, AtlasSettings, AtlasSide, AudioCodec, AudioSettings, Charset,
    FontMode, FontSettings, FormatSetting, IblSettings, IblSize, LoopPoint, LoopSetting, Loudness,
    MinPsnr, NormalizeSetting, OpusBitrate, Pivot, PxPerEm, Rdo, SampleRate, Spread,
    TextureSettings, Toggle, TruePeak, UastcQuality, VorbisQuality, ZstdLevel,
};
use crate::format::hatlas::{ATLAS_NEAREST, write_hatlas};
use crate::format::kind::{AssetKind, ColorSpace};

/// The asset kinds.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// An image (PNG, JPEG, WebP, TGA, BMP, TIFF, HDR, EXR or SVG) to KTX2.
    Texture(TextureArgs),
    /// A `.cube` 3D LUT to KTX2.
    Lut(ZstdArgs),
    /// A `*.env/` folder of six faces to a cubemap KTX2.
    Cubemap(SurfaceArgs),
    /// A `*.array/` folder of layers to an array KTX2.
    Array(TextureArgs),
    /// The sprites a list file names (a `*.atlas/` folder's, or a rule
    /// atlas's) packed onto the layers of an array KTX2, plus the `.hatlas`
    /// table (`docs/atlases.md`).
    Atlas(AtlasArgs),
    /// A glTF, GLB or OBJ model to `.hmesh`.
    Mesh(MeshArgs),
    /// A standalone material to `.hmat`.
    Material(JobArgs),
    /// A TrueType or OpenType font to `.hfont` plus its atlas KTX2.
    Font(FontArgs),
    /// A BMFont `.fnt` bitmap font (text, XML or binary) and its page images
    /// to `.hfont` plus its lossless atlas KTX2 (`docs/fonts.md`).
    BitmapFont(ZstdArgs),
    /// A sound (WAV, AIFF, FLAC, Ogg Vorbis or MP3) to a 16-bit PCM WAV
    /// (`docs/audio.md`).
    Audio(AudioArgs),
    /// A `*.shader/` folder to SPIR-V.
    Shader(JobArgs),
    /// Any file, copied verbatim.
    Embed(JobArgs),
    /// An HDR environment (an equirectangular panorama, or a cube folder of
    /// six float faces) to the cube maps of image-based lighting
    /// (`docs/ibl.md`).
    Ibl(IblArgs),
    /// The project's split-sum BRDF lookup table (the input is not read).
    BrdfLut(JobArgs),
    /// A source compiled by a user processor (`processors:` in assetc.yml):
    /// runs the command after `--` and records its output like any other.
    Process(ProcessArgs),
}

/// Texture settings plus the image's mode.
#[derive(Debug, Args)]
pub struct TextureArgs {
    /// Colour (sRGB), normal map, grayscale or linear RGBA.
    #[arg(long, value_enum)]
    pub mode: TextureMode,
    /// The input is a glTF or GLB; encode its image with this index (stored in
    /// a buffer view or a data URI) instead of reading the input as an image.
    #[arg(long)]
    pub gltf_image: Option<usize>,
    /// Invert the green channel first: the source is a DirectX-convention
    /// normal map, the output follows OpenGL's (as glTF does).
    #[arg(long)]
    pub flip_green: bool,
    /// Whether a colour image is pixel art (raw, no mips, nearest-filter
    /// hint): `true`, `false`, or `auto` (from the image and its folders).
    #[arg(long, default_value_t = Toggle::Off)]
    pub pixel_art: Toggle,
    /// The texture settings.
    #[command(flatten)]
    pub surface: SurfaceArgs,
}

/// Sprite-atlas settings; the defaults are those of `assetc.yml`. The input
/// is the list of sprite files, one root-relative path per line.
#[derive(Debug, Args)]
pub struct AtlasArgs {
    /// The folder sprite names are paths below: the atlas folder, or the
    /// input folder for a rule atlas.
    #[arg(long)]
    pub sprite_root: PathBuf,
    /// The largest page side, 4 to 16384 texels.
    #[arg(long, default_value_t = AtlasSettings::default().max_size)]
    pub page_limit: AtlasSide,
    /// Empty texels between two sprites.
    #[arg(long, default_value_t = AtlasSettings::default().padding)]
    pub padding: AtlasPadding,
    /// Texels of each sprite's edge repeated around it.
    #[arg(long, default_value_t = AtlasSettings::default().extrude)]
    pub extrude: AtlasExtrude,
    /// Crop each sprite's fully transparent borders.
    #[arg(long, default_value_t = AtlasSettings::default().trim, action = clap::ArgAction::Set)]
    pub trim: bool,
    /// Let the packer turn sprites 90° clockwise.
    #[arg(long, default_value_t = AtlasSettings::default().rotate, action = clap::ArgAction::Set)]
    pub rotate: bool,
    /// Every sprite's pivot, `x,y` in its untrimmed normalised coordinates.
    #[arg(long, default_value_t = AtlasSettings::default().pivot)]
    pub pivot: Pivot,
    /// The pages' texture settings; the job's outputs are the `.ktx2`, then
    /// the `.hatlas`.
    #[command(flatten)]
    pub texture: TextureArgs,
}

impl AtlasArgs {
    /// The atlas options these flags select.
    pub fn options(&self) -> AtlasOptions {
        AtlasOptions {
            pack: PackOptions {
                max_size: self.page_limit.0,
                padding: self.padding.0,
                extrude: self.extrude.0,
                rotate: self.rotate,
            },
            trim: self.trim,
            pivot: self.pivot.0,
            svg_size: self.texture.surface.hints(&self.sprite_root).svg_size,
        }
    }
}

/// Settings shared by every texture-like kind.
#[derive(Debug, Args)]
pub struct SurfaceArgs {
    /// UASTC-encode (true) or keep raw RGBA8 + Zstd (false); `--format`
    /// wins when given.
    #[arg(long, action = clap::ArgAction::Set, default_value_t = true)]
    pub compress: bool,
    /// The GPU format to write: `uastc`, `bc7`, `bc5`, `bc4`, `bc1`, `bc6h`,
    /// `astc-4x4` … `astc-8x8`, `rgba8`, `rgba16f` or `rgb9e5` (configure
    /// settles `auto` before it gets here).
    #[arg(long)]
    pub format: Option<FormatSetting>,
    /// Encoder effort, 0 (fastest) to 4 (slowest, best): the UASTC level or
    /// the native encoders' preset of that rank.
    #[arg(long, default_value_t = TextureSettings::default().quality)]
    pub quality: UastcQuality,
    /// UASTC rate-distortion optimisation: `off`, or a lambda above 0 (higher
    /// is smaller after Zstandard and lower in quality).
    #[arg(long, default_value_t = TextureSettings::default().rdo)]
    pub rdo: Rdo,
    /// Zstandard level for every mip level, 1 to 22; 0 stores levels as is.
    #[arg(long, default_value_t = TextureSettings::default().zstd_level)]
    pub zstd_level: ZstdLevel,
    /// Keep the full mip chain (true) or the base level only (false).
    #[arg(long, default_value_t = TextureSettings::default().mips, action = clap::ArgAction::Set)]
    pub mips: bool,
    /// Halve sources until neither side exceeds this; 0 means no limit.
    #[arg(long, default_value_t = TextureSettings::default().max_size)]
    pub max_size: u32,
    /// Rasterise SVG sources so their larger side is this many pixels; 0
    /// keeps each file's own size.
    #[arg(long, default_value_t = TextureSettings::default().svg_size)]
    pub svg_size: u32,
    /// The texel format of float (HDR) sources.
    #[arg(long, value_enum, default_value_t = HdrFormat::Rgba16f)]
    pub hdr_format: HdrFormat,
    /// The quality floor in dB of colour and linear textures, or `off`: a
    /// lossy encode that reads back below it steps up to a finer format.
    #[arg(long, default_value_t = TextureSettings::default().min_psnr)]
    pub min_psnr: MinPsnr,
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
}

impl SurfaceArgs {
    /// The encoder options these flags select for `mode`, without a green
    /// flip; an error when the format cannot hold the mode's channels.
    pub fn options(&self, mode: TextureMode) -> Result<TextureOptions, Unsuitable> {
        let format = self
            .format
            .unwrap_or(FormatSetting::from_compress(self.compress));
        let native = target::texel_format(format, mode)?;
        Ok(TextureOptions {
            mode,
            uastc: (format == FormatSetting::Uastc).then_some(UastcOptions {
                quality: self.quality.0,
                rdo: self.rdo.0,
            }),
            blocks: native.map(|format| BlockOptions {
                format,
                quality: self.quality.0,
            }),
            zstd_level: self.zstd_level.0,
            mips: self.mips,
            max_size: self.max_size,
            flip_green: false,
            hdr_format: self.hdr_format,
            min_psnr: self.min_psnr.0,
            pixel_art: None,
        })
    }

    /// How to read a source file at `path`: its extension, and the SVG size.
    pub fn hints<'a>(&self, path: &'a Path) -> SourceHints<'a> {
        SourceHints {
            extension: path.extension().and_then(|extension| extension.to_str()),
            svg_size: (self.svg_size != 0).then_some(self.svg_size),
        }
    }
}

impl TextureArgs {
    /// The encoder options these flags select, the green flip included.
    pub fn options(&self) -> Result<TextureOptions, Unsuitable> {
        Ok(TextureOptions {
            flip_green: self.flip_green,
            ..self.surface.options(self.mode)?
        })
    }

    /// [`Self::options`] for `images` of the source `job`, with `--pixel-art`
    /// settled.
    pub fn options_for(
        &self,
        job: &JobArgs,
        images: &SourceImages,
    ) -> Result<TextureOptions, EncodeError> {
        let options = self.options().map_err(|e| unsuitable(job, e))?;
        Ok(TextureOptions {
            pixel_art: pixel_art::settle(self.pixel_art, options.mode, images, &job.source),
            ..options
        })
    }
}

/// Image-based-lighting settings; the defaults are those of `assetc.yml`.
#[derive(Debug, Args)]
pub struct IblArgs {
    /// Face size of the radiance and specular cubes, a power of two.
    #[arg(long, default_value_t = IblSettings::default().size)]
    pub size: IblSize,
    /// Also write the irradiance cube (a third output).
    #[arg(long, default_value_t = false, action = clap::ArgAction::Set)]
    pub irradiance: bool,
    /// The cubes' texel format (`auto` is resolved by configure).
    #[arg(long, value_enum, default_value_t = HdrFormat::Rgba16f)]
    pub format: HdrFormat,
    /// Zstandard level of every level, 1 to 22; 0 stores them as is.
    #[arg(long, default_value_t = TextureSettings::default().zstd_level)]
    pub zstd_level: ZstdLevel,
    /// The job: outputs are the radiance, specular and (with
    /// `--irradiance`) irradiance cubes.
    #[command(flatten)]
    pub job: JobArgs,
}

impl IblArgs {
    /// The encoder options these flags select.
    pub fn options(&self) -> IblOptions {
        IblOptions {
            size: self.size.0 as usize,
            irradiance: self.irradiance,
            format: self.format,
            zstd_level: self.zstd_level.0,
        }
    }
}

/// Sound settings; the defaults are those of `assetc.yml`.
#[derive(Debug, Args)]
pub struct AudioArgs {
    /// Downmix to one channel.
    #[arg(long, default_value_t = false, action = clap::ArgAction::Set)]
    pub mono: bool,
    /// The integrated loudness to reach in LUFS (EBU R128), or `off`.
    #[arg(long, default_value_t = AudioSettings::default().loudness, allow_negative_numbers = true)]
    pub loudness: Loudness,
    /// The true-peak ceiling in dBTP that the loudness gain never passes.
    #[arg(long, default_value_t = AudioSettings::default().true_peak, allow_negative_numbers = true)]
    pub true_peak: TruePeak,
    /// What the gain aims at: `loudness` or `peak`.
    #[arg(long, default_value_t = NormalizeSetting::Loudness)]
    pub normalize: NormalizeSetting,
    /// Cut leading and trailing silence below -50 dBFS.
    #[arg(long, default_value_t = false, action = clap::ArgAction::Set)]
    pub trim: bool,
    /// The file written: pcm16 (`.wav`), qoa, vorbis (`.ogg`) or opus.
    #[arg(long, default_value_t = AudioCodec::Pcm16)]
    pub codec: AudioCodec,
    /// The sample rate to convert to in Hz, or `off` (Opus is always 48 kHz).
    #[arg(long, default_value_t = AudioSettings::default().rate)]
    pub rate: SampleRate,
    /// Vorbis quality on the oggenc scale, -2 to 10.
    #[arg(long, default_value_t = AudioSettings::default().vorbis_quality, allow_negative_numbers = true)]
    pub vorbis_quality: VorbisQuality,
    /// Opus bit rate per channel, kbit/s.
    #[arg(long, default_value_t = AudioSettings::default().opus_bitrate)]
    pub opus_bitrate: OpusBitrate,
    /// The loop: `auto` (the source's), `true` (`--loop-start` to
    /// `--loop-end`) or `false`.
    #[arg(long = "loop", default_value_t = LoopSetting::Auto)]
    pub looping: LoopSetting,
    /// Where a `--loop true` loop starts: a frame, seconds (`2.5s`).
    #[arg(long, default_value_t = AudioSettings::default().loop_start)]
    pub loop_start: LoopPoint,
    /// Where a `--loop true` loop ends (excluded): a frame, seconds or `end`.
    #[arg(long, default_value_t = AudioSettings::default().loop_end)]
    pub loop_end: LoopPoint,
    /// The job: the output is the sound file.
    #[command(flatten)]
    pub job: JobArgs,
}

impl AudioArgs {
    /// The encoder options these flags select.
    pub fn options(&self) -> AudioOptions {
        AudioOptions {
            mono: self.mono,
            loudness: self.loudness.0,
            true_peak: self.true_peak.0,
            normalize: self.normalize,
            trim: self.trim,
            codec: self.codec,
            rate: self.rate.0,
            vorbis_quality: self.vorbis_quality.0,
            opus_bitrate: self.opus_bitrate.0,
            looping: match self.looping {
                LoopSetting::Auto => LoopChoice::Source,
                LoopSetting::Off => LoopChoice::Off,
                LoopSetting::On => LoopChoice::Region {
                    start: self.loop_start,
                    end: self.loop_end,
                },
            },
        }
    }
}

/// 3D LUT settings.
/// The settings of the kinds whose only knob is the Zstandard level (a LUT,
/// a bitmap font's atlas).
#[derive(Debug, Args)]
pub struct ZstdArgs {
    /// Zstandard level for the texels, 1 to 22; 0 stores them as is.
    #[arg(long, default_value_t = TextureSettings::default().zstd_level)]
    pub zstd_level: ZstdLevel,
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
}

/// Font settings; the defaults are those of `assetc.yml`.
#[derive(Debug, Args)]
pub struct FontArgs {
    /// Codepoints to compile: hexadecimal codepoints or ranges joined by `,`
    /// (for example `0x20-0x7e,0xa0-0xff`).
    #[arg(long, default_value_t = FontSettings::default().charset)]
    pub charset: Charset,
    /// Atlas texels per em, 8 to 512.
    #[arg(long, default_value_t = FontSettings::default().px_per_em)]
    pub px_per_em: PxPerEm,
    /// Distance-field texels on each side of an outline, 1 to 64.
    #[arg(long, default_value_t = FontSettings::default().spread)]
    pub spread: Spread,
    /// `sdf` (one channel) or `msdf` (multi-channel).
    #[arg(long, value_enum, default_value_t = FontSettings::default().mode)]
    pub mode: FontMode,
    /// Zstandard level of the atlas levels, 1 to 22; 0 stores them as is.
    #[arg(long, default_value_t = TextureSettings::default().zstd_level)]
    pub zstd_level: ZstdLevel,
    /// The job: outputs are the `.hfont`, then the atlas `.ktx2`.
    #[command(flatten)]
    pub job: JobArgs,
}

impl FontArgs {
    /// The encoder options these flags select.
    pub fn options(&self) -> FontOptions {
        FontOptions {
            charset: self.charset.clone(),
            px_per_em: self.px_per_em.0,
            spread: self.spread.0,
            mode: self.mode,
            zstd_level: self.zstd_level.0,
        }
    }
}

impl Command {
    /// Runs the subcommand.
    pub fn run(&self) -> Result<(), EncodeError> {
        job::keep_going("assetc-encode", self.job(), self.encode())
    }

    /// The job arguments of any subcommand.
    pub fn job(&self) -> &JobArgs {
        match self {
            Command::Texture(t) | Command::Array(t) => &t.surface.job,
            Command::Atlas(a) => &a.texture.surface.job,
            Command::Cubemap(s) => &s.job,
            Command::Lut(l) | Command::BitmapFont(l) => &l.job,
            Command::Ibl(i) => &i.job,
            Command::Mesh(m) => &m.job,
            Command::Font(f) => &f.job,
            Command::Audio(a) => &a.job,
            Command::Process(p) => &p.job,
            Command::Embed(j) | Command::Material(j) | Command::Shader(j) | Command::BrdfLut(j) => {
                j
            }
        }
    }

    /// The job, when the cache may serve this edge: every encoder but user
    /// processors, whose commands read files that only Ninja knows of.
    pub fn cacheable_job(&self) -> Option<&JobArgs> {
        (!matches!(self, Command::Process(_))).then(|| self.job())
    }

    /// Runs the subcommand's encoder.
    fn encode(&self) -> Result<(), EncodeError> {
        match self {
            Command::Texture(t) => job::run(&t.surface.job, |j| texture(j, t)),
            Command::Embed(j) => job::run(j, embed::encode),
            Command::Lut(l) => job::run(&l.job, |j| lut(j, l)),
            Command::Ibl(i) => job::run(&i.job, |j| ibl(j, i)),
            Command::BrdfLut(j) => job::run(j, |_| Ok(linear_textures(vec![brdf_lut_ktx2()]))),
            Command::Cubemap(s) => job::run(&s.job, |j| cubemap(j, s)),
            Command::Array(t) => job::run(&t.surface.job, |j| array(j, t)),
            Command::Atlas(a) => job::run(&a.texture.surface.job, |j| atlas(j, a)),
            Command::Mesh(m) => job::run(&m.job, |j| compile_mesh(j, m)),
            Command::Material(j) => job::run(j, |j| unsupported(j, "material")),
            Command::Font(f) => job::run(&f.job, |j| font(j, f)),
            Command::BitmapFont(b) => job::run(&b.job, |j| bitmap_font(j, b)),
            Command::Audio(a) => job::run(&a.job, |j| audio(j, a)),
            Command::Shader(j) => shader::output::run(j),
            Command::Process(p) => process::run(p),
        }
    }
}

fn texture(job: &JobArgs, args: &TextureArgs) -> Result<Encoded, EncodeError> {
    let (source, extra_inputs) = match args.gltf_image {
        Some(index) => gltf_image(job, index)?,
        None => (job::read_source(&job.input)?, Vec::new()),
    };
    if let Some(format) = gpu_source::sniff(&source) {
        let options = args.options().map_err(|e| unsuitable(job, e))?;
        return passed_through(job, source, format, &options, extra_inputs);
    }
    if Container::sniff(&source).is_some() {
        return animated(job, args, &source, extra_inputs);
    }
    let hints = args.surface.hints(&job.input);
    let image = decode_source(&source, &hints).map_err(|e| cannot_encode(job, e.into()))?;
    let float = image.is_hdr();
    let images = SourceImages::from(image);
    let options = args.options_for(job, &images)?;
    let bytes = encode_reporting(job, &images, Shape::Plain, &options)?;
    Ok(texture_output(bytes, args.mode, float, extra_inputs))
}

/// An animated image (GIF, APNG, animated WebP): its frames as the layers of
/// a texture array that records their times, or a plain texture when it
/// holds one frame.
fn animated(
    job: &JobArgs,
    args: &TextureArgs,
    source: &[u8],
    extra_inputs: Vec<PathBuf>,
) -> Result<Encoded, EncodeError> {
    let frames = read_frames(source).map_err(|e| EncodeError::Invalid {
        path: job.input.clone(),
        what: "cannot read the animation".into(),
        source: Some(Box::new(e)),
    })?;
    let times: Vec<u32> = frames.iter().map(|frame| frame.duration_ms).collect();
    let images = SourceImages::Ldr(frames.into_iter().map(|frame| frame.image).collect());
    let options = args.options_for(job, &images)?;
    let bytes = match &images {
        SourceImages::Ldr(layers) if layers.len() > 1 => {
            let mut warnings = Vec::new();
            let bytes = encode_animation(layers, &times, &options, &mut warnings)
                .map_err(|e| cannot_encode(job, e))?;
            warn_all(job, &warnings);
            bytes
        }
        _ => encode_reporting(job, &images, Shape::Plain, &options)?,
    };
    Ok(texture_output(bytes, args.mode, false, extra_inputs))
}

/// A source that is already a GPU texture, checked and passed through (see
/// [`gpu_source`]); settings it does not follow are warned about.
fn passed_through(
    job: &JobArgs,
    source: Vec<u8>,
    format: GpuFormat,
    options: &TextureOptions,
    extra_inputs: Vec<PathBuf>,
) -> Result<Encoded, EncodeError> {
    let passed =
        gpu_source::pass_through(&source, format, options).map_err(|e| EncodeError::Invalid {
            path: job.input.clone(),
            what: "cannot use this texture source".into(),
            source: Some(Box::new(e)),
        })?;
    for warning in &passed.warnings {
        crate::cli::warn(
            "assetc-encode",
            &format!("{}: {warning}", job.input.display()),
        );
    }
    Ok(Encoded {
        files: vec![OutputFile {
            bytes: source,
            kind: AssetKind::Texture,
            colorspace: passed.colorspace,
        }],
        extra_inputs,
        copies_source: false,
    })
}

/// The stored bytes of image `index` of the glTF at the job's input, and the
/// files read to find them.
fn gltf_image(job: &JobArgs, index: usize) -> Result<(Vec<u8>, Vec<PathBuf>), EncodeError> {
    let input_root = job.input_root()?;
    let bytes = job::read_source(&job.input)?;
    let gltf_error = |e| EncodeError::Invalid {
        path: job.input.clone(),
        what: format!("cannot read image {index} of this glTF"),
        source: Some(Box::new(e)),
    };
    let gltf = gltf_source::parse_document(&bytes).map_err(gltf_error)?;
    gltf_source::image_bytes(&gltf, index, &job.input, &input_root).map_err(gltf_error)
}

fn cubemap(job: &JobArgs, args: &SurfaceArgs) -> Result<Encoded, EncodeError> {
    let faces = folder::cube_faces(&job.input, args.hints(&job.input).svg_size)?;
    let options = args
        .options(TextureMode::Color)
        .map_err(|e| unsuitable(job, e))?;
    let bytes = encode_reporting(job, &faces.images, Shape::Cube, &options)?;
    let float = matches!(faces.images, SourceImages::Hdr(_));
    Ok(texture_output(
        bytes,
        TextureMode::Color,
        float,
        faces.inputs,
    ))
}

fn array(job: &JobArgs, args: &TextureArgs) -> Result<Encoded, EncodeError> {
    let layers = folder::array_layers(&job.input, args.surface.hints(&job.input).svg_size)?;
    let options = args.options_for(job, &layers.images)?;
    let bytes = encode_reporting(job, &layers.images, Shape::Array, &options)?;
    let float = matches!(layers.images, SourceImages::Hdr(_));
    Ok(texture_output(bytes, args.mode, float, layers.inputs))
}

/// Packs the listed sprites and encodes the pages exactly as an array's
/// layers (`texture.max_size` aside: halving the pages would move every
/// rect), then writes the table naming the `.ktx2`, the first output.
fn atlas(job: &JobArgs, args: &AtlasArgs) -> Result<Encoded, EncodeError> {
    let pages_path = job.outputs.first().ok_or_else(|| EncodeError::Invalid {
        path: job.input.clone(),
        what:
            "an atlas job needs two outputs, the .ktx2 and the .hatlas; re-run `assetc configure`"
                .into(),
        source: None,
    })?;
    let atlas_tex = AssetKind::Texture.id_for_path(&job::runtime_path(&job.root, pages_path)?);
    let mut built = sprite_atlas::build_atlas(&job.input, &args.sprite_root, &args.options())?;
    let pages = SourceImages::Ldr(built.pages);
    let mut options = args.texture.options_for(job, &pages)?;
    options.max_size = 0;
    built.table.atlas_tex = atlas_tex;
    if options.pixel_art.is_some() {
        built.table.flags |= ATLAS_NEAREST;
    }
    let table = write_hatlas(&built.table).map_err(|e| EncodeError::Invalid {
        path: args.sprite_root.clone(),
        what: "cannot write the atlas's sprite table".into(),
        source: Some(Box::new(e)),
    })?;
    let bytes = encode_reporting(job, &pages, Shape::Array, &options)?;
    let mut encoded = texture_output(bytes, args.texture.mode, false, built.inputs);
    encoded.files.extend(embed::registered(table, false).files);
    Ok(encoded)
}

/// Encodes `images`, printing the encoder's warnings with the source's path.
fn encode_reporting(
    job: &JobArgs,
    images: &SourceImages,
    shape: Shape,
    options: &TextureOptions,
) -> Result<Vec<u8>, EncodeError> {
    let mut warnings = Vec::new();
    let bytes =
        encode_sources(images, shape, options, &mut warnings).map_err(|e| cannot_encode(job, e))?;
    for warning in &warnings {
        crate::cli::warn(
            "assetc-encode",
            &format!("{}: {warning}", job.input.display()),
        );
    }
    Ok(bytes)
}

/// A format that cannot hold the texture's channels, with the source's path.
fn unsuitable(job: &JobArgs, error: Unsuitable) -> EncodeError {
    EncodeError::Invalid {
        path: job.input.clone(),
        what: "cannot encode texture".into(),
        source: Some(Box::new(error)),
    }
}

/// Wraps an encoder failure with the source's path.
fn cannot_encode(job: &JobArgs, error: TextureError) -> EncodeError {
    EncodeError::Invalid {
        path: job.input.clone(),
        what: "cannot encode texture".into(),
        source: Some(Box::new(error)),
    }
}

/// One KTX2 registered as a texture in the mode's colour space (linear for
/// `float` sources, whatever the mode).
fn texture_output(
    bytes: Vec<u8>,
    mode: TextureMode,
    float: bool,
    extra_inputs: Vec<PathBuf>,
) -> Encoded {
    let colorspace = if mode.is_srgb() && !float {
        ColorSpace::Srgb
    } else {
        ColorSpace::Linear
    };
    Encoded {
        files: vec![OutputFile {
            bytes,
            kind: AssetKind::Texture,
            colorspace,
        }],
        extra_inputs,
        copies_source: false,
    }
}

fn lut(job: &JobArgs, args: &ZstdArgs) -> Result<Encoded, EncodeError> {
    let source = job::read_source(&job.input)?;
    let bytes = encode_lut(&source, args.zstd_level.0).map_err(|e| EncodeError::Invalid {
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
        copies_source: false,
    })
}

fn audio(job: &JobArgs, args: &AudioArgs) -> Result<Encoded, EncodeError> {
    let source = job::read_source(&job.input)?;
    let extension = job
        .input
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    let sound =
        encode_audio(&source, extension, &args.options()).map_err(|e| EncodeError::Invalid {
            path: job.input.clone(),
            what: "cannot read this sound".into(),
            source: Some(Box::new(e)),
        })?;
    let sound_path = job.outputs.first().ok_or_else(|| EncodeError::Invalid {
        path: job.input.clone(),
        what: "the edge names no output for the sound".into(),
        source: None,
    })?;
    let sound_id = AssetKind::Embed.id_for_path(&job::runtime_path(&job.root, sound_path)?);
    let record = audio::record(&sound, sound_id).map_err(|e| EncodeError::Invalid {
        path: job.input.clone(),
        what: "cannot write the sound's record".into(),
        source: Some(Box::new(e)),
    })?;
    // Both are registered as embedded files: the reference SDK's manifest
    // kinds end at 7, and a sound is a file the engine hands to its audio
    // library whole.
    let mut encoded = embed::registered(sound.bytes, false);
    encoded.files.extend(embed::registered(record, false).files);
    Ok(encoded)
}

/// An IBL source: a panorama file, or a cube folder whose face files
/// become depfile inputs.
fn ibl(job: &JobArgs, args: &IblArgs) -> Result<Encoded, EncodeError> {
    let options = args.options();
    let cannot = |source: &str, error: IblError| EncodeError::Invalid {
        path: job.input.clone(),
        what: format!("cannot make image-based lighting from this {source}"),
        source: Some(Box::new(error)),
    };
    let (files, inputs) = if job.input.is_dir() {
        let cube = read_cube_folder(&job.input)?;
        let files =
            encode_environment(cube.environment, &options).map_err(|e| cannot("cube folder", e))?;
        (files, cube.inputs)
    } else {
        let source = job::read_source(&job.input)?;
        let files = encode_ibl(&source, &options).map_err(|e| cannot("panorama", e))?;
        (files, Vec::new())
    };
    let mut outputs = vec![files.radiance, files.specular];
    outputs.extend(files.irradiance);
    Ok(Encoded {
        extra_inputs: inputs,
        ..linear_textures(outputs)
    })
}

/// Files registered as linear textures, in output order.
fn linear_textures(files: Vec<Vec<u8>>) -> Encoded {
    Encoded {
        files: files
            .into_iter()
            .map(|bytes| OutputFile {
                bytes,
                kind: AssetKind::Texture,
                colorspace: ColorSpace::Linear,
            })
            .collect(),
        extra_inputs: Vec::new(),
        copies_source: false,
    }
}

/// The manifest id of a font job's atlas, its second output.
fn atlas_id(job: &JobArgs) -> Result<u64, EncodeError> {
    let atlas_path = job.outputs.get(1).ok_or_else(|| EncodeError::Invalid {
        path: job.input.clone(),
        what: "a font job needs two outputs, the .hfont and the atlas .ktx2; re-run `assetc configure`"
            .into(),
        source: None,
    })?;
    let atlas_runtime = job::runtime_path(&job.root, atlas_path)?;
    Ok(AssetKind::Texture.id_for_path(&atlas_runtime))
}

/// Prints a font encoder's warnings, naming the source.
fn warn_all(job: &JobArgs, warnings: &[String]) {
    for warning in warnings {
        crate::cli::warn(
            "assetc-encode",
            &format!("{}: {warning}", job.input.display()),
        );
    }
}

fn bitmap_font(job: &JobArgs, args: &ZstdArgs) -> Result<Encoded, EncodeError> {
    let atlas_tex = atlas_id(job)?;
    let source = job::read_source(&job.input)?;
    let compiled =
        compile_bitmap_font(&job.input, &source, args.zstd_level.0, atlas_tex).map_err(|e| {
            EncodeError::Invalid {
                path: job.input.clone(),
                what: e.to_string(),
                source: None,
            }
        })?;
    warn_all(job, &compiled.warnings);
    let atlas_space = if compiled.colour {
        ColorSpace::Srgb
    } else {
        ColorSpace::Linear
    };
    Ok(Encoded {
        files: vec![
            OutputFile {
                bytes: compiled.hfont,
                kind: AssetKind::Font,
                colorspace: ColorSpace::Linear,
            },
            OutputFile {
                bytes: compiled.atlas,
                kind: AssetKind::Texture,
                colorspace: atlas_space,
            },
        ],
        extra_inputs: compiled.pages,
        copies_source: false,
    })
}

fn font(job: &JobArgs, args: &FontArgs) -> Result<Encoded, EncodeError> {
    let atlas_tex = atlas_id(job)?;
    let source = job::read_source(&job.input)?;
    let compiled =
        compile_font(&source, &args.options(), atlas_tex).map_err(|e| EncodeError::Invalid {
            path: job.input.clone(),
            what: "cannot compile font".into(),
            source: Some(Box::new(e)),
        })?;
    warn_all(job, &compiled.warnings);
    let file = |bytes, kind| OutputFile {
        bytes,
        kind,
        colorspace: ColorSpace::Linear,
    };
    Ok(Encoded {
        files: vec![
            file(compiled.hfont, AssetKind::Font),
            file(compiled.atlas, AssetKind::Texture),
        ],
        extra_inputs: Vec::new(),
        copies_source: false,
    })
}

fn unsupported(job: &JobArgs, kind: &'static str) -> Result<Encoded, EncodeError> {
    Err(EncodeError::NotSupported {
        path: job.input.clone(),
        kind,
    })
}
