//! Switch BFRES (little-endian, `FRES` + four spaces): the skeletal (FSKA)
//! and material (FMAA) animations and the models' skeletons, converted to the model through the Wii U code paths
//! ([`super::fska::to_clip`], [`super::fshu::to_clip`]); the curve system is the same (spec §11).
//!
//! What is read (layouts from spec §11, completed from public implementations, tag S; checked
//! on the corpus's Switch 0.8.0.0 files, Splatoon 2 and Super Mario Odyssey, and on files
//! generated from the same layouts):
//! - Header (`0xD0` bytes, `0xF0` for version 0.9: 32 reserved bytes after the model dict and two
//!   more `u16` counts after the model count): version, BOM, file name, file size, the
//!   (array, dict) `u64` pairs and the `u16` counts. Versions 0.10 and later are rejected as
//!   unsupported (their header layout differs).
//! - Offsets are absolute `u64` (0 = null); the `_RLT` relocation table is not needed for reading
//!   and is not interpreted. `_DIC` dicts are not read: subfiles are found through their value
//!   arrays and named by their own name fields. Strings: `u16` length, bytes, NUL; name offsets
//!   point at the length.
//! - FSKA (`0x60`; `0x50` in 0.9, where the flags follow the magic instead of the 12-byte block
//!   header): name, flags, frame count, curve count, baked size, bone animations.
//! - BoneAnim (`0x28`; `0x38` from 0.9 with two more `u64`): `u64` name, curves, base; `u32` flags;
//!   four `u8` begin fields; `s32` beginCurve; base data as in §7.1.
//! - AnimCurve (`0x30`): `u64` frames, keys; `u16` flags, keyCount; `u32` target; `f32` start, end,
//!   scale, offset, delta; `u32` pad. Every frame, key and curve type of §4.
//! - FMAA (`0x78`; `0x70` in 0.9, flags `u16` after the magic and the frame count and baked size
//!   before the `u16` counts): name, flags, frame count, texture-name array (`u64` string offsets),
//!   materials (`0x40`: `u64` name, param infos, pattern infos, curves, constants; `u16`
//!   begin param curve, begin pattern curve, begin visibility constant, visibility curve,
//!   visibility constant, param info count, pattern info count, constant count, curve count).
//! - ParamAnimInfo (`0x18`: `u64` name; `u16` beginCurve, floatCurves, intCurves, beginConstant,
//!   constantCount, subBindIndex; pad 4), PatternAnimInfo (`0x10`: `u64` name; `s16` curveIndex;
//!   `u16` beginConstant, `0xFFFF` = none; `s8` subBindIndex; pad 3), AnimConstant (`u32`
//!   target, value word). Curve and constant indices are local to the material.
//!
//! - Models (FMDL, `0x78` bytes): their skeletons, through the reader shared with Wii U
//!   ([`super::fskl`]); the one the FSKA bind to becomes the package's ([`super::bind`]).
//!
//! Bone-visibility animations (FBVS) are read by [`super::switch_anims`], which also names the
//! shape and scene animations.
//!
//! Not read: the rest of the models, shape and scene animations beyond their names, user
//! data, bind indices, the texture bind array, FMAA material-visibility curves/constants (their
//! index fields are kept but not converted), embedded files (BNTX). Writing: see
//! [`super::switch_write`] (one skeletal animation replaced inside the file) and
//! [`super::switch_build`] (files from the model).

use bytes::Bytes;
use serde::Serialize;

use super::bind::{self, ModelSkeleton};
use super::curve::{Curve, CurveType};
use super::fshu::{self, ParamInfo};
use super::fska::{self, BoneAnim, Fska};
use super::fskl;
use super::platform::Platform;
use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};
use crate::format::Repaired;
use crate::formats::{Document, Format, Limits, ReadOptions};
use crate::lint::{Finding, Severity};
use crate::model::{Clip, Interpolation, Package, Target, Track, Values};

/// The 8-byte magic of a Switch BFRES.
pub const MAGIC: &[u8; 8] = b"FRES    ";

/// Whether `bytes` start like a Switch BFRES (magic and little-endian BOM).
pub fn is_switch(bytes: &[u8]) -> bool {
    bytes.get(..8) == Some(MAGIC) && bytes.get(0x0C..0x0E) == Some(&[0xFF, 0xFE])
}

/// The Switch FRES header fields this reader uses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Header {
    pub version: u32,
    pub alignment_log2: u8,
    pub address_size: u8,
    pub flags: u16,
    pub file_size: u32,
    pub relocation_table: u32,
    pub name: String,
    /// The model (FMDL) array.
    pub model_array: u64,
    /// (array, dict, count) of skeletal animations.
    pub fska: (u64, u64, u16),
    /// (array, dict, count) of material animations.
    pub fmaa: (u64, u64, u16),
    pub model_count: u16,
    pub bone_visibility_count: u16,
    pub shape_anim_count: u16,
    pub scene_anim_count: u16,
    pub embedded_count: u16,
}

impl Header {
    /// The `x` of version `0.x.y.z`.
    pub fn major(&self) -> u8 {
        (self.version >> 16) as u8
    }

    pub fn version_string(&self) -> String {
        let v = self.version;
        format!("{}.{}.{}.{} (Switch)", v >> 24, (v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF)
    }
}

fn le(data: &[u8]) -> Cursor<'_> {
    Cursor::new(data, Endian::Little)
}

/// Reads a `u64` absolute offset: `None` for 0, an error when it does not fit the file.
pub fn offset(c: &mut Cursor, what: &str) -> Result<Option<usize>> {
    let at = c.offset();
    let v = c.u64()?;
    if v == 0 {
        return Ok(None);
    }
    match usize::try_from(v) {
        Ok(o) if o < c.data().len() => Ok(Some(o)),
        _ => Err(Error::invalid(at, format!("{what} offset {v:#x} is outside the file ({} bytes)", c.data().len()))),
    }
}

/// The string whose `u16` length word is at `at`.
pub fn string_at(data: &[u8], at: usize) -> Result<String> {
    let mut c = le(data);
    c.seek(at)?;
    let len = usize::from(c.u16()?);
    let bytes = c.take(len)?;
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// Reads a `u64` name offset and the string it points at (empty when null).
pub fn name_field(data: &[u8], c: &mut Cursor) -> Result<String> {
    match offset(c, "name")? {
        Some(at) => string_at(data, at).within(|| "name"),
        None => Ok(String::new()),
    }
}

/// Reads the Switch header.
pub fn read_header(data: &[u8]) -> Result<Header> {
    let mut c = le(data);
    if c.array::<8>()? != *MAGIC {
        return Err(Error::invalid(0, "not a Switch BFRES (magic is not \"FRES    \")"));
    }
    let version = c.u32()?;
    let bom = c.array::<2>()?;
    if bom != [0xFF, 0xFE] {
        return Err(Error::invalid(
            0x0C,
            format!("byte-order mark {:02X} {:02X} is not little-endian", bom[0], bom[1]),
        ));
    }
    let alignment_log2 = c.u8()?;
    let address_size = c.u8()?;
    let _file_name = c.u32()?;
    let flags = c.u16()?;
    let _first_block = c.u16()?;
    let relocation_table = c.u32()?;
    let file_size = c.u32()?;
    if file_size as usize > data.len() {
        return Err(Error::truncated(data.len(), file_size as usize - data.len(), 0)
            .within(format!("Switch FRES (file size field 0x1C says {file_size} bytes, {} present)", data.len())));
    }
    let major = (version >> 16) as u8;
    if major >= 10 {
        return Err(Error::unsupported(format!("Switch BFRES version 0.{major}: only versions before 0.10 are read"))
            .within("Switch FRES header"));
    }
    let name = name_field(data, &mut c).within(|| "Switch FRES header")?;
    let model_array = c.u64()?;
    let _model_dict = c.u64()?;
    if major == 9 {
        c.skip(32)?;
    }
    let fska = (c.u64()?, c.u64()?);
    let fmaa = (c.u64()?, c.u64()?);
    // Bone visibility, shape, scene (array, dict); memory pool, buffer info; embedded files
    // (array, dict); padding; string table.
    c.skip(8 * 6 + 8 * 2 + 8 * 2 + 8 + 8)?;
    let _pool_size = c.u32()?;
    let model_count = c.u16()?;
    if major == 9 {
        c.skip(4)?;
    }
    let fska_count = c.u16()?;
    let fmaa_count = c.u16()?;
    let bone_visibility_count = c.u16()?;
    let shape_anim_count = c.u16()?;
    let scene_anim_count = c.u16()?;
    let embedded_count = c.u16()?;
    Ok(Header {
        version,
        alignment_log2,
        address_size,
        flags,
        file_size,
        relocation_table,
        name,
        model_array,
        fska: (fska.0, fska.1, fska_count),
        fmaa: (fmaa.0, fmaa.1, fmaa_count),
        model_count,
        bone_visibility_count,
        shape_anim_count,
        scene_anim_count,
        embedded_count,
    })
}

/// Switch AnimCurve header size.
pub const CURVE_SIZE: usize = 0x30;

/// Reads the Switch curve whose header is at `at` into the shared [`Curve`].
pub fn read_curve(data: &[u8], at: usize) -> Result<Curve> {
    let mut c = le(data);
    c.seek(at)?;
    let frames_at = offset(&mut c, "frames")?;
    let keys_at = offset(&mut c, "keys")?;
    let flags = c.u16()?;
    let key_count = c.u16()?;
    let target = c.u32()?;
    let start = c.f32()?;
    let end = c.f32()?;
    let scale_bits = c.u32()?;
    let offset_bits = c.u32()?;
    let delta = c.f32()?;
    let _pad = c.u32()?;
    if (flags >> 4) & 7 == 3 {
        return Err(Error::invalid(at + 0x10, format!("curve type 3 in flags {flags:#06x}")));
    }
    let mut curve = Curve {
        at,
        flags,
        key_count,
        target,
        start,
        end,
        scale_bits,
        offset_bits,
        delta: Some(delta),
        frames: Vec::new(),
        keys: Vec::new(),
    };
    let n = usize::from(key_count);
    if n > 0 {
        let frames_at = frames_at.ok_or_else(|| Error::invalid(at, "null frame array"))?;
        curve.frames =
            super::curve::read_frames(curve.frame_type(), data, frames_at, n, Endian::Little).within(|| "frames")?;
    }
    let ct = curve.curve_type();
    let bool_curve = matches!(ct, CurveType::StepBool | CurveType::BakedBool);
    let elements = if bool_curve { n.div_ceil(32) } else { n * curve.stride() };
    if elements > 0 {
        let keys_at = keys_at.ok_or_else(|| Error::invalid(at + 8, "null key array"))?;
        curve.keys =
            super::curve::read_keys(&curve, data, keys_at, elements, bool_curve, Endian::Little).within(|| "keys")?;
    }
    Ok(curve)
}

fn read_curves(data: &[u8], at: Option<usize>, count: usize, owner_field: usize) -> Result<Vec<Curve>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let at = at.ok_or_else(|| Error::invalid(owner_field, "null curve array"))?;
    let mut c = le(data);
    c.seek(at)?;
    c.count(count as u64, CURVE_SIZE, "curve")?;
    (0..count).map(|i| read_curve(data, at + CURVE_SIZE * i).within(|| format!("curve {i}"))).collect()
}

/// Reads the Switch FSKA at `at` into the shared [`Fska`] (user data is not read).
pub fn read_fska(data: &[u8], at: usize, major: u8) -> Result<Fska> {
    let mut c = le(data);
    c.seek(at)?;
    if c.array::<4>()? != *b"FSKA" {
        return Err(Error::invalid(at, "not an FSKA"));
    }
    let v9 = major >= 9;
    let mut flags = 0;
    if v9 {
        flags = c.u32()?;
    } else {
        c.skip(12)?; // block header: u32 next, u64 size
    }
    let name = name_field(data, &mut c)?;
    let _path = c.u64()?;
    let _skeleton = c.u64()?;
    let _bind = c.u64()?;
    let bones_field = c.offset();
    let bones_at = offset(&mut c, "bone animations")?;
    let _user = (c.u64()?, c.u64()?);
    if !v9 {
        flags = c.u32()?;
    }
    let frame_count = c.i32()?;
    let curve_count = c.i32()?;
    let baked_size = c.u32()?;
    let bone_count = usize::from(c.u16()?);
    let user_data_count = c.u16()?;
    let bone_size = if v9 { 0x38 } else { 0x28 };
    let mut bones = Vec::new();
    if bone_count > 0 {
        let bones_at = bones_at.ok_or_else(|| Error::invalid(bones_field, "null bone animation array"))?;
        let mut b = le(data);
        b.seek(bones_at)?;
        b.count(bone_count as u64, bone_size, "bone animation")?;
        for i in 0..bone_count {
            bones.push(read_bone(data, bones_at + bone_size * i, v9).within(|| format!("bone animation {i}"))?);
        }
    }
    Ok(Fska { at, name, flags, frame_count, user_data_count, curve_count, baked_size, bones, user_data: Vec::new() })
}

fn read_bone(data: &[u8], at: usize, v9: bool) -> Result<BoneAnim> {
    let mut c = le(data);
    c.seek(at)?;
    let name = name_field(data, &mut c)?;
    let curves_at = offset(&mut c, "curves")?;
    let base_at = offset(&mut c, "base data")?;
    if v9 {
        c.skip(16)?;
    }
    let flags_at = c.offset();
    let flags = c.u32()?;
    let begin_rotate = c.u8()?;
    let begin_translate = c.u8()?;
    let curve_count = c.u8()?;
    let begin_base_translate = c.u8()?;
    let begin_at = c.offset();
    let begin = c.i32()?;
    let begin_curve =
        u16::try_from(begin).map_err(|_| Error::invalid(begin_at, format!("beginCurve {begin} out of range")))?;
    let mut bone = BoneAnim {
        at,
        flags,
        name,
        begin_rotate,
        begin_translate,
        begin_base_translate,
        begin_curve,
        scale: None,
        rotate: None,
        translate: None,
        curves: Vec::new(),
    };
    if flags & 0x38 != 0 {
        let base_at = base_at.ok_or_else(|| Error::invalid(flags_at, "base data flagged but its offset is null"))?;
        let mut b = le(data);
        b.seek(base_at)?;
        bone.read_base(&mut b)?;
    }
    bone.curves = read_curves(data, curves_at, usize::from(curve_count), at + 8)?;
    Ok(bone)
}

/// A Switch material animation (FMAA).
#[derive(Debug, Clone, PartialEq)]
pub struct Fmaa {
    pub at: usize,
    pub name: String,
    pub flags: u16,
    pub frame_count: i32,
    pub baked_size: u32,
    pub curve_count: u16,
    pub textures: Vec<String>,
    pub materials: Vec<MaterialAnim>,
}

impl Fmaa {
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }
}

/// One material of an FMAA.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialAnim {
    pub name: String,
    pub begin_param_curve: u16,
    pub begin_pattern_curve: u16,
    pub begin_visibility_constant: u16,
    pub visibility_curve: u16,
    pub visibility_constant: u16,
    pub params: Vec<ParamInfo>,
    pub patterns: Vec<PatternInfo>,
    pub curves: Vec<Curve>,
    /// `(target, raw value word)`.
    pub constants: Vec<(u32, u32)>,
}

/// A texture-pattern info: a curve or a constant selects the texture index.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternInfo {
    pub sampler: String,
    /// Material-local curve index, negative for none.
    pub curve_index: i16,
    /// Material-local constant index, `0xFFFF` for none.
    pub begin_constant: u16,
    pub sub_bind_index: i8,
}

/// Reads the Switch FMAA at `at`.
pub fn read_fmaa(data: &[u8], at: usize, major: u8) -> Result<Fmaa> {
    let mut c = le(data);
    c.seek(at)?;
    if c.array::<4>()? != *b"FMAA" {
        return Err(Error::invalid(at, "not an FMAA"));
    }
    let v9 = major >= 9;
    let mut flags = 0;
    if v9 {
        flags = c.u16()?;
        c.skip(2)?;
    } else {
        c.skip(12)?;
    }
    let name = name_field(data, &mut c)?;
    let _path = c.u64()?;
    let _model = c.u64()?;
    let _bind = c.u64()?;
    let mats_field = c.offset();
    let mats_at = offset(&mut c, "material animations")?;
    let _unused = c.u64()?;
    let tex_field = c.offset();
    let tex_at = offset(&mut c, "texture names")?;
    let _user = (c.u64()?, c.u64()?);
    let _tex_bind = c.u64()?;
    if !v9 {
        flags = c.u16()?;
    }
    let (frame_count, baked_size, mat_count, curve_count) = if v9 {
        let fc = c.i32()?;
        let bs = c.u32()?;
        let _ud = c.u16()?;
        let mc = c.u16()?;
        let cc = c.u16()?;
        (fc, bs, mc, cc)
    } else {
        let _ud = c.u16()?;
        let mc = c.u16()?;
        let cc = c.u16()?;
        (c.i32()?, c.u32()?, mc, cc)
    };
    let _param_count = c.u16()?;
    let _pattern_count = c.u16()?;
    let _visibility_count = c.u16()?;
    let tex_count = usize::from(c.u16()?);
    let mut textures = Vec::new();
    if tex_count > 0 {
        let tex_at = tex_at.ok_or_else(|| Error::invalid(tex_field, "null texture name array"))?;
        let mut t = le(data);
        t.seek(tex_at)?;
        t.count(tex_count as u64, 8, "texture name")?;
        for i in 0..tex_count {
            textures.push(name_field(data, &mut t).within(|| format!("texture name {i}"))?);
        }
    }
    let mut materials = Vec::new();
    let mat_count = usize::from(mat_count);
    if mat_count > 0 {
        let mats_at = mats_at.ok_or_else(|| Error::invalid(mats_field, "null material animation array"))?;
        let mut m = le(data);
        m.seek(mats_at)?;
        m.count(mat_count as u64, 0x40, "material animation")?;
        for i in 0..mat_count {
            materials.push(read_material(data, mats_at + 0x40 * i).within(|| format!("material animation {i}"))?);
        }
    }
    Ok(Fmaa { at, name, flags, frame_count, baked_size, curve_count, textures, materials })
}

fn read_material(data: &[u8], at: usize) -> Result<MaterialAnim> {
    let mut c = le(data);
    c.seek(at)?;
    let name = name_field(data, &mut c)?;
    let params_at = offset(&mut c, "param infos")?;
    let patterns_at = offset(&mut c, "pattern infos")?;
    let curves_at = offset(&mut c, "curves")?;
    let constants_at = offset(&mut c, "constants")?;
    let begin_param_curve = c.u16()?;
    let begin_pattern_curve = c.u16()?;
    let begin_visibility_constant = c.u16()?;
    let visibility_curve = c.u16()?;
    let visibility_constant = c.u16()?;
    let param_count = usize::from(c.u16()?);
    let pattern_count = usize::from(c.u16()?);
    let constant_count = usize::from(c.u16()?);
    let curve_count = usize::from(c.u16()?);
    let mut params = Vec::new();
    if param_count > 0 {
        let p_at = params_at.ok_or_else(|| Error::invalid(at + 8, "null param info array"))?;
        let mut p = le(data);
        p.seek(p_at)?;
        p.count(param_count as u64, 0x18, "param info")?;
        for i in 0..param_count {
            let info = (|| {
                let name = name_field(data, &mut p)?;
                let info = ParamInfo {
                    name,
                    begin_curve: p.u16()?,
                    float_curves: p.u16()?,
                    int_curves: p.u16()?,
                    begin_constant: p.u16()?,
                    constant_count: p.u16()?,
                    sub_bind_index: p.u16()?,
                };
                p.skip(4)?;
                Ok(info)
            })()
            .within(|| format!("param info {i}"))?;
            params.push(info);
        }
    }
    let mut patterns = Vec::new();
    if pattern_count > 0 {
        let p_at = patterns_at.ok_or_else(|| Error::invalid(at + 0x10, "null pattern info array"))?;
        let mut p = le(data);
        p.seek(p_at)?;
        p.count(pattern_count as u64, 0x10, "pattern info")?;
        for i in 0..pattern_count {
            let info = (|| {
                let sampler = name_field(data, &mut p)?;
                let info =
                    PatternInfo { sampler, curve_index: p.i16()?, begin_constant: p.u16()?, sub_bind_index: p.i8()? };
                p.skip(3)?;
                Ok(info)
            })()
            .within(|| format!("pattern info {i}"))?;
            patterns.push(info);
        }
    }
    let curves = read_curves(data, curves_at, curve_count, at + 0x18)?;
    let mut constants = Vec::new();
    if constant_count > 0 {
        let k_at = constants_at.ok_or_else(|| Error::invalid(at + 0x20, "null constant array"))?;
        let mut k = le(data);
        k.seek(k_at)?;
        k.count(constant_count as u64, 8, "constant")?;
        for _ in 0..constant_count {
            constants.push((k.u32()?, k.u32()?));
        }
    }
    Ok(MaterialAnim {
        name,
        begin_param_curve,
        begin_pattern_curve,
        begin_visibility_constant,
        visibility_curve,
        visibility_constant,
        params,
        patterns,
        curves,
        constants,
    })
}

/// Converts an FMAA to one clip: shader-parameter tracks as for a Wii U FSHU (cubic scalar
/// channels, constants as one-key STEP tracks), then one texture-index STEP track per pattern
/// info (keys at the curve's frames, or one key with the constant's value).
pub fn fmaa_to_clip(anim: &Fmaa, fps: f32, limits: &Limits) -> Result<Clip> {
    let as_fshu = fshu::Fshu {
        at: anim.at,
        name: anim.name.clone(),
        flags: u32::from(anim.flags),
        frame_count: anim.frame_count,
        param_anim_count: 0,
        curve_count: i32::from(anim.curve_count),
        baked_size: anim.baked_size,
        materials: anim
            .materials
            .iter()
            .map(|m| fshu::MaterialAnim {
                name: m.name.clone(),
                begin_curve: i32::from(m.begin_param_curve),
                begin_param_anim: 0,
                params: m.params.clone(),
                curves: m.curves.clone(),
                constants: m.constants.clone(),
            })
            .collect(),
    };
    let mut clip = fshu::to_clip(&as_fshu, fshu::Kind::ShaderParam, fps, limits)?;
    let n = anim.textures.len();
    let textures: std::sync::Arc<[String]> = anim.textures.as_slice().into();
    for mat in &anim.materials {
        for info in &mat.patterns {
            let what = format!("{} {}", mat.name, info.sampler);
            let check = |v: i64| -> Result<u32> {
                u32::try_from(v)
                    .ok()
                    .filter(|&i| (i as usize) < n)
                    .ok_or_else(|| Error::invalid(anim.at, format!("{what}: texture index {v} outside 0..{n}")))
            };
            let (times, indices) = if info.curve_index >= 0 {
                let curve = mat.curves.get(info.curve_index as usize).ok_or_else(|| {
                    Error::invalid(anim.at, format!("{what}: curve index {} out of range", info.curve_index))
                })?;
                super::ftxp::pattern_keys(curve, anim.frame_count, fps, check)?
            } else if info.begin_constant != 0xFFFF {
                let &(_, raw) = mat.constants.get(usize::from(info.begin_constant)).ok_or_else(|| {
                    Error::invalid(anim.at, format!("{what}: constant {} out of range", info.begin_constant))
                })?;
                (vec![0.0], vec![check(i64::from(raw as i32))?])
            } else {
                return Err(Error::invalid(anim.at, format!("{what}: neither a curve nor a constant")));
            };
            clip.tracks.push(Track {
                target: Target::Material { material: mat.name.as_str().into(), property: info.sampler.as_str().into() },
                interpolation: Interpolation::Step,
                times,
                values: Values::TextureIndex { indices, textures: textures.clone() },
            });
        }
    }
    clip.looping = Some(anim.looping());
    Ok(clip)
}

/// The subfile headers of one group: `count` consecutive structures of `size` bytes.
fn group(data: &[u8], array: u64, count: u16, size: usize, what: &str) -> Result<Vec<usize>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let at = usize::try_from(array)
        .ok()
        .filter(|&a| a != 0 && a < data.len())
        .ok_or_else(|| Error::invalid(0, format!("{what} array offset {array:#x} is null or outside the file")))?;
    let mut c = le(data);
    c.seek(at)?;
    c.count(u64::from(count), size, what)?;
    Ok((0..usize::from(count)).map(|i| at + size * i).collect())
}

/// The size of an FMDL header (0.5 to 0.9).
const FMDL_SIZE: usize = 0x78;

/// Every model with a skeleton of at least one bone, in storage order ([`super::fskl`]).
pub fn skeletons(data: &[u8], header: &Header) -> Result<Vec<ModelSkeleton>> {
    let platform = Platform::Switch { major: header.major() };
    let mut out = Vec::new();
    for (i, at) in group(data, header.model_array, header.model_count, FMDL_SIZE, "model")?.into_iter().enumerate() {
        let (model, fskl) = fskl::read_model(data, at, platform).within(|| format!("model {i}"))?;
        let Some(fskl) = fskl.filter(|s| !s.bones.is_empty()) else { continue };
        out.push(ModelSkeleton { skeleton: fskl.to_skeleton().within(|| format!("model \"{model}\""))?, model });
    }
    Ok(out)
}

/// The position of every FSKA header, in storage order.
pub fn fska_offsets(data: &[u8], header: &Header) -> Result<Vec<usize>> {
    let size = if header.major() >= 9 { 0x50 } else { 0x60 };
    group(data, header.fska.0, header.fska.2, size, "skeletal animation")
}

/// Every FSKA of a Switch file, in storage order.
fn read_fskas(data: &[u8], header: &Header) -> Result<Vec<Fska>> {
    let major = header.major();
    let list = fska_offsets(data, header)?;
    list.into_iter()
        .enumerate()
        .map(|(i, at)| read_fska(data, at, major).within(|| format!("skeletal animation {i}")))
        .collect()
}

/// Converts every FSKA, FMAA and FBVS of a Switch file to clips, in that order, and the skeleton
/// they bind to ([`super::bind::bind`]) to the package's skeleton.
pub fn to_model(data: &[u8], header: &Header, options: &ReadOptions) -> Result<Package> {
    let (fps, limits) = (super::fps(options)?, &options.limits);
    let major = header.major();
    let mut package = Package { name: header.name.clone(), ..Default::default() };
    let fskas = read_fskas(data, header)?;
    package.skeleton = bind::bind(skeletons(data, header)?, &fskas, super::model_param(options))?.map(|b| b.1);
    for anim in &fskas {
        let clip = fska::to_clip(anim, fps, limits).within(|| format!("skeletal animation \"{}\"", anim.name))?;
        package.clips.push(clip);
    }
    let fmaa_size = if major >= 9 { 0x70 } else { 0x78 };
    for (i, at) in group(data, header.fmaa.0, header.fmaa.2, fmaa_size, "material animation")?.into_iter().enumerate() {
        let anim = read_fmaa(data, at, major).within(|| format!("material animation {i}"))?;
        let clip = fmaa_to_clip(&anim, fps, limits).within(|| format!("material animation \"{}\"", anim.name))?;
        package.clips.push(clip);
    }
    package.clips.extend(super::switch_anims::bone_visibility_clips(data, header, fps)?);
    Ok(package)
}

/// The first note of every Switch BFRES; containers pass it on with a prefix, so `convert` finds
/// it in the notes of any file holding one (`convert` then writes BFRES for Switch).
pub const PLATFORM_NOTE: &str = "Switch (little-endian)";

/// A Switch BFRES: keeps its bytes, reads animations on demand.
pub struct SwitchDocument {
    pub header: Header,
    data: Bytes,
    options: ReadOptions,
}

/// Reads a Switch BFRES: the header, and every FSKA and FMAA (so structural errors surface
/// at read time).
pub fn read(bytes: Bytes, options: &ReadOptions) -> Result<SwitchDocument> {
    let header = read_header(&bytes)?;
    let major = header.major();
    let v9 = major >= 9;
    read_fskas(&bytes, &header)?;
    skeletons(&bytes, &header)?;
    for (i, at) in group(&bytes, header.fmaa.0, header.fmaa.2, if v9 { 0x70 } else { 0x78 }, "material animation")?
        .into_iter()
        .enumerate()
    {
        read_fmaa(&bytes, at, major).within(|| format!("material animation {i}"))?;
    }
    Ok(SwitchDocument { header, data: bytes, options: options.clone() })
}

/// Consistency checks (derived counts and begin indices, as the Wii U lint checks them): FSKA
/// `curveCount` is the sum of the bones' curve counts and each bone's `beginCurve` the running
/// sum; FMAA `curveCount` is the sum of the materials' curves. Not fixable by `repair` (the
/// findings name what a replacement through the model recomputes).
pub fn lint(data: &[u8], header: &Header) -> Vec<Finding> {
    let mut out = Vec::new();
    let major = header.major();
    let v9 = major >= 9;
    let fskas = group(data, header.fska.0, header.fska.2, if v9 { 0x50 } else { 0x60 }, "skeletal animation");
    for at in fskas.unwrap_or_default() {
        let Ok(anim) = read_fska(data, at, major) else { continue };
        let path = format!("FSKA \"{}\"", anim.name);
        let mut sum = 0usize;
        for bone in &anim.bones {
            if usize::from(bone.begin_curve) != sum {
                out.push(
                    Finding::new(
                        Severity::Warning,
                        "bfres-switch-begin-curve",
                        format!("bone \"{}\": beginCurve {} but {sum} curves precede it", bone.name, bone.begin_curve),
                    )
                    .at(bone.at)
                    .path(path.clone()),
                );
            }
            sum += bone.curves.len();
        }
        if usize::try_from(anim.curve_count).ok() != Some(sum) {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "bfres-switch-curve-count",
                    format!("curveCount {} but the bones hold {sum} curves", anim.curve_count),
                )
                .at(at)
                .path(path),
            );
        }
    }
    let models = group(data, header.model_array, header.model_count, FMDL_SIZE, "model");
    for (i, at) in models.unwrap_or_default().into_iter().enumerate() {
        super::lint::lint_model(&mut out, &format!("model {i}"), data, at, Platform::Switch { major });
    }
    let fmaas = group(data, header.fmaa.0, header.fmaa.2, if v9 { 0x70 } else { 0x78 }, "material animation");
    for at in fmaas.unwrap_or_default() {
        let Ok(anim) = read_fmaa(data, at, major) else { continue };
        let sum: usize = anim.materials.iter().map(|m| m.curves.len()).sum();
        if usize::from(anim.curve_count) != sum {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "bfres-switch-curve-count",
                    format!("curveCount {} but the materials hold {sum} curves", anim.curve_count),
                )
                .at(at)
                .path(format!("FMAA \"{}\"", anim.name)),
            );
        }
    }
    out
}

impl SwitchDocument {
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// This file with the skeletal animation named like `clip` replaced by it
    /// ([`super::switch_replace::replace_clip`]), read back.
    pub fn with_clip(&self, clip: &Clip) -> Result<SwitchDocument> {
        let fps = super::fps(&self.options)?;
        let bytes = super::switch_replace::replace_clip(&self.data, clip, fps)?;
        read(Bytes::from(bytes), &self.options)
    }

    /// Which model's skeleton the animations bind to, and why ([`bind::bind`]).
    pub fn binding(&self) -> Result<Option<bind::Binding>> {
        let fskas = read_fskas(&self.data, &self.header)?;
        let models = skeletons(&self.data, &self.header)?;
        Ok(bind::bind(models, &fskas, super::model_param(&self.options))?.map(|b| b.0))
    }
}

impl Document for SwitchDocument {
    fn format(&self) -> &'static dyn Format {
        &super::Bfres
    }

    fn version(&self) -> String {
        self.header.version_string()
    }

    /// The bytes the document holds: those read, or those a replacement wrote
    /// ([`Self::with_clip`]). Writing them again from the parsed tables gives the same bytes
    /// ([`super::switch_write::rewrite`], tested on every corpus file).
    fn write(&self) -> Result<Vec<u8>> {
        Ok(self.data.to_vec())
    }

    fn to_model(&self) -> Result<Package> {
        to_model(&self.data, &self.header, &self.options)
    }

    /// The structured dump of [`super::switch_dump`].
    fn dump(&self) -> Result<serde_json::Value> {
        serde_json::to_value(super::switch_dump::to_dump(&self.data)?)
            .map_err(|e| Error::invalid(0, format!("Switch BFRES dump: {e}")))
    }

    fn lint(&self) -> Vec<Finding> {
        lint(&self.data, &self.header)
    }

    /// Replaces the skeletal animation `name` by the clip of that name (or the only clip with
    /// bone tracks) in `data`, a file of any format animkit reads ([`Self::with_clip`]); `animkit
    /// replace ARCHIVE …/file.bfres/NAME NEW` reaches it through the containers.
    fn with_entry(&self, name: &str, data: Bytes) -> Result<Box<dyn Document>> {
        let package = crate::read(data, None, &self.options)?.to_model()?;
        let bones = |c: &&Clip| c.tracks.iter().any(|t| matches!(t.target, Target::Bone(_)));
        let with_bones: Vec<&Clip> = package.clips.iter().filter(bones).collect();
        let clip = match with_bones.iter().find(|c| c.name == name) {
            Some(c) => (*c).clone(),
            None if with_bones.len() == 1 => {
                Clip { name: name.to_string(), ..with_bones.first().map(|c| (*c).clone()).unwrap_or_default() }
            }
            None => {
                return Err(Error::invalid(
                    0,
                    format!(
                        "the replacement holds {} clips with bone tracks and none named \"{name}\"",
                        with_bones.len()
                    ),
                ))
            }
        };
        Ok(Box::new(self.with_clip(&clip)?))
    }

    fn repair(&self) -> Result<Repaired> {
        let document = read(self.data.clone(), &self.options)?;
        Ok(Repaired { document: Box::new(document), changes: Vec::new() })
    }

    fn notes(&self) -> Vec<String> {
        let h = &self.header;
        let mut notes = vec![PLATFORM_NOTE.to_string()];
        for (n, what) in [
            (h.fska.2, "skeletal animations"),
            (h.fmaa.2, "material animations"),
            (h.model_count, "models"),
            (h.bone_visibility_count, "bone visibility animations"),
            (h.embedded_count, "embedded files (not read)"),
        ] {
            if n > 0 {
                notes.push(format!("{n} {what}"));
            }
        }
        match self.binding() {
            Ok(Some(binding)) => notes.push(binding.note()),
            Ok(None) if h.fska.2 > 0 => notes.push(bind::unbound_note(usize::from(h.fska.2))),
            Ok(None) => {}
            Err(e) => notes.push(format!("skeleton: {e}")),
        }
        notes.extend(self.not_in_model());
        notes
    }

    fn not_in_model(&self) -> Vec<String> {
        super::switch_anims::not_in_model(&self.data, &self.header)
    }
}

/// Rebuilds a Switch document from its dump ([`super::switch_dump`]); `None` when the dump is
/// not a Switch one.
pub fn undump(value: &serde_json::Value) -> Option<Result<SwitchDocument>> {
    if value.get("platform").and_then(|p| p.as_str()) != Some("switch") {
        return None;
    }
    Some((|| {
        let dump: super::switch_dump::SwitchDump =
            serde_json::from_value(value.clone()).map_err(|e| Error::invalid(0, format!("Switch BFRES dump: {e}")))?;
        read(Bytes::from(super::switch_dump::from_dump(&dump)?), &ReadOptions::default())
    })())
}
