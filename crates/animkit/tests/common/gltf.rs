//! Shared harness for the glTF export tests checked by independent readers (`gltf_node.rs`,
//! `gltf_formats.rs`): the Khronos validator and three.js playback against
//! [`animkit::sample::sample`], both run with node from `tools/gltf-check`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use animkit::model::{Bone, BoneRef, Channel, Clip, Interpolation, Package, Skeleton, Target};
use animkit::sample::{sample, Sampled};
use animkit::WriteOptions;
use glam::{Vec3, Vec4};
use serde_json::Value;

pub const INSTALL: &str = "npm ci --prefix tools/gltf-check";

/// The tools folder, or `None` (after saying so) when node or the npm packages are missing.
/// Under CI (`CI=true`) missing tools are a failure.
pub fn tools() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-check");
    let node_ok = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    let modules_ok = dir.join("node_modules/gltf-validator").is_dir() && dir.join("node_modules/three").is_dir();
    if node_ok && modules_ok {
        return Some(dir);
    }
    let why = if node_ok {
        format!("{} is missing; run `{INSTALL}`", dir.join("node_modules").display())
    } else {
        "node is not installed".to_string()
    };
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("glTF checks need node and the npm packages: {why}");
    }
    eprintln!("SKIPPED: glTF node checks: {why}");
    None
}

/// A temp dir `animkit-gltf-{tag}-{pid}` (each test binary is its own process).
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("animkit-gltf-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The package as GLB bytes, with the exporter's warnings.
pub fn export_glb(package: &Package) -> (Vec<u8>, Vec<String>) {
    let gltf = animkit::REGISTRY.by_name("gltf").unwrap().0;
    let written = gltf.from_model(package, &WriteOptions::default().with_variant("glb")).unwrap();
    (written.document.write().unwrap(), written.warnings)
}

/// Runs `node script args…` in the tools folder: (success, stdout, stderr).
pub fn run_node(tools: &Path, script: &str, args: &[&Path]) -> (bool, String, String) {
    let out = Command::new("node").current_dir(tools).arg(script).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON chunk of a GLB.
pub fn glb_json(glb: &[u8]) -> Value {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&glb[20..20 + len]).unwrap()
}

/// A JSON array of numbers as `f32`s.
pub fn vec(v: &Value) -> Vec<f32> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
}

/// The nodes of an exported file as a skeleton (node index = bone index), for binding tracks
/// exactly as the exporter does.
pub fn node_skeleton(json: &Value) -> Skeleton {
    let bones = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| Bone {
            name: n["name"].as_str().unwrap_or("").to_string(),
            id: n.pointer("/extras/animkit/id").and_then(Value::as_i64).map(|v| v as i32),
            hash: n.pointer("/extras/animkit/hash").and_then(Value::as_u64).map(|v| v as u32),
            ..Default::default()
        })
        .collect();
    Skeleton { bones }
}

/// The largest difference between a three.js playback node entry (`{"r", "t", "s"}`) and a
/// sampled value (rotations up to quaternion sign); 0 for non-transform values.
///
/// Rotations are compared as directions: `sample` interpolates the stored keys, which need not
/// be unit (GTA normalises only the blended pose, RenderWare not at all), while a glTF rotation is
/// unit by definition.
pub fn playback_difference(got: &Value, value: Sampled) -> f32 {
    match value {
        Sampled::Rotation(q) => {
            let g = Vec4::from_slice(&vec(&got["r"]));
            let e = Vec4::from(q).normalize_or_zero();
            (g - e).abs().max_element().min((g + e).abs().max_element())
        }
        Sampled::Translation(v) => (Vec3::from_slice(&vec(&got["t"])) - v).abs().max_element(),
        Sampled::Scale(v) => (Vec3::from_slice(&vec(&got["s"])) - v).abs().max_element(),
        _ => 0.0,
    }
}

/// Validates the files in one validator run and asserts 0 errors and 0 warnings for each (and
/// a successful exit). Returns the validator's per-file results.
pub fn validate_clean(tools: &Path, paths: &[PathBuf]) -> Vec<Value> {
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let (ok, stdout, stderr) = run_node(tools, "validate.mjs", &refs);
    let report: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("validator output: {e}\n{stdout}\n{stderr}"));
    let results = report["files"].as_array().unwrap().clone();
    assert_eq!(results.len(), paths.len());
    for r in &results {
        assert_eq!(r["errors"], 0, "{r:#}");
        assert_eq!(r["warnings"], 0, "{r:#}");
    }
    assert!(ok, "{stdout}\n{stderr}");
    results
}

/// Which glTF animations [`playback`] compares.
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    /// Every n-th animation.
    Every(usize),
    /// About this many animations, spread over the file.
    About(usize),
}

/// How [`playback`] finds the node of a bone track.
#[derive(Clone, Copy, Debug)]
pub enum Nodes {
    /// `Skeleton::find` on the node skeleton with the track's reference as is; every sampled
    /// bone must have a node in the playback.
    Exact,
    /// By id/hash/name (not index: a helper root node may come first), else by label; bones
    /// without a node channel in the playback (kept in extras, e.g. no keys) are skipped.
    Lenient,
}

/// How to play back: see [`playback`].
#[derive(Clone, Copy, Debug)]
pub struct Playback {
    pub pick: Pick,
    /// The last sample time as a fraction of the clip's last key time (1.0, or 0.999 to stay
    /// just inside the end).
    pub last: f32,
    pub nodes: Nodes,
}

/// What [`playback`] compared.
#[derive(Debug, Default)]
pub struct PlaybackReport {
    /// Clips (glTF animations) played; 0 when the file has no animations.
    pub clips: usize,
    /// Values compared.
    pub compared: usize,
    /// The largest difference.
    pub worst: f32,
    /// The largest difference per interpolation kind (`Debug` name).
    pub worst_by: BTreeMap<String, f32>,
}

/// Exports `package` as GLB, plays the picked animations with three.js at fractions
/// 0, .13, .37, .5, .71, .93 and `options.last` of each clip's last key time (moved off
/// repeated key times), and asserts every bone rotation/translation/scale within 1e-4 of
/// [`sample`].
pub fn playback(tools: &Path, name: &str, package: &Package, options: Playback) -> PlaybackReport {
    let (glb, _) = export_glb(package);
    let json = glb_json(&glb);
    let skeleton = node_skeleton(&json);
    let mut report = PlaybackReport::default();
    let anims = json["animations"].as_array().cloned().unwrap_or_default();
    if anims.is_empty() {
        return report;
    }
    let dir = temp_dir(&format!("play-{}", name.replace('.', "_")));
    let glb_path = dir.join("file.glb");
    std::fs::write(&glb_path, &glb).unwrap();

    // Which glTF animation holds which clip.
    let every = match options.pick {
        Pick::Every(n) => n,
        Pick::About(count) => anims.len().div_ceil(count).max(1),
    };
    let mut requests = Vec::new();
    let mut chosen = Vec::new();
    for (ai, a) in anims.iter().enumerate().step_by(every) {
        let ci = a.pointer("/extras/animkit/clip_index").and_then(Value::as_u64).unwrap() as usize;
        let times = play_times(&package.clips[ci], options.last);
        requests.push(serde_json::json!({"animation": ai, "times": times}));
        chosen.push((ai, ci, times));
    }
    let req_path = dir.join("request.json");
    std::fs::write(&req_path, serde_json::to_vec(&requests).unwrap()).unwrap();
    let (ok, stdout, stderr) = run_node(tools, "playback.mjs", &[&glb_path, &req_path]);
    assert!(ok, "{name}: playback failed: {stderr}");
    let result: Value = serde_json::from_str(&stdout).unwrap();

    for ((ai, ci, times), res) in chosen.iter().zip(result.as_array().unwrap()) {
        assert_eq!(res["animation"].as_u64().unwrap() as usize, *ai);
        let clip = &package.clips[*ci];
        for (k, &t) in times.iter().enumerate() {
            let played = Played { name, clip, t, nodes: &res["samples"][k]["nodes"] };
            compare_pose(&played, &skeleton, options.nodes, &mut report);
        }
    }
    report.clips = chosen.len();
    let _ = std::fs::remove_dir_all(&dir);
    report
}

/// The fractions 0, .13, .37, .5, .71, .93 and `last` of `clip`'s last key time, each moved off
/// repeated key times (which glTF moves by 1e-4 s).
fn play_times(clip: &Clip, last: f32) -> Vec<f32> {
    let repeated: Vec<f32> = clip
        .tracks
        .iter()
        .flat_map(|t| t.times.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect::<Vec<_>>())
        .collect();
    let d = clip.last_key_time();
    let mut times: Vec<f32> = [0.0, 0.13, 0.37, 0.5, 0.71, 0.93, last].iter().map(|f| f * d).collect();
    for t in &mut times {
        if repeated.iter().any(|r| (*t - r).abs() < 3e-4) {
            *t += 5e-4;
        }
    }
    times
}

/// One pose three.js played: the file's name, the clip, the time and the node values.
struct Played<'a> {
    name: &'a str,
    clip: &'a Clip,
    t: f32,
    nodes: &'a Value,
}

/// Asserts every bone rotation/translation/scale of the played pose within 1e-4 of [`sample`],
/// recording the differences in `report`.
fn compare_pose(played: &Played, skeleton: &Skeleton, nodes: Nodes, report: &mut PlaybackReport) {
    let Played { name, clip, t, .. } = *played;
    let interp: HashMap<(&Target, Channel), Interpolation> =
        clip.tracks.iter().map(|t| ((&t.target, t.channel()), t.interpolation)).collect();
    let mut seen = HashSet::new();
    for entry in sample(clip, t) {
        let Target::Bone(r) = &entry.target else { continue };
        let channel = match entry.value {
            Sampled::Rotation(_) => Channel::Rotation,
            Sampled::Translation(_) => Channel::Translation,
            Sampled::Scale(_) => Channel::Scale,
            _ => continue,
        };
        let node = match nodes {
            Nodes::Exact => skeleton.find(r),
            Nodes::Lenient => skeleton
                .find(&BoneRef { index: None, ..r.clone() })
                .or_else(|| skeleton.bones.iter().position(|b| b.name == r.label())),
        }
        .unwrap_or_else(|| panic!("{name}: no node for {r:?}"));
        if !seen.insert((node, channel)) {
            continue; // a second track for the same node and channel is kept in extras
        }
        let got = &played.nodes[node.to_string()];
        if got.is_null() {
            match nodes {
                Nodes::Exact => panic!("{name}: clip {} node {node} not in playback", clip.name),
                Nodes::Lenient => continue,
            }
        }
        let err = playback_difference(got, entry.value);
        let kind = format!("{:?}", interp.get(&(&entry.target, channel)).copied().unwrap_or(Interpolation::Linear));
        let w = report.worst_by.entry(kind).or_default();
        *w = w.max(err);
        report.worst = report.worst.max(err);
        assert!(
            err <= 1e-4,
            "{name}: clip \"{}\" t={t} {} {channel:?}: three.js differs by {err}: {got} vs {:?}",
            clip.name,
            r.label(),
            entry.value
        );
        report.compared += 1;
    }
}
