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
use super::layout::{opening, values, In, Io, Offset};
use super::platform::Platform;
use crate::error::{Error, Result};
use crate::format::Limits;
use crate::model::Clip;

/// A Switch material animation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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

impl Fmaa {
    /// The FMAA header, read or written (see the module notes): `n` holds the material,
    /// shader-parameter animation, texture-pattern animation and texture counts. Returns the
    /// bind-index, material, texture-slot, texture-name and texture-bind offsets.
    pub(crate) fn walk(&mut self, io: &mut impl Io, n: &mut [u16; 4]) -> Result<[Offset; 5]> {
        let v9 = io.platform().switch_0_9();
        let mut flags = u32::from(self.flags);
        opening(io, b"FMAA", &mut flags, &mut self.name)?;
        io.runtime()?; // bound model
        let [bind, materials] = [io.offset("bind indices")?, io.offset("material animations")?];
        let [slots, names] = [io.offset("texture slots")?, io.offset("texture names")?];
        io.runtime()?; // user data
        io.runtime()?; // user-data dictionary
        let binds = io.offset("texture binds")?;
        if v9 {
            self.flags = flags as u16;
            values!(io, self.frame_count, self.baked_size);
        } else {
            io.value(&mut self.flags)?;
        }
        io.pad(2)?; // user-data count
        values!(io, n[0], self.curve_count);
        if !v9 {
            values!(io, self.frame_count, self.baked_size);
        }
        values!(io, n[1], n[2]);
        io.pad(2)?; // visibility animations
        io.value(&mut n[3])?;
        if v9 {
            io.pad(2)?;
        }
        Ok([bind, materials, slots, names, binds])
    }
}

/// Reads the FMAA at `at`.
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Fmaa> {
    let mut c = platform.cursor(data, at)?;
    let (mut anim, mut n) = (Fmaa { at, ..Fmaa::default() }, [0u16; 4]);
    let [_, materials, _, names, _] = anim.walk(&mut In { c: &mut c, platform }, &mut n)?;
    anim.textures =
        platform.names(data, names.target, names.field, n[3].into()).map_err(|e| e.within("texture names"))?;
    anim.materials = platform.records(data, materials.pair(), n[0].into(), 0x40, "material animation", |c| {
        MaterialAnim::read(data, &mut In { c, platform })
    })?;
    Ok(anim)
}

impl MaterialAnim {
    /// The material animation (`0x40`), read or written (see the module notes): `n` holds the
    /// parameter-info, pattern-info, constant and curve counts. Returns the parameter-info,
    /// pattern-info, curve and constant offsets.
    pub(crate) fn walk(&mut self, io: &mut impl Io, n: &mut [u16; 4]) -> Result<[Offset; 4]> {
        io.name(&mut self.name)?;
        let [params, patterns] = [io.offset("param infos")?, io.offset("pattern infos")?];
        let [curves, constants] = [io.offset("curves")?, io.offset("constants")?];
        values!(
            io,
            self.begin_param_curve,
            self.begin_pattern_curve,
            self.begin_visibility_constant,
            self.visibility_curve,
            self.visibility_constant
        );
        n.iter_mut().try_for_each(|n| io.value(n))?;
        io.pad(6)?;
        Ok([params, patterns, curves, constants])
    }

    fn read(data: &[u8], io: &mut In) -> Result<MaterialAnim> {
        let (mut m, mut n) = (MaterialAnim::default(), [0; 4]);
        let [params, patterns, curves, constants] = m.walk(io, &mut n)?;
        let [param_count, pattern_count, constant_count, curve_count] = n.map(usize::from);
        let platform = io.platform;
        m.params = read_param_infos(data, params.target, params.field, param_count, platform)?;
        m.patterns = platform.records(data, patterns.pair(), pattern_count, 0x10, "pattern info", |c| {
            let mut info = PatternInfo::default();
            info.walk(&mut In { c, platform })?;
            Ok(info)
        })?;
        m.curves = Curve::read_array(data, curves.target, curves.field, curve_count, platform)?;
        m.constants = read_constants(data, constants.target, constants.field, constant_count, platform)?;
        Ok(m)
    }
}

impl PatternInfo {
    /// The pattern info (`0x10`), read or written: off sampler name; `s16 curveIndex; u16
    /// beginConstant; s8 subBindIndex`; 3 bytes of padding.
    pub(crate) fn walk(&mut self, io: &mut impl Io) -> Result<()> {
        io.name(&mut self.sampler)?;
        values!(io, self.curve_index, self.begin_constant, self.sub_bind_index);
        io.pad(3)
    }
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
