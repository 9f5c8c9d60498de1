//! FSHU shader parameter, colour and texture SRT animations (spec §7.3) and their conversion to
//! scalar tracks.
//!
//! One track per (material, parameter, component): float curves become `CubicSpline` scalar
//! tracks (§5.5), int curves `Step` tracks at their keys, constants one-key `Step` tracks. The
//! property is `param.component`: `mode`, `scale_x`, `scale_y`, `rotate`, `translate_x`,
//! `translate_y` for texture SRT, `r g b a` for colour, otherwise `param[+0xNN]`.

use serde::{Deserialize, Serialize};

use super::curve::{write_curves, Curve, Value};
use super::layout::{count16, opening, values, In, Io, Offset, Out, Walk};
use super::platform::Platform;
use super::subfile;
use super::union::union_cubic;
use crate::error::{Error, Result};
use crate::format::Limits;
use crate::model::{Clip, Interpolation, Target, Track, Values};

/// Which index group the FSHU came from (the discriminant is the group's index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// The shader-parameter group.
    ShaderParam = 3,
    /// The colour group.
    Colour = 4,
    /// The texture SRT group.
    TextureSrt = 5,
}

/// An FSHU with its material animations.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fshu {
    /// Position of the header.
    #[serde(skip)]
    pub at: usize,
    /// The animation's name.
    pub name: String,
    /// Flags (bit 2: looping).
    pub flags: u32,
    /// Frames.
    pub frame_count: i32,
    /// The stored count of animated parameters.
    pub param_anim_count: i32,
    /// The stored curve total.
    pub curve_count: i32,
    /// Runtime size of the baked curves (§8).
    pub baked_size: u32,
    /// One entry per animated material.
    pub materials: Vec<MaterialAnim>,
}

/// One material of an FSHU.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialAnim {
    /// The material's name.
    pub name: String,
    /// Derived (the writer recomputes it).
    #[serde(default)]
    pub begin_curve: i32,
    /// Derived (the writer recomputes it).
    #[serde(default)]
    pub begin_param_anim: i32,
    /// The parameters animated.
    pub params: Vec<ParamInfo>,
    /// The material's curves.
    pub curves: Vec<Curve>,
    /// `(target, raw value word)`.
    pub constants: Vec<(u32, u32)>,
}

/// A shader parameter's curves and constants.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamInfo {
    /// The parameter's name.
    pub name: String,
    /// First curve of the parameter (material-local).
    pub begin_curve: u16,
    /// Number of float curves.
    pub float_curves: u16,
    /// Number of int curves.
    pub int_curves: u16,
    /// First constant (material-local).
    pub begin_constant: u16,
    /// Number of constants.
    pub constant_count: u16,
    /// Sub-bind index.
    pub sub_bind_index: u16,
}

impl Fshu {
    /// Whether the animation loops (flags bit 2).
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }

    /// The FSHU header (3.4 and later), read or written: after the opening `u32 flags; s32
    /// frameCount; u16 materialCount, userDataCount; s32 paramAnimCount, curveCount; u32
    /// bakedSize`; off model, bind indices, material animations, user data. Returns the bind-index
    /// and material offsets.
    fn walk(&mut self, io: &mut impl Io, material_count: &mut u16) -> Result<[Offset; 2]> {
        opening(io, b"FSHU", &mut self.flags, &mut self.name)?;
        values!(io, self.flags, self.frame_count, *material_count);
        io.pad(2)?; // user-data count
        values!(io, self.param_anim_count, self.curve_count, self.baked_size);
        io.runtime()?; // bound model
        let arrays = [io.offset("bind indices")?, io.offset("material animations")?];
        io.runtime()?; // user data
        Ok(arrays)
    }
}

/// Reads the FSHU at `at` (Wii U 3.4 and later).
pub fn read(data: &[u8], at: usize, platform: Platform) -> Result<Fshu> {
    if !platform.since_3_4() {
        return Err(Error::unsupported("FSHU before 3.4.0.0 is not supported"));
    }
    let mut c = platform.cursor(data, at)?;
    let (mut anim, mut count) = (Fshu { at, ..Fshu::default() }, 0);
    let [_, materials] = anim.walk(&mut In { c: &mut c, platform }, &mut count)?;
    anim.materials = platform.records(data, materials.pair(), count.into(), 0x20, "material animation", |c| {
        MaterialAnim::read(data, &mut In { c, platform })
    })?;
    Ok(anim)
}

/// Writes an FSHU (v >= 3.4 layout, §7.3 storage order) at the output's position.
pub fn write_fshu(o: &mut Out, a: &Fshu) -> Result<()> {
    if !o.platform().since_3_4() {
        return Err(Error::unsupported("writing FSHU before 3.4.0.0"));
    }
    let mut count = count16(a.materials.len(), "materials")?;
    let mut header = Fshu { name: a.name.clone(), materials: Vec::new(), ..*a };
    let [bind, materials] = header.walk(o, &mut count)?;
    o.bind_indices(bind.field, count);
    o.patch_here(materials.field);
    let (mut begin_curve, mut begin_param_anim) = (0i32, 0i32);
    let mut slots = Vec::new();
    for m in &a.materials {
        let mut record =
            MaterialAnim { name: m.name.clone(), begin_curve, begin_param_anim, ..MaterialAnim::default() };
        let mut counts = [m.params.len(), m.curves.len(), m.constants.len()].map(|n| n as u16);
        slots.push(record.walk(o, &mut counts)?);
        begin_curve += m.curves.len() as i32;
        begin_param_anim += (m.curves.len() + m.constants.len()) as i32;
    }
    for (m, [infos, curves, constants]) in a.materials.iter().zip(slots) {
        o.patch_here(infos.field);
        for p in &m.params {
            p.write(o)?;
        }
        o.patch_here(constants.field);
        write_constants(o, &m.constants);
        o.patch_here(curves.field);
        write_curves(o, &m.curves)?;
    }
    Ok(())
}

impl MaterialAnim {
    /// The material animation (`0x20`), read or written: `u16 paramCount, curveCount,
    /// constantCount` and 2 bytes; `s32 beginCurve, beginParamAnim`; off name, param infos,
    /// curves, constants. Returns the three array offsets.
    fn walk(&mut self, io: &mut impl Io, counts: &mut [u16; 3]) -> Result<[Offset; 3]> {
        counts.iter_mut().try_for_each(|n| io.value(n))?;
        io.pad(2)?;
        values!(io, self.begin_curve, self.begin_param_anim);
        io.name(&mut self.name)?;
        Ok([io.offset("param infos")?, io.offset("curves")?, io.offset("constants")?])
    }

    fn read(data: &[u8], io: &mut In) -> Result<MaterialAnim> {
        let (mut m, mut counts) = (MaterialAnim::default(), [0; 3]);
        let [infos, curves, constants] = m.walk(io, &mut counts)?;
        let [infos_n, curves_n, constants_n] = counts.map(usize::from);
        let platform = io.platform;
        m.params = read_param_infos(data, infos, infos_n, platform)?;
        m.curves = Curve::read_array(data, curves, curves_n, platform)?;
        m.constants = read_constants(data, constants, constants_n, platform)?;
        Ok(m)
    }
}

impl Walk for ParamInfo {
    /// The param info, read or written. Wii U (`0x10`): `u16 beginCurve, floatCurves,
    /// intCurves, beginConstant, constantCount, subBindIndex; off name`. Switch (`0x18`): the
    /// name offset first, then the six `u16` and 4 pad bytes.
    fn walk(&mut self, io: &mut impl Io) -> Result<()> {
        let switch = io.platform().is_switch();
        if switch {
            io.name(&mut self.name)?;
        }
        values!(
            io,
            self.begin_curve,
            self.float_curves,
            self.int_curves,
            self.begin_constant,
            self.constant_count,
            self.sub_bind_index
        );
        if switch {
            io.pad(4)
        } else {
            io.name(&mut self.name)
        }
    }
}

/// Writes animation constants (see [`read_constants`]).
pub(crate) fn write_constants(o: &mut Out, constants: &[(u32, u32)]) {
    constants.iter().flat_map(|&(target, value)| [target, value]).for_each(|word| o.w.u32(word));
}

/// The `count` param infos the offset `at` points at (see `ParamInfo::walk`).
pub(crate) fn read_param_infos(data: &[u8], at: Offset, count: usize, platform: Platform) -> Result<Vec<ParamInfo>> {
    let size = if platform.is_switch() { 0x18 } else { 0x10 };
    at.walked(data, platform, count, size, "param info")
}

/// The `count` animation constants the offset `at` points at: `(u32 target, value word)`.
pub(crate) fn read_constants(data: &[u8], at: Offset, count: usize, platform: Platform) -> Result<Vec<(u32, u32)>> {
    platform.records(data, at.pair(), count, 8, "constant", |k| Ok((k.u32()?, k.u32()?)))
}

/// The named components by kind and target offset; every other target is `[+0xNN]`.
const COMPONENTS: [(Kind, u32, &str); 10] = [
    (Kind::TextureSrt, 0x00, "mode"),
    (Kind::TextureSrt, 0x04, "scale_x"),
    (Kind::TextureSrt, 0x08, "scale_y"),
    (Kind::TextureSrt, 0x0C, "rotate"),
    (Kind::TextureSrt, 0x10, "translate_x"),
    (Kind::TextureSrt, 0x14, "translate_y"),
    (Kind::Colour, 0x00, "r"),
    (Kind::Colour, 0x04, "g"),
    (Kind::Colour, 0x08, "b"),
    (Kind::Colour, 0x0C, "a"),
];

/// The name of the component at `target` of a parameter of `kind`.
fn component(kind: Kind, target: u32) -> String {
    let named = COMPONENTS.iter().find(|c| c.0 == kind && c.1 == target);
    named.map_or_else(|| format!("[+0x{target:02X}]"), |c| c.2.to_string())
}

/// The kind and target offset of a component name (the inverse of `component`).
pub(crate) fn component_target(name: &str) -> Option<(Kind, u32)> {
    if let Some(&(kind, target, _)) = COMPONENTS.iter().find(|c| c.2 == name) {
        return Some((kind, target));
    }
    Some((Kind::ShaderParam, u32::from_str_radix(name.strip_prefix("[+0x")?.strip_suffix(']')?, 16).ok()?))
}

/// Converts an FSHU of group `kind` to a clip of scalar tracks.
pub fn to_clip(anim: &Fshu, kind: Kind, fps: f32, limits: &Limits) -> Result<Clip> {
    let mut tracks = Vec::new();
    for m in &anim.materials {
        let material = (m.name.as_str(), m.params.as_slice(), m.curves.as_slice(), m.constants.as_slice());
        param_tracks(&mut tracks, (anim.at, anim.frame_count), kind, material, fps, limits)?;
    }
    Ok(subfile::clip(&anim.name, anim.frame_count, anim.looping(), fps, tracks))
}

/// A material's animated shader parameters as FSHU and FMAA both hold them: its name, param
/// infos, curves and `(target, raw value word)` constants (indices material-local).
pub type MaterialParams<'a> = (&'a str, &'a [ParamInfo], &'a [Curve], &'a [(u32, u32)]);

/// Appends the scalar tracks of one material's parameters to `tracks`: one per curve (float
/// curves cubic over the animation's `frame_count` frames, int curves STEP at their keys) and a
/// one-key STEP track per constant. `at` is the subfile's position, for errors.
pub fn param_tracks(
    tracks: &mut Vec<Track>,
    (at, frame_count): (usize, i32),
    kind: Kind,
    (material, params, curves, constants): MaterialParams,
    fps: f32,
    limits: &Limits,
) -> Result<()> {
    let window = frame_count.max(0) as f32;
    let target = |p: &ParamInfo, t: u32| Target::Material {
        material: material.into(),
        property: format!("{}.{}", p.name, component(kind, t)).into(),
    };
    for p in params {
        let begin = usize::from(p.begin_curve);
        for ci in begin..begin + usize::from(p.float_curves) + usize::from(p.int_curves) {
            let curve =
                curves.get(ci).ok_or_else(|| Error::invalid(at, format!("{}: curve {ci} out of range", p.name)))?;
            let target = target(p, curve.target);
            if curve.is_float() {
                let curve = curve.unrolled(0.0, window)?;
                let (times, keys) = union_cubic([Some(&*curve)], [0.0], fps, limits)?;
                let values = Values::Scalar(keys.iter().flat_map(|k| [k[0][0], k[1][0], k[2][0]]).collect());
                tracks.push(Track { target, interpolation: Interpolation::CubicSpline, times, values });
            } else {
                let keys = curve.step_keys(0.0, window)?;
                let (times, values) = keys.into_iter().map(|(f, v)| (f / fps, v.as_f32())).unzip();
                tracks.push(Track {
                    target,
                    interpolation: Interpolation::Step,
                    times,
                    values: Values::Scalar(values),
                });
            }
        }
        let begin = usize::from(p.begin_constant);
        for ki in begin..begin + usize::from(p.constant_count) {
            let &(t, raw) = constants
                .get(ki)
                .ok_or_else(|| Error::invalid(at, format!("{}: constant {ki} out of range", p.name)))?;
            let v = if kind == Kind::TextureSrt && t == 0 {
                Value::Int(raw as i32)
            } else {
                Value::Float(f32::from_bits(raw))
            };
            let values = Values::Scalar(vec![v.as_f32()]);
            tracks.push(Track { target: target(p, t), interpolation: Interpolation::Step, times: vec![0.0], values });
        }
    }
    Ok(())
}
