//! One description per structure for reading and writing (spec §1, §2.4, §11).
//!
//! A structure's field list is written once, as a `walk` over an [`Io`]: reading walks it
//! through [`In`] (a cursor that knows the [`Platform`]), writing through [`Out`]. Plain values
//! go through [`Record`]; offsets, names and fields the runtime fills have their own calls,
//! because how they are stored is what the platforms differ in. Where the Wii U and Switch
//! orders differ, the walk says so once, with the platform as a parameter.
//!
//! [`Out`] lays bytes out at a known absolute base for one [`Platform`]: it knows how an offset
//! is stored (Wii U: `i32` relative to the field; Switch: absolute `u64`, every non-null one
//! recorded for the relocation table), patches offsets once their targets are placed, and
//! resolves string references at the end against a string table (Wii U: the offset points at
//! the text; Switch: at the `u16` length word).
//!
//! Alignment: Wii U pads every part to 4 after it; Switch starts every array, base-value block
//! and curve data at a multiple of 8 and pads nothing after the last part. An offset to an empty
//! array points at where it would be on Wii U and is null on Switch.

use std::collections::BTreeSet;

use super::dict::{build_by, Rule};
use super::platform::Platform;
use crate::bytes::{round_up, Cursor, Writer};
use crate::error::{Error, Result};
use crate::record::Record;

/// An offset field: where it is stored and, once read, where it points.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Offset {
    /// Read: the field's absolute position. Written: its slot in the output, to patch.
    pub field: usize,
    /// Read: the absolute position pointed at, `None` for null. Written: `None`.
    pub target: Option<usize>,
}

impl Offset {
    /// The offset as [`Platform::records`] takes it.
    pub fn pair(self) -> (usize, Option<usize>) {
        (self.field, self.target)
    }

    /// The `count` structures of `size` bytes the offset points at, each read by its [`Walk`].
    pub fn walked<T: Walk>(
        self,
        data: &[u8],
        platform: Platform,
        count: usize,
        size: usize,
        what: &str,
    ) -> Result<Vec<T>> {
        platform.records(data, self.pair(), count, size, what, |c| {
            let mut v = T::default();
            v.walk(&mut In { c, platform })?;
            Ok(v)
        })
    }
}

/// One pass over a structure's fields, reading them from a file or writing them to an [`Out`].
pub(crate) trait Io {
    /// The platform the structure is laid out for.
    fn platform(&self) -> Platform;
    /// The absolute position of the next field.
    fn pos(&self) -> usize;
    /// A plain value: read into `v`, or `v` written.
    fn value<T: Record>(&mut self, v: &mut T) -> Result<()>;
    /// An offset to a part of the structure: read (an error naming `what` when it leaves the
    /// file), or written null with its slot kept to patch.
    fn offset(&mut self, what: &str) -> Result<Offset>;
    /// A name offset: the name read, or a reference to it written.
    fn name(&mut self, s: &mut String) -> Result<()>;
    /// An offset the runtime fills (bound model or skeleton, user-data dictionary): skipped,
    /// written null.
    fn runtime(&mut self) -> Result<()>;
    /// A path offset: checked and ignored, written as the empty string.
    fn path(&mut self) -> Result<()>;
    /// `n` bytes of padding: skipped, written as zeros.
    fn pad(&mut self, n: usize) -> Result<()>;
}

/// A structure read or written by one walk over its fields, with no counts or offsets to
/// hand back.
pub(crate) trait Walk: Default + Clone {
    /// The fields, read into `self` or written from it.
    fn walk(&mut self, io: &mut impl Io) -> Result<()>;

    /// Writes the structure.
    fn write(&self, o: &mut Out) -> Result<()> {
        self.clone().walk(o)
    }
}

/// Reads or writes each place in order through [`Io::value`] (in a function returning
/// `Result`): `values!(io, self.flags, self.frame_count)`.
macro_rules! values {
    ($io:expr, $($place:expr),+ $(,)?) => {
        $( $io.value(&mut $place)?; )+
    };
}
pub(crate) use values;

/// Reads a structure's fields in `platform`'s layout from `c`.
pub(crate) struct In<'a, 'b> {
    /// The cursor over the whole file.
    pub c: &'b mut Cursor<'a>,
    /// The layout.
    pub platform: Platform,
}

impl Io for In<'_, '_> {
    fn platform(&self) -> Platform {
        self.platform
    }

    fn pos(&self) -> usize {
        self.c.offset()
    }

    #[inline]
    fn value<T: Record>(&mut self, v: &mut T) -> Result<()> {
        *v = T::read(self.c)?;
        Ok(())
    }

    #[inline]
    fn offset(&mut self, what: &str) -> Result<Offset> {
        let field = self.c.offset();
        Ok(Offset { field, target: self.platform.offset(self.c, what)? })
    }

    fn name(&mut self, s: &mut String) -> Result<()> {
        *s = self.platform.name(self.c.data(), self.c)?;
        Ok(())
    }

    fn runtime(&mut self) -> Result<()> {
        self.c.skip(self.platform.offset_size())
    }

    fn path(&mut self) -> Result<()> {
        self.platform.offset(self.c, "path").map(|_| ())
    }

    fn pad(&mut self, n: usize) -> Result<()> {
        self.c.skip(n)
    }
}

impl Io for Out {
    fn platform(&self) -> Platform {
        self.platform
    }

    fn pos(&self) -> usize {
        Out::pos(self)
    }

    #[inline]
    fn value<T: Record>(&mut self, v: &mut T) -> Result<()> {
        v.write(&mut self.w);
        Ok(())
    }

    fn offset(&mut self, _what: &str) -> Result<Offset> {
        Ok(Offset { field: self.slot(), target: None })
    }

    fn name(&mut self, s: &mut String) -> Result<()> {
        self.string(s);
        Ok(())
    }

    fn runtime(&mut self) -> Result<()> {
        self.slot();
        Ok(())
    }

    fn path(&mut self) -> Result<()> {
        self.string("");
        Ok(())
    }

    fn pad(&mut self, n: usize) -> Result<()> {
        self.w.fill(0, n);
        Ok(())
    }
}

/// The opening of every animation subfile and model: its magic (checked when read; on Switch
/// followed by a 12-byte block header, `u32` next, size and reserved, zeros when written, or
/// from 0.9 by the subfile's `u32 flags`), name and path.
pub(crate) fn opening(io: &mut impl Io, magic: &[u8; 4], flags: &mut u32, name: &mut String) -> Result<()> {
    let (at, mut found) = (io.pos(), *magic);
    io.value(&mut found)?;
    if found != *magic {
        return Err(Error::invalid(at, format!("not an {}", String::from_utf8_lossy(magic))));
    }
    match io.platform() {
        p if p.switch_0_9() => io.value(flags)?,
        p if p.is_switch() => io.pad(12)?,
        _ => {}
    }
    io.name(name)?;
    io.path()
}

/// An `i32` count stored as a `u16` (before 3.4): read widened, written checked.
pub(crate) fn narrow(io: &mut impl Io, v: &mut i32, what: &str) -> Result<()> {
    let mut n =
        u16::try_from(*v).map_err(|_| Error::unrepresentable(format!("{what} {v} outside 0..=65535 before 3.4")))?;
    io.value(&mut n)?;
    *v = i32::from(n);
    Ok(())
}

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

    pub(crate) fn switch(&self) -> bool {
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
    pub(crate) fn here(&mut self, slot: usize, present: bool) {
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
    pub(crate) fn pad_after(&mut self) {
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

    /// The Wii U bind index array the header's `slot` points at: `n` × `0xFFFF` (filled in by
    /// the game at bind time, §8), padded to 4.
    pub(crate) fn bind_indices(&mut self, slot: usize, n: u16) {
        self.patch_here(slot);
        self.w.fill(0xFF, 2 * usize::from(n));
        self.align();
    }
}

/// `n` as a `u16` count of `what`.
pub(crate) fn count16(n: usize, what: &str) -> Result<u16> {
    u16::try_from(n).map_err(|_| Error::unrepresentable(format!("{n} {what} (at most 65535)")))
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
pub(crate) fn dict(o: &mut Out, names: &[&str]) -> Result<Vec<usize>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_checks_the_magic_and_reads_the_name() {
        // "FTXP", name offset +12 from its field (at 4) → 16, after the u32 length 2 at 12; path 0.
        let data = [b'F', b'T', b'X', b'P', 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 2, b'a', b'b', 0, 0];
        let platform = Platform::WiiU { version: 0x0405_0003 };
        let (mut flags, mut name) = (0, String::new());
        let mut c = platform.cursor(&data, 0).unwrap();
        opening(&mut In { c: &mut c, platform }, b"FTXP", &mut flags, &mut name).unwrap();
        assert_eq!((c.offset(), name.as_str()), (12, "ab"));
        let mut c = platform.cursor(&data, 0).unwrap();
        let wrong = opening(&mut In { c: &mut c, platform }, b"FSKA", &mut flags, &mut name).unwrap_err();
        assert!(wrong.message.contains("not an FSKA"));
    }
}
