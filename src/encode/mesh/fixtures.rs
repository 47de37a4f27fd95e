//! A small glTF 2.0 writer for tests, using the standard library only (no
//! crate imports), so integration tests can include it with
//! `#[path = "../../src/encode/mesh/fixtures.rs"] mod fixtures;`
//! (tests/integration/main.rs does; tools/mesh_bench.rs too, one level up).
//!
//! [`GltfBuilder`] collects binary data into one buffer and writes the JSON
//! by hand. Add data with the `add_*` methods (each returns the new item's
//! index), then write the asset in one of three layouts:
//! * [`GltfBuilder::write_gltf`]: `name.gltf` plus `name.bin`;
//! * [`GltfBuilder::to_embedded_gltf`]: one `.gltf` with a base64 data URI;
//! * [`GltfBuilder::to_glb`] / [`GltfBuilder::write_glb`]: a binary GLB.
//!
//! Nothing is validated, so deliberately broken files are easy: raw
//! accessors ([`GltfBuilder::add_accessor`], [`GltfBuilder::add_accessor_json`]),
//! NaN data, any index, any URI ([`GltfBuilder::add_image_uri`],
//! [`GltfBuilder::to_gltf_with_bin`]), required extensions, a wrong buffer
//! length ([`GltfBuilder::set_buffer_byte_length`]), and raw GLB containers
//! ([`glb`]) that can be cut short. Ready-made scenes: [`triangle_mesh`],
//! [`skinned_animated`].
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// glTF `componentType` for signed bytes.
pub const BYTE: u32 = 5120;
/// glTF `componentType` for unsigned bytes.
pub const UNSIGNED_BYTE: u32 = 5121;
/// glTF `componentType` for signed 16-bit integers.
pub const SHORT: u32 = 5122;
/// glTF `componentType` for unsigned 16-bit integers.
pub const UNSIGNED_SHORT: u32 = 5123;
/// glTF `componentType` for unsigned 32-bit integers.
pub const UNSIGNED_INT: u32 = 5125;
/// glTF `componentType` for 32-bit floats.
pub const FLOAT: u32 = 5126;

/// Primitive `mode`: points.
pub const POINTS: u32 = 0;
/// Primitive `mode`: lines.
pub const LINES: u32 = 1;
/// Primitive `mode`: a closed line loop.
pub const LINE_LOOP: u32 = 2;
/// Primitive `mode`: a line strip.
pub const LINE_STRIP: u32 = 3;
/// Primitive `mode`: a triangle list (the default).
pub const TRIANGLES: u32 = 4;
/// Primitive `mode`: a triangle strip.
pub const TRIANGLE_STRIP: u32 = 5;
/// Primitive `mode`: a triangle fan.
pub const TRIANGLE_FAN: u32 = 6;

/// One primitive of a mesh; build with [`Primitive::new`] and the chained
/// setters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Primitive {
    /// `(semantic, accessor)` pairs, e.g. `("POSITION", 0)`.
    pub attributes: Vec<(String, usize)>,
    /// The index accessor, if any.
    pub indices: Option<usize>,
    /// The material, if any.
    pub material: Option<usize>,
    /// The mode, when not the default ([`TRIANGLES`]).
    pub mode: Option<u32>,
    /// Morph targets, each a list of `(semantic, accessor)`.
    pub targets: Vec<Vec<(String, usize)>>,
}

impl Primitive {
    /// A primitive with `POSITION` from accessor `position`.
    pub fn new(position: usize) -> Self {
        Self {
            attributes: vec![("POSITION".to_owned(), position)],
            ..Self::default()
        }
    }

    /// Adds an attribute.
    pub fn attribute(mut self, semantic: &str, accessor: usize) -> Self {
        self.attributes.push((semantic.to_owned(), accessor));
        self
    }

    /// Adds `NORMAL`.
    pub fn normal(self, accessor: usize) -> Self {
        self.attribute("NORMAL", accessor)
    }

    /// Adds `TANGENT`.
    pub fn tangent(self, accessor: usize) -> Self {
        self.attribute("TANGENT", accessor)
    }

    /// Adds `TEXCOORD_0`.
    pub fn uv(self, accessor: usize) -> Self {
        self.attribute("TEXCOORD_0", accessor)
    }

    /// Adds `JOINTS_0` and `WEIGHTS_0`.
    pub fn skin(self, joints: usize, weights: usize) -> Self {
        self.attribute("JOINTS_0", joints)
            .attribute("WEIGHTS_0", weights)
    }

    /// Sets the index accessor.
    pub fn indices(mut self, accessor: usize) -> Self {
        self.indices = Some(accessor);
        self
    }

    /// Sets the material.
    pub fn material(mut self, material: usize) -> Self {
        self.material = Some(material);
        self
    }

    /// Sets the mode ([`POINTS`] … [`TRIANGLE_FAN`]).
    pub fn mode(mut self, mode: u32) -> Self {
        self.mode = Some(mode);
        self
    }

    /// Adds a morph target moving positions by accessor `position`.
    pub fn morph_target(mut self, position: usize) -> Self {
        self.targets.push(vec![("POSITION".to_owned(), position)]);
        self
    }

    /// The primitive's JSON object.
    fn json(&self) -> String {
        let mut fields = vec![format!(
            "\"attributes\":{}",
            attribute_map(&self.attributes)
        )];
        if let Some(i) = self.indices {
            fields.push(format!("\"indices\":{i}"));
        }
        if let Some(m) = self.material {
            fields.push(format!("\"material\":{m}"));
        }
        if let Some(mode) = self.mode {
            fields.push(format!("\"mode\":{mode}"));
        }
        if !self.targets.is_empty() {
            let targets: Vec<String> = self.targets.iter().map(|t| attribute_map(t)).collect();
            fields.push(format!("\"targets\":[{}]", targets.join(",")));
        }
        format!("{{{}}}", fields.join(","))
    }
}

/// `{"NAME":index,...}`.
fn attribute_map(attributes: &[(String, usize)]) -> String {
    let pairs: Vec<String> = attributes
        .iter()
        .map(|(name, index)| format!("{}:{index}", json_string(name)))
        .collect();
    format!("{{{}}}", pairs.join(","))
}

/// A node; fields left `None` are omitted from the JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Node {
    /// `name`.
    pub name: Option<String>,
    /// `mesh`.
    pub mesh: Option<usize>,
    /// `skin`.
    pub skin: Option<usize>,
    /// `children`.
    pub children: Vec<usize>,
    /// `translation`.
    pub translation: Option<[f32; 3]>,
    /// `rotation` (`x, y, z, w`).
    pub rotation: Option<[f32; 4]>,
    /// `scale`.
    pub scale: Option<[f32; 3]>,
    /// `matrix`, column-major.
    pub matrix: Option<[f32; 16]>,
}

impl Node {
    /// A node showing `mesh`.
    pub fn mesh(mesh: usize) -> Self {
        Self {
            mesh: Some(mesh),
            ..Self::default()
        }
    }

    /// The node's JSON object.
    fn json(&self) -> String {
        let mut fields = Vec::new();
        if let Some(name) = &self.name {
            fields.push(format!("\"name\":{}", json_string(name)));
        }
        if let Some(mesh) = self.mesh {
            fields.push(format!("\"mesh\":{mesh}"));
        }
        if let Some(skin) = self.skin {
            fields.push(format!("\"skin\":{skin}"));
        }
        if !self.children.is_empty() {
            fields.push(format!("\"children\":{}", index_list(&self.children)));
        }
        if let Some(t) = self.translation {
            fields.push(format!("\"translation\":{}", float_list(&t)));
        }
        if let Some(r) = self.rotation {
            fields.push(format!("\"rotation\":{}", float_list(&r)));
        }
        if let Some(s) = self.scale {
            fields.push(format!("\"scale\":{}", float_list(&s)));
        }
        if let Some(m) = self.matrix {
            fields.push(format!("\"matrix\":{}", float_list(&m)));
        }
        format!("{{{}}}", fields.join(","))
    }
}

/// A PBR material; fields left `None` are omitted (glTF defaults apply).
/// Texture fields hold `textures[]` indices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Material {
    /// `name`.
    pub name: Option<String>,
    /// `pbrMetallicRoughness.baseColorFactor`.
    pub base_color_factor: Option<[f32; 4]>,
    /// `pbrMetallicRoughness.metallicFactor`.
    pub metallic_factor: Option<f32>,
    /// `pbrMetallicRoughness.roughnessFactor`.
    pub roughness_factor: Option<f32>,
    /// `emissiveFactor`.
    pub emissive_factor: Option<[f32; 3]>,
    /// `alphaMode` (`"OPAQUE"`, `"MASK"`, `"BLEND"`).
    pub alpha_mode: Option<String>,
    /// `alphaCutoff`.
    pub alpha_cutoff: Option<f32>,
    /// `doubleSided`.
    pub double_sided: bool,
    /// `pbrMetallicRoughness.baseColorTexture.index`.
    pub base_color_texture: Option<usize>,
    /// `pbrMetallicRoughness.metallicRoughnessTexture.index`.
    pub metallic_roughness_texture: Option<usize>,
    /// `normalTexture`: index and scale.
    pub normal_texture: Option<(usize, f32)>,
    /// `occlusionTexture`: index and strength.
    pub occlusion_texture: Option<(usize, f32)>,
    /// `emissiveTexture.index`.
    pub emissive_texture: Option<usize>,
    /// The raw JSON of an `extensions` object, e.g.
    /// `{"KHR_materials_emissive_strength":{"emissiveStrength":4}}`.
    pub extensions_json: Option<String>,
}

impl Material {
    /// The material's JSON object.
    fn json(&self) -> String {
        let mut pbr = Vec::new();
        if let Some(f) = self.base_color_factor {
            pbr.push(format!("\"baseColorFactor\":{}", float_list(&f)));
        }
        if let Some(f) = self.metallic_factor {
            pbr.push(format!("\"metallicFactor\":{}", float(f)));
        }
        if let Some(f) = self.roughness_factor {
            pbr.push(format!("\"roughnessFactor\":{}", float(f)));
        }
        if let Some(t) = self.base_color_texture {
            pbr.push(format!("\"baseColorTexture\":{{\"index\":{t}}}"));
        }
        if let Some(t) = self.metallic_roughness_texture {
            pbr.push(format!("\"metallicRoughnessTexture\":{{\"index\":{t}}}"));
        }
        let mut fields = vec![format!("\"pbrMetallicRoughness\":{{{}}}", pbr.join(","))];
        if let Some(name) = &self.name {
            fields.push(format!("\"name\":{}", json_string(name)));
        }
        if let Some(f) = self.emissive_factor {
            fields.push(format!("\"emissiveFactor\":{}", float_list(&f)));
        }
        if let Some(mode) = &self.alpha_mode {
            fields.push(format!("\"alphaMode\":{}", json_string(mode)));
        }
        if let Some(c) = self.alpha_cutoff {
            fields.push(format!("\"alphaCutoff\":{}", float(c)));
        }
        if self.double_sided {
            fields.push("\"doubleSided\":true".to_owned());
        }
        if let Some((t, scale)) = self.normal_texture {
            fields.push(format!(
                "\"normalTexture\":{{\"index\":{t},\"scale\":{}}}",
                float(scale)
            ));
        }
        if let Some((t, strength)) = self.occlusion_texture {
            fields.push(format!(
                "\"occlusionTexture\":{{\"index\":{t},\"strength\":{}}}",
                float(strength)
            ));
        }
        if let Some(t) = self.emissive_texture {
            fields.push(format!("\"emissiveTexture\":{{\"index\":{t}}}"));
        }
        if let Some(extensions) = &self.extensions_json {
            fields.push(format!("\"extensions\":{extensions}"));
        }
        format!("{{{}}}", fields.join(","))
    }
}

/// Collects a glTF asset: one binary buffer plus JSON objects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GltfBuilder {
    bin: Vec<u8>,
    buffer_views: Vec<String>,
    accessors: Vec<String>,
    meshes: Vec<String>,
    materials: Vec<String>,
    textures: Vec<String>,
    images: Vec<String>,
    nodes: Vec<Node>,
    scenes: Vec<String>,
    scene: Option<usize>,
    skins: Vec<String>,
    animations: Vec<String>,
    extensions_used: Vec<String>,
    extensions_required: Vec<String>,
    extra_buffers: Vec<String>,
    buffer_byte_length: Option<usize>,
}

impl GltfBuilder {
    /// An empty asset.
    pub fn new() -> Self {
        Self::default()
    }

    /// The binary buffer so far (`buffers[0]`).
    pub fn bin(&self) -> &[u8] {
        &self.bin
    }

    /// Appends `bytes` to the buffer (4-byte aligned) as a new buffer view,
    /// with an optional `byteStride`.
    pub fn add_view(&mut self, bytes: &[u8], stride: Option<usize>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let mut json = format!(
            "{{\"buffer\":0,\"byteOffset\":{offset},\"byteLength\":{}",
            bytes.len()
        );
        if let Some(stride) = stride {
            let _ = write!(json, ",\"byteStride\":{stride}");
        }
        json.push('}');
        self.add_view_json(&json)
    }

    /// Adds a buffer view given as raw JSON (for views into other buffers,
    /// or out of range on purpose).
    pub fn add_view_json(&mut self, json: &str) -> usize {
        self.buffer_views.push(json.to_owned());
        self.buffer_views.len() - 1
    }

    /// Adds an accessor over `view` (or none, for sparse-only data) without
    /// checking anything.
    pub fn add_accessor(
        &mut self,
        view: Option<usize>,
        byte_offset: usize,
        component_type: u32,
        normalized: bool,
        count: usize,
        type_: &str,
    ) -> usize {
        let mut json = format!(
            "{{\"componentType\":{component_type},\"count\":{count},\"type\":{}",
            json_string(type_)
        );
        if let Some(view) = view {
            let _ = write!(json, ",\"bufferView\":{view},\"byteOffset\":{byte_offset}");
        }
        if normalized {
            json.push_str(",\"normalized\":true");
        }
        json.push('}');
        self.add_accessor_json(&json)
    }

    /// Adds an accessor given as raw JSON.
    pub fn add_accessor_json(&mut self, json: &str) -> usize {
        self.accessors.push(json.to_owned());
        self.accessors.len() - 1
    }

    /// Adds float data of `type_` (`"SCALAR"`, `"VEC3"`, `"MAT4"`, …) as a
    /// view and an accessor.
    pub fn add_floats(&mut self, values: &[f32], type_: &str) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.add_view(&bytes, None);
        let count = values.len() / components(type_);
        self.add_accessor(Some(view), 0, FLOAT, false, count, type_)
    }

    /// Adds a `POSITION` accessor, with the `min`/`max` glTF requires
    /// (computed over finite values).
    pub fn add_positions(&mut self, positions: &[[f32; 3]]) -> usize {
        let flat: Vec<f32> = positions.iter().flatten().copied().collect();
        let bytes: Vec<u8> = flat.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.add_view(&bytes, None);
        let mut min = [f32::MAX; 3];
        let mut max = [f32::MIN; 3];
        for p in positions {
            for k in 0..3 {
                if p[k].is_finite() {
                    min[k] = min[k].min(p[k]);
                    max[k] = max[k].max(p[k]);
                }
            }
        }
        if positions.iter().all(|p| !p.iter().all(|v| v.is_finite())) {
            min = [0.0; 3];
            max = [0.0; 3];
        }
        self.add_accessor_json(&format!(
            "{{\"bufferView\":{view},\"componentType\":{FLOAT},\"count\":{},\"type\":\"VEC3\",\"min\":{},\"max\":{}}}",
            positions.len(),
            float_list(&min),
            float_list(&max)
        ))
    }

    /// Adds `VEC2` floats.
    pub fn add_vec2(&mut self, values: &[[f32; 2]]) -> usize {
        self.add_floats(&values.concat(), "VEC2")
    }

    /// Adds `VEC3` floats.
    pub fn add_vec3(&mut self, values: &[[f32; 3]]) -> usize {
        self.add_floats(&values.concat(), "VEC3")
    }

    /// Adds `VEC4` floats.
    pub fn add_vec4(&mut self, values: &[[f32; 4]]) -> usize {
        self.add_floats(&values.concat(), "VEC4")
    }

    /// Adds `MAT4` floats, column-major.
    pub fn add_mat4(&mut self, values: &[[f32; 16]]) -> usize {
        self.add_floats(&values.concat(), "MAT4")
    }

    /// Adds `SCALAR` floats (e.g. key times).
    pub fn add_scalars(&mut self, values: &[f32]) -> usize {
        self.add_floats(values, "SCALAR")
    }

    /// Adds unsigned bytes of `type_`, optionally normalised.
    pub fn add_u8(&mut self, values: &[u8], type_: &str, normalized: bool) -> usize {
        let view = self.add_view(values, None);
        let count = values.len() / components(type_);
        self.add_accessor(Some(view), 0, UNSIGNED_BYTE, normalized, count, type_)
    }

    /// Adds unsigned 16-bit integers of `type_`, optionally normalised.
    pub fn add_u16(&mut self, values: &[u16], type_: &str, normalized: bool) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.add_view(&bytes, None);
        let count = values.len() / components(type_);
        self.add_accessor(Some(view), 0, UNSIGNED_SHORT, normalized, count, type_)
    }

    /// Adds unsigned 32-bit integers of `type_`.
    pub fn add_u32(&mut self, values: &[u32], type_: &str) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.add_view(&bytes, None);
        let count = values.len() / components(type_);
        self.add_accessor(Some(view), 0, UNSIGNED_INT, false, count, type_)
    }

    /// Adds a 16-bit index accessor.
    pub fn add_indices_u16(&mut self, indices: &[u16]) -> usize {
        self.add_u16(indices, "SCALAR", false)
    }

    /// Adds a 32-bit index accessor.
    pub fn add_indices_u32(&mut self, indices: &[u32]) -> usize {
        self.add_u32(indices, "SCALAR")
    }

    /// Adds a mesh made of `primitives`.
    pub fn add_mesh(&mut self, primitives: &[Primitive]) -> usize {
        let list: Vec<String> = primitives.iter().map(Primitive::json).collect();
        self.meshes
            .push(format!("{{\"primitives\":[{}]}}", list.join(",")));
        self.meshes.len() - 1
    }

    /// Adds a material.
    pub fn add_material(&mut self, material: &Material) -> usize {
        self.materials.push(material.json());
        self.materials.len() - 1
    }

    /// Adds an image stored in a file (or any URI, for broken cases).
    pub fn add_image_uri(&mut self, uri: &str) -> usize {
        self.images
            .push(format!("{{\"uri\":{}}}", json_string(uri)));
        self.images.len() - 1
    }

    /// Adds an image stored in a buffer view.
    pub fn add_image_view(&mut self, bytes: &[u8], mime_type: &str) -> usize {
        let view = self.add_view(bytes, None);
        self.images.push(format!(
            "{{\"bufferView\":{view},\"mimeType\":{}}}",
            json_string(mime_type)
        ));
        self.images.len() - 1
    }

    /// Adds an image stored in a base64 data URI.
    pub fn add_image_data_uri(&mut self, bytes: &[u8], mime_type: &str) -> usize {
        let uri = format!("data:{mime_type};base64,{}", base64(bytes));
        self.add_image_uri(&uri)
    }

    /// Adds a texture showing `images[source]`, or a texture without a
    /// `source` (as `KHR_texture_basisu`-only textures are).
    pub fn add_texture(&mut self, source: Option<usize>) -> usize {
        match source {
            Some(image) => self.textures.push(format!("{{\"source\":{image}}}")),
            None => self.textures.push("{}".to_owned()),
        }
        self.textures.len() - 1
    }

    /// Adds a texture whose `extension` (such as `EXT_texture_webp`) names
    /// `images[image]`, with `source` as its core fallback, if any.
    pub fn add_extension_texture(
        &mut self,
        source: Option<usize>,
        extension: &str,
        image: usize,
    ) -> usize {
        let core = source.map_or_else(String::new, |source| format!("\"source\":{source},"));
        self.textures.push(format!(
            "{{{core}\"extensions\":{{{}:{{\"source\":{image}}}}}}}",
            json_string(extension)
        ));
        self.textures.len() - 1
    }

    /// Adds a node.
    pub fn add_node(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// The node at `index`, to change it after adding (e.g. its children).
    /// Panics (this is test code) when there is no such node.
    pub fn node_mut(&mut self, index: usize) -> &mut Node {
        &mut self.nodes[index]
    }

    /// Adds a scene with these root nodes.
    pub fn add_scene(&mut self, roots: &[usize]) -> usize {
        self.scenes
            .push(format!("{{\"nodes\":{}}}", index_list(roots)));
        self.scenes.len() - 1
    }

    /// Sets the top-level `scene`.
    pub fn set_default_scene(&mut self, scene: usize) {
        self.scene = Some(scene);
    }

    /// Adds a skin over these joint nodes, with an optional inverse bind
    /// matrix accessor.
    pub fn add_skin(&mut self, joints: &[usize], inverse_bind_matrices: Option<usize>) -> usize {
        let mut json = format!("{{\"joints\":{}", index_list(joints));
        if let Some(ibm) = inverse_bind_matrices {
            let _ = write!(json, ",\"inverseBindMatrices\":{ibm}");
        }
        json.push('}');
        self.skins.push(json);
        self.skins.len() - 1
    }

    /// Adds an animation. `samplers` are `(input, output, interpolation)`
    /// with interpolation `"STEP"`, `"LINEAR"` or `"CUBICSPLINE"`;
    /// `channels` are `(sampler, node, path)` with path `"translation"`,
    /// `"rotation"`, `"scale"` or `"weights"`.
    pub fn add_animation(
        &mut self,
        name: Option<&str>,
        samplers: &[(usize, usize, &str)],
        channels: &[(usize, usize, &str)],
    ) -> usize {
        let samplers: Vec<String> = samplers
            .iter()
            .map(|(input, output, interpolation)| {
                format!(
                    "{{\"input\":{input},\"output\":{output},\"interpolation\":{}}}",
                    json_string(interpolation)
                )
            })
            .collect();
        let channels: Vec<String> = channels
            .iter()
            .map(|(sampler, node, path)| {
                format!(
                    "{{\"sampler\":{sampler},\"target\":{{\"node\":{node},\"path\":{}}}}}",
                    json_string(path)
                )
            })
            .collect();
        let mut json = format!(
            "{{\"samplers\":[{}],\"channels\":[{}]",
            samplers.join(","),
            channels.join(",")
        );
        if let Some(name) = name {
            let _ = write!(json, ",\"name\":{}", json_string(name));
        }
        json.push('}');
        self.animations.push(json);
        self.animations.len() - 1
    }

    /// Lists `name` in `extensionsUsed`.
    pub fn use_extension(&mut self, name: &str) {
        if !self.extensions_used.iter().any(|e| e == name) {
            self.extensions_used.push(name.to_owned());
        }
    }

    /// Lists `name` in `extensionsUsed` and `extensionsRequired`.
    pub fn require_extension(&mut self, name: &str) {
        self.use_extension(name);
        self.extensions_required.push(name.to_owned());
    }

    /// Adds a buffer after `buffers[0]`, given as raw JSON (e.g.
    /// `{"uri":"more.bin","byteLength":12}`), returning its index.
    pub fn add_buffer_json(&mut self, json: &str) -> usize {
        self.extra_buffers.push(json.to_owned());
        self.extra_buffers.len()
    }

    /// Declares `byteLength` of `buffers[0]` as `len` instead of the real
    /// length.
    pub fn set_buffer_byte_length(&mut self, len: usize) {
        self.buffer_byte_length = Some(len);
    }

    /// The JSON text. `buffer_uri` is the URI of `buffers[0]`; `None` leaves
    /// it without one (GLB). `buffers[0]` is only written when there is
    /// binary data (or extra buffers follow it).
    pub fn json(&self, buffer_uri: Option<&str>) -> String {
        let mut fields =
            vec!["\"asset\":{\"version\":\"2.0\",\"generator\":\"assetc fixtures\"}".to_owned()];
        let mut buffers = Vec::new();
        if !self.bin.is_empty() || !self.extra_buffers.is_empty() {
            let len = self.buffer_byte_length.unwrap_or(self.bin.len());
            buffers.push(match buffer_uri {
                Some(uri) => format!("{{\"byteLength\":{len},\"uri\":{}}}", json_string(uri)),
                None => format!("{{\"byteLength\":{len}}}"),
            });
        }
        buffers.extend(self.extra_buffers.iter().cloned());
        let lists: [(&str, &[String]); 11] = [
            ("buffers", &buffers),
            ("bufferViews", &self.buffer_views),
            ("accessors", &self.accessors),
            ("meshes", &self.meshes),
            ("materials", &self.materials),
            ("textures", &self.textures),
            ("images", &self.images),
            ("scenes", &self.scenes),
            ("skins", &self.skins),
            ("animations", &self.animations),
            ("extensionsUsed", &quoted(&self.extensions_used)),
        ];
        for (name, items) in lists {
            if !items.is_empty() {
                fields.push(format!("\"{name}\":[{}]", items.join(",")));
            }
        }
        if !self.extensions_required.is_empty() {
            fields.push(format!(
                "\"extensionsRequired\":[{}]",
                quoted(&self.extensions_required).join(",")
            ));
        }
        if !self.nodes.is_empty() {
            let nodes: Vec<String> = self.nodes.iter().map(Node::json).collect();
            fields.push(format!("\"nodes\":[{}]", nodes.join(",")));
        }
        if let Some(scene) = self.scene {
            fields.push(format!("\"scene\":{scene}"));
        }
        format!("{{{}}}", fields.join(","))
    }

    /// The asset as a GLB: JSON chunk, then the buffer as the BIN chunk.
    pub fn to_glb(&self) -> Vec<u8> {
        let bin = (!self.bin.is_empty()).then_some(self.bin.as_slice());
        glb(&self.json(None), bin)
    }

    /// The asset as a GLB whose JSON `edit` changed first: for what the
    /// builder does not write (a scene without `nodes`, a channel without
    /// `target.node`).
    pub fn to_glb_edited(&self, edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
        let mut json: serde_json::Value =
            serde_json::from_str(&self.json(None)).expect("the builder writes JSON");
        edit(&mut json);
        let bin = (!self.bin.is_empty()).then_some(self.bin.as_slice());
        glb(&json.to_string(), bin)
    }

    /// The asset as one `.gltf` whose buffer is a base64 data URI.
    pub fn to_embedded_gltf(&self) -> Vec<u8> {
        let uri = format!("data:application/octet-stream;base64,{}", base64(&self.bin));
        self.json(Some(&uri)).into_bytes()
    }

    /// The asset as `.gltf` JSON referring to `bin_uri`, and the bytes that
    /// belong in that file.
    pub fn to_gltf_with_bin(&self, bin_uri: &str) -> (Vec<u8>, Vec<u8>) {
        (self.json(Some(bin_uri)).into_bytes(), self.bin.clone())
    }

    /// Writes `dir/name.gltf` and `dir/name.bin`; returns the `.gltf` path.
    pub fn write_gltf(&self, dir: &Path, name: &str) -> std::io::Result<PathBuf> {
        let (json, bin) = self.to_gltf_with_bin(&format!("{name}.bin"));
        std::fs::write(dir.join(format!("{name}.bin")), bin)?;
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(&path, json)?;
        Ok(path)
    }

    /// Writes `dir/name.glb`; returns its path.
    pub fn write_glb(&self, dir: &Path, name: &str) -> std::io::Result<PathBuf> {
        let path = dir.join(format!("{name}.glb"));
        std::fs::write(&path, self.to_glb())?;
        Ok(path)
    }
}

/// A GLB container around `json` and an optional BIN chunk, both padded to
/// 4 bytes (JSON with spaces, BIN with zeros). Truncate the result to make a
/// broken file.
pub fn glb(json: &str, bin: Option<&[u8]>) -> Vec<u8> {
    let mut json_chunk = json.as_bytes().to_vec();
    while !json_chunk.len().is_multiple_of(4) {
        json_chunk.push(b' ');
    }
    let mut chunks = chunk(0x4E4F_534A, &json_chunk);
    if let Some(bin) = bin {
        let mut bin_chunk = bin.to_vec();
        while bin_chunk.len() % 4 != 0 {
            bin_chunk.push(0);
        }
        chunks.extend(chunk(0x004E_4942, &bin_chunk));
    }
    let mut out = Vec::with_capacity(12 + chunks.len());
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + chunks.len()) as u32).to_le_bytes());
    out.extend(chunks);
    out
}

/// One GLB chunk: length, type, data.
fn chunk(kind: u32, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + data.len());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(data);
    out
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let b = [
            group[0],
            *group.get(1).unwrap_or(&0),
            *group.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= group.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `s` as a JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A finite float as JSON (non-finite values become 0, as JSON has none).
fn float(v: f32) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "0.0".to_owned()
    }
}

/// `[a,b,...]` of floats.
fn float_list(values: &[f32]) -> String {
    let items: Vec<String> = values.iter().map(|v| float(*v)).collect();
    format!("[{}]", items.join(","))
}

/// `[a,b,...]` of indices.
fn index_list(values: &[usize]) -> String {
    let items: Vec<String> = values.iter().map(usize::to_string).collect();
    format!("[{}]", items.join(","))
}

/// Each string as a JSON literal.
fn quoted(values: &[String]) -> Vec<String> {
    values.iter().map(|v| json_string(v)).collect()
}

/// Components per element of an accessor type.
fn components(type_: &str) -> usize {
    match type_ {
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        _ => 1,
    }
}

/// Adds a one-triangle mesh in the z = 0 plane facing +z (counter-clockwise
/// seen from +z), with normals, UVs and 16-bit indices, optionally with a
/// material; returns the mesh index. Vertices: (0,0,0), (1,0,0), (0,1,0).
pub fn triangle_mesh(builder: &mut GltfBuilder, material: Option<usize>) -> usize {
    let positions = builder.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let normals = builder.add_vec3(&[[0.0, 0.0, 1.0]; 3]);
    let uvs = builder.add_vec2(&[[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]);
    let indices = builder.add_indices_u16(&[0, 1, 2]);
    let mut primitive = Primitive::new(positions)
        .normal(normals)
        .uv(uvs)
        .indices(indices);
    if let Some(material) = material {
        primitive = primitive.material(material);
    }
    builder.add_mesh(&[primitive])
}

/// A skinned, animated asset:
/// * nodes: 0 root (not a joint, translated by (0, 0, 5)), 1 hip joint
///   (child of 0, translation (0, 1, 0)), 2 knee joint (child of 1, rotated
///   90° about z, translation (0, 1, 0)), 3 the skinned mesh node (child of
///   0, translated (10, 0, 0) — ignored for skinned meshes);
/// * skins[0]: joints [1, 2] with inverse bind matrices translating by
///   (0, -1, 0) and (0, -2, 0);
/// * meshes[0]: one triangle, vertices bound to joints 0, 0 and 1 (weights
///   as floats);
/// * animations[0] "walk": a LINEAR rotation on the knee (times 0, 1) and a
///   STEP translation on the hip (times 0, 0.5, 2), a CUBICSPLINE scale on
///   the knee (times 0, 1.5; values (2,2,2) then (3,3,3) between tangents
///   of 9), and a translation on node 0 (not a joint);
/// * animations[1] (no name): only a translation of node 3 (not a joint).
pub fn skinned_animated() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let positions = b.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]);
    let joints = b.add_u8(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], "VEC4", false);
    let weights = b.add_vec4(&[
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
    ]);
    let indices = b.add_indices_u16(&[0, 1, 2]);
    let mesh = b.add_mesh(&[Primitive::new(positions)
        .skin(joints, weights)
        .indices(indices)]);
    let root = b.add_node(Node {
        name: Some("root".into()),
        translation: Some([0.0, 0.0, 5.0]),
        ..Node::default()
    });
    let hip = b.add_node(Node {
        name: Some("hip".into()),
        translation: Some([0.0, 1.0, 0.0]),
        ..Node::default()
    });
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let knee = b.add_node(Node {
        name: Some("knee".into()),
        translation: Some([0.0, 1.0, 0.0]),
        rotation: Some([0.0, 0.0, half, half]),
        ..Node::default()
    });
    let body = b.add_node(Node {
        name: Some("body".into()),
        mesh: Some(mesh),
        skin: Some(0),
        translation: Some([10.0, 0.0, 0.0]),
        ..Node::default()
    });
    b.node_mut(root).children = vec![hip, body];
    b.node_mut(hip).children = vec![knee];
    let ibm = b.add_mat4(&[
        translation_matrix([0.0, -1.0, 0.0]),
        translation_matrix([0.0, -2.0, 0.0]),
    ]);
    b.add_skin(&[hip, knee], Some(ibm));
    let scene = b.add_scene(&[root]);
    b.set_default_scene(scene);

    let rotation_times = b.add_scalars(&[0.0, 1.0]);
    let rotations = b.add_vec4(&[[0.0, 0.0, 0.0, 2.0], [0.0, 0.0, half, half]]);
    let step_times = b.add_scalars(&[0.0, 0.5, 2.0]);
    let steps = b.add_vec3(&[[0.0, 1.0, 0.0], [0.0, 1.5, 0.0], [0.0, 2.0, 0.0]]);
    let cubic_times = b.add_scalars(&[0.0, 1.5]);
    let cubic = b.add_vec3(&[[9.0; 3], [2.0; 3], [9.0; 3], [9.0; 3], [3.0; 3], [9.0; 3]]);
    b.add_animation(
        Some("walk"),
        &[
            (rotation_times, rotations, "LINEAR"),
            (step_times, steps, "STEP"),
            (cubic_times, cubic, "CUBICSPLINE"),
        ],
        &[
            (0, knee, "rotation"),
            (1, hip, "translation"),
            (2, knee, "scale"),
            (1, root, "translation"),
        ],
    );
    b.add_animation(
        None,
        &[(step_times, steps, "STEP")],
        &[(0, body, "translation")],
    );
    b
}

/// A column-major matrix translating by `t`.
pub fn translation_matrix(t: [f32; 3]) -> [f32; 16] {
    [
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 1.0, 0.0, //
        t[0], t[1], t[2], 1.0,
    ]
}
