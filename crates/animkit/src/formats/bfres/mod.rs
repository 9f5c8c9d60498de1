//! Nintendo BFRES: Wii U (big-endian "caFe", FRES versions 2.4 to 4.5) and Switch
//! (little-endian, `FRES` + four spaces, 0.5 to 0.9). Animations (FSKA, FTXP, FSHU, FVIS; on
//! Switch FSKA, FMAA, FBVS) and the FSKL skeleton inside FMDL. Spec: `shared/formats/bfres.md`.
//!
//! One reader per structure serves both platforms, the byte order, offset and name encodings
//! and the version being the [`platform::Platform`] parameter: [`curve`] (the shared AnimCurve
//! system), [`fska`], [`fshu`] (and `fmaa`, the Switch material animation built from FSHU and
//! FTXP parts), [`ftxp`], [`fvis`] (FVIS and FBVS), `fskl`/`fmdl` (skeletons) and the headers of
//! [`fres`]. Each parsed structure's serde form is its JSON dump. `anims` finds the subfiles of
//! either platform and converts them to the model.
//!
//! Wii U: [`fres`] cuts the file into header, index groups ([`dict`]), subfiles, string pool and
//! opaque bytes and writes them back byte for byte; `dump` is its JSON form; `lint` checks and
//! repairs; [`build`] writes files in the retail layout; `from_model` builds them from the
//! model, each curve in the smallest encoding (`encode`), and what a clip read from an FSKA or
//! FSHU did not change as it was read (`stored`).
//!
//! Switch: [`switch_write`] reads the relocation and string tables into structures and writes
//! them back, lays FSKA and FMAA data out as Nintendo's tools do, and is the structured JSON
//! form; `switch_replace` replaces one animation inside a file ([`BfresDocument::with_clip`],
//! `replace`); `switch_build` builds Switch files from the model (`platform=switch`, the default
//! when converting a Switch file). Shape and scene animations, on either platform, are only
//! named (`not_carried`).
//!
//! To the model: `unroll` applies a curve's wrap modes over a whole animation, `union` merges
//! component curves' keys, `euler` turns Euler angle curves into quaternion keys. The package's
//! skeleton is the model's the FSKA bind to (`bind`): the one holding the most of the animated
//! bones, not simply the first (Mario Kart 8 kart parts list three arm models before the body
//! the animations move); `info` says which and why.
//!
//! Observed in the corpus (BotW 4.5.0.3) beyond or against the spec:
//! - Animation-only files also carry an FMDL group with one model `Skeleton` whose FSKL is the
//!   bound skeleton (6 bones for the bass, 135 for the Gerudo queen); bones carry the Euler flag
//!   (bit 12) and Euler rest rotations with W = 1.
//! - Mario Kart 8 (3.4.0.4) bone animations set no curve bit (see `lint::CURVE_BITS_FROM`).
//! - FSKL/Bone layout (not in the spec; from public implementations, verified on the corpus):
//!   see `fskl`.
//! - FSKA user data (53 of 111 animations in `Npc_Gerudo_Queen_Animation`): the index group
//!   follows the last bone's data and the entries (`off name; u16 count; u8 type; u8 pad;
//!   values`) follow the group, in storage order. With it, all 148 retail FSKA/FSHU/FVIS/FTXP
//!   subfiles rewrite byte for byte from their parsed form.
//! - The empty-array rule (§2.4) holds even across subfiles: the last bone of an FSKA with no
//!   curves points its curve array at the next subfile's header.
//! - bakedSize follows §8 (`4n + 20` float, `n + 8` s8 step int, `4·ceil(n/32) + 8` bool) on every
//!   corpus subfile; §5.6 delta and §5.4 continuity (≤ 2 units over 229,083 segments) hold.
//! - §5.7 quantiser: re-quantising the decoded coefficients of the 14,678 s8/s16 curves gives the
//!   stored keys for 14,591 (all within 1 unit) and bit-identical scale and offset for 12,688; the
//!   rest differ by a few ULPs because the original unquantised floats are lost.
//! - FSHU, FSKA and FVIS subfiles of one file may share a name (clip names repeat in the model).
//! - `Animal_Bass.bfres` has an embedded-file group whose entry points at the embedded-file
//!   record (`off data; u32 size`) right after the header; its data lies after the string pool
//!   with the GPU data.

pub(crate) mod anims;
pub(crate) mod bind;
pub mod build;
pub mod curve;
pub mod dict;
pub(crate) mod dump;
pub(crate) mod encode;
pub(crate) mod euler;
pub(crate) mod fmaa;
pub(crate) mod fmdl;
pub mod fres;
pub(crate) mod from_model;
pub mod fshu;
pub mod fska;
pub(crate) mod fskl;
pub mod ftxp;
pub mod fvis;
pub(crate) mod layout;
pub(crate) mod lint;
pub(crate) mod not_carried;
pub mod platform;
pub(crate) mod stored;
pub(crate) mod strings;
pub(crate) mod subfile;
pub(crate) mod sweep;
pub(crate) mod switch_build;
pub(crate) mod switch_replace;
pub mod switch_write;
pub(crate) mod union;
pub(crate) mod unroll;

use bytes::Bytes;

use crate::error::{Error, ErrorKind, Result};
use crate::format::Param;
use crate::format::Repaired;
use crate::format::{Capabilities, Confidence, Document, Format, ReadOptions, WriteOptions, Written};
use crate::lint::Finding;
use crate::model::{Clip, Package, Target, Track, Values};
use anims::Listing;
use fres::FresFile;

/// The `model` read parameter: the model whose skeleton the animations bind to ([`bind`]).
fn model_param(options: &ReadOptions) -> Option<&str> {
    options.params.get("model").map(String::as_str)
}

/// The note on which model's skeleton the skeletal animations bind to (none without
/// animations), or why it could not be found.
fn binding_note(data: &[u8], listing: Listing, options: &ReadOptions) -> Option<String> {
    let fskas = listing.count(anims::Kind::Skeletal);
    match listing.binding(data, model_param(options)) {
        Ok(Some(binding)) => Some(binding.note()),
        Ok(None) if fskas > 0 => Some(bind::unbound_note(usize::from(fskas))),
        Ok(None) => None,
        Err(e) => Some(format!("skeleton: {e}")),
    }
}

/// The BFRES format.
pub struct Bfres;

impl Format for Bfres {
    fn name(&self) -> &'static str {
        "bfres"
    }

    fn description(&self) -> &'static str {
        "Nintendo BFRES (Wii U: FSKA skeletal, FTXP texture pattern, FSHU shader, FVIS visibility, FSKL skeleton; Switch: FSKA, FMAA, FBVS bone visibility and FSKL skeleton read, FSKA and FMAA written)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["bfres"]
    }

    fn read_params(&self) -> &'static [Param] {
        &[
            Param { key: "fps", values: "NUMBER", description: "frames per second of the stored frames (default 30)" },
            Param {
                key: "model",
                values: "NAME",
                description:
                    "the model whose skeleton the animations bind to (default: the one holding the most animated bones)",
            },
        ]
    }

    fn write_params(&self) -> &'static [Param] {
        &[
            Param {
                key: "rotation",
                values: "auto|quat|euler",
                description: "how FSKA curves store bone rotations (default auto: as read for a clip read from BFRES, else Euler where it follows the clip within 0.035°, else quat)",
            },
            Param {
                key: "fps",
                values: "NUMBER",
                description: "frames per second to store keys at (default the clip's rate, else 30)",
            },
            Param {
                key: "platform",
                values: "wiiu|switch",
                description: "wiiu (default; 4.5.0.3, every animation kind) or switch (0.8.0.0, skeletal animations; the default when converting a Switch file)",
            },
        ]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: true, dump: true, archive: false, skeleton: true }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        if fres::is_switch(bytes) {
            return Confidence::Certain;
        }
        match bytes.get(..4) {
            Some(b"FRES") if bytes.get(8..10) == Some(&[0xFE, 0xFF]) && bytes.len() >= fres::HEADER_SIZE => {
                Confidence::Certain
            }
            Some(b"FRES") => Confidence::Likely,
            _ => Confidence::No,
        }
    }

    fn explain_reject(&self, bytes: &[u8]) -> Option<String> {
        match bytes.get(..4) {
            Some(b"Yaz0") => Some("the file is Yaz0-compressed (read it as yaz0)".into()),
            Some(b"FRES") if bytes.get(4..8) == Some(b"    ") => {
                Some("a Switch BFRES without the little-endian byte-order mark at 0x0C".into())
            }
            _ => None,
        }
    }

    fn read(&self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        Ok(Box::new(BfresDocument::read(bytes, options)?))
    }

    fn from_model(&self, package: &Package, options: &WriteOptions) -> Result<Written> {
        let (bytes, warnings) = match options.param("platform") {
            None | Some("wiiu") => from_model::from_model(package, options)?,
            Some("switch") => switch_build::from_model(package, options)?,
            Some(v) => return Err(Error::unrepresentable(format!("platform={v}: expected wiiu or switch"))),
        };
        let document = Bfres.read(Bytes::from(bytes), &ReadOptions::default())?;
        Ok(Written { document, warnings })
    }

    fn undump(&self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        if value.get("platform").and_then(|p| p.as_str()) == Some("switch") {
            let dump: switch_write::SwitchDump =
                serde_json::from_value(value).map_err(|e| Error::invalid(0, format!("Switch BFRES dump: {e}")))?;
            let bytes = Bytes::from(switch_write::from_dump(&dump)?);
            return Ok(Box::new(BfresDocument::read(bytes, &ReadOptions::default())?));
        }
        let d: dump::DumpFile = crate::raw_json::from_value(value, "BFRES dump")?;
        Ok(Box::new(BfresDocument::new(dump::from_dump(d)?)))
    }
}

/// The `fps` read parameter (default 30): BFRES stores frames, not seconds (§5.5).
fn fps(options: &ReadOptions) -> Result<f32> {
    match options.params.get("fps") {
        None => Ok(30.0),
        Some(v) => v
            .parse::<f32>()
            .ok()
            .filter(|f| f.is_finite() && *f > 0.0)
            .ok_or_else(|| Error::new(ErrorKind::Invalid, None, format!("fps={v} is not a positive number"))),
    }
}

/// What a document holds besides the bytes.
enum Raw {
    /// A Wii U file's raw layer.
    WiiU(FresFile),
    /// A Switch file's header (its animations are read from the bytes on demand).
    Switch(fres::SwitchHeader),
}

/// A parsed BFRES file of either platform.
pub struct BfresDocument {
    raw: Raw,
    /// The file's bytes (Wii U: what [`fres::write`] gives for the raw layer); subfiles are
    /// interpreted from them.
    data: Bytes,
    options: ReadOptions,
}

/// A Switch BFRES: the document of either platform.
pub type SwitchDocument = BfresDocument;

impl BfresDocument {
    /// Reads a BFRES of either platform; on Switch the header, and every FSKA, FMAA and model
    /// skeleton (so structural errors surface at read time).
    pub fn read(bytes: Bytes, options: &ReadOptions) -> Result<BfresDocument> {
        let options = options.clone();
        if !fres::is_switch(&bytes) {
            return Ok(BfresDocument { raw: Raw::WiiU(fres::read(&bytes)?), data: bytes, options });
        }
        let header = fres::read_switch_header(&bytes)?;
        let listing = Listing::Switch(&header);
        listing.fskas(&bytes)?;
        listing.skeletons(&bytes)?;
        switch_write::read_fmaas(&bytes, &header)?;
        Ok(BfresDocument { raw: Raw::Switch(header), data: bytes, options })
    }

    /// The Wii U document of `file` (its bytes written once).
    pub fn new(file: FresFile) -> Self {
        let data = Bytes::from(fres::write(&file));
        BfresDocument { raw: Raw::WiiU(file), data, options: ReadOptions::default() }
    }

    /// The file's bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// This Switch file with the skeletal animation named like `clip` replaced by it
    /// (`switch_replace::replace_clip`), read back.
    pub fn with_clip(&self, clip: &Clip) -> Result<BfresDocument> {
        let bytes = switch_replace::replace_clip(&self.data, clip, fps(&self.options)?)?;
        BfresDocument::read(Bytes::from(bytes), &self.options)
    }

    /// What the file lists.
    fn listing(&self) -> Listing<'_> {
        match &self.raw {
            Raw::WiiU(file) => Listing::WiiU(&file.header),
            Raw::Switch(header) => Listing::Switch(header),
        }
    }

    /// The header counts `info` shows: Wii U the alignment and index groups, Switch the
    /// platform and the counts of its arrays.
    fn counts(&self) -> Vec<String> {
        let (mut notes, counts) = match &self.raw {
            Raw::WiiU(file) => {
                let h = &file.header;
                (vec![format!("alignment {}", h.alignment)], h.counts.iter().copied().zip(fres::GROUP_NAMES).collect())
            }
            Raw::Switch(h) => {
                let [models, skeletal, material, bone_visibility, _, _, embedded] = h.stored.counts;
                let counts = vec![
                    (skeletal, "skeletal animations"),
                    (material, "material animations"),
                    (models, "models"),
                    (bone_visibility, "bone visibility animations"),
                    (embedded, "embedded files (not read)"),
                ];
                (vec![fres::PLATFORM_NOTE.to_string()], counts)
            }
        };
        notes.extend(counts.into_iter().filter(|c| c.0 > 0).map(|(n, what)| format!("{n} {what}")));
        notes
    }
}

/// The one clip with bone tracks of `package` to put in place of the skeletal animation `name`:
/// the clip of that name, or the only one (renamed).
fn replacement_clip(package: Package, name: &str) -> Result<Clip> {
    // What a Switch file holds from the model: bone tracks (FSKA), texture-pattern and
    // shader-parameter tracks (FMAA).
    let writable = |t: &Track| {
        matches!(t.target, Target::Bone(_)) || matches!(t.values, Values::TextureIndex { .. } | Values::Scalar(_))
    };
    let mut clips: Vec<Clip> = package.clips.into_iter().filter(|c| c.tracks.iter().any(writable)).collect();
    if let Some(i) = clips.iter().position(|c| c.name == name) {
        return Ok(clips.swap_remove(i));
    }
    let count = clips.len();
    match clips.pop() {
        Some(only) if count == 1 => Ok(Clip { name: name.to_string(), ..only }),
        _ => Err(Error::invalid(
            0,
            format!("the replacement holds {count} clips with bone or material tracks and none named \"{name}\""),
        )),
    }
}

impl Document for BfresDocument {
    fn format(&self) -> &'static dyn Format {
        &Bfres
    }

    fn version(&self) -> String {
        match &self.raw {
            Raw::WiiU(file) => file.header.version_string(),
            Raw::Switch(header) => header.version_string(),
        }
    }

    /// Wii U: the raw layer written. Switch: the bytes read, or those a replacement wrote
    /// ([`Self::with_clip`]); writing them again from the parsed tables gives the same bytes
    /// ([`switch_write::rewrite`], tested on every corpus file).
    fn write(&self) -> Result<Vec<u8>> {
        Ok(match &self.raw {
            Raw::WiiU(file) => fres::write(file),
            Raw::Switch(_) => self.data.to_vec(),
        })
    }

    fn to_model(&self) -> Result<Package> {
        let options = &self.options;
        anims::to_model(&self.data, self.listing(), fps(options)?, &options.limits, model_param(options))
    }

    /// Wii U: `dump`; Switch: the structured dump of `switch_write`.
    fn dump(&self) -> Result<serde_json::Value> {
        match &self.raw {
            Raw::WiiU(file) => serde_json::to_value(dump::to_dump(file, &self.data))
                .map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string())),
            Raw::Switch(_) => serde_json::to_value(switch_write::to_dump(&self.data)?)
                .map_err(|e| Error::invalid(0, format!("Switch BFRES dump: {e}"))),
        }
    }

    fn lint(&self) -> Vec<Finding> {
        match &self.raw {
            Raw::WiiU(file) => lint::lint(file, &self.data),
            Raw::Switch(header) => lint::lint_switch(&self.data, header),
        }
    }

    fn repair(&self) -> Result<Repaired> {
        let (document, changes) = match &self.raw {
            Raw::WiiU(file) => {
                let (file, changes) = lint::repair(file, &self.data);
                (BfresDocument::new(file), changes)
            }
            Raw::Switch(_) => (BfresDocument::read(self.data.clone(), &self.options)?, Vec::new()),
        };
        Ok(Repaired { document: Box::new(document), changes })
    }

    /// The models, textures and embedded files the model does not carry (Wii U:
    /// `fmdl::unconverted`), and the shape and scene animations (`not_carried`).
    fn not_in_model(&self) -> Vec<String> {
        let mut lines = match &self.raw {
            Raw::WiiU(file) => match fmdl::unconverted(&self.data, &file.header) {
                Ok(sentence) => sentence.into_iter().collect(),
                Err(e) => vec![format!("models: {e}")],
            },
            Raw::Switch(_) => Vec::new(),
        };
        lines.extend(not_carried::lines(&self.data, self.listing()));
        lines
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = self.counts();
        notes.extend(binding_note(&self.data, self.listing(), &self.options));
        notes.extend(self.not_in_model());
        notes.extend(anims::texture_tables(&self.data, self.listing()));
        notes
    }

    /// Replaces the skeletal animation `name` of a Switch file by the clip of that name (or the
    /// only clip with bone tracks) of `data`, a BFRES (Wii U or Switch; convert a file of another
    /// format to BFRES first), through [`Self::with_clip`]; `animkit replace ARCHIVE
    /// …/file.bfres/NAME NEW` reaches it through the containers.
    fn with_entry(&self, name: &str, data: Bytes) -> Result<Box<dyn Document>> {
        if let Raw::WiiU(_) = self.raw {
            return Err(Error::unsupported(format!("bfres holds no replaceable entries (asked for \"{name}\")")));
        }
        if Bfres.probe(&data) == Confidence::No {
            return Err(Error::unsupported(
                "the replacement of an animation inside a Switch BFRES must be a BFRES file: convert it first \
                 (`animkit convert NEW new.bfres --opt platform=switch`)",
            ));
        }
        let package = Bfres.read(data, &self.options).map_err(|e| e.within("the replacement"))?.to_model()?;
        Ok(Box::new(self.with_clip(&replacement_clip(package, name)?)?))
    }
}
