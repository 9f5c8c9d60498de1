//! GTA animation packages: `ANPK` (III, Vice City) and `ANP2`/`ANP3` (San Andreas).
//!
//! Spec: `shared/formats/ifp.md`. Little-endian. Files: `raw` (the exact structures: read, write
//! and the lossless JSON dump), `model` (raw → model), `from_model` (model → raw, canonical),
//! `canonical` (derived fields), `bones` (ped bone tags), `lint` (check and repair), `entries`
//! (one animation at a time, for `extract` and `replace`).
//!
//! Observed in the corpus against or beyond the spec (every structural rule of `ifp.md` holds):
//! - KRTS scale (§4.4 "12,757 of 12,758 observed scale keys are 1"): VC `ped.ifp` holds 12,758
//!   scale keys in 212 KRTS objects; 9,981 are not exactly 1.0, 61 differ from 1 by more than
//!   1e-4 and none by more than 5.9e-4 (exporter float noise, in 6 objects). `check` warns past
//!   1e-4; the model drops scale unless asked.
//! - The §4.1 VC/SA example pair (`run_civi`, left upper arm) matches the spec's numbers in each
//!   file, but the two games differ there by about 7°: SA re-authored that animation. Same keys
//!   agree exactly elsewhere (6,709 of 35,288 animation/bone/key triples).
//! - Encoding (§6 says truncate, as the engine's encoder does): truncating VC `ped.ifp` to ANP3
//!   leaves 79,120 of its 94,660 keys with a rotation or translation component more than half a
//!   step off; `from_model` rounds to nearest, so every key is within half a step.
//! - Tag −1 (matched by name) is stored on 38 VC and 89 SA `ped.ifp` nodes (VC `L Toe0`/`R Toe0`
//!   among them); conversions keep it rather than looking the name up.
//! - No corpus file has flags = 0 over compressed frames (the corpus README's `covers.ifp` case
//!   is its empty animation); the rule is tested on a mutated file.

mod bones;
mod canonical;
mod entries;
mod from_model;
mod lint;
mod model;
mod raw;

use bytes::Bytes;

use crate::error::{Error, ErrorKind, Result};
use crate::format::Param;
use crate::format::Repaired;
use crate::format::{Capabilities, Confidence, Document, Entry, Format, ReadOptions, WriteOptions, Written};
use crate::lint::Finding;
use crate::model::Package;
use crate::text::latin1_until_nul;
use raw::{each_body, AnimLink, AnpkAnimation, Body, IfpFile, Layout};

/// The IFP format.
pub struct Ifp;

const READ_PARAMS: &[Param] = &[
    param("timeline", "authored|engine", "engine: every sequence starts at time 0, as the game plays it"),
    param("root", "keep|in-place", "in-place: the root bone stays at its first X and Y (a walk on the spot)"),
    param("scale", "drop|keep", "keep: ANPK KRTS scale keys become scale tracks"),
    param("rotations", "stored|unit", "unit: quaternions normalised on read (default: kept exactly as stored)"),
];

const WRITE_PARAMS: &[Param] = &[
    param("compression", "auto|none", "none: ANP3 frames uncompressed (floats) even when they fit the compressed form"),
    param("overflow", "uncompressed|error", "what to do when a value does not fit ANP3's compressed range"),
];

const fn param(key: &'static str, values: &'static str, description: &'static str) -> Param {
    Param { key, values, description }
}

impl Format for Ifp {
    fn name(&self) -> &'static str {
        "ifp"
    }

    fn description(&self) -> &'static str {
        "GTA III / Vice City ANPK and San Andreas ANP2/ANP3 animation packages (each animation an entry)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["ifp"]
    }

    fn variants(&self) -> &'static [&'static str] {
        &["anp3", "anpk"]
    }

    fn read_params(&self) -> &'static [Param] {
        READ_PARAMS
    }

    fn write_params(&self) -> &'static [Param] {
        WRITE_PARAMS
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: true, dump: true, archive: true, skeleton: false }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        match bytes.get(..4) {
            Some(b"ANP3" | b"ANP2") if bytes.len() >= 36 => Confidence::Certain,
            Some(b"ANPK") if bytes.get(8..12) == Some(b"INFO") => Confidence::Certain,
            Some(b"ANPK" | b"ANP3" | b"ANP2") => Confidence::Likely,
            _ => Confidence::No,
        }
    }

    fn read(&self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let model_options = model::ModelOptions::from_params(&options.params)?;
        let file = IfpFile::read(&bytes, options.lenient)?;
        Ok(Box::new(IfpDocument { file, limits: options.limits, model_options }))
    }

    fn from_model(&self, package: &Package, options: &WriteOptions) -> Result<Written> {
        let build_options = from_model::BuildOptions::from_write_options(options)?;
        let (file, warnings) = from_model::from_model(package, build_options)?;
        Ok(Written { document: Box::new(IfpDocument::new(file)), warnings })
    }

    fn undump(&self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let file = crate::raw_json::from_value(value, "IFP dump")?;
        Ok(Box::new(IfpDocument::new(file)))
    }
}

/// A parsed IFP file.
pub(crate) struct IfpDocument {
    file: IfpFile,
    limits: crate::format::Limits,
    model_options: model::ModelOptions,
}

impl IfpDocument {
    fn new(file: IfpFile) -> Self {
        IfpDocument { file, limits: Default::default(), model_options: Default::default() }
    }
}

impl Document for IfpDocument {
    fn format(&self) -> &'static dyn Format {
        &Ifp
    }

    fn version(&self) -> String {
        latin1_until_nul(&self.file.magic())
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(self.file.write())
    }

    fn to_model(&self) -> Result<Package> {
        model::to_model(&self.file, &self.limits, self.model_options)
    }

    fn summary(&self) -> Result<crate::format::Summary> {
        model::summary(&self.file, self.model_options)
    }

    fn dump(&self) -> Result<serde_json::Value> {
        crate::raw_json::to_value(&self.file)
    }

    fn lint(&self) -> Vec<Finding> {
        lint::lint(&self.file)
    }

    fn repair(&self) -> Result<Repaired> {
        let (file, changes) = lint::repair(&self.file);
        Ok(Repaired { document: Box::new(IfpDocument::new(file)), changes })
    }

    /// Each animation as a one-animation package of the same version ([`entries`]).
    fn entries(&self) -> Result<Vec<Entry>> {
        let names = entries::names(&self.file);
        Ok(names
            .into_iter()
            .enumerate()
            .filter_map(|(i, name)| {
                let data = Bytes::from(entries::single(&self.file, i)?.write());
                Some(Entry { name, kind: latin1_until_nul(&self.file.magic()), data })
            })
            .collect())
    }

    /// An animation, by its entry name (any case), replaced by the one animation of `data`.
    fn with_entry(&self, name: &str, data: Bytes) -> Result<Box<dyn Document>> {
        let names = entries::names(&self.file);
        let index = names.iter().position(|n| n.eq_ignore_ascii_case(name)).ok_or_else(|| {
            let shown: Vec<&str> = names.iter().map(String::as_str).take(8).collect();
            let more = if names.len() > shown.len() { ", …" } else { "" };
            let msg = format!("no animation \"{name}\" (entries: {}{more})", shown.join(", "));
            Error::new(ErrorKind::Invalid, None, msg)
        })?;
        let new = IfpFile::read(&data, false).map_err(|e| e.within(format!("the new {name}")))?;
        let file = entries::replace(&self.file, index, &new).map_err(|e| e.within(format!("animation {index}")))?;
        Ok(Box::new(IfpDocument { file, ..*self }))
    }

    fn notes(&self) -> Vec<String> {
        let f = &self.file;
        let mut notes = vec![format!("block \"{}\"", each_body!(&f.body, b => latin1_until_nul(&b.block_name.0)))];
        let counts = match &f.body {
            Body::Anp3(v2) | Body::Anp2(v2) => {
                let sequences = || v2.animations.iter().flat_map(|a| a.sequences.iter());
                [
                    (v2.animations.iter().filter(|a| a.flags & 1 == 0).count(), "animation(s) with flags 0"),
                    (sequences().filter(|s| !s.frame_type.compressed()).count(), "uncompressed sequence(s)"),
                ]
            }
            Body::Anpk(a) => {
                let tree = |an: &&AnpkAnimation| an.objects.iter().any(|o| matches!(o.link, AnimLink::Tree { .. }));
                [(a.animations.iter().filter(tree).count(), "animation(s) use the 48-byte ANIM form"), (0, "")]
            }
        };
        notes.extend(counts.into_iter().filter(|&(n, _)| n > 0).map(|(n, what)| format!("{n} {what}")));
        if !f.tail.is_empty() {
            notes.push(format!("{} trailing bytes", f.tail.0.len()));
        }
        if let Some(s) = &f.salvage {
            notes.push(format!("salvaged: {} of {} animations", f.animation_count(), s.declared_animations));
        }
        notes
    }
}
