//! Every size limit the encoders enforce on untrusted sources, in one place.
//!
//! Each limit is checked from the source's own header or declarations before
//! the memory it bounds is allocated, and a source past it fails its edge
//! with a message naming the file, the field and the limit. `docs/limits.md`
//! lists them for users, with the reasoning and the messages;
//! `tests/integration/hostile.rs` drives malformed sources through the real pipeline
//! under a memory cap to hold the encoders to them.

/// Largest accepted image width or height, in pixels (PNG and JPEG sources,
/// cube map faces, array layers, glTF and OBJ textures).
///
/// 16384 is the largest 2D texture size Vulkan, D3D12 and Metal guarantee on
/// desktop hardware; a texture of that size is 1 GiB as RGBA8, which also
/// bounds what one encode job may allocate for the decoded image.
pub const MAX_DIMENSION: u32 = 16384;

/// The most bytes one byte of a zlib (deflate) stream can inflate to: a
/// 258-byte copy coded in two bits, per RFC 1951. A PNG whose `IDAT` chunks
/// hold fewer than `1 / MAX_DEFLATE_RATIO` of the bytes its header declares
/// cannot be complete, so it is refused before its pixel buffer is allocated.
pub const MAX_DEFLATE_RATIO: u64 = 1032;

/// The most bytes one decoded source image may take as RGBA at its own
/// precision: 1 GiB, a 16384² image at 8 bits, 16384x8192 at 16 bits or
/// 8192² as 32-bit floats (HDR, EXR and float TIFF sources).
pub const MAX_DECODED_BYTES: u64 = 1 << 30;

/// The most decoded bytes a source image may declare whatever its file's
/// length (64 MiB, a 4096² RGBA8 image). Past it, a WebP, TGA, BMP, TIFF,
/// HDR or EXR file must hold at least one byte per [`MAX_DEFLATE_RATIO`]
/// decoded bytes: smaller files are truncated or decompression bombs, and
/// are refused before their pixels are allocated.
pub const MAX_UNBACKED_BYTES: u64 = 64 << 20;

/// The most pixels a folder asset's images may hold together: 16384², the
/// same 1 GiB of RGBA8 one image may take, so a job's memory stays bounded.
pub const MAX_TOTAL_PIXELS: u64 = 16384 * 16384;

/// The most layers a texture array may have: the `maxImageArrayLayers` that
/// Vulkan desktop hardware reports at least.
pub const MAX_LAYERS: usize = 2048;

/// The smallest `LUT_3D_SIZE` accepted: two points per axis.
pub const LUT_MIN_SIZE: u32 = 2;

/// The largest `LUT_3D_SIZE` accepted, as in the `.cube` specification
/// (256³ entries: 128 MiB as RGBA16F).
pub const LUT_MAX_SIZE: u32 = 256;

/// The widest and tallest font atlas written, in texels. The `.hfont`
/// header stores the size as 16-bit numbers; this stays well inside that and
/// keeps the in-memory RGBA image at 256 MiB at most.
pub const MAX_ATLAS_SIDE: u32 = 8192;

/// The most elements a glTF accessor without a buffer view (all zeros plus
/// sparse values) may have: it costs memory without costing file size.
/// Accessors with a buffer view are bounded by the bytes of that view.
pub const MAX_ZERO_FILLED_ELEMENTS: usize = 1 << 24;

/// The most bytes one meshopt-compressed glTF buffer view may decode to.
/// The codecs compress repetitive data by orders of magnitude, so a small
/// file could otherwise declare gigabytes; 256 MiB holds the vertices of a
/// ten-million-vertex mesh at the usual 24-byte stride.
pub const MAX_DECODED_VIEW_BYTES: usize = 256 << 20;

/// The most `EXT_mesh_gpu_instancing` instances one glTF node may have. The
/// runtime formats have no instance table, so every instance is baked into
/// the mesh as a copy: 65536 copies of even a small mesh is already a large
/// file, and past that a few bytes of accessor could ask for gigabytes.
pub const MAX_GPU_INSTANCES: usize = 1 << 16;

/// The widest accepted IBL panorama (it is half as high). Decoding holds
/// the float texels twice for a moment (the Radiance decoder's buffer and
/// ours): 805 MB at 8192×4096, the most a job may take under the 1 GiB
/// address-space cap of `tests/integration/hostile.rs`. Faces of the largest `ibl.size`
/// (4096) need a panorama only 16384 wide to keep one texel per cube texel;
/// the default 256 needs 1024.
pub const MAX_PANORAMA_WIDTH: u32 = 8192;

/// The largest face of an IBL cube-folder source (`*.ibl.env/`), in
/// texels. A 2048² face holds a quarter turn of the sky in as many texels
/// as the widest panorama accepted ([`MAX_PANORAMA_WIDTH`] / 4), and six of
/// them are 302 MB of float RGB, less than the panorama limit's decode. Each
/// face's size is read from its header before its texels are allocated.
pub const MAX_IBL_FACE_SIZE: u32 = 2048;
