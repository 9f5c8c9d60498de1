//! Heavy Iron EvilEngine: SKB `ANIM` assets (`skb`) and HIP/HOP archives (`hip`).
//!
//! Spec: `shared/formats/evilengine.md`. Layers: [`skb`] (exact V1/V2 raw layer, either byte
//! order), [`model`] (to the model, and the game's evaluator on raw keys), [`build`] (from the
//! model, canonical), [`dump`] (lossless JSON), [`lint`] (invariants C2–C10, repair), [`hip`]
//! (the archive's block tree, byte-exact).
//!
//! V1 or V2: nothing in an asset says which. A loose `.anm` is read with the `skb_version` read
//! parameter (`1`/`2`) when given, else both layouts are tried and the one whose size matches
//! and that passes C4–C9 wins; when neither or both pass the reader stops and asks for the
//! parameter. Inside an archive the game detected from PVER/PFLG/PCRT decides (§5.6). `info`
//! shows how it was decided.
//!
//! Skeletons: `hip` reads the HAnim hierarchy of every skinned `MODL` ([`rwskel`]) and binds
//! clips to a model by name (`spongebob_*` ↔ `spongebob_bind.dff`, longest prefix wins). The
//! package skeleton is the model that binds the most clips (or the `model=NAME` read parameter,
//! which also keeps only that model's clips; `model=none` for none). Clips of other characters
//! keep index-only bone references. Bone-count mismatches are reported in `info`, never fatal.
//! `Document::packages` splits the archive by character instead: one package per skinned MODL
//! with the clips it binds (named after its prefix), plus `unbound` for the rest, so `convert
//! boot.HIP -o out/ --to glb` writes `boot_spongebob.glb`… each bound to its own skeleton
//! (BFBB boot.HIP: spongebob 109, sb_tongue 7, teleportation_box 7, cruise_bubble 2, sb_ball 2;
//! none unbound). A standalone `.dff` (as `extract` writes MODL assets) is the [`dff`] format,
//! a skeleton source for `convert clip.anm --skeleton model.dff`.
//!
//! Observed in the corpus (BFBB GameCube `boot.HIP`, 127 ANIM / 56 MODL; `b101.HIP`, no ANIM),
//! all consistent with the spec: every ANIM is V1 big-endian with Flags 0 and satisfies C3–C10;
//! 7 carry 2 bytes of `CD` padding, 5 are dense; the ANIM asset ID is the hash of the source
//! file's base name for all 127; re-packing the stream with unchanged data reproduces the archive
//! byte for byte (so the §5.5 layout rules hold, including padLength); for every skinned model
//! `numFrames = numNodes + 1` and PUSH/POP parents equal the FrameList parents; at t = 0,
//! 2,635 of 4,545 SpongeBob non-root bone translations lie within 1e-3 of the bind pose.

pub mod build;
pub mod dff;
pub mod dump;
pub mod hip;
pub mod lint;
pub mod model;
pub mod rwskel;
pub mod skb;

use bytes::Bytes;

use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};
use crate::format::Repaired;
use crate::formats::Param;
use crate::formats::{Capabilities, Confidence, Document, Entry, Format, Limits, ReadOptions, WriteOptions, Written};
use crate::lint::Finding;
use crate::model::Package;
use skb::{Decided, Skb, SkbVersion};

/// Parses the `skb_version` parameter (`1`, `2`, `v1`, `v2`).
pub fn version_param(params: &std::collections::BTreeMap<String, String>) -> Result<Option<SkbVersion>> {
    match params.get("skb_version").map(|s| s.to_ascii_lowercase()) {
        None => Ok(None),
        Some(v) if v == "1" || v == "v1" => Ok(Some(SkbVersion::V1)),
        Some(v) if v == "2" || v == "v2" => Ok(Some(SkbVersion::V2)),
        Some(v) => Err(Error::unsupported(format!("skb_version={v}: expected 1 or 2"))),
    }
}

/// The `skb_version` read parameter, for SKB and HIP.
const SKB_VERSION: Param = Param {
    key: "skb_version",
    values: "1|2",
    description: "read SKB animations as this version instead of deciding from their data",
};

/// A standalone SKB animation (`ANIM` asset, `.anm`).
pub struct SkbFormat;

impl Format for SkbFormat {
    fn name(&self) -> &'static str {
        "skb"
    }

    fn description(&self) -> &'static str {
        "EvilEngine ANIM assets (SKB1 V1/V2, big- or little-endian), as extracted from HIP/HOP"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["anm"]
    }

    fn variants(&self) -> &'static [&'static str] {
        &["skb-be", "skb-le", "skb-v2-be", "skb-v2-le"]
    }

    fn read_params(&self) -> &'static [Param] {
        &[SKB_VERSION]
    }

    fn write_params(&self) -> &'static [Param] {
        &[Param { key: "clip", values: "NAME", description: "the clip to write when the package has several" }]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: true, dump: true, archive: false, skeleton: false }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        if skb::detect_endian(bytes).is_some() && bytes.len() >= skb::HEADER_SIZE {
            Confidence::Certain
        } else {
            Confidence::No
        }
    }

    fn explain_reject(&self, bytes: &[u8]) -> Option<String> {
        if bytes.len() < skb::HEADER_SIZE {
            Some(format!("{} bytes is shorter than the 28-byte header", bytes.len()))
        } else {
            Some("the magic is neither \"1BKS\" (big-endian) nor \"SKB1\" (little-endian)".into())
        }
    }

    fn read(&self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let (skb, decided) = skb::read(&bytes, version_param(&options.params)?)?;
        Ok(Box::new(SkbDocument { skb, decided, limits: options.limits }))
    }

    fn from_model(&self, package: &Package, options: &WriteOptions) -> Result<Written> {
        let (version, endian) = match options.variant.as_deref() {
            None | Some("skb") | Some("skb-be") => (SkbVersion::V1, Endian::Big),
            Some("skb-le") => (SkbVersion::V1, Endian::Little),
            Some("skb-v2-be") => (SkbVersion::V2, Endian::Big),
            Some("skb-v2-le") => (SkbVersion::V2, Endian::Little),
            Some(v) => return Err(Error::unsupported(format!("unknown SKB variant \"{v}\""))),
        };
        let clip = match package.clips.as_slice() {
            [] => return Err(Error::unrepresentable("the package has no clip")),
            [clip] => clip,
            [first, ..] => match options.param("clip") {
                Some(name) => {
                    package.clip(name).ok_or_else(|| Error::unrepresentable(format!("no clip \"{name}\"")))?
                }
                None => {
                    return Err(Error::unrepresentable(format!(
                        "an SKB file holds one animation; the package has {} (first \"{}\"): name one with clip=NAME",
                        package.clips.len(),
                        first.name
                    )))
                }
            },
        };
        let mut warnings = Vec::new();
        let skb =
            build::from_clip(clip, package.skeleton.as_ref(), build::BuildOptions { version, endian }, &mut warnings)
                .map_err(|e| e.within(format!("clip \"{}\"", clip.name)))?;
        Ok(Written { document: Box::new(SkbDocument::new(skb)), warnings })
    }

    fn undump(&self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let d: dump::SkbDump = serde_json::from_value(value)
            .map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()).within("SKB dump"))?;
        Ok(Box::new(SkbDocument::new(dump::from_dump(d)?)))
    }
}

/// A parsed SKB animation.
pub struct SkbDocument {
    pub skb: Skb,
    pub decided: Decided,
    limits: Limits,
}

impl SkbDocument {
    pub fn new(skb: Skb) -> Self {
        SkbDocument { skb, decided: Decided::Option, limits: Limits::default() }
    }
}

fn endian_label(e: Endian) -> &'static str {
    match e {
        Endian::Big => "big-endian",
        Endian::Little => "little-endian",
    }
}

impl Document for SkbDocument {
    fn format(&self) -> &'static dyn Format {
        &SkbFormat
    }

    fn version(&self) -> String {
        format!("{} {}", self.skb.version().label(), endian_label(self.skb.endian))
    }

    fn write(&self) -> Result<Vec<u8>> {
        skb::check_counts(&self.skb)?;
        Ok(skb::write(&self.skb))
    }

    fn to_model(&self) -> Result<Package> {
        let clip = model::to_clip(&self.skb, "anim", None, &self.limits)?;
        Ok(Package { name: String::new(), clips: vec![clip], ..Default::default() })
    }

    fn dump(&self) -> Result<serde_json::Value> {
        serde_json::to_value(dump::to_dump(&self.skb)).map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()))
    }

    fn lint(&self) -> Vec<Finding> {
        lint::lint_skb(&self.skb)
    }

    fn repair(&self) -> Result<Repaired> {
        let (skb, changes) = lint::repair_skb(&self.skb);
        Ok(Repaired { document: Box::new(SkbDocument::new(skb)), changes })
    }

    fn notes(&self) -> Vec<String> {
        let s = &self.skb;
        let how = match &self.decided {
            Decided::Option => "set by the skb_version option".to_string(),
            Decided::Archive(game) => format!("decided by the archive's game ({game})"),
            Decided::Validation => {
                "decided by size and validation (only this layout fits and passes C4–C9)".to_string()
            }
        };
        let mut notes = vec![
            format!("{} {}: {how}", s.version().label(), endian_label(s.endian)),
            format!(
                "{} bones, {} times, {} keys, duration {} s",
                s.bone_count,
                s.time_count(),
                s.key_count(),
                s.times_seconds().last().copied().unwrap_or(0.0)
            ),
            "looping is not stored in SKB (decided by ATBL/entity code)".to_string(),
            "no skeleton: bone i is HAnim node i of the character's MODL; read the HIP/HOP archive (or extract the .dff) to bind names and rest poses".to_string(),
        ];
        let dense = s.key_count() == usize::from(s.bone_count) * s.time_count();
        notes.push(if dense { "dense keys (B·T)".into() } else { "sparse keys".into() });
        if !s.tail.is_empty() {
            notes.push(format!(
                "{} trailing bytes ({})",
                s.tail.len(),
                crate::text::to_hex(s.tail.get(..8).unwrap_or(&s.tail))
            ));
        }
        if s.scale.contains(&0.0) {
            notes.push("a zero-range translation axis (Scale = 0)".into());
        }
        notes
    }
}

/// HIP/HOP archives.
pub struct HipFormat;

impl Format for HipFormat {
    fn name(&self) -> &'static str {
        "hip"
    }

    fn description(&self) -> &'static str {
        "EvilEngine HIP/HOP archives (Heavy Iron): ANIM and MODL assets, byte-exact block tree"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["hip", "hop"]
    }

    fn read_params(&self) -> &'static [Param] {
        &[
            SKB_VERSION,
            Param {
                key: "model",
                values: "NAME|none",
                description: "the MODL whose skeleton the clips bind to (only its clips are kept)",
            },
        ]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: false, dump: true, archive: true, skeleton: true }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        match bytes.get(..8) {
            Some(b) if b.starts_with(b"HIPA") && bytes.get(8..12) == Some(b"PACK") => Confidence::Certain,
            Some(b) if b.starts_with(b"HIPA") => Confidence::Likely,
            _ => Confidence::No,
        }
    }

    fn explain_reject(&self, _bytes: &[u8]) -> Option<String> {
        Some("the file does not start with a HIPA block".into())
    }

    fn read(&self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let hip = hip::read(&bytes)?;
        Ok(Box::new(HipDocument {
            hip,
            bytes,
            version: version_param(&options.params)?,
            model: options.params.get("model").cloned(),
            limits: options.limits,
        }))
    }

    fn from_model(&self, _package: &Package, _options: &WriteOptions) -> Result<Written> {
        Err(Error::unsupported("HIP/HOP archives are not written from the model; convert to skb and replace the asset"))
    }

    fn undump(&self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let d: dump::HipDump = serde_json::from_value(value)
            .map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()).within("HIP dump"))?;
        Ok(Box::new(HipDocument::new(dump::hip_from_dump(d)?)))
    }
}

/// A parsed HIP/HOP archive.
pub struct HipDocument {
    pub hip: hip::Hip,
    /// The written form of `hip` (asset offsets are absolute in it).
    bytes: Bytes,
    /// An explicit `skb_version` overriding the archive's game.
    version: Option<SkbVersion>,
    /// The `model` read parameter: the MODL whose skeleton to use (`none` for no skeleton).
    model: Option<String>,
    limits: Limits,
}

/// A MODL asset with an HAnim hierarchy.
pub struct SkinnedModel {
    pub asset_id: u32,
    /// The asset name (`spongebob_bind.dff`).
    pub name: String,
    /// The clip-name prefix it binds: the name without extension and `_bind` (`spongebob`).
    pub prefix: String,
    pub skeleton: crate::model::Skeleton,
}

/// Whether clip `clip` binds to the model with `prefix`: the clip name starts with `prefix_`
/// and no other skinned model has a longer matching prefix.
pub fn binds(clip: &str, prefix: &str, models: &[SkinnedModel]) -> bool {
    let matches = |p: &str| {
        clip.len() > p.len()
            && clip.get(..p.len()).is_some_and(|x| x.eq_ignore_ascii_case(p))
            && clip.as_bytes().get(p.len()) == Some(&b'_')
    };
    matches(prefix) && !models.iter().any(|m| m.prefix.len() > prefix.len() && matches(&m.prefix))
}

/// One ANIM asset parsed from an archive.
pub struct AnimAsset {
    pub asset_id: u32,
    /// The clip name: the source file's base name without `.anm`, else the asset name.
    pub name: String,
    pub result: Result<(Skb, Decided)>,
}

impl HipDocument {
    pub fn new(hip: hip::Hip) -> Self {
        let bytes = Bytes::from(hip::write(&hip));
        HipDocument { hip, bytes, version: None, model: None, limits: Limits::default() }
    }

    /// The bytes of the archive as written.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The layer boundary of the archive's platform (§5.5): 0x20 on GameCube, 0x800 elsewhere.
    pub fn layer_align(&self) -> usize {
        match self.hip.meta().platform.as_deref() {
            Some("GC") | None => 0x20,
            Some(_) => 0x800,
        }
    }

    /// Replaces the ANIM asset whose clip name (or asset name) is `name` with `skb` and re-packs
    /// the stream: AHDR offsets, sizes and fill recomputed (§5.5).
    pub fn replace_anim(&mut self, name: &str, skb: &Skb) -> Result<()> {
        skb::check_counts(skb)?;
        let id = self
            .hip
            .assets()
            .iter()
            .find(|(a, d)| {
                &a.kind == b"ANIM"
                    && (clip_name(a, *d).eq_ignore_ascii_case(name)
                        || d.is_some_and(|d| d.name().eq_ignore_ascii_case(name)))
            })
            .map(|(a, _)| a.asset_id)
            .ok_or_else(|| Error::new(ErrorKind::Invalid, None, format!("no ANIM asset \"{name}\"")))?;
        let align = self.layer_align();
        self.hip.replace_asset(id, Bytes::from(skb::write(skb)), align)?;
        self.bytes = Bytes::from(hip::write(&self.hip));
        Ok(())
    }

    /// Every MODL asset that carries an HAnim skeleton (unreadable ones are skipped).
    pub fn skinned_models(&self) -> Vec<SkinnedModel> {
        let mut out = Vec::new();
        for (a, dbg) in self.hip.assets() {
            if &a.kind != b"MODL" {
                continue;
            }
            let Ok(data) = hip::Hip::asset_data(&self.bytes, a) else {
                continue;
            };
            let Ok(Some(skeleton)) = rwskel::read_clump(&data).and_then(|c| rwskel::skeleton(&c)) else {
                continue;
            };
            let name = dbg.map(|d| d.name()).unwrap_or_default();
            let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
            let prefix = stem.strip_suffix("_bind").unwrap_or(stem).to_string();
            out.push(SkinnedModel { asset_id: a.asset_id, name: name.clone(), prefix, skeleton });
        }
        out
    }

    /// Every non-empty ANIM asset, parsed with the version the archive's game implies.
    pub fn anim_assets(&self) -> Vec<AnimAsset> {
        let game = self.hip.game();
        let mut out = Vec::new();
        for (a, dbg) in self.hip.assets() {
            if &a.kind != b"ANIM" || a.size == 0 {
                continue;
            }
            let name = clip_name(a, dbg);
            let result = hip::Hip::asset_data(&self.bytes, a).and_then(|data| match (self.version, game) {
                (Some(v), _) => Ok((skb::read_version(&data, v)?, Decided::Option)),
                (None, Some(g)) => {
                    Ok((skb::read_version(&data, g.skb_version())?, Decided::Archive(g.label().to_string())))
                }
                (None, None) => skb::read(&data, None),
            });
            let result = result.map_err(|e| e.within(format!("ANIM 0x{:08X} \"{name}\"", a.asset_id)));
            out.push(AnimAsset { asset_id: a.asset_id, name, result });
        }
        out
    }
}

/// The base name of a source path (either slash).
fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn clip_name(a: &hip::Ahdr, dbg: Option<&hip::Adbg>) -> String {
    let source = dbg.map(|d| d.source()).unwrap_or_default();
    let base = basename(&source);
    if !base.is_empty() {
        let stem = base.strip_suffix(".anm").or_else(|| base.strip_suffix(".ANM")).unwrap_or(base);
        return stem.to_string();
    }
    match dbg.map(|d| d.name()) {
        Some(n) if !n.is_empty() => n,
        _ => format!("0x{:08X}", a.asset_id),
    }
}

impl Document for HipDocument {
    fn format(&self) -> &'static dyn Format {
        &HipFormat
    }

    fn version(&self) -> String {
        match self.hip.game() {
            Some(g) => format!("HIP ({})", g.label()),
            None => "HIP (game unknown)".into(),
        }
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(hip::write(&self.hip))
    }

    fn to_model(&self) -> Result<Package> {
        let models = self.skinned_models();
        let anims = self.anim_assets();
        // The model that binds the most clips (by name, §6.2), or the one `model=` names.
        let chosen: Option<&SkinnedModel> = match self.model.as_deref() {
            Some("none") => None,
            Some(name) => Some(
                models
                    .iter()
                    .find(|m| m.name.eq_ignore_ascii_case(name) || m.prefix.eq_ignore_ascii_case(name))
                    .ok_or_else(|| Error::unsupported(format!("no skinned MODL asset \"{name}\"")))?,
            ),
            None => models
                .iter()
                .map(|m| (anims.iter().filter(|a| binds(&a.name, &m.prefix, &models)).count(), m))
                .filter(|(n, _)| *n > 0)
                .max_by_key(|(n, _)| *n)
                .map(|(_, m)| m),
        };
        let mut clips = Vec::new();
        for asset in anims {
            let bound = chosen.filter(|m| binds(&asset.name, &m.prefix, &models));
            if self.model.as_deref().is_some_and(|m| m != "none") && bound.is_none() {
                continue;
            }
            let (skb, _) = asset.result?;
            clips.push(model::to_clip(&skb, &asset.name, bound.map(|m| &m.skeleton), &self.limits)?);
        }
        Ok(Package { name: String::new(), clips, skeleton: chosen.map(|m| m.skeleton.clone()), ..Default::default() })
    }

    /// One package per skinned MODL that binds clips (named after its prefix, `spongebob`), with
    /// that model's skeleton and only its clips; clips no model binds go into a last package
    /// `unbound` without a skeleton (index-only bone references).
    fn packages(&self) -> Result<Vec<Package>> {
        if self.model.is_some() {
            return Ok(vec![self.to_model()?]);
        }
        let models = self.skinned_models();
        let mut per_model: Vec<Vec<crate::model::Clip>> = vec![Vec::new(); models.len()];
        let mut unbound = Vec::new();
        for asset in self.anim_assets() {
            let (skb, _) = asset.result?;
            match models.iter().zip(per_model.iter_mut()).find(|(m, _)| binds(&asset.name, &m.prefix, &models)) {
                Some((m, clips)) => clips.push(model::to_clip(&skb, &asset.name, Some(&m.skeleton), &self.limits)?),
                None => unbound.push(model::to_clip(&skb, &asset.name, None, &self.limits)?),
            }
        }
        let mut out: Vec<Package> = models
            .iter()
            .zip(per_model)
            .filter(|(_, clips)| !clips.is_empty())
            .map(|(m, clips)| Package {
                name: m.prefix.clone(),
                clips,
                skeleton: Some(m.skeleton.clone()),
                ..Default::default()
            })
            .collect();
        if !unbound.is_empty() {
            out.push(Package { name: "unbound".into(), clips: unbound, ..Default::default() });
        }
        Ok(out)
    }

    fn dump(&self) -> Result<serde_json::Value> {
        serde_json::to_value(dump::hip_to_dump(&self.hip))
            .map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()))
    }

    fn lint(&self) -> Vec<Finding> {
        lint::lint_hip(self)
    }

    fn repair(&self) -> Result<Repaired> {
        let mut hip = self.hip.clone();
        let mut changes = Vec::new();
        for asset in self.anim_assets() {
            let Ok((skb, _)) = asset.result else { continue };
            let (fixed, c) = lint::repair_skb(&skb);
            if !c.is_empty() {
                let align = self.layer_align();
                hip.replace_asset(asset.asset_id, Bytes::from(skb::write(&fixed)), align)?;
                changes.extend(c.into_iter().map(|c| format!("ANIM \"{}\": {c}", asset.name)));
            }
        }
        Ok(Repaired { document: Box::new(HipDocument::new(hip)), changes })
    }

    fn notes(&self) -> Vec<String> {
        let m = self.hip.meta();
        let assets = self.hip.assets();
        let count = |k: &[u8; 4]| assets.iter().filter(|(a, _)| &a.kind == k).count();
        let mut notes = vec![
            format!(
                "{} assets ({} ANIM, {} MODL), {} layers",
                assets.len(),
                count(b"ANIM"),
                count(b"MODL"),
                self.hip.layers().len()
            ),
            format!(
                "platform {}, clientVersion {}, PFLG {}",
                m.platform.as_deref().unwrap_or("?"),
                m.client_version.map_or("?".into(), |v| format!("0x{v:08X}")),
                m.pflg.map_or("?".into(), |v| format!("0x{v:08X}"))
            ),
        ];
        match (self.version, self.hip.game()) {
            (Some(v), _) => notes.push(format!("ANIM version {} set by the skb_version option", v.label())),
            (None, Some(g)) => notes.push(format!(
                "ANIM version {} decided by the archive's game ({})",
                g.skb_version().label(),
                g.label()
            )),
            (None, None) => notes.push("game unknown: each ANIM's version is decided by size and validation".into()),
        }
        notes.push("looping is not stored in ANIM assets (ATBL/entity code decides)".into());
        let models = self.skinned_models();
        let anims = self.anim_assets();
        for m in &models {
            let nodes = m.skeleton.bones.len();
            let (mut equal, mut fewer, mut more, mut bound) = (0, 0, 0, 0);
            for a in anims.iter().filter(|a| binds(&a.name, &m.prefix, &models)) {
                bound += 1;
                if let Ok((skb, _)) = &a.result {
                    match usize::from(skb.bone_count).cmp(&nodes) {
                        std::cmp::Ordering::Equal => equal += 1,
                        std::cmp::Ordering::Less => fewer += 1,
                        std::cmp::Ordering::Greater => more += 1,
                    }
                }
            }
            if bound > 0 {
                notes.push(format!(
                    "MODL \"{}\" ({nodes} HAnim nodes) binds {bound} clips by name: {equal} with {nodes} bones, {fewer} with fewer, {more} with more",
                    m.name
                ));
            }
        }
        notes
    }

    fn entries(&self) -> Result<Vec<Entry>> {
        self.named_assets()
            .into_iter()
            .map(|(name, a)| {
                let data = hip::Hip::asset_data(&self.bytes, a)?;
                Ok(Entry { name, kind: String::from_utf8_lossy(&a.kind).into_owned(), data })
            })
            .collect()
    }

    /// An ANIM or MODL asset by its `extract` name (any case); the stream is re-packed (§5.5).
    fn with_entry(&self, name: &str, data: Bytes) -> Result<Box<dyn Document>> {
        let named = self.named_assets();
        let (name, asset) = named.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).ok_or_else(|| {
            Error::new(ErrorKind::Invalid, None, format!("no ANIM or MODL asset \"{name}\" (see `animkit extract`)"))
                .within("HIP")
        })?;
        let format: &'static dyn Format = if &asset.kind == b"MODL" { &dff::DffFormat } else { &SkbFormat };
        crate::format::check_replacement(format, name, &hip::Hip::asset_data(&self.bytes, asset)?, &data)?;
        let mut hip = self.hip.clone();
        hip.replace_asset(asset.asset_id, data, self.layer_align())?;
        let bytes = Bytes::from(hip::write(&hip));
        Ok(Box::new(HipDocument { hip, bytes, model: self.model.clone(), ..*self }))
    }
}

impl HipDocument {
    /// The ANIM and MODL assets with the file names `extract` gives them: the clip or model name
    /// (`.anm`, `.dff`), made safe, with the asset id added when two would collide.
    fn named_assets(&self) -> Vec<(String, &hip::Ahdr)> {
        let mut out: Vec<(String, &hip::Ahdr)> = Vec::new();
        for (a, dbg) in self.hip.assets() {
            let ext = match &a.kind {
                b"ANIM" => "anm",
                b"MODL" => "dff",
                _ => continue,
            };
            let stem = if ext == "anm" {
                clip_name(a, dbg)
            } else {
                match dbg.map(|d| d.name()) {
                    Some(n) if !n.is_empty() => match n.len().checked_sub(4).and_then(|i| n.get(i..)) {
                        Some(ext) if ext.eq_ignore_ascii_case(".dff") => n[..n.len() - 4].to_string(),
                        _ => n,
                    },
                    _ => format!("0x{:08X}", a.asset_id),
                }
            };
            let stem = crate::text::safe_file_name(&stem);
            let mut name = format!("{stem}.{ext}");
            if out.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name)) {
                name = format!("{stem}_{:08X}.{ext}", a.asset_id);
            }
            out.push((name, a));
        }
        out
    }
}
