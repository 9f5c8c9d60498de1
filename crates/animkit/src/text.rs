//! Fixed-size name fields.
//!
//! Game files store names in fixed buffers: the name, a NUL, then whatever the writing tool left
//! (zeros, or stale bytes). The name is the bytes before the first NUL, read as Latin-1 so that
//! every byte maps to one `char` and back without loss. Raw layers keep the whole buffer.

use std::sync::Arc;

use rustc_hash::FxHashMap;

/// The bytes of a fixed buffer before its first NUL (all of it when there is none).
fn until_nul(buf: &[u8]) -> &[u8] {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    buf.get(..end).unwrap_or(buf)
}

/// Latin-1 bytes as a string.
fn latin1(name: &[u8]) -> String {
    match std::str::from_utf8(name) {
        // ASCII (nearly every name) is the same in Latin-1 and UTF-8: copy it as it is.
        Ok(ascii) if name.is_ascii() => ascii.to_owned(),
        _ => name.iter().map(|&b| b as char).collect(),
    }
}

/// The name in a fixed buffer: the bytes before the first NUL, as Latin-1.
pub fn latin1_until_nul(buf: &[u8]) -> String {
    latin1(until_nul(buf))
}

/// How many names [`NameInterner::name_at`] remembers, one per key modulo this (GTA ped bone tags,
/// 0 to 54 and 201, 301, 302, fall in distinct slots).
pub const NAME_SLOTS: usize = 64;

/// Decodes the names of `N`-byte buffers once each: every later buffer with the same bytes shares
/// the first one's string. Files name the same few bones in every animation, so a model's track
/// targets cost one allocation per distinct buffer. Buffers are compared whole, as fixed-size
/// arrays (no call, no length); two that differ only after their NUL decode to equal strings.
#[derive(Debug, Default)]
pub struct NameInterner<const N: usize> {
    names: FxHashMap<[u8; N], Arc<str>>,
    /// The buffer and name last given for each key modulo [`NAME_SLOTS`] by
    /// [`NameInterner::name_at`] (empty until its first call).
    slots: Vec<Option<([u8; N], Arc<str>)>>,
}

impl<const N: usize> NameInterner<N> {
    /// The name in `buf` (as [`latin1_until_nul`]), shared.
    pub fn name(&mut self, buf: &[u8; N]) -> Arc<str> {
        if let Some(name) = self.names.get(buf) {
            return name.clone();
        }
        let name: Arc<str> = latin1(until_nul(buf)).into();
        self.names.insert(*buf, name.clone());
        name
    }

    /// The name in `buf`, as [`NameInterner::name`], remembered under `key`: a buffer equal to
    /// the one last seen under the same key (modulo [`NAME_SLOTS`]) skips the hash look-up.
    /// Callers pick a key that usually names the same bone each time, such as its tag or its
    /// index in the animation.
    #[inline]
    pub fn name_at(&mut self, key: usize, buf: &[u8; N]) -> Arc<str> {
        let slot = key % NAME_SLOTS;
        if let Some(Some((last, name))) = self.slots.get(slot) {
            if last == buf {
                return name.clone();
            }
        }
        let name = self.name(buf);
        if self.slots.is_empty() {
            self.slots.resize(NAME_SLOTS, None);
        }
        if let Some(seen) = self.slots.get_mut(slot) {
            *seen = Some((*buf, name.clone()));
        }
        name
    }
}

/// `name` made safe as an archive entry's file name: ASCII letters, digits, `.`, `_`, `-` and
/// spaces kept, anything else (path separators included) replaced by `_`.
pub fn safe_file_name(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || "._- ".contains(c) { c } else { '_' }).collect()
}

/// Encodes `name` as Latin-1; `None` when a character is above U+00FF or is NUL.
pub fn to_latin1(name: &str) -> Option<Vec<u8>> {
    name.chars().map(|c| u8::try_from(u32::from(c)).ok().filter(|&b| b != 0)).collect()
}

/// A zero-filled `N`-byte buffer holding `name` and at least one NUL; `None` when it does not fit
/// (more than `N - 1` bytes) or cannot be encoded.
pub fn fixed_name<const N: usize>(name: &str) -> Option<[u8; N]> {
    let bytes = to_latin1(name)?;
    if bytes.len() >= N {
        return None;
    }
    let mut out = [0u8; N];
    out.iter_mut().zip(bytes).for_each(|(o, b)| *o = b);
    Some(out)
}

/// Whether the bytes after the first NUL are all zero (false when there is no NUL).
pub fn clean_after_nul(buf: &[u8]) -> bool {
    match buf.iter().position(|&b| b == 0) {
        Some(end) => buf.iter().skip(end).all(|&b| b == 0),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stop_at_nul_and_keep_bytes() {
        assert_eq!(latin1_until_nul(b"woman_run\0usy\0"), "woman_run");
        assert_eq!(latin1_until_nul(b"\xe9t\xe9"), "\u{e9}t\u{e9}");
        assert_eq!(to_latin1("\u{e9}t\u{e9}").unwrap(), b"\xe9t\xe9");
        assert!(to_latin1("\u{263a}").is_none());
    }

    #[test]
    fn interned_names_are_shared_and_stop_at_nul() {
        let mut names = NameInterner::<9>::default();
        let a = names.name(b"Pelvis\0\0\0");
        let b = names.name(b"Pelvis\0\0\0");
        let junk = names.name(b"Pelvis\0ju");
        let c = names.name(b"\xe9t\xe9\0\0\0\0\0\0");
        assert_eq!(&*a, "Pelvis");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*junk, "Pelvis");
        assert_eq!(&*c, "\u{e9}t\u{e9}");
        assert!(!Arc::ptr_eq(&a, &c));
    }

    #[test]
    fn names_remembered_under_a_key_are_the_interned_ones() {
        let mut names = NameInterner::<9>::default();
        let a = names.name_at(1, b"Pelvis\0\0\0");
        let b = names.name_at(1 + NAME_SLOTS, b"Pelvis\0\0\0");
        let junk = names.name_at(1, b"Pelvis\0ju");
        let c = names.name_at(1, b"Spine\0\0\0\0");
        let d = names.name_at(2, b"Pelvis\0\0\0");
        assert!(Arc::ptr_eq(&a, &b) && Arc::ptr_eq(&a, &d));
        assert_eq!((&*junk, &*c), ("Pelvis", "Spine"));
        assert!(!Arc::ptr_eq(&a, &junk));
        assert!(Arc::ptr_eq(&c, &names.name(b"Spine\0\0\0\0")));
    }

    #[test]
    fn fixed_names_need_room_for_nul() {
        assert_eq!(fixed_name::<4>("abc"), Some(*b"abc\0"));
        assert_eq!(fixed_name::<4>("abcd"), None);
        assert!(clean_after_nul(b"ab\0\0"));
        assert!(!clean_after_nul(b"ab\0x"));
        assert!(!clean_after_nul(b"abcd"));
    }
}

/// Lower-case hexadecimal of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    // `d` is a nibble (below 16).
    let digit = |d: u8| char::from(if d < 10 { b'0' + d } else { b'a' - 10 + d });
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(digit(b >> 4));
        s.push(digit(b & 15));
    }
    s
}

/// Parses hexadecimal (either case, no separators); `None` on an odd length or a non-hex digit.
pub fn from_hex(s: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16);
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    let (pairs, _) = b.as_chunks::<2>();
    pairs.iter().map(|&[hi, lo]| Some((digit(hi)? * 16 + digit(lo)?) as u8)).collect()
}

#[cfg(test)]
mod hex_tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        assert_eq!(to_hex(&[0, 0xab, 0x10]), "00ab10");
        assert_eq!(from_hex("00AB10").unwrap(), vec![0, 0xab, 0x10]);
        assert!(from_hex("abc").is_none());
        assert!(from_hex("zz").is_none());
    }
}
