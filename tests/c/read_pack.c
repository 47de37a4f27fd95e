/*
 * read_pack: reads a .hpack with nothing but assetc.h and the C library.
 *
 *   read_pack <file.hpack>
 *
 * Prints, one line each:
 *   entry <kind> <size> <path>             every TOC entry, in TOC order
 *   manifest <path> <entry count>          the assets.hman found in the pack
 *   mesh <path> <id> vertices=... indices=... index_width=... meshlets=...
 *        submeshes=... materials=... chunks=...
 *   material <path> <id> rows=<n>
 *   material <path> row=<i> base_color=<id|none> <manifest kind and path,
 *        with in_pack=yes|no, or "unresolved">
 *
 * Every mesh and material is looked up in the manifest by the id of its
 * runtime path (assetc_id_for_path). Exit status: 0 when everything reads,
 * 1 on a format error (with a message on stderr), 2 on a usage or I/O error.
 * tests/integration/c_header.rs compares the output with what the Rust crate reads.
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

int main(int argc, char **argv)
{
    file_bytes file;
    int status;
    if (argc != 2) {
        fprintf(stderr, "usage: read_pack <file.hpack>\n");
        return 2;
    }
    file.data = NULL;
    status = read_file(argv[1], &file);
    if (status == 0)
        status = run(&file);
    free(file.data);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "read_pack: cannot write the listing\n");
        return 2;
    }
    return status;
}
