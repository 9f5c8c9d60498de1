//! IFP conversions that lose nothing they need not lose, on the real corpus: a rewrite of an
//! unchanged file through the model keeps every stored key; ANP3 quantisation rounds to nearest;
//! bone tags of −1 stay −1; an empty animation name survives ANPK; IFP clips reach SKB bones
//! through a skeleton.

mod common;

use animkit::format::Format;
use animkit::model::{Bone, Package, Skeleton, Values};
use animkit::{Bytes, Document, ReadOptions, WriteOptions};
use serde_json::Value;

fn read_with(bytes: &[u8], params: &[(&str, &str)]) -> Box<dyn Document> {
    let params = params.iter().map(|&(k, v)| (k.to_string(), v.to_string())).collect();
    animkit::read(Bytes::copy_from_slice(bytes), None, &ReadOptions::default().with_params(params)).expect("reads")
}

/// The raw structure of a document: its lossless JSON dump.
fn raw(doc: &dyn Document) -> Value {
    animkit::dump(doc).unwrap()["document"].take()
}

/// Writes `p` as the IFP `variant`; returns the bytes and the warnings.
fn write_ifp(p: &Package, variant: &str) -> (Vec<u8>, Vec<String>) {
    let options = WriteOptions::default().with_variant(variant);
    let written = animkit::formats::ifp::Ifp.from_model(p, &options).unwrap();
    (written.document.write().unwrap(), written.warnings)
}

/// One animated node as stored: name (before the NUL), tag (`None` in ANPK's 48-byte form, which
/// has no tag field), key layout, and the frames (one array of stored numbers per frame).
#[derive(Debug, PartialEq)]
struct Node {
    name: String,
    tag: Option<i32>,
    layout: String,
    frames: Vec<Value>,
}

/// A dumped name: a plain string, or `{"name": …, "after_nul": …}` when the buffer holds more.
fn name(v: &Value) -> String {
    v.as_str().or_else(|| v["name"].as_str()).expect("a name").to_string()
}

fn array(v: &Value) -> &Vec<Value> {
    v.as_array().expect("an array")
}

/// Every animation's name and its nodes with frames, in file order, from the dump.
fn stored(file: &Value) -> Vec<(String, Vec<Node>)> {
    let v2 = file["magic"] != "ANPK";
    let node = |n: &Value| -> Option<Node> {
        let (frames, layout, tag) = if v2 {
            let layout =
                ["Rot", "RotTrans", "RotCompressed", "RotTransCompressed"][n["frame_type"].as_u64()? as usize - 1];
            (&n["frames"], layout, n["bone_tag"].as_i64())
        } else {
            let keys = n.get("keys")?;
            let layout = match keys["id"].as_str()? {
                "KR00" => "R",
                "KRT0" => "Rt",
                _ => "Rts",
            };
            (&keys["frames"], layout, n["bone_tag"].as_i64())
        };
        let frames = array(frames).clone();
        (!frames.is_empty()).then(|| Node {
            name: name(&n["name"]),
            tag: tag.map(|t| t as i32),
            layout: layout.into(),
            frames,
        })
    };
    let nodes = if v2 { "sequences" } else { "objects" };
    array(&file["animations"])
        .iter()
        .map(|a| (name(&a["name"]), array(&a[nodes]).iter().filter_map(node).collect()))
        .collect()
}

/// The bone id the model gives each stored node (the rotation tracks, in file order): the tag a
/// node without one (ANPK's 48-byte form) is written with, or −1.
fn model_tags(p: &Package) -> Vec<Vec<i32>> {
    let rotation = |t: &&animkit::model::Track| matches!(t.values, Values::Rotation(_));
    p.clips
        .iter()
        .map(|c| c.tracks.iter().filter(rotation).map(|t| t.target.bone().unwrap().id.unwrap_or(-1)).collect())
        .collect()
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
        let original = raw(doc.as_ref());
        let variant = if original["magic"] == "ANPK" { "anpk" } else { "anp3" };
        let model = doc.to_model().unwrap();
        let (out, warnings) = write_ifp(&model, variant);
        let back = read_with(&out, &[]);
        let (before, after) = (stored(&original), stored(&raw(back.as_ref())));
        assert_eq!(before.len(), after.len(), "{name}");
        for (((a_name, a), (b_name, b)), tags) in before.iter().zip(&after).zip(model_tags(&model)) {
            assert_eq!(a_name, b_name, "{name}");
            assert_eq!(a.len(), b.len(), "{name} {a_name}");
            for ((x, y), model_tag) in a.iter().zip(b).zip(tags) {
                let at = format!("{name} {a_name} {}", x.name);
                assert_eq!((&x.name, &x.layout), (&y.name, &y.layout), "{at}");
                // Compared as JSON text: every f32 bit (−0.0 included) and every i16.
                let text = |n: &Node| serde_json::to_string(&n.frames).unwrap();
                assert!(text(x) == text(y), "{at}: frames differ");
                assert_eq!(Some(x.tag.unwrap_or(model_tag)), y.tag, "{at}: tag");
                keys += x.frames.len();
            }
        }
        // Bytes: the rewrite is the file's canonical form (what `repair` writes: sizes derived,
        // name tails zeroed, tail dropped), so a canonical file comes back byte for byte. The one
        // exception is ANPK's 48-byte ANIM form, which the writer replaces by the tagged 44-byte
        // form (§6: the 48-byte form only with valid child/sibling indices).
        let canonical = doc.repair().unwrap().document.write().unwrap();
        if has_tree_form(&original) {
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
fn has_tree_form(file: &Value) -> bool {
    file["magic"] == "ANPK"
        && array(&file["animations"]).iter().flat_map(|a| array(&a["objects"])).any(|o| o.get("tree").is_some())
}

/// Field `i` of a dumped frame: an f32 (its shortest decimal form) or an i16, exactly, as f64.
fn field(frame: &Value, i: usize) -> f64 {
    let v = &frame[i];
    v.as_i64().map_or_else(|| f64::from(v.as_f64().unwrap() as f32), |i| i as f64)
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
    let model = vc.to_model().unwrap();
    let (out, _) = write_ifp(&model, "anp3");
    let anp3 = read_with(&out, &[]);
    let (before, after) = (stored(&raw(vc.as_ref())), stored(&raw(anp3.as_ref())));
    assert_eq!(before.len(), after.len());
    let (mut compressed, mut float, mut truncation_off, mut minus_one) = (0usize, 0usize, 0usize, 0usize);
    let mut worst = 0f64;
    for (((anim, a), (_, b)), tags) in before.iter().zip(&after).zip(model_tags(&model)) {
        assert_eq!(a.len(), b.len());
        for ((x, y), model_tag) in a.iter().zip(b).zip(tags) {
            assert_eq!(x.name, y.name);
            assert_eq!(Some(x.tag.unwrap_or(model_tag)), y.tag, "{anim} {}", x.name);
            minus_one += usize::from(x.tag == Some(-1));
            for (src, dst) in x.frames.iter().zip(&y.frames) {
                // ANPK: q×4 (conjugated) [translation×3 [scale×3]] time; ANP3: q×4 time [translation×3].
                let n = array(src).len();
                let q = [-field(src, 0), -field(src, 1), -field(src, 2), field(src, 3)];
                let t = (x.layout != "R").then(|| [field(src, 4), field(src, 5), field(src, 6)]);
                let time = field(src, n - 1);
                if y.layout.contains("Compressed") {
                    let mut pairs: Vec<(f64, f64)> = (0..4).map(|c| (q[c] * 4096.0, field(dst, c))).collect();
                    pairs.push((time * 60.0, field(dst, 4)));
                    if let Some(t) = t {
                        pairs.extend((0..3).map(|c| (t[c] * 1024.0, field(dst, 5 + c))));
                    }
                    for &(exact, stored) in &pairs {
                        worst = worst.max((exact - stored).abs());
                    }
                    // The old encoder truncated rotation and translation (not time).
                    let trunc_err = |(e, _): &(f64, f64)| (e - e.trunc()).abs() > 0.5;
                    truncation_off += usize::from(pairs.iter().enumerate().any(|(i, p)| i != 4 && trunc_err(p)));
                    compressed += 1;
                } else {
                    let stored: Vec<f64> = (0..array(dst).len()).map(|i| field(dst, i)).collect();
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
    let (before, after) = (stored(&raw(sa.as_ref())), stored(&raw(anpk.as_ref())));
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
    let file = raw(anpk.as_ref());
    assert_eq!(file["magic"], "ANPK");
    assert_eq!(file["animations"][empty]["name_chunk"]["size"], 1);
    // A plain string in the dump is the name, its NUL and zeros to 4 bytes.
    assert_eq!(file["animations"][empty]["name"], "");
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
    let options = WriteOptions::default().with_variant("skb-le");

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
