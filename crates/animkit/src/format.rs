//! What every format implements: the [`Format`] and [`Document`] traits and the types they speak
//! in (options, summaries, archive entries, written and repaired documents).
//!
//! A format module imports this file, the model and the byte-level helpers, never another format
//! or the registry ([`crate::registry`]): conversion goes through the model, and a container that
//! reads the files it holds is handed the registry when it is made.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use serde::Serialize;

pub use crate::budget::{Budget, Limits, Resource, LIMIT_NAMES};
use crate::error::{Error, Result};
use crate::lint::Finding;
use crate::model::{BoneRef, Channel, Interpolation, Package, Target};

/// How sure a probe is that the bytes are in its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Confidence {
    /// Not this format.
    No,
    /// Plausible (a short or common magic).
    Likely,
    /// The magic and the first structures check out.
    Certain,
}

/// What a format implements.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    /// Reads files and writes them back byte-identically.
    pub read: bool,
    /// Converts to the model.
    pub to_model: bool,
    /// Writes new files from the model.
    pub from_model: bool,
    /// Lossless JSON dump and pack.
    pub dump: bool,
    /// Holds other assets that `extract` can take out.
    pub archive: bool,
    /// Holds a skeleton usable with `--skeleton`.
    pub skeleton: bool,
}

/// Options for reading: `ReadOptions::default()` and the `with_*` setters
/// (`ReadOptions::default().with_lenient(true).with_param("skb_version", "1")`).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Read past damage where the format allows (drop truncated records) instead of failing;
    /// what was dropped is reported by [`Document::lint`].
    pub lenient: bool,
    /// Resource limits for this input (defaults scale with its size).
    pub limits: Limits,
    /// The budget of the top-level input this read is nested in (set by containers for their
    /// members, [`ReadOptions::nested`]); `None` for a top-level read, which creates its own
    /// from `limits` and its size ([`ReadOptions::budget`]).
    pub budget: Option<Arc<Budget>>,
    /// Format-specific settings (`key=value`), e.g. `skb_version=1`.
    pub params: BTreeMap<String, String>,
    /// A skeleton that names and binds the tracks (CryEngine controllers are CRC-32s of bone
    /// names). [`crate::read`] and [`crate::open_with`] load it from a `skeleton=PATH` setting.
    pub skeleton: Option<Arc<crate::model::Skeleton>>,
    /// Zstandard dictionaries that frames may name (RFC 8878 §5; Tears of the Kingdom needs
    /// them). [`crate::read`] and [`crate::open_with`] load them from a `zstd_dict=PATH` setting.
    pub zstd_dictionaries: Arc<[Bytes]>,
}

/// The read setting naming a file whose skeleton names the tracks: `skeleton=PATH`.
pub const SKELETON_PARAM: &str = "skeleton";

impl ReadOptions {
    /// The budget of the input being read: the one this read is nested in, or a new one for an
    /// input of `input_len` bytes when this is the top-level read.
    pub fn budget(&self, input_len: usize) -> Arc<Budget> {
        match &self.budget {
            Some(b) => Arc::clone(b),
            None => Budget::for_input(input_len, &self.limits),
        }
    }

    /// These options for reading a file nested in the input that `budget` belongs to.
    pub fn nested(&self, budget: &Arc<Budget>) -> ReadOptions {
        ReadOptions { budget: Some(Arc::clone(budget)), ..self.clone() }
    }

    /// These options with [`ReadOptions::lenient`] set to `lenient`.
    pub fn with_lenient(self, lenient: bool) -> ReadOptions {
        ReadOptions { lenient, ..self }
    }

    /// These options with these [`ReadOptions::limits`].
    pub fn with_limits(self, limits: Limits) -> ReadOptions {
        ReadOptions { limits, ..self }
    }

    /// These options with the setting `key=value` added to [`ReadOptions::params`].
    pub fn with_param(mut self, key: impl Into<String>, value: impl Into<String>) -> ReadOptions {
        self.params.insert(key.into(), value.into());
        self
    }

    /// These options with these settings in place of [`ReadOptions::params`].
    pub fn with_params(self, params: BTreeMap<String, String>) -> ReadOptions {
        ReadOptions { params, ..self }
    }

    /// These options with this [`ReadOptions::skeleton`].
    pub fn with_skeleton(self, skeleton: Arc<crate::model::Skeleton>) -> ReadOptions {
        ReadOptions { skeleton: Some(skeleton), ..self }
    }
}

/// Options for writing from the model: `WriteOptions::default()` and the `with_*` setters
/// (`WriteOptions::default().with_variant("anpk")`).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct WriteOptions {
    /// One of [`Format::variants`]; `None` for the format's default.
    pub variant: Option<String>,
    /// Format-specific settings (`key=value`), e.g. `overflow=error`.
    pub params: BTreeMap<String, String>,
}

impl WriteOptions {
    /// The value of the setting `key`, when given.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params.get(key).map(String::as_str)
    }

    /// These options with [`WriteOptions::variant`] set to `variant`.
    pub fn with_variant(self, variant: impl Into<String>) -> WriteOptions {
        WriteOptions { variant: Some(variant.into()), ..self }
    }

    /// These options with the setting `key=value` added to [`WriteOptions::params`].
    pub fn with_param(mut self, key: impl Into<String>, value: impl Into<String>) -> WriteOptions {
        self.params.insert(key.into(), value.into());
        self
    }
}

/// A format setting (`key=value` in [`ReadOptions::params`] or [`WriteOptions::params`]) that a
/// format declares through [`Format::read_params`] or [`Format::write_params`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Param {
    /// The key (`skb_version`).
    pub key: &'static str,
    /// The values it takes, e.g. `auto|none` or `NAME`.
    pub values: &'static str,
    /// One line saying what it does.
    pub description: &'static str,
}

/// A document made from the model, with what the conversion had to approximate.
pub struct Written {
    /// The new document.
    pub document: Box<dyn Document>,
    /// What the conversion approximated or dropped, one line per kind with counts.
    pub warnings: Vec<String>,
}

/// A repaired document and a description of every change.
pub struct Repaired {
    /// The canonical rewrite.
    pub document: Box<dyn Document>,
    /// One line per change made.
    pub changes: Vec<String>,
}

/// An asset inside an archive, for `extract`.
#[derive(Debug, Clone)]
pub struct Entry {
    /// A file name for the asset, unique within the archive.
    pub name: String,
    /// What the asset is (`ANIM`, `MODL`, `FSKA`…).
    pub kind: String,
    /// The asset's bytes.
    pub data: Bytes,
}

/// Checks that `new`, meant to replace the archive entry `name` whose data is `old`, reads as
/// `format` when `old` does, so a replacement cannot silently break an archive the game loads. An
/// entry `format` cannot read (a texture, a sound) may be replaced by anything.
pub fn check_replacement(format: &'static dyn Format, name: &str, old: &[u8], new: &Bytes) -> Result<()> {
    let options = ReadOptions::default();
    if format.read(Bytes::copy_from_slice(old), &options).is_err() {
        return Ok(());
    }
    match format.read(new.clone(), &options) {
        Ok(_) => Ok(()),
        Err(e) => Err(Error {
            message: format!("the new {name} does not read as {}, as the old one does: {}", format.name(), e.message),
            ..e
        }),
    }
}

/// A file format.
pub trait Format: Send + Sync {
    /// Short lower-case name used by `--to` and in dumps (`ifp`).
    fn name(&self) -> &'static str;
    /// One line for `animkit formats`.
    fn description(&self) -> &'static str;
    /// File extensions without the dot, lower-case.
    fn extensions(&self) -> &'static [&'static str];
    /// Names of the forms `from_model` can write (`anp3`, `anpk`); the first is the default.
    fn variants(&self) -> &'static [&'static str] {
        &[]
    }
    /// The `key=value` settings [`Format::read`] understands in [`ReadOptions::params`].
    fn read_params(&self) -> &'static [Param] {
        &[]
    }
    /// The `key=value` settings [`Format::from_model`] understands in [`WriteOptions::params`].
    fn write_params(&self) -> &'static [Param] {
        &[]
    }
    /// What this format implements.
    fn capabilities(&self) -> Capabilities;
    /// How sure this format is that `bytes` are its own. Must be cheap and never fail.
    fn probe(&self, bytes: &[u8]) -> Confidence;
    /// Why `bytes` with one of this format's extensions are not this format, if it can tell.
    fn explain_reject(&self, _bytes: &[u8]) -> Option<String> {
        None
    }
    /// Parses a file. The document keeps everything needed to write it back byte for byte.
    /// (`&'static`: a document names the format that read it, [`Document::format`].)
    fn read(&'static self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>>;
    /// Builds a new document from the model. (`&self` is the format, not a conversion source.)
    #[allow(clippy::wrong_self_convention)]
    fn from_model(&self, package: &Package, options: &WriteOptions) -> Result<Written>;
    /// The inverse of [`Document::dump`].
    fn undump(&'static self, value: serde_json::Value) -> Result<Box<dyn Document>>;
}

/// A parsed file: the exact raw layer of one format.
pub trait Document: Send + Sync + Any {
    /// The format that read or made this document.
    fn format(&self) -> &'static dyn Format;
    /// The format version or variant as the file states it (`ANP3`, `V1 big-endian`).
    fn version(&self) -> String;
    /// The file's bytes: identical to the input when nothing was changed.
    fn write(&self) -> Result<Vec<u8>>;
    /// The engine-neutral model of the document: clips, tracks and the skeleton.
    fn to_model(&self) -> Result<Package>;
    /// [`Document::to_model`] with what the conversion to the model changed or could not keep,
    /// summarised (one line per kind, with counts). Most formats convert without remarks.
    fn to_model_with_warnings(&self) -> Result<(Package, Vec<String>)> {
        Ok((self.to_model()?, Vec::new()))
    }
    /// What the file holds that its model does not carry (models, textures, embedded files), one
    /// line per kind with counts: a conversion drops it, and says so with these lines.
    fn not_in_model(&self) -> Vec<String> {
        Vec::new()
    }
    /// The model split into one package per skeleton (one per character), for archives whose
    /// clips bind to different skeletons; each package's `name` says which. The default is
    /// [`Document::to_model`] alone. `convert` into a directory writes one file per package.
    fn packages(&self) -> Result<Vec<Package>> {
        Ok(vec![self.to_model()?])
    }
    /// Lossless JSON of the raw structure, for hand editing.
    fn dump(&self) -> Result<serde_json::Value>;
    /// Every problem found, with offsets and severities.
    fn lint(&self) -> Vec<Finding>;
    /// A canonical rewrite that fixes what `lint` reports as fixable.
    fn repair(&self) -> Result<Repaired>;
    /// Short notes on noteworthy properties for `info` (quirks, how a version was decided).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// What `info` shows: clips, durations, tracks and key counts. The default builds the model;
    /// a format may compute the same summary from its raw layer, faster and in less memory.
    fn summary(&self) -> Result<Summary> {
        Ok(Summary::of(&self.to_model()?))
    }
    /// The assets inside an archive.
    fn entries(&self) -> Result<Vec<Entry>> {
        Ok(Vec::new())
    }
    /// A copy of this archive in which the entry `name` (as [`Document::entries`] names it) holds
    /// `data`: the inverse of `extract`. An entry inside a nested archive is named by its path,
    /// `outer/inner` (an archive wrapping a single file, Yaz0, passes any name on to it). An entry
    /// animkit can read must be replaced by a file of the same format ([`check_replacement`] through the registry).
    fn with_entry(&self, name: &str, _data: Bytes) -> Result<Box<dyn Document>> {
        Err(Error::unsupported(format!("{} holds no replaceable entries (asked for \"{name}\")", self.format().name())))
    }
}

impl dyn Document {
    /// The concrete document, when this is a `T` (as `dyn Error::downcast_ref`): for code that
    /// reads one format's raw structures.
    pub fn downcast_ref<T: Document>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref::<T>()
    }
}

/// What `info` reports of a document: equal to [`Summary::of`] its model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Every clip, in file order.
    pub clips: Vec<ClipSummary>,
    /// The number of bones of the package's skeleton, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skeleton_bones: Option<usize>,
}

/// One clip of a [`Summary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ClipSummary {
    /// The clip's name.
    pub name: String,
    /// Its duration in seconds.
    pub duration_s: f32,
    /// Its tracks.
    pub tracks: Vec<TrackSummary>,
}

/// One track of a [`ClipSummary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TrackSummary {
    /// A readable label of the target ([`Target::label`]).
    pub target: String,
    /// The bone reference, for bone targets.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub bone: Option<BoneRef>,
    /// What the track animates.
    pub channel: Channel,
    /// How values between keys are computed.
    pub interpolation: Interpolation,
    /// The number of keys.
    pub keys: usize,
}

impl TrackSummary {
    /// The summary of one track.
    pub fn new(target: &Target, channel: Channel, interpolation: Interpolation, keys: usize) -> Self {
        TrackSummary { target: target.label(), bone: target.bone().cloned(), channel, interpolation, keys }
    }
}

impl Summary {
    /// The summary of a model.
    pub fn of(package: &Package) -> Summary {
        let clips = package
            .clips
            .iter()
            .map(|c| ClipSummary {
                name: c.name.clone(),
                duration_s: c.duration,
                tracks: c
                    .tracks
                    .iter()
                    .map(|t| TrackSummary::new(&t.target, t.channel(), t.interpolation, t.key_count()))
                    .collect(),
            })
            .collect();
        Summary { clips, skeleton_bones: package.skeleton.as_ref().map(|s| s.bones.len()) }
    }
}
