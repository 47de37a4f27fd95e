/*
 * read_pack: reads a .hpack with nothing but assetc.h and the C library.
 *
 *   read_pack <file.hpack>
 *   read_pack --patch <patch.hpack> <base.hpack>  < paths
 *
 * The first form prints, one line each:
 *   entry <kind> <size> <path>             every TOC entry, in TOC order
 *   manifest <path> <entry count>          the assets.hman found in the pack
 *   mesh <path> <id> vertices=... indices=... index_width=... meshlets=...
 *        submeshes=... materials=... chunks=...
 *   material <path> <id> rows=<n>
 *   material <path> row=<i> base_color=<id|none> <manifest kind and path,
 *        with in_pack=yes|no, or "unresolved">
 *
 * Every mesh and material is looked up in the manifest by the id of its
 * runtime path (assetc_id_for_path).
 *
 * The second form mounts the patch pack above the base and looks up every
 * path read from standard input (one a line) with assetc_pack_layered_find:
 *   found <patch|base> <offset> <size> <crc32 of the payload> <path>
 *   missing <path>
 *
 * Exit status: 0 when everything reads, 1 on a format error (with a message
 * on stderr), 2 on a usage or I/O error. tests/integration/c_header.rs and
 * tests/integration/pack_patches.rs compare the output with what the Rust
 * crate reads.
 */
#include "assetc.h"

#include <stdio.h>
#include <stdlib.h>

/* The file's bytes in a buffer of exactly its size. */
typedef struct file_bytes {
    unsigned char *data;
    size_t size;
} file_bytes;

/* What the program reads everything through. */
typedef struct reader {
    assetc_pack pack;
    assetc_manifest manifest;
    unsigned char *manifest_bytes;
    size_t *manifest_index;
} reader;

/*
 * A copy of a pack entry's payload in a buffer of exactly its size (as an
 * engine streaming entries one by one would hold it), so that a sanitizer
 * catches a reader straying past the nested file even inside the pack.
 */
static unsigned char *copy_payload(const assetc_pack_entry *entry)
{
    unsigned char *copy = (unsigned char *)malloc(entry->size > 0 ? (size_t)entry->size : 1);
    if (copy == NULL)
        fprintf(stderr, "read_pack: out of memory\n");
    else
        memcpy(copy, entry->data, (size_t)entry->size);
    return copy;
}

static int format_error(const char *where, assetc_result result)
{
    fprintf(stderr, "read_pack: %s: %s\n", where, assetc_result_name(result));
    return 1;
}

static int entry_error(const assetc_pack_entry *entry, const char *what, assetc_result result)
{
    fprintf(stderr, "read_pack: %.*s: %s: %s\n", (int)entry->path_len, entry->path, what,
            assetc_result_name(result));
    return 1;
}

/* Reads the whole file; returns 0, or 2 after printing why it could not. */
static int read_file(const char *path, file_bytes *out)
{
    FILE *file = fopen(path, "rb");
    long length;
    if (file == NULL) {
        fprintf(stderr, "read_pack: cannot open %s\n", path);
        return 2;
    }
    if (fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 || fseek(file, 0, SEEK_SET) != 0) {
        fprintf(stderr, "read_pack: cannot size %s\n", path);
        fclose(file);
        return 2;
    }
    out->size = (size_t)length;
    /* Exactly `size` bytes, so a stray read past the end is caught by sanitizers. */
    out->data = (unsigned char *)malloc(out->size > 0 ? out->size : 1);
    if (out->data == NULL || fread(out->data, 1, out->size, file) != out->size) {
        fprintf(stderr, "read_pack: cannot read %s\n", path);
        fclose(file);
        return 2;
    }
    fclose(file);
    return 0;
}

static int list_entries(const assetc_pack *pack)
{
    assetc_pack_cursor cursor = assetc_pack_begin();
    assetc_pack_entry entry;
    assetc_result result;
    while ((result = assetc_pack_next(pack, &cursor, &entry)) == ASSETC_OK) {
        printf("entry %s %llu %.*s\n", assetc_pack_kind_name(entry.kind), (unsigned long long)entry.size,
               (int)entry.path_len, entry.path);
    }
    return result == ASSETC_END ? 0 : format_error("pack TOC", result);
}

/* Opens assets.hman from the pack and builds its binary-search index. */
static int open_manifest(reader *r)
{
    static const char name[] = "assets.hman";
    assetc_pack_entry entry;
    assetc_result result = assetc_pack_find(&r->pack, name, sizeof name - 1, &entry);
    if (result != ASSETC_OK)
        return format_error("assets.hman", result);
    r->manifest_bytes = copy_payload(&entry);
    if (r->manifest_bytes == NULL)
        return 2;
    result = assetc_manifest_open(&r->manifest, r->manifest_bytes, (size_t)entry.size);
    if (result != ASSETC_OK)
        return format_error("assets.hman", result);
    r->manifest_index = (size_t *)malloc(r->manifest.count > 0 ? r->manifest.count * sizeof(size_t) : 1);
    if (r->manifest_index == NULL) {
        fprintf(stderr, "read_pack: out of memory\n");
        return 2;
    }
    result = assetc_manifest_index(&r->manifest, r->manifest_index, r->manifest.count);
    if (result != ASSETC_OK)
        return format_error("assets.hman", result);
    printf("manifest %s %lu\n", name, (unsigned long)r->manifest.count);
    return 0;
}

/* Finds the manifest entry of a pack file and checks it names that file. */
static int lookup_self(const reader *r, const assetc_pack_entry *entry, uint8_t kind, uint64_t *id)
{
    assetc_manifest_entry found;
    assetc_result result;
    *id = assetc_id_for_path(kind, entry->path, entry->path_len);
    result = assetc_manifest_find(&r->manifest, r->manifest_index, *id, &found);
    if (result == ASSETC_NOT_FOUND) {
        fprintf(stderr, "read_pack: %.*s: not in the manifest\n", (int)entry->path_len, entry->path);
        return 1;
    }
    if (result != ASSETC_OK)
        return entry_error(entry, "manifest lookup", result);
    if (found.kind != kind ||
        assetc_compare_paths(found.path, found.path_len, entry->path, entry->path_len) != 0) {
        fprintf(stderr, "read_pack: %.*s: the manifest maps its id to %s %.*s\n", (int)entry->path_len,
                entry->path, assetc_asset_kind_name(found.kind), (int)found.path_len, found.path);
        return 1;
    }
    return 0;
}

/* Reads the header and DESC of the mesh in `bytes` (a copy of `entry`'s payload). */
static int print_mesh_counts(const assetc_pack_entry *entry, const unsigned char *bytes, uint64_t id)
{
    assetc_hmesh mesh;
    assetc_mesh_file_header header;
    assetc_mesh_desc desc;
    assetc_result result = assetc_hmesh_open(&mesh, bytes, (size_t)entry->size);
    if (result != ASSETC_OK)
        return entry_error(entry, "hmesh chunk table", result);
    result = assetc_hmesh_read_desc(&mesh, &desc);
    if (result != ASSETC_OK)
        return entry_error(entry, "hmesh DESC", result);
    memcpy(&header, bytes, sizeof header);
    printf("mesh %.*s %016llx vertices=%lu indices=%lu index_width=%u meshlets=%lu submeshes=%lu "
           "materials=%lu chunks=%lu\n",
           (int)entry->path_len, entry->path, (unsigned long long)id, (unsigned long)desc.vertex_count,
           (unsigned long)desc.index_count, (unsigned)desc.index_width, (unsigned long)desc.meshlet_count,
           (unsigned long)desc.submesh_count, (unsigned long)desc.material_count,
           (unsigned long)header.chunk_count);
    return 0;
}

static int print_mesh(const reader *r, const assetc_pack_entry *entry)
{
    uint64_t id = 0;
    unsigned char *bytes;
    int status = lookup_self(r, entry, ASSETC_ASSET_MESH, &id);
    if (status != 0)
        return status;
    bytes = copy_payload(entry);
    if (bytes == NULL)
        return 2;
    status = print_mesh_counts(entry, bytes, id);
    free(bytes);
    return status;
}

/* Prints where a texture id leads: the manifest entry and whether the pack has it. */
static int print_texture(const reader *r, uint64_t texture)
{
    assetc_manifest_entry found;
    assetc_pack_entry file;
    assetc_result result;
    if (texture == 0) {
        printf("base_color=none\n");
        return 0;
    }
    printf("base_color=%016llx ", (unsigned long long)texture);
    result = assetc_manifest_find(&r->manifest, r->manifest_index, texture, &found);
    if (result == ASSETC_NOT_FOUND) {
        printf("unresolved\n");
        return 0;
    }
    if (result != ASSETC_OK)
        return format_error("manifest lookup", result);
    result = assetc_pack_find(&r->pack, found.path, found.path_len, &file);
    if (result < 0)
        return format_error("pack lookup", result);
    printf("-> %s %.*s in_pack=%s\n", assetc_asset_kind_name(found.kind), (int)found.path_len, found.path,
           result == ASSETC_OK ? "yes" : "no");
    return 0;
}

/* Reads the rows of the material table in `bytes` (a copy of `entry`'s payload). */
static int print_material_rows(const reader *r, const assetc_pack_entry *entry, const unsigned char *bytes,
                               uint64_t id)
{
    assetc_hmat table;
    uint32_t i;
    int status;
    assetc_result result = assetc_hmat_open(&table, bytes, (size_t)entry->size);
    if (result != ASSETC_OK)
        return entry_error(entry, "hmat", result);
    printf("material %.*s %016llx rows=%lu\n", (int)entry->path_len, entry->path, (unsigned long long)id,
           (unsigned long)table.count);
    for (i = 0; i < table.count; ++i) {
        assetc_gpu_material row;
        result = assetc_hmat_row(&table, i, &row);
        if (result != ASSETC_OK)
            return entry_error(entry, "hmat row", result);
        printf("material %.*s row=%lu ", (int)entry->path_len, entry->path, (unsigned long)i);
        status = print_texture(r, row.base_color_texture);
        if (status != 0)
            return status;
    }
    return 0;
}

static int print_material(const reader *r, const assetc_pack_entry *entry)
{
    uint64_t id = 0;
    unsigned char *bytes;
    int status = lookup_self(r, entry, ASSETC_ASSET_MATERIAL, &id);
    if (status != 0)
        return status;
    bytes = copy_payload(entry);
    if (bytes == NULL)
        return 2;
    status = print_material_rows(r, entry, bytes, id);
    free(bytes);
    return status;
}

/* Reports a texture's sampler hint: nearest (pixel art) or linear. */
static int print_sampler(const assetc_pack_entry *entry)
{
    unsigned char *bytes = copy_payload(entry);
    if (bytes == NULL)
        return 2;
    printf("texture %.*s %s\n", (int)entry->path_len, entry->path,
           assetc_ktx2_wants_nearest(bytes, (size_t)entry->size) ? "nearest" : "linear");
    free(bytes);
    return 0;
}

/* Walks the pack again and reports every mesh, material and texture. */
static int print_meshes_and_materials(const reader *r)
{
    assetc_pack_cursor cursor = assetc_pack_begin();
    assetc_pack_entry entry;
    assetc_result result;
    while ((result = assetc_pack_next(&r->pack, &cursor, &entry)) == ASSETC_OK) {
        int status = 0;
        if (entry.kind == ASSETC_PACK_MESH)
            status = print_mesh(r, &entry);
        else if (entry.kind == ASSETC_PACK_MATERIAL)
            status = print_material(r, &entry);
        else if (entry.kind == ASSETC_PACK_TEXTURE)
            status = print_sampler(&entry);
        if (status != 0)
            return status;
    }
    return result == ASSETC_END ? 0 : format_error("pack TOC", result);
}

static int run(const file_bytes *file)
{
    reader r;
    int status;
    assetc_result result = assetc_pack_open(&r.pack, file->data, file->size);
    r.manifest_bytes = NULL;
    r.manifest_index = NULL;
    if (result != ASSETC_OK)
        return format_error("pack", result);
    status = list_entries(&r.pack);
    if (status == 0)
        status = open_manifest(&r);
    if (status == 0)
        status = print_meshes_and_materials(&r);
    free(r.manifest_index);
    free(r.manifest_bytes);
    return status;
}

/* CRC-32 (reflected, polynomial 0xEDB88320) of a payload, so the output
 * shows that the bytes a lookup hands out are the right ones. */
static unsigned long crc32_of(const uint8_t *data, uint64_t size)
{
    uint32_t crc = 0xFFFFFFFFu;
    uint64_t i;
    int bit;
    for (i = 0; i < size; ++i) {
        crc ^= data[i];
        for (bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return (unsigned long)(crc ^ 0xFFFFFFFFu);
}

/* Prints where every path on standard input resolves with `patch_file`
 * mounted above `base_file`. */
static int run_layered(const file_bytes *patch_file, const file_bytes *base_file)
{
    static char line[70000];
    assetc_pack patch, base;
    assetc_result result = assetc_pack_open(&patch, patch_file->data, patch_file->size);
    if (result != ASSETC_OK)
        return format_error("patch", result);
    result = assetc_pack_open(&base, base_file->data, base_file->size);
    if (result != ASSETC_OK)
        return format_error("base", result);
    while (fgets(line, sizeof line, stdin) != NULL) {
        size_t len = strcspn(line, "\n");
        assetc_pack_entry entry;
        int from_patch;
        line[len] = '\0';
        result = assetc_pack_layered_find(&patch, &base, line, len, &entry, &from_patch);
        if (result == ASSETC_NOT_FOUND)
            printf("missing %s\n", line);
        else if (result == ASSETC_OK)
            printf("found %s %llu %llu %08lx %s\n", from_patch ? "patch" : "base",
                   (unsigned long long)entry.offset, (unsigned long long)entry.size,
                   crc32_of(entry.data, entry.size), line);
        else
            return format_error("layered lookup", result);
    }
    return 0;
}

/* Reads the packs the command line names and runs the form it asks for. */
static int run_command(int argc, char **argv)
{
    file_bytes files[2];
    int status;
    int layered = argc == 4 && strcmp(argv[1], "--patch") == 0;
    if (argc != 2 && !layered) {
        fprintf(stderr, "usage: read_pack <file.hpack> | read_pack --patch <patch.hpack> <base.hpack>\n");
        return 2;
    }
    files[0].data = NULL;
    files[1].data = NULL;
    status = read_file(argv[layered ? 2 : 1], &files[0]);
    if (status == 0 && layered)
        status = read_file(argv[3], &files[1]);
    if (status == 0)
        status = layered ? run_layered(&files[0], &files[1]) : run(&files[0]);
    free(files[0].data);
    free(files[1].data);
    return status;
}

int main(int argc, char **argv)
{
    int status = run_command(argc, argv);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "read_pack: cannot write the listing\n");
        return 2;
    }
    return status;
}
