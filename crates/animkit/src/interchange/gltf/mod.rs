//! glTF 2.0: export of the model to GLB / `.gltf`, and import of glTF animations into the model.
//!
//! Variants: `glb` (binary container: JSON chunk + BIN chunk, the default) and `gltf` (JSON with
//! the one buffer embedded as a `data:` URI). The "raw layer" of a glTF file is its bytes: a read
//! document writes back exactly the bytes it was read from; `dump` is the glTF JSON itself (for a
//! GLB, the BIN chunk is put into `buffers[0].uri` as a `data:` URI so the dump stands alone), and
//! `pack` makes a `.gltf` document from such JSON. For documents animkit writes, dump → pack →
//! write of the `gltf` variant is byte-identical (the writer serialises the same JSON value).
//!
//! ## Export (`export`)
//! - One glTF animation per clip; channels `rotation`, `translation`, `scale`; times in seconds.
//! - `Slerp`/`Linear` → `LINEAR` (rotations normalised and made hemisphere-continuous first),
//!   `Step` → `STEP`, `CubicSpline` → `CUBICSPLINE` (in-tangent, value, out-tangent per key, as
//!   the model stores it; values normalised, tangents untouched; a one-key cubic becomes `STEP`).
//! - `Nlerp` rotations are resampled: each segment is split into 2^k equal parts (k ≤ 10) until
//!   glTF's slerp through the samples is within **1e-5 rad** of rotation angle of the engine's
//!   nlerp (checked at 7 points per part; nlerp and slerp follow the same great arc, so the only
//!   error is timing along it). Segments under ~0.03 rad need no extra keys; 1 rad needs 256.
//! - glTF needs strictly increasing times ≥ 0 (`ifp.md` §7.2): keys before 0 s are cut at 0 s
//!   with the value (and for cubics the derivative) the model has there; a repeated key time `t`
//!   moves to `t + 1e-4` s (less when the next key is closer, so it stays below it).
//! - Nodes: from `package.skeleton` (tracks bound with `Skeleton::find`; unmatched targets become
//!   extra root nodes, with a warning); without a skeleton, one flat node per distinct track target
//!   (warning). Bone ids and hashes go into node `extras.animkit`. A skin always lists every bone
//!   node (three.js treats only skin joints as bones), with inverse bind matrices from the rest
//!   pose, carried by a tiny mesh (one 1 cm triangle per joint, fully weighted to it) on a root
//!   node without a transform, as the validator wants.
//! - `UpAxis::Z`: every bone is parented under a root node `animkit_z_up` rotated −90° about X
//!   (`extras.animkit.role = "up_axis_z"`), through an identity `animkit_root` node (below);
//!   keys are untouched. Blender's importer makes the joints' parent node the armature object
//!   and still places the bones by their world transforms: with `animkit_z_up` as that parent
//!   the rotation applied twice and the rest pose lay on its back (measured with Blender 4.5:
//!   a CryEngine pelvis at Y 0.98 instead of Z 0.98). The skinned mesh is a child of the Z-up
//!   node (the inverse bind matrices hold the rotation); spec viewers ignore a skinned mesh's
//!   parents, and the validator's advisory about it (`NODE_SKINNED_MESH_NON_ROOT`) is expected.
//! - `UpAxis::Z`, or `UpAxis::Y` with several root bones (flat nodes without a skeleton, track
//!   targets missing from the skeleton): the root bones are parented under an identity node
//!   `animkit_root` (`extras.animkit.role = "common_root"`, removed again on import); the
//!   validator requires the joints of a skin to share a root (`SKIN_NO_COMMON_ROOT`, seen on a
//!   standalone SKB `.anm` exported without a skeleton).
//! - Anything that is not a node channel — texture-index, scalar and visibility tracks, material
//!   targets, a second track for the same node and channel, tracks without keys — goes into the
//!   animation's `extras.animkit.tracks` as the model's own JSON (lossless) with its track index
//!   and a reason, and is named in the warnings. Clips without any node channel go into the root
//!   `extras.animkit.empty_clips`. Clip duration, looping, additive and frame rate are kept in the
//!   animation's extras; a track reference that differs from its node's (e.g. name only) and an
//!   interpolation glTF cannot name (`Nlerp`, `Linear` rotations) are kept in channel extras.
//!
//! ## Import (`import`)
//! `LINEAR` → `Slerp` (rotations) / `Linear`, `STEP` → `Step`, `CUBICSPLINE` → `CubicSpline`.
//! Rotation keys are made sign-continuous (each key in the hemisphere of the previous one:
//! Blender writes q and −q alternately, which an engine that interpolates the stored signs
//! plays as a 180° flip).
//! With a skin, the bones are its joints, in joint order (with several skins, the one whose
//! joints the animations target most, with a note); nodes that are not joints (Blender's
//! armature object) are not bones, their transform goes into the root bones' rest pose, and
//! channels on them are skipped and counted. Without a skin, the bones are the animated nodes
//! and their ancestors. Bones are named after the nodes; the skeleton comes from the node tree.
//! Our Z-up root node (known by its extras, else by its name, as Blender drops the extras
//! unless "Custom Properties" is ticked) is removed (and `up_axis = Z`).
//! Files written by other tools are tidied (`tidy`): tracks constant at the rest pose are
//! dropped (`--opt keep_constant=true` keeps them), key times near the frames of the clip's
//! rate (`--opt fps=N` where the file has none) are snapped, and bones without ids or hashes
//! are counted; each in one summary line ([`crate::Document::to_model_with_warnings`]).
//! The extras written by the exporter restore what glTF cannot say; without them, a generic
//! glTF file still imports (accessors of any component type, normalised integers, byte strides).
//! Morph-target `weights` channels are skipped and named in `notes()`.
//!
//! ## Observed
//! - Real IFP data has negative key times (e.g. `levelxre_uncompressed.ifp`, first key at
//!   −1/3 s): such tracks are cut at 0 s. Of the 15,648 corpus tracks, 2 change their keys this
//!   way; all others export key for key (repeated times moved by ≤ 1e-4 s).
//! - The Khronos validator warns (`ACCESSOR_JOINTS_USED_ZERO_WEIGHT`) when an unused joint slot
//!   (weight 0) holds anything but joint 0, so the marker mesh writes `[j, 0, 0, 0]`.
//! - three.js (r187) plays the exports to within 5e-7 of [`crate::sample::sample`] (as a
//!   direction) on the VC ped package and within 3e-5 on SA's (`tests/gltf_node.rs`): the model
//!   keeps SA's stored quaternions, up to 5e-4 off unit length, which the game slerps before it
//!   normalises, while glTF holds them normalised.

pub(crate) mod additive;
mod base64;
pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod json;
mod keys;
pub(crate) mod schema;
mod skin;
pub(crate) mod tidy;

use std::ops::Range;

use bytes::Bytes;
use serde_json::Value;

use crate::bytes::{Cursor, Endian};
use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    Capabilities, Confidence, Document, Format, Limits, Param, ReadOptions, Repaired, WriteOptions, Written,
};
use crate::lint::{Finding, Severity};
use crate::model::Package;
pub use base64::base64_encode;
use base64::data_uri;
use json::GltfJson;

const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The glTF 2.0 format.
pub struct Gltf;

impl Format for Gltf {
    fn name(&self) -> &'static str {
        "gltf"
    }

    fn description(&self) -> &'static str {
        "glTF 2.0 (GLB or .gltf with an embedded buffer): export and import of skeletal animation"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["glb", "gltf"]
    }

    fn variants(&self) -> &'static [&'static str] {
        &["glb", "gltf"]
    }

    fn read_params(&self) -> &'static [Param] {
        &[
            Param {
                key: "keep_constant",
                values: "true|false",
                description: "true: keep tracks of other tools' files that only hold the rest pose (default: dropped)",
            },
            Param {
                key: "fps",
                values: "N",
                description: "the clips' frame rate, for files that do not say it (Blender's): key times near its frames are snapped",
            },
        ]
    }

    fn write_params(&self) -> &'static [Param] {
        &[Param {
            key: additive::ADDITIVE_PARAM,
            values: "keep|bake",
            description: "bake: additive clips applied to the skeleton's rest pose (glTF has no additive blending)",
        }]
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { read: true, to_model: true, from_model: true, dump: true, archive: false, skeleton: true }
    }

    fn probe(&self, bytes: &[u8]) -> Confidence {
        if bytes.starts_with(GLB_MAGIC) {
            return if bytes.get(4..8) == Some(&2u32.to_le_bytes()[..]) {
                Confidence::Certain
            } else {
                Confidence::Likely
            };
        }
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let start = text.iter().position(|b| !b.is_ascii_whitespace());
        if start.and_then(|s| text.get(s)) == Some(&b'{') {
            // Keys may come in any order (ours are sorted, so "asset" follows the accessors).
            if text.windows(7).any(|w| w == b"\"asset\"") {
                return Confidence::Likely;
            }
        }
        Confidence::No
    }

    fn explain_reject(&self, bytes: &[u8]) -> Option<String> {
        Some(match bytes.get(..4) {
            Some(m) if m == GLB_MAGIC => "unsupported GLB version".into(),
            _ => "neither a GLB (magic \"glTF\") nor a JSON object with an \"asset\"".into(),
        })
    }

    fn read(&self, bytes: Bytes, options: &ReadOptions) -> Result<Box<dyn Document>> {
        let import = tidy::ImportOptions::from_params(&options.params)?;
        let mut document = GltfDocument::parse(bytes, options.limits)?;
        document.import = import;
        Ok(Box::new(document))
    }

    fn from_model(&self, package: &Package, options: &WriteOptions) -> Result<Written> {
        let glb = match options.variant.as_deref() {
            None | Some("glb") => true,
            Some("gltf") => false,
            Some(v) => return Err(Error::unsupported(format!("unknown glTF variant \"{v}\" (glb or gltf)"))),
        };
        let mut exported = export::export_with(package, options)?;
        let warnings = std::mem::take(&mut exported.warnings);
        let document = GltfDocument::from_export(exported, glb)?;
        Ok(Written { document: Box::new(document), warnings })
    }

    fn undump(&self, value: Value) -> Result<Box<dyn Document>> {
        let text = serde_json::to_vec(&value).map_err(|e| Error::new(ErrorKind::Invalid, None, e.to_string()))?;
        Ok(Box::new(GltfDocument::parse(Bytes::from(text), Limits::default())?))
    }
}

/// A glTF file: its exact bytes, the parsed JSON and the resolved buffers.
pub struct GltfDocument {
    bytes: Bytes,
    glb: bool,
    /// Where the JSON text lies in `bytes`.
    json_range: Range<usize>,
    json: GltfJson,
    /// Buffer contents by index (a GLB's BIN chunk is a view of `bytes`); `None` for an
    /// external URI (not resolved).
    buffers: Vec<Option<Bytes>>,
    limits: Limits,
    /// How [`Document::to_model`] imports (from the read options).
    import: tidy::ImportOptions,
    notes: Vec<String>,
}

fn invalid(offset: Option<u64>, message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid, offset, message)
}

impl GltfDocument {
    /// Parses GLB or glTF JSON bytes.
    pub fn parse(bytes: Bytes, limits: Limits) -> Result<GltfDocument> {
        let mut notes = Vec::new();
        let (glb, json_bytes, bin): (bool, &[u8], Option<&[u8]>) = if bytes.starts_with(GLB_MAGIC) {
            let (json, bin) = glb_chunks(&bytes, &mut notes)?;
            (true, json, bin)
        } else {
            (false, bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes), None)
        };
        // Where the JSON starts in the file, so JSON errors name a file offset.
        let json_start = (json_bytes.as_ptr() as usize).saturating_sub(bytes.as_ptr() as usize);
        let json_range = json_start..json_start + json_bytes.len();
        let json = GltfJson::parse(json_bytes).map_err(|e| {
            if GltfJson::is_not_an_object(&e) {
                return invalid(Some(json_start as u64), "glTF JSON is not an object");
            }
            let at = json_start + crate::raw_json::json_error_offset(json_bytes, &e);
            invalid(Some(at as u64), format!("glTF JSON: {e}")).within(if glb { "GLB JSON chunk" } else { "glTF JSON" })
        })?;
        let version = json.asset.version.as_str();
        if !version.starts_with("2.") {
            return Err(Error::new(
                ErrorKind::Unsupported,
                Some(json_start as u64),
                format!("glTF asset version \"{version}\" (only 2.x)"),
            ));
        }
        let mut buffers = Vec::new();
        for (i, buffer) in json.buffers.iter().enumerate() {
            let data = match buffer.uri.as_deref() {
                None if i == 0 && glb => {
                    Some(bytes.slice_ref(bin.ok_or_else(|| invalid(None, "buffer 0 refers to a missing BIN chunk"))?))
                }
                None => return Err(invalid(None, format!("buffer {i} has no uri"))),
                Some(uri) if uri.starts_with("data:") => {
                    Some(Bytes::from(data_uri(uri).ok_or_else(|| invalid(None, format!("buffer {i}: bad data URI")))?))
                }
                Some(uri) => {
                    notes.push(format!("buffer {i} is external ({uri}): not loaded"));
                    None
                }
            };
            if let Some(d) = &data {
                if d.len() < buffer.byte_length {
                    return Err(invalid(
                        None,
                        format!("buffer {i} holds {} bytes, byteLength says {}", d.len(), buffer.byte_length),
                    ));
                }
            }
            buffers.push(data);
        }
        Ok(GltfDocument { bytes, glb, json_range, json, buffers, limits, import: Default::default(), notes })
    }

    /// Builds a document from export output: a GLB, or (`glb` false) a `.gltf` with the buffer
    /// embedded. The file is assembled once; the document keeps the exporter's elements as its
    /// JSON (they are the text the file holds) and the BIN chunk as a view of the file.
    pub(crate) fn from_export(mut exported: export::Exported, glb: bool) -> Result<GltfDocument> {
        if !glb {
            exported.embed_bin();
        }
        let json_len = exported.json_len()?;
        let (bytes, json_start, bin_start) = if glb {
            let (bytes, bin_start) = glb_from(json_len, |out| exported.write_json(out), &exported.bin)?;
            (bytes, 20, Some(bin_start))
        } else {
            let mut text = Vec::with_capacity(json_len);
            exported.write_json(&mut text)?;
            (text, 0, None)
        };
        let bytes = Bytes::from(bytes);
        let bin = std::mem::take(&mut exported.bin);
        let buffers = match bin_start {
            _ if bin.is_empty() => Vec::new(),
            Some(start) => vec![Some(bytes.slice(start..start + bin.len()))],
            None => vec![Some(Bytes::from(bin))],
        };
        Ok(GltfDocument {
            json: exported.json,
            json_range: json_start..json_start + json_len,
            bytes,
            glb,
            buffers,
            limits: Limits::default(),
            import: Default::default(),
            notes: Vec::new(),
        })
    }

    /// The resolved buffers.
    pub fn buffers(&self) -> &[Option<Bytes>] {
        &self.buffers
    }

    /// Whether the file is a GLB.
    pub fn is_glb(&self) -> bool {
        self.glb
    }

    /// The model, with what the import changed (`tidy`) or could not keep.
    pub(crate) fn imported(&self) -> Result<import::Imported> {
        import::import_with(&self.json, &self.buffers, &self.limits, &self.import)
    }
}

/// The JSON and BIN chunks of a GLB (the BIN chunk is optional); other chunks are named in
/// `notes`, as are bytes after the declared length.
fn glb_chunks<'a>(bytes: &'a [u8], notes: &mut Vec<String>) -> Result<(&'a [u8], Option<&'a [u8]>)> {
    let mut c = Cursor::new(bytes, Endian::Little);
    c.skip(4)?;
    let version = c.u32().map_err(|e| e.within("GLB header"))?;
    if version != 2 {
        return Err(Error::new(ErrorKind::Unsupported, Some(4), format!("GLB version {version} (only 2)")));
    }
    let length = c.u32().map_err(|e| e.within("GLB header"))? as usize;
    let Some(declared) = bytes.get(..length) else {
        return Err(Error::truncated(8, length, bytes.len()).within("GLB header length"));
    };
    if length < bytes.len() {
        notes.push(format!("{} bytes after the declared GLB length", bytes.len() - length));
    }
    let mut c = Cursor::new(declared, Endian::Little);
    c.skip(12)?;
    let mut json = None;
    let mut bin = None;
    let mut index = 0;
    while c.remaining() > 0 {
        let at = c.offset();
        let len = c.u32().map_err(|e| e.within(format!("GLB chunk {index}")))? as usize;
        let kind = c.u32().map_err(|e| e.within(format!("GLB chunk {index}")))?;
        let data = c.take(len).map_err(|e| e.within(format!("GLB chunk {index}")))?;
        match (index, kind) {
            (0, CHUNK_JSON) => json = Some(data),
            (0, _) => return Err(invalid(Some(at as u64 + 4), "the first GLB chunk is not JSON")),
            (1, CHUNK_BIN) => bin = Some(data),
            _ => notes.push(format!("GLB chunk {index} (type 0x{kind:08X}) ignored")),
        }
        index += 1;
    }
    Ok((json.ok_or_else(|| invalid(Some(12), "GLB without a JSON chunk"))?, bin))
}

/// Sets `buffers[0].uri` to a `data:` URI holding `bin`; an error when there is no buffer 0 or
/// it is not an object.
fn embed_buffer0(json: &mut Value, bin: &[u8]) -> Result<()> {
    let buffer = json
        .pointer_mut("/buffers/0")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| invalid(None, "buffer 0 is not an object").within("glTF buffers"))?;
    let uri = format!("data:application/octet-stream;base64,{}", base64_encode(bin));
    buffer.insert("uri".into(), Value::String(uri));
    Ok(())
}

/// A GLB file from JSON text and a binary chunk (the tests' way to make one).
#[cfg(test)]
fn glb_bytes(json: &[u8], bin: &[u8]) -> Result<Vec<u8>> {
    let write_json = |out: &mut Vec<u8>| {
        out.extend_from_slice(json);
        Ok(())
    };
    Ok(glb_from(json.len(), write_json, bin)?.0)
}

/// A GLB file (both chunks padded to 4 bytes as the spec asks) whose JSON text (`json_len` bytes)
/// `write_json` appends, so that it is written into the file's buffer directly; also returns where
/// the BIN chunk's data starts.
fn glb_from(
    json_len: usize,
    write_json: impl FnOnce(&mut Vec<u8>) -> Result<()>,
    bin: &[u8],
) -> Result<(Vec<u8>, usize)> {
    let jlen = json_len.div_ceil(4) * 4;
    let blen = bin.len().div_ceil(4) * 4;
    let total = 12 + 8 + jlen + if bin.is_empty() { 0 } else { 8 + blen };
    let total32 = u32::try_from(total).map_err(|_| Error::unrepresentable("the GLB would exceed 4 GiB"))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(GLB_MAGIC);
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&(jlen as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    write_json(&mut out)?;
    if out.len() != 20 + json_len {
        return Err(Error::unrepresentable("glTF JSON: its length changed while it was written"));
    }
    out.resize(20 + jlen, b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(blen as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    Ok((out, 28 + jlen))
}

impl Document for GltfDocument {
    fn format(&self) -> &'static dyn Format {
        &Gltf
    }

    fn version(&self) -> String {
        let v = &self.json.asset.version;
        format!("{} {v}", if self.glb { "GLB" } else { "glTF JSON" })
    }

    fn write(&self) -> Result<Vec<u8>> {
        Ok(self.bytes.to_vec())
    }

    fn to_model(&self) -> Result<Package> {
        Ok(self.imported()?.package)
    }

    fn to_model_with_warnings(&self) -> Result<(Package, Vec<String>)> {
        let imported = self.imported()?;
        Ok((imported.package, imported.warnings))
    }

    fn dump(&self) -> Result<Value> {
        let text = self.bytes.get(self.json_range.clone()).unwrap_or_default();
        let mut json: Value = serde_json::from_slice(text).map_err(|e| invalid(None, format!("glTF JSON: {e}")))?;
        if self.glb {
            if let Some(Some(bin)) = self.buffers.first() {
                if json.pointer("/buffers/0/uri").is_none() {
                    embed_buffer0(&mut json, bin)?;
                }
            }
        }
        Ok(json)
    }

    fn lint(&self) -> Vec<Finding> {
        let mut findings: Vec<Finding> =
            self.notes.iter().map(|n| Finding::new(Severity::Info, "gltf-note", n.clone())).collect();
        match self.imported() {
            Ok(imported) => findings
                .extend(imported.warnings.into_iter().map(|w| Finding::new(Severity::Warning, "gltf-import", w))),
            Err(e) => findings.push(Finding::new(Severity::Error, "gltf-import", e.to_string())),
        }
        findings
    }

    fn repair(&self) -> Result<Repaired> {
        let package = self.to_model()?;
        let written = Gltf.from_model(
            &package,
            &WriteOptions { variant: Some(if self.glb { "glb" } else { "gltf" }.into()), ..Default::default() },
        )?;
        let mut changes = vec!["re-exported from the model".to_string()];
        changes.extend(written.warnings);
        Ok(Repaired { document: written.document, changes })
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = self.notes.clone();
        let (nodes, skins) = (self.json.nodes.len(), self.json.skins.len());
        notes.push(format!("{} animations, {nodes} nodes, {skins} skins", self.json.animation_count()));
        if let Some(g) = &self.json.asset.generator {
            notes.push(format!("generator \"{g}\""));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_name_a_file_offset() {
        // serde_json reports 1-based line and column; "{\n  x" fails at line 2 column 3 = byte 4.
        let e = GltfDocument::parse(Bytes::from_static(b"{\n  x"), Limits::default()).err().unwrap();
        assert_eq!(e.offset, Some(4));
    }

    #[test]
    fn glb_layout_follows_the_spec() {
        // Header 12 bytes, JSON chunk padded with spaces, BIN chunk padded with zeros.
        let glb = glb_bytes(br#"{"a":1}"#, &[1, 2, 3, 4, 5]).unwrap();
        assert_eq!(&glb[..4], b"glTF");
        assert_eq!(glb.len(), 12 + 8 + 8 + 8 + 8);
        assert_eq!(u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize, glb.len());
        assert_eq!(&glb[16..20], b"JSON");
        assert_eq!(glb[27], b' ');
        assert_eq!(&glb[32..36], b"BIN\0");
    }

    #[test]
    fn a_glb_whose_buffer_0_is_not_an_object_is_an_error() {
        // Its dump used to panic: the BIN chunk was embedded with `json["buffers"][0]["uri"] = …`.
        let json = br#"{"asset":{"version":"2.0"},"buffers":[5]}"#;
        let glb = glb_bytes(json, &[1, 2, 3, 4]).unwrap();
        let e = GltfDocument::parse(Bytes::from(glb), Limits::default()).err().unwrap();
        assert!(e.to_string().contains("buffer 0"), "{e}");
        // An object without a uri gets the data URI.
        let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4}]}"#;
        let doc = GltfDocument::parse(Bytes::from(glb_bytes(json, &[1, 2, 3, 4]).unwrap()), Limits::default()).unwrap();
        let dumped = doc.dump().unwrap();
        assert_eq!(dumped.pointer("/buffers/0/uri").unwrap(), "data:application/octet-stream;base64,AQIDBA==");
    }

    #[test]
    fn truncated_glb_is_an_error_not_a_panic() {
        let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4}]}"#;
        let glb = glb_bytes(json, &[1, 2, 3, 4]).unwrap();
        assert!(GltfDocument::parse(Bytes::from(glb.clone()), Limits::default()).is_ok());
        for cut in 0..glb.len() {
            let r = GltfDocument::parse(Bytes::from(glb[..cut].to_vec()), Limits::default());
            assert!(r.is_err(), "cut at {cut}");
        }
    }
}
