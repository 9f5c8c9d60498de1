//! What a Wii U BFRES holds, converted to the model (the Switch counterpart is
//! [`super::switch_anims`]): every animation subfile its index groups list, the skeleton the
//! FSKA bind to, and for `info` the frame → texture tables of the FTXP.

use super::fres::{self, entries, Header, GROUP_NAMES};
use super::platform::{name_at, Platform};
use super::{bind, fmdl, fshu, fska, ftxp, fvis, stored};
use crate::error::{Context, Result};
use crate::format::Limits;
use crate::model::{Package, Track, Values};
use crate::sample::{sample_track, Sampled};

/// `FSKA "name"`: the group's kind and the entry's name, for errors.
fn label(g: usize, name: &str) -> String {
    format!("{} \"{name}\"", GROUP_NAMES.get(g).unwrap_or(&"group"))
}

/// Converts every animation subfile to a clip at `fps`, and the skeleton the FSKA bind to
/// ([`bind::bind`], `model` forcing the choice) to the package's skeleton. Clip order: FSKA,
/// FSHU (param, colour, SRT), FTXP, FVIS (bone, material). From 3.4 a clip read from an FSKA or
/// FSHU remembers its subfile (`stored`), so what a conversion leaves unchanged is written as read.
pub fn to_model(data: &[u8], header: &Header, fps: f32, limits: &Limits, model: Option<&str>) -> Result<Package> {
    let wiiu = Platform::WiiU { version: header.version };
    let remember = wiiu.since_3_4();
    let mut package = Package { name: String::new(), ..Default::default() };
    if header.name != 0 {
        package.name = name_at(data, 0x14 + i64::from(header.name)).unwrap_or_default();
    }
    let fskas = read_fskas(data, header)?;
    package.skeleton = bind::bind(fmdl::skeletons(data, header)?, &fskas, model)?.map(|b| b.1);
    for anim in fskas {
        let mut clip = fska::to_clip(&anim, fps, limits).within(|| label(fres::G_FSKA, &anim.name))?;
        if remember {
            stored::remember(&mut clip, anim, fps);
        }
        package.clips.push(clip);
    }
    let fshu_groups = [(fres::G_FSHU_PARAM, fshu::Kind::ShaderParam), (4, fshu::Kind::Colour)];
    for (g, kind) in fshu_groups.into_iter().chain([(fres::G_FSHU_SRT, fshu::Kind::TextureSrt)]) {
        for (name, at) in entries(data, header, g)? {
            let anim = fshu::read(data, at, wiiu).within(|| label(g, &name))?;
            let mut clip = fshu::to_clip(&anim, kind, fps, limits).within(|| label(g, &name))?;
            if remember {
                stored::remember(&mut clip, (g, anim), fps);
            }
            package.clips.push(clip);
        }
    }
    for (name, at) in entries(data, header, fres::G_FTXP)? {
        let clip = ftxp::read(data, at, wiiu).and_then(|anim| ftxp::to_clip(&anim, fps));
        package.clips.push(clip.within(|| label(fres::G_FTXP, &name))?);
    }
    for g in [fres::G_FVIS_BONE, fres::G_FVIS_MAT] {
        for (name, at) in entries(data, header, g)? {
            let clip = fvis::read(data, at, wiiu).and_then(|anim| fvis::to_clip(&anim, fps));
            package.clips.push(clip.within(|| label(g, &name))?);
        }
    }
    Ok(package)
}

/// Every FSKA of a Wii U file, in storage order.
pub fn read_fskas(data: &[u8], header: &Header) -> Result<Vec<fska::Fska>> {
    let wiiu = Platform::WiiU { version: header.version };
    let list = entries(data, header, fres::G_FSKA)?.into_iter();
    list.map(|(name, at)| fska::read(data, at, wiiu).within(|| label(fres::G_FSKA, &name))).collect()
}

/// For `info`: each FTXP material sampler's frame → texture-name table, as runs of integer
/// frames (`0–9 Bass_Alb.0, 10–19 Bass_Alb.1…`), evaluated through the model (step ints); an
/// FTXP that does not read gives its error instead.
pub fn texture_tables(data: &[u8], header: &Header) -> Vec<String> {
    let wiiu = Platform::WiiU { version: header.version };
    let Ok(list) = entries(data, header, fres::G_FTXP) else { return Vec::new() };
    let mut out = Vec::new();
    for (name, at) in list {
        let table = ftxp::read(data, at, wiiu).and_then(|anim| Ok((ftxp::to_clip(&anim, 30.0)?, anim.frame_count)));
        let (clip, frames) = match table {
            Ok(t) => t,
            Err(e) => {
                out.push(format!("FTXP \"{name}\": {e}"));
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
