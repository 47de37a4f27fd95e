#!/usr/bin/env python3
"""An assetc processor: a Tiled JSON map (.tmj) to a compact binary (.tmap).

Usage (from assetc.yml, run from the project root):

    command: python3 tools/processors/tiled.py $in $out $depfile

The map's external tilesets (.tsj files) are read too and named in the
depfile, with this script, so editing a tileset or the script rebuilds the
map. Orthogonal, finite maps only; tile layers (CSV or base64, optionally
zlib- or gzip-compressed) and object layers. Group and image layers are
refused, as are infinite maps: a processor that silently drops data is worse
than one that stops.

Output layout, all little-endian, every string a u16 byte length then UTF-8
bytes, zero-padded so the next field starts on a 4-byte boundary:

    header   "TMAP", u16 version (1), u16 flags (0),
             u32 width, u32 height (in tiles),
             u16 tile width, u16 tile height (pixels),
             u16 tileset count, u16 layer count
    tileset  u32 first gid, u32 tile count, u16 columns, u16 0,
             str name, str image (the image's runtime id: its path below the
             input folder without the extension, e.g. "data/maps/terrain",
             which is how assetc keys textures in assets.hman)
    layer    u8 kind (0 tiles, 1 objects), u8 visible, u16 0, f32 opacity,
             str name, then
             tiles:   width * height u32 gids, row by row (Tiled's flip
                      flags kept in the top bits; 0 is empty)
             objects: u32 count, then per object u32 id, f32 x, y, width,
                      height, str name, str class
"""

import base64
import gzip
import json
import os
import struct
import sys
import zlib

VERSION = 1
TILE_LAYER = 0
OBJECT_LAYER = 1


class MapError(Exception):
    """A problem with the map, reported with the file it concerns."""


def string(text):
    """A length-prefixed UTF-8 string padded to four bytes."""
    data = text.encode("utf-8")
    if len(data) > 0xFFFF:
        raise MapError(f"string too long for the format: {text[:40]!r}...")
    blob = struct.pack("<H", len(data)) + data
    return blob + b"\0" * (-len(blob) % 4)


def read_json(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise MapError(f"{path}: cannot read: {error.strerror}") from error
    except json.JSONDecodeError as error:
        raise MapError(f"{path}:{error.lineno}:{error.colno}: {error.msg}") from error


def field(obj, key, kind, where):
    """obj[key], which must exist and be of type kind."""
    if key not in obj:
        raise MapError(f"{where}: missing '{key}'")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise MapError(f"{where}: '{key}' has the wrong type")
    return value


def image_ref(image, tileset_dir, input_root):
    """The runtime id of a tileset image: its path below the input folder,
    '/'-separated, without the extension."""
    path = os.path.normpath(os.path.join(tileset_dir, image))
    rel = os.path.relpath(path, input_root).replace(os.sep, "/")
    return os.path.splitext(rel)[0]


def tileset(entry, map_path, input_root, read_files):
    """The bytes of one tileset, external (.tsj) or embedded in the map."""
    first_gid = field(entry, "firstgid", int, map_path)
    where, data, base = map_path, entry, os.path.dirname(map_path)
    if "source" in entry:
        where = os.path.normpath(os.path.join(base, entry["source"]))
        data = read_json(where)
        read_files.append(where)
        base = os.path.dirname(where)
    image = data.get("image", "")
    ref = image_ref(image, base, input_root) if image else ""
    return struct.pack(
        "<IIHH",
        first_gid,
        field(data, "tilecount", int, where),
        field(data, "columns", int, where),
        0,
    ) + string(data.get("name", "")) + string(ref)


def tile_gids(layer, count, where):
    """The layer's gids as a list of count ints."""
    data = field(layer, "data", (list, str), where)
    if isinstance(data, str):
        raw = base64.b64decode(data)
        compression = layer.get("compression", "")
        if compression == "zlib":
            raw = zlib.decompress(raw)
        elif compression == "gzip":
            raw = gzip.decompress(raw)
        elif compression:
            raise MapError(f"{where}: unsupported compression '{compression}'")
        if len(raw) != 4 * count:
            raise MapError(f"{where}: {len(raw) // 4} tiles, expected {count}")
        return list(struct.unpack(f"<{count}I", raw))
    if len(data) != count or not all(isinstance(g, int) and 0 <= g < 2**32 for g in data):
        raise MapError(f"{where}: expected {count} tile ids, found {len(data)} values")
    return data


def layer_bytes(layer, width, height, map_path):
    name = layer.get("name", "")
    where = f"{map_path}: layer '{name}'"
    kind = layer.get("type")
    head = lambda code: struct.pack(  # noqa: E731
        "<BBHf", code, int(layer.get("visible", True)), 0, layer.get("opacity", 1.0)
    ) + string(name)
    if kind == "tilelayer":
        gids = tile_gids(layer, width * height, where)
        return head(TILE_LAYER) + struct.pack(f"<{len(gids)}I", *gids)
    if kind == "objectgroup":
        objects = layer.get("objects", [])
        out = head(OBJECT_LAYER) + struct.pack("<I", len(objects))
        for obj in objects:
            out += struct.pack(
                "<Iffff",
                obj.get("id", 0),
                obj.get("x", 0.0),
                obj.get("y", 0.0),
                obj.get("width", 0.0),
                obj.get("height", 0.0),
            )
            out += string(obj.get("name", "")) + string(obj.get("class", obj.get("type", "")))
        return out
    raise MapError(f"{where}: {kind} layers are not supported (tile and object layers only)")


def convert(map_path, input_root):
    """The .tmap bytes of the map and the files read besides it."""
    tmj = read_json(map_path)
    if tmj.get("infinite"):
        raise MapError(f"{map_path}: infinite maps are not supported")
    if tmj.get("orientation", "orthogonal") != "orthogonal":
        raise MapError(f"{map_path}: only orthogonal maps are supported")
    width = field(tmj, "width", int, map_path)
    height = field(tmj, "height", int, map_path)
    read_files = []
    tilesets = [tileset(t, map_path, input_root, read_files) for t in tmj.get("tilesets", [])]
    layers = [layer_bytes(l, width, height, map_path) for l in tmj.get("layers", [])]
    header = b"TMAP" + struct.pack(
        "<HHIIHHHH",
        VERSION,
        0,
        width,
        height,
        field(tmj, "tilewidth", int, map_path),
        field(tmj, "tileheight", int, map_path),
        len(tilesets),
        len(layers),
    )
    return header + b"".join(tilesets) + b"".join(layers), read_files


def depfile_path(path):
    """A path escaped for a Makefile-style depfile."""
    return path.replace("\\", "/").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")


def input_root(map_path):
    """The input folder: assetc passes the source path below it as
    ASSETC_SOURCE; without it, the map's own folder."""
    source = os.environ.get("ASSETC_SOURCE")
    normalized = map_path.replace(os.sep, "/")
    if source and normalized.endswith(source):
        return normalized[: len(normalized) - len(source)] or "."
    return os.path.dirname(map_path) or "."


def main(argv):
    if len(argv) != 4:
        print(f"usage: {argv[0]} MAP.tmj OUT.tmap DEPFILE", file=sys.stderr)
        return 2
    map_path, out_path, dep_path = argv[1:]
    try:
        data, read_files = convert(map_path, input_root(map_path))
    except (MapError, struct.error, ValueError, zlib.error) as error:
        print(f"tiled.py: error: {error}", file=sys.stderr)
        return 1
    with open(out_path, "wb") as handle:
        handle.write(data)
    script = os.path.relpath(os.path.abspath(__file__))
    inputs = " ".join(depfile_path(p) for p in read_files + [script])
    with open(dep_path, "w", encoding="utf-8") as handle:
        handle.write(f"{depfile_path(out_path)}: {inputs}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
