//! A prototype of a leaner model, measured beside animkit's (`--proto`): what read + to_model
//! of an IFP would cost if a clip kept its keys as one struct of arrays and bones by plain
//! name, instead of animkit's model (a `Track` per channel, each with its own time array and
//! an `Arc<str>`-named `BoneRef`).
//!
//! The prototype builds, per clip: one time array, one rotation array and one translation
//! array for all its bones' keys, and per bone its name (an index into the package's name
//! list: no reference count), its tag and its key range. The values are animkit's: times in
//! seconds, ANP3 `i16` fields scaled as animkit scales them, ANPK quaternions conjugated, KRTS
//! scale dropped, every bone's times checked to be finite and non-decreasing. It walks the
//! file's headers itself (after animkit's raw read, which the timing includes: the raw layer
//! is not public), so it is a measurement, not a reader: it trusts what animkit's read
//! already checked.

use glam::{Quat, Vec3};

/// One bone's keys inside its clip's arrays.
pub struct ProtoBone {
    /// Index into [`ProtoPackage::names`].
    pub name: u32,
    /// The stored tag; −1 when none.
    pub tag: i32,
    /// The bone's keys: `start..end` of the clip's arrays.
    pub start: u32,
    pub end: u32,
    /// Where the bone's translations start in the clip's `translations`, when it has them.
    pub translations: Option<u32>,
}

/// One animation: the keys of all its bones in three arrays.
pub struct ProtoClip {
    pub name: String,
    /// The engine's length: the latest last key time, at least 0.
    pub duration: f32,
    pub bones: Vec<ProtoBone>,
    pub times: Vec<f32>,
    pub rotations: Vec<Quat>,
    pub translations: Vec<Vec3>,
}

/// The prototype's package: clips and the bone names they refer to.
pub struct ProtoPackage {
    pub names: Vec<String>,
    pub clips: Vec<ProtoClip>,
}

/// Little-endian reads at a moving offset; the prototype runs on files animkit has read, so a
/// short read is a bug in the prototype.
struct At<'a>(&'a [u8], usize);

impl<'a> At<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let s = &self.0[self.1..self.1 + n];
        self.1 += n;
        s
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().unwrap())
    }
    fn name(&mut self, n: usize) -> &'a [u8] {
        let b = self.take(n);
        &b[..b.iter().position(|&c| c == 0).unwrap_or(n)]
    }
}

/// Interns a name: the index of an equal name seen before, else a new one.
fn intern(names: &mut Vec<String>, index: &mut std::collections::HashMap<Vec<u8>, u32>, name: &[u8]) -> u32 {
    if let Some(&i) = index.get(name) {
        return i;
    }
    let i = names.len() as u32;
    names.push(name.iter().map(|&b| b as char).collect());
    index.insert(name.to_vec(), i);
    i
}

fn check(times: &[f32]) -> bool {
    times.iter().zip(times.iter().skip(1)).fold(true, |ok, (a, b)| ok & (a <= b))
        && times.first().is_none_or(|t| t.is_finite())
        && times.last().is_none_or(|t| t.is_finite())
}

fn field<const N: usize>(f: &[u8], i: usize) -> [u8; N] {
    f[i..i + N].try_into().unwrap()
}

/// Decodes an ANP2/ANP3 or ANPK file into the prototype model.
pub fn to_proto(data: &[u8]) -> ProtoPackage {
    let mut at = At(data, 4);
    let mut package = ProtoPackage { names: Vec::new(), clips: Vec::new() };
    let mut index = std::collections::HashMap::new();
    match &data[..4] {
        b"ANPK" => {
            at.u32();
            at.take(4);
            let size = at.u32() as usize;
            let count = at.u32();
            at.take(size.next_multiple_of(4) - 4);
            for _ in 0..count {
                let clip = anpk_clip(&mut at, &mut package.names, &mut index);
                package.clips.push(clip);
            }
        }
        magic => {
            let anp3 = magic == b"ANP3";
            at.take(28);
            let count = at.u32();
            for _ in 0..count {
                let clip = v2_clip(&mut at, anp3, &mut package.names, &mut index);
                package.clips.push(clip);
            }
        }
    }
    package
}

type Index = std::collections::HashMap<Vec<u8>, u32>;

fn v2_clip(at: &mut At, anp3: bool, names: &mut Vec<String>, index: &mut Index) -> ProtoClip {
    let name = at.name(24).iter().map(|&b| b as char).collect();
    let sequences = at.u32();
    if anp3 {
        at.take(8);
    }
    let (keys, translated) = v2_key_counts(at, sequences);
    let mut clip = ProtoClip {
        name,
        duration: 0.0,
        bones: Vec::with_capacity(sequences as usize),
        times: Vec::with_capacity(keys),
        rotations: Vec::with_capacity(keys),
        translations: Vec::with_capacity(translated),
    };
    for _ in 0..sequences {
        let bone = intern(names, index, at.name(24));
        let (kind, frames, tag) = (at.u32(), at.u32() as usize, at.u32() as i32);
        let width = [0, 20, 32, 10, 16][kind as usize];
        let bytes = at.take(frames * width);
        let (start, translations) = (clip.times.len(), clip.translations.len());
        let has_translation = kind == 2 || kind == 4;
        if kind <= 2 {
            for f in bytes.chunks_exact(width) {
                let g = |i: usize| f32::from_le_bytes(field(f, 4 * i));
                clip.rotations.push(Quat::from_xyzw(g(0), g(1), g(2), g(3)));
                clip.times.push(g(4));
                if has_translation {
                    clip.translations.push(Vec3::new(g(5), g(6), g(7)));
                }
            }
        } else {
            for f in bytes.chunks_exact(width) {
                let g = |i: usize| f32::from(i16::from_le_bytes(field(f, 2 * i)));
                clip.rotations.push(Quat::from_xyzw(g(0), g(1), g(2), g(3)) * (1.0 / 4096.0));
                clip.times.push((f64::from(g(4)) * (1.0 / 60.0)) as f32);
                if has_translation {
                    clip.translations.push(Vec3::new(g(5), g(6), g(7)) / 1024.0);
                }
            }
        }
        finish_bone(&mut clip, bone, tag, start, has_translation.then_some(translations as u32));
    }
    clip
}

/// The keys of the next `sequences` sequences, and how many of them carry a translation.
fn v2_key_counts(at: &At, sequences: u32) -> (usize, usize) {
    let mut walk = At(at.0, at.1);
    let (mut keys, mut translated) = (0, 0);
    for _ in 0..sequences {
        walk.take(24);
        let (kind, frames) = (walk.u32(), walk.u32() as usize);
        walk.take(4 + frames * [0, 20, 32, 10, 16][kind as usize]);
        keys += frames;
        translated += if kind == 2 || kind == 4 { frames } else { 0 };
    }
    (keys, translated)
}

/// The keys of the next `objects` ANPK objects, and how many of them carry a translation.
fn anpk_key_counts(at: &At, objects: u32) -> (usize, usize) {
    let mut walk = At(at.0, at.1);
    let (mut keys, mut translated) = (0, 0);
    for _ in 0..objects {
        walk.take(12);
        let anim = walk.u32() as usize;
        walk.take(28);
        let frames = walk.u32() as usize;
        walk.take(anim - 32);
        if frames > 0 {
            let id = walk.take(4);
            walk.take(4);
            let width = anpk_width(id);
            walk.take(frames * width);
            keys += frames;
            translated += if width > 20 { frames } else { 0 };
        }
    }
    (keys, translated)
}

fn anpk_width(id: &[u8]) -> usize {
    match id {
        b"KR00" => 20,
        b"KRT0" => 32,
        _ => 44,
    }
}

fn anpk_clip(at: &mut At, names: &mut Vec<String>, index: &mut Index) -> ProtoClip {
    at.take(4);
    let size = at.u32() as usize;
    let name_bytes = at.take(size.next_multiple_of(4));
    let name = name_bytes.iter().take_while(|&&b| b != 0).map(|&b| b as char).collect();
    at.take(12);
    let info = at.u32() as usize;
    let objects = at.u32();
    at.take(info.next_multiple_of(4) - 4);
    let (keys, translated) = anpk_key_counts(at, objects);
    let mut clip = ProtoClip {
        name,
        duration: 0.0,
        bones: Vec::with_capacity(objects as usize),
        times: Vec::with_capacity(keys),
        rotations: Vec::with_capacity(keys),
        translations: Vec::with_capacity(translated),
    };
    for _ in 0..objects {
        at.take(12);
        let anim = at.u32();
        let bone = intern(names, index, at.name(28));
        let frames = at.u32() as usize;
        at.take(8);
        // The 48-byte form has tree links instead of a tag (animkit looks ped tags up by name).
        let tag = if anim == 44 {
            at.u32() as i32
        } else {
            at.take(8);
            -1
        };
        if frames == 0 {
            continue;
        }
        let id = at.take(4);
        at.u32();
        let width = anpk_width(id);
        let bytes = at.take(frames * width);
        let (start, translations) = (clip.times.len(), clip.translations.len());
        for f in bytes.chunks_exact(width) {
            let g = |i: usize| f32::from_le_bytes(field(f, 4 * i));
            clip.rotations.push(Quat::from_xyzw(-g(0), -g(1), -g(2), g(3)));
            if width > 20 {
                clip.translations.push(Vec3::new(g(4), g(5), g(6)));
            }
            clip.times.push(g(width / 4 - 1));
        }
        finish_bone(&mut clip, bone, tag, start, (width > 20).then_some(translations as u32));
    }
    clip
}

/// Checks the bone's times and records it.
fn finish_bone(clip: &mut ProtoClip, name: u32, tag: i32, start: usize, translations: Option<u32>) {
    let times = &clip.times[start..];
    assert!(check(times), "prototype: bad times");
    if let Some(&last) = times.last() {
        clip.duration = clip.duration.max(last);
        let (start, end) = (start as u32, clip.times.len() as u32);
        clip.bones.push(ProtoBone { name, tag, start, end, translations });
    }
}
