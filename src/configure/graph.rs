//! The build plan: one job per source, and its rendering as `build.ninja`.
//!
//! All paths in the plan are relative to the project root (the folder holding
//! `assetc.yml` and `build.ninja`, where Ninja runs), or absolute when they lie
//! outside it. Jobs carry their resolved settings as command-line flags, so a
//! changed rule changes exactly the command lines it resolves differently.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use super::bitmap_fonts;
use super::clashes::{self, LeftOut};
use super::classify::{self, SourceKind};
use super::job::{AtlasSprites, Deps, Job};
use super::meshes;
use super::ninja::{self, Build, Writer};
use super::pack_base::{self, PackBases};
use super::packs::{self, PackPlan};
use super::parts::{self, PartGroup};
use super::paths::{inexpressible, join, path_string, root_relative};
use super::processors::{self, ProcessorRule};
use super::scan::Scan;
use super::sharing::Sharing;
use super::sounds;
use super::{ConfigureError, ConfigureOptions, NINJA_FILE, ToolPaths};
use crate::cache::remote::service::{edges_file, prefetch};
use crate::config::{
    AtlasSettings, AudioCodec, AudioSettings, Config, FontSettings, FormatSetting,
    HdrFormatSetting, IblSettings, LoopSetting, MeshSettings, Selection, Settings, TextureSettings,
    Toggle, absolute,
};
use crate::encode::blocks::target;
use crate::encode::mesh::args::TextureList;
use crate::encode::mesh::scene::{ImageSource, TextureUse};
use crate::encode::texture::{TextureMode, floor};
use crate::format::hman::MANIFEST_FILE;
use crate::fsutil;
use crate::link::pack::pack_path;
use crate::shell;

/// The rule template, filled in by [`Plan::render`].
const TEMPLATE: &str = include_str!("../../build.ninja.in");

/// The failure report of `keep_going` builds, in the build folder.
pub const FAILURE_REPORT: &str = "failed.txt";

/// Everything configure writes, with root-relative paths.
#[derive(Debug)]
pub struct Plan {
    /// The jobs, sorted by source path.
    pub jobs: Vec<Job>,
    /// Sources left out for their output clashes (`keep_going` only).
    pub left_out: Vec<LeftOut>,
    root: PathBuf,
    input: String,
    output: String,
    build: String,
    config_file: String,
    folders: Vec<String>,
    pack: Option<String>,
    /// `keep_going`: encoders record failures, the report edge fails.
    keep_going: bool,
    preset: Option<String>,
    regenerate: Vec<String>,
    tools: [String; 3],
    /// The `encode` variable: launcher, `assetc-encode` and cache options.
    encode: String,
    /// Whether a remote cache is configured: the plan then lists its cached
    /// edges for the build's remote service.
    remote: bool,
    /// One rule per `processors:` entry, in config order.
    processor_rules: Vec<ProcessorRule>,
    /// The named packs.
    named_packs: Vec<PackPlan>,
    /// The shipped packs the packs are laid out over.
    pack_bases: PackBases,
    /// The groups of fragments merged into parts before the top-level link.
    parts: Vec<PartGroup>,
    /// The id files (`--c`/`--rust` flag, root-relative path), when written.
    ids: Vec<(&'static str, String)>,
    /// Things configure noticed inside sources (mesh materials), one line each.
    pub warnings: Vec<String>,
}

impl Plan {
    /// Builds the plan from a scan and the resolved config.
    pub fn new(
        config: &Config,
        selection: &Selection,
        build_dir: &Path,
        options: &ConfigureOptions,
        scanned: &Scan,
        sharing: &Sharing,
    ) -> Result<Self, ConfigureError> {
        let root = &config.root;
        let output = root_relative(root, &selection.output)?;
        let build = root_relative(root, build_dir)?;
        let pack = (config.pack || options.pack)
            .then(|| pack_path(Path::new(&output)).to_string_lossy().into_owned());
        let mut jobs = Vec::with_capacity(scanned.sources.len());
        let mut inspected = Vec::new();
        let mut warnings = Vec::new();
        let mut claimed_images = HashSet::new();
        let mut rule_atlases: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for source in &scanned.sources {
            if let SourceKind::Processor(index) = source.kind {
                jobs.push(processors::job(config, index, &source.rel)?);
                continue;
            }
            let settings = selection.settings_for(&source.rel);
            if matches!(source.kind, SourceKind::Texture(_)) && !settings.atlas.name.0.is_empty() {
                let name = settings.atlas.name.0.clone();
                rule_atlases
                    .entry(name)
                    .or_default()
                    .push(source.rel.clone());
                continue;
            }
            let (kind, naming_flags) =
                classify::settle_texture(source.kind, &source.rel, &settings.texture);
            let mut job = Job {
                source: source.rel.clone(),
                input: source.rel.clone(),
                name: source.rel.clone(),
                kind,
                outputs: classify::outputs(kind, &source.rel),
                flags: [settings_flags(kind, &settings), naming_flags].concat(),
                shares: None,
                image: None,
                sprites: scanned
                    .atlas_files
                    .get(&source.rel)
                    .map(|files| AtlasSprites {
                        root: source.rel.clone(),
                        files: files.clone(),
                    }),
            };
            if kind == SourceKind::Ibl && settings.ibl.irradiance {
                job.outputs.push(classify::irradiance_output(&source.rel));
            }
            if kind == SourceKind::Audio {
                let platform = settings.texture.platform;
                let choice = sounds::choose(&config.input, &source.rel, &settings.audio, platform);
                job.outputs[0] = classify::audio_output(&source.rel, choice.codec);
                job.flags = audio_flags(&settings.audio, choice.codec);
                inspected.extend(choice.read);
                warnings.extend(choice.warning);
            }
            if kind == SourceKind::BitmapFont {
                let pages = bitmap_fonts::pages(&config.input, &source.rel);
                claimed_images.extend(pages.images);
                inspected.push(pages.read);
            }
            if source.kind != SourceKind::Mesh {
                jobs.push(job);
                continue;
            }
            let inspection = meshes::inspect(&config.input, &source.rel);
            if inspection.animated {
                job.outputs.push(classify::animation_output(&source.rel));
            }
            let mut texture_jobs = Vec::with_capacity(inspection.textures.len());
            for texture in &inspection.textures {
                match mesh_texture_job(&config.input, &source.rel, &settings, texture) {
                    Some(job) => {
                        if job.input != job.source {
                            let image = selection.settings_for(&job.input).texture;
                            warnings.extend(classify::slot_disagreement(
                                &job.input,
                                &image,
                                &job.source,
                                texture.mode,
                            ));
                            claimed_images.insert(job.input.clone());
                        }
                        texture_jobs.push((texture.index, job));
                    }
                    None => warnings.push(format!(
                        "{}: image {} lies outside the input folder or has a name Ninja cannot use; the mesh edge fails while a material uses it",
                        source.rel, texture.index
                    )),
                }
            }
            let planned = TextureList(texture_jobs.iter().map(|(index, _)| *index).collect());
            job.flags.extend(["--textures".into(), planned.to_string()]);
            jobs.push(job);
            jobs.extend(texture_jobs.into_iter().map(|(_, job)| job));
            inspected.extend(inspection.inputs);
            warnings.extend(inspection.warnings);
        }
        jobs.extend(
            rule_atlases
                .into_iter()
                .map(|(name, files)| rule_atlas_job(selection, &name, files)),
        );
        // An image file a mesh source's material uses is compiled as that
        // source's texture, in the mode its slot needs, not also on its own;
        // a bitmap font's page images go into its atlas alone.
        jobs.retain(|job| {
            !(matches!(job.kind, SourceKind::Texture(_))
                && job.input == job.source
                && claimed_images.contains(&job.input))
        });
        jobs.extend(brdf_lut_job(&jobs));
        check_names(&config.input, &jobs)?;
        check_sprite_names(&config.input, &jobs)?;
        let keep_going = config.keep_going || options.keep_going;
        let input = root_relative(root, &config.input)?;
        let clashes = clashes::find(&jobs);
        if !clashes.is_empty() && !keep_going {
            let input = config.input.clone();
            return Err(ConfigureError::OutputClashes { input, clashes });
        }
        let left_out = clashes::left_out_sources(&build, &input, &clashes);
        let report = join(&build, FAILURE_REPORT);
        warnings.extend(clashes.iter().map(|c| clashes::warning(&input, c, &report)));
        jobs.retain(|job| left_out.iter().all(|l| l.source != job.source));
        share_image_encodes(&mut jobs, &output);
        let (named_packs, pack_warnings) = packs::plan(config, &output, &build, &jobs);
        warnings.extend(pack_warnings);
        let base = match &options.pack_base {
            Some(given) => Some(absolute(given)?),
            None => selection.pack_base.clone(),
        };
        let named_files: Vec<&str> = named_packs.iter().map(|p| p.file.as_str()).collect();
        let (pack_bases, base_warnings) = pack_base::resolve(
            base.as_deref(),
            root,
            pack.as_deref(),
            &named_files,
            config.pack_max_waste,
        )?;
        warnings.extend(base_warnings);
        let packs_of = packs::packs_of_jobs(&named_packs, jobs.len());
        let part_sources: Vec<&str> = jobs
            .iter()
            .map(|j| j.source.as_str())
            .chain(left_out.iter().map(|l| l.source.as_str()))
            .collect();
        let parts = parts::plan(&part_sources, &packs_of, &build);
        let ids = id_files(config, selection, &jobs)?;
        let folders = scanned
            .folders
            .iter()
            .chain(&inspected)
            .map(|f| root_relative(root, f))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            input,
            left_out,
            config_file: root_relative(root, &config.file)?,
            regenerate: regenerate_command(root, options, selection, build_dir, sharing)?,
            encode: encode_command(options, sharing, &build)?,
            remote: sharing.remote.url.is_some(),
            tools: tool_strings(&options.tools)?,
            processor_rules: processors::rules(config, TEMPLATE)?,
            named_packs,
            pack_bases,
            parts,
            ids: ids
                .into_iter()
                .map(|(flag, path)| Ok((flag, root_relative(root, &path)?)))
                .collect::<Result<_, ConfigureError>>()?,
            preset: selection.preset.clone(),
            root: root.clone(),
            jobs,
            output,
            build,
            folders,
            pack,
            keep_going,
            warnings,
        })
    }

    /// The root-relative path of the file listing every fragment.
    fn fragment_list_rel(&self) -> String {
        join(&self.build, "fragments.list")
    }

    /// Whether the build writes the single pack, `<output>.hpack`.
    pub fn writes_pack(&self) -> bool {
        self.pack.is_some()
    }

    /// The file listing every fragment.
    pub fn fragment_list_path(&self) -> PathBuf {
        self.root.join(self.fragment_list_rel())
    }

    /// The fragment list: one root-relative fragment path per line.
    pub fn fragment_list(&self) -> String {
        parts::lines(self.fragments().iter())
    }

    /// Every fragment, root-relative: each job's, then the failure fragment
    /// of each left-out source (which configure writes itself).
    fn fragments(&self) -> Vec<String> {
        let jobs = self.jobs.iter().map(|j| self.fragment(j));
        jobs.chain(self.left_out.iter().map(|l| l.fragment.clone()))
            .collect()
    }

    /// The list files configure writes for the link edges, root-relative,
    /// with their text: each part group's fragment list, the lists of parts,
    /// each named pack's list, the invalidate list, and the failure fragment
    /// of each left-out source.
    pub fn list_files(&self) -> Vec<(String, String)> {
        let mut files = parts::list_files(&self.parts, &self.fragments(), &self.build);
        files.extend(
            self.named_packs
                .iter()
                .enumerate()
                .map(|(index, p)| (p.list.clone(), p.list_text(index, &self.parts))),
        );
        files.push((
            packs::invalidate_list(&self.build),
            packs::invalidate_text(&self.named_packs),
        ));
        files.extend(
            self.left_out
                .iter()
                .map(|l| (l.fragment.clone(), l.text.clone())),
        );
        files.extend(self.remote_edges());
        files.extend(self.jobs.iter().filter_map(|job| {
            let sprites = job.sprites.as_ref()?;
            let paths: Vec<String> = sprites.files.iter().map(|f| join(&self.input, f)).collect();
            let text = parts::lines(paths.iter());
            Some((self.atlas_list(job), text))
        }));
        files
    }

    /// The root-relative list of an atlas job's sprite files, its input.
    fn atlas_list(&self, job: &Job) -> String {
        join(&self.build, &format!("atlas/{}.list", job.name))
    }

    /// With a remote cache: the list of cached edges the build's remote
    /// service looks up ahead, each as the words `assetc-encode` gets after
    /// its cache options, in the order of `build.ninja`.
    fn remote_edges(&self) -> Option<(String, String)> {
        let list = self.remote_edges_file()?;
        let frags = self.fragments();
        let mut text = String::new();
        for (job, frag) in self.jobs.iter().zip(&frags) {
            if matches!(job.kind, SourceKind::Processor(_)) {
                continue;
            }
            let (_, args) = self.job_args(job, frag, &self.job_outputs(job));
            let mut words = vec![
                job.kind.encoder().to_owned(),
                "--root".to_owned(),
                self.output.clone(),
            ];
            words.extend(args);
            text.push_str(&prefetch::line(&words));
            text.push('\n');
        }
        Some((list, text))
    }

    /// With a remote cache: where [`Plan::remote_edges`] goes, root-relative.
    fn remote_edges_file(&self) -> Option<String> {
        self.remote.then(|| {
            edges_file(Path::new(&self.build))
                .to_string_lossy()
                .into_owned()
        })
    }

    /// Every file the graph produces, root-relative, for stale-output removal.
    pub fn all_outputs(&self) -> Vec<String> {
        let mut all = vec![self.manifest()];
        all.extend(self.pack.clone());
        all.extend(self.named_packs.iter().map(|p| p.file.clone()));
        all.extend(parts::all_files(&self.parts, &self.build));
        all.extend(self.named_packs.iter().map(|p| p.list.clone()));
        all.push(packs::invalidate_list(&self.build));
        all.extend(self.ids.iter().map(|(_, path)| path.clone()));
        for job in &self.jobs {
            all.extend(job.outputs.iter().map(|o| join(&self.output, o)));
        }
        all.extend(self.fragments());
        all.extend(self.remote_edges_file());
        all.extend(
            self.jobs
                .iter()
                .filter(|job| job.sprites.is_some())
                .map(|job| self.atlas_list(job)),
        );
        all
    }

    /// What the regeneration edge depends on besides `assetc.yml`: every folder
    /// walked, so adding or removing a source re-runs configure, and every
    /// file configure read inside a mesh source (its edges depend on them).
    pub fn regeneration_inputs(&self) -> Vec<String> {
        self.folders.clone()
    }

    /// Renders the complete `build.ninja`.
    pub fn render(&self) -> String {
        let mut w = Writer::new(self.prelude());
        self.write_extra_rules(&mut w);
        w.comment("Regenerate this file when the config or the set of sources changes.");
        w.build(&Build {
            outputs: vec![NINJA_FILE],
            rule: "configure",
            implicit: vec![&self.config_file, &self.tools[0]],
            ..Build::default()
        });
        w.blank();
        let frags = self.fragments();
        let outs: Vec<Vec<String>> = self.jobs.iter().map(|j| self.job_outputs(j)).collect();
        for ((job, frag), job_outs) in self.jobs.iter().zip(&frags).zip(&outs) {
            self.write_job(&mut w, job, frag, job_outs);
        }
        w.blank();
        self.write_link(&mut w, &frags, &outs);
        w.finish()
    }

    fn prelude(&self) -> String {
        let mut invalidate = vec!["--invalidate".to_string(), self.manifest()];
        if let Some(pack) = &self.pack {
            invalidate.extend(["--invalidate".to_string(), pack.clone()]);
        }
        invalidate.extend(packs::invalidate_args(&self.build));
        let preset = self.preset.as_deref().unwrap_or("default");
        [
            ("@BUILDDIR@", ninja::escape_value(&self.build)),
            ("@ENCODE@", self.encode.clone()),
            ("@LINK@", value_words(&[&self.tools[2]])),
            ("@OUTROOT@", value_words(&[&self.output])),
            ("@INVALIDATE@", value_words(&invalidate)),
            (
                "@KEEPGOING@",
                if self.keep_going { "--keep-going" } else { "" }.to_string(),
            ),
            ("@CONFIGURE@", value_words(&self.regenerate)),
            ("@PRESET@", ninja::escape_value(preset)),
        ]
        .iter()
        .fold(TEMPLATE.to_string(), |text, (key, value)| {
            text.replace(key, value)
        })
    }

    /// The rules that depend on the config: one per processor, and the named
    /// pack rule when there are named packs.
    fn write_extra_rules(&self, w: &mut Writer) {
        for rule in &self.processor_rules {
            rule.write(w);
        }
        if !self.named_packs.is_empty() {
            packs::write_rule(w);
        }
    }

    /// The rule of `job`'s edge and the files it depends on besides its input.
    fn rule_of(&self, job: &Job) -> (&str, Vec<&str>) {
        let mut implicit = vec![self.tools[1].as_str()];
        if job.kind == SourceKind::BrdfLut {
            implicit.clear();
        }
        let rule = match job.kind {
            SourceKind::Processor(index) => match self.processor_rules.get(index) {
                Some(rule) => {
                    implicit.extend(rule.inputs.iter().map(String::as_str));
                    rule.name.as_str()
                }
                None => job.kind.encoder(),
            },
            kind => kind.encoder(),
        };
        (rule, implicit)
    }

    /// A job's input path and its `assetc-encode` words after `--root`.
    fn job_args(&self, job: &Job, frag: &str, outs: &[String]) -> (String, Vec<String>) {
        let source = match (&job.shares, &job.sprites) {
            (Some(encoded), _) => encoded.clone(),
            // The table is a function of the tool alone.
            (None, _) if job.kind == SourceKind::BrdfLut => self.tools[1].clone(),
            (None, Some(_)) => self.atlas_list(job),
            (None, None) => join(&self.input, &job.input),
        };
        let mut args = job.flags.clone();
        if let Some(sprites) = &job.sprites {
            let root = match sprites.root.as_str() {
                "" => self.input.clone(),
                folder => join(&self.input, folder),
            };
            args.extend(["--sprite-root".into(), root]);
        }
        args.extend(["--source".into(), job.source.clone()]);
        args.extend(["--fragment".into(), frag.to_string()]);
        if job.deps() != Deps::None {
            args.extend(["--depfile".into(), self.depfile(job)]);
        }
        for out in outs {
            args.extend(["-o".into(), out.clone()]);
        }
        args.push(source.clone());
        (source, args)
    }

    fn depfile(&self, job: &Job) -> String {
        join(&self.build, &format!("dep/{}.d", job.name))
    }

    fn write_job(&self, w: &mut Writer, job: &Job, frag: &str, outs: &[String]) {
        let (source, args) = self.job_args(job, frag, outs);
        let dep = self.depfile(job);
        let deps = job.deps();
        let mut outputs: Vec<&str> = outs.iter().map(String::as_str).collect();
        outputs.push(frag);
        let (rule, implicit) = self.rule_of(job);
        let mut vars = vec![("args", shell::shell_join(&args))];
        if deps != Deps::None {
            vars.push(("dep", dep));
        }
        if deps == Deps::Edge {
            vars.push(("depmode", "gcc".into()));
        }
        if let Some(index) = job.image {
            vars.push(("description", self.image_description(job, index)));
        }
        if let Some(sprites) = &job.sprites {
            let description = match sprites.root.as_str() {
                "" => format!("ATLAS {} (atlas: rules)", job.source),
                folder => format!("ATLAS {}", join(&self.input, folder)),
            };
            vars.push(("description", description));
        }
        w.build(&Build {
            outputs,
            rule,
            inputs: vec![&source],
            implicit,
            vars,
        });
    }

    /// The progress line of the texture edge of image `index` of a mesh
    /// source: `TEXTURE assets/crate.gltf image 0 (crate_color.png)`,
    /// `(embedded)` for an image stored inside the source, and `(paint.png,
    /// copied from runtime/box/tex_0.ktx2)` for an image another source's
    /// edge encodes. The rule's `TEXTURE $in` would name the model (or the
    /// shared encode) alone, once for each of its images.
    fn image_description(&self, job: &Job, index: usize) -> String {
        let image = if job.input == job.source {
            "embedded"
        } else {
            job.input.rsplit('/').next().unwrap_or(&job.input)
        };
        let source = join(&self.input, &job.source);
        match &job.shares {
            Some(encoded) => {
                format!("TEXTURE {source} image {index} ({image}, copied from {encoded})")
            }
            None => format!("TEXTURE {source} image {index} ({image})"),
        }
    }

    /// The link edges: one per part group, then the manifest, the packs, the
    /// ids and the check, which read the parts.
    fn write_link(&self, w: &mut Writer, frags: &[String], outs: &[Vec<String>]) {
        let list = self.fragment_list_rel();
        let manifest = self.manifest();
        let entries_list = parts::entries_list(&self.build);
        let entries: Vec<&str> = self.parts.iter().map(|g| g.entries.as_str()).collect();
        let full: Vec<&str> = self.parts.iter().map(|g| g.full.as_str()).collect();
        let names = parts::PartNames {
            input: &self.input,
            packs: self.named_packs.iter().map(|p| p.name.as_str()).collect(),
        };
        parts::write_edges(w, &self.parts, frags, &self.tools[2], &names);
        let mut implicit = entries.clone();
        implicit.push(&self.tools[2]);
        w.build(&Build {
            outputs: vec![&manifest],
            rule: "link_manifest",
            inputs: vec![&entries_list],
            implicit,
            ..Build::default()
        });
        let mut check_args = vec![
            "--fragments".to_string(),
            list.clone(),
            "--input".to_string(),
            self.input.clone(),
        ];
        let mut defaults = vec![manifest.as_str()];
        if let Some(pack) = &self.pack {
            let parts_list = parts::parts_list(&self.build);
            let mut implicit = vec![manifest.as_str()];
            implicit.extend(outs.iter().flatten().map(String::as_str));
            implicit.extend(&full);
            implicit.push(&self.tools[2]);
            let vars = self
                .pack_bases
                .edge_vars(self.pack_bases.single.as_deref(), &mut implicit);
            w.build(&Build {
                outputs: vec![pack],
                rule: "link_pack",
                inputs: vec![&parts_list],
                implicit,
                vars,
            });
            check_args.extend(["--pack".to_string(), pack.clone()]);
            defaults.push(pack);
        }
        packs::write_edges(
            w,
            &self.named_packs,
            &self.parts,
            outs,
            &self.tools[2],
            &self.pack_bases,
        );
        check_args.extend(packs::check_args(&self.named_packs));
        defaults.extend(self.named_packs.iter().map(|p| p.file.as_str()));
        self.write_ids(w, &entries_list, &entries);
        defaults.extend(self.ids.iter().map(|(_, path)| path.as_str()));
        let report = self.failure_report();
        if self.keep_going {
            let mut implicit = entries.clone();
            implicit.extend(defaults.iter().copied());
            implicit.push(&self.tools[2]);
            w.comment("Lists the assets that failed; fails the build while there are any.");
            w.build(&Build {
                outputs: vec![&report],
                rule: "link_report",
                inputs: vec![&entries_list],
                implicit,
                ..Build::default()
            });
        }
        w.comment("`ninja check` validates the output folder; it is not built by default.");
        w.build(&Build {
            outputs: vec!["check"],
            rule: "link_check",
            implicit: defaults.clone(),
            vars: vec![("check_args", shell::shell_join(&check_args))],
            ..Build::default()
        });
        if self.keep_going {
            defaults.push(&report);
        }
        w.default_targets(&defaults);
    }

    /// The failure report of `keep_going` builds.
    fn failure_report(&self) -> String {
        join(&self.build, FAILURE_REPORT)
    }

    /// The edge writing the id files from the entries parts, like the
    /// manifest.
    fn write_ids(&self, w: &mut Writer, list: &str, entries: &[&str]) {
        if self.ids.is_empty() {
            return;
        }
        let mut implicit: Vec<&str> = entries.to_vec();
        implicit.push(&self.tools[2]);
        let args: Vec<&str> = self
            .ids
            .iter()
            .flat_map(|(flag, path)| [*flag, path.as_str()])
            .collect();
        w.build(&Build {
            outputs: self.ids.iter().map(|(_, path)| path.as_str()).collect(),
            rule: "link_ids",
            inputs: vec![list],
            implicit,
            vars: vec![("ids_args", shell::shell_join(&args))],
        });
    }

    fn manifest(&self) -> String {
        join(&self.output, MANIFEST_FILE)
    }

    fn fragment(&self, job: &Job) -> String {
        join(&self.build, &format!("frag/{}.frag", job.name))
    }

    fn job_outputs(&self, job: &Job) -> Vec<String> {
        job.outputs.iter().map(|o| join(&self.output, o)).collect()
    }
}

/// Settings as the flags of the kind's encoder.
fn settings_flags(kind: SourceKind, settings: &Settings) -> Vec<String> {
    let texture = &settings.texture;
    match kind {
        SourceKind::Texture(mode) | SourceKind::TextureArray(mode) => {
            let mut flags = vec!["--mode".into(), mode_name(mode)];
            flags.extend(surface_flags(texture, mode));
            flags.extend(pixel_art_flags(texture, mode));
            flags
        }
        SourceKind::Atlas(mode) => {
            // Halving the pages would move every rect: an atlas's pages are
            // bounded by `atlas.max_size` instead.
            let pages = TextureSettings {
                max_size: 0,
                ..texture.clone()
            };
            let mut flags = vec!["--mode".into(), mode_name(mode)];
            flags.extend(surface_flags(&pages, mode));
            flags.extend(pixel_art_flags(texture, mode));
            flags.extend(atlas_flags(&settings.atlas));
            flags
        }
        SourceKind::Cubemap => surface_flags(texture, TextureMode::Color),
        SourceKind::Lut | SourceKind::BitmapFont => {
            vec!["--zstd-level".into(), texture.zstd_level.0.to_string()]
        }
        SourceKind::Mesh => mesh_flags(&settings.mesh),
        SourceKind::Font => font_flags(&settings.font, texture),
        SourceKind::Ibl => ibl_flags(&settings.ibl, texture),
        // A sound's flags depend on its codec, which `Plan::new` settles.
        SourceKind::Audio
        | SourceKind::BrdfLut
        | SourceKind::Material
        | SourceKind::Shader
        | SourceKind::Embed
        | SourceKind::Processor(_) => Vec::new(),
    }
}

/// The atlas encoder's own flags.
fn atlas_flags(atlas: &AtlasSettings) -> Vec<String> {
    flag_pairs([
        ("--page-limit", atlas.max_size.to_string()),
        ("--padding", atlas.padding.to_string()),
        ("--extrude", atlas.extrude.to_string()),
        ("--trim", atlas.trim.to_string()),
        ("--rotate", atlas.rotate.to_string()),
        ("--pivot", atlas.pivot.to_string()),
    ])
}

/// The job of the atlas a rule names `name`, holding `files` (the images
/// the rules send there, by path): source `<name>.atlas`, with the texture
/// and atlas settings of its first sprite.
fn rule_atlas_job(selection: &Selection, name: &str, files: Vec<String>) -> Job {
    let source = format!("{name}{}", classify::ATLAS_SUFFIX);
    let settings = selection.settings_for(&files[0]);
    let unsettled = SourceKind::Atlas(TextureMode::Color);
    let (kind, naming_flags) = classify::settle_texture(unsettled, &source, &settings.texture);
    Job {
        input: source.clone(),
        name: source.clone(),
        outputs: classify::outputs(kind, &source),
        flags: [settings_flags(kind, &settings), naming_flags].concat(),
        source,
        kind,
        shares: None,
        image: None,
        sprites: Some(AtlasSprites {
            root: String::new(),
            files,
        }),
    }
}

/// The texture edge of one image a mesh source's materials use: `<stem>/tex_<i>.ktx2`
/// in the mode of the slot that uses the image first, with the mesh source's
/// texture settings. An embedded image is read out of the source itself
/// (`--gltf-image`); an image file is the edge's input. `None` when the file
/// is not below the input folder as a UTF-8 path.
fn mesh_texture_job(
    input_root: &Path,
    rel: &str,
    settings: &Settings,
    texture: &TextureUse,
) -> Option<Job> {
    let mut flags = vec!["--mode".into(), mode_name(texture.mode)];
    flags.extend(surface_flags(&settings.texture, texture.mode));
    let input = match &texture.source {
        ImageSource::Embedded => {
            flags.extend(["--gltf-image".into(), texture.index.to_string()]);
            rel.to_string()
        }
        ImageSource::File(path) => fsutil::slash_relative(input_root, path)?,
    };
    Some(Job {
        source: rel.to_string(),
        input,
        name: format!("{rel}.tex_{}", texture.index),
        kind: SourceKind::Texture(texture.mode),
        outputs: vec![classify::mesh_texture_output(rel, texture.index)],
        flags,
        shares: None,
        image: Some(texture.index),
        sprites: None,
    })
}

/// Encodes each image file that several mesh sources use once per set of
/// flags: the first such texture edge (in job order, so by source path)
/// encodes it, and every other one takes that edge's output as its input
/// and passes the KTX2 through, byte for byte. Each source keeps its own
/// `<stem>/tex_<i>` file and id, so the `.hmat` rows and the manifest are as
/// without sharing; only the encoding work is done once. Images embedded in
/// a source are its own and never shared. `output` is the root-relative
/// output folder.
fn share_image_encodes(jobs: &mut [Job], output: &str) {
    let mut encoder_of: HashMap<(String, Vec<String>), String> = HashMap::new();
    for job in jobs.iter_mut() {
        // An embedded image's edge reads the source itself (input == source).
        let image_file = matches!(job.kind, SourceKind::Texture(_)) && job.input != job.source;
        let Some(first_output) = job.outputs.first().filter(|_| image_file) else {
            continue;
        };
        let key = (job.input.clone(), job.flags.clone());
        match encoder_of.get(&key) {
            Some(encoded) => job.shares = Some(encoded.clone()),
            None => {
                encoder_of.insert(key, join(output, first_output));
            }
        }
    }
}

/// Flags and their values as command-line words, in order.
fn flag_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, String)>) -> Vec<String> {
    pairs
        .into_iter()
        .flat_map(|(flag, value)| [flag.to_string(), value])
        .collect()
}

/// The mesh encoder's flags.
fn mesh_flags(mesh: &MeshSettings) -> Vec<String> {
    flag_pairs([
        ("--merge", mesh.merge.to_string()),
        ("--meshlets", mesh.meshlets.to_string()),
        ("--meshlet-vertices", mesh.meshlet_vertices.to_string()),
        ("--meshlet-triangles", mesh.meshlet_triangles.to_string()),
        ("--cone-weight", mesh.cone_weight.to_string()),
        ("--lods", mesh.lods.to_string()),
        ("--lod-error", mesh.lod_error.to_string()),
    ])
}

/// The font encoder's flags: the font settings, and the texture Zstandard
/// level for the atlas.
fn font_flags(font: &FontSettings, texture: &TextureSettings) -> Vec<String> {
    flag_pairs([
        ("--charset", font.charset.to_string()),
        ("--px-per-em", font.px_per_em.to_string()),
        ("--spread", font.spread.to_string()),
        ("--mode", font.mode.name().to_string()),
        ("--zstd-level", texture.zstd_level.0.to_string()),
    ])
}

/// The audio encoder's flags: the codec and the `audio:` settings that
/// reach it (a codec's own knobs only for that codec, the loop's ends only
/// with `loop: true`, no rate for Opus), so a setting change rebuilds only
/// the sounds it alters.
fn audio_flags(audio: &AudioSettings, codec: AudioCodec) -> Vec<String> {
    let mut flags = flag_pairs([
        ("--codec", codec.name().to_string()),
        ("--mono", audio.mono.to_string()),
        ("--loudness", audio.loudness.to_string()),
        ("--true-peak", audio.true_peak.to_string()),
        ("--normalize", audio.normalize.to_string()),
        ("--trim", audio.trim.to_string()),
        ("--loop", audio.r#loop.to_string()),
    ]);
    let mut extra = Vec::new();
    if audio.r#loop == LoopSetting::On {
        extra.push(("--loop-start", audio.loop_start.to_string()));
        extra.push(("--loop-end", audio.loop_end.to_string()));
    }
    match codec {
        AudioCodec::Opus => extra.push(("--opus-bitrate", audio.opus_bitrate.to_string())),
        AudioCodec::Vorbis => extra.push(("--vorbis-quality", audio.vorbis_quality.to_string())),
        AudioCodec::Pcm16 | AudioCodec::Qoa => {}
    }
    if codec != AudioCodec::Opus {
        extra.push(("--rate", audio.rate.to_string()));
    }
    flags.extend(flag_pairs(extra));
    flags
}

/// The IBL encoder's flags: the `ibl:` settings, and the texture
/// Zstandard level for the cubes.
fn ibl_flags(ibl: &IblSettings, texture: &TextureSettings) -> Vec<String> {
    flag_pairs([
        ("--size", ibl.size.to_string()),
        ("--irradiance", ibl.irradiance.to_string()),
        ("--format", hdr_format_name(ibl.format, texture).to_string()),
        ("--zstd-level", texture.zstd_level.0.to_string()),
    ])
}

/// The one edge of the project's BRDF lookup table, when any job is an IBL
/// source. Its input is the `assetc-encode` binary (see `write_job`), and
/// its name in messages and the fragment is its output's.
fn brdf_lut_job(jobs: &[Job]) -> Option<Job> {
    jobs.iter()
        .any(|job| job.kind == SourceKind::Ibl)
        .then(|| Job {
            source: classify::BRDF_LUT_OUTPUT.to_string(),
            input: classify::BRDF_LUT_OUTPUT.to_string(),
            name: classify::BRDF_LUT_OUTPUT.to_string(),
            kind: SourceKind::BrdfLut,
            outputs: classify::outputs(SourceKind::BrdfLut, ""),
            flags: Vec::new(),
            shares: None,
            image: None,
            sprites: None,
        })
}

/// The `assetc-encode` name of a texture mode.
fn mode_name(mode: TextureMode) -> String {
    mode.to_possible_value()
        .map(|value| value.get_name().to_string())
        .unwrap_or_default()
}

/// The flags of every image-based kind of `mode`. `format: auto` is settled
/// here, so the edge names the format it writes and a new platform rebuilds
/// only the textures whose format changes. Knobs a format ignores are left
/// out (`quality` of raw and BC1/BC4/BC5 textures, `rdo` of all but UASTC),
/// so changing them rebuilds only what they affect.
fn surface_flags(texture: &TextureSettings, mode: TextureMode) -> Vec<String> {
    let format = target::resolve_auto(texture.format, mode, texture.platform);
    let mut flags = vec!["--format".into(), format.name().to_string()];
    if has_effort(format) {
        flags.extend(["--quality".into(), texture.quality.0.to_string()]);
    }
    if format == FormatSetting::Uastc {
        flags.extend(["--rdo".into(), texture.rdo.to_string()]);
    }
    flags.extend(["--zstd-level".into(), texture.zstd_level.0.to_string()]);
    flags.extend(["--mips".into(), texture.mips.to_string()]);
    flags.extend(["--max-size".into(), texture.max_size.to_string()]);
    // Written only when set, so the command lines of projects that leave
    // them alone (and the textures they do not apply to) stay as they were.
    if texture.svg_size != 0 {
        flags.extend(["--svg-size".into(), texture.svg_size.to_string()]);
    }
    let floored = floor::applies_to(mode) && !format.is_raw();
    if floored && texture.min_psnr != TextureSettings::default().min_psnr {
        flags.extend(["--min-psnr".into(), texture.min_psnr.to_string()]);
    }
    let hdr_format = hdr_format_name(texture.hdr_format, texture);
    if hdr_format != HdrFormatSetting::Rgba16f.name() {
        flags.extend(["--hdr-format".into(), hdr_format.into()]);
    }
    flags
}

/// The float format `setting` names, `auto` resolved by the texture
/// platform.
fn hdr_format_name(setting: HdrFormatSetting, texture: &TextureSettings) -> &'static str {
    match setting {
        HdrFormatSetting::Auto => target::resolve_auto_hdr(texture.platform).name(),
        other => other.name(),
    }
}

/// The `--pixel-art` flag of a colour image's edge, unless pixel art is off
/// (the encoder's default), so projects that turn it off keep their command
/// lines.
fn pixel_art_flags(texture: &TextureSettings, mode: TextureMode) -> Vec<String> {
    if mode == TextureMode::Color && texture.pixel_art != Toggle::Off {
        vec!["--pixel-art".into(), texture.pixel_art.to_string()]
    } else {
        Vec::new()
    }
}

/// Whether `format`'s encoder has an effort knob (`quality`): UASTC, BC7,
/// BC6H and ASTC do; raw formats, BC1, BC4 and BC5 do not.
fn has_effort(format: FormatSetting) -> bool {
    !format.is_raw()
        && !matches!(
            format,
            FormatSetting::Bc1 | FormatSetting::Bc4 | FormatSetting::Bc5
        )
}

/// Refuses source names Ninja cannot express.
fn check_names(input: &Path, jobs: &[Job]) -> Result<(), ConfigureError> {
    match jobs
        .iter()
        .find_map(|job| Some((job, ninja::check_expressible(&job.source)?)))
    {
        Some((job, what)) => Err(inexpressible(&input.join(&job.source), what)),
        None => Ok(()),
    }
}

/// Refuses atlas sprite files whose names Ninja cannot express (they reach
/// its depfiles).
fn check_sprite_names(input: &Path, jobs: &[Job]) -> Result<(), ConfigureError> {
    let files = jobs
        .iter()
        .filter_map(|job| job.sprites.as_ref())
        .flat_map(|s| &s.files);
    for file in files {
        if let Some(what) = ninja::check_expressible(file) {
            return Err(inexpressible(&input.join(file), what));
        }
    }
    Ok(())
}

/// The id files of this build with their `assetc-link ids` flags. A file
/// that a source's output would also be is refused, naming the source.
fn id_files(
    config: &Config,
    selection: &Selection,
    jobs: &[Job],
) -> Result<Vec<(&'static str, PathBuf)>, ConfigureError> {
    let paths = config.ids.resolve(&config.file, &selection.output)?;
    let files: Vec<(&'static str, PathBuf)> = [("--c", paths.c), ("--rust", paths.rust)]
        .into_iter()
        .filter_map(|(flag, path)| path.map(|p| (flag, p)))
        .collect();
    for (_, path) in &files {
        let Some(rel) = fsutil::slash_relative(&selection.output, path) else {
            continue;
        };
        let clash = jobs.iter().find_map(|job| {
            let output = job.outputs.iter().find(|o| o.eq_ignore_ascii_case(&rel))?;
            Some((job, *output != rel))
        });
        if let Some((job, case_only)) = clash {
            return Err(ConfigureError::OutputClash {
                source_path: config.input.join(&job.source),
                other: "assetc-link ids (the `ids:` key)".into(),
                output: rel,
                case_only,
            });
        }
    }
    Ok(files)
}

/// The command Ninja runs to regenerate: this configure, as the user gave it,
/// with `-o` and `--build-dir` as the folders they resolved to.
fn regenerate_command(
    root: &Path,
    options: &ConfigureOptions,
    selection: &Selection,
    build_dir: &Path,
    sharing: &Sharing,
) -> Result<Vec<String>, ConfigureError> {
    let preset = &selection.preset;
    let mut words = vec![path_string(&options.tools.assetc)?, "configure".to_string()];
    if options.preset.is_some()
        && let Some(p) = preset
    {
        words.extend(["--preset".into(), p.clone()]);
    }
    if options.output.is_some() {
        words.extend(["-o".into(), root_relative(root, &selection.output)?]);
    }
    if options.build_dir.is_some() {
        words.extend(["--build-dir".into(), root_relative(root, build_dir)?]);
    }
    if options.pack {
        words.push("--pack".into());
    }
    if let Some(base) = &options.pack_base {
        words.extend(["--pack-base".into(), root_relative(root, &absolute(base)?)?]);
    }
    if options.keep_going {
        words.push("--keep-going".into());
    }
    words.extend(sharing.regenerate.iter().cloned());
    Ok(words)
}

/// The `encode` variable: the launcher as the user wrote it, then the
/// quoted `assetc-encode` path and its cache options.
fn encode_command(
    options: &ConfigureOptions,
    sharing: &Sharing,
    build: &str,
) -> Result<String, ConfigureError> {
    let mut words = vec![path_string(&options.tools.encode)?];
    words.extend(sharing.encode_options(build));
    let encode = value_words(&words);
    Ok(match &sharing.launcher {
        Some(launcher) => format!("{} {encode}", ninja::escape_value(launcher.trim())),
        None => encode,
    })
}

fn tool_strings(tools: &ToolPaths) -> Result<[String; 3], ConfigureError> {
    Ok([
        path_string(&tools.assetc)?,
        path_string(&tools.encode)?,
        path_string(&tools.link)?,
    ])
}

/// Shell-quotes words and escapes them for a Ninja variable value.
fn value_words<S: AsRef<str>>(words: &[S]) -> String {
    ninja::escape_value(&shell::shell_join(words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::EncodeCli as Cli;
    use crate::config::{Charset, FontMode, PxPerEm, Spread};
    use crate::encode::command::Command;
    use clap::Parser;

    #[test]
    fn every_font_setting_reaches_the_encoder_unchanged() {
        let font = FontSettings {
            charset: "0x20-0x7e,0x400-0x4ff".parse::<Charset>().unwrap(),
            px_per_em: PxPerEm(64),
            spread: Spread(8),
            mode: FontMode::Msdf,
        };
        let texture = TextureSettings::default();
        let mut words = vec!["assetc-encode".to_string(), "font".to_string()];
        words.extend(font_flags(&font, &texture));
        words.extend(["--root", "out", "--source", "a.ttf", "--fragment", "f"].map(String::from));
        words.extend(
            [
                "--depfile",
                "d",
                "-o",
                "out/a.hfont",
                "-o",
                "out/a.font.ktx2",
            ]
            .map(String::from),
        );
        words.push("in/a.ttf".into());
        let cli = Cli::try_parse_from(&words).unwrap();
        let Command::Font(args) = cli.command else {
            panic!("not a font command");
        };
        assert_eq!(args.charset, font.charset);
        assert_eq!(args.px_per_em, font.px_per_em);
        assert_eq!(args.spread, font.spread);
        assert_eq!(args.mode, font.mode);
        assert_eq!(args.zstd_level, texture.zstd_level);
    }
}
