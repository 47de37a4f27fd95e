// include_twice.cpp: a C++ translation unit that includes assetc.h twice (the
// include guard must hold) and uses its constants and helpers in C++ code.
// tests/integration/c_header.rs compiles it with `-std=c++17 -fsyntax-only` and strict
// warnings.
#include "assetc.h"
#include "assetc.h"

static_assert(ASSETC_HMESH_MAGIC == 0x48534D48u, "HMSH read as a little-endian u32");
static_assert(sizeof(assetc_gpu_vertex) == ASSETC_HMESH_VERTEX_STRIDE, "vertex stride");
static_assert(alignof(assetc_gpu_material) == 1, "records are byte-packed");

namespace {

// Counts the pack's mesh entries, or returns the (negative) error.
int count_meshes(const unsigned char *data, size_t size)
{
    assetc_pack pack;
    assetc_result result = assetc_pack_open(&pack, data, size);
    if (result != ASSETC_OK)
        return result;
    assetc_pack_cursor cursor = assetc_pack_begin();
    assetc_pack_entry entry;
    int meshes = 0;
    while ((result = assetc_pack_next(&pack, &cursor, &entry)) == ASSETC_OK)
        meshes += entry.kind == ASSETC_PACK_MESH ? 1 : 0;
    return result == ASSETC_END ? meshes : result;
}

} // namespace

int main()
{
    static const unsigned char empty_pack[24] = {'H', 'P', 'A', 'K', 2};
    return count_meshes(empty_pack, sizeof empty_pack) == 0 &&
                   assetc_hash("a", 1) == UINT64_C(0xaf63dc4c8601ec8c)
               ? 0
               : 1;
}
