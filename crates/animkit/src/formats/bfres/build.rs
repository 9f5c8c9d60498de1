//! Writing subfiles and whole files for both platforms (spec §2.4, §3.4, §7.1, §8, §11).
//!
//! [`Out`] lays bytes out at a known absolute base for one [`Platform`]: it knows how an offset
//! is stored (Wii U: `i32` relative to the field; Switch: absolute `u64`, every non-null one
//! recorded for the relocation table), patches offsets once their targets are placed, and
//! resolves string references at the end against a string table (Wii U: the offset points at
//! the text; Switch: at the `u16` length word). Each structure is written by one function for
//! both platforms, in the storage order of the retail files: a parsed retail subfile written at
//! its original position against the original strings gives the original bytes (checked on
//! every corpus FSKA, FTXP, FSHU and FVIS, and on the FSKA and FMAA data of every Switch file).
//! [`write_file`] builds a complete animation-only Wii U FRES (`switch_build` the Switch one).
//!
//! Alignment: Wii U pads every part to 4 after it; Switch starts every array, base-value block
//! and curve data at a multiple of 8 and pads nothing after the last part. An offset to an empty
//! array points at where it would be on Wii U and is null on Switch.

use std::collections::{BTreeMap, BTreeSet};

use super::curve::{Curve, CurveType, FrameType, KeyType};
use super::dict::{build_by, Rule};
use super::fres::{write_header, Header, GROUPS, HEADER_SIZE};
use super::fshu::{Fshu, ParamInfo};
use super::fska::{BoneAnim, Fska, UserData, UserValues};
use super::ftxp::Ftxp;
use super::fvis::Fvis;
use super::platform::Platform;
use super::strings::{write_pool, PoolString};
use crate::bytes::{round_up, Endian, Writer};
use crate::error::{Error, Result};

/// An output buffer placed at absolute position `base`, laid out for `platform`.
pub struct Out {
    /// The bytes written so far, in the platform's byte order.
    pub w: Writer,
    base: usize,
    platform: Platform,
    /// String references: the slot and the string's range in `text`.
    strings: Vec<(usize, std::ops::Range<usize>)>,
    /// The referenced strings, one after another.
    text: String,
    /// Absolute positions of the non-null Switch offsets written.
    offsets: BTreeSet<usize>,
}

/// Placed bytes and the absolute positions of the Switch offsets among them.
pub(crate) struct Image {
    /// The absolute position of the first byte.
    pub start: usize,
    /// The bytes.
    pub bytes: Vec<u8>,
    offsets: BTreeSet<usize>,
}

impl Image {
    /// The absolute positions of the non-null offsets written.
    pub fn offsets(&self) -> impl Iterator<Item = usize> + '_ {
        self.offsets.iter().copied()
    }
}

impl Out {
    /// An empty output whose first byte lands at absolute position `base`.
    pub fn new(base: usize, platform: Platform) -> Self {
        let w = Writer::new(platform.endian());
        Out { w, base, platform, strings: Vec::new(), text: String::new(), offsets: BTreeSet::new() }
    }

    /// The absolute position of the next byte.
    pub fn pos(&self) -> usize {
        self.base + self.w.len()
    }

    /// The platform the output is laid out for.
    pub fn platform(&self) -> Platform {
        self.platform
    }

    fn switch(&self) -> bool {
        self.platform.is_switch()
    }

    /// Writes a null offset to patch later; returns its slot.
    pub fn slot(&mut self) -> usize {
        let p = self.w.len();
        self.w.fill(0, self.platform.offset_size());
        p
    }

    /// Points the offset at `slot` to absolute `target` (0 leaves a Switch offset null).
    pub fn patch(&mut self, slot: usize, target: usize) {
        if self.switch() {
            self.w.patch_u64(slot, target as u64);
            if target != 0 {
                self.offsets.insert(self.base + slot);
            }
        } else {
            let field = (self.base + slot) as i64;
            self.w.patch_u32(slot, (target as i64 - field) as i32 as u32);
        }
    }

    /// Points the offset at `slot` to the current position.
    pub fn patch_here(&mut self, slot: usize) {
        let here = self.pos();
        self.patch(slot, here);
    }

    /// Points the offset at `slot` to the current position when the part there is `present`,
    /// and on Wii U always (see the module notes).
    fn here(&mut self, slot: usize, present: bool) {
        if present || !self.switch() {
            self.patch_here(slot);
        }
    }

    /// A reference to the string `s` (resolved by [`Out::resolve`]).
    pub fn string(&mut self, s: &str) {
        let p = self.slot();
        self.text.push_str(s);
        self.strings.push((p, self.text.len() - s.len()..self.text.len()));
    }

    /// Pads with zeros to the platform's alignment (4 on Wii U, 8 on Switch), counted from
    /// absolute position 0.
    pub fn align(&mut self) {
        let a = if self.switch() { 8 } else { 4 };
        self.w.fill(0, round_up(self.pos(), a) - self.pos());
    }

    /// Pads to 4 on Wii U (after a part); nothing on Switch.
    fn pad_after(&mut self) {
        if !self.switch() {
            self.align();
        }
    }

    /// Every string referenced so far.
    pub fn strings(&self) -> impl Iterator<Item = &str> {
        self.strings.iter().map(|(_, r)| self.text.get(r.clone()).unwrap_or_default())
    }

    /// Patches every string reference with the position `find` gives.
    pub fn resolve(&mut self, find: impl Fn(&str) -> Option<usize>) -> Result<()> {
        let text = std::mem::take(&mut self.text);
        for (slot, r) in std::mem::take(&mut self.strings) {
            let s = text.get(r).unwrap_or_default();
            let at =
                find(s).ok_or_else(|| Error::unrepresentable(format!("string {s:?} is not in the string table")))?;
            self.patch(slot, at);
        }
        Ok(())
    }

    /// The bytes written.
    pub fn into_vec(self) -> Vec<u8> {
        self.w.into_vec()
    }

    /// The bytes written with their position and offsets.
    pub(crate) fn into_image(self) -> Image {
        Image { start: self.base, offsets: self.offsets, bytes: self.w.into_vec() }
    }

    /// The opening of every animation subfile: its magic (on Switch followed by a 12-byte block
    /// header, zeros here, or from 0.9 by the subfile's `flags`), name and (empty) path.
    pub(crate) fn subfile_header(&mut self, magic: &[u8; 4], name: &str, flags: u32) {
        self.w.bytes(magic);
        if self.platform.switch_0_9() {
            self.w.u32(flags);
        } else if self.switch() {
            self.w.fill(0, 12);
        }
        self.string(name);
        self.string("");
    }

    /// The Wii U bind index array the header's `slot` points at: `n` × `0xFFFF` (filled in by
    /// the game at bind time, §8), padded to 4.
    fn bind_indices(&mut self, slot: usize, n: u16) {
        self.patch_here(slot);
        self.w.fill(0xFF, 2 * usize::from(n));
        self.align();
    }
}

/// `n` as a `u16` count of `what`.
pub(crate) fn count16(n: usize, what: &str) -> Result<u16> {
    u16::try_from(n).map_err(|_| Error::unrepresentable(format!("{n} {what} (at most 65535)")))
}

/// A curve array: every header, then every curve's frames and keys.
pub(crate) fn write_curves(o: &mut Out, curves: &[Curve]) {
    let slots: Vec<_> = curves.iter().map(|c| curve_header(o, c)).collect();
    for (c, s) in curves.iter().zip(slots) {
        curve_data(o, c, s);
    }
}

/// A curve header (§5.2): Wii U `0x20`, or `0x24` with `delta` from 3.4, the frame and key
/// offsets last; Switch `0x30`, the offsets first and a pad word last. Returns the slots of the
/// frame and key offsets.
pub(crate) fn curve_header(o: &mut Out, c: &Curve) -> (usize, usize) {
    let first = o.switch().then(|| (o.slot(), o.slot()));
    o.w.u16(c.flags);
    o.w.u16(c.key_count);
    o.w.u32(c.target);
    o.w.f32(c.start);
    o.w.f32(c.end);
    o.w.u32(c.scale_bits);
    o.w.u32(c.offset_bits);
    if o.platform.since_3_4() {
        o.w.f32(c.delta.unwrap_or(0.0));
    }
    match first {
        Some(slots) => {
            o.w.u32(0);
            slots
        }
        None => (o.slot(), o.slot()),
    }
}

/// A curve's frames and keys (bool curves: one word per 32 keys, as read).
pub(crate) fn curve_data(o: &mut Out, c: &Curve, slots: (usize, usize)) {
    o.align();
    o.here(slots.0, !c.frames.is_empty());
    for &f in &c.frames {
        match c.frame_type() {
            FrameType::F32 => o.w.f32(f),
            FrameType::Fixed10x5 => o.w.i16((f * 32.0).round() as i16),
            FrameType::U8 => o.w.u8(f as u8),
        }
    }
    o.align();
    o.here(slots.1, !c.keys.is_empty());
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
    o.pad_after();
}

/// The slots of an FSKA header's offsets to its data.
pub(crate) struct FskaSlots {
    bind: usize,
    bones: usize,
    user: usize,
}

/// Where an FSKA's data parts were written (absolute).
pub(crate) struct FskaParts {
    /// The bind indices.
    pub bind: usize,
    /// The BoneAnim array.
    pub bones: usize,
    /// The user-data dictionary, when there is user data.
    pub user: Option<usize>,
}

impl FskaSlots {
    /// Points the header's offsets at the data.
    pub(crate) fn link(&self, o: &mut Out, parts: &FskaParts) {
        o.patch(self.bind, parts.bind);
        o.patch(self.bones, parts.bones);
        if let Some(user) = parts.user {
            o.patch(self.user, user);
        }
    }
}

/// Writes an FSKA (Wii U 3.4 and later, or Switch): its header, then its data.
pub fn write_fska(o: &mut Out, a: &Fska) -> Result<()> {
    if !o.platform.since_3_4() {
        return Err(Error::unsupported("writing FSKA before 3.4.0.0"));
    }
    let slots = fska_header(o, a)?;
    let parts = fska_data(o, a, &vec![0xFFFF; a.bones.len()])?;
    slots.link(o, &parts);
    Ok(())
}

/// The FSKA header with its data offsets left to patch. Wii U: name, path, flags, frame count,
/// `u16` bone and user-data counts, curve count, baked size, then the bone array, skeleton,
/// bind-index and user-data offsets. Switch (`0x60`): block header, name, path, then the
/// skeleton, bind-index, bone array, user-data and user-data dictionary offsets, flags, frame
/// count, curve count, baked size, `u16` bone and user-data counts and a pad word (`0x50` from
/// 0.9: the flags follow the magic instead of the block header, and there is no pad word).
pub(crate) fn fska_header(o: &mut Out, a: &Fska) -> Result<FskaSlots> {
    let n = count16(a.bones.len(), "bone animations")?;
    let users = count16(a.user_data.len(), "user-data entries")?;
    o.subfile_header(b"FSKA", &a.name, a.flags);
    if o.switch() {
        o.slot(); // bound skeleton
        let (bind, bones, user) = (o.slot(), o.slot(), o.slot());
        o.slot(); // user-data dictionary
        if !o.platform.switch_0_9() {
            o.w.u32(a.flags);
        }
        o.w.i32(a.frame_count);
        o.w.i32(a.curve_count);
        o.w.u32(a.baked_size);
        o.w.u16(n);
        o.w.u16(users);
        if !o.platform.switch_0_9() {
            o.w.u32(0);
        }
        return Ok(FskaSlots { bind, bones, user });
    }
    o.w.u32(a.flags);
    o.w.i32(a.frame_count);
    o.w.u16(n);
    o.w.u16(users);
    o.w.i32(a.curve_count);
    o.w.u32(a.baked_size);
    let bones = o.slot();
    o.slot(); // bound skeleton
    Ok(FskaSlots { bones, bind: o.slot(), user: o.slot() })
}

/// An FSKA's data from the output's position: the bind indices, the BoneAnim array, per bone
/// its base values and curves, then the user data.
pub(crate) fn fska_data(o: &mut Out, a: &Fska, bind: &[u16]) -> Result<FskaParts> {
    let bind_at = o.pos();
    bind.iter().for_each(|&b| o.w.u16(b));
    o.align();
    let bones = o.pos();
    let slots = a.bones.iter().map(|b| bone_anim(o, b)).collect::<Result<Vec<_>>>()?;
    for (b, &(curves_slot, base_slot)) in a.bones.iter().zip(&slots) {
        let has_base = b.scale.is_some() || b.rotate.is_some() || b.translate.is_some();
        if !has_base && b.curves.is_empty() {
            continue;
        }
        if has_base {
            o.align();
        }
        o.here(base_slot, has_base);
        for v in b.scale.iter().flatten().chain(b.rotate.iter().flatten()).chain(b.translate.iter().flatten()) {
            o.w.f32(*v);
        }
        if !b.curves.is_empty() {
            o.align();
        }
        o.here(curves_slot, !b.curves.is_empty());
        write_curves(o, &b.curves);
    }
    let user = (!a.user_data.is_empty()).then(|| o.pos());
    if user.is_some() {
        write_user_data(o, &a.user_data)?;
    }
    Ok(FskaParts { bind: bind_at, bones, user })
}

/// One BoneAnim (Wii U `0x18`: flags, name, the four `u8` begin/count fields, `beginCurve`,
/// curve and base offsets; Switch `0x28`: name, curve and base offsets (from 0.9 two more `u64`,
/// zeros here: `0x38`), flags, the same four bytes, `beginCurve`, a pad word). `beginCurve` is a
/// little-endian `u16` and two zero bytes on both. Returns the slots of the curve and base
/// offsets.
fn bone_anim(o: &mut Out, b: &BoneAnim) -> Result<(usize, usize)> {
    let count = u8::try_from(b.curves.len()).map_err(|_| Error::unrepresentable("more than 255 curves in a bone"))?;
    let switch = o.switch();
    let slots = if switch {
        o.string(&b.name);
        let slots = (o.slot(), o.slot());
        if o.platform.switch_0_9() {
            o.w.fill(0, 16);
        }
        Some(slots)
    } else {
        None
    };
    o.w.u32(b.flags);
    if !switch {
        o.string(&b.name);
    }
    o.w.bytes(&[b.begin_rotate, b.begin_translate, count, b.begin_base_translate]);
    o.w.bytes(&b.begin_curve.to_le_bytes());
    o.w.u16(0);
    Ok(match slots {
        Some(slots) => {
            o.w.u32(0);
            slots
        }
        None => (o.slot(), o.slot()),
    })
}

/// Writes a user-data dictionary followed by its entries (`name; u16 count; u8 type; u8 pad`,
/// then the values inline).
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
                o.align();
            }
        }
    }
    Ok(())
}

/// A shader-parameter info: `u16` first curve, float curves, int curves, first constant,
/// constant count, sub-bind index; the name last on Wii U (`0x10`), first on Switch (`0x18`,
/// then a pad word).
pub(crate) fn param_info(o: &mut Out, p: &ParamInfo) {
    if o.switch() {
        o.string(&p.name);
    }
    for v in [p.begin_curve, p.float_curves, p.int_curves, p.begin_constant, p.constant_count, p.sub_bind_index] {
        o.w.u16(v);
    }
    if o.switch() {
        o.w.u32(0);
    } else {
        o.string(&p.name);
    }
}

/// Writes an FTXP at the output's position (§3.4 storage order). Both header layouts (§3.1):
/// before 3.4.0.0 the counts are narrower and the TextureRefs are a flat array with no index
/// group after the data.
pub fn write_ftxp(o: &mut Out, a: &Ftxp) -> Result<()> {
    let new = o.platform.since_3_4();
    let mats = count16(a.materials.len(), "materials")?;
    let texs = count16(a.textures.len(), "textures")?;
    let infos: usize = a.materials.iter().map(|m| m.infos.len()).sum();
    let curves: usize = a.materials.iter().map(|m| m.curves.len()).sum();
    o.subfile_header(b"FTXP", &a.name, u32::from(a.flags));
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
        let curve_slots: Vec<_> = m.curves.iter().map(|c| curve_header(o, c)).collect();
        o.patch_here(s.2);
        for &v in &m.base_values {
            o.w.u16(v);
        }
        o.align();
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
pub fn write_fshu(o: &mut Out, a: &Fshu) -> Result<()> {
    if !o.platform.since_3_4() {
        return Err(Error::unsupported("writing FSHU before 3.4.0.0"));
    }
    let mats = count16(a.materials.len(), "materials")?;
    o.subfile_header(b"FSHU", &a.name, a.flags);
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
            param_info(o, p);
        }
        o.patch_here(consts);
        for &(t, v) in &m.constants {
            o.w.u32(t);
            o.w.u32(v);
        }
        o.patch_here(curves);
        write_curves(o, &m.curves);
    }
    Ok(())
}

/// Writes an FVIS (v >= 3.4 layout, §7.2 storage order) at the output's position.
pub fn write_fvis(o: &mut Out, a: &Fvis) -> Result<()> {
    if !o.platform.since_3_4() {
        return Err(Error::unsupported("writing FVIS before 3.4.0.0"));
    }
    let n = count16(a.names.len(), "entries")?;
    o.subfile_header(b"FVIS", &a.name, u32::from(a.flags));
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
    let cs: Vec<_> = a.curves.iter().map(|c| curve_header(o, c)).collect();
    o.patch_here(base_slot);
    for &w in &a.base {
        o.w.u32(w);
    }
    for (c, s) in a.curves.iter().zip(cs) {
        curve_data(o, c, s);
    }
    Ok(())
}

/// Writes a dictionary (§2.2, §11) for `names`, whose entries point at `targets`: Wii U `{u32
/// size; s32 count}` then `count + 1` nodes `{u32 ref; u16 left; u16 right; name; data}`, the
/// root's name and data null; Switch `{u32 0; s32 count}` then nodes `{u32 ref; u16 left; u16
/// right; u64 name}`, the root named with the empty string and no data offsets (an entry is
/// found by its index, so `targets` is not used). The trie follows the platform's rule.
pub fn write_dict(o: &mut Out, names: &[&str], targets: &[usize]) -> Result<()> {
    if !o.switch() && names.len() != targets.len() {
        return Err(Error::unrepresentable(format!("{} index group names for {} entries", names.len(), targets.len())));
    }
    for (slot, &target) in dict(o, names)?.into_iter().zip(targets) {
        o.patch(slot, target);
    }
    Ok(())
}

/// Writes the dictionary for `names`; returns the slots of the entries' data offsets (none on
/// Switch).
fn dict(o: &mut Out, names: &[&str]) -> Result<Vec<usize>> {
    let rule = if o.switch() { Rule::Switch } else { Rule::WiiU };
    let trie = build_by(rule, &names.iter().map(|s| s.as_bytes()).collect::<Vec<_>>())?;
    o.w.u32(if o.switch() { 0 } else { (8 + 16 * trie.len()) as u32 });
    o.w.i32(names.len() as i32);
    let mut slots = Vec::with_capacity(names.len());
    for (i, (reference, left, right)) in trie.into_iter().enumerate() {
        o.w.u32(reference);
        o.w.u16(left);
        o.w.u16(right);
        match (i.checked_sub(1).and_then(|k| names.get(k)), o.switch()) {
            (None, true) => o.string(""),
            (None, false) => o.w.fill(0, 8),
            (Some(name), switch) => {
                o.string(name);
                if !switch {
                    slots.push(o.slot());
                }
            }
        }
    }
    Ok(slots)
}

/// The slot of index group `g` in a per-group header array.
fn group_slot<T>(slots: &mut [T; GROUPS], g: usize) -> Result<&mut T> {
    slots.get_mut(g).ok_or_else(|| Error::unrepresentable(format!("index group {g} (a file has {GROUPS})")))
}

/// A subfile to place in a new file.
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
    let mut group_at = [0usize; GROUPS];
    let mut data_slots = Vec::new();
    for (&g, entries) in &groups {
        *group_slot(&mut group_at, g)? = o.pos();
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
    let mut groups_rel = [0i32; GROUPS];
    let mut counts = [0u16; GROUPS];
    for (&g, entries) in &groups {
        let at = *group_slot(&mut group_at, g)?;
        *group_slot(&mut groups_rel, g)? = rel(0x20 + 4 * g, at);
        *group_slot(&mut counts, g)? = count16(entries.len(), "subfiles in one index group")?;
    }
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
        let mut o = Out::new(0, Platform::WiiU { version: 0x0405_0003 });
        assert!(write_dict(&mut o, &["a", "b"], &[0]).is_err());
        let mut o = Out::new(0, Platform::WiiU { version: 0x0405_0003 });
        assert!(write_dict(&mut o, &["a", "b"], &[0, 4]).is_ok());
    }
}
