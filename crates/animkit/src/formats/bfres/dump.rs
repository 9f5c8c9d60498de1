//! The lossless JSON form of the FRES raw layer (`animkit dump` / `pack`): the header fields,
//! then every part in file order. Index groups list their nodes with the stored offsets (the
//! resolved `key` is informational and ignored by `pack`); subfiles and other bytes are hex.

use serde::{Deserialize, Serialize};

use std::collections::HashMap;

use super::build::{write_fshu, write_fska, write_ftxp, write_fvis, Out};
use super::curve::Curve;
use super::dict::{Node, ResDict};
use super::fres::{
    FresFile, Header, Part, G_FSHU_PARAM, G_FSHU_SRT, G_FSKA, G_FTXP, G_FVIS_BONE, G_FVIS_MAT, HEADER_SIZE,
};
use super::fshu::{self, Fshu, MaterialAnim, ParamInfo};
use super::fvis::{self, Fvis};

const G_FSHU_COLOUR: usize = 4;
use super::fska::{self, BoneAnim, Fska, UserData, UserValues};
use super::ftxp::{self, Ftxp, MaterialPattern, PatternInfo};
use super::strings::{name_at, PoolString, PoolStringDump};
use crate::error::{Error, ErrorKind, Result};
use crate::raw_json::{Hex, F32};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpFile {
    header: Header,
    parts: Vec<DumpPart>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum DumpPart {
    Dict {
        group: usize,
        size: u32,
        nodes: Vec<DumpNode>,
    },
    Subfile {
        group: usize,
        index: usize,
        bytes: Hex,
    },
    /// An FSKA in structured form (used when it writes back byte for byte).
    Fska {
        group: usize,
        index: usize,
        fska: FskaDump,
    },
    /// An FTXP in structured form (used when it writes back byte for byte).
    Ftxp {
        group: usize,
        index: usize,
        ftxp: FtxpDump,
    },
    /// An FSHU in structured form (used when it writes back byte for byte).
    Fshu {
        group: usize,
        index: usize,
        fshu: FshuDump,
    },
    /// An FVIS in structured form (used when it writes back byte for byte).
    Fvis {
        group: usize,
        index: usize,
        fvis: FvisDump,
    },
    Strings(Vec<PoolStringDump>),
    Bytes(Hex),
}

#[derive(Serialize, Deserialize)]
struct DumpNode {
    #[serde(flatten)]
    node: Node,
    /// The name the node points at (informational).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    key: Option<String>,
}

pub fn to_dump(file: &FresFile, data: &[u8]) -> DumpFile {
    let mut pool = HashMap::new();
    let mut pos = HEADER_SIZE;
    for p in &file.parts {
        if let Part::Strings(s) = p {
            pool = pool_positions(s, pos);
        }
        pos += p.byte_len();
    }
    let version = file.header.version;
    let mut pos = HEADER_SIZE;
    let parts = file
        .parts
        .iter()
        .map(|p| {
            let at = pos;
            pos += p.byte_len();
            match p {
                Part::Dict { group, dict } => DumpPart::Dict {
                    group: *group,
                    size: dict.size,
                    nodes: dict
                        .nodes
                        .iter()
                        .enumerate()
                        .map(|(i, n)| {
                            let field = (at + 8 + 16 * i + 8) as i64;
                            let key = (n.name != 0).then(|| name_at(data, field + i64::from(n.name)).ok()).flatten();
                            DumpNode { node: *n, key }
                        })
                        .collect(),
                },
                Part::Subfile { group, index, bytes } => structured(data, version, *group, *index, at, bytes, &pool)
                    .unwrap_or_else(|| DumpPart::Subfile { group: *group, index: *index, bytes: Hex(bytes.clone()) }),
                Part::Strings(pool) => DumpPart::Strings(pool.iter().map(PoolStringDump::from).collect()),
                Part::Bytes(b) => DumpPart::Bytes(Hex(b.clone())),
            }
        })
        .collect();
    DumpFile { header: file.header.clone(), parts }
}

/// A subfile from its structured dump, placed at `at`, strings resolved by `find`.
fn write_structured(
    sub: &Structured,
    version: u32,
    at: usize,
    find: impl Fn(&str) -> Option<usize>,
) -> Result<Vec<u8>> {
    let mut o = Out::new(at);
    match sub {
        Structured::Fska(a) => write_fska(&mut o, a, version)?,
        Structured::Ftxp(a) => write_ftxp(&mut o, a, version)?,
        Structured::Fshu(a) => write_fshu(&mut o, a, version)?,
        Structured::Fvis(a) => write_fvis(&mut o, a, version)?,
    }
    o.resolve(find)?;
    Ok(o.into_vec())
}

/// A structured subfile with its group and entry index.
type Placed = (usize, usize, Structured);

enum Structured {
    Fska(Fska),
    Ftxp(Ftxp),
    Fshu(Fshu),
    Fvis(Fvis),
}

pub fn from_dump(d: DumpFile) -> Result<FresFile> {
    let version = d.header.version;
    // Pass 1: every part with its length (structured subfiles are written once to measure).
    let mut staged: Vec<(Option<Placed>, Part)> = Vec::new();
    for p in d.parts {
        staged.push(match p {
            DumpPart::Dict { group, size, nodes } => {
                (None, Part::Dict { group, dict: ResDict { size, nodes: nodes.into_iter().map(|n| n.node).collect() } })
            }
            DumpPart::Subfile { group, index, bytes } => (None, Part::Subfile { group, index, bytes: bytes.0 }),
            DumpPart::Fska { group, index, fska } => {
                (Some((group, index, Structured::Fska(fska_from_dump(fska)))), Part::Bytes(Vec::new()))
            }
            DumpPart::Ftxp { group, index, ftxp } => {
                (Some((group, index, Structured::Ftxp(ftxp_from_dump(ftxp)))), Part::Bytes(Vec::new()))
            }
            DumpPart::Fshu { group, index, fshu } => {
                (Some((group, index, Structured::Fshu(fshu_from_dump(fshu)))), Part::Bytes(Vec::new()))
            }
            DumpPart::Fvis { group, index, fvis } => {
                (Some((group, index, Structured::Fvis(fvis_from_dump(fvis)))), Part::Bytes(Vec::new()))
            }
            DumpPart::Strings(s) => (None, Part::Strings(s.into_iter().map(Into::into).collect())),
            DumpPart::Bytes(b) => (None, Part::Bytes(b.0)),
        });
    }
    let mut pos = HEADER_SIZE;
    let mut positions = Vec::with_capacity(staged.len());
    let mut pool = HashMap::new();
    for (sub, part) in &staged {
        positions.push(pos);
        pos += match sub {
            Some((_, _, s)) => write_structured(s, version, 0, |_| Some(0))?.len(),
            None => part.byte_len(),
        };
        if let Part::Strings(s) = part {
            pool = pool_positions(s, *positions.last().unwrap_or(&0));
        }
    }
    // Pass 2: structured subfiles at their positions against the pool.
    let mut parts = Vec::with_capacity(staged.len());
    for ((sub, part), at) in staged.into_iter().zip(positions) {
        parts.push(match sub {
            Some((group, index, s)) => {
                let bytes = write_structured(&s, version, at, |n| pool.get(n).copied()).map_err(|e| {
                    Error::new(ErrorKind::Invalid, None, format!("{e} (add new names to the string pool)"))
                        .within(format!("group {group} entry {index}"))
                })?;
                Part::Subfile { group, index, bytes }
            }
            None => part,
        });
    }
    Ok(FresFile { header: d.header, parts })
}

// ---- Structured FSKA and FTXP ------------------------------------------------------------

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CurveDump {
    flags: u16,
    key_count: u16,
    target: u32,
    start: F32,
    end: F32,
    /// The scale word (float curves: an `f32`; int and bool curves: the raw word).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale: Option<F32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale_word: Option<u32>,
    /// The offset word (float curves: an `f32`; int and bool curves: an `s32`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offset: Option<F32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offset_int: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delta: Option<F32>,
    frames: Vec<F32>,
    /// Key elements as stored (4 per key for cubic, 2 linear, 1 otherwise; packed words for bools).
    keys: Vec<f64>,
}

fn curve_to_dump(c: &Curve) -> CurveDump {
    let float = c.is_float();
    CurveDump {
        flags: c.flags,
        key_count: c.key_count,
        target: c.target,
        start: F32(c.start),
        end: F32(c.end),
        scale: float.then(|| F32(c.scale())),
        scale_word: (!float).then_some(c.scale_bits),
        offset: float.then(|| F32(c.offset_f32())),
        offset_int: (!float).then_some(c.offset_i32()),
        delta: c.delta.map(F32),
        frames: c.frames.iter().map(|&f| F32(f)).collect(),
        keys: c.keys.clone(),
    }
}

fn curve_from_dump(d: CurveDump) -> Curve {
    Curve {
        at: 0,
        flags: d.flags,
        key_count: d.key_count,
        target: d.target,
        start: d.start.0,
        end: d.end.0,
        scale_bits: d.scale.map(|s| s.0.to_bits()).or(d.scale_word).unwrap_or(0),
        offset_bits: d.offset.map(|s| s.0.to_bits()).or(d.offset_int.map(|o| o as u32)).unwrap_or(0),
        delta: d.delta.map(|f| f.0),
        frames: d.frames.into_iter().map(|f| f.0).collect(),
        keys: d.keys,
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BoneDump {
    name: String,
    flags: u32,
    /// `[beginRotate, beginTranslate, beginBaseTranslate]`.
    begin: [u8; 3],
    begin_curve: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale: Option<[F32; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rotate: Option<[F32; 4]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    translate: Option<[F32; 3]>,
    curves: Vec<CurveDump>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct UserDataDump {
    name: String,
    kind: u8,
    #[serde(default, skip_serializing_if = "is_zero")]
    pad: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    words: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    strings: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bytes: Option<Hex>,
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FskaDump {
    name: String,
    flags: u32,
    frame_count: i32,
    curve_count: i32,
    baked_size: u32,
    bones: Vec<BoneDump>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    user_data: Vec<UserDataDump>,
}

pub(crate) fn fska_to_dump(a: &Fska) -> FskaDump {
    FskaDump {
        name: a.name.clone(),
        flags: a.flags,
        frame_count: a.frame_count,
        curve_count: a.curve_count,
        baked_size: a.baked_size,
        bones: a
            .bones
            .iter()
            .map(|b| BoneDump {
                name: b.name.clone(),
                flags: b.flags,
                begin: [b.begin_rotate, b.begin_translate, b.begin_base_translate],
                begin_curve: b.begin_curve,
                scale: b.scale.map(|v| v.map(F32)),
                rotate: b.rotate.map(|v| v.map(F32)),
                translate: b.translate.map(|v| v.map(F32)),
                curves: b.curves.iter().map(curve_to_dump).collect(),
            })
            .collect(),
        user_data: a
            .user_data
            .iter()
            .map(|u| {
                let (mut words, mut strings, mut bytes) = (None, None, None);
                match &u.values {
                    UserValues::Words(w) => words = Some(w.clone()),
                    UserValues::Strings(s) => strings = Some(s.clone()),
                    UserValues::Bytes(b) => bytes = Some(Hex(b.clone())),
                }
                UserDataDump { name: u.name.clone(), kind: u.kind, pad: u.pad, words, strings, bytes }
            })
            .collect(),
    }
}

pub(crate) fn fska_from_dump(d: FskaDump) -> Fska {
    Fska {
        at: 0,
        name: d.name,
        flags: d.flags,
        frame_count: d.frame_count,
        user_data_count: d.user_data.len() as u16,
        curve_count: d.curve_count,
        baked_size: d.baked_size,
        bones: d
            .bones
            .into_iter()
            .map(|b| BoneAnim {
                at: 0,
                flags: b.flags,
                name: b.name,
                begin_rotate: b.begin[0],
                begin_translate: b.begin[1],
                begin_base_translate: b.begin[2],
                begin_curve: b.begin_curve,
                scale: b.scale.map(|v| v.map(|f| f.0)),
                rotate: b.rotate.map(|v| v.map(|f| f.0)),
                translate: b.translate.map(|v| v.map(|f| f.0)),
                curves: b.curves.into_iter().map(curve_from_dump).collect(),
            })
            .collect(),
        user_data: d
            .user_data
            .into_iter()
            .map(|u| UserData {
                name: u.name,
                kind: u.kind,
                pad: u.pad,
                values: match (u.words, u.strings, u.bytes) {
                    (Some(w), _, _) => UserValues::Words(w),
                    (_, Some(s), _) => UserValues::Strings(s),
                    (_, _, b) => UserValues::Bytes(b.map(|b| b.0).unwrap_or_default()),
                },
            })
            .collect(),
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PatternInfoDump {
    curve_index: i8,
    sub_bind_index: i8,
    sampler: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialPatternDump {
    name: String,
    infos: Vec<PatternInfoDump>,
    curves: Vec<CurveDump>,
    base_values: Vec<u16>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FtxpDump {
    name: String,
    flags: u16,
    frame_count: i32,
    baked_size: u32,
    textures: Vec<String>,
    /// Per texture, the absolute position of the FTEX its TextureRef points at (null: none, the
    /// textures are in a separate file). Absent when every one is null. The FTEX subfiles come
    /// before the animations, so editing an animation does not move them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    texture_ftex: Vec<Option<usize>>,
    materials: Vec<MaterialPatternDump>,
}

fn ftxp_to_dump(a: &Ftxp) -> FtxpDump {
    FtxpDump {
        name: a.name.clone(),
        flags: a.flags,
        frame_count: a.frame_count,
        baked_size: a.baked_size,
        textures: a.textures.clone(),
        texture_ftex: a.texture_ftex.clone(),
        materials: a
            .materials
            .iter()
            .map(|m| MaterialPatternDump {
                name: m.name.clone(),
                infos: m
                    .infos
                    .iter()
                    .map(|i| PatternInfoDump {
                        curve_index: i.curve_index,
                        sub_bind_index: i.sub_bind_index,
                        sampler: i.sampler.clone(),
                    })
                    .collect(),
                curves: m.curves.iter().map(curve_to_dump).collect(),
                base_values: m.base_values.clone(),
            })
            .collect(),
    }
}

fn ftxp_from_dump(d: FtxpDump) -> Ftxp {
    Ftxp {
        at: 0,
        name: d.name,
        flags: d.flags,
        frame_count: d.frame_count,
        baked_size: d.baked_size,
        textures: d.textures,
        texture_ftex: d.texture_ftex,
        materials: d
            .materials
            .into_iter()
            .map(|m| MaterialPattern {
                name: m.name,
                begin_curve: 0,
                begin_pat_anim: 0,
                infos: m
                    .infos
                    .into_iter()
                    .map(|i| PatternInfo {
                        curve_index: i.curve_index,
                        sub_bind_index: i.sub_bind_index,
                        sampler: i.sampler,
                    })
                    .collect(),
                curves: m.curves.into_iter().map(curve_from_dump).collect(),
                base_values: m.base_values,
            })
            .collect(),
    }
}

/// A structured form of the subfile at `at` when writing it back gives exactly `bytes`.
fn structured(
    data: &[u8],
    version: u32,
    group: usize,
    index: usize,
    at: usize,
    bytes: &[u8],
    pool: &HashMap<String, usize>,
) -> Option<DumpPart> {
    let mut o = Out::new(at);
    let part = match group {
        G_FSKA => {
            let a = fska::read(data, at, version).ok()?;
            write_fska(&mut o, &a, version).ok()?;
            DumpPart::Fska { group, index, fska: fska_to_dump(&a) }
        }
        G_FTXP => {
            let a = ftxp::read(data, at, version).ok()?;
            write_ftxp(&mut o, &a, version).ok()?;
            DumpPart::Ftxp { group, index, ftxp: ftxp_to_dump(&a) }
        }
        G_FSHU_PARAM | G_FSHU_COLOUR | G_FSHU_SRT => {
            let a = fshu::read(data, at, version).ok()?;
            write_fshu(&mut o, &a, version).ok()?;
            DumpPart::Fshu { group, index, fshu: fshu_to_dump(&a) }
        }
        G_FVIS_BONE | G_FVIS_MAT => {
            let a = fvis::read(data, at, version).ok()?;
            write_fvis(&mut o, &a, version).ok()?;
            DumpPart::Fvis { group, index, fvis: fvis_to_dump(&a) }
        }
        _ => return None,
    };
    o.resolve(|s| pool.get(s).copied()).ok()?;
    (o.into_vec() == bytes).then_some(part)
}

/// Positions (first character) of the pool strings when the pool starts at `at`.
fn pool_positions(pool: &[PoolString], at: usize) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    let mut p = at;
    for s in pool {
        out.entry(String::from_utf8_lossy(&s.text).into_owned()).or_insert(p + 4);
        p += s.byte_len();
    }
    out
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamInfoDump {
    name: String,
    begin_curve: u16,
    float_curves: u16,
    int_curves: u16,
    begin_constant: u16,
    constant_count: u16,
    sub_bind_index: u16,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialAnimDump {
    name: String,
    params: Vec<ParamInfoDump>,
    curves: Vec<CurveDump>,
    /// `(target, raw value word)`.
    constants: Vec<(u32, u32)>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FshuDump {
    name: String,
    flags: u32,
    frame_count: i32,
    param_anim_count: i32,
    curve_count: i32,
    baked_size: u32,
    materials: Vec<MaterialAnimDump>,
}

fn fshu_to_dump(a: &Fshu) -> FshuDump {
    FshuDump {
        name: a.name.clone(),
        flags: a.flags,
        frame_count: a.frame_count,
        param_anim_count: a.param_anim_count,
        curve_count: a.curve_count,
        baked_size: a.baked_size,
        materials: a
            .materials
            .iter()
            .map(|m| MaterialAnimDump {
                name: m.name.clone(),
                params: m
                    .params
                    .iter()
                    .map(|p| ParamInfoDump {
                        name: p.name.clone(),
                        begin_curve: p.begin_curve,
                        float_curves: p.float_curves,
                        int_curves: p.int_curves,
                        begin_constant: p.begin_constant,
                        constant_count: p.constant_count,
                        sub_bind_index: p.sub_bind_index,
                    })
                    .collect(),
                curves: m.curves.iter().map(curve_to_dump).collect(),
                constants: m.constants.clone(),
            })
            .collect(),
    }
}

fn fshu_from_dump(d: FshuDump) -> Fshu {
    Fshu {
        at: 0,
        name: d.name,
        flags: d.flags,
        frame_count: d.frame_count,
        param_anim_count: d.param_anim_count,
        curve_count: d.curve_count,
        baked_size: d.baked_size,
        materials: d
            .materials
            .into_iter()
            .map(|m| MaterialAnim {
                name: m.name,
                begin_curve: 0,
                begin_param_anim: 0,
                params: m
                    .params
                    .into_iter()
                    .map(|p| ParamInfo {
                        name: p.name,
                        begin_curve: p.begin_curve,
                        float_curves: p.float_curves,
                        int_curves: p.int_curves,
                        begin_constant: p.begin_constant,
                        constant_count: p.constant_count,
                        sub_bind_index: p.sub_bind_index,
                    })
                    .collect(),
                curves: m.curves.into_iter().map(curve_from_dump).collect(),
                constants: m.constants,
            })
            .collect(),
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FvisDump {
    name: String,
    flags: u16,
    frame_count: i32,
    baked_size: u32,
    names: Vec<String>,
    curves: Vec<CurveDump>,
    /// Base visibility bits, LSB first, 32 per word.
    base: Vec<u32>,
}

fn fvis_to_dump(a: &Fvis) -> FvisDump {
    FvisDump {
        name: a.name.clone(),
        flags: a.flags,
        frame_count: a.frame_count,
        baked_size: a.baked_size,
        names: a.names.clone(),
        curves: a.curves.iter().map(curve_to_dump).collect(),
        base: a.base.clone(),
    }
}

fn fvis_from_dump(d: FvisDump) -> Fvis {
    Fvis {
        at: 0,
        name: d.name,
        flags: d.flags,
        frame_count: d.frame_count,
        baked_size: d.baked_size,
        names: d.names,
        curves: d.curves.into_iter().map(curve_from_dump).collect(),
        base: d.base,
    }
}
