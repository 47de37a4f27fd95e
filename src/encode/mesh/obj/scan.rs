//! A line-by-line pass over the OBJ text, before `tobj` sees it.
//!
//! `tobj` reports errors without line numbers, and some malformed inputs
//! (huge or zero face indices, forward references) reach arithmetic in it
//! that overflows. This pass checks every statement `tobj` will read, naming
//! the line of the first problem, and hands `tobj` a cleaned copy of the
//! text in which:
//!
//! - only `v`, `vt`, `vn`, `f`, `o`, `g` and `usemtl` remain (other lines
//!   are blanked, so the line count is unchanged), trimmed and without
//!   comments;
//! - `g` becomes `o` (tobj treats them alike) and names are normalised;
//! - `l` and `p` statements and faces of fewer than three vertices are
//!   dropped with a warning (tobj would otherwise turn a three-point `l`
//!   into a triangle);
//! - a single `mtllib` line comes first, through which the importer hands
//!   `tobj` the materials it has already read.
//!
//! Rules checked: `v` takes `x y z`, `x y z w` (w non-zero) or `x y z r g b`;
//! `vt` takes at least `u v`; `vn` takes `x y z`; every value is a finite
//! number. A face corner is `v`, `v/vt`, `v//vn` or `v/vt/vn`, each index a
//! non-zero integer that refers to an element defined above the face
//! (negative indices count back from the latest). A bad position index is an
//! error; a bad texture-coordinate or normal index drops that attribute from
//! every corner of the face, with a warning, as tinyobjloader and obj2gltf
//! do (the run of faces then has no UVs or normals: see `geometry`).

use super::text::{LineError, split_keyword, statement};

/// The `mtllib` line placed first in the text given to `tobj`.
pub(super) const MATERIAL_LINE: &str = "mtllib assetc-materials";

/// The name `tobj` is given for a material `newmtl` left unnamed (it refuses
/// an empty `usemtl`); a name no exporter writes.
pub(super) const UNNAMED_MATERIAL: &str = "assetc unnamed material";

/// A `mtllib` statement: its line and everything after the keyword.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LibraryStatement {
    /// One-based line number.
    pub line: usize,
    /// The library names, as written.
    pub names: String,
}

/// A `usemtl` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MaterialStatement {
    /// One-based line number.
    pub line: usize,
    /// The material name.
    pub name: String,
}

/// The checked OBJ, ready for `tobj`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct PreparedObj {
    /// The cleaned text (see the module notes).
    pub text: String,
    /// Every `usemtl`, in order.
    pub materials: Vec<MaterialStatement>,
    /// Things skipped, each starting with the line.
    pub warnings: Vec<String>,
}

/// Finds the `mtllib` statements without reading anything else.
pub(super) fn library_statements(text: &str) -> Vec<LibraryStatement> {
    text.lines()
        .enumerate()
        .filter_map(|(index, raw)| match split_keyword(statement(raw)) {
            Some(("mtllib", names)) => Some(LibraryStatement {
                line: index + 1,
                names: names.to_owned(),
            }),
            _ => None,
        })
        .collect()
}

/// Checks the geometry statements and builds the text for `tobj`.
pub(super) fn prepare(text: &str) -> Result<PreparedObj, LineError> {
    let mut pass = Pass::default();
    pass.out.push_str(MATERIAL_LINE);
    pass.out.push('\n');
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let kept = pass
            .statement(line, statement(raw))
            .map_err(|what| LineError { line, what })?;
        pass.out.push_str(&kept.unwrap_or_default());
        pass.out.push('\n');
    }
    Ok(pass.finish())
}

/// Counts of elements defined so far.
#[derive(Default)]
struct Counts {
    positions: usize,
    texcoords: usize,
    normals: usize,
}

/// Statements skipped, for one summary warning.
#[derive(Default)]
struct Skipped {
    count: usize,
    first_line: usize,
}

impl Skipped {
    /// Records one skipped statement.
    fn add(&mut self, line: usize) {
        if self.count == 0 {
            self.first_line = line;
        }
        self.count += 1;
    }

    /// The summary warning, if anything was skipped.
    fn warning(&self, what: &str) -> Option<String> {
        (self.count > 0).then(|| {
            format!(
                "line {}: {} {what} skipped (only faces of three or more corners become triangles)",
                self.first_line, self.count
            )
        })
    }
}

/// The state of the pass.
#[derive(Default)]
struct Pass {
    out: String,
    counts: Counts,
    warnings: Vec<String>,
    materials: Vec<MaterialStatement>,
    points_and_lines: Skipped,
    short_faces: Skipped,
    free_form: Skipped,
}

impl Pass {
    /// Checks one statement; returns the line to give `tobj`, if any.
    fn statement(&mut self, line: usize, statement: &str) -> Result<Option<String>, String> {
        let Some((keyword, rest)) = split_keyword(statement) else {
            return Ok(None);
        };
        match keyword {
            "v" => self.position(rest).map(|()| Some(statement.to_owned())),
            "vt" => self.texcoord(rest).map(|()| Some(statement.to_owned())),
            "vn" => self.normal(rest).map(|()| Some(statement.to_owned())),
            "f" => self.face(line, rest),
            "o" | "g" => Ok(Some(format!("o {rest}"))),
            "usemtl" => self.use_material(line, rest),
            "l" | "p" => {
                self.points_and_lines.add(line);
                Ok(None)
            }
            "cstype" | "curv" | "curv2" | "surf" => {
                self.free_form.add(line);
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// `v x y z [w | r g b]`.
    fn position(&mut self, rest: &str) -> Result<(), String> {
        let values = parse_numbers("v", rest)?;
        let xyz = match values.as_slice() {
            [x, y, z] | [x, y, z, _, _, _] => [*x, *y, *z],
            [x, y, z, w] if *w == 0.0 => {
                return Err(format!("v: w is zero, so ({x}, {y}, {z}) / w is undefined"));
            }
            [x, y, z, w] => [x / w, y / w, z / w],
            _ => {
                return Err(format!(
                    "v expects x y z, x y z w or x y z r g b, found {} values",
                    values.len()
                ));
            }
        };
        if xyz.iter().any(|c| !c.is_finite()) {
            return Err(format!("v: the position {xyz:?} is not finite"));
        }
        self.counts.positions += 1;
        Ok(())
    }

    /// `vt u v [w]`.
    fn texcoord(&mut self, rest: &str) -> Result<(), String> {
        let values = parse_numbers("vt", rest)?;
        if !(2..=3).contains(&values.len()) {
            return Err(format!("vt expects u v, found {} values", values.len()));
        }
        self.counts.texcoords += 1;
        Ok(())
    }

    /// `vn x y z`.
    fn normal(&mut self, rest: &str) -> Result<(), String> {
        let values = parse_numbers("vn", rest)?;
        if values.len() != 3 {
            return Err(format!("vn expects x y z, found {} values", values.len()));
        }
        self.counts.normals += 1;
        Ok(())
    }

    /// `f corner corner corner ...`.
    fn face(&mut self, line: usize, rest: &str) -> Result<Option<String>, String> {
        let corners: Vec<&str> = rest.split_whitespace().collect();
        let mut dropped = [false; 2];
        for corner in &corners {
            for (slot, problem) in check_corner(corner, &self.counts)?.into_iter().enumerate() {
                if let Some(problem) = problem.filter(|_| !dropped[slot]) {
                    dropped[slot] = true;
                    self.warnings.push(format!(
                        "line {line}: {problem}; the face's {} are dropped",
                        ["texture coordinates", "normals"][slot]
                    ));
                }
            }
        }
        if corners.len() < 3 {
            self.short_faces.add(line);
            return Ok(None);
        }
        let kept: Vec<String> = corners
            .iter()
            .map(|corner| without_attributes(corner, dropped))
            .collect();
        Ok(Some(format!("f {}", kept.join(" "))))
    }

    /// `usemtl name`; an empty name selects the material `newmtl` defined
    /// without a name, as exporters that write one expect.
    fn use_material(&mut self, line: usize, rest: &str) -> Result<Option<String>, String> {
        self.materials.push(MaterialStatement {
            line,
            name: rest.to_owned(),
        });
        Ok(Some(format!("usemtl {}", tobj_material_name(rest))))
    }

    /// Ends the pass.
    fn finish(self) -> PreparedObj {
        let warnings = [
            self.points_and_lines.warning("point and line statements"),
            self.short_faces.warning("faces of one or two corners"),
            self.free_form
                .warning("free-form geometry statements (curves and surfaces are not supported)"),
        ];
        let mut all = self.warnings;
        all.extend(warnings.into_iter().flatten());
        PreparedObj {
            text: self.out,
            materials: self.materials,
            warnings: all,
        }
    }
}

/// The name `tobj` knows a material by: its own, or [`UNNAMED_MATERIAL`].
pub(super) fn tobj_material_name(name: &str) -> &str {
    if name.is_empty() {
        UNNAMED_MATERIAL
    } else {
        name
    }
}

/// Parses whitespace-separated finite numbers.
fn parse_numbers(keyword: &str, rest: &str) -> Result<Vec<f32>, String> {
    rest.split_whitespace()
        .map(|token| {
            token
                .parse::<f32>()
                .ok()
                .filter(|value| value.is_finite())
                .ok_or_else(|| format!("{keyword}: {token:?} is not a finite number"))
        })
        .collect()
}

/// Checks one face corner against the elements defined so far. A bad
/// position index is an error; a bad texture-coordinate or normal index is
/// returned as the problem in that slot (`[texture coordinate, normal]`).
fn check_corner(corner: &str, counts: &Counts) -> Result<[Option<String>; 2], String> {
    let parts: Vec<&str> = corner.split('/').collect();
    if parts.len() > 3 {
        return Err(format!("f: corner {corner:?} has more than three indices"));
    }
    check_index(corner, parts[0], "vertex", counts.positions)?;
    let attributes = [
        ("texture coordinate", counts.texcoords),
        ("normal", counts.normals),
    ];
    let mut problems = [None, None];
    for ((part, (kind, count)), problem) in parts[1..].iter().zip(attributes).zip(&mut problems) {
        if !part.is_empty() {
            *problem = check_index(corner, part, kind, count).err();
        }
    }
    Ok(problems)
}

/// A face corner without the attributes marked in `dropped`
/// (`[texture coordinate, normal]`): `1/2/3` becomes `1//3`, `1/2` or `1`.
fn without_attributes(corner: &str, dropped: [bool; 2]) -> String {
    let mut parts = corner.split('/');
    let position = parts.next().unwrap_or_default();
    let texcoord = parts.next().filter(|_| !dropped[0]).unwrap_or_default();
    let normal = parts.next().filter(|_| !dropped[1]).unwrap_or_default();
    match (texcoord.is_empty(), normal.is_empty()) {
        (true, true) => position.to_owned(),
        (false, true) => format!("{position}/{texcoord}"),
        (_, false) => format!("{position}/{texcoord}/{normal}"),
    }
}

/// Checks one index of a face corner.
fn check_index(corner: &str, part: &str, kind: &str, count: usize) -> Result<(), String> {
    let value: i64 = part
        .parse()
        .map_err(|_| format!("f: corner {corner:?}: {part:?} is not an index"))?;
    if value == 0 {
        return Err(format!(
            "f: corner {corner:?}: index 0 (OBJ indices start at 1)"
        ));
    }
    let in_range = usize::try_from(value.unsigned_abs()).is_ok_and(|magnitude| magnitude <= count);
    if !in_range {
        return Err(format!(
            "f: corner {corner:?}: {kind} {value} does not exist ({count} defined above this face)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUAD: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";

    #[test]
    fn keeps_geometry_lines_in_place() {
        let text = format!(
            "# header\n{QUAD}mtllib a.mtl\ng  side  \nusemtl \tRed\ns 1\nf 1/1/1 2/1/1 3/1/1 -1/-1/-1\n"
        );
        let prepared = prepare(&text).unwrap();
        let lines: Vec<&str> = prepared.text.lines().collect();
        assert_eq!(lines.len(), 1 + text.lines().count());
        assert_eq!(lines[0], MATERIAL_LINE);
        assert_eq!(lines[2], "v 0 0 0");
        assert_eq!(lines[8], "");
        assert_eq!(lines[9], "o side");
        assert_eq!(lines[10], "usemtl Red");
        assert_eq!(lines[12], "f 1/1/1 2/1/1 3/1/1 -1/-1/-1");
        assert_eq!(
            prepared.materials,
            [MaterialStatement {
                line: 10,
                name: "Red".into()
            }]
        );
        assert!(prepared.warnings.is_empty());
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("v 0 0 0\nv 1 nan 0\n", 2, "not a finite"),
            ("v 1 1 1 0\n", 1, "w is zero"),
            ("v 1e30 1 1 1e-30\n", 1, "not finite"),
            ("v 1 2\n", 1, "expects"),
            ("vt 1\n", 1, "expects"),
            ("vn 1 0\n", 1, "expects"),
            (QUAD, 0, ""),
        ];
        for (text, line, what) in cases {
            match prepare(text) {
                Ok(_) => assert_eq!(line, 0, "{text:?} should fail"),
                Err(error) => {
                    assert_eq!(error.line, line, "{text:?}: {error:?}");
                    assert!(error.what.contains(what), "{text:?}: {error:?}");
                }
            }
        }
    }

    #[test]
    fn face_indices_must_refer_to_earlier_elements() {
        let bad = [
            "f 1 2 5",
            "f 1 2 0",
            "f 1 2 -5",
            "f 1 2 x",
            "f 1/1/1/1 2 3",
            "f 1 2 99999999999999999999999",
        ];
        for face in bad {
            let error = prepare(&format!("{QUAD}{face}\n")).unwrap_err();
            assert_eq!(error.line, 7, "{face}: {error:?}");
        }
        let forward = prepare("v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\n").unwrap_err();
        assert_eq!(forward.line, 2);
        assert!(prepare(&format!("{QUAD}f 1 2 3 4\nf -4 -3 -2\nf 1/1 2// 3//1\n")).is_ok());
    }

    #[test]
    fn bad_texture_and_normal_indices_drop_that_attribute_from_the_face() {
        let prepared = prepare(&format!("{QUAD}f 1/2/1 2/1/1 3/1/1\nf 1//2 2//1 3/1/x\n")).unwrap();
        let faces: Vec<&str> = prepared
            .text
            .lines()
            .filter(|l| l.starts_with("f "))
            .collect();
        assert_eq!(faces, ["f 1//1 2//1 3//1", "f 1 2 3/1"]);
        assert_eq!(prepared.warnings.len(), 2, "{:?}", prepared.warnings);
        assert!(
            prepared.warnings[0]
                .starts_with("line 7: f: corner \"1/2/1\": texture coordinate 2 does not exist")
                && prepared.warnings[0].ends_with("the face's texture coordinates are dropped"),
            "{:?}",
            prepared.warnings
        );
        assert!(prepared.warnings[1].starts_with("line 8: f: corner \"1//2\": normal 2"));
    }

    #[test]
    fn skips_points_lines_and_short_faces_with_warnings() {
        let text = format!("{QUAD}l 1 2 3\np 1\nf 1 2\nf 1 2 3\n");
        let prepared = prepare(&text).unwrap();
        assert!(!prepared.text.contains("l 1 2 3"));
        assert!(!prepared.text.contains("f 1 2\n"));
        assert_eq!(prepared.warnings.len(), 2, "{:?}", prepared.warnings);
        assert!(prepared.warnings[0].starts_with("line 7: 2 point and line"));
        assert!(prepared.warnings[1].starts_with("line 9: 1 faces"));
    }

    #[test]
    fn finds_library_statements() {
        let text = "mtllib a.mtl b.mtl\n  mtllib   my lib.mtl # note\nusemtl x\n";
        assert_eq!(
            library_statements(text),
            [
                LibraryStatement {
                    line: 1,
                    names: "a.mtl b.mtl".into()
                },
                LibraryStatement {
                    line: 2,
                    names: "my lib.mtl".into()
                }
            ]
        );
    }
}
