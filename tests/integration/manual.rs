//! Shell completions, manual pages and their installer (`assetc
//! completions`, `assetc manpages`, `tools/install-docs`), and the `--help`
//! of the two programs Ninja runs.

use crate::common;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The `assetc-encode` binary under test.
const ENCODE: &str = env!("CARGO_BIN_EXE_assetc-encode");

/// The subcommands of `assetc` the completion scripts must offer.
const ASSETC_SUBCOMMANDS: [&str; 9] = [
    "configure",
    "build",
    "init",
    "info",
    "pack",
    "cache",
    "view",
    "watch",
    "completions",
];

/// Runs `program` with `args`, expecting success; returns standard output.
fn stdout_of(program: &str, args: &[&str]) -> String {
    run_ok(Command::new(program).args(args))
}

/// Runs `command`, expecting success; returns standard output.
fn run_ok(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Whether `tool` is on the PATH.
fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|output| output.status.success())
}

/// The subcommand names a `--help` text lists under `Commands:`, less `help`.
fn listed_subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// The page names `program` and its subcommands at every depth should get,
/// learned from the `--help` texts: `assetc`, `assetc-pack`, `assetc-pack-info` ….
fn expected_pages(program: &str, path: &[&str], out: &mut BTreeSet<String>) {
    let mut args: Vec<&str> = path.to_vec();
    args.push("--help");
    let help = stdout_of(program, &args);
    let page_name = std::iter::once(Path::new(program).file_name().unwrap().to_str().unwrap())
        .chain(path.iter().copied())
        .collect::<Vec<_>>()
        .join("-");
    out.insert(format!("{page_name}.1"));
    for sub in listed_subcommands(&help) {
        let mut deeper = path.to_vec();
        deeper.push(&sub);
        expected_pages(program, &deeper, out);
    }
}

/// What bash offers for the words of `line` (the last one being completed),
/// with the completion script `assetc completions bash --program PROGRAM`
/// loaded the way bash-completion loads it.
fn bash_completes(program: &str, words: &[&str]) -> Vec<String> {
    let script = stdout_of(
        common::ASSETC,
        &["completions", "bash", "--program", program],
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(program);
    std::fs::write(&file, script).unwrap();
    let quoted: Vec<String> = words.iter().map(|word| format!("'{word}'")).collect();
    let driver = format!(
        "source '{file}'
         function=$(complete -p {program} | sed 's/.* -F \\([^ ]*\\) .*/\\1/')
         COMP_WORDS=({words}); COMP_CWORD={last}
         \"$function\" {program} \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        file = file.display(),
        words = quoted.join(" "),
        last = words.len() - 1,
    );
    stdout_of("bash", &["-c", &driver])
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_shell_gets_a_script_naming_the_subcommands_and_flags() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout_of(common::ASSETC, &["completions", shell]);
        assert!(script.len() > 2000, "{shell}: {} bytes", script.len());
        for word in ASSETC_SUBCOMMANDS {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
        let flag = if shell == "fish" {
            "-l preset"
        } else {
            "--preset"
        };
        assert!(script.contains(flag), "{shell} script lacks {flag}");
    }
    for (program, word) in [("assetc-link", "check"), ("assetc-encode", "texture")] {
        for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
            let script = stdout_of(
                common::ASSETC,
                &["completions", shell, "--program", program],
            );
            assert!(
                script.contains(program) && script.contains(word),
                "{shell} {program}"
            );
        }
    }
}

#[test]
fn the_scripts_parse_in_the_shells_that_are_installed() {
    let checks = [("bash", "-n"), ("zsh", "-n"), ("fish", "--no-execute")];
    let mut parsed = 0;
    for (shell, flag) in checks.into_iter().filter(|(shell, _)| have(shell)) {
        for program in ["assetc", "assetc-link", "assetc-encode"] {
            let script = stdout_of(
                common::ASSETC,
                &["completions", shell, "--program", program],
            );
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("script");
            std::fs::write(&file, script).unwrap();
            let file = file.to_str().unwrap();
            stdout_of(shell, &[flag, file]);
            parsed += 1;
        }
    }
    assert!(
        parsed >= 3,
        "bash is always there, so its scripts must parse"
    );
}

#[test]
fn bash_completes_subcommands_and_flags() {
    let subcommands = bash_completes("assetc", &["assetc", "co"]);
    assert_eq!(subcommands, ["configure", "completions"]);
    let flags = bash_completes("assetc", &["assetc", "configure", "--pre"]);
    assert_eq!(flags, ["--preset"]);
    let shells = bash_completes("assetc", &["assetc", "completions", "f"]);
    assert_eq!(shells, ["fish"]);
    let link = bash_completes("assetc-link", &["assetc-link", "ch"]);
    assert_eq!(link, ["check"]);
}

#[test]
fn every_program_and_subcommand_gets_a_manual_page() {
    let mut expected = BTreeSet::new();
    for program in [common::ASSETC, ENCODE, common::LINK] {
        expected_pages(program, &[], &mut expected);
    }
    for page in [
        "assetc-pack-info.1",
        "assetc-link-check.1",
        "assetc-encode-texture.1",
    ] {
        assert!(expected.contains(page), "{page} is not among {expected:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let man1 = dir.path().join("share/man/man1");
    let run = stdout_of(common::ASSETC, &["manpages", man1.to_str().unwrap()]);
    assert!(
        run.contains(&format!("wrote {} manual pages", expected.len())),
        "{run}"
    );
    let written: BTreeSet<String> = std::fs::read_dir(&man1)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(written, expected);
    for page in &written {
        let text = std::fs::read_to_string(man1.join(page)).unwrap();
        let name = page.trim_end_matches(".1");
        assert!(text.contains(&format!(".TH {name} 1")), "{page}:\n{text}");
        for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION"] {
            assert!(text.contains(section), "{page} lacks {section}");
        }
    }
    for page in ["assetc-encode.1", "assetc-link.1"] {
        let text = std::fs::read_to_string(man1.join(page)).unwrap();
        assert!(text.contains("Ninja runs"), "{page}");
    }
}

#[test]
fn the_manual_pages_render() {
    let dir = tempfile::tempdir().unwrap();
    stdout_of(common::ASSETC, &["manpages", dir.path().to_str().unwrap()]);
    let page = dir.path().join("assetc-configure.1");
    let page = page.to_str().unwrap();
    let rendered = if have("groff") {
        // -k: UTF-8 input through preconv, as man does; -P-cbou: plain text.
        let output = Command::new("groff")
            .args(["-k", "-man", "-Tutf8", "-ww", "-P-cbou", page])
            .output()
            .unwrap();
        assert!(output.status.success());
        assert!(
            output.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    } else if have("man") {
        run_ok(
            Command::new("man")
                .args(["-l", page])
                .env("MANPAGER", "cat"),
        )
    } else {
        eprintln!("neither groff nor man is installed: the roff structure was checked only");
        return;
    };
    for text in [
        "NAME",
        "SYNOPSIS",
        "assetc-configure",
        "--preset",
        "--keep-going",
    ] {
        assert!(
            rendered.contains(text),
            "rendered page lacks {text}:\n{rendered}"
        );
    }
}

#[test]
fn manpages_into_a_folder_that_cannot_be_made_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, b"x").unwrap();
    let target = blocker.join("man1");
    let output = Command::new(common::ASSETC)
        .args(["manpages", target.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(&format!(
            "assetc: error: {}: cannot make the folder",
            target.display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&blocker).unwrap(), b"x");
}

/// Runs `tools/install-docs` with `args`, `HOME` in a temporary folder.
fn install_docs(home: &Path, args: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/install-docs");
    run_ok(
        Command::new(script)
            .args(args)
            .env("HOME", home)
            .env("ASSETC", common::ASSETC)
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("BASH_COMPLETION_USER_DIR"),
    )
}

#[test]
fn install_docs_fills_the_user_folders_of_man_bash_zsh_and_fish() {
    let home = tempfile::tempdir().unwrap();
    install_docs(home.path(), &[]);
    let installed = [
        ".local/share/man/man1/assetc.1",
        ".local/share/man/man1/assetc-link-check.1",
        ".local/share/man/man1/assetc-encode-texture.1",
        ".local/share/bash-completion/completions/assetc",
        ".local/share/bash-completion/completions/assetc-link",
        ".local/share/zsh/site-functions/_assetc",
        ".config/fish/completions/assetc.fish",
    ];
    for file in installed {
        let path = home.path().join(file);
        assert!(path.metadata().is_ok_and(|meta| meta.len() > 100), "{file}");
    }
    let bash = std::fs::read(home.path().join(installed[3])).unwrap();
    assert_eq!(
        bash,
        stdout_of(common::ASSETC, &["completions", "bash"]).into_bytes()
    );
    if have("man") {
        let man_path = home.path().join(".local/share/man");
        let found = run_ok(
            Command::new("man")
                .args(["-w", "assetc-link-check"])
                .env("MANPATH", &man_path),
        );
        assert!(found.contains("assetc-link-check.1"), "{found}");
    }
}

#[test]
fn install_docs_with_a_prefix_uses_the_system_layout() {
    let home = tempfile::tempdir().unwrap();
    let prefix = home.path().join("usr/local");
    install_docs(home.path(), &["--prefix", prefix.to_str().unwrap()]);
    for file in [
        "share/man/man1/assetc.1",
        "share/bash-completion/completions/assetc",
        "share/zsh/site-functions/_assetc",
        "share/fish/vendor_completions.d/assetc.fish",
    ] {
        assert!(prefix.join(file).is_file(), "{file}");
    }
    assert!(!home.path().join(".local").exists());
}

#[test]
fn the_programs_ninja_runs_say_so_and_point_to_assetc() {
    for program in [ENCODE, common::LINK] {
        for flag in ["--help", "-h"] {
            let help = stdout_of(program, &[flag]);
            assert!(help.contains("Ninja runs"), "{program} {flag}:\n{help}");
            assert!(help.contains("not meant to be typed by hand"), "{help}");
            assert!(help.contains("`assetc build`"), "{help}");
            assert!(help.contains("`assetc configure && ninja`"), "{help}");
        }
    }
}
