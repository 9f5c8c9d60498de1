//! IFP conversions that lose nothing they need not lose, on the real corpus: a rewrite of an
//! unchanged file through the model keeps every stored key; ANP3 quantisation rounds to nearest;
//! bone tags of −1 stay −1; an empty animation name survives ANPK; IFP clips reach SKB bones
//! through a skeleton.

mod common;

use animkit::formats::ifp::bones::ped_tag;
use animkit::formats::ifp::canonical::until_nul;
use animkit::formats::ifp::raw::{AnimLink, Body, IfpFile, KeyKind};
use animkit::formats::ifp::IfpDocument;
use animkit::formats::Format;
use animkit::model::{Bone, Package, Skeleton, Values};
use animkit::{Bytes, Document, ReadOptions, WriteOptions};

fn read_with(bytes: &[u8], params: &[(&str, &str)]) -> Box<dyn Document> {
    let params = params.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect();
    animkit::read(Bytes::copy_from_slice(bytes), None, &ReadOptions { params, ..Default::default() }).expect("reads")
}

fn ifp(doc: &dyn Document) -> &IfpFile {
    &doc.downcast_ref::<IfpDocument>().expect("an IFP document").file
}

/// Writes `p` as the IFP `variant`; returns the bytes and the warnings.
fn write_ifp(p: &Package, variant: &str) -> (Vec<u8>, Vec<String>) {
    let options = WriteOptions { variant: Some(variant.into()), ..Default::default() };
    let written = animkit::formats::ifp::Ifp.from_model(p, &options).unwrap();
    (written.document.write().unwrap(), written.warnings)
}

/// One animated node as stored: name (before the NUL), tag (`None` in ANPK's 48-byte form, which
/// has no tag field), key layout, and the frame bytes.
#[derive(Debug, PartialEq)]
struct Node {
    name: Vec<u8>,
    tag: Option<i32>,
    layout: String,
    frames: Bytes,
}

/// Every animation's name and its nodes with frames, in file order.
fn stored(file: &IfpFile) -> Vec<(Vec<u8>, Vec<Node>)> {
    match &file.body {
        Body::V2(v2) => v2
            .animations
            .iter()
            .map(|a| {
                let nodes = a
                    .sequences
                    .iter()
                    .filter(|s| !s.frames.is_empty())
                    .map(|s| Node {
                        name: until_nul(&s.name).to_vec(),
                        tag: Some(s.bone_tag),
                        layout: format!("{:?}", s.frame_type),
                        frames: s.frames.clone(),
                    })
                    .collect();
                (until_nul(&a.name).to_vec(), nodes)
            })
            .collect(),
        Body::Anpk(anpk) => anpk
            .animations
            .iter()
            .map(|a| {
                let nodes = a
                    .objects
                    .iter()
                    .filter_map(|o| {
                        let keys = o.keys.as_ref()?;
                        Some(Node {
                            name: until_nul(&o.name).to_vec(),
                            tag: match o.link {
                                AnimLink::Tag(t) => Some(t),
                                AnimLink::Tree { .. } => None,
                            },
                            layout: format!("{:?}", keys.kind),
                            frames: keys.frames.clone(),
                        })
                    })
                    .collect();
                (until_nul(&a.name).to_vec(), nodes)
            })
            .collect(),
    }
}

/// The tag a node without one (ANPK's 48-byte form) is written with: the §4.5 table's, else −1.
fn written_tag(node: &Node) -> i32 {
    node.tag.unwrap_or_else(|| ped_tag(&String::from_utf8_lossy(&node.name)).unwrap_or(-1))
}

/// Issue item 1 (`ifp.md` §6 "order and norms kept"): every corpus file, read → model → written
/// in its own version, keeps every stored key: the same frame bytes (i16 integers or f32 bits,
/// quaternions unnormalised), names, layouts and tags, animation by animation. Where the file's
/// layout is canonical (it is what `repair` writes), the bytes are identical too.
#[test]
fn same_format_rewrite_through_the_model_keeps_every_stored_key() {
    let files = common::corpus_files("ifp");
    let (mut keys, mut identical, mut tree_form) = (0usize, Vec::new(), Vec::new());
    for (name, bytes) in &files {
        // KRTS scale is stored data too: keep it (by default the model drops it, as the games do).
        let doc = read_with(bytes, &[("scale", "keep")]);
        let original = ifp(doc.as_ref());
        let variant = if matches!(original.body, Body::Anpk(_)) { "anpk" } else { "anp3" };
        let (out, warnings) = write_ifp(&doc.to_model().unwrap(), variant);
        let back = read_with(&out, &[]);
        let (before, after) = (stored(original), stored(ifp(back.as_ref())));
        assert_eq!(before.len(), after.len(), "{name}");
        for ((a_name, a), (b_name, b)) in before.iter().zip(&after) {
            assert_eq!(a_name, b_name, "{name}");
            assert_eq!(a.len(), b.len(), "{name} {}", String::from_utf8_lossy(a_name));
            for (x, y) in a.iter().zip(b) {
                let at = format!("{name} {} {}", String::from_utf8_lossy(a_name), String::from_utf8_lossy(&x.name));
                assert_eq!((&x.name, &x.layout), (&y.name, &y.layout), "{at}");
                assert!(x.frames == y.frames, "{at}: frames differ");
                assert_eq!(Some(written_tag(x)), y.tag, "{at}: tag");
                keys += x.frames.len() / layout_size(&x.layout);
            }
        }
        // Bytes: the rewrite is the file's canonical form (what `repair` writes: sizes derived,
        // name tails zeroed, tail dropped), so a canonical file comes back byte for byte. The one
        // exception is ANPK's 48-byte ANIM form, which the writer replaces by the tagged 44-byte
        // form (§6: the 48-byte form only with valid child/sibling indices).
        let canonical = doc.repair().unwrap().document.write().unwrap();
        if has_tree_form(original) {
            tree_form.push(name.as_str());
            continue;
        }
        assert!(out == canonical, "{name}: the rewrite is not the canonical form ({warnings:?})");
        if canonical == *bytes {
            identical.push(name.as_str());
        }
    }
    if !files.is_empty() {
        assert_eq!(files.len(), 9);
        assert!(!identical.is_empty());
        eprintln!(
            "{keys} stored keys kept in 9 files; byte-identical: {identical:?}; canonical form of the \
             others, except the 48-byte ANIM form in {tree_form:?}"
        );
    }
}

/// Whether an ANPK file uses the 48-byte ANIM form anywhere.
fn has_tree_form(file: &IfpFile) -> bool {
    match &file.body {
        Body::Anpk(a) => {
            a.animations.iter().flat_map(|an| &an.objects).any(|o| matches!(o.link, AnimLink::Tree { .. }))
        }
        Body::V2(_) => false,
    }
}

fn layout_size(layout: &str) -> usize {
    match layout {
        "Rot" | "R" => 20,
        "RotTrans" | "Rt" => 32,
        "RotCompressed" => 10,
        "RotTransCompressed" => 16,
        "Rts" => 44,
        other => panic!("layout {other}"),
    }
}

fn f32_at(frame: &[u8], i: usize) -> f64 {
    f64::from(f32::from_le_bytes(frame[4 * i..4 * i + 4].try_into().unwrap()))
}

fn i16_at(frame: &[u8], i: usize) -> f64 {
    f64::from(i16::from_le_bytes(frame[2 * i..2 * i + 2].try_into().unwrap()))
}

/// Issue items 3 and 4 on VC `ped.ifp` → ANP3. Expected values come from the VC file's own f32
/// fields (conjugated, §4.1), in f64, not from the writer: every compressed key is within half a
/// step of them (rotation ×4096, translation ×1024, time ×60), and truncation, the old encoder,
/// would have been further off in most keys. Animations whose values overflow i16 are written
/// as floats: their frames hold the same f32 values. Tags: a stored tag, −1 included, stays; the
/// 48-byte form gets the §4.5 table's tag.
#[test]
fn vc_to_anp3_rounds_to_nearest_and_keeps_tags() {
    let Some(bytes) = common::corpus_file("ifp", "vc_ped_anpk.ifp") else { return };
    let vc = read_with(&bytes, &[]);
    let (out, _) = write_ifp(&vc.to_model().unwrap(), "anp3");
    let anp3 = read_with(&out, &[]);
    let (before, after) = (stored(ifp(vc.as_ref())), stored(ifp(anp3.as_ref())));
    assert_eq!(before.len(), after.len());
    let (mut compressed, mut float, mut truncation_off, mut minus_one) = (0usize, 0usize, 0usize, 0usize);
    let mut worst = 0f64;
    for ((anim, a), (_, b)) in before.iter().zip(&after) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x.name, y.name);
            assert_eq!(
                Some(written_tag(x)),
                y.tag,
                "{} {}",
                String::from_utf8_lossy(anim),
                String::from_utf8_lossy(&x.name)
            );
            minus_one += usize::from(x.tag == Some(-1));
            let kind = match x.layout.as_str() {
                "R" => KeyKind::R,
                "Rt" => KeyKind::Rt,
                _ => KeyKind::Rts,
            };
            let n = kind.frame_size() / 4;
            for (src, dst) in x.frames.chunks(kind.frame_size()).zip(y.frames.chunks(layout_size(&y.layout))) {
                let q = [-f32_at(src, 0), -f32_at(src, 1), -f32_at(src, 2), f32_at(src, 3)];
                let t = (kind != KeyKind::R).then(|| [f32_at(src, 4), f32_at(src, 5), f32_at(src, 6)]);
                let time = f32_at(src, n - 1);
                if y.layout.contains("Compressed") {
                    let mut pairs: Vec<(f64, f64)> = (0..4).map(|c| (q[c] * 4096.0, i16_at(dst, c))).collect();
                    pairs.push((time * 60.0, i16_at(dst, 4)));
                    if let Some(t) = t {
                        pairs.extend((0..3).map(|c| (t[c] * 1024.0, i16_at(dst, 5 + c))));
                    }
                    for &(exact, stored) in &pairs {
                        worst = worst.max((exact - stored).abs());
                    }
                    // The old encoder truncated rotation and translation (not time).
                    let trunc_err = |(e, _): &(f64, f64)| (e - e.trunc()).abs() > 0.5;
                    truncation_off += usize::from(pairs.iter().enumerate().any(|(i, p)| i != 4 && trunc_err(p)));
                    compressed += 1;
                } else {
                    let stored: Vec<f64> = (0..layout_size(&y.layout) / 4).map(|i| f32_at(dst, i)).collect();
                    assert_eq!(&stored[..4], &q[..], "float frame rotation");
                    assert_eq!(stored[4], time);
                    if let Some(t) = t {
                        assert_eq!(&stored[5..8], &t[..]);
                    }
                    float += 1;
                }
            }
        }
    }
    eprintln!(
        "VC → ANP3: {compressed} compressed keys, worst {worst} steps off (truncation: {truncation_off} keys > ½ step); \
         {float} float keys exact; {minus_one} nodes with tag −1 kept"
    );
    assert!(worst <= 0.5, "a key is {worst} steps off");
    assert!(compressed > 90_000 && truncation_off > 70_000, "{compressed} {truncation_off}");
    assert!(minus_one > 0);
}

/// Issue item 4 on SA: ANP3 → ANPK keeps every tag (−1 too) in the 44-byte ANIM form.
#[test]
fn sa_to_anpk_keeps_tags() {
    let Some(bytes) = common::corpus_file("ifp", "sa_ped_anp3.ifp") else { return };
    let sa = read_with(&bytes, &[]);
    let (out, _) = write_ifp(&sa.to_model().unwrap(), "anpk");
    let anpk = read_with(&out, &[]);
    let (before, after) = (stored(ifp(sa.as_ref())), stored(ifp(anpk.as_ref())));
    let mut minus_one = 0;
    for ((_, a), (_, b)) in before.iter().zip(&after) {
        let tags = |n: &[Node]| n.iter().map(|x| x.tag).collect::<Vec<_>>();
        assert_eq!(tags(a), tags(b));
        minus_one += a.iter().filter(|x| x.tag == Some(-1)).count();
    }
    eprintln!("SA → ANPK: {minus_one} nodes with tag −1 kept");
    assert!(minus_one > 0);
}

/// Issue item 2: an animation with an empty name (`covers.ifp`'s empty animation) becomes an
/// ANPK `NAME` chunk of size 1 (`strlen + 1`, §2.2), which reads back, and back again to ANP3.
#[test]
fn an_empty_animation_name_survives_anpk() {
    let Some(bytes) = common::corpus_file("ifp", "covers_flags0.ifp") else { return };
    let model = read_with(&bytes, &[]).to_model().unwrap();
    let empty = model.clips.iter().position(|c| c.name.is_empty()).expect("covers.ifp has an unnamed animation");
    let (out, _) = write_ifp(&model, "anpk");
    let anpk = read_with(&out, &[]);
    let Body::Anpk(raw) = &ifp(anpk.as_ref()).body else { panic!("ANPK") };
    assert_eq!(raw.animations[empty].name_chunk.size, 1);
    assert_eq!(&raw.animations[empty].name[..], &[0, 0, 0, 0]);
    assert!(anpk.lint().iter().all(|f| f.code != "name-payload"), "{:?}", anpk.lint());
    let again = anpk.to_model().unwrap();
    assert_eq!(again.clips.len(), model.clips.len());
    assert_eq!(again.clips[empty].name, "");
    let (anp3, _) = write_ifp(&again, "anp3");
    assert_eq!(read_with(&anp3, &[]).to_model().unwrap().clips.len(), model.clips.len());
}

/// Issue item 5: SA `ped.ifp` clips → SKB. With a skeleton (here generated: every bone name of
/// the file, with its tag as id), each bone's tracks land on its skeleton index and read back at
/// the keys within SKB quantisation; without one, one line says that every track was dropped.
#[test]
fn ifp_clips_reach_skb_bones_through_a_skeleton() {
    let Some(bytes) = common::corpus_file("ifp", "sa_ped_anp3.ifp") else { return };
    let mut package = read_with(&bytes, &[]).to_model().unwrap();
    let clip = package.clip("run_civi").unwrap().clone();
    let mut bones: Vec<Bone> = Vec::new();
    for t in &clip.tracks {
        let b = t.target.bone().unwrap();
        let name = b.name.as_deref().unwrap().to_string();
        if !bones.iter().any(|x| x.name == name) {
            bones.push(Bone { name, id: b.id, ..Default::default() });
        }
    }
    package.clips = vec![clip.clone()];
    let skb = animkit::REGISTRY.by_name("skb").unwrap().0;
    let options = WriteOptions { variant: Some("skb-le".into()), ..Default::default() };

    let unbound = skb.from_model(&package, &options);
    let warnings = match &unbound {
        Ok(w) => w.warnings.clone(),
        Err(e) => panic!("{e}"),
    };
    let n = clip.tracks.len();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains(&format!("{n} of {n} tracks dropped")), "{}", warnings[0]);

    package.skeleton = Some(Skeleton { bones: bones.clone() });
    let written = skb.from_model(&package, &options).unwrap();
    assert!(written.warnings.is_empty(), "{:?}", written.warnings);
    let out = written.document.write().unwrap();
    let back = animkit::read(Bytes::from(out), None, &ReadOptions::default()).unwrap().to_model().unwrap();
    let got = &back.clips[0];
    assert_eq!(got.tracks.len(), 2 * bones.len());
    for t in &clip.tracks {
        let bone = bones.iter().position(|b| Some(b.name.as_str()) == t.target.bone().unwrap().name.as_deref());
        let index = bone.unwrap() as u32;
        let g = got
            .tracks
            .iter()
            .find(|g| g.target.bone().unwrap().index == Some(index) && g.channel() == t.channel())
            .unwrap();
        // SKB keys every bone at its own key times (plus 0 and the end).
        for (i, time) in t.times.iter().enumerate() {
            let k = g.times.iter().position(|x| x == time).unwrap_or_else(|| panic!("no key at {time}"));
            match (&t.values, &g.values) {
                (Values::Rotation(a), Values::Rotation(b)) => {
                    let d = a[i].normalize().dot(b[k].normalize()).abs();
                    assert!(d > 1.0 - 1e-6, "{} key {i}: {:?} vs {:?}", t.target.label(), a[i], b[k]);
                }
                (Values::Translation(a), Values::Translation(b)) => {
                    assert!((a[i] - b[k]).abs().max_element() < 1e-3, "{} key {i}", t.target.label());
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
