//! Primitives: attributes and indices read into [`Primitive`]s, strips and
//! fans turned into triangle lists, skin influences checked against the
//! skeleton, static instances baked.
//!
//! Primitives `.hmesh` cannot hold are skipped, never fatal on their own:
//! points and lines (`.hmesh` holds triangle lists only; the reference SDK's
//! validator requires `indexCount % 3 == 0`) are counted into one warning per
//! file ([`Skipped`]), and a primitive without `POSITION`, which the glTF
//! specification says a client ignores, gets a warning naming it. When
//! nothing drawable is left, [`Skipped::no_triangles`] says what was found.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ::gltf::json::{
    self,
    accessor::{ComponentType, Type},
    mesh::{Mode, Semantic},
    validation::Checked,
};

use super::accessor::{AccessorReader, FloatEncoding, grouped};
use super::transform::bake;
use super::walk::Instance;
use super::{GltfError, and_list};
use crate::encode::mesh::scene::{Primitive, SkinInfluence};
use crate::jobserver;

/// The extension that allows integer vertex attributes.
const QUANTIZATION: &str = "KHR_mesh_quantization";

/// The primitives of the scene and what was skipped on the way.
pub(super) struct ReadPrimitives {
    /// The triangle primitives of every instance, in order.
    pub primitives: Vec<Primitive>,
    /// The primitives skipped because they are not triangles.
    pub skipped: Skipped,
}

/// The primitives skipped because `.hmesh` cannot hold them, each counted
/// once however many nodes use its mesh.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Skipped {
    /// The mode of every skipped point or line primitive, by
    /// `(mesh, primitive)`.
    not_triangles: BTreeMap<(usize, usize), Mode>,
    /// The `(mesh, primitive)` of every primitive without `POSITION`.
    without_position: BTreeSet<(usize, usize)>,
}

impl Skipped {
    /// The one warning for the point and line primitives, if any: `skipped 3
    /// primitives that are not triangles (2 LINES, 1 POINTS): .hmesh holds
    /// triangles only`.
    pub fn warning(&self) -> Option<String> {
        let counts = self.mode_counts();
        let total = self.not_triangles.len();
        if total == 0 {
            return None;
        }
        let list: Vec<String> = counts
            .iter()
            .map(|(mode, n)| format!("{n} {}", mode_name(*mode)))
            .collect();
        let (noun, verb) = primitives_are(total);
        Some(format!(
            "skipped {total} {noun} that {verb} not triangles ({}): .hmesh holds triangles only",
            list.join(", ")
        ))
    }

    /// Why a scene has no triangles: `the scene has no triangles: its 4
    /// primitives are POINTS (2) and LINE_STRIP (2), which .hmesh cannot
    /// hold`, and how many primitives lacked `POSITION`.
    pub fn no_triangles(&self) -> String {
        let mut text = "the scene has no triangles".to_owned();
        let total = self.not_triangles.len();
        if total > 0 {
            let list: Vec<String> = self
                .mode_counts()
                .iter()
                .map(|(mode, n)| match total {
                    1 => mode_name(*mode).to_owned(),
                    _ => format!("{} ({n})", mode_name(*mode)),
                })
                .collect();
            let (noun, verb) = primitives_are(total);
            text.push_str(&format!(
                ": its {total} {noun} {verb} {}, which .hmesh cannot hold",
                and_list(&list)
            ));
        }
        let without = self.without_position.len();
        if without > 0 {
            let separator = if total > 0 { ";" } else { ":" };
            let noun = if without == 1 {
                "primitive"
            } else {
                "primitives"
            };
            text.push_str(&format!(
                "{separator} {without} {noun} without POSITION ignored"
            ));
        }
        text
    }

    /// Each skipped mode and its count, most frequent first, then in the
    /// order of the modes' numbers.
    fn mode_counts(&self) -> Vec<(Mode, usize)> {
        let mut counts: Vec<(Mode, usize)> = Vec::new();
        for mode in self.not_triangles.values() {
            match counts.iter_mut().find(|(m, _)| m == mode) {
                Some((_, n)) => *n += 1,
                None => counts.push((*mode, 1)),
            }
        }
        counts.sort_by_key(|(mode, n)| (std::cmp::Reverse(*n), mode.as_gl_enum()));
        counts
    }
}

/// `primitive is` or `primitives are`, for `count` primitives.
fn primitives_are(count: usize) -> (&'static str, &'static str) {
    if count == 1 {
        ("primitive", "is")
    } else {
        ("primitives", "are")
    }
}

/// A mode as glTF spells it.
fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Points => "POINTS",
        Mode::Lines => "LINES",
        Mode::LineLoop => "LINE_LOOP",
        Mode::LineStrip => "LINE_STRIP",
        Mode::Triangles => "TRIANGLES",
        Mode::TriangleStrip => "TRIANGLE_STRIP",
        Mode::TriangleFan => "TRIANGLE_FAN",
    }
}

/// Reads the primitives of every instance, in order. Points and lines are
/// skipped and counted in [`ReadPrimitives::skipped`]; primitives without
/// `POSITION` or left with no triangle are skipped with a warning.
pub(super) fn read_instances(
    root: &json::Root,
    reader: &AccessorReader<'_>,
    instances: &[Instance],
    warnings: &mut Vec<String>,
) -> Result<ReadPrimitives, GltfError> {
    let joint_count = root.skins.first().map_or(0, |skin| skin.joints.len());
    let mut uses = HashMap::new();
    for instance in instances {
        *uses.entry((instance.mesh, instance.skinned)).or_insert(0) += 1;
    }
    let mut meshes = MeshCache {
        root,
        reader,
        joint_count,
        quantized: root.extensions_used.iter().any(|name| name == QUANTIZATION),
        read: HashMap::new(),
        uses,
        skipped: Skipped::default(),
    };
    let mut out = Vec::new();
    for instance in instances {
        let primitives = meshes.local(instance.mesh, instance.skinned, warnings)?;
        for mut primitive in primitives {
            if let (Some(world), Some(node)) = (instance.world, instance.node) {
                primitive.label = format!("{} (node {node})", primitive.label);
                bake(&mut primitive, &world)?;
            }
            out.push(primitive);
        }
    }
    Ok(ReadPrimitives {
        primitives: out,
        skipped: meshes.skipped,
    })
}

/// Meshes read in their own space, kept so an instanced mesh is decoded once.
struct MeshCache<'a, 'r> {
    root: &'a json::Root,
    reader: &'a AccessorReader<'r>,
    joint_count: usize,
    quantized: bool,
    read: HashMap<(usize, bool), Vec<Primitive>>,
    /// How many instances still want each mesh: the last one takes the
    /// cached copy instead of cloning it.
    uses: HashMap<(usize, bool), usize>,
    skipped: Skipped,
}

impl MeshCache<'_, '_> {
    /// The triangle primitives of `meshes[mesh]`, in its own space, with
    /// skin influences when `skinned`.
    fn local(
        &mut self,
        mesh: usize,
        skinned: bool,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<Primitive>, GltfError> {
        let key = (mesh, skinned);
        let left = self.uses.get_mut(&key).map_or(0, |left| {
            *left = left.saturating_sub(1);
            *left
        });
        if left == 0 {
            if let Some(primitives) = self.read.remove(&key) {
                return Ok(primitives);
            }
        } else if let Some(primitives) = self.read.get(&key) {
            return Ok(primitives.clone());
        }
        let json_mesh = self
            .root
            .meshes
            .get(mesh)
            .ok_or_else(|| GltfError::at("", format!("meshes[{mesh}] does not exist")))?;
        let mut primitives = Vec::new();
        for (p, json_primitive) in json_mesh.primitives.iter().enumerate() {
            let source = PrimitiveSource {
                reader: self.reader,
                json: json_primitive,
                path: format!("meshes[{mesh}].primitives[{p}]"),
                joint_count: self.joint_count,
                quantized: self.quantized,
            };
            match source.read(skinned, warnings)? {
                Read::Triangles(primitive) => primitives.push(*primitive),
                Read::NotTriangles(mode) => {
                    self.skipped.not_triangles.insert((mesh, p), mode);
                }
                Read::WithoutPosition => {
                    self.skipped.without_position.insert((mesh, p));
                }
                Read::Empty => {}
            }
        }
        if left > 0 {
            self.read.insert(key, primitives.clone());
        }
        Ok(primitives)
    }
}

/// What reading one primitive gives.
enum Read {
    /// Its triangles.
    Triangles(Box<Primitive>),
    /// Nothing: it draws points or lines in this mode.
    NotTriangles(Mode),
    /// Nothing: it has no `POSITION` (a warning says so).
    WithoutPosition,
    /// Nothing: its strip or fan has no triangle (a warning says so).
    Empty,
}

/// The pieces of a primitive read after its positions, in the order their
/// errors and warnings are reported.
#[derive(Clone, Copy)]
enum Piece {
    Indices,
    Normals,
    Tangents,
    Uvs,
    Skin,
}

/// What reading a [`Piece`] gives.
enum PieceData {
    Indices(Vec<u32>),
    Normals(Option<Vec<[f32; 3]>>),
    Tangents(Option<Vec<[f32; 4]>>),
    Uvs(Option<Vec<[f32; 2]>>),
    Skin(Option<Vec<SkinInfluence>>),
}

/// One glTF primitive being read.
struct PrimitiveSource<'a, 'r> {
    reader: &'a AccessorReader<'r>,
    json: &'a json::mesh::Primitive,
    /// `meshes[m].primitives[p]`.
    path: String,
    /// Joints in `skins[0]`.
    joint_count: usize,
    /// Whether the file declares `KHR_mesh_quantization`, which allows
    /// integer positions, normals, tangents and UVs.
    quantized: bool,
}

impl PrimitiveSource<'_, '_> {
    /// The primitive as a triangle list, or why it gives none.
    fn read(&self, skinned: bool, warnings: &mut Vec<String>) -> Result<Read, GltfError> {
        let mode = match self.json.mode {
            Checked::Valid(mode) => mode,
            Checked::Invalid => {
                return Err(GltfError::at(
                    format!("{}.mode", self.path),
                    "is not a valid mode",
                ));
            }
        };
        if !draws_triangles(mode) {
            return Ok(Read::NotTriangles(mode));
        }
        if self.attribute(Semantic::Positions).is_none() {
            warnings.push(format!(
                "{}: has no POSITION attribute; skipped (glTF clients ignore such primitives)",
                self.path
            ));
            return Ok(Read::WithoutPosition);
        }
        if self.json.targets.as_ref().is_some_and(|t| !t.is_empty()) {
            warnings.push(format!("{}: morph targets are ignored", self.path));
        }
        let positions = self.positions()?;
        let vertex_count = positions.len();
        // The other attributes only need the vertex count: they are decoded
        // side by side on lent threads, then checked in a fixed order, so the
        // first error and the warnings are the same at any thread count.
        let pieces = [
            Piece::Indices,
            Piece::Normals,
            Piece::Tangents,
            Piece::Uvs,
            Piece::Skin,
        ];
        let read = jobserver::map(&pieces, |piece| {
            let mut warnings = Vec::new();
            let data = self.piece(*piece, vertex_count, skinned, &mut warnings);
            data.map(|data| (data, warnings))
        });
        let mut primitive = Primitive {
            label: self.path.clone(),
            positions,
            material: self.json.material.map(|m| m.value()),
            ..Primitive::default()
        };
        for result in read {
            let (data, piece_warnings) = result?;
            match data {
                PieceData::Indices(source) => {
                    primitive.indices = triangle_list(mode, source, &self.path)?;
                    if primitive.indices.is_empty() {
                        warnings.push(format!("{}: has no triangles; skipped", self.path));
                        return Ok(Read::Empty);
                    }
                }
                PieceData::Normals(normals) => primitive.normals = normals,
                PieceData::Tangents(tangents) => primitive.tangents = tangents,
                PieceData::Uvs(uvs) => primitive.uvs = uvs,
                PieceData::Skin(skin) => primitive.skin = skin,
            }
            warnings.extend(piece_warnings);
        }
        Ok(Read::Triangles(Box::new(primitive)))
    }

    /// Reads one piece of the primitive; `warnings` gets what it skips.
    fn piece(
        &self,
        piece: Piece,
        vertex_count: usize,
        skinned: bool,
        warnings: &mut Vec<String>,
    ) -> Result<PieceData, GltfError> {
        Ok(match piece {
            Piece::Indices => PieceData::Indices(self.indices(vertex_count)?),
            Piece::Normals => PieceData::Normals(self.optional_vectors::<3>(
                Semantic::Normals,
                vertex_count,
                warnings,
            )?),
            Piece::Tangents => PieceData::Tangents(self.optional_vectors::<4>(
                Semantic::Tangents,
                vertex_count,
                warnings,
            )?),
            Piece::Uvs => PieceData::Uvs(self.optional_vectors::<2>(
                Semantic::TexCoords(0),
                vertex_count,
                warnings,
            )?),
            Piece::Skin if skinned => PieceData::Skin(self.influences(vertex_count, warnings)?),
            Piece::Skin => PieceData::Skin(None),
        })
    }

    /// The accessor index and JSON path of an attribute, if present.
    fn attribute(&self, semantic: Semantic) -> Option<(usize, String)> {
        let name = attribute_name(&semantic);
        self.json
            .attributes
            .get(&Checked::Valid(semantic))
            .map(|index| (index.value(), format!("{}.attributes.{name}", self.path)))
    }

    /// `POSITION` (checked present by the caller), every component finite.
    fn positions(&self) -> Result<Vec<[f32; 3]>, GltfError> {
        let (index, path) = self.attribute(Semantic::Positions).ok_or_else(|| {
            GltfError::at(format!("{}.attributes", self.path), "POSITION is missing")
        })?;
        let encoding = if self.quantized {
            FloatEncoding::FloatOrQuantized
        } else {
            FloatEncoding::Float
        };
        let positions = grouped::<3>(&self.reader.floats(index, &path, Type::Vec3, encoding)?);
        let not_finite = positions
            .iter()
            .enumerate()
            .find(|(_, p)| !p.iter().all(|v| v.is_finite()));
        if let Some((i, p)) = not_finite {
            return Err(GltfError::at(
                path,
                format!("vertex {i} is not finite ({p:?})"),
            ));
        }
        if u32::try_from(positions.len()).is_err() {
            return Err(GltfError::at(
                path,
                "has more vertices than 32-bit indices can reach",
            ));
        }
        Ok(positions)
    }

    /// The index list (or `0..vertex_count`), every index checked.
    fn indices(&self, vertex_count: usize) -> Result<Vec<u32>, GltfError> {
        let Some(accessor) = self.json.indices else {
            return Ok((0..vertex_count as u32).collect());
        };
        let path = format!("{}.indices", self.path);
        let allowed = [ComponentType::U8, ComponentType::U16, ComponentType::U32];
        let indices = self
            .reader
            .unsigned(accessor.value(), &path, Type::Scalar, &allowed)?;
        if let Some((at, &index)) = indices
            .iter()
            .enumerate()
            .find(|(_, i)| **i as usize >= vertex_count)
        {
            return Err(GltfError::at(
                path,
                format!("index {index} (entry {at}) is not below the vertex count {vertex_count}"),
            ));
        }
        Ok(indices)
    }

    /// An optional float attribute with `N` components per vertex (`NORMAL`
    /// 3, `TANGENT` 4, `TEXCOORD_0` 2). It must have one element per vertex;
    /// a non-finite value drops it with a warning.
    fn optional_vectors<const N: usize>(
        &self,
        semantic: Semantic,
        vertex_count: usize,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Vec<[f32; N]>>, GltfError> {
        let (ty, encoding) = match (N, self.quantized) {
            (2, false) => (Type::Vec2, FloatEncoding::FloatOrUnsignedNormalized),
            (2, true) => (Type::Vec2, FloatEncoding::FloatOrQuantized),
            (3, false) => (Type::Vec3, FloatEncoding::Float),
            (3, true) => (Type::Vec3, FloatEncoding::FloatOrNormalized),
            (_, false) => (Type::Vec4, FloatEncoding::Float),
            (_, true) => (Type::Vec4, FloatEncoding::FloatOrNormalized),
        };
        let Some((index, path)) = self.attribute(semantic) else {
            return Ok(None);
        };
        let values = grouped::<N>(&self.reader.floats(index, &path, ty, encoding)?);
        check_vertex_count(values.len(), vertex_count, &path)?;
        if let Some(i) = values.iter().position(|v| !v.iter().all(|c| c.is_finite())) {
            warnings.push(format!(
                "{path}: vertex {i} is not finite; the attribute is dropped"
            ));
            return Ok(None);
        }
        Ok(Some(values))
    }

    /// `JOINTS_0` with `WEIGHTS_0`, or `None` with a warning when either is
    /// missing. A joint past the skeleton is an error unless its weight is
    /// zero (then it becomes joint 0).
    fn influences(
        &self,
        vertex_count: usize,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Vec<SkinInfluence>>, GltfError> {
        let (Some((joints_index, joints_path)), Some((weights_index, weights_path))) = (
            self.attribute(Semantic::Joints(0)),
            self.attribute(Semantic::Weights(0)),
        ) else {
            warnings.push(format!(
                "{}: its node is skinned but it lacks JOINTS_0 or WEIGHTS_0; it is exported unskinned",
                self.path
            ));
            return Ok(None);
        };
        let small = [ComponentType::U8, ComponentType::U16];
        let joints = self
            .reader
            .unsigned(joints_index, &joints_path, Type::Vec4, &small)?;
        let weights = grouped::<4>(&self.reader.floats(
            weights_index,
            &weights_path,
            Type::Vec4,
            FloatEncoding::FloatOrUnsignedNormalized,
        )?);
        check_vertex_count(joints.len() / 4, vertex_count, &joints_path)?;
        check_vertex_count(weights.len(), vertex_count, &weights_path)?;
        let mut out = Vec::with_capacity(vertex_count);
        for (vertex, (joint_set, weight_set)) in joints.chunks_exact(4).zip(&weights).enumerate() {
            if let Some(w) = weight_set.iter().find(|w| !w.is_finite() || **w < 0.0) {
                return Err(GltfError::at(
                    &weights_path,
                    format!(
                        "vertex {vertex} has weight {w}; weights must be finite and not negative"
                    ),
                ));
            }
            let mut influence = SkinInfluence {
                joints: [0; 4],
                weights: *weight_set,
            };
            for (slot, (&joint, &weight)) in influence
                .joints
                .iter_mut()
                .zip(joint_set.iter().zip(weight_set))
            {
                *slot = self.joint(joint, weight, vertex, &joints_path)?;
            }
            out.push(influence);
        }
        Ok(Some(out))
    }

    /// A joint index checked against the skeleton.
    fn joint(&self, joint: u32, weight: f32, vertex: usize, path: &str) -> Result<u16, GltfError> {
        if (joint as usize) < self.joint_count {
            return u16::try_from(joint).map_err(|_| {
                GltfError::at(path, format!("joint {joint} does not fit in 16 bits"))
            });
        }
        if weight == 0.0 {
            return Ok(0);
        }
        Err(GltfError::at(
            path,
            format!(
                "vertex {vertex} uses joint {joint} but skins[0] has {} joints",
                self.joint_count
            ),
        ))
    }
}

/// Refuses an attribute whose element count differs from `POSITION`'s.
fn check_vertex_count(found: usize, vertex_count: usize, path: &str) -> Result<(), GltfError> {
    if found == vertex_count {
        Ok(())
    } else {
        Err(GltfError::at(
            path,
            format!("has {found} elements but POSITION has {vertex_count}"),
        ))
    }
}

/// The attribute name as written in the JSON.
pub(super) fn attribute_name(semantic: &Semantic) -> String {
    match semantic {
        Semantic::Positions => "POSITION".to_owned(),
        Semantic::Normals => "NORMAL".to_owned(),
        Semantic::Tangents => "TANGENT".to_owned(),
        Semantic::Colors(n) => format!("COLOR_{n}"),
        Semantic::TexCoords(n) => format!("TEXCOORD_{n}"),
        Semantic::Joints(n) => format!("JOINTS_{n}"),
        Semantic::Weights(n) => format!("WEIGHTS_{n}"),
        Semantic::Extras(name) => format!("_{name}"),
    }
}

/// Whether `mode` draws triangles (lists, strips and fans all do).
fn draws_triangles(mode: Mode) -> bool {
    matches!(
        mode,
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    )
}

/// `indices` in `mode` as a triangle list with the winding glTF defines.
/// Strips and fans drop triangles that repeat a vertex (strip restarts).
fn triangle_list(mode: Mode, indices: Vec<u32>, path: &str) -> Result<Vec<u32>, GltfError> {
    match mode {
        Mode::TriangleStrip => Ok(strip_triangles(&indices)),
        Mode::TriangleFan => Ok(fan_triangles(&indices)),
        _ if !indices.len().is_multiple_of(3) => Err(GltfError::at(
            path,
            format!("{} indices do not make whole triangles", indices.len()),
        )),
        _ => Ok(indices),
    }
}

/// Triangle `i` of a strip is `p[i], p[i+1], p[i+2]` for even `i` and
/// `p[i], p[i+2], p[i+1]` for odd `i`.
fn strip_triangles(indices: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(indices.len().saturating_sub(2) * 3);
    for (i, window) in indices.windows(3).enumerate() {
        if let [a, b, c] = *window {
            let triangle = if i % 2 == 0 { [a, b, c] } else { [a, c, b] };
            push_unless_degenerate(&mut out, triangle);
        }
    }
    out
}

/// Triangle `i` of a fan is `p[i+1], p[i+2], p[0]`.
fn fan_triangles(indices: &[u32]) -> Vec<u32> {
    let Some((&hub, rim)) = indices.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(rim.len().saturating_sub(1) * 3);
    for pair in rim.windows(2) {
        if let [a, b] = *pair {
            push_unless_degenerate(&mut out, [a, b, hub]);
        }
    }
    out
}

/// Appends a triangle whose three vertices differ.
fn push_unless_degenerate(out: &mut Vec<u32>, [a, b, c]: [u32; 3]) {
    if a != b && b != c && a != c {
        out.extend([a, b, c]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_alternate_winding_and_skip_restarts() {
        assert_eq!(
            strip_triangles(&[0, 1, 2, 3, 4]),
            vec![0, 1, 2, 1, 3, 2, 2, 3, 4]
        );
        // The doubled vertices only make degenerate triangles, which are
        // dropped; the second strip keeps the parity of its position.
        let restarted = strip_triangles(&[0, 1, 2, 2, 3, 3, 4, 5, 6]);
        assert_eq!(restarted, vec![0, 1, 2, 3, 5, 4, 4, 5, 6]);
        assert!(strip_triangles(&[0, 1]).is_empty());
    }

    #[test]
    fn fans_keep_the_first_vertex_as_hub() {
        assert_eq!(fan_triangles(&[0, 1, 2, 3]), vec![1, 2, 0, 2, 3, 0]);
        assert!(fan_triangles(&[]).is_empty());
    }

    #[test]
    fn triangle_lists_must_be_whole() {
        let err = triangle_list(Mode::Triangles, vec![0, 1, 2, 0], "meshes[0].primitives[0]")
            .unwrap_err();
        assert_eq!(err.location, "meshes[0].primitives[0]");
    }
}
