//! The lossless JSON form of a Switch BFRES: the file header, the string table, the relocation
//! table, every skeletal animation (FSKA) and every material animation (FMAA) as named fields;
//! the bytes no structure here describes (models, visibility animations, GPU buffers, embedded
//! files, the FSKA headers' offsets) as runs
//! of hexadecimal with their positions, zeros between them. `pack` writes each part back where
//! the dump says, so dump → pack gives the file byte for byte; an edited FSKA must keep its size
//! (to change sizes, replace the animation through the model: [`super::SwitchDocument::with_clip`]).
//!
//! Files laid out as version 0.9 (or files without a relocation or string table) keep their
//! header and animations in the hex runs.

use serde::{Deserialize, Serialize};

use super::fres::{read_switch_header, SwitchFileHeader as FileHeader, SWITCH_MAGIC as MAGIC};
use super::switch_write::{self, FmaaEntry, FskaEntry, Relocation, StringTable};
use crate::error::{Error, Result};
use crate::raw_json::Hex;

/// Bytes at a position.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Run {
    /// Absolute position.
    pub at: usize,
    /// The bytes.
    pub bytes: Hex,
}

/// The dump of a Switch BFRES.
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SwitchDump {
    /// Always `switch`.
    pub platform: String,
    /// File size.
    pub size: usize,
    /// The header (versions 0.5 to 0.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<FileHeader>,
    /// The string table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string_table: Option<StringTable>,
    /// The relocation table and its position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relocation_table: Option<(usize, Relocation)>,
    /// The skeletal animations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skeletal_animations: Vec<FskaEntry>,
    /// The material animations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub material_animations: Vec<FmaaEntry>,
    /// Everything else, as runs of bytes.
    pub other: Vec<Run>,
}

/// The structured parts of `data` this dump can name (each absent where the file lacks it).
fn structured(data: &[u8]) -> Result<SwitchDump> {
    let header = read_switch_header(data)?;
    let mut dump = SwitchDump { platform: "switch".into(), size: data.len(), ..SwitchDump::default() };
    if header.major() >= 9 {
        return Ok(dump);
    }
    dump.header = Some(header.stored.clone());
    let rlt = header.stored.relocation_table as usize;
    if data.get(rlt..rlt + 4) == Some(b"_RLT") {
        dump.relocation_table = Some((rlt, switch_write::read_relocation(data, rlt)?));
    }
    let str_at = switch_write::blocks(data).ok().and_then(|b| b.into_iter().find(|(_, m)| m == b"_STR"));
    let Some((str_at, _)) = str_at else { return Ok(dump) };
    dump.string_table = Some(switch_write::read_strings(data, str_at)?);
    dump.skeletal_animations = switch_write::read_fskas(data, &header)?;
    dump.material_animations = switch_write::fmaa_entries(data, switch_write::read_fmaas(data, &header)?)?;
    Ok(dump)
}

/// The dump of a Switch file.
pub(crate) fn to_dump(data: &[u8]) -> Result<SwitchDump> {
    let mut dump = structured(data)?;
    let covered = pack_parts(&dump, vec![0; data.len()])?;
    // Bytes the parts do not reproduce, as runs split at 16 or more zeros.
    let mut at = 0;
    while at < data.len() {
        let differs = |i: usize| data.get(i) != covered.get(i);
        let Some(start) = (at..data.len()).find(|&i| differs(i)) else { break };
        let mut end = start + 1;
        while end < data.len() && (end..(end + 16).min(data.len())).any(differs) {
            end += 1;
        }
        dump.other.push(Run { at: start, bytes: Hex(data.get(start..end).unwrap_or_default().to_vec()) });
        at = end;
    }
    Ok(dump)
}

/// The bytes the named parts give, over `out` (the runs already placed), written by
/// [`switch_write::write_over`].
fn pack_parts(d: &SwitchDump, mut out: Vec<u8>) -> Result<Vec<u8>> {
    let relocation = d.relocation_table.as_ref().map(|(at, r)| (*at, r));
    let tables = (d.header.as_ref(), d.string_table.as_ref(), relocation);
    switch_write::write_over(&mut out, tables, &d.skeletal_animations, &d.material_animations)?;
    Ok(out)
}

/// Rebuilds the file from its dump: the runs, then every named part over them.
pub(crate) fn from_dump(d: &SwitchDump) -> Result<Vec<u8>> {
    if d.platform != "switch" {
        return Err(Error::invalid(0, format!("platform \"{}\" is not switch", d.platform)));
    }
    let mut base = vec![0u8; d.size];
    for run in &d.other {
        let slot = base.get_mut(run.at..run.at + run.bytes.0.len()).ok_or_else(|| {
            Error::invalid(run.at, format!("a run of {} bytes past the size {}", run.bytes.0.len(), d.size))
        })?;
        slot.copy_from_slice(&run.bytes.0);
    }
    let out = pack_parts(d, base)?;
    if out.len() != d.size || out.get(..8) != Some(MAGIC) {
        return Err(Error::invalid(0, format!("the parts give {} bytes where the dump says {}", out.len(), d.size)));
    }
    Ok(out)
}
