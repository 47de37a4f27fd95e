/*
 * assetc.h - the on-disk formats of assetc for C and C++ engines.
 *
 * One self-contained C99 header; it needs nothing beyond <stdint.h>,
 * <stddef.h> and <string.h> and compiles as C99 or later and as C++11 or
 * later. It holds:
 *
 *   - the magic numbers, versions, chunk ids, flag bits and enumerations of
 *     .hmesh, .hmat, .hman, .hanim, .hfont, .hpack, .hsnd, .hatlas and the
 *     KTX2 identifier;
 *   - a byte-packed struct for every fixed-size record on disk, each with a
 *     compile-time size check;
 *   - small static inline helpers: the asset-id hash, and bounds-checked,
 *     allocation-free readers for .hpack (table of contents; a patch pack
 *     mounted above its base), .hman (entries, lookup by id), .hmesh
 *     (header, chunk table, DESC and array sizes), .hmat (header and rows),
 *     .hsnd (the whole record) and .hatlas (every rule, sprites by index and
 *     by name).
 *
 * Every multi-byte value on disk is little-endian. The helpers decode header
 * and table fields byte by byte, so they work on any host and on buffers of
 * any alignment. The structs mirror the disk bytes exactly, so reading one by
 * memcpy (or using an array of them in place) gives the right values only on
 * a little-endian host; the helpers that hand out structs refuse to run on a
 * big-endian one (ASSETC_ERR_ENDIAN).
 *
 * The helpers check structure, not content: after assetc_hmesh_read_desc
 * succeeds every array chunk holds exactly the elements DESC announces, but
 * the values inside (an index past the vertex count, a NaN position) are not
 * looked at. Validate untrusted files fully with `assetc-link check` or the
 * Rust crate's `assetc::format` module before shipping them.
 *
 * Naming: every identifier starts with `assetc_` / `ASSETC_`; names that
 * contain `_detail_` are internal.
 */
#ifndef ASSETC_H
#define ASSETC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Compile-time checks                                                       */
/* ------------------------------------------------------------------------ */

/*
 * ASSETC_STATIC_ASSERT(condition, name): fails the build when `condition`
 * (an integer constant expression) is false. C11 and C++11 compilers get
 * their native assertion; in C99 a typedef of an array whose size turns
 * negative does the job. `name` must be a valid identifier fragment.
 */
#if defined(__cplusplus) && (__cplusplus >= 201103L || (defined(_MSC_VER) && _MSC_VER >= 1600))
#define ASSETC_STATIC_ASSERT(condition, name) static_assert(condition, #name)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ASSETC_STATIC_ASSERT(condition, name) _Static_assert(condition, #name)
#else
#define ASSETC_STATIC_ASSERT(condition, name) \
    typedef char assetc_static_assert_##name[(condition) ? 1 : -1]
#endif

/* ------------------------------------------------------------------------ */
/* Magic numbers and versions                                                */
/* ------------------------------------------------------------------------ */

/* A four-letter tag as the little-endian uint32_t its bytes spell on disk. */
#define ASSETC_FOURCC(a, b, c, d)                                  \
    ((uint32_t)(uint8_t)(a) | ((uint32_t)(uint8_t)(b) << 8) |      \
     ((uint32_t)(uint8_t)(c) << 16) | ((uint32_t)(uint8_t)(d) << 24))

/* .hmesh: GPU-ready geometry in a tagged-chunk container. */
#define ASSETC_HMESH_MAGIC ASSETC_FOURCC('H', 'M', 'S', 'H')
#define ASSETC_HMESH_VERSION 2u
/* .hmat: a table of PBR material rows. */
#define ASSETC_HMAT_MAGIC ASSETC_FOURCC('H', 'M', 'A', 'T')
#define ASSETC_HMAT_VERSION 1u
/* .hman: the manifest mapping asset ids to runtime paths. */
#define ASSETC_HMAN_MAGIC ASSETC_FOURCC('H', 'M', 'A', 'N')
#define ASSETC_HMAN_VERSION 1u
/* .hanim: skeletal animation clips. */
#define ASSETC_HANIM_MAGIC ASSETC_FOURCC('H', 'A', 'N', 'M')
#define ASSETC_HANIM_VERSION 1u
/* .hfont: glyph metrics and kerning beside an SDF atlas. */
#define ASSETC_HFONT_MAGIC ASSETC_FOURCC('H', 'F', 'N', 'T')
#define ASSETC_HFONT_VERSION 1u
/* .hpack: every runtime file of a build in one archive. */
#define ASSETC_HPACK_MAGIC ASSETC_FOURCC('H', 'P', 'A', 'K')
#define ASSETC_HPACK_VERSION 2u
/* .hsnd: the 64-byte record of one compiled sound. */
#define ASSETC_HSND_MAGIC ASSETC_FOURCC('H', 'S', 'N', 'D')
#define ASSETC_HSND_VERSION 1u
/* .hatlas: the sprite table of an atlas whose pages are a KTX2 array. */
#define ASSETC_HATLAS_MAGIC ASSETC_FOURCC('H', 'A', 'T', 'L')
#define ASSETC_HATLAS_VERSION 1u

/* The 12 bytes every KTX 2.0 file starts with (the literal holds a 13th NUL). */
#define ASSETC_KTX2_IDENTIFIER "\xABKTX 20\xBB\r\n\x1A\n"
#define ASSETC_KTX2_IDENTIFIER_BYTES 12u

/* The KTX 2.0 vkFormat values assetc writes (Vulkan's VkFormat numbers);
 * assetc_vk_format_block() gives the block of each. UASTC is vkFormat 0
 * (VK_FORMAT_UNDEFINED), its kind told by the DFD's colour model. Each LDR
 * ASTC footprint has a UNORM code and, one above it, an SRGB code, in the
 * order 4x4, 5x4, 5x5, 6x5, 6x6, 8x5, 8x6, 8x8 (then 10x5 and up, which
 * assetc does not write); the HDR (SFLOAT) codes follow the same order one
 * apart. BC1 and BC7 have an SRGB code one above the UNORM one. */
#define ASSETC_VK_FORMAT_UNDEFINED 0u
#define ASSETC_VK_FORMAT_R8_UNORM 9u
#define ASSETC_VK_FORMAT_R8G8B8A8_UNORM 37u
#define ASSETC_VK_FORMAT_R8G8B8A8_SRGB 43u
#define ASSETC_VK_FORMAT_R16_UNORM 70u
#define ASSETC_VK_FORMAT_R16G16_UNORM 77u
#define ASSETC_VK_FORMAT_R16G16_SFLOAT 83u
#define ASSETC_VK_FORMAT_R16G16B16A16_UNORM 91u
#define ASSETC_VK_FORMAT_R16G16B16A16_SFLOAT 97u
#define ASSETC_VK_FORMAT_E5B9G9R9_UFLOAT_PACK32 123u
#define ASSETC_VK_FORMAT_BC1_RGB_UNORM_BLOCK 131u
#define ASSETC_VK_FORMAT_BC1_RGB_SRGB_BLOCK 132u
#define ASSETC_VK_FORMAT_BC4_UNORM_BLOCK 139u
#define ASSETC_VK_FORMAT_BC5_UNORM_BLOCK 141u
#define ASSETC_VK_FORMAT_BC6H_UFLOAT_BLOCK 143u
#define ASSETC_VK_FORMAT_BC7_UNORM_BLOCK 145u
#define ASSETC_VK_FORMAT_BC7_SRGB_BLOCK 146u
#define ASSETC_VK_FORMAT_ASTC_4x4_UNORM_BLOCK 157u
#define ASSETC_VK_FORMAT_ASTC_8x8_SRGB_BLOCK 172u
#define ASSETC_VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK 1000066000u
#define ASSETC_VK_FORMAT_ASTC_8x8_SFLOAT_BLOCK 1000066007u

/* ------------------------------------------------------------------------ */
/* .hmesh constants                                                          */
/* ------------------------------------------------------------------------ */

/* Chunk ids, in the order the writer emits them. */
#define ASSETC_CHUNK_DESC ASSETC_FOURCC('D', 'E', 'S', 'C') /* assetc_mesh_desc, required */
#define ASSETC_CHUNK_BNDS ASSETC_FOURCC('B', 'N', 'D', 'S') /* assetc_mesh_bounds, required */
#define ASSETC_CHUNK_VTXS ASSETC_FOURCC('V', 'T', 'X', 'S') /* assetc_gpu_vertex[], required */
#define ASSETC_CHUNK_IDXS ASSETC_FOURCC('I', 'D', 'X', 'S') /* uint16_t[] or uint32_t[], required */
#define ASSETC_CHUNK_MLET ASSETC_FOURCC('M', 'L', 'E', 'T') /* assetc_meshlet[] */
#define ASSETC_CHUNK_MLVR ASSETC_FOURCC('M', 'L', 'V', 'R') /* uint32_t[] meshlet vertices */
#define ASSETC_CHUNK_MLTR ASSETC_FOURCC('M', 'L', 'T', 'R') /* assetc_meshlet_triangle[] */
#define ASSETC_CHUNK_MLBN ASSETC_FOURCC('M', 'L', 'B', 'N') /* assetc_meshlet_bounds[] */
#define ASSETC_CHUNK_MTRL ASSETC_FOURCC('M', 'T', 'R', 'L') /* uint64_t[] material ids */
#define ASSETC_CHUNK_SUBM ASSETC_FOURCC('S', 'U', 'B', 'M') /* assetc_submesh[], required */
#define ASSETC_CHUNK_SKIN ASSETC_FOURCC('S', 'K', 'I', 'N') /* assetc_gpu_skin_vertex[] */
#define ASSETC_CHUNK_SKEL ASSETC_FOURCC('S', 'K', 'E', 'L') /* assetc_gpu_joint[] */
#define ASSETC_CHUNK_LODI ASSETC_FOURCC('L', 'O', 'D', 'I') /* uint32_t[] reduced-level indices */
#define ASSETC_CHUNK_LODT ASSETC_FOURCC('L', 'O', 'D', 'T') /* assetc_lod_table_header + assetc_mesh_lod[] */
/* How many chunk ids version 2 defines. */
#define ASSETC_KNOWN_CHUNK_COUNT 14u

/* Chunk payloads start on multiples of this many bytes from the file start. */
#define ASSETC_HMESH_CHUNK_ALIGN 16u
/* assetc_mesh_desc.vertex_stride: sizeof(assetc_gpu_vertex). */
#define ASSETC_HMESH_VERTEX_STRIDE 28u
/* assetc_mesh_desc.flags bit: the tangents in VTXS are meaningful. */
#define ASSETC_MESH_FLAG_HAS_TANGENTS 0x01u
/* Every assetc_mesh_desc.flags bit with a meaning; the others are 0. */
#define ASSETC_MESH_KNOWN_FLAGS ASSETC_MESH_FLAG_HAS_TANGENTS
/* assetc_submesh.material_slot of a submesh that has no material. */
#define ASSETC_NO_MATERIAL 0xFFFFFFFFu

/* ------------------------------------------------------------------------ */
/* .hmat constants                                                           */
/* ------------------------------------------------------------------------ */

/* assetc_gpu_material.flags bit 0: render both faces. */
#define ASSETC_MATERIAL_FLAG_DOUBLE_SIDED 0x01u
/* assetc_gpu_material.flags bits 1-2 hold an assetc_alpha_mode. */
#define ASSETC_MATERIAL_ALPHA_MODE_SHIFT 1u
#define ASSETC_MATERIAL_ALPHA_MODE_MASK 0x06u
/* Every assetc_gpu_material.flags bit with a meaning; the others are 0. */
#define ASSETC_MATERIAL_KNOWN_FLAGS \
    (ASSETC_MATERIAL_FLAG_DOUBLE_SIDED | ASSETC_MATERIAL_ALPHA_MODE_MASK)

/* How a material uses alpha (flags bits 1-2). */
typedef enum assetc_alpha_mode {
    ASSETC_ALPHA_OPAQUE = 0, /* alpha ignored */
    ASSETC_ALPHA_MASK = 1,   /* alpha tested against alpha_cutoff */
    ASSETC_ALPHA_BLEND = 2   /* alpha blended */
} assetc_alpha_mode;

/* The alpha-mode bits of a material's flags (3 is not a valid mode). */
#define ASSETC_MATERIAL_ALPHA_MODE(flags) \
    (((uint32_t)(flags) & ASSETC_MATERIAL_ALPHA_MODE_MASK) >> ASSETC_MATERIAL_ALPHA_MODE_SHIFT)

/* ------------------------------------------------------------------------ */
/* .hanim and .hfont constants                                               */
/* ------------------------------------------------------------------------ */

/* What an animation channel drives (its `path` byte). */
typedef enum assetc_anim_path {
    ASSETC_ANIM_TRANSLATION = 0, /* 3 floats per key */
    ASSETC_ANIM_ROTATION = 1,    /* quaternion x, y, z, w: 4 floats per key */
    ASSETC_ANIM_SCALE = 2        /* 3 floats per key */
} assetc_anim_path;

/* How an animation channel fills the time between keys. */
typedef enum assetc_anim_interpolation {
    ASSETC_ANIM_STEP = 0,  /* hold the previous key */
    ASSETC_ANIM_LINEAR = 1 /* lerp (slerp for rotations) */
} assetc_anim_interpolation;

/* assetc_font_file_header.flags bit 0: multi-channel atlas (an MSDF, or RGBA
 * glyph images with bit 1; reserved in the reference's v1). */
#define ASSETC_FONT_FLAG_MSDF 0x01u
/* assetc_font_file_header.flags bit 1: the atlas holds glyph bitmaps, not a
 * distance field; distance_range and edge_value are 0. */
#define ASSETC_FONT_FLAG_BITMAP 0x02u

/* ------------------------------------------------------------------------ */
/* .hsnd constants                                                           */
/* ------------------------------------------------------------------------ */

/* The size of a .hsnd file: one assetc_sound_record and nothing else. */
#define ASSETC_HSND_BYTES 64u
/* assetc_sound_record.flags bit 0: loop_start .. loop_end is a loop. */
#define ASSETC_SOUND_FLAG_LOOPS 0x01u
/* assetc_sound_record.flags bit 1: loudness and true_peak were measured. */
#define ASSETC_SOUND_FLAG_LOUDNESS 0x02u
/* Every assetc_sound_record.flags bit with a meaning; the others are 0. */
#define ASSETC_SOUND_KNOWN_FLAGS (ASSETC_SOUND_FLAG_LOOPS | ASSETC_SOUND_FLAG_LOUDNESS)
/* The most channels a sound may have. */
#define ASSETC_SOUND_MAX_CHANNELS 8u
/* The highest frame rate a record may state, 2^24 - 1. */
#define ASSETC_SOUND_MAX_RATE 16777215u

/* How the sound file a record points at is encoded (its `codec` field). */
typedef enum assetc_sound_codec {
    ASSETC_SOUND_PCM16 = 0,  /* 16-bit PCM in a RIFF WAVE file */
    ASSETC_SOUND_QOA = 1,    /* Quite OK Audio */
    ASSETC_SOUND_VORBIS = 2, /* Vorbis in Ogg */
    ASSETC_SOUND_OPUS = 3,   /* Opus in Ogg, decoded at 48 kHz */
    ASSETC_SOUND_CODEC_COUNT = 4
} assetc_sound_codec;

/* ------------------------------------------------------------------------ */
/* .hatlas constants                                                         */
/* ------------------------------------------------------------------------ */

/* assetc_atlas_header.flags bit 0: sample the pages with a nearest filter. */
#define ASSETC_ATLAS_FLAG_NEAREST 0x01u
/* assetc_atlas_header.flags bit 1: the rows are animation frames in play order. */
#define ASSETC_ATLAS_FLAG_ANIMATION 0x02u
/* Every assetc_atlas_header.flags bit with a meaning; the others are 0. */
#define ASSETC_ATLAS_KNOWN_FLAGS (ASSETC_ATLAS_FLAG_NEAREST | ASSETC_ATLAS_FLAG_ANIMATION)
/* assetc_atlas_sprite.flags bit 0: the content is stored turned 90 degrees clockwise. */
#define ASSETC_SPRITE_FLAG_ROTATED 0x01u
/* The widest and tallest page a table may describe. */
#define ASSETC_ATLAS_MAX_PAGE_SIDE 16384u

/* ------------------------------------------------------------------------ */
/* Enumerations stored as bytes in .hman and .hpack                          */
/* ------------------------------------------------------------------------ */

/* The `kind` byte of a manifest entry. */
typedef enum assetc_asset_kind {
    ASSETC_ASSET_TEXTURE = 0,   /* .ktx2 image */
    ASSETC_ASSET_MESH = 1,      /* .hmesh */
    ASSETC_ASSET_MATERIAL = 2,  /* .hmat */
    ASSETC_ASSET_LUT = 3,       /* 3D colour lookup table, .lut.ktx2 */
    ASSETC_ASSET_SHADER = 4,    /* SPIR-V stage, .spv */
    ASSETC_ASSET_EMBED = 5,     /* a file copied unchanged */
    ASSETC_ASSET_ANIMATION = 6, /* .hanim */
    ASSETC_ASSET_FONT = 7,      /* .hfont */
    ASSETC_ASSET_KIND_COUNT = 8
} assetc_asset_kind;

/* The `colorspace` byte of a manifest entry. */
typedef enum assetc_color_space {
    ASSETC_COLOR_LINEAR = 0, /* linear data and every non-image file */
    ASSETC_COLOR_SRGB = 1,   /* sRGB-encoded colour */
    ASSETC_COLOR_SPACE_COUNT = 2
} assetc_color_space;

/* The `kind` byte of a pack TOC entry, chosen by the file's extension. */
typedef enum assetc_pack_kind {
    ASSETC_PACK_OTHER = 0,     /* any other extension */
    ASSETC_PACK_MESH = 1,      /* .hmesh */
    ASSETC_PACK_MATERIAL = 2,  /* .hmat */
    ASSETC_PACK_MANIFEST = 3,  /* .hman */
    ASSETC_PACK_ANIMATION = 4, /* .hanim */
    ASSETC_PACK_TEXTURE = 5,   /* .ktx2 */
    ASSETC_PACK_SHADER = 6,    /* .spv */
    ASSETC_PACK_FONT = 7,      /* .hfont */
    ASSETC_PACK_KIND_COUNT = 8
} assetc_pack_kind;

/* Sizes of the variable-length formats' fixed parts. */
#define ASSETC_HMAN_HEADER_BYTES 16u      /* assetc_man_header */
#define ASSETC_HMAN_ENTRY_FIXED_BYTES 12u /* id u64, kind u8, colorspace u8, pathLen u16 */
#define ASSETC_HPACK_HEADER_BYTES 24u     /* assetc_pack_header */
#define ASSETC_HPACK_TOC_FIXED_BYTES 19u  /* offset u64, size u64, kind u8, pathLen u16 */
#define ASSETC_HPACK_PAYLOAD_ALIGN 16u    /* every payload offset is a multiple of this */

/*
 * The reserved entry of a patch pack: the paths of its base pack that the
 * newer tree no longer has, sorted byte-wise, each followed by '\n'. See
 * assetc_pack_layered_find.
 */
#define ASSETC_HPACK_REMOVED_PATH "assets.removed"
#define ASSETC_HPACK_REMOVED_PATH_BYTES 14u

/* ------------------------------------------------------------------------ */
/* On-disk records                                                           */
/* ------------------------------------------------------------------------ */

/*
 * Every struct below has alignment 1 and no padding: its bytes are the file's
 * bytes. Field order, types and offsets match the Rust definitions in
 * assetc::format one for one.
 */
#pragma pack(push, 1)

/* .hmesh: the 32-byte file header at offset 0. */
typedef struct assetc_mesh_file_header {
    uint32_t magic;       /* ASSETC_HMESH_MAGIC */
    uint32_t version;     /* ASSETC_HMESH_VERSION */
    uint32_t chunk_count; /* rows of the chunk table that follows */
    uint32_t flags;       /* 0 */
    uint64_t reserved1;   /* 0 */
    uint64_t reserved2;   /* 0 */
} assetc_mesh_file_header;

/* .hmesh: one row of the chunk table (which starts at offset 32). */
typedef struct assetc_chunk_entry {
    uint32_t fourcc; /* an ASSETC_CHUNK_* id; skip ids you do not know */
    uint32_t flags;  /* 0 */
    uint64_t offset; /* payload start from the file start, a multiple of 16 */
    uint64_t size;   /* payload bytes */
} assetc_chunk_entry;

/* .hmesh DESC: every element count of the mesh. */
typedef struct assetc_mesh_desc {
    uint32_t vertex_count;          /* VTXS (and SKIN) elements, at least 1 */
    uint32_t index_count;           /* IDXS elements */
    uint32_t meshlet_count;         /* MLET and MLBN elements */
    uint32_t submesh_count;         /* SUBM elements, at least 1 */
    uint32_t material_count;        /* MTRL elements */
    uint16_t vertex_stride;         /* 28 */
    uint8_t index_width;            /* 2 or 4 bytes per IDXS element */
    uint8_t flags;                  /* ASSETC_MESH_FLAG_* */
    uint32_t meshlet_max_vertices;  /* limit the meshlets were built with */
    uint32_t meshlet_max_triangles; /* limit the meshlets were built with */
} assetc_mesh_desc;

/* .hmesh BNDS (and inside every submesh): a box and a bounding sphere. */
typedef struct assetc_mesh_bounds {
    float aabb_min[3];
    float aabb_max[3];
    float sphere_center[3];
    float sphere_radius;
} assetc_mesh_bounds;

/* .hmesh VTXS element. */
typedef struct assetc_gpu_vertex {
    float position[3];  /* object space */
    int16_t normal[2];  /* octahedral unit normal, SNORM16 */
    int16_t tangent[2]; /* octahedral unit tangent; bit 0 of x set: bitangent negated */
    float uv[2];        /* first UV set, top-left origin */
} assetc_gpu_vertex;

/* .hmesh SKIN element, parallel to VTXS. */
typedef struct assetc_gpu_skin_vertex {
    uint16_t joints[4]; /* indices into SKEL */
    float weights[4];   /* sum to 1 */
} assetc_gpu_skin_vertex;

/* .hmesh SKEL element. */
typedef struct assetc_gpu_joint {
    float inverse_bind[16];    /* mesh space to joint bind space, column-major */
    float bind_translation[3]; /* local bind pose */
    float bind_rotation[4];    /* unit quaternion x, y, z, w */
    float bind_scale[3];
    int32_t parent; /* parent joint index, -1 for a root */
    uint32_t pad;   /* 0 */
} assetc_gpu_joint;

/* .hmesh MLET element; offsets count elements of MLVR and MLTR. */
typedef struct assetc_meshlet {
    uint32_t vertex_offset;
    uint32_t vertex_count;
    uint32_t triangle_offset;
    uint32_t triangle_count;
} assetc_meshlet;

/* .hmesh MLTR element: three meshlet-local vertex indices. */
typedef struct assetc_meshlet_triangle {
    uint8_t indices[3];
} assetc_meshlet_triangle;

/* .hmesh MLBN element: culling data of one meshlet. */
typedef struct assetc_meshlet_bounds {
    float center[3];
    float radius;
    float cone_axis[3];
    float cone_cutoff; /* cosine; 1 means the cone culls nothing */
} assetc_meshlet_bounds;

/* .hmesh SUBM element: one drawable section. */
typedef struct assetc_submesh {
    uint32_t first_index;   /* into IDXS */
    uint32_t index_count;   /* a multiple of 3 */
    uint32_t first_meshlet; /* into MLET */
    uint32_t meshlet_count;
    uint32_t material_slot; /* into MTRL and the .hmat rows, or ASSETC_NO_MATERIAL */
    uint32_t base_vertex;   /* 0: indices are global */
    assetc_mesh_bounds bounds;
} assetc_submesh;

/* .hmesh LODT row, laid out [submesh][level]. */
typedef struct assetc_mesh_lod {
    uint32_t first_index; /* into LODI */
    uint32_t index_count; /* 0: simplification stalled, reuse the previous level */
} assetc_mesh_lod;

/* .hmesh LODT head, followed by submesh_count * lod_count assetc_mesh_lod. */
typedef struct assetc_lod_table_header {
    uint32_t lod_count;     /* reduced levels per submesh, LOD0 not counted */
    uint32_t submesh_count; /* equals assetc_mesh_desc.submesh_count */
} assetc_lod_table_header;

/* .hmat: the 16-byte header, followed by `count` assetc_gpu_material rows. */
typedef struct assetc_mat_file_header {
    uint32_t magic;   /* ASSETC_HMAT_MAGIC */
    uint32_t version; /* ASSETC_HMAT_VERSION */
    uint32_t count;   /* rows */
    uint32_t flags;   /* 0 */
} assetc_mat_file_header;

/* .hmat row i: the material of submeshes with material_slot i. */
typedef struct assetc_gpu_material {
    float base_color_factor[4]; /* linear RGBA */
    float emissive_factor[3];   /* linear RGB */
    float metallic_factor;
    float roughness_factor;
    float normal_scale;
    float occlusion_strength;
    float alpha_cutoff;
    uint32_t flags; /* ASSETC_MATERIAL_FLAG_DOUBLE_SIDED | alpha mode << 1 */
    uint32_t pad;   /* 0 */
    /* Texture ids (resolve them through the .hman), 0 for none. */
    uint64_t base_color_texture;
    uint64_t metallic_roughness_texture; /* occlusion R, roughness G, metalness B */
    uint64_t normal_texture;
    uint64_t occlusion_texture;
    uint64_t emissive_texture;
} assetc_gpu_material;

/* .hman: the 16-byte header, followed by `count` variable-length entries. */
typedef struct assetc_man_header {
    uint8_t magic[4];  /* the bytes "HMAN" */
    uint32_t version;  /* ASSETC_HMAN_VERSION */
    uint32_t count;    /* entries */
    uint32_t reserved; /* 0 */
} assetc_man_header;

/* .hpack: the 24-byte header, followed by the TOC and the payloads. */
typedef struct assetc_pack_header {
    uint8_t magic[4];   /* the bytes "HPAK" */
    uint32_t version;   /* ASSETC_HPACK_VERSION */
    uint32_t count;     /* TOC entries */
    uint32_t flags;     /* 0 */
    uint64_t toc_bytes; /* size of the TOC right after this header */
} assetc_pack_header;

/* .hanim: the 16-byte header, followed by `clip_count` variable-length clips. */
typedef struct assetc_anim_header {
    uint32_t magic;      /* ASSETC_HANIM_MAGIC */
    uint32_t version;    /* ASSETC_HANIM_VERSION */
    uint32_t clip_count; /* clips */
    uint32_t reserved;   /* 0 */
} assetc_anim_header;

/* .hfont: the 52-byte header, then glyph_count glyphs, then kerning_count pairs. */
typedef struct assetc_font_file_header {
    uint32_t magic;         /* ASSETC_HFONT_MAGIC */
    uint32_t version;       /* ASSETC_HFONT_VERSION */
    uint32_t glyph_count;   /* at least 1; glyph 0 is the codepoint-0 fallback */
    uint32_t kerning_count; /* 0 without a kerning table */
    uint64_t atlas_tex;     /* asset id of the SDF atlas .ktx2 */
    float ascent;           /* em above the baseline */
    float descent;          /* em below the baseline (negative) */
    float line_gap;         /* em; line advance = ascent - descent + line_gap */
    float distance_range;   /* SDF spread in atlas texels */
    float edge_value;       /* normalised atlas value on the glyph outline */
    uint16_t atlas_width;   /* texels */
    uint16_t atlas_height;  /* texels */
    uint32_t flags;         /* ASSETC_FONT_FLAG_* */
} assetc_font_file_header;

/* .hfont glyph, sorted by codepoint. Plane rect: em, y up, pen at the origin. */
typedef struct assetc_gpu_glyph {
    uint32_t codepoint; /* 0 is the fallback glyph */
    float advance;      /* em */
    float plane_left;
    float plane_bottom;
    float plane_right;
    float plane_top;
    float uv_left; /* atlas UV, top-left origin */
    float uv_top;
    float uv_right;
    float uv_bottom;
} assetc_gpu_glyph;

/* .hfont kerning pair, sorted by (left, right). */
typedef struct assetc_kerning_pair {
    uint32_t left;  /* codepoint */
    uint32_t right; /* codepoint */
    float advance;  /* em added to left's advance when right follows */
} assetc_kerning_pair;

/* .hsnd: the whole file. The sound itself is the file whose id is `sound`. */
typedef struct assetc_sound_record {
    uint32_t magic;      /* ASSETC_HSND_MAGIC */
    uint32_t version;    /* ASSETC_HSND_VERSION */
    uint32_t codec;      /* assetc_sound_codec */
    uint32_t flags;      /* ASSETC_SOUND_FLAG_* */
    uint32_t rate;       /* frames per second of the decoded sound, 1 to ASSETC_SOUND_MAX_RATE */
    uint32_t channels;   /* 1 to ASSETC_SOUND_MAX_CHANNELS */
    uint64_t frames;     /* frames per channel the sound file decodes to, at least 1 */
    uint64_t loop_start; /* first frame of the loop; 0 without ASSETC_SOUND_FLAG_LOOPS */
    uint64_t loop_end;   /* one past the loop's last frame, at most `frames`; 0 without the flag */
    float loudness;      /* integrated loudness, LUFS; +0.0 without ASSETC_SOUND_FLAG_LOUDNESS */
    float true_peak;     /* true peak, dBTP; +0.0 without the flag */
    uint64_t sound;      /* asset id of the sound file (resolve it through the .hman) */
} assetc_sound_record;

/* .hatlas: the header; spriteCount rows and nameBytes of names follow. */
typedef struct assetc_atlas_header {
    uint32_t magic;        /* ASSETC_HATLAS_MAGIC */
    uint32_t version;      /* ASSETC_HATLAS_VERSION */
    uint32_t sprite_count; /* rows, at least 1 */
    uint32_t page_count;   /* pages: the layers of the KTX2 array, at least 1 */
    uint32_t page_width;   /* texels, 1 to ASSETC_ATLAS_MAX_PAGE_SIDE */
    uint32_t page_height;  /* texels, 1 to ASSETC_ATLAS_MAX_PAGE_SIDE */
    uint32_t flags;        /* ASSETC_ATLAS_FLAG_* */
    uint32_t reserved;     /* 0 */
    uint64_t atlas_tex;    /* asset id of the pages' .ktx2 (resolve it through the .hman) */
    uint32_t name_bytes;   /* bytes of names after the rows */
    uint32_t reserved2;    /* 0 */
} assetc_atlas_header;

/* .hatlas: one sprite (or animation frame); rects in texels, origin top left. */
typedef struct assetc_atlas_sprite {
    uint64_t name_hash;   /* assetc_hash of the name */
    uint32_t page;        /* below page_count */
    uint32_t flags;       /* ASSETC_SPRITE_FLAG_ROTATED or 0 */
    uint32_t x, y, w, h;  /* the stored content in the page (w and h swapped when rotated) */
    uint32_t trim_x;      /* where the content sits in the untrimmed sprite */
    uint32_t trim_y;
    uint32_t source_w;    /* the untrimmed sprite, at least 1 x 1 */
    uint32_t source_h;
    float pivot_x;        /* pivot in the untrimmed sprite, 0..1 from the top left */
    float pivot_y;
    uint32_t duration_ms; /* frame time with ASSETC_ATLAS_FLAG_ANIMATION; 0 otherwise */
    uint32_t name_offset; /* the name: UTF-8 bytes [name_offset, name_offset + name_len) of the names */
    uint32_t name_len;
    uint32_t reserved;    /* 0 */
} assetc_atlas_sprite;

#pragma pack(pop)

ASSETC_STATIC_ASSERT(sizeof(assetc_mesh_file_header) == 32, mesh_file_header_is_32_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_chunk_entry) == 24, chunk_entry_is_24_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_mesh_desc) == 32, mesh_desc_is_32_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_mesh_bounds) == 40, mesh_bounds_is_40_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_gpu_vertex) == 28, gpu_vertex_is_28_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_gpu_skin_vertex) == 24, gpu_skin_vertex_is_24_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_gpu_joint) == 112, gpu_joint_is_112_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_meshlet) == 16, meshlet_is_16_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_meshlet_triangle) == 3, meshlet_triangle_is_3_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_meshlet_bounds) == 32, meshlet_bounds_is_32_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_submesh) == 64, submesh_is_64_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_mesh_lod) == 8, mesh_lod_is_8_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_lod_table_header) == 8, lod_table_header_is_8_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_mat_file_header) == 16, mat_file_header_is_16_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_gpu_material) == 96, gpu_material_is_96_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_man_header) == ASSETC_HMAN_HEADER_BYTES, man_header_is_16_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_pack_header) == ASSETC_HPACK_HEADER_BYTES, pack_header_is_24_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_anim_header) == 16, anim_header_is_16_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_font_file_header) == 52, font_file_header_is_52_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_gpu_glyph) == 40, gpu_glyph_is_40_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_kerning_pair) == 12, kerning_pair_is_12_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_sound_record) == ASSETC_HSND_BYTES, sound_record_is_64_bytes);
/* The fields whose place packing decides (natural alignment would move them). */
ASSETC_STATIC_ASSERT(offsetof(assetc_font_file_header, atlas_tex) == 16, font_atlas_tex_at_16);
ASSETC_STATIC_ASSERT(offsetof(assetc_font_file_header, flags) == 48, font_flags_at_48);
ASSETC_STATIC_ASSERT(offsetof(assetc_gpu_material, base_color_texture) == 56, material_textures_at_56);
ASSETC_STATIC_ASSERT(offsetof(assetc_mesh_desc, meshlet_max_vertices) == 24, desc_limits_at_24);
ASSETC_STATIC_ASSERT(offsetof(assetc_submesh, bounds) == 24, submesh_bounds_at_24);
ASSETC_STATIC_ASSERT(offsetof(assetc_pack_header, toc_bytes) == 16, pack_toc_bytes_at_16);
ASSETC_STATIC_ASSERT(offsetof(assetc_sound_record, frames) == 24, sound_frames_at_24);
ASSETC_STATIC_ASSERT(offsetof(assetc_sound_record, loop_start) == 32, sound_loop_start_at_32);
ASSETC_STATIC_ASSERT(offsetof(assetc_sound_record, loop_end) == 40, sound_loop_end_at_40);
ASSETC_STATIC_ASSERT(offsetof(assetc_sound_record, loudness) == 48, sound_loudness_at_48);
ASSETC_STATIC_ASSERT(offsetof(assetc_sound_record, sound) == 56, sound_id_at_56);
ASSETC_STATIC_ASSERT(sizeof(assetc_atlas_header) == 48, atlas_header_is_48_bytes);
ASSETC_STATIC_ASSERT(sizeof(assetc_atlas_sprite) == 72, atlas_sprite_is_72_bytes);
ASSETC_STATIC_ASSERT(offsetof(assetc_atlas_header, atlas_tex) == 32, atlas_tex_at_32);
ASSETC_STATIC_ASSERT(offsetof(assetc_atlas_sprite, pivot_x) == 48, sprite_pivot_at_48);
ASSETC_STATIC_ASSERT(offsetof(assetc_atlas_sprite, name_offset) == 60, sprite_name_at_60);

/* ------------------------------------------------------------------------ */
/* Results                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * What every helper returns. ASSETC_OK, ASSETC_END and ASSETC_NOT_FOUND are
 * outcomes; the negative values are errors (test with `result < 0`).
 */
typedef enum assetc_result {
    ASSETC_OK = 0,
    ASSETC_END = 1,       /* an iteration has no more entries */
    ASSETC_NOT_FOUND = 2, /* a lookup found nothing (the file is fine) */

    ASSETC_ERR_ARGUMENT = -1,  /* a NULL pointer or too small an output array */
    ASSETC_ERR_TRUNCATED = -2, /* a field runs past the end of the buffer */
    ASSETC_ERR_MAGIC = -3,     /* the file does not start with the format's magic */
    ASSETC_ERR_VERSION = -4,   /* a version this header does not know */
    ASSETC_ERR_RESERVED = -5,  /* a reserved field or flag bit is not 0 */
    ASSETC_ERR_RANGE = -6,     /* an offset, size or count points outside its region */
    ASSETC_ERR_ALIGNMENT = -7, /* a payload offset that is not properly aligned */
    ASSETC_ERR_KIND = -8,      /* an unknown kind, colour-space byte or sound codec */
    ASSETC_ERR_PATH = -9,      /* an empty, absolute or otherwise unclean path */
    ASSETC_ERR_ORDER = -10,    /* entries out of order, or a duplicate */
    ASSETC_ERR_MISSING = -11,  /* a required chunk is absent */
    ASSETC_ERR_SIZE = -12,     /* a chunk size disagrees with the counts */
    ASSETC_ERR_VALUE = -13,    /* a field holds a value the format forbids */
    ASSETC_ERR_ENDIAN = -14    /* in-place structs need a little-endian host */
} assetc_result;

/* A short lowercase description of `result`, never NULL. */
static inline const char *assetc_result_name(assetc_result result)
{
    switch (result) {
    case ASSETC_OK: return "ok";
    case ASSETC_END: return "end of entries";
    case ASSETC_NOT_FOUND: return "not found";
    case ASSETC_ERR_ARGUMENT: return "invalid argument";
    case ASSETC_ERR_TRUNCATED: return "truncated";
    case ASSETC_ERR_MAGIC: return "bad magic";
    case ASSETC_ERR_VERSION: return "unsupported version";
    case ASSETC_ERR_RESERVED: return "reserved field not zero";
    case ASSETC_ERR_RANGE: return "offset or count out of range";
    case ASSETC_ERR_ALIGNMENT: return "misaligned payload";
    case ASSETC_ERR_KIND: return "unknown kind";
    case ASSETC_ERR_PATH: return "invalid path";
    case ASSETC_ERR_ORDER: return "entries out of order or duplicated";
    case ASSETC_ERR_MISSING: return "required chunk missing";
    case ASSETC_ERR_SIZE: return "chunk size disagrees with its count";
    case ASSETC_ERR_VALUE: return "invalid field value";
    case ASSETC_ERR_ENDIAN: return "big-endian host";
    }
    return "unknown result";
}

/* ------------------------------------------------------------------------ */
/* Names of the byte enumerations                                            */
/* ------------------------------------------------------------------------ */

/* "texture", "mesh", ... for a manifest kind byte; NULL for an unknown one. */
static inline const char *assetc_asset_kind_name(uint8_t kind)
{
    static const char *const names[ASSETC_ASSET_KIND_COUNT] = {
        "texture", "mesh", "material", "lut", "shader", "embed", "animation", "font"};
    return kind < ASSETC_ASSET_KIND_COUNT ? names[kind] : NULL;
}

/* "linear" or "srgb" for a colour-space byte; NULL for an unknown one. */
static inline const char *assetc_color_space_name(uint8_t space)
{
    static const char *const names[ASSETC_COLOR_SPACE_COUNT] = {"linear", "srgb"};
    return space < ASSETC_COLOR_SPACE_COUNT ? names[space] : NULL;
}

/* "other", "mesh", ... for a pack kind byte; NULL for an unknown one. */
static inline const char *assetc_pack_kind_name(uint8_t kind)
{
    static const char *const names[ASSETC_PACK_KIND_COUNT] = {
        "other", "mesh", "material", "manifest", "animation", "texture", "shader", "font"};
    return kind < ASSETC_PACK_KIND_COUNT ? names[kind] : NULL;
}

/* "pcm16", "qoa", "vorbis" or "opus" for a sound codec; NULL for an unknown one. */
static inline const char *assetc_sound_codec_name(uint32_t codec)
{
    static const char *const names[ASSETC_SOUND_CODEC_COUNT] = {"pcm16", "qoa", "vorbis", "opus"};
    return codec < ASSETC_SOUND_CODEC_COUNT ? names[codec] : NULL;
}

/* ------------------------------------------------------------------------ */
/* Byte helpers                                                              */
/* ------------------------------------------------------------------------ */

/* Little-endian loads from any address; the caller has checked the bounds. */
static inline uint16_t assetc_load_u16le(const uint8_t *p)
{
    uint8_t b[2];
    memcpy(b, p, sizeof b);
    return (uint16_t)(b[0] | (b[1] << 8));
}

static inline uint32_t assetc_load_u32le(const uint8_t *p)
{
    uint8_t b[4];
    memcpy(b, p, sizeof b);
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static inline uint64_t assetc_load_u64le(const uint8_t *p)
{
    return (uint64_t)assetc_load_u32le(p) | ((uint64_t)assetc_load_u32le(p + 4) << 32);
}

/* Whether this host stores integers little-endian, as the files do. */
static inline int assetc_host_is_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* Whether `[offset, offset + length)` lies inside a buffer of `size` bytes. */
static inline int assetc_detail_fits(uint64_t offset, uint64_t length, uint64_t size)
{
    return offset <= size && length <= size - offset;
}

/*
 * Orders two paths byte by byte, a proper prefix first: the order of a pack's
 * TOC. Returns <0, 0 or >0; equal means the same bytes and length.
 */
static inline int assetc_compare_paths(const char *a, size_t a_len, const char *b, size_t b_len)
{
    size_t common = a_len < b_len ? a_len : b_len;
    int order = common == 0 ? 0 : memcmp(a, b, common);
    if (order != 0)
        return order;
    return a_len < b_len ? -1 : (a_len > b_len ? 1 : 0);
}

/* Whether `data[0 .. size)` starts with the KTX 2.0 identifier. */
static inline int assetc_is_ktx2(const void *data, size_t size)
{
    return data != NULL && size >= ASSETC_KTX2_IDENTIFIER_BYTES &&
           memcmp(data, ASSETC_KTX2_IDENTIFIER, ASSETC_KTX2_IDENTIFIER_BYTES) == 0;
}

/* The KTX2 key/value key of assetc's sampler hint, and the value that asks
 * for nearest (unfiltered) sampling: pixel art (docs/formats/ktx2.md). */
#define ASSETC_KTX2_SAMPLER_KEY "assetc.sampler"
#define ASSETC_KTX2_SAMPLER_NEAREST "nearest"

/*
 * Finds `key` in the key/value data of the KTX 2.0 file `data[0 .. size)`.
 * Returns 1 and sets `*value` and `*value_len` (the value's bytes, a string's
 * terminating NUL included) when found; 0 when the key is absent or the file
 * is not KTX 2.0 or its key/value data runs past its end.
 */
static inline int assetc_ktx2_find_key(const void *data, size_t size, const char *key,
                                       const uint8_t **value, size_t *value_len)
{
    const uint8_t *bytes = (const uint8_t *)data;
    size_t key_len = key == NULL ? 0 : strlen(key);
    size_t at, end;
    if (!assetc_is_ktx2(data, size) || size < 80 || key == NULL || value == NULL || value_len == NULL)
        return 0;
    at = assetc_load_u32le(bytes + 56);
    end = assetc_load_u32le(bytes + 60);
    if (!assetc_detail_fits(at, end, size))
        return 0;
    end += at;
    while (at < end && end - at >= 4) {
        size_t length = assetc_load_u32le(bytes + at);
        const uint8_t *entry = bytes + at + 4;
        if (length > end - at - 4)
            return 0;
        if (length > key_len && memcmp(entry, key, key_len) == 0 && entry[key_len] == 0) {
            *value = entry + key_len + 1;
            *value_len = length - key_len - 1;
            return 1;
        }
        /* Each entry is padded to a multiple of 4 bytes; the last one may
         * end without its padding. */
        at += 4 + length + (4 - length % 4) % 4;
    }
    return 0;
}

/* Whether the KTX 2.0 file `data[0 .. size)` asks to be sampled with nearest
 * filtering (its "assetc.sampler" value is "nearest"): 1 or 0. */
static inline int assetc_ktx2_wants_nearest(const void *data, size_t size)
{
    const uint8_t *value;
    size_t length;
    static const char nearest[] = ASSETC_KTX2_SAMPLER_NEAREST;
    return assetc_ktx2_find_key(data, size, ASSETC_KTX2_SAMPLER_KEY, &value, &length) &&
           length == sizeof nearest && memcmp(value, nearest, sizeof nearest) == 0;
}

/* The texel block of a vkFormat assetc writes: its width and height in
 * texels (1 x 1 for uncompressed formats) and its bytes. */
typedef struct assetc_texel_block {
    uint32_t width;
    uint32_t height;
    uint32_t bytes;
} assetc_texel_block;

/* Fills `*block` for `vk_format` and returns 1 when it is a format assetc
 * writes (the table of src/format/texel.rs); returns 0 and leaves `*block`
 * alone otherwise, vkFormat 0 included (read UASTC's 4 x 4, 16-byte block
 * from the DFD). */
static inline int assetc_vk_format_block(uint32_t vk_format, assetc_texel_block *block)
{
    static const uint8_t astc_sizes[8][2] = {{4, 4}, {5, 4}, {5, 5}, {6, 5}, {6, 6}, {8, 5}, {8, 6}, {8, 8}};
    uint32_t width = 1, height = 1, bytes;
    if (block == NULL)
        return 0;
    switch (vk_format) {
    case ASSETC_VK_FORMAT_R8_UNORM: bytes = 1; break;
    case ASSETC_VK_FORMAT_R16_UNORM: bytes = 2; break;
    case ASSETC_VK_FORMAT_R8G8B8A8_UNORM:
    case ASSETC_VK_FORMAT_R8G8B8A8_SRGB:
    case ASSETC_VK_FORMAT_R16G16_UNORM:
    case ASSETC_VK_FORMAT_R16G16_SFLOAT:
    case ASSETC_VK_FORMAT_E5B9G9R9_UFLOAT_PACK32: bytes = 4; break;
    case ASSETC_VK_FORMAT_R16G16B16A16_UNORM:
    case ASSETC_VK_FORMAT_R16G16B16A16_SFLOAT: bytes = 8; break;
    case ASSETC_VK_FORMAT_BC1_RGB_UNORM_BLOCK:
    case ASSETC_VK_FORMAT_BC1_RGB_SRGB_BLOCK:
    case ASSETC_VK_FORMAT_BC4_UNORM_BLOCK: width = height = 4; bytes = 8; break;
    case ASSETC_VK_FORMAT_BC5_UNORM_BLOCK:
    case ASSETC_VK_FORMAT_BC6H_UFLOAT_BLOCK:
    case ASSETC_VK_FORMAT_BC7_UNORM_BLOCK:
    case ASSETC_VK_FORMAT_BC7_SRGB_BLOCK: width = height = 4; bytes = 16; break;
    default:
        if (vk_format >= ASSETC_VK_FORMAT_ASTC_4x4_UNORM_BLOCK && vk_format <= ASSETC_VK_FORMAT_ASTC_8x8_SRGB_BLOCK) {
            const uint8_t *size = astc_sizes[(vk_format - ASSETC_VK_FORMAT_ASTC_4x4_UNORM_BLOCK) / 2];
            width = size[0];
            height = size[1];
        } else if (vk_format >= ASSETC_VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK &&
                   vk_format <= ASSETC_VK_FORMAT_ASTC_8x8_SFLOAT_BLOCK) {
            const uint8_t *size = astc_sizes[vk_format - ASSETC_VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK];
            width = size[0];
            height = size[1];
        } else {
            return 0;
        }
        bytes = 16;
        break;
    }
    block->width = width;
    block->height = height;
    block->bytes = bytes;
    return 1;
}

/* The bytes one `width` x `height` image of `vk_format` takes, in whole
 * blocks (a 13 x 7 ASTC 6x6 image is 3 x 2 blocks); 0 for a vkFormat
 * assetc_vk_format_block() does not know. */
static inline uint64_t assetc_image_bytes(uint32_t vk_format, uint32_t width, uint32_t height)
{
    assetc_texel_block block;
    if (!assetc_vk_format_block(vk_format, &block))
        return 0;
    return (uint64_t)((width + block.width - 1) / block.width) * ((height + block.height - 1) / block.height) *
           block.bytes;
}

/* ------------------------------------------------------------------------ */
/* Asset ids                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * The 64-bit id of an asset ref: FNV-1a 64 over the `n` bytes of `s` with
 * ASCII 'A'-'Z' folded to lowercase (other bytes, UTF-8 included, are hashed
 * as they are). Material ids in .hmesh, texture ids in .hmat and .hfont, and
 * the keys of the .hman all use it.
 */
static inline uint64_t assetc_hash(const char *s, size_t n)
{
    uint64_t hash = UINT64_C(0xcbf29ce484222325);
    size_t i;
    for (i = 0; i < n; ++i) {
        uint8_t byte = (uint8_t)s[i];
        if (byte >= 'A' && byte <= 'Z')
            byte = (uint8_t)(byte + ('a' - 'A'));
        hash ^= byte;
        hash *= UINT64_C(0x00000100000001b3);
    }
    return hash;
}

/*
 * The manifest id of the runtime file at `path` (relative to the output root)
 * of manifest kind `kind`: textures and LUTs are keyed without a trailing
 * ".ktx2", shaders without a trailing ".spv", every other kind by the whole
 * path. The suffix test is exact and case-sensitive.
 */
static inline uint64_t assetc_id_for_path(uint8_t kind, const char *path, size_t n)
{
    const char *suffix = NULL;
    size_t suffix_len = 0;
    if (kind == ASSETC_ASSET_TEXTURE || kind == ASSETC_ASSET_LUT) {
        suffix = ".ktx2";
        suffix_len = 5;
    } else if (kind == ASSETC_ASSET_SHADER) {
        suffix = ".spv";
        suffix_len = 4;
    }
    if (suffix != NULL && n >= suffix_len && memcmp(path + n - suffix_len, suffix, suffix_len) == 0)
        n -= suffix_len;
    return assetc_hash(path, n);
}

/*
 * Whether `path` is a clean runtime path, as .hman and .hpack require:
 * non-empty, '/'-separated, relative, no '\\' or NUL byte, and no empty, "."
 * or ".." component. (UTF-8 validity is not checked here.)
 */
static inline int assetc_path_is_clean(const char *path, size_t n)
{
    size_t start = 0;
    size_t i;
    if (n == 0)
        return 0;
    for (i = 0; i <= n; ++i) {
        if (i < n && (path[i] == '\\' || path[i] == '\0'))
            return 0;
        if (i == n || path[i] == '/') {
            size_t len = i - start;
            if (len == 0 || (len == 1 && path[start] == '.') ||
                (len == 2 && path[start] == '.' && path[start + 1] == '.'))
                return 0;
            start = i + 1;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* .hpack reader                                                             */
/* ------------------------------------------------------------------------ */

/* An opened pack: the caller's buffer and the header facts the reader needs. */
typedef struct assetc_pack {
    const uint8_t *data; /* the whole file, owned by the caller */
    size_t size;         /* its length */
    uint32_t count;      /* TOC entries */
    uint64_t toc_end;    /* file offset one past the TOC */
} assetc_pack;

/* One TOC entry; `path` and `data` point into the pack buffer. */
typedef struct assetc_pack_entry {
    const char *path;    /* not NUL-terminated: use path_len */
    size_t path_len;
    uint8_t kind;        /* assetc_pack_kind */
    uint64_t offset;     /* payload start from the file start */
    uint64_t size;       /* payload bytes */
    const uint8_t *data; /* the payload: data[0 .. size) is inside the buffer */
} assetc_pack_entry;

/* Where a walk over the TOC stands. Start one with assetc_pack_begin(). */
typedef struct assetc_pack_cursor {
    uint64_t next;          /* file offset of the next record */
    uint32_t index;         /* records read so far */
    const char *prev_path;  /* the previous record's path, for the order check */
    size_t prev_len;
} assetc_pack_cursor;

/* A cursor before the first TOC entry. */
static inline assetc_pack_cursor assetc_pack_begin(void)
{
    assetc_pack_cursor cursor;
    cursor.next = ASSETC_HPACK_HEADER_BYTES;
    cursor.index = 0;
    cursor.prev_path = NULL;
    cursor.prev_len = 0;
    return cursor;
}

/* First offset a payload may use: the end of the TOC rounded up to 16. */
static inline uint64_t assetc_detail_pack_payload_start(const assetc_pack *pack)
{
    return (pack->toc_end + (ASSETC_HPACK_PAYLOAD_ALIGN - 1)) & ~(uint64_t)(ASSETC_HPACK_PAYLOAD_ALIGN - 1);
}

/* Checks one decoded entry's path, kind and payload range. */
static inline assetc_result assetc_detail_pack_check_entry(const assetc_pack *pack,
                                                           const assetc_pack_entry *entry)
{
    if (entry->kind >= ASSETC_PACK_KIND_COUNT)
        return ASSETC_ERR_KIND;
    if (!assetc_path_is_clean(entry->path, entry->path_len))
        return ASSETC_ERR_PATH;
    if (entry->offset % ASSETC_HPACK_PAYLOAD_ALIGN != 0)
        return ASSETC_ERR_ALIGNMENT;
    if (entry->offset < assetc_detail_pack_payload_start(pack))
        return ASSETC_ERR_RANGE;
    if (!assetc_detail_fits(entry->offset, entry->size, (uint64_t)pack->size))
        return ASSETC_ERR_RANGE;
    return ASSETC_OK;
}

/*
 * Reads the next TOC entry into `entry`. Returns ASSETC_OK, ASSETC_END after
 * the last one (having checked that the records fill the TOC exactly), or an
 * error; every byte read is inside both the TOC and the buffer, and entries
 * must ascend strictly by path.
 */
static inline assetc_result assetc_pack_next(const assetc_pack *pack, assetc_pack_cursor *cursor,
                                             assetc_pack_entry *entry)
{
    const uint8_t *record;
    uint64_t left;
    size_t path_len;
    assetc_result result;
    if (pack == NULL || cursor == NULL || entry == NULL || pack->data == NULL)
        return ASSETC_ERR_ARGUMENT;
    if (pack->toc_end > pack->size || cursor->next < ASSETC_HPACK_HEADER_BYTES ||
        cursor->next > pack->toc_end)
        return ASSETC_ERR_RANGE;
    if (cursor->index >= pack->count)
        return cursor->next == pack->toc_end ? ASSETC_END : ASSETC_ERR_RANGE;
    left = pack->toc_end - cursor->next;
    if (left < ASSETC_HPACK_TOC_FIXED_BYTES)
        return ASSETC_ERR_TRUNCATED;
    record = pack->data + (size_t)cursor->next;
    path_len = assetc_load_u16le(record + 17);
    if (path_len > left - ASSETC_HPACK_TOC_FIXED_BYTES)
        return ASSETC_ERR_TRUNCATED;
    entry->offset = assetc_load_u64le(record);
    entry->size = assetc_load_u64le(record + 8);
    entry->kind = record[16];
    entry->path = (const char *)(record + ASSETC_HPACK_TOC_FIXED_BYTES);
    entry->path_len = path_len;
    result = assetc_detail_pack_check_entry(pack, entry);
    if (result != ASSETC_OK)
        return result;
    if (cursor->prev_path != NULL &&
        assetc_compare_paths(cursor->prev_path, cursor->prev_len, entry->path, path_len) >= 0)
        return ASSETC_ERR_ORDER;
    entry->data = pack->data + (size_t)entry->offset;
    cursor->next += ASSETC_HPACK_TOC_FIXED_BYTES + (uint64_t)path_len;
    cursor->index += 1;
    cursor->prev_path = entry->path;
    cursor->prev_len = path_len;
    return ASSETC_OK;
}

/*
 * Opens the pack in `data[0 .. size)`: checks the header (magic, version, zero
 * flags, a TOC that fits the file and can hold `count` records) and then walks
 * the whole TOC once with assetc_pack_next. The buffer must outlive `pack`.
 * Not checked: that two payloads are the same range (entries with identical
 * bytes share one payload) or disjoint, and that the padding is zero.
 */
static inline assetc_result assetc_pack_open(assetc_pack *pack, const void *data, size_t size)
{
    const uint8_t *bytes = (const uint8_t *)data;
    uint64_t toc_bytes;
    assetc_pack_cursor cursor;
    assetc_pack_entry entry;
    assetc_result result;
    if (pack == NULL || (data == NULL && size != 0))
        return ASSETC_ERR_ARGUMENT;
    if (size < ASSETC_HPACK_HEADER_BYTES)
        return ASSETC_ERR_TRUNCATED;
    if (assetc_load_u32le(bytes) != ASSETC_HPACK_MAGIC)
        return ASSETC_ERR_MAGIC;
    if (assetc_load_u32le(bytes + 4) != ASSETC_HPACK_VERSION)
        return ASSETC_ERR_VERSION;
    if (assetc_load_u32le(bytes + 12) != 0)
        return ASSETC_ERR_RESERVED;
    toc_bytes = assetc_load_u64le(bytes + 16);
    if (toc_bytes > (uint64_t)size - ASSETC_HPACK_HEADER_BYTES)
        return ASSETC_ERR_TRUNCATED;
    pack->data = bytes;
    pack->size = size;
    pack->count = assetc_load_u32le(bytes + 8);
    pack->toc_end = ASSETC_HPACK_HEADER_BYTES + toc_bytes;
    if ((uint64_t)pack->count * ASSETC_HPACK_TOC_FIXED_BYTES > toc_bytes)
        return ASSETC_ERR_RANGE;
    cursor = assetc_pack_begin();
    while ((result = assetc_pack_next(pack, &cursor, &entry)) == ASSETC_OK) {
    }
    return result == ASSETC_END ? ASSETC_OK : result;
}

/*
 * Finds the entry stored under exactly `path` (`path_len` bytes). Returns
 * ASSETC_OK, ASSETC_NOT_FOUND, or an error met while walking the TOC. The TOC
 * is variable-length, so this is a linear walk that stops as soon as the
 * sorted paths pass `path`.
 */
static inline assetc_result assetc_pack_find(const assetc_pack *pack, const char *path,
                                             size_t path_len, assetc_pack_entry *entry)
{
    assetc_pack_cursor cursor = assetc_pack_begin();
    assetc_result result;
    if (path == NULL && path_len != 0)
        return ASSETC_ERR_ARGUMENT;
    while ((result = assetc_pack_next(pack, &cursor, entry)) == ASSETC_OK) {
        int order = assetc_compare_paths(entry->path, entry->path_len, path, path_len);
        if (order == 0)
            return ASSETC_OK;
        if (order > 0)
            return ASSETC_NOT_FOUND;
    }
    return result == ASSETC_END ? ASSETC_NOT_FOUND : result;
}

/* ------------------------------------------------------------------------ */
/* Patch packs: a patch mounted above its base                               */
/* ------------------------------------------------------------------------ */

/*
 * Whether `s[0 .. n)` is well-formed UTF-8: no stray continuation bytes,
 * overlong forms, surrogates or values past U+10FFFF.
 */
static inline int assetc_detail_utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t lead = s[i], value, least;
        size_t length, k;
        if (lead < 0x80) {
            i += 1;
            continue;
        }
        /* The sequence length, the lead byte's value bits, the least value
         * that needs this length (anything less is an overlong form). */
        if ((lead & 0xE0) == 0xC0) {
            length = 2;
            value = lead & 0x1F;
            least = 0x80;
        } else if ((lead & 0xF0) == 0xE0) {
            length = 3;
            value = lead & 0x0F;
            least = 0x800;
        } else if ((lead & 0xF8) == 0xF0) {
            length = 4;
            value = lead & 0x07;
            least = 0x10000;
        } else {
            return 0;
        }
        if (length > n - i)
            return 0;
        for (k = 1; k < length; ++k) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            value = (value << 6) | (s[i + k] & 0x3Fu);
        }
        if (value < least || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
            return 0;
        i += length;
    }
    return 1;
}

/*
 * Checks a patch pack's removed list (the payload of its
 * ASSETC_HPACK_REMOVED_PATH entry) from end to end and sets `*listed` to
 * whether it names `path`. Returns ASSETC_OK; ASSETC_ERR_VALUE when the
 * list is not UTF-8 or its last path lacks its '\n'; ASSETC_ERR_PATH for an
 * unclean path (an empty line among them) or one over 65535 bytes;
 * ASSETC_ERR_ORDER when the paths do not ascend strictly.
 */
static inline assetc_result assetc_pack_removed_lists(const assetc_pack_entry *list, const char *path,
                                                      size_t path_len, int *listed)
{
    const char *previous = NULL;
    size_t previous_len = 0;
    size_t start = 0;
    size_t size;
    if (list == NULL || listed == NULL || (list->data == NULL && list->size != 0) ||
        (path == NULL && path_len != 0))
        return ASSETC_ERR_ARGUMENT;
    size = (size_t)list->size;
    *listed = 0;
    if (!assetc_detail_utf8_valid(list->data, size))
        return ASSETC_ERR_VALUE;
    while (start < size) {
        const char *line = (const char *)list->data + start;
        const char *end = (const char *)memchr(line, '\n', size - start);
        size_t len;
        if (end == NULL)
            return ASSETC_ERR_VALUE;
        len = (size_t)(end - line);
        if (len > 0xFFFFu || !assetc_path_is_clean(line, len))
            return ASSETC_ERR_PATH;
        if (previous != NULL && assetc_compare_paths(previous, previous_len, line, len) >= 0)
            return ASSETC_ERR_ORDER;
        if (assetc_compare_paths(line, len, path, path_len) == 0)
            *listed = 1;
        previous = line;
        previous_len = len;
        start += len + 1;
    }
    return ASSETC_OK;
}

/*
 * Looks `path` up in the patch pack `patch` mounted above its base `base`:
 * the patch's entry when it holds `path` (`*from_patch` = 1); else
 * ASSETC_NOT_FOUND when the patch's removed list names it; else the base's
 * entry (`*from_patch` = 0) or ASSETC_NOT_FOUND. The list's own path,
 * ASSETC_HPACK_REMOVED_PATH, is never found. Every call checks the whole
 * list with assetc_pack_removed_lists first, so a malformed list is an error
 * whatever the path, and a patch without one is ASSETC_ERR_MISSING. Both
 * packs must have been opened with assetc_pack_open.
 */
static inline assetc_result assetc_pack_layered_find(const assetc_pack *patch, const assetc_pack *base,
                                                     const char *path, size_t path_len,
                                                     assetc_pack_entry *entry, int *from_patch)
{
    assetc_pack_entry list;
    int removed = 0;
    assetc_result result;
    if (patch == NULL || base == NULL || entry == NULL || from_patch == NULL || (path == NULL && path_len != 0))
        return ASSETC_ERR_ARGUMENT;
    *from_patch = 0;
    result = assetc_pack_find(patch, ASSETC_HPACK_REMOVED_PATH, ASSETC_HPACK_REMOVED_PATH_BYTES, &list);
    if (result == ASSETC_NOT_FOUND)
        return ASSETC_ERR_MISSING;
    if (result == ASSETC_OK)
        result = assetc_pack_removed_lists(&list, path, path_len, &removed);
    if (result != ASSETC_OK)
        return result;
    if (assetc_compare_paths(path, path_len, ASSETC_HPACK_REMOVED_PATH, ASSETC_HPACK_REMOVED_PATH_BYTES) == 0)
        return ASSETC_NOT_FOUND;
    result = assetc_pack_find(patch, path, path_len, entry);
    if (result == ASSETC_OK)
        *from_patch = 1;
    if (result != ASSETC_NOT_FOUND || removed)
        return result;
    return assetc_pack_find(base, path, path_len, entry);
}

/* ------------------------------------------------------------------------ */
/* .hman reader                                                              */
/* ------------------------------------------------------------------------ */

/* An opened manifest over the caller's buffer. */
typedef struct assetc_manifest {
    const uint8_t *data; /* the whole file, owned by the caller */
    size_t size;         /* its length */
    uint32_t count;      /* entries */
} assetc_manifest;

/* One manifest entry; `path` points into the manifest buffer. */
typedef struct assetc_manifest_entry {
    uint64_t id;         /* the asset id (assetc_id_for_path of the path) */
    uint8_t kind;        /* assetc_asset_kind */
    uint8_t color_space; /* assetc_color_space */
    const char *path;    /* not NUL-terminated: use path_len */
    size_t path_len;
} assetc_manifest_entry;

/* Where a walk over the entries stands. Start one with assetc_manifest_begin(). */
typedef struct assetc_manifest_cursor {
    size_t next;      /* file offset of the next entry */
    uint32_t index;   /* entries read so far */
    uint64_t prev_id; /* the previous entry's id, for the order check */
} assetc_manifest_cursor;

/* A cursor before the first manifest entry. */
static inline assetc_manifest_cursor assetc_manifest_begin(void)
{
    assetc_manifest_cursor cursor;
    cursor.next = ASSETC_HMAN_HEADER_BYTES;
    cursor.index = 0;
    cursor.prev_id = 0;
    return cursor;
}

/*
 * Decodes the entry starting at byte `at` and sets `*end` to the byte after
 * it. Checks that it lies in the buffer and has a known kind, a known colour
 * space and a clean path.
 */
static inline assetc_result assetc_detail_manifest_entry_at(const assetc_manifest *manifest, size_t at,
                                                            assetc_manifest_entry *entry, size_t *end)
{
    const uint8_t *raw;
    size_t left;
    size_t path_len;
    if (manifest == NULL || manifest->data == NULL || entry == NULL)
        return ASSETC_ERR_ARGUMENT;
    if (at < ASSETC_HMAN_HEADER_BYTES || at > manifest->size)
        return ASSETC_ERR_RANGE;
    left = manifest->size - at;
    if (left < ASSETC_HMAN_ENTRY_FIXED_BYTES)
        return ASSETC_ERR_TRUNCATED;
    raw = manifest->data + at;
    path_len = assetc_load_u16le(raw + 10);
    if (path_len > left - ASSETC_HMAN_ENTRY_FIXED_BYTES)
        return ASSETC_ERR_TRUNCATED;
    entry->id = assetc_load_u64le(raw);
    entry->kind = raw[8];
    entry->color_space = raw[9];
    entry->path = (const char *)(raw + ASSETC_HMAN_ENTRY_FIXED_BYTES);
    entry->path_len = path_len;
    if (entry->kind >= ASSETC_ASSET_KIND_COUNT || entry->color_space >= ASSETC_COLOR_SPACE_COUNT)
        return ASSETC_ERR_KIND;
    if (!assetc_path_is_clean(entry->path, path_len))
        return ASSETC_ERR_PATH;
    *end = at + ASSETC_HMAN_ENTRY_FIXED_BYTES + path_len;
    return ASSETC_OK;
}

/*
 * Reads the next entry. Returns ASSETC_OK, ASSETC_END after the last one
 * (having checked that the file ends right there), or an error; ids must
 * ascend strictly.
 */
static inline assetc_result assetc_manifest_next(const assetc_manifest *manifest,
                                                 assetc_manifest_cursor *cursor,
                                                 assetc_manifest_entry *entry)
{
    size_t end = 0;
    assetc_result result;
    if (manifest == NULL || cursor == NULL)
        return ASSETC_ERR_ARGUMENT;
    if (cursor->index >= manifest->count)
        return cursor->next == manifest->size ? ASSETC_END : ASSETC_ERR_RANGE;
    result = assetc_detail_manifest_entry_at(manifest, cursor->next, entry, &end);
    if (result != ASSETC_OK)
        return result;
    if (cursor->index > 0 && entry->id <= cursor->prev_id)
        return ASSETC_ERR_ORDER;
    cursor->next = end;
    cursor->index += 1;
    cursor->prev_id = entry->id;
    return ASSETC_OK;
}

/*
 * Opens the manifest in `data[0 .. size)`: checks the header (magic, version,
 * zero reserved field, `count` entries able to fit) and walks every entry once
 * with assetc_manifest_next. The buffer must outlive `manifest`.
 */
static inline assetc_result assetc_manifest_open(assetc_manifest *manifest, const void *data, size_t size)
{
    const uint8_t *bytes = (const uint8_t *)data;
    assetc_manifest_cursor cursor;
    assetc_manifest_entry entry;
    assetc_result result;
    if (manifest == NULL || (data == NULL && size != 0))
        return ASSETC_ERR_ARGUMENT;
    if (size < ASSETC_HMAN_HEADER_BYTES)
        return ASSETC_ERR_TRUNCATED;
    if (assetc_load_u32le(bytes) != ASSETC_HMAN_MAGIC)
        return ASSETC_ERR_MAGIC;
    if (assetc_load_u32le(bytes + 4) != ASSETC_HMAN_VERSION)
        return ASSETC_ERR_VERSION;
    if (assetc_load_u32le(bytes + 12) != 0)
        return ASSETC_ERR_RESERVED;
    manifest->data = bytes;
    manifest->size = size;
    manifest->count = assetc_load_u32le(bytes + 8);
    if ((uint64_t)manifest->count * ASSETC_HMAN_ENTRY_FIXED_BYTES > (uint64_t)size - ASSETC_HMAN_HEADER_BYTES)
        return ASSETC_ERR_TRUNCATED;
    cursor = assetc_manifest_begin();
    while ((result = assetc_manifest_next(manifest, &cursor, &entry)) == ASSETC_OK) {
    }
    return result == ASSETC_END ? ASSETC_OK : result;
}

/*
 * Records where each entry starts, so that assetc_manifest_find can binary
 * search: `offsets` must have room for `manifest->count` values (`capacity`).
 * An opened manifest never announces more entries than its size / 12.
 */
static inline assetc_result assetc_manifest_index(const assetc_manifest *manifest, size_t *offsets,
                                                  size_t capacity)
{
    assetc_manifest_cursor cursor = assetc_manifest_begin();
    assetc_manifest_entry entry;
    assetc_result result;
    if (manifest == NULL || (offsets == NULL && manifest->count != 0) || capacity < manifest->count)
        return ASSETC_ERR_ARGUMENT;
    for (;;) {
        size_t at = cursor.next;
        result = assetc_manifest_next(manifest, &cursor, &entry);
        if (result != ASSETC_OK)
            break;
        offsets[cursor.index - 1] = at;
    }
    return result == ASSETC_END ? ASSETC_OK : result;
}

/* Binary search over the entry offsets from assetc_manifest_index. */
static inline assetc_result assetc_detail_manifest_search(const assetc_manifest *manifest,
                                                          const size_t *offsets, uint64_t id,
                                                          assetc_manifest_entry *entry)
{
    size_t low = 0;
    size_t high = manifest->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        size_t end = 0;
        assetc_result result = assetc_detail_manifest_entry_at(manifest, offsets[middle], entry, &end);
        if (result != ASSETC_OK)
            return result;
        if (entry->id == id)
            return ASSETC_OK;
        if (entry->id < id)
            low = middle + 1;
        else
            high = middle;
    }
    return ASSETC_NOT_FOUND;
}

/* Linear walk that stops once the ascending ids pass `id`. */
static inline assetc_result assetc_detail_manifest_scan(const assetc_manifest *manifest, uint64_t id,
                                                        assetc_manifest_entry *entry)
{
    assetc_manifest_cursor cursor = assetc_manifest_begin();
    assetc_result result;
    while ((result = assetc_manifest_next(manifest, &cursor, entry)) == ASSETC_OK) {
        if (entry->id == id)
            return ASSETC_OK;
        if (entry->id > id)
            return ASSETC_NOT_FOUND;
    }
    return result == ASSETC_END ? ASSETC_NOT_FOUND : result;
}

/*
 * Finds the entry with id `id`. With `offsets` from assetc_manifest_index this
 * is a binary search (every probe is bounds-checked, so a stale or damaged
 * index yields an error, never a stray read); with `offsets == NULL` it is a
 * linear walk. Returns ASSETC_OK, ASSETC_NOT_FOUND or an error.
 */
static inline assetc_result assetc_manifest_find(const assetc_manifest *manifest, const size_t *offsets,
                                                 uint64_t id, assetc_manifest_entry *entry)
{
    if (manifest == NULL || entry == NULL)
        return ASSETC_ERR_ARGUMENT;
    if (offsets == NULL)
        return assetc_detail_manifest_scan(manifest, id, entry);
    return assetc_detail_manifest_search(manifest, offsets, id, entry);
}

/* ------------------------------------------------------------------------ */
/* .hmesh reader                                                             */
/* ------------------------------------------------------------------------ */

/* An opened mesh over the caller's buffer. */
typedef struct assetc_hmesh {
    const uint8_t *data; /* the whole file, owned by the caller */
    size_t size;         /* its length */
    uint32_t chunk_count;
} assetc_hmesh;

/* The bit of a known chunk id in a set of ids, or 0 for an unknown id. */
static inline uint32_t assetc_detail_chunk_bit(uint32_t fourcc)
{
    static const uint32_t known[ASSETC_KNOWN_CHUNK_COUNT] = {
        ASSETC_CHUNK_DESC, ASSETC_CHUNK_BNDS, ASSETC_CHUNK_VTXS, ASSETC_CHUNK_IDXS, ASSETC_CHUNK_MLET,
        ASSETC_CHUNK_MLVR, ASSETC_CHUNK_MLTR, ASSETC_CHUNK_MLBN, ASSETC_CHUNK_MTRL, ASSETC_CHUNK_SUBM,
        ASSETC_CHUNK_SKIN, ASSETC_CHUNK_SKEL, ASSETC_CHUNK_LODI, ASSETC_CHUNK_LODT};
    uint32_t i;
    for (i = 0; i < ASSETC_KNOWN_CHUNK_COUNT; ++i) {
        if (known[i] == fourcc)
            return (uint32_t)1 << i;
    }
    return 0;
}

/*
 * Reads row `index` of the chunk table and checks it: the payload lies inside
 * the buffer, after the table, on a 16-byte boundary; a known chunk has zero
 * flags.
 */
static inline assetc_result assetc_hmesh_chunk(const assetc_hmesh *mesh, uint32_t index,
                                               assetc_chunk_entry *chunk)
{
    uint64_t table_end;
    const uint8_t *row;
    if (mesh == NULL || mesh->data == NULL || chunk == NULL)
        return ASSETC_ERR_ARGUMENT;
    if (index >= mesh->chunk_count)
        return ASSETC_ERR_RANGE;
    table_end = sizeof(assetc_mesh_file_header) + (uint64_t)mesh->chunk_count * sizeof(assetc_chunk_entry);
    if (table_end > mesh->size)
        return ASSETC_ERR_TRUNCATED;
    row = mesh->data + sizeof(assetc_mesh_file_header) + (size_t)index * sizeof(assetc_chunk_entry);
    chunk->fourcc = assetc_load_u32le(row);
    chunk->flags = assetc_load_u32le(row + 4);
    chunk->offset = assetc_load_u64le(row + 8);
    chunk->size = assetc_load_u64le(row + 16);
    if (!assetc_detail_fits(chunk->offset, chunk->size, (uint64_t)mesh->size) || chunk->offset < table_end)
        return ASSETC_ERR_RANGE;
    if (chunk->offset % ASSETC_HMESH_CHUNK_ALIGN != 0)
        return ASSETC_ERR_ALIGNMENT;
    if (assetc_detail_chunk_bit(chunk->fourcc) != 0 && chunk->flags != 0)
        return ASSETC_ERR_RESERVED;
    return ASSETC_OK;
}

/*
 * Opens the mesh in `data[0 .. size)`: checks the header (magic, version, zero
 * flags and reserved fields, a chunk table inside the file) and every table
 * row (see assetc_hmesh_chunk), and that no known id appears twice.
 * Not checked: that payloads do not overlap.
 */
static inline assetc_result assetc_hmesh_open(assetc_hmesh *mesh, const void *data, size_t size)
{
    const uint8_t *bytes = (const uint8_t *)data;
    uint32_t seen = 0;
    uint32_t i;
    if (mesh == NULL || (data == NULL && size != 0))
        return ASSETC_ERR_ARGUMENT;
    if (size < sizeof(assetc_mesh_file_header))
        return ASSETC_ERR_TRUNCATED;
    if (assetc_load_u32le(bytes) != ASSETC_HMESH_MAGIC)
        return ASSETC_ERR_MAGIC;
    if (assetc_load_u32le(bytes + 4) != ASSETC_HMESH_VERSION)
        return ASSETC_ERR_VERSION;
    if (assetc_load_u32le(bytes + 12) != 0 || assetc_load_u64le(bytes + 16) != 0 ||
        assetc_load_u64le(bytes + 24) != 0)
        return ASSETC_ERR_RESERVED;
    mesh->data = bytes;
    mesh->size = size;
    mesh->chunk_count = assetc_load_u32le(bytes + 8);
    for (i = 0; i < mesh->chunk_count; ++i) {
        assetc_chunk_entry chunk;
        uint32_t bit;
        assetc_result result = assetc_hmesh_chunk(mesh, i, &chunk);
        if (result != ASSETC_OK)
            return result;
        bit = assetc_detail_chunk_bit(chunk.fourcc);
        if ((seen & bit) != 0)
            return ASSETC_ERR_ORDER;
        seen |= bit;
    }
    return ASSETC_OK;
}

/*
 * Finds chunk `fourcc` and points `*payload` at its `*payload_size` bytes
 * inside the buffer. Returns ASSETC_OK, ASSETC_NOT_FOUND or an error.
 */
static inline assetc_result assetc_hmesh_find_chunk(const assetc_hmesh *mesh, uint32_t fourcc,
                                                    const uint8_t **payload, uint64_t *payload_size)
{
    uint32_t i;
    if (mesh == NULL || payload == NULL || payload_size == NULL)
        return ASSETC_ERR_ARGUMENT;
    for (i = 0; i < mesh->chunk_count; ++i) {
        assetc_chunk_entry chunk;
        assetc_result result = assetc_hmesh_chunk(mesh, i, &chunk);
        if (result != ASSETC_OK)
            return result;
        if (chunk.fourcc == fourcc) {
            *payload = mesh->data + (size_t)chunk.offset;
            *payload_size = chunk.size;
            return ASSETC_OK;
        }
    }
    return ASSETC_NOT_FOUND;
}

/*
 * Requires chunk `fourcc` to hold exactly `count` elements of `element_size`
 * bytes. An absent chunk is ASSETC_ERR_MISSING if `required`, otherwise fine
 * when `count` is 0.
 */
static inline assetc_result assetc_detail_hmesh_array(const assetc_hmesh *mesh, uint32_t fourcc,
                                                      uint64_t count, uint64_t element_size, int required)
{
    const uint8_t *payload = NULL;
    uint64_t size = 0;
    assetc_result result = assetc_hmesh_find_chunk(mesh, fourcc, &payload, &size);
    if (result == ASSETC_NOT_FOUND)
        return (required || count != 0) ? ASSETC_ERR_MISSING : ASSETC_OK;
    if (result != ASSETC_OK)
        return result;
    return size == count * element_size ? ASSETC_OK : ASSETC_ERR_SIZE;
}

/* Checks the DESC fields that decide how the other chunks are read. */
static inline assetc_result assetc_detail_hmesh_check_desc(const assetc_mesh_desc *desc)
{
    if (desc->vertex_stride != ASSETC_HMESH_VERTEX_STRIDE)
        return ASSETC_ERR_VALUE;
    if (desc->index_width != 2 && desc->index_width != 4)
        return ASSETC_ERR_VALUE;
    if ((desc->flags & ~ASSETC_MESH_KNOWN_FLAGS) != 0)
        return ASSETC_ERR_RESERVED;
    if (desc->vertex_count == 0 || desc->submesh_count == 0)
        return ASSETC_ERR_VALUE;
    return ASSETC_OK;
}

/*
 * Copies DESC into `*desc` and checks that the arrays it describes have
 * exactly the announced sizes: BNDS one assetc_mesh_bounds; VTXS, IDXS and
 * SUBM (required), MLET, MLBN and MTRL (absent only when their count is 0)
 * and SKIN (when present) their element counts. Afterwards each array can be
 * read by its DESC count without leaving its chunk. Needs a little-endian host.
 */
static inline assetc_result assetc_hmesh_read_desc(const assetc_hmesh *mesh, assetc_mesh_desc *desc)
{
    const uint8_t *payload = NULL;
    uint64_t size = 0;
    const uint8_t *skin = NULL;
    uint64_t skin_size = 0;
    assetc_result result;
    if (mesh == NULL || desc == NULL)
        return ASSETC_ERR_ARGUMENT;
    if (!assetc_host_is_little_endian())
        return ASSETC_ERR_ENDIAN;
    result = assetc_hmesh_find_chunk(mesh, ASSETC_CHUNK_DESC, &payload, &size);
    if (result == ASSETC_NOT_FOUND)
        return ASSETC_ERR_MISSING;
    if (result != ASSETC_OK)
        return result;
    if (size != sizeof(assetc_mesh_desc))
        return ASSETC_ERR_SIZE;
    memcpy(desc, payload, sizeof(assetc_mesh_desc));
    result = assetc_detail_hmesh_check_desc(desc);
    if (result == ASSETC_OK)
        result = assetc_detail_hmesh_array(mesh, ASSETC_CHUNK_BNDS, 1, sizeof(assetc_mesh_bounds), 1);
    if (result == ASSETC_OK)
        result = assetc_detail_hmesh_array(mesh, ASSETC_CHUNK_VTXS, desc->vertex_count, sizeof(assetc_gpu_vertex), 1);
    if (result == ASSETC_OK)
        result = assetc_detail_hmesh_array(mesh, ASSETC_CHUNK_IDXS, desc->index_count, desc->index_width, 1);
    if (result == ASSETC_OK)
        result = assetc_detail_hmesh_array(mesh, ASSETC_CHUNK_SUBM, desc->submesh_count, sizeof(assetc_submesh), 1);
    if (result == ASSETC_OK)
        result = assetc_detail_hmesh_array(mesh, ASSETC_CHUNK_MLET, desc->meshlet_count, sizeof(assetc_meshlet), 0);
    if (result == ASSETC_OK)
        result = assetc_detail_hmesh_array(mesh, ASSETC_CHUNK_MLBN, desc->meshlet_count, sizeof(assetc_meshlet_bounds), 0);
    if (result == ASSETC_OK)
        result = assetc_detail_hmesh_array(mesh, ASSETC_CHUNK_MTRL, desc->material_count, sizeof(uint64_t), 0);
    if (result == ASSETC_OK && assetc_hmesh_find_chunk(mesh, ASSETC_CHUNK_SKIN, &skin, &skin_size) == ASSETC_OK)
        result = assetc_detail_hmesh_array(mesh, ASSETC_CHUNK_SKIN, desc->vertex_count, sizeof(assetc_gpu_skin_vertex), 1);
    return result;
}

/* ------------------------------------------------------------------------ */
/* .hmat reader                                                              */
/* ------------------------------------------------------------------------ */

/* An opened material table over the caller's buffer. */
typedef struct assetc_hmat {
    const uint8_t *rows; /* count * 96 bytes of assetc_gpu_material */
    uint32_t count;
} assetc_hmat;

/*
 * Opens the material table in `data[0 .. size)`: checks the magic, version,
 * zero flags, and that the file is exactly 16 + 96 * count bytes.
 */
static inline assetc_result assetc_hmat_open(assetc_hmat *table, const void *data, size_t size)
{
    const uint8_t *bytes = (const uint8_t *)data;
    uint32_t count;
    if (table == NULL || (data == NULL && size != 0))
        return ASSETC_ERR_ARGUMENT;
    if (size < sizeof(assetc_mat_file_header))
        return ASSETC_ERR_TRUNCATED;
    if (assetc_load_u32le(bytes) != ASSETC_HMAT_MAGIC)
        return ASSETC_ERR_MAGIC;
    if (assetc_load_u32le(bytes + 4) != ASSETC_HMAT_VERSION)
        return ASSETC_ERR_VERSION;
    if (assetc_load_u32le(bytes + 12) != 0)
        return ASSETC_ERR_RESERVED;
    count = assetc_load_u32le(bytes + 8);
    if ((uint64_t)size - sizeof(assetc_mat_file_header) != (uint64_t)count * sizeof(assetc_gpu_material))
        return (uint64_t)size - sizeof(assetc_mat_file_header) < (uint64_t)count * sizeof(assetc_gpu_material)
                   ? ASSETC_ERR_TRUNCATED
                   : ASSETC_ERR_SIZE;
    table->rows = bytes + sizeof(assetc_mat_file_header);
    table->count = count;
    return ASSETC_OK;
}

/* Copies row `index` into `*row`. Needs a little-endian host. */
static inline assetc_result assetc_hmat_row(const assetc_hmat *table, uint32_t index, assetc_gpu_material *row)
{
    if (table == NULL || table->rows == NULL || row == NULL)
        return ASSETC_ERR_ARGUMENT;
    if (index >= table->count)
        return ASSETC_ERR_RANGE;
    if (!assetc_host_is_little_endian())
        return ASSETC_ERR_ENDIAN;
    memcpy(row, table->rows + (size_t)index * sizeof(assetc_gpu_material), sizeof(assetc_gpu_material));
    return ASSETC_OK;
}

/* ------------------------------------------------------------------------ */
/* .hsnd reader                                                              */
/* ------------------------------------------------------------------------ */

/* The float whose IEEE 754 bits are stored little-endian at `p`. */
static inline float assetc_detail_load_f32le(const uint8_t *p)
{
    uint32_t bits = assetc_load_u32le(p);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* The IEEE 754 bits of `value`. */
static inline uint32_t assetc_detail_f32_bits(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

/* Whether the float with bits `bits` is finite (not NaN or infinite). */
static inline int assetc_detail_f32_bits_finite(uint32_t bits)
{
    return (bits & 0x7F800000u) != 0x7F800000u;
}

/* Checks the fields of a decoded record after its magic and version. */
static inline assetc_result assetc_detail_hsnd_check(const assetc_sound_record *record)
{
    uint32_t loudness = assetc_detail_f32_bits(record->loudness);
    uint32_t true_peak = assetc_detail_f32_bits(record->true_peak);
    if (record->codec >= ASSETC_SOUND_CODEC_COUNT)
        return ASSETC_ERR_KIND;
    if ((record->flags & ~ASSETC_SOUND_KNOWN_FLAGS) != 0)
        return ASSETC_ERR_RESERVED;
    if (record->rate == 0 || record->rate > ASSETC_SOUND_MAX_RATE || record->channels == 0 ||
        record->channels > ASSETC_SOUND_MAX_CHANNELS || record->frames == 0)
        return ASSETC_ERR_VALUE;
    if ((record->flags & ASSETC_SOUND_FLAG_LOOPS) != 0) {
        if (record->loop_end > record->frames)
            return ASSETC_ERR_RANGE;
        if (record->loop_start >= record->loop_end)
            return ASSETC_ERR_VALUE;
    } else if (record->loop_start != 0 || record->loop_end != 0) {
        return ASSETC_ERR_VALUE;
    }
    if ((record->flags & ASSETC_SOUND_FLAG_LOUDNESS) != 0) {
        if (!assetc_detail_f32_bits_finite(loudness) || !assetc_detail_f32_bits_finite(true_peak))
            return ASSETC_ERR_VALUE;
    } else if (loudness != 0 || true_peak != 0) {
        return ASSETC_ERR_VALUE;
    }
    return ASSETC_OK;
}

/*
 * Reads the sound record in `data[0 .. size)` into `*record` and checks every
 * rule of the format: exactly ASSETC_HSND_BYTES bytes, magic and version, a
 * known codec (ASSETC_ERR_KIND), no unknown flag bit (ASSETC_ERR_RESERVED),
 * rate, channels and frames in range, loop_start < loop_end <= frames with
 * ASSETC_SOUND_FLAG_LOOPS and both 0 without it, finite loudness and true
 * peak with ASSETC_SOUND_FLAG_LOUDNESS and both +0.0 without it. Decodes
 * byte by byte, so it works on any host and any alignment; `*record` is
 * written only on success.
 */
static inline assetc_result assetc_hsnd_read(const void *data, size_t size, assetc_sound_record *record)
{
    const uint8_t *bytes = (const uint8_t *)data;
    assetc_sound_record decoded;
    assetc_result result;
    if (record == NULL || (data == NULL && size != 0))
        return ASSETC_ERR_ARGUMENT;
    if (size < ASSETC_HSND_BYTES)
        return ASSETC_ERR_TRUNCATED;
    decoded.magic = assetc_load_u32le(bytes);
    decoded.version = assetc_load_u32le(bytes + 4);
    if (decoded.magic != ASSETC_HSND_MAGIC)
        return ASSETC_ERR_MAGIC;
    if (decoded.version != ASSETC_HSND_VERSION)
        return ASSETC_ERR_VERSION;
    if (size != ASSETC_HSND_BYTES)
        return ASSETC_ERR_SIZE;
    decoded.codec = assetc_load_u32le(bytes + 8);
    decoded.flags = assetc_load_u32le(bytes + 12);
    decoded.rate = assetc_load_u32le(bytes + 16);
    decoded.channels = assetc_load_u32le(bytes + 20);
    decoded.frames = assetc_load_u64le(bytes + 24);
    decoded.loop_start = assetc_load_u64le(bytes + 32);
    decoded.loop_end = assetc_load_u64le(bytes + 40);
    decoded.loudness = assetc_detail_load_f32le(bytes + 48);
    decoded.true_peak = assetc_detail_load_f32le(bytes + 52);
    decoded.sound = assetc_load_u64le(bytes + 56);
    result = assetc_detail_hsnd_check(&decoded);
    if (result == ASSETC_OK)
        *record = decoded;
    return result;
}

/* ------------------------------------------------------------------------ */
/* .hatlas reader                                                            */
/* ------------------------------------------------------------------------ */

/* A checked sprite table: its decoded header and where its rows and names are. */
typedef struct assetc_hatlas {
    assetc_atlas_header header;
    const uint8_t *rows;  /* header.sprite_count * 72 bytes */
    const uint8_t *names; /* header.name_bytes bytes */
} assetc_hatlas;

/* Decodes row `index` of `rows` (any host, any alignment); no checks. */
static inline void assetc_detail_atlas_row(const uint8_t *rows, uint32_t index, assetc_atlas_sprite *sprite)
{
    const uint8_t *p = rows + (size_t)index * sizeof(assetc_atlas_sprite);
    sprite->name_hash = assetc_load_u64le(p);
    sprite->page = assetc_load_u32le(p + 8);
    sprite->flags = assetc_load_u32le(p + 12);
    sprite->x = assetc_load_u32le(p + 16);
    sprite->y = assetc_load_u32le(p + 20);
    sprite->w = assetc_load_u32le(p + 24);
    sprite->h = assetc_load_u32le(p + 28);
    sprite->trim_x = assetc_load_u32le(p + 32);
    sprite->trim_y = assetc_load_u32le(p + 36);
    sprite->source_w = assetc_load_u32le(p + 40);
    sprite->source_h = assetc_load_u32le(p + 44);
    sprite->pivot_x = assetc_detail_load_f32le(p + 48);
    sprite->pivot_y = assetc_detail_load_f32le(p + 52);
    sprite->duration_ms = assetc_load_u32le(p + 56);
    sprite->name_offset = assetc_load_u32le(p + 60);
    sprite->name_len = assetc_load_u32le(p + 64);
    sprite->reserved = assetc_load_u32le(p + 68);
}

/* Whether `s[0 .. n)` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF). */
static inline int assetc_detail_is_utf8(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t extra;
        uint8_t low = 0x80u, high = 0xBFu;
        if (c < 0x80u) {
            ++i;
            continue;
        }
        if (c >= 0xC2u && c <= 0xDFu) {
            extra = 1;
        } else if (c >= 0xE0u && c <= 0xEFu) {
            extra = 2;
            if (c == 0xE0u) low = 0xA0u;
            if (c == 0xEDu) high = 0x9Fu;
        } else if (c >= 0xF0u && c <= 0xF4u) {
            extra = 3;
            if (c == 0xF0u) low = 0x90u;
            if (c == 0xF4u) high = 0x8Fu;
        } else {
            return 0;
        }
        if (n - i <= extra || s[i + 1] < low || s[i + 1] > high)
            return 0;
        for (size_t k = 2; k <= extra; ++k)
            if (s[i + k] < 0x80u || s[i + k] > 0xBFu)
                return 0;
        i += extra + 1;
    }
    return 1;
}

/* The rules of one row, apart from the order and overlaps. */
static inline assetc_result assetc_detail_atlas_check_row(const assetc_hatlas *atlas, const assetc_atlas_sprite *s)
{
    const assetc_atlas_header *h = &atlas->header;
    uint32_t content_w = (s->flags & ASSETC_SPRITE_FLAG_ROTATED) != 0 ? s->h : s->w;
    uint32_t content_h = (s->flags & ASSETC_SPRITE_FLAG_ROTATED) != 0 ? s->w : s->h;
    if (s->page >= h->page_count)
        return ASSETC_ERR_RANGE;
    if ((s->flags & ~ASSETC_SPRITE_FLAG_ROTATED) != 0 || s->reserved != 0)
        return ASSETC_ERR_RESERVED;
    if ((uint64_t)s->x + s->w > h->page_width || (uint64_t)s->y + s->h > h->page_height)
        return ASSETC_ERR_RANGE;
    if (s->source_w == 0 || s->source_h == 0)
        return ASSETC_ERR_VALUE;
    if ((uint64_t)s->trim_x + content_w > s->source_w || (uint64_t)s->trim_y + content_h > s->source_h)
        return ASSETC_ERR_RANGE;
    if (!assetc_detail_f32_bits_finite(assetc_detail_f32_bits(s->pivot_x)) ||
        !assetc_detail_f32_bits_finite(assetc_detail_f32_bits(s->pivot_y)))
        return ASSETC_ERR_VALUE;
    if ((h->flags & ASSETC_ATLAS_FLAG_ANIMATION) == 0 && s->duration_ms != 0)
        return ASSETC_ERR_VALUE;
    if (s->name_len == 0 || (uint64_t)s->name_offset + s->name_len > h->name_bytes)
        return ASSETC_ERR_RANGE;
    if (!assetc_detail_is_utf8(atlas->names + s->name_offset, s->name_len))
        return ASSETC_ERR_VALUE;
    if (assetc_hash((const char *)atlas->names + s->name_offset, s->name_len) != s->name_hash)
        return ASSETC_ERR_VALUE;
    return ASSETC_OK;
}

/* Whether two rows share a texel (both with content, on one page). */
static inline int assetc_detail_atlas_overlap(const assetc_atlas_sprite *a, const assetc_atlas_sprite *b)
{
    if (a->w == 0 || a->h == 0 || b->w == 0 || b->h == 0 || a->page != b->page)
        return 0;
    return (uint64_t)a->x < (uint64_t)b->x + b->w && (uint64_t)b->x < (uint64_t)a->x + a->w &&
           (uint64_t)a->y < (uint64_t)b->y + b->h && (uint64_t)b->y < (uint64_t)a->y + a->h;
}

/* The order and overlap rules across rows (quadratic in the sprite count). */
static inline assetc_result assetc_detail_atlas_check_pairs(const assetc_hatlas *atlas)
{
    uint32_t count = atlas->header.sprite_count;
    int animation = (atlas->header.flags & ASSETC_ATLAS_FLAG_ANIMATION) != 0;
    for (uint32_t i = 0; i < count; ++i) {
        assetc_atlas_sprite a;
        assetc_detail_atlas_row(atlas->rows, i, &a);
        for (uint32_t j = i + 1; j < count; ++j) {
            assetc_atlas_sprite b;
            assetc_detail_atlas_row(atlas->rows, j, &b);
            if (animation ? a.name_hash == b.name_hash : a.name_hash >= b.name_hash)
                return ASSETC_ERR_ORDER;
            if (assetc_detail_atlas_overlap(&a, &b))
                return ASSETC_ERR_VALUE;
        }
    }
    return ASSETC_OK;
}

/*
 * Reads the sprite table in `data[0 .. size)` into `*atlas` and checks every
 * rule of the format (docs/formats/hatlas.md): magic and version, known flags
 * and zero reserved words (ASSETC_ERR_RESERVED), at least one sprite and one
 * page, pages 1 to ASSETC_ATLAS_MAX_PAGE_SIDE texels a side, the exact file
 * size, and for every row its page, rect, trim, pivot, duration and name
 * (inside the names, UTF-8, hashing to name_hash), rows by ascending hash
 * (distinct hashes for an animation; ASSETC_ERR_ORDER) and no two rects
 * overlapping on a page. Decodes byte by byte, so any host and alignment
 * work; `*atlas` points into `data` and is written only on success.
 */
static inline assetc_result assetc_hatlas_read(const void *data, size_t size, assetc_hatlas *atlas)
{
    const uint8_t *bytes = (const uint8_t *)data;
    assetc_hatlas read;
    assetc_atlas_header *h = &read.header;
    uint64_t expected;
    assetc_result result;
    if (atlas == NULL || (data == NULL && size != 0))
        return ASSETC_ERR_ARGUMENT;
    if (size < sizeof(assetc_atlas_header))
        return ASSETC_ERR_TRUNCATED;
    h->magic = assetc_load_u32le(bytes);
    h->version = assetc_load_u32le(bytes + 4);
    h->sprite_count = assetc_load_u32le(bytes + 8);
    h->page_count = assetc_load_u32le(bytes + 12);
    h->page_width = assetc_load_u32le(bytes + 16);
    h->page_height = assetc_load_u32le(bytes + 20);
    h->flags = assetc_load_u32le(bytes + 24);
    h->reserved = assetc_load_u32le(bytes + 28);
    h->atlas_tex = assetc_load_u64le(bytes + 32);
    h->name_bytes = assetc_load_u32le(bytes + 40);
    h->reserved2 = assetc_load_u32le(bytes + 44);
    if (h->magic != ASSETC_HATLAS_MAGIC)
        return ASSETC_ERR_MAGIC;
    if (h->version != ASSETC_HATLAS_VERSION)
        return ASSETC_ERR_VERSION;
    if ((h->flags & ~ASSETC_ATLAS_KNOWN_FLAGS) != 0 || h->reserved != 0 || h->reserved2 != 0)
        return ASSETC_ERR_RESERVED;
    if (h->sprite_count == 0 || h->page_count == 0 || h->page_width == 0 || h->page_height == 0 ||
        h->page_width > ASSETC_ATLAS_MAX_PAGE_SIDE || h->page_height > ASSETC_ATLAS_MAX_PAGE_SIDE)
        return ASSETC_ERR_VALUE;
    expected = sizeof(assetc_atlas_header) + (uint64_t)h->sprite_count * sizeof(assetc_atlas_sprite) + h->name_bytes;
    if ((uint64_t)size != expected)
        return (uint64_t)size < expected ? ASSETC_ERR_TRUNCATED : ASSETC_ERR_SIZE;
    read.rows = bytes + sizeof(assetc_atlas_header);
    read.names = read.rows + (size_t)h->sprite_count * sizeof(assetc_atlas_sprite);
    for (uint32_t i = 0; i < h->sprite_count; ++i) {
        assetc_atlas_sprite sprite;
        assetc_detail_atlas_row(read.rows, i, &sprite);
        result = assetc_detail_atlas_check_row(&read, &sprite);
        if (result != ASSETC_OK)
            return result;
    }
    result = assetc_detail_atlas_check_pairs(&read);
    if (result == ASSETC_OK)
        *atlas = read;
    return result;
}

/* Copies row `index` of a table assetc_hatlas_read accepted into `*sprite`. */
static inline assetc_result assetc_hatlas_sprite(const assetc_hatlas *atlas, uint32_t index, assetc_atlas_sprite *sprite)
{
    if (atlas == NULL || atlas->rows == NULL || sprite == NULL)
        return ASSETC_ERR_ARGUMENT;
    if (index >= atlas->header.sprite_count)
        return ASSETC_ERR_RANGE;
    assetc_detail_atlas_row(atlas->rows, index, sprite);
    return ASSETC_OK;
}

/* The name of `sprite`, a row of `atlas`: `*len` bytes, not NUL-terminated. */
static inline const char *assetc_hatlas_name(const assetc_hatlas *atlas, const assetc_atlas_sprite *sprite, size_t *len)
{
    *len = sprite->name_len;
    return (const char *)atlas->names + sprite->name_offset;
}

/*
 * Finds the sprite named `name[0 .. n)` (ASCII case folded, as ids are) by
 * binary search over the hashes, or by a scan in an animation; copies it into
 * `*sprite`, or returns ASSETC_ERR_MISSING.
 */
static inline assetc_result assetc_hatlas_find(const assetc_hatlas *atlas, const char *name, size_t n, assetc_atlas_sprite *sprite)
{
    uint64_t hash = assetc_hash(name, n);
    uint32_t low = 0, high;
    if (atlas == NULL || atlas->rows == NULL || sprite == NULL || (name == NULL && n != 0))
        return ASSETC_ERR_ARGUMENT;
    high = atlas->header.sprite_count;
    if ((atlas->header.flags & ASSETC_ATLAS_FLAG_ANIMATION) != 0) {
        for (uint32_t i = 0; i < high; ++i) {
            assetc_detail_atlas_row(atlas->rows, i, sprite);
            if (sprite->name_hash == hash)
                return ASSETC_OK;
        }
        return ASSETC_ERR_MISSING;
    }
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        assetc_detail_atlas_row(atlas->rows, middle, sprite);
        if (sprite->name_hash == hash)
            return ASSETC_OK;
        if (sprite->name_hash < hash)
            low = middle + 1;
        else
            high = middle;
    }
    return ASSETC_ERR_MISSING;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ASSETC_H */
