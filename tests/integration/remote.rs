//! Remote caching and execution against a real REAPI v2 server: BuildGrid
//! from PyPI, started on loopback by each test through tests/reapi/serve.py
//! (installed by tests/reapi/install, which tools/test runs), with its
//! test-only stand-in for buildbox-worker when a test executes remotely.
//!
//! Each build sets `ASSETC_CACHE_LOG`, so the tests see what every edge did:
//! `encode` (locally), `remote-hit` or `remote-exec`.

use std::fs;
use std::net::TcpListener;

use crate::common::reapi::{
    DEMO_CACHED_EDGES, Server, build_logged, count, plain_reference, reference,
};
use crate::common::relay::Relay;
use crate::common::{Project, rgba_png};

#[test]
fn a_second_build_folder_takes_every_result_from_the_reapi_cache() {
    let server = Server::start(&[]);
    let url = server.url();
    let remote = ["--remote", url.as_str(), "--instance", "main"];
    let first = Project::demo();
    let (_, cold) = build_logged(&first, &remote, &[]);
    assert_eq!(count(&cold, "encode"), DEMO_CACHED_EDGES, "{cold:?}");

    let second = Project::demo();
    let (warm_run, warm) = build_logged(&second, &remote, &[]);
    assert_eq!(count(&warm, "remote-hit"), DEMO_CACHED_EDGES, "{warm:?}");
    assert_eq!(count(&warm, "encode"), 0);
    assert!(
        !warm_run.stdout.contains("unavailable"),
        "{}",
        warm_run.stdout
    );
    assert_eq!(first.demo_outputs(), second.demo_outputs());
    second.assert_no_op();

    // One edited image misses one action; the rest still hit.
    let edited = Project::demo();
    edited.write("assets/textures/checker.png", &rgba_png(16, 16, 42));
    let (_, after_edit) = build_logged(&edited, &remote, &[]);
    assert_eq!(count(&after_edit, "encode"), 1, "{after_edit:?}");
    assert_eq!(
        after_edit.iter().find(|(o, _)| o == "encode").unwrap().1,
        "textures/checker.png"
    );
    assert_eq!(
        edited.demo_outputs(),
        reference(|p| p.write("assets/textures/checker.png", &rgba_png(16, 16, 42)))
    );

    // Another instance name is another cache only where the server says so;
    // BuildGrid's test config shares one storage, so nothing is asserted
    // about it beyond a correct build.
    let other = Project::demo();
    let (_, default_instance) = build_logged(&other, &["--remote", url.as_str()], &[]);
    assert_eq!(default_instance.len(), DEMO_CACHED_EDGES);
    assert_eq!(first.demo_outputs(), other.demo_outputs());
}

#[test]
fn a_remote_executed_build_equals_a_local_one() {
    let server = Server::start(&["--exec"]);
    let url = server.url();
    let remote = ["--remote", url.as_str(), "--remote-exec"];
    let first = Project::demo();
    let (_, ran) = build_logged(&first, &remote, &["-j2"]);
    // Edges that read files besides their source (meshes, shaders, a glTF's
    // embedded images) encode locally the first time, which records what
    // they read; every other edge runs on a worker.
    let reads_more = [
        "characters/walker.glb",
        "models/crate.gltf",
        "props/box.obj",
    ];
    for (outcome, source) in &ran {
        let may_read_more = reads_more.contains(&source.as_str()) || source.ends_with(".shader");
        assert!(
            outcome == "remote-exec" || may_read_more,
            "{source}: {ran:?}"
        );
    }
    assert!(count(&ran, "remote-exec") >= 12, "{ran:?}");
    assert_eq!(&first.demo_outputs(), plain_reference());
    first.assert_no_op();

    // Every result, executed or encoded, is now in the action cache.
    let second = Project::demo();
    let (_, warm) = build_logged(&second, &remote, &["-j2"]);
    assert_eq!(count(&warm, "remote-hit"), DEMO_CACHED_EDGES, "{warm:?}");
    assert_eq!(first.demo_outputs(), second.demo_outputs());

    // Now that their inputs are known, the glTF's edges run remotely too:
    // an edit to its buffer executes exactly the two edges that read it.
    let pad = |p: &Project| {
        let mut bin = fs::read(p.path("assets/models/crate.bin")).unwrap();
        bin.extend_from_slice(b"pad!");
        p.write("assets/models/crate.bin", &bin);
    };
    let edited = Project::demo();
    pad(&edited);
    let (_, after_edit) = build_logged(&edited, &remote, &["-j2"]);
    let executed: Vec<&String> = after_edit
        .iter()
        .filter(|(o, _)| o == "remote-exec")
        .map(|(_, s)| s)
        .collect();
    assert_eq!(
        executed,
        ["models/crate.gltf", "models/crate.gltf"],
        "{after_edit:?}"
    );
    assert_eq!(count(&after_edit, "encode"), 0, "{after_edit:?}");
    assert_eq!(edited.demo_outputs(), reference(pad));
}

#[test]
fn a_server_that_is_not_there_costs_one_warning() {
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("grpc://{}", closed.local_addr().unwrap());
    drop(closed);
    let p = Project::demo();
    let (run, outcomes) = build_logged(&p, &["--remote", url.as_str()], &["-j2"]);
    assert_eq!(count(&outcomes, "encode"), DEMO_CACHED_EDGES);
    let warnings = run.stdout.matches("is unavailable").count();
    assert_eq!(warnings, 1, "{}", run.stdout);
    assert_eq!(&p.demo_outputs(), plain_reference());
}

#[test]
fn a_remote_that_cannot_run_actions_costs_one_warning() {
    // Execution is served, but no worker ever takes a job: each one is
    // ended by the queue time-out.
    let server = Server::start(&["--exec", "--workers", "0", "--queue-timeout", "2"]);
    let url = server.url();
    let p = Project::demo();
    let (run, outcomes) = build_logged(&p, &["--remote", url.as_str(), "--remote-exec"], &["-j2"]);
    assert_eq!(
        count(&outcomes, "encode"),
        DEMO_CACHED_EDGES,
        "{outcomes:?}"
    );
    assert_eq!(
        run.stdout.matches("did not complete").count(),
        1,
        "{}",
        run.stdout
    );
    assert_eq!(&p.demo_outputs(), plain_reference());
}

#[test]
fn a_corrupt_remote_blob_is_rejected() {
    let server = Server::start(&[]);
    let url = server.url();
    let first = Project::demo();
    build_logged(&first, &["--remote", url.as_str()], &[]);
    // Flip a byte of every stored copy of one output; BuildGrid serves the
    // damaged bytes as they are.
    let atlas = fs::read(first.path("runtime/desktop/fonts/DejaVuSans-Latin1.font.ktx2")).unwrap();
    let hash = sha256_hex(&atlas);
    let file = server.blob_file(&hash);
    let mut bytes = fs::read(&file).unwrap();
    bytes[100] ^= 0xff;
    fs::write(&file, bytes).unwrap();

    let second = Project::demo();
    let (run, outcomes) = build_logged(&second, &["--remote", url.as_str()], &[]);
    assert!(
        run.stdout.contains("does not match its digest; rejected"),
        "{}",
        run.stdout
    );
    let font = outcomes
        .iter()
        .find(|(_, s)| s == "fonts/DejaVuSans-Latin1.ttf")
        .unwrap();
    assert_eq!(font.0, "encode");
    assert_eq!(first.demo_outputs(), second.demo_outputs());
}

#[test]
fn a_connection_dropped_mid_download_falls_back_to_a_local_encode() {
    let server = Server::start(&[]);
    let first = Project::demo();
    build_logged(&first, &["--remote", server.url().as_str()], &[]);
    // A proxy that cuts every connection once 2 KiB came back from the
    // server: lookups pass, downloads of the larger outputs break.
    let proxy = Relay::start(server.address()).unwrap();
    proxy.cut_each_connection_after(2048);
    let url = proxy.url();
    let second = Project::demo();
    let (run, outcomes) = build_logged(&second, &["--remote", url.as_str()], &[]);
    assert!(count(&outcomes, "encode") >= 1, "{outcomes:?}");
    assert!(
        run.stdout.matches("warning: remote").count() <= 1,
        "{}",
        run.stdout
    );
    assert!(
        proxy.stats().connections >= 1,
        "the build went through the proxy"
    );
    assert_eq!(first.demo_outputs(), second.demo_outputs());
    assert!(second.temporary_files().is_empty());
    second.assert_no_op();
}

#[test]
fn tls_and_client_certificates_reach_the_server() {
    let server = Server::start(&["--tls-client-auth"]);
    let tls = server.dir().join("tls");
    let file = |name: &str| tls.join(name).to_string_lossy().into_owned();
    let url = format!("grpcs://127.0.0.1:{}", server.port);
    let (ca, cert, key) = (file("ca.pem"), file("client.pem"), file("client-key.pem"));

    // Trusting the CA is not enough: the server wants a client certificate.
    let refused = Project::demo();
    let (run, outcomes) = build_logged(&refused, &["--remote", &url, "--remote-ca", &ca], &[]);
    assert_eq!(count(&outcomes, "encode"), DEMO_CACHED_EDGES);
    assert_eq!(
        run.stdout.matches("is unavailable").count(),
        1,
        "{}",
        run.stdout
    );

    let with_cert = [
        "--remote",
        &url,
        "--remote-ca",
        &ca,
        "--remote-cert",
        &cert,
        "--remote-key",
        &key,
    ];
    let first = Project::demo();
    let (run, cold) = build_logged(&first, &with_cert, &[]);
    assert!(!run.stdout.contains("unavailable"), "{}", run.stdout);
    assert_eq!(count(&cold, "encode"), DEMO_CACHED_EDGES);
    let second = Project::demo();
    let (_, warm) = build_logged(&second, &with_cert, &[]);
    assert_eq!(count(&warm, "remote-hit"), DEMO_CACHED_EDGES, "{warm:?}");
    assert_eq!(first.demo_outputs(), second.demo_outputs());
    // The edges reached the server through the build's service.
    let log = fs::read_to_string(second.path(".assetc/desktop/remote-service.log")).unwrap();
    assert!(
        log.contains(&format!("serving .assetc/desktop/remote.sock for {url}")),
        "{log}"
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
