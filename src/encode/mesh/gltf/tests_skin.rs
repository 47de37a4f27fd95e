//! Tests of skins and animations.

use super::tests::import;
use crate::encode::mesh::fixtures::{
    GltfBuilder, Node, Primitive as FixturePrimitive, skinned_animated, translation_matrix,
    triangle_mesh,
};
use crate::encode::mesh::scene::SkinInfluence;
use crate::format::hanim::{AnimChannel, AnimPath, Interpolation};

const HALF: f32 = std::f32::consts::FRAC_1_SQRT_2;

#[test]
fn the_skeleton_follows_skin_zero() {
    let scene = import(&skinned_animated().to_glb(), true).unwrap();
    assert_eq!(scene.skeleton.len(), 2);
    let [hip, knee] = [&scene.skeleton[0], &scene.skeleton[1]];
    assert_eq!(hip.parent, -1, "the hip's parent node is not a joint");
    assert_eq!(knee.parent, 0);
    assert_eq!(hip.inverse_bind, translation_matrix([0.0, -1.0, 0.0]));
    assert_eq!(knee.inverse_bind, translation_matrix([0.0, -2.0, 0.0]));
    assert_eq!(hip.bind_translation, [0.0, 1.0, 0.0]);
    assert_eq!(hip.bind_rotation, [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(knee.bind_rotation, [0.0, 0.0, HALF, HALF]);
    assert_eq!(knee.bind_scale, [1.0; 3]);
}

#[test]
fn skinned_meshes_are_never_baked() {
    for merge in [true, false] {
        let scene = import(&skinned_animated().to_glb(), merge).unwrap();
        assert_eq!(scene.primitives.len(), 1);
        let p = &scene.primitives[0];
        assert_eq!(p.label, "meshes[0].primitives[0]");
        assert_eq!(
            p.positions[1],
            [1.0, 0.0, 0.0],
            "the node's (10, 0, 0) is ignored"
        );
        let skin = p.skin.as_ref().unwrap();
        assert_eq!(
            skin[0],
            SkinInfluence {
                joints: [0; 4],
                weights: [1.0, 0.0, 0.0, 0.0]
            }
        );
        assert_eq!(skin[2].joints, [1, 0, 0, 0]);
    }
}

#[test]
fn clips_keep_joint_channels_and_reduce_cubic_splines() {
    let scene = import(&skinned_animated().to_glb(), true).unwrap();
    assert_eq!(scene.animations.len(), 1);
    let clip = &scene.animations[0];
    assert_eq!(clip.name, "walk");
    assert_eq!(clip.duration, 2.0);
    assert_eq!(
        clip.channels,
        vec![
            AnimChannel {
                joint: 1,
                path: AnimPath::Rotation,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 1.0],
                values: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, HALF, HALF],
            },
            AnimChannel {
                joint: 0,
                path: AnimPath::Translation,
                interpolation: Interpolation::Step,
                times: vec![0.0, 0.5, 2.0],
                values: vec![0.0, 1.0, 0.0, 0.0, 1.5, 0.0, 0.0, 2.0, 0.0],
            },
            AnimChannel {
                joint: 1,
                path: AnimPath::Scale,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 1.5],
                values: vec![2.0, 2.0, 2.0, 3.0, 3.0, 3.0],
            },
        ]
    );
    assert_eq!(
        scene.warnings,
        vec![
            "animations[0]: 1 channel(s) on nodes that are not joints of skins[0] skipped",
            "animations[0]: 1 CUBICSPLINE channel(s) reduced to LINEAR (tangents dropped)",
            "animations[1]: 1 channel(s) on nodes that are not joints of skins[0] skipped",
            "animations[1] (\"anim_1\") animates no joint of skins[0]; dropped",
        ]
    );
}

#[test]
fn morph_weight_channels_are_skipped_with_a_warning() {
    let mut b = skinned_animated();
    let times = b.add_scalars(&[0.0, 1.0]);
    let weights = b.add_scalars(&[0.0, 1.0]);
    b.add_animation(
        Some("blink"),
        &[(times, weights, "LINEAR")],
        &[(0, 3, "weights")],
    );
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.animations.len(), 1);
    assert!(
        scene
            .warnings
            .contains(&"animations[2]: 1 morph-target weight channel(s) skipped".to_owned())
    );
}

#[test]
fn nodes_bound_to_other_skins_are_static_with_a_warning() {
    let mut b = skinned_animated();
    let mesh = triangle_mesh(&mut b, None);
    b.add_skin(&[1], None);
    let other = b.add_node(Node {
        mesh: Some(mesh),
        skin: Some(1),
        translation: Some([0.0, 0.0, 3.0]),
        ..Node::default()
    });
    b.node_mut(0).children.push(other);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.primitives.len(), 2);
    let baked = &scene.primitives[1];
    assert_eq!(baked.label, "meshes[1].primitives[0] (node 4)");
    assert_eq!(baked.positions[0], [0.0, 0.0, 8.0]);
    assert_eq!(baked.skin, None);
    assert!(scene.warnings.iter().any(|w| w
        == "nodes[4] uses skins[1], but only skins[0] is exported; its mesh is treated as static"));
}

#[test]
fn static_scenes_ignore_animations() {
    let mut b = GltfBuilder::new();
    let mesh = triangle_mesh(&mut b, None);
    let node = b.add_node(Node::mesh(mesh));
    b.add_scene(&[node]);
    let times = b.add_scalars(&[0.0, 1.0]);
    let moves = b.add_vec3(&[[0.0; 3], [1.0; 3]]);
    b.add_animation(
        None,
        &[(times, moves, "LINEAR")],
        &[(0, node, "translation")],
    );
    let scene = import(&b.to_glb(), true).unwrap();
    assert!(scene.skeleton.is_empty() && scene.animations.is_empty());
    assert_eq!(
        scene.warnings,
        vec!["animations are ignored: the scene has no skinned mesh"]
    );
}

#[test]
fn skinned_primitives_without_joints_are_exported_unskinned() {
    let mut b = GltfBuilder::new();
    let mesh = triangle_mesh(&mut b, None);
    let joint = b.add_node(Node::default());
    let body = b.add_node(Node {
        mesh: Some(mesh),
        skin: Some(0),
        ..Node::default()
    });
    b.add_skin(&[joint], None);
    b.add_scene(&[joint, body]);
    let scene = import(&b.to_glb(), true).unwrap();
    assert_eq!(scene.primitives[0].skin, None);
    assert!(scene.skeleton.is_empty());
    assert!(
        scene.warnings[0].contains("lacks JOINTS_0 or WEIGHTS_0"),
        "{:?}",
        scene.warnings
    );
}

/// A one-joint skinned triangle whose vertex 2 uses `joint` with `weight`.
fn single_joint(joint: u8, weight: f32) -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let positions = b.add_positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let joints = b.add_u8(&[0, 0, 0, 0, 0, 0, 0, 0, 0, joint, 0, 0], "VEC4", false);
    let weights = b.add_u8(
        &[
            255,
            0,
            0,
            0,
            255,
            0,
            0,
            0,
            255,
            (weight * 255.0) as u8,
            0,
            0,
        ],
        "VEC4",
        true,
    );
    let mesh = b.add_mesh(&[FixturePrimitive::new(positions).skin(joints, weights)]);
    let bone = b.add_node(Node {
        matrix: Some([
            2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2.0, 3.0, 1.0,
        ]),
        ..Node::default()
    });
    let body = b.add_node(Node {
        mesh: Some(mesh),
        skin: Some(0),
        ..Node::default()
    });
    b.add_skin(&[bone], None);
    b.add_scene(&[bone, body]);
    b
}

#[test]
fn joints_past_the_skeleton_are_refused_unless_weightless() {
    let scene = import(&single_joint(5, 0.0).to_glb(), true).unwrap();
    assert_eq!(scene.primitives[0].skin.as_ref().unwrap()[2].joints, [0; 4]);
    let err = import(&single_joint(5, 0.5).to_glb(), true).unwrap_err();
    assert_eq!(err.location, "meshes[0].primitives[0].attributes.JOINTS_0");
    assert!(
        err.what
            .contains("vertex 2 uses joint 5 but skins[0] has 1 joints"),
        "{err}"
    );
}

#[test]
fn matrix_joints_are_decomposed_and_missing_inverse_binds_are_identity() {
    let scene = import(&single_joint(0, 0.0).to_glb(), true).unwrap();
    let joint = &scene.skeleton[0];
    assert_eq!(joint.bind_translation, [1.0, 2.0, 3.0]);
    assert_eq!(joint.bind_scale, [2.0; 3]);
    assert_eq!(joint.bind_rotation, [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(joint.inverse_bind, translation_matrix([0.0; 3]));
    let weights = scene.primitives[0].skin.as_ref().unwrap()[0].weights;
    assert_eq!(weights, [1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn decreasing_key_times_are_refused() {
    let mut b = skinned_animated();
    let times = b.add_scalars(&[0.0, 2.0, 1.0]);
    let moves = b.add_vec3(&[[0.0; 3], [1.0; 3], [2.0; 3]]);
    b.add_animation(
        Some("bad"),
        &[(times, moves, "LINEAR")],
        &[(0, 1, "translation")],
    );
    let err = import(&b.to_glb(), true).unwrap_err();
    assert_eq!(err.location, "animations[2].samplers[0].input");
    assert!(
        err.what.contains("key 2 at 1s comes before key 1 at 2s"),
        "{err}"
    );
}

#[test]
fn output_counts_must_match_the_keys() {
    let mut b = skinned_animated();
    let times = b.add_scalars(&[0.0, 1.0]);
    let moves = b.add_vec3(&[[0.0; 3], [1.0; 3], [2.0; 3]]);
    b.add_animation(
        Some("bad"),
        &[(times, moves, "CUBICSPLINE")],
        &[(0, 1, "translation")],
    );
    let err = import(&b.to_glb(), true).unwrap_err();
    assert_eq!(err.location, "animations[2].samplers[0].output");
    assert!(
        err.what.contains("has 3 values for 2 keys; expected 6"),
        "{err}"
    );
}

#[test]
fn a_joint_hierarchy_cycle_is_refused() {
    let mut b = single_joint(0, 0.0);
    let other = b.add_node(Node::default());
    b.node_mut(0).children = vec![other];
    b.node_mut(other).children = vec![0];
    // Rebind skin 0 to the cyclic pair.
    let mut text = b.json(None);
    text = text.replacen(
        "\"skins\":[{\"joints\":[0]}",
        "\"skins\":[{\"joints\":[0,2]}",
        1,
    );
    let bytes = crate::encode::mesh::fixtures::glb(&text, Some(b.bin()));
    let err = import(&bytes, true).unwrap_err();
    assert!(err.what.contains("has a cycle"), "{err}");
}

/// A channel written as `KHR_animation_pointer` writes it: no `target.node`.
fn pointer_channel() -> serde_json::Value {
    serde_json::json!({"sampler": 0, "target": {"path": "pointer",
        "extensions": {"KHR_animation_pointer": {"pointer": "/materials/0/emissiveFactor"}}}})
}

#[test]
fn channels_without_a_node_are_skipped_with_one_warning() {
    let plain = import(&skinned_animated().to_glb(), true).unwrap();
    let mut last = 0;
    let glb = skinned_animated().to_glb_edited(|json| {
        json["extensionsUsed"] = serde_json::json!(["KHR_animation_pointer"]);
        let channels = json["animations"][0]["channels"].as_array_mut().unwrap();
        channels.insert(0, pointer_channel());
        last = channels.len();
        channels.push(pointer_channel());
    });
    let scene = import(&glb, true).unwrap();
    assert_eq!(scene.animations, plain.animations);
    let count = last;
    let expected = format!(
        "animations[0]: channels[0] and channels[{count}] have no target.node (they use KHR_animation_pointer); skipped: clips animate the translation, rotation and scale of joints only"
    );
    assert!(scene.warnings.contains(&expected), "{:?}", scene.warnings);
}

#[test]
fn errors_after_a_skipped_channel_keep_the_file_channel_numbers() {
    for sampler in [99, 0] {
        let glb = skinned_animated().to_glb_edited(|json| {
            let channels = json["animations"][0]["channels"].as_array_mut().unwrap();
            channels.insert(0, pointer_channel());
            channels[1]["sampler"] = serde_json::json!(sampler);
            channels[1]["target"]["path"] = serde_json::json!("bogus");
        });
        let err = import(&glb, true).unwrap_err();
        let expected = if sampler == 99 {
            "sampler"
        } else {
            "target.path"
        };
        assert_eq!(
            err.location,
            format!("animations[0].channels[1].{expected}"),
            "{err}"
        );
    }
}
