//! Configure's side of user processors (`processors:` in `assetc.yml`).
//!
//! * [`claim`] decides, before the built-in suffix table, whether a file is
//!   compiled by a processor (the first whose glob matches) or embedded;
//! * [`job`] makes the encode job of a claimed file: one output, named by the
//!   processor's `output:` or `extension:`;
//! * [`ProcessorRule`] is one Ninja rule per processor. Its command runs
//!   `assetc-encode process`, which runs the user's command, so the edge
//!   behaves like every built-in one: `restat`, a `deps = gcc` depfile, the
//!   encoder as an implicit input, write-if-changed output, a fragment. The
//!   user's command template is part of the rule's command, so Ninja's command
//!   hash rebuilds exactly that processor's outputs when the template changes.

use std::path::Path;

use super::classify::SourceKind;
use super::job::Job;
use super::ninja::{self, Writer};
use super::paths::root_relative;
use super::{ConfigureError, NINJA_FILE};
use crate::config::{Config, ConfigError, Processor, Selection};
use crate::format::hman::MANIFEST_FILE;
use crate::shell;

/// Rule names Ninja or our own link steps use besides those of the template.
const RESERVED_RULES: [&str; 2] = ["phony", super::packs::NAMED_PACK_RULE];

/// What a file is when something other than its name decides: the first
/// processor whose glob matches it, else `embed` when an `embed:` glob does.
pub fn claim(config: &Config, selection: &Selection, rel: &str) -> Option<SourceKind> {
    config
        .processor_for(rel)
        .map(SourceKind::Processor)
        .or_else(|| selection.is_embed(rel).then_some(SourceKind::Embed))
}

/// The encode job of the source at `rel`, claimed by processor `index`.
pub fn job(config: &Config, index: usize, rel: &str) -> Result<Job, ConfigureError> {
    let processor = config
        .processors
        .get(index)
        .ok_or_else(|| ConfigureError::BadName {
            path: config.input.join(rel),
            what: format!("claimed by processor #{index}, which does not exist"),
        })?;
    let output = processor.naming.output_for(rel);
    if output.eq_ignore_ascii_case(MANIFEST_FILE) {
        return Err(ConfigureError::BadName {
            path: config.input.join(rel),
            what: format!(
                "processor '{}' would write {output}, the manifest's own name",
                processor.name
            ),
        });
    }
    Ok(Job {
        source: rel.to_string(),
        input: rel.to_string(),
        name: rel.to_string(),
        kind: SourceKind::Processor(index),
        outputs: vec![output],
        flags: Vec::new(),
        shares: None,
        image: None,
        sprites: None,
    })
}

/// One processor as a Ninja rule, plus the files its edges depend on.
#[derive(Debug, Clone)]
pub struct ProcessorRule {
    /// The rule name (the processor's name).
    pub name: String,
    /// The rule's `command` value, already escaped for Ninja.
    command: String,
    /// Root-relative paths of the processor's `inputs:`.
    pub inputs: Vec<String>,
}

impl ProcessorRule {
    /// The rule for `processor`; `root` is where Ninja runs.
    pub fn new(root: &Path, processor: &Processor) -> Result<Self, ConfigureError> {
        let fixed = [
            "process",
            "--name",
            &processor.name,
            "--kind",
            processor.kind.name(),
            "--colorspace",
            processor.colorspace.name(),
        ];
        let template = ninja::escape_value(&shell::shell_quote(&processor.command));
        let command = format!(
            "$encode {} --root $outroot $invalidate $keepgoing $args -- {template}",
            shell::shell_join(&fixed)
        );
        let inputs = processor
            .inputs
            .iter()
            .map(|input| root_relative(root, input))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            name: processor.name.clone(),
            command,
            inputs,
        })
    }

    /// Writes the rule.
    pub fn write(&self, w: &mut Writer) {
        let description = format!("PROCESS {} $in", self.name);
        w.rule(
            &self.name,
            &[
                ("command", self.command.as_str()),
                ("description", description.as_str()),
                ("depfile", "$dep"),
                ("deps", "gcc"),
                ("restat", "1"),
            ],
        );
    }
}

/// The rules of every processor, refusing names that clash with a rule of
/// the template (`template` is its text) or one Ninja reserves.
pub fn rules(config: &Config, template: &str) -> Result<Vec<ProcessorRule>, ConfigureError> {
    let taken: Vec<&str> = template
        .lines()
        .filter_map(|line| line.strip_prefix("rule "))
        .map(str::trim)
        .chain(RESERVED_RULES)
        .collect();
    config
        .processors
        .iter()
        .map(|processor| {
            if taken.contains(&processor.name.as_str()) {
                return Err(ConfigureError::Config(ConfigError::Parse {
                    file: config.file.clone(),
                    line: processor.line,
                    column: processor.column,
                    message: format!(
                        "processor name '{}' is taken by a built-in rule of {NINJA_FILE}; choose another",
                        processor.name
                    ),
                }));
            }
            ProcessorRule::new(&config.root, processor)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_is_one_escaped_shell_word() {
        let text = "processors:\n  - name: maps\n    match: '*.tmj'\n    command: tool \"$in\" -o $out; echo it's\n    extension: .bin\n    kind: embed\n";
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("assetc.yml");
        std::fs::write(&file, text).unwrap();
        let config = Config::load(&file).unwrap();
        let rule = ProcessorRule::new(dir.path(), &config.processors[0]).unwrap();
        assert_eq!(
            rule.command,
            "$encode process --name maps --kind embed --colorspace linear --root $outroot $invalidate $keepgoing $args -- 'tool \"$$in\" -o $$out; echo it'\\''s'"
        );
        let mut w = Writer::default();
        rule.write(&mut w);
        assert!(
            w.finish()
                .starts_with("rule maps\n  command = $encode process")
        );
    }

    #[test]
    fn built_in_rule_names_are_refused_with_their_line() {
        let text = "processors:\n  - name: ok\n    match: a\n    command: c\n    extension: .x\n    kind: embed\n  - name: texture\n    match: b\n    command: c\n    extension: .y\n    kind: embed\n";
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("assetc.yml");
        std::fs::write(&file, text).unwrap();
        let config = Config::load(&file).unwrap();
        let error = rules(&config, "rule texture\n  command = x\n").unwrap_err();
        assert!(
            error
                .to_string()
                .contains("assetc.yml:7:11: processor name 'texture' is taken"),
            "{error}"
        );
    }
}
