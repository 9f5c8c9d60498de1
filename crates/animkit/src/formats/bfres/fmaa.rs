//! Switch material animations (FMAA, spec §11; layouts completed from public implementations,
//! tag S, checked on Splatoon 2's `Wsp_Bubble`): shader-parameter curves as in a Wii U FSHU and
//! texture patterns as in an FTXP, in one subfile, converted through [`super::fshu::param_tracks`]
//! and [`super::ftxp::pattern_track`].
//!
//! - FMAA (`0x78`; `0x70` in 0.9, where a `u16` of flags follows the magic and the frame count
//!   and baked size come before the `u16` counts): name, flags, frame count, texture-name array
//!   (`u64` string offsets), materials.
//! - Material (`0x40`): off name, param infos, pattern infos, curves, constants; `u16` begin
//!   param curve, begin pattern curve, begin visibility constant, visibility curve, visibility
//!   constant, param info count, pattern info count, constant count, curve count. Curve and
//!   constant indices are local to the material.
//! - PatternAnimInfo (`0x10`): off name; `s16 curveIndex; u16 beginConstant` (`0xFFFF` = none);
//!   `s8 subBindIndex`; pad 3. Param infos and constants: [`super::fshu`].
//!
//! Not converted: the material-visibility curves and constants (their index fields are kept).

use serde::{Deserialize, Serialize};

use super::curve::Curve;
use super::fshu::{self, read_constants, read_param_infos, ParamInfo};
use super::ftxp;
use super::platform::Platform;
use crate::bytes::Cursor;
use crate::error::{Error, Result};
use crate::format::Limits;
use crate::model::Clip;

/// A Switch material animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fmaa {
    /// Position of the header.
    #[serde(skip)]
    pub at: usize,
    /// The animation's name.
    pub name: String,
    /// Flags (bit 2: looping).
    pub flags: u16,
    /// Frames.
    pub frame_count: i32,
    /// Runtime size of the baked curves.
    pub baked_size: u32,
    /// The stored curve total.
    pub curve_count: u16,
    /// The texture names the pattern curves index.
    pub textures: Vec<String>,
    /// One entry per animated material.
    pub materials: Vec<MaterialAnim>,
}

impl Fmaa {
    /// Whether the animation loops (flags bit 2).
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }
}

/// One material of an FMAA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialAnim {
    /// The material's name.
    pub name: String,
    /// Begin indices and visibility fields as stored.
    pub begin_param_curve: u16,
    /// First pattern curve (file-wide).
    pub begin_pattern_curve: u16,
    /// First visibility constant.
    pub begin_visibility_constant: u16,
    /// The visibility curve index.
    pub visibility_curve: u16,
    /// The visibility constant index.
    pub visibility_constant: u16,
    /// Shader-parameter infos.
    pub params: Vec<ParamInfo>,
    /// Texture-pattern infos.
    pub patterns: Vec<PatternInfo>,
    /// The material's curves.
    pub curves: Vec<Curve>,
    /// `(target, raw value word)`.
    pub constants: Vec<(u32, u32)>,
}

/// A texture-pattern info: a curve or a constant selects the texture index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternInfo {
    /// The sampler.
    pub sampler: String,
    /// Material-local curve index, negative for none.
    pub curve_index: i16,
    /// Material-local constant index, `0xFFFF` for none.
    pub begin_constant: u16,
    /// Sub-bind index.
    pub sub_bind_index: i8,
}

/// The header size of an FMAA.
pub fn header_size(platform: Platform) -> usize {
    if platform.switch_0_9() {
        0x70
    } else {
        0x78
    }
}

/// Reads the FMAA at `at`.
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Fmaa> {
    let (mut c, name) = platform.open(data, at, b"FMAA")?;
    let _model = c.u64()?;
    let _bind = c.u64()?;
    let mats_field = c.offset();
    let mats_at = platform.offset(&mut c, "material animations")?;
    let _unused = c.u64()?;
    let tex_field = c.offset();
    let tex_at = platform.offset(&mut c, "texture names")?;
    let _user = (c.u64()?, c.u64()?);
    let _tex_bind = c.u64()?;
    let v9 = platform.switch_0_9();
    let flags = if v9 { platform.cursor(data, at + 4)?.u16()? } else { c.u16()? };
    let (frame_count, baked_size, mat_count, curve_count) = if v9 {
        let (fc, bs, _ud, mc, cc) = (c.i32()?, c.u32()?, c.u16()?, c.u16()?, c.u16()?);
        (fc, bs, mc, cc)
    } else {
        let (_ud, mc, cc) = (c.u16()?, c.u16()?, c.u16()?);
        (c.i32()?, c.u32()?, mc, cc)
    };
    let _counts = (c.u16()?, c.u16()?, c.u16()?);
    let tex_count = usize::from(c.u16()?);
    let textures = platform.names(data, tex_at, tex_field, tex_count).map_err(|e| e.within("texture names"))?;
    let materials =
        platform.records(data, (mats_field, mats_at), mat_count.into(), 0x40, "material animation", |m| {
            read_material(data, m, platform)
        })?;
    Ok(Fmaa { at, name, flags, frame_count, baked_size, curve_count, textures, materials })
}

fn read_material(data: &[u8], c: &mut Cursor, platform: Platform) -> Result<MaterialAnim> {
    let at = c.offset();
    let name = platform.name(data, c)?;
    let params_at = platform.offset(c, "param infos")?;
    let patterns_at = platform.offset(c, "pattern infos")?;
    let curves_at = platform.offset(c, "curves")?;
    let constants_at = platform.offset(c, "constants")?;
    let [begin_param_curve, begin_pattern_curve, begin_visibility_constant, visibility_curve, visibility_constant] =
        [c.u16()?, c.u16()?, c.u16()?, c.u16()?, c.u16()?];
    let [param_count, pattern_count, constant_count, curve_count] = [c.u16()?, c.u16()?, c.u16()?, c.u16()?];
    let params = read_param_infos(data, params_at, at + 8, param_count.into(), platform)?;
    let patterns =
        platform.records(data, (at + 0x10, patterns_at), pattern_count.into(), 0x10, "pattern info", |p| {
            let sampler = platform.name(data, p)?;
            Ok(PatternInfo { sampler, curve_index: p.i16()?, begin_constant: p.u16()?, sub_bind_index: p.i8()? })
        })?;
    let curves = Curve::read_array(data, curves_at, at + 0x18, curve_count.into(), platform)?;
    let constants = read_constants(data, constants_at, at + 0x20, constant_count.into(), platform)?;
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
pub fn to_clip(anim: &Fmaa, fps: f32, limits: &Limits) -> Result<Clip> {
    let mut tracks = Vec::new();
    for m in &anim.materials {
        let material = (m.name.as_str(), m.params.as_slice(), m.curves.as_slice(), m.constants.as_slice());
        let place = (anim.at, anim.frame_count);
        fshu::param_tracks(&mut tracks, place, fshu::Kind::ShaderParam, material, fps, limits)?;
    }
    let textures: std::sync::Arc<[String]> = anim.textures.as_slice().into();
    for mat in &anim.materials {
        for info in &mat.patterns {
            let what = format!("{} {}", mat.name, info.sampler);
            let source = if info.curve_index >= 0 {
                let curve = mat.curves.get(info.curve_index as usize).ok_or_else(|| {
                    Error::invalid(anim.at, format!("{what}: curve index {} out of range", info.curve_index))
                })?;
                (Some(curve), 0)
            } else if info.begin_constant != 0xFFFF {
                let &(_, raw) = mat.constants.get(usize::from(info.begin_constant)).ok_or_else(|| {
                    Error::invalid(anim.at, format!("{what}: constant {} out of range", info.begin_constant))
                })?;
                (None, i64::from(raw as i32))
            } else {
                return Err(Error::invalid(anim.at, format!("{what}: neither a curve nor a constant")));
            };
            let names = (mat.name.as_str(), info.sampler.as_str());
            tracks.push(ftxp::pattern_track(anim.at, &textures, names, source, anim.frame_count, fps)?);
        }
    }
    Ok(super::subfile::clip(&anim.name, anim.frame_count, anim.looping(), fps, tracks))
}
