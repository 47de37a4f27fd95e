//! Data Format Descriptors: the Khronos "basic descriptor block" a KTX 2.0
//! file uses to say what its texels mean.
//!
//! The builders here produce, word for word, what KTX-Software's `vk2dfd`
//! produces for the same `vkFormat`, because `ktx validate` compares the two.
//! Three shapes cover every format assetc writes: unpacked little-endian
//! channels (one sample per channel), block-compressed formats (one sample
//! per 64- or 128-bit plane), and the shared-exponent RGB9E5 special case.

/// `KHR_DF_VERSIONNUMBER_1_3`, the current descriptor block version.
const VERSION: u32 = 2;
/// Bytes of a basic descriptor block before its samples.
const BASIC_HEADER_LEN: u32 = 24;
/// Bytes of one sample in a basic descriptor block.
const SAMPLE_LEN: u32 = 16;
/// `KHR_DF_MODEL_RGBSDA`.
const MODEL_RGBSDA: u32 = 1;
/// `KHR_DF_MODEL_ETC1S`, the colour model of BasisLZ payloads (not written).
pub const MODEL_ETC1S: u32 = 163;
/// `KHR_DF_MODEL_UASTC`, the colour model of UASTC payloads.
pub const MODEL_UASTC: u32 = 166;
/// `KHR_DF_PRIMARIES_BT709` (the sRGB primaries).
const PRIMARIES_BT709: u32 = 1;
/// `KHR_DF_FLAG_ALPHA_STRAIGHT`.
const FLAGS_ALPHA_STRAIGHT: u32 = 0;
/// RGBSDA channel ids of red, green, blue and alpha.
const CHANNELS_RGBA: [u32; 4] = [0, 1, 2, 15];
/// RGBSDA channel id of alpha.
const CHANNEL_ALPHA: u32 = 15;
/// `KHR_DF_SAMPLE_DATATYPE_LINEAR`, as it sits in the channel byte.
const QUALIFIER_LINEAR: u32 = 0x10;
/// `KHR_DF_SAMPLE_DATATYPE_EXPONENT`, as it sits in the channel byte.
const QUALIFIER_EXPONENT: u32 = 0x20;
/// `KHR_DF_SAMPLE_DATATYPE_SIGNED`, as it sits in the channel byte.
const QUALIFIER_SIGNED: u32 = 0x40;
/// `KHR_DF_SAMPLE_DATATYPE_FLOAT`, as it sits in the channel byte.
const QUALIFIER_FLOAT: u32 = 0x80;
/// 1.0 as an `f32` bit pattern.
const ONE_F32: u32 = 0x3F80_0000;
/// -1.0 as an `f32` bit pattern.
const MINUS_ONE_F32: u32 = 0xBF80_0000;

/// `KHR_DF_TRANSFER_*`: how stored values map to linear light.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transfer {
    /// `KHR_DF_TRANSFER_LINEAR`.
    Linear = 1,
    /// `KHR_DF_TRANSFER_SRGB`.
    Srgb = 2,
}

impl Transfer {
    /// The transfer function for an sRGB flag.
    pub fn from_srgb(srgb: bool) -> Self {
        if srgb { Self::Srgb } else { Self::Linear }
    }
}

/// How each channel of an unpacked format is stored.
pub struct ChannelSample {
    /// Bits per channel.
    bits: u32,
    /// Qualifier bits (float, signed) of every channel.
    qualifiers: u32,
    /// `sampleLower`: the stored value that means 0.0 (or -1.0 for signed floats).
    lower: u32,
    /// `sampleUpper`: the stored value that means 1.0.
    upper: u32,
}

/// 8-bit unsigned normalised channels.
pub const UNORM8: ChannelSample = ChannelSample {
    bits: 8,
    qualifiers: 0,
    lower: 0,
    upper: 255,
};

/// 16-bit unsigned normalised channels.
pub const UNORM16: ChannelSample = ChannelSample {
    bits: 16,
    qualifiers: 0,
    lower: 0,
    upper: 65535,
};

/// 16-bit half-float channels: the bounds are -1.0 and 1.0 as f32 bit patterns.
pub const SFLOAT16: ChannelSample = ChannelSample {
    bits: 16,
    qualifiers: QUALIFIER_FLOAT | QUALIFIER_SIGNED,
    lower: MINUS_ONE_F32,
    upper: ONE_F32,
};

/// How a block-compressed format's samples are laid out.
pub struct BlockScheme {
    /// The DFD colour model (`KHR_DF_MODEL_*`).
    model: u32,
    /// Bytes per block.
    bytes: u32,
    /// Bits per sample; a block of two planes has two samples of 64 bits.
    sample_bits: u32,
    /// The channel id of each sample, in order.
    channels: &'static [u32],
    /// Qualifier bits of every sample.
    qualifiers: u32,
    /// `sampleLower` of every sample.
    lower: u32,
    /// `sampleUpper` of every sample.
    upper: u32,
}

/// BC1 without alpha (`KHR_DF_MODEL_BC1A`, channel colour).
pub const BC1: BlockScheme = BlockScheme {
    model: 128,
    bytes: 8,
    sample_bits: 64,
    channels: &[0],
    qualifiers: 0,
    lower: 0,
    upper: u32::MAX,
};

/// BC4 (`KHR_DF_MODEL_BC4`, channel data).
pub const BC4: BlockScheme = BlockScheme { model: 131, ..BC1 };

/// BC5 (`KHR_DF_MODEL_BC5`, a red then a green 64-bit plane).
pub const BC5: BlockScheme = BlockScheme {
    model: 132,
    bytes: 16,
    channels: &[0, 1],
    ..BC1
};

/// BC6H unsigned (`KHR_DF_MODEL_BC6H`, float colour from 0.0 to 1.0).
pub const BC6H: BlockScheme = BlockScheme {
    model: 133,
    qualifiers: QUALIFIER_FLOAT,
    upper: ONE_F32,
    ..BC7
};

/// BC7 (`KHR_DF_MODEL_BC7`, channel colour).
pub const BC7: BlockScheme = BlockScheme {
    model: 134,
    bytes: 16,
    sample_bits: 128,
    ..BC1
};

/// ASTC LDR (`KHR_DF_MODEL_ASTC`, channel data).
pub const ASTC: BlockScheme = BlockScheme { model: 162, ..BC7 };

/// ASTC HDR (`KHR_DF_MODEL_ASTC`, signed float data from -1.0 to 1.0).
pub const ASTC_HDR: BlockScheme = BlockScheme {
    qualifiers: QUALIFIER_FLOAT | QUALIFIER_SIGNED,
    lower: MINUS_ONE_F32,
    upper: ONE_F32,
    ..ASTC
};

/// The first words of a basic descriptor block (total-size word included)
/// for `sample_count` samples.
fn prefix(
    model: u32,
    transfer: Transfer,
    block_dimensions: u32,
    bytes_plane0: u32,
    sample_count: u32,
) -> Vec<u32> {
    let block_len = BASIC_HEADER_LEN + SAMPLE_LEN * sample_count;
    vec![
        4 + block_len, // dfdTotalSize
        0,             // vendorId = Khronos (0), descriptorType = basic (0)
        VERSION | (block_len << 16),
        model | (PRIMARIES_BT709 << 8) | ((transfer as u32) << 16) | (FLAGS_ALPHA_STRAIGHT << 24),
        block_dimensions, // texelBlockDimension0..3, each stored minus one
        bytes_plane0,     // bytesPlane0, bytesPlane1..3 = 0
        0,                // bytesPlane4..7 = 0
    ]
}

/// Appends one sample's four words.
fn push_sample(words: &mut Vec<u32>, bit_offset: u32, bits: u32, channel: u32, bounds: (u32, u32)) {
    words.push(bit_offset | ((bits - 1) << 16) | (channel << 24));
    words.push(0); // samplePosition0..3
    words.push(bounds.0);
    words.push(bounds.1);
}

/// The DFD words of an unpacked little-endian format of `count` channels (R,
/// then G, B, A), each holding one `sample`.
pub fn unpacked(transfer: Transfer, sample: &ChannelSample, count: usize) -> Vec<u32> {
    let bytes = sample.bits / 8 * count as u32;
    let mut words = prefix(MODEL_RGBSDA, transfer, 0, bytes, count as u32);
    for (index, &channel) in CHANNELS_RGBA[..count].iter().enumerate() {
        let linear_alpha = channel == CHANNEL_ALPHA && transfer == Transfer::Srgb;
        let qualifiers = sample.qualifiers | if linear_alpha { QUALIFIER_LINEAR } else { 0 };
        let bit_offset = sample.bits * index as u32;
        let bounds = (sample.lower, sample.upper);
        push_sample(
            &mut words,
            bit_offset,
            sample.bits,
            channel | qualifiers,
            bounds,
        );
    }
    words
}

/// UASTC 4x4 whose blocks carry colour only (`KHR_DF_CHANNEL_UASTC_RGB`).
pub const UASTC_RGB: BlockScheme = BlockScheme {
    model: MODEL_UASTC,
    ..BC7
};

/// UASTC 4x4 whose blocks carry colour and alpha (`KHR_DF_CHANNEL_UASTC_RGBA`).
///
/// For both UASTC schemes `bytesPlane0` stays 16 even when the levels are
/// Zstandard-compressed, as KTX-Software writes and validates it.
pub const UASTC_RGBA: BlockScheme = BlockScheme {
    channels: &[3],
    ..UASTC_RGB
};

/// The DFD words of a block-compressed format with `width` x `height` blocks.
pub fn compressed(
    scheme: &BlockScheme,
    transfer: Transfer,
    (width, height): (u32, u32),
) -> Vec<u32> {
    let dimensions = (width - 1) | ((height - 1) << 8);
    let count = scheme.channels.len() as u32;
    let mut words = prefix(scheme.model, transfer, dimensions, scheme.bytes, count);
    for (index, &channel) in scheme.channels.iter().enumerate() {
        let bit_offset = scheme.sample_bits * index as u32;
        let id = channel | scheme.qualifiers;
        let bounds = (scheme.lower, scheme.upper);
        push_sample(&mut words, bit_offset, scheme.sample_bits, id, bounds);
    }
    words
}

/// The DFD words of `VK_FORMAT_E5B9G9R9_UFLOAT_PACK32`: for each of R, G
/// and B a 9-bit mantissa sample (upper bound 8448, the mantissa of 1.0
/// with the exponent bias folded in) and the shared 5-bit exponent sample
/// (bias 15, maximum 31).
pub fn rgb9e5() -> Vec<u32> {
    const MANTISSA_UPPER: u32 = 8448;
    const EXPONENT_BOUNDS: (u32, u32) = (15, 31);
    let mut words = prefix(MODEL_RGBSDA, Transfer::Linear, 0, 4, 6);
    for channel in 0..3 {
        push_sample(&mut words, 9 * channel, 9, channel, (0, MANTISSA_UPPER));
        let exponent = channel | QUALIFIER_EXPONENT;
        push_sample(&mut words, 27, 5, exponent, EXPONENT_BOUNDS);
    }
    words
}
