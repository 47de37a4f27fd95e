//! `assetc-encode`: compiles one source asset; Ninja runs one per edge.

fn main() -> std::process::ExitCode {
    assetc::app::encode::main()
}
