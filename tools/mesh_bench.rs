//! Mesh compile speed and load time: generates a large test terrain as glTF,
//! times the stages of assetc's mesh edge in-process, and compares loading the
//! `.hmesh` it writes with importing the glTF at run time. `tools/mesh-bench`
//! drives it and also times the whole `assetc-encode mesh` process and
//! gltfpack.
//!
//! ```text
//! mesh_bench generate --triangles N --out DIR
//!     writes DIR/terrain.gltf and DIR/terrain.bin
//! mesh_bench stages [--repeat N] GLTF
//!     times import, build and write in-process, fastest of N
//! mesh_bench load [--repeat N] HMESH GLTF
//!     times loading both files, median of N
//! ```
//!
//! The terrain is a square grid of `Q × Q` quads (two triangles each, `Q` the
//! smallest side giving at least N triangles) over 1000 × 1000 units, with
//! shared, indexed vertices carrying a position, a normal and a UV. Heights
//! are six octaves of value noise (80 units at the coarsest, 2.5 at the
//! finest), plus a jitter of up to 0.25 units per vertex, so the surface has
//! detail at every scale and the simplifier cannot merge flat regions for
//! free. Normals are central differences of the heights. Everything is
//! derived from integer hashes, so the file is the same on every run.
//!
//! Every report is one tab-separated line, `what  name  value...`:
//! * `mesh  -  quads  triangles  vertices` after `generate`;
//! * `stage  NAME  wall_seconds  cpu_seconds` after `stages`, with NAME one of
//!   `import`, `build`, `write` and `total` (CPU time is the whole process's:
//!   the build uses the threads `ASSETC_THREADS` or a jobserver lends, as the
//!   edge does, and the calling thread alone without them);
//! * after `load`, first `contents  -  vertices  indices  meshlets
//!   meshlet_vertices  meshlet_triangles  lod_indices  lod_triangles` (what
//!   the `.hmesh` holds; the last is one count per reduced level, joined with
//!   commas), then `load  NAME  median_seconds` with NAME one of `hmesh_read`
//!   (the file into fresh aligned memory), `hmesh_parse` (`parse_hmesh` on
//!   it, already in memory), `hmesh_read_parse` (both), `hmesh_reuse_parse`
//!   (the same, reading into memory kept from the run before),
//!   `hmesh_mmap_parse` (map the file and `parse_hmesh` it in place),
//!   `hmesh_mmap_layout` (map it and check its structure only,
//!   `parse_hmesh_at` with `Depth::Layout`), `hmesh_layout` (that check on
//!   the file already in memory), `memcpy` (copying the file, already in
//!   memory, into a buffer kept from the run before: the floor of any load
//!   that copies) and `gltf_import`.

#[path = "../src/encode/mesh/fixtures.rs"]
mod fixtures;

use std::cell::RefCell;
use std::fs::{self, File};
use std::hint::black_box;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use assetc::encode::mesh::build::{BuildOptions, build_mesh};
use assetc::encode::mesh::gltf::{ImportOptions, import_gltf, load_buffers, parse_document};
use assetc::format::hmesh::{Depth, parse_hmesh, parse_hmesh_at, write_hmesh};
use clap::{Parser, Subcommand};
use fixtures::{GltfBuilder, Node, Primitive};

type Error = Box<dyn std::error::Error>;

/// One load measurement: its report name and the work, which returns a count
/// of what it loaded so the optimiser cannot drop it.
type LoadCase<'a> = (&'a str, &'a dyn Fn() -> Result<usize, Error>);

/// The terrain's side length in world units.
const TERRAIN_SIZE: f32 = 1000.0;
/// The height span of the coarsest noise octave; each finer octave has half
/// the amplitude of the one before.
const TERRAIN_AMPLITUDE: f32 = 80.0;
/// The coarsest noise octave has this many lattice cells across the terrain;
/// each finer one has twice as many.
const BASE_CELLS: f32 = 4.0;
/// How many octaves of value noise make the heights.
const OCTAVES: u32 = 6;
/// The largest per-vertex height jitter, in world units.
const JITTER: f32 = 0.25;
/// The name of the generated files and the source ref the stages use.
const NAME: &str = "terrain";

#[derive(Parser)]
#[command(about = "Mesh compile speed and load time of assetc")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the test terrain as `terrain.gltf` and `terrain.bin`.
    Generate {
        /// At least this many triangles.
        #[arg(long, default_value_t = 1_000_000)]
        triangles: u64,
        /// The folder to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// Time assetc's import, build and write of a glTF in-process.
    Stages {
        /// Run this many times and keep each stage's fastest.
        #[arg(long, default_value_t = 3)]
        repeat: u32,
        gltf: PathBuf,
    },
    /// Time loading a `.hmesh` against importing a glTF at run time.
    Load {
        /// Run this many times and keep the median.
        #[arg(long, default_value_t = 20)]
        repeat: u32,
        hmesh: PathBuf,
        gltf: PathBuf,
    },
}

fn main() -> Result<(), Error> {
    match Cli::parse().command {
        Command::Generate { triangles, out } => generate(triangles, &out),
        Command::Stages { repeat, gltf } => stages(repeat, &gltf),
        Command::Load {
            repeat,
            hmesh,
            gltf,
        } => load(repeat, &hmesh, &gltf),
    }
}

// ---------------------------------------------------------------------------
// The test terrain.
// ---------------------------------------------------------------------------

/// Writes the terrain with at least `triangles` triangles into `out`.
fn generate(triangles: u64, out: &Path) -> Result<(), Error> {
    let quads = quads_per_side(triangles)?;
    let terrain = Terrain::new(quads);
    let mut builder = GltfBuilder::new();
    let position = builder.add_positions(&terrain.positions);
    let normal = builder.add_vec3(&terrain.normals);
    let uv = builder.add_vec2(&terrain.uvs);
    let indices = builder.add_indices_u32(&terrain.indices);
    let mesh = builder.add_mesh(&[Primitive::new(position)
        .normal(normal)
        .uv(uv)
        .indices(indices)]);
    let node = builder.add_node(Node::mesh(mesh));
    let scene = builder.add_scene(&[node]);
    builder.set_default_scene(scene);
    fs::create_dir_all(out)?;
    builder.write_gltf(out, NAME)?;
    println!(
        "mesh\t-\t{quads}\t{}\t{}",
        terrain.indices.len() / 3,
        terrain.positions.len()
    );
    Ok(())
}

/// The smallest grid side whose `side²` quads give at least `triangles`
/// triangles, refusing grids whose vertices a `u32` index cannot reach.
fn quads_per_side(triangles: u64) -> Result<u32, Error> {
    let quads = triangles.div_ceil(2).max(1);
    let mut side = (quads as f64).sqrt().floor() as u64;
    while side * side < quads {
        side += 1;
    }
    let vertices = (side + 1) * (side + 1);
    if vertices > u64::from(u32::MAX) {
        return Err(format!("{triangles} triangles need {vertices} vertices, too many").into());
    }
    Ok(side as u32)
}

/// An indexed height-field grid.
struct Terrain {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
}

impl Terrain {
    /// A grid of `quads × quads` quads: `(quads + 1)²` vertices, row by row
    /// along +X, rows along +Z; triangles wind counter-clockwise seen from +Y.
    fn new(quads: u32) -> Self {
        let side = quads as usize + 1;
        let step = TERRAIN_SIZE / quads as f32;
        let heights: Vec<f32> = (0..side * side)
            .map(|v| {
                height(
                    (v % side) as f32 / quads as f32,
                    (v / side) as f32 / quads as f32,
                    v,
                )
            })
            .collect();
        let mut terrain = Self {
            positions: Vec::with_capacity(side * side),
            normals: Vec::with_capacity(side * side),
            uvs: Vec::with_capacity(side * side),
            indices: Vec::with_capacity(quads as usize * quads as usize * 6),
        };
        for row in 0..side {
            for column in 0..side {
                let u = column as f32 / quads as f32;
                let v = row as f32 / quads as f32;
                terrain.positions.push([
                    u * TERRAIN_SIZE,
                    heights[row * side + column],
                    v * TERRAIN_SIZE,
                ]);
                terrain
                    .normals
                    .push(grid_normal(&heights, side, column, row, step));
                terrain.uvs.push([u, v]);
            }
        }
        terrain.indices = grid_indices(quads);
        terrain
    }
}

/// The height at `(u, v)` in `[0, 1]²` of vertex number `vertex`: fractal
/// value noise plus a per-vertex jitter.
fn height(u: f32, v: f32, vertex: usize) -> f32 {
    let mut sum = 0.0;
    let mut amplitude = TERRAIN_AMPLITUDE;
    let mut cells = BASE_CELLS;
    for octave in 0..OCTAVES {
        sum += amplitude * value_noise(u * cells, v * cells, octave);
        amplitude *= 0.5;
        cells *= 2.0;
    }
    sum + JITTER * (2.0 * unit_hash(vertex as u32, 0, OCTAVES) - 1.0)
}

/// Smoothly interpolated lattice noise in `[0, 1]` at `(x, y)` in lattice
/// units; `seed` picks an independent lattice.
fn value_noise(x: f32, y: f32, seed: u32) -> f32 {
    let (cell_x, cell_y) = (x.floor(), y.floor());
    let (fx, fy) = (smooth(x - cell_x), smooth(y - cell_y));
    let (ix, iy) = (cell_x as u32, cell_y as u32);
    let corner = |dx: u32, dy: u32| unit_hash(ix + dx, iy + dy, seed);
    let bottom = corner(0, 0) + (corner(1, 0) - corner(0, 0)) * fx;
    let top = corner(0, 1) + (corner(1, 1) - corner(0, 1)) * fx;
    bottom + (top - bottom) * fy
}

/// The smoothstep easing `3t² − 2t³`.
fn smooth(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

/// A hash of three integers mapped to `[0, 1)`.
fn unit_hash(a: u32, b: u32, c: u32) -> f32 {
    let mut h = a
        .wrapping_mul(0x8da6_b343)
        .wrapping_add(b.wrapping_mul(0xd816_3841))
        .wrapping_add(c.wrapping_mul(0xcb1a_b31f));
    h ^= h >> 16;
    h = h.wrapping_mul(0x7feb_352d);
    h ^= h >> 15;
    h = h.wrapping_mul(0x846c_a68b);
    h ^= h >> 16;
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// The unit normal at grid vertex `(column, row)` from central differences
/// of `heights` (one-sided at the borders); `step` is the grid spacing.
fn grid_normal(heights: &[f32], side: usize, column: usize, row: usize, step: f32) -> [f32; 3] {
    let at = |c: usize, r: usize| heights[r * side + c];
    let (left, right) = (column.saturating_sub(1), (column + 1).min(side - 1));
    let (back, front) = (row.saturating_sub(1), (row + 1).min(side - 1));
    let dx = (at(right, row) - at(left, row)) / ((right - left) as f32 * step);
    let dz = (at(column, front) - at(column, back)) / ((front - back) as f32 * step);
    let length = (dx * dx + 1.0 + dz * dz).sqrt();
    [-dx / length, 1.0 / length, -dz / length]
}

/// Two counter-clockwise (seen from +Y) triangles per quad of the grid.
fn grid_indices(quads: u32) -> Vec<u32> {
    let side = quads + 1;
    let mut indices = Vec::with_capacity(quads as usize * quads as usize * 6);
    for row in 0..quads {
        for column in 0..quads {
            let a = row * side + column;
            let (b, c) = (a + 1, a + side);
            let d = c + 1;
            indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    indices
}

// ---------------------------------------------------------------------------
// Compile stages, in-process.
// ---------------------------------------------------------------------------

/// Wall and CPU seconds of one piece of work.
#[derive(Clone, Copy)]
struct Times {
    wall: f64,
    cpu: f64,
}

impl Times {
    /// No measurement yet: slower than any real one.
    const NONE: Times = Times {
        wall: f64::INFINITY,
        cpu: f64::INFINITY,
    };

    /// Each of the two figures at its smaller value.
    fn min(self, other: Times) -> Times {
        Times {
            wall: self.wall.min(other.wall),
            cpu: self.cpu.min(other.cpu),
        }
    }
}

/// Runs `work` and returns its result with its wall and process CPU time.
fn timed<T>(work: impl FnOnce() -> Result<T, Error>) -> Result<(T, Times), Error> {
    let (cpu_start, wall_start) = (process_cpu_seconds()?, Instant::now());
    let value = work()?;
    let times = Times {
        wall: wall_start.elapsed().as_secs_f64(),
        cpu: process_cpu_seconds()? - cpu_start,
    };
    Ok((value, times))
}

/// The CPU time all the process's threads have used, in seconds.
fn process_cpu_seconds() -> Result<f64, Error> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the call to fill.
    if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) } != 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    Ok(now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9)
}

/// Times the mesh edge's library calls on `gltf`, `repeat` times, and prints
/// each stage's fastest: reading the file and importing it, building the
/// mesh with the default options (the same as configure's defaults), and
/// encoding the `.hmesh` bytes. The `.hmat` and the file writes, which the
/// process also does, are left out.
fn stages(repeat: u32, gltf: &Path) -> Result<(), Error> {
    // The thread budget of `ASSETC_THREADS` or the jobserver, as in the edge.
    let _budget = assetc::jobserver::init(None);
    let input_root = gltf.parent().unwrap_or(Path::new("."));
    let options = BuildOptions::default();
    let mut best = [Times::NONE; 4];
    for _ in 0..repeat.max(1) {
        let (scene, import) = timed(|| {
            let bytes = fs::read(gltf)?;
            let (scene, _) =
                import_gltf(&bytes, gltf, input_root, NAME, &ImportOptions::default())?;
            Ok(scene)
        })?;
        let (built, build) = timed(|| Ok(build_mesh(&scene, NAME, &options)?))?;
        let (bytes, write) = timed(|| Ok(write_hmesh(&built.mesh)?))?;
        black_box(bytes);
        let total = Times {
            wall: import.wall + build.wall + write.wall,
            cpu: import.cpu + build.cpu + write.cpu,
        };
        for (slot, times) in best.iter_mut().zip([import, build, write, total]) {
            *slot = slot.min(times);
        }
    }
    for (name, times) in ["import", "build", "write", "total"].iter().zip(best) {
        println!("stage\t{name}\t{:.4}\t{:.4}", times.wall, times.cpu);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Load time.
// ---------------------------------------------------------------------------

/// Prints the median time, over `repeat` runs after one warm-up, of loading
/// `hmesh` (read alone, validation alone, both) and of importing `gltf` the
/// way an engine would at run time.
fn load(repeat: u32, hmesh: &Path, gltf: &Path) -> Result<(), Error> {
    let in_memory = read_aligned(hmesh)?;
    print_contents(&in_memory)?;
    let staging = RefCell::new(in_memory.clone());
    let copy = RefCell::new(in_memory.clone());
    let cases: [LoadCase<'_>; 9] = [
        ("hmesh_read", &|| Ok(read_aligned(hmesh)?.len())),
        ("hmesh_parse", &|| {
            parsed_vertices(bytemuck::cast_slice(&in_memory))
        }),
        ("hmesh_read_parse", &|| {
            parsed_vertices(bytemuck::cast_slice(&read_aligned(hmesh)?))
        }),
        ("hmesh_reuse_parse", &|| {
            let mut words = staging.borrow_mut();
            read_into(hmesh, &mut words)?;
            parsed_vertices(bytemuck::cast_slice(&words))
        }),
        ("hmesh_mmap_parse", &|| {
            parsed_vertices(MappedFile::open(hmesh)?.bytes())
        }),
        ("hmesh_mmap_layout", &|| {
            layout_vertices(MappedFile::open(hmesh)?.bytes())
        }),
        ("hmesh_layout", &|| {
            layout_vertices(bytemuck::cast_slice(&in_memory))
        }),
        ("memcpy", &|| {
            let mut words = copy.borrow_mut();
            words.copy_from_slice(&in_memory);
            Ok(words.len())
        }),
        ("gltf_import", &|| import_at_run_time(gltf)),
    ];
    for (name, case) in cases {
        black_box(case()?);
        let mut seconds = Vec::with_capacity(repeat as usize);
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            black_box(case()?);
            seconds.push(start.elapsed().as_secs_f64());
        }
        println!("load\t{name}\t{:.6}", median(&mut seconds));
    }
    Ok(())
}

/// Reads a whole file into fresh 8-byte-aligned memory, as `parse_hmesh`
/// needs; returns the words, whose bytes start with the file.
fn read_aligned(path: &Path) -> Result<Vec<u64>, Error> {
    let mut words = Vec::new();
    read_into(path, &mut words)?;
    Ok(words)
}

/// Reads a whole file into `words`, reusing its memory when it is already
/// large enough (as an engine's staging buffer would); the bytes past the
/// file's end are zero.
fn read_into(path: &Path, words: &mut Vec<u64>) -> Result<(), Error> {
    let mut file = File::open(path)?;
    let len = usize::try_from(file.metadata()?.len())?;
    words.resize(len.div_ceil(8), 0);
    if let Some(last) = words.last_mut() {
        *last = 0;
    }
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(words.as_mut_slice());
    file.read_exact(&mut bytes[..len])?;
    Ok(())
}

/// Validates a `.hmesh` held in `bytes` (8-byte aligned) with `parse_hmesh`
/// and returns its vertex count. Zero padding after the file's end is
/// harmless: the reader only looks where the header and chunk table point.
fn parsed_vertices(bytes: &[u8]) -> Result<usize, Error> {
    let mesh = parse_hmesh(bytes)?;
    Ok(mesh.vertices.len())
}

/// Checks the structure of a `.hmesh` held in `bytes` (8-byte aligned) with
/// `parse_hmesh_at(.., Depth::Layout)`, as an engine loading its own build's
/// files would, and returns its vertex count.
fn layout_vertices(bytes: &[u8]) -> Result<usize, Error> {
    let mesh = parse_hmesh_at(bytes, Depth::Layout)?;
    Ok(mesh.vertices.len())
}

/// Prints what the `.hmesh` in `words` holds, as a `contents` line:
/// vertices, indices, meshlets, meshlet vertex and triangle entries, LOD
/// indices, and the triangles of each reduced level (comma-separated, summed
/// over submeshes).
fn print_contents(words: &[u64]) -> Result<(), Error> {
    let mesh = parse_hmesh(bytemuck::cast_slice(words))?;
    let lod_triangles: Vec<String> = (0..mesh.lod_count as usize)
        .map(|level| {
            let indices: u64 = (0..mesh.submeshes.len())
                .filter_map(|submesh| mesh.lod(submesh, level))
                .map(|lod| u64::from(lod.index_count))
                .sum();
            (indices / 3).to_string()
        })
        .collect();
    println!(
        "contents\t-\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        mesh.vertices.len(),
        mesh.indices.len(),
        mesh.meshlets.len(),
        mesh.meshlet_vertices.len(),
        mesh.meshlet_triangles.len(),
        mesh.lod_indices.len(),
        lod_triangles.join(",")
    );
    Ok(())
}

/// A whole file mapped read-only into memory, unmapped on drop: how an
/// engine can hand a `.hmesh` to `parse_hmesh` without copying it.
struct MappedFile {
    address: *mut libc::c_void,
    len: usize,
}

impl MappedFile {
    /// Maps the file at `path`, which must not be empty.
    fn open(path: &Path) -> Result<Self, Error> {
        use std::os::fd::AsRawFd;
        let file = File::open(path)?;
        let len = usize::try_from(file.metadata()?.len())?;
        if len == 0 {
            return Err(format!("{}: empty file", path.display()).into());
        }
        // SAFETY: a fresh private read-only mapping of an open file; the
        // result is checked before use and the mapping outlives the file
        // descriptor legitimately.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error().into());
        }
        Ok(Self { address, len })
    }

    /// The file's bytes, page-aligned.
    fn bytes(&self) -> &[u8] {
        // SAFETY: `address` maps `len` readable bytes until `self` drops; the
        // benchmark's files are not modified while mapped.
        unsafe { std::slice::from_raw_parts(self.address.cast::<u8>(), self.len) }
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping `open` made, once.
        unsafe { libc::munmap(self.address, self.len) };
    }
}

/// Imports `path` as an engine would at run time: reads and validates the
/// JSON, loads the buffers, and copies every primitive's positions, normals,
/// first UV set and indices into vectors with the `gltf` crate's reader.
/// Returns the number of vertices read.
fn import_at_run_time(path: &Path) -> Result<usize, Error> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let gltf = parse_document(&fs::read(path)?)?;
    let buffers = load_buffers(&gltf, path, folder, &Default::default())?;
    let mut vertices = 0;
    for mesh in gltf.document.meshes() {
        for primitive in mesh.primitives() {
            let reader =
                primitive.reader(|buffer| buffers.data.get(buffer.index()).map(Vec::as_slice));
            let positions: Vec<[f32; 3]> = reader.read_positions().into_iter().flatten().collect();
            let normals: Vec<[f32; 3]> = reader.read_normals().into_iter().flatten().collect();
            let uvs: Vec<[f32; 2]> = reader
                .read_tex_coords(0)
                .map(|uvs| uvs.into_f32().collect())
                .unwrap_or_default();
            let indices: Vec<u32> = reader
                .read_indices()
                .map(|indices| indices.into_u32().collect())
                .unwrap_or_default();
            vertices += positions.len();
            black_box((normals, uvs, indices));
        }
    }
    Ok(vertices)
}

/// The median of `values` (the mean of the middle two for an even count).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[middle - 1] + values[middle]) / 2.0
    } else {
        values[middle]
    }
}
