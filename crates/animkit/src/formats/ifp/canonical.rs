//! The canonical value of every derived field (`ifp.md` §6, canonical mode), used when writing
//! from the model and by `repair`.
//!
//! - ANPK: header size = content − 8; header `INFO` = 4 + strlen + 1; `NAME` = strlen + 1;
//!   `DGAN` = bytes from the end of its header to the end of the animation; DGAN `INFO` = 8;
//!   `CPAN` = 8 + ANIM size + (8 + key size when the object has frames); key size = frames × size.
//!   ANIM +36 = numFrames − 1.
//! - ANP3: header size = content − 8; `frameDataSize` = Σ numFrames × frame size.
//! - Name buffers: the name, a NUL, zero fill.

use super::raw::*;
use crate::bytes::round_up;
use crate::raw_json::{FixedName, FourCc, Hex, PaddedName};

/// A `NAME`/`INFO` payload: the name bytes, a NUL, zeros to a multiple of 4.
pub(crate) fn padded_name(name: &[u8]) -> PaddedName {
    let mut out = name.to_vec();
    out.resize(round_up(name.len() + 1, 4), 0);
    PaddedName(out)
}

/// The bytes before the first NUL.
pub(crate) fn until_nul(buf: &[u8]) -> &[u8] {
    buf.split(|&b| b == 0).next().unwrap_or_default()
}

/// A fixed buffer with everything after the first NUL zeroed.
fn zero_after_nul<const N: usize>(mut buf: FixedName<N>) -> FixedName<N> {
    let len = until_nul(&buf.0).len();
    buf.0.iter_mut().skip(len).for_each(|b| *b = 0);
    buf
}

/// The canonical size of an object's `CPAN` chunk.
pub(crate) fn cpan_size(obj: &AnpkObject) -> u32 {
    8 + obj.link.anim_size() + obj.keys.as_ref().map_or(0, |k| 8 + k.frames.len as u32)
}

/// The canonical `DGAN` size: everything after the DGAN header to the end of the animation.
pub(crate) fn dgan_size(anim: &AnpkAnimation) -> u32 {
    8 + round_up(anim.info.size as usize, 4) as u32 + anim.objects.iter().map(|o| 8 + cpan_size(o)).sum::<u32>()
}

/// Sets every derived field of `body` to its canonical value and cleans names and extra bytes.
pub(crate) fn canonicalize(body: &mut Body) {
    match body {
        Body::Anpk(anpk) => canonicalize_anpk(anpk),
        Body::Anp3(v2) => canonicalize_v2(v2, V2Version::Anp3),
        Body::Anp2(v2) => canonicalize_v2(v2, V2Version::Anp2),
    }
}

fn canonicalize_anpk(anpk: &mut Anpk) {
    let block = until_nul(&anpk.block_name.0).to_vec();
    anpk.info = ChunkHeader::new(b"INFO", 4 + block.len() as u32 + 1);
    anpk.block_name = padded_name(&block);
    for anim in &mut anpk.animations {
        let name = until_nul(&anim.name.0).to_vec();
        anim.name_chunk = ChunkHeader::new(b"NAME", name.len() as u32 + 1);
        anim.name = padded_name(&name);
        anim.info = ChunkHeader::new(b"INFO", 8);
        anim.info_extra = Hex(vec![0; 4]);
        for obj in anim.objects.iter_mut() {
            obj.anim_id = FourCc(*b"ANIM");
            obj.name = zero_after_nul(obj.name);
            obj.last_frame = obj.frame_count() as i32 - 1;
            if let Some(keys) = &mut obj.keys {
                keys.size = keys.frames.len as u32;
            }
            obj.cpan = ChunkHeader::new(b"CPAN", cpan_size(obj));
        }
        anim.dgan = ChunkHeader::new(b"DGAN", dgan_size(anim));
    }
    let info_len = 8 + round_up(anpk.info.size as usize, 4) as u32;
    // Each animation: the NAME chunk, the DGAN header and what DGAN counts.
    anpk.size = info_len + anpk.animations.iter().map(|a| 16 + a.name.0.len() as u32 + dgan_size(a)).sum::<u32>();
}

fn canonicalize_v2(v2: &mut V2, version: V2Version) {
    v2.block_name = zero_after_nul(v2.block_name);
    let mut size = 28u32;
    for anim in &mut v2.animations {
        anim.name = zero_after_nul(anim.name);
        let frames: u32 = anim.sequences.iter().map(|s| s.frames.len as u32).sum();
        if version == V2Version::Anp3 {
            anim.frame_data_size = frames;
            anim.flags = match anim.sequences.first() {
                Some(s) if s.frame_type.compressed() => 1,
                _ => 0,
            };
        }
        for seq in anim.sequences.iter_mut() {
            seq.name = zero_after_nul(seq.name);
        }
        size += version.animation_header_size() as u32 + 36 * anim.sequences.len() as u32 + frames;
    }
    v2.size = size;
}
