//! Follows `assetc watch` the way an engine would: subscribes to its change
//! feed and reloads the files it is told changed, printing what it did.
//!
//! ```text
//! assetc watch &                       # prints the feed's address
//! cargo run --example hot_reload --no-default-features -- 127.0.0.1:7879 runtime/desktop
//! ```
//!
//! Each changed file is read from the output folder and opened with
//! `assetc::format::open`, as an engine's loader would before swapping it in;
//! a removed entry is dropped. Only the `format` and `hot_reload` modules are
//! used (the standard library and `bytemuck`), as with
//! `default-features = false`. With a third argument N it stops after N
//! builds.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use assetc::format::bytes::AlignedBytes;
use assetc::format::open;
use assetc::hot_reload::{Build, WatchClient};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (address, output, builds) = match args.as_slice() {
        [address, output] => (address, output, u64::MAX),
        [address, output, count] => match count.parse() {
            Ok(count) => (address, output, count),
            Err(_) => return usage(),
        },
        _ => return usage(),
    };
    match follow(address, Path::new(output), builds) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hot_reload: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: hot_reload <host:port> <output folder> [builds]");
    ExitCode::from(2)
}

/// Reloads what each build changed, for `builds` builds.
fn follow(address: &str, output: &Path, builds: u64) -> Result<(), String> {
    let mut client = WatchClient::connect(address).map_err(|e| format!("{address}: {e}"))?;
    println!("connected to {address}, generation {}", client.generation());
    let mut loaded: BTreeMap<String, AlignedBytes> = BTreeMap::new();
    for _ in 0..builds {
        let build = client.next_build().map_err(|e| format!("{address}: {e}"))?;
        apply(&build, output, &mut loaded);
    }
    Ok(())
}

/// Reloads the changed files and drops the removed ones.
fn apply(build: &Build, output: &Path, loaded: &mut BTreeMap<String, AlignedBytes>) {
    if !build.ok {
        println!("build {} failed, keeping what is loaded:", build.generation);
        for line in &build.errors {
            println!("  {line}");
        }
        return;
    }
    for file in &build.changed {
        let id = file
            .id
            .map_or_else(|| "-".to_owned(), |id| format!("{id:#018x}"));
        match reload(&output.join(&file.path)) {
            Ok((bytes, what)) => {
                println!("reloaded {} {id} ({what})", file.path);
                loaded.insert(file.path.clone(), bytes);
            }
            Err(e) => println!("kept the old {} {id}: {e}", file.path),
        }
    }
    for file in &build.removed {
        loaded.remove(&file.path);
        println!("unloaded {}", file.path);
    }
    println!(
        "build {}: {} file(s) loaded",
        build.generation,
        loaded.len()
    );
}

/// Reads a file into aligned memory and checks it as its format.
fn reload(path: &Path) -> Result<(AlignedBytes, String), String> {
    let bytes = AlignedBytes::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let what = match open::identify(bytes.as_bytes()) {
        Some(_) => match open::open(bytes.as_bytes()) {
            Ok(file) => format!("{:?}", file.file_type()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        },
        None => "raw bytes".to_owned(),
    };
    Ok((bytes, what))
}
