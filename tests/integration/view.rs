//! `assetc view` on a real build of the demo: the API against `assetc info`
//! and the format readers, refused paths, corrupt files, a pack served
//! alone, and the page itself in headless Chromium.

use crate::common;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::common::{ASSETC, Project, shared};
use assetc::format::{hfont, hmesh, hpack, ktx2};
use assetc::view::api::PAGE_FILES;
use base64::Engine as _;

/// Level 0 of a BC7 KTX2 file (the demo's desktop default), inflated and
/// decoded block by block with `bcdec_rs`, independently of the viewer.
fn bc7_level0(file: &[u8]) -> Vec<u8> {
    let view = ktx2::parse(file).unwrap();
    assert_eq!(
        view.texel_format(),
        Some(ktx2::TexelFormat::Bc7 { srgb: true })
    );
    let header = view.header();
    let (width, height) = (header.pixel_width as usize, header.pixel_height as usize);
    let level = match header.supercompression_scheme {
        ktx2::SUPERCOMPRESSION_ZSTD => zstd::decode_all(view.level_data(0)).unwrap(),
        _ => view.level_data(0).to_vec(),
    };
    let mut rgba = vec![0u8; width * height * 4];
    for (index, block) in level.chunks_exact(16).enumerate() {
        let mut texels = [0u8; 4 * 4 * 4];
        bcdec_rs::bc7(block, &mut texels, 4 * 4);
        let (bx, by) = (index % width.div_ceil(4) * 4, index / width.div_ceil(4) * 4);
        for (i, texel) in texels.chunks_exact(4).enumerate() {
            let (x, y) = (bx + i % 4, by + i / 4);
            if x < width && y < height {
                rgba[(y * width + x) * 4..][..4].copy_from_slice(texel);
            }
        }
    }
    rgba
}
use serde_json::Value;

/// A running `assetc view`, stopped when dropped.
struct Viewer {
    child: Child,
    port: u16,
}

impl Viewer {
    /// Starts `assetc view --port 0 <args>` in `dir` and waits for its URL.
    fn start(dir: &Path, args: &[&str]) -> Self {
        let mut child = Command::new(ASSETC)
            .arg("view")
            .args(["--port", "0"])
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("assetc view starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no URL in {line:?}"));
        Self { child, port }
    }

    /// `GET path` with the given `Host`: the status and the body.
    fn get_as(&self, host: &str, path: &str) -> (u16, Vec<u8>) {
        let (status, _, body) = self.request(host, path);
        (status, body)
    }

    /// `GET path` with the given `Host`: the status, the `Content-Type` and
    /// the body.
    fn request(&self, host: &str, path: &str) -> (u16, String, Vec<u8>) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).unwrap();
        let split = reply
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("an HTTP reply");
        let head = String::from_utf8_lossy(&reply[..split]).into_owned();
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap();
        let mut body = reply[split + 4..].to_vec();
        if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            body = unchunk(&body);
        }
        let content_type = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-type")
                    .then(|| value.trim().to_owned())
            })
            .unwrap_or_default();
        (status, content_type, body)
    }

    fn get(&self, path: &str) -> (u16, Vec<u8>) {
        self.get_as(&format!("127.0.0.1:{}", self.port), path)
    }

    /// `GET path`, expected to answer 200 with JSON.
    fn json(&self, path: &str) -> Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap()
    }

    /// `GET path`, expected to fail with `status`; returns the error text.
    fn error(&self, path: &str, status: u16) -> String {
        let (got, body) = self.get(path);
        assert_eq!(got, status, "{path}: {}", String::from_utf8_lossy(&body));
        let value: Value = serde_json::from_slice(&body).unwrap();
        value["error"].as_str().unwrap().to_owned()
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of a chunked HTTP reply.
fn unchunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&body[..end]).trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&body[end + 2..end + 2 + size]);
        body = &body[end + 4 + size..];
    }
    out
}

fn floats(value: &Value) -> Vec<f32> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(value.as_str().unwrap())
        .unwrap();
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn the_api_agrees_with_assetc_info_and_the_readers() {
    let p = shared::demo();
    let view = Viewer::start(p.root(), &[]);
    let info: Value =
        serde_json::from_str(&p.assetc(&["info", "--json"]).expect_ok("info").stdout).unwrap();
    let assets = view.json("/api/assets");
    assert_eq!(assets["schema"], "assetc-view/1");
    assert_eq!(assets["source_kind"], "folder");
    let strip = |files: &Value| -> Vec<Value> {
        files
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let mut f = f.clone();
                f.as_object_mut()
                    .unwrap()
                    .retain(|k, _| k != "id" && k != "kind");
                f
            })
            .collect()
    };
    assert_eq!(
        strip(&assets["files"]),
        strip(&info["files"]),
        "the figures are info's"
    );
    assert_eq!(assets["totals"], info["totals"]);
    let tree = p.tree("runtime/desktop");

    let crate_row = assets["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "models/crate.hmesh")
        .unwrap();
    assert_eq!(crate_row["kind"], "mesh");
    assert!(crate_row["id"].as_str().unwrap().starts_with("0x"));

    let mesh = view.json("/api/mesh?path=models/crate.hmesh");
    let data = hmesh::read_hmesh(&tree["models/crate.hmesh"]).unwrap();
    assert_eq!(mesh["vertex_count"], data.vertices.len());
    let positions = floats(&mesh["positions"]);
    assert_eq!(positions.len(), data.vertices.len() * 3);
    assert_eq!(positions[..3], data.vertices[0].position);
    assert_eq!(
        mesh["submeshes"].as_array().unwrap().len(),
        data.submeshes.len()
    );
    let material = &mesh["material"];
    assert_eq!(material["path"], "models/crate.hmat");
    let base = material["rows"][0]["textures"]["base_color"]["path"]
        .as_str()
        .unwrap();
    assert!(tree.contains_key(base), "{base} is an output");

    let walker = view.json("/api/mesh?path=characters/walker.hmesh");
    assert_eq!(
        walker["animations"],
        serde_json::json!(["characters/walker.hanim"])
    );
    assert!(!walker["skeleton"].as_array().unwrap().is_empty());
    let anim = view.json("/api/anim?path=characters/walker.hanim");
    assert!(!anim["clips"].as_array().unwrap().is_empty());

    let texture = view.json("/api/texture?path=textures/checker.ktx2");
    assert_eq!(texture["source"], "textures/checker.png");
    assert!(
        texture["psnr"].as_f64().unwrap() > 30.0,
        "{}",
        texture["psnr"]
    );
    let (width, height) = (
        texture["width"].as_u64().unwrap(),
        texture["height"].as_u64().unwrap(),
    );
    let first = texture["images"][0]["url"].as_str().unwrap();
    let (status, png) = view.get(first);
    assert_eq!(status, 200);
    let decoded = assetc::encode::image::decode_image(&png).unwrap();
    assert_eq!(
        (u64::from(decoded.width), u64::from(decoded.height)),
        (width, height)
    );
    let reference = bc7_level0(&tree["textures/checker.ktx2"]);
    assert_eq!(
        decoded.pixels, reference,
        "the PNG holds the decoded texels"
    );
    let cube = view.json("/api/texture?path=sky.env.ktx2");
    assert_eq!(cube["kind"], "cube");
    let faces: Vec<_> = cube["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["level"] == 0)
        .collect();
    assert_eq!(faces.len(), 6);
    let (status, _) = view.get(faces[5]["url"].as_str().unwrap());
    assert_eq!(status, 200);
    let lut = view.json("/api/texture?path=grading/warm.lut.ktx2");
    assert_eq!(lut["kind"], "3d");
    let (status, _) = view.get(
        lut["images"].as_array().unwrap().last().unwrap()["url"]
            .as_str()
            .unwrap(),
    );
    assert_eq!(status, 200);

    let font = view.json("/api/font?path=fonts/DejaVuSans-Latin1.hfont");
    let parsed = hfont::read_hfont(&tree["fonts/DejaVuSans-Latin1.hfont"]).unwrap();
    assert_eq!(
        font["glyphs"].as_array().unwrap().len(),
        parsed.glyphs.len()
    );
    let atlas = font["atlas"]["path"].as_str().unwrap();
    assert!(tree.contains_key(atlas));
    assert_eq!(
        view.get(font["atlas"]["image_url"].as_str().unwrap()).0,
        200
    );

    let packs = view.json("/api/packs");
    let names: Vec<&str> = packs["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["desktop", "desktop.level1", "desktop.preload"]);
    let pack = view.json("/api/pack?name=desktop");
    let pack_info: Value = serde_json::from_str(
        &p.assetc(&["pack", "info", "--json"])
            .expect_ok("pack info")
            .stdout,
    )
    .unwrap();
    assert_eq!(pack["layout"], pack_info["layout"]);
    assert_eq!(pack["entries"], pack_info["entries"]);
    assert_eq!(view.json("/api/check")["ok"], true);

    let (status, page) = view.get("/");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&page).contains("app.js"));
    assert_eq!(view.get("/app.js").0, 200);
    assert_eq!(view.get("/style.css").0, 200);
}

/// Every file of `src/view/static/` is embedded and served at `/<name>` with
/// its bytes and content type (ES modules need a JavaScript one), nothing
/// else is, and every module a module imports is one of them: a module left
/// out of [`PAGE_FILES`] fails here rather than in a browser.
#[test]
fn every_module_of_the_page_is_served() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("out")).unwrap();
    let view = Viewer::start(dir.path(), &["-o", "out"]);
    let host = format!("127.0.0.1:{}", view.port);
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/view/static");
    let mut on_disk: Vec<String> = fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    let mut embedded: Vec<String> = PAGE_FILES
        .iter()
        .map(|(name, _)| name.to_string())
        .collect();
    embedded.sort();
    assert_eq!(embedded, on_disk, "PAGE_FILES lists every file of static/");
    for name in &on_disk {
        let (status, content_type, body) = view.request(&host, &format!("/{name}"));
        assert_eq!(status, 200, "/{name}");
        assert_eq!(body, fs::read(folder.join(name)).unwrap(), "/{name}");
        if name.ends_with(".js") {
            assert_eq!(content_type, "text/javascript; charset=utf-8", "/{name}");
            for imported in imports(&String::from_utf8(body).unwrap()) {
                assert!(
                    on_disk.contains(&imported),
                    "{name} imports {imported}, not served"
                );
            }
        }
    }
    let (_, content_type, page) = view.request(&host, "/");
    assert_eq!(content_type, "text/html; charset=utf-8");
    assert!(String::from_utf8_lossy(&page).contains(r#"<script type="module" src="/app.js">"#));
    for path in [
        "/static/app.js",
        "/src/view/static/app.js",
        "/../app.js",
        "/app.js/",
        "/%61pp.js",
    ] {
        assert_eq!(view.get(path).0, 404, "{path}");
    }
}

/// The files a module imports (`import … from './x.js'`, `import './x.js'`).
fn imports(module: &str) -> Vec<String> {
    module
        .lines()
        .filter(|line| line.starts_with("import "))
        .filter_map(|line| line.split("'./").nth(1)?.split('\'').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn paths_outside_the_output_are_refused() {
    let p = Project::built_demo();
    std::os::unix::fs::symlink("/etc/passwd", p.path("runtime/desktop/escape.bin")).unwrap();
    std::os::unix::fs::symlink(p.path("assetc.yml"), p.path("runtime/desktop/config.bin")).unwrap();
    let view = Viewer::start(p.root(), &["-o", "runtime/desktop"]);
    for path in [
        "../../assetc.yml",
        "..%2F..%2Fassetc.yml",
        "%2e%2e/%2e%2e/assetc.yml",
        "/etc/passwd",
        "models/../../../assetc.yml",
        "escape.bin",
        "config.bin",
    ] {
        let error = view.error(&format!("/api/file?path={path}"), 403);
        assert!(error.contains("refused"), "{path}: {error}");
    }
    assert!(
        view.error("/api/file?path=missing.ktx2", 404)
            .contains("missing.ktx2")
    );
    assert!(view.error("/api/file", 400).contains("path"));
    assert_eq!(view.get_as("attacker.example:80", "/api/assets").0, 403);
    assert_eq!(
        view.get_as(&format!("localhost:{}", view.port), "/api/assets")
            .0,
        200
    );
}

#[test]
fn a_corrupt_file_shows_its_reader_error_and_the_server_goes_on() {
    let p = Project::built_demo();
    let mesh = p.path("runtime/desktop/props/box.hmesh");
    let mut bytes = fs::read(&mesh).unwrap();
    bytes.truncate(bytes.len() / 2);
    fs::write(&mesh, &bytes).unwrap();
    // Dimensions the levels cannot hold: the KTX2 reader refuses them, so
    // they never reach the transcoder.
    let texture = p.path("runtime/desktop/textures/checker.ktx2");
    let mut bytes = fs::read(&texture).unwrap();
    bytes[20..28].copy_from_slice(&[0xff; 8]);
    fs::write(&texture, &bytes).unwrap();
    let icon = p.path("runtime/desktop/ui/icon.ktx2");
    let bytes = fs::read(&icon).unwrap();
    fs::write(&icon, &bytes[..100]).unwrap();
    let view = Viewer::start(p.root(), &[]);
    let error = view.error("/api/mesh?path=props/box.hmesh", 422);
    assert!(
        error.starts_with("props/box.hmesh: ") && error.contains("offset"),
        "{error}"
    );
    let error = view.error("/api/texture?path=textures/checker.ktx2", 422);
    assert!(
        error.starts_with("textures/checker.ktx2: offset ")
            && error.contains("uncompressedByteLength"),
        "{error}"
    );
    view.error("/api/texture/image?path=textures/checker.ktx2&level=0", 422);
    let error = view.error("/api/texture?path=ui/icon.ktx2", 422);
    assert!(error.starts_with("ui/icon.ktx2: offset "), "{error}");
    view.error("/api/texture/image?path=ui/button.ktx2&level=99", 422);
    view.error("/api/texture/image?path=ui/button.ktx2&level=x", 400);
    let assets = view.json("/api/assets");
    let invalid: Vec<&str> = assets["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["type"] == "invalid")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        invalid,
        ["props/box.hmesh", "textures/checker.ktx2", "ui/icon.ktx2"]
    );
    let check = view.json("/api/check");
    assert_eq!(check["ok"], false);
    let problems = check["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["path"] == "props/box.hmesh"),
        "{check}"
    );
}

#[test]
fn a_pack_is_served_alone() {
    let p = shared::demo();
    let view = Viewer::start(p.root(), &["runtime/desktop.hpack"]);
    let assets = view.json("/api/assets");
    assert_eq!(assets["source_kind"], "pack");
    let bytes = fs::read(p.path("runtime/desktop.hpack")).unwrap();
    let pack = hpack::parse(&bytes).unwrap();
    let paths: Vec<&str> = assets["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    let entries: Vec<&str> = pack.iter().map(|e| e.path).collect();
    assert_eq!(paths, entries);
    assert_eq!(
        view.json("/api/mesh?path=models/crate.hmesh")["material"]["path"],
        "models/crate.hmat"
    );
    assert_eq!(view.json("/api/packs")["packs"][0]["name"], "desktop");
    assert_eq!(
        view.json("/api/pack?name=desktop")["entries"]
            .as_array()
            .unwrap()
            .len(),
        entries.len()
    );
    assert_eq!(
        view.error("/api/pack?name=default", 404),
        "no pack named \"default\" here; a pack is named by its file name without .hpack: desktop"
    );
    assert_eq!(view.json("/api/check")["ok"], true);
    view.error("/api/file?path=../desktop.hpack", 403);
    // A pack alone belongs to no project: no watcher to follow, no waiting.
    let live = view.json("/api/live?since=0&wait=20");
    assert_eq!(
        (&live["following"], &live["connected"]),
        (&false.into(), &false.into())
    );
    // The page opens the pack by the same name as beside its folder.
    let url = format!("http://127.0.0.1:{}/#pack=desktop", view.port);
    ready_page(&url);
    drop(view);

    let named = Viewer::start(p.root(), &["runtime/desktop.level1.hpack"]);
    assert_eq!(
        named.json("/api/packs")["packs"][0]["name"],
        "desktop.level1"
    );
    named.json("/api/pack?name=desktop.level1");
}

/// The page in headless Chromium: each view reaches `ready`, its pixels are
/// not blank (the mesh covers part of its canvas, the texture shows the
/// decoded texels, the preview holds ink), and the page logged no error.
/// `ASSETC_VIEW_SHOTS=DIR` keeps the screenshots (docs/inspect.md shows them).
#[test]
fn the_page_renders_in_chromium() {
    let p = shared::demo();
    let view = Viewer::start(p.root(), &[]);
    let base = format!("http://127.0.0.1:{}/", view.port);
    let shots = tempfile::tempdir().unwrap();
    let checker = assetc::encode::image::decode_image(
        &view
            .get("/api/texture/image?path=textures%2Fchecker.ktx2&level=0")
            .1,
    )
    .unwrap();
    let cases = [
        (
            "mesh",
            // The head light has a plain background, against which
            // covered_fraction measures the mesh.
            "#asset=models%2Fcrate.hmesh&meshlets=1&wire=1&bounds=1&env=headlight",
        ),
        ("texture", "#asset=textures%2Fchecker.ktx2&zoom=1"),
        ("font", "#asset=fonts%2FDejaVuSans-Latin1.hfont"),
        ("pack", "#pack=desktop"),
        ("embed", "#asset=data%2Fcredits.txt"),
        ("shader", "#asset=shaders%2FLit%2Ffragment.spv"),
    ];
    for (name, route) in cases {
        let url = format!("{base}{route}");
        let (_, body, shot) = shot_page_at(&url, 1280, shots.path(), &format!("view-{name}.png"));
        let body = body.as_str();
        assert_eq!(
            attribute(body, "data-view").as_deref(),
            Some(name),
            "{name}: <body{body}>"
        );
        assert_eq!(
            attribute(body, "data-state").as_deref(),
            Some("ready"),
            "{name}: <body{body}>"
        );
        assert!(
            distinct_colours(&shot.pixels) > 50,
            "{name}: the page looks blank"
        );
        let canvas = attribute(body, "data-canvas").map(|rect| {
            let n: Vec<u32> = rect.split(',').map(|v| v.parse().unwrap()).collect();
            (n[0], n[1], n[2], n[3])
        });
        match name {
            "mesh" => {
                let covered = covered_fraction(&shot, canvas.unwrap());
                assert!(
                    (0.05..0.95).contains(&covered),
                    "the mesh covers {covered} of its canvas"
                );
            }
            "texture" => {
                let (x, y, w, h) = canvas.unwrap();
                assert_eq!((w, h), (checker.width, checker.height));
                let worst = (0..h)
                    .flat_map(|row| (0..w).map(move |col| (row, col)))
                    .map(|(row, col)| {
                        let at = |image: &assetc::encode::image::Rgba8Image, x: u32, y: u32| {
                            let i = ((y * image.width + x) * 4) as usize;
                            [image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]]
                        };
                        let (a, b) = (at(&shot, x + col, y + row), at(&checker, col, row));
                        (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap()
                    })
                    .max()
                    .unwrap();
                assert!(
                    worst <= 3,
                    "the texture on screen differs from the decoded one by {worst}"
                );
            }
            "font" => {
                let covered = covered_fraction(&shot, canvas.unwrap());
                assert!(covered > 0.03, "the text preview holds {covered} ink");
            }
            _ => {}
        }
    }
    assert_no_page_errors(&view);
    keep_shots(shots.path());
}

/// Asserts that the page reported no script error to the server.
fn assert_no_page_errors(view: &Viewer) {
    let log = view.json("/api/client-log");
    assert_eq!(
        log["messages"],
        serde_json::json!([]),
        "the page logged errors"
    );
}

/// Copies the screenshots in `dir` to the folder `ASSETC_VIEW_SHOTS` names,
/// when it is set (`ASSETC_VIEW_SHOTS=docs/images` refreshes the docs').
fn keep_shots(dir: &Path) {
    if let Some(keep) = std::env::var_os("ASSETC_VIEW_SHOTS") {
        for entry in fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            fs::copy(entry.path(), Path::new(&keep).join(entry.file_name())).unwrap();
        }
    }
}

/// Runs headless Chromium on `url` with a fresh profile (flags as this
/// machine's closed network needs), a window `width` pixels wide and 5/8 as
/// high, and the extra arguments.
fn chromium_at(url: &str, width: u32, extra: &[&str]) -> std::process::Output {
    let program = std::env::var("ASSETC_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let profile = tempfile::tempdir().unwrap();
    Command::new(&program)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--force-color-profile=srgb",
            "--hide-scrollbars",
            "--virtual-time-budget=8000",
        ])
        .arg(format!("--window-size={width},{}", width * 5 / 8))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .output()
        .unwrap_or_else(|e| panic!("{program} does not start ({e}); tools/ensure-deps --for-tests installs Debian's chromium"))
}

/// The value of `name="..."` in a tag's attributes.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    tag[start..].split('"').next().map(str::to_owned)
}

/// How many different colours the image holds (up to a few hundred).
fn distinct_colours(pixels: &[u8]) -> usize {
    let mut seen = std::collections::HashSet::new();
    for pixel in pixels.chunks_exact(4) {
        seen.insert([pixel[0], pixel[1], pixel[2]]);
        if seen.len() > 500 {
            break;
        }
    }
    seen.len()
}

/// The share of the visible part of the rectangle whose pixels differ from
/// its top-left pixel (the background) by more than 24 in some channel.
fn covered_fraction(
    shot: &assetc::encode::image::Rgba8Image,
    (x, y, w, h): (u32, u32, u32, u32),
) -> f64 {
    let right = (x + w).min(shot.width);
    let bottom = (y + h).min(shot.height);
    let at = |px: u32, py: u32| {
        let i = ((py * shot.width + px) * 4) as usize;
        [shot.pixels[i], shot.pixels[i + 1], shot.pixels[i + 2]]
    };
    let background = at(x + 2, y + 2);
    let (mut covered, mut total) = (0u64, 0u64);
    for py in y..bottom {
        for px in x..right {
            total += 1;
            let c = at(px, py);
            if (0..3).any(|i| c[i].abs_diff(background[i]) > 24) {
                covered += 1;
            }
        }
    }
    covered as f64 / total.max(1) as f64
}

/// The demo's checker re-encoded as BC7 by an independent encoder, and an
/// HDR (RGBA16F, values up to 8) texture beside it: the page is told the
/// format and the PSNR against checker.png, and the HDR image's pixels
/// follow the exposure.
#[test]
fn bc7_and_hdr_textures_render_with_a_psnr_and_an_exposure() {
    let p = Project::built_demo();
    let source = assetc::encode::image::decode_image(
        &fs::read(p.path("assets/textures/checker.png")).unwrap(),
    )
    .unwrap();
    let bc7 = intel_tex_2::bc7::compress_blocks(
        &intel_tex_2::bc7::alpha_basic_settings(),
        &intel_tex_2::RgbaSurface {
            data: &source.pixels,
            width: source.width,
            height: source.height,
            stride: source.width * 4,
        },
    );
    let format = ktx2::TexelFormat::Bc7 { srgb: true };
    let checker = ktx2::write_single_level(format, source.width, source.height, &bc7);
    fs::write(p.path("runtime/desktop/textures/checker.ktx2"), checker).unwrap();
    let hdr = hdr_ramp();
    fs::write(p.path("runtime/desktop/ui/icon.ktx2"), hdr).unwrap();

    let view = Viewer::start(p.root(), &[]);
    let texture = view.json("/api/texture?path=textures/checker.ktx2");
    assert_eq!(texture["format"], "bc7 sRGB");
    assert_eq!(texture["hdr"], false);
    let psnr = texture["psnr"].as_f64().unwrap();
    assert!(psnr > 30.0, "BC7 PSNR against checker.png: {psnr}");

    let icon = view.json("/api/texture?path=ui/icon.ktx2");
    assert_eq!(icon["hdr"], true);
    assert_eq!(icon["format"], "rgba16f");
    let url = icon["images"][0]["url"].as_str().unwrap().to_owned();
    let pixels = |exposure: &str| {
        let (status, png) = view.get(&format!("{url}&exposure={exposure}"));
        assert_eq!(status, 200);
        let decoded = assetc::encode::image::decode_image(&png).unwrap();
        decoded.pixels
    };
    let (plain, dimmed) = (pixels("0"), pixels("-3"));
    assert_ne!(plain, dimmed, "the exposure changes the pixels");
    // Texel 12 is 1.5: clipped at 0 EV, 1.5/8 (120 in sRGB) at -3 EV.
    assert_eq!(plain[12 * 4], 255);
    assert_eq!(dimmed[12 * 4], 120);
    view.error(&format!("{url}&exposure=x"), 400);
}

/// An 8x8 RGBA16F texture whose texel `i` is `i / 8` in every colour
/// channel (up to 7.875), alpha 1.
fn hdr_ramp() -> Vec<u8> {
    let ramp: Vec<u8> = (0..64)
        .flat_map(|i| {
            let value = half::f16::from_f32(i as f32 / 8.0).to_le_bytes();
            [value, value, value, half::f16::ONE.to_le_bytes()].concat()
        })
        .collect();
    ktx2::write_single_level(ktx2::TexelFormat::Rgba16Float, 8, 8, &ramp)
}

/// sRGB-encoded byte to linear light, by the standard formula.
fn srgb_to_linear(byte: u8) -> f64 {
    let c = f64::from(byte) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light to an sRGB-encoded byte, by the standard formula.
fn linear_to_srgb(value: f64) -> u8 {
    let c = if value <= 0.003_130_8 {
        value * 12.92
    } else {
        1.055 * value.powf(1.0 / 2.4) - 0.055
    };
    (c * 255.0).round().clamp(0.0, 255.0) as u8
}

/// An opaque sRGB picture shrunk by a whole `factor` on both axes, each
/// output texel the mean of its `factor` x `factor` box in linear light.
fn box_shrunk(image: &assetc::encode::image::Rgba8Image, factor: u32) -> Vec<u8> {
    let (width, height) = (image.width / factor, image.height / factor);
    let mut out = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let mut sums = [0.0_f64; 4];
            for dy in 0..factor {
                for dx in 0..factor {
                    let at = (((y * factor + dy) * image.width + x * factor + dx) * 4) as usize;
                    let texel = &image.pixels[at..at + 4];
                    for (c, (sum, &value)) in sums.iter_mut().zip(texel).enumerate() {
                        *sum += if c < 3 {
                            srgb_to_linear(value)
                        } else {
                            f64::from(value)
                        };
                    }
                }
            }
            let n = f64::from(factor * factor);
            out.extend((0..3).map(|c| linear_to_srgb(sums[c] / n)));
            out.push((sums[3] / n).round() as u8);
        }
    }
    out
}

/// The PSNR of two equally long RGBA8 buffers over every channel, in dB.
fn psnr(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let squared: f64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum();
    10.0 * (255.0_f64.powi(2) / (squared / a.len() as f64)).log10()
}

/// A texture that `max_size` shrank is compared with its source reduced
/// as the encoder reduces it, and the API says so; the value agrees with
/// an independent box filter in linear light and an independent BC7
/// decode.
#[test]
fn a_texture_shrunk_by_max_size_has_a_psnr_against_the_reduced_source() {
    let p = Project::new(
        "input: assets\noutput: out\ndefault:\n  texture: { format: bc7 }\n  rules:\n    - match: \"big/*\"\n      texture: { max_size: 32 }\n",
    );
    // A smooth opaque picture, so BC7 keeps it well and the PSNR is high.
    let (width, height) = (128_u32, 96_u32);
    let pixels: Vec<u8> = (0..width * height)
        .flat_map(|i| {
            let (x, y) = (i % width, i / width);
            [(x * 2) as u8, (y * 2) as u8, ((x + y) / 2) as u8, 255]
        })
        .collect();
    let source = assetc::encode::image::Rgba8Image {
        width,
        height,
        pixels,
    };
    p.write(
        "assets/big/photo.png",
        &assetc::view::texture::png_bytes(&source).unwrap(),
    );
    p.build(&[]);
    let view = Viewer::start(p.root(), &[]);
    let texture = view.json("/api/texture?path=big/photo.ktx2");
    assert_eq!(
        (texture["width"].as_u64(), texture["height"].as_u64()),
        (Some(32), Some(24))
    );
    assert_eq!(texture["source"], "big/photo.png");
    let reference = &texture["psnr_reference"];
    assert_eq!(reference["resized"], true, "{texture}");
    assert_eq!(
        (reference["width"].as_u64(), reference["height"].as_u64()),
        (Some(32), Some(24))
    );
    assert_eq!(reference["source_width"], 128);
    assert!(
        reference["filter"]
            .as_str()
            .unwrap()
            .contains("linear light")
    );
    let shown = texture["psnr"]
        .as_f64()
        .expect("a PSNR for a shrunk texture");
    let decoded = bc7_level0(&fs::read(p.path("out/big/photo.ktx2")).unwrap());
    let expected = psnr(&decoded, &box_shrunk(&source, 4));
    assert!(
        (shown - expected).abs() < 0.25,
        "the viewer says {shown} dB, an independent reduction gives {expected} dB"
    );
    assert!(shown > 30.0, "{shown}");
    let (page, _) = ready_page(&format!(
        "http://127.0.0.1:{}/#asset=big%2Fphoto.ktx2",
        view.port
    ));
    assert!(
        page.contains(
            "PSNR against big/photo.png resized from 128×96 to 32×24 with the area filter"
        ),
        "the page does not say what the texture was compared with"
    );
}

/// [`dumped_page`]: the DOM of the page at `url` and its `<body …>`
/// attributes, asserting that the view reached `data-state="ready"`.
fn ready_page(url: &str) -> (String, String) {
    let (dom, body) = dumped_page(url);
    assert_ready(url, &body);
    (dom, body)
}

/// Asserts that the page at `url`, whose `<body …>` attributes are `body`,
/// reached `data-state="ready"`.
fn assert_ready(url: &str, body: &str) {
    assert_eq!(
        attribute(body, "data-state").as_deref(),
        Some("ready"),
        "{url}: <body{body}>"
    );
}

/// The DOM of the page at `url` as headless Chromium leaves it in a 1280
/// px wide window, and the attributes of its `<body>` tag.
fn dumped_page(url: &str) -> (String, String) {
    dom_and_body(&chromium_at(url, 1280, &["--dump-dom"]))
}

/// The DOM a `--dump-dom` run printed, and the attributes of its `<body>`.
fn dom_and_body(run: &std::process::Output) -> (String, String) {
    let dom = String::from_utf8_lossy(&run.stdout).into_owned();
    let body = dom
        .split("<body")
        .nth(1)
        .and_then(|b| b.split('>').next())
        .unwrap_or_default()
        .to_owned();
    (dom, body)
}

/// The demo's mesh textures are compared with the glTF's images (a file
/// and one inside the .bin), the embed endpoint answers text as text and
/// binary as hex, and the shader endpoint reflects what the sources declare.
#[test]
fn mesh_textures_embeds_and_shaders_are_shown() {
    let p = Project::demo();
    let binary: Vec<u8> = (0..=255_u8).cycle().take(2000).collect();
    p.write("assets/data/noise.txt", &binary);
    p.build(&[]);
    let view = Viewer::start(p.root(), &[]);
    let tree = p.tree("runtime/desktop");

    let colour = view.json("/api/texture?path=models/crate/tex_0.ktx2");
    assert_eq!(colour["source"], "models/crate.gltf image 0");
    let source = assetc::encode::image::decode_image(
        &fs::read(p.path("assets/models/crate_color.png")).unwrap(),
    )
    .unwrap();
    let expected = psnr(
        &bc7_level0(&tree["models/crate/tex_0.ktx2"]),
        &source.pixels,
    );
    let shown = colour["psnr"].as_f64().expect("a PSNR for a mesh texture");
    assert!(
        (shown - expected).abs() < 0.01,
        "{shown} against {expected}"
    );
    let normal = view.json("/api/texture?path=models/crate/tex_1.ktx2");
    assert_eq!(normal["source"], "models/crate.gltf image 1");
    assert_eq!(normal["psnr_reference"]["channels"], "RG");
    assert!(normal["psnr"].as_f64().unwrap() > 30.0, "{normal}");
    // bumps.h.png is a 16-bit height map, rounded to 8 bits for BC4.
    let height = view.json("/api/texture?path=textures/bumps.h.ktx2");
    assert_eq!(height["psnr_reference"]["channels"], "R");
    assert!(height["psnr"].as_f64().unwrap() > 30.0, "{height}");

    let text = view.json("/api/embed?path=data/credits.txt");
    assert_eq!(text["text"], true);
    assert_eq!(
        text["content"].as_str().unwrap().as_bytes(),
        fs::read(p.path("assets/data/credits.txt")).unwrap()
    );
    let noise = view.json("/api/embed?path=data/noise.txt");
    assert_eq!(noise["text"], false);
    assert!(noise.get("content").is_none(), "{noise}");
    assert!(
        noise["hex"]
            .as_str()
            .unwrap()
            .starts_with("00000000  00 01 02")
    );
    assert_eq!(noise["truncated"], true);
    assert_eq!(noise["bytes"], 2000);

    // lit.vert declares the camera block at set 0, binding 0; lit.frag adds
    // baseColor and baseSampler at bindings 1 and 2.
    let vertex = view.json("/api/shader?path=shaders/Lit/vertex.spv");
    assert_eq!(
        vertex["entry_points"],
        serde_json::json!([{ "name": "main", "stage": "vertex", "workgroup_size": null }])
    );
    let slots = |shader: &Value| -> Vec<(u64, u64, String, String)> {
        shader["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["set"].as_u64().unwrap(),
                    b["binding"].as_u64().unwrap(),
                    b["name"].as_str().unwrap().to_owned(),
                    b["kind"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    assert_eq!(
        slots(&vertex),
        [(0, 0, "camera".into(), "uniform buffer".into())]
    );
    assert!(
        vertex["bindings"][0]["type"]
            .as_str()
            .unwrap()
            .contains("viewProjection: mat4x4<f32>")
    );
    let fragment = view.json("/api/shader?path=shaders/Lit/fragment.spv");
    assert_eq!(
        slots(&fragment),
        [
            (0, 0, "camera".into(), "uniform buffer".into()),
            (0, 1, "baseColor".into(), "sampled image".into()),
            (0, 2, "baseSampler".into(), "sampler".into()),
        ]
    );
    // post.wgsl: the compute entry point reads the scene and writes the
    // exposure state, at a workgroup size of 1.
    let exposure = view.json("/api/shader?path=shaders/Post/exposure.spv");
    assert_eq!(exposure["entry_points"][0]["stage"], "compute");
    assert_eq!(exposure["entry_points"][0]["name"], "exposure");
    assert_eq!(
        exposure["entry_points"][0]["workgroup_size"],
        serde_json::json!([1, 1, 1])
    );
    // Its module keeps the two resources it uses (not the sampler, which
    // only fsMain uses).
    assert_eq!(
        slots(&exposure),
        [
            (0, 0, "scene".into(), "sampled image".into()),
            (0, 2, "exposure_state".into(), "storage buffer".into()),
        ]
    );
    let wgsl = exposure["disassembly"]["text"].as_str().unwrap();
    assert!(wgsl.contains("@compute @workgroup_size(1, 1, 1)"), "{wgsl}");
    let error = view.error("/api/shader?path=data/credits.txt", 422);
    assert!(error.starts_with("data/credits.txt: "), "{error}");
    let (page, _) = ready_page(&format!(
        "http://127.0.0.1:{}/#asset=data%2Fnoise.txt",
        view.port
    ));
    assert!(page.contains("hex dump") && page.contains("00000000  00 01 02"));
    let (page, _) = ready_page(&format!(
        "http://127.0.0.1:{}/#asset=shaders%2FPost%2Fexposure.spv",
        view.port
    ));
    assert!(page.contains("exposure_state") && page.contains("1 × 1 × 1"));
    assert_no_page_errors(&view);
}

/// One Chromium run on the page at `url` in a window `width` pixels wide:
/// its DOM, the attributes of its `<body>` tag and its screenshot, kept as
/// `dir/name` (for [`keep_shots`]). Dumping and shooting in one run halves
/// the browser starts, which are most of these tests' time.
fn shot_page_at(
    url: &str,
    width: u32,
    dir: &Path,
    name: &str,
) -> (String, String, assetc::encode::image::Rgba8Image) {
    let file = dir.join(name);
    let screenshot = format!("--screenshot={}", file.display());
    let run = chromium_at(url, width, &["--dump-dom", &screenshot]);
    let (dom, body) = dom_and_body(&run);
    let bytes = fs::read(&file).unwrap_or_else(|e| {
        panic!(
            "{name}: no screenshot ({e}): {}",
            String::from_utf8_lossy(&run.stderr)
        )
    });
    (
        dom,
        body,
        assetc::encode::image::decode_image(&bytes).unwrap(),
    )
}

/// The numbers of a comma-separated attribute value.
fn numbers(text: &str) -> Vec<f64> {
    text.split(',').map(|v| v.parse().unwrap()).collect()
}

/// The texel probe: the API's value at (12, 34) and the range of every
/// channel agree with an independent BC7 decoding of the checker, the page
/// shows the same for `probe=12,34`, and an HDR texture is probed as
/// floats above 1.
#[test]
fn the_texel_probe_and_the_value_range_match_the_decoded_texture() {
    let p = Project::built_demo();
    let hdr = hdr_ramp();
    fs::write(p.path("runtime/desktop/ui/hdr.ktx2"), hdr).unwrap();
    let view = Viewer::start(p.root(), &[]);
    let file = fs::read(p.path("runtime/desktop/textures/checker.ktx2")).unwrap();
    let width = ktx2::parse(&file).unwrap().header().pixel_width as usize;
    let decoded = bc7_level0(&file);
    let expected: Vec<u8> = decoded[(34 * width + 12) * 4..][..4].to_vec();
    let (mut low, mut high) = ([255u8; 4], [0u8; 4]);
    for texel in decoded.chunks_exact(4) {
        for c in 0..4 {
            low[c] = low[c].min(texel[c]);
            high[c] = high[c].max(texel[c]);
        }
    }

    let texel = view.json("/api/texture/texel?path=textures/checker.ktx2&x=12&y=34");
    assert_eq!(texel["encoding"], "unorm8");
    assert_eq!(texel["value"], serde_json::json!(expected));
    let range = view.json("/api/texture/range?path=textures/checker.ktx2");
    assert_eq!(range["min"], serde_json::json!(low));
    assert_eq!(range["max"], serde_json::json!(high));
    let outside = view.error(
        &format!("/api/texture/texel?path=textures/checker.ktx2&x={width}&y=0"),
        422,
    );
    assert!(outside.contains("textures/checker.ktx2"), "{outside}");
    view.error("/api/texture/texel?path=textures/checker.ktx2&x=1", 400);

    // Texel 12 of the ramp is 1.5; the largest is 63/8.
    let float = view.json("/api/texture/texel?path=ui/hdr.ktx2&x=4&y=1");
    assert_eq!(float["encoding"], "float");
    assert_eq!(float["value"], serde_json::json!([1.5, 1.5, 1.5, 1.0]));
    let range = view.json("/api/texture/range?path=ui/hdr.ktx2");
    assert_eq!(range["max"], serde_json::json!([7.875, 7.875, 7.875, 1.0]));

    let base = format!("http://127.0.0.1:{}/", view.port);
    let url = format!("{base}#asset=textures%2Fchecker.ktx2&probe=12,34&zoom=4");
    let shots = tempfile::tempdir().unwrap();
    let (_, body, _) = shot_page_at(&url, 1280, shots.path(), "view-texel.png");
    assert_ready(&url, &body);
    let shown: Vec<String> = expected.iter().map(u8::to_string).collect();
    assert_eq!(
        attribute(&body, "data-probe"),
        Some(format!("12,34,0,0,0,0:{}", shown.join(","))),
        "<body{body}>"
    );
    let join = |v: [u8; 4]| v.map(|c| c.to_string()).join(",");
    assert_eq!(
        attribute(&body, "data-range"),
        Some(format!("{};{}", join(low), join(high)))
    );
    // No watcher runs: the page says it waits for one, and logs nothing.
    assert_eq!(attribute(&body, "data-live").as_deref(), Some("waiting"));
    assert_no_page_errors(&view);
    keep_shots(shots.path());
}

/// Pan: a right-drag moves the camera's target, an orbit drag turns the
/// camera about it; a camera in the hash is the one shown.
#[test]
fn pan_moves_the_camera_target_and_the_hash_keeps_the_camera() {
    let p = shared::demo();
    let view = Viewer::start(p.root(), &[]);
    let base = format!("http://127.0.0.1:{}/#asset=models%2Fcrate.hmesh", view.port);
    let camera = |route: &str| {
        let (_, body) = ready_page(&format!("{base}{route}"));
        numbers(&attribute(&body, "data-camera").expect("data-camera"))
    };
    let still = camera("");
    let panned = camera("&drag=pan,120,0");
    let orbited = camera("&drag=orbit,120,0");
    assert_eq!(
        panned[..3],
        still[..3],
        "a pan keeps the angles and distance"
    );
    let moved: f64 = (3..6)
        .map(|i| (panned[i] - still[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(
        moved > 0.1,
        "the target moved {moved}: {panned:?} from {still:?}"
    );
    assert_eq!(orbited[3..], still[3..], "an orbit keeps the target");
    assert!((orbited[0] - still[0]).abs() > 0.5, "{orbited:?}");
    let text = panned
        .iter()
        .map(f64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    assert_eq!(camera(&format!("&cam={text}")), panned);
    assert_no_page_errors(&view);
}

/// The mesh view is lit by the studio unless told otherwise; with an IBL
/// set in the project (a panorama built into its cubes) the set is offered
/// and lights it differently. Without one, it is not offered.
#[test]
fn the_mesh_is_lit_by_the_studio_or_by_the_projects_ibl_set() {
    let p = Project::demo();
    let config = fs::read_to_string(p.path("assetc.yml")).unwrap();
    p.write(
        "assetc.yml",
        config
            .replacen("default:\n", "default:\n  ibl: { size: 32 }\n", 1)
            .as_bytes(),
    );
    let sky = assetc::encode::ibl::panorama::Panorama::from_xy(64, 32, |_, y| {
        if y < 16 {
            [0.4, 0.6, 2.0]
        } else {
            [0.5, 0.25, 0.05]
        }
    });
    p.write("assets/env/sky.ibl.hdr", &sky.to_radiance_hdr());
    p.build(&[]);
    let view = Viewer::start(p.root(), &[]);
    let sets = view.json("/api/environments");
    assert_eq!(sets["environments"][0]["name"], "env/sky");
    assert_eq!(sets["environments"][0]["levels"], 3);
    assert_eq!(
        sets["environments"][0]["sh"].as_array().map(Vec::len),
        Some(27)
    );
    let values = view.json("/api/texture/values?path=env/sky.specular.ktx2&level=2&face=2");
    assert_eq!(
        (values["width"].as_u64(), values["height"].as_u64()),
        (Some(8), Some(8))
    );
    assert_eq!(floats(&values["values"]).len(), 8 * 8 * 4);

    let base = format!("http://127.0.0.1:{}/#asset=models%2Fcrate.hmesh", view.port);
    let shots = tempfile::tempdir().unwrap();
    let mut lit = Vec::new();
    for (env, name) in [
        ("studio", "view-studio.png"),
        ("ibl:env/sky", "view-ibl.png"),
    ] {
        let url = format!("{base}&env={env}");
        let (dom, body, shot) = shot_page_at(&url, 1280, shots.path(), name);
        assert_ready(&url, &body);
        assert!(
            dom.contains(r#"value="ibl:env/sky""#),
            "the IBL set is not offered"
        );
        assert_eq!(attribute(&body, "data-environment").as_deref(), Some(env));
        let canvas = numbers(&attribute(&body, "data-canvas").unwrap());
        lit.push((shot, canvas));
    }
    let [(studio, canvas), (ibl, _)] = [lit.remove(0), lit.remove(0)];
    let (x, y, w, h) = (
        canvas[0] as u32,
        canvas[1] as u32,
        canvas[2] as u32,
        canvas[3] as u32,
    );
    let mut differing = 0u64;
    for py in y..(y + h).min(studio.height) {
        for px in x..(x + w).min(studio.width) {
            let i = ((py * studio.width + px) * 4) as usize;
            if (0..3).any(|c| studio.pixels[i + c].abs_diff(ibl.pixels[i + c]) > 24) {
                differing += 1;
            }
        }
    }
    let share = differing as f64 / f64::from(w * h);
    assert!(
        share > 0.3,
        "studio and IBL differ on {share} of the canvas"
    );
    assert_no_page_errors(&view);
    keep_shots(shots.path());
    drop(view);

    // The demo alone has no IBL set: only the studio and the head light.
    let plain = shared::demo();
    let view = Viewer::start(plain.root(), &[]);
    assert_eq!(
        view.json("/api/environments")["environments"],
        serde_json::json!([])
    );
    let url = format!("http://127.0.0.1:{}/#asset=models%2Fcrate.hmesh", view.port);
    let (dom, _) = dumped_page(&url);
    assert!(
        dom.contains(r#"value="studio""#) && !dom.contains("ibl:"),
        "{dom}"
    );
}

/// Live refresh: with `assetc watch` running on the project, the viewer
/// follows its feed; an edited PNG shows up as a new version naming the
/// rebuilt texture, the server answers with the new texels, and a page on
/// that texture reloads it (keeping its zoom) while a page on another asset
/// does not.
#[test]
fn the_viewer_follows_assetc_watch_and_reloads_what_changed() {
    let p = Project::demo();
    let watch = common::watch::Watch::start(&p);
    let address = watch.address().to_string();

    let view = Viewer::start(p.root(), &[]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut live = view.json("/api/live");
    while live["connected"] != true {
        assert!(
            std::time::Instant::now() < deadline,
            "never connected: {live}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
        live = view.json("/api/live");
    }
    assert_eq!(live["feed"], address.as_str());
    let since = live["version"].as_u64().unwrap();
    let image = "/api/texture/image?path=textures%2Fchecker.ktx2&level=0";
    let before = view.get(image).1;

    p.write(
        "assets/textures/checker.png",
        &fs::read(p.path("assets/ui/icon.png")).unwrap(),
    );
    let mut version = since;
    let rebuilt = loop {
        assert!(std::time::Instant::now() < deadline + std::time::Duration::from_secs(60));
        let answer = view.json(&format!("/api/live?since={version}&wait=20"));
        version = answer["version"].as_u64().unwrap();
        let changed = answer["builds"].as_array().unwrap().iter().any(|b| {
            b["changed"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c == "textures/checker.ktx2")
        });
        if changed {
            break answer;
        }
    };
    assert!(version > since, "{rebuilt}");
    assert_ne!(
        view.get(image).1,
        before,
        "the server still shows the old texels"
    );

    let base = format!("http://127.0.0.1:{}/", view.port);
    let (_, body) = ready_page(&format!(
        "{base}#asset=textures%2Fchecker.ktx2&zoom=2&live={since}"
    ));
    assert_eq!(
        attribute(&body, "data-live").as_deref(),
        Some("connected"),
        "<body{body}>"
    );
    assert_eq!(
        attribute(&body, "data-live-reloaded").as_deref(),
        Some("textures/checker.ktx2")
    );
    let canvas = numbers(&attribute(&body, "data-canvas").unwrap());
    let icon = view.json("/api/texture?path=textures/checker.ktx2");
    assert_eq!(
        canvas[2],
        2.0 * icon["width"].as_f64().unwrap(),
        "the zoom was lost"
    );
    let (_, other) = ready_page(&format!("{base}#asset=models%2Fcrate.hmesh&live={since}"));
    assert_eq!(
        attribute(&other, "data-live-reloaded"),
        None,
        "<body{other}>"
    );
    assert_no_page_errors(&view);
    drop(watch);
}

/// An OBJ with one 12 × 12 grid (288 triangles, which the LOD simplifier
/// reduces) and `pieces` one-triangle groups (which it cannot reduce): a mesh
/// whose LOD rows list many stalled submeshes.
fn grid_and_pieces_obj(pieces: usize) -> String {
    let n = 12;
    let mut obj = String::from("g grid\n");
    for j in 0..=n {
        for i in 0..=n {
            obj += &format!("v {} {} 0\n", i as f32 / n as f32, j as f32 / n as f32);
        }
    }
    let at = |i: usize, j: usize| j * (n + 1) + i + 1;
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            obj += &format!("f {a} {b} {c}\nf {a} {c} {d}\n");
        }
    }
    let first = (n + 1) * (n + 1);
    for k in 0..pieces {
        let x = k as f32 * 0.1;
        obj += &format!(
            "g piece{k}\nv {x} 1.2 0\nv {} 1.2 0\nv {x} 1.3 0\nf {} {} {}\n",
            x + 0.05,
            first + 3 * k + 1,
            first + 3 * k + 2,
            first + 3 * k + 3
        );
    }
    obj
}

/// The page at 1280 and 1920 px: every view reaches `ready`, and the layout
/// facts the page records with `?layout` (layout.js) show nothing cut off
/// (no clipped or sideways-scrolling cell, header, table or preview) and no
/// word broken across lines; a mesh whose LODs stalled in 45 submeshes shows
/// a folded count, a 2D texture's caption names no face, a cube map's does,
/// and a material whose texture file is gone shows the dangling slot in red
/// in the material and mesh views. `ASSETC_VIEW_SHOTS=DIR` keeps the
/// screenshots as `view-<name>-<width>.png` (docs/inspect.md shows them).
#[test]
fn the_page_fits_windows_1280_and_1920_pixels_wide() {
    let p = Project::demo();
    p.write(
        "assets/props/pieces.obj",
        grid_and_pieces_obj(45).as_bytes(),
    );
    p.build(&["--pack"]);
    fs::remove_file(p.path("runtime/desktop/models/crate/tex_0.ktx2")).unwrap();
    let view = Viewer::start(p.root(), &[]);
    let base = format!("http://127.0.0.1:{}/?layout", view.port);
    let shots = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &[&str], &[&str]); 9] = [
        ("list", "", &[], &[]),
        (
            "lods",
            "#asset=props%2Fpieces.hmesh",
            &[
                r#"<details class="stalled"><summary>45 of 46 submeshes stalled</summary>"#,
                "#45→0",
            ],
            &["<details class=\"stalled\" open"],
        ),
        (
            "texture",
            "#asset=textures%2Fchecker.ktx2&zoom=1",
            &["level 0: 64 × 64, channel RGBA"],
            &["face +X", "layer 0", "slice 0"],
        ),
        ("cube", "#asset=sky.env.ktx2", &["level 0, face +X: "], &[]),
        ("font", "#asset=fonts%2FDejaVuSans-Latin1.hfont", &[], &[]),
        (
            "material",
            "#asset=models%2Fcrate.hmat",
            &[
                r#"<div class="slot missing" title="models/crate/tex_0.ktx2: listed in the manifest but missing">"#,
                "row 0 base colour: models/crate/tex_0.ktx2: listed in the manifest but missing",
            ],
            &[],
        ),
        (
            "missing",
            "#asset=models%2Fcrate.hmesh",
            &[r#"<div class="missing-box"><strong>models/crate.hmat: 1 texture missing"#],
            &[],
        ),
        ("pack", "#pack=desktop", &[], &[]),
        (
            "shader",
            "#asset=shaders%2FLit%2Ffragment.spv",
            &["3 bindings"],
            &[],
        ),
    ];
    for width in [1280, 1920] {
        for (name, route, present, absent) in cases {
            let url = format!("{base}{route}");
            let (dom, body, shot) = shot_page_at(
                &url,
                width,
                shots.path(),
                &format!("view-{name}-{width}.png"),
            );
            let fact = |key: &str| attribute(&body, key).unwrap_or_else(|| "(none)".into());
            let at = format!("{name} at {width} px");
            assert_eq!(fact("data-state"), "ready", "{at}");
            assert_eq!(fact("data-layout"), "measured", "{at}");
            assert_eq!(fact("data-cut"), "", "{at}: cut off");
            assert_eq!(fact("data-split"), "", "{at}: words broken across lines");
            for text in present {
                assert!(dom.contains(text), "{at}: no {text:?}");
            }
            for text in absent {
                assert!(!dom.contains(text), "{at}: {text:?}");
            }
            assert_eq!(shot.width, width, "{at}");
            assert!(
                distinct_colours(&shot.pixels) > 50,
                "{at}: the page looks blank"
            );
        }
    }
    assert_no_page_errors(&view);
    keep_shots(shots.path());
}

/// `seconds` of a sine at `rate` and `amplitude` on each of `channels`
/// channels (220 Hz, then a fifth higher on each next one), with `looping`.
fn tone(
    rate: u32,
    channels: usize,
    seconds: f32,
    amplitude: f32,
    looping: Option<assetc::encode::audio::Loop>,
) -> assetc::encode::audio::Sound {
    let frames = (rate as f32 * seconds) as usize;
    let samples = (0..frames)
        .flat_map(|i| {
            (0..channels).map(move |channel| {
                let hz = 220.0 * 1.5_f32.powi(channel as i32);
                amplitude * (std::f32::consts::TAU * hz * i as f32 / rate as f32).sin()
            })
        })
        .collect();
    assetc::encode::audio::Sound {
        rate,
        channels,
        samples,
        looping,
    }
}

/// Two short sounds: a looping stereo WAV kept as PCM and a mono one made
/// QOA by a rule, neither at -16 LUFS. The API gives each record's figures,
/// a waveform of 800 [min, max] buckets per channel, the loop in frames and
/// seconds, and the source's loudness beside the record's (the same answer
/// for the record and for its sound file); the WAV endpoint serves the QOA
/// sound as 16-bit PCM of the record's shape; and the page shows the panel,
/// the waveform canvas and, for the looping sound only, the seam button.
#[test]
fn sounds_show_their_figures_waveform_and_loudness_and_play_as_wav() {
    use assetc::encode::audio::decode::decode;
    use assetc::encode::audio::process::measure;
    use assetc::encode::audio::{Loop, wav::write_pcm16};
    use assetc::format::hsnd::read_hsnd;

    let p = Project::new(
        "input: assets\noutput: out\ndefault:\n  rules:\n    - match: \"ui/**\"\n      audio: { format: qoa }\n",
    );
    let looping = Some(Loop {
        start: 2205,
        end: 11025,
    });
    let sources = [
        ("music/loop.wav", tone(22050, 2, 0.6, 0.2, looping)),
        ("ui/click.wav", tone(16000, 1, 0.3, 0.5, None)),
    ];
    for (path, sound) in &sources {
        p.write(&format!("assets/{path}"), &write_pcm16(sound));
    }
    p.build(&[]);
    let view = Viewer::start(p.root(), &[]);

    for ((source, sound), (stem, sound_file)) in sources.iter().zip([
        ("music/loop", "music/loop.wav"),
        ("ui/click", "ui/click.qoa"),
    ]) {
        let record = read_hsnd(&fs::read(p.path(&format!("out/{stem}.hsnd"))).unwrap()).unwrap();
        let shown = view.json(&format!("/api/sound?path={stem}.hsnd"));
        assert_eq!(shown["sound_path"], sound_file);
        let figures = (
            shown["codec"].as_str(),
            shown["rate"].as_u64(),
            shown["channels"].as_u64(),
            shown["frames"].as_u64(),
        );
        let stated = (
            record.codec().map(|c| c.name()),
            Some(u64::from(record.rate)),
            Some(u64::from(record.channels)),
            Some(record.frames),
        );
        assert_eq!(figures, stated, "{stem}");
        assert_eq!(shown["seconds"].as_f64(), Some(record.duration_seconds()));
        assert_eq!(
            view.json(&format!("/api/sound?path={sound_file}")),
            shown,
            "the sound file shows its record's panel"
        );

        let waveform = &shown["waveform"];
        assert_eq!(waveform["buckets"], 800);
        let channels = waveform["channels"].as_array().unwrap();
        assert_eq!(channels.len(), sound.channels);
        for outline in channels {
            let outline = outline.as_array().unwrap();
            assert_eq!(outline.len(), 800);
            assert!(outline.iter().all(|b| b[0].as_f64() <= b[1].as_f64()));
        }

        let loudness = &shown["loudness"];
        assert_eq!(loudness["source"], *source);
        let (lufs, peak) = measure(sound).unwrap();
        let before = (
            loudness["before"]["lufs"].as_f64().unwrap(),
            f64::from(lufs),
        );
        assert!(
            (before.0 - before.1).abs() < 0.2,
            "{stem}: before {before:?}"
        );
        let true_peak = loudness["before"]["true_peak"].as_f64().unwrap();
        assert!((true_peak - f64::from(peak)).abs() < 0.2, "{stem}");
        // The API writes the record's f32 figures as short as they go.
        let after_figures = ["lufs", "true_peak"].map(|key| loudness["after"][key].as_f64());
        let (after, after_peak) = record.loudness().unwrap();
        assert_eq!(
            after_figures.map(|v| v.map(|v| v as f32)),
            [Some(after), Some(after_peak)]
        );
        assert!(
            (before.0 - f64::from(after)).abs() > 0.5,
            "{stem}: the source was not at -16 LUFS"
        );

        let (status, content_type, wav) = view.request(
            &format!("127.0.0.1:{}", view.port),
            &format!("/api/sound/wav?path={stem}.hsnd"),
        );
        assert_eq!((status, content_type.as_str()), (200, "audio/wav"));
        let played = decode(&wav, "wav").unwrap();
        assert_eq!(
            (played.rate, played.channels as u32, played.frames() as u64),
            (record.rate, record.channels, record.frames),
            "{stem}"
        );
    }

    let music = view.json("/api/sound?path=music/loop.hsnd");
    let seconds = |key: &str| music["loop"][key].as_f64().unwrap();
    assert_eq!(
        (
            music["loop"]["start"].as_u64(),
            music["loop"]["end"].as_u64()
        ),
        (Some(2205), Some(11025))
    );
    assert!(
        (seconds("start_seconds") - 0.1).abs() < 1e-9
            && (seconds("end_seconds") - 0.5).abs() < 1e-9
    );
    assert_eq!(
        view.json("/api/sound?path=ui/click.hsnd")["loop"],
        Value::Null
    );
    let error = view.error("/api/sound?path=assets.h", 404);
    assert!(
        error.starts_with("assets.hsnd (the record of assets.h)"),
        "{error}"
    );

    let shots = tempfile::tempdir().unwrap();
    for (route, seam) in [("music%2Floop.hsnd", true), ("ui%2Fclick.qoa", false)] {
        let url = format!("http://127.0.0.1:{}/?layout#asset={route}", view.port);
        let name = format!("view-sound-{}.png", if seam { "loop" } else { "click" });
        let (dom, body, _) = shot_page_at(&url, 1280, shots.path(), &name);
        assert_ready(&url, &body);
        assert_eq!(attribute(&body, "data-view").as_deref(), Some("sound"));
        assert_eq!(attribute(&body, "data-cut").as_deref(), Some(""), "{route}");
        assert!(dom.contains(r#"<section class="panel sound">"#), "{route}");
        assert!(dom.contains(r#"<canvas class="waveform""#), "{route}");
        assert!(dom.contains(r#"<button type="button" class="play">Play</button>"#));
        assert_eq!(dom.contains("Play the loop seam"), seam, "{route}");
    }
    assert_no_page_errors(&view);
    keep_shots(shots.path());
}

#[test]
fn a_bitmap_font_is_served_with_its_flags_and_atlas() {
    let p = crate::bitmap_fonts::project();
    p.build(&[]);
    let view = Viewer::start(p.root(), &[]);
    let font = view.json("/api/font?path=ui/pix-text.hfont");
    assert_eq!(font["bitmap"], true);
    assert_eq!(font["msdf"], false);
    assert_eq!(font["distance_range"], 0.0);
    assert_eq!(font["glyphs"].as_array().unwrap().len(), 5);
    assert_eq!(font["atlas"]["path"], "ui/pix-text.font.ktx2");
    let atlas = font["atlas"]["image_url"].as_str().unwrap();
    assert_eq!(view.get(atlas).0, 200);
}

#[test]
fn an_atlas_answers_its_sprites_and_the_image_of_every_page() {
    let p = Project::new(
        "input: assets\noutput: runtime\ndefault:\n  texture: { format: rgba8 }\n  atlas: { max_size: 16 }\n",
    );
    for (name, seed) in [("a", 1), ("b", 2), ("c", 3), ("sub/d", 4)] {
        p.png(&format!("assets/ui/icons.atlas/{name}.png"), 10, 10, seed);
    }
    p.build(&[]);
    let view = Viewer::start(p.root(), &[]);
    let atlas = view.json("/api/atlas?path=ui/icons.hatlas");
    assert_eq!(atlas["texture"]["path"], "ui/icons.atlas.ktx2");
    let mut names: Vec<&str> = atlas["sprites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["a", "b", "c", "sub/d"]);
    // Four 10x10 sprites, 14 texels each with their extrusion and padding,
    // take one 16x16 page each.
    let pages = atlas["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 4);
    for page in pages {
        assert_eq!(view.get(page.as_str().unwrap()).0, 200);
    }
    let assets = view.json("/api/assets");
    let listed = assets["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "ui/icons.hatlas")
        .unwrap();
    assert_eq!(listed["type"], "atlas");
    assert!(
        view.error("/api/atlas?path=ui/icons.atlas.ktx2", 422)
            .starts_with("ui/icons.atlas.ktx2: ")
    );
    // The page draws it: the view reaches `ready` and shows the sprites.
    let shots = tempfile::tempdir().unwrap();
    let url = format!(
        "http://127.0.0.1:{}/#asset=ui%2Ficons.hatlas&page=3",
        view.port
    );
    let (_, body, shot) = shot_page_at(&url, 1280, shots.path(), "view-atlas.png");
    assert_eq!(
        attribute(&body, "data-view").as_deref(),
        Some("atlas"),
        "<body{body}>"
    );
    assert_eq!(
        attribute(&body, "data-state").as_deref(),
        Some("ready"),
        "<body{body}>"
    );
    assert!(distinct_colours(&shot.pixels) > 50, "the page looks blank");
    assert_no_page_errors(&view);
    keep_shots(shots.path());
}
