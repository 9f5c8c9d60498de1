//! Switch BFRES (read-only): files generated here from the layouts of spec §11 (as completed in
//! `formats/bfres/switch.rs`), read through the registry and converted to the model. Expected
//! values are computed by hand in the comments from the constructed curve coefficients.

use animkit::formats::bfres::{fres, fska, platform::Platform};
use animkit::model::{BoneRef, Interpolation, Target, Values};
use animkit::{Bytes, ReadOptions};

/// A little-endian image with absolute `u64` offsets: structures are allocated, then patched.
#[derive(Default)]
struct Img {
    b: Vec<u8>,
}

impl Img {
    fn alloc(&mut self, size: usize, align: usize) -> usize {
        while !self.b.len().is_multiple_of(align) {
            self.b.push(0);
        }
        let at = self.b.len();
        self.b.resize(at + size, 0);
        at
    }
    fn u8(&mut self, at: usize, v: u8) {
        self.b[at] = v;
    }
    fn u16(&mut self, at: usize, v: u16) {
        self.b[at..at + 2].copy_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, at: usize, v: u32) {
        self.b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, at: usize, v: u64) {
        self.b[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, at: usize, v: f32) {
        self.u32(at, v.to_bits());
    }
    fn bytes(&mut self, at: usize, v: &[u8]) {
        self.b[at..at + v.len()].copy_from_slice(v);
    }
    /// A string-pool entry (`u16` length, bytes, NUL, pad to 2); returns the length word's address.
    fn string(&mut self, s: &str) -> usize {
        let at = self.alloc(2 + s.len() + 1, 2);
        self.u16(at, s.len() as u16);
        self.bytes(at + 2, s.as_bytes());
        at
    }
    /// A Switch AnimCurve header at `at` with its frame and key arrays appended.
    #[allow(clippy::too_many_arguments)]
    fn curve(
        &mut self,
        at: usize,
        flags: u16,
        target: u32,
        frames: &[u8],
        keys: &[u8],
        n: u16,
        range: [f32; 2],
        so: [u32; 2],
        delta: f32,
    ) {
        let f = self.alloc(frames.len(), 4);
        self.bytes(f, frames);
        let k = self.alloc(keys.len(), 4);
        self.bytes(k, keys);
        self.u64(at, f as u64);
        self.u64(at + 8, k as u64);
        self.u16(at + 0x10, flags);
        self.u16(at + 0x12, n);
        self.u32(at + 0x14, target);
        self.f32(at + 0x18, range[0]);
        self.f32(at + 0x1C, range[1]);
        self.u32(at + 0x20, so[0]);
        self.u32(at + 0x24, so[1]);
        self.f32(at + 0x28, delta);
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Field offsets that differ between the pre-0.9 and the 0.9 layouts.
struct Layout {
    version: u32,
    header: usize,
    /// Header: FSKA array, FMAA array, string table, FSKA count, FMAA count.
    h_fska: usize,
    h_fmaa: usize,
    h_str: usize,
    h_fska_n: usize,
    h_fmaa_n: usize,
    /// FSKA: size, name, bone array, flags, frameCount, curveCount, boneCount.
    fska: [usize; 7],
    /// BoneAnim: size, flags (the `u8` begins and beginCurve follow).
    bone: [usize; 2],
    /// FMAA: size, name, materials, texture names, flags, material count, curve count,
    /// frameCount, param count, pattern count, texture count.
    fmaa: [usize; 11],
}

const V5: Layout = Layout {
    version: 0x0005_0003,
    header: 0xD0,
    h_fska: 0x38,
    h_fmaa: 0x48,
    h_str: 0xB0,
    h_fska_n: 0xBE,
    h_fmaa_n: 0xC0,
    fska: [0x60, 0x10, 0x30, 0x48, 0x4C, 0x50, 0x58],
    bone: [0x28, 0x18],
    fmaa: [0x78, 0x10, 0x30, 0x40, 0x60, 0x64, 0x66, 0x68, 0x70, 0x72, 0x76],
};

const V9: Layout = Layout {
    version: 0x0009_0000,
    header: 0xF0,
    h_fska: 0x58,
    h_fmaa: 0x68,
    h_str: 0xD0,
    h_fska_n: 0xE2,
    h_fmaa_n: 0xE4,
    fska: [0x50, 0x08, 0x28, 0x04, 0x40, 0x44, 0x4C],
    bone: [0x38, 0x28],
    fmaa: [0x70, 0x08, 0x28, 0x38, 0x04, 0x62, 0x64, 0x58, 0x66, 0x68, 0x6C],
};

fn build() -> Vec<u8> {
    build_with(&V5)
}

/// One FSKA "Walk" (2 bones, 3 curves) and one FMAA "Blink" (one material with a shader-param
/// curve and constant and two texture patterns), in layout `l`.
fn build_with(l: &Layout) -> Vec<u8> {
    let mut m = Img::default();
    let hdr = m.alloc(l.header, 8);
    m.bytes(hdr, b"FRES    ");
    m.u32(hdr + 0x08, l.version);
    m.bytes(hdr + 0x0C, &[0xFF, 0xFE]);
    m.u8(hdr + 0x0E, 12);
    m.u8(hdr + 0x0F, 0);
    m.u16(hdr + 0x16, l.header as u16);

    // Subfile arrays first (structures), data after.
    let fska = m.alloc(l.fska[0], 8);
    let fmaa = m.alloc(l.fmaa[0], 8);
    let bs = l.bone[0];
    let bones = m.alloc(2 * bs, 8);
    let base0 = m.alloc(40, 4);
    let curves0 = m.alloc(0x30, 8);
    let curves1 = m.alloc(2 * 0x30, 8);
    let mats = m.alloc(0x40, 8);
    let params = m.alloc(0x18, 8);
    let pats = m.alloc(2 * 0x10, 8);
    let mcurves = m.alloc(2 * 0x30, 8);
    let consts = m.alloc(2 * 8, 8);
    let texnames = m.alloc(3 * 8, 8);

    // FSKA header: flags 0x104 = loop (bit 2) + standard scale (bits 8-9 = 1), quaternion mode.
    m.bytes(fska, b"FSKA");
    m.u64(hdr + l.h_fska, fska as u64);
    m.u16(hdr + l.h_fska_n, 1);
    m.u64(fska + l.fska[2], bones as u64);
    m.u32(fska + l.fska[3], 0x104);
    m.u32(fska + l.fska[4], 10); // frameCount
    m.u32(fska + l.fska[5], 3); // curveCount
    m.u16(fska + l.fska[6], 2); // boneAnimCount
    let bf = l.bone[1];

    // Bone 0 "Root": base scale (1,1,1), rotate (0,0,0,1), translate (1,2,3); one curve TX.
    let b0 = bones;
    m.u64(b0 + 0x08, curves0 as u64);
    m.u64(b0 + 0x10, base0 as u64);
    m.u32(b0 + bf, 0x38 | 1 << 13);
    m.bytes(b0 + bf + 4, &[3, 6, 1, 7]); // beginRotate, beginTranslate, curveCount, beginBaseTranslate
    m.u32(b0 + bf + 8, 0); // beginCurve
    m.bytes(base0, &f32s(&[1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 3.0]));
    // TX: cubic (type 0), f32 keys (0), f32 frames (0) => flags 0; frames 0, 10;
    // rows (1, 3, 0, 0), (4, 0, 0, 0); scale 1, offset 0.
    m.curve(
        curves0,
        0x0000,
        0x10,
        &f32s(&[0.0, 10.0]),
        &f32s(&[1.0, 3.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0]),
        2,
        [0.0, 10.0],
        [1f32.to_bits(), 0],
        3.0,
    );

    // Bone 1 "Arm": no base data; curves TY (bit 14) and TZ (bit 15); beginCurve 1.
    let b1 = bones + bs;
    m.u64(b1 + 0x08, curves1 as u64);
    m.u32(b1 + bf, 1 << 14 | 1 << 15);
    m.bytes(b1 + bf + 4, &[0, 0, 2, 0]);
    m.u32(b1 + bf + 8, 1);
    // TY: cubic, s16 keys (key type 1 => 0x04), u8 frames (2) => flags 0x0006; frames 0, 4;
    // rows (0, 8, 0, 0), (8, 0, 0, 0); scale 0.5, offset 10.
    let ty_keys: Vec<u8> = [0i16, 8, 0, 0, 8, 0, 0, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    m.curve(curves1, 0x0006, 0x14, &[0, 4], &ty_keys, 2, [0.0, 4.0], [0.5f32.to_bits(), 10f32.to_bits()], 4.0);
    // TZ: linear (type 1 => 0x10), s8 keys (2 => 0x08), 10.5 frames (1) => flags 0x0019;
    // frames 0 and 2.5 (raw 0, 80); rows (2, 4), (6, 0); scale 0.25, offset 0.
    let tz_frames: Vec<u8> = [0i16, 80].iter().flat_map(|v| v.to_le_bytes()).collect();
    let tz_keys: Vec<u8> = [2i8, 4, 6, 0].iter().map(|&v| v as u8).collect();
    m.curve(curves1 + 0x30, 0x0019, 0x18, &tz_frames, &tz_keys, 2, [0.0, 2.5], [0.25f32.to_bits(), 0], 1.0);

    // FMAA header: flags 4 (loop), frameCount 20, 1 material, 2 curves, 3 textures.
    m.bytes(fmaa, b"FMAA");
    m.u64(hdr + l.h_fmaa, fmaa as u64);
    m.u16(hdr + l.h_fmaa_n, 1);
    m.u64(fmaa + l.fmaa[2], mats as u64);
    m.u64(fmaa + l.fmaa[3], texnames as u64);
    m.u16(fmaa + l.fmaa[4], 4);
    m.u16(fmaa + l.fmaa[5], 1); // material count
    m.u16(fmaa + l.fmaa[6], 2); // curve count
    m.u32(fmaa + l.fmaa[7], 20); // frameCount
    m.u16(fmaa + l.fmaa[8], 1); // param anim count
    m.u16(fmaa + l.fmaa[9], 2); // pattern anim count
    m.u16(fmaa + l.fmaa[10], 3); // texture count

    // Material "Mat0": 1 param info, 2 pattern infos, 2 constants, 2 curves.
    m.u64(mats + 0x08, params as u64);
    m.u64(mats + 0x10, pats as u64);
    m.u64(mats + 0x18, mcurves as u64);
    m.u64(mats + 0x20, consts as u64);
    m.u16(mats + 0x28, 0); // begin param curve
    m.u16(mats + 0x2A, 1); // begin pattern curve
    m.u16(mats + 0x2E, 0xFFFF); // visibility curve: none
    m.u16(mats + 0x30, 0xFFFF); // visibility constant: none
    m.u16(mats + 0x32, 1);
    m.u16(mats + 0x34, 2);
    m.u16(mats + 0x36, 2);
    m.u16(mats + 0x38, 2);
    // ParamAnimInfo "albedo_color": beginCurve 0, 1 float curve, 0 int, beginConstant 0, 1 constant.
    m.u16(params + 0x08, 0);
    m.u16(params + 0x0A, 1);
    m.u16(params + 0x0C, 0);
    m.u16(params + 0x0E, 0);
    m.u16(params + 0x10, 1);
    m.u16(params + 0x12, 0xFFFF);
    // PatternAnimInfo "_a0": curve 1, no constant, subBind -1; "_n0": no curve, constant 1.
    m.u16(pats + 0x08, 1);
    m.u16(pats + 0x0A, 0xFFFF);
    m.u8(pats + 0x0C, 0xFF);
    m.u16(pats + 0x18, 0xFFFF);
    m.u16(pats + 0x1A, 1);
    m.u8(pats + 0x1C, 0xFF);
    // Curve 0 (param, target 0x04): cubic f32, frames 0, 20; rows (0.5, 0.5, 0, 0), (1, 0, 0, 0).
    m.curve(
        mcurves,
        0x0000,
        0x04,
        &f32s(&[0.0, 20.0]),
        &f32s(&[0.5, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
        2,
        [0.0, 20.0],
        [1f32.to_bits(), 0],
        0.5,
    );
    // Curve 1 (pattern): step int (type 4 => 0x40), s8 keys (0x08), u8 frames (2) => 0x004A;
    // frames 0, 5, 10; keys -1, 1, 0; offset 1 => indices 0, 2, 1.
    m.curve(mcurves + 0x30, 0x004A, 0, &[0, 5, 10], &[0xFF, 1, 0], 3, [0.0, 10.0], [0, 1], 1.0);
    // Constants: (0x00, 0.25f) for the param; (0, 2) for pattern "_n0".
    m.u32(consts, 0);
    m.f32(consts + 4, 0.25);
    m.u32(consts + 8, 0);
    m.u32(consts + 12, 2);

    // String pool.
    let pool = m.alloc(0x14, 8);
    m.bytes(pool, b"_STR");
    m.u32(pool + 0x10, 9);
    let names = ["Arm", "Blink", "Mat0", "Root", "TexA", "TexB", "TexC", "Walk", "_a0", "_n0", "albedo_color", "demo"];
    let mut at = std::collections::HashMap::new();
    for n in names {
        at.insert(n, m.string(n) as u64);
    }
    m.u64(hdr + 0x20, at["demo"]);
    m.u32(hdr + 0x10, at["demo"] as u32 + 2);
    m.u64(fska + l.fska[1], at["Walk"]);
    m.u64(b0, at["Root"]);
    m.u64(b1, at["Arm"]);
    m.u64(fmaa + l.fmaa[1], at["Blink"]);
    m.u64(mats, at["Mat0"]);
    m.u64(params, at["albedo_color"]);
    m.u64(pats, at["_a0"]);
    m.u64(pats + 0x10, at["_n0"]);
    for (i, t) in ["TexA", "TexB", "TexC"].iter().enumerate() {
        m.u64(texnames + 8 * i, at[t]);
    }
    m.u64(hdr + l.h_str, pool as u64);
    // Relocation table (no sections; not interpreted by the reader), 256-aligned at the end.
    let rlt = m.alloc(0x10, 256);
    m.bytes(rlt, b"_RLT");
    m.u32(rlt + 4, rlt as u32);
    m.u32(hdr + 0x18, rlt as u32);
    let size = m.b.len() as u32;
    m.u32(hdr + 0x1C, size);
    m.b
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * (1.0 + b.abs())
}

#[test]
fn switch_fska_and_fmaa_read_and_convert() {
    check(&build(), "0.5.0.3 (Switch)", 5);
}

#[test]
fn switch_v9_layout_reads_the_same() {
    check(&build_with(&V9), "0.9.0.0 (Switch)", 9);
}

#[test]
fn switch_v10_is_unsupported_not_misread() {
    let mut data = build();
    data[0x0A] = 10; // version 0.10.0.3
    let err = animkit::read(Bytes::from(data), None, &ReadOptions::default()).err().expect("0.10 rejected");
    assert_eq!(err.kind, animkit::ErrorKind::Unsupported, "{err}");
}

fn check(data: &[u8], version: &str, major: u8) {
    let data = data.to_vec();
    let doc = animkit::read(Bytes::from(data.clone()), None, &ReadOptions::default()).expect("read");
    assert_eq!(doc.format().name(), "bfres");
    assert_eq!(doc.version(), version);
    assert_eq!(doc.write().unwrap(), data, "read-only: write gives the bytes back");

    // Structure level.
    let header = fres::read_switch_header(&data).unwrap();
    assert_eq!((header.name.as_str(), header.stored.counts[1], header.stored.counts[2]), ("demo", 1, 1));
    let fska = fska::read(&data, header.stored.skeletal_animations[0] as usize, Platform::Switch { major }).unwrap();
    assert_eq!(fska.name, "Walk");
    assert_eq!((fska.frame_count, fska.curve_count, fska.bones.len()), (10, 3, 2));
    assert_eq!(fska.bones[0].translate, Some([1.0, 2.0, 3.0]));
    assert_eq!(fska.bones[1].begin_curve, 1);
    // TY at frame 2: t = 0.5, v = 8·0.5 = 4, 4·0.5 + 10 = 12.
    assert_eq!(fska.bones[1].curves[0].eval(2.0).as_f32(), 12.0);
    // TZ frames are 10.5 fixed: raw 80 / 32 = 2.5.
    assert_eq!(fska.bones[1].curves[1].frames, vec![0.0, 2.5]);

    let pkg = doc.to_model().expect("to_model");
    assert_eq!(pkg.name, "demo");
    assert_eq!(pkg.clips.len(), 2);

    // FSKA clip at 30 fps: duration 10/30 s, looping.
    let walk = &pkg.clips[0];
    assert_eq!(walk.name, "Walk");
    assert!(close(walk.duration, 10.0 / 30.0));
    assert_eq!(walk.looping, Some(true));
    let root = Target::Bone(BoneRef::named("Root"));
    let arm = Target::Bone(BoneRef::named("Arm"));
    // Root: scale (constant base), rotation (base quaternion), translation (cubic).
    let tr = walk
        .tracks
        .iter()
        .find(|t| t.target == root && matches!(t.values, Values::Translation(_)))
        .expect("Root translation");
    assert_eq!(tr.interpolation, Interpolation::CubicSpline);
    assert_eq!(tr.times.len(), 2);
    assert!(close(tr.times[1], 10.0 / 30.0));
    let Values::Translation(v) = &tr.values else { unreachable!() };
    // Key 0: value (1, 2, 3); out-tangent X = c1/Δ·fps = 3/10·30 = 9; Y, Z constant base.
    assert_eq!(v[1].to_array(), [1.0, 2.0, 3.0]);
    assert!(close(v[2].x, 9.0), "{}", v[2]);
    // Key 1: value X = 1 + 3 = 4; in-tangent X = (c1 + 2c2 + 3c3)/Δ·fps = 9.
    assert_eq!(v[4].to_array(), [4.0, 2.0, 3.0]);
    assert!(close(v[3].x, 9.0), "{}", v[3]);
    assert!(walk
        .tracks
        .iter()
        .any(|t| t.target == root && matches!(&t.values, Values::Scale(s) if s[1].to_array() == [1.0, 1.0, 1.0])));
    assert!(walk.tracks.iter().any(
        |t| t.target == root && matches!(&t.values, Values::Rotation(q) if q[1].to_array() == [0.0, 0.0, 0.0, 1.0])
    ));

    // Arm: translation at the union of TY frames {0, 4} and TZ frames {0, 2.5}.
    let tr = walk.tracks.iter().find(|t| t.target == arm).expect("Arm translation");
    assert_eq!(walk.tracks.iter().filter(|t| t.target == arm).count(), 1);
    let Values::Translation(v) = &tr.values else { panic!("Arm: {:?}", tr.values) };
    assert_eq!(tr.times.len(), 3);
    assert!(close(tr.times[1], 2.5 / 30.0) && close(tr.times[2], 4.0 / 30.0));
    // Frame 0: Y = 0·0.5 + 10 = 10; Z = 2·0.25 = 0.5.
    // Frame 2.5: Y: t = 0.625, 8·0.625 = 5, 5·0.5 + 10 = 12.5; Z = (6 + 0)·0.25 = 1.5.
    // Frame 4: Y = 8·0.5 + 10 = 14; Z holds 1.5.
    let values: Vec<[f32; 3]> = (0..3).map(|k| v[3 * k + 1].to_array()).collect();
    for (got, want) in values.iter().zip([[0.0, 10.0, 0.5], [0.0, 12.5, 1.5], [0.0, 14.0, 1.5]]) {
        assert!(got.iter().zip(want).all(|(a, b)| close(*a, b)), "{got:?} vs {want:?}");
    }
    // Out-tangent of Y at frame 0: c1·scale/Δ·fps = 8·0.5/4·30 = 30; of Z: 4·0.25/2.5·30 = 12.
    assert!(close(v[2].y, 30.0) && close(v[2].z, 12.0), "{}", v[2]);

    // FMAA clip: param curve, param constant, two texture patterns.
    let blink = &pkg.clips[1];
    assert_eq!(blink.name, "Blink");
    assert_eq!(blink.looping, Some(true));
    assert!(close(blink.duration, 20.0 / 30.0));
    let by_prop = |p: &str| {
        blink
            .tracks
            .iter()
            .find(
                |t| matches!(&t.target, Target::Material { material, property } if &**material == "Mat0" && &**property == p),
            )
            .unwrap_or_else(|| panic!("no track {p}: {:?}", blink.tracks.iter().map(|t| &t.target).collect::<Vec<_>>()))
    };
    let curve = by_prop("albedo_color.[+0x04]");
    let Values::Scalar(s) = &curve.values else { panic!() };
    // Keys at frames 0 and 20: values 0.5 and 0.5 + 0.5 = 1.0; out-tangent 0.5/20·30 = 0.75.
    assert_eq!(curve.interpolation, Interpolation::CubicSpline);
    assert!(close(s[1], 0.5) && close(s[4], 1.0) && close(s[2], 0.75), "{s:?}");
    let constant = by_prop("albedo_color.[+0x00]");
    assert_eq!(constant.values, Values::Scalar(vec![0.25]));
    let textures: std::sync::Arc<[String]> = ["TexA", "TexB", "TexC"].map(String::from).into();
    let a0 = by_prop("_a0");
    assert_eq!(a0.interpolation, Interpolation::Step);
    assert!(close(a0.times[1], 5.0 / 30.0) && close(a0.times[2], 10.0 / 30.0));
    // Keys -1, 1, 0 plus offset 1.
    assert_eq!(a0.values, Values::TextureIndex { indices: vec![0, 2, 1], textures: textures.clone() });
    let n0 = by_prop("_n0");
    assert_eq!(n0.values, Values::TextureIndex { indices: vec![2], textures });
}

#[test]
fn switch_probe_and_dump_roundtrip() {
    let data = build();
    // For trying the CLI by hand: ANIMKIT_SWITCH_SAMPLE=/tmp/demo.bfres writes the file.
    if let Some(path) = std::env::var_os("ANIMKIT_SWITCH_SAMPLE") {
        std::fs::write(path, &data).unwrap();
    }
    let (format, _) = animkit::REGISTRY.by_name("bfres").unwrap();
    assert_eq!(format.probe(&data), animkit::Confidence::Certain);
    let doc = format.read(Bytes::from(data.clone()), &ReadOptions::default()).unwrap();
    let dumped = doc.dump().unwrap();
    let back = format.undump(dumped).unwrap();
    assert_eq!(back.write().unwrap(), data);
}

#[test]
fn switch_truncated_and_corrupted_give_errors() {
    for layout in [&V5, &V9] {
        truncate_and_corrupt(&build_with(layout));
    }
}

fn truncate_and_corrupt(data: &[u8]) {
    let data = data.to_vec();
    let (format, _) = animkit::REGISTRY.by_name("bfres").unwrap();
    let whole = |d: &[u8]| -> animkit::Result<()> {
        let doc = format.read(Bytes::from(d.to_vec()), &ReadOptions::default())?;
        doc.to_model().map(|_| ())
    };
    // The file-size field at 0x1C catches truncation inside the padding before `_RLT`.
    for n in 0..data.len() {
        let e = whole(&data[..n]).expect_err(&format!("truncated at {n}"));
        if n >= 0x10 {
            assert!(e.offset.is_some(), "no offset at {n}: {e}");
        }
    }
    // Flip each byte (several patterns): never a panic.
    for i in 0..data.len() {
        for x in [0xFF, 0x80, 0x01, 0x7F] {
            let mut d = data.clone();
            d[i] ^= x;
            let _ = whole(&d);
        }
    }
}

#[test]
fn switch_lint_checks_derived_counts() {
    let data = build();
    let doc = animkit::read(Bytes::from(data.clone()), None, &ReadOptions::default()).unwrap();
    assert!(doc.lint().is_empty(), "{:?}", doc.lint());
    // FSKA curveCount (at FSKA + 0x50) 3 -> 4: one finding, at the FSKA header.
    let fska = fres::read_switch_header(&data).unwrap().stored.skeletal_animations[0] as usize;
    let mut bad = data.clone();
    bad[fska + 0x50] = 4;
    let doc = animkit::read(Bytes::from(bad), None, &ReadOptions::default()).unwrap();
    let findings = doc.lint();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!((findings[0].code, findings[0].offset), ("bfres-switch-curve-count", Some(fska as u64)));
}
