//! The Ninja pipeline end to end: real `assetc` binaries, real `ninja`.

use crate::common::{Project, pattern};

const CONFIG: &str = r#"
input: assets
output: runtime
pack: true
embed: ["data/*"]
default:
  texture: { compress: false }
"#;

/// A small project: three textures of different modes and an embedded file.
fn small_project() -> Project {
    let p = Project::new(CONFIG);
    p.png("assets/ui/button.png", 8, 4, 1);
    p.png("assets/world/rock.n.png", 4, 4, 2);
    p.png("assets/world/rock.ao.png", 5, 3, 3);
    p.write("assets/data/level1.json", b"{\"enemies\": 3}\n");
    p
}

fn texture_edges(edges: &[String]) -> Vec<String> {
    let mut t: Vec<String> = edges
        .iter()
        .filter(|e| e.starts_with("TEXTURE ") || e.starts_with("EMBED "))
        .cloned()
        .collect();
    t.sort();
    t
}

#[test]
fn clean_build_produces_every_output_and_passes_check() {
    let p = small_project();
    let run = p.build(&[]);
    assert_eq!(
        texture_edges(&run.edges()),
        [
            "EMBED assets/data/level1.json",
            "TEXTURE assets/ui/button.png",
            "TEXTURE assets/world/rock.ao.png",
            "TEXTURE assets/world/rock.n.png",
        ]
    );
    let tree = p.tree("runtime");
    let names: Vec<&str> = tree.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "assets.h",
            "assets.hman",
            "assets.rs",
            "data/level1.json",
            "ui/button.ktx2",
            "world/rock.ao.ktx2",
            "world/rock.n.ktx2",
        ]
    );
    assert_eq!(tree["data/level1.json"], b"{\"enemies\": 3}\n");
    assert!(p.path("runtime.hpack").is_file());
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check");
    p.ninja(&["check"]).expect_ok("ninja check");
}

#[test]
fn level_zero_is_pixel_exact() {
    let p = small_project();
    p.build(&[]);
    let bytes = std::fs::read(p.path("runtime/ui/button.ktx2")).unwrap();
    let reader = ktx2::Reader::new(&bytes[..]).expect("valid KTX2");
    let header = reader.header();
    assert_eq!((header.pixel_width, header.pixel_height), (8, 4));
    assert_eq!(header.level_count, 4, "8x4 has a 4-level chain");
    let level0 = reader.levels().next().unwrap();
    let pixels = zstd::decode_all(level0.data).unwrap();
    assert_eq!(pixels, pattern(8, 4, 1));
}

#[test]
fn second_build_is_a_no_op() {
    let p = small_project();
    p.build(&[]);
    p.assert_no_op();
    let again = p.ninja(&[]).expect_ok("ninja");
    assert!(again.stdout.contains("no work to do"), "{}", again.stdout);
}

#[test]
fn manual_configure_then_ninja_does_not_reconfigure() {
    let p = small_project();
    p.build(&[]);
    p.assetc(&["configure"]).expect_ok("configure");
    p.assert_no_op();
}

#[test]
fn touching_one_source_rebuilds_only_it_and_the_link() {
    let p = small_project();
    p.build(&[]);
    p.touch("assets/world/rock.n.png");
    let run = p.ninja(&[]).expect_ok("ninja");
    let edges = run.edges();
    assert_eq!(texture_edges(&edges), ["TEXTURE assets/world/rock.n.png"]);
    assert!(
        edges.iter().all(|e| e.starts_with("TEXTURE")
            || e.starts_with("MANIFEST")
            || e.starts_with("PACK")),
        "unexpected edges: {edges:?}"
    );
    p.assert_no_op();
}

#[test]
fn editing_one_source_updates_its_output_and_the_pack() {
    let p = small_project();
    p.build(&[]);
    let before = p.tree("runtime");
    let pack_before = std::fs::read(p.path("runtime.hpack")).unwrap();
    p.png("assets/world/rock.n.png", 4, 4, 99);
    p.touch("assets/world/rock.n.png");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert!(run.edges().iter().any(|e| e.starts_with("PACK")));
    let after = p.tree("runtime");
    assert_ne!(before["world/rock.n.ktx2"], after["world/rock.n.ktx2"]);
    assert_eq!(before["ui/button.ktx2"], after["ui/button.ktx2"]);
    assert_ne!(pack_before, std::fs::read(p.path("runtime.hpack")).unwrap());
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check");
}

#[test]
fn adding_a_source_reconfigures_and_builds_only_it() {
    let p = small_project();
    p.build(&[]);
    p.png("assets/ui/new.png", 2, 2, 7);
    let run = p.ninja(&[]).expect_ok("ninja");
    let edges = run.edges();
    assert!(
        edges.iter().any(|e| e.starts_with("CONFIGURE")),
        "{edges:?}"
    );
    assert_eq!(texture_edges(&edges), ["TEXTURE assets/ui/new.png"]);
    assert!(p.path("runtime/ui/new.ktx2").is_file());
    p.assert_no_op();
}

#[test]
fn deleting_a_source_removes_its_output_from_tree_manifest_and_pack() {
    let p = small_project();
    p.build(&[]);
    std::fs::remove_file(p.path("assets/ui/button.png")).unwrap();
    let run = p.ninja(&[]).expect_ok("ninja");
    assert!(texture_edges(&run.edges()).is_empty(), "{:?}", run.edges());
    assert!(!p.path("runtime/ui/button.ktx2").exists());
    let manifest = std::fs::read(p.path("runtime/assets.hman")).unwrap();
    let manifest = assetc::format::hman::parse(&manifest).unwrap();
    assert!(manifest.iter().all(|e| e.path != "ui/button.ktx2"));
    assert_eq!(manifest.len(), 3);
    let pack = std::fs::read(p.path("runtime.hpack")).unwrap();
    let pack = assetc::format::hpack::parse(&pack).unwrap();
    assert!(pack.find("ui/button.ktx2").is_none());
    p.link(&["check", "--root", "runtime", "--pack", "runtime.hpack"])
        .expect_ok("check");
    p.assert_no_op();
}

#[test]
fn an_editor_temp_file_reconfigures_lazily_without_rebuilding() {
    let p = small_project();
    p.build(&[]);
    let ninja_file = std::fs::read(p.path("build.ninja")).unwrap();
    p.write("assets/ui/.button.png.swp", b"x");
    let run = p.ninja(&[]).expect_ok("ninja");
    assert!(texture_edges(&run.edges()).is_empty(), "{:?}", run.edges());
    assert_eq!(ninja_file, std::fs::read(p.path("build.ninja")).unwrap());
    p.assert_no_op();
}

#[test]
fn editing_one_rule_dirties_only_the_matching_assets() {
    let p = small_project();
    p.build(&[]);
    let config = format!(
        "{CONFIG}  rules:\n    - match: \"world/*.n.png\"\n      texture: {{ compress: true }}\n"
    );
    p.write("assetc.yml", config.as_bytes());
    p.assetc(&["configure"]).expect_ok("configure");
    let dry = p.ninja(&["-n"]).expect_ok("ninja -n");
    assert_eq!(
        texture_edges(&dry.edges()),
        ["TEXTURE assets/world/rock.n.png"]
    );
}

/// Every edge that runs one of our binaries lists that binary as an input, so
/// an upgrade of assetc re-runs exactly the edges whose tool changed, and the
/// graph uses no `dyndep` (n2 ignores it, samurai rejects it, and Ninja's
/// handling breaks clean builds).
#[test]
fn every_tool_edge_depends_on_its_binary_and_no_edge_uses_dyndep() {
    let p = small_project();
    p.assetc(&["configure"]).expect_ok("configure");
    let text = std::fs::read_to_string(p.path("build.ninja")).unwrap();
    assert!(!text.contains("dyndep"), "build.ninja uses dyndep");
    let statements = ninja_statements(&text);
    let variables = top_level_variables(&statements);
    let tools = rule_tools(&statements, &variables);
    let mut checked = 0;
    for statement in statements.iter().filter(|s| s.starts_with("build ")) {
        let (outputs, rest) = statement.split_once(": ").unwrap();
        let rule = rest.split_whitespace().next().unwrap();
        // `check` is an action, not a file: it runs on every request anyway.
        if rule == "phony" || outputs == "build check" {
            continue;
        }
        let tool = &tools[rule];
        assert!(
            rest.split_whitespace().any(|input| input == tool),
            "`{outputs}` runs {tool} without depending on it"
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} tool edges found");
}

/// The statements of a Ninja file, with `$`-continued lines joined and each
/// indented variable line kept as its own statement.
fn ninja_statements(text: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        match line.strip_suffix('$') {
            Some(head) => current.push_str(head),
            None => {
                current.push_str(line);
                statements.push(std::mem::take(&mut current));
            }
        }
    }
    statements
}

/// The file-level `name = value` bindings.
fn top_level_variables(statements: &[String]) -> std::collections::HashMap<String, String> {
    statements
        .iter()
        .filter(|s| !s.starts_with(' ') && !s.starts_with('#'))
        .filter_map(|s| s.split_once(" = "))
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

/// Each rule's program: the first word of its `command`, with a leading
/// `$variable` resolved through the file-level bindings.
fn rule_tools(
    statements: &[String],
    variables: &std::collections::HashMap<String, String>,
) -> std::collections::HashMap<String, String> {
    let mut tools = std::collections::HashMap::new();
    let mut rule = None;
    for statement in statements {
        if let Some(name) = statement.strip_prefix("rule ") {
            rule = Some(name.trim().to_string());
        } else if let (Some(name), Some(command)) =
            (&rule, statement.trim_start().strip_prefix("command = "))
        {
            let program = command.split_whitespace().next().unwrap();
            let program = match program.strip_prefix('$') {
                Some(variable) => variables[variable].clone(),
                None => program.to_string(),
            };
            tools.insert(name.clone(), program);
        }
    }
    tools
}

#[test]
fn missingdeps_is_clean() {
    let p = small_project();
    p.build(&[]);
    let run = p.ninja(&["-t", "missingdeps"]).expect_ok("missingdeps");
    assert!(
        run.stdout.contains("No missing dependencies"),
        "{}",
        run.stdout
    );
}

#[test]
fn graph_renders_through_graphviz() {
    let p = small_project();
    p.build(&[]);
    let graph = p.ninja(&["-t", "graph"]).expect_ok("ninja -t graph");
    let svg = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(graph.stdout.as_bytes())?;
            child.wait_with_output()
        })
        .expect("graphviz `dot` must be installed");
    assert!(svg.status.success());
    assert!(String::from_utf8_lossy(&svg.stdout).contains("<svg"));
}

#[test]
fn clean_builds_are_byte_identical_across_job_counts() {
    let a = small_project();
    let b = small_project();
    a.assetc(&["configure"]).expect_ok("configure");
    a.ninja(&["-j1"]).expect_ok("ninja -j1");
    b.assetc(&["configure"]).expect_ok("configure");
    b.ninja(&["-j2"]).expect_ok("ninja -j2");
    assert_eq!(a.tree("runtime"), b.tree("runtime"));
    assert_eq!(
        std::fs::read(a.path("runtime.hpack")).unwrap(),
        std::fs::read(b.path("runtime.hpack")).unwrap()
    );
}

#[test]
fn the_demo_builds_byte_identical_at_one_and_two_jobs_and_threads() {
    // Every kind at once: UASTC and raw textures, a cube map, an array, a LUT,
    // meshes with skins, a font atlas, shaders, a processor's output, embeds,
    // the id files and three packs; one job of one thread against two jobs
    // of up to four threads each (the inspect goldens hold for both).
    let trees = [("-j1", "1"), ("-j2", "4")].map(|(jobs, threads)| {
        let p = Project::demo();
        p.assetc(&["configure", "--pack"]).expect_ok("configure");
        p.ninja_with(&[("ASSETC_THREADS", threads)], &[jobs])
            .expect_ok("ninja");
        p.tree("runtime")
    });
    let names: Vec<&str> = trees[0].keys().map(String::as_str).collect();
    for expected in [
        "desktop.hpack",
        "desktop.preload.hpack",
        "desktop.level1.hpack",
        "desktop/assets.h",
        "desktop/assets.rs",
        "desktop/fonts/DejaVuSans-Latin1.font.ktx2",
        "desktop/shaders/Lit/vertex.spv",
        "desktop/data/maps/level1.tmap",
    ] {
        assert!(names.contains(&expected), "{expected} not built: {names:?}");
    }
    assert_eq!(trees[0], trees[1]);
}

#[test]
fn awkward_names_build_and_stay_clean() {
    let p = Project::new(CONFIG);
    p.png("assets/my textures/stone wall.png", 4, 4, 5);
    p.png("assets/odd/$price#1:tag.png", 2, 2, 6);
    p.build(&[]);
    assert!(p.path("runtime/my textures/stone wall.ktx2").is_file());
    assert!(p.path("runtime/odd/$price#1:tag.ktx2").is_file());
    p.assert_no_op();
    p.touch("assets/my textures/stone wall.png");
    let run = p.ninja(&[]).expect_ok("ninja");
    // Ninja shell-quotes `$in` in the description too.
    assert_eq!(
        texture_edges(&run.edges()),
        ["TEXTURE 'assets/my textures/stone wall.png'"]
    );
}

#[test]
fn presets_build_into_separate_folders() {
    let p = Project::new(
        "default:\n  texture: { compress: false }\npresets:\n  desktop:\n    output: runtime/desktop\n  mobile:\n    output: runtime/mobile\n",
    );
    p.png("assets/a.png", 2, 2, 1);
    p.build(&["--preset", "mobile"]);
    p.build(&["--preset", "desktop"]);
    assert!(p.path("runtime/mobile/a.ktx2").is_file());
    assert!(p.path("runtime/desktop/a.ktx2").is_file());
    assert!(p.path(".assetc/mobile").is_dir());
    assert!(p.path(".assetc/desktop").is_dir());
    p.assert_no_op();
}

#[test]
fn the_bundled_demo_builds_and_checks() {
    let p = Project::demo();
    p.build(&["--preset", "mobile"]);
    p.assert_no_op();
    p.link(&[
        "check",
        "--root",
        "runtime/mobile",
        "--pack",
        "runtime/mobile.hpack",
    ])
    .expect_ok("check");
}

#[test]
fn only_edges_that_read_more_than_their_source_have_depfiles() {
    let p = Project::demo();
    p.build(&[]);
    let deps = p.ninja(&["-t", "deps"]).expect_ok("ninja -t deps").stdout;
    let recorded: Vec<&str> = deps
        .lines()
        .filter_map(|line| line.split_once(": #deps").map(|(target, _)| target))
        .collect();
    // A mesh, a cube map folder, a texture array folder and a glTF's embedded
    // image read more than their source: their deps are recorded.
    for wanted in [
        "characters/walker.hmesh",
        "models/crate.hmesh",
        "sky.env.ktx2",
        "textures/terrain.arr.ktx2",
        "models/crate/tex_1.ktx2",
    ] {
        assert!(
            recorded.iter().any(|t| t.ends_with(wanted)),
            "{wanted} has no deps record: {recorded:?}"
        );
    }
    // Plain images and embedded files read their source alone.
    for plain in [
        "ui/button.ktx2",
        "textures/checker.ktx2",
        "textures/bumps.n.ktx2",
    ] {
        assert!(
            !recorded.iter().any(|t| t.ends_with(plain)),
            "{plain} should have no deps record: {recorded:?}"
        );
    }
    let ninja = std::fs::read_to_string(p.path("build.ninja")).unwrap();
    let button = ninja
        .lines()
        .skip_while(|line| !(line.starts_with("build ") && line.contains("ui/button.ktx2")))
        .nth(1)
        .unwrap();
    assert!(
        button.contains("--fragment") && !button.contains("--depfile"),
        "{button}"
    );
    p.assert_no_op();
}

#[test]
fn input_and_output_come_from_the_config_and_dash_o_wins() {
    let p = Project::new(
        "input: art/source\noutput: build/out\ndefault:\n  texture: { compress: false }\n",
    );
    p.png("art/source/ui/a.png", 2, 2, 1);
    p.png("assets/ignored.png", 2, 2, 2);
    p.build(&[]);
    assert_eq!(
        p.tree("build/out").into_keys().collect::<Vec<_>>(),
        ["assets.h", "assets.hman", "assets.rs", "ui/a.ktx2"]
    );
    p.build(&["-o", "elsewhere"]);
    assert!(p.path("elsewhere/ui/a.ktx2").is_file());
    assert!(
        !p.path("build/out/ui/a.ktx2").exists(),
        "moving the output removes what the old graph produced"
    );
    p.assert_no_op();
}

#[test]
fn every_progress_line_of_the_demo_is_unique_and_names_what_it_builds() {
    let p = Project::demo();
    p.assetc(&["configure"]).expect_ok("configure");
    let run = p.ninja(&["-n", "check"]).expect_ok("ninja -n");
    let edges = run.edges();
    assert!(edges.len() >= 35, "{edges:?}");
    let mut seen = std::collections::BTreeSet::new();
    for edge in &edges {
        assert!(
            seen.insert(edge.as_str()),
            "{edge} is shown twice: {edges:?}"
        );
        assert!(!edge.contains(".frag"), "{edge}");
        assert!(
            !edge.split_whitespace().any(|word| word == "."),
            "a bare '.': {edge}"
        );
    }
    for expected in [
        "TEXTURE assets/models/crate.gltf image 0 (crate_color.png)",
        "TEXTURE assets/models/crate.gltf image 1 (embedded)",
        "MANIFEST PART assets/ in level1",
        "MANIFEST PART assets/textures/ in level1",
    ] {
        assert!(seen.contains(expected), "{expected}: {edges:?}");
    }
}
