//! What a BFRES lists and its conversion to the model, one path for both platforms: a
//! [`Listing`] finds the subfiles of each [`Kind`] (Wii U: through the index groups; Switch:
//! through the (array, dict) pairs of the header), and every subfile is read by the reader its
//! kind has for both platforms ([`super::platform`]). For `info`, the frame → texture tables of
//! the FTXP.
//!
//! Switch: offsets are absolute `u64` (0 = null); the `_RLT` relocation table is not needed for
//! reading. Subfiles are found through their value arrays and named by their own name fields;
//! only the shape and scene animations are named through their `_DIC` ([`dict::read_switch`]:
//! `u32` magic, 0 in the files seen, `s32` count, then `count + 1` nodes of `{u32 ref;
//! u16 left; u16 right; u64 name}`, the first the root, no name). Versions 0.10 and later are
//! rejected (their header layout differs).
//!
//! FBVS (read by [`fvis::read`]; checked on Super Mario Odyssey's `MarioCapAnimation.bfres`, 21
//! of them): curves are Switch AnimCurves whose `target` is the entry index, step bool in every
//! retail file.

use super::bind::{self, ModelSkeleton};
use super::fmdl::{self, model_skeleton};
use super::fres::{self, entries, SwitchHeader, GROUP_NAMES};
use super::fska::{self, Fska};
use super::platform::{name_at, Platform};
use super::{dict, fmaa, fshu, ftxp, fvis, stored};
use crate::error::{Context, Error, Result};
use crate::format::Limits;
use crate::model::{Clip, Package, Track, Values};
use crate::sample::{sample_track, Sampled};

/// A kind of subfile a BFRES lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Models (FMDL), read for their skeletons.
    Model,
    /// Skeletal animations (FSKA).
    Skeletal,
    /// Wii U shader-parameter, colour or texture SRT animations (FSHU) of index group `.0`.
    Shader(usize, fshu::Kind),
    /// Wii U texture pattern animations (FTXP).
    TexturePattern,
    /// Wii U bone (index group 7) or material (8) visibility animations (FVIS).
    Visibility(usize),
    /// Switch material animations (FMAA).
    Material,
    /// Switch bone visibility animations (FBVS).
    BoneVisibility,
    /// Shape animations (FSHA), only named.
    Shape,
    /// Scene animations (FSCN), only named.
    Scene,
}

impl Kind {
    /// Where this kind is listed and what it is called: the Wii U index group; which of the
    /// Switch header's (array, dict) pairs and counts, with the size of one subfile header in
    /// its array (versions 0.5 to 0.8; 0.9 where it differs); what a modder calls one (Switch
    /// labels name subfiles by it).
    fn listed(self, p: Platform) -> (Option<usize>, Option<(usize, usize)>, &'static str) {
        let v9 = |a, b| if p.switch_0_9() { b } else { a };
        match self {
            Kind::Model => (Some(fres::G_FMDL), Some((0, 0x78)), "model"),
            Kind::Skeletal => (Some(fres::G_FSKA), Some((1, v9(0x60, 0x50))), "skeletal animation"),
            Kind::Shader(g, _) | Kind::Visibility(g) => (Some(g), None, "animation"),
            Kind::TexturePattern => (Some(fres::G_FTXP), None, "animation"),
            Kind::Material => (None, Some((2, fmaa::header_size(p))), "material animation"),
            Kind::BoneVisibility => (None, Some((3, v9(0x68, 0x60))), "bone visibility animation"),
            Kind::Shape => (Some(9), Some((4, 0)), "shape animation"),
            Kind::Scene => (Some(10), Some((5, 0)), "scene animation"),
        }
    }
}

/// How errors name a subfile, formatted only when one is: `FSKA "name"` (Wii U: its kind and
/// index-group name) or `skeletal animation 3` (Switch: its kind and place in the array).
#[derive(Debug, Clone)]
pub struct Label {
    what: &'static str,
    name: Option<String>,
    index: usize,
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.name {
            Some(name) => write!(f, "{} \"{name}\"", self.what),
            None => write!(f, "{} {}", self.what, self.index),
        }
    }
}

/// The file header that lists a BFRES's subfiles.
#[derive(Debug, Clone, Copy)]
pub enum Listing<'a> {
    /// A Wii U file: the index groups.
    WiiU(&'a fres::Header),
    /// A Switch file: the (array, dict) pairs and counts.
    Switch(&'a SwitchHeader),
}

impl Listing<'_> {
    /// The platform the subfiles are laid out for.
    pub fn platform(self) -> Platform {
        match self {
            Listing::WiiU(h) => Platform::WiiU { version: h.version },
            Listing::Switch(h) => Platform::Switch { major: h.major() },
        }
    }

    /// The kinds converted to clips after the skeletal animations, in clip order.
    fn clip_kinds(self) -> &'static [Kind] {
        match self {
            Listing::WiiU(_) => &[
                Kind::Shader(fres::G_FSHU_PARAM, fshu::Kind::ShaderParam),
                Kind::Shader(fres::G_FSHU_COLOUR, fshu::Kind::Colour),
                Kind::Shader(fres::G_FSHU_SRT, fshu::Kind::TextureSrt),
                Kind::TexturePattern,
                Kind::Visibility(fres::G_FVIS_BONE),
                Kind::Visibility(fres::G_FVIS_MAT),
            ],
            Listing::Switch(_) => &[Kind::Material, Kind::BoneVisibility],
        }
    }

    /// The number of subfiles of `kind` the header counts.
    pub fn count(self, kind: Kind) -> u16 {
        let (group, slot, _) = kind.listed(self.platform());
        let n = match self {
            Listing::WiiU(h) => group.and_then(|g| h.counts.get(g)),
            Listing::Switch(h) => slot.and_then(|s| h.stored.counts.get(s.0)),
        };
        n.copied().unwrap_or(0)
    }

    /// The Switch array (`which` 0) or dict (1) of `kind`, and the count of its entries; `None`
    /// when there are none. The header keeps (array, dict) pairs from `0x28` on, 16 bytes
    /// apart, those after the models' 32 bytes later from 0.9; a null offset, or one outside
    /// the file, is an error at its field.
    fn switch_at(self, data: &[u8], kind: Kind, which: usize) -> Result<Option<(usize, usize)>> {
        let (Listing::Switch(h), count) = (self, usize::from(self.count(kind))) else { return Ok(None) };
        let (_, slot, noun) = kind.listed(self.platform());
        let Some((slot, _)) = slot.filter(|_| count > 0) else { return Ok(None) };
        let s = &h.stored;
        let pairs = [
            s.models,
            s.skeletal_animations,
            s.material_animations,
            s.bone_visibility_animations,
            s.shape_animations,
            s.scene_animations,
        ];
        let v9 = if h.major() >= 9 && slot > 0 { 0x20 } else { 0 };
        let field = v9 + 0x28 + 0x10 * slot + 8 * which;
        let v = pairs.get(slot).and_then(|p| p.get(which)).copied().unwrap_or(0);
        let what = if which == 0 { "array" } else { "dict" };
        let at = usize::try_from(v)
            .ok()
            .filter(|&a| a != 0 && a < data.len())
            .ok_or_else(|| Error::invalid(field, format!("{noun} {what} offset {v:#x} is null or outside the file")))?;
        Ok(Some((at, count)))
    }

    /// Every subfile of `kind` in storage order: a label for errors (Wii U `FSKA "name"`, from
    /// the index group; Switch `skeletal animation 3`) and its position.
    pub fn subfiles(self, data: &[u8], kind: Kind) -> Result<Vec<(Label, usize)>> {
        let (p, (group, slot, noun)) = (self.platform(), kind.listed(self.platform()));
        if let (Listing::WiiU(h), Some(g)) = (self, group) {
            let what = GROUP_NAMES.get(g).unwrap_or(&"group");
            let list = entries(data, h, g)?.into_iter().enumerate();
            return Ok(list.map(|(index, (name, at))| (Label { what, name: Some(name), index }, at)).collect());
        }
        let (Some((array, count)), Some((_, size))) = (self.switch_at(data, kind, 0)?, slot) else {
            return Ok(Vec::new());
        };
        let list = p.records(data, (0, Some(array)), count, size, noun, |c| Ok(c.offset()))?;
        Ok(list.into_iter().enumerate().map(|(index, at)| (Label { what: noun, name: None, index }, at)).collect())
    }

    /// The names of the subfiles of `kind` from their index group (Wii U) or dict (Switch).
    pub fn names(self, data: &[u8], kind: Kind) -> Result<Vec<String>> {
        let (group, _, noun) = kind.listed(self.platform());
        if let (Listing::WiiU(h), Some(g)) = (self, group) {
            return Ok(entries(data, h, g)?.into_iter().map(|e| e.0).collect());
        }
        let Some((dict, count)) = self.switch_at(data, kind, 1)? else { return Ok(Vec::new()) };
        let (_, names) = dict::read_switch(data, dict).within(|| format!("{noun} dict"))?;
        if names.len() != count {
            let stored = names.len();
            return Err(Error::invalid(dict + 4, format!("dict holds {stored} entries, the header counts {count}")));
        }
        Ok(names)
    }

    /// The file's name.
    fn name(self, data: &[u8]) -> String {
        match self {
            Listing::WiiU(h) if h.name != 0 => name_at(data, 0x14 + i64::from(h.name)).unwrap_or_default(),
            Listing::WiiU(_) => String::new(),
            Listing::Switch(h) => h.name.clone(),
        }
    }

    /// Every FSKA, in storage order.
    pub fn fskas(self, data: &[u8]) -> Result<Vec<Fska>> {
        let p = self.platform();
        let list = self.subfiles(data, Kind::Skeletal)?.into_iter();
        list.map(|(label, at)| fska::read(data, at, p).within(|| label.to_string())).collect()
    }

    /// Every model with a skeleton of at least one bone, in storage order ([`super::fskl`]);
    /// Wii U models are named as in their index group.
    pub fn skeletons(self, data: &[u8]) -> Result<Vec<ModelSkeleton>> {
        if let Listing::WiiU(h) = self {
            return fmdl::skeletons(data, h);
        }
        let mut out = Vec::new();
        for (label, at) in self.subfiles(data, Kind::Model)? {
            out.extend(model_skeleton(data, at, self.platform(), None).within(|| label.to_string())?);
        }
        Ok(out)
    }

    /// Which model's skeleton the FSKA bind to, and why ([`bind::bind`], `model` forcing the
    /// choice).
    pub fn binding(self, data: &[u8], model: Option<&str>) -> Result<Option<bind::Binding>> {
        Ok(bind::bind(self.skeletons(data)?, &self.fskas(data)?, model)?.map(|b| b.0))
    }
}

/// Converts every animation subfile to a clip at `fps`, and the skeleton the FSKA bind to
/// ([`bind::bind`], `model` forcing the choice) to the package's skeleton. Clip order: FSKA,
/// then on Wii U FSHU (param, colour, SRT), FTXP, FVIS (bone, material), on Switch FMAA, FBVS.
/// From Wii U 3.4 a clip read from an FSKA or FSHU remembers its subfile (`stored`), so what a
/// conversion leaves unchanged is written as read.
pub fn to_model(data: &[u8], listing: Listing, fps: f32, limits: &Limits, model: Option<&str>) -> Result<Package> {
    let p = listing.platform();
    let remember = !p.is_switch() && p.since_3_4();
    let mut package = Package { name: listing.name(data), ..Default::default() };
    let fskas = listing.fskas(data)?;
    package.skeleton = bind::bind(listing.skeletons(data)?, &fskas, model)?.map(|b| b.1);
    let noun = if p.is_switch() { Kind::Skeletal.listed(p).2 } else { "FSKA" };
    for anim in fskas {
        let mut clip = fska::to_clip(&anim, fps, limits).within(|| format!("{noun} \"{}\"", anim.name))?;
        if remember {
            stored::remember(&mut clip, anim, fps);
        }
        package.clips.push(clip);
    }
    for &kind in listing.clip_kinds() {
        for (label, at) in listing.subfiles(data, kind)? {
            package.clips.push(clip(data, at, kind, p, fps, limits, remember).within(|| label.to_string())?);
        }
    }
    Ok(package)
}

/// The clip of the subfile of `kind` at `at` (FSHU remembered when `remember`).
fn clip(data: &[u8], at: usize, kind: Kind, p: Platform, fps: f32, limits: &Limits, remember: bool) -> Result<Clip> {
    match kind {
        Kind::Shader(g, shader) => {
            let anim = fshu::read(data, at, p)?;
            let mut clip = fshu::to_clip(&anim, shader, fps, limits)?;
            if remember {
                stored::remember(&mut clip, (g, anim), fps);
            }
            Ok(clip)
        }
        Kind::TexturePattern => ftxp::to_clip(&ftxp::read(data, at, p)?, fps),
        Kind::Visibility(_) | Kind::BoneVisibility => fvis::to_clip(&fvis::read(data, at, p)?, fps),
        Kind::Material => fmaa::to_clip(&fmaa::read(data, at, p)?, fps, limits),
        _ => Err(Error::unsupported(format!("a {} is not converted on its own", kind.listed(p).2))),
    }
}

/// For `info`: each FTXP material sampler's frame → texture-name table, as runs of integer
/// frames (`0–9 Bass_Alb.0, 10–19 Bass_Alb.1…`), evaluated through the model (step ints); an
/// FTXP that does not read gives its error instead.
pub fn texture_tables(data: &[u8], listing: Listing) -> Vec<String> {
    let Ok(list) = listing.subfiles(data, Kind::TexturePattern) else { return Vec::new() };
    let mut out = Vec::new();
    for (label, at) in list {
        let read = ftxp::read(data, at, listing.platform());
        let table = read.and_then(|anim| Ok((ftxp::to_clip(&anim, 30.0)?, anim.frame_count)));
        let (clip, frames) = match table {
            Ok(t) => t,
            Err(e) => {
                out.push(format!("{label}: {e}"));
                continue;
            }
        };
        let frames = frames.max(0) as u32;
        let looping = clip.looping == Some(true);
        for track in &clip.tracks {
            let Some(cells) = texture_runs(track, frames, looping) else { continue };
            out.push(format!(
                "FTXP \"{}\" {} (frameCount {frames}{}): frame → texture: {cells}",
                clip.name,
                track.target.label(),
                if looping { ", looping" } else { "" },
            ));
        }
    }
    out
}

/// A texture-index track sampled at every integer frame of `0..=frames` (the end frame is a
/// key, §3.4; a loop ends before it), as runs `a–b name` joined by commas; `None` for other
/// tracks.
fn texture_runs(track: &Track, frames: u32, looping: bool) -> Option<String> {
    let Values::TextureIndex { textures, .. } = &track.values else { return None };
    let mut runs: Vec<(u32, u32, String)> = Vec::new();
    let last = if looping { frames.saturating_sub(1) } else { frames };
    for f in 0..=last.min(100_000) {
        let Some(Sampled::TextureIndex(i)) = sample_track(track, f as f32 / 30.0) else { continue };
        let tex = textures.get(i as usize).cloned().unwrap_or_else(|| format!("#{i}"));
        match runs.last_mut() {
            Some(r) if r.2 == tex => r.1 = f,
            _ => runs.push((f, f, tex)),
        }
    }
    let cells: Vec<String> =
        runs.iter().map(|(a, b, t)| if a == b { format!("{a} {t}") } else { format!("{a}–{b} {t}") }).collect();
    Some(cells.join(", "))
}
