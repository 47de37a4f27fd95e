//! The routes of `assetc view`: the page's files and the JSON API
//! (documented in `docs/inspect.md`).
//!
//! [`App::handle`] turns one request into one [`Reply`]; it never panics on
//! a file's contents, since every file goes through the crate's checked
//! readers, and each failure becomes an error reply naming the file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use percent_encoding::percent_decode_str;
use serde_json::{Value, json};

use super::live::Live;
use super::material::{Ids, resolve_texture, rows_json};
use super::probe::{ProbeCache, StoredValues};
use super::sound::{self, OpenedSound, SoundView};
pub use super::source::Sources;
use super::store::Store;
use super::texture::png_bytes;
use super::{ViewError, anim, atlas, embed, environment, font, mesh, shader, texture};
use crate::encode::audio::wav::write_pcm16;
use crate::encode::texture::readback::ImageIndex;
use crate::format::bytes::AlignedBytes;
use crate::format::hash::hex_id;
use crate::format::hman::MANIFEST_FILE;
use crate::format::kind::AssetKind;
use crate::format::{hanim, hatlas, hfont, hman, hmat, hmesh, hsnd, ktx2};
use crate::inspect::{info, pack_info, stats};
use crate::link::check;

/// `(name, text)` of each named file of `static/`, embedded in the binary.
macro_rules! embedded {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("static/", $name)))),*]
    };
}

/// The page: every file of `static/` as `(name, text)`, served at `/<name>`
/// (`index.html` at `/` too) and nothing else. `app.js` is the page's entry
/// module; the others are the ES modules it imports.
pub const PAGE_FILES: &[(&str, &str)] = embedded![
    "index.html",
    "style.css",
    "app.js",
    "anim.js",
    "api.js",
    "atlas.js",
    "check.js",
    "colour.js",
    "context.js",
    "dom.js",
    "embed.js",
    "file.js",
    "font.js",
    "format.js",
    "environment.js",
    "gl.js",
    "hash.js",
    "images.js",
    "layout.js",
    "list.js",
    "live.js",
    "log.js",
    "material.js",
    "maths.js",
    "mesh-data.js",
    "mesh.js",
    "pack.js",
    "probe.js",
    "shader.js",
    "sidebar.js",
    "skin.js",
    "sound.js",
    "texture.js",
    "viewer.js",
    "widgets.js",
];

/// The schema name of `/api/assets`.
pub const ASSETS_SCHEMA: &str = "assetc-view/1";

/// The answer of `/api/assets`: `assetc info --json`'s files and totals,
/// each file with the id and kind the manifest gives it.
#[derive(serde::Serialize)]
struct AssetsReply {
    schema: &'static str,
    source: String,
    source_kind: &'static str,
    files: Vec<AssetRow>,
    totals: info::Totals,
}

/// One file of [`AssetsReply`].
#[derive(serde::Serialize)]
struct AssetRow {
    #[serde(flatten)]
    report: stats::FileReport,
    id: Option<String>,
    kind: Option<&'static str>,
}

/// One answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    fn json(value: &Value) -> Self {
        Self::serialized(value)
    }

    /// Any serialisable value as JSON, its `f32` fields written as short as
    /// `assetc info` writes them.
    fn serialized(value: &impl serde::Serialize) -> Self {
        Self::bytes(
            "application/json",
            serde_json::to_vec(value).unwrap_or_default(),
        )
    }

    fn bytes(content_type: &'static str, body: Vec<u8>) -> Self {
        Self {
            status: 200,
            content_type,
            body,
        }
    }

    fn error(error: &ViewError) -> Self {
        Self {
            status: error.status(),
            content_type: "application/json",
            body: json!({ "error": error.to_string() })
                .to_string()
                .into_bytes(),
        }
    }
}

/// The page file at URL path `route` (`/` is `index.html`): only the names
/// of [`PAGE_FILES`] are served, so no path reaches past them.
fn page_file(route: &str) -> Option<Reply> {
    let name = match route {
        "/" => "index.html",
        _ => route.strip_prefix('/')?,
    };
    let (name, text) = PAGE_FILES.iter().find(|(known, _)| *known == name)?;
    Some(Reply::bytes(
        content_type_of(name),
        text.as_bytes().to_vec(),
    ))
}

/// The `Content-Type` of a page file, from its extension (ES modules need a
/// JavaScript type).
fn content_type_of(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, extension)| extension) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The server's state: what it serves and what the page reported.
pub struct App {
    store: Store,
    sources: Option<Sources>,
    client_log: Vec<String>,
    probe: ProbeCache,
    live: Arc<Live>,
}

impl App {
    /// Serves `store`; `sources` enables the PSNR of textures.
    pub fn new(store: Store, sources: Option<Sources>) -> Self {
        Self {
            store,
            sources,
            client_log: Vec::new(),
            probe: ProbeCache::default(),
            live: Live::idle(),
        }
    }

    /// Follows `live` for the page's live refresh (`/api/live`).
    pub fn with_live(mut self, live: Arc<Live>) -> Self {
        self.live = live;
        self
    }

    /// The answer to a request that may wait (the live refresh's long poll),
    /// to be computed away from the loop that answers the others; `None`
    /// for every other request.
    pub fn deferred(&self, method: &str, url: &str) -> Option<Box<dyn FnOnce() -> Reply + Send>> {
        let (route, query) = url.split_once('?').unwrap_or((url, ""));
        if method != "GET" || route != "/api/live" {
            return None;
        }
        let query = Query::parse(query);
        let since = query.0.get("since").map(|text| text.parse::<u64>());
        let wait = query
            .0
            .get("wait")
            .map_or(Ok(0), |text| text.parse::<u64>());
        let live = Arc::clone(&self.live);
        Some(Box::new(move || match (since.transpose(), wait) {
            (Ok(since), Ok(wait)) => {
                Reply::json(&live.answer(since, std::time::Duration::from_secs(wait)))
            }
            _ => Reply::error(&ViewError::BadRequest(
                "`since` and `wait` must be whole numbers".into(),
            )),
        }))
    }

    /// The folder or pack served, as named.
    pub fn shown(&self) -> String {
        self.store.shown()
    }

    /// Answers one request.
    pub fn handle(&mut self, method: &str, url: &str, body: &[u8]) -> Reply {
        self.route(method, url, body)
            .unwrap_or_else(|e| Reply::error(&e))
    }

    /// The reply to one request, or the error that answers it.
    fn route(&mut self, method: &str, url: &str, body: &[u8]) -> Result<Reply, ViewError> {
        let (route, query) = url.split_once('?').unwrap_or((url, ""));
        let query = Query::parse(query);
        if method == "GET"
            && let Some(reply) = page_file(route)
        {
            return Ok(reply);
        }
        match (method, route) {
            ("GET", "/api/assets") => self.assets(),
            ("GET", "/api/file") => self.file(query.path()?),
            ("GET", "/api/mesh") => self.mesh(query.path()?).map(|v| Reply::json(&v)),
            ("GET", "/api/anim") => self.anim(query.path()?).map(|v| Reply::json(&v)),
            ("GET", "/api/texture") => self.texture(query.path()?).map(|v| Reply::json(&v)),
            ("GET", "/api/texture/image") => {
                self.texture_image(query.path()?, query.image()?, query.exposure()?)
            }
            ("GET", "/api/texture/texel") => {
                let (x, y) = (query.required_number("x")?, query.required_number("y")?);
                self.stored(query.path()?, query.image()?, StoredValues::Texel { x, y })
            }
            ("GET", "/api/texture/range") => {
                self.stored(query.path()?, query.image()?, StoredValues::Range)
            }
            ("GET", "/api/texture/values") => {
                self.stored(query.path()?, query.image()?, StoredValues::All)
            }
            ("GET", "/api/environments") => Ok(Reply::json(&self.environments()?)),
            ("GET", "/api/font") => self.font(query.path()?).map(|v| Reply::json(&v)),
            ("GET", "/api/atlas") => self.atlas(query.path()?).map(|v| Reply::json(&v)),
            ("GET", "/api/material") => self.material(query.path()?).map(|v| Reply::json(&v)),
            ("GET", "/api/shader") => self.shader(query.path()?).map(|v| Reply::json(&v)),
            ("GET", "/api/embed") => self.embed(query.path()?).map(|v| Reply::json(&v)),
            ("GET", "/api/sound") => self.sound(query.path()?).map(|v| Reply::serialized(&v)),
            ("GET", "/api/sound/wav") => self.sound_wav(query.path()?),
            ("GET", "/api/packs") => Ok(Reply::json(&self.packs())),
            ("GET", "/api/pack") => self.pack(query.get("name")?).map(|v| Reply::json(&v)),
            ("GET", "/api/check") => Ok(Reply::json(&self.check())),
            ("POST", "/api/client-log") => Ok(self.log_client(body)),
            ("GET", "/api/client-log") => Ok(Reply::json(&json!({ "messages": self.client_log }))),
            _ => Err(ViewError::NotFound(route.to_owned())),
        }
    }

    /// Every file with `assetc info`'s figures, its id and kind, and totals.
    fn assets(&self) -> Result<Reply, ViewError> {
        let manifest = self.manifest();
        let mut reports = Vec::new();
        for listed in self.store.list()? {
            let bytes = self.store.read_listed(&listed)?;
            let kind = manifest.get(&listed.path).map(|e| e.1);
            reports.push(stats::analyse(&listed.path, &bytes, kind));
        }
        let totals = info::totals(&reports);
        let files = reports
            .into_iter()
            .map(|report| {
                let entry = manifest.get(&report.path);
                AssetRow {
                    id: entry.map(|e| hex_id(e.0)),
                    kind: entry.map(|e| e.1.name()),
                    report,
                }
            })
            .collect();
        Ok(Reply::serialized(&AssetsReply {
            schema: ASSETS_SCHEMA,
            source: self.store.shown(),
            source_kind: self.store.kind(),
            totals,
            files,
        }))
    }

    /// One file's figures.
    fn file(&self, path: &str) -> Result<Reply, ViewError> {
        let bytes = self.store.read(path)?;
        let kind = self.manifest().get(path).map(|e| e.1);
        Ok(Reply::serialized(&stats::analyse(path, &bytes, kind)))
    }

    /// A mesh, with its material table and the animations beside it.
    fn mesh(&self, path: &str) -> Result<Value, ViewError> {
        let bytes = self.store.read(path)?;
        let data = hmesh::read_hmesh(&bytes).map_err(|e| ViewError::invalid(path, e))?;
        let mut value = mesh::mesh_json(path, &data);
        let stem = path.strip_suffix(".hmesh").unwrap_or(path);
        let material_path = format!("{stem}.hmat");
        value["material"] = match self.material(&material_path) {
            Ok(material) => material,
            Err(ViewError::NotFound(_)) => Value::Null,
            Err(e) => json!({ "path": material_path, "error": e.to_string(), "rows": [] }),
        };
        let clips = format!("{stem}.hanim");
        let animations: Vec<String> = self
            .store
            .read(&clips)
            .is_ok()
            .then_some(clips)
            .into_iter()
            .collect();
        value["animations"] = animations.into();
        Ok(value)
    }

    /// A material table.
    fn material(&self, path: &str) -> Result<Value, ViewError> {
        let bytes = self.store.read(path)?;
        let rows = hmat::read_hmat(&bytes).map_err(|e| ViewError::invalid(path, e))?;
        let by_id: HashMap<u64, (String, AssetKind)> = self
            .manifest()
            .into_iter()
            .map(|(path, (id, kind))| (id, (path, kind)))
            .collect();
        let resolve = |id: u64| {
            let entry = by_id.get(&id).map(|(path, kind)| (path.as_str(), *kind));
            resolve_texture(id, entry, |path| self.store.contains(path))
        };
        Ok(json!({ "path": path, "error": Value::Null, "rows": rows_json(&rows, &resolve) }))
    }

    /// An animation file's clips.
    fn anim(&self, path: &str) -> Result<Value, ViewError> {
        let bytes = self.store.read(path)?;
        let parsed = hanim::parse_hanim(&bytes).map_err(|e| ViewError::invalid(path, e))?;
        Ok(json!({ "path": path, "clips": anim::clips_json(&parsed) }))
    }

    /// A texture's shape and images, and its PSNR against its source.
    fn texture(&self, path: &str) -> Result<Value, ViewError> {
        let bytes = self.store.read(path)?;
        let view = ktx2::parse(&bytes).map_err(|e| ViewError::invalid(path, e))?;
        let mut value =
            texture::texture_json(path, &view).map_err(|e| ViewError::invalid(path, e))?;
        let figures = stats::analyse(path, &bytes, None);
        if let Ok(Value::Object(fields)) = serde_json::to_value(&figures) {
            for (key, field) in fields {
                value[key] = field;
            }
        }
        let compared = self
            .sources
            .as_ref()
            .and_then(|s| s.compare(path, &bytes, &view));
        if let Some(Value::Object(fields)) = compared {
            for (key, field) in fields {
                value[key] = field;
            }
        }
        Ok(value)
    }

    /// One image of a texture as PNG, HDR formats at `exposure` stops,
    /// decoded once with the probe's (the page draws an image, then asks
    /// for its range and texels, and redraws it at other exposures).
    fn texture_image(
        &mut self,
        path: &str,
        at: ImageIndex,
        exposure: f32,
    ) -> Result<Reply, ViewError> {
        let bytes = self.store.read(path)?;
        let view = ktx2::parse(&bytes).map_err(|e| ViewError::invalid(path, e))?;
        let image = self
            .probe
            .image(path, &bytes, &view, at)
            .map_err(|e| ViewError::invalid(path, e))?;
        let png =
            png_bytes(&image.to_display(exposure)).map_err(|e| ViewError::invalid(path, e))?;
        Ok(Reply::bytes("image/png", png))
    }

    /// Stored values of one image of a texture: a texel, the range or all.
    fn stored(
        &mut self,
        path: &str,
        at: ImageIndex,
        wanted: StoredValues,
    ) -> Result<Reply, ViewError> {
        let bytes = self.store.read(path)?;
        let view = ktx2::parse(&bytes).map_err(|e| ViewError::invalid(path, e))?;
        let value = self
            .probe
            .answer(path, &bytes, &view, at, wanted)
            .map_err(|e| ViewError::invalid(path, e))?;
        Ok(Reply::json(&value))
    }

    /// The image-based lighting sets of the output (see [`environment`]).
    fn environments(&self) -> Result<Value, ViewError> {
        let paths: Vec<String> = self.store.list()?.into_iter().map(|f| f.path).collect();
        Ok(environment::environments_json(&paths, |path| {
            self.store.read(path).ok().map(|b| b.into_owned())
        }))
    }

    /// A font's metrics and glyphs.
    fn font(&self, path: &str) -> Result<Value, ViewError> {
        let bytes = self.store.read(path)?;
        let parsed = hfont::parse_hfont(&bytes).map_err(|e| ViewError::invalid(path, e))?;
        Ok(font::font_json(path, &parsed, &self.ids()))
    }

    /// A sprite table with the image URLs of its pages.
    fn atlas(&self, path: &str) -> Result<Value, ViewError> {
        let bytes = AlignedBytes::copy_from(&self.store.read(path)?);
        let parsed = hatlas::parse_hatlas(&bytes).map_err(|e| ViewError::invalid(path, e))?;
        Ok(atlas::atlas_json(path, &parsed, &self.ids()))
    }

    /// A SPIR-V module's entry points, bindings, push constants and WGSL.
    fn shader(&self, path: &str) -> Result<Value, ViewError> {
        let bytes = self.store.read(path)?;
        shader::shader_json(path, &bytes).map_err(|e| ViewError::invalid(path, e))
    }

    /// An embedded file as text, or the hex of its first bytes.
    fn embed(&self, path: &str) -> Result<Value, ViewError> {
        let bytes = self.store.read(path)?;
        Ok(embed::embed_json(path, &bytes))
    }

    /// A sound record, or the sound file it names: its figures, waveform
    /// and loudness before and after processing.
    fn sound(&self, path: &str) -> Result<SoundView, ViewError> {
        let opened = self.open_sound(path)?;
        let before = sound::loudness_before(self.sources.as_ref(), &opened.record_path);
        Ok(sound::sound_view(&opened, before))
    }

    /// A sound record's sound, or a sound file, as 16-bit PCM WAV, which
    /// every browser plays whatever the codec.
    fn sound_wav(&self, path: &str) -> Result<Reply, ViewError> {
        let opened = self.open_sound(path)?;
        Ok(Reply::bytes("audio/wav", write_pcm16(&opened.decoded)))
    }

    /// The record `path`, or the record beside the sound file `path`, with
    /// the sound file the record names, decoded.
    fn open_sound(&self, path: &str) -> Result<OpenedSound, ViewError> {
        let record_path = sound::record_path(path);
        let bytes = self.store.read(&record_path).map_err(|e| match e {
            ViewError::NotFound(_) if record_path != path => {
                ViewError::NotFound(format!("{record_path} (the record of {path})"))
            }
            other => other,
        })?;
        let record = hsnd::read_hsnd(&bytes).map_err(|e| ViewError::invalid(&record_path, e))?;
        let sound_path = self.ids().remove(&record.sound).ok_or_else(|| {
            let what = format!("its sound {} is not in the manifest", hex_id(record.sound));
            ViewError::invalid(&record_path, what)
        })?;
        if path != record_path && path != sound_path {
            let what = format!("its record {record_path} is of {sound_path}");
            return Err(ViewError::invalid(path, what));
        }
        sound::check_size(&record_path, &record)?;
        let decoded = sound::decode_file(&sound_path, &self.store.read(&sound_path)?)?;
        Ok(OpenedSound {
            record_path,
            record,
            sound_path,
            decoded,
        })
    }

    /// The packs beside the output folder, or the pack served.
    fn packs(&self) -> Value {
        let packs: Vec<Value> = self
            .pack_files()
            .into_iter()
            .map(|(name, path)| {
                let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                json!({ "name": name, "path": path.display().to_string(), "bytes": bytes })
            })
            .collect();
        json!({ "packs": packs })
    }

    /// A pack's layout, kinds and entries.
    fn pack(&self, name: &str) -> Result<Value, ViewError> {
        let packs = self.pack_files();
        let Some((_, path)) = packs.iter().find(|(n, _)| n == name) else {
            return Err(ViewError::UnknownPack {
                name: name.to_owned(),
                known: packs.into_iter().map(|(n, _)| n).collect(),
            });
        };
        let report = pack_info::inspect(path).map_err(|e| ViewError::Source {
            path: path.clone(),
            what: crate::cli::with_causes(&e, ": "),
        })?;
        Ok(serde_json::to_value(report).unwrap_or(Value::Null))
    }

    /// The packs the page can open, each by its name (its file name without
    /// `.hpack`, see [`pack_name`]) and file: the pack served, or the single
    /// and named packs beside the output folder.
    fn pack_files(&self) -> Vec<(String, PathBuf)> {
        match &self.store {
            Store::Pack { path, .. } => vec![(pack_name(path), path.clone())],
            Store::Folder { shown, .. } => sibling_packs(shown),
        }
    }

    /// What `assetc-link check` finds.
    fn check(&self) -> Value {
        let problems: Vec<Value> = match &self.store {
            Store::Folder { shown, .. } => {
                let single = crate::link::pack::pack_path(shown);
                let pack = single.is_file().then_some(single.as_path());
                match check::check(shown, pack) {
                    Ok(_) => Vec::new(),
                    Err(problems) => problems.iter().map(|p| problem(&p.path, &p.what)).collect(),
                }
            }
            Store::Pack { .. } => self.pack_problems(),
        };
        json!({ "ok": problems.is_empty(), "problems": problems })
    }

    /// Every entry of the served pack that its reader refuses.
    fn pack_problems(&self) -> Vec<Value> {
        let Ok(listed) = self.store.list() else {
            return vec![problem(&self.store.shown(), "the pack does not parse")];
        };
        listed
            .iter()
            .filter_map(|file| {
                let bytes = self.store.read(&file.path).ok()?;
                let report = stats::analyse(&file.path, &bytes, None);
                match report.details {
                    stats::Details::Invalid { error, .. } => Some(problem(&file.path, &error)),
                    _ => None,
                }
            })
            .collect()
    }

    /// Keeps and prints a line the page reported.
    fn log_client(&mut self, body: &[u8]) -> Reply {
        let message = String::from_utf8_lossy(body)
            .chars()
            .take(2000)
            .collect::<String>();
        crate::cli::to_stderr(&format!("assetc view: page: {message}"));
        self.client_log.push(message);
        Reply::json(&json!({ "logged": self.client_log.len() }))
    }

    /// The manifest's entries by path: id and kind.
    fn manifest(&self) -> HashMap<String, (u64, crate::format::kind::AssetKind)> {
        let Ok(bytes) = self.store.read(MANIFEST_FILE) else {
            return HashMap::new();
        };
        hman::parse(&bytes)
            .map(|m| {
                m.iter()
                    .map(|e| (e.path.to_owned(), (e.hash, e.kind)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The manifest's ids to paths.
    fn ids(&self) -> Ids {
        self.manifest()
            .into_iter()
            .map(|(path, (id, _))| (id, path))
            .collect()
    }
}

/// One problem for the page.
fn problem(path: &str, what: &str) -> Value {
    json!({ "path": path, "message": what })
}

/// A pack's name in the page (`#pack=<name>`, `/api/pack?name=`): its file
/// name without `.hpack`, so `runtime/desktop.hpack` is `desktop` and the
/// named pack `runtime/desktop.level1.hpack` is `desktop.level1`, whether
/// the pack is served alone or found beside its output folder.
pub fn pack_name(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.strip_suffix(".hpack").unwrap_or(&file).to_owned()
}

/// The single pack `<output>.hpack` and the named packs
/// `<output>.<name>.hpack` beside the output folder, by [`pack_name`].
fn sibling_packs(output: &Path) -> Vec<(String, PathBuf)> {
    let Some(name) = output.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let Ok(read) = std::fs::read_dir(&parent) else {
        return Vec::new();
    };
    let mut packs: Vec<(String, PathBuf)> = read
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let file = entry.file_name().to_string_lossy().into_owned();
            let middle = file.strip_prefix(&name)?.strip_suffix(".hpack")?;
            let single_or_named = middle.is_empty() || middle.starts_with('.');
            single_or_named.then(|| parent.join(&file))
        })
        .map(|path| (pack_name(&path), path))
        .collect();
    packs.sort();
    packs
}

/// A request's query parameters, percent-decoded.
struct Query(HashMap<String, String>);

impl Query {
    fn parse(text: &str) -> Self {
        let decode = |s: &str| {
            percent_decode_str(&s.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned()
        };
        Query(
            text.split('&')
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                    (decode(key), decode(value))
                })
                .collect(),
        )
    }

    fn get(&self, key: &str) -> Result<&str, ViewError> {
        self.0
            .get(key)
            .map(String::as_str)
            .ok_or_else(|| ViewError::BadRequest(format!("the `{key}` parameter is missing")))
    }

    fn path(&self) -> Result<&str, ViewError> {
        self.get("path")
    }

    /// A whole-number parameter that must be given.
    fn required_number(&self, key: &str) -> Result<u32, ViewError> {
        self.get(key)?;
        self.number(key)
    }

    fn number(&self, key: &str) -> Result<u32, ViewError> {
        match self.0.get(key) {
            None => Ok(0),
            Some(text) => text.parse().map_err(|_| {
                ViewError::BadRequest(format!("`{key}` must be a whole number, not {text:?}"))
            }),
        }
    }

    /// The `exposure` parameter in stops, 0 when absent; at most 32 either way.
    fn exposure(&self) -> Result<f32, ViewError> {
        const LIMIT: f32 = 32.0;
        match self.0.get("exposure") {
            None => Ok(0.0),
            Some(text) => text
                .parse::<f32>()
                .ok()
                .filter(|stops| stops.abs() <= LIMIT)
                .ok_or_else(|| {
                    ViewError::BadRequest(format!(
                        "`exposure` must be a number of stops from -{LIMIT} to {LIMIT}, not {text:?}"
                    ))
                }),
        }
    }

    fn image(&self) -> Result<ImageIndex, ViewError> {
        Ok(ImageIndex {
            level: self.number("level")?,
            layer: self.number("layer")?,
            face: self.number("face")?,
            slice: self.number("slice")?,
        })
    }
}
