//! Mip chain generation with an exact area (box) filter.
//!
//! Every level is computed directly from level 0, never from the level above,
//! so rounding errors do not accumulate. Level `i` is `max(1, size >> i)` on
//! each axis; a destination pixel covers a box of `source / destination` source
//! pixels per axis, which is fractional for non-power-of-two sizes. Each source
//! pixel is weighted by the exact area it shares with that box: along one axis
//! the weights are integers in units of `1 / destination` source pixels, so the
//! filter is exact and separable.
//!
//! How channels are averaged depends on the [`TextureMode`]:
//!
//! * `Color`: RGB is decoded from sRGB to linear light (exact 256-entry table),
//!   weighted by alpha so fully transparent texels lend no colour, averaged and
//!   re-encoded to sRGB with correct rounding. A box that is entirely
//!   transparent takes the unweighted average colour instead. Alpha is averaged
//!   linearly.
//! * `Normal`: R and G are decoded from `[0, 255]` to `[-1, 1]` and Z is
//!   reconstructed as `sqrt(1 - x² - y²)` (the runtime sees `rg01` and rebuilds
//!   Z the same way, so a source's B channel is not trusted). The vectors are
//!   averaged, renormalised to unit length and re-encoded to R, G and B; alpha
//!   is 255.
//! * `Gray` and `Linear`: all four channels are averaged linearly.
//!
//! The filters are generic over the sample type ([`Sample`]): 8-bit and
//! 16-bit unsigned normalised samples are read as `[0, 1]` and rounded back
//! at their own precision (16-bit colour through the sRGB curve computed
//! in `f64`), and float samples (HDR sources) are linear already, so
//! `Color` averages them alpha-weighted without a transfer curve.
//!
//! The arithmetic is `f64` in a fixed order on one thread, so the output is
//! deterministic.

use core::ops::Range;

use super::image::RgbaImage;
use super::texture_mode::TextureMode;

/// Number of levels in a full mip chain down to 1x1: `floor(log2(max(w, h))) + 1`.
pub fn mip_level_count(width: u32, height: u32) -> usize {
    (u32::BITS - width.max(height).max(1).leading_zeros()) as usize
}

/// The size of level `level` of a chain from a `width` x `height` base:
/// each side shifted right by `level`, and at least 1.
pub fn level_size(width: u32, height: u32, level: usize) -> (u32, u32) {
    let shrink = |side: u32| side.checked_shr(level as u32).unwrap_or(0).max(1);
    (shrink(width), shrink(height))
}

/// Builds mip levels `levels` of `level0` (level 0 is an unchanged copy), each
/// filtered directly from `level0`.
pub fn mip_levels<T: Sample>(
    level0: &RgbaImage<T>,
    mode: TextureMode,
    levels: Range<usize>,
) -> Vec<RgbaImage<T>> {
    let build = |level: usize| -> RgbaImage<T> {
        match (level, mode) {
            (0, _) => level0.clone(),
            (_, TextureMode::Color) => downsample(level0, level, &ColorKernel(T::colour_codec())),
            (_, TextureMode::Normal) => downsample(level0, level, &NormalKernel),
            (_, TextureMode::Gray | TextureMode::Linear) => {
                downsample(level0, level, &LinearKernel)
            }
        }
    };
    levels.map(build).collect()
}

/// A sample type the filters read and write: 8-bit and 16-bit unsigned
/// normalised integers, and linear floats.
pub trait Sample: Copy {
    /// How colour samples are taken to linear light and back.
    type Colour: ColourCodec<Self>;

    /// The sample as a number: unorm samples in `[0, 1]`, floats as they are.
    fn to_unit(self) -> f64;

    /// The nearest sample to `value` (unorm samples clamp to `[0, 1]`).
    fn from_unit(value: f64) -> Self;

    /// The colour codec of this sample type.
    fn colour_codec() -> Self::Colour;

    /// `1 - value` at this sample's precision (a DirectX normal map's green
    /// turned into OpenGL's).
    fn inverted(self) -> Self;
}

/// How `Color` mode decodes a sample to linear light and encodes it back.
pub trait ColourCodec<T> {
    /// The linear value of a colour sample.
    fn decode(&self, sample: T) -> f64;

    /// The nearest colour sample to a linear value.
    fn encode(&self, linear: f64) -> T;
}

impl Sample for u8 {
    type Colour = Srgb8;

    fn to_unit(self) -> f64 {
        f64::from(self) / 255.0
    }

    fn from_unit(value: f64) -> Self {
        unit_to_u8(value)
    }

    fn colour_codec() -> Srgb8 {
        Srgb8::new()
    }

    fn inverted(self) -> Self {
        u8::MAX - self
    }
}

impl Sample for u16 {
    type Colour = Srgb16;

    fn to_unit(self) -> f64 {
        f64::from(self) / 65535.0
    }

    fn from_unit(value: f64) -> Self {
        (value * 65535.0).round().clamp(0.0, 65535.0) as u16
    }

    fn colour_codec() -> Srgb16 {
        Srgb16
    }

    fn inverted(self) -> Self {
        u16::MAX - self
    }
}

impl Sample for f32 {
    type Colour = LinearFloat;

    fn to_unit(self) -> f64 {
        f64::from(self)
    }

    fn from_unit(value: f64) -> Self {
        value as f32
    }

    fn colour_codec() -> LinearFloat {
        LinearFloat
    }

    fn inverted(self) -> Self {
        1.0 - self
    }
}

/// How one mode turns texels into `N` averageable values and back.
trait Kernel<T, const N: usize> {
    /// The values to average for one texel.
    fn load(&self, texel: [T; 4]) -> [f64; N];
    /// The texel for weighted sums of `load` values, where the weights add
    /// up to `total`.
    fn store(&self, sums: &[f64; N], total: f64) -> [T; 4];
}

/// Converts a value in `[0, 1]` to the nearest 8-bit value.
fn unit_to_u8(value: f64) -> u8 {
    (value * 255.0).round().clamp(0.0, 255.0) as u8
}

/// The sRGB electro-optical transfer function: encoded `[0, 1]` to linear.
fn srgb_to_linear(encoded: f64) -> f64 {
    if encoded <= 0.04045 {
        encoded / 12.92
    } else {
        ((encoded + 0.055) / 1.055).powf(2.4)
    }
}

/// The inverse of [`srgb_to_linear`]: linear `[0, 1]` to encoded.
fn linear_to_srgb(linear: f64) -> f64 {
    if linear <= 0.0031308 {
        linear * 12.92
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    }
}

/// 8-bit sRGB through exact tables.
pub struct Srgb8 {
    /// Linear value of each 8-bit sRGB code.
    decode: [f64; 256],
    /// `thresholds[k]` is the linear value of sRGB code `k + 0.5`: a linear value
    /// encodes to the number of thresholds at or below it, which rounds to the
    /// nearest code exactly.
    thresholds: [f64; 255],
}

impl Srgb8 {
    fn new() -> Self {
        Self {
            decode: core::array::from_fn(|code| srgb_to_linear(code as f64 / 255.0)),
            thresholds: core::array::from_fn(|code| srgb_to_linear((code as f64 + 0.5) / 255.0)),
        }
    }
}

impl ColourCodec<u8> for Srgb8 {
    fn decode(&self, code: u8) -> f64 {
        self.decode[usize::from(code)]
    }

    /// The nearest 8-bit sRGB code for a linear value.
    fn encode(&self, linear: f64) -> u8 {
        self.thresholds
            .partition_point(|&threshold| threshold <= linear) as u8
    }
}

/// 16-bit sRGB through the transfer functions.
pub struct Srgb16;

impl ColourCodec<u16> for Srgb16 {
    fn decode(&self, code: u16) -> f64 {
        srgb_to_linear(code.to_unit())
    }

    fn encode(&self, linear: f64) -> u16 {
        u16::from_unit(linear_to_srgb(linear.clamp(0.0, 1.0)))
    }
}

/// Linear floats: colour is averaged as stored.
pub struct LinearFloat;

impl ColourCodec<f32> for LinearFloat {
    fn decode(&self, sample: f32) -> f64 {
        f64::from(sample)
    }

    fn encode(&self, linear: f64) -> f32 {
        linear as f32
    }
}

/// `Color` mode: alpha-weighted averaging in linear light.
struct ColorKernel<C>(C);

/// Values: alpha-weighted linear RGB, alpha, then unweighted linear RGB.
impl<T: Sample, C: ColourCodec<T>> Kernel<T, 7> for ColorKernel<C> {
    fn load(&self, [r, g, b, a]: [T; 4]) -> [f64; 7] {
        let [r, g, b] = [r, g, b].map(|code| self.0.decode(code));
        let alpha = a.to_unit();
        [alpha * r, alpha * g, alpha * b, alpha, r, g, b]
    }

    fn store(&self, sums: &[f64; 7], total: f64) -> [T; 4] {
        let alpha_sum = sums[3];
        let colour = if alpha_sum > 0.0 {
            [sums[0], sums[1], sums[2]].map(|sum| sum / alpha_sum)
        } else {
            [sums[4], sums[5], sums[6]].map(|sum| sum / total)
        };
        let [r, g, b] = colour.map(|linear| self.0.encode(linear));
        [r, g, b, T::from_unit(alpha_sum / total)]
    }
}

/// `Normal` mode: averaged unit vectors, renormalised.
struct NormalKernel;

impl NormalKernel {
    /// Maps a unorm sample to `[-1, 1]`.
    fn decode<T: Sample>(code: T) -> f64 {
        code.to_unit() * 2.0 - 1.0
    }

    /// Maps `[-1, 1]` to the nearest unorm sample.
    fn encode<T: Sample>(component: f64) -> T {
        T::from_unit((component + 1.0) / 2.0)
    }
}

impl<T: Sample> Kernel<T, 3> for NormalKernel {
    fn load(&self, [r, g, _, _]: [T; 4]) -> [f64; 3] {
        let (x, y) = (Self::decode(r), Self::decode(g));
        let z = (1.0 - x * x - y * y).max(0.0).sqrt();
        [x, y, z]
    }

    fn store(&self, sums: &[f64; 3], _total: f64) -> [T; 4] {
        let length = sums.iter().map(|c| c * c).sum::<f64>().sqrt();
        // Opposite normals can cancel out; fall back to "straight up".
        let [x, y, z] = if length > 1e-12 {
            sums.map(|c| c / length)
        } else {
            [0.0, 0.0, 1.0]
        };
        [
            Self::encode(x),
            Self::encode(y),
            Self::encode(z),
            T::from_unit(1.0),
        ]
    }
}

/// `Gray` and `Linear` modes: every channel averaged as stored.
struct LinearKernel;

impl<T: Sample> Kernel<T, 4> for LinearKernel {
    fn load(&self, texel: [T; 4]) -> [f64; 4] {
        texel.map(Sample::to_unit)
    }

    fn store(&self, sums: &[f64; 4], total: f64) -> [T; 4] {
        sums.map(|sum| T::from_unit(sum / total))
    }
}

/// The source pixels one destination pixel covers along one axis.
struct Taps {
    /// Index of the first covered source pixel.
    first: usize,
    /// Overlap of each covered source pixel, in units of `1 / destination`
    /// source pixels; they add up to the source size.
    weights: Vec<f64>,
}

/// Area-filter taps for resampling `source` pixels to `destination` pixels.
///
/// Destination pixel `d` spans `[d * source, (d + 1) * source)` and source
/// pixel `s` spans `[s * destination, (s + 1) * destination)`, both in units
/// of `1 / destination` source pixels, so every overlap is an exact integer.
fn axis_taps(source: u32, destination: u32) -> Vec<Taps> {
    let (source, destination) = (u64::from(source), u64::from(destination));
    (0..destination)
        .map(|d| {
            let (start, end) = (d * source, (d + 1) * source);
            let first = start / destination;
            let last = (end - 1) / destination;
            let weights = (first..=last)
                .map(|s| {
                    let overlap = end.min((s + 1) * destination) - start.max(s * destination);
                    overlap as f64
                })
                .collect();
            Taps {
                first: first as usize,
                weights,
            }
        })
        .collect()
}

/// Computes mip level `level` of `source` with the area filter.
fn downsample<T: Sample, const N: usize, K: Kernel<T, N>>(
    source: &RgbaImage<T>,
    level: usize,
    kernel: &K,
) -> RgbaImage<T> {
    let (width, height) = level_size(source.width, source.height, level);
    let columns = axis_taps(source.width, width);
    let rows = axis_taps(source.height, height);
    let total = f64::from(source.width) * f64::from(source.height);

    let mut loaded = vec![[0.0; N]; source.width as usize];
    let mut filtered_row = vec![[0.0; N]; width as usize];
    let mut sums = vec![[0.0; N]; width as usize];
    let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
    for row_taps in &rows {
        sums.fill([0.0; N]);
        for (offset, &row_weight) in row_taps.weights.iter().enumerate() {
            load_row(source, row_taps.first + offset, kernel, &mut loaded);
            filter_row(&loaded, &columns, &mut filtered_row);
            for (sum, value) in sums.iter_mut().zip(&filtered_row) {
                for (sum, value) in sum.iter_mut().zip(value) {
                    *sum += row_weight * value;
                }
            }
        }
        pixels.extend(sums.iter().flat_map(|sum| kernel.store(sum, total)));
    }
    RgbaImage {
        width,
        height,
        pixels,
    }
}

/// Loads source row `y` through the kernel into `out`.
fn load_row<T: Sample, const N: usize, K: Kernel<T, N>>(
    source: &RgbaImage<T>,
    y: usize,
    kernel: &K,
    out: &mut [[f64; N]],
) {
    let row_len = source.width as usize * 4;
    let row = &source.pixels[y * row_len..(y + 1) * row_len];
    for (value, texel) in out.iter_mut().zip(row.chunks_exact(4)) {
        *value = kernel.load([texel[0], texel[1], texel[2], texel[3]]);
    }
}

/// Applies the horizontal taps to one loaded row.
fn filter_row<const N: usize>(loaded: &[[f64; N]], columns: &[Taps], out: &mut [[f64; N]]) {
    for (value, taps) in out.iter_mut().zip(columns) {
        *value = [0.0; N];
        let covered = &loaded[taps.first..taps.first + taps.weights.len()];
        for (source, &weight) in covered.iter().zip(&taps.weights) {
            for (channel, source) in value.iter_mut().zip(source) {
                *channel += weight * source;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::image::Rgba8Image;

    /// The full chain, level 0 first.
    fn mip_chain(level0: &Rgba8Image, mode: TextureMode) -> Vec<Rgba8Image> {
        mip_levels(
            level0,
            mode,
            0..mip_level_count(level0.width, level0.height),
        )
    }

    #[test]
    fn a_range_builds_only_those_levels() {
        let source = image(4, 4, &[[10, 20, 30, 255]; 16]);
        let tail = mip_levels(&source, TextureMode::Gray, 1..3);
        let sizes: Vec<_> = tail.iter().map(|l| (l.width, l.height)).collect();
        assert_eq!(sizes, [(2, 2), (1, 1)]);
        assert_eq!(tail, mip_chain(&source, TextureMode::Gray)[1..]);
    }

    fn image(width: u32, height: u32, pixels: &[[u8; 4]]) -> Rgba8Image {
        Rgba8Image {
            width,
            height,
            pixels: pixels.concat(),
        }
    }

    fn texels(image: &Rgba8Image) -> Vec<[u8; 4]> {
        image
            .pixels
            .chunks_exact(4)
            .map(|t| [t[0], t[1], t[2], t[3]])
            .collect()
    }

    fn sizes(width: u32, height: u32) -> Vec<(u32, u32)> {
        let source = image(width, height, &vec![[9; 4]; (width * height) as usize]);
        mip_chain(&source, TextureMode::Gray)
            .iter()
            .map(|level| {
                assert_eq!(
                    level.pixels.len(),
                    (level.width * level.height * 4) as usize
                );
                (level.width, level.height)
            })
            .collect()
    }

    #[test]
    fn chain_dimensions_for_non_power_of_two_sizes() {
        assert_eq!(sizes(5, 3), [(5, 3), (2, 1), (1, 1)]);
        assert_eq!(sizes(1, 7), [(1, 7), (1, 3), (1, 1)]);
        let widths: Vec<u32> = sizes(300, 1).iter().map(|&(w, _)| w).collect();
        assert_eq!(widths, [300, 150, 75, 37, 18, 9, 4, 2, 1]);
        assert_eq!(sizes(1, 1), [(1, 1)]);
        assert_eq!(mip_level_count(16384, 3), 15);
    }

    #[test]
    fn level_zero_is_unchanged_and_flat_images_stay_flat() {
        let source = image(5, 3, &[[10, 200, 30, 77]; 15]);
        for mode in [TextureMode::Color, TextureMode::Gray] {
            let chain = mip_chain(&source, mode);
            assert_eq!(chain[0], source);
            for level in &chain {
                assert!(texels(level).iter().all(|&t| t == [10, 200, 30, 77]));
            }
        }
    }

    #[test]
    fn taps_cover_fractional_pixels_exactly() {
        let taps = axis_taps(5, 2);
        assert_eq!(
            (taps[0].first, taps[0].weights.clone()),
            (0, vec![2.0, 2.0, 1.0])
        );
        assert_eq!(
            (taps[1].first, taps[1].weights.clone()),
            (2, vec![1.0, 2.0, 2.0])
        );
        let gray: Vec<[u8; 4]> = [0, 10, 20, 30, 40].map(|v| [v, v, v, 255]).to_vec();
        let level1 = &mip_chain(&image(5, 1, &gray), TextureMode::Gray)[1];
        // (0*2 + 10*2 + 20) / 5 = 8 and (20 + 30*2 + 40*2) / 5 = 32.
        assert_eq!(texels(level1), [[8, 8, 8, 255], [32, 32, 32, 255]]);
    }

    #[test]
    fn colour_is_averaged_in_linear_light() {
        let black = [0, 0, 0, 255];
        let white = [255, 255, 255, 255];
        let level1 = &mip_chain(
            &image(2, 2, &[black, white, white, black]),
            TextureMode::Color,
        )[1];
        // Linear 0.5 is sRGB 0.7354, code 187.5 -> 188 (a naive average gives 128).
        assert_eq!(texels(level1), [[188, 188, 188, 255]]);
        let gray = &mip_chain(
            &image(2, 2, &[black, white, white, black]),
            TextureMode::Gray,
        )[1];
        assert_eq!(texels(gray), [[128, 128, 128, 255]]);
    }

    #[test]
    fn transparent_texels_lend_no_colour() {
        let red = [255, 0, 0, 255];
        let clear_green = [0, 255, 0, 0];
        let level1 = &mip_chain(&image(2, 1, &[red, clear_green]), TextureMode::Color)[1];
        assert_eq!(texels(level1), [[255, 0, 0, 128]]);

        // A quarter-opaque blue next to opaque red: colour weighted 1:4.
        let faint_blue = [0, 0, 255, 51];
        let level1 = &mip_chain(&image(2, 1, &[red, faint_blue]), TextureMode::Color)[1];
        let kernel = Srgb8::new();
        let expected_red = kernel.encode(255.0 / 306.0);
        let expected_blue = kernel.encode(51.0 / 306.0);
        assert_eq!(texels(level1), [[expected_red, 0, expected_blue, 153]]);

        // Entirely transparent: the unweighted average colour.
        let clear_white = [255, 255, 255, 0];
        let clear_black = [0, 0, 0, 0];
        let level1 = &mip_chain(
            &image(2, 1, &[clear_white, clear_black]),
            TextureMode::Color,
        )[1];
        assert_eq!(texels(level1), [[188, 188, 188, 0]]);
    }

    #[test]
    fn srgb_codes_survive_a_decode_encode_round_trip() {
        let kernel = Srgb8::new();
        for code in 0..=255u8 {
            assert_eq!(kernel.encode(kernel.decode[usize::from(code)]), code);
        }
        assert_eq!(kernel.encode(-1.0), 0);
        assert_eq!(kernel.encode(2.0), 255);
    }

    fn decoded_length(texel: [u8; 4]) -> f64 {
        let [x, y, z] = [texel[0], texel[1], texel[2]].map(NormalKernel::decode::<u8>);
        (x * x + y * y + z * z).sqrt()
    }

    #[test]
    fn normals_are_renormalised() {
        // +X next to +Z: the average (0.5, 0, 0.5) renormalises to (0.707, 0, 0.707).
        let plus_x = [255, 128, 128, 255];
        let plus_z = [128, 128, 255, 255];
        let level1 = &mip_chain(&image(2, 1, &[plus_x, plus_z]), TextureMode::Normal)[1];
        let texel = texels(level1)[0];
        assert!((217..=218).contains(&texel[0]), "{texel:?}");
        assert!((127..=128).contains(&texel[1]), "{texel:?}");
        assert!((217..=218).contains(&texel[2]), "{texel:?}");
        assert_eq!(texel[3], 255);
        assert!((decoded_length(texel) - 1.0).abs() < 0.01);

        // A bumpy 4x4 map: every mip texel decodes to a unit vector.
        let bumpy: Vec<[u8; 4]> = (0..16u8)
            .map(|i| [40 + i * 11, 200 - i * 9, 0, 7])
            .collect();
        for level in &mip_chain(&image(4, 4, &bumpy), TextureMode::Normal)[1..] {
            for texel in texels(level) {
                assert!((decoded_length(texel) - 1.0).abs() < 0.01, "{texel:?}");
                assert_eq!(texel[3], 255);
            }
        }
    }

    #[test]
    fn cancelling_normals_fall_back_to_straight_up() {
        assert_eq!(
            Kernel::<u8, 3>::store(&NormalKernel, &[0.0, 0.0, 0.0], 2.0),
            [128, 128, 255, 255]
        );
    }
}
