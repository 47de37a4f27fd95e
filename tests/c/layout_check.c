/*
 * layout_check: prints what assetc.h says about the formats - every packed
 * struct's size, every field's offset and size, the magic and version
 * constants, the chunk ids and flag bits, and the names of the byte
 * enumerations and sound codecs - one fact per line.
 * tests/integration/c_header.rs prints the same facts from the Rust crate and
 * compares the two texts. Builds as C99 and as C++.
 */
#include "assetc.h"

#include <stdio.h>

#define STRUCT(type) printf("%s size %lu\n", #type, (unsigned long)sizeof(type))
#define FIELD(type, field)                                      \
    printf("%s.%s %lu %lu\n", #type, #field,                    \
           (unsigned long)offsetof(type, field),                \
           (unsigned long)sizeof(((const type *)NULL)->field))
#define CONSTANT(name) printf("%s %lu\n", #name, (unsigned long)(name))

static void print_mesh_structs(void)
{
    STRUCT(assetc_mesh_file_header);
    FIELD(assetc_mesh_file_header, magic);
    FIELD(assetc_mesh_file_header, version);
    FIELD(assetc_mesh_file_header, chunk_count);
    FIELD(assetc_mesh_file_header, flags);
    FIELD(assetc_mesh_file_header, reserved1);
    FIELD(assetc_mesh_file_header, reserved2);
    STRUCT(assetc_chunk_entry);
    FIELD(assetc_chunk_entry, fourcc);
    FIELD(assetc_chunk_entry, flags);
    FIELD(assetc_chunk_entry, offset);
    FIELD(assetc_chunk_entry, size);
    STRUCT(assetc_mesh_desc);
    FIELD(assetc_mesh_desc, vertex_count);
    FIELD(assetc_mesh_desc, index_count);
    FIELD(assetc_mesh_desc, meshlet_count);
    FIELD(assetc_mesh_desc, submesh_count);
    FIELD(assetc_mesh_desc, material_count);
    FIELD(assetc_mesh_desc, vertex_stride);
    FIELD(assetc_mesh_desc, index_width);
    FIELD(assetc_mesh_desc, flags);
    FIELD(assetc_mesh_desc, meshlet_max_vertices);
    FIELD(assetc_mesh_desc, meshlet_max_triangles);
    STRUCT(assetc_mesh_bounds);
    FIELD(assetc_mesh_bounds, aabb_min);
    FIELD(assetc_mesh_bounds, aabb_max);
    FIELD(assetc_mesh_bounds, sphere_center);
    FIELD(assetc_mesh_bounds, sphere_radius);
    STRUCT(assetc_gpu_vertex);
    FIELD(assetc_gpu_vertex, position);
    FIELD(assetc_gpu_vertex, normal);
    FIELD(assetc_gpu_vertex, tangent);
    FIELD(assetc_gpu_vertex, uv);
    STRUCT(assetc_gpu_skin_vertex);
    FIELD(assetc_gpu_skin_vertex, joints);
    FIELD(assetc_gpu_skin_vertex, weights);
    STRUCT(assetc_gpu_joint);
    FIELD(assetc_gpu_joint, inverse_bind);
    FIELD(assetc_gpu_joint, bind_translation);
    FIELD(assetc_gpu_joint, bind_rotation);
    FIELD(assetc_gpu_joint, bind_scale);
    FIELD(assetc_gpu_joint, parent);
    FIELD(assetc_gpu_joint, pad);
    STRUCT(assetc_meshlet);
    FIELD(assetc_meshlet, vertex_offset);
    FIELD(assetc_meshlet, vertex_count);
    FIELD(assetc_meshlet, triangle_offset);
    FIELD(assetc_meshlet, triangle_count);
    STRUCT(assetc_meshlet_triangle);
    FIELD(assetc_meshlet_triangle, indices);
    STRUCT(assetc_meshlet_bounds);
    FIELD(assetc_meshlet_bounds, center);
    FIELD(assetc_meshlet_bounds, radius);
    FIELD(assetc_meshlet_bounds, cone_axis);
    FIELD(assetc_meshlet_bounds, cone_cutoff);
    STRUCT(assetc_submesh);
    FIELD(assetc_submesh, first_index);
    FIELD(assetc_submesh, index_count);
    FIELD(assetc_submesh, first_meshlet);
    FIELD(assetc_submesh, meshlet_count);
    FIELD(assetc_submesh, material_slot);
    FIELD(assetc_submesh, base_vertex);
    FIELD(assetc_submesh, bounds);
    STRUCT(assetc_mesh_lod);
    FIELD(assetc_mesh_lod, first_index);
    FIELD(assetc_mesh_lod, index_count);
    STRUCT(assetc_lod_table_header);
    FIELD(assetc_lod_table_header, lod_count);
    FIELD(assetc_lod_table_header, submesh_count);
}

static void print_other_structs(void)
{
    STRUCT(assetc_mat_file_header);
    FIELD(assetc_mat_file_header, magic);
    FIELD(assetc_mat_file_header, version);
    FIELD(assetc_mat_file_header, count);
    FIELD(assetc_mat_file_header, flags);
    STRUCT(assetc_gpu_material);
    FIELD(assetc_gpu_material, base_color_factor);
    FIELD(assetc_gpu_material, emissive_factor);
    FIELD(assetc_gpu_material, metallic_factor);
    FIELD(assetc_gpu_material, roughness_factor);
    FIELD(assetc_gpu_material, normal_scale);
    FIELD(assetc_gpu_material, occlusion_strength);
    FIELD(assetc_gpu_material, alpha_cutoff);
    FIELD(assetc_gpu_material, flags);
    FIELD(assetc_gpu_material, pad);
    FIELD(assetc_gpu_material, base_color_texture);
    FIELD(assetc_gpu_material, metallic_roughness_texture);
    FIELD(assetc_gpu_material, normal_texture);
    FIELD(assetc_gpu_material, occlusion_texture);
    FIELD(assetc_gpu_material, emissive_texture);
    STRUCT(assetc_man_header);
    FIELD(assetc_man_header, magic);
    FIELD(assetc_man_header, version);
    FIELD(assetc_man_header, count);
    FIELD(assetc_man_header, reserved);
    STRUCT(assetc_pack_header);
    FIELD(assetc_pack_header, magic);
    FIELD(assetc_pack_header, version);
    FIELD(assetc_pack_header, count);
    FIELD(assetc_pack_header, flags);
    FIELD(assetc_pack_header, toc_bytes);
    STRUCT(assetc_anim_header);
    FIELD(assetc_anim_header, magic);
    FIELD(assetc_anim_header, version);
    FIELD(assetc_anim_header, clip_count);
    FIELD(assetc_anim_header, reserved);
}

static void print_font_structs(void)
{
    STRUCT(assetc_font_file_header);
    FIELD(assetc_font_file_header, magic);
    FIELD(assetc_font_file_header, version);
    FIELD(assetc_font_file_header, glyph_count);
    FIELD(assetc_font_file_header, kerning_count);
    FIELD(assetc_font_file_header, atlas_tex);
    FIELD(assetc_font_file_header, ascent);
    FIELD(assetc_font_file_header, descent);
    FIELD(assetc_font_file_header, line_gap);
    FIELD(assetc_font_file_header, distance_range);
    FIELD(assetc_font_file_header, edge_value);
    FIELD(assetc_font_file_header, atlas_width);
    FIELD(assetc_font_file_header, atlas_height);
    FIELD(assetc_font_file_header, flags);
    STRUCT(assetc_gpu_glyph);
    FIELD(assetc_gpu_glyph, codepoint);
    FIELD(assetc_gpu_glyph, advance);
    FIELD(assetc_gpu_glyph, plane_left);
    FIELD(assetc_gpu_glyph, plane_bottom);
    FIELD(assetc_gpu_glyph, plane_right);
    FIELD(assetc_gpu_glyph, plane_top);
    FIELD(assetc_gpu_glyph, uv_left);
    FIELD(assetc_gpu_glyph, uv_top);
    FIELD(assetc_gpu_glyph, uv_right);
    FIELD(assetc_gpu_glyph, uv_bottom);
    STRUCT(assetc_kerning_pair);
    FIELD(assetc_kerning_pair, left);
    FIELD(assetc_kerning_pair, right);
    FIELD(assetc_kerning_pair, advance);
}

static void print_sound_structs(void)
{
    STRUCT(assetc_sound_record);
    FIELD(assetc_sound_record, magic);
    FIELD(assetc_sound_record, version);
    FIELD(assetc_sound_record, codec);
    FIELD(assetc_sound_record, flags);
    FIELD(assetc_sound_record, rate);
    FIELD(assetc_sound_record, channels);
    FIELD(assetc_sound_record, frames);
    FIELD(assetc_sound_record, loop_start);
    FIELD(assetc_sound_record, loop_end);
    FIELD(assetc_sound_record, loudness);
    FIELD(assetc_sound_record, true_peak);
    FIELD(assetc_sound_record, sound);
}

static void print_atlas_structs(void)
{
    STRUCT(assetc_atlas_header);
    FIELD(assetc_atlas_header, magic);
    FIELD(assetc_atlas_header, version);
    FIELD(assetc_atlas_header, sprite_count);
    FIELD(assetc_atlas_header, page_count);
    FIELD(assetc_atlas_header, page_width);
    FIELD(assetc_atlas_header, page_height);
    FIELD(assetc_atlas_header, flags);
    FIELD(assetc_atlas_header, reserved);
    FIELD(assetc_atlas_header, atlas_tex);
    FIELD(assetc_atlas_header, name_bytes);
    FIELD(assetc_atlas_header, reserved2);
    STRUCT(assetc_atlas_sprite);
    FIELD(assetc_atlas_sprite, name_hash);
    FIELD(assetc_atlas_sprite, page);
    FIELD(assetc_atlas_sprite, flags);
    FIELD(assetc_atlas_sprite, x);
    FIELD(assetc_atlas_sprite, y);
    FIELD(assetc_atlas_sprite, w);
    FIELD(assetc_atlas_sprite, h);
    FIELD(assetc_atlas_sprite, trim_x);
    FIELD(assetc_atlas_sprite, trim_y);
    FIELD(assetc_atlas_sprite, source_w);
    FIELD(assetc_atlas_sprite, source_h);
    FIELD(assetc_atlas_sprite, pivot_x);
    FIELD(assetc_atlas_sprite, pivot_y);
    FIELD(assetc_atlas_sprite, duration_ms);
    FIELD(assetc_atlas_sprite, name_offset);
    FIELD(assetc_atlas_sprite, name_len);
    FIELD(assetc_atlas_sprite, reserved);
}

static void print_constants(void)
{
    CONSTANT(ASSETC_HMESH_MAGIC);
    CONSTANT(ASSETC_HMESH_VERSION);
    CONSTANT(ASSETC_HMAT_MAGIC);
    CONSTANT(ASSETC_HMAT_VERSION);
    CONSTANT(ASSETC_HMAN_MAGIC);
    CONSTANT(ASSETC_HMAN_VERSION);
    CONSTANT(ASSETC_HANIM_MAGIC);
    CONSTANT(ASSETC_HANIM_VERSION);
    CONSTANT(ASSETC_HFONT_MAGIC);
    CONSTANT(ASSETC_HFONT_VERSION);
    CONSTANT(ASSETC_HPACK_MAGIC);
    CONSTANT(ASSETC_HPACK_VERSION);
    CONSTANT(ASSETC_HSND_MAGIC);
    CONSTANT(ASSETC_HSND_VERSION);
    CONSTANT(ASSETC_HATLAS_MAGIC);
    CONSTANT(ASSETC_HATLAS_VERSION);
    CONSTANT(ASSETC_CHUNK_DESC);
    CONSTANT(ASSETC_CHUNK_BNDS);
    CONSTANT(ASSETC_CHUNK_VTXS);
    CONSTANT(ASSETC_CHUNK_IDXS);
    CONSTANT(ASSETC_CHUNK_MLET);
    CONSTANT(ASSETC_CHUNK_MLVR);
    CONSTANT(ASSETC_CHUNK_MLTR);
    CONSTANT(ASSETC_CHUNK_MLBN);
    CONSTANT(ASSETC_CHUNK_MTRL);
    CONSTANT(ASSETC_CHUNK_SUBM);
    CONSTANT(ASSETC_CHUNK_SKIN);
    CONSTANT(ASSETC_CHUNK_SKEL);
    CONSTANT(ASSETC_CHUNK_LODI);
    CONSTANT(ASSETC_CHUNK_LODT);
    CONSTANT(ASSETC_KNOWN_CHUNK_COUNT);
    CONSTANT(ASSETC_HMESH_CHUNK_ALIGN);
    CONSTANT(ASSETC_HMESH_VERTEX_STRIDE);
    CONSTANT(ASSETC_MESH_FLAG_HAS_TANGENTS);
    CONSTANT(ASSETC_MESH_KNOWN_FLAGS);
    CONSTANT(ASSETC_NO_MATERIAL);
    CONSTANT(ASSETC_MATERIAL_FLAG_DOUBLE_SIDED);
    CONSTANT(ASSETC_MATERIAL_ALPHA_MODE_SHIFT);
    CONSTANT(ASSETC_MATERIAL_ALPHA_MODE_MASK);
    CONSTANT(ASSETC_MATERIAL_KNOWN_FLAGS);
    CONSTANT(ASSETC_ALPHA_OPAQUE);
    CONSTANT(ASSETC_ALPHA_MASK);
    CONSTANT(ASSETC_ALPHA_BLEND);
    CONSTANT(ASSETC_ANIM_TRANSLATION);
    CONSTANT(ASSETC_ANIM_ROTATION);
    CONSTANT(ASSETC_ANIM_SCALE);
    CONSTANT(ASSETC_ANIM_STEP);
    CONSTANT(ASSETC_ANIM_LINEAR);
    CONSTANT(ASSETC_FONT_FLAG_MSDF);
    CONSTANT(ASSETC_FONT_FLAG_BITMAP);
    CONSTANT(ASSETC_HSND_BYTES);
    CONSTANT(ASSETC_SOUND_FLAG_LOOPS);
    CONSTANT(ASSETC_SOUND_FLAG_LOUDNESS);
    CONSTANT(ASSETC_SOUND_KNOWN_FLAGS);
    CONSTANT(ASSETC_SOUND_MAX_CHANNELS);
    CONSTANT(ASSETC_SOUND_MAX_RATE);
    CONSTANT(ASSETC_SOUND_PCM16);
    CONSTANT(ASSETC_SOUND_QOA);
    CONSTANT(ASSETC_SOUND_VORBIS);
    CONSTANT(ASSETC_SOUND_OPUS);
    CONSTANT(ASSETC_ATLAS_FLAG_NEAREST);
    CONSTANT(ASSETC_ATLAS_FLAG_ANIMATION);
    CONSTANT(ASSETC_ATLAS_KNOWN_FLAGS);
    CONSTANT(ASSETC_SPRITE_FLAG_ROTATED);
    CONSTANT(ASSETC_ATLAS_MAX_PAGE_SIDE);
    CONSTANT(ASSETC_HMAN_HEADER_BYTES);
    CONSTANT(ASSETC_HMAN_ENTRY_FIXED_BYTES);
    CONSTANT(ASSETC_HPACK_HEADER_BYTES);
    CONSTANT(ASSETC_HPACK_TOC_FIXED_BYTES);
    CONSTANT(ASSETC_HPACK_PAYLOAD_ALIGN);
    CONSTANT(ASSETC_HPACK_REMOVED_PATH_BYTES);
    CONSTANT(ASSETC_VK_FORMAT_R8_UNORM);
    CONSTANT(ASSETC_VK_FORMAT_R8G8B8A8_UNORM);
    CONSTANT(ASSETC_VK_FORMAT_R8G8B8A8_SRGB);
    CONSTANT(ASSETC_VK_FORMAT_R16_UNORM);
    CONSTANT(ASSETC_VK_FORMAT_R16G16_UNORM);
    CONSTANT(ASSETC_VK_FORMAT_R16G16_SFLOAT);
    CONSTANT(ASSETC_VK_FORMAT_R16G16B16A16_UNORM);
    CONSTANT(ASSETC_VK_FORMAT_R16G16B16A16_SFLOAT);
    CONSTANT(ASSETC_VK_FORMAT_E5B9G9R9_UFLOAT_PACK32);
    CONSTANT(ASSETC_VK_FORMAT_BC1_RGB_UNORM_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_BC1_RGB_SRGB_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_BC4_UNORM_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_BC5_UNORM_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_BC6H_UFLOAT_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_BC7_UNORM_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_BC7_SRGB_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_ASTC_4x4_UNORM_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_ASTC_8x8_SRGB_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK);
    CONSTANT(ASSETC_VK_FORMAT_ASTC_8x8_SFLOAT_BLOCK);
}

static void print_bytes(const char *name, const char *bytes, unsigned count)
{
    unsigned i;
    printf("%s", name);
    for (i = 0; i < count; ++i)
        printf(" %u", (unsigned)(unsigned char)bytes[i]);
    printf("\n");
}

/* Names of every byte value 0..9, so a kind added on one side shows up. */
static void print_enum_names(void)
{
    unsigned byte;
    for (byte = 0; byte < 10; ++byte) {
        const char *asset = assetc_asset_kind_name((uint8_t)byte);
        const char *space = assetc_color_space_name((uint8_t)byte);
        const char *pack = assetc_pack_kind_name((uint8_t)byte);
        const char *codec = assetc_sound_codec_name(byte);
        printf("asset_kind %u %s\n", byte, asset != NULL ? asset : "-");
        printf("color_space %u %s\n", byte, space != NULL ? space : "-");
        printf("pack_kind %u %s\n", byte, pack != NULL ? pack : "-");
        printf("sound_codec %u %s\n", byte, codec != NULL ? codec : "-");
    }
}

/* Ids of sample refs: plain, mixed case, empty, non-ASCII, and kind-specific suffixes. */
static void print_hashes(void)
{
    static const char *const refs[] = {"", "a", "court/tex_0", "Court/TEX_0", "caf\xc3\xa9/\xc3\x89"};
    static const struct {
        uint8_t kind;
        const char *path;
    } files[] = {
        {ASSETC_ASSET_TEXTURE, "models/crate/tex_0.ktx2"}, {ASSETC_ASSET_LUT, "grading/warm.lut.ktx2"},
        {ASSETC_ASSET_SHADER, "fx/blur/vertex.spv"},       {ASSETC_ASSET_MESH, "models/crate.hmesh"},
        {ASSETC_ASSET_MATERIAL, "models/crate.hmat"},      {ASSETC_ASSET_TEXTURE, "ui/icon.KTX2"},
        {ASSETC_ASSET_EMBED, "data/level1.json"},          {ASSETC_ASSET_FONT, "ui/inter.hfont"}};
    size_t i;
    for (i = 0; i < sizeof refs / sizeof refs[0]; ++i)
        printf("hash \"%s\" %016llx\n", refs[i], (unsigned long long)assetc_hash(refs[i], strlen(refs[i])));
    for (i = 0; i < sizeof files / sizeof files[0]; ++i)
        printf("id %s %s %016llx\n", assetc_asset_kind_name(files[i].kind), files[i].path,
               (unsigned long long)assetc_id_for_path(files[i].kind, files[i].path, strlen(files[i].path)));
}

/* The block of every vkFormat below 200 and of the ASTC HDR range that the
 * header knows, and the bytes of a 13 x 7 image of it. */
static void print_texel_blocks(void)
{
    uint32_t vk;
    for (vk = 0; vk < 200 + 8; ++vk) {
        uint32_t format = vk < 200 ? vk : ASSETC_VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK + (vk - 200);
        assetc_texel_block block;
        if (assetc_vk_format_block(format, &block))
            printf("texel_block %lu %lux%lu %lu %llu\n", (unsigned long)format, (unsigned long)block.width,
                   (unsigned long)block.height, (unsigned long)block.bytes,
                   (unsigned long long)assetc_image_bytes(format, 13, 7));
    }
}

int main(void)
{
    print_mesh_structs();
    print_other_structs();
    print_font_structs();
    print_sound_structs();
    print_atlas_structs();
    print_constants();
    print_bytes("ASSETC_KTX2_IDENTIFIER", ASSETC_KTX2_IDENTIFIER, ASSETC_KTX2_IDENTIFIER_BYTES);
    print_bytes("ASSETC_HPACK_REMOVED_PATH", ASSETC_HPACK_REMOVED_PATH, ASSETC_HPACK_REMOVED_PATH_BYTES);
    print_enum_names();
    print_hashes();
    print_texel_blocks();
    return 0;
}
