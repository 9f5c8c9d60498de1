//! Heavy Iron EvilEngine: SKB `ANIM` assets (`skb`) and HIP/HOP archives (`hip`).
//!
//! Spec: `shared/formats/evilengine.md`. Files: `skb.rs` (the SKB raw layer, V1/V2 in either
//! byte order; its serde form is the dump), `hip.rs` (the archive's block tree, byte-exact, and
//! its dump), `rwskel.rs` (RenderWare frames + HAnim → skeleton), `model.rs` (raw → model, clip
//! to skeleton binding), `from_model.rs` (model → SKB, canonical), `lint.rs` (invariants
//! C2–C10, repair), `dff.rs` (a loose `.dff` as a skeleton source); this file the formats.
//!
//! V1 or V2: nothing in an asset says which. A loose `.anm` is read with the `skb_version` read
//! parameter (`1`/`2`) when given, else both layouts are tried and the one whose size matches
//! and that passes C4–C9 wins; when neither or both pass the reader stops and asks for the
//! parameter. Inside an archive the game detected from PVER/PFLG/PCRT decides (§5.6). `info`
//! shows how it was decided.
//!
//! Skeletons: `hip` reads the HAnim hierarchy of every skinned `MODL` (`rwskel`) and binds
//! clips to a model by name (`spongebob_*` ↔ `spongebob_bind.dff`, longest prefix wins). The
//! package skeleton is the model that binds the most clips (or the `model=NAME` read parameter,
//! which also keeps only that model's clips; `model=none` for none). Clips of other characters
//! keep index-only bone references. Bone-count mismatches are reported in `info`, never fatal.
//! `Document::packages` splits the archive by character instead: one package per skinned MODL
//! with the clips it binds (named after its prefix), plus `unbound` for the rest, so `convert
//! boot.HIP -o out/ --to glb` writes `boot_spongebob.glb`… each bound to its own skeleton
//! (BFBB boot.HIP: spongebob 109, sb_tongue 7, teleportation_box 7, cruise_bubble 2, sb_ball 2;
//! none unbound). A standalone `.dff` (as `extract` writes MODL assets) is the `dff` format,
//! a skeleton source for `convert clip.anm --skeleton model.dff`. `dump` is the serde form of the
//! raw structures (`Skb`, `Hip`); `pack` reads it back and writes the same bytes.
//!
//! Observed in the corpus (BFBB GameCube `boot.HIP`, 127 ANIM / 56 MODL; `b101.HIP`, no ANIM),
//! all consistent with the spec: every ANIM is V1 big-endian with Flags 0 and satisfies C3–C10;
//! 7 carry 2 bytes of `CD` padding, 5 are dense; the ANIM asset ID is the hash of the source
//! file's base name for all 127; re-packing the stream with unchanged data reproduces the archive
//! byte for byte (so the §5.5 layout rules hold, including padLength); for every skinned model
//! `numFrames = numNodes + 1` and PUSH/POP parents equal the FrameList parents; at t = 0,
//! 2,635 of 4,545 SpongeBob non-root bone translations lie within 1e-3 of the bind pose.

pub(crate) mod dff;
mod from_model;
mod hip;
mod lint;
mod model;
mod rwskel;
mod skb;

use std::cmp::Ordering;

use bytes::Bytes;

use crate::bytes::Endian;
use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    Capabilities, Confidence, Document, Entry, Format, Limits, Param, ReadOptions, Repaired, WriteOptions, Written,
};
use crate::lint::Finding;
use crate::model::Package;
use hip::{AnimAsset, Hip};
use skb::{Decided, Skb, SkbVersion};

/// Parses the `skb_version` parameter (`1`, `2`, `v1`, `v2`).
fn version_param(params: &std::collections::BTreeMap<String, String>) -> Result<Option<SkbVersion>> {
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

/// Reads a loose SKB animation: with `version` when given, else by trying both layouts (§1 step
/// 3): the one whose size matches and that passes C4–C9 wins; otherwise an error asks for the
/// option.
fn read_skb(bytes: &[u8], version: Option<SkbVersion>) -> Result<(Skb, Decided)> {
    skb::detect_endian(bytes)?;
    if let Some(v) = version {
        return Ok((skb::read(bytes, v)?, Decided::Option));
    }
    let attempt = |v: SkbVersion| -> Result<Skb, String> {
        let skb = skb::read(bytes, v).map_err(|e| e.to_string())?;
        if !skb.length_fits() {
            return Err(format!("{} trailing bytes do not fit the {} layout", skb.tail.0.len(), v.label()));
        }
        let violations = lint::invariant_violations(&skb);
        match violations.iter().find(|v| !matches!(v.code, "c2-flags" | "c3-size")) {
            Some(v) => Err(format!("{}: {}", v.code, v.message)),
            None => Ok(skb),
        }
    };
    let ask = "name one with skb_version=1 or skb_version=2";
    match (attempt(SkbVersion::V1), attempt(SkbVersion::V2)) {
        (Ok(skb), Err(_)) | (Err(_), Ok(skb)) => Ok((skb, Decided::Validation)),
        (Ok(_), Ok(_)) => Err(Error::new(
            ErrorKind::Unsupported,
            Some(0),
            format!("both the V1 and the V2 layout fit this animation; {ask}"),
        )),
        (Err(a), Err(b)) => {
            Err(Error::new(ErrorKind::Invalid, Some(0), format!("neither layout fits (V1: {a}; V2: {b}); {ask}")))
        }
    }
}

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
        if skb::detect_endian(bytes).is_ok() && bytes.len() >= skb::HEADER_SIZE {
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
        let (skb, decided) = read_skb(&bytes, version_param(&options.params)?)?;
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
        let clip = match (package.clips.as_slice(), options.param("clip")) {
            ([], _) => return Err(Error::unrepresentable("the package has no clip")),
            ([clip], _) => clip,
            (_, Some(name)) => {
                package.clip(name).ok_or_else(|| Error::unrepresentable(format!("no clip \"{name}\"")))?
            }
            ([first, ..], None) => {
                return Err(Error::unrepresentable(format!(
                    "an SKB file holds one animation; the package has {} (first \"{}\"): name one with clip=NAME",
                    package.clips.len(),
                    first.name
                )))
            }
        };
        let mut warnings = Vec::new();
        let skb = from_model::from_clip(clip, package.skeleton.as_ref(), version, endian, &mut warnings)
            .map_err(|e| e.within(format!("clip \"{}\"", clip.name)))?;
        Ok(Written { document: Box::new(SkbDocument::new(skb)), warnings })
    }

    fn undump(&self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let skb: Skb = crate::raw_json::from_value(value, "SKB dump")?;
        skb.check_counts().map_err(|e| e.within("SKB dump"))?;
        Ok(Box::new(SkbDocument::new(skb)))
    }
}

/// A parsed SKB animation.
struct SkbDocument {
    skb: Skb,
    decided: Decided,
    limits: Limits,
}

impl SkbDocument {
    fn new(skb: Skb) -> Self {
        SkbDocument { skb, decided: Decided::Option, limits: Limits::default() }
    }
}

impl Document for SkbDocument {
    fn format(&self) -> &'static dyn Format {
        &SkbFormat
    }

    fn version(&self) -> String {
        let order = match self.skb.endian {
            Endian::Big => "big-endian",
            Endian::Little => "little-endian",
        };
        format!("{} {order}", self.skb.version().label())
    }

    fn write(&self) -> Result<Vec<u8>> {
        self.skb.check_counts()?;
        Ok(skb::write(&self.skb))
    }

    fn to_model(&self) -> Result<Package> {
        let clip = model::bound_clip(&self.skb, "anim", &model::BoneTargets::of(None), &self.limits)?;
        Ok(Package { name: String::new(), clips: vec![clip], ..Default::default() })
    }

    fn dump(&self) -> Result<serde_json::Value> {
        crate::raw_json::to_value(&self.skb)
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
        let how = match self.decided {
            Decided::Option => "set by the skb_version option",
            Decided::Validation => "decided by size and validation (only this layout fits and passes C4–C9)",
        };
        let (bones, times, keys) = (s.bone_count, s.time_count(), s.key_count());
        let duration = s.times_seconds().last().copied().unwrap_or(0.0);
        let mut notes = vec![
            format!("{}: {how}", self.version()),
            format!("{bones} bones, {times} times, {keys} keys, duration {duration} s"),
            "looping is not stored in SKB (decided by ATBL/entity code)".to_string(),
            "no skeleton: bone i is HAnim node i of the character's MODL; read the HIP/HOP archive (or extract the .dff) to bind names and rest poses".to_string(),
        ];
        let dense = keys == usize::from(bones) * times;
        notes.push(if dense { "dense keys (B·T)".into() } else { "sparse keys".into() });
        if let Some(head) = (!s.tail.0.is_empty()).then(|| s.tail.0.get(..8).unwrap_or(&s.tail.0)) {
            notes.push(format!("{} trailing bytes ({})", s.tail.0.len(), crate::text::to_hex(head)));
        }
        if s.scale.iter().any(|s| s.0 == 0.0) {
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
        let hip: Hip = crate::raw_json::from_value(value, "HIP dump")?;
        Ok(Box::new(HipDocument::new(hip)))
    }
}

/// A parsed HIP/HOP archive.
struct HipDocument {
    hip: Hip,
    /// The written form of `hip` (asset offsets are absolute in it).
    bytes: Bytes,
    /// An explicit `skb_version` overriding the archive's game.
    version: Option<SkbVersion>,
    /// The `model` read parameter: the MODL whose skeleton to use (`none` for no skeleton).
    model: Option<String>,
    limits: Limits,
}

impl HipDocument {
    fn new(hip: Hip) -> Self {
        let bytes = Bytes::from(hip::write(&hip));
        HipDocument { hip, bytes, version: None, model: None, limits: Limits::default() }
    }

    /// Every non-empty ANIM asset, unparsed.
    fn anim_assets(&self) -> Vec<AnimAsset> {
        let anims = self.hip.assets().into_iter().filter(|(a, _)| &a.kind.0 == b"ANIM" && a.size != 0);
        anims
            .map(|(a, dbg)| AnimAsset {
                asset_id: a.asset_id,
                name: a.clip_name(dbg),
                data: Hip::asset_data(&self.bytes, a),
            })
            .collect()
    }

    /// The parser of this archive's ANIM assets: the version the `skb_version` option names,
    /// else the one the archive's game implies, else decided by size and validation.
    fn anim_parser(&self) -> impl Fn(&AnimAsset) -> Result<Skb> {
        let version = self.version.or(self.hip.meta().game().map(|g| g.skb_version));
        move |a: &AnimAsset| {
            let skb = a.data.as_ref().map_err(Clone::clone).and_then(|data| read_skb(data, version));
            skb.map(|(skb, _)| skb).map_err(|e| e.within(format!("ANIM 0x{:08X} \"{}\"", a.asset_id, a.name)))
        }
    }

    /// The notes on the ANIM version and on how each skinned MODL binds clips.
    fn binding_notes(&self, notes: &mut Vec<String>) {
        notes.push(match (self.version, self.hip.meta().game()) {
            (Some(v), _) => format!("ANIM version {} set by the skb_version option", v.label()),
            (None, Some(g)) => {
                format!("ANIM version {} decided by the archive's game ({})", g.skb_version.label(), g.label)
            }
            (None, None) => "game unknown: each ANIM's version is decided by size and validation".into(),
        });
        notes.push("looping is not stored in ANIM assets (ATBL/entity code decides)".into());
        let models = model::skinned_models(&self.hip, &self.bytes);
        let (anims, parse) = (self.anim_assets(), self.anim_parser());
        for m in &models {
            let nodes = m.skeleton.bones.len();
            let bound: Vec<_> = anims.iter().filter(|a| model::binds(&a.name, &m.prefix, &models)).collect();
            let bones: Vec<usize> =
                bound.iter().filter_map(|a| parse(a).ok()).map(|s| usize::from(s.bone_count)).collect();
            let count = |order| bones.iter().filter(|n| n.cmp(&&nodes) == order).count();
            let (equal, fewer, more) = (count(Ordering::Equal), count(Ordering::Less), count(Ordering::Greater));
            if !bound.is_empty() {
                notes.push(format!(
                    "MODL \"{}\" ({nodes} HAnim nodes) binds {} clips by name: {equal} with {nodes} bones, {fewer} with fewer, {more} with more",
                    m.name,
                    bound.len()
                ));
            }
        }
    }
}

impl Document for HipDocument {
    fn format(&self) -> &'static dyn Format {
        &HipFormat
    }

    fn version(&self) -> String {
        match self.hip.meta().game() {
            Some(g) => format!("HIP ({})", g.label),
            None => "HIP (game unknown)".into(),
        }
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(hip::write(&self.hip))
    }

    fn to_model(&self) -> Result<Package> {
        let models = model::skinned_models(&self.hip, &self.bytes);
        model::package(&self.anim_assets(), self.anim_parser(), &models, self.model.as_deref(), &self.limits)
    }

    /// One package per skinned MODL that binds clips, plus `unbound` for the rest; with the
    /// `model` parameter, the one package [`Document::to_model`] gives.
    fn packages(&self) -> Result<Vec<Package>> {
        if self.model.is_some() {
            return Ok(vec![self.to_model()?]);
        }
        let models = model::skinned_models(&self.hip, &self.bytes);
        model::packages(&self.anim_assets(), self.anim_parser(), &models, &self.limits)
    }

    fn dump(&self) -> Result<serde_json::Value> {
        crate::raw_json::to_value(&self.hip)
    }

    fn lint(&self) -> Vec<Finding> {
        lint::lint_hip(&self.hip, &self.bytes, &self.anim_assets(), self.anim_parser())
    }

    fn repair(&self) -> Result<Repaired> {
        let mut hip = self.hip.clone();
        let mut changes = Vec::new();
        let parse = self.anim_parser();
        for asset in self.anim_assets() {
            let Ok(skb) = parse(&asset) else { continue };
            let (fixed, c) = lint::repair_skb(&skb);
            if !c.is_empty() {
                hip.replace_asset(asset.asset_id, Bytes::from(skb::write(&fixed)), self.hip.layer_align())?;
                changes.extend(c.into_iter().map(|c| format!("ANIM \"{}\": {c}", asset.name)));
            }
        }
        Ok(Repaired { document: Box::new(HipDocument::new(hip)), changes })
    }

    fn notes(&self) -> Vec<String> {
        let m = self.hip.meta();
        let assets = self.hip.assets();
        let count = |k: &[u8; 4]| assets.iter().filter(|(a, _)| &a.kind.0 == k).count();
        let hex = |v: Option<u32>| v.map_or("?".into(), |v| format!("0x{v:08X}"));
        let (anim, modl, layers) = (count(b"ANIM"), count(b"MODL"), self.hip.layers().len());
        let (platform, client, pflg) = (m.platform.as_deref().unwrap_or("?"), hex(m.client_version), hex(m.pflg));
        let mut notes = vec![
            format!("{} assets ({anim} ANIM, {modl} MODL), {layers} layers", assets.len()),
            format!("platform {platform}, clientVersion {client}, PFLG {pflg}"),
        ];
        self.binding_notes(&mut notes);
        notes
    }

    fn entries(&self) -> Result<Vec<Entry>> {
        self.hip
            .named_assets()
            .into_iter()
            .map(|(name, a)| {
                let data = Hip::asset_data(&self.bytes, a)?;
                Ok(Entry { name, kind: String::from_utf8_lossy(&a.kind.0).into_owned(), data })
            })
            .collect()
    }

    /// An ANIM or MODL asset by its `extract` name (any case); the stream is re-packed (§5.5).
    fn with_entry(&self, name: &str, data: Bytes) -> Result<Box<dyn Document>> {
        let named = self.hip.named_assets();
        let (name, asset) = named.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).ok_or_else(|| {
            Error::new(ErrorKind::Invalid, None, format!("no ANIM or MODL asset \"{name}\" (see `animkit extract`)"))
                .within("HIP")
        })?;
        let format: &'static dyn Format = if &asset.kind.0 == b"MODL" { &dff::DffFormat } else { &SkbFormat };
        crate::format::check_replacement(format, name, &Hip::asset_data(&self.bytes, asset)?, &data)?;
        let mut hip = self.hip.clone();
        hip.replace_asset(asset.asset_id, data, self.hip.layer_align())?;
        let bytes = Bytes::from(hip::write(&hip));
        Ok(Box::new(HipDocument { hip, bytes, model: self.model.clone(), ..*self }))
    }
}
