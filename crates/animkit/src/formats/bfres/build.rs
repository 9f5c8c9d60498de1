//! Writing whole files (spec §2.4) and the writers of every subfile, for both platforms.
//!
//! Each structure is written by the file that reads it, from the same description
//! (`layout.rs`), in the storage order of the retail files: a parsed retail subfile written
//! at its original position against the original strings gives the original bytes (checked on
//! every corpus FSKA, FTXP, FSHU and FVIS, and on the FSKA and FMAA data of every Switch file).
//! [`write_file`] builds a complete animation-only Wii U FRES (`switch_build` the Switch one).

use std::collections::BTreeMap;

use super::fres::{write_header, Header, GROUPS, HEADER_SIZE};
use super::fshu::{write_fshu, Fshu};
use super::fska::{write_fska, Fska};
use super::ftxp::{write_ftxp, Ftxp};
use super::fvis::{write_fvis, Fvis};
use super::layout::{count16, dict};
use super::platform::Platform;
use super::strings::{write_pool, PoolString};
use crate::bytes::{Endian, Writer};
use crate::error::{Error, Result};

pub use super::layout::{write_dict, Out};

/// A subfile to place in a new file.
#[non_exhaustive]
pub enum Subfile<'a> {
    /// An FSKA (group 2).
    Fska(&'a Fska),
    /// An FTXP (group 6).
    Ftxp(&'a Ftxp),
    /// An FSHU and its index group (3 shader param, 4 colour, 5 texture SRT).
    Fshu(&'a Fshu, usize),
    /// An FVIS (bone or material group from its flags).
    Fvis(&'a Fvis),
}

/// Builds a complete animation-only FRES (alignment 4): header, index groups, subfiles in group
/// order, string pool at the end (§2.4).
pub fn write_file(name: &str, version: u32, subfiles: &[Subfile]) -> Result<Vec<u8>> {
    let groups = grouped(subfiles)?;
    let mut o = Out::new(HEADER_SIZE, Platform::WiiU { version });
    let mut group_at = BTreeMap::new();
    let mut data_slots = Vec::new();
    for (&g, entries) in &groups {
        group_at.insert(g, o.pos());
        data_slots.extend(dict(&mut o, &entries.iter().map(|e| e.0).collect::<Vec<_>>())?);
    }
    for ((_, s), slot) in groups.values().flatten().zip(data_slots) {
        o.patch_here(slot);
        match s {
            Subfile::Fska(a) => write_fska(&mut o, a)?,
            Subfile::Ftxp(a) => write_ftxp(&mut o, a)?,
            Subfile::Fshu(a, _) => write_fshu(&mut o, a)?,
            Subfile::Fvis(a) => write_fvis(&mut o, a)?,
        }
    }
    // The string pool: every distinct string, sorted by bytes, the empty string last.
    let mut all: Vec<&str> = o.strings().chain([name]).filter(|s| !s.is_empty()).collect();
    all.sort_unstable();
    all.dedup();
    all.push("");
    let (pool_at, mut p) = (o.pos(), o.pos());
    let mut positions = BTreeMap::new();
    let mut pool = Vec::with_capacity(all.len());
    for s in all {
        positions.insert(s.to_string(), p + 4);
        pool.push(PoolString::new(s.as_bytes()));
        p += pool.last().map_or(0, PoolString::byte_len);
    }
    o.resolve(|s| positions.get(s).copied())?;
    write_pool(&mut o.w, &pool);
    let file_size = o.pos();
    let rel = |field: usize, target: usize| (target as i64 - field as i64) as i32;
    let groups_rel = std::array::from_fn(|g| group_at.get(&g).map_or(0, |&at| rel(0x20 + 4 * g, at)));
    let counts = std::array::from_fn(|g| groups.get(&g).map_or(0, |entries| entries.len() as u16));
    let header = Header {
        version,
        bom: 0xFEFF,
        header_word: 0x0010,
        file_size: u32::try_from(file_size).map_err(|_| Error::unrepresentable("file over 4 GiB"))?,
        alignment: 4,
        name: rel(0x14, positions.get(name).copied().unwrap_or(pool_at + 4)),
        pool_size: (file_size - pool_at) as u32,
        pool: rel(0x1C, pool_at),
        groups: groups_rel,
        counts,
        user_pointer: 0,
    };
    let mut w = Writer::with_capacity(Endian::Big, file_size);
    write_header(&mut w, &header);
    w.bytes(&o.into_vec());
    Ok(w.into_vec())
}

/// The subfiles by index group, each with its name; names must differ within a group.
fn grouped<'a>(subfiles: &'a [Subfile<'a>]) -> Result<BTreeMap<usize, Vec<(&'a str, &'a Subfile<'a>)>>> {
    let mut groups: BTreeMap<usize, Vec<(&str, &Subfile)>> = BTreeMap::new();
    for s in subfiles {
        let (g, n) = match s {
            Subfile::Fska(a) => (super::fres::G_FSKA, a.name.as_str()),
            Subfile::Ftxp(a) => (super::fres::G_FTXP, a.name.as_str()),
            Subfile::Fshu(a, g) if *g < GROUPS => (*g, a.name.as_str()),
            Subfile::Fshu(a, g) => {
                return Err(Error::unrepresentable(format!(
                    "FSHU \"{}\" in index group {g} (a file has {GROUPS})",
                    a.name
                )))
            }
            Subfile::Fvis(a) => {
                let g = if a.material() { super::fres::G_FVIS_MAT } else { super::fres::G_FVIS_BONE };
                (g, a.name.as_str())
            }
        };
        groups.entry(g).or_default().push((n, s));
    }
    for entries in groups.values() {
        count16(entries.len(), "subfiles in one index group")?;
        let mut names: Vec<&str> = entries.iter().map(|e| e.0).collect();
        names.sort_unstable();
        if let Some(dup) = names.windows(2).find_map(|w| match w {
            [a, b] if a == b => Some(a),
            _ => None,
        }) {
            return Err(Error::unrepresentable(format!("two subfiles of one kind are named {dup:?}")));
        }
    }
    Ok(groups)
}
