//! The image-based-lighting benchmark of `docs/benchmarks.md`: a synthetic
//! 8192×4096 HDR panorama (sky gradient, a small sun of 50 000 times the sky,
//! a band of coloured stripes) through the whole IBL encoder, timed, and a
//! few output texels compared with a brute-force integration over all 33.5
//! million panorama texels.
//!
//! ```text
//! cargo run --release --example ibl_bench [width] [face size]
//! ```

use std::time::Instant;

use assetc::config::IblFormat;
use assetc::encode::ibl::panorama::Panorama;
use assetc::encode::ibl::{
    IblOptions, IblSet, compute, cube, decode_panorama, encode_ibl, prefilter, sh, specular_levels,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let width: usize = args.next().map_or(8192, |a| a.parse().expect("width"));
    let size: usize = args.next().map_or(256, |a| a.parse().expect("face size"));
    let height = width / 2;
    let file = synthetic_hdr(width, height);
    println!("panorama {width}x{height}, {} MB as .hdr", file.len() >> 20);
    let options = IblOptions {
        size,
        irradiance: true,
        format: IblFormat::Rgba16f,
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

    let start = Instant::now();
    let panorama = decode_panorama(&file).expect("decode");
    println!(
        "  of which decoding: {:.2} s",
        start.elapsed().as_secs_f64()
    );
    let set = compute(&panorama, &options);
    report_errors(&panorama, &set, size);
}

/// The user CPU time of this process so far, in seconds (the encoder runs
/// on one thread, so on a busy machine this is the figure to compare).
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

/// The relative errors of a few texels of each output against brute force.
fn report_errors(panorama: &Panorama, set: &IblSet, size: usize) {
    let levels = specular_levels(size);
    let texels = [(4, 0.3, 0.2), (2, -0.5, 0.1), (0, 0.0, 0.0), (5, 0.6, -0.7)];
    for level in 1..levels {
        let roughness = prefilter::level_roughness(level, levels);
        let face_size = size >> level;
        let mut worst: f32 = 0.0;
        for (face, s, t) in texels {
            let (x, y) = cube::texel_of(s, t, face_size);
            let r = cube::texel_direction(face, x, y, face_size);
            let expected = prefilter::brute_force_specular(panorama, r, roughness * roughness);
            worst = worst.max(relative_error(set.specular[level][face].at(x, y), expected));
        }
        println!(
            "  specular level {level} (roughness {roughness:.2}): worst relative error {:.2}% over {} texels",
            worst * 100.0,
            texels.len()
        );
    }
    let (mut cube_worst, mut sh_worst): (f32, f32) = (0.0, 0.0);
    let irradiance = set.irradiance.as_ref().expect("irradiance");
    for (face, s, t) in texels {
        let (x, y) = cube::texel_of(s, t, irradiance[0].size);
        let n = cube::texel_direction(face, x, y, irradiance[0].size);
        let expected = prefilter::brute_force_irradiance(panorama, n);
        cube_worst = cube_worst.max(relative_error(irradiance[face].at(x, y), expected));
        sh_worst = sh_worst.max(relative_error(sh::evaluate(&set.sh, n), expected));
    }
    println!(
        "  irradiance cube: worst relative error {:.2}%",
        cube_worst * 100.0
    );
    println!(
        "  irradiance SH (9 coefficients): worst relative error {:.2}%",
        sh_worst * 100.0
    );
}

/// The largest relative error over the three channels.
fn relative_error(found: [f32; 3], expected: [f32; 3]) -> f32 {
    (0..3)
        .map(|c| (found[c] - expected[c]).abs() / expected[c].abs().max(1e-6))
        .fold(0.0, f32::max)
}

/// A Radiance HDR file of the synthetic panorama.
fn synthetic_hdr(width: usize, height: usize) -> Vec<u8> {
    let sun = (width * 5 / 8, height / 5);
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
            50_000.0
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
