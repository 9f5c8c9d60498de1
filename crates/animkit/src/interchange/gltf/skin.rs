//! Which skin defines the skeleton on import.
//!
//! A skin's `joints` are the bones; nodes that are not joints are not bones, even when they sit
//! above the joints. Blender writes its armature object as such a node (and keeps our Z-up node
//! as another): counting it as a bone moved every bone one index on (EvilEngine SKB addresses
//! bones by index), so bone indices follow the joint order. With several skins, the one whose
//! joints the animations target most is taken, and a note says so.

use std::collections::HashSet;

use crate::error::{Error, ErrorKind, Result};

use super::json::GltfJson;

/// The joints of the chosen skin (node indices, in joint order, without repeats) and a note when
/// there was a choice to make.
pub struct SkinChoice {
    pub joints: Vec<usize>,
    pub note: Option<String>,
}

/// The node indices the animations' transform channels target.
fn animated_nodes(json: &GltfJson, node_count: usize) -> Result<HashSet<usize>> {
    let mut nodes = HashSet::new();
    for ai in 0..json.animation_count() {
        let channels = json.animation(ai)?.channels.into_iter();
        let transforms = channels.filter(|ch| ch.target.path != "weights");
        nodes.extend(transforms.filter_map(|ch| ch.target.node).filter(|&n| n < node_count));
    }
    Ok(nodes)
}

/// The skin that defines the skeleton, or `None` when the file has no skin with joints.
pub fn choose(json: &GltfJson, node_count: usize) -> Result<Option<SkinChoice>> {
    let mut skins = Vec::new();
    for (si, skin) in json.skins.iter().enumerate() {
        let mut joints = Vec::new();
        for &j in &skin.joints {
            if j >= node_count {
                let message = format!("joint: index {j} out of range ({node_count})");
                return Err(Error::new(ErrorKind::Invalid, None, message).within(format!("skin {si}")));
            }
            if !joints.contains(&j) {
                joints.push(j);
            }
        }
        if !joints.is_empty() {
            skins.push((si, skin.name.as_deref().unwrap_or(""), joints));
        }
    }
    if skins.len() <= 1 {
        return Ok(skins.pop().map(|(_, _, joints)| SkinChoice { joints, note: None }));
    }
    let animated = animated_nodes(json, node_count)?;
    let score = |joints: &[usize]| joints.iter().filter(|j| animated.contains(j)).count();
    // The most animated joints; on a tie, the first skin.
    let best = skins.iter().enumerate().max_by_key(|(k, (_, _, j))| (score(j), std::cmp::Reverse(*k))).map(|(k, _)| k);
    let Some((si, name, joints)) = best.and_then(|k| skins.get(k)).cloned() else {
        return Ok(None);
    };
    let note = format!(
        "{} skins: skin {si} \"{name}\" defines the skeleton ({} joints, {} of them animated); the others are ignored",
        skins.len(),
        joints.len(),
        score(&joints)
    );
    Ok(Some(SkinChoice { joints, note: Some(note) }))
}
