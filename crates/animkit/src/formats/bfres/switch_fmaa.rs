//! Switch material animations (FMAA, 0.5 to 0.8 layout) written: built from the model's
//! texture-index and shader-parameter tracks, and laid out as Nintendo's tools lay them out.
//!
//! Facts this rests on (the corpus's Super Mario Odyssey and Splatoon 2 FMAAs, 9 in all, rewrite
//! byte for byte with the rules below, see [`super::switch_write::rewrite`]):
//! - Header (`0x78`, not a block of the chain: its next and size words are 0): `FMAA`, 12 zero
//!   bytes, then `u64` name, path, bound model (0), bind indices, material array, texture slots
//!   (runtime pointers, `8 × textures` zero bytes), texture names, user data, user-data
//!   dictionary, texture bind array (`s64 -1` per texture); then `u16` flags (4 = looping),
//!   user-data count, material count, curve count, `s32` frame count, `u32` baked size, and
//!   `u16` counts: shader-parameter animations (Σ curves + constants of the parameters),
//!   texture-pattern animations (Σ pattern infos + pattern constants), visibility animations,
//!   textures. The texture arrays are null when there are no textures.
//! - Material (`0x40`): `u64` name, parameter infos, pattern infos, curves, constants (null when
//!   empty); `u16` first shader-parameter curve and first pattern curve (the FMAA-wide index of
//!   the material's first curve of that kind, `0xFFFF` when it has none), first parameter
//!   info (`0xFFFF` without parameters), visibility curve and constant (`0xFFFF`); `u16`
//!   parameter, pattern, constant and curve counts; 6 bytes of padding.
//! - Parameter info (`0x18`): `u64` name; `u16` first curve, float curves, int curves, first
//!   constant, constant count, sub-bind index (`0xFFFF`); 4 bytes of padding. Pattern info
//!   (`0x10`): `u64` sampler name; `s16` curve (-1 for none); `u16` constant (`0xFFFF` for none);
//!   `s8` sub-bind index (-1); 3 bytes of padding. Constant: `u32` target, `u32` value (a
//!   texture index, or the raw float word).
//! - Data order, each part at a multiple of 8: bind indices (`u16 0xFFFF` per material), the
//!   material array, then per material its parameter infos, pattern infos, constants, curve
//!   headers and each curve's frames and keys; then the texture slots, names and bind array.
//!   A material's curves hold its parameter curves first, then its pattern curves; its
//!   constants likewise.
//! - Baked size: per curve with `n = end - start + 1` frames, `4n + 28` for float curves and
//!   `n·keySize + 16` for int curves, each rounded up to 8 (one float and three int curve sets
//!   seen).
//!
//! Not seen in the corpus, so chosen here: several materials in one FMAA (the first-curve and
//! first-info fields are taken as FMAA-wide running indices) and material visibility (not
//! written: a warning counts the tracks left out).

use std::collections::HashMap;

use super::curve::Curve;
use super::fmaa::{Fmaa, MaterialAnim, PatternInfo};
use super::fshu::ParamInfo;
use super::switch_image::{frame_size, key_size, write_curve, Image};
use crate::bytes::round_up;
use crate::error::{Error, Result};
use crate::model::Clip;

/// The size of an FMAA header (0.5 to 0.8).
pub(crate) const HEADER_SIZE: usize = 0x78;

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
        flags: if clip.looping == Some(true) { 4 } else { 0 },
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

/// The material named `name` in `materials`, added when absent.
fn material<'a>(materials: &'a mut Vec<MaterialAnim>, name: &str) -> Result<&'a mut MaterialAnim> {
    let index = match materials.iter().position(|m| m.name == name) {
        Some(i) => i,
        None => {
            materials.push(MaterialAnim {
                name: name.to_string(),
                begin_param_curve: 0xFFFF,
                begin_pattern_curve: 0xFFFF,
                begin_visibility_constant: 0xFFFF,
                visibility_curve: 0xFFFF,
                visibility_constant: 0xFFFF,
                params: Vec::new(),
                patterns: Vec::new(),
                curves: Vec::new(),
                constants: Vec::new(),
            });
            materials.len() - 1
        }
    };
    materials.get_mut(index).ok_or_else(|| Error::unrepresentable(format!("material \"{name}\" lost")))
}

/// A curve's baked size (see the module notes).
fn baked_size(c: &Curve) -> u32 {
    let n = ((c.end - c.start).max(0.0) as usize).saturating_add(1);
    let size = if c.is_float() { 4 * n + 28 } else { n * (key_size(c) / c.keys.len().max(1)).max(1) + 16 };
    u32::try_from(round_up(size, 8)).unwrap_or(u32::MAX)
}

/// Where the parts of a material's data lie (0 when absent).
struct MaterialParts {
    params: usize,
    patterns: usize,
    constants: usize,
    curves: usize,
    /// Per curve: frames and keys.
    data: Vec<(usize, usize)>,
}

/// Where the parts of an FMAA's data lie when laid out from `start`.
pub(crate) struct Layout {
    materials: usize,
    parts: Vec<MaterialParts>,
    /// Texture slots, names and bind array (0 without textures).
    textures: [usize; 3],
    pub end: usize,
}

/// `count` items of `size` bytes at the next multiple of 8 from `*at` (0 when `count` is 0).
fn array(at: &mut usize, count: usize, size: usize) -> usize {
    if count == 0 {
        return 0;
    }
    let start = round_up(*at, 8);
    *at = start + count * size;
    start
}

pub(crate) fn lay_out(anim: &Fmaa, start: usize) -> Result<Layout> {
    let mut at = start + 2 * anim.materials.len();
    let materials = array(&mut at, anim.materials.len(), 0x40);
    let mut parts = Vec::with_capacity(anim.materials.len());
    for m in &anim.materials {
        let params = array(&mut at, m.params.len(), 0x18);
        let patterns = array(&mut at, m.patterns.len(), 0x10);
        let constants = array(&mut at, m.constants.len(), 8);
        let curves = array(&mut at, m.curves.len(), 0x30);
        let mut data = Vec::with_capacity(m.curves.len());
        for c in &m.curves {
            let frames = round_up(at, 8);
            let keys = round_up(frames + frame_size(c), 8);
            at = keys + key_size(c);
            data.push((frames, keys));
        }
        parts.push(MaterialParts { params, patterns, constants, curves, data });
    }
    let n = anim.textures.len();
    let textures = [array(&mut at, n, 8), array(&mut at, n, 8), array(&mut at, n, 8)];
    if at > u32::MAX as usize {
        return Err(Error::unrepresentable("Switch FMAA data beyond 4 GiB"));
    }
    Ok(Layout { materials, parts, textures, end: at })
}

/// The position of string `s` in the string table.
fn name(strings: &HashMap<&str, usize>, s: &str) -> Result<usize> {
    strings.get(s).copied().ok_or_else(|| Error::unsupported(format!("name \"{s}\" is not in the string table")))
}

/// Writes an FMAA's data laid out from `start` (see the module notes); names are offsets into
/// `strings`. Returns the image and the layout.
pub(crate) fn write_data(anim: &Fmaa, start: usize, strings: &HashMap<&str, usize>) -> Result<(Image, Layout)> {
    let layout = lay_out(anim, start)?;
    let mut img = Image::new(start);
    img.put(start, &vec![0xFF; 2 * anim.materials.len()]);
    let (mut curve, mut param) = (0usize, 0usize);
    for (i, (m, parts)) in anim.materials.iter().zip(&layout.parts).enumerate() {
        let at = layout.materials + 0x40 * i;
        img.offset(at, name(strings, &m.name)?);
        for (k, target) in [parts.params, parts.patterns, parts.curves, parts.constants].into_iter().enumerate() {
            img.offset(at + 8 + 8 * k, target);
        }
        let param_curves = m.params.iter().map(|p| usize::from(p.float_curves + p.int_curves)).sum::<usize>();
        let first = |present: bool, index: usize| if present { index as u16 } else { 0xFFFF };
        let fields = [
            first(!m.params.is_empty(), curve),
            first(!m.patterns.is_empty(), curve + param_curves),
            first(!m.params.is_empty(), param),
            0xFFFF,
            0xFFFF,
            count(m.params.len())?,
            count(m.patterns.len())?,
            count(m.constants.len())?,
            count(m.curves.len())?,
        ];
        for (k, v) in fields.into_iter().enumerate() {
            img.put(at + 0x28 + 2 * k, &v.to_le_bytes());
        }
        curve += m.curves.len();
        param += m.params.len();
        write_infos(&mut img, m, parts, strings)?;
        for (j, (c, &(frames, keys))) in m.curves.iter().zip(&parts.data).enumerate() {
            write_curve(&mut img, parts.curves + 0x30 * j, c, frames, keys);
        }
    }
    let [slots, names, binds] = layout.textures;
    for (k, t) in anim.textures.iter().enumerate() {
        img.put(slots + 8 * k, &[0; 8]);
        img.offset(names + 8 * k, name(strings, t)?);
        img.put(binds + 8 * k, &(-1i64).to_le_bytes());
    }
    img.bytes.resize(layout.end - start, 0);
    Ok((img, layout))
}

fn count(n: usize) -> Result<u16> {
    u16::try_from(n).map_err(|_| Error::unrepresentable(format!("{n} entries in one FMAA material (at most 65535)")))
}

/// A material's parameter infos, pattern infos and constants.
fn write_infos(img: &mut Image, m: &MaterialAnim, parts: &MaterialParts, strings: &HashMap<&str, usize>) -> Result<()> {
    for (k, p) in m.params.iter().enumerate() {
        let at = parts.params + 0x18 * k;
        img.offset(at, name(strings, &p.name)?);
        for (j, v) in
            [p.begin_curve, p.float_curves, p.int_curves, p.begin_constant, p.constant_count, p.sub_bind_index]
                .into_iter()
                .enumerate()
        {
            img.put(at + 8 + 2 * j, &v.to_le_bytes());
        }
        img.put(at + 0x14, &[0; 4]);
    }
    for (k, p) in m.patterns.iter().enumerate() {
        let at = parts.patterns + 0x10 * k;
        img.offset(at, name(strings, &p.sampler)?);
        img.put(at + 8, &p.curve_index.to_le_bytes());
        img.put(at + 0xA, &p.begin_constant.to_le_bytes());
        img.put(at + 0xC, &[p.sub_bind_index as u8, 0, 0, 0]);
    }
    for (k, &(target, value)) in m.constants.iter().enumerate() {
        img.put(parts.constants + 8 * k, &target.to_le_bytes());
        img.put(parts.constants + 8 * k + 4, &value.to_le_bytes());
    }
    Ok(())
}

/// Writes the FMAA header at `at` for data laid out as `layout` from `start` (the path is the
/// empty string; the counts and the baked size are computed from the materials).
pub(crate) fn write_header(
    anim: &Fmaa,
    at: usize,
    start: usize,
    layout: &Layout,
    strings: &HashMap<&str, usize>,
) -> Result<Image> {
    let mut img = Image::new(at);
    img.put(at, b"FMAA");
    img.put(at + 4, &[0; 12]);
    img.offset(at + 0x10, name(strings, &anim.name)?);
    img.offset(at + 0x18, name(strings, "")?);
    img.offset(at + 0x20, 0);
    img.offset(at + 0x28, start);
    img.offset(at + 0x30, layout.materials);
    let [slots, names, binds] = layout.textures;
    for (field, target) in [(0x38, slots), (0x40, names), (0x48, 0), (0x50, 0), (0x58, binds)] {
        img.offset(at + field, target);
    }
    let params: usize = anim
        .materials
        .iter()
        .flat_map(|m| &m.params)
        .map(|p| usize::from(p.float_curves + p.int_curves + p.constant_count))
        .sum();
    let patterns: usize =
        anim.materials.iter().map(|m| m.patterns.len() + m.patterns.iter().filter(|p| p.curve_index < 0).count()).sum();
    let curves: usize = anim.materials.iter().map(|m| m.curves.len()).sum();
    for (k, v) in [anim.flags, 0, count(anim.materials.len())?, count(curves)?].into_iter().enumerate() {
        img.put(at + 0x60 + 2 * k, &v.to_le_bytes());
    }
    img.put(at + 0x68, &anim.frame_count.to_le_bytes());
    let baked = anim.materials.iter().flat_map(|m| &m.curves).map(baked_size).fold(0u32, u32::saturating_add);
    img.put(at + 0x6C, &baked.to_le_bytes());
    for (k, v) in [count(params)?, count(patterns)?, 0, count(anim.textures.len())?].into_iter().enumerate() {
        img.put(at + 0x70 + 2 * k, &v.to_le_bytes());
    }
    Ok(img)
}
