//! `assetc`: configure a project's asset build (writes build.ninja).

fn main() -> std::process::ExitCode {
    assetc::app::assetc::main()
}
