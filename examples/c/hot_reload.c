/* Follows `assetc watch` from C: connects to its change feed, and for each
 * file a build changed, reads its first bytes from the output folder and
 * names its format with the magic numbers of include/assetc.h, as an
 * engine's reload hook would before swapping the asset in.
 *
 *   cc -std=c99 -Iinclude examples/c/hot_reload.c -o hot_reload
 *   ./hot_reload 7879 runtime/desktop [builds]
 *
 * The protocol (one line each, see docs/hot-reload.md):
 *   hello assetc-watch 1 <generation>
 *   build <generation> ok|failed
 *   changed <id> <path> | removed <id> <path> | pack <path> | error <text>
 *   end
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "assetc.h"

/* The format of a file, from its first bytes. */
static const char *format_of(const unsigned char *head, size_t length) {
    uint32_t magic;
    if (length >= ASSETC_KTX2_IDENTIFIER_BYTES &&
        memcmp(head, ASSETC_KTX2_IDENTIFIER, ASSETC_KTX2_IDENTIFIER_BYTES) == 0)
        return "texture";
    if (length < 4) return "raw";
    magic = (uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 |
            (uint32_t)head[3] << 24;
    switch (magic) {
    case ASSETC_HMESH_MAGIC: return "mesh";
    case ASSETC_HMAT_MAGIC: return "material";
    case ASSETC_HMAN_MAGIC: return "manifest";
    case ASSETC_HANIM_MAGIC: return "animation";
    case ASSETC_HFONT_MAGIC: return "font";
    default: return "raw";
    }
}

/* Reloads one changed file: here, reads its head and reports it. */
static void reload(const char *output, const char *id, const char *path) {
    char file[4096];
    unsigned char head[16];
    size_t length = 0;
    FILE *in;
    snprintf(file, sizeof file, "%s/%s", output, path);
    in = fopen(file, "rb");
    if (!in) {
        printf("kept the old %s %s: cannot open %s\n", path, id, file);
        return;
    }
    length = fread(head, 1, sizeof head, in);
    fclose(in);
    printf("reloaded %s %s (%s)\n", path, id, format_of(head, length));
}

int main(int argc, char **argv) {
    struct sockaddr_in address;
    char *line = NULL;
    size_t capacity = 0;
    long builds, done = 0;
    int fd;
    FILE *feed;
    if (argc < 3) {
        fprintf(stderr, "usage: hot_reload <port> <output folder> [builds]\n");
        return 2;
    }
    builds = argc > 3 ? strtol(argv[3], NULL, 10) : -1;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)atoi(argv[1]));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        perror("hot_reload: connect");
        return 1;
    }
    feed = fdopen(fd, "r");
    while (builds != done && getline(&line, &capacity, feed) > 0) {
        char *rest, *end = strchr(line, '\n');
        if (end) *end = '\0';
        rest = strchr(line, ' ');
        if (rest) *rest++ = '\0';
        if (strcmp(line, "changed") == 0 && rest) {
            char *path = strchr(rest, ' ');
            if (path) {
                *path++ = '\0';
                reload(argv[2], rest, path);
            }
        } else if (strcmp(line, "removed") == 0 && rest) {
            printf("unloaded %s\n", rest);
        } else if (strcmp(line, "build") == 0 && rest) {
            printf("build %s\n", rest);
        } else if (strcmp(line, "error") == 0 && rest) {
            printf("error %s\n", rest);
        } else if (strcmp(line, "hello") == 0 && rest) {
            printf("connected %s\n", rest);
        } else if (strcmp(line, "end") == 0) {
            done++;
        }
        fflush(stdout);
    }
    free(line);
    fclose(feed);
    return 0;
}
