//! Generated FTXP files over every curve shape the spec allows (§3, §4, §5): frame types (f32,
//! 10.5, u8), key types (32-bit, s16, s8), curve types (step/baked int and bool, cubic, linear,
//! baked float), pre and post wrap (clamp, repeat, mirror), offsets up to ±2^31 and both header
//! layouts (3.3.0.0 and 4.5.0.3), looping or not. Each file is written by the library's writer;
//! its model's frame → texture table must equal an evaluator written here from the spec (not the
//! library's `Curve::eval`) at every integer frame, before the first key, after the last and
//! over several loops, and no file may be refused.

use animkit::formats::bfres::build::{write_file, Subfile};
use animkit::formats::bfres::curve::Curve;
use animkit::formats::bfres::ftxp::{Ftxp, MaterialPattern, PatternInfo};
use animkit::model::Values;
use animkit::sample::{sample_track, Sampled};
use animkit::{Bytes, ReadOptions};

const TEXTURES: usize = 32;
const FRAME_COUNT: i32 = 24;
const FPS: f32 = 30.0;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Ty {
    StepInt,
    BakedInt,
    StepBool,
    BakedBool,
    Cubic,
    Linear,
    BakedFloat,
}

impl Ty {
    fn bits(self) -> u16 {
        match self {
            Ty::Cubic => 0,
            Ty::Linear => 1,
            Ty::BakedFloat => 2,
            Ty::StepInt => 4,
            Ty::BakedInt => 5,
            Ty::StepBool => 6,
            Ty::BakedBool => 7,
        }
    }
    fn baked(self) -> bool {
        matches!(self, Ty::BakedInt | Ty::BakedBool | Ty::BakedFloat)
    }
}

/// One generated curve as the spec describes it: frames, stored keys (int, bool bits or float
/// rows in stored units), scale and offset, wrap modes (0 clamp, 1 repeat, 2 mirror).
#[derive(Debug, Clone)]
struct Gen {
    ty: Ty,
    frame_type: u16,
    key_type: u16,
    pre: u16,
    post: u16,
    frames: Vec<f64>,
    ints: Vec<i64>,
    bits: Vec<bool>,
    rows: Vec<[f64; 4]>,
    scale: f32,
    offset_int: i32,
    offset_float: f32,
}

/// §5.1: a frame mapped into `start..=end` by the wrap modes (clamp leaves it for the search).
fn wrap(g: &Gen, f: f64) -> f64 {
    let (s, e) = (g.frames[0], *g.frames.last().unwrap());
    let l = e - s;
    let mode = if f < s {
        g.pre
    } else if f > e {
        g.post
    } else {
        return f;
    };
    match mode {
        1 => s + (f - s).rem_euclid(l),
        2 => {
            let m = (f - s).rem_euclid(2.0 * l);
            s + if m > l { 2.0 * l - m } else { m }
        }
        _ => f,
    }
}

/// §5.2: the largest `i` with `frame[i] <= f`, else 0.
fn key_at(g: &Gen, f: f64) -> usize {
    (0..g.frames.len()).rev().find(|&i| g.frames[i] <= f).unwrap_or(0)
}

/// §5.3: baked index `floor(f) - start`, clamped to the keys.
fn baked_at(g: &Gen, f: f64) -> usize {
    let n = g.ints.len().max(g.bits.len()).max(g.rows.len());
    ((f.floor() - g.frames[0]).max(0.0) as usize).min(n - 1)
}

/// The texture index the spec gives at animation frame `f` (already looped/clamped by the
/// animation): int curves `key + offset` in two's-complement 32-bit arithmetic, bools 0/1, float
/// curves `value·scale + offset` truncated.
fn expected(g: &Gen, f: f64) -> i64 {
    let f = wrap(g, f);
    let int = |k: i64| i64::from((k as i32).wrapping_add(g.offset_int));
    let float = |v: f64| (v * f64::from(g.scale) + f64::from(g.offset_float)).trunc() as i64;
    match g.ty {
        Ty::StepInt => int(g.ints[key_at(g, f)]),
        Ty::BakedInt => int(g.ints[baked_at(g, f)]),
        Ty::StepBool => i64::from(g.bits[key_at(g, f)]),
        Ty::BakedBool => i64::from(g.bits[baked_at(g, f)]),
        Ty::BakedFloat => {
            let k = baked_at(g, f);
            let (a, b) = (g.rows[k][0], g.rows.get(k + 1).map_or(g.rows[k][0], |r| r[0]));
            float(a + (b - a) * (f - f.floor()))
        }
        Ty::Cubic | Ty::Linear => {
            let i = key_at(g, f);
            let last = g.frames.len() - 1;
            if i == last || f < g.frames[0] {
                return float(g.rows[i][0]);
            }
            let t = (f - g.frames[i]) / (g.frames[i + 1] - g.frames[i]);
            let [c0, c1, c2, c3] = g.rows[i];
            float(((c3 * t + c2) * t + c1) * t + c0)
        }
    }
}

/// Key frames per frame type: u8 integers, 10.5 multiples of 1/32, f32 anything; the baked
/// curves need one key per integer frame.
fn frames_for(ty: Ty, frame_type: u16) -> Vec<f64> {
    if ty.baked() {
        return (4..=10).map(f64::from).collect();
    }
    match frame_type {
        2 => vec![4.0, 6.0, 9.0, 11.0],
        1 => vec![3.5, 5.25, 8.0, 10.96875],
        _ => vec![3.3, 5.7, 8.1, 10.9],
    }
}

/// Texture indices for `n` keys, all within `0..TEXTURES`, changing at each key.
fn indices(n: usize, salt: usize) -> Vec<i64> {
    (0..n).map(|i| ((i * 7 + salt * 5 + 3) % TEXTURES) as i64).collect()
}

/// The offsets each key type is tried with: s32 reaches ±2^31 (keys wrap in 32 bits there).
fn offsets(key_type: u16) -> Vec<i64> {
    match key_type {
        2 => vec![0, 100, -90],
        1 => vec![0, 30000, -20000],
        _ => vec![0, i64::from(i32::MAX) - 3, i64::from(i32::MIN) + 5],
    }
}

fn generate(ty: Ty, frame_type: u16, key_type: u16, pre: u16, post: u16, offset: i64, salt: usize) -> Gen {
    let frames = frames_for(ty, frame_type);
    let n = frames.len();
    let want = indices(n, salt);
    let mut g = Gen {
        ty,
        frame_type,
        key_type,
        pre,
        post,
        frames,
        ints: Vec::new(),
        bits: Vec::new(),
        rows: Vec::new(),
        scale: 1.0,
        offset_int: 0,
        offset_float: 0.0,
    };
    match ty {
        Ty::StepInt | Ty::BakedInt => {
            g.offset_int = offset as i32;
            // key = value - offset in 32-bit two's complement.
            g.ints = want.iter().map(|&v| i64::from((v as i32).wrapping_sub(offset as i32))).collect();
        }
        Ty::StepBool | Ty::BakedBool => g.bits = (0..n).map(|i| !(i + salt).is_multiple_of(3)).collect(),
        _ => {
            // Values v + 0.5 (away from integers) for indices v below 12 (so cubic coefficients
            // fit s8), stored as (v + 0.5 - offset) / scale.
            let want: Vec<i64> = (0..n).map(|i| ((i * 5 + salt) % 12) as i64).collect();
            let (scale, off) = match key_type {
                2 => (0.5f32, 6.0f32),
                1 => (1.0 / 64.0, 15.5),
                _ => (1.0, 0.0),
            };
            g.scale = scale;
            g.offset_float = off;
            let stored: Vec<f64> =
                want.iter().map(|&v| ((v as f64 + 0.5 - f64::from(off)) / f64::from(scale)).round()).collect();
            g.rows = (0..n)
                .map(|i| {
                    let p0 = stored[i];
                    match (ty, stored.get(i + 1)) {
                        // Hermite with zero slopes: c2 = 3Δ, c3 = -2Δ (§5.4).
                        (Ty::Cubic, Some(&p1)) => [p0, 0.0, 3.0 * (p1 - p0), -2.0 * (p1 - p0)],
                        (Ty::Linear, Some(&p1)) => [p0, p1 - p0, 0.0, 0.0],
                        _ => [p0, 0.0, 0.0, 0.0],
                    }
                })
                .collect();
        }
    }
    g
}

/// The library's curve for a generated one.
fn to_curve(g: &Gen, v34: bool) -> Curve {
    let stride = match g.ty {
        Ty::Cubic => 4,
        Ty::Linear => 2,
        _ => 1,
    };
    let keys: Vec<f64> = match g.ty {
        Ty::StepInt | Ty::BakedInt => g.ints.iter().map(|&k| k as f64).collect(),
        Ty::StepBool | Ty::BakedBool => g
            .bits
            .chunks(32)
            .map(|c| f64::from(c.iter().enumerate().fold(0u32, |w, (i, &b)| w | u32::from(b) << i)))
            .collect(),
        _ => g.rows.iter().flat_map(|r| r[..stride].to_vec()).collect(),
    };
    let key_type = if matches!(g.ty, Ty::StepBool | Ty::BakedBool) { 0 } else { g.key_type };
    let (scale_bits, offset_bits) = match g.ty {
        Ty::StepInt | Ty::BakedInt => (0, g.offset_int as u32),
        Ty::StepBool | Ty::BakedBool => (1, 0),
        _ => (g.scale.to_bits(), g.offset_float.to_bits()),
    };
    Curve {
        at: 0,
        flags: g.frame_type | key_type << 2 | g.ty.bits() << 4 | g.pre << 8 | g.post << 12,
        key_count: g.frames.len() as u16,
        target: 0,
        start: g.frames[0] as f32,
        end: *g.frames.last().unwrap() as f32,
        scale_bits,
        offset_bits,
        delta: v34.then_some(0.0),
        frames: g.frames.iter().map(|&f| f as f32).collect(),
        keys,
    }
}

const TYPES: [Ty; 7] = [Ty::StepInt, Ty::BakedInt, Ty::StepBool, Ty::BakedBool, Ty::Cubic, Ty::Linear, Ty::BakedFloat];

/// Every generated curve of one frame type, grouped by material: one material per (curve type,
/// key type), one sampler per (pre, post, offset).
fn materials(frame_type: u16) -> Vec<(String, Vec<Gen>)> {
    let mut out = Vec::new();
    for ty in TYPES {
        let key_types: &[u16] = if matches!(ty, Ty::StepBool | Ty::BakedBool) { &[0] } else { &[0, 1, 2] };
        for &key_type in key_types {
            let mut gens = Vec::new();
            let offs = if matches!(ty, Ty::StepInt | Ty::BakedInt) { offsets(key_type) } else { vec![0] };
            for pre in 0..3 {
                for post in 0..3 {
                    for &offset in &offs {
                        gens.push(generate(ty, frame_type, key_type, pre, post, offset, gens.len()));
                    }
                }
            }
            out.push((format!("Mt_{ty:?}_k{key_type}"), gens));
        }
    }
    out
}

fn ftxp(mats: &[(String, Vec<Gen>)], version: u32, looping: bool) -> Ftxp {
    let v34 = version >= 0x0304_0000;
    let (mut begin_curve, mut begin_info) = (0, 0);
    let materials = mats
        .iter()
        .map(|(name, gens)| {
            let m = MaterialPattern {
                name: name.clone(),
                begin_curve,
                begin_pat_anim: begin_info,
                infos: (0..gens.len())
                    .map(|i| PatternInfo { curve_index: i as i8, sub_bind_index: -1, sampler: format!("_s{i}") })
                    .collect(),
                curves: gens.iter().map(|g| to_curve(g, v34)).collect(),
                base_values: gens.iter().map(|g| expected(g, g.frames[0]) as u16).collect(),
            };
            begin_curve += gens.len() as i32;
            begin_info += gens.len() as i32;
            m
        })
        .collect();
    Ftxp {
        at: 0,
        name: "Gen_Matrix".into(),
        flags: if looping { 4 } else { 0 },
        frame_count: FRAME_COUNT,
        baked_size: 0,
        textures: (0..TEXTURES).map(|i| format!("Tex_{i:02}")).collect(),
        texture_ftex: Vec::new(),
        materials,
    }
}

/// The animation frame a sample at `f` shows (§5.1): looping wraps into `0..frameCount`,
/// otherwise it clamps to `0..=frameCount`.
fn animation_frame(f: i32, looping: bool) -> i32 {
    if looping {
        f.rem_euclid(FRAME_COUNT)
    } else {
        f.clamp(0, FRAME_COUNT)
    }
}

#[test]
fn every_curve_shape_evaluates_as_the_spec_says() {
    let mut checked = 0usize;
    let mut curves = 0usize;
    // Frames whose texture differs from what holding the first/last key gives (the wrap's work).
    let mut wrapped = 0usize;
    for version in [0x0303_0000u32, 0x0405_0003] {
        for frame_type in [0u16, 1, 2] {
            let mats = materials(frame_type);
            for looping in [false, true] {
                let a = ftxp(&mats, version, looping);
                let bytes = write_file("Gen", version, &[Subfile::Ftxp(&a)]).unwrap();
                let doc = animkit::read(Bytes::from(bytes.clone()), None, &ReadOptions::default()).unwrap();
                assert_eq!(doc.write().unwrap(), bytes, "write-back");
                let errors: Vec<_> =
                    doc.lint().into_iter().filter(|f| f.severity == animkit::lint::Severity::Error).collect();
                assert!(errors.is_empty(), "v{version:08X} frames {frame_type}: {errors:?}");
                let model = doc.to_model().unwrap_or_else(|e| panic!("v{version:08X} frames {frame_type}: {e}"));
                let clip = &model.clips[0];
                for (name, gens) in &mats {
                    for (i, g) in gens.iter().enumerate() {
                        curves += 1;
                        let label = format!("{name}._s{i}");
                        let track = clip.tracks.iter().find(|t| t.target.label() == label).unwrap();
                        let Values::TextureIndex { .. } = &track.values else { panic!("{label}") };
                        // Three loops' worth, from before the first key to well after the last.
                        for f in 0..=3 * FRAME_COUNT {
                            let shown = animation_frame(f, looping);
                            let want = expected(g, f64::from(shown));
                            let Some(Sampled::TextureIndex(got)) = sample_track(track, shown as f32 / FPS) else {
                                panic!("{label}: no sample")
                            };
                            assert_eq!(
                                i64::from(got),
                                want,
                                "v{version:08X} {label} {g:?} frame {f} (shows {shown}, looping {looping})"
                            );
                            checked += 1;
                            let held = Gen { pre: 0, post: 0, ..g.clone() };
                            wrapped += usize::from(expected(&held, f64::from(shown)) != want);
                        }
                    }
                }
            }
        }
    }
    // 2 versions × 3 frame types × 2 loop modes × (2 int types × 9 offsets·wraps × 3 key types +
    // 2 bool types × 9 + 3 float types × 3 key types × 9) curves.
    assert_eq!(curves, 2 * 3 * 2 * (2 * 27 * 3 + 2 * 9 + 3 * 3 * 9));
    assert_eq!(checked, curves * (3 * FRAME_COUNT as usize + 1));
    eprintln!("{curves} curves, {checked} frames checked, {wrapped} of them changed by a wrap mode");
    assert!(wrapped > checked / 10, "the wrap modes must matter on a good share of the frames");
}
