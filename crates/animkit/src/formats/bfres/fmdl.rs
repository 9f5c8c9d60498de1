//! What the model does not carry from a BFRES: models (FMDL) beyond their skeleton, textures and
//! embedded files (shape and scene animations: [`super::not_carried`]). Converting a BFRES to any file (BFRES included)
//! drops them, so [`unconverted`] names them with counts for the conversion's warnings.
//!
//! FMDL (not in the spec; checked on the corpus): `0C off FSKL; 20 u16 vertexBufferCount;
//! 22 u16 shapeCount; 24 u16 materialCount`; FSKL `08 u16 boneCount`.

use super::bind::ModelSkeleton;
use super::fres::{entries, Header, G_EMBEDDED, G_FMDL};
use super::fskl;
use super::platform::Platform;
use crate::error::{Context, Error, Result};

/// Every model with a skeleton of at least one bone, in storage order, named as in the FMDL
/// index group.
pub fn skeletons(data: &[u8], header: &Header) -> Result<Vec<ModelSkeleton>> {
    let platform = Platform::WiiU { version: header.version };
    let mut out = Vec::new();
    for (model, at) in entries(data, header, G_FMDL)? {
        out.extend(model_skeleton(data, at, platform, Some(model))?);
    }
    Ok(out)
}

/// The skeleton of the model at `at` when it has at least one bone, named `name` (by default
/// the model's own name).
pub fn model_skeleton(
    data: &[u8],
    at: usize,
    platform: Platform,
    name: Option<String>,
) -> Result<Option<ModelSkeleton>> {
    let (own, fskl) = fskl::read_model(data, at, platform).within(|| format!("model at {at:#x}"))?;
    let model = name.unwrap_or(own);
    let Some(fskl) = fskl.filter(|s| !s.bones.is_empty()) else { return Ok(None) };
    Ok(Some(ModelSkeleton { skeleton: fskl.to_skeleton().within(|| format!("model \"{model}\""))?, model }))
}

/// The bone, shape and material counts of the FMDL at `at`.
pub fn counts(data: &[u8], at: usize) -> Result<(u64, u64, u64)> {
    let wiiu = Platform::WiiU { version: 0x0304_0000 };
    let mut c = wiiu.cursor(data, at)?;
    if c.array::<4>()? != *b"FMDL" {
        return Err(Error::invalid(at, "not an FMDL"));
    }
    c.skip(8)?;
    let skeleton = wiiu.offset(&mut c, "skeleton")?;
    c.seek(at + 0x22)?;
    let shapes = c.u16()?;
    let materials = c.u16()?;
    let bones = match skeleton {
        Some(s) => {
            c.seek(s + 8)?;
            c.u16()?
        }
        None => 0,
    };
    Ok((bones.into(), shapes.into(), materials.into()))
}

/// The parts of the file the model does not carry, as one sentence, or `None` when the model
/// holds everything but the skeleton's own FMDL (an animation file's model "Skeleton" without
/// shapes or materials is carried as the package skeleton).
pub fn unconverted(data: &[u8], header: &Header) -> Result<Option<String>> {
    let models = entries(data, header, G_FMDL)?;
    let mut parts = Vec::new();
    let (mut bones, mut shapes, mut materials) = (0, 0, 0);
    for (_, at) in &models {
        let (b, s, m) = counts(data, *at)?;
        (bones, shapes, materials) = (bones + b, shapes + s, materials + m);
    }
    if shapes + materials > 0 || models.len() > 1 {
        let n = models.len();
        parts.push(format!(
            "{n} model{} ({bones} bones, {shapes} shapes, {materials} materials)",
            if n == 1 { "" } else { "s" }
        ));
    }
    for (g, what) in [(1, "texture"), (G_EMBEDDED, "embedded file")] {
        let n = header.counts.get(g).copied().unwrap_or(0);
        if n > 0 {
            parts.push(format!("{n} {what}{}", if n == 1 { "" } else { "s" }));
        }
    }
    Ok((!parts.is_empty()).then(|| {
        format!(
            "{} not carried into the model: a converted file drops them (use `animkit replace` to change animations inside the original file)",
            parts.join(", ")
        )
    }))
}
