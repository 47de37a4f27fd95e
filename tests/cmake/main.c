/*
 * main.c - a tiny "engine" for the CMake example: it opens the pack that
 * assetc_add_assets() built, through include/assetc.h, and prints what it
 * finds. The path of the pack is compiled in (ASSETS_PACK, set by
 * CMakeLists.txt from the function's result variables); a command-line
 * argument overrides it. The generated ids header, assets.h, names every
 * asset; the engine looks each one up in the pack's manifest.
 *
 * Output, one fact per line:
 *   pack <entry count>
 *   entry <pack kind> <size> <FNV-1a 64 of the payload, hex> <path>
 *   manifest <entry count>
 *   asset <id, hex> <manifest kind> <path>
 *   id <generated name> <found|missing>
 * Exit status: 0 when everything parsed and every generated id was found.
 */
#include <stdio.h>
#include <stdlib.h>

#include "assetc.h"
#include "assets.h"

#ifndef ASSETS_PACK
#error "ASSETS_PACK must name the .hpack to open"
#endif

/* A whole file in memory. */
typedef struct file_bytes {
    unsigned char *data;
    size_t size;
} file_bytes;

/* One row of the table the generated ids header describes. */
typedef struct known_asset {
    const char *name;
    uint64_t id;
} known_asset;

#define KNOWN_ASSET_ROW(name, kind, path) {#name, name},
static const known_asset known_assets[] = {ASSETC_ID_LIST(KNOWN_ASSET_ROW)};

/* Reads `path` whole; returns 0, or 1 after saying why it could not. */
static int read_whole_file(const char *path, file_bytes *out)
{
    FILE *file = fopen(path, "rb");
    long length;
    if (file == NULL) {
        fprintf(stderr, "engine: %s: cannot open\n", path);
        return 1;
    }
    if (fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 || fseek(file, 0, SEEK_SET) != 0) {
        fprintf(stderr, "engine: %s: cannot size\n", path);
        fclose(file);
        return 1;
    }
    out->size = (size_t)length;
    out->data = (unsigned char *)malloc(out->size > 0 ? out->size : 1);
    if (out->data == NULL || fread(out->data, 1, out->size, file) != out->size) {
        fprintf(stderr, "engine: %s: cannot read\n", path);
        fclose(file);
        return 1;
    }
    fclose(file);
    return 0;
}

/* FNV-1a 64 of a payload, so any change of an asset's bytes shows. */
static uint64_t payload_hash(const uint8_t *data, uint64_t size)
{
    uint64_t hash = UINT64_C(0xcbf29ce484222325);
    uint64_t i;
    for (i = 0; i < size; ++i) {
        hash ^= data[i];
        hash *= UINT64_C(0x100000001b3);
    }
    return hash;
}

static int fail(const char *where, assetc_result result)
{
    fprintf(stderr, "engine: %s: %s\n", where, assetc_result_name(result));
    return 1;
}

/* Prints the pack's table of contents. */
static int print_entries(const assetc_pack *pack)
{
    assetc_pack_cursor cursor = assetc_pack_begin();
    assetc_pack_entry entry;
    assetc_result result;
    printf("pack %lu\n", (unsigned long)pack->count);
    while ((result = assetc_pack_next(pack, &cursor, &entry)) == ASSETC_OK) {
        printf("entry %s %llu %016llx %.*s\n", assetc_pack_kind_name(entry.kind),
               (unsigned long long)entry.size, (unsigned long long)payload_hash(entry.data, entry.size),
               (int)entry.path_len, entry.path);
    }
    return result == ASSETC_END ? 0 : fail("pack TOC", result);
}

/* Prints every manifest entry, then looks up each generated id. */
static int print_manifest(const assetc_manifest *manifest)
{
    assetc_manifest_cursor cursor = assetc_manifest_begin();
    assetc_manifest_entry entry;
    assetc_result result;
    size_t i;
    int status = 0;
    printf("manifest %lu\n", (unsigned long)manifest->count);
    while ((result = assetc_manifest_next(manifest, &cursor, &entry)) == ASSETC_OK) {
        printf("asset %016llx %s %.*s\n", (unsigned long long)entry.id, assetc_asset_kind_name(entry.kind),
               (int)entry.path_len, entry.path);
    }
    if (result != ASSETC_END)
        return fail("assets.hman", result);
    for (i = 0; i < sizeof known_assets / sizeof known_assets[0]; ++i) {
        result = assetc_manifest_find(manifest, NULL, known_assets[i].id, &entry);
        if (result != ASSETC_OK && result != ASSETC_NOT_FOUND)
            return fail("assets.hman lookup", result);
        printf("id %s %s\n", known_assets[i].name, result == ASSETC_OK ? "found" : "missing");
        if (result != ASSETC_OK)
            status = 1;
    }
    return status;
}

static int run(const file_bytes *file)
{
    static const char manifest_name[] = "assets.hman";
    assetc_pack pack;
    assetc_pack_entry entry;
    assetc_manifest manifest;
    int status;
    assetc_result result = assetc_pack_open(&pack, file->data, file->size);
    if (result != ASSETC_OK)
        return fail("pack", result);
    status = print_entries(&pack);
    if (status != 0)
        return status;
    result = assetc_pack_find(&pack, manifest_name, sizeof manifest_name - 1, &entry);
    if (result != ASSETC_OK)
        return fail(manifest_name, result);
    /* The manifest reader decodes byte by byte, so it may read in place. */
    result = assetc_manifest_open(&manifest, entry.data, (size_t)entry.size);
    if (result != ASSETC_OK)
        return fail(manifest_name, result);
    return print_manifest(&manifest);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : ASSETS_PACK;
    file_bytes file;
    int status;
    file.data = NULL;
    status = read_whole_file(path, &file);
    if (status == 0)
        status = run(&file);
    free(file.data);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "engine: cannot write the listing\n");
        return 1;
    }
    return status;
}
