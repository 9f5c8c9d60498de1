//! An IFP package as an archive of animations, for `extract` and `replace`: each animation is an
//! entry, written as a one-animation package of the same version and block name that holds the
//! animation's bytes as stored; an entry goes back in place of the animation it came from. The
//! slot keeps its name (the games look animations up by name), whatever the new file calls it.
//!
//! The package header's size field is never read by the games (§2.3, §3): when it held the canonical
//! value (content − 8) it is recomputed; otherwise it keeps its distance from that value, so a
//! field that counted IMG padding still does. The tail after the last animation is kept.

use super::raw::*;
use crate::error::{Error, ErrorKind, Result};
use crate::text::latin1_until_nul;

/// The entry names: each animation's name made safe for a file name, with `.ifp`; a name that
/// an earlier animation already took (in any case) gets `_2`, `_3`… (`entry_path::unique_paths`).
pub(crate) fn names(file: &IfpFile) -> Vec<String> {
    let raw: Vec<String> =
        each_body!(&file.body, b => b.animations.iter().map(|a| latin1_until_nul(&a.name.0)).collect());
    let files: Vec<String> = raw
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let stem = crate::text::safe_file_name(name);
            let stem = if stem.trim_matches('.').is_empty() { format!("animation_{i}") } else { stem };
            format!("{stem}.ifp")
        })
        .collect();
    crate::entry_path::unique_paths(files.iter().map(String::as_str)).into_iter().map(|(name, _)| name).collect()
}

/// The canonical header size of `file`: its bytes without the tail, minus the 8-byte header.
fn content_size(file: &IfpFile) -> u32 {
    let body = IfpFile { tail: Default::default(), salvage: None, body: file.body.clone() };
    u32::try_from(body.write().len().saturating_sub(8)).unwrap_or(u32::MAX)
}

/// The header's size field.
fn size_field(file: &mut IfpFile) -> &mut u32 {
    each_body!(&mut file.body, b => &mut b.size)
}

/// Animation `index` alone, in a package of the same version and block name (canonical size, no
/// tail); `None` when there is no such animation.
pub(crate) fn single(file: &IfpFile, index: usize) -> Option<IfpFile> {
    let mut body = file.body.clone();
    each_body!(&mut body, b => b.animations = vec![b.animations.get(index)?.clone()]);
    let mut single = IfpFile { body, tail: Default::default(), salvage: None };
    *size_field(&mut single) = content_size(&single);
    Some(single)
}

/// `file` with animation `index` replaced by the only animation of `new`, which must be a package
/// of the same version (ANPK, ANP2 or ANP3). The animation keeps its name as stored.
pub(crate) fn replace(file: &IfpFile, index: usize, new: &IfpFile) -> Result<IfpFile> {
    let bad = |m: String| Error::new(ErrorKind::Invalid, None, m);
    if file.salvage.is_some() || new.salvage.is_some() {
        return Err(bad("a truncated package cannot take part in a replacement: repair it first".into()));
    }
    let (have, got) = (latin1_until_nul(&file.magic()), latin1_until_nul(&new.magic()));
    if have != got {
        let to = if have == "ANPK" { "anpk" } else { "anp3" };
        return Err(bad(format!(
            "the new animation is {got}, the package {have}: `animkit convert NEW --to {to}` first"
        )));
    }
    if new.animation_count() != 1 {
        return Err(bad(format!("the new file holds {} animations; an entry is one", new.animation_count())));
    }
    let missing = || bad(format!("no animation {index}"));
    let mut out = file.clone();
    let size = *size_field(&mut out);
    match (&mut out.body, &new.body) {
        (Body::Anpk(a), Body::Anpk(n)) => {
            let slot = a.animations.get_mut(index).ok_or_else(missing)?;
            let new = n.animations.first().ok_or_else(missing)?;
            *slot = AnpkAnimation { name_chunk: slot.name_chunk, name: slot.name.clone(), ..new.clone() };
        }
        (Body::Anp3(v) | Body::Anp2(v), Body::Anp3(n) | Body::Anp2(n)) => {
            let slot = v.animations.get_mut(index).ok_or_else(missing)?;
            *slot = V2Animation { name: slot.name, ..n.animations.first().ok_or_else(missing)?.clone() };
        }
        _ => return Err(bad("the new animation is of another IFP version".into())),
    }
    let (old_content, new_content) = (content_size(file), content_size(&out));
    let kept = i64::from(size) - i64::from(old_content) + i64::from(new_content);
    *size_field(&mut out) = if size == old_content { new_content } else { u32::try_from(kept).unwrap_or(new_content) };
    Ok(out)
}
