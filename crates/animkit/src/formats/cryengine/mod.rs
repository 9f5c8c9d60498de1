//! CryEngine animation: `.caf`, `.i_caf`, `.dba`, `.chr` skeletons, and Star Citizen `#ivo`.
//!
//! Spec: `shared/formats/cryengine.md`. Layers: `chunkfile` (exact container: header, table,
//! chunk bytes and gaps; byte-identical write: [`ChunkFile`]), [`raw`] (every chunk structure
//! animkit reads, declared once: fixed chunks, compressed controllers with their stored codes,
//! DBA track databases, CompiledBones; also the lossless JSON of `dump`/`pack`), and the model
//! side: `quat_codecs` and `time_formats` (stored keys to rotations and frames), `controller`
//! (controllers to model-convention keys), `dba` (0x905 clips), `skeleton` (CompiledBones to a
//! skeleton), `ivo` (Star Citizen), `model` (to the model), `build` (a CAF from the model),
//! `lint`, `survey` (what the model does not show: chunk versions not read, uncompiled or
//! missing controllers).
//!
//! Big-endian chunks (§1.5) decode for every controller version. For the compressed controllers
//! 0x829 / 0x831 / 0x832 the spec leaves the byte order of the codecs open; the raw layer assumes
//! CryEngine's per-struct `SwapEndian`: each scalar and each codec storage word (f32, `i16`×3,
//! `u32`, `u16`×3, `u64`) is swapped at its width, after which the bits decode as little-endian.
//! Big-endian DBA 0x905 is unsupported.
//!
//! Observed in the corpus (16 real files) beyond the spec (`cryengine.md` §13 lists more):
//! - CrCh 0x746 files keep the table right after the 16-byte header and the first chunk right
//!   after the table. Chunk sizes leave out alignment padding in CrCh files as well as in 0x745
//!   ones (e.g. `ce5_run_fwd_3p_0832.caf`); the padding is zero and kept as gaps. Files end at
//!   the last chunk's end, without padding. No bytes lie outside header, table, chunks and
//!   padding; no chunk is big-endian.
//! - Compressed CAF key times use only Byte and UINT16; StartStop and Bitset appear only in the
//!   DBAs (Bitset there, sized in words including its 3-word header), so the StartStop/Bitset
//!   length ambiguity of §10 C12 never arises in a CAF; no 0x831 has the CE2 PQLog layout. Rotation formats seen: 0 (absent), 1, 5, 8; positions 0 (absent) and 2.
//! - Timing 0x918 in `.i_caf` files counts frames (`end − start` = key span: §10 C8 → frames).
//!   0x833 keys are one per frame from index 0 although Timing 0x919 says
//!   `startTimeInSeconds = 1/30`: the compiled 0x832 clip lines up with key index = frame.
//! - The compiled CE5 0x832 clip matches its 0x833 source within 9.0e-5 rad at its own keys, but
//!   by up to 4.3e-4 rad between them (the compiler's key reduction). Its root ("root") stores
//!   `p(f) − p(0)` (0.21 m per frame off the source otherwise).
//! - `ce3_ay69_look_add_0829_st64ext.caf` is named additive but carries only the cycle flag,
//!   with MotionParameters start 2, end 3.
//! - Controller ids always equal the CRC-32 of the case-preserved `.chr` bone name; no byte-swapped
//!   or lowercase ids occur.
//! - `ce3_skeleton_character.chr` carries a Timing 0x918 chunk: Timing alone does not make a file
//!   an animation (`survey`).
//! - `ce3_scar_fp_0905.dba` holds 105 time tracks for 90 distinct frame lists: its compiler
//!   shares most identical tracks, not all. Rewritten from the model with sharing it is 64 702
//!   bytes (source 64 352; 89 706 without sharing).
//!
//! Engine behaviour the spec leaves implicit (CE5 source): the CAF loader (`ParseChunkHeaders`)
//! reads uncompiled controllers (0x827, 0x828, 0x833) only when a file has no compiled one, and
//! aborts on any other controller version; rotations are interpolated by `Quat::SetNlerp`, which
//! tests `(p|q) < 0` on the two stored keys, summed x, y, z, w (`quat_codecs::continuous`); an
//! additive clip sampled alone is applied as `q_add · q_rest`, `t_add + t_rest`
//! (`SampleAddAnimFull`; see `interchange::gltf::additive`).

pub(crate) mod build;
pub(crate) mod chunkfile;
pub(crate) mod controller;
pub(crate) mod dba;
pub(crate) mod ivo;
pub(crate) mod lint;
pub(crate) mod model;
pub(crate) mod quat_codecs;
pub mod raw;
pub(crate) mod skeleton;
pub(crate) mod survey;
pub(crate) mod time_formats;

use bytes::Bytes;

use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    Capabilities, Confidence, Document, Format, Limits, Param, ReadOptions, Repaired, WriteOptions, Written,
    SKELETON_PARAM,
};
use crate::lint::Finding;
use crate::model::{Package, Skeleton};
pub use chunkfile::{Chunk, ChunkFile, Container, Gap};
pub use quat_codecs::controller_id;

/// The CryEngine format.
pub struct CryEngine;

impl Format for CryEngine {
    fn name(&self) -> &'static str {
        "cryengine"
    }

    fn description(&self) -> &'static str {
        "CryEngine 2/3/5 and Lumberyard CAF, i_caf, DBA and CHR skeletons; Star Citizen #ivo CAF/DBA"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["caf", "i_caf", "dba", "chr"]
    }

    fn variants(&self) -> &'static [&'static str] {
        &["caf", "crytek", "i_caf", "dba", "ivo", "ivo_dba"]
    }

    fn read_params(&self) -> &'static [Param] {
        &[
            Param {
                key: SKELETON_PARAM,
                values: "PATH",
                description: "a .chr (or any file with a skeleton) whose bones name the controllers and bind the clips",
            },
            Param {
                key: ivo::C2_LAYOUT_PARAM,
                values: "auto|planar|interleaved",
                description: "the layout of #ivo C2 position tracks (default: decided once per file)",
            },
        ]
    }

    fn write_params(&self) -> &'static [Param] {
        &[
            Param {
                key: "rotation",
                values: "st48|st64|st64ext|dword|shotint3|f32",
                description: "the rotation codec of compressed controllers (default st48)",
            },
            Param {
                key: "times",
                values: "auto|f32|uint16|byte|f32_startstop|uint16_startstop|byte_startstop|bitset",
                description: "one key-time format for every track instead of the smallest that fits",
            },
            Param { key: "clip", values: "NAME", description: "the clip to write when the package has several" },
            Param {
                key: "bone_names",
                values: "true|false",
                description: "false: no bone-name list chunk (controllers are named by CRC-32 only)",
            },
        ]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: true, dump: true, archive: false, skeleton: true }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        match chunkfile::sniff(bytes) {
            Some(Container::CryTek744 | Container::CryTek745) if bytes.len() >= 24 => Confidence::Certain,
            Some(Container::CrCh) if bytes.get(4..8) == Some(&[0x46, 0x07, 0, 0]) => Confidence::Certain,
            Some(Container::Ivo) if bytes.get(4..8) == Some(&[0, 9, 0, 0]) => Confidence::Certain,
            Some(_) => Confidence::Likely,
            None => Confidence::No,
        }
    }

    fn explain_reject(&self, bytes: &[u8]) -> Option<String> {
        if bytes.get(..4) == Some(b"CAF\0") {
            return Some(
                "it looks like a Cal3D animation file (magic \"CAF\\0\"), which shares the .caf extension; \
                 CryEngine files start with \"CryTek\", \"CrCh\" or \"#ivo\""
                    .into(),
            );
        }
        if bytes.get(..6) == Some(b"CryTek") {
            return Some("a CryTek chunk file of an unknown version (0x744 and 0x745 are known)".into());
        }
        Some("it has no CryTek, CrCh or #ivo magic".into())
    }

    fn read(&self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let c2_layout = match options.params.get(ivo::C2_LAYOUT_PARAM) {
            Some(value) => ivo::C2Layout::from_param(value)?,
            None => None,
        };
        let file = chunkfile::read(&bytes, options.lenient)?;
        if options.skeleton.is_none() && options.params.contains_key(SKELETON_PARAM) {
            return Err(Error::new(
                ErrorKind::Invalid,
                None,
                "skeleton=PATH is loaded by animkit::read or animkit::open_with; \
                 a format's reader takes the skeleton itself (ReadOptions::skeleton)",
            ));
        }
        let skeleton = options.skeleton.as_deref().cloned();
        let decoding = model::Decoding { lenient: options.lenient, c2_layout };
        Ok(Box::new(CryDocument { file, limits: options.limits, skeleton, decoding }))
    }

    fn from_model(&self, package: &Package, options: &WriteOptions) -> Result<Written> {
        let (file, warnings) = build::from_model(package, options)?;
        Ok(Written { document: Box::new(CryDocument::new(file)), warnings })
    }

    fn undump(&self, value: serde_json::Value) -> Result<Box<dyn Document>> {
        let file: ChunkFile = crate::raw_json::from_value(value, "CryEngine dump")?;
        // The magic must have its container's length, and every chunk must encode (a bone name
        // that is not Latin-1 cannot).
        file.write().map_err(|e| e.within("CryEngine dump"))?;
        Ok(Box::new(CryDocument::new(file)))
    }
}

/// A parsed CryEngine chunk file.
pub struct CryDocument {
    /// The chunk file as read.
    pub file: ChunkFile,
    limits: Limits,
    /// A skeleton given with the read options ([`ReadOptions::skeleton`]): names the tracks by
    /// controller id and is attached to the package.
    pub skeleton: Option<Skeleton>,
    /// How to decode what the file leaves open (read options `lenient`, `ivo_c2`).
    decoding: model::Decoding,
}

impl CryDocument {
    /// A document of `file` with default limits, no skeleton and default decoding.
    pub fn new(file: ChunkFile) -> Self {
        CryDocument { file, limits: Limits::default(), skeleton: None, decoding: model::Decoding::default() }
    }
}

impl Document for CryDocument {
    fn format(&self) -> &'static dyn Format {
        &CryEngine
    }

    fn version(&self) -> String {
        self.file.container.name().to_string()
    }

    fn write(&self) -> Result<Vec<u8>> {
        self.file.write()
    }

    fn to_model(&self) -> Result<Package> {
        let mut package = model::to_model_with(&self.file, &self.limits, self.decoding)?;
        if let Some(skel) = &self.skeleton {
            model::name_tracks(&mut package.clips, skel);
            if package.skeleton.is_none() {
                package.skeleton = Some(skel.clone());
            }
        }
        Ok(package)
    }

    fn dump(&self) -> Result<serde_json::Value> {
        crate::raw_json::to_value(&self.file.structured())
    }

    fn lint(&self) -> Vec<Finding> {
        lint::lint_with(&self.file, self.decoding.c2_layout)
    }

    fn repair(&self) -> Result<Repaired> {
        let (file, changes) = lint::repair(&self.file)?;
        Ok(Repaired { document: Box::new(CryDocument::new(file)), changes })
    }

    fn notes(&self) -> Vec<String> {
        survey::notes_with(&self.file, self.decoding)
    }
}
