//! SKB raw layer → model (`evilengine.md` §3, §6), and the binding of an archive's clips to the
//! skeletons of its skinned `MODL` assets.
//!
//! - One rotation track (`Slerp`) and one translation track (`Linear`) per bone; a bone's key
//!   times are `times[TimeIndex]` of its own keys, which is exact because the game interpolates
//!   between consecutive keys of the same bone (§6.3).
//! - Rotation: `Quat / 32767` (V2: w derived, sign from bit 15), **as stored**: neither
//!   normalised nor sign-flipped. The game interpolates these values with `rw_slerp` and does not
//!   renormalise (§3.1, §3.3), and the model's `Slerp` does the same, so `sample` gives the
//!   game's pose; a rewrite gives back the stored integers. glTF export normalises and makes
//!   signs continuous itself (§6.3).
//! - Translation: `Tran × Scale` per axis, a multiply.
//! - Bones: `BoneRef::index = b` (the HAnim node index, §6.2); a skeleton adds names and ids.
//! - Duration `times[T−1]`; looping is not stored in the file, so `looping` is `None`.
//! - **T = 1 (static pose, §3.4):** one key per bone at time 0: `keys[2b]` when K = 2B, `keys[b]`
//!   when K = B; anything else is an error. The duration is 0.
//! - V2 `Frame` is read as a time index (bits 0–14) and bit 15 as the sign of w, as IndustrialPark
//!   and the spec do; no retail V2 asset has been checked (§8, open question 2).
//! - Keys are grouped per bone by [`Skb::bone_ranges`]: through the offsets table (C5), or when
//!   it is inconsistent, runs of increasing TimeIndex (what `repair` rebuilds from).

use glam::{Quat, Vec3, Vec4};

use bytes::Bytes;

use super::hip::{AnimAsset, Hip};
use super::rwskel;
use super::skb::{Body, KeyV2, Skb};
use crate::error::{Error, ErrorKind, Result};
use crate::format::Limits;
use crate::model::{BoneRef, Clip, Interpolation, Package, Skeleton, Target, Track, Values};

/// One bone's keys in model units.
struct BoneKeys {
    times: Vec<f32>,
    rotations: Vec<Quat>,
    translations: Vec<Vec3>,
}

/// The rotation quantum: components are `i16 / 32767` (§3.1).
const Q: f32 = 32767.0;

/// Decodes keys `start..=end` (one bone's): times from `times` by TimeIndex (all 0 for a static
/// pose), rotations as stored, translations × Scale, each array filled by one loop that does the
/// arithmetic alone. A V1 TimeIndex out of range gives a NaN time, which the bone's time check
/// then rejects ([`first_key_out_of_range`] names the key); V2 keys are checked first. The error
/// is the first key out of range.
fn bone_keys(skb: &Skb, start: usize, end: usize, times: &[f32], static_pose: bool) -> Result<BoneKeys, usize> {
    // Per component, which the compiler vectorises across four keys (three stores for 48 bytes)
    // where a per-key vector product needs shuffles and three stores for each key.
    let [sx, sy, sz] = skb.scale.map(|s| s.0);
    let scaled = move |[x, y, z]: [i16; 3]| Vec3::new(f32::from(x) * sx, f32::from(y) * sy, f32::from(z) * sz);
    match &skb.body {
        Body::V1 { keys, .. } => {
            let keys = keys.get(start..=end).ok_or(keys.len())?;
            Ok(BoneKeys {
                times: key_times(keys.iter().map(|key| key.time_index), times, static_pose),
                rotations: keys.iter().map(|key| Quat::from_vec4(Vec4::from(key.quat.map(f32::from)) / Q)).collect(),
                translations: keys.iter().map(|key| scaled(key.tran)).collect(),
            })
        }
        Body::V2 { keys, tran, .. } => {
            let keys = keys.get(start..=end).ok_or(keys.len())?;
            if let Some(k) = first_key_out_of_range(skb, start, end, times.len(), static_pose) {
                return Err(k);
            }
            let translation = |key: &KeyV2| tran.get(usize::from(key.tran_index)).copied().unwrap_or_default();
            Ok(BoneKeys {
                times: key_times(keys.iter().map(KeyV2::time_index), times, static_pose),
                rotations: keys.iter().map(|key| Quat::from_array(key.rotation())).collect(),
                translations: keys.iter().map(|key| scaled(translation(key))).collect(),
            })
        }
    }
}

/// The times of keys with these time indices: NaN for an index out of range, 0 for a static pose.
fn key_times(indices: impl ExactSizeIterator<Item = u16>, times: &[f32], static_pose: bool) -> Vec<f32> {
    match static_pose {
        true => vec![0.0; indices.len()],
        false => indices.map(|ti| *times.get(usize::from(ti)).unwrap_or(&f32::NAN)).collect(),
    }
}

/// The first of keys `start..=end` whose TimeIndex (or V2 TranIndex) is out of range.
fn first_key_out_of_range(skb: &Skb, start: usize, end: usize, time_count: usize, static_pose: bool) -> Option<usize> {
    let time_ok = |ti: u16| static_pose || usize::from(ti) < time_count;
    let k = match &skb.body {
        Body::V1 { keys, .. } => keys.get(start..=end)?.iter().position(|key| !time_ok(key.time_index)),
        Body::V2 { keys, tran, .. } => keys
            .get(start..=end)?
            .iter()
            .position(|key| !time_ok(key.time_index()) || usize::from(key.tran_index) >= tran.len()),
    };
    k.map(|k| start + k)
}

/// Checks that one bone's key times are finite and strictly increasing (the game interpolates
/// between consecutive keys of a bone, §6.3); `first` is the bone's first key, for the message.
fn check_bone_times(b: usize, first: usize, times: &[f32]) -> Result<()> {
    let increasing = times.iter().zip(times.iter().skip(1)).fold(true, |ok, (a, b)| ok & (a < b));
    let finite_ends = times.first().is_none_or(|t| t.is_finite()) && times.last().is_none_or(|t| t.is_finite());
    if increasing && finite_ends {
        return Ok(());
    }
    let i = times.windows(2).position(|w| matches!(w, [a, b] if b <= a)).unwrap_or_default();
    let message = match times.iter().find(|t| !t.is_finite()) {
        Some(t) => format!("bone {b}: key time {t} is not finite"),
        None => format!("bone {b}: key {} is not later than key {}", first + i + 1, first + i),
    };
    Err(Error::new(ErrorKind::Invalid, None, message))
}

/// The target of each bone of a skeleton (HAnim node order), built once and shared by every clip
/// bound to it: a clip's tracks then share the skeleton's names instead of copying them.
pub(crate) struct BoneTargets(Vec<BoneRef>);

impl BoneTargets {
    /// The skeleton's bones by name and id; none without a skeleton.
    pub(crate) fn of(skeleton: Option<&Skeleton>) -> Self {
        let bones = skeleton.map_or(&[][..], |s| &s.bones);
        BoneTargets(
            bones
                .iter()
                .map(|b| BoneRef { name: Some(b.name.as_str().into()), id: b.id, ..Default::default() })
                .collect(),
        )
    }

    /// The target of bone `b`: its index, and its name and id when the skeleton has it.
    fn target(&self, b: usize) -> Target {
        let index = Some(b as u32);
        Target::Bone(
            self.0.get(b).map_or_else(|| BoneRef { index, ..Default::default() }, |r| BoneRef { index, ..r.clone() }),
        )
    }
}

/// Converts one SKB animation to a clip whose bones are `bones`.
pub(crate) fn bound_clip(skb: &Skb, name: &str, bones: &BoneTargets, limits: &Limits) -> Result<Clip> {
    if skb.key_count() as u64 > limits.max_keys {
        return Err(Error::new(ErrorKind::Limit, None, format!("{} keys exceed the limit", skb.key_count())));
    }
    let ranges = skb.bone_ranges().map_err(|m| Error::new(ErrorKind::Invalid, None, m))?;
    let times = skb.times_seconds();
    let static_pose = times.len() == 1;
    let out_of_range =
        |k: usize, b: usize| Error::new(ErrorKind::Invalid, None, format!("key {k} of bone {b} is out of range"));
    let mut tracks = Vec::with_capacity(2 * ranges.len());
    for (b, &(start, end)) in ranges.iter().enumerate() {
        let keys = bone_keys(skb, start, end, &times, static_pose).map_err(|k| out_of_range(k, b))?;
        if let Err(e) = check_bone_times(b, start, &keys.times) {
            let first = first_key_out_of_range(skb, start, end, times.len(), static_pose);
            return Err(first.map_or(e, |k| out_of_range(k, b)));
        }
        let track = |interpolation, times, values| Track { target: bones.target(b), interpolation, times, values };
        tracks.push(track(Interpolation::Slerp, keys.times.clone(), Values::Rotation(keys.rotations)));
        tracks.push(track(Interpolation::Linear, keys.times, Values::Translation(keys.translations)));
    }
    let duration = if static_pose { 0.0 } else { times.last().copied().unwrap_or(0.0) };
    Ok(Clip { name: name.to_string(), duration, tracks, ..Default::default() })
}

/// A MODL asset with an HAnim hierarchy.
pub(crate) struct SkinnedModel {
    /// The asset name (`spongebob_bind.dff`).
    pub name: String,
    /// The clip-name prefix it binds: the name without extension and `_bind` (`spongebob`).
    pub prefix: String,
    pub skeleton: Skeleton,
}

/// Every MODL asset of `hip` (written as `file`) that carries an HAnim skeleton; unreadable
/// ones are skipped.
pub(crate) fn skinned_models(hip: &Hip, file: &Bytes) -> Vec<SkinnedModel> {
    let mut out = Vec::new();
    for (a, dbg) in hip.assets().into_iter().filter(|(a, _)| &a.kind.0 == b"MODL") {
        let Ok(data) = Hip::asset_data(file, a) else { continue };
        let Ok(Some(skeleton)) = rwskel::read_clump(&data).and_then(|c| rwskel::skeleton(&c)) else { continue };
        let name = dbg.map(|d| d.name()).unwrap_or_default();
        let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
        let prefix = stem.strip_suffix("_bind").unwrap_or(stem).to_string();
        out.push(SkinnedModel { name, prefix, skeleton });
    }
    out
}

/// Whether clip `clip` binds to the model with `prefix` (§6.2): the clip name starts with
/// `prefix_` and no other skinned model has a longer matching prefix.
pub(crate) fn binds(clip: &str, prefix: &str, models: &[SkinnedModel]) -> bool {
    let matches = |p: &str| {
        clip.len() > p.len()
            && clip.get(..p.len()).is_some_and(|x| x.eq_ignore_ascii_case(p))
            && clip.as_bytes().get(p.len()) == Some(&b'_')
    };
    matches(prefix) && !models.iter().any(|m| m.prefix.len() > prefix.len() && matches(&m.prefix))
}

/// The package of an archive: the clips bound to the model `model` names (`none` for no
/// skeleton; only that model's clips are kept), else to the model that binds the most clips.
pub(crate) fn package(
    anims: &[AnimAsset],
    parse: impl Fn(&AnimAsset) -> Result<Skb>,
    models: &[SkinnedModel],
    model: Option<&str>,
    limits: &Limits,
) -> Result<Package> {
    let chosen: Option<&SkinnedModel> = match model {
        Some("none") => None,
        Some(name) => Some(
            models
                .iter()
                .find(|m| m.name.eq_ignore_ascii_case(name) || m.prefix.eq_ignore_ascii_case(name))
                .ok_or_else(|| Error::unsupported(format!("no skinned MODL asset \"{name}\"")))?,
        ),
        None => models
            .iter()
            .map(|m| (anims.iter().filter(|a| binds(&a.name, &m.prefix, models)).count(), m))
            .filter(|(n, _)| *n > 0)
            .max_by_key(|(n, _)| *n)
            .map(|(_, m)| m),
    };
    let (targets, unbound) = (BoneTargets::of(chosen.map(|m| &m.skeleton)), BoneTargets::of(None));
    let mut clips = Vec::new();
    for asset in anims {
        let bound = chosen.filter(|m| binds(&asset.name, &m.prefix, models));
        if model.is_some_and(|m| m != "none") && bound.is_none() {
            continue;
        }
        let skb = parse(asset)?;
        clips.push(bound_clip(&skb, &asset.name, if bound.is_some() { &targets } else { &unbound }, limits)?);
    }
    Ok(Package { clips, skeleton: chosen.map(|m| m.skeleton.clone()), ..Default::default() })
}

/// One package per skinned MODL that binds clips (named after its prefix, `spongebob`), with
/// that model's skeleton and only its clips; clips no model binds go into a last package
/// `unbound` without a skeleton (index-only bone references).
pub(crate) fn packages(
    anims: &[AnimAsset],
    parse: impl Fn(&AnimAsset) -> Result<Skb>,
    models: &[SkinnedModel],
    limits: &Limits,
) -> Result<Vec<Package>> {
    let mut per_model: Vec<Vec<Clip>> = vec![Vec::new(); models.len()];
    let targets: Vec<BoneTargets> = models.iter().map(|m| BoneTargets::of(Some(&m.skeleton))).collect();
    let mut unbound = Vec::new();
    for asset in anims {
        let skb = parse(asset)?;
        let mut bound = models.iter().zip(&targets).zip(per_model.iter_mut());
        match bound.find(|((m, _), _)| binds(&asset.name, &m.prefix, models)) {
            Some(((_, targets), clips)) => clips.push(bound_clip(&skb, &asset.name, targets, limits)?),
            None => unbound.push(bound_clip(&skb, &asset.name, &BoneTargets::of(None), limits)?),
        }
    }
    let mut out: Vec<Package> = models
        .iter()
        .zip(per_model)
        .filter(|(_, clips)| !clips.is_empty())
        .map(|(m, clips)| Package {
            name: m.prefix.clone(),
            clips,
            skeleton: Some(m.skeleton.clone()),
            ..Default::default()
        })
        .collect();
    if !unbound.is_empty() {
        out.push(Package { name: "unbound".into(), clips: unbound, ..Default::default() });
    }
    Ok(out)
}
