//! HIP/HOP archives: the block tree, byte-exact (`evilengine.md` §5); its serde form is the dump.
//!
//! A file is a sequence of blocks `char id[4]; u32 size (big-endian); payload[size]`. `PACK`,
//! `DICT`, `ATOC`, `LTOC` and `STRM` hold child blocks; `AHDR` and `LHDR` have fixed fields then
//! child blocks; `ADBG` holds the asset's debug names; every other block is kept as raw bytes.
//! Sizes are recomputed from the payload on writing, which reproduces them exactly on an
//! unchanged file. Bytes too short for a block at the end of a container are kept verbatim.
//!
//! Asset data lives in `DPAK` at **absolute** file offsets named by `AHDR`; [`Hip::asset_data`]
//! reads them from the written file, and [`Hip::replace_asset`] re-packs the stream (§5.5).

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::skb::SkbVersion;
use crate::bytes::{Cursor, Endian, Writer};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::raw_json::FourCc;
use crate::record::Record;
use crate::text::latin1_until_nul;

/// One block. A key no field takes (a misspelt one in a hand-edited dump) is refused, naming it:
/// serde checks what the flattened body left over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Block {
    pub id: FourCc,
    #[serde(flatten)]
    pub body: BlockBody,
}

/// A block's payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum BlockBody {
    /// Kept verbatim.
    Raw(#[serde(with = "crate::raw_json::hex_bytes")] Bytes),
    /// Child blocks, then bytes too short to be a block.
    #[serde(rename = "container")]
    Children {
        children: Vec<Block>,
        #[serde(default, skip_serializing_if = "Bytes::is_empty", with = "crate::raw_json::hex_bytes")]
        tail: Bytes,
    },
    Ahdr(Headed<Ahdr>),
    Lhdr(Headed<Lhdr>),
    Adbg(Adbg),
}

/// A header block: fixed fields `H`, then child blocks (normally one `ADBG` or `LDBG`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Headed<H> {
    #[serde(flatten)]
    pub header: H,
    pub children: Vec<Block>,
    #[serde(default, skip_serializing_if = "Bytes::is_empty", with = "crate::raw_json::hex_bytes")]
    pub tail: Bytes,
}

crate::record! {
    /// An asset header's fields (§5.2).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub(crate) struct Ahdr {
        pub asset_id: u32,
        pub kind: FourCc,
        /// Absolute from the start of the file.
        pub offset: i32,
        pub size: i32,
        /// `0x33` fill bytes after the data.
        pub plus: i32,
        pub flags: i32,
    }
}

/// A layer header's fields: the type, then a u32 count and the asset IDs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Lhdr {
    pub layer_type: u32,
    pub asset_ids: Vec<u32>,
}

impl Record for Lhdr {
    fn read(c: &mut Cursor) -> Result<Self> {
        let layer_type = c.u32()?;
        let n = c.u32()?;
        let n = c.count(u64::from(n), 4, "asset id")?;
        Ok(Lhdr { layer_type, asset_ids: (0..n).map(|_| c.u32()).collect::<Result<_>>()? })
    }

    fn write(&self, w: &mut Writer) {
        w.u32(self.layer_type);
        w.u32(self.asset_ids.len() as u32);
        self.asset_ids.iter().for_each(|&id| w.u32(id));
    }
}

/// An asset's debug block: strings are kept with their NUL and even-length padding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Adbg {
    pub align: i32,
    #[serde(with = "even_string")]
    pub name: Bytes,
    #[serde(with = "even_string")]
    pub source: Bytes,
    pub checksum: u32,
    #[serde(default, skip_serializing_if = "Bytes::is_empty", with = "crate::raw_json::hex_bytes")]
    pub tail: Bytes,
}

impl Adbg {
    pub(crate) fn name(&self) -> String {
        latin1_until_nul(&self.name)
    }

    pub(crate) fn source(&self) -> String {
        latin1_until_nul(&self.source)
    }
}

/// A whole archive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Hip {
    pub blocks: Vec<Block>,
    /// Bytes after the last block (fewer than 8).
    #[serde(default, skip_serializing_if = "Bytes::is_empty", with = "crate::raw_json::hex_bytes")]
    pub tail: Bytes,
}

/// A NUL-terminated string padded to even length: plain text when canonical, else `{"hex": …}`.
mod even_string {
    use bytes::Bytes;
    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

    use crate::raw_json::Hex;
    use crate::text::{latin1_until_nul, to_latin1};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum EvenString {
        Text(String),
        Raw { hex: Hex },
    }

    fn canonical(name: &[u8]) -> Vec<u8> {
        let mut b = name.to_vec();
        b.resize((name.len() + 2) & !1, 0);
        b
    }

    pub(crate) fn serialize<S: Serializer>(b: &Bytes, s: S) -> Result<S::Ok, S::Error> {
        let name = latin1_until_nul(b);
        match to_latin1(&name) {
            Some(enc) if canonical(&enc) == b[..] => EvenString::Text(name),
            _ => EvenString::Raw { hex: Hex(b.to_vec()) },
        }
        .serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        match EvenString::deserialize(d)? {
            EvenString::Text(s) => to_latin1(&s)
                .map(|b| Bytes::from(canonical(&b)))
                .ok_or_else(|| de::Error::custom(format!("{s:?} is not Latin-1 without NUL"))),
            EvenString::Raw { hex } => Ok(Bytes::from(hex.0)),
        }
    }
}

const CONTAINERS: [&[u8; 4]; 5] = [b"PACK", b"DICT", b"ATOC", b"LTOC", b"STRM"];

/// Reads the blocks in `data` (whose first byte is at absolute `base`); a final run of fewer
/// than 8 bytes becomes the tail.
fn read_blocks(data: &Bytes, base: usize, depth: usize) -> Result<(Vec<Block>, Bytes)> {
    let mut c = Cursor::with_base(data, base, Endian::Big);
    let mut blocks = Vec::new();
    while c.remaining() >= 8 {
        let at = c.offset();
        let id = c.array::<4>()?;
        let size = c.u32()? as usize;
        let start = c.pos();
        let label = || format!("{} block at {at}", latin1_until_nul(&id));
        c.skip(size).within(label)?;
        let payload = data.slice(start..start + size);
        let body = read_body(id, &payload, base + start, depth).within(label)?;
        blocks.push(Block { id: FourCc(id), body });
    }
    Ok((blocks, data.slice(c.pos()..)))
}

/// Reads a NUL-terminated string padded to an even length (§5.1).
fn read_string(c: &mut Cursor, data: &Bytes) -> Result<Bytes> {
    let start = c.pos();
    let len =
        c.rest().iter().position(|&b| b == 0).ok_or_else(|| Error::invalid(c.offset(), "string without a NUL"))?;
    c.skip(((len + 2) & !1).min(c.remaining()))?;
    Ok(data.slice(start..c.pos()))
}

impl<H: Record> Headed<H> {
    fn read(payload: &Bytes, base: usize, depth: usize) -> Result<Self> {
        let mut c = Cursor::with_base(payload, base, Endian::Big);
        let header = H::read(&mut c)?;
        let (children, tail) = read_blocks(&payload.slice(c.pos()..), base + c.pos(), depth + 1)?;
        Ok(Headed { header, children, tail })
    }

    fn write(&self, w: &mut Writer) {
        self.header.write(w);
        write_blocks(w, &self.children);
        w.bytes(&self.tail);
    }
}

impl Adbg {
    fn read(payload: &Bytes, base: usize) -> Result<Adbg> {
        let mut c = Cursor::with_base(payload, base, Endian::Big);
        let align = c.i32()?;
        let name = read_string(&mut c, payload)?;
        let source = read_string(&mut c, payload)?;
        let checksum = c.u32()?;
        Ok(Adbg { align, name, source, checksum, tail: payload.slice(c.pos()..) })
    }

    fn write(&self, w: &mut Writer) {
        w.i32(self.align);
        w.bytes(&self.name);
        w.bytes(&self.source);
        w.u32(self.checksum);
        w.bytes(&self.tail);
    }
}

fn read_body(id: [u8; 4], payload: &Bytes, base: usize, depth: usize) -> Result<BlockBody> {
    if depth > 8 {
        return Ok(BlockBody::Raw(payload.clone()));
    }
    if CONTAINERS.contains(&&id) {
        let (children, tail) = read_blocks(payload, base, depth + 1)?;
        return Ok(BlockBody::Children { children, tail });
    }
    match &id {
        b"AHDR" => Headed::read(payload, base, depth).map(BlockBody::Ahdr),
        b"LHDR" => Headed::read(payload, base, depth).map(BlockBody::Lhdr),
        // A debug block that does not parse is kept as raw bytes.
        b"ADBG" => Ok(Adbg::read(payload, base).map_or_else(|_| BlockBody::Raw(payload.clone()), BlockBody::Adbg)),
        _ => Ok(BlockBody::Raw(payload.clone())),
    }
}

/// Parses an archive.
pub(crate) fn read(data: &Bytes) -> Result<Hip> {
    if data.get(..4) != Some(b"HIPA") {
        return Err(Error::invalid(0, "not a HIP/HOP archive (no HIPA block)"));
    }
    let (blocks, tail) = read_blocks(data, 0, 0).within(|| "HIP")?;
    for id in [b"PACK", b"DICT", b"STRM"] {
        if !blocks.iter().any(|b| &b.id.0 == id) {
            let message = format!("no {} block: the archive is incomplete", latin1_until_nul(id));
            return Err(Error::new(ErrorKind::Truncated, Some(data.len() as u64), message).within("HIP"));
        }
    }
    let hip = Hip { blocks, tail };
    reject_shared_asset_data(&hip)?;
    Ok(hip)
}

/// Rejects an archive whose assets' data overlap (the error's offset is where the first
/// overlapping asset's data starts): each asset is converted on its own, so a table
/// of many headers pointing at one large animation would cost its keys once per header. (No
/// known archive shares asset data.) Linear after a sort.
fn reject_shared_asset_data(hip: &Hip) -> Result<()> {
    let mut ranges: Vec<(i64, i64, u32)> = hip
        .assets()
        .iter()
        .filter(|(a, _)| a.size > 0)
        .map(|(a, _)| (i64::from(a.offset), i64::from(a.offset) + i64::from(a.size), a.asset_id))
        .collect();
    ranges.sort_unstable();
    // The furthest end so far and its asset; each overlap as (earlier asset, asset, its start).
    let (mut reach, mut shared) = ((i64::MIN, 0u32), Vec::new());
    for &(begin, end, id) in &ranges {
        if begin < reach.0 {
            shared.push((reach.1, id, begin));
        }
        if end > reach.0 {
            reach = (end, id);
        }
    }
    let Some(&(a, b, at)) = shared.first() else { return Ok(()) };
    let count = shared.len();
    Err(Error::new(
        ErrorKind::Invalid,
        u64::try_from(at).ok(),
        format!("{count} assets share data bytes with another (asset 0x{b:08X} overlaps 0x{a:08X}); assets must not overlap"),
    )
    .within("HIP"))
}

fn write_blocks(w: &mut Writer, blocks: &[Block]) {
    for b in blocks {
        w.bytes(&b.id.0);
        let at = w.len();
        w.u32(0);
        match &b.body {
            BlockBody::Raw(bytes) => w.bytes(bytes),
            BlockBody::Children { children, tail } => {
                write_blocks(w, children);
                w.bytes(tail);
            }
            BlockBody::Ahdr(a) => a.write(w),
            BlockBody::Lhdr(l) => l.write(w),
            BlockBody::Adbg(d) => d.write(w),
        }
        let size = w.len() - at - 4;
        w.patch_u32(at, size as u32);
    }
}

/// Writes the archive back (exactly, when nothing was changed).
pub(crate) fn write(hip: &Hip) -> Vec<u8> {
    let mut w = Writer::new(Endian::Big);
    write_blocks(&mut w, &hip.blocks);
    w.bytes(&hip.tail);
    w.into_vec()
}

/// The game an archive was made for (§5.6), and the SKB version it implies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Game {
    pub label: &'static str,
    pub skb_version: SkbVersion,
}

/// Archive metadata from `PACK`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Meta {
    pub client_version: Option<u32>,
    pub pflg: Option<u32>,
    pub created: Option<u32>,
    pub platform: Option<String>,
}

impl Meta {
    /// The game (§5.6) from PVER's clientVersion, else PFLG 0x2E and the year (UTC) of PCRT's
    /// Unix time.
    pub(crate) fn game(&self) -> Option<Game> {
        let (label, skb_version) = match (self.client_version?, self.pflg) {
            (0x0004_0006, _) => ("Scooby-Doo! Night of 100 Frights", SkbVersion::V1),
            (_, Some(0x2E)) => match self.created? {
                1_072_915_200..1_104_537_600 => ("The SpongeBob SquarePants Movie / The Incredibles", SkbVersion::V1),
                1_104_537_600..1_136_073_600 => ("The Incredibles: Rise of the Underminer", SkbVersion::V2),
                1_136_073_600..1_167_609_600 => ("Ratatouille prototype", SkbVersion::V2),
                _ => return None,
            },
            (0x000A_000F, _) => ("Battle for Bikini Bottom", SkbVersion::V1),
            _ => return None,
        };
        Some(Game { label, skb_version })
    }
}

/// One ANIM asset of an archive, not yet parsed: a converter parses each when it converts it,
/// so that one animation's raw keys are held at a time.
pub(crate) struct AnimAsset {
    pub asset_id: u32,
    /// The clip name ([`Ahdr::clip_name`]).
    pub name: String,
    /// The asset's bytes ([`Hip::asset_data`]).
    pub data: Result<Bytes>,
}

/// The children of a container block with id `id`.
fn children_of<'a>(block: &'a Block, id: &[u8; 4]) -> impl Iterator<Item = &'a Block> + 'a {
    let id = *id;
    let children: &[Block] = match &block.body {
        BlockBody::Children { children, .. } => children,
        _ => &[],
    };
    children.iter().filter(move |b| b.id.0 == id)
}

/// The base name of a source path (either slash).
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

impl Ahdr {
    /// The clip name of an ANIM asset: the source file's base name without `.anm`, else the
    /// asset name, else the asset ID.
    pub(crate) fn clip_name(&self, dbg: Option<&Adbg>) -> String {
        let source = dbg.map(|d| d.source()).unwrap_or_default();
        let base = basename(&source);
        if !base.is_empty() {
            return base.strip_suffix(".anm").or_else(|| base.strip_suffix(".ANM")).unwrap_or(base).to_string();
        }
        match dbg.map(|d| d.name()) {
            Some(n) if !n.is_empty() => n,
            _ => format!("0x{:08X}", self.asset_id),
        }
    }

    /// The file name `extract` gives an ANIM (`.anm`, by clip name) or MODL (`.dff`, by asset
    /// name) asset, before collisions are resolved; `None` for other kinds.
    fn file_stem(&self, dbg: Option<&Adbg>) -> Option<(String, &'static str)> {
        match &self.kind.0 {
            b"ANIM" => Some((self.clip_name(dbg), "anm")),
            b"MODL" => {
                let name = dbg.map(|d| d.name()).filter(|n| !n.is_empty());
                let name = name.unwrap_or_else(|| format!("0x{:08X}", self.asset_id));
                let dff = name
                    .len()
                    .checked_sub(4)
                    .filter(|&i| name.get(i..).is_some_and(|e| e.eq_ignore_ascii_case(".dff")));
                Some((dff.and_then(|i| name.get(..i)).unwrap_or(&name).to_string(), "dff"))
            }
            _ => None,
        }
    }
}

impl Hip {
    fn top(&self, id: &[u8; 4]) -> Option<&Block> {
        self.blocks.iter().find(|b| &b.id.0 == id)
    }

    /// PVER / PFLG / PCRT / PLAT values.
    pub(crate) fn meta(&self) -> Meta {
        let raw = |id: &[u8; 4]| match &children_of(self.top(b"PACK")?, id).next()?.body {
            BlockBody::Raw(r) => Some(r.clone()),
            _ => None,
        };
        let u32_at = |b: Bytes, i: usize| b.get(i..)?.first_chunk().copied().map(u32::from_be_bytes);
        Meta {
            client_version: raw(b"PVER").and_then(|b| u32_at(b, 4)),
            pflg: raw(b"PFLG").and_then(|b| u32_at(b, 0)),
            created: raw(b"PCRT").and_then(|b| u32_at(b, 0)),
            platform: raw(b"PLAT").map(|b| latin1_until_nul(&b)),
        }
    }

    /// The layer boundary of the archive's platform (§5.5): 0x20 on GameCube, 0x800 elsewhere.
    pub(crate) fn layer_align(&self) -> usize {
        match self.meta().platform.as_deref() {
            Some("GC") | None => 0x20,
            Some(_) => 0x800,
        }
    }

    /// The bodies of the header blocks `DICT/<toc>/<id>`, in table order.
    fn headers<'a>(&'a self, toc: &'a [u8; 4], id: &'a [u8; 4]) -> impl Iterator<Item = &'a BlockBody> {
        let tables = self.top(b"DICT").into_iter().flat_map(move |dict| children_of(dict, toc));
        tables.flat_map(move |table| children_of(table, id)).map(|b| &b.body)
    }

    /// Every asset header, in ATOC order.
    pub(crate) fn assets<'a>(&'a self) -> Vec<(&'a Ahdr, Option<&'a Adbg>)> {
        let ahdrs = self.headers(b"ATOC", b"AHDR").filter_map(|b| match b {
            BlockBody::Ahdr(a) => Some(a),
            _ => None,
        });
        let adbg = |c: &'a Block| match &c.body {
            BlockBody::Adbg(d) => Some(d),
            _ => None,
        };
        ahdrs.map(|a| (&a.header, a.children.iter().find_map(adbg))).collect()
    }

    /// The ANIM and MODL assets with the file names `extract` gives them: the clip or model name
    /// (`.anm`, `.dff`), made safe, with the asset id added when two would collide.
    pub(crate) fn named_assets(&self) -> Vec<(String, &Ahdr)> {
        let mut out: Vec<(String, &Ahdr)> = Vec::new();
        for (a, dbg) in self.assets() {
            let Some((stem, ext)) = a.file_stem(dbg) else { continue };
            let stem = crate::text::safe_file_name(&stem);
            let mut name = format!("{stem}.{ext}");
            if out.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name)) {
                name = format!("{stem}_{:08X}.{ext}", a.asset_id);
            }
            out.push((name, a));
        }
        out
    }

    /// Every layer header, in LTOC order.
    pub(crate) fn layers(&self) -> Vec<&Lhdr> {
        let lhdrs = self.headers(b"LTOC", b"LHDR").filter_map(|b| match b {
            BlockBody::Lhdr(l) => Some(&l.header),
            _ => None,
        });
        lhdrs.collect()
    }

    /// The data of an asset, from the written file `file` (see [`write`]).
    pub(crate) fn asset_data(file: &Bytes, ahdr: &Ahdr) -> Result<Bytes> {
        let bad = || {
            let (id, at, size, len) = (ahdr.asset_id, ahdr.offset, ahdr.size, file.len());
            Error::new(
                ErrorKind::Invalid,
                None,
                format!("asset 0x{id:08X}: data at {at} + {size} lies outside the {len}-byte file"),
            )
        };
        let start = usize::try_from(ahdr.offset).map_err(|_| bad())?;
        let len = usize::try_from(ahdr.size).map_err(|_| bad())?;
        let end = start.checked_add(len).filter(|&e| e <= file.len()).ok_or_else(bad)?;
        Ok(file.slice(start..end))
    }

    /// The asset IDs in stream order (§5.5): layer by layer in LTOC order, then the assets in no
    /// layer in ATOC order; and the IDs that start a layer.
    fn stream_order(&self) -> (Vec<u32>, Vec<u32>) {
        let assets: Vec<u32> = self.assets().iter().map(|(a, _)| a.asset_id).collect();
        let mut order: Vec<u32> = Vec::with_capacity(assets.len());
        let layers = self.layers();
        for id in layers.iter().flat_map(|l| &l.asset_ids).chain(&assets) {
            if !order.contains(id) && assets.contains(id) {
                order.push(*id);
            }
        }
        (order, layers.iter().filter_map(|l| l.asset_ids.first().copied()).collect())
    }

    /// The absolute offset of `STRM/DPAK`'s payload, and that payload.
    fn dpak(&self) -> Result<(usize, Bytes)> {
        let mut pos = 0usize;
        for b in &self.blocks {
            if let (b"STRM", BlockBody::Children { children, .. }) = (&b.id.0, &b.body) {
                let mut p = pos + 8;
                for c in children {
                    if let (b"DPAK", BlockBody::Raw(payload)) = (&c.id.0, &c.body) {
                        return Ok((p + 8, payload.clone()));
                    }
                    p += block_size(c);
                }
            }
            pos += block_size(b);
        }
        Err(Error::new(ErrorKind::Invalid, None, "no STRM/DPAK block with raw data"))
    }

    /// Replaces the data of asset `asset_id` and re-packs the stream (§5.5): assets laid out
    /// layer by layer in LTOC order, each followed by `0x33` fill to a 16-byte boundary, each
    /// layer starting on `layer_align` (0x20 GameCube, 0x800 PS2/Xbox); AHDR offsets, sizes and
    /// `plus` recomputed; everything else kept. Assets in no layer keep their relative order after
    /// the layered ones.
    pub(crate) fn replace_asset(&mut self, asset_id: u32, data: Bytes, layer_align: usize) -> Result<()> {
        let file = Bytes::from(write(self));
        let mut datas: Vec<(u32, Bytes)> = Vec::new();
        for (a, _) in self.assets() {
            let d = if a.asset_id == asset_id { data.clone() } else { Self::asset_data(&file, a)? };
            datas.push((a.asset_id, d));
        }
        if !datas.iter().any(|(id, _)| *id == asset_id) {
            return Err(Error::new(ErrorKind::Invalid, None, format!("no asset 0x{asset_id:08X}")));
        }
        let (order, layer_starts) = self.stream_order();
        let (start, old) = self.dpak()?;
        // padLength, then 0x33 fill to 0x20 (absolute), then the assets.
        let mut out = old.get(..4).unwrap_or(&[0; 4]).to_vec();
        let align_to = |out: &mut Vec<u8>, a: usize| {
            let abs = start + out.len();
            out.resize(out.len() + crate::bytes::round_up(abs, a) - abs, 0x33);
        };
        align_to(&mut out, 0x20);
        let mut placed: Vec<(u32, i32, i32, i32)> = Vec::new();
        for id in &order {
            if layer_starts.contains(id) && !placed.is_empty() {
                align_to(&mut out, layer_align);
            }
            let Some((_, d)) = datas.iter().find(|(x, _)| x == id) else { continue };
            let offset = start + out.len();
            out.extend_from_slice(d);
            let before = out.len();
            align_to(&mut out, 16);
            placed.push((*id, offset as i32, d.len() as i32, (out.len() - before) as i32));
        }
        align_to(&mut out, layer_align);
        self.set_stream(Bytes::from(out), &placed);
        Ok(())
    }

    /// Stores a new DPAK payload and each placed asset's `(id, offset, size, plus)`.
    fn set_stream(&mut self, dpak: Bytes, placed: &[(u32, i32, i32, i32)]) {
        for strm in self.blocks.iter_mut().filter(|b| &b.id.0 == b"STRM") {
            if let Some(c) = children_mut(strm).find(|c| &c.id.0 == b"DPAK") {
                c.body = BlockBody::Raw(dpak.clone());
            }
        }
        let dicts = self.blocks.iter_mut().filter(|b| &b.id.0 == b"DICT");
        let atocs = dicts.flat_map(children_mut).filter(|c| &c.id.0 == b"ATOC");
        for ah in atocs.flat_map(children_mut) {
            let BlockBody::Ahdr(Headed { header: a, .. }) = &mut ah.body else { continue };
            if let Some(&(_, o, s, p)) = placed.iter().find(|x| x.0 == a.asset_id) {
                (a.offset, a.size, a.plus) = (o, s, p);
            }
        }
    }
}

/// The children of a container block, mutable (none for other blocks).
fn children_mut(block: &mut Block) -> std::slice::IterMut<'_, Block> {
    match &mut block.body {
        BlockBody::Children { children, .. } => children.iter_mut(),
        _ => [].iter_mut(),
    }
}

/// The written size of a block, header included.
fn block_size(b: &Block) -> usize {
    let mut w = Writer::new(Endian::Big);
    write_blocks(&mut w, std::slice::from_ref(b));
    w.len()
}

/// The asset ID hash (§5.3): `h = h·131 + toupper(c)` mod 2³².
pub(crate) fn asset_hash(name: &str) -> u32 {
    name.bytes().fold(0u32, |h, c| h.wrapping_mul(131).wrapping_add(u32::from(c.to_ascii_uppercase())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asset_hash_matches_the_spec_recipe() {
        // Python: h=0; [h:=(h*131+ord(c.upper()))%2**32 for c in "ab.anm"][-1]
        assert_eq!(asset_hash("ab.anm"), 0x695B_486F);
    }

    /// A misspelt key beside a block's body, an asset or layer header's fields, or a container's
    /// children is refused by name; the same objects without it read.
    #[test]
    fn a_dump_with_an_unknown_key_is_refused_naming_it() {
        let ahdr =
            r#"{"id":"AHDR","ahdr":{"asset_id":1,"kind":"ANIM","offset":0,"size":0,"plus":0,"flags":0,"children":[]}}"#;
        let lhdr = r#"{"id":"LHDR","lhdr":{"layer_type":1,"asset_ids":[2],"children":[]}}"#;
        let pack = r#"{"id":"PACK","container":{"children":[]}}"#;
        let parse = |b: &str| serde_json::from_str::<Hip>(&format!(r#"{{"blocks":[{b}]}}"#)).map_err(|e| e.to_string());
        for (block, after) in [(ahdr, r#""flags":0"#), (lhdr, r#""layer_type":1"#), (pack, "[]"), (pack, r#""PACK""#)] {
            assert!(parse(block).is_ok(), "{block}");
            let misspelt = block.replacen(after, &format!(r#"{after},"bogus":1"#), 1);
            let err = parse(&misspelt).expect_err(&misspelt);
            assert!(err.contains("unknown field `bogus`"), "{misspelt}: {err}");
        }
    }

    /// PFLG 0x2E games by PCRT's year: `date -u -d 2005-01-01 +%s` is 1104537600; 0x3F6A9B4A is
    /// 2003-09-19.
    #[test]
    fn pflg_2e_games_are_told_apart_by_the_creation_year() {
        let game = |created| Meta { client_version: Some(0), pflg: Some(0x2E), created, platform: None }.game();
        assert_eq!(game(Some(1_104_537_599)).map(|g| g.skb_version), Some(SkbVersion::V1));
        assert_eq!(game(Some(1_104_537_600)).map(|g| g.label), Some("The Incredibles: Rise of the Underminer"));
        assert_eq!(game(Some(0x3F6A_9B4A)), None);
        assert_eq!(game(None), None);
    }
}
