#!/usr/bin/env python3
"""Native GPU formats: quality and CPU time of assetc-encode against each
format's reference encoder, and against UASTC level 2, on the photos that
tools/texture-bench prepares (colour, a Sobel normal map and the luminance).

Run by tools/native-bench, which builds the binaries, prepares the images and
installs the Python packages this needs (numpy, Pillow, texture2ddecoder, the
independent decoder, and bc7enc-py, the BC7 reference) into a venv under
target/. Prints one Markdown table; docs/benchmarks.md records it.

    native_bench.py ENCODER IMAGES_DIR WORK_DIR REPEAT

Every encode is one process (or, for bc7enc, one in-process call that also
decodes the PNG), level 0 only, single-threaded, timed in CPU seconds
(user + system), the fastest of REPEAT runs. Every output is decoded by
texture2ddecoder and scored with the same code: PSNR over R, G, B for colour,
R and G (and the mean angle error) for normal maps, R for gray.
"""

import os
import resource
import subprocess
import sys
import time

import numpy as np
import texture2ddecoder as t2d
from PIL import Image

ENCODER, IMAGES, WORK, REPEAT = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
# QUALITY (0-4) is assetc's `quality`; ASTC rows compare it with the astcenc
# preset of the same rank. ONLY, if set, keeps the rows whose format it lists.
QUALITY = int(os.environ.get("QUALITY", "2"))
PRESET = ["fastest", "fast", "medium", "thorough", "exhaustive"][QUALITY]
ONLY = os.environ.get("ONLY", "").split()
PHOTOS = ["astronaut", "coffee", "chelsea", "rocket", "motorcycle_left"]


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(command):
    """CPU seconds of one process run of `command`."""
    before = child_cpu()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return child_cpu() - before


def fastest(encode):
    return min(encode() for _ in range(REPEAT))


def ktx2_level0(path):
    """Level 0 of a KTX2 file written with --zstd-level 0 and --mips false."""
    data = open(path, "rb").read()
    offset, length = np.frombuffer(data[80:96], dtype="<u8")
    return data[int(offset):int(offset + length)]


def astc_blocks(path):
    return open(path, "rb").read()[16:]


def dds_blocks(path):
    data = open(path, "rb").read()
    start = 128 + (20 if data[84:88] == b"DX10" else 0)
    return data[start:]


def decoded(blocks, kind, width, height):
    """RGBA uint8 array of `blocks` in format `kind` decoded by texture2ddecoder."""
    if kind.startswith("astc-"):
        bw, bh = (int(v) for v in kind[5:].split("x"))
        bgra = t2d.decode_astc(blocks, width, height, bw, bh)
    else:
        bgra = getattr(t2d, "decode_" + kind)(blocks, width, height)
    pixels = np.frombuffer(bgra, dtype=np.uint8).reshape(height, width, 4)
    return pixels[:, :, [2, 1, 0, 3]]


def psnr(a, b, channels):
    diff = a[:, :, channels].astype(np.float64) - b[:, :, channels].astype(np.float64)
    return 10 * np.log10(255.0 ** 2 / max(np.mean(diff ** 2), 1e-12))


def angle(decoded_xy, source):
    def unit(x, y):
        x = x.astype(np.float64) / 255 * 2 - 1
        y = y.astype(np.float64) / 255 * 2 - 1
        z = np.sqrt(np.clip(1 - x * x - y * y, 0, None))
        n = np.stack([x, y, z], -1)
        return n / np.linalg.norm(n, axis=-1, keepdims=True)

    a = unit(decoded_xy[0], decoded_xy[1])
    b = unit(source[:, :, 0], source[:, :, 1])
    return float(np.degrees(np.arccos(np.clip((a * b).sum(-1), -1, 1))).mean())


def assetc(fmt, mode, quality):
    def encode(png, out):
        # The quality floor is off: this table scores the format asked for,
        # not the step the floor would take past it.
        command = [ENCODER, "texture", "--mode", mode, "--format", fmt, "--quality", str(quality),
                   "--mips", "false", "--zstd-level", "0", "--min-psnr", "off", png, "-o", out,
                   "--root", WORK,
                   "--source", png, "--fragment", os.path.join(WORK, "e.frag"),
                   "--depfile", os.path.join(WORK, "e.d")]
        return fastest(lambda: run(command)), ktx2_level0(out)
    return encode


def astcenc(block, mode, preset):
    def encode(png, out):
        profile = "-cs" if mode == "color" else "-cl"
        extra = {"normal": ["-normal"], "gray": ["-esw", "rrr1"], "color": []}[mode]
        command = ["astcenc", profile, png, out + ".astc", block, "-" + preset, "-j", "1", "-silent"] + extra
        return fastest(lambda: run(command)), astc_blocks(out + ".astc")
    return encode


def nvcompress(fmt, mode):
    def encode(png, out):
        extra = ["-normal"] if mode == "normal" else []
        if fmt == "bc4":
            # nvcompress 2.0 compresses BC4 from the alpha channel: move the
            # gray value there (outside the timed run).
            pixels = np.asarray(Image.open(png).convert("RGBA")).copy()
            pixels[:, :, 3] = pixels[:, :, 0]
            png = out + ".alpha.png"
            Image.fromarray(pixels).save(png)
        command = ["nvcompress", "-nocuda", "-nomips", "-" + fmt] + extra + [png, out + ".dds"]
        return fastest(lambda: run(command)), dds_blocks(out + ".dds")
    return encode


def bc7enc(perceptual):
    import bc7enc as reference

    def encode(png, _out):
        params = reference.bc7enc_compress_block_params_init()
        params.m_perceptual = perceptual
        if not perceptual:
            for i in range(4):
                params.m_weights[i] = 1

        def once():
            start = time.process_time()
            image = Image.open(png).convert("RGBA")
            blocks = reference._pack_dds_single_level(
                image.tobytes(), image.width, image.height, reference._pack_dds_bc7, 16, params=params)
            once.blocks = blocks
            return time.process_time() - start

        return fastest(once), once.blocks
    return encode


# (mode, our format, the decoder's name, reference label, reference encoder, quality)
CASES = [
    ("color", "bc7", "bc7", "bc7enc_rdo (uber 0, perceptual)", bc7enc(True)),
    ("color", "bc7", "bc7", "bc7enc_rdo (uber 0, linear)", bc7enc(False)),
    ("color", "bc1", "bc1", "nvcompress -bc1", nvcompress("bc1", "color")),
    ("normal", "bc5", "bc5", "nvcompress -bc5", nvcompress("bc5", "normal")),
    ("gray", "bc4", "bc4", "nvcompress -bc4", nvcompress("bc4", "gray")),
    ("color", "astc-4x4", "astc-4x4", "astcenc -" + PRESET, astcenc("4x4", "color", PRESET)),
    ("color", "astc-6x6", "astc-6x6", "astcenc -" + PRESET, astcenc("6x6", "color", PRESET)),
    ("color", "astc-8x8", "astc-8x8", "astcenc -" + PRESET, astcenc("8x8", "color", PRESET)),
    ("normal", "astc-4x4", "astc-4x4", "astcenc -" + PRESET, astcenc("4x4", "normal", PRESET)),
    ("gray", "astc-6x6", "astc-6x6", "astcenc -" + PRESET, astcenc("6x6", "gray", PRESET)),
]


def score(mode, blocks, kind, source):
    height, width = source.shape[:2]
    pixels = decoded(blocks, kind, width, height)
    if mode == "normal":
        xy = (pixels[:, :, 0], pixels[:, :, 3]) if kind.startswith("astc") else (pixels[:, :, 0], pixels[:, :, 1])
        read = np.stack([xy[0], xy[1], source[:, :, 2], source[:, :, 3]], -1)
        return psnr(read, source, [0, 1]), angle(xy, source)
    return psnr(pixels, source, [0, 1, 2] if mode == "color" else [0]), None


def measure(label, mode, kind, encode):
    totals = {"seconds": 0.0, "mp": 0.0, "psnr": 0.0, "angle": 0.0}
    for photo in PHOTOS:
        png = os.path.join(IMAGES, mode, photo + ".png")
        source = np.asarray(Image.open(png).convert("RGBA"))
        out = os.path.join(WORK, f"{label}-{mode}-{kind}-{photo}".replace(" ", "_"))
        seconds, blocks = encode(png, out + ".ktx2")
        quality, error = score(mode, blocks, kind, source) if blocks is not None else (0.0, None)
        totals["seconds"] += seconds
        totals["mp"] += source.shape[0] * source.shape[1] / 1e6
        totals["psnr"] += quality / len(PHOTOS)
        totals["angle"] += (error or 0.0) / len(PHOTOS)
    return totals


def main():
    print("| mode | format | assetc PSNR | reference | reference PSNR | Δ dB | assetc s/MP | reference s/MP"
          " | UASTC-2 s/MP | × faster than UASTC-2 | angle ° (assetc / reference) |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|")
    uastc = {}
    for mode, fmt, kind, reference, encode in CASES:
        if ONLY and fmt not in ONLY:
            continue
        if mode not in uastc:
            u = measure("uastc", mode, "uastc", uastc_encoder(mode))
            uastc[mode] = u["seconds"] / u["mp"]
        ours = measure("assetc", mode, kind, assetc(fmt, mode, QUALITY))
        theirs = measure(reference, mode, kind, encode)
        rate = ours["seconds"] / ours["mp"]
        angles = f"{ours['angle']:.2f} / {theirs['angle']:.2f}" if mode == "normal" else ""
        print(f"| {mode} | {fmt} | {ours['psnr']:.2f} | {reference} | {theirs['psnr']:.2f} | "
              f"{ours['psnr'] - theirs['psnr']:+.2f} | {rate:.3f} | {theirs['seconds'] / theirs['mp']:.3f} | "
              f"{uastc[mode]:.3f} | {uastc[mode] / rate:.1f} | {angles} |", flush=True)


def uastc_encoder(mode):
    """UASTC level 2 through assetc-encode, timed only (its blocks are not
    decoded here; docs/benchmarks.md's UASTC table scores them)."""
    def encode(png, out):
        command = [ENCODER, "texture", "--mode", mode, "--format", "uastc", "--quality", "2",
                   "--mips", "false", "--zstd-level", "0", "--min-psnr", "off", png, "-o", out,
                   "--root", WORK,
                   "--source", png, "--fragment", os.path.join(WORK, "u.frag"),
                   "--depfile", os.path.join(WORK, "u.d")]
        return fastest(lambda: run(command)), None
    return encode


if __name__ == "__main__":
    main()
