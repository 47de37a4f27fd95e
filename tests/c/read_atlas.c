/*
 * read_atlas: reads one .hatlas file through assetc.h and prints its header
 * and every sprite in file order, one fact per line, each sprite also found
 * by name with assetc_hatlas_find. tests/integration/c_header.rs prints the
 * same from the Rust crate and compares, and feeds it damaged tables, which
 * it must refuse exactly when the Rust reader does. Builds as C99.
 */
#include "assetc.h"

#include <stdio.h>
#include <stdlib.h>

/* Reads the whole file at `path` into a new buffer; NULL on failure. */
static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    unsigned char *bytes;
    long length;
    if (file == NULL)
        return NULL;
    if (fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 || fseek(file, 0, SEEK_SET) != 0) {
        fclose(file);
        return NULL;
    }
    bytes = (unsigned char *)malloc((size_t)length + 1);
    if (bytes != NULL && fread(bytes, 1, (size_t)length, file) != (size_t)length) {
        free(bytes);
        bytes = NULL;
    }
    fclose(file);
    *size = (size_t)length;
    return bytes;
}

/* The bits of a float, for exact printing. */
static unsigned long bits(float value)
{
    uint32_t word;
    memcpy(&word, &value, sizeof word);
    return (unsigned long)word;
}

/* Prints every sprite and checks that finding it by name gives it back. */
static int print_sprites(const assetc_hatlas *atlas)
{
    for (uint32_t i = 0; i < atlas->header.sprite_count; ++i) {
        assetc_atlas_sprite s, found;
        size_t len;
        const char *name;
        assetc_hatlas_sprite(atlas, i, &s);
        name = assetc_hatlas_name(atlas, &s, &len);
        if (assetc_hatlas_find(atlas, name, len, &found) != ASSETC_OK || found.name_offset != s.name_offset) {
            fprintf(stderr, "error: sprite %u is not found by its name\n", (unsigned)i);
            return 1;
        }
        printf("sprite %.*s page %u rotated %u rect %u %u %u %u trim %u %u source %u %u pivot %08lx %08lx ms %u\n",
               (int)len, name, (unsigned)s.page, (unsigned)(s.flags & ASSETC_SPRITE_FLAG_ROTATED),
               (unsigned)s.x, (unsigned)s.y, (unsigned)s.w, (unsigned)s.h, (unsigned)s.trim_x,
               (unsigned)s.trim_y, (unsigned)s.source_w, (unsigned)s.source_h, bits(s.pivot_x),
               bits(s.pivot_y), (unsigned)s.duration_ms);
    }
    return 0;
}

int main(int argc, char **argv)
{
    size_t size = 0;
    unsigned char *bytes;
    assetc_hatlas atlas;
    assetc_atlas_sprite missing;
    assetc_result result;
    int status;
    if (argc != 2) {
        fprintf(stderr, "usage: read_atlas FILE.hatlas\n");
        return 2;
    }
    bytes = read_file(argv[1], &size);
    if (bytes == NULL) {
        fprintf(stderr, "error: cannot read %s\n", argv[1]);
        return 2;
    }
    result = assetc_hatlas_read(bytes, size, &atlas);
    if (result != ASSETC_OK) {
        fprintf(stderr, "error: %s\n", assetc_result_name(result));
        free(bytes);
        return 1;
    }
    printf("atlas sprites %u pages %u size %u %u flags %u tex %016llx\n",
           (unsigned)atlas.header.sprite_count, (unsigned)atlas.header.page_count,
           (unsigned)atlas.header.page_width, (unsigned)atlas.header.page_height,
           (unsigned)atlas.header.flags, (unsigned long long)atlas.header.atlas_tex);
    status = print_sprites(&atlas);
    if (assetc_hatlas_find(&atlas, "no such sprite", 14, &missing) != ASSETC_ERR_MISSING) {
        fprintf(stderr, "error: a missing name was found\n");
        status = 1;
    }
    free(bytes);
    return status;
}
