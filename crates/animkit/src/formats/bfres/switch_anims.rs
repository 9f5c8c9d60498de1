//! What a Switch BFRES holds and where (the readers of each structure serve both platforms,
//! [`super::platform`]): the subfile arrays the header points at, the models' skeletons, the
//! conversion of every FSKA, FMAA and FBVS to the model, and the names of the shape (FSHA) and
//! scene (FSCN) animations, which the model does not carry.
//!
//! Offsets are absolute `u64` (0 = null); the `_RLT` relocation table is not needed for reading.
//! Subfiles are found through their value arrays and named by their own name fields; only the
//! shape and scene animations are named through their `_DIC`. Versions 0.10 and later are
//! rejected (their header layout differs).
//!
//! Where the FRES header keeps their (array, dict) `u64` pairs and counts: [`Header`].
//!
//! FBVS (read by [`fvis::read`]; checked on Super Mario Odyssey's `MarioCapAnimation.bfres`, 21
//! of them): curves are Switch AnimCurves whose `target` is the entry index, step bool in every
//! retail file.
//!
//! `_DIC` (dict) layout: `u32` magic (0 in the files seen), `s32` count, then `count + 1` nodes
//! of `{u32 ref; u16 left; u16 right; u64 name}`, the first the root (no name).

use super::bind::{self, ModelSkeleton};
use super::dict;
use super::fmaa;
use super::fmdl::model_skeleton;
use super::fres::SwitchHeader as Header;
use super::fska::{self, Fska};
use super::fvis;
use super::platform::Platform;
use crate::error::{Context, Error, Result};
use crate::format::Limits;
use crate::model::Package;

/// The kinds of animation the header keeps (array, dict) pairs for beyond FSKA and FMAA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// FBVS.
    BoneVisibility,
    /// FSHA.
    Shape,
    /// FSCN.
    Scene,
}

impl Kind {
    /// Where the header keeps the (array, dict) pair (`0x58`, `0x68`, `0x78`; 32 bytes later from
    /// 0.9), and the pair as read.
    fn header_field(self, header: &Header) -> (usize, [u64; 2]) {
        let v9 = if header.major() >= 9 { 0x20 } else { 0 };
        let h = &header.stored;
        match self {
            Kind::BoneVisibility => (v9 + 0x58, h.bone_visibility_animations),
            Kind::Shape => (v9 + 0x68, h.shape_animations),
            Kind::Scene => (v9 + 0x78, h.scene_animations),
        }
    }

    fn count(self, header: &Header) -> u16 {
        match self {
            Kind::BoneVisibility => header.bone_visibility_count,
            Kind::Shape => header.shape_anim_count,
            Kind::Scene => header.scene_anim_count,
        }
    }

    /// What a modder calls it, in the plural.
    pub fn plural(self) -> &'static str {
        match self {
            Kind::BoneVisibility => "bone visibility animations",
            Kind::Shape => "shape animations",
            Kind::Scene => "scene animations",
        }
    }
}

/// The platform of a Switch file.
pub fn platform(header: &Header) -> Platform {
    Platform::Switch { major: header.major() }
}

/// The subfile headers of one group: `count` consecutive structures of `size` bytes at `array`.
fn group(data: &[u8], header: &Header, array: u64, count: u16, size: usize, what: &str) -> Result<Vec<usize>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let at = usize::try_from(array)
        .ok()
        .filter(|&a| a != 0 && a < data.len())
        .ok_or_else(|| Error::invalid(0, format!("{what} array offset {array:#x} is null or outside the file")))?;
    platform(header).records(data, (0, Some(at)), count.into(), size, what, |c| Ok(c.offset()))
}

/// The position of every FSKA header, in storage order.
pub fn fska_offsets(data: &[u8], header: &Header) -> Result<Vec<usize>> {
    let size = if header.major() >= 9 { 0x50 } else { 0x60 };
    group(data, header, header.fska.0, header.fska.2, size, "skeletal animation")
}

/// The position of every FMAA header, in storage order.
pub fn fmaa_offsets(data: &[u8], header: &Header) -> Result<Vec<usize>> {
    group(data, header, header.fmaa.0, header.fmaa.2, fmaa::header_size(platform(header)), "material animation")
}

/// The position of every FMDL header (`0x78` bytes, 0.5 to 0.9), in storage order.
pub fn model_offsets(data: &[u8], header: &Header) -> Result<Vec<usize>> {
    group(data, header, header.model_array, header.model_count, 0x78, "model")
}

/// The position of every FBVS header (`0x68` bytes, `0x60` from 0.9), in storage order.
pub fn fbvs_offsets(data: &[u8], header: &Header) -> Result<Vec<usize>> {
    let (_, [array, _]) = Kind::BoneVisibility.header_field(header);
    let size = if header.major() >= 9 { 0x60 } else { 0x68 };
    group(data, header, array, header.bone_visibility_count, size, "bone visibility animation")
}

/// Every FSKA of the file, in storage order.
pub fn read_fskas(data: &[u8], header: &Header) -> Result<Vec<Fska>> {
    let p = platform(header);
    let list = fska_offsets(data, header)?.into_iter().enumerate();
    list.map(|(i, at)| fska::read(data, at, p).within(|| format!("skeletal animation {i}"))).collect()
}

/// Every FMAA of the file, in storage order.
pub fn read_fmaas(data: &[u8], header: &Header) -> Result<Vec<fmaa::Fmaa>> {
    let p = platform(header);
    let list = fmaa_offsets(data, header)?.into_iter().enumerate();
    list.map(|(i, at)| fmaa::read(data, at, p).within(|| format!("material animation {i}"))).collect()
}

/// Every model with a skeleton of at least one bone, in storage order ([`super::fskl`]).
pub fn skeletons(data: &[u8], header: &Header) -> Result<Vec<ModelSkeleton>> {
    let mut out = Vec::new();
    for (i, at) in model_offsets(data, header)?.into_iter().enumerate() {
        out.extend(model_skeleton(data, at, platform(header), None).within(|| format!("model {i}"))?);
    }
    Ok(out)
}

/// Converts every FSKA, FMAA and FBVS of a Switch file to clips, in that order, at `fps`, and
/// the skeleton they bind to ([`bind::bind`], `model` forcing the choice) to the package's.
pub fn to_model(data: &[u8], header: &Header, fps: f32, limits: &Limits, model: Option<&str>) -> Result<Package> {
    let mut package = Package { name: header.name.clone(), ..Default::default() };
    let fskas = read_fskas(data, header)?;
    package.skeleton = bind::bind(skeletons(data, header)?, &fskas, model)?.map(|b| b.1);
    for anim in &fskas {
        let clip = fska::to_clip(anim, fps, limits).within(|| format!("skeletal animation \"{}\"", anim.name))?;
        package.clips.push(clip);
    }
    for anim in read_fmaas(data, header)? {
        let clip = fmaa::to_clip(&anim, fps, limits).within(|| format!("material animation \"{}\"", anim.name))?;
        package.clips.push(clip);
    }
    for (i, at) in fbvs_offsets(data, header)?.into_iter().enumerate() {
        let anim = fvis::read(data, at, platform(header)).within(|| format!("bone visibility animation {i}"))?;
        let clip = fvis::to_clip(&anim, fps).within(|| format!("bone visibility animation \"{}\"", anim.name))?;
        package.clips.push(clip);
    }
    Ok(package)
}

/// The names of the animations of `kind`, from their dict ([`dict::read_switch`]).
pub fn names(data: &[u8], header: &Header, kind: Kind) -> Result<Vec<String>> {
    let count = usize::from(kind.count(header));
    if count == 0 {
        return Ok(Vec::new());
    }
    let (field, [_, dict]) = kind.header_field(header);
    let dict = usize::try_from(dict)
        .ok()
        .filter(|&d| d != 0 && d < data.len())
        .ok_or_else(|| Error::invalid(field + 8, format!("dict offset {dict:#x} is null or outside the file")))?;
    let (_, names) = dict::read_switch(data, dict).within(|| format!("{} dict", kind.plural()))?;
    if names.len() != count {
        let stored = names.len();
        return Err(Error::invalid(dict + 4, format!("dict holds {stored} entries, the header counts {count}")));
    }
    Ok(names)
}

/// The shape and scene animations, by name: one line per kind with its count, for the
/// conversion's warnings of what the model does not carry.
pub fn not_in_model(data: &[u8], header: &Header) -> Vec<String> {
    [Kind::Shape, Kind::Scene]
        .into_iter()
        .filter(|&k| k.count(header) > 0)
        .map(|k| match names(data, header, k) {
            Ok(names) => super::not_carried::named_line(k.plural(), &names),
            Err(e) => format!("{} {}: their names do not read ({e})", k.count(header), k.plural()),
        })
        .collect()
}
