//! Writing subfiles and whole files in Nintendo's canonical layout (spec §2.4, §3.4, §7.1, §8).
//!
//! [`Out`] lays bytes out at a known absolute base and patches self-relative offsets once their
//! targets are placed; string references are resolved at the end against a string pool.
//! [`write_fska`] and [`write_ftxp`] follow the retail storage orders, so a parsed retail
//! subfile written at its original position against the original pool gives the original
//! bytes (checked on every corpus FSKA). [`write_file`] builds a complete animation-only FRES.

use std::collections::BTreeMap;

use super::curve::{Curve, CurveType, FrameType, KeyType};
use super::dict::{build as build_trie, TrieNode};
use super::fres::{write_header, Header, GROUPS, HEADER_SIZE};
use super::fshu::Fshu;
use super::fska::{Fska, UserData, UserValues};
use super::ftxp::Ftxp;
use super::fvis::Fvis;
use super::strings::{write_pool, PoolString};
use crate::bytes::{round_up, Endian, Writer};
use crate::error::{Error, Result};

/// An output buffer placed at absolute position `base`.
pub struct Out {
    /// The bytes written so far (big-endian).
    pub w: Writer,
    base: usize,
    strings: Vec<(usize, String)>,
}

impl Out {
    /// An empty buffer whose first byte will lie at `base`.
    pub fn new(base: usize) -> Self {
        Out { w: Writer::new(Endian::Big), base, strings: Vec::new() }
    }

    /// The absolute position of the next byte.
    pub fn pos(&self) -> usize {
        self.base + self.w.len()
    }

    /// Writes a null offset to patch later; returns its slot.
    pub fn slot(&mut self) -> usize {
        let p = self.w.len();
        self.w.i32(0);
        p
    }

    /// Points the offset at `slot` to absolute `target`.
    pub fn patch(&mut self, slot: usize, target: usize) {
        let field = (self.base + slot) as i64;
        self.w.patch_u32(slot, (target as i64 - field) as i32 as u32);
    }

    /// Points the offset at `slot` to the current position.
    pub fn patch_here(&mut self, slot: usize) {
        let here = self.pos();
        self.patch(slot, here);
    }

    /// A reference to the string `s` (resolved by [`Out::resolve`]).
    pub fn string(&mut self, s: &str) {
        let p = self.slot();
        self.strings.push((p, s.to_string()));
    }

    /// Pads with zeros to a multiple of 4 bytes.
    pub fn align4(&mut self) {
        let pad = round_up(self.w.len(), 4) - self.w.len();
        self.w.fill(0, pad);
    }

    /// Every string referenced so far.
    pub fn strings(&self) -> impl Iterator<Item = &str> {
        self.strings.iter().map(|s| s.1.as_str())
    }

    /// Patches every string reference with the position `find` gives (its first character).
    pub fn resolve(&mut self, find: impl Fn(&str) -> Option<usize>) -> Result<()> {
        for (slot, s) in std::mem::take(&mut self.strings) {
            let at = find(&s).ok_or_else(|| Error::unrepresentable(format!("string {s:?} is not in the pool")))?;
            self.patch(slot, at);
        }
        Ok(())
    }

    /// The bytes written.
    pub fn into_vec(self) -> Vec<u8> {
        self.w.into_vec()
    }

    /// The opening of every animation subfile: its magic, name and (empty) path.
    fn subfile_header(&mut self, magic: &[u8; 4], name: &str) {
        self.w.bytes(magic);
        self.string(name);
        self.string("");
    }

    /// The bind index array the header's `slot` points at: `n` × `0xFFFF` (filled in by the game
    /// at bind time, §8), padded to 4.
    fn bind_indices(&mut self, slot: usize, n: u16) {
        self.patch_here(slot);
        for _ in 0..n {
            self.w.u16(0xFFFF);
        }
        self.align4();
    }
}

/// A curve array: every header, then every curve's frames and keys.
fn write_curves(o: &mut Out, curves: &[Curve], version: u32) {
    let slots: Vec<_> = curves.iter().map(|c| curve_header(o, c, version)).collect();
    for (c, s) in curves.iter().zip(slots) {
        curve_data(o, c, s);
    }
}

fn curve_header(o: &mut Out, c: &Curve, version: u32) -> (usize, usize) {
    o.w.u16(c.flags);
    o.w.u16(c.key_count);
    o.w.u32(c.target);
    o.w.f32(c.start);
    o.w.f32(c.end);
    o.w.u32(c.scale_bits);
    o.w.u32(c.offset_bits);
    if version >= 0x0304_0000 {
        o.w.f32(c.delta.unwrap_or(0.0));
    }
    (o.slot(), o.slot())
}

fn curve_data(o: &mut Out, c: &Curve, slots: (usize, usize)) {
    o.patch_here(slots.0);
    for &f in &c.frames {
        match c.frame_type() {
            FrameType::F32 => o.w.f32(f),
            FrameType::Fixed10x5 => o.w.i16((f * 32.0).round() as i16),
            FrameType::U8 => o.w.u8(f as u8),
        }
    }
    o.align4();
    o.patch_here(slots.1);
    let bool_curve = matches!(c.curve_type(), CurveType::StepBool | CurveType::BakedBool);
    for &k in &c.keys {
        match c.key_type() {
            _ if bool_curve => o.w.u32(k as u32),
            KeyType::Bits32 if c.is_float() => o.w.f32(k as f32),
            KeyType::Bits32 => o.w.i32(k as i32),
            KeyType::S16 => o.w.i16(k as i16),
            KeyType::S8 => o.w.u8(k as i8 as u8),
        }
    }
    o.align4();
}

/// Writes an FSKA (v >= 3.4 layout) at the output's position.
pub fn write_fska(o: &mut Out, a: &Fska, version: u32) -> Result<()> {
    if version < 0x0304_0000 {
        return Err(Error::unsupported("writing FSKA before 3.4.0.0"));
    }
    let n = u16::try_from(a.bones.len()).map_err(|_| Error::unrepresentable("more than 65535 bone animations"))?;
    o.subfile_header(b"FSKA", &a.name);
    o.w.u32(a.flags);
    o.w.i32(a.frame_count);
    o.w.u16(n);
    o.w.u16(a.user_data.len() as u16);
    o.w.i32(a.curve_count);
    o.w.u32(a.baked_size);
    let bones_slot = o.slot();
    o.w.i32(0); // bound skeleton
    let bind_slot = o.slot();
    let user_slot = o.slot();
    o.bind_indices(bind_slot, n);
    o.patch_here(bones_slot);
    let mut slots = Vec::with_capacity(a.bones.len());
    for b in &a.bones {
        let count =
            u8::try_from(b.curves.len()).map_err(|_| Error::unrepresentable("more than 255 curves in a bone"))?;
        o.w.u32(b.flags);
        o.string(&b.name);
        o.w.u8(b.begin_rotate);
        o.w.u8(b.begin_translate);
        o.w.u8(count);
        o.w.u8(b.begin_base_translate);
        o.w.bytes(&b.begin_curve.to_le_bytes());
        o.w.u16(0);
        slots.push((o.slot(), o.slot()));
    }
    for (b, &(curves_slot, base_slot)) in a.bones.iter().zip(&slots) {
        let has_base = b.scale.is_some() || b.rotate.is_some() || b.translate.is_some();
        if !has_base && b.curves.is_empty() {
            continue;
        }
        o.patch_here(base_slot);
        for v in b.scale.iter().flatten().chain(b.rotate.iter().flatten()).chain(b.translate.iter().flatten()) {
            o.w.f32(*v);
        }
        o.patch_here(curves_slot);
        write_curves(o, &b.curves, version);
    }
    if !a.user_data.is_empty() {
        o.patch_here(user_slot);
        write_user_data(o, &a.user_data)?;
    }
    Ok(())
}

/// Writes a user-data index group followed by its entries.
pub fn write_user_data(o: &mut Out, entries: &[UserData]) -> Result<()> {
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let dict_len = 8 + 16 * (entries.len() + 1);
    let mut targets = Vec::with_capacity(entries.len());
    let mut p = o.pos() + dict_len;
    for e in entries {
        targets.push(p);
        p += 8 + match &e.values {
            UserValues::Words(v) => 4 * v.len(),
            UserValues::Strings(v) => 4 * v.len(),
            UserValues::Bytes(v) => round_up(v.len(), 4),
        };
    }
    write_dict(o, &names, &targets)?;
    for e in entries {
        o.string(&e.name);
        let count = match &e.values {
            UserValues::Words(v) => v.len(),
            UserValues::Strings(v) => v.len(),
            UserValues::Bytes(v) => v.len(),
        };
        o.w.u16(count as u16);
        o.w.u8(e.kind);
        o.w.u8(e.pad);
        match &e.values {
            UserValues::Words(v) => v.iter().for_each(|&x| o.w.u32(x)),
            UserValues::Strings(v) => v.iter().for_each(|x| o.string(x)),
            UserValues::Bytes(v) => {
                o.w.bytes(v);
                o.align4();
            }
        }
    }
    Ok(())
}

/// Writes an FTXP at the output's position (§3.4 storage order). Both header layouts (§3.1):
/// before 3.4.0.0 the counts are narrower and the TextureRefs are a flat array with no index
/// group after the data.
pub fn write_ftxp(o: &mut Out, a: &Ftxp, version: u32) -> Result<()> {
    let new = version >= 0x0304_0000;
    let mats = u16::try_from(a.materials.len()).map_err(|_| Error::unrepresentable("too many materials"))?;
    let texs = u16::try_from(a.textures.len()).map_err(|_| Error::unrepresentable("too many textures"))?;
    let infos: usize = a.materials.iter().map(|m| m.infos.len()).sum();
    let curves: usize = a.materials.iter().map(|m| m.curves.len()).sum();
    o.subfile_header(b"FTXP", &a.name);
    o.w.u16(a.flags);
    if new {
        o.w.u16(0);
        o.w.i32(a.frame_count);
        o.w.u16(texs);
        o.w.u16(mats);
        o.w.u32(infos as u32);
        o.w.u32(curves as u32);
        o.w.u32(a.baked_size);
    } else {
        let frames = u16::try_from(a.frame_count)
            .map_err(|_| Error::unrepresentable("frameCount outside 0..=65535 before 3.4"))?;
        let infos = u16::try_from(infos).map_err(|_| Error::unrepresentable("too many pattern infos"))?;
        o.w.u16(frames);
        o.w.u16(texs);
        o.w.u16(mats);
        o.w.u16(0);
        o.w.u16(infos);
        o.w.i32(curves as i32);
        o.w.u32(a.baked_size);
        o.w.u32(0);
    }
    o.w.i32(0); // bound model
    let bind_slot = o.slot();
    let mats_slot = o.slot();
    let refs_slot = o.slot();
    o.w.i32(0); // user data
    o.bind_indices(bind_slot, mats);
    o.patch_here(mats_slot);
    let (mut begin_curve, mut begin_pat) = (0i32, 0i32);
    let mut mat_slots = Vec::new();
    for m in &a.materials {
        o.w.u16(m.infos.len() as u16);
        o.w.u16(m.curves.len() as u16);
        o.w.i32(begin_curve);
        o.w.i32(begin_pat);
        begin_curve += m.curves.len() as i32;
        begin_pat += m.infos.len() as i32;
        o.string(&m.name);
        mat_slots.push((o.slot(), o.slot(), o.slot()));
    }
    // TextureRef structs: name, FTEX (before 3.4 the header points at them directly).
    if !new && !a.textures.is_empty() {
        o.patch_here(refs_slot);
    }
    let mut ref_positions = Vec::new();
    for (k, t) in a.textures.iter().enumerate() {
        ref_positions.push(o.pos());
        o.string(t);
        let field = o.pos();
        match a.texture_ftex.get(k).copied().flatten() {
            Some(target) => {
                o.w.i32(i32::try_from(target as i64 - field as i64).map_err(|_| {
                    Error::unrepresentable(format!("texture \"{t}\": FTEX at {target} is out of reach"))
                })?)
            }
            None => o.w.i32(0),
        }
    }
    // Per material: pattern infos, curve headers, base values, then its curves' frames and keys
    // (Mario Kart 8's two-material FTXP; one material, as in Animal_Bass, gives §3.4's order).
    for (m, s) in a.materials.iter().zip(&mat_slots) {
        o.patch_here(s.0);
        for info in &m.infos {
            o.w.u8(info.curve_index as u8);
            o.w.u8(info.sub_bind_index as u8);
            o.w.u16(0);
            o.string(&info.sampler);
        }
        o.patch_here(s.1);
        let curve_slots: Vec<_> = m.curves.iter().map(|c| curve_header(o, c, version)).collect();
        o.patch_here(s.2);
        for &v in &m.base_values {
            o.w.u16(v);
        }
        o.align4();
        for (c, slot) in m.curves.iter().zip(curve_slots) {
            curve_data(o, c, slot);
        }
    }
    if new {
        o.patch_here(refs_slot);
        let names: Vec<&str> = a.textures.iter().map(String::as_str).collect();
        write_dict(o, &names, &ref_positions)?;
    }
    Ok(())
}

/// Writes an FSHU (v >= 3.4 layout, §7.3 storage order) at the output's position.
pub fn write_fshu(o: &mut Out, a: &Fshu, version: u32) -> Result<()> {
    if version < 0x0304_0000 {
        return Err(Error::unsupported("writing FSHU before 3.4.0.0"));
    }
    let mats = u16::try_from(a.materials.len()).map_err(|_| Error::unrepresentable("too many materials"))?;
    o.subfile_header(b"FSHU", &a.name);
    o.w.u32(a.flags);
    o.w.i32(a.frame_count);
    o.w.u16(mats);
    o.w.u16(0);
    o.w.i32(a.param_anim_count);
    o.w.i32(a.curve_count);
    o.w.u32(a.baked_size);
    o.w.i32(0); // bound model
    let bind_slot = o.slot();
    let mats_slot = o.slot();
    o.w.i32(0); // user data
    o.bind_indices(bind_slot, mats);
    o.patch_here(mats_slot);
    let (mut begin_curve, mut begin_param) = (0i32, 0i32);
    let mut slots = Vec::new();
    for m in &a.materials {
        o.w.u16(m.params.len() as u16);
        o.w.u16(m.curves.len() as u16);
        o.w.u16(m.constants.len() as u16);
        o.w.u16(0);
        o.w.i32(begin_curve);
        o.w.i32(begin_param);
        begin_curve += m.curves.len() as i32;
        begin_param += (m.curves.len() + m.constants.len()) as i32;
        o.string(&m.name);
        slots.push((o.slot(), o.slot(), o.slot()));
    }
    for (m, &(infos, curves, consts)) in a.materials.iter().zip(&slots) {
        o.patch_here(infos);
        for p in &m.params {
            o.w.u16(p.begin_curve);
            o.w.u16(p.float_curves);
            o.w.u16(p.int_curves);
            o.w.u16(p.begin_constant);
            o.w.u16(p.constant_count);
            o.w.u16(p.sub_bind_index);
            o.string(&p.name);
        }
        o.patch_here(consts);
        for &(t, v) in &m.constants {
            o.w.u32(t);
            o.w.u32(v);
        }
        o.patch_here(curves);
        write_curves(o, &m.curves, version);
    }
    Ok(())
}

/// Writes an FVIS (v >= 3.4 layout, §7.2 storage order) at the output's position.
pub fn write_fvis(o: &mut Out, a: &Fvis, version: u32) -> Result<()> {
    if version < 0x0304_0000 {
        return Err(Error::unsupported("writing FVIS before 3.4.0.0"));
    }
    let n = u16::try_from(a.names.len()).map_err(|_| Error::unrepresentable("too many entries"))?;
    o.subfile_header(b"FVIS", &a.name);
    o.w.u16(a.flags);
    o.w.u16(0);
    o.w.i32(a.frame_count);
    o.w.u16(n);
    o.w.u16(a.curves.len() as u16);
    o.w.u32(a.baked_size);
    o.w.i32(0); // bound model
    let bind_slot = o.slot();
    let names_slot = o.slot();
    let curves_slot = o.slot();
    let base_slot = o.slot();
    o.w.i32(0); // user data
    o.bind_indices(bind_slot, n);
    o.patch_here(names_slot);
    for name in &a.names {
        o.string(name);
    }
    o.patch_here(curves_slot);
    let cs: Vec<_> = a.curves.iter().map(|c| curve_header(o, c, version)).collect();
    o.patch_here(base_slot);
    for &w in &a.base {
        o.w.u32(w);
    }
    for (c, s) in a.curves.iter().zip(cs) {
        curve_data(o, c, s);
    }
    Ok(())
}

/// Writes an index group for `names` whose entries point at `targets`.
pub fn write_dict(o: &mut Out, names: &[&str], targets: &[usize]) -> Result<()> {
    if names.len() != targets.len() {
        return Err(Error::unrepresentable(format!("{} index group names for {} entries", names.len(), targets.len())));
    }
    let (root, nodes) = dict_head(o, names)?;
    write_trie_node(o, root);
    o.w.i32(0);
    o.w.i32(0);
    for (&node, (name, &target)) in nodes.iter().zip(names.iter().zip(targets)) {
        write_trie_node(o, node);
        o.string(name);
        let s = o.slot();
        o.patch(s, target);
    }
    Ok(())
}

/// Writes the size and count words of the index group for `names`: its root node and the node
/// of every name, in order.
fn dict_head(o: &mut Out, names: &[&str]) -> Result<(TrieNode, Vec<TrieNode>)> {
    let trie = build_trie(&names.iter().map(|s| s.as_bytes()).collect::<Vec<_>>())?;
    o.w.u32((8 + 16 * trie.len()) as u32);
    o.w.i32(names.len() as i32);
    match trie.split_first() {
        Some((&root, nodes)) => Ok((root, nodes.to_vec())),
        None => Err(Error::unrepresentable("an index group without a root node")),
    }
}

fn write_trie_node(o: &mut Out, (reference, left, right): TrieNode) {
    o.w.u32(reference);
    o.w.u16(left);
    o.w.u16(right);
}

/// The slot of index group `g` in a per-group header array.
fn group_slot<T>(slots: &mut [T; GROUPS], g: usize) -> Result<&mut T> {
    slots.get_mut(g).ok_or_else(|| Error::unrepresentable(format!("index group {g} (a file has {GROUPS})")))
}

/// A subfile to place in a new file.
pub enum Subfile<'a> {
    /// An FSKA.
    Fska(&'a Fska),
    /// An FTXP.
    Ftxp(&'a Ftxp),
    /// An FSHU and its index group (3 shader param, 4 colour, 5 texture SRT).
    Fshu(&'a Fshu, usize),
    /// An FVIS (bone or material group from its flags).
    Fvis(&'a Fvis),
}

/// Builds a complete animation-only FRES (alignment 4): header, index groups, subfiles in group
/// order, string pool at the end (§2.4).
pub fn write_file(name: &str, version: u32, subfiles: &[Subfile]) -> Result<Vec<u8>> {
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
        let mut names: Vec<&str> = entries.iter().map(|e| e.0).collect();
        names.sort_unstable();
        if let Some(dup) = names.windows(2).find_map(|w| match w {
            [a, b] if a == b => Some(a),
            _ => None,
        }) {
            return Err(Error::unrepresentable(format!("two subfiles of one kind are named {dup:?}")));
        }
    }
    let mut o = Out::new(HEADER_SIZE);
    let mut group_at = [0usize; GROUPS];
    let mut data_slots: Vec<(usize, usize, usize)> = Vec::new(); // (group, index, slot)
    for (&g, entries) in &groups {
        *group_slot(&mut group_at, g)? = o.pos();
        let names: Vec<&str> = entries.iter().map(|e| e.0).collect();
        let (root, nodes) = dict_head(&mut o, &names)?;
        write_trie_node(&mut o, root);
        o.w.i32(0);
        o.w.i32(0);
        for (k, (&node, name)) in nodes.iter().zip(&names).enumerate() {
            write_trie_node(&mut o, node);
            o.string(name);
            data_slots.push((g, k, o.slot()));
        }
    }
    for (&g, entries) in &groups {
        for (k, (_, s)) in entries.iter().enumerate() {
            if let Some(&(_, _, slot)) = data_slots.iter().find(|d| d.0 == g && d.1 == k) {
                o.patch_here(slot);
            }
            match s {
                Subfile::Fska(a) => write_fska(&mut o, a, version)?,
                Subfile::Ftxp(a) => write_ftxp(&mut o, a, version)?,
                Subfile::Fshu(a, _) => write_fshu(&mut o, a, version)?,
                Subfile::Fvis(a) => write_fvis(&mut o, a, version)?,
            }
        }
    }
    // The string pool: every distinct string, sorted by bytes, the empty string last.
    let mut all: Vec<String> = o.strings().map(str::to_string).collect();
    all.push(name.to_string());
    all.push(String::new());
    all.sort();
    all.dedup();
    all.retain(|s| !s.is_empty());
    all.push(String::new());
    let pool_at = o.pos();
    let mut positions = BTreeMap::new();
    let mut pool = Vec::new();
    let mut p = pool_at;
    for s in &all {
        positions.insert(s.clone(), p + 4);
        let e = PoolString::new(s.as_bytes());
        p += e.byte_len();
        pool.push(e);
    }
    o.resolve(|s| positions.get(s).copied())?;
    let mut body = o.into_vec();
    let mut w = Writer::new(Endian::Big);
    write_pool(&mut w, &pool);
    let pool_bytes = w.into_vec();
    let pool_size = pool_bytes.len();
    body.extend_from_slice(&pool_bytes);
    let file_size = HEADER_SIZE + body.len();
    let rel = |field: usize, target: usize| (target as i64 - field as i64) as i32;
    let mut groups_rel = [0i32; GROUPS];
    let mut counts = [0u16; GROUPS];
    for (&g, entries) in &groups {
        let at = *group_slot(&mut group_at, g)?;
        *group_slot(&mut groups_rel, g)? = rel(0x20 + 4 * g, at);
        *group_slot(&mut counts, g)? =
            u16::try_from(entries.len()).map_err(|_| Error::unrepresentable("too many subfiles"))?;
    }
    let name_pos = positions.get(name).copied().unwrap_or(pool_at + 4);
    let header = Header {
        version,
        bom: 0xFEFF,
        header_word: 0x0010,
        file_size: u32::try_from(file_size).map_err(|_| Error::unrepresentable("file over 4 GiB"))?,
        alignment: 4,
        name: rel(0x14, name_pos),
        pool_size: pool_size as u32,
        pool: rel(0x1C, pool_at),
        groups: groups_rel,
        counts,
        user_pointer: 0,
    };
    let mut w = Writer::with_capacity(Endian::Big, file_size);
    write_header(&mut w, &header);
    w.bytes(&body);
    Ok(w.into_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fshu_in_a_group_past_the_header_is_an_error() {
        // Index group 12 does not exist (a FRES header has 12 groups, 0..=11): this used to
        // index the per-group arrays out of bounds.
        let fshu = Fshu {
            at: 0,
            name: "a".into(),
            flags: 0,
            frame_count: 1,
            param_anim_count: 0,
            curve_count: 0,
            baked_size: 0,
            materials: Vec::new(),
        };
        let err = write_file("f", 0x0405_0003, &[Subfile::Fshu(&fshu, GROUPS)]).unwrap_err();
        assert!(err.to_string().contains("index group 12"), "{err}");
        // A valid group still writes.
        assert!(write_file("f", 0x0405_0003, &[Subfile::Fshu(&fshu, 3)]).is_ok());
    }

    #[test]
    fn index_group_names_and_targets_must_pair_up() {
        let mut o = Out::new(0);
        assert!(write_dict(&mut o, &["a", "b"], &[0]).is_err());
        let mut o = Out::new(0);
        assert!(write_dict(&mut o, &["a", "b"], &[0, 4]).is_ok());
    }
}
