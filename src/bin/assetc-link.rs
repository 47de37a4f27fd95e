//! `assetc-link`: the manifest, pack and check steps.

fn main() -> std::process::ExitCode {
    assetc::app::link::main()
}
