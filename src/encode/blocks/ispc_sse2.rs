//! Intel's ISPC texture kernels, always their SSE2 build.
//!
//! `intel_tex_2` links each kernel built for six x86-64 targets (SSE2, SSE4,
//! AVX, AVX2 and two AVX-512 flavours), and ISPC's dispatcher picks one by
//! `cpuid` when the program starts. The builds do not round alike (the
//! kernels use fast math), so through the dispatcher the same source gave
//! other BC7 and BC1 blocks on an AVX2 CPU than on an AVX-512 one. Every
//! target's entry point is exported beside the dispatcher
//! (`CompressBlocksBC7_ispc_sse2` next to `CompressBlocksBC7_ispc`), so this
//! module calls the SSE2 one, which every x86-64 CPU runs: the blocks depend
//! on the source alone. On other architectures the crate builds one target
//! (Neon), and its dispatcher is called.
//!
//! Each function takes a surface of whole 4x4 blocks and returns the blocks
//! in row order.

use intel_tex_2::bindings::kernel::{bc6h_enc_settings, bc7_enc_settings, rgba_surface};
use intel_tex_2::{bc6h, bc7};

#[cfg(target_arch = "x86_64")]
mod entry {
    //! The SSE2 entry points of the kernels `intel_tex_2` links.
    use intel_tex_2::bindings::kernel::{bc6h_enc_settings, bc7_enc_settings, rgba_surface};

    unsafe extern "C" {
        #[link_name = "CompressBlocksBC1_ispc_sse2"]
        pub fn bc1(src: *mut rgba_surface, dst: *mut u8);
        #[link_name = "CompressBlocksBC4_ispc_sse2"]
        pub fn bc4(src: *mut rgba_surface, dst: *mut u8);
        #[link_name = "CompressBlocksBC5_ispc_sse2"]
        pub fn bc5(src: *mut rgba_surface, dst: *mut u8);
        #[link_name = "CompressBlocksBC6H_ispc_sse2"]
        pub fn bc6h(src: *mut rgba_surface, dst: *mut u8, settings: *mut bc6h_enc_settings);
        #[link_name = "CompressBlocksBC7_ispc_sse2"]
        pub fn bc7(src: *mut rgba_surface, dst: *mut u8, settings: *mut bc7_enc_settings);
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod entry {
    //! The kernels' dispatchers, where the crate builds one target only.
    pub use intel_tex_2::bindings::kernel::{
        CompressBlocksBC1_ispc as bc1, CompressBlocksBC4_ispc as bc4,
        CompressBlocksBC5_ispc as bc5, CompressBlocksBC6H_ispc as bc6h,
        CompressBlocksBC7_ispc as bc7,
    };
}

/// A surface of `width` x `height` texels (multiples of 4) of
/// `bytes_per_texel` bytes each, tightly packed, and the kernel's view of it.
pub struct Surface<'a> {
    /// The texels.
    pub data: &'a [u8],
    /// Width in texels, a multiple of 4.
    pub width: u32,
    /// Height in texels, a multiple of 4.
    pub height: u32,
    /// Bytes per texel: 1 (BC4), 2 (BC5), 4 (RGBA8) or 8 (RGBA16F).
    pub bytes_per_texel: u32,
}

impl Surface<'_> {
    /// The kernel's descriptor; the kernels only read through its pointer.
    ///
    /// # Panics
    ///
    /// If the data is shorter than the size says, or a side is not a
    /// multiple of 4 (the callers pad first).
    fn descriptor(&self) -> rgba_surface {
        let stride = self.width * self.bytes_per_texel;
        assert!(self.width.is_multiple_of(4) && self.height.is_multiple_of(4));
        assert!(self.data.len() >= stride as usize * self.height as usize);
        rgba_surface {
            ptr: self.data.as_ptr().cast_mut(),
            width: self.width as i32,
            height: self.height as i32,
            stride: stride as i32,
        }
    }

    /// Room for the blocks of this surface at `block_bytes` each.
    fn blocks(&self, block_bytes: usize) -> Vec<u8> {
        vec![0; (self.width / 4) as usize * (self.height / 4) as usize * block_bytes]
    }
}

/// BC1 blocks of an RGBA8 surface.
pub fn bc1(surface: &Surface<'_>) -> Vec<u8> {
    let (mut src, mut out) = (surface.descriptor(), surface.blocks(8));
    // SAFETY: `src` points at the surface's texels, which outlive the call
    // and hold the rows it describes; `out` holds one 8-byte block per 4x4.
    unsafe { entry::bc1(&mut src, out.as_mut_ptr()) };
    out
}

/// BC4 blocks of a one-byte-per-texel surface.
pub fn bc4(surface: &Surface<'_>) -> Vec<u8> {
    let (mut src, mut out) = (surface.descriptor(), surface.blocks(8));
    // SAFETY: as in `bc1`.
    unsafe { entry::bc4(&mut src, out.as_mut_ptr()) };
    out
}

/// BC5 blocks of a two-bytes-per-texel surface.
pub fn bc5(surface: &Surface<'_>) -> Vec<u8> {
    let (mut src, mut out) = (surface.descriptor(), surface.blocks(16));
    // SAFETY: as in `bc1`, with 16-byte blocks.
    unsafe { entry::bc5(&mut src, out.as_mut_ptr()) };
    out
}

/// BC6H blocks of an RGBA16F surface with `settings`.
pub fn bc6h(surface: &Surface<'_>, settings: &bc6h::EncodeSettings) -> Vec<u8> {
    let mut kernel_settings = bc6h_enc_settings {
        slow_mode: settings.slow_mode,
        fast_mode: settings.fast_mode,
        refineIterations_1p: settings.refine_iterations_1p as i32,
        refineIterations_2p: settings.refine_iterations_2p as i32,
        fastSkipTreshold: settings.fast_skip_threshold as i32,
    };
    let (mut src, mut out) = (surface.descriptor(), surface.blocks(16));
    // SAFETY: as in `bc5`; the settings are a plain struct the call reads.
    unsafe { entry::bc6h(&mut src, out.as_mut_ptr(), &mut kernel_settings) };
    out
}

/// BC7 blocks of an RGBA8 surface with `settings`.
pub fn bc7(surface: &Surface<'_>, settings: &bc7::EncodeSettings) -> Vec<u8> {
    let mut kernel_settings = bc7_enc_settings {
        mode_selection: settings.mode_selection,
        refineIterations: settings.refine_iterations.map(|n| n as i32),
        skip_mode2: settings.skip_mode2,
        fastSkipTreshold_mode1: settings.fast_skip_threshold_mode1 as i32,
        fastSkipTreshold_mode3: settings.fast_skip_threshold_mode3 as i32,
        fastSkipTreshold_mode7: settings.fast_skip_threshold_mode7 as i32,
        mode45_channel0: settings.mode45_channel0 as i32,
        refineIterations_channel: settings.refine_iterations_channel as i32,
        channels: settings.channels,
    };
    let (mut src, mut out) = (surface.descriptor(), surface.blocks(16));
    // SAFETY: as in `bc6h`.
    unsafe { entry::bc7(&mut src, out.as_mut_ptr(), &mut kernel_settings) };
    out
}
