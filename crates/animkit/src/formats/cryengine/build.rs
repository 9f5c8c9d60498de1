//! Model → compiled CAF (`cryengine.md` §2, §3, §6).
//!
//! Canonical output: a `CrCh` 0x746 file (variant `caf`, default) or a CryTek 0x745 file
//! (variant `crytek`, embedded chunk headers) holding MotionParameters 0x925 (id 1), one
//! controller 0x829 per bone (tracks aligned to 4, rotations SmallTree48BitQuat unless
//! `rotation=` names another codec, positions NoCompressVec3 in metres; 0x832 instead when a
//! track animates scale), a GlobalAnimationHeaderCAF 0x971 whose path carries the clip's name
//! (as CE5's compiled CAFs have it), and a BoneNameList 0x745 when every bone has a name. Key times are frames at 30 fps: UINT16 (Byte when every
//! frame is below 256) when all are whole frames, else F32. Controller id = the track's hash,
//! else the CRC-32 of its name.
//!
//! Variant `dba`: every clip in one track database (controller 0x905, see `dba::to_raw`).
//! Variant `i_caf`: an intermediate clip for the Resource Compiler (`SaveICAF` conventions: Timing 0x919, PQLog 0x827 on
//! every frame).
//!
//! Parameters: `rotation=st48|st64|st64ext|dword|shotint3|f32`, `times=auto|f32|uint16|byte|
//! f32_startstop|uint16_startstop|byte_startstop|bitset` (StartStop needs a key on every frame),
//! `clip=NAME` (default: the first clip), `bone_names=false`.

use glam::{Quat, Vec3};

use super::chunkfile::{kind, ChunkFile, Container};
use super::controller::{log_quat, KeyTrack, FLAG_ADDITIVE, FLAG_CYCLE, TICKS_PER_FRAME};
use super::dba;
use super::quat_codecs::{controller_id, encode_keys, format};
use super::raw::{
    pad4, Body, Channel, Compressed, FootPlants, GlobalAnimationHeaderCaf, IvoAnimInfo, KeyTimes, MotionParams,
    PqLogKey, QuatT, RotationKeys, TimingSamples, Vec3f,
};
use super::time_formats;
use crate::bytes::{Endian, Writer};
use crate::error::{Error, Result};
use crate::format::WriteOptions;
use crate::model::rekey::{rekey, Rekeyed, Tolerance};
use crate::model::{BoneRef, Clip, Interpolation, Package, Target, Track, Transform, Values};
use crate::raw_json::{FixedName, Hex, F32};

/// One bone's channels, gathered from the model.
#[derive(Default)]
struct Bone {
    name: Option<String>,
    rotation: Option<(Vec<f32>, Vec<Quat>)>,
    position: Option<(Vec<f32>, Vec<Vec3>)>,
    scale: Option<(Vec<f32>, Vec<Vec3>)>,
}

/// The `rotation=` codecs: name, other spellings, `ECompressionFormat`.
const ROTATION_CODECS: [(&str, &[&str], u8); 6] = [
    ("st48", &["smalltree48", "5"], format::SMALL_TREE_48BIT_QUAT),
    ("st64", &["smalltree64", "6"], format::SMALL_TREE_64BIT_QUAT),
    ("st64ext", &["smalltree64ext", "8"], format::SMALL_TREE_64BIT_EXT_QUAT),
    ("dword", &["4"], format::SMALL_TREE_DWORD_QUAT),
    ("shotint3", &["3"], format::SHOT_INT3_QUAT),
    ("f32", &["none", "1"], format::NO_COMPRESS_QUAT),
];

fn rotation_format(options: &WriteOptions) -> Result<u8> {
    let name = options.param("rotation").unwrap_or("st48");
    let codec = ROTATION_CODECS.iter().find(|(n, others, _)| *n == name || others.contains(&name));
    codec.map(|c| c.2).ok_or_else(|| {
        let names: Vec<&str> = ROTATION_CODECS.iter().map(|c| c.0).collect();
        Error::unsupported(format!("rotation codec \"{name}\" ({})", names.join(", ")))
    })
}

/// Key values at each key (the middle value of cubic triples), with strictly increasing frames:
/// a repeated time keeps its last key.
fn keys<T: Copy>(times: &[f32], values: &[T], cubic: bool, fps: f32) -> (Vec<f32>, Vec<T>) {
    let mut frames: Vec<f32> = Vec::with_capacity(times.len());
    let mut out: Vec<T> = Vec::with_capacity(times.len());
    for (i, &t) in times.iter().enumerate() {
        let v = if cubic { values.get(3 * i + 1) } else { values.get(i) };
        let Some(&v) = v else { break };
        let mut f = t * fps;
        if (f - f.round()).abs() < 1e-3 {
            f = f.round();
        }
        if frames.last().is_some_and(|&l| f <= l) {
            if let (Some(lf), Some(lv)) = (frames.last_mut(), out.last_mut()) {
                *lf = lf.max(f);
                *lv = v;
            }
            continue;
        }
        frames.push(f);
        out.push(v);
    }
    (frames, out)
}

/// The `times=` key-time formats, used for every track instead of the automatic choice (`auto`).
const TIME_FORMATS: [(&str, u8); 7] = [
    ("f32", time_formats::F32),
    ("uint16", time_formats::UINT16),
    ("byte", time_formats::BYTE),
    ("f32_startstop", time_formats::F32_START_STOP),
    ("uint16_startstop", time_formats::UINT16_START_STOP),
    ("byte_startstop", time_formats::BYTE_START_STOP),
    ("bitset", time_formats::BITSET),
];

/// The `times=` parameter: the format of [`TIME_FORMATS`] it names, `None` for `auto`.
fn time_format(options: &WriteOptions) -> Result<Option<u8>> {
    let Some(name) = options.param("times").filter(|&t| t != "auto") else { return Ok(None) };
    match TIME_FORMATS.iter().find(|(n, _)| *n == name) {
        Some(&(_, format)) => Ok(Some(format)),
        None => {
            let names: Vec<&str> = TIME_FORMATS.iter().map(|t| t.0).collect();
            Err(Error::unsupported(format!("times={name} (auto, {})", names.join(", "))))
        }
    }
}

/// A channel of `n` keys whose values `keys` holds, with its own key times `frames` (in the
/// forced format, else the smallest that holds them), or sharing another's (`own: None`, the
/// time format `shared` then).
fn channel<K>(
    format: u8,
    keys_info: Option<u8>,
    keys: K,
    own: Option<&[f32]>,
    shared: u8,
    forced: Option<u8>,
) -> Result<Channel<K>> {
    let times =
        own.map(|f| time_formats::encode(forced.unwrap_or_else(|| time_formats::smallest(f)), f)).transpose()?;
    let time_format = times.as_ref().map_or(shared, KeyTimes::format);
    Ok(Channel { format, keys_info, time_format, keys, times })
}

/// A channel's frames and values when it has keys.
fn keyed<T>(channel: &Option<(Vec<f32>, Vec<T>)>) -> Option<&(Vec<f32>, Vec<T>)> {
    channel.as_ref().filter(|(frames, _)| !frames.is_empty())
}

/// A channel's keys as a key track.
fn track<T: Clone>(channel: &Option<(Vec<f32>, Vec<T>)>) -> Option<KeyTrack<T>> {
    channel.clone().map(|(frames, values)| KeyTrack { frames, values })
}

/// A compressed controller 0x829, or 0x832 (with scale) when `with_scale`: rotations in
/// `rot_format` with their own times; positions NoCompressVec3, sharing the rotation times
/// when they are the same (keys info 0, else 1); scales likewise, sharing the rotation's or the
/// position's (keys info 1) or their own (2). Arrays aligned to 4.
fn controller(id: u32, bone: &Bone, rot_format: u8, with_scale: bool, times: Option<u8>) -> Result<Compressed> {
    let rotation = match keyed(&bone.rotation) {
        Some((frames, values)) => channel(rot_format, None, encode_keys(rot_format, values)?, Some(frames), 0, times)?,
        None => channel(0, None, RotationKeys::default(), None, 0, None)?,
    };
    // The times of the first of `shared` (frames, time format, keys info) with the same frames,
    // else their own (keys info `own`).
    let vectors = |keys: &Option<(Vec<f32>, Vec<Vec3>)>, shared: &[(&[f32], u8, u8)], own: u8| match keyed(keys) {
        Some((f, v)) => {
            let values = v.iter().map(|v| v.to_array().map(F32)).collect();
            match shared.iter().find(|s| s.0 == f.as_slice()) {
                Some(&(_, tf, info)) => channel(format::NO_COMPRESS_VEC3, Some(info), values, None, tf, None),
                None => channel(format::NO_COMPRESS_VEC3, Some(own), values, Some(f), 0, times),
            }
        }
        None => channel(0, Some(0), Vec::new(), None, 0, None),
    };
    let rot = (bone.rotation.as_ref().map_or(&[][..], |r| r.0.as_slice()), rotation.time_format, 0);
    let position = vectors(&bone.position, &[rot], 1)?;
    let pos = (bone.position.as_ref().map_or(&[][..], |p| p.0.as_slice()), position.time_format, 1);
    let scale = vectors(&bone.scale, &[rot, pos], 2)?;
    let (scale, aligned) = if with_scale { (Some(scale), None) } else { (None, Some(1)) };
    let (controller_id, flags, pad, tail) = (id, None, [0; 2], Hex::default());
    Ok(Compressed { controller_id, flags, rotation, position, scale, aligned, pad, tail })
}

/// The asset flags of a clip: additive 0x001, cycle 0x002.
fn motion_flags(clip: &Clip) -> u32 {
    (if clip.additive { FLAG_ADDITIVE } else { 0 }) | if clip.looping == Some(true) { FLAG_CYCLE } else { 0 }
}

/// MotionParameters 0x925 (`MotionParams905`): the clip's flags, frames 0 to `end_frame`,
/// compression unset, no locomotion data.
fn motion_parameters(clip: &Clip, end_frame: i32) -> MotionParams {
    let (asset_flags, compression, secs_per_tick) = (motion_flags(clip), u32::MAX, F32(1.0 / 30.0));
    MotionParams { asset_flags, compression, ticks_per_frame: 1, secs_per_tick, end: end_frame, ..Default::default() }
}

/// The file path a clip is stored under (GlobalAnimationHeaderCAF, DBA and `#ivo` DBAMeta
/// paths): its name with `.caf` appended, which the reader's file stem gives back as the name.
fn clip_path(clip: &Clip) -> String {
    format!("{}.caf", clip.name)
}

/// GlobalAnimationHeaderCAF 0x971, as CE5's compiled CAFs carry it after their controllers:
/// asset flags, the path (the clip's name with `.caf`), its CRC-32, no DBA, unset foot plants
/// (−10000, as the corpus CE5 file has them), start 0, end and total duration in seconds, the
/// controller count, identity start and last locator, zero motion. `None` when the path does
/// not fit its 256 bytes (NUL included) or is not Latin-1.
fn global_animation_header(clip: &Clip, end_frame: i32, controllers: u32) -> Option<GlobalAnimationHeaderCaf> {
    let path = crate::text::fixed_name::<256>(&clip_path(clip))?;
    let seconds = F32(end_frame as f32 / 30.0);
    Some(GlobalAnimationHeaderCaf {
        flags: motion_flags(clip),
        path: FixedName(path),
        // The Latin-1 path: the bytes before its NUL.
        path_crc: crc32fast::hash(path.split(|&b| b == 0).next()?),
        dba_path_crc: 0,
        foot_plants: FootPlants::all(-10000.0),
        start_sec: F32(0.0),
        end_sec: seconds,
        total_duration: seconds,
        controllers,
        start_location: QuatT::IDENTITY,
        last_locator_key: QuatT::IDENTITY,
        velocity: Vec3f::default(),
        distance: F32(0.0),
        speed: F32(0.0),
        slope: F32(0.0),
        turn_speed: F32(0.0),
        asset_turn: F32(0.0),
    })
}

fn pick_clip<'a>(package: &'a Package, options: &WriteOptions, warnings: &mut Vec<String>) -> Result<&'a Clip> {
    let clip = match options.param("clip") {
        Some(name) => package.clip(name).ok_or_else(|| Error::unrepresentable(format!("no clip named \"{name}\"")))?,
        None => package.clips.first().ok_or_else(|| Error::unrepresentable("the package has no clip"))?,
    };
    if package.clips.len() > 1 && options.param("clip").is_none() {
        warnings.push(format!(
            "a CAF holds one clip: wrote \"{}\", {} more left out",
            clip.name,
            package.clips.len() - 1
        ));
    }
    Ok(clip)
}

/// Builds an intermediate `.i_caf` (CE5 `SaveICAF`): `CrCh` with Timing 0x919, one PQLog
/// controller 0x827 per bone sampled on every frame at 30 fps (ticks = frame × 160, positions
/// in centimetres, rotations stored as `log(conj(q))`), and a BoneNameList. A bone without a
/// rotation or position track gets the skeleton's rest value (identity / zero without one).
fn build_icaf(package: &Package, options: &WriteOptions) -> Result<(ChunkFile, Vec<String>)> {
    let mut warnings = Vec::new();
    let clip = pick_clip(package, options, &mut warnings)?;
    if clip.additive {
        warnings.push("the clip is additive: an .i_caf does not say so (the .animsettings does)".into());
    }
    let frames = (clip.duration.max(clip.last_key_time()) * 30.0).round().clamp(0.0, 1e6) as i32;
    let bones = bone_groups(clip, &mut warnings)?;
    let rest = |id: u32| {
        package
            .skeleton
            .as_ref()
            .and_then(|s| s.bones.iter().find(|b| b.hash == Some(id) || controller_id(&b.name) == id))
            .map(|b| b.rest)
    };
    let timing = TimingSamples { samples: frames + 1, rate: F32(30.0), start_sec: F32(0.0) };
    let mut payloads = vec![(kind::TIMING, 0x919, 1, Body::TimingSamples(timing))];
    for (id, name, tracks) in &bones {
        let (mut rot, mut pos) = (None, None);
        for &(b, track) in tracks {
            match track.values {
                Values::Rotation(_) => rot = Some(track),
                Values::Translation(_) => pos = Some(track),
                _ => warnings.push(format!(
                    "{:?} track of {} left out (PQLog has rotation and position)",
                    track.channel(),
                    b.label()
                )),
            }
        }
        let rest = rest(*id);
        if pos.is_none() && rest.is_none() {
            warnings.push(format!(
                "0x{id:08X} ({}) has no position track and no rest pose: written at the origin",
                name.as_deref().unwrap_or("?")
            ));
        }
        let keys = pqlog_keys(rot, pos, rest, frames);
        let body = Body::PqLog { num_keys: keys.len() as u32, controller_id: *id, flags: None, keys };
        payloads.push((kind::CONTROLLER, 0x827, payloads.len() as u32 + 1, body));
    }
    if !bones.is_empty() && bones.iter().all(|(_, n, _)| n.is_some()) {
        let names = bones.iter().filter_map(|(_, n, _)| n.clone()).collect();
        payloads.push((kind::BONE_NAME_LIST, 0x745, payloads.len() as u32 + 1, bone_name_list(names)));
    }
    Ok((ChunkFile::build(Container::CrCh, 0xFFFF_0000, payloads)?, warnings))
}

/// PQLog keys on every frame `0..=frames` (ticks = frame × 160, positions in centimetres,
/// rotations as `log(conj(q))`, kept in one hemisphere with `w ≥ 0` first), sampled from the
/// tracks, else the rest pose, else identity and the origin.
fn pqlog_keys(rot: Option<&Track>, pos: Option<&Track>, rest: Option<Transform>, frames: i32) -> Vec<PqLogKey> {
    use crate::sample::{sample_track, Sampled};
    let mut prev: Option<Quat> = None;
    (0..=frames)
        .map(|f| {
            let t = f as f32 / 30.0;
            let q = match rot.and_then(|r| sample_track(r, t)) {
                Some(Sampled::Rotation(q)) => q.normalize(),
                _ => rest.map_or(Quat::IDENTITY, |r| r.rotation),
            };
            let q = match prev {
                Some(p) if p.dot(q) < 0.0 => -q,
                None if q.w < 0.0 => -q,
                _ => q,
            };
            prev = Some(q);
            let p = match pos.and_then(|r| sample_track(r, t)) {
                Some(Sampled::Translation(p)) => p,
                _ => rest.map_or(Vec3::ZERO, |r| r.translation),
            };
            PqLogKey {
                time: f * TICKS_PER_FRAME as i32,
                position: Vec3f::from_vec3(p * 100.0),
                rot_log: Vec3f::from_vec3(log_quat(q.conjugate())),
            }
        })
        .collect()
}

/// BoneNameList 0x745: the names and the list's closing NUL.
fn bone_name_list(names: Vec<String>) -> Body {
    Body::BoneNameList { count: names.len() as i32, names, tail: Hex(vec![0]) }
}

/// Builds a `.dba` (controller 0x905 in a `CrCh` file) holding every clip of the package.
fn build_dba(package: &Package, options: &WriteOptions) -> Result<(ChunkFile, Vec<String>)> {
    let mut warnings = Vec::new();
    let rot_format = rotation_format(options)?;
    let mut anims = Vec::with_capacity(package.clips.len());
    for clip in &package.clips {
        let controllers = bone_tracks(clip, "DBA", &mut warnings)?;
        let path = clip_path(clip);
        let end_frame = (clip.duration * 30.0).round().clamp(0.0, i32::MAX as f32) as i32;
        anims.push(dba::DbaAnimation { path, motion: motion_parameters(clip, end_frame), controllers });
    }
    let payload = Body::Dba(Box::new(dba::to_raw(&anims, rot_format)?));
    Ok((ChunkFile::build(Container::CrCh, 0xFFFF_0000, vec![(kind::CONTROLLER, 0x905, 1, payload)])?, warnings))
}

/// The bones of a clip with rotation and position keys, for the DBA and `#ivo` writers, whose
/// tracks have no scale (`what` names the format in the warning when the clip has some).
fn bone_tracks(clip: &Clip, what: &str, warnings: &mut Vec<String>) -> Result<Vec<dba::DbaController>> {
    let bones = gather(clip, warnings)?;
    if bones.iter().any(|(_, b)| b.scale.is_some()) {
        warnings.push(format!("{}: scale left out ({what} tracks have none)", clip.name));
    }
    Ok(bones
        .into_iter()
        .map(|(id, b)| dba::DbaController { id, rotation: track(&b.rotation), position: track(&b.position) })
        .collect())
}

/// The controller id of a bone's track: its hash, else the CRC-32 of its name; `None`, and a
/// warning, without either.
fn track_id(b: &BoneRef, warnings: &mut Vec<String>) -> Option<u32> {
    let id = b.hash.or_else(|| b.name.as_deref().map(controller_id));
    if id.is_none() {
        warnings.push(format!("track {} has neither a hash nor a name: left out", b.label()));
    }
    id
}

/// A bone's controller id, name and tracks.
type BoneGroup<'c> = (u32, Option<String>, Vec<(&'c BoneRef, &'c Track)>);

/// The bone tracks of a clip grouped by controller id in first-appearance order, with the
/// bone's first name; every track validated. Material tracks, and bone tracks with neither a
/// hash nor a name, are left out with a warning.
fn bone_groups<'c>(clip: &'c Clip, warnings: &mut Vec<String>) -> Result<Vec<BoneGroup<'c>>> {
    let mut groups: Vec<BoneGroup> = Vec::new();
    for track in &clip.tracks {
        track.validate().map_err(|e| Error::unrepresentable(format!("track {}: {e}", track.target.label())))?;
        let Target::Bone(b) = &track.target else {
            warnings.push(format!("material track {} left out", track.target.label()));
            continue;
        };
        let Some(id) = track_id(b, warnings) else { continue };
        let name = b.name.as_deref().map(str::to_string);
        match groups.iter_mut().find(|g| g.0 == id) {
            Some((_, first, tracks)) => {
                if first.is_none() {
                    *first = name;
                }
                tracks.push((b, track));
            }
            None => groups.push((id, name, vec![(b, track)])),
        }
    }
    Ok(groups)
}

/// The bones of a clip by controller id, in first-appearance order, re-keyed for the engine.
fn gather(clip: &Clip, warnings: &mut Vec<String>) -> Result<Vec<(u32, Bone)>> {
    let fps = 30.0;
    let mut added = (0usize, 0usize);
    let mut bones = Vec::new();
    for (id, name, tracks) in bone_groups(clip, warnings)? {
        let mut bone = Bone { name, ..Default::default() };
        for (b, track) in tracks {
            // Only tracks that are written count among the keys added.
            let rekeyed = rekey_for_engine(track, fps);
            if rekeyed.added > 0 {
                added = (added.0 + 1, added.1 + rekeyed.added);
            }
            let track = &rekeyed.track;
            let cubic = track.interpolation == Interpolation::CubicSpline;
            if cubic || track.interpolation == Interpolation::Step {
                warnings.push(format!(
                    "{} {:?} keys written as the engine's linear/nlerp keys",
                    b.label(),
                    track.interpolation
                ));
            }
            match &track.values {
                Values::Rotation(v) => {
                    let (f, q) = keys(&track.times, v, cubic, fps);
                    bone.rotation = Some((f, q.into_iter().map(|q| q.normalize()).collect()));
                }
                Values::Translation(v) => bone.position = Some(keys(&track.times, v, cubic, fps)),
                Values::Scale(v) => bone.scale = Some(keys(&track.times, v, cubic, fps)),
                _ => warnings.push(format!("{:?} track of {} left out", track.channel(), b.label())),
            }
        }
        bones.push((id, bone));
    }
    if added.0 > 0 {
        warnings.push(format!(
            "clip \"{}\": {} keys added to {} tracks so that the engine's nlerp and linear keys follow the source's interpolation between its keys",
            clip.name, added.1, added.0
        ));
    }
    Ok(bones)
}

/// `track` re-keyed for the engine's interpolation (nlerp rotations, linear positions and scales)
/// where the source interpolates otherwise (slerp, cubic): keys on the 30 fps frames until the
/// engine follows the source within 1e-4 rad (below SmallTree48's step) and 1e-4 units.
fn rekey_for_engine(track: &Track, fps: f32) -> Rekeyed {
    let target = if matches!(track.values, Values::Rotation(_)) { Interpolation::Nlerp } else { Interpolation::Linear };
    rekey(track, target, Tolerance { rotation: 1e-4, vector: 1e-4, frame: 1.0 / fps })
}

/// Builds a Star Citizen `#ivo` CAF (variant `ivo`, one clip: AnimInfo + CAFData) or DBA
/// (variant `ivo_dba`, every clip: DBAData + DBAMeta 0x901), per §9.7. Rotations SmallTree48
/// (0x82) or f32 (0x80, `rotation=f32`), positions f32 (0xC0), times u8/u16 frames at 30 fps.
fn build_ivo(package: &Package, options: &WriteOptions) -> Result<(ChunkFile, Vec<String>)> {
    use super::ivo;
    let mut warnings = Vec::new();
    let rot_format = rotation_format(options)?;
    let dba = options.variant.as_deref() == Some("ivo_dba");
    let clips: Vec<&Clip> =
        if dba { package.clips.iter().collect() } else { vec![pick_clip(package, options, &mut warnings)?] };
    let mut blocks = Vec::with_capacity(clips.len());
    let mut meta = Vec::with_capacity(clips.len());
    for clip in &clips {
        let list = bone_tracks(clip, "#ivo", &mut warnings)?;
        let path = clip_path(clip);
        let head = ivo::MetaHead { fps: 30, num_controllers: list.len() as u16, ..Default::default() };
        meta.push(ivo::MetaEntry { head, end_frame: None, start: QuatT::IDENTITY, path });
        blocks.push(list);
    }
    let file = if dba {
        // DBAData: u32 totalSize (the bytes after it), then the blocks.
        let body = ivo::write_blocks(&blocks, b"#dba", rot_format)?;
        let mut data = (body.len() as u32).to_le_bytes().to_vec();
        data.extend_from_slice(&body);
        ChunkFile::build(
            Container::Ivo,
            0,
            vec![
                (kind::IVO_DBA_DATA, 0x900, 0, data),
                (kind::IVO_DBA_META, 0x901, 0, ivo::MetaEntry::write_all(&meta)?),
            ],
        )?
    } else {
        let (Some(clip), Some(bones)) = (clips.first(), blocks.first()) else {
            return Err(Error::unrepresentable("no clip to write"));
        };
        let n = u16::try_from(bones.len()).map_err(|_| Error::unrepresentable("more than 65535 bones"))?;
        let end_frame = (clip.duration * 30.0).round().clamp(0.0, u32::MAX as f32) as u32;
        let info = IvoAnimInfo { fps: 30, num_bones: n, end_frame, ..Default::default() };
        ChunkFile::build(
            Container::Ivo,
            0,
            vec![
                (kind::IVO_ANIM_INFO, 0x901, 0, Body::IvoAnimInfo(Box::new(info))),
                (kind::IVO_CAF_DATA, 0x900, 0, ivo::write_blocks(&blocks, b"#caf", rot_format)?.into()),
            ],
        )?
    };
    Ok((file, warnings))
}

/// Builds a CAF from one clip of the package.
pub fn from_model(package: &Package, options: &WriteOptions) -> Result<(ChunkFile, Vec<String>)> {
    let mut warnings = Vec::new();
    let container = match options.variant.as_deref() {
        None | Some("crch" | "caf") => Container::CrCh,
        Some("crytek") => Container::CryTek745,
        Some("i_caf") => return build_icaf(package, options),
        Some("dba") => return build_dba(package, options),
        Some("ivo" | "ivo_dba") => return build_ivo(package, options),
        Some(v) => return Err(Error::unsupported(format!("variant \"{v}\" (caf, crytek, i_caf, dba, ivo, ivo_dba)"))),
    };
    let rot_format = rotation_format(options)?;
    let times = time_format(options)?;
    let clip = pick_clip(package, options, &mut warnings)?;
    let bones = gather(clip, &mut warnings)?;
    let (mut worst, mut keys) = (0f32, 0usize);
    for (_, values) in bones.iter().filter_map(|(_, b)| b.rotation.as_ref()) {
        for &q in values {
            worst = worst.max(super::quat_codecs::encoding_error(rot_format, q)?);
            keys += 1;
        }
    }
    if keys > 0 {
        let codec = super::quat_codecs::format_name(rot_format);
        warnings.push(format!("rotations encoded as {codec}: largest error {worst:.2e} rad over {keys} keys"));
    }
    let fps = 30.0;
    // Scale needs controller 0x832 (CE5); otherwise 0x829, which CE5 and Lumberyard both read.
    let with_scale = bones.iter().any(|(_, b)| b.scale.is_some());
    let version = if with_scale { 0x832 } else { 0x829 };
    let end_frame = (clip.duration * fps).round().clamp(0.0, i32::MAX as f32) as i32;
    let mut payloads =
        vec![(kind::MOTION_PARAMETERS, 0x925, 1, Body::MotionParameters(Box::new(motion_parameters(clip, end_frame))))];
    for (id, bone) in &bones {
        // The payload's size includes its padding to 4, as the engine's compiler writes it.
        let mut w = Writer::new(Endian::Little);
        controller(*id, bone, rot_format, with_scale, times)?.write(&mut w)?;
        pad4(&mut w);
        payloads.push((kind::CONTROLLER, version, payloads.len() as u32 + 1, w.into_vec().into()));
    }
    match global_animation_header(clip, end_frame, bones.len() as u32) {
        Some(gah) => {
            let body = Body::GlobalAnimationHeaderCaf(Box::new(gah));
            payloads.push((kind::GAH_CAF, 0x971, payloads.len() as u32 + 1, body));
        }
        None => warnings.push(format!(
            "clip name \"{}\" left out: a GlobalAnimationHeaderCAF path holds 255 Latin-1 bytes",
            clip.name
        )),
    }
    let write_names = options.param("bone_names") != Some("false");
    if write_names && !bones.is_empty() && bones.iter().all(|(_, b)| b.name.is_some()) {
        let names = bones.into_iter().filter_map(|(_, b)| b.name).collect();
        payloads.push((kind::BONE_NAME_LIST, 0x745, payloads.len() as u32 + 1, bone_name_list(names)));
    }
    Ok((ChunkFile::build(container, 0xFFFF_0000, payloads)?, warnings))
}
