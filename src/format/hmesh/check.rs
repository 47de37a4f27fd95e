//! The `.hmesh` rules on element values, which the readers in `read` apply
//! once a chunk's size is known to be right: the descriptor and the bounds,
//! vertices inside the mesh box, vertex indices in range, meshlets and
//! submeshes tiling their arrays, the skeleton's parent forest, skin weights
//! and the LOD rows. Each error names the offset of the element at fault.

use core::mem::offset_of;

use super::chunks::{Chunk, ChunkSet, MeshletArrays, chunk_tag};
use super::layout::{
    AABB_TOLERANCE, ChunkEntry, GpuJoint, GpuSkinVertex, GpuVertex, KNOWN_MESH_FLAGS,
    LodTableHeader, MeshBounds, MeshDesc, MeshLod, Meshlet, MeshletBounds, MeshletTriangle,
    NO_MATERIAL, SKIN_WEIGHT_TOLERANCE, SubMesh, chunk,
};
use crate::format::error::{FormatError, FormatResult};

/// Fails on the first non-finite value of `values`, which start at file
/// offset `at`; `element` describes the owner for the message.
fn require_finite(
    values: &[f32],
    at: u64,
    field: &'static str,
    element: impl FnOnce() -> String,
) -> FormatResult<()> {
    match values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        None => Ok(()),
        Some((k, value)) => Err(FormatError::new(
            at + 4 * k as u64,
            field,
            format!("{}: component {k} is {value}", element()),
        )),
    }
}

/// Checks that all parts of a bounds record are finite and its radius is not
/// negative; `fields` name the box minimum, box maximum, centre and radius.
fn require_sane_bounds(
    bounds: &MeshBounds,
    at: u64,
    fields: [&'static str; 4],
    element: &dyn Fn() -> String,
) -> FormatResult<()> {
    let [min_field, max_field, center_field, radius_field] = fields;
    let parts: [(&[f32], usize, &'static str); 4] = [
        (
            &bounds.aabb_min,
            offset_of!(MeshBounds, aabb_min),
            min_field,
        ),
        (
            &bounds.aabb_max,
            offset_of!(MeshBounds, aabb_max),
            max_field,
        ),
        (
            &bounds.sphere_center,
            offset_of!(MeshBounds, sphere_center),
            center_field,
        ),
        (
            core::slice::from_ref(&bounds.sphere_radius),
            offset_of!(MeshBounds, sphere_radius),
            radius_field,
        ),
    ];
    for (values, offset, field) in parts {
        require_finite(values, at + offset as u64, field, element)?;
    }
    if bounds.sphere_radius < 0.0 {
        return Err(FormatError::new(
            at + offset_of!(MeshBounds, sphere_radius) as u64,
            radius_field,
            format!("{}: radius {} is negative", element(), bounds.sphere_radius),
        ));
    }
    Ok(())
}

/// The mesh box widened by the containment tolerance.
pub(super) struct BoundsCheck {
    min: [f32; 3],
    max: [f32; 3],
    tolerance: f32,
}

impl BoundsCheck {
    /// The tolerance is [`AABB_TOLERANCE`] times the largest extent, or
    /// times 1 for a smaller box, computed in `f32` like the reference.
    pub(super) fn new(bounds: &MeshBounds) -> Self {
        let largest = (0..3)
            .map(|axis| bounds.aabb_max[axis] - bounds.aabb_min[axis])
            .fold(1.0_f32, f32::max);
        Self {
            min: bounds.aabb_min,
            max: bounds.aabb_max,
            tolerance: AABB_TOLERANCE * largest,
        }
    }

    /// The first axis on which `point` lies below the box.
    fn below(&self, point: [f32; 3]) -> Option<usize> {
        (0..3).find(|&axis| point[axis] < self.min[axis] - self.tolerance)
    }

    /// The first axis on which `point` lies above the box.
    fn above(&self, point: [f32; 3]) -> Option<usize> {
        (0..3).find(|&axis| point[axis] > self.max[axis] + self.tolerance)
    }

    /// The box for messages.
    fn describe(&self) -> String {
        format!(
            "the mesh box {:?}..{:?} (tolerance {})",
            self.min, self.max, self.tolerance
        )
    }
}

/// The `DESC` record stored at file offset `chunk_at`: a usable stride,
/// width and flags, and at least one vertex and one submesh.
pub(super) fn check_desc(desc: &MeshDesc, chunk_at: u64) -> FormatResult<()> {
    let at = |offset: usize| chunk_at + offset as u64;
    if usize::from(desc.vertex_stride) != size_of::<GpuVertex>() {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, vertex_stride)),
            "MeshDesc.vertexStride",
            format!(
                "stride {} is not the {}-byte GpuVertex",
                desc.vertex_stride,
                size_of::<GpuVertex>()
            ),
        ));
    }
    if !matches!(desc.index_width, 2 | 4) {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, index_width)),
            "MeshDesc.indexWidth",
            format!("index width {} is neither 2 nor 4", desc.index_width),
        ));
    }
    let unknown = desc.flags & !KNOWN_MESH_FLAGS;
    if unknown != 0 {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, flags)),
            "MeshDesc.flags",
            format!("unknown flag bits {unknown:#x}"),
        ));
    }
    if desc.vertex_count == 0 {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, vertex_count)),
            "MeshDesc.vertexCount",
            "a mesh needs at least one vertex",
        ));
    }
    if desc.submesh_count == 0 {
        return Err(FormatError::new(
            at(offset_of!(MeshDesc, submesh_count)),
            "MeshDesc.submeshCount",
            "a mesh needs at least one submesh",
        ));
    }
    Ok(())
}

/// The `BNDS` record stored at file offset `chunk_at`: finite, with an
/// ordered box and a non-negative radius.
pub(super) fn check_mesh_bounds(bounds: &MeshBounds, chunk_at: u64) -> FormatResult<()> {
    let fields = [
        "MeshBounds.aabbMin",
        "MeshBounds.aabbMax",
        "MeshBounds.sphereCenter",
        "MeshBounds.sphereRadius",
    ];
    require_sane_bounds(bounds, chunk_at, fields, &|| "mesh bounds".to_owned())?;
    if let Some(axis) = (0..3).find(|&axis| bounds.aabb_max[axis] < bounds.aabb_min[axis]) {
        return Err(FormatError::new(
            chunk_at + (offset_of!(MeshBounds, aabb_max) + 4 * axis) as u64,
            "MeshBounds.aabbMax",
            format!(
                "axis {axis}: the box maximum {} is below its minimum {}",
                bounds.aabb_max[axis], bounds.aabb_min[axis]
            ),
        ));
    }
    Ok(())
}

/// Every vertex of `VTXS` is finite and inside the mesh box.
pub(super) fn check_vertices(
    vertices: &[GpuVertex],
    chunk: Chunk<'_>,
    space: &BoundsCheck,
) -> FormatResult<()> {
    for (i, vertex) in vertices.iter().enumerate() {
        let position_at = chunk.element_at::<GpuVertex>(i, offset_of!(GpuVertex, position));
        let uv_at = chunk.element_at::<GpuVertex>(i, offset_of!(GpuVertex, uv));
        let label = || format!("vertex {i}");
        require_finite(&vertex.position, position_at, "GpuVertex.position", label)?;
        require_finite(&vertex.uv, uv_at, "GpuVertex.uv", label)?;
        let outside = space
            .below(vertex.position)
            .or(space.above(vertex.position));
        if let Some(axis) = outside {
            return Err(FormatError::new(
                position_at + 4 * axis as u64,
                "GpuVertex.position",
                format!(
                    "vertex {i} at {:?} lies outside {}",
                    vertex.position,
                    space.describe()
                ),
            ));
        }
    }
    Ok(())
}

/// Every vertex index in `refs` is below `vertex_count`. The array `field`
/// starts at file offset `at` and holds one index every `width` bytes;
/// `label` words entry `i` holding index `v` for the message.
pub(super) fn check_vertex_refs(
    refs: impl Iterator<Item = u32>,
    (at, width): (u64, usize),
    field: &'static str,
    vertex_count: u32,
    label: impl Fn(usize, u32) -> String,
) -> FormatResult<()> {
    match refs.enumerate().find(|&(_, v)| v >= vertex_count) {
        None => Ok(()),
        Some((i, v)) => Err(FormatError::new(
            at + (i * width) as u64,
            field,
            format!("{}, but vertexCount is {vertex_count}", label(i, v)),
        )),
    }
}

/// The meshlet arrays: `MLVR` entries below `vertexCount`, the meshlets'
/// layout of `MLVR` and `MLTR`, and their culling bounds.
pub(super) fn check_meshlets(
    arrays: &MeshletArrays<'_>,
    set: &ChunkSet<'_>,
    desc: &MeshDesc,
) -> FormatResult<()> {
    if let Some(mlvr) = set.get(chunk::MLVR) {
        let stored = (mlvr.offset, size_of::<u32>());
        let refs = arrays.vertices.iter().copied();
        check_vertex_refs(refs, stored, "MLVR", desc.vertex_count, |i, vertex| {
            format!("entry {i} is vertex {vertex}")
        })?;
    }
    check_meshlet_layout(arrays, set, desc)?;
    check_meshlet_bounds(arrays.bounds, set)
}

/// Meshlets lay out `MLVR` and `MLTR` end to end, within the `DESC` limits,
/// and their triangles use only their own vertices.
fn check_meshlet_layout(
    arrays: &MeshletArrays<'_>,
    set: &ChunkSet<'_>,
    desc: &MeshDesc,
) -> FormatResult<()> {
    let mlet = set.get(chunk::MLET);
    let mut next_vertex = 0_u64;
    let mut next_triangle = 0_u64;
    for (m, meshlet) in arrays.meshlets.iter().enumerate() {
        let at = |offset: usize| mlet.map_or(0, |chunk| chunk.element_at::<Meshlet>(m, offset));
        let vertex_span = Span {
            offset: meshlet.vertex_offset,
            count: meshlet.vertex_count,
            limit: desc.meshlet_max_vertices,
            available: arrays.vertices.len(),
            expected: next_vertex,
        };
        let fields = ["Meshlet.vertexOffset", "Meshlet.vertexCount"];
        let offsets = [
            at(offset_of!(Meshlet, vertex_offset)),
            at(offset_of!(Meshlet, vertex_count)),
        ];
        next_vertex = vertex_span.check(m, "MLVR", fields, offsets, "meshletMaxVertices")?;
        let triangle_span = Span {
            offset: meshlet.triangle_offset,
            count: meshlet.triangle_count,
            limit: desc.meshlet_max_triangles,
            available: arrays.triangles.len(),
            expected: next_triangle,
        };
        let fields = ["Meshlet.triangleOffset", "Meshlet.triangleCount"];
        let offsets = [
            at(offset_of!(Meshlet, triangle_offset)),
            at(offset_of!(Meshlet, triangle_count)),
        ];
        next_triangle = triangle_span.check(m, "MLTR", fields, offsets, "meshletMaxTriangles")?;
        check_local_indices(m, meshlet, arrays.triangles, set)?;
    }
    require_fully_used(set.get(chunk::MLVR), arrays.vertices.len(), next_vertex)?;
    require_fully_used(set.get(chunk::MLTR), arrays.triangles.len(), next_triangle)?;
    Ok(())
}

/// One meshlet's slice of `MLVR` or `MLTR`.
struct Span {
    offset: u32,
    count: u32,
    /// The `DESC` limit on `count`.
    limit: u32,
    /// Elements in the array.
    available: usize,
    /// Where the previous meshlet's slice ended.
    expected: u64,
}

impl Span {
    /// Checks the slice of meshlet `m` and returns where it ends.
    fn check(
        &self,
        m: usize,
        array: &str,
        [offset_field, count_field]: [&'static str; 2],
        [offset_at, count_at]: [u64; 2],
        limit_name: &str,
    ) -> FormatResult<u64> {
        if u64::from(self.offset) != self.expected {
            return Err(FormatError::new(
                offset_at,
                offset_field,
                format!(
                    "meshlet {m} starts at {array} element {}, but the meshlets before it end \
                     at {} (meshlets lay out {array} end to end, in order)",
                    self.offset, self.expected
                ),
            ));
        }
        if self.count > self.limit {
            return Err(FormatError::new(
                count_at,
                count_field,
                format!(
                    "meshlet {m} has {} elements, more than DESC.{limit_name} {}",
                    self.count, self.limit
                ),
            ));
        }
        let end = self.expected + u64::from(self.count);
        if end > self.available as u64 {
            return Err(FormatError::new(
                count_at,
                count_field,
                format!(
                    "meshlet {m} runs to {array} element {end}, past its {} elements",
                    self.available
                ),
            ));
        }
        Ok(end)
    }
}

/// Every local index of meshlet `m`'s triangles is below its vertex count.
fn check_local_indices(
    m: usize,
    meshlet: &Meshlet,
    triangles: &[MeshletTriangle],
    set: &ChunkSet<'_>,
) -> FormatResult<()> {
    let first = meshlet.triangle_offset as usize;
    let own = triangles
        .get(first..)
        .and_then(|rest| rest.get(..meshlet.triangle_count as usize))
        .unwrap_or_default();
    for (t, triangle) in own.iter().enumerate() {
        let stray = triangle
            .0
            .iter()
            .enumerate()
            .find(|&(_, &local)| u32::from(local) >= meshlet.vertex_count);
        if let Some((corner, local)) = stray {
            let mltr = set.get(chunk::MLTR).map_or(0, |chunk| chunk.offset);
            return Err(FormatError::new(
                mltr + (3 * (first + t) + corner) as u64,
                "MeshletTriangle",
                format!(
                    "meshlet {m}, triangle {}: local vertex {local} is not below the \
                     meshlet's vertexCount {}",
                    first + t,
                    meshlet.vertex_count
                ),
            ));
        }
    }
    Ok(())
}

/// The meshlets must use every element of `MLVR` / `MLTR`.
fn require_fully_used(chunk: Option<Chunk<'_>>, held: usize, used: u64) -> FormatResult<()> {
    match chunk {
        Some(chunk) if held as u64 != used => Err(FormatError::new(
            chunk.entry_at() + offset_of!(ChunkEntry, size) as u64,
            "ChunkEntry.size",
            format!(
                "{} holds {held} elements, but the meshlets use {used}",
                chunk_tag(chunk)
            ),
        )),
        _ => Ok(()),
    }
}

/// `MLBN`: finite spheres with non-negative radii and finite cones.
fn check_meshlet_bounds(bounds: &[MeshletBounds], set: &ChunkSet<'_>) -> FormatResult<()> {
    let Some(chunk) = set.get(chunk::MLBN) else {
        return Ok(());
    };
    for (m, meshlet) in bounds.iter().enumerate() {
        let at = |offset: usize| chunk.element_at::<MeshletBounds>(m, offset);
        let label = || format!("meshlet {m}");
        let parts: [(&[f32], usize, &'static str); 4] = [
            (
                &meshlet.center,
                offset_of!(MeshletBounds, center),
                "MeshletBounds.center",
            ),
            (
                core::slice::from_ref(&meshlet.radius),
                offset_of!(MeshletBounds, radius),
                "MeshletBounds.radius",
            ),
            (
                &meshlet.cone_axis,
                offset_of!(MeshletBounds, cone_axis),
                "MeshletBounds.coneAxis",
            ),
            (
                core::slice::from_ref(&meshlet.cone_cutoff),
                offset_of!(MeshletBounds, cone_cutoff),
                "MeshletBounds.coneCutoff",
            ),
        ];
        for (values, offset, field) in parts {
            require_finite(values, at(offset), field, label)?;
        }
        if meshlet.radius < 0.0 {
            return Err(FormatError::new(
                at(offset_of!(MeshletBounds, radius)),
                "MeshletBounds.radius",
                format!("meshlet {m}: radius {} is negative", meshlet.radius),
            ));
        }
    }
    Ok(())
}

/// The submeshes tile the indices and meshlets, with valid slots and bounds
/// inside the mesh box.
pub(super) fn check_submeshes(
    submeshes: &[SubMesh],
    chunk: Chunk<'_>,
    desc: &MeshDesc,
    space: &BoundsCheck,
) -> FormatResult<()> {
    let mut next_index = 0_u64;
    let mut next_meshlet = 0_u64;
    for (s, submesh) in submeshes.iter().enumerate() {
        let at = |offset: usize| chunk.element_at::<SubMesh>(s, offset);
        check_submesh_ranges(s, submesh, desc, &at, &mut next_index, &mut next_meshlet)?;
        check_submesh_slot(s, submesh, desc, &at)?;
        check_submesh_bounds(s, submesh, space, &at)?;
    }
    let last =
        |offset: usize| chunk.element_at::<SubMesh>(submeshes.len().saturating_sub(1), offset);
    if next_index != u64::from(desc.index_count) {
        return Err(FormatError::new(
            last(offset_of!(SubMesh, index_count)),
            "SubMesh.indexCount",
            format!(
                "the submeshes cover {next_index} of the {} indices",
                desc.index_count
            ),
        ));
    }
    if next_meshlet != u64::from(desc.meshlet_count) {
        return Err(FormatError::new(
            last(offset_of!(SubMesh, meshlet_count)),
            "SubMesh.meshletCount",
            format!(
                "the submeshes cover {next_meshlet} of the {} meshlets",
                desc.meshlet_count
            ),
        ));
    }
    Ok(())
}

/// Submesh `s` starts where the previous one ended and stays within the
/// `DESC` counts; advances the cursors past it.
fn check_submesh_ranges(
    s: usize,
    submesh: &SubMesh,
    desc: &MeshDesc,
    at: &dyn Fn(usize) -> u64,
    next_index: &mut u64,
    next_meshlet: &mut u64,
) -> FormatResult<()> {
    if u64::from(submesh.first_index) != *next_index {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, first_index)),
            "SubMesh.firstIndex",
            format!(
                "submesh {s} starts at index {}, but the submeshes before it end at {next_index}",
                submesh.first_index
            ),
        ));
    }
    if u64::from(submesh.first_meshlet) != *next_meshlet {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, first_meshlet)),
            "SubMesh.firstMeshlet",
            format!(
                "submesh {s} starts at meshlet {}, but the submeshes before it end at \
                 {next_meshlet}",
                submesh.first_meshlet
            ),
        ));
    }
    if !submesh.index_count.is_multiple_of(3) {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, index_count)),
            "SubMesh.indexCount",
            format!(
                "submesh {s}: {} indices are not whole triangles",
                submesh.index_count
            ),
        ));
    }
    *next_index += u64::from(submesh.index_count);
    if *next_index > u64::from(desc.index_count) {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, index_count)),
            "SubMesh.indexCount",
            format!(
                "submesh {s} runs to index {next_index}, past indexCount {}",
                desc.index_count
            ),
        ));
    }
    *next_meshlet += u64::from(submesh.meshlet_count);
    if *next_meshlet > u64::from(desc.meshlet_count) {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, meshlet_count)),
            "SubMesh.meshletCount",
            format!(
                "submesh {s} runs to meshlet {next_meshlet}, past meshletCount {}",
                desc.meshlet_count
            ),
        ));
    }
    Ok(())
}

/// Submesh `s` names a material row (or none) and has no vertex offset.
fn check_submesh_slot(
    s: usize,
    submesh: &SubMesh,
    desc: &MeshDesc,
    at: &dyn Fn(usize) -> u64,
) -> FormatResult<()> {
    let slot = submesh.material_slot;
    if slot != NO_MATERIAL && slot >= desc.material_count {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, material_slot)),
            "SubMesh.materialSlot",
            format!(
                "submesh {s}: slot {slot} is neither below materialCount {} nor NO_MATERIAL",
                desc.material_count
            ),
        ));
    }
    if submesh.base_vertex != 0 {
        return Err(FormatError::new(
            at(offset_of!(SubMesh, base_vertex)),
            "SubMesh.baseVertex",
            format!(
                "submesh {s}: base vertex {} is not 0 (indices are global)",
                submesh.base_vertex
            ),
        ));
    }
    Ok(())
}

/// Submesh `s` has finite bounds whose box lies inside the mesh box.
fn check_submesh_bounds(
    s: usize,
    submesh: &SubMesh,
    space: &BoundsCheck,
    at: &dyn Fn(usize) -> u64,
) -> FormatResult<()> {
    let bounds_at = at(offset_of!(SubMesh, bounds));
    let field = "SubMesh.bounds";
    let label = || format!("submesh {s}");
    require_sane_bounds(&submesh.bounds, bounds_at, [field; 4], &label)?;
    let low = space
        .below(submesh.bounds.aabb_min)
        .map(|axis| (offset_of!(MeshBounds, aabb_min), axis, "minimum"));
    let high = space
        .above(submesh.bounds.aabb_max)
        .map(|axis| (offset_of!(MeshBounds, aabb_max), axis, "maximum"));
    if let Some((offset, axis, which)) = low.or(high) {
        return Err(FormatError::new(
            bounds_at + (offset + 4 * axis) as u64,
            field,
            format!(
                "submesh {s}: the box {which} {:?}..{:?} reaches outside {} on axis {axis}",
                submesh.bounds.aabb_min,
                submesh.bounds.aabb_max,
                space.describe()
            ),
        ));
    }
    Ok(())
}

/// Every joint of a non-empty `SKEL` is sound and the parents form a forest.
pub(super) fn check_skeleton(joints: &[GpuJoint], chunk: Chunk<'_>) -> FormatResult<()> {
    for (j, joint) in joints.iter().enumerate() {
        check_joint(j, joint, joints.len(), chunk)?;
    }
    refuse_cycles(joints, chunk)
}

/// Joint `j` of `count`: finite transforms, zero pad, a parent in range.
fn check_joint(j: usize, joint: &GpuJoint, count: usize, chunk: Chunk<'_>) -> FormatResult<()> {
    let at = |offset: usize| chunk.element_at::<GpuJoint>(j, offset);
    let label = || format!("joint {j}");
    let parts: [(&[f32], usize, &'static str); 4] = [
        (
            &joint.inverse_bind,
            offset_of!(GpuJoint, inverse_bind),
            "GpuJoint.inverseBind",
        ),
        (
            &joint.bind_translation,
            offset_of!(GpuJoint, bind_translation),
            "GpuJoint.bindTranslation",
        ),
        (
            &joint.bind_rotation,
            offset_of!(GpuJoint, bind_rotation),
            "GpuJoint.bindRotation",
        ),
        (
            &joint.bind_scale,
            offset_of!(GpuJoint, bind_scale),
            "GpuJoint.bindScale",
        ),
    ];
    for (values, offset, field) in parts {
        require_finite(values, at(offset), field, label)?;
    }
    if joint.pad != 0 {
        return Err(FormatError::new(
            at(offset_of!(GpuJoint, pad)),
            "GpuJoint.pad",
            format!("joint {j}: reserved field is {}, not 0", joint.pad),
        ));
    }
    let parent = joint.parent;
    let problem = match usize::try_from(parent) {
        Err(_) if parent == -1 => None,
        Err(_) => Some(format!("parent {parent} is neither -1 nor a joint index")),
        Ok(p) if p >= count => Some(format!("parent {p} is past the {count} joints")),
        Ok(p) if p == j => Some("the joint is its own parent".to_owned()),
        Ok(_) => None,
    };
    match problem {
        Some(problem) => Err(FormatError::new(
            at(offset_of!(GpuJoint, parent)),
            "GpuJoint.parent",
            format!("joint {j}: {problem}"),
        )),
        None => Ok(()),
    }
}

/// The parent of a joint whose parent index has been checked.
fn parent_of(joint: &GpuJoint) -> Option<usize> {
    usize::try_from(joint.parent).ok()
}

/// Refuses a parent chain that loops, in time linear in the joint count.
///
/// Each walk climbs from a joint towards its root, marking the joints it
/// passes; meeting a joint marked by the same walk means a loop, meeting one
/// from an earlier walk means the rest of the chain is already known to end.
fn refuse_cycles(joints: &[GpuJoint], chunk: Chunk<'_>) -> FormatResult<()> {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Mark {
        Unseen,
        OnWalk,
        EndsAtRoot,
    }
    let mut marks = vec![Mark::Unseen; joints.len()];
    for start in 0..joints.len() {
        let mut current = Some(start);
        while let Some(j) = current {
            match marks.get_mut(j) {
                Some(mark @ Mark::Unseen) => *mark = Mark::OnWalk,
                Some(Mark::OnWalk) => {
                    return Err(FormatError::new(
                        chunk.element_at::<GpuJoint>(j, offset_of!(GpuJoint, parent)),
                        "GpuJoint.parent",
                        format!("joint {j} is its own ancestor: its parent chain loops"),
                    ));
                }
                Some(Mark::EndsAtRoot) | None => break,
            }
            current = joints.get(j).and_then(parent_of);
        }
        let mut current = Some(start);
        while let Some(j) = current {
            match marks.get_mut(j) {
                Some(mark @ Mark::OnWalk) => *mark = Mark::EndsAtRoot,
                _ => break,
            }
            current = joints.get(j).and_then(parent_of);
        }
    }
    Ok(())
}

/// Every `SKIN` entry names joints inside `SKEL` (when present) and weights
/// that are finite, non-negative and sum to 1.
pub(super) fn check_skin(
    skin: &[GpuSkinVertex],
    chunk: Chunk<'_>,
    joint_count: usize,
) -> FormatResult<()> {
    for (v, influence) in skin.iter().enumerate() {
        let at = |offset: usize| chunk.element_at::<GpuSkinVertex>(v, offset);
        let stray = influence
            .joints
            .iter()
            .enumerate()
            .find(|&(_, &joint)| joint_count > 0 && usize::from(joint) >= joint_count);
        if let Some((k, joint)) = stray {
            return Err(FormatError::new(
                at(offset_of!(GpuSkinVertex, joints) + 2 * k),
                "GpuSkinVertex.joints",
                format!("vertex {v}: joint {joint} is past the {joint_count} SKEL joints"),
            ));
        }
        check_weights(
            v,
            &influence.weights,
            at(offset_of!(GpuSkinVertex, weights)),
        )?;
    }
    Ok(())
}

/// The weights of vertex `v`, stored at `at`.
fn check_weights(v: usize, weights: &[f32; 4], at: u64) -> FormatResult<()> {
    let field = "GpuSkinVertex.weights";
    let bad = weights
        .iter()
        .enumerate()
        .find(|(_, w)| !w.is_finite() || **w < 0.0);
    if let Some((k, weight)) = bad {
        return Err(FormatError::new(
            at + 4 * k as u64,
            field,
            format!("vertex {v}: weight {k} is {weight}"),
        ));
    }
    let sum: f32 = weights.iter().sum();
    if (sum - 1.0).abs() > SKIN_WEIGHT_TOLERANCE {
        return Err(FormatError::new(
            at,
            field,
            format!("vertex {v}: the weights sum to {sum}, not 1 (± {SKIN_WEIGHT_TOLERANCE})"),
        ));
    }
    Ok(())
}

/// Every non-empty level is whole triangles inside `LODI`.
pub(super) fn check_lod_rows(
    table: &[MeshLod],
    lod_count: u32,
    lodi_len: usize,
    lodt: Chunk<'_>,
) -> FormatResult<()> {
    let rows_at = lodt.offset + size_of::<LodTableHeader>() as u64;
    for (r, lod) in table.iter().enumerate() {
        if lod.index_count == 0 {
            continue;
        }
        let row_at = rows_at + (r * size_of::<MeshLod>()) as u64;
        let levels = lod_count.max(1) as usize;
        let which = format!("row {r} (submesh {}, level {})", r / levels, r % levels);
        if lod.index_count % 3 != 0 {
            return Err(FormatError::new(
                row_at + offset_of!(MeshLod, index_count) as u64,
                "MeshLod.indexCount",
                format!(
                    "{which}: {} indices are not whole triangles",
                    lod.index_count
                ),
            ));
        }
        let end = u64::from(lod.first_index) + u64::from(lod.index_count);
        if end > lodi_len as u64 {
            return Err(FormatError::new(
                row_at + offset_of!(MeshLod, first_index) as u64,
                "MeshLod.firstIndex",
                format!(
                    "{which}: indices [{}, {end}) run past the {lodi_len} LODI indices",
                    lod.first_index
                ),
            ));
        }
    }
    Ok(())
}
