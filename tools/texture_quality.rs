//! UASTC quality and speed: encodes test images through assetc's texture
//! encoder, decodes the KTX2 files with the independent `basisu` transcoder and
//! prints the error and the encode time. `tools/texture-bench` drives it.
//!
//! ```text
//! texture_quality prepare OUT PHOTO...
//!     writes OUT/color/NAME.png (the photo as assetc decodes it),
//!     OUT/normal/NAME.png (a tangent-space normal map of its luminance) and
//!     OUT/gray/NAME.png (its luminance)
//! texture_quality tile --size N OUT PHOTO
//!     writes OUT, an N x N image of the photo mirrored edge to edge (a large
//!     photo-like texture for tools/thread-bench)
//! texture_quality encode --mode M [--levels 0,1,2] [--mips B] [--repeat N] PNG...
//!     encodes each PNG at each UASTC level and reports it
//! texture_quality score --mode M --tool T --level L [--mips B] [--seconds S] PNG KTX2
//!     reports a KTX2 someone else encoded from PNG (e.g. the basisu tool)
//! ```
//!
//! Every report is one tab-separated line:
//! `tool mode level mips image megapixels seconds psnr angle`. Only level 0 of
//! a file is scored, since the tools filter mips differently. PSNR is over R, G
//! and B for colour, R and G for normal maps and R for grayscale; `angle` is
//! the mean angle in degrees between the source and decoded normals (Z
//! rebuilt from X and Y), `-` for the other modes. `seconds` is the CPU time
//! (user and system) of the fastest of the repeats of the whole encode: PNG
//! decode, mips, UASTC, Zstandard, KTX2. CPU time rather than wall time, since
//! the benchmark machine is shared; the encoder runs on the calling thread
//! alone, so that thread's CPU clock measures all of it.

use std::fs;
use std::path::{Path, PathBuf};

use assetc::encode::image::{Rgba8Image, decode_image};
use assetc::encode::texture::{TextureMode, TextureOptions, encode_texture};
use assetc::encode::uastc::UastcOptions;
use clap::{Parser, Subcommand, ValueEnum};

/// The Zstandard level of both tools' output (`tools/texture-bench` passes the
/// same level to `basisu -ktx2_zstandard_level`).
const ZSTD_LEVEL: i32 = 18;

/// How steep the derived normal maps are: the Sobel gradient of luminance in
/// `[0, 1]` is scaled by this before normalising `(-dx, -dy, 1)`.
const NORMAL_STRENGTH: f32 = 2.0;

type Error = Box<dyn std::error::Error>;

#[derive(Parser)]
#[command(about = "UASTC quality and speed of assetc's texture encoder")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Derive the colour, normal-map and grayscale test images from photos.
    Prepare {
        /// The folder to write `color/`, `normal/` and `gray/` into.
        out: PathBuf,
        /// PNG or JPEG photos.
        #[arg(required = true)]
        photos: Vec<PathBuf>,
    },
    /// Write an N x N image of a photo mirrored edge to edge.
    Tile {
        #[arg(long)]
        size: u32,
        out: PathBuf,
        photo: PathBuf,
    },
    /// Encode PNGs with assetc at each UASTC level and report them.
    Encode {
        #[arg(long, value_enum)]
        mode: TextureMode,
        /// UASTC levels, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "0,1,2")]
        levels: Vec<u8>,
        /// Encode the full mip chain (true) or level 0 only.
        #[arg(long, default_value_t = false, action = clap::ArgAction::Set)]
        mips: bool,
        /// Encode each image this many times and keep the fastest.
        #[arg(long, default_value_t = 1)]
        repeat: u32,
        #[arg(required = true)]
        pngs: Vec<PathBuf>,
    },
    /// Report a KTX2 file another tool encoded from a PNG.
    Score {
        #[arg(long, value_enum)]
        mode: TextureMode,
        /// The tool's name in the report.
        #[arg(long)]
        tool: String,
        /// The UASTC level it was encoded at.
        #[arg(long)]
        level: u8,
        /// Whether it was encoded with mips.
        #[arg(long, default_value_t = false, action = clap::ArgAction::Set)]
        mips: bool,
        /// The encode time measured by the caller.
        #[arg(long)]
        seconds: Option<f64>,
        png: PathBuf,
        ktx2: PathBuf,
    },
}

fn main() -> Result<(), Error> {
    match Cli::parse().command {
        Command::Prepare { out, photos } => prepare(&out, &photos),
        Command::Tile { size, out, photo } => {
            write_png(&out, &mirror_tiled(&decode_image(&read(&photo)?)?, size))
        }
        Command::Encode {
            mode,
            levels,
            mips,
            repeat,
            pngs,
        } => encode(mode, &levels, mips, repeat, &pngs),
        Command::Score {
            mode,
            tool,
            level,
            mips,
            seconds,
            png,
            ktx2,
        } => {
            let row = Row {
                tool: &tool,
                mode,
                level,
                mips,
                image: &png,
                seconds,
            };
            report(&row, &decode_image(&read(&png)?)?, &read(&ktx2)?)
        }
    }
}

/// Reads a file, naming it in the error.
fn read(path: &Path) -> Result<Vec<u8>, Error> {
    fs::read(path).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// Encodes every PNG at every level with assetc and reports each.
fn encode(
    mode: TextureMode,
    levels: &[u8],
    mips: bool,
    repeat: u32,
    pngs: &[PathBuf],
) -> Result<(), Error> {
    for png in pngs {
        let source = read(png)?;
        let image = decode_image(&source)?;
        for &level in levels {
            let (ktx2, seconds) = timed_encode(&source, mode, level, mips, repeat)?;
            let row = Row {
                tool: "assetc",
                mode,
                level,
                mips,
                image: png,
                seconds: Some(seconds),
            };
            report(&row, &image, &ktx2)?;
        }
    }
    Ok(())
}

/// Writes the three test images of every photo under `out`.
fn prepare(out: &Path, photos: &[PathBuf]) -> Result<(), Error> {
    for photo in photos {
        let image = decode_image(&read(photo)?)?;
        let name = photo.file_stem().ok_or("a photo without a name")?;
        let height = luminance(&image);
        for (mode, derived) in [
            ("color", image.clone()),
            ("normal", normal_map(&height, image.width, image.height)),
            ("gray", gray_image(&height, image.width, image.height)),
        ] {
            let path = out.join(mode).join(name).with_extension("png");
            fs::create_dir_all(path.parent().ok_or("no parent")?)?;
            write_png(&path, &derived)?;
        }
    }
    Ok(())
}

/// `image` repeated to `size` x `size`, every other copy mirrored so that
/// neighbouring copies meet without a seam.
fn mirror_tiled(image: &Rgba8Image, size: u32) -> Rgba8Image {
    let fold = |at: u32, side: u32| {
        let copy = at / side;
        let within = at % side;
        if copy.is_multiple_of(2) {
            within
        } else {
            side - 1 - within
        }
    };
    let pixels = (0..size)
        .flat_map(|y| (0..size).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let at = (fold(y, image.height) * image.width + fold(x, image.width)) as usize * 4;
            image.pixels[at..at + 4].to_vec()
        })
        .collect();
    Rgba8Image {
        width: size,
        height: size,
        pixels,
    }
}

/// Rec. 709 luma of the stored (sRGB-encoded) values, in `[0, 1]`.
fn luminance(image: &Rgba8Image) -> Vec<f32> {
    image
        .pixels
        .chunks_exact(4)
        .map(|p| {
            (0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2])) / 255.0
        })
        .collect()
}

/// An opaque image from per-pixel RGB values.
fn image_from(width: u32, height: u32, texels: impl Iterator<Item = [u8; 3]>) -> Rgba8Image {
    let pixels = texels.flat_map(|[r, g, b]| [r, g, b, 255]).collect();
    Rgba8Image {
        width,
        height,
        pixels,
    }
}

/// The luminance as an opaque gray image.
fn gray_image(height_field: &[f32], width: u32, height: u32) -> Rgba8Image {
    image_from(width, height, height_field.iter().map(|&l| [unorm8(l); 3]))
}

/// A tangent-space normal map (X right, Y up, Z out, each mapped from
/// `[-1, 1]` to `[0, 255]`) of a height field, by Sobel gradients with
/// clamped edges.
fn normal_map(height_field: &[f32], width: u32, height: u32) -> Rgba8Image {
    let (w, h) = (width as i64, height as i64);
    let at = |x: i64, y: i64| height_field[(y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize];
    let normal = |x: i64, y: i64| {
        let dx = (at(x + 1, y - 1) + 2.0 * at(x + 1, y) + at(x + 1, y + 1))
            - (at(x - 1, y - 1) + 2.0 * at(x - 1, y) + at(x - 1, y + 1));
        // Rows run down the image; Y runs up.
        let dy = (at(x - 1, y - 1) + 2.0 * at(x, y - 1) + at(x + 1, y - 1))
            - (at(x - 1, y + 1) + 2.0 * at(x, y + 1) + at(x + 1, y + 1));
        let v = [-dx * NORMAL_STRENGTH, -dy * NORMAL_STRENGTH, 1.0];
        let length = v.iter().map(|c| c * c).sum::<f32>().sqrt();
        v.map(|c| unorm8(c / length * 0.5 + 0.5))
    };
    image_from(
        width,
        height,
        (0..h).flat_map(|y| (0..w).map(move |x| normal(x, y))),
    )
}

/// `[0, 1]` to `[0, 255]`, rounded.
fn unorm8(value: f32) -> u8 {
    (value.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Writes an RGBA8 PNG.
fn write_png(path: &Path, image: &Rgba8Image) -> Result<(), Error> {
    let mut encoder = png::Encoder::new(fs::File::create(path)?, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&image.pixels)?;
    Ok(())
}

/// Encodes `source` `repeat` times with assetc; returns the KTX2 file and the
/// least CPU time.
fn timed_encode(
    source: &[u8],
    mode: TextureMode,
    quality: u8,
    mips: bool,
    repeat: u32,
) -> Result<(Vec<u8>, f64), Error> {
    let options = TextureOptions {
        mode,
        uastc: Some(UastcOptions { quality, rdo: None }),
        blocks: None,
        zstd_level: ZSTD_LEVEL,
        mips,
        max_size: 0,
        flip_green: false,
        hdr_format: Default::default(),
        min_psnr: None,
        pixel_art: None,
    };
    let mut best = (Vec::new(), f64::INFINITY);
    for _ in 0..repeat.max(1) {
        let start = thread_cpu_seconds()?;
        let ktx2 = encode_texture(source, &options)?;
        let seconds = thread_cpu_seconds()? - start;
        if seconds < best.1 {
            best = (ktx2, seconds);
        }
    }
    Ok(best)
}

/// The CPU time the calling thread has used, in seconds.
fn thread_cpu_seconds() -> Result<f64, Error> {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) } != 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    Ok(time.tv_sec as f64 + time.tv_nsec as f64 / 1e9)
}

/// What one report line says about the encode, before scoring.
struct Row<'a> {
    tool: &'a str,
    mode: TextureMode,
    level: u8,
    mips: bool,
    image: &'a Path,
    seconds: Option<f64>,
}

/// Scores level 0 of `ktx2` against `source` and prints the report line.
fn report(row: &Row, source: &Rgba8Image, ktx2: &[u8]) -> Result<(), Error> {
    let decoded = decode_level0(ktx2)?;
    if (decoded.width, decoded.height) != (source.width, source.height) {
        return Err(format!(
            "{}: the KTX2 size differs from the source",
            row.image.display()
        )
        .into());
    }
    let (channels, angle) = match row.mode {
        TextureMode::Color => (&[0, 1, 2][..], None),
        TextureMode::Normal => (&[0, 1][..], Some(mean_angle(source, &decoded))),
        TextureMode::Gray => (&[0][..], None),
        TextureMode::Linear => (&[0, 1, 2, 3][..], None),
    };
    let optional = |value: Option<f64>, digits: usize| {
        value.map_or_else(|| "-".to_owned(), |v| format!("{v:.digits$}"))
    };
    let mode = row.mode.to_possible_value().expect("modes have names");
    println!(
        "{}\t{}\t{}\t{}\t{}\t{:.4}\t{}\t{:.3}\t{}",
        row.tool,
        mode.get_name(),
        row.level,
        row.mips,
        row.image.file_stem().unwrap_or_default().to_string_lossy(),
        f64::from(source.width) * f64::from(source.height) / 1e6,
        optional(row.seconds, 4),
        psnr(source, &decoded, channels),
        optional(angle, 3),
    );
    Ok(())
}

/// Transcodes level 0 of a UASTC KTX2 file to RGBA8 with the `basisu` crate.
fn decode_level0(ktx2: &[u8]) -> Result<Rgba8Image, Error> {
    let transcoder = basisu::Transcoder::new(ktx2).map_err(|e| format!("{e:?}"))?;
    let pixels = transcoder
        .transcode(0, basisu::TargetFormat::Rgba32, basisu::DecodeFlags::NONE)
        .map_err(|e| format!("{e:?}"))?;
    let (width, height) = transcoder.base_dimensions();
    Ok(Rgba8Image {
        width,
        height,
        pixels,
    })
}

/// Peak signal-to-noise ratio in dB over the given channels of every texel.
fn psnr(a: &Rgba8Image, b: &Rgba8Image, channels: &[usize]) -> f64 {
    let (sum, count) = a
        .pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .flat_map(|(p, q)| {
            channels
                .iter()
                .map(move |&c| f64::from(p[c]) - f64::from(q[c]))
        })
        .fold((0.0, 0usize), |(sum, count), d| (sum + d * d, count + 1));
    let mse = sum / count as f64;
    if mse == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (255.0 * 255.0 / mse).log10()
    }
}

/// The mean angle in degrees between the normals two normal maps store in R
/// and G.
fn mean_angle(a: &Rgba8Image, b: &Rgba8Image) -> f64 {
    let total: f64 = a
        .pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .map(|(p, q)| {
            let [u, v] = [unpack_normal(p), unpack_normal(q)];
            let cosine: f64 = u.iter().zip(&v).map(|(x, y)| x * y).sum();
            cosine.clamp(-1.0, 1.0).acos().to_degrees()
        })
        .sum();
    total / (a.pixels.len() / 4) as f64
}

/// The unit normal of a texel's R and G, with Z rebuilt as a shader would.
fn unpack_normal(texel: &[u8]) -> [f64; 3] {
    let [x, y] = [texel[0], texel[1]].map(|c| f64::from(c) / 255.0 * 2.0 - 1.0);
    let z = (1.0 - x * x - y * y).max(0.0).sqrt();
    let length = (x * x + y * y + z * z).sqrt();
    [x / length, y / length, z / length]
}
