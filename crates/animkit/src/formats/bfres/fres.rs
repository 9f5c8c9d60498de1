//! The FRES container (spec §2): header, index groups, subfiles and string pool.
//!
//! The file is cut into contiguous [`Part`]s from the end of the header to EOF: every index group
//! and the string pool are parsed; each subfile (from its start to the next known structure) and
//! every gap (embedded-file records, GPU data) is kept as opaque bytes. Nothing is recomputed on
//! writing, so an unchanged file writes back byte for byte. Subfiles are interpreted on demand
//! from the written bytes (`fska`, `ftxp`, `fshu`, `fvis`, `fskl`).

use serde::{Deserialize, Serialize};

use super::dict::ResDict;
use super::platform::Platform;
use super::strings::{read_pool, write_pool, PoolString};
use crate::bytes::{Cursor, Endian, Writer};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::record::Record;

/// The number of index groups in the header.
pub const GROUPS: usize = 12;

/// Names of the index groups, in header order.
pub const GROUP_NAMES: [&str; GROUPS] = [
    "FMDL",
    "FTEX",
    "FSKA",
    "FSHU shader param",
    "FSHU colour",
    "FSHU texture SRT",
    "FTXP",
    "FVIS bone",
    "FVIS material",
    "FSHA",
    "FSCN",
    "embedded files",
];

/// Index group of the models.
pub const G_FMDL: usize = 0;
/// Index group of the skeletal animations.
pub const G_FSKA: usize = 2;
/// Index group of the shader-parameter animations.
pub const G_FSHU_PARAM: usize = 3;
/// Index group of the colour animations.
pub const G_FSHU_COLOUR: usize = 4;
/// Index group of the texture SRT animations.
pub const G_FSHU_SRT: usize = 5;
/// Index group of the texture pattern animations.
pub const G_FTXP: usize = 6;
/// Index group of the bone visibility animations.
pub const G_FVIS_BONE: usize = 7;
/// Index group of the material visibility animations.
pub const G_FVIS_MAT: usize = 8;
/// Index group of the embedded files.
pub const G_EMBEDDED: usize = 11;

crate::record! {
    /// The `0x6C`-byte header of v >= 2.4.0.0 after the magic `FRES`, every field as stored.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Header {
        /// `major.minor.micro.build`, a byte each.
        pub version: u32,
        /// `0xFEFF`.
        pub bom: u16,
        /// `0x0010` in every file.
        pub header_word: u16,
        /// The file's size.
        pub file_size: u32,
        /// The alignment of the GPU data.
        pub alignment: u32,
        /// Self-relative offset of the file name.
        pub name: i32,
        /// The string pool's size.
        pub pool_size: u32,
        /// Self-relative offset of the string pool (its first length word).
        pub pool: i32,
        /// Self-relative offsets of the index groups ([`GROUP_NAMES`]), 0 for none.
        pub groups: [i32; GROUPS],
        /// The entry count of each index group.
        pub counts: [u16; GROUPS],
        /// Runtime pointer (0 on disk).
        pub user_pointer: u32,
    }
}

/// The header's size, magic included.
pub const HEADER_SIZE: usize = 0x6C;

impl Header {
    /// The absolute position of group `g`, if present.
    pub fn group_at(&self, g: usize) -> Option<usize> {
        let v = *self.groups.get(g)?;
        (v != 0).then(|| (0x20 + 4 * g as i64 + i64::from(v)) as usize)
    }

    /// The absolute position of the string pool's first length word.
    pub fn pool_at(&self) -> i64 {
        0x1C + i64::from(self.pool)
    }

    /// `major.minor.micro.build`.
    pub fn version_string(&self) -> String {
        version_string(self.version)
    }
}

/// A version word as `a.b.c.d`, a byte each from the top.
fn version_string(v: u32) -> String {
    let [a, b, c, d] = v.to_be_bytes();
    format!("{a}.{b}.{c}.{d}")
}

/// A contiguous piece of the file after the header.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Part {
    /// Index group `group`.
    Dict {
        /// Which group ([`GROUP_NAMES`]).
        group: usize,
        /// The group as stored.
        dict: ResDict,
    },
    /// The subfile that entry `index` of group `group` points at, as opaque bytes.
    Subfile {
        /// Which group ([`GROUP_NAMES`]).
        group: usize,
        /// The entry in the group.
        index: usize,
        /// The subfile's bytes, up to the next known structure.
        bytes: Vec<u8>,
    },
    /// The string pool.
    Strings(Vec<PoolString>),
    /// Anything else: embedded-file records, GPU buffers, alignment padding.
    Bytes(Vec<u8>),
}

impl Part {
    /// The stored length in bytes.
    pub fn byte_len(&self) -> usize {
        match self {
            Part::Dict { dict, .. } => dict.byte_len(),
            Part::Subfile { bytes, .. } | Part::Bytes(bytes) => bytes.len(),
            Part::Strings(s) => s.iter().map(PoolString::byte_len).sum(),
        }
    }
}

/// A whole FRES file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FresFile {
    /// The header.
    pub header: Header,
    /// Everything after the header, in file order.
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Region {
    /// Listed first so that, at the same start, a dict or pool wins over a subfile start.
    Dict(usize),
    Strings,
    Subfile(usize, usize),
}

/// Reads the header.
pub fn read_header(data: &[u8]) -> Result<Header> {
    let mut c = Cursor::new(data, Endian::Big);
    if c.array::<4>()? != *b"FRES" {
        return Err(Error::invalid(0, "not a FRES file"));
    }
    let unsupported = |at: u64, message: String| Err(Error::new(ErrorKind::Unsupported, Some(at), message));
    if data.get(4..8) == Some(b"    ") {
        let switch =
            "Switch BFRES (\"FRES    \", little-endian, relocation table) is not supported; only Wii U files are";
        return unsupported(4, switch.into());
    }
    let header = Header::read(&mut c)?;
    let (bom, version) = (header.bom, header.version);
    if bom != 0xFEFF {
        return unsupported(8, format!("byte-order mark {bom:#06x}: only big-endian Wii U files are supported"));
    }
    if version < 0x0204_0000 {
        return unsupported(4, format!("version {version:#010x} predates 2.4.0.0 (no group counts); not supported"));
    }
    Ok(header)
}

/// Where the index groups (read, by group), the subfiles their entries point at and the string
/// pool start, sorted, one structure per position; every offset checked to lie in the file.
type Regions = (Vec<(usize, Region)>, [Option<ResDict>; GROUPS]);

fn regions(data: &[u8], header: &Header) -> Result<Regions> {
    let len = data.len();
    let in_file = |at: i64, what: &str, field: usize| -> Result<usize> {
        usize::try_from(at)
            .ok()
            .filter(|&a| (HEADER_SIZE..len).contains(&a))
            .ok_or_else(|| Error::invalid(field, format!("{what} offset points at {at}, outside 0x6C..{len}")))
    };
    let mut regions: Vec<(usize, Region)> = Vec::new();
    let mut dicts: [Option<ResDict>; GROUPS] = Default::default();
    for (g, group_name) in GROUP_NAMES.iter().enumerate() {
        let Some(at) = header.group_at(g) else { continue };
        let at = in_file(at as i64, group_name, 0x20 + 4 * g)?;
        let mut c = Cursor::new(data, Endian::Big);
        c.seek(at)?;
        let dict = ResDict::read(&mut c).within(|| format!("index group {g} ({group_name})"))?;
        if g != G_EMBEDDED {
            for k in 0..dict.len() {
                if let (_, Some(t)) = dict.entry_targets(at, k) {
                    let t = in_file(t, "subfile", at + 8 + 16 * (k + 1) + 12)
                        .within(|| format!("index group {g} ({group_name}) entry {k}"))?;
                    regions.push((t, Region::Subfile(g, k)));
                }
            }
        }
        regions.push((at, Region::Dict(g)));
        if let Some(slot) = dicts.get_mut(g) {
            *slot = Some(dict);
        }
    }
    let pool_at = header.pool_at();
    let has_pool = header.pool != 0 && header.pool_size > 0;
    if has_pool {
        in_file(pool_at, "string pool", 0x1C)?;
        regions.push((pool_at as usize, Region::Strings));
    }
    regions.sort();
    regions.dedup_by_key(|r| r.0);
    Ok((regions, dicts))
}

/// Parses a FRES file into parts.
pub fn read(data: &[u8]) -> Result<FresFile> {
    let header = read_header(data).within(|| "FRES header")?;
    let len = data.len();
    if (header.file_size as usize) > len {
        return Err(Error::truncated(len, header.file_size as usize - len, 0).within("FRES"));
    }
    let (regions, mut dicts) = regions(data, &header)?;
    let mut parts = Vec::new();
    let mut pos = HEADER_SIZE;
    for (i, &(start, region)) in regions.iter().enumerate() {
        if start < pos {
            return Err(Error::invalid(start, format!("{region:?} at {start:#x} overlaps the structure before it")));
        }
        if start > pos {
            parts.push(Part::Bytes(data.get(pos..start).unwrap_or_default().to_vec()));
        }
        let next = regions.get(i + 1).map_or(len, |r| r.0);
        match region {
            Region::Dict(g) => {
                let Some(dict) = dicts.get_mut(g).and_then(Option::take) else { continue };
                pos = start + dict.byte_len();
                parts.push(Part::Dict { group: g, dict });
            }
            Region::Strings => {
                let end = start.saturating_add(header.pool_size as usize);
                if end > next {
                    return Err(Error::invalid(
                        0x18,
                        format!("string pool size {} runs past {next:#x}", header.pool_size),
                    ));
                }
                let mut c = Cursor::new(data, Endian::Big);
                c.seek(start)?;
                match read_pool(&mut c, end) {
                    Ok(pool) => parts.push(Part::Strings(pool)),
                    Err(_) => parts.push(Part::Bytes(data.get(start..end).unwrap_or_default().to_vec())),
                }
                pos = end;
            }
            Region::Subfile(group, index) => {
                let bytes = data.get(start..next).unwrap_or_default().to_vec();
                parts.push(Part::Subfile { group, index, bytes });
                pos = next;
            }
        }
    }
    if pos > len {
        return Err(Error::truncated(pos, pos - len, 0).within("FRES"));
    }
    if pos < len {
        parts.push(Part::Bytes(data.get(pos..).unwrap_or_default().to_vec()));
    }
    Ok(FresFile { header, parts })
}

/// Writes the magic and the header.
pub fn write_header(w: &mut Writer, h: &Header) {
    w.bytes(b"FRES");
    h.write(w);
}

/// The bytes of `file`.
pub fn write(file: &FresFile) -> Vec<u8> {
    let size = HEADER_SIZE + file.parts.iter().map(Part::byte_len).sum::<usize>();
    let mut w = Writer::with_capacity(Endian::Big, size);
    write_header(&mut w, &file.header);
    for part in &file.parts {
        match part {
            Part::Dict { dict, .. } => dict.write(&mut w),
            Part::Subfile { bytes, .. } | Part::Bytes(bytes) => w.bytes(bytes),
            Part::Strings(pool) => write_pool(&mut w, pool),
        }
    }
    w.into_vec()
}

/// Group `g`'s entries as `(name, absolute data position)` in storage order; every entry must
/// point at data.
pub fn entries(data: &[u8], header: &Header, g: usize) -> Result<Vec<(String, usize)>> {
    let Some(at) = header.group_at(g) else { return Ok(Vec::new()) };
    super::dict::entries_at(data, at)?
        .into_iter()
        .enumerate()
        .map(|(k, (name, target))| {
            let field = at + 8 + 16 * (k + 1) + 12;
            target.map(|t| (name, t)).ok_or_else(|| Error::invalid(field, "index group entry without data"))
        })
        .collect()
}

// ---- Switch ----------------------------------------------------------------------------

/// The first note of every Switch BFRES; containers pass it on with a prefix, so `convert` finds
/// it in the notes of any file holding one (`convert` then writes BFRES for Switch).
pub const PLATFORM_NOTE: &str = "Switch (little-endian)";

/// The 8-byte magic of a Switch BFRES.
pub const SWITCH_MAGIC: &[u8; 8] = b"FRES    ";

/// Whether `bytes` start like a Switch BFRES (magic and little-endian BOM).
pub fn is_switch(bytes: &[u8]) -> bool {
    bytes.get(..8) == Some(SWITCH_MAGIC) && bytes.get(0x0C..0x0E) == Some(&[0xFF, 0xFE])
}

/// A Switch FRES header, versions 0.5 to 0.9: the header as stored ([`SwitchFileHeader`]; a 0.9
/// header, `0xF0` bytes, is read in the 0.8 layout without its 32 reserved bytes after the model
/// dict and two `u16` after the model count) and the file name it points at.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchHeader {
    /// The file name.
    pub name: String,
    /// The header as stored (0.9: in the 0.8 layout).
    pub stored: SwitchFileHeader,
}

impl SwitchHeader {
    /// The `x` of version `0.x.y.z`.
    pub fn major(&self) -> u8 {
        (self.stored.version >> 16) as u8
    }

    /// `0.x.y.z (Switch)`.
    pub fn version_string(&self) -> String {
        format!("{} (Switch)", version_string(self.stored.version))
    }
}

/// The header's first `0xD0` bytes in the 0.8 layout: a 0.9 header without the 32 reserved bytes
/// at `0x38` and the two `u16` at `0xDE`, its padding zeros.
fn header_bytes(data: &[u8], major: u8) -> Vec<u8> {
    if major < 9 {
        return data.get(..0xD0).unwrap_or(data).to_vec();
    }
    let parts = [0..0x38, 0x58..0xDE, 0xE2..0xEE];
    let mut bytes: Vec<u8> = parts.into_iter().flat_map(|r| data.get(r).unwrap_or_default().iter().copied()).collect();
    bytes.resize(0xD0, 0);
    bytes
}

/// Reads the Switch header.
pub fn read_switch_header(data: &[u8]) -> Result<SwitchHeader> {
    let mut c = Cursor::new(data, Endian::Little);
    if c.array::<8>()? != *SWITCH_MAGIC {
        return Err(Error::invalid(0, "not a Switch BFRES (magic is not \"FRES    \")"));
    }
    c.seek(0x0C)?;
    let [a, b] = c.array::<2>()?;
    if [a, b] != [0xFF, 0xFE] {
        return Err(Error::invalid(0x0C, format!("byte-order mark {a:02X} {b:02X} is not little-endian")));
    }
    let major = data.get(0x0A).copied().unwrap_or(0);
    if major >= 10 {
        return Err(Error::unsupported(format!("Switch BFRES version 0.{major}: only versions before 0.10 are read"))
            .within("Switch FRES header"));
    }
    let h = SwitchFileHeader::read(&mut Cursor::new(&header_bytes(data, major), Endian::Little))
        .map_err(|e| e.within("Switch FRES header"))?;
    if h.file_size as usize > data.len() {
        return Err(Error::truncated(data.len(), h.file_size as usize - data.len(), 0).within(format!(
            "Switch FRES (file size field 0x1C says {} bytes, {} present)",
            h.file_size,
            data.len()
        )));
    }
    c.seek(0x20)?;
    let name = Platform::SWITCH_0_8.name(data, &mut c).within(|| "Switch FRES header")?;
    Ok(SwitchHeader { name, stored: h })
}

crate::record! {
    /// The Switch FRES header as stored, versions 0.5 to 0.8 (`0xD0` bytes). Offsets are
    /// absolute; each group of animations or models is an (array, dictionary) pair.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SwitchFileHeader {
        /// `FRES` and four spaces.
        pub magic: [u8; 8],
        /// `0.x.y.z`, one byte each from the top.
        pub version: u32,
        /// `FF FE` (little-endian).
        pub bom: [u8; 2],
        /// The file's alignment as a power of two.
        pub alignment_log2: u8,
        /// Target address size (0 on disk).
        pub address_size: u8,
        /// Position of the file name's first character.
        pub file_name: u32,
        /// Header flags.
        pub flags: u16,
        /// Position of the first block of the block chain.
        pub first_block: u16,
        /// Position of the `_RLT`.
        pub relocation_table: u32,
        /// File size.
        pub file_size: u32,
        /// Offset of the file name's length word.
        pub name: u64,
        /// Models (FMDL): array, dictionary.
        pub models: [u64; 2],
        /// Skeletal animations (FSKA): array, dictionary.
        pub skeletal_animations: [u64; 2],
        /// Material animations (FMAA): array, dictionary.
        pub material_animations: [u64; 2],
        /// Bone visibility animations (FBVS): array, dictionary.
        pub bone_visibility_animations: [u64; 2],
        /// Shape animations (FSHA): array, dictionary.
        pub shape_animations: [u64; 2],
        /// Scene animations (FSCN): array, dictionary.
        pub scene_animations: [u64; 2],
        /// The memory pool.
        pub memory_pool: u64,
        /// The buffer info.
        pub buffer_info: u64,
        /// Embedded files: array, dictionary.
        pub embedded_files: [u64; 2],
        /// Reserved (0).
        pub reserved: u64,
        /// Offset of the string table's first (empty) string.
        pub string_table: u64,
        /// The string table's size.
        pub string_table_size: u32,
        /// Counts: models, skeletal, material, bone visibility, shape and scene animations,
        /// embedded files.
        pub counts: [u16; 7],
        /// Padding to `0xD0`.
        pub padding: [u8; 6],
    }
}
