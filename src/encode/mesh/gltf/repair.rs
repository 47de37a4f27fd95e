//! Valid glTF that the `gltf` crate's model cannot hold, set right at the
//! JSON level before the crate reads it.
//!
//! The crate (1.4) insists on two fields that glTF 2.0 makes optional:
//! * `scenes[i].nodes`: a scene without it is empty, so it is given `[]`;
//! * `animations[a].channels[c].target.node`: a channel without it animates
//!   something other than a node, through an extension such as
//!   `KHR_animation_pointer` (material, camera or light properties, which
//!   the runtime formats have no place for). It is removed; [`Repairs`]
//!   remembers it for the warning and so that every later message keeps the
//!   file's own channel numbers.
//!
//! The JSON is read a second time, as a `serde_json::Value`, only when the
//! crate refuses it; the files the crate reads directly never pay for this.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::and_list;

/// A channel removed because it has no `target.node`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Removed {
    /// Its index in the file.
    channel: usize,
    /// The extensions its target names (`KHR_animation_pointer`).
    extensions: Vec<String>,
}

/// What [`repair`] changed, to warn about it and to keep the file's channel
/// numbers in messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repairs {
    /// For each animation that lost channels, those channels in file order.
    removed_channels: BTreeMap<usize, Vec<Removed>>,
}

impl Repairs {
    /// One warning per animation that lost channels, naming them and the
    /// extension they use.
    pub(super) fn warnings(&self) -> Vec<String> {
        self.removed_channels
            .iter()
            .map(|(a, removed)| channel_warning(*a, removed))
            .collect()
    }

    /// The file's index of what is now channel `kept` of `animations[a]`.
    pub(super) fn channel_index(&self, a: usize, kept: usize) -> usize {
        let mut index = kept;
        for removed in self.removed_channels.get(&a).into_iter().flatten() {
            if removed.channel <= index {
                index += 1;
            }
        }
        index
    }

    /// `path` (a JSON path in the repaired document) with its channel
    /// number, if any, turned back into the file's.
    pub(super) fn file_path(&self, path: &str) -> String {
        let parsed = path.strip_prefix("animations[").and_then(|rest| {
            let (a, rest) = rest.split_once("].channels[")?;
            let (c, rest) = rest.split_once(']')?;
            Some((a.parse::<usize>().ok()?, c.parse::<usize>().ok()?, rest))
        });
        match parsed {
            Some((a, c, rest)) => format!(
                "animations[{a}].channels[{}]{rest}",
                self.channel_index(a, c)
            ),
            None => path.to_owned(),
        }
    }
}

/// `animations[0]: channels[1] and channels[3] have no target.node (they
/// use KHR_animation_pointer); skipped: …`.
fn channel_warning(a: usize, removed: &[Removed]) -> String {
    let names: Vec<String> = removed
        .iter()
        .map(|r| format!("channels[{}]", r.channel))
        .collect();
    let mut extensions: Vec<&str> = removed
        .iter()
        .flat_map(|r| r.extensions.iter().map(String::as_str))
        .collect();
    extensions.sort_unstable();
    extensions.dedup();
    let one = removed.len() == 1;
    let verb = if one { "has" } else { "have" };
    let why = match (extensions.is_empty(), one) {
        (true, _) => "nothing says what it animates".to_owned(),
        (false, true) => format!("it uses {}", extensions.join(", ")),
        (false, false) => format!("they use {}", extensions.join(", ")),
    };
    format!(
        "animations[{a}]: {} {verb} no target.node ({why}); skipped: clips animate the translation, rotation and scale of joints only",
        and_list(&names)
    )
}

/// The glTF `json` with its scenes given `nodes` and its node-less channels
/// removed, or `None` when it is not a JSON object or needs neither.
pub(super) fn repair(json: &[u8]) -> Option<(Value, Repairs)> {
    let mut value: Value = serde_json::from_slice(json).ok()?;
    let root = value.as_object_mut()?;
    let scenes_fixed = give_scenes_nodes(root);
    let removed_channels = remove_nodeless_channels(root);
    if !scenes_fixed && removed_channels.is_empty() {
        return None;
    }
    Some((value, Repairs { removed_channels }))
}

/// Gives every scene object without `nodes` an empty list; says whether any
/// changed.
fn give_scenes_nodes(root: &mut Map<String, Value>) -> bool {
    let mut changed = false;
    let scenes = root.get_mut("scenes").and_then(Value::as_array_mut);
    for scene in scenes
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
    {
        if !scene.contains_key("nodes") {
            scene.insert("nodes".to_owned(), Value::Array(Vec::new()));
            changed = true;
        }
    }
    changed
}

/// Removes every channel whose target has no `node`, returning them by
/// animation.
fn remove_nodeless_channels(root: &mut Map<String, Value>) -> BTreeMap<usize, Vec<Removed>> {
    let mut removed = BTreeMap::new();
    let animations = root.get_mut("animations").and_then(Value::as_array_mut);
    for (a, animation) in animations.into_iter().flatten().enumerate() {
        let channels = animation.get_mut("channels").and_then(Value::as_array_mut);
        let Some(channels) = channels else {
            continue;
        };
        let mut lost = Vec::new();
        let mut index = 0;
        channels.retain(|channel| {
            let target = channel.get("target").and_then(Value::as_object);
            let keep = target.is_none_or(|t| t.contains_key("node"));
            if !keep {
                lost.push(Removed {
                    channel: index,
                    extensions: target.map(extension_names).unwrap_or_default(),
                });
            }
            index += 1;
            keep
        });
        if !lost.is_empty() {
            removed.insert(a, lost);
        }
    }
    removed
}

/// The names in a target's `extensions` object.
fn extension_names(target: &Map<String, Value>) -> Vec<String> {
    target
        .get("extensions")
        .and_then(Value::as_object)
        .map(|extensions| extensions.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A channel of sampler 0 on `node` (none for a pointer channel).
    fn channel(node: Option<usize>) -> Value {
        match node {
            Some(node) => {
                serde_json::json!({"sampler": 0, "target": {"node": node, "path": "rotation"}})
            }
            None => serde_json::json!({"sampler": 0, "target": {"path": "pointer",
                "extensions": {"KHR_animation_pointer": {"pointer": "/materials/0/alphaCutoff"}}}}),
        }
    }

    #[test]
    fn files_the_crate_reads_need_no_repair() {
        let json = br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}]}"#;
        assert_eq!(repair(json), None);
        assert_eq!(repair(b"[1, 2]"), None);
        assert_eq!(repair(b"not json"), None);
    }

    #[test]
    fn scenes_without_nodes_become_empty() {
        let json = br#"{"scenes":[{"name":"extra"},{"nodes":[0]}]}"#;
        let (value, repairs) = repair(json).unwrap();
        assert_eq!(value["scenes"][0]["nodes"], serde_json::json!([]));
        assert_eq!(value["scenes"][1]["nodes"], serde_json::json!([0]));
        assert!(repairs.warnings().is_empty());
    }

    #[test]
    fn nodeless_channels_are_removed_and_their_numbers_kept() {
        let animation = serde_json::json!({"channels": [
            channel(None), channel(Some(0)), channel(None), channel(Some(1))
        ]});
        let json = serde_json::json!({"animations": [{"channels": [channel(Some(0))]}, animation]});
        let (value, repairs) = repair(json.to_string().as_bytes()).unwrap();
        let kept = value["animations"][1]["channels"].as_array().unwrap();
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[1]["target"]["node"], 1);
        assert_eq!(
            repairs.warnings(),
            [
                "animations[1]: channels[0] and channels[2] have no target.node (they use \
              KHR_animation_pointer); skipped: clips animate the translation, rotation and \
              scale of joints only"
            ]
        );
        assert_eq!(repairs.channel_index(1, 0), 1);
        assert_eq!(repairs.channel_index(1, 1), 3);
        assert_eq!(repairs.channel_index(0, 0), 0);
        assert_eq!(
            repairs.file_path("animations[1].channels[1].sampler"),
            "animations[1].channels[3].sampler"
        );
        assert_eq!(repairs.file_path("meshes[1]"), "meshes[1]");
    }

    #[test]
    fn a_channel_without_extension_says_so() {
        let json = r#"{"animations":[{"channels":[{"sampler":0,"target":{"path":"scale"}}]}]}"#;
        let (_, repairs) = repair(json.as_bytes()).unwrap();
        assert_eq!(
            repairs.warnings(),
            [
                "animations[0]: channels[0] has no target.node (nothing says what it animates); \
              skipped: clips animate the translation, rotation and scale of joints only"
            ]
        );
    }
}
