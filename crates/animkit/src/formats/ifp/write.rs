//! Writing the raw layer back to bytes: every stored field re-emitted as it is, nothing
//! recomputed, so an unchanged document gives back its input byte for byte.

use super::raw::*;
use crate::bytes::{Endian, Writer};

/// The bytes of `file`.
pub fn write(file: &IfpFile) -> Vec<u8> {
    let mut w = Writer::with_capacity(Endian::Little, estimated_size(file));
    let declared = file.salvage.as_ref().map(|s| s.declared_animations);
    match &file.body {
        Body::Anpk(anpk) => write_anpk(&mut w, anpk, declared),
        Body::V2(v2) => write_v2(&mut w, v2, declared),
    }
    w.bytes(&file.tail);
    w.into_vec()
}

fn estimated_size(file: &IfpFile) -> usize {
    let body = match &file.body {
        Body::Anpk(a) => a
            .animations
            .iter()
            .flat_map(|a| &a.objects)
            .map(|o| 68 + o.keys.as_ref().map_or(0, |k| k.frames.len()))
            .sum::<usize>(),
        Body::V2(v) => v.animations.iter().flat_map(|a| &a.sequences).map(|s| 36 + s.frames.len()).sum(),
    };
    body + file.tail.len() + 4096
}

fn chunk(w: &mut Writer, h: &ChunkHeader) {
    w.bytes(&h.id);
    w.u32(h.size);
}

fn write_v2(w: &mut Writer, v2: &V2, declared: Option<u32>) {
    w.bytes(&v2.version.magic());
    w.u32(v2.size);
    w.bytes(&v2.block_name);
    w.u32(declared.unwrap_or(v2.animations.len() as u32));
    for anim in &v2.animations {
        w.bytes(&anim.name);
        w.u32(anim.sequences.len() as u32);
        if v2.version == V2Version::Anp3 {
            w.u32(anim.frame_data_size);
            w.u32(anim.flags);
        }
        for seq in &anim.sequences {
            w.bytes(&seq.name);
            w.u32(seq.frame_type as u32);
            w.u32(seq.frame_count() as u32);
            w.i32(seq.bone_tag);
            w.bytes(&seq.frames);
        }
    }
}

fn write_anpk(w: &mut Writer, anpk: &Anpk, declared: Option<u32>) {
    w.bytes(b"ANPK");
    w.u32(anpk.size);
    chunk(w, &anpk.info);
    w.u32(declared.unwrap_or(anpk.animations.len() as u32));
    w.bytes(&anpk.info_rest);
    for anim in &anpk.animations {
        chunk(w, &anim.name_chunk);
        w.bytes(&anim.name);
        chunk(w, &anim.dgan);
        chunk(w, &anim.info);
        w.u32(anim.objects.len() as u32);
        w.bytes(&anim.info_rest);
        for obj in &anim.objects {
            chunk(w, &obj.cpan);
            w.bytes(&obj.anim_id);
            w.u32(obj.link.anim_size());
            w.bytes(&obj.name);
            w.u32(obj.keys.as_ref().map_or(0, |k| k.frame_count() as u32));
            w.i32(obj.unknown);
            w.i32(obj.last_frame);
            match obj.link {
                AnimLink::Tag(tag) => w.i32(tag),
                AnimLink::Tree { first_child, next_sibling } => {
                    w.i32(first_child);
                    w.i32(next_sibling);
                }
            }
            if let Some(keys) = &obj.keys {
                w.bytes(&keys.kind.id());
                w.u32(keys.size);
                w.bytes(&keys.frames);
            }
        }
    }
}
