//! `assetc completions` and `assetc manpages`: shell completion scripts
//! (`clap_complete`) and roff manual pages (`clap_mangen`) generated from
//! the clap definitions of the three programs, so they never fall behind
//! the flags.
//!
//! The `assetc` command line is defined in `assetc.rs`, which imports this
//! file; so its caller hands the `assetc` [`clap::Command`] in rather than
//! this file importing it back. The other two come from their own rooms:
//! `assetc-encode`'s from [`EncodeCli`], `assetc-link`'s from [`LinkCli`].

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, ValueEnum};
use clap_complete::Shell;

use crate::cache::EncodeCli;
use crate::cli::finish;
use crate::fsutil::{self, FileError};
use crate::link::command::Cli as LinkCli;

/// The manual section of every page: user commands.
const SECTION: &str = "1";

/// One of the three programs whose command line is documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Program {
    /// `assetc`, the command people type.
    Assetc,
    /// `assetc-encode`, run by Ninja once per asset.
    AssetcEncode,
    /// `assetc-link`, run by Ninja for the link steps, and by people for
    /// `check`.
    AssetcLink,
}

/// `assetc completions`: print a shell's completion script.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    pub shell: Shell,
    /// The program whose command line is completed.
    #[arg(long, value_enum, default_value = "assetc")]
    pub program: Program,
}

/// `assetc manpages`: write the manual pages of the three programs.
#[derive(Debug, clap::Args)]
pub struct ManpagesArgs {
    /// The folder the pages go to, e.g. `~/.local/share/man/man1`; made if
    /// missing.
    pub dir: PathBuf,
}

/// What can go wrong while printing or writing the generated text.
#[derive(Debug, thiserror::Error)]
pub enum ManualError {
    /// The completion script could not be written to standard output.
    #[error("standard output: cannot write the completion script")]
    Stdout(#[source] io::Error),
    /// A manual page could not be rendered.
    #[error("{0}: cannot render the manual page")]
    Render(String, #[source] io::Error),
    /// The folder of the pages could not be made.
    #[error("{}: cannot make the folder", .0.display())]
    Folder(PathBuf, #[source] io::Error),
    /// A manual page could not be written.
    #[error(transparent)]
    Page(#[from] FileError),
}

impl Program {
    /// The program's clap command; `assetc` is the one the caller gives.
    fn command(self, assetc: &clap::Command) -> clap::Command {
        match self {
            Program::Assetc => assetc.clone(),
            Program::AssetcEncode => EncodeCli::command(),
            Program::AssetcLink => LinkCli::command(),
        }
    }
}

/// `assetc completions SHELL`: the script on standard output.
pub fn run_completions(args: &CompletionsArgs, assetc: &clap::Command) -> ExitCode {
    finish("assetc", print_completions(args, assetc))
}

/// `assetc manpages DIR`: every page written, then how many and where.
pub fn run_manpages(args: &ManpagesArgs, assetc: &clap::Command) -> ExitCode {
    let written = write_manpages(&args.dir, assetc).map(|pages| {
        let folder = args.dir.display();
        println!("assetc: wrote {} manual pages to {folder}", pages.len());
    });
    finish("assetc", written)
}

/// Prints the completion script `args` asks for; `assetc` is `assetc`'s
/// own command line. A reader that stops early (`| head`) is not an error.
pub fn print_completions(
    args: &CompletionsArgs,
    assetc: &clap::Command,
) -> Result<(), ManualError> {
    let script = completion_script(args.shell, args.program, assetc);
    match io::stdout().lock().write_all(&script) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => Err(ManualError::Stdout(error)),
        _ => Ok(()),
    }
}

/// The completion script of `program` for `shell`.
pub fn completion_script(shell: Shell, program: Program, assetc: &clap::Command) -> Vec<u8> {
    let mut command = program.command(assetc);
    let name = command.get_name().to_owned();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut script);
    script
}

/// Writes every manual page of the three programs into `dir` and returns
/// their paths. Every page is rendered before the first is written, and
/// each is written atomically, so a failure leaves no half-written page.
pub fn write_manpages(dir: &Path, assetc: &clap::Command) -> Result<Vec<PathBuf>, ManualError> {
    let mut pages = Vec::new();
    for program in Program::value_variants() {
        pages.extend(manpages(program.command(assetc))?);
    }
    std::fs::create_dir_all(dir).map_err(|source| ManualError::Folder(dir.to_owned(), source))?;
    let mut written = Vec::with_capacity(pages.len());
    for (file_name, text) in pages {
        let path = dir.join(file_name);
        fsutil::write_output(&path, &text)?;
        written.push(path);
    }
    Ok(written)
}

/// The pages of one program, as file name and roff text: one per visible
/// subcommand at every depth (`assetc-pack-info.1`), each subcommand's after
/// its own subcommands', and the program's own page last.
pub fn manpages(command: clap::Command) -> Result<Vec<(String, Vec<u8>)>, ManualError> {
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let mut pages = Vec::new();
    collect_pages(command, &mut pages)?;
    Ok(pages)
}

/// Adds the pages of `command`'s visible subcommands, then its own.
fn collect_pages(
    command: clap::Command,
    pages: &mut Vec<(String, Vec<u8>)>,
) -> Result<(), ManualError> {
    for subcommand in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        collect_pages(subcommand.clone(), pages)?;
    }
    let man = clap_mangen::Man::new(command)
        .section(SECTION)
        .source(concat!("assetc ", env!("CARGO_PKG_VERSION")))
        .manual("assetc manual");
    let file_name = man.get_filename();
    let mut text = Vec::new();
    man.render(&mut text)
        .map_err(|source| ManualError::Render(file_name.clone(), source))?;
    pages.push((file_name, text));
    Ok(())
}
