//! The image-based-lighting benchmark of `docs/benchmarks.md`: a synthetic
//! 8192×4096 HDR panorama (sky gradient, a small sun of 50 000 times the sky,
//! a band of coloured stripes) through the whole IBL encoder, timed, and a
//! few output texels compared with a brute-force integration over all 33.5
//! million panorama texels.
//!
//! ```text
//! cargo run --release --example ibl_bench [width] [face size] [--write DIR | --judge DIR]
//! ```
//!
//! `--write DIR` only writes the panorama, with and without its sun, as
//! `DIR/sky-<width>.hdr` and `DIR/calm-<width>.hdr`, for running another
//! prefilter on the same sky. `--judge DIR` then judges that prefilter's
//! cubes against brute force, next to ours at the same roughness: it reads
//! `DIR/sky-<width>/levels.txt` (and `calm-…`), whose lines are
//! `level FILE SIZE ALPHA` (a specular level: six faces of `SIZE²` RGB
//! little-endian `f32` texels in our face order and orientation, at GGX
//! `ALPHA`) and `irradiance FILE SIZE` (the irradiance `E`, likewise).

use std::time::Instant;

use assetc::encode::ibl::environment::Environment;
use assetc::encode::ibl::panorama::Panorama;
use assetc::encode::ibl::{
    IblOptions, IblSet, compute, cube, decode_panorama, encode_ibl, prefilter, sh, specular_levels,
};
use assetc::encode::texture::hdr::HdrFormat;

fn main() {
    let mut args = std::env::args().skip(1);
    let width: usize = args.next().map_or(8192, |a| a.parse().expect("width"));
    let size: usize = args.next().map_or(256, |a| a.parse().expect("face size"));
    let height = width / 2;
    let file = synthetic_hdr(width, height, 50_000.0);
    if let (Some(flag), Some(dir)) = (args.next(), args.next()) {
        let dir = std::path::Path::new(&dir);
        match flag.as_str() {
            "--write" => {
                std::fs::write(dir.join(format!("sky-{width}.hdr")), &file).expect("write");
                let calm = synthetic_hdr(width, height, 0.0);
                std::fs::write(dir.join(format!("calm-{width}.hdr")), calm).expect("write");
            }
            "--judge" => judge_other_tool(dir, width, size),
            _ => panic!("unknown argument {flag}"),
        }
        return;
    }
    println!("panorama {width}x{height}, {} MB as .hdr", file.len() >> 20);
    let options = IblOptions {
        size,
        irradiance: true,
        format: HdrFormat::Rgba16f,
        zstd_level: 12,
    };
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    let files = encode_ibl(&file, &options).expect("encode");
    let seconds = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_start;
    let bytes =
        files.radiance.len() + files.specular.len() + files.irradiance.map_or(0, |f| f.len());
    println!(
        "full IBL set (radiance, specular, irradiance, SH): {seconds:.2} s wall, {cpu:.2} s CPU, {} KiB",
        bytes >> 10
    );
    report_formats(&file, &files.specular, &options);

    let start = Instant::now();
    let environment = Environment::from(decode_panorama(&file).expect("decode"));
    println!(
        "  of which decoding: {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let sun = sun_direction(width, height);
    println!("errors against brute force, with the sun:");
    let set = compute(&environment, &options);
    report_errors(&environment, &set, size, sun);
    drop(environment);
    let calm =
        Environment::from(decode_panorama(&synthetic_hdr(width, height, 0.0)).expect("decode"));
    println!("errors against brute force, without the sun:");
    let set = compute(&calm, &options);
    report_errors(&calm, &set, size, sun);
}

/// The direction of the synthetic panorama's sun.
fn sun_direction(width: usize, height: usize) -> [f32; 3] {
    let (x, y) = sun_texel(width, height);
    assetc::encode::ibl::panorama::texel_direction(x, y, width, height)
}

/// The texel at the centre of the synthetic panorama's sun.
fn sun_texel(width: usize, height: usize) -> (usize, usize) {
    (width * 5 / 8, height / 5)
}

/// The user CPU time of this process so far, in seconds (the encoder runs
/// on one thread, so on a busy machine this is the figure to compare).
/// The set in every float format of `ibl.format`: bytes of the radiance and
/// specular cubes, the encode time, and the mean relative error of every
/// decoded specular level against the RGBA16F one (`reference`).
fn report_formats(file: &[u8], reference: &[u8], options: &IblOptions) {
    use assetc::encode::texture::readback::{ImageIndex, Texels, decode_stored};
    use assetc::format::ktx2;
    let reference_view = ktx2::parse(reference).expect("reference");
    let levels = reference_view.header().level_count;
    for format in [
        HdrFormat::Rgba16f,
        HdrFormat::Rgb9e5,
        HdrFormat::Bc6h,
        HdrFormat::AstcHdr6x6,
    ] {
        let options = IblOptions {
            format,
            irradiance: false,
            ..*options
        };
        let start = Instant::now();
        let files = encode_ibl(file, &options).expect("encode");
        let seconds = start.elapsed().as_secs_f64();
        let view = ktx2::parse(&files.specular).expect("specular");
        let (mut error, mut total) = (0.0f64, 0.0f64);
        let mut by_level = Vec::new();
        for level in 0..levels {
            let (error_before, total_before) = (error, total);
            for face in 0..6 {
                let at = ImageIndex {
                    level,
                    layer: 0,
                    face,
                    slice: 0,
                };
                let decoded = decode_stored(&files.specular, &view, at).expect("decode");
                let wanted = decode_stored(reference, &reference_view, at).expect("decode");
                if let (Texels::Hdr(decoded), Texels::Hdr(wanted)) = (decoded.texels, wanted.texels)
                {
                    for (texel, want) in decoded.chunks_exact(4).zip(wanted.chunks_exact(4)) {
                        for channel in 0..3 {
                            error += f64::from((texel[channel] - want[channel]).abs());
                            total += f64::from(want[channel].abs());
                        }
                    }
                }
            }
            let share = (error - error_before) / (total - total_before).max(f64::MIN_POSITIVE);
            by_level.push(format!("{:.2}%", 100.0 * share));
        }
        println!(
            "ibl.format {:>12}: radiance {:>6} KiB, specular {:>6} KiB, {seconds:.2} s, specular mean error against rgba16f {:.2}% (by level: {})",
            format!("{format:?}"),
            files.radiance.len() >> 10,
            files.specular.len() >> 10,
            100.0 * error / total.max(f64::MIN_POSITIVE),
            by_level.join(" ")
        );
    }
}

fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the rusage the valid pointer points to, and
    // an all-zero rusage is a valid value if it does not.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    usage.ru_utime.tv_sec as f64 + usage.ru_utime.tv_usec as f64 / 1e6
}

/// Angles from the sun (degrees) of texels compared with brute force, next
/// to a grid over every face.
const SUN_OFFSETS: [f32; 9] = [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];

/// Face coordinates of the grid of texels compared on every face.
const GRID: [f32; 3] = [-0.7, 0.05, 0.7];

/// The texels of a level `size` wide compared with brute force: the grid on
/// every face, and texels at [`SUN_OFFSETS`] from `sun` (face, x, y,
/// direction).
fn judged_texels(size: usize, sun: [f32; 3]) -> Vec<(usize, usize, usize, [f32; 3])> {
    let mut texels = Vec::new();
    for face in 0..6 {
        for t in GRID {
            for s in GRID {
                let (x, y) = cube::texel_of(s, t, size);
                texels.push((face, x, y, cube::texel_direction(face, x, y, size)));
            }
        }
    }
    let side = cube::normalize(cube::cross(sun, [0.0, 0.0, 1.0]));
    for degrees in SUN_OFFSETS {
        let (sin, cos) = degrees.to_radians().sin_cos();
        let direction = cube::normalize([0, 1, 2].map(|c| sun[c] * cos + side[c] * sin));
        let (face, s, t) = cube::face_of(direction);
        let (x, y) = cube::texel_of(s, t, size);
        texels.push((face, x, y, cube::texel_direction(face, x, y, size)));
    }
    texels
}

/// The brute-force `reference` of every texel, on two threads.
fn references(
    texels: &[(usize, usize, usize, [f32; 3])],
    reference: impl Fn([f32; 3]) -> [f32; 3] + Sync,
) -> Vec<[f32; 3]> {
    let half = texels.len().div_ceil(2);
    std::thread::scope(|scope| {
        let parts: Vec<_> = texels
            .chunks(half.max(1))
            .map(|part| {
                let reference = &reference;
                scope.spawn(move || part.iter().map(|t| reference(t.3)).collect::<Vec<_>>())
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|part| part.join().expect("reference thread"))
            .collect()
    })
}

/// One cube level to judge: its name, GGX `alpha`, face size, and how to
/// read its texel (face, x, y).
struct JudgedLevel<'a> {
    /// What the report calls it.
    name: String,
    /// Its GGX `α`.
    alpha: f32,
    /// Its face size.
    size: usize,
    /// Its texel values.
    texel: Box<dyn Fn(usize, usize, usize) -> [f32; 3] + 'a>,
}

/// The worst relative error over the judged texels of a level whose
/// reference is `reference(direction)`.
fn worst_error(
    texels: &[(usize, usize, usize, [f32; 3])],
    reference: &[[f32; 3]],
    value: &dyn Fn(usize, usize, usize, [f32; 3]) -> [f32; 3],
) -> (f32, f32) {
    let errors: Vec<f32> = texels
        .iter()
        .zip(reference)
        .map(|(&(face, x, y, d), expected)| relative_error(value(face, x, y, d), *expected))
        .collect();
    let near_sun = worst(errors[errors.len() - SUN_OFFSETS.len()..].iter().copied());
    (worst(errors.iter().copied()), near_sun)
}

/// Reports each level's worst error against brute force, and, when
/// `split` is given, that of our method at the same roughness and size.
fn report_levels(
    environment: &Environment,
    levels: &[JudgedLevel],
    split: Option<&prefilter::Split>,
    sun: [f32; 3],
) {
    for level in levels {
        let texels = judged_texels(level.size, sun);
        let alpha = level.alpha;
        let reference = references(&texels, |r| {
            prefilter::brute_force_specular(environment, r, alpha)
        });
        let (all, near_sun) =
            worst_error(&texels, &reference, &|f, x, y, _| (level.texel)(f, x, y));
        let ours = split.map_or(String::new(), |split| {
            let filter = prefilter::LevelFilter::new(split, level.alpha, level.size);
            let (all, near_sun) =
                worst_error(&texels, &reference, &|_, _, _, r| filter.texel(split, r));
            format!(
                " | assetc at the same α: {} (near the sun {})",
                percent(all),
                percent(near_sun)
            )
        });
        println!(
            "  {} (α {:.4}, {}²): worst {} of {} texels (near the sun {}){ours}",
            level.name,
            level.alpha,
            level.size,
            percent(all),
            texels.len(),
            percent(near_sun),
        );
    }
}

/// The worst relative error of the texels of each output against brute
/// force over every source texel.
fn report_errors(environment: &Environment, set: &IblSet, size: usize, sun: [f32; 3]) {
    let levels = specular_levels(size);
    let judged: Vec<JudgedLevel> = (1..levels)
        .map(|level| {
            let roughness = prefilter::level_roughness(level, levels);
            let faces = &set.specular[level];
            JudgedLevel {
                name: format!("specular level {level} (roughness {roughness:.2})"),
                alpha: roughness * roughness,
                size: faces[0].size,
                texel: Box::new(move |face, x, y| faces[face].at(x, y)),
            }
        })
        .collect();
    report_levels(environment, &judged, None, sun);
    let irradiance = set.irradiance.as_ref().expect("irradiance");
    let texels = judged_texels(irradiance[0].size, sun);
    let reference = references(&texels, |n| {
        prefilter::brute_force_irradiance(environment, n)
    });
    let (written, _) = worst_error(&texels, &reference, &|face, x, y, _| {
        irradiance[face].at(x, y)
    });
    println!(
        "  irradiance cube: worst {} of {} texels",
        percent(written),
        texels.len()
    );
    let sh = worst(
        texels
            .iter()
            .zip(&reference)
            .map(|(&(.., n), expected)| relative_error(sh::evaluate(&set.sh, n), *expected)),
    );
    let peak = reference.iter().flatten().copied().fold(0.0, f32::max);
    let sh_of_peak = texels.iter().zip(&reference).map(|(&(.., n), expected)| {
        let found = sh::evaluate(&set.sh, n);
        (0..3)
            .map(|c| (found[c] - expected[c]).abs() / peak)
            .fold(0.0, f32::max)
    });
    println!(
        "  irradiance SH (9 coefficients): {} (largest error as a share of the brightest texel's irradiance: {})",
        percent(sh),
        percent(worst(sh_of_peak))
    );
}

/// Six faces of `size²` RGB little-endian `f32` texels, from a file.
fn read_faces(path: &std::path::Path, size: usize) -> Vec<cube::Face> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let values: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(values.len(), 6 * size * size * 3, "{}", path.display());
    values
        .chunks_exact(size * size * 3)
        .map(|face| cube::Face {
            size,
            texels: face.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        })
        .collect()
}

/// Judges another tool's cubes of the synthetic sky, with and without its
/// sun, next to ours at the same roughness (see the module notes).
fn judge_other_tool(dir: &std::path::Path, width: usize, size: usize) {
    let height = width / 2;
    let sun = sun_direction(width, height);
    for (name, sun_radiance) in [("sky", 50_000.0), ("calm", 0.0)] {
        let folder = dir.join(format!("{name}-{width}"));
        let listing = std::fs::read_to_string(folder.join("levels.txt")).expect("levels.txt");
        let hdr = synthetic_hdr(width, height, sun_radiance);
        let environment = Environment::from(decode_panorama(&hdr).expect("decode"));
        let radiance = cube::mip_chain(environment.to_cube(size));
        let split = prefilter::Split::new(&environment, &radiance);
        println!("{name} ({width}×{height}), against brute force:");
        let mut levels = Vec::new();
        let mut irradiance = None;
        for line in listing.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let face_size: usize = fields[2].parse().expect("size");
            let faces = read_faces(&folder.join(fields[1]), face_size);
            match fields[0] {
                "level" => {
                    let alpha: f32 = fields[3].parse().expect("alpha");
                    levels.push(JudgedLevel {
                        name: format!("{name} {}", fields[1]),
                        alpha,
                        size: face_size,
                        texel: Box::new(move |face, x, y| faces[face].at(x, y)),
                    });
                }
                _ => irradiance = Some(faces),
            }
        }
        report_levels(&environment, &levels, Some(&split), sun);
        if let Some(faces) = irradiance {
            let size = faces[0].size;
            let texels = judged_texels(size, sun);
            let reference = references(&texels, |n| {
                prefilter::brute_force_irradiance(&environment, n)
            });
            let (theirs, _) =
                worst_error(&texels, &reference, &|face, x, y, _| faces[face].at(x, y));
            let (ours, _) = worst_error(&texels, &reference, &|_, _, _, n| {
                prefilter::irradiance_at(&split, n)
            });
            println!(
                "  irradiance ({size}²): worst {} of {} texels | assetc: {}",
                percent(theirs),
                texels.len(),
                percent(ours)
            );
        }
    }
}

/// The largest of some errors.
fn worst(errors: impl Iterator<Item = f32>) -> f32 {
    errors.fold(0.0, f32::max)
}

/// An error as a percentage.
fn percent(error: f32) -> String {
    format!("{:.2}%", error * 100.0)
}

/// The largest relative error over the three channels.
fn relative_error(found: [f32; 3], expected: [f32; 3]) -> f32 {
    (0..3)
        .map(|c| (found[c] - expected[c]).abs() / expected[c].abs().max(1e-6))
        .fold(0.0, f32::max)
}

/// A Radiance HDR file of the synthetic panorama, its sun (0.7° in radius)
/// `sun_radiance` (0: none).
fn synthetic_hdr(width: usize, height: usize, sun_radiance: f32) -> Vec<u8> {
    let sun = sun_texel(width, height);
    let radius = (width / 512).max(1) as f32;
    Panorama::from_xy(width, height, |x, y| {
        let elevation = 1.0 - 2.0 * y as f32 / height as f32;
        let sky = if elevation > 0.0 {
            0.5 + elevation
        } else {
            0.2
        };
        let (dx, dy) = (x as f32 - sun.0 as f32, y as f32 - sun.1 as f32);
        let sun_light = if dx * dx + dy * dy < radius * radius {
            sun_radiance
        } else {
            0.0
        };
        let band = y * 8 / height == 4 && (x * 32 / width).is_multiple_of(2);
        let stripe = if band { 2.0 } else { 0.0 };
        [
            sky * 0.6 + sun_light + stripe,
            sky * 0.8 + sun_light,
            sky + sun_light,
        ]
    })
    .to_radiance_hdr()
}
