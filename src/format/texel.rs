//! The texel formats assetc writes into KTX 2.0 files, and what an engine
//! needs to know about each: its `vkFormat`, its texel block (dimensions and
//! bytes), its name in `assetc.yml` and the manifest, and its Data Format
//! Descriptor (built in [`super::dfd`]).
//!
//! One table serves the writer, the validator, `assetc info`, the inspector
//! and the C header, so a format is added in one place.

use super::dfd::{self, Transfer};

/// `VK_FORMAT_UNDEFINED`, the `vkFormat` of Basis Universal (UASTC) payloads,
/// whose real format lives in the DFD.
pub const VK_FORMAT_UNDEFINED: u32 = 0;
/// `VK_FORMAT_R8_UNORM`: one linear 8-bit channel.
pub const VK_FORMAT_R8_UNORM: u32 = 9;
/// `VK_FORMAT_R8G8B8A8_UNORM`: four linear 8-bit channels.
pub const VK_FORMAT_R8G8B8A8_UNORM: u32 = 37;
/// `VK_FORMAT_R8G8B8A8_SRGB`: sRGB-encoded RGB plus linear alpha, 8 bits each.
pub const VK_FORMAT_R8G8B8A8_SRGB: u32 = 43;
/// `VK_FORMAT_R16_UNORM`: one linear 16-bit channel.
pub const VK_FORMAT_R16_UNORM: u32 = 70;
/// `VK_FORMAT_R16G16_UNORM`: two linear 16-bit channels.
pub const VK_FORMAT_R16G16_UNORM: u32 = 77;
/// `VK_FORMAT_R16G16_SFLOAT`: two 16-bit IEEE half floats.
pub const VK_FORMAT_R16G16_SFLOAT: u32 = 83;
/// `VK_FORMAT_R16G16B16A16_UNORM`: four linear 16-bit channels.
pub const VK_FORMAT_R16G16B16A16_UNORM: u32 = 91;
/// `VK_FORMAT_R16G16B16A16_SFLOAT`: four 16-bit IEEE half floats.
pub const VK_FORMAT_R16G16B16A16_SFLOAT: u32 = 97;
/// `VK_FORMAT_E5B9G9R9_UFLOAT_PACK32`: RGB with three 9-bit mantissas and one
/// shared 5-bit exponent in a 32-bit word.
pub const VK_FORMAT_E5B9G9R9_UFLOAT_PACK32: u32 = 123;
/// `VK_FORMAT_BC1_RGB_UNORM_BLOCK`; the sRGB form is this plus one.
pub const VK_FORMAT_BC1_RGB_UNORM_BLOCK: u32 = 131;
/// `VK_FORMAT_BC4_UNORM_BLOCK`: one channel, 8 bytes per 4x4 block.
pub const VK_FORMAT_BC4_UNORM_BLOCK: u32 = 139;
/// `VK_FORMAT_BC5_UNORM_BLOCK`: two channels, 16 bytes per 4x4 block.
pub const VK_FORMAT_BC5_UNORM_BLOCK: u32 = 141;
/// `VK_FORMAT_BC6H_UFLOAT_BLOCK`: unsigned HDR RGB, 16 bytes per 4x4 block.
pub const VK_FORMAT_BC6H_UFLOAT_BLOCK: u32 = 143;
/// `VK_FORMAT_BC7_UNORM_BLOCK`; the sRGB form is this plus one.
pub const VK_FORMAT_BC7_UNORM_BLOCK: u32 = 145;
/// `VK_FORMAT_ASTC_4x4_UNORM_BLOCK`, the first of the LDR ASTC formats: each
/// block size has a UNORM code and, one above it, an SRGB code.
pub const VK_FORMAT_ASTC_4X4_UNORM_BLOCK: u32 = 157;
/// `VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK`, the first of the HDR ASTC formats (one
/// code per block size, in the same order as the LDR ones).
pub const VK_FORMAT_ASTC_4X4_SFLOAT_BLOCK: u32 = 1_000_066_000;

/// The two-dimensional ASTC block footprints assetc writes, smallest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AstcBlock {
    /// 4x4 texels: 8 bits per texel.
    B4x4,
    /// 5x4 texels.
    B5x4,
    /// 5x5 texels: 5.12 bits per texel.
    B5x5,
    /// 6x5 texels.
    B6x5,
    /// 6x6 texels: 3.56 bits per texel.
    B6x6,
    /// 8x5 texels.
    B8x5,
    /// 8x6 texels.
    B8x6,
    /// 8x8 texels: 2 bits per texel.
    B8x8,
}

impl AstcBlock {
    /// Every footprint, in `vkFormat` order.
    pub const ALL: [AstcBlock; 8] = [
        Self::B4x4,
        Self::B5x4,
        Self::B5x5,
        Self::B6x5,
        Self::B6x6,
        Self::B8x5,
        Self::B8x6,
        Self::B8x8,
    ];

    /// Width and height of the footprint in texels.
    pub fn dimensions(self) -> (u32, u32) {
        match self {
            Self::B4x4 => (4, 4),
            Self::B5x4 => (5, 4),
            Self::B5x5 => (5, 5),
            Self::B6x5 => (6, 5),
            Self::B6x6 => (6, 6),
            Self::B8x5 => (8, 5),
            Self::B8x6 => (8, 6),
            Self::B8x8 => (8, 8),
        }
    }

    /// The footprint's position in [`Self::ALL`], which is also its offset
    /// in the `vkFormat` tables.
    fn index(self) -> u32 {
        Self::ALL
            .iter()
            .position(|&block| block == self)
            .unwrap_or(0) as u32
    }

    /// The footprint whose dimensions are `width` x `height`, if ASTC has one
    /// that assetc writes.
    pub fn from_dimensions(width: u32, height: u32) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|block| block.dimensions() == (width, height))
    }
}

/// The texel formats assetc writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexelFormat {
    /// One linear 8-bit channel (`VK_FORMAT_R8_UNORM`).
    R8Unorm,
    /// Four 8-bit channels, R first: `VK_FORMAT_R8G8B8A8_SRGB` when `srgb`,
    /// otherwise `VK_FORMAT_R8G8B8A8_UNORM`.
    Rgba8 {
        /// Whether R, G and B are sRGB-encoded (alpha is always linear).
        srgb: bool,
    },
    /// One linear 16-bit channel (`VK_FORMAT_R16_UNORM`).
    R16Unorm,
    /// Two linear 16-bit channels (`VK_FORMAT_R16G16_UNORM`).
    Rg16Unorm,
    /// Four linear 16-bit channels (`VK_FORMAT_R16G16B16A16_UNORM`).
    Rgba16Unorm,
    /// Two 16-bit half floats (`VK_FORMAT_R16G16_SFLOAT`).
    Rg16Float,
    /// Four 16-bit half floats, R first (`VK_FORMAT_R16G16B16A16_SFLOAT`).
    Rgba16Float,
    /// Shared-exponent RGB in 32 bits (`VK_FORMAT_E5B9G9R9_UFLOAT_PACK32`).
    Rgb9e5,
    /// UASTC 4x4: 16 bytes per 4x4 block, `vkFormat` 0, described by the DFD.
    Uastc {
        /// Whether the decoded RGB is sRGB-encoded.
        srgb: bool,
        /// Whether any block carries alpha (DFD channel `RGBA` rather than `RGB`).
        alpha: bool,
    },
    /// BC1 without alpha: 8 bytes per 4x4 block.
    Bc1 {
        /// Whether the decoded RGB is sRGB-encoded.
        srgb: bool,
    },
    /// BC4: one linear channel, 8 bytes per 4x4 block.
    Bc4,
    /// BC5: two linear channels, 16 bytes per 4x4 block.
    Bc5,
    /// BC6H unsigned: HDR RGB, 16 bytes per 4x4 block.
    Bc6h,
    /// BC7: RGBA, 16 bytes per 4x4 block.
    Bc7 {
        /// Whether the decoded RGB is sRGB-encoded.
        srgb: bool,
    },
    /// ASTC LDR: 16 bytes per block of the given footprint.
    Astc {
        /// The block footprint.
        block: AstcBlock,
        /// Whether the decoded RGB is sRGB-encoded.
        srgb: bool,
    },
    /// ASTC HDR: 16 bytes per block, decoded to half floats.
    AstcHdr {
        /// The block footprint.
        block: AstcBlock,
    },
}

impl TexelFormat {
    /// The header's `vkFormat`.
    pub fn vk_format(self) -> u32 {
        let srgb_offset = |srgb: bool| u32::from(srgb);
        match self {
            Self::R8Unorm => VK_FORMAT_R8_UNORM,
            Self::Rgba8 { srgb: true } => VK_FORMAT_R8G8B8A8_SRGB,
            Self::Rgba8 { srgb: false } => VK_FORMAT_R8G8B8A8_UNORM,
            Self::R16Unorm => VK_FORMAT_R16_UNORM,
            Self::Rg16Unorm => VK_FORMAT_R16G16_UNORM,
            Self::Rgba16Unorm => VK_FORMAT_R16G16B16A16_UNORM,
            Self::Rg16Float => VK_FORMAT_R16G16_SFLOAT,
            Self::Rgba16Float => VK_FORMAT_R16G16B16A16_SFLOAT,
            Self::Rgb9e5 => VK_FORMAT_E5B9G9R9_UFLOAT_PACK32,
            Self::Uastc { .. } => VK_FORMAT_UNDEFINED,
            Self::Bc1 { srgb } => VK_FORMAT_BC1_RGB_UNORM_BLOCK + srgb_offset(srgb),
            Self::Bc4 => VK_FORMAT_BC4_UNORM_BLOCK,
            Self::Bc5 => VK_FORMAT_BC5_UNORM_BLOCK,
            Self::Bc6h => VK_FORMAT_BC6H_UFLOAT_BLOCK,
            Self::Bc7 { srgb } => VK_FORMAT_BC7_UNORM_BLOCK + srgb_offset(srgb),
            Self::Astc { block, srgb } => {
                VK_FORMAT_ASTC_4X4_UNORM_BLOCK + 2 * block.index() + srgb_offset(srgb)
            }
            Self::AstcHdr { block } => VK_FORMAT_ASTC_4X4_SFLOAT_BLOCK + block.index(),
        }
    }

    /// The format a `vkFormat` names, for every format assetc writes except
    /// UASTC (whose `vkFormat` is 0 and whose kind lives in the DFD).
    pub fn from_vk_format(vk_format: u32) -> Option<Self> {
        let fixed = [
            Self::R8Unorm,
            Self::Rgba8 { srgb: false },
            Self::Rgba8 { srgb: true },
            Self::R16Unorm,
            Self::Rg16Unorm,
            Self::Rgba16Unorm,
            Self::Rg16Float,
            Self::Rgba16Float,
            Self::Rgb9e5,
            Self::Bc1 { srgb: false },
            Self::Bc1 { srgb: true },
            Self::Bc4,
            Self::Bc5,
            Self::Bc6h,
            Self::Bc7 { srgb: false },
            Self::Bc7 { srgb: true },
        ];
        let astc = AstcBlock::ALL.into_iter().flat_map(|block| {
            [
                Self::Astc { block, srgb: false },
                Self::Astc { block, srgb: true },
                Self::AstcHdr { block },
            ]
        });
        fixed
            .into_iter()
            .chain(astc)
            .find(|format| format.vk_format() == vk_format)
    }

    /// The format's name as `texture.format` spells it and the manifest,
    /// `assetc info` and the inspector print it: `bc7`, `astc-6x6`,
    /// `rgba16f`, … (the colour space is not part of the name).
    pub fn name(self) -> &'static str {
        const ASTC: [&str; 8] = [
            "astc-4x4", "astc-5x4", "astc-5x5", "astc-6x5", "astc-6x6", "astc-8x5", "astc-8x6",
            "astc-8x8",
        ];
        const ASTC_HDR: [&str; 8] = [
            "astc-hdr-4x4",
            "astc-hdr-5x4",
            "astc-hdr-5x5",
            "astc-hdr-6x5",
            "astc-hdr-6x6",
            "astc-hdr-8x5",
            "astc-hdr-8x6",
            "astc-hdr-8x8",
        ];
        match self {
            Self::R8Unorm => "r8",
            Self::Rgba8 { .. } => "rgba8",
            Self::R16Unorm => "r16",
            Self::Rg16Unorm => "rg16",
            Self::Rgba16Unorm => "rgba16",
            Self::Rg16Float => "rg16f",
            Self::Rgba16Float => "rgba16f",
            Self::Rgb9e5 => "rgb9e5",
            Self::Uastc { .. } => "uastc",
            Self::Bc1 { .. } => "bc1",
            Self::Bc4 => "bc4",
            Self::Bc5 => "bc5",
            Self::Bc6h => "bc6h",
            Self::Bc7 { .. } => "bc7",
            Self::Astc { block, .. } => ASTC[block.index() as usize],
            Self::AstcHdr { block } => ASTC_HDR[block.index() as usize],
        }
    }

    /// Whether the RGB channels are sRGB-encoded.
    pub fn is_srgb(self) -> bool {
        match self {
            Self::Rgba8 { srgb }
            | Self::Uastc { srgb, .. }
            | Self::Bc1 { srgb }
            | Self::Bc7 { srgb }
            | Self::Astc { srgb, .. } => srgb,
            _ => false,
        }
    }

    /// Whether the texels decode to floating-point values (HDR formats).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Self::Rg16Float | Self::Rgba16Float | Self::Rgb9e5 | Self::Bc6h | Self::AstcHdr { .. }
        )
    }

    /// Width and height in texels of one texel block: 1x1 for uncompressed
    /// formats.
    pub fn block_dimensions(self) -> (u32, u32) {
        match self {
            Self::Uastc { .. } | Self::Bc1 { .. } | Self::Bc4 | Self::Bc5 | Self::Bc6h => (4, 4),
            Self::Bc7 { .. } => (4, 4),
            Self::Astc { block, .. } | Self::AstcHdr { block } => block.dimensions(),
            _ => (1, 1),
        }
    }

    /// Bytes per texel block (one pixel for uncompressed formats).
    pub fn texel_block_size(self) -> u64 {
        match self {
            Self::R8Unorm => 1,
            Self::R16Unorm => 2,
            Self::Rgba8 { .. } | Self::Rg16Unorm | Self::Rg16Float | Self::Rgb9e5 => 4,
            Self::Rgba16Unorm | Self::Rgba16Float | Self::Bc1 { .. } | Self::Bc4 => 8,
            Self::Uastc { .. }
            | Self::Bc5
            | Self::Bc6h
            | Self::Bc7 { .. }
            | Self::Astc { .. }
            | Self::AstcHdr { .. } => 16,
        }
    }

    /// The bytes one `width` x `height` image takes: whole blocks, rounded up.
    pub fn image_bytes(self, width: u32, height: u32) -> u64 {
        let (block_width, block_height) = self.block_dimensions();
        u64::from(width.div_ceil(block_width))
            * u64::from(height.div_ceil(block_height))
            * self.texel_block_size()
    }

    /// The header's `typeSize`: the size of the unit to byte-swap.
    pub fn type_size(self) -> u32 {
        match self {
            Self::R16Unorm
            | Self::Rg16Unorm
            | Self::Rgba16Unorm
            | Self::Rg16Float
            | Self::Rgba16Float => 2,
            Self::Rgb9e5 => 4,
            _ => 1,
        }
    }

    /// The complete Data Format Descriptor, total-size word included, as
    /// KTX-Software's `vk2dfd` builds it for the same `vkFormat`.
    pub fn dfd(self) -> Vec<u8> {
        let transfer = Transfer::from_srgb(self.is_srgb());
        let words = match self {
            Self::R8Unorm => dfd::unpacked(transfer, &dfd::UNORM8, 1),
            Self::Rgba8 { .. } => dfd::unpacked(transfer, &dfd::UNORM8, 4),
            Self::R16Unorm => dfd::unpacked(transfer, &dfd::UNORM16, 1),
            Self::Rg16Unorm => dfd::unpacked(transfer, &dfd::UNORM16, 2),
            Self::Rgba16Unorm => dfd::unpacked(transfer, &dfd::UNORM16, 4),
            Self::Rg16Float => dfd::unpacked(transfer, &dfd::SFLOAT16, 2),
            Self::Rgba16Float => dfd::unpacked(transfer, &dfd::SFLOAT16, 4),
            Self::Rgb9e5 => dfd::rgb9e5(),
            Self::Uastc { alpha: false, .. } => dfd::compressed(&dfd::UASTC_RGB, transfer, (4, 4)),
            Self::Uastc { alpha: true, .. } => dfd::compressed(&dfd::UASTC_RGBA, transfer, (4, 4)),
            Self::Bc1 { .. } => dfd::compressed(&dfd::BC1, transfer, (4, 4)),
            Self::Bc4 => dfd::compressed(&dfd::BC4, transfer, (4, 4)),
            Self::Bc5 => dfd::compressed(&dfd::BC5, transfer, (4, 4)),
            Self::Bc6h => dfd::compressed(&dfd::BC6H, transfer, (4, 4)),
            Self::Bc7 { .. } => dfd::compressed(&dfd::BC7, transfer, (4, 4)),
            Self::Astc { block, .. } => dfd::compressed(&dfd::ASTC, transfer, block.dimensions()),
            Self::AstcHdr { block } => {
                dfd::compressed(&dfd::ASTC_HDR, transfer, block.dimensions())
            }
        };
        words.iter().flat_map(|word| word.to_le_bytes()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every format the table knows, UASTC aside.
    fn every_format() -> Vec<TexelFormat> {
        (0..200)
            .chain(VK_FORMAT_ASTC_4X4_SFLOAT_BLOCK..VK_FORMAT_ASTC_4X4_SFLOAT_BLOCK + 8)
            .filter_map(TexelFormat::from_vk_format)
            .collect()
    }

    #[test]
    fn vk_formats_round_trip_and_match_the_vulkan_registry() {
        let formats = every_format();
        assert_eq!(formats.len(), 16 + 3 * 8);
        for format in &formats {
            assert_eq!(
                TexelFormat::from_vk_format(format.vk_format()),
                Some(*format)
            );
        }
        // Spot checks against the Vulkan registry's numbers.
        let astc = |block, srgb| TexelFormat::Astc { block, srgb }.vk_format();
        assert_eq!(astc(AstcBlock::B6x6, false), 165);
        assert_eq!(astc(AstcBlock::B6x6, true), 166);
        assert_eq!(astc(AstcBlock::B8x8, true), 172);
        assert_eq!(TexelFormat::Bc7 { srgb: true }.vk_format(), 146);
        assert_eq!(TexelFormat::Bc1 { srgb: true }.vk_format(), 132);
        let hdr = TexelFormat::AstcHdr {
            block: AstcBlock::B8x8,
        };
        assert_eq!(hdr.vk_format(), 1_000_066_007);
    }

    /// Our DFDs against the words KTX-Software's `vk2dfd` builds for the same
    /// `vkFormat` (tests/data/dfd/vk2dfd.txt), which `ktx validate` expects.
    #[test]
    fn dfds_match_ktx_software_word_for_word() {
        let expected = include_str!("../../tests/data/dfd/vk2dfd.txt");
        let mut checked = 0;
        for line in expected.lines().filter(|line| !line.starts_with('#')) {
            let mut fields = line.split_whitespace();
            let vk_format: u32 = fields.next().unwrap().parse().unwrap();
            let words: Vec<u32> = fields
                .map(|w| u32::from_str_radix(w, 16).unwrap())
                .collect();
            let format = TexelFormat::from_vk_format(vk_format).unwrap();
            let ours: Vec<u32> = format
                .dfd()
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            assert_eq!(ours, words, "{} (vkFormat {vk_format})", format.name());
            checked += 1;
        }
        assert_eq!(checked, every_format().len());
    }

    #[test]
    fn names_are_unique_per_family() {
        let mut names: Vec<&str> = every_format()
            .into_iter()
            .filter(|format| !format.is_srgb())
            .map(TexelFormat::name)
            .collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
        assert_eq!(
            TexelFormat::Astc {
                block: AstcBlock::B6x5,
                srgb: true
            }
            .name(),
            "astc-6x5"
        );
    }

    #[test]
    fn image_bytes_round_up_to_whole_blocks() {
        let astc = TexelFormat::Astc {
            block: AstcBlock::B6x6,
            srgb: false,
        };
        assert_eq!(astc.image_bytes(13, 7), 3 * 2 * 16);
        assert_eq!(TexelFormat::Bc1 { srgb: false }.image_bytes(1, 1), 8);
        assert_eq!(TexelFormat::Rgb9e5.image_bytes(3, 2), 24);
    }
}
