//! `#include "file"` for GLSL and WGSL, expanded before naga sees the text.
//!
//! naga's front ends compile one string and know nothing about files, so the
//! shader encoder splices included files in itself:
//!
//! * A line whose first non-blank character is `#`, followed by `include` and
//!   a name in double quotes, is replaced by the named file's lines (expanded
//!   in turn). Anything else after the closing quote except a `//` comment is
//!   an error. The expansion is textual and happens before GLSL's
//!   preprocessor runs, so an `#include` inside an inactive `#if` still reads
//!   its file.
//! * The name is resolved relative to the folder of the file that includes
//!   it, then relative to the shader folder. `/` and `\` both separate
//!   folders. `..` may climb out of the shader folder but never out of the
//!   project's input folder, and absolute names are refused: what a build
//!   reads stays inside its sources (symbolic links are not followed by this
//!   check).
//! * `#pragma once` in a file makes later includes of that file expand to
//!   nothing (WGSL has no include guards otherwise). GLSL's
//!   `#extension GL_GOOGLE_include_directive` / `GL_ARB_shading_language_include`
//!   lines are dropped, since the expansion already did their job.
//! * A file that includes itself, directly or through others, is an error that
//!   shows the chain.
//!
//! Every output line remembers the file and line it came from, so a position
//! naga reports in the expanded text maps back to the real file and line; the
//! column is unchanged because lines are copied verbatim. Every file read is
//! recorded for the depfile.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use naga::SourceLocation;

use super::diagnostic::{Diagnostic, Location, ShaderError};
use crate::encode::job::EMPTY_FILE;
use crate::fsutil;

/// The largest expanded text accepted: includes repeated inside includes
/// could otherwise grow it exponentially.
pub const MAX_EXPANDED_BYTES: usize = 16 << 20;

/// Which language's extra directives to recognise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// GLSL: the include extension lines are dropped too.
    Glsl,
    /// WGSL.
    Wgsl,
}

/// Where the files live: `rel` paths are `/`-separated and relative to the
/// input folder.
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// The project's input folder, as the build names it.
    pub input_root: &'a Path,
    /// The shader folder, relative to the input folder.
    pub folder: &'a str,
}

impl Sources<'_> {
    /// The path of `rel` as the build names it (for reading and messages).
    pub fn path(&self, rel: &str) -> PathBuf {
        self.input_root.join(rel)
    }
}

/// Where one line of expanded text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LineOrigin {
    /// Index into [`Expanded::files`].
    file: usize,
    /// 1-based line in that file.
    line: u32,
}

/// A source with its includes spliced in.
#[derive(Debug, Clone)]
pub struct Expanded {
    /// The text naga compiles; every line ends with `\n`.
    pub text: String,
    /// The origin of each line of `text`.
    origins: Vec<LineOrigin>,
    /// Every file read, as `rel` paths, the expanded file first, without
    /// repeats.
    pub files: Vec<String>,
    /// The input folder, to turn `rel` paths into paths for messages.
    input_root: PathBuf,
}

impl Expanded {
    /// The path of the expanded file, for messages.
    pub fn root_path(&self) -> PathBuf {
        self.input_root.join(&self.files[0])
    }

    /// The files this one included, directly or not.
    pub fn included(&self) -> &[String] {
        &self.files[1..]
    }

    /// Maps a naga position in [`Self::text`] back to its file and line.
    pub fn locate(&self, location: SourceLocation) -> Location {
        let index = (location.line_number as usize).saturating_sub(1);
        let origin = self
            .origins
            .get(index)
            .or(self.origins.last())
            .copied()
            .unwrap_or(LineOrigin { file: 0, line: 1 });
        Location {
            file: self.input_root.join(&self.files[origin.file]),
            line: origin.line,
            column: location.line_position.max(1),
        }
    }
}

/// Expands the includes of the file `rel`.
pub fn expand(sources: Sources<'_>, rel: &str, dialect: Dialect) -> Result<Expanded, ShaderError> {
    let mut expander = Expander {
        sources,
        dialect,
        out: Expanded {
            text: String::new(),
            origins: Vec::new(),
            files: Vec::new(),
            input_root: sources.input_root.to_owned(),
        },
        stack: Vec::new(),
        once: HashSet::new(),
    };
    expander.splice(rel)?;
    Ok(expander.out)
}

/// The state of one expansion.
struct Expander<'a> {
    sources: Sources<'a>,
    dialect: Dialect,
    out: Expanded,
    /// The files being expanded, outermost first (for cycle detection).
    stack: Vec<String>,
    /// Files that said `#pragma once` and were already spliced.
    once: HashSet<String>,
}

impl Expander<'_> {
    /// Appends the expansion of `rel` to the output.
    fn splice(&mut self, rel: &str) -> Result<(), ShaderError> {
        let path = self.sources.path(rel);
        let text = read_text(&path)?;
        // An empty library is harmless; an empty stage has nothing to compile.
        if text.is_empty() && self.stack.is_empty() {
            return Err(Diagnostic::file(&path, EMPTY_FILE).into());
        }
        let file = self.file_index(rel);
        self.stack.push(rel.to_owned());
        for (number, line) in text.lines().enumerate() {
            let line_number = u32::try_from(number + 1).unwrap_or(u32::MAX);
            let here = |column| Location {
                file: path.clone(),
                line: line_number,
                column,
            };
            match directive(line, self.dialect)
                .map_err(|(column, what)| ShaderError::from(Diagnostic::at(here(column), what)))?
            {
                Directive::Include { name, column } => {
                    let target = self
                        .resolve(rel, name)
                        .map_err(|what| ShaderError::from(Diagnostic::at(here(column), what)))?;
                    if self.once.contains(&target) {
                        continue;
                    }
                    if let Some(start) = self.stack.iter().position(|open| *open == target) {
                        let mut chain = self.stack[start..].to_vec();
                        chain.push(target);
                        let what = format!("include cycle: {}", chain.join(" -> "));
                        return Err(Diagnostic::at(here(column), what).into());
                    }
                    self.splice(&target)?;
                }
                Directive::PragmaOnce => {
                    self.once.insert(rel.to_owned());
                    self.push_line("", file, line_number, &path)?;
                }
                Directive::Dropped => self.push_line("", file, line_number, &path)?,
                Directive::None => self.push_line(line, file, line_number, &path)?,
            }
        }
        self.stack.pop();
        Ok(())
    }

    /// The index of `rel` in the file table, adding it if new.
    fn file_index(&mut self, rel: &str) -> usize {
        match self.out.files.iter().position(|known| known == rel) {
            Some(index) => index,
            None => {
                self.out.files.push(rel.to_owned());
                self.out.files.len() - 1
            }
        }
    }

    fn push_line(
        &mut self,
        line: &str,
        file: usize,
        number: u32,
        path: &Path,
    ) -> Result<(), ShaderError> {
        if self.out.text.len() + line.len() >= MAX_EXPANDED_BYTES {
            return Err(Diagnostic::file(
                path,
                format!("includes expand to more than {MAX_EXPANDED_BYTES} bytes"),
            )
            .into());
        }
        self.out.text.push_str(line);
        self.out.text.push('\n');
        self.out.origins.push(LineOrigin { file, line: number });
        Ok(())
    }

    /// Finds the file `name` included from `from`: next to `from`, then in
    /// the shader folder.
    fn resolve(&self, from: &str, name: &str) -> Result<String, String> {
        let beside = join(parent(from), name)?;
        if self.sources.path(&beside).is_file() {
            return Ok(beside);
        }
        let in_folder = join(self.sources.folder, name)?;
        if self.sources.path(&in_folder).is_file() {
            return Ok(in_folder);
        }
        let looked = if beside == in_folder {
            self.sources.path(&beside).display().to_string()
        } else {
            format!(
                "{} and {}",
                self.sources.path(&beside).display(),
                self.sources.path(&in_folder).display()
            )
        };
        Err(format!(
            "cannot find included file \"{name}\" (looked for {looked})"
        ))
    }
}

/// Reads a source file as UTF-8 text.
fn read_text(path: &Path) -> Result<String, ShaderError> {
    let bytes = fsutil::read(path)
        .map_err(|error| Diagnostic::file(path, super::diagnostic::message_with_causes(&error)))?;
    String::from_utf8(bytes).map_err(|error| {
        Diagnostic::file(
            path,
            format!(
                "is not UTF-8 text (invalid byte at offset {})",
                error.utf8_error().valid_up_to()
            ),
        )
        .into()
    })
}

/// What a line does to the expansion.
#[derive(Debug, PartialEq, Eq)]
enum Directive<'a> {
    /// `#include "name"`; `column` is where the name starts (1-based).
    Include { name: &'a str, column: u32 },
    /// `#pragma once`.
    PragmaOnce,
    /// A line the expansion replaces by a blank one.
    Dropped,
    /// Any other line, kept as is.
    None,
}

/// GLSL extensions whose only job is `#include`, which the expansion does.
const INCLUDE_EXTENSIONS: [&str; 2] = [
    "GL_GOOGLE_include_directive",
    "GL_ARB_shading_language_include",
];

/// Recognises the directives the expansion handles. An `#include` that is not
/// followed by a quoted name is an error at a 1-based column.
fn directive(line: &str, dialect: Dialect) -> Result<Directive<'_>, (u32, String)> {
    let Some(after_hash) = line.trim_start().strip_prefix('#') else {
        return Ok(Directive::None);
    };
    let body = after_hash.trim_start();
    if let Some(rest) = keyword(body, "include") {
        return include_name(line, rest).map(|(name, column)| Directive::Include { name, column });
    }
    if keyword(body, "pragma")
        .and_then(|rest| keyword(rest.trim_start(), "once"))
        .is_some_and(is_blank_or_comment)
    {
        return Ok(Directive::PragmaOnce);
    }
    if dialect == Dialect::Glsl
        && let Some(rest) = keyword(body, "extension")
    {
        let name = rest.trim_start();
        if INCLUDE_EXTENSIONS
            .iter()
            .any(|ext| keyword(name, ext).is_some())
        {
            return Ok(Directive::Dropped);
        }
    }
    Ok(Directive::None)
}

/// The text after `word` when `text` starts with it as a whole word.
fn keyword<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(word)?;
    let continues = rest
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    (!continues).then_some(rest)
}

/// The quoted name after `#include` and its 1-based column in `line`.
fn include_name<'a>(line: &'a str, rest: &'a str) -> Result<(&'a str, u32), (u32, String)> {
    let column_of = |text: &str| u32::try_from(line.len() - text.len() + 1).unwrap_or(u32::MAX);
    let expected = "expected a file name in double quotes after #include";
    let quoted = rest.trim_start();
    let Some(inner) = quoted.strip_prefix('"') else {
        return Err((column_of(quoted), expected.into()));
    };
    let Some(end) = inner.find('"') else {
        return Err((
            column_of(quoted),
            "the #include file name has no closing quote".into(),
        ));
    };
    let (name, after) = (&inner[..end], &inner[end + 1..]);
    if name.is_empty() {
        return Err((column_of(quoted), expected.into()));
    }
    if !is_blank_or_comment(after) {
        let extra = after.trim_start();
        return Err((
            column_of(extra),
            "unexpected text after the #include file name".into(),
        ));
    }
    Ok((name, column_of(inner)))
}

fn is_blank_or_comment(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || text.starts_with("//")
}

/// The folder part of a `rel` path (`""` at the top).
fn parent(rel: &str) -> &str {
    rel.rfind('/').map_or("", |slash| &rel[..slash])
}

/// Joins an include name to a `rel` folder, folding `.` and `..`, refusing
/// absolute names and names that climb out of the input folder.
pub fn join(folder: &str, name: &str) -> Result<String, String> {
    let unified = name.replace('\\', "/");
    let has_drive =
        matches!(unified.as_bytes(), [letter, b':', ..] if letter.is_ascii_alphabetic());
    if unified.starts_with('/') || has_drive {
        return Err(format!(
            "\"{name}\" is an absolute path; include names are relative to the including file"
        ));
    }
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(format!("\"{name}\" leads outside the input folder"));
                }
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() || unified.ends_with('/') {
        return Err(format!("\"{name}\" names no file"));
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project input folder holding `files`.
    fn input(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn expand_in(dir: &Path, rel: &str) -> Result<Expanded, ShaderError> {
        let sources = Sources {
            input_root: dir,
            folder: "fx/a.shader",
        };
        expand(sources, rel, Dialect::Glsl)
    }

    fn location(line: u32, column: u32) -> SourceLocation {
        SourceLocation {
            line_number: line,
            line_position: column,
            offset: 0,
            length: 0,
        }
    }

    #[test]
    fn includes_splice_in_place_and_lines_map_back() {
        let dir = input(&[
            (
                "fx/a.shader/main.frag",
                "#version 450\n#include \"lib/common.glsl\"\nvoid main() {}\n",
            ),
            (
                "fx/a.shader/lib/common.glsl",
                "// common\n  # include \"../more.glsl\" // again\nfloat k;\n",
            ),
            ("fx/a.shader/more.glsl", "float m;\n"),
        ]);
        let expanded = expand_in(dir.path(), "fx/a.shader/main.frag").unwrap();
        assert_eq!(
            expanded.text,
            "#version 450\n// common\nfloat m;\nfloat k;\nvoid main() {}\n"
        );
        assert_eq!(
            expanded.included(),
            ["fx/a.shader/lib/common.glsl", "fx/a.shader/more.glsl"]
        );
        let at = |line, column| expanded.locate(location(line, column));
        assert_eq!(at(1, 2).file, dir.path().join("fx/a.shader/main.frag"));
        assert_eq!((at(1, 2).line, at(1, 2).column), (1, 2));
        assert_eq!(at(3, 7).file, dir.path().join("fx/a.shader/more.glsl"));
        assert_eq!((at(3, 7).line, at(3, 7).column), (1, 7));
        assert_eq!(
            at(4, 1).file,
            dir.path().join("fx/a.shader/lib/common.glsl")
        );
        assert_eq!(at(4, 1).line, 3);
        assert_eq!(at(5, 6).file, dir.path().join("fx/a.shader/main.frag"));
        assert_eq!(at(5, 6).line, 3);
    }

    #[test]
    fn names_fall_back_to_the_shader_folder() {
        let dir = input(&[
            ("fx/a.shader/sub/x.glsl", "#include \"top.glsl\"\n"),
            ("fx/a.shader/top.glsl", "int t;\n"),
            ("fx/common.glsl", "int c;\n"),
            (
                "fx/a.shader/main.vert",
                "#include \"sub/x.glsl\"\n#include \"../common.glsl\"\n",
            ),
        ]);
        let expanded = expand_in(dir.path(), "fx/a.shader/main.vert").unwrap();
        assert_eq!(expanded.text, "int t;\nint c;\n");
        assert!(expanded.included().contains(&"fx/common.glsl".to_string()));
    }

    #[test]
    fn cycles_are_reported_with_their_chain() {
        let dir = input(&[
            ("fx/a.shader/main.frag", "#include \"a.glsl\"\n"),
            ("fx/a.shader/a.glsl", "#include \"b.glsl\"\n"),
            ("fx/a.shader/b.glsl", "int b;\n#include \"a.glsl\"\n"),
        ]);
        let error = expand_in(dir.path(), "fx/a.shader/main.frag").unwrap_err();
        let text = error.to_string();
        let b = dir.path().join("fx/a.shader/b.glsl");
        assert!(
            text.starts_with(&format!("{}:2:11: include cycle", b.display())),
            "{text}"
        );
        assert!(
            text.ends_with("fx/a.shader/a.glsl -> fx/a.shader/b.glsl -> fx/a.shader/a.glsl"),
            "{text}"
        );
    }

    #[test]
    fn a_self_include_is_a_cycle_but_pragma_once_is_not() {
        let dir = input(&[
            ("fx/a.shader/self.wgsl", "#include \"self.wgsl\"\n"),
            (
                "fx/a.shader/main.wgsl",
                "#include \"lib.wgsl\"\n#include \"lib.wgsl\"\n",
            ),
            ("fx/a.shader/lib.wgsl", "#pragma once\nconst k = 1;\n"),
        ]);
        assert!(
            expand_in(dir.path(), "fx/a.shader/self.wgsl")
                .unwrap_err()
                .to_string()
                .contains("include cycle: fx/a.shader/self.wgsl -> fx/a.shader/self.wgsl")
        );
        let expanded = expand_in(dir.path(), "fx/a.shader/main.wgsl").unwrap();
        assert_eq!(expanded.text, "\nconst k = 1;\n");
    }

    #[test]
    fn names_may_not_leave_the_input_folder() {
        assert_eq!(join("fx/a.shader", "../b.glsl").unwrap(), "fx/b.glsl");
        assert_eq!(join("fx/a.shader", "..\\..\\c.glsl").unwrap(), "c.glsl");
        assert!(
            join("fx/a.shader", "../../../etc/passwd")
                .unwrap_err()
                .contains("outside")
        );
        assert!(join("fx", "/etc/passwd").unwrap_err().contains("absolute"));
        assert!(join("fx", "C:\\x.glsl").unwrap_err().contains("absolute"));
        assert!(join("fx", "sub/").unwrap_err().contains("names no file"));
        let dir = input(&[(
            "fx/a.shader/main.frag",
            "\n\n  #include \"../../../x.glsl\"\n",
        )]);
        let text = expand_in(dir.path(), "fx/a.shader/main.frag")
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("main.frag:3:13: \"../../../x.glsl\" leads outside"),
            "{text}"
        );
    }

    #[test]
    fn a_missing_include_names_where_it_looked() {
        let dir = input(&[("fx/a.shader/sub/x.glsl", "#include \"gone.glsl\"\n")]);
        let text = expand_in(dir.path(), "fx/a.shader/sub/x.glsl")
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("x.glsl:1:11: cannot find included file \"gone.glsl\""),
            "{text}"
        );
        assert!(text.contains("sub/gone.glsl and "), "{text}");
    }

    #[test]
    fn malformed_directives_are_errors_and_others_pass() {
        let glsl = Dialect::Glsl;
        assert_eq!(directive("int x;", glsl), Ok(Directive::None));
        assert_eq!(directive("#includes", glsl), Ok(Directive::None));
        assert_eq!(
            directive("#include \"a.glsl\" // why", glsl),
            Ok(Directive::Include {
                name: "a.glsl",
                column: 11
            })
        );
        assert_eq!(directive("#include <a.glsl>", glsl).unwrap_err().0, 10);
        assert!(
            directive("#include \"a.glsl", glsl)
                .unwrap_err()
                .1
                .contains("closing quote")
        );
        assert_eq!(directive("#include \"a\" x", glsl).unwrap_err().0, 14);
        assert_eq!(directive("#pragma once", glsl), Ok(Directive::PragmaOnce));
        assert_eq!(
            directive("#extension GL_GOOGLE_include_directive : require", glsl),
            Ok(Directive::Dropped)
        );
        assert_eq!(
            directive(
                "#extension GL_GOOGLE_include_directive : require",
                Dialect::Wgsl
            ),
            Ok(Directive::None)
        );
    }
}
