#!/usr/bin/env python3
"""Writes tests/data/fonts/kerning-test.ttf, the tiny font the font tests use
to check kerning sources. Run by hand (needs fontTools: `pip install
fonttools`); the output is committed, so neither CI nor the tests need it.

The font has five blocky glyphs (.notdef, space, A, V, T, o) at 1000 units
per em and kerning from both sources:

  GPOS `kern`, one lookup: a format 1 subtable (glyph pairs A V -120 and
  T o -200) followed by a format 2 subtable (class pair [T] x [o A] -90).
  T o is in both, so the format 1 value must win; T A only in the classes.
  Legacy `kern`: A V -50 (GPOS must win) and V A -70 (kern only).
"""
import sys
from pathlib import Path

from fontTools.feaLib.builder import addOpenTypeFeaturesFromString
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib.tables._k_e_r_n import KernTable_format_0, table__k_e_r_n


def box(x0, y0, x1, y1, hole=None):
    pen = TTGlyphPen(None)
    for rx0, ry0, rx1, ry1, clockwise in [(x0, y0, x1, y1, True)] + ([(*hole, False)] if hole else []):
        points = [(rx0, ry0), (rx0, ry1), (rx1, ry1), (rx1, ry0)]
        if not clockwise:
            points.reverse()
        pen.moveTo(points[0])
        for point in points[1:]:
            pen.lineTo(point)
        pen.closePath()
    return pen.glyph()


def main(out):
    order = [".notdef", "space", "A", "V", "T", "o"]
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(order)
    fb.setupCharacterMap({0x20: "space", 0x41: "A", 0x56: "V", 0x54: "T", 0x6F: "o"})
    empty = TTGlyphPen(None).glyph()
    fb.setupGlyf({
        ".notdef": box(50, 0, 450, 700, hole=(100, 50, 400, 650)),
        "space": empty,
        "A": box(20, 0, 580, 700, hole=(150, 100, 450, 500)),
        "V": box(20, 0, 580, 700),
        "T": box(20, 0, 580, 700),
        "o": box(40, 0, 460, 500, hole=(140, 100, 360, 400)),
    })
    fb.setupHorizontalMetrics({
        ".notdef": (500, 50), "space": (250, 0), "A": (600, 20),
        "V": (600, 20), "T": (600, 20), "o": (500, 40),
    })
    fb.setupHorizontalHeader(ascent=800, descent=-200, lineGap=90)
    fb.setupOS2(sTypoAscender=800, sTypoDescender=-200, sTypoLineGap=90, usWinAscent=800, usWinDescent=200)
    fb.setupNameTable({"familyName": "Kerning Test", "styleName": "Regular"})
    fb.setupPost()
    addOpenTypeFeaturesFromString(fb.font, """
languagesystem DFLT dflt;
feature kern {
    pos A V -120;
    pos T o -200;
    subtable;
    @first = [T];
    @second = [o A];
    pos @first @second -90;
} kern;
""")
    kern = table__k_e_r_n()
    kern.version = 0
    subtable = KernTable_format_0()
    subtable.version, subtable.coverage, subtable.format = 0, 1, 0
    subtable.kernTable = {("A", "V"): -50, ("V", "A"): -70}
    kern.kernTables = [subtable]
    fb.font["kern"] = kern
    fb.save(out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parent.parent / "tests/data/fonts/kerning-test.ttf"))
