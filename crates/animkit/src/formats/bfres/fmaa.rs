//! Switch material animations (FMAA, spec §11; layouts completed from public implementations,
//! tag S, checked on Splatoon 2's `Wsp_Bubble`): shader-parameter curves as in a Wii U FSHU and
//! texture patterns as in an FTXP, in one subfile, converted through [`super::fshu::param_tracks`]
//! and [`super::ftxp::pattern_track`]; built from the model's texture-index and shader-parameter
//! tracks and laid out as Nintendo's tools lay them out (the corpus's Super Mario Odyssey and
//! Splatoon 2 FMAAs, 9 in all, rewrite byte for byte, see [`super::switch_write::rewrite`]).
//!
//! - Header (`0x78`, not a block of the chain: its next and size words are 0): `FMAA`, 12 zero
//!   bytes, then `u64` name, path, bound model (0), bind indices, material array, texture slots
//!   (runtime pointers, `8 × textures` zero bytes), texture names, user data, user-data
//!   dictionary, texture bind array (`s64 -1` per texture); then `u16` flags (4 = looping),
//!   user-data count, material count, curve count, `s32` frame count, `u32` baked size, and
//!   `u16` counts: shader-parameter animations (Σ curves + constants of the parameters),
//!   texture-pattern animations (Σ pattern infos + pattern constants), visibility animations,
//!   textures. The texture arrays are null when there are no textures. In 0.9 (`0x70`) a `u16`
//!   of flags follows the magic and the frame count and baked size come before the `u16` counts.
//! - Material (`0x40`): `u64` name, parameter infos, pattern infos, curves, constants (null when
//!   empty); `u16` first shader-parameter curve and first pattern curve (the FMAA-wide index of
//!   the material's first curve of that kind, `0xFFFF` when it has none), first parameter
//!   info (`0xFFFF` without parameters), visibility curve and constant (`0xFFFF`); `u16`
//!   parameter, pattern, constant and curve counts; 6 bytes of padding. The curve and constant
//!   indices of the infos are local to the material.
//! - Parameter info (`0x18`): `u64` name; `u16` first curve, float curves, int curves, first
//!   constant, constant count, sub-bind index (`0xFFFF`); 4 bytes of padding ([`super::fshu`]).
//!   Pattern info (`0x10`): `u64` sampler name; `s16` curve (-1 for none); `u16` constant
//!   (`0xFFFF` for none); `s8` sub-bind index (-1); 3 bytes of padding. Constant: `u32` target,
//!   `u32` value (a texture index, or the raw float word).
//! - Data order, each part at a multiple of 8: bind indices (`u16 0xFFFF` per material), the
//!   material array, then per material its parameter infos, pattern infos, constants, curve
//!   headers and each curve's frames and keys; then the texture slots, names and bind array.
//!   A material's curves hold its parameter curves first, then its pattern curves; its
//!   constants likewise.
//! - Baked size: per curve with `n = end - start + 1` frames, `4n + 28` for float curves and
//!   `n·keySize + 16` for int curves, each rounded up to 8 (one float and three int curve sets
//!   seen).
//!
//! Not converted: the material-visibility curves and constants (their index fields are kept;
//! visibility tracks are not written, a warning counts them). Not seen in the corpus, so chosen
//! here: several materials in one FMAA (the first-curve and first-info fields are taken as
//! FMAA-wide running indices).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::curve::{write_curves, Curve, CurveType, KeyType};
use super::fshu::{self, read_constants, read_param_infos, write_constants, ParamInfo};
use super::ftxp;
use super::layout::{count16, opening, values, Image, In, Io, Offset, Out, Walk};
use super::platform::Platform;
use crate::bytes::round_up;
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
    pub name: String,
    /// Bit 2: looping.
    pub flags: u16,
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

/// One material of an FMAA.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialAnim {
    pub name: String,
    /// The begin indices (FMAA-wide) and visibility fields as stored (see the module notes).
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternInfo {
    pub sampler: String,
    /// Material-local curve index, negative for none.
    pub curve_index: i16,
    /// Material-local constant index, `0xFFFF` for none.
    pub begin_constant: u16,
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
    /// Whether the animation loops (flags bit 2).
    pub fn looping(&self) -> bool {
        self.flags & 4 != 0
    }

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
    anim.textures = platform.names(data, names.pair(), n[3].into()).map_err(|e| e.within("texture names"))?;
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
        m.params = read_param_infos(data, params, param_count, platform)?;
        m.patterns = patterns.walked(data, platform, pattern_count, 0x10, "pattern info")?;
        m.curves = Curve::read_array(data, curves, curve_count, platform)?;
        m.constants = read_constants(data, constants, constant_count, platform)?;
        Ok(m)
    }
}

impl Walk for PatternInfo {
    /// The pattern info (`0x10`), read or written: off sampler name; `s16 curveIndex; u16
    /// beginConstant; s8 subBindIndex`; 3 bytes of padding.
    fn walk(&mut self, io: &mut impl Io) -> Result<()> {
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

/// The FMAA of a clip's material tracks: its texture-index tracks (pattern infos, step-int
/// curves or constants) and its `param.component` scalar tracks (parameter infos, float curves
/// or constants), encoded as the Wii U writer encodes FTXP and FSHU curves; `None` when the clip
/// has neither.
pub(crate) fn fmaa_from_clip(clip: &Clip, fps: f32, warnings: &mut Vec<String>) -> Result<Option<Fmaa>> {
    let mut materials: Vec<MaterialAnim> = Vec::new();
    for (_, fshu) in super::from_model::fshu_from_clip(clip, fps, warnings)? {
        for m in fshu.materials {
            let mat = material(&mut materials, &m.name)?;
            let (curves, constants) = (mat.curves.len() as u16, mat.constants.len() as u16);
            mat.params.extend(m.params.into_iter().map(|p| ParamInfo {
                begin_curve: p.begin_curve + curves,
                begin_constant: p.begin_constant + constants,
                ..p
            }));
            mat.curves.extend(m.curves);
            mat.constants.extend(m.constants);
        }
    }
    let mut textures = Vec::new();
    if let Some(ftxp) = super::from_model::ftxp_from_clip(clip, fps)? {
        textures = ftxp.textures;
        for m in ftxp.materials {
            let mat = material(&mut materials, &m.name)?;
            let first_curve = mat.curves.len();
            for (info, &base) in m.infos.iter().zip(&m.base_values) {
                let (curve_index, begin_constant) = if info.curve_index >= 0 {
                    let index = first_curve + info.curve_index as usize;
                    (i16::try_from(index).map_err(|_| Error::unrepresentable("too many curves in a material"))?, 0xFFFF)
                } else {
                    mat.constants.push((0, u32::from(base)));
                    let index = mat.constants.len() - 1;
                    (-1, u16::try_from(index).map_err(|_| Error::unrepresentable("too many constants in a material"))?)
                };
                mat.patterns.push(PatternInfo {
                    sampler: info.sampler.clone(),
                    curve_index,
                    begin_constant,
                    sub_bind_index: -1,
                });
            }
            mat.curves.extend(m.curves);
        }
    }
    if materials.is_empty() {
        return Ok(None);
    }
    let curves: usize = materials.iter().map(|m| m.curves.len()).sum();
    Ok(Some(Fmaa {
        at: 0,
        name: clip.name.clone(),
        flags: super::from_model::looping(clip),
        frame_count: super::from_model::frame_count(clip, fps),
        baked_size: materials.iter().flat_map(|m| &m.curves).map(baked_size).fold(0, u32::saturating_add),
        curve_count: u16::try_from(curves).map_err(|_| Error::unrepresentable("more than 65535 material curves"))?,
        textures,
        materials,
    }))
}

/// Every name an FMAA refers to: its own, then per material its name, parameter and sampler
/// names, then the texture names.
pub(crate) fn names(anim: &Fmaa) -> impl Iterator<Item = &str> {
    std::iter::once(anim.name.as_str())
        .chain(anim.materials.iter().flat_map(|m| {
            std::iter::once(m.name.as_str())
                .chain(m.params.iter().map(|p| p.name.as_str()))
                .chain(m.patterns.iter().map(|p| p.sampler.as_str()))
        }))
        .chain(anim.textures.iter().map(String::as_str))
}

/// The material named `name` in `materials`, added when absent (its begin indices and
/// visibility fields are set when it is written, `material_record`).
fn material<'a>(materials: &'a mut Vec<MaterialAnim>, name: &str) -> Result<&'a mut MaterialAnim> {
    if !materials.iter().any(|m| m.name == name) {
        materials.push(MaterialAnim { name: name.to_string(), ..MaterialAnim::default() });
    }
    materials
        .iter_mut()
        .find(|m| m.name == name)
        .ok_or_else(|| Error::unrepresentable(format!("material \"{name}\" lost")))
}

/// A curve's baked size (see the module notes).
fn baked_size(c: &Curve) -> u32 {
    let n = ((c.end - c.start).max(0.0) as usize).saturating_add(1);
    let key_size = match c.key_type() {
        _ if c.keys.is_empty() => 1,
        _ if matches!(c.curve_type(), CurveType::StepBool | CurveType::BakedBool) => 4,
        KeyType::Bits32 => 4,
        KeyType::S16 => 2,
        KeyType::S8 => 1,
    };
    let size = if c.is_float() { 4 * n + 28 } else { n * key_size + 16 };
    u32::try_from(round_up(size, 8)).unwrap_or(u32::MAX)
}

/// Where an FMAA's data parts lie (0 when absent).
pub(crate) struct Layout {
    /// The bind indices (the data's start).
    start: usize,
    materials: usize,
    /// Texture slots, names and bind array.
    textures: [usize; 3],
    /// Where the data ends (nothing pads it).
    pub end: usize,
}

/// The start of an array of `count` items at the next multiple of 8, `slot` pointed at it (0
/// and nothing written when `count` is 0).
fn array(o: &mut Out, slot: Option<usize>, count: usize) -> usize {
    if count == 0 {
        return 0;
    }
    o.align();
    let at = o.pos();
    if let Some(slot) = slot {
        o.patch(slot, at);
    }
    at
}

/// Writes an FMAA's data from the output's position (see the module notes).
pub(crate) fn fmaa_data(o: &mut Out, anim: &Fmaa) -> Result<Layout> {
    let start = o.pos();
    o.w.fill(0xFF, 2 * anim.materials.len());
    let materials = array(o, None, anim.materials.len());
    let (mut curve, mut param, mut slots) = (0usize, 0usize, Vec::with_capacity(anim.materials.len()));
    for m in &anim.materials {
        slots.push(material_record(o, m, curve, param)?);
        curve += m.curves.len();
        param += m.params.len();
    }
    for (m, [params, patterns, curves, constants]) in anim.materials.iter().zip(slots) {
        array(o, Some(params), m.params.len());
        m.params.iter().try_for_each(|p| p.write(o))?;
        array(o, Some(patterns), m.patterns.len());
        m.patterns.iter().try_for_each(|p| p.write(o))?;
        array(o, Some(constants), m.constants.len());
        write_constants(o, &m.constants);
        array(o, Some(curves), m.curves.len());
        write_curves(o, &m.curves)?;
    }
    let n = anim.textures.len();
    let texture_slots = array(o, None, n);
    o.w.fill(0, 8 * n);
    let names = array(o, None, n);
    anim.textures.iter().for_each(|t| o.string(t));
    let binds = array(o, None, n);
    o.w.fill(0xFF, 8 * n);
    if o.pos() > u32::MAX as usize {
        return Err(Error::unrepresentable("Switch FMAA data beyond 4 GiB"));
    }
    Ok(Layout { start, materials, textures: [texture_slots, names, binds], end: o.pos() })
}

/// A material record (see `MaterialAnim::walk`); returns the slots of its parameter-info,
/// pattern-info, curve and constant offsets. `curve` and `param` are the FMAA-wide indices of
/// its first curve and parameter.
fn material_record(o: &mut Out, m: &MaterialAnim, curve: usize, param: usize) -> Result<[usize; 4]> {
    let param_curves = m.params.iter().map(|p| usize::from(p.float_curves + p.int_curves)).sum::<usize>();
    let first = |present: bool, index: usize| if present { index as u16 } else { 0xFFFF };
    let mut record = MaterialAnim {
        name: m.name.clone(),
        begin_param_curve: first(!m.params.is_empty(), curve),
        begin_pattern_curve: first(!m.patterns.is_empty(), curve + param_curves),
        begin_visibility_constant: first(!m.params.is_empty(), param),
        visibility_curve: 0xFFFF,
        visibility_constant: 0xFFFF,
        ..MaterialAnim::default()
    };
    let mut n = [count(m.params.len())?, count(m.patterns.len())?, count(m.constants.len())?, count(m.curves.len())?];
    Ok(record.walk(o, &mut n)?.map(|s| s.field))
}

/// Writes an FMAA's data from `start` (see the module notes); names are offsets into
/// `strings` (left null without, to measure). Returns the image and the layout.
pub(crate) fn write_data(anim: &Fmaa, start: usize, strings: Option<&HashMap<&str, usize>>) -> Result<(Image, Layout)> {
    let mut o = Out::new(start, Platform::SWITCH_0_8);
    let layout = fmaa_data(&mut o, anim)?;
    strings.map_or(Ok(()), |strings| o.resolve(|s| strings.get(s).copied()))?;
    Ok((o.into_image(), layout))
}

fn count(n: usize) -> Result<u16> {
    count16(n, "entries in one FMAA material")
}

/// The slots of an FMAA header's offsets into its data.
pub(crate) struct HeaderSlots([Offset; 5]);

impl HeaderSlots {
    /// Points the header's offsets at data laid out as `layout`.
    pub(crate) fn link(&self, o: &mut Out, layout: &Layout) {
        let [slots, names, binds] = layout.textures;
        for (slot, target) in self.0.iter().zip([layout.start, layout.materials, slots, names, binds]) {
            o.patch(slot.field, target);
        }
    }
}

/// The FMAA header (see `Fmaa::walk`; the path is the empty string, the bound model and user
/// data null, the counts and the baked size computed from the materials).
pub(crate) fn fmaa_header(o: &mut Out, anim: &Fmaa) -> Result<HeaderSlots> {
    let params: usize = anim
        .materials
        .iter()
        .flat_map(|m| &m.params)
        .map(|p| usize::from(p.float_curves + p.int_curves + p.constant_count))
        .sum();
    let patterns: usize =
        anim.materials.iter().map(|m| m.patterns.len() + m.patterns.iter().filter(|p| p.curve_index < 0).count()).sum();
    let curves: usize = anim.materials.iter().map(|m| m.curves.len()).sum();
    let mut header = Fmaa {
        name: anim.name.clone(),
        baked_size: anim.materials.iter().flat_map(|m| &m.curves).map(baked_size).fold(0u32, u32::saturating_add),
        curve_count: count(curves)?,
        textures: Vec::new(),
        materials: Vec::new(),
        ..*anim
    };
    let mut n = [count(anim.materials.len())?, count(params)?, count(patterns)?, count(anim.textures.len())?];
    Ok(HeaderSlots(header.walk(o, &mut n)?))
}

/// Writes the FMAA header at `at` for data laid out as `layout`.
pub(crate) fn write_header(anim: &Fmaa, at: usize, layout: &Layout, strings: &HashMap<&str, usize>) -> Result<Image> {
    let mut o = Out::new(at, Platform::SWITCH_0_8);
    fmaa_header(&mut o, anim)?.link(&mut o, layout);
    o.resolve(|s| strings.get(s).copied())?;
    Ok(o.into_image())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::bfres::switch_write::push_entry;

    /// A material animation with one parameter (a constant), one pattern (a step-int curve
    /// with `u8` frames and keys, so the curve data needs padding) and two textures.
    fn sample() -> Fmaa {
        let curve = Curve {
            flags: 2 | 2 << 2 | 4 << 4,
            key_count: 3,
            end: 9.0,
            delta: Some(0.0),
            frames: vec![0.0, 4.0, 9.0],
            keys: vec![0.0, 1.0, 0.0],
            ..Curve::default()
        };
        let param = ParamInfo { name: "p".into(), constant_count: 1, sub_bind_index: 0xFFFF, ..ParamInfo::default() };
        let pattern = PatternInfo { sampler: "s".into(), curve_index: 0, begin_constant: 0xFFFF, sub_bind_index: -1 };
        let material = MaterialAnim {
            name: "m".into(),
            visibility_curve: 0xFFFF,
            visibility_constant: 0xFFFF,
            params: vec![param],
            patterns: vec![pattern],
            curves: vec![curve.clone()],
            constants: vec![(0, 0x3F80_0000)],
            ..MaterialAnim::default()
        };
        let textures = vec!["t0".to_string(), "t1".to_string()];
        let (baked_size, curve_count) = (baked_size(&curve), 1);
        let (name, materials) = ("a".into(), vec![material]);
        Fmaa { name, flags: 4, frame_count: 10, baked_size, curve_count, textures, materials, ..Fmaa::default() }
    }

    #[test]
    fn a_material_animation_reads_back_equal_in_both_layouts() {
        let anim = sample();
        for (major, header) in [(8, 0x78), (9, 0x70)] {
            let platform = Platform::Switch { major };
            let mut o = Out::new(0, platform);
            let slots = fmaa_header(&mut o, &anim).unwrap();
            assert_eq!(o.pos(), header, "0.{major} header size");
            let layout = fmaa_data(&mut o, &anim).unwrap();
            slots.link(&mut o, &layout);
            // A string table after the data: `u16` length, bytes, NUL, padded to 2.
            let mut table = Vec::new();
            let mut positions = HashMap::new();
            for s in ["", "a", "m", "p", "s", "t0", "t1"] {
                positions.insert(s, o.pos() + table.len());
                push_entry(&mut table, s);
            }
            o.resolve(|s| positions.get(s).copied()).unwrap();
            let mut bytes = o.into_vec();
            bytes.extend_from_slice(&table);
            let mut back = read(&bytes, 0, platform).unwrap();
            back.materials.iter_mut().flat_map(|m| &mut m.curves).for_each(|c| c.at = 0);
            assert_eq!(back, anim, "0.{major}");
        }
    }
}
